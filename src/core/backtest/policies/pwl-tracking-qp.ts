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
 * This is a special case of the optimizer's engine (`core/optimizer/pwl-qp.ts`: one fixed row, no switch rows,
 * no cone, no power cost), and {@link solvePwlTracking} solves it with that engine: it checks the segments, gives
 * each segment its cost value (phi_i integrated from the variable's first segment; the values only shift the
 * reported objective), and starts the engine at `start`. docs/backtests.md, "The PWL tracking engine".
 */
import { type FactorForm, SparseMatrixBuilder } from "../../numeric/index.js";
import { solvePwlQp } from "../../optimizer/pwl-qp.js";

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
  /** Current point (the no-trade portfolio): the engine starts from it. */
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
  /** The engine's convergence tolerance (`PwlQpOptions.tolerance`). @default 1e-9 */
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
  // Cost value at each segment's lower end (at its upper end when the lower end is -Infinity), 0 at the start.
  const value = new Float64Array(slope.length);
  for (let i = 0; i < n; i++)
    for (let j = first[i]! + 1; j < first[i + 1]!; j++)
      value[j] =
        lower[j - 1] === Number.NEGATIVE_INFINITY
          ? value[j - 1]!
          : value[j - 1]! + slope[j - 1]! * (upper[j - 1]! - lower[j - 1]!);
  const A = new SparseMatrixBuilder(1, n);
  for (let i = 0; i < n; i++) A.add(0, i, 1);
  const res = solvePwlQp(
    {
      P,
      q,
      A: A.build(),
      l: Float64Array.of(budget.lower),
      u: Float64Array.of(budget.upper),
      segments: { start: first, lower, upper, slope, value },
    },
    {
      maxRounds: options.maxRounds ?? 80,
      initialX: start,
      ...(options.tolerance === undefined ? {} : { tolerance: options.tolerance }),
    },
  );
  const status =
    res.status === "optimal" || res.status === "max_rounds" || res.status === "infeasible"
      ? res.status
      : "solver_failure";
  return { status, x: res.x, rounds: res.rounds, qpIterations: res.qpIterations };
}
