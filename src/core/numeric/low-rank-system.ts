/**
 * @module core/numeric/low-rank-system
 * Solver for symmetric positive definite systems of the form
 *
 *     H = diag(D) + V diag(wV) V' + C' diag(wC) C       (D > 0, wV > 0, wC > 0)
 *
 * with V dense n x k and C sparse r x n: the ADMM matrix P + sigma I + A' diag(rho) A of a QP whose P is
 * in factor form. Three strategies, chosen by cost:
 *
 * - `woodbury` (k + r < n): Sherman-Morrison-Woodbury with B = [V'; C] and the capacity matrix
 *   M = diag(1/wV, 1/wC) + B D^{-1} B' (order k + r), so that H^{-1} b = D^{-1} b - D^{-1} B' M^{-1} B D^{-1} b
 *   (Hager, "Updating the inverse of a matrix", SIAM Review 1989). Factoring costs O(n (k + r)^2), a solve
 *   O(n (k + r)).
 * - `dense`: H formed and factored by Cholesky, O(n^3), for small n with many rows.
 * - `cg`: matrix-free preconditioned conjugate gradients (Jacobi preconditioner), for large n with many
 *   rows, as OSQP's indirect solver.
 */
import { choleskyFactorInPlace, choleskySolveInPlace } from "./cholesky.js";
import type { SparseMatrix } from "./sparse-matrix.js";
import { sparseTranspose } from "./sparse-matrix.js";

/** Strategy of a {@link LowRankSystemSolver}. */
export type LowRankStrategy = "woodbury" | "dense" | "cg";

/**
 * Factor-and-solve object for H = diag(D) + V diag(wV) V' + C' diag(wC) C (see the module comment). The
 * structure (V, C) is fixed at construction; {@link LowRankSystemSolver.factor} takes new D, wV, wC.
 *
 * @example
 * const s = new LowRankSystemSolver(2, 0, new Float64Array(0), rows);
 * s.factor(Float64Array.of(1, 1), new Float64Array(0), Float64Array.of(1));
 * s.solve(Float64Array.of(1, 2), out);
 */
export class LowRankSystemSolver {
  readonly n: number;
  readonly k: number;
  readonly strategy: LowRankStrategy;
  private readonly V: Float64Array;
  private readonly C: SparseMatrix;
  private readonly Ct: SparseMatrix;
  private readonly K: number;
  private D: Float64Array = new Float64Array(0);
  private wV: Float64Array = new Float64Array(0);
  private wC: Float64Array = new Float64Array(0);
  // Woodbury.
  private readonly M: Float64Array;
  private readonly u: Float64Array;
  private readonly t: Float64Array;
  // Dense.
  private readonly H: Float64Array;
  // CG.
  private readonly cgR: Float64Array;
  private readonly cgZ: Float64Array;
  private readonly cgP: Float64Array;
  private readonly cgQ: Float64Array;
  private readonly cgRow: Float64Array;
  private readonly cgK: Float64Array;
  /** CG iterations of the last solve (0 for direct strategies). */
  lastIterations = 0;

  /**
   * @param V dense n x k row-major factors.
   * @param C sparse rows (r x n).
   * @param strategy forced strategy; by default the cheaper direct one, or CG for large dense cases.
   * @throws {RangeError} when the shapes disagree.
   */
  constructor(n: number, k: number, V: Float64Array, C: SparseMatrix, strategy?: LowRankStrategy) {
    if (V.length !== n * k)
      throw new RangeError(`LowRankSystemSolver: V has length ${V.length}, expected n * k = ${n * k}.`);
    if (C.cols !== n) throw new RangeError(`LowRankSystemSolver: C has ${C.cols} columns, expected ${n}.`);
    this.n = n;
    this.k = k;
    this.V = V;
    this.C = C;
    this.Ct = sparseTranspose(C);
    this.K = k + C.rows;
    this.strategy = strategy ?? (this.K < n ? "woodbury" : n <= 2500 ? "dense" : "cg");
    const K = this.strategy === "woodbury" ? this.K : 0;
    this.M = new Float64Array(K * K);
    this.u = new Float64Array(K);
    this.t = new Float64Array(n);
    this.H = new Float64Array(this.strategy === "dense" ? n * n : 0);
    const cgN = this.strategy === "cg" ? n : 0;
    this.cgR = new Float64Array(cgN);
    this.cgZ = new Float64Array(cgN);
    this.cgP = new Float64Array(cgN);
    this.cgQ = new Float64Array(cgN);
    this.cgRow = new Float64Array(this.strategy === "cg" ? C.rows : 0);
    this.cgK = new Float64Array(this.strategy === "cg" ? k : 0);
  }

