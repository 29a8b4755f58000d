/**
 * @module core/numeric/qp-dual-newton
 * Dual semismooth Newton method with exact line search for the strictly convex, structured QP
 *
 *     minimize 1/2 x'(diag(d) + U diag(w) U')x + q'x   subject to  xl <= x <= xu,  l <= A x <= u
 *
 * with d > 0, w >= 0 (a zero weight drops its column), U dense n x kd and A sparse with few rows.
 * Lifting t = U'x and dualizing t = U'x (multiplier lambda) and A x = s, s in [l, u] (multiplier y):
 *
 *     g(lambda, y) = min_{x in box} [1/2 x'Dx + (q + U lambda + A'y)'x] - 1/2 lambda'diag(1/w)lambda
 *                    - sum_j max(l_j y_j, u_j y_j)
 *
 * is concave, piecewise quadratic, with x(lambda, y) = clip(-(q + U lambda + A'y) ./ d, xl, xu), and
 *
 *     grad_lambda g = U'x - lambda ./ w,   grad_y g = A x - s(y)
 *     -generalized Hessian M = B_F diag(1/d_F) B_F' + diag(1/w, 0),   B = [U'; A],  F = free variables,
 *
 * M being exactly the Woodbury capacity matrix of the free variables. Each iteration solves M dz = grad g
 * (a (kd + active rows)-sized Cholesky), and maximizes g exactly along dz: g is piecewise quadratic along
 * a ray, so its derivative is piecewise linear and decreasing, and the maximizer is found by walking the
 * sorted breakpoints (a variable entering/leaving its bounds, a range row's multiplier crossing zero).
 * M is maintained by rank-1 updates as variables enter or leave the free set, so an iteration costs
 * O(n kd + changes * kd^2 + kd^3) instead of O(n kd^2).
 *
 * When the active set is right the Newton step is exact, so the method terminates with a KKT point
 * accurate to rounding. Sources: the dual Newton strategy of qpDUNES (Frasch, Sager, Diehl, "A parallel
 * quadratic programming method for dynamic optimization problems", Math. Prog. Comp. 2015); semismooth
 * Newton with exact piecewise-quadratic line search as in QPALM (Hermans, Themelis, Patrinos, Math.
 * Prog. Comp. 2022); the primal-dual active-set view of Hintermueller, Ito, Kunisch (SIAM J. Optim. 2002).
 */
import { choleskyFactorInPlace, choleskySolveInPlace } from "./cholesky.js";
import type { SparseMatrix } from "./sparse-matrix.js";

/** Static structure of a {@link DualNewtonEngine}. */
export interface DualNewtonStructure {
  readonly n: number;
  /** Number of dense columns of U. */
  readonly kd: number;
  /** U, n x kd row-major. */
  readonly U: Float64Array;
  /** General rows A (m x n, CSR) and their transpose (n x m, CSR). */
  readonly A: SparseMatrix;
  readonly At: SparseMatrix;
}

/** Outcome of {@link DualNewtonEngine.solve}. */
export interface DualNewtonOutcome {
  /** `converged`: KKT to tolerance; `stalled`: no further progress (check the residuals); `diverged`: dual unbounded (primal likely infeasible). */
  readonly status: "converged" | "stalled" | "diverged" | "max_iter" | "time_limit";
  readonly iterations: number;
  /** Largest row violation (active rows: |a'x - s|; inactive rows: distance to [l, u]). */
  readonly primalResidual: number;
  /** Bound on the stationarity residual max_i |(U (w .* (U'x) - lambda))_i|. */
  readonly dualResidual: number;
}

/** Options of {@link DualNewtonEngine.solve}. */
export interface DualNewtonSolveOptions {
  readonly maxIter: number;
  /** Relative tolerance on both residuals. */
  readonly tolerance: number;
  readonly deadline?: () => boolean;
}

const ROW_INACTIVE = 0;
const ROW_UPPER = 1;
const ROW_LOWER = -1;
const ROW_EQUALITY = 2;

