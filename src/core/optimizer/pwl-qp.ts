/**
 * @module core/optimizer/pwl-qp
 * The optimizer's engine: a convex QP in factor form plus separable piecewise-linear costs (lot-by-lot tax,
 * buy/sell transaction costs), segment-dependent "switch rows" (turnover, long/short sums) and a 3/2-power
 * market-impact cost, solved exactly by an outer segment active-set loop over the QP solver of
 * `core/numeric`.
 *
 * Each round fixes, for every variable, an interval of its domain and the slope of one segment, solves that QP
 * (warm-started: only bounds, q and row bounds change between rounds unless a switch-row coefficient flips), then
 * predicts each variable's best segment from a one-dimensional model built with the QP's own multipliers:
 *
 *     min_x  E_i (x - x*_i) + 1/2 a_i (x - x*_i)^2 + H_i(x)        a_i = P_ii,
 *     E_i = -(yBounds_i + slope_i + sum_r ySwitch_r coef_r,i)       (the smooth gradient at x*, from stationarity)
 *
 * with H_i the variable's piecewise-linear cost plus the switch rows weighted by their multipliers. At a KKT
 * point of the whole problem the prediction is x* itself for every variable (Rockafellar, "Convex Analysis",
 * Thm 23.8: 0 must lie in the subdifferential of the Lagrangian), so the loop stops exactly there. A new interval
 * is the hull of the predicted segment and x*, so every round's QP is feasible and its solution is feasible for
 * the whole problem; when the true objective stops decreasing the loop moves one segment at a time, which is a
 * descent method for convex costs (each exact round's QP objective equals the true objective on its interval).
 */
import {
  createQpSolver,
  type FactorForm,
  type QpProblem,
  type QpResult,
  type QpSolver,
  type SparseMatrix,
  SparseMatrixBuilder,
} from "../numeric/index.js";
import type { PwlQpOptions, PwlQpProblem, PwlQpResult, PwlQpStatus, PwlSegments } from "./pwl-qp-types.js";

const DEFAULT_MAX_ROUNDS = 60;
const DEFAULT_TOLERANCE = 1e-9;
const DEFAULT_MAX_SIDE_SWITCHES = 3;
/** Smallest distance |x - r| the power surrogate's curvature is taken at (caps it at 1.5 c / sqrt of this). */
const MIN_POWER_DISTANCE = 1e-12;
/** Relative change of a coordinate's secant curvature that makes the engine rebuild the QP with it. */
const CURVATURE_CHANGE = 0.01;

/** A reusable engine for one problem structure; keeps the QP solver and the last solution. */
export interface PwlQpSolver {
  readonly n: number;
  /**
   * Replace data between solves. Segments may change entirely (e.g. next month's lots); q, row bounds, switch
   * rows (same row count) and power references too. P, A's pattern and values, and cones are structural: pass
   * a new problem to {@link createPwlQpSolver} to change them.
   */
  update(changes: {
    readonly q?: Float64Array;
    readonly l?: Float64Array;
    readonly u?: Float64Array;
    readonly segments?: PwlSegments;
    readonly switchRows?: PwlQpProblem["switchRows"];
    readonly power?: PwlQpProblem["power"];
    readonly offset?: number;
  }): void;
  /** Solve from the previous solution (or `options.initialX`). */
  solve(options?: PwlQpOptions): PwlQpResult;
}

function assertArray(a: unknown, length: number, name: string): void {
  if (!(a instanceof Float64Array)) throw new TypeError(`solvePwlQp: ${name} must be a Float64Array.`);
  if (a.length !== length)
    throw new RangeError(`solvePwlQp: ${name} has length ${a.length}, expected ${length}.`);
}

function checkSegments(seg: PwlSegments, n: number): void {
  const { start, lower, upper, slope, value } = seg;
  if (!(start instanceof Int32Array) || start.length !== n + 1)
    throw new RangeError(`solvePwlQp: segments.start must be an Int32Array of length ${n + 1}.`);
  const m = start[n]!;
  if (start[0] !== 0) throw new RangeError("solvePwlQp: segments.start[0] must be 0.");
  for (const [a, name] of [
    [lower, "segments.lower"],
    [upper, "segments.upper"],
    [slope, "segments.slope"],
    [value, "segments.value"],
  ] as const)
    assertArray(a, m, name);
  for (let i = 0; i < n; i++) {
    const a = start[i]!;
    const b = start[i + 1]!;
    if (b <= a) throw new RangeError(`solvePwlQp: variable ${i} has no segment.`);
    for (let j = a; j < b; j++) {
      if (Number.isNaN(lower[j]!) || Number.isNaN(upper[j]!) || !(lower[j]! <= upper[j]!))
        throw new RangeError(
          `solvePwlQp: segment ${j} of variable ${i} has lower ${lower[j]} > upper ${upper[j]}.`,
        );
      if (!Number.isFinite(slope[j]!) || !Number.isFinite(value[j]!))
        throw new TypeError(`solvePwlQp: segment ${j} of variable ${i} has a non-finite slope or value.`);
      if (j > a && lower[j] !== upper[j - 1])
        throw new RangeError(
          `solvePwlQp: segments ${j - 1} and ${j} of variable ${i} are not contiguous (${upper[j - 1]} vs ${lower[j]}).`,
        );
      if (
        (j > a && lower[j] === Number.NEGATIVE_INFINITY) ||
        (j < b - 1 && upper[j] === Number.POSITIVE_INFINITY)
      )
        throw new RangeError(`solvePwlQp: only the end segments of variable ${i} may be unbounded.`);
    }
  }
}

