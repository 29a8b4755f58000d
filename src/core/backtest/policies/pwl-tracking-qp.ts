/**
 * @module core/backtest/policies/pwl-tracking-qp
 * The rebalancing problem of the tax-aware policies: a convex QP in the solver's factor form plus a separable
 * convex piecewise-linear cost per variable (trading cost and the tax of the lots a sale consumes), under one
 * budget row l <= sum_i x_i <= u:
 *
 *   minimize 1/2 x'Px + q'x + sum_i phi_i(x_i)   subject to  l <= 1'x <= u,  x_i in dom(phi_i)
 *
 * phi_i is given by consecutive segments [lower_j, upper_j] with slopes slope_j, nondecreasing (convex).
 *
 * Method: a segment active-set loop (the piecewise-linear analogue of an active-set method). Fix for every
 * variable the segment it lies in: on it phi_i is linear, so the problem is the QP with q_i + slope_j and the
 * box [lower_j, upper_j], solved (warm-started) by the lotwise QP solver. At the solution, a variable stopped at
 * an end of its segment by the box has the bound multiplier yBounds_i = -(g_i + slope_j), g the gradient of the
 * smooth part plus the budget term; it belongs in the next segment to the right when g_i + slope_{j+1} < 0, to
 * the left when g_i + slope_{j-1} > 0 (the subgradient optimality condition 0 in g_i + d phi_i(x_i)). Such
 * variables move (several segments at once when the one-dimensional model 1/2 P_ii t^2 + ... predicts it) and
 * the QP is solved again; when no variable moves, x satisfies the KKT conditions of the whole convex problem,
 * hence is optimal. Before each solve the boxes are widened if the budget row could not be met inside them.
 */
import { createQpSolver, type FactorForm, type QpSolver, SparseMatrixBuilder } from "../../numeric/index.js";

/**
 * Segments of every variable, concatenated: variable i owns segments `start[i] .. start[i+1]-1`, left to right,
 * contiguous (`upper[j] === lower[j+1]`), slopes nondecreasing. A fixed variable has one segment with
 * `lower === upper`.
 */
export interface PwlSegments {
  readonly start: Int32Array;
  readonly lower: Float64Array;
  readonly upper: Float64Array;
  readonly slope: Float64Array;
}

/** A tracking problem (see the module comment). */
export interface PwlTrackingProblem {
  readonly P: FactorForm;
  readonly q: Float64Array;
  readonly segments: PwlSegments;
  /** Budget row bounds on sum_i x_i. */
  readonly budget: { readonly lower: number; readonly upper: number };
  /** Current point (the no-trade portfolio): starting segments are those that contain it. */
  readonly start: Float64Array;
}

/** Outcome of {@link solvePwlTracking}. */
export interface PwlTrackingResult {
  readonly status: "optimal" | "max_rounds" | "infeasible" | "solver_failure";
  readonly x: Float64Array;
  readonly rounds: number;
  readonly qpIterations: number;
}

/** Options of {@link solvePwlTracking}. */
export interface PwlTrackingOptions {
  /** @default 80 */
  readonly maxRounds?: number;
  /** A multiplier within this of a segment change does not move the variable. @default 1e-10 */
  readonly tolerance?: number;
}

/**
 * Solves the tracking problem.
 * @throws {RangeError} when the shapes disagree or a variable's segments are not contiguous and convex.
 * @example solvePwlTracking({ P, q, segments, budget: { lower: 0.99, upper: 0.99 }, start: w0 }).x
 */