/**
 * The dual Newton solver state for one problem structure. Parameters (d, q, bounds, w, l, u) can be
 * changed between solves; the multipliers (lambda, y) are kept, which is the warm start.
 */
export class DualNewtonEngine {
  readonly n: number;
  readonly kd: number;
  readonly m: number;
  private readonly U: Float64Array;
  private readonly A: SparseMatrix;
  private readonly At: SparseMatrix;
  /** K = kd + m: order of the full capacity matrix. */
  private readonly K: number;

  // Parameters.
  d: Float64Array;
  q: Float64Array;
  xl: Float64Array;
  xu: Float64Array;
  w: Float64Array;
  l: Float64Array;
  u: Float64Array;

  // Dual iterate and derived primal state.
  readonly lambda: Float64Array;
  readonly y: Float64Array;
  readonly x: Float64Array;
  /** wv = q + U lambda + A'y. */
  private readonly wv: Float64Array;
  private readonly free: Uint8Array;
  private readonly rowState: Int8Array;
  /** Lower triangle of sum_{i free} b_i b_i' / d_i, b_i = [U_i; A_:i] (K x K row-major). */
  private readonly M: Float64Array;
  private mValid = false;
  /** Sum of |1/d_i| over rank-1 updates since the last rebuild, to bound drift. */
  private updatesSinceRebuild = 0;
  private freeCount = 0;
  /** Set by the line search when g increases without bound along the Newton direction. */
  private rayFound = false;
  /** Variables that entered or left the free set in the last update. */
  private lastChanges = 0;

  // Workspace.
  private readonly gl: Float64Array;
  private readonly ax: Float64Array;
  private readonly gy: Float64Array;
  private readonly dl: Float64Array;
  private readonly dy: Float64Array;
  private readonly dwv: Float64Array;
  private readonly idx: Int32Array;
  private readonly sub: Float64Array;
  private readonly rhs: Float64Array;
  private readonly changed: Int32Array;
  private readonly weights: Float64Array;
  private readonly evT: Float64Array;
  private readonly evI: Int32Array;
  private readonly evOrder: Int32Array;
  private readonly uRowAbs: number;

  constructor(
    structure: DualNewtonStructure,
    parameters: {
      d: Float64Array;
      q: Float64Array;
      xl: Float64Array;
      xu: Float64Array;
      w: Float64Array;
      l: Float64Array;
      u: Float64Array;
    },
  ) {
    const { n, kd, U, A, At } = structure;
    this.n = n;
    this.kd = kd;
    this.m = A.rows;
    this.U = U;
    this.A = A;
    this.At = At;
    this.K = kd + this.m;
    this.d = parameters.d;
    this.q = parameters.q;
    this.xl = parameters.xl;
    this.xu = parameters.xu;
    this.w = parameters.w;
    this.l = parameters.l;
    this.u = parameters.u;
    this.lambda = new Float64Array(kd);
    this.y = new Float64Array(this.m);
    this.x = new Float64Array(n);
    this.wv = new Float64Array(n);
    this.free = new Uint8Array(n);
    this.rowState = new Int8Array(this.m);
    this.M = new Float64Array(this.K * this.K);
    this.gl = new Float64Array(kd);
    this.ax = new Float64Array(this.m);
    this.gy = new Float64Array(this.m);
    this.dl = new Float64Array(kd);
    this.dy = new Float64Array(this.m);
    this.dwv = new Float64Array(n);
    this.idx = new Int32Array(this.K);
    this.sub = new Float64Array(this.K * this.K);
    this.rhs = new Float64Array(this.K);
    this.changed = new Int32Array(n);
    this.weights = new Float64Array(n);
    this.evT = new Float64Array(2 * n + this.m);
    this.evI = new Int32Array(2 * n + this.m);
    this.evOrder = new Int32Array(2 * n + this.m);
    let uMax = 0;
    for (let i = 0; i < n; i++) {
      let s = 0;
      for (let p = 0; p < kd; p++) s += Math.abs(U[i * kd + p]!);
      if (s > uMax) uMax = s;
    }
    this.uRowAbs = uMax;
  }