/** Cost of variable i's piecewise-linear term at x (x inside the domain, clamped otherwise). */
function pwlValue(seg: PwlSegments, i: number, x: number): number {
  const j = segmentOf(seg, i, x);
  const lo = seg.lower[j]!;
  return lo === Number.NEGATIVE_INFINITY
    ? seg.value[j]! + seg.slope[j]! * (x - seg.upper[j]!)
    : seg.value[j]! + seg.slope[j]! * (x - lo);
}

/** Segment of variable i containing x (the leftmost when x is a breakpoint; clamped to the domain). */
export function segmentOf(seg: PwlSegments, i: number, x: number): number {
  let a = seg.start[i]!;
  let b = seg.start[i + 1]! - 1;
  if (x <= seg.upper[a]!) return a;
  if (x > seg.lower[b]!) return b;
  // Binary search for the segment with lower < x <= upper.
  while (a < b) {
    const mid = (a + b) >> 1;
    if (seg.upper[mid]! < x) a = mid + 1;
    else b = mid;
  }
  return a;
}

function diagonalOf(P: FactorForm): Float64Array {
  const n = P.diagonal.length;
  const out = Float64Array.from(P.diagonal);
  const f = P.factors;
  if (f === undefined || f.cols === 0) return out;
  const k = f.cols;
  const s = P.factorScales;
  for (let i = 0; i < n; i++) {
    let acc = 0;
    for (let c = 0; c < k; c++) {
      const v = f.data[i * k + c]!;
      acc += v * v * (s === undefined ? 1 : s[c]!);
    }
    out[i]! += acc;
  }
  return out;
}

/** 1/2 x'Px for P in factor form, O(n k). */
function halfQuadratic(P: FactorForm, x: Float64Array): number {
  const n = x.length;
  let acc = 0;
  for (let i = 0; i < n; i++) acc += P.diagonal[i]! * x[i]! * x[i]!;
  const f = P.factors;
  if (f !== undefined && f.cols > 0) {
    const k = f.cols;
    const t = new Float64Array(k);
    for (let i = 0; i < n; i++) {
      const xi = x[i]!;
      if (xi === 0) continue;
      for (let c = 0; c < k; c++) t[c]! += f.data[i * k + c]! * xi;
    }
    for (let c = 0; c < k; c++) acc += (P.factorScales?.[c] ?? 1) * t[c]! * t[c]!;
  }
  return 0.5 * acc;
}

/** out = P x (factor form). */
function multiply(P: FactorForm, x: Float64Array, out: Float64Array): void {
  const n = x.length;
  for (let i = 0; i < n; i++) out[i] = P.diagonal[i]! * x[i]!;
  const f = P.factors;
  if (f === undefined || f.cols === 0) return;
  const k = f.cols;
  const t = new Float64Array(k);
  for (let i = 0; i < n; i++) {
    const xi = x[i]!;
    if (xi === 0) continue;
    for (let c = 0; c < k; c++) t[c]! += f.data[i * k + c]! * xi;
  }
  for (let c = 0; c < k; c++) t[c]! *= P.factorScales?.[c] ?? 1;
  for (let i = 0; i < n; i++) {
    let acc = 0;
    for (let c = 0; c < k; c++) acc += f.data[i * k + c]! * t[c]!;
    out[i]! += acc;
  }
}

function powerGradient(c: number, r: number, x: number): number {
  const d = x - r;
  return d === 0 ? 0 : 1.5 * c * Math.sqrt(Math.abs(d)) * Math.sign(d);
}

/** A one-dimensional prediction (see {@link predictVariable}). */
export interface Prediction {
  readonly x: number;
  readonly segment: number;
  /** Decrease of the one-dimensional model from xi to x (>= 0). */
  readonly decrease: number;
}

/**
 * Best point of variable i's one-dimensional model around xi: minimize
 * E (x - xi) + a (x - xi)^2 / 2 + H(x) - H(xi) over segments allowLo..allowHi, where H is the variable's
 * piecewise-linear cost plus the switch rows weighted by their multipliers `ySwitch`. Scans every segment, so it
 * also finds the better side of a non-convex kink. `decrease` is the model's decrease from xi (>= 0).
 */
export function predictVariable(
  seg: PwlSegments,
  sw: PwlQpProblem["switchRows"],
  ySwitch: Float64Array,
  a: number,
  i: number,
  xi: number,
  E: number,
  allowLo: number,
  allowHi: number,
  domLo = Number.NEGATIVE_INFINITY,
  domHi = Number.POSITIVE_INFINITY,
): Prediction {
  const mSw = sw === undefined ? 0 : sw.l.length;
  const j0 = segmentOf(seg, i, xi);
  let bestX = xi;
  let bestSeg = j0;
  let bestDec = 0;
  // Two walks away from xi (right, then left). In each segment j the model is
  // E d + a d^2 / 2 + base + h_j (x - from), d = x - xi, minimized at xi - (E + h_j) / a clipped to the segment.
  for (let dir = 1; dir >= -1; dir -= 2) {
    let base = 0;
    let prevH = dir > 0 ? Number.NEGATIVE_INFINITY : Number.POSITIVE_INFINITY;
    for (let j = j0; dir > 0 ? j <= allowHi : j >= allowLo; j += dir) {
      let h = seg.slope[j]!;
      for (let r = 0; r < mSw; r++) h += ySwitch[r]! * sw!.coefficient[r]![j]!;
      const from = j === j0 ? xi : dir > 0 ? seg.lower[j]! : seg.upper[j]!;
      const to = dir > 0 ? seg.upper[j]! : seg.lower[j]!;
      const inRange =
        j >= allowLo && j <= allowHi && (dir > 0 ? from < domHi || j === j0 : from > domLo || j === j0);
      // Convex so far and the model's derivative at `from` already points back: nothing further can be better.
      const convex = dir > 0 ? h >= prevH : h <= prevH;
      const slopeAtFrom = dir * (E + a * (from - xi) + h);
      if (inRange && convex && slopeAtFrom >= 0 && j !== j0) break;
      prevH = h;
      if (inRange) {
        const left = Math.max(dir > 0 ? from : to, domLo);
        const right = Math.min(dir > 0 ? to : from, domHi);
        let cand: number;
        if (a > 0) cand = xi - (E + h) / a;
        else cand = E + h > 0 ? Number.NEGATIVE_INFINITY : E + h < 0 ? Number.POSITIVE_INFINITY : xi;
        if (cand < left) cand = left;
        if (cand > right) cand = right;
        // No curvature and an unbounded segment: a unit step names the direction.
        if (!Number.isFinite(cand)) cand = cand > 0 ? Math.max(xi, left) + 1 : Math.min(xi, right) - 1;
        const d = cand - xi;
        const dec = -(E * d + 0.5 * a * d * d + base + h * (cand - from));
        if (dec > bestDec || (dec === bestDec && Math.abs(d) < Math.abs(bestX - xi))) {
          bestX = cand;
          bestSeg = j;
          bestDec = dec;
        }
      }
      if (!Number.isFinite(to)) break;
      base += h * (to - from);
    }
  }
  return { x: bestX, segment: bestSeg, decrease: bestDec };
}