export function solvePwlTracking(
  problem: PwlTrackingProblem,
  options: PwlTrackingOptions = {},
): PwlTrackingResult {
  const { P, q, segments, budget, start } = problem;
  const n = q.length;
  const { lower, upper, slope } = segments;
  const first = segments.start;
  if (P.diagonal.length !== n || start.length !== n || first.length !== n + 1)
    throw new RangeError(`solvePwlTracking: P, q, start and segments must describe ${n} variables`);
  for (let i = 0; i < n; i++) {
    if (!(first[i + 1]! > first[i]!)) throw new RangeError(`solvePwlTracking: variable ${i} has no segment`);
    for (let j = first[i]!; j < first[i + 1]!; j++) {
      if (!(lower[j]! <= upper[j]!)) throw new RangeError(`solvePwlTracking: segment ${j} has lower > upper`);
      if (j > first[i]! && (upper[j - 1] !== lower[j] || slope[j - 1]! > slope[j]! + 1e-15))
        throw new RangeError(
          `solvePwlTracking: segments of variable ${i} are not contiguous and convex at ${j}`,
        );
    }
  }
  const maxRounds = options.maxRounds ?? 80;
  const tol = options.tolerance ?? 1e-10;

  // Curvature of each variable alone: P_ii = d_i + sum_f s_f V_if^2.
  const curvature = Float64Array.from(P.diagonal);
  const V = P.factors;
  if (V !== undefined)
    for (let i = 0; i < n; i++)
      for (let f = 0; f < V.cols; f++)
        curvature[i]! += (P.factorScales?.[f] ?? 1) * V.data[i * V.cols + f]! ** 2;

  const seg = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    let j = first[i]!;
    while (j + 1 < first[i + 1]! && start[i]! > upper[j]!) j++;
    seg[i] = j;
  }
  const lo = new Float64Array(n);
  const hi = new Float64Array(n);
  const qq = new Float64Array(n);
  const reversals = new Int32Array(n);
  const lastMove = new Int8Array(n);
  const A = new SparseMatrixBuilder(1, n);
  for (let i = 0; i < n; i++) A.add(0, i, 1);
  const rowA = A.build();
  let solver: QpSolver | null = null;
  let x = Float64Array.from(start);
  let qpIterations = 0;
  for (let round = 1; round <= maxRounds; round++) {
    widenForBudget(seg, first, lower, upper, slope, budget);
    for (let i = 0; i < n; i++) {
      const j = seg[i]!;
      lo[i] = lower[j]!;
      hi[i] = upper[j]!;
      qq[i] = q[i]! + slope[j]!;
    }
    if (solver === null)
      solver = createQpSolver({
        P,
        q: qq,
        A: rowA,
        l: Float64Array.of(budget.lower),
        u: Float64Array.of(budget.upper),
        bounds: { lower: lo, upper: hi },
      });
    else solver.update({ q: qq, bounds: { lower: lo, upper: hi } });
    const res = solver.solve();
    qpIterations += res.iterations;
    if (res.status === "primal_infeasible") return { status: "infeasible", x, rounds: round, qpIterations };
    if (res.status !== "optimal" && res.status !== "optimal_inaccurate")
      return { status: "solver_failure", x, rounds: round, qpIterations };
    x = Float64Array.from(res.x);
    let moves = 0;
    for (let i = 0; i < n; i++) {
      const j = seg[i]!;
      const end = first[i + 1]!;
      const d = curvature[i]!;
      const g = -res.yBounds[i]! - slope[j]!;
      const scale = Math.max(1, Math.abs(hi[i]!));
      if (x[i]! >= hi[i]! - 1e-12 * scale && j + 1 < end && g + slope[j + 1]! < -tol) {
        let jj = j + 1;
        // Keep walking right while the one-dimensional model still decreases at the next segment's start.
        while (reversals[i]! < 2 && jj + 1 < end && g + d * (upper[jj]! - x[i]!) + slope[jj + 1]! < -tol)
          jj++;
        seg[i] = jj;
        if (lastMove[i] === -1) reversals[i]!++;
        lastMove[i] = 1;
        moves++;
      } else if (x[i]! <= lo[i]! + 1e-12 * scale && j > first[i]! && g + slope[j - 1]! > tol) {
        let jj = j - 1;
        while (reversals[i]! < 2 && jj > first[i]! && g + d * (lower[jj]! - x[i]!) + slope[jj - 1]! > tol)
          jj--;
        seg[i] = jj;
        if (lastMove[i] === 1) reversals[i]!++;
        lastMove[i] = -1;
        moves++;
      }
    }
    if (moves === 0) return { status: "optimal", x, rounds: round, qpIterations };
  }
  return { status: "max_rounds", x, rounds: maxRounds, qpIterations };
}

/**
 * Moves variables to neighboring segments until the boxes admit the budget row: upward (cheapest next slope
 * first) while sum of upper ends < budget.lower, downward (cheapest previous slope first) while sum of lower
 * ends > budget.upper.
 */
function widenForBudget(
  seg: Int32Array,
  first: Int32Array,
  lower: Float64Array,
  upper: Float64Array,
  slope: Float64Array,
  budget: { lower: number; upper: number },
): void {
  const n = seg.length;
  let sumHi = 0;
  let sumLo = 0;
  for (let i = 0; i < n; i++) {
    sumHi += upper[seg[i]!]!;
    sumLo += lower[seg[i]!]!;
  }
  const eps = 1e-12;
  while (sumHi < budget.lower - eps) {
    let best = -1;
    for (let i = 0; i < n; i++) {
      const j = seg[i]!;
      if (
        j + 1 < first[i + 1]! &&
        upper[j + 1]! > upper[j]! &&
        (best < 0 || slope[j + 1]! < slope[seg[best]! + 1]!)
      )
        best = i;
    }
    if (best < 0) return;
    const j = seg[best]!;
    sumHi += upper[j + 1]! - upper[j]!;
    sumLo += lower[j + 1]! - lower[j]!;
    seg[best] = j + 1;
  }
  while (sumLo > budget.upper + eps) {
    let best = -1;
    for (let i = 0; i < n; i++) {
      const j = seg[i]!;
      if (j > first[i]! && lower[j - 1]! < lower[j]! && (best < 0 || slope[j - 1]! > slope[seg[best]! - 1]!))
        best = i;
    }
    if (best < 0) return;
    const j = seg[best]!;
    sumHi += upper[j - 1]! - upper[j]!;
    sumLo += lower[j - 1]! - lower[j]!;
    seg[best] = j - 1;
  }
}