  /** Marks the capacity matrix stale (call after changing `d`). */
  invalidateFactor(): void {
    this.mValid = false;
  }

  /** Sets the dual iterate (lambda, y); missing parts become zero. */
  setDual(lambda?: Float64Array, y?: Float64Array): void {
    if (lambda) this.lambda.set(lambda);
    else this.lambda.fill(0);
    if (y) this.y.set(y);
    else this.y.fill(0);
  }

  /** Number of free (strictly inside their bounds) variables at the current iterate. */
  get freeVariables(): number {
    return this.freeCount;
  }

  /**
   * Runs Newton iterations from the current dual iterate until the KKT residuals fall below
   * `tolerance` (relative), the iterate stalls or diverges, or a limit is hit. On return `x`, `lambda`,
   * `y` hold the final iterate.
   */
  solve(options: DualNewtonSolveOptions): DualNewtonOutcome {
    const { n, kd, m } = this;
    // A multiplier on a side without a bound (possible in a warm start from ADMM) is reset to zero.
    for (let j = 0; j < m; j++) {
      const yj = this.y[j]!;
      if (
        (yj > 0 && this.u[j] === Number.POSITIVE_INFINITY) ||
        (yj < 0 && this.l[j] === Number.NEGATIVE_INFINITY)
      )
        this.y[j] = 0;
    }
    this.recomputeWv();
    let primalRes = Number.POSITIVE_INFINITY;
    let dualRes = Number.POSITIVE_INFINITY;
    let bestValue = Number.NEGATIVE_INFINITY;
    let lastRows = 0;
    let stall = 0;
    const scaleP = this.rowScale();
    const scaleD = this.costScale();
    let it = 0;
    for (; ; it++) {
      this.updatePrimal();
      this.computeGradient();
      primalRes = this.primalResidual();
      dualRes = this.dualResidualBound();
      if (primalRes <= options.tolerance * scaleP && dualRes <= options.tolerance * scaleD)
        return { status: "converged", iterations: it, primalResidual: primalRes, dualResidual: dualRes };
      // The dual objective rises monotonically (exact line search); stop when it no longer does.
      // Progress also means a new active set (a "pivot"), which is how degenerate, LP-like problems move.
      const value = this.dualValue();
      let rowSignature = 0;
      for (let j = 0; j < m; j++) rowSignature = (rowSignature * 31 + this.rowState[j]! + 2) | 0;
      if (
        value > bestValue + 1e-15 * (1 + Math.abs(bestValue)) ||
        this.lastChanges > 0 ||
        rowSignature !== lastRows
      ) {
        bestValue = Math.max(bestValue, value);
        stall = 0;
      } else if (++stall >= 10) {
        return { status: "stalled", iterations: it, primalResidual: primalRes, dualResidual: dualRes };
      }
      lastRows = rowSignature;
      if (it >= options.maxIter)
        return { status: "max_iter", iterations: it, primalResidual: primalRes, dualResidual: dualRes };
      if (options.deadline?.())
        return { status: "time_limit", iterations: it, primalResidual: primalRes, dualResidual: dualRes };
      if (!this.newtonDirection())
        return { status: "stalled", iterations: it, primalResidual: primalRes, dualResidual: dualRes };
      // dwv = U dl + A'dy.
      const { U, dl, dy, dwv } = this;
      const At = this.At;
      for (let i = 0; i < n; i++) {
        let s = 0;
        const o = i * kd;
        for (let p = 0; p < kd; p++) s += U[o + p]! * dl[p]!;
        for (let e = At.rowStart[i]!; e < At.rowStart[i + 1]!; e++)
          s += At.values[e]! * dy[At.columnIndex[e]!]!;
        dwv[i] = s;
      }
      this.rayFound = false;
      const alpha = this.lineSearch();
      if (this.rayFound)
        return { status: "diverged", iterations: it + 1, primalResidual: primalRes, dualResidual: dualRes };
      if (!(alpha > 0))
        return { status: "stalled", iterations: it, primalResidual: primalRes, dualResidual: dualRes };
      const lam = this.lambda;
      for (let p = 0; p < kd; p++) lam[p]! += alpha * dl[p]!;
      const y = this.y;
      let yMax = 0;
      for (let j = 0; j < m; j++) {
        if (dy[j] === 0) continue;
        const yj = y[j]!;
        const nj = yj + alpha * dy[j]!;
        // Snap to the kink when the step lands on it (up to rounding).
        y[j] =
          this.rowState[j] !== ROW_EQUALITY &&
          Math.abs(nj) <= 1e-14 * (Math.abs(yj) + Math.abs(alpha * dy[j]!))
            ? 0
            : nj;
        if (Math.abs(y[j]!) > yMax) yMax = Math.abs(y[j]!);
      }
      const wv = this.wv;
      for (let i = 0; i < n; i++) wv[i]! += alpha * dwv[i]!;
      if (yMax > 1e18 * scaleD || !Number.isFinite(yMax))
        return { status: "diverged", iterations: it + 1, primalResidual: primalRes, dualResidual: dualRes };
      // Refresh wv from scratch now and then so incremental updates do not drift.
      if ((it + 1) % 16 === 0) this.recomputeWv();
    }
  }