/** Internal state of a reusable engine. */
class Engine implements PwlQpSolver {
  readonly n: number;
  readonly P: FactorForm;
  Peff: FactorForm;
  diag: Float64Array;
  /** Surrogate curvature of the power cost in use (adapted by the engine: the secant of the true gradient). */
  alpha: Float64Array | undefined;
  q: Float64Array;
  readonly A: SparseMatrix | undefined;
  l: Float64Array;
  u: Float64Array;
  readonly mFixed: number;
  segments: PwlSegments;
  switchRows: PwlQpProblem["switchRows"];
  readonly cones: PwlQpProblem["cones"];
  power: PwlQpProblem["power"];
  offset: number;
  qp: QpSolver | undefined;
  qpSignature: Float64Array | undefined;
  lastX: Float64Array | undefined;
  /**
   * At the last solution: the smooth gradient's part from the multipliers (A'y, cone terms) and the switch-row
   * multipliers. Round 0 of the next solve adds them to its own gradient, so its one-dimensional predictions see
   * the rows (budget, factors, turnover) that bind, as the later rounds do.
   */
  lastRowGradient: Float64Array | undefined;
  lastYSwitch: Float64Array | undefined;

  constructor(problem: PwlQpProblem) {
    const n = problem.P.diagonal.length;
    this.n = n;
    assertArray(problem.q, n, "q");
    checkSegments(problem.segments, n);
    if (problem.A !== undefined) {
      if (problem.A.cols !== n)
        throw new RangeError(`solvePwlQp: A has ${problem.A.cols} columns, expected ${n}.`);
      assertArray(problem.l, problem.A.rows, "l");
      assertArray(problem.u, problem.A.rows, "u");
    }
    this.P = problem.P;
    this.A = problem.A;
    this.mFixed = problem.A?.rows ?? 0;
    this.l = problem.l ?? new Float64Array(0);
    this.u = problem.u ?? new Float64Array(0);
    this.q = problem.q;
    this.segments = problem.segments;
    this.switchRows = problem.switchRows;
    this.checkSwitchRows();
    this.cones = problem.cones;
    this.power = problem.power;
    if (this.power !== undefined) {
      assertArray(this.power.coefficient, n, "power.coefficient");
      assertArray(this.power.reference, n, "power.reference");
      assertArray(this.power.curvature, n, "power.curvature");
    }
    this.offset = problem.offset ?? 0;
    const alpha = this.power?.curvature;
    this.alpha = alpha === undefined ? undefined : Float64Array.from(alpha);
    this.Peff = problem.P;
    this.diag = diagonalOf(problem.P);
    this.setCurvature(this.alpha);
  }

  /** Use surrogate curvature `alpha` (P's diagonal + alpha); the next solve rebuilds the QP. */
  setCurvature(alpha: Float64Array | undefined): void {
    this.alpha = alpha;
    const P = this.P;
    this.Peff =
      alpha === undefined
        ? P
        : {
            diagonal: P.diagonal.map((d, i) => d + alpha[i]!),
            ...(P.factors === undefined ? {} : { factors: P.factors }),
            ...(P.factorScales === undefined ? {} : { factorScales: P.factorScales }),
          };
    this.diag = diagonalOf(this.Peff);
    this.qp = undefined;
  }

  checkSwitchRows(): void {
    const sw = this.switchRows;
    if (sw === undefined) return;
    const m = this.segments.start[this.n]!;
    const rows = sw.l.length;
    assertArray(sw.u, rows, "switchRows.u");
    if (sw.coefficient.length !== rows || sw.constant.length !== rows)
      throw new RangeError("solvePwlQp: switchRows needs one coefficient and one constant array per row.");
    for (let r = 0; r < rows; r++) {
      assertArray(sw.coefficient[r], m, `switchRows.coefficient[${r}]`);
      assertArray(sw.constant[r], m, `switchRows.constant[${r}]`);
    }
  }