  /**
   * Factors H for the given diagonal and weights (arrays are kept by reference until the next call).
   * Returns false when H is not numerically positive definite.
   */
  factor(D: Float64Array, wV: Float64Array, wC: Float64Array): boolean {
    this.D = D;
    this.wV = wV;
    this.wC = wC;
    if (this.strategy === "woodbury") return this.factorWoodbury();
    if (this.strategy === "dense") return this.factorDense();
    return true;
  }

  private factorWoodbury(): boolean {
    const { n, k, K, V, Ct, M, D, wV, wC } = this;
    M.fill(0);
    for (let i = 0; i < n; i++) {
      const c = 1 / D[i]!;
      const o = i * k;
      for (let p = 0; p < k; p++) {
        const a = c * V[o + p]!;
        if (a === 0) continue;
        const r = p * K;
        for (let s = 0; s <= p; s++) M[r + s]! += a * V[o + s]!;
      }
      const e0 = Ct.rowStart[i]!;
      const e1 = Ct.rowStart[i + 1]!;
      for (let e = e0; e < e1; e++) {
        const j = Ct.columnIndex[e]!;
        const a = c * Ct.values[e]!;
        const r = (k + j) * K;
        for (let s = 0; s < k; s++) M[r + s]! += a * V[o + s]!;
        for (let f = e0; f <= e; f++) M[r + k + Ct.columnIndex[f]!]! += a * Ct.values[f]!;
      }
    }
    for (let p = 0; p < k; p++) M[p * K + p]! += 1 / wV[p]!;
    for (let j = 0; j < this.C.rows; j++) M[(k + j) * K + k + j]! += 1 / wC[j]!;
    return choleskyFactorInPlace(M, K);
  }

  private factorDense(): boolean {
    const { n, k, V, C, H, D, wV, wC } = this;
    H.fill(0);
    // Lower triangle of V diag(wV) V'.
    for (let i = 0; i < n; i++) {
      const oi = i * k;
      for (let j = 0; j <= i; j++) {
        const oj = j * k;
        let s = 0;
        for (let p = 0; p < k; p++) s += V[oi + p]! * wV[p]! * V[oj + p]!;
        H[i * n + j] = s;
      }
      H[i * n + i]! += D[i]!;
    }
    for (let r = 0; r < C.rows; r++) {
      const w = wC[r]!;
      for (let a = C.rowStart[r]!; a < C.rowStart[r + 1]!; a++) {
        const i = C.columnIndex[a]!;
        const va = w * C.values[a]!;
        for (let b = C.rowStart[r]!; b <= a; b++) H[i * n + C.columnIndex[b]!]! += va * C.values[b]!;
      }
    }
    return choleskyFactorInPlace(H, n);
  }

  /** out = H^{-1} b (out may alias neither b nor internal buffers). For CG, `out` holds the start. */
  solve(b: Float64Array, out: Float64Array): void {
    if (this.strategy === "woodbury") this.solveWoodbury(b, out);
    else if (this.strategy === "dense") {
      out.set(b);
      choleskySolveInPlace(this.H, this.n, out);
    } else this.solveCg(b, out);
  }