  /**
   * First-order response of x to a change `dq` of the linear cost with the active set held fixed:
   * solves M_sub dz = -B_F D_F^{-1} dq_F and returns dx_F = -D_F^{-1}(dq_F + B_F' dz), dx = 0 off F.
   * Used for the derivative of the risk with respect to the risk multiplier. Returns false on breakdown.
   */
  sensitivity(dq: Float64Array, out: Float64Array): boolean {
    const { n, kd, m, U, d, free, gl, gy, rowState } = this;
    const At = this.At;
    this.updatePrimal();
    gl.fill(0);
    gy.fill(0);
    for (let i = 0; i < n; i++) {
      if (free[i] !== 1 || dq[i] === 0) continue;
      const v = -dq[i]! / d[i]!;
      const o = i * kd;
      for (let p = 0; p < kd; p++) gl[p]! += U[o + p]! * v;
      for (let e = At.rowStart[i]!; e < At.rowStart[i + 1]!; e++)
        gy[At.columnIndex[e]!]! += At.values[e]! * v;
    }
    for (let j = 0; j < m; j++) if (rowState[j] === ROW_INACTIVE) gy[j] = 0;
    if (!this.factorAndSolve()) return false;
    const { dl, dy } = this;
    for (let i = 0; i < n; i++) {
      if (free[i] !== 1) {
        out[i] = 0;
        continue;
      }
      let s = dq[i]!;
      const o = i * kd;
      for (let p = 0; p < kd; p++) s += U[o + p]! * dl[p]!;
      for (let e = At.rowStart[i]!; e < At.rowStart[i + 1]!; e++)
        s += At.values[e]! * dy[At.columnIndex[e]!]!;
      out[i] = -s / d[i]!;
    }
    return true;
  }

  /** Dual objective g(lambda, y) at the current iterate (x and wv up to date). */
  private dualValue(): number {
    const { n, kd, m, d, x, wv, lambda, w, y, l, u } = this;
    let g = 0;
    for (let i = 0; i < n; i++) g += x[i]! * (0.5 * d[i]! * x[i]! + wv[i]!);
    for (let p = 0; p < kd; p++) if (w[p]! > 0) g -= (0.5 * lambda[p]! * lambda[p]!) / w[p]!;
    for (let j = 0; j < m; j++) {
      const yj = y[j]!;
      if (yj > 0) g -= u[j]! * yj;
      else if (yj < 0) g -= l[j]! * yj;
    }
    return g;
  }

  /** Typical magnitude of the row bounds, for relative primal tolerances. */
  private rowScale(): number {
    let s = 1;
    for (let j = 0; j < this.m; j++) {
      const l = this.l[j]!;
      const u = this.u[j]!;
      if (Number.isFinite(l) && Math.abs(l) > s) s = Math.abs(l);
      if (Number.isFinite(u) && Math.abs(u) > s) s = Math.abs(u);
    }
    return s;
  }