  update(changes: Parameters<PwlQpSolver["update"]>[0]): void {
    if (changes.q !== undefined) {
      assertArray(changes.q, this.n, "q");
      this.q = changes.q;
    }
    if (changes.l !== undefined) {
      assertArray(changes.l, this.mFixed, "l");
      this.l = changes.l;
    }
    if (changes.u !== undefined) {
      assertArray(changes.u, this.mFixed, "u");
      this.u = changes.u;
    }
    if (changes.segments !== undefined) {
      checkSegments(changes.segments, this.n);
      this.segments = changes.segments;
    }
    if (changes.switchRows !== undefined) {
      const before = this.switchRows?.l.length ?? 0;
      if (changes.switchRows.l.length !== before)
        throw new RangeError("PwlQpSolver.update: the number of switch rows cannot change.");
      this.switchRows = changes.switchRows;
    }
    if (changes.segments !== undefined || changes.switchRows !== undefined) this.checkSwitchRows();
    if (changes.power !== undefined) {
      if (this.power === undefined)
        throw new RangeError("PwlQpSolver.update: the problem has no power cost; create a new solver.");
      assertArray(changes.power.coefficient, this.n, "power.coefficient");
      assertArray(changes.power.reference, this.n, "power.reference");
      // The engine keeps the curvature it adapted (at least the one given).
      const a = this.alpha!;
      if (changes.power.curvature.some((v, i) => v > a[i]!))
        this.setCurvature(a.map((v, i) => Math.max(v, changes.power!.curvature[i]!)));
      this.power = changes.power;
    }
    if (changes.offset !== undefined) this.offset = changes.offset;
  }

  /** True objective at x. */
  objective(x: Float64Array): number {
    let v = halfQuadratic(this.P, x) + this.offset;
    for (let i = 0; i < this.n; i++) {
      v += this.q[i]! * x[i]! + pwlValue(this.segments, i, x[i]!);
      const p = this.power;
      if (p !== undefined && p.coefficient[i]! > 0)
        v += p.coefficient[i]! * Math.abs(x[i]! - p.reference[i]!) ** 1.5;
    }
    return v;
  }

  solve(options: PwlQpOptions = {}): PwlQpResult {
    return runEngine(this, options);
  }

  /** The engine's fields as {@link runEngine} sees them (the class is private to this module). */
  get state(): EngineState {
    return this as unknown as EngineState;
  }
}

/** The engine's fields as seen by {@link runEngine}. */
interface EngineState {
  n: number;
  P: FactorForm;
  Peff: FactorForm;
  diag: Float64Array;
  q: Float64Array;
  A: SparseMatrix | undefined;
  l: Float64Array;
  u: Float64Array;
  mFixed: number;
  segments: PwlSegments;
  switchRows: PwlQpProblem["switchRows"];
  cones: PwlQpProblem["cones"];
  power: PwlQpProblem["power"];
  offset: number;
  qp: QpSolver | undefined;
  qpSignature: Float64Array | undefined;
  lastX: Float64Array | undefined;
  lastRowGradient: Float64Array | undefined;
  lastYSwitch: Float64Array | undefined;
  alpha: Float64Array | undefined;
  setCurvature(alpha: Float64Array | undefined): void;
  objective(x: Float64Array): number;
}

/** Does any switch row change its coefficient between segment j and j + 1? */
function switchChangesAt(sw: PwlQpProblem["switchRows"], j: number): boolean {
  if (sw === undefined) return false;
  for (let r = 0; r < sw.coefficient.length; r++)
    if (sw.coefficient[r]![j] !== sw.coefficient[r]![j + 1]) return true;
  return false;
}

/** Largest crossing of a variable's lower over its upper bound taken as rounding (weights are O(1)). */
const BOUNDS_ROUNDING = 1e-12;