  private solveWoodbury(b: Float64Array, out: Float64Array): void {
    const { n, k, K, V, C, M, u, t, D } = this;
    for (let i = 0; i < n; i++) t[i] = b[i]! / D[i]!;
    u.fill(0);
    for (let i = 0; i < n; i++) {
      const ti = t[i]!;
      if (ti === 0) continue;
      const o = i * k;
      for (let p = 0; p < k; p++) u[p]! += V[o + p]! * ti;
    }
    for (let r = 0; r < C.rows; r++) {
      let s = 0;
      for (let a = C.rowStart[r]!; a < C.rowStart[r + 1]!; a++) s += C.values[a]! * t[C.columnIndex[a]!]!;
      u[k + r] = s;
    }
    choleskySolveInPlace(M, K, u);
    for (let i = 0; i < n; i++) {
      const o = i * k;
      let s = 0;
      for (let p = 0; p < k; p++) s += V[o + p]! * u[p]!;
      out[i] = s;
    }
    for (let r = 0; r < C.rows; r++) {
      const ur = u[k + r]!;
      if (ur === 0) continue;
      for (let a = C.rowStart[r]!; a < C.rowStart[r + 1]!; a++) out[C.columnIndex[a]!]! += C.values[a]! * ur;
    }
    for (let i = 0; i < n; i++) out[i] = t[i]! - out[i]! / D[i]!;
  }

  /** out = H v (used by CG). */
  private multiply(v: Float64Array, out: Float64Array): void {
    const { n, k, V, C, D, wV, wC, cgRow, cgK } = this;
    cgK.fill(0);
    for (let i = 0; i < n; i++) {
      const vi = v[i]!;
      if (vi === 0) continue;
      const o = i * k;
      for (let p = 0; p < k; p++) cgK[p]! += V[o + p]! * vi;
    }
    for (let p = 0; p < k; p++) cgK[p]! *= wV[p]!;
    for (let i = 0; i < n; i++) {
      const o = i * k;
      let s = D[i]! * v[i]!;
      for (let p = 0; p < k; p++) s += V[o + p]! * cgK[p]!;
      out[i] = s;
    }
    for (let r = 0; r < C.rows; r++) {
      let s = 0;
      for (let a = C.rowStart[r]!; a < C.rowStart[r + 1]!; a++) s += C.values[a]! * v[C.columnIndex[a]!]!;
      cgRow[r] = s * wC[r]!;
    }
    for (let r = 0; r < C.rows; r++) {
      const s = cgRow[r]!;
      if (s === 0) continue;
      for (let a = C.rowStart[r]!; a < C.rowStart[r + 1]!; a++) out[C.columnIndex[a]!]! += C.values[a]! * s;
    }
  }

  private solveCg(b: Float64Array, out: Float64Array): void {
    const { n, k, V, Ct, D, wV, wC, cgR: r, cgZ: z, cgP: p, cgQ: q } = this;
    // Jacobi preconditioner: diag(H)_i = D_i + sum_p wV_p V_ip^2 + sum_j wC_j C_ji^2.
    const diag = this.t;
    for (let i = 0; i < n; i++) {
      let s = D[i]!;
      const o = i * k;
      for (let a = 0; a < k; a++) s += wV[a]! * V[o + a]! ** 2;
      for (let e = Ct.rowStart[i]!; e < Ct.rowStart[i + 1]!; e++)
        s += wC[Ct.columnIndex[e]!]! * Ct.values[e]! ** 2;
      diag[i] = s;
    }
    this.multiply(out, q);
    let bNorm = 0;
    for (let i = 0; i < n; i++) {
      r[i] = b[i]! - q[i]!;
      bNorm = Math.max(bNorm, Math.abs(b[i]!));
    }
    let rz = 0;
    for (let i = 0; i < n; i++) {
      z[i] = r[i]! / diag[i]!;
      p[i] = z[i]!;
      rz += r[i]! * z[i]!;
    }
    const tol = 1e-12 * Math.max(bNorm, 1e-300);
    let it = 0;
    for (; it < 10 * n; it++) {
      let rMax = 0;
      for (let i = 0; i < n; i++) rMax = Math.max(rMax, Math.abs(r[i]!));
      if (rMax <= tol) break;
      this.multiply(p, q);
      let pq = 0;
      for (let i = 0; i < n; i++) pq += p[i]! * q[i]!;
      if (!(pq > 0)) break;
      const a = rz / pq;
      let rzNew = 0;
      for (let i = 0; i < n; i++) {
        out[i]! += a * p[i]!;
        r[i]! -= a * q[i]!;
        z[i] = r[i]! / diag[i]!;
        rzNew += r[i]! * z[i]!;
      }
      const beta = rzNew / rz;
      rz = rzNew;
      for (let i = 0; i < n; i++) p[i] = z[i]! + beta * p[i]!;
    }
    this.lastIterations = it;
  }
}