  /** Typical magnitude of the cost, for relative stationarity tolerances. */
  private costScale(): number {
    let s = 1;
    for (let i = 0; i < this.n; i++) if (Math.abs(this.q[i]!) > s) s = Math.abs(this.q[i]!);
    return s;
  }

  /** wv = q + U lambda + A'y from scratch. */
  private recomputeWv(): void {
    const { n, kd, U, lambda, y, wv, q } = this;
    const At = this.At;
    let anyLambda = false;
    for (let p = 0; p < kd; p++) if (lambda[p] !== 0) anyLambda = true;
    for (let i = 0; i < n; i++) {
      let s = q[i]!;
      if (anyLambda) {
        const o = i * kd;
        for (let p = 0; p < kd; p++) s += U[o + p]! * lambda[p]!;
      }
      for (let e = At.rowStart[i]!; e < At.rowStart[i + 1]!; e++) s += At.values[e]! * y[At.columnIndex[e]!]!;
      wv[i] = s;
    }
  }

  /** x = clip(-wv ./ d), the free set, and the capacity matrix for it. */
  private updatePrimal(): void {
    const { n, wv, d, xl, xu, x, free, changed } = this;
    let nChanged = 0;
    let freeCount = 0;
    for (let i = 0; i < n; i++) {
      const v = -wv[i]! / d[i]!;
      let f = 0;
      if (v <= xl[i]!) x[i] = xl[i]!;
      else if (v >= xu[i]!) x[i] = xu[i]!;
      else {
        x[i] = v;
        f = 1;
      }
      if (f !== free[i]) {
        changed[nChanged++] = i;
        free[i] = f;
      }
      freeCount += f;
    }
    this.freeCount = freeCount;
    this.lastChanges = nChanged;
    // Rebuild when cheaper than the updates, when stale, or when drift may have accumulated.
    if (!this.mValid || nChanged >= freeCount || this.updatesSinceRebuild > 4 * n) {
      this.rebuildCapacity();
      return;
    }
    const weights = this.weights;
    for (let c = 0; c < nChanged; c++) {
      const i = changed[c]!;
      weights[c] = free[i] === 1 ? 1 / d[i]! : -1 / d[i]!;
    }
    this.accumulate(changed, weights, nChanged);
    this.updatesSinceRebuild += nChanged;
  }

  /** M = sum over free i of b_i b_i' / d_i, from scratch. */
  private rebuildCapacity(): void {
    const { n, free, d, changed: list, weights } = this;
    this.M.fill(0);
    let count = 0;
    for (let i = 0; i < n; i++)
      if (free[i] === 1) {
        weights[count] = 1 / d[i]!;
        list[count++] = i;
      }
    this.accumulate(list, weights, count);
    this.mValid = true;
    this.updatesSinceRebuild = 0;
  }

  /**
   * M += sum_c weights[c] b_i b_i' over i = list[c]. The U-block goes in rank-4 steps (a quarter of the
   * loads and stores of M compared with rank-1 updates); the sparse A part per variable.
   */
  private accumulate(list: Int32Array, weights: Float64Array, count: number): void {
    const { kd, K, U, M } = this;
    let c = 0;
    for (; c + 4 <= count; c += 4) {
      const o1 = list[c]! * kd;
      const o2 = list[c + 1]! * kd;
      const o3 = list[c + 2]! * kd;
      const o4 = list[c + 3]! * kd;
      const w1 = weights[c]!;
      const w2 = weights[c + 1]!;
      const w3 = weights[c + 2]!;
      const w4 = weights[c + 3]!;
      for (let p = 0; p < kd; p++) {
        const a1 = w1 * U[o1 + p]!;
        const a2 = w2 * U[o2 + p]!;
        const a3 = w3 * U[o3 + p]!;
        const a4 = w4 * U[o4 + p]!;
        const r = p * K;
        for (let t = 0; t <= p; t++)
          M[r + t]! += a1 * U[o1 + t]! + a2 * U[o2 + t]! + a3 * U[o3 + t]! + a4 * U[o4 + t]!;
      }
    }
    for (let e = 0; e < c; e++) this.rankOneUpdate(list[e]!, weights[e]!, false);
    for (; c < count; c++) this.rankOneUpdate(list[c]!, weights[c]!, true);
  }