function runEngine(engine: Engine, options: PwlQpOptions): PwlQpResult {
  const s = engine.state;
  const { n, segments: seg } = s;
  const sw = s.switchRows;
  const mSw = sw?.l.length ?? 0;
  const maxRounds = options.maxRounds ?? DEFAULT_MAX_ROUNDS;
  const tol = options.tolerance ?? DEFAULT_TOLERANCE;
  const maxSwitches = options.maxSideSwitches ?? DEFAULT_MAX_SIDE_SWITCHES;
  if (!(Number.isInteger(maxRounds) && maxRounds > 0))
    throw new RangeError(`solvePwlQp: options.maxRounds must be a positive integer, got ${maxRounds}.`);
  if (!(tol > 0)) throw new RangeError(`solvePwlQp: options.tolerance must be > 0, got ${tol}.`);

  const start = seg.start;
  const domLo = new Float64Array(n);
  const domHi = new Float64Array(n);
  const extra = options.bounds;
  if (extra !== undefined) {
    assertArray(extra.lower, n, "options.bounds.lower");
    assertArray(extra.upper, n, "options.bounds.upper");
  }
  for (let i = 0; i < n; i++) {
    domLo[i] = seg.lower[start[i]!]!;
    domHi[i] = seg.upper[start[i + 1]! - 1]!;
    if (extra !== undefined) {
      if (extra.lower[i]! > domLo[i]!) domLo[i] = extra.lower[i]!;
      if (extra.upper[i]! < domHi[i]!) domHi[i] = extra.upper[i]!;
      if (domLo[i]! > domHi[i]! && domLo[i]! - domHi[i]! <= BOUNDS_ROUNDING) {
        // Bounds that meet up to rounding (a caller's w - b against a segment end summed another way, e.g. a
        // no-hold full sale): one point, kept inside the segments.
        const point = Math.min(domLo[i]!, seg.upper[start[i + 1]! - 1]!);
        domLo[i] = point;
        domHi[i] = point;
      }
      if (!(domLo[i]! <= domHi[i]!))
        throw new RangeError(
          `solvePwlQp: options.bounds leave variable ${i} an empty domain [${domLo[i]}, ${domHi[i]}].`,
        );
    }
  }
  // Starting point: given, previous, or 0, clipped to the domain.
  const x = new Float64Array(n);
  const init = options.initialX ?? s.lastX;
  if (init !== undefined && init.length !== n)
    throw new RangeError(`solvePwlQp: options.initialX has length ${init.length}, expected ${n}.`);
  for (let i = 0; i < n; i++) x[i] = Math.min(domHi[i]!, Math.max(domLo[i]!, init?.[i] ?? 0));

  const power = s.power;
  let alpha = s.alpha;
  const xRef = Float64Array.from(x); // linearization point of the power cost

  const chosen = new Int32Array(n); // segment whose slope and switch coefficients are in the QP
  const lo = new Float64Array(n);
  const hi = new Float64Array(n);
  const allowLo = new Int32Array(n); // frozen-side limits (segment index range)
  const allowHi = new Int32Array(n);
  const lastDir = new Int8Array(n);
  const reversals = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    // Segments that meet the domain (a point domain on a breakpoint keeps the left one).
    let a = start[i]!;
    let b = start[i + 1]! - 1;
    while (a < b && seg.upper[a]! <= domLo[i]! && !(seg.upper[a] === domLo[i] && domLo[i] === domHi[i])) a++;
    while (b > a && seg.lower[b]! >= domHi[i]!) b--;
    allowLo[i] = a;
    allowHi[i] = b;
  }

  const ySw = new Float64Array(mSw);
  const grad = new Float64Array(n); // smooth gradient at x (true power gradient)
  const qEff = new Float64Array(n);
  const lEff = new Float64Array(s.mFixed + mSw);
  const uEff = new Float64Array(s.mFixed + mSw);
  const bLo = new Float64Array(n);
  const bHi = new Float64Array(n);

  /** Slope on segment j of the variable's cost plus the switch rows weighted by their multipliers. */
  const hSlope = (j: number): number => {
    let h = seg.slope[j]!;
    if (sw !== undefined) for (let r = 0; r < mSw; r++) h += ySw[r]! * sw.coefficient[r]![j]!;
    return h;
  };

  const predict = (i: number, xi: number, E: number): Prediction =>
    predictVariable(seg, sw, ySw, s.diag[i]!, i, xi, E, allowLo[i]!, allowHi[i]!, domLo[i]!, domHi[i]!);

  /** The run of segments around j with the same switch coefficients, within the allowed range. */
  const switchRegion = (i: number, j: number): [number, number] => {
    let a = j;
    let b = j;
    while (a > allowLo[i]! && !switchChangesAt(sw, a - 1)) a--;
    while (b < allowHi[i]! && !switchChangesAt(sw, b)) b++;
    return [a, b];
  };

  /** Interval of variable i: hull of segment j and the point xi, cut where a switch coefficient changes. */
  const hullInterval = (i: number, j: number, xi: number): void => {
    let a = seg.lower[j]!;
    let b = seg.upper[j]!;
    if (sw === undefined) {
      a = Math.min(a, xi);
      b = Math.max(b, xi);
    } else {
      const [ra, rb] = switchRegion(i, j);
      if (xi < a) a = Math.max(xi, seg.lower[ra]!);
      if (xi > b) b = Math.min(xi, seg.upper[rb]!);
    }
    lo[i] = Math.max(a, seg.lower[allowLo[i]!]!, domLo[i]!);
    hi[i] = Math.min(b, seg.upper[allowHi[i]!]!, domHi[i]!);
    chosen[i] = j;
  };

  /** Freeze variable i on its side of the nearest non-convex kink in direction dir from xi. */
  const freeze = (i: number, xi: number, dir: number): void => {
    const here = segmentOf(seg, i, xi);
    if (dir > 0) {
      for (let j = here; j < allowHi[i]!; j++)
        if (hSlope(j) > hSlope(j + 1) || switchChangesAt(sw, j)) {
          allowHi[i] = j;
          return;
        }
    } else {
      for (let j = here; j > allowLo[i]!; j--)
        if (hSlope(j - 1) > hSlope(j) || switchChangesAt(sw, j - 1)) {
          allowLo[i] = j;
          return;
        }
    }
  };

  let qpIterations = 0;
  let solves = 0;
  let rebuilds = 0;
  const diagnosis: string[] = [];

  const assembleAndSolve = (): QpResult => {
    for (let i = 0; i < n; i++) {
      let v = s.q[i]! + seg.slope[chosen[i]!]!;
      // Power surrogate alpha x^2 / 2 + (f'(xRef) - alpha xRef) x: same gradient as f at xRef.
      if (power !== undefined)
        v += powerGradient(power.coefficient[i]!, power.reference[i]!, xRef[i]!) - alpha![i]! * xRef[i]!;
      qEff[i] = v;
      bLo[i] = lo[i]!;
      bHi[i] = hi[i]!;
    }
    for (let r = 0; r < s.mFixed; r++) {
      lEff[r] = s.l[r]!;
      uEff[r] = s.u[r]!;
    }
    let signature: Float64Array | undefined;
    if (sw !== undefined) {
      signature = new Float64Array(mSw * n);
      for (let r = 0; r < mSw; r++) {
        let c = 0;
        const coef = sw.coefficient[r]!;
        const cons = sw.constant[r]!;
        for (let i = 0; i < n; i++) {
          signature[r * n + i] = coef[chosen[i]!]!;
          c += cons[chosen[i]!]!;
        }
        lEff[s.mFixed + r] = sw.l[r]! - c;
        uEff[s.mFixed + r] = sw.u[r]! - c;
      }
    }
    const prev = s.qpSignature;
    const same =
      s.qp !== undefined &&
      (signature === undefined || (prev !== undefined && signature.every((v, k) => v === prev[k])));
    if (same) {
      s.qp!.update({
        q: qEff,
        ...(lEff.length > 0 ? { l: lEff, u: uEff } : {}),
        bounds: { lower: bLo, upper: bHi },
      });
    } else {
      s.qp = createQpSolver(buildQp(s, signature, qEff, lEff, uEff, bLo, bHi), options.qp);
      s.qpSignature = signature;
      rebuilds++;
    }
    const r = s.qp!.solve();
    solves++;
    qpIterations += r.iterations;
    return r;
  };

  const solved = (r: QpResult) => r.status === "optimal" || r.status === "optimal_inaccurate";

  // --- Round 0: predicted segments from the starting point's gradient (no multipliers yet). ---
  multiply(s.P, x, grad);
  for (let i = 0; i < n; i++) {
    grad[i]! += s.q[i]!;
    if (power !== undefined) grad[i]! += powerGradient(power.coefficient[i]!, power.reference[i]!, x[i]!);
  }
  // The last solve's multipliers as the estimate of this one's (a warm start: only the first intervals depend on it).
  const rowGradient = s.lastRowGradient;
  if (rowGradient !== undefined) for (let i = 0; i < n; i++) grad[i]! += rowGradient[i]!;
  if (s.lastYSwitch !== undefined && s.lastYSwitch.length === mSw) ySw.set(s.lastYSwitch);
  const startFeasible = isFeasible(s, x);
  for (let i = 0; i < n; i++) {
    const p = predict(i, x[i]!, grad[i]!);
    if (startFeasible) hullInterval(i, p.segment, x[i]!);
    else if (sw === undefined) {
      chosen[i] = p.segment;
      lo[i] = domLo[i]!;
      hi[i] = domHi[i]!;
    } else {
      const [a, b] = switchRegion(i, p.segment);
      chosen[i] = p.segment;
      lo[i] = Math.max(seg.lower[a]!, domLo[i]!);
      hi[i] = Math.min(seg.upper[b]!, domHi[i]!);
    }
  }
  let qpr = assembleAndSolve();
  if (qpr.status === "primal_infeasible" && sw !== undefined && !startFeasible) {
    // Retry on the switch regions that hold the starting point.
    for (let i = 0; i < n; i++) {
      const j = Math.min(allowHi[i]!, Math.max(allowLo[i]!, segmentOf(seg, i, x[i]!)));
      const [a, b] = switchRegion(i, j);
      chosen[i] = j;
      lo[i] = Math.max(seg.lower[a]!, domLo[i]!);
      hi[i] = Math.min(seg.upper[b]!, domHi[i]!);
    }
    qpr = assembleAndSolve();
  }
  if (!solved(qpr)) {
    const status: PwlQpStatus =
      qpr.status === "primal_infeasible"
        ? "infeasible"
        : qpr.status === "dual_infeasible"
          ? "unbounded"
          : "solver_failure";
    diagnosis.push(...qpr.diagnosis);
    return finish(
      engine,
      status,
      qpr.x,
      undefined,
      qpr,
      ySw,
      1,
      solves,
      rebuilds,
      qpIterations,
      diagnosis,
      0,
      domLo,
      domHi,
    );
  }

  let round = 1;
  let bestObjective = Number.POSITIVE_INFINITY;
  let stalls = 0;
  let conservative = false;
  let powerGap = 0;
  let status: PwlQpStatus = "max_rounds";
  let dualSource = qpr;
  const gradTolerance = tol * Math.max(1, maxAbs(diagonalOf(s.P))); // P's scale, not the surrogate's
  for (;;) {
    x.set(qpr.x);
    dualSource = qpr;
    for (let r = 0; r < mSw; r++) ySw[r] = qpr.y[s.mFixed + r]!;
    // Smooth gradient from stationarity: P x + q + A'y + cone terms = -(yBounds + slope + switch terms).
    for (let i = 0; i < n; i++) grad[i] = -qpr.yBounds[i]! - hSlope(chosen[i]!);
    powerGap = 0;
    if (power !== undefined) {
      // Curvature of the next round's surrogate: the secant of the true gradient between the last two iterates,
      // (f'(x) - f'(xRef)) / (x - xRef) = 1.5 c (sqrt|dx| +- sqrt|dRef|) / (dx - dRef) > 0 (a one-dimensional secant
      // step per coordinate, the coupling through P being exact). It is f'' between the two points, so the
      // iteration converges superlinearly, and it stays positive and finite when the iterates straddle r.
      let next: Float64Array | undefined;
      for (let i = 0; i < n; i++) {
        const c = power.coefficient[i]!;
        if (c === 0) continue;
        const gNew = powerGradient(c, power.reference[i]!, x[i]!);
        const gOld = powerGradient(c, power.reference[i]!, xRef[i]!);
        // Replace the surrogate's gradient alpha (x - xRef) + f'(xRef) by the true f'(x).
        grad[i]! += gNew - gOld - alpha![i]! * (x[i]! - xRef[i]!);
        const gap = Math.abs(gNew - gOld);
        powerGap = Math.max(powerGap, gap);
        const step = x[i]! - xRef[i]!;
        if (gap > tol * 1e-3 && step !== 0) {
          const cap = (1.5 * c) / Math.sqrt(MIN_POWER_DISTANCE);
          const secant = Math.min(cap, (gNew - gOld) / step);
          const a = alpha![i]!;
          if (secant > 0 && Math.abs(secant - a) > CURVATURE_CHANGE * a) {
            next ??= Float64Array.from(alpha!);
            next[i] = secant;
          }
        }
        xRef[i] = x[i]!;
      }
      if (next !== undefined) {
        s.setCurvature(next);
        alpha = s.alpha;
      }
    }
    const obj = engine.objective(x);
    if (obj < bestObjective - 1e-14 * Math.max(1e-12, Math.abs(obj))) {
      bestObjective = obj;
      stalls = 0;
    } else if (++stalls >= 2) conservative = true;

    let moves = 0;
    for (let i = 0; i < n; i++) {
      const xi = x[i]!;
      const c = chosen[i]!;
      const p = predict(i, xi, grad[i]!);
      if (Math.abs(p.x - xi) <= tol || p.decrease <= 0) {
        // Converged coordinate: make its interval the exact segment holding x* (to rounding, so a point on a
        // breakpoint does not flip between the two segments that share it) for the next round, if any. This is not
        // a move: the gradient above comes from the QP's stationarity whatever slope the interval carried, and the
        // prediction scans the true segments, so when no coordinate moves x* is a KKT point of the whole problem
        // and no verification round is needed.
        const slack = 1e-12 * Math.max(1, Math.abs(xi));
        const j =
          xi >= seg.lower[c]! - slack && xi <= seg.upper[c]! + slack
            ? c
            : Math.min(allowHi[i]!, Math.max(allowLo[i]!, segmentOf(seg, i, xi)));
        const a = Math.max(seg.lower[j]!, domLo[i]!);
        const b = Math.min(seg.upper[j]!, domHi[i]!);
        if (j !== c || lo[i] !== a || hi[i] !== b) {
          chosen[i] = j;
          lo[i] = a;
          hi[i] = b;
        }
        continue;
      }
      moves++;
      const dir = p.x > xi ? 1 : -1;
      if (lastDir[i] !== 0 && dir !== lastDir[i]) reversals[i]!++;
      lastDir[i] = dir;
      if (reversals[i]! > maxSwitches) {
        freeze(i, xi, dir);
        reversals[i] = 0;
      }
      let target = Math.min(allowHi[i]!, Math.max(allowLo[i]!, p.segment));
      if (conservative) {
        // One segment at a time, always holding x*: a descent step for convex costs.
        const here = segmentOf(seg, i, xi); // leftmost segment holding xi
        target = dir > 0 && xi >= seg.upper[here]! && here < allowHi[i]! ? here + 1 : here;
      }
      hullInterval(i, target, xi);
    }
    if (moves === 0 && powerGap <= gradTolerance) {
      status = "optimal";
      break;
    }
    if (round >= maxRounds) break;
    round++;
    const next = assembleAndSolve();
    if (!solved(next)) {
      diagnosis.push(`round ${round}: QP status ${next.status}`, ...next.diagnosis);
      status = "solver_failure";
      break;
    }
    qpr = next;
  }
  return finish(
    engine,
    status,
    x,
    grad,
    dualSource,
    ySw,
    round,
    solves,
    rebuilds,
    qpIterations,
    diagnosis,
    powerGap,
    domLo,
    domHi,
  );
}