  /** M += c b_i b_i' (lower triangle), b_i = [U_i,:, A_:,i]; `withU = false` skips the U-block. */
  private rankOneUpdate(i: number, c: number, withU = true): void {
    const { kd, K, U, M } = this;
    const o = i * kd;
    if (withU)
      for (let p = 0; p < kd; p++) {
        const a = c * U[o + p]!;
        if (a === 0) continue;
        const r = p * K;
        for (let s = 0; s <= p; s++) M[r + s]! += a * U[o + s]!;
      }
    const At = this.At;
    const e0 = At.rowStart[i]!;
    const e1 = At.rowStart[i + 1]!;
    for (let e = e0; e < e1; e++) {
      const j = At.columnIndex[e]!;
      const a = c * At.values[e]!;
      const r = (kd + j) * K;
      for (let s = 0; s < kd; s++) M[r + s]! += a * U[o + s]!;
      // Columns of At are increasing, so rows j' <= j come first: the lower triangle of the AA block.
      for (let f = e0; f <= e; f++) M[r + kd + At.columnIndex[f]!]! += a * At.values[f]!;
    }
  }

  /** gl = U'x - lambda ./ w; ax = A x; row states and gy = A x - s. */
  private computeGradient(): void {
    const { n, kd, m, U, x, gl, lambda, w, ax, gy, l, u, y, rowState } = this;
    gl.fill(0);
    for (let i = 0; i < n; i++) {
      const xi = x[i]!;
      if (xi === 0) continue;
      const o = i * kd;
      for (let p = 0; p < kd; p++) gl[p]! += U[o + p]! * xi;
    }
    for (let p = 0; p < kd; p++) gl[p] = w[p]! > 0 ? gl[p]! - lambda[p]! / w[p]! : 0;
    const A = this.A;
    for (let j = 0; j < m; j++) {
      let s = 0;
      for (let e = A.rowStart[j]!; e < A.rowStart[j + 1]!; e++) s += A.values[e]! * x[A.columnIndex[e]!]!;
      ax[j] = s;
      const lj = l[j]!;
      const uj = u[j]!;
      if (lj === uj) {
        rowState[j] = ROW_EQUALITY;
        gy[j] = s - lj;
      } else if (y[j]! > 0) {
        rowState[j] = ROW_UPPER;
        gy[j] = s - uj;
      } else if (y[j]! < 0) {
        rowState[j] = ROW_LOWER;
        gy[j] = s - lj;
      } else if (s > uj) {
        rowState[j] = ROW_UPPER;
        gy[j] = s - uj;
      } else if (s < lj) {
        rowState[j] = ROW_LOWER;
        gy[j] = s - lj;
      } else {
        rowState[j] = ROW_INACTIVE;
        gy[j] = 0;
      }
    }
  }

  private primalResidual(): number {
    let r = 0;
    for (let j = 0; j < this.m; j++) {
      const g = Math.abs(this.gy[j]!);
      if (g > r) r = g;
    }
    return r;
  }

  /** max_i |(U (w .* gl))_i| bounded by max row sum of |U| times max |w .* gl|. */
  private dualResidualBound(): number {
    let g = 0;
    for (let p = 0; p < this.kd; p++) {
      const v = Math.abs(this.w[p]! * this.gl[p]!);
      if (v > g) g = v;
    }
    return g * this.uRowAbs;
  }

  /**
   * Solves M_sub dz = g_sub over lambda (w > 0) and the active rows. Rows that enter at a kink with a
   * step of the wrong sign are dropped and the system re-solved. Returns false on breakdown.
   */
  private newtonDirection(): boolean {
    const { m, dy, gy, rowState, y } = this;
    for (let attempt = 0; attempt <= m; attempt++) {
      if (!this.factorAndSolve()) return false;
      // A row entering at y = 0 must move its multiplier into the side it is violated on.
      let dropped = false;
      for (let j = 0; j < m; j++) {
        if (y[j] !== 0 || rowState[j] === ROW_EQUALITY || rowState[j] === ROW_INACTIVE) continue;
        if ((rowState[j] === ROW_UPPER && dy[j]! <= 0) || (rowState[j] === ROW_LOWER && dy[j]! >= 0)) {
          rowState[j] = ROW_INACTIVE;
          gy[j] = 0;
          dropped = true;
        }
      }
      if (!dropped) return true;
    }
    return false;
  }

  /**
   * Factors M_sub (lambda with w > 0, and the active rows) and solves M_sub dz = (gl, gy) into (dl, dy).
   * Returns false when no ridge makes the factorization succeed.
   */
  private factorAndSolve(): boolean {
    const { kd, m, K, M, idx, sub, rhs, w, dl, dy, gl, gy, rowState } = this;
    let size = 0;
    for (let p = 0; p < kd; p++) if (w[p]! > 0) idx[size++] = p;
    const nLambda = size;
    for (let j = 0; j < m; j++) if (rowState[j] !== ROW_INACTIVE) idx[size++] = kd + j;
    const fill = (): number => {
      let maxDiag = 0;
      for (let a = 0; a < size; a++) {
        const ra = idx[a]! * K;
        for (let b = 0; b <= a; b++) sub[a * size + b] = M[ra + idx[b]!]!;
        if (a < nLambda) sub[a * size + a]! += 1 / w[idx[a]!]!;
        if (sub[a * size + a]! > maxDiag) maxDiag = sub[a * size + a]!;
      }
      return maxDiag;
    };
    // Rows with no free variable make M singular: a tiny ridge turns the step into a long ray that the
    // line search cuts at the first breakpoint.
    let ridge = 1e-13 * Math.max(1, fill());
    let ok = false;
    for (let tries = 0; tries < 6 && !ok; tries++) {
      if (tries > 0) fill();
      for (let a = nLambda; a < size; a++) sub[a * size + a]! += ridge;
      ok = choleskyFactorInPlace(sub, size);
      ridge *= 1000;
    }
    if (!ok) return false;
    for (let a = 0; a < size; a++) {
      const c = idx[a]!;
      rhs[a] = c < kd ? gl[c]! : gy[c - kd]!;
    }
    choleskySolveInPlace(sub, size, rhs);
    dl.fill(0);
    dy.fill(0);
    for (let a = 0; a < size; a++) {
      const c = idx[a]!;
      if (c < kd) dl[c] = rhs[a]!;
      else dy[c - kd] = rhs[a]!;
    }
    return true;
  }