/** Is x feasible for the fixed rows, switch rows and cones (the domain holds by construction)? */
function isFeasible(s: EngineState, x: Float64Array): boolean {
  const tol = 1e-12;
  if (s.A !== undefined) {
    const A = s.A;
    for (let r = 0; r < A.rows; r++) {
      let v = 0;
      for (let k = A.rowStart[r]!; k < A.rowStart[r + 1]!; k++) v += A.values[k]! * x[A.columnIndex[k]!]!;
      if (v < s.l[r]! - tol || v > s.u[r]! + tol) return false;
    }
  }
  const sw = s.switchRows;
  if (sw !== undefined)
    for (let r = 0; r < sw.l.length; r++) {
      let v = 0;
      for (let i = 0; i < s.n; i++) {
        const j = segmentOf(s.segments, i, x[i]!);
        v += sw.coefficient[r]![j]! * x[i]! + sw.constant[r]![j]!;
      }
      if (v < sw.l[r]! - tol || v > sw.u[r]! + tol) return false;
    }
  for (const cone of s.cones ?? []) {
    if (cone.kind !== "factor-risk-ball") return false;
    const c = cone.center;
    const d = new Float64Array(s.n);
    for (let i = 0; i < s.n; i++) d[i] = x[i]! - (c?.[i] ?? 0);
    const risk =
      2 * halfQuadratic({ diagonal: cone.diagonal, ...(cone.factors ? { factors: cone.factors } : {}) }, d);
    if (risk > cone.radius * cone.radius * (1 - 1e-12)) return false;
  }
  return true;
}