  /**
   * Exact maximization of psi(alpha) = g(z + alpha dz) over (0, 1]: psi' is piecewise linear and
   * decreasing, so walk its sorted breakpoints until it changes sign.
   */
  private lineSearch(): number {
    const { n, kd, m, wv, dwv, d, xl, xu, x, lambda, dl, w, y, dy, l, u, rowState, evT, evI, evOrder } = this;
    // psi'(0+) and its slope.
    let p = 0;
    let slope = 0;
    for (let p2 = 0; p2 < kd; p2++) {
      if (w[p2]! > 0) {
        p -= (dl[p2]! * lambda[p2]!) / w[p2]!;
        slope -= (dl[p2]! * dl[p2]!) / w[p2]!;
      }
    }
    let nev = 0;
    // Whether anything beyond alpha = 1 bends psi' down (a variable entering, a kink): without it, a
    // flat positive psi' at 1 means g grows without bound along the ray, i.e. the primal is infeasible.
    let later = false;
    for (let i = 0; i < n; i++) {
      const dw = dwv[i]!;
      if (dw === 0) continue;
      p += dw * x[i]!;
      const di = d[i]!;
      const v0 = -wv[i]! / di;
      const delta = -dw / di;
      const lo = xl[i]!;
      const hi = xu[i]!;
      const curv = (dw * dw) / di;
      if (delta > 0) {
        if (v0 < lo) {
          const t = (lo - v0) / delta;
          if (t < 1) {
            evT[nev] = t;
            evI[nev++] = i; // enters: slope decreases
            const t2 = (hi - v0) / delta;
            if (t2 < 1) {
              evT[nev] = t2;
              evI[nev++] = -i - 1; // leaves
            }
          } else if (t < Number.POSITIVE_INFINITY) later = true;
        } else if (v0 < hi) {
          slope -= curv;
          const t = (hi - v0) / delta;
          if (t < 1) {
            evT[nev] = t;
            evI[nev++] = -i - 1;
          }
        }
      } else {
        if (v0 > hi) {
          const t = (hi - v0) / delta;
          if (t < 1) {
            evT[nev] = t;
            evI[nev++] = i;
            const t2 = (lo - v0) / delta;
            if (t2 < 1) {
              evT[nev] = t2;
              evI[nev++] = -i - 1;
            }
          } else if (t < Number.POSITIVE_INFINITY) later = true;
        } else if (v0 > lo) {
          slope -= curv;
          const t = (lo - v0) / delta;
          if (t < 1) {
            evT[nev] = t;
            evI[nev++] = -i - 1;
          }
        }
      }
    }
    // Rows: -dy's at 0+, and kinks where a range row's multiplier crosses zero.
    const kinkBase = n + 1;
    for (let j = 0; j < m; j++) {
      const dyj = dy[j]!;
      if (dyj === 0) continue;
      if (rowState[j] === ROW_EQUALITY) {
        p -= dyj * l[j]!;
        continue;
      }
      const yj = y[j]!;
      const side = yj !== 0 ? yj : dyj;
      p -= dyj * (side > 0 ? u[j]! : l[j]!);
      if (yj !== 0 && yj * dyj < 0) {
        const t = -yj / dyj;
        if (t < 1) {
          evT[nev] = t;
          evI[nev++] = kinkBase + j;
        } else later = true;
      }
    }
    if (!(p > 0)) return 0;
    // Events are visited in increasing t through a binary min-heap: O(nev) to build, O(log nev) per
    // event actually visited (usually few before psi' changes sign), cheaper than a full sort.
    const heap = evOrder;
    for (let e = 0; e < nev; e++) heap[e] = e;
    let size = nev;
    const siftDown = (start: number): void => {
      let i = start;
      const item = heap[i]!;
      const key = evT[item]!;
      for (;;) {
        let c = 2 * i + 1;
        if (c >= size) break;
        if (c + 1 < size && evT[heap[c + 1]!]! < evT[heap[c]!]!) c++;
        if (evT[heap[c]!]! >= key) break;
        heap[i] = heap[c]!;
        i = c;
      }
      heap[i] = item;
    };
    for (let i = (size >> 1) - 1; i >= 0; i--) siftDown(i);
    let t0 = 0;
    while (size > 0) {
      const k = heap[0]!;
      heap[0] = heap[--size]!;
      if (size > 0) siftDown(0);
      const t = evT[k]!;
      const pe = p + slope * (t - t0);
      if (pe <= 0) return slope < 0 ? t0 + p / -slope : t;
      p = pe;
      t0 = t;
      const code = evI[k]!;
      if (code >= kinkBase) {
        const j = code - kinkBase;
        p -= Math.abs(dy[j]!) * (u[j]! - l[j]!);
        if (!(p > 0)) return t;
      } else if (code >= 0) {
        slope -= (dwv[code]! * dwv[code]!) / d[code]!;
      } else {
        const i = -code - 1;
        slope += (dwv[i]! * dwv[i]!) / d[i]!;
      }
    }
    const p1 = p + slope * (1 - t0);
    if (p1 >= 0) {
      if (!later && p1 > 0 && -slope <= 1e-13 * p1) this.rayFound = true;
      return 1;
    }
    return t0 + p / -slope;
  }
}