function maxAbs(a: Float64Array): number {
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i]!));
  return m;
}

/** The QP of one round: Peff, chosen slopes, fixed rows then switch rows with the chosen coefficients. */
function buildQp(
  s: EngineState,
  signature: Float64Array | undefined,
  q: Float64Array,
  l: Float64Array,
  u: Float64Array,
  lower: Float64Array,
  upper: Float64Array,
): QpProblem {
  const n = s.n;
  const mSw = s.switchRows?.l.length ?? 0;
  const m = s.mFixed + mSw;
  let A: SparseMatrix | undefined;
  if (m > 0) {
    const b = new SparseMatrixBuilder(m, n);
    const F = s.A;
    if (F !== undefined)
      for (let r = 0; r < F.rows; r++)
        for (let p = F.rowStart[r]!; p < F.rowStart[r + 1]!; p++) b.add(r, F.columnIndex[p]!, F.values[p]!);
    for (let r = 0; r < mSw; r++)
      for (let i = 0; i < n; i++) {
        const v = signature![r * n + i]!;
        if (v !== 0) b.add(s.mFixed + r, i, v);
      }
    A = b.build();
  }
  return {
    P: s.Peff,
    q: Float64Array.from(q),
    ...(A === undefined ? {} : { A, l: Float64Array.from(l), u: Float64Array.from(u) }),
    bounds: { lower: Float64Array.from(lower), upper: Float64Array.from(upper) },
    ...(s.cones === undefined || s.cones.length === 0 ? {} : { cones: s.cones }),
  };
}

/**
 * Assemble the result: multipliers, true objective and a KKT report from the smooth gradient at x (taken from
 * the last QP's stationarity with the true power gradient) and the one-sided slopes of the piecewise part.
 */
function finish(
  engine: Engine,
  status: PwlQpStatus,
  xIn: Float64Array,
  grad: Float64Array | undefined,
  qpr: QpResult,
  ySw: Float64Array,
  rounds: number,
  solves: number,
  rebuilds: number,
  qpIterations: number,
  diagnosis: string[],
  powerGap: number,
  domLo: Float64Array,
  domHi: Float64Array,
): PwlQpResult {
  const s = engine.state;
  const { n, segments: seg } = s;
  const sw = s.switchRows;
  const mSw = sw?.l.length ?? 0;
  const x = Float64Array.from(xIn);
  const segment = new Int32Array(n);
  const yBounds = new Float64Array(n);
  let stationarity = 0;
  let primal = 0;
  if (grad !== undefined) {
    s.lastX = Float64Array.from(x);
    // Gradient part of the multipliers: stationarity's smooth gradient minus P x + q + the power gradient.
    const rowGradient = new Float64Array(n);
    multiply(s.P, x, rowGradient);
    const pw = s.power;
    for (let i = 0; i < n; i++) {
      let v = rowGradient[i]! + s.q[i]!;
      if (pw !== undefined) v += powerGradient(pw.coefficient[i]!, pw.reference[i]!, x[i]!);
      rowGradient[i] = grad[i]! - v;
    }
    s.lastRowGradient = rowGradient;
    s.lastYSwitch = Float64Array.from(ySw);
    const hs = (j: number) => {
      let h = seg.slope[j]!;
      if (sw !== undefined) for (let r = 0; r < mSw; r++) h += ySw[r]! * sw.coefficient[r]![j]!;
      return h;
    };
    for (let i = 0; i < n; i++) {
      const a = seg.start[i]!;
      const b = seg.start[i + 1]! - 1;
      const xi = x[i]!;
      const j = segmentOf(seg, i, xi);
      segment[i] = j;
      const atLo = xi <= seg.lower[j]!;
      const atHi = xi >= seg.upper[j]!;
      // One-sided slopes of the Lagrangian's piecewise part at x (NaN past the domain's ends).
      const hLeft = xi <= domLo[i]! ? Number.NaN : atLo ? (j > a ? hs(j - 1) : Number.NaN) : hs(j);
      const hRight = xi >= domHi[i]! ? Number.NaN : atHi ? (j < b ? hs(j + 1) : Number.NaN) : hs(j);
      const g = grad[i]!;
      if (!Number.isNaN(hRight)) stationarity = Math.max(stationarity, -(g + hRight));
      if (!Number.isNaN(hLeft)) stationarity = Math.max(stationarity, g + hLeft);
      if (Number.isNaN(hRight) && !Number.isNaN(hLeft)) yBounds[i] = Math.max(0, -(g + hLeft));
      else if (Number.isNaN(hLeft) && !Number.isNaN(hRight)) yBounds[i] = Math.min(0, -(g + hRight));
      else if (Number.isNaN(hLeft) && Number.isNaN(hRight)) yBounds[i] = -(g + hs(j));
      primal = Math.max(primal, domLo[i]! - xi, xi - domHi[i]!);
    }
    if (s.A !== undefined) {
      const A = s.A;
      for (let r = 0; r < A.rows; r++) {
        let v = 0;
        for (let k = A.rowStart[r]!; k < A.rowStart[r + 1]!; k++) v += A.values[k]! * x[A.columnIndex[k]!]!;
        primal = Math.max(primal, s.l[r]! - v, v - s.u[r]!);
      }
    }
    if (sw !== undefined)
      for (let r = 0; r < mSw; r++) {
        let v = 0;
        for (let i = 0; i < n; i++)
          v += sw.coefficient[r]![segment[i]!]! * x[i]! + sw.constant[r]![segment[i]!]!;
        primal = Math.max(primal, sw.l[r]! - v, v - sw.u[r]!);
      }
    primal = Math.max(primal, qpr.primalResidual);
  }
  return {
    status,
    x,
    segment,
    y: qpr.y.slice(0, s.mFixed),
    ySwitch: Float64Array.from(ySw),
    yBounds,
    gradient: grad === undefined ? new Float64Array(n) : Float64Array.from(grad),
    domainLower: Float64Array.from(domLo),
    domainUpper: Float64Array.from(domHi),
    coneDuals: qpr.coneDuals,
    objective: grad === undefined ? Number.NaN : engine.objective(x),
    rounds,
    solves,
    rebuilds,
    qpIterations,
    qpStatus: qpr.status,
    kkt: { stationarity, primal, powerGradientGap: powerGap },
    diagnosis,
  };
}

/**
 * A reusable engine: keeps the QP solver (factorizations, multipliers) and the last solution, so a re-solve
 * after {@link PwlQpSolver.update} starts warm.
 * @throws {RangeError} / {@link TypeError} for malformed problems, naming `solvePwlQp` and the field.
 */
export function createPwlQpSolver(problem: PwlQpProblem): PwlQpSolver {
  return new Engine(problem);
}

/**
 * Solve a QP with separable piecewise-linear costs once (see the module comment).
 * @throws {RangeError} / {@link TypeError} for malformed problems.
 * @example
 * // min 1/2 x^2 + |x - 1| : the kink at 1 holds x at... 0 < x < 1 region: x - 1 = 0? -> x* = 1 when slope 1 >= 1
 * const r = solvePwlQp({ P: { diagonal: Float64Array.of(1) }, q: Float64Array.of(-2),
 *   segments: { start: Int32Array.of(0, 2), lower: Float64Array.of(-Infinity, 1), upper: Float64Array.of(1, Infinity),
 *     slope: Float64Array.of(-1, 1), value: Float64Array.of(0, 0) } });
 * r.x[0]; // 1: -2 + 1 - 1 < 0 < -2 + 1 + 1
 */
export function solvePwlQp(problem: PwlQpProblem, options: PwlQpOptions = {}): PwlQpResult {
  return new Engine(problem).solve(options);
}
