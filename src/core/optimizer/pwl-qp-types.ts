/**
 * @module core/optimizer/pwl-qp-types
 * Problem, options and result types of the piecewise-linear QP engine ({@link solvePwlQp},
 * {@link createPwlQpSolver}): a convex QP in the solver's factor form plus, for every variable, a separable
 * piecewise-linear cost on consecutive segments of its domain, plus "switch rows" whose coefficients depend on
 * the segment a variable lies in (turnover |t|, long and short sums). See docs/optimizer.md, "The engine".
 */
import type { ConeConstraint, FactorForm, QpOptions, QpStatus, SparseMatrix } from "../numeric/index.js";

/**
 * The segments of every variable, concatenated: variable i owns segments `start[i] .. start[i+1]-1`, ordered
 * left to right, contiguous (`upper[j] === lower[j+1]`), covering the variable's whole domain
 * `[lower[start[i]], upper[start[i+1]-1]]` (ends may be infinite). On segment j the cost is affine with slope
 * `slope[j]`; the cost is continuous and `value[j]` is its value at `lower[j]` (at `upper[j]` when `lower[j]`
 * is -Infinity). A fixed variable has one segment with `lower === upper`.
 */
export interface PwlSegments {
  readonly start: Int32Array;
  readonly lower: Float64Array;
  readonly upper: Float64Array;
  readonly slope: Float64Array;
  readonly value: Float64Array;
}

/**
 * Rows whose contribution of variable i depends on its segment j: `coefficient[r][j] * x_i + constant[r][j]`,
 * summed over the variables, must lie in `[l[r], u[r]]`. Example: one-way turnover
 * `sum_i |t_i| / 2 <= T` has coefficient `+1/2` on segments with t >= 0 and `-1/2` on segments with t <= 0.
 * Arrays in `coefficient` / `constant` are indexed by segment.
 */
export interface SwitchRows {
  readonly coefficient: readonly Float64Array[];
  readonly constant: readonly Float64Array[];
  readonly l: Float64Array;
  readonly u: Float64Array;
  /** Names for reports (default `switch row r`). */
  readonly names?: readonly string[];
}

/**
 * A smooth separable convex cost `c_i |x_i - r_i|^{3/2}` (market impact). It enters the QP through a
 * quadratic surrogate of curvature `curvature_i` (the starting value; the engine replaces it by the secant of the
 * true gradient between its last two iterates) plus a linear correction that matches the gradient at the current
 * point; the fixed point of the iteration is the exact optimum (docs/optimizer.md).
 */
export interface PowerCost {
  readonly coefficient: Float64Array;
  readonly reference: Float64Array;
  /** Starting surrogate curvature alpha_i >= 0 added to P's diagonal. */
  readonly curvature: Float64Array;
}

/** A QP with separable piecewise-linear costs (see the module comment). Inputs are never mutated. */
export interface PwlQpProblem {
  /** Smooth quadratic part P = diag(d) + V diag(s) V' (PSD). */
  readonly P: FactorForm;
  /** Smooth linear part. */
  readonly q: Float64Array;
  /** Fixed rows l <= A x <= u (CSR). */
  readonly A?: SparseMatrix;
  readonly l?: Float64Array;
  readonly u?: Float64Array;
  /** Names of the fixed rows, for reports. */
  readonly rowNames?: readonly string[];
  readonly segments: PwlSegments;
  readonly switchRows?: SwitchRows;
  readonly cones?: readonly ConeConstraint[];
  readonly power?: PowerCost;
  /** Constant added to the objective. */
  readonly offset?: number;
}

/** Options of the engine. */
export interface PwlQpOptions {
  /** Outer rounds (each one QP solve). @default 60 */
  readonly maxRounds?: number;
  /** A variable has converged when its one-dimensional prediction moves it by at most this. @default 1e-9 */
  readonly tolerance?: number;
  /** Starting point (a previous solution); default: the previous solution of a reusable solver, else 0 clipped to the domain. */
  readonly initialX?: Float64Array;
  /** Options passed to the QP solver. */
  readonly qp?: QpOptions;
  /**
   * Extra bounds on the variables for this solve (they may cut segments; a point domain fixes the variable).
   * Cheaper than a new problem: the QP solver keeps its structure.
   */
  readonly bounds?: { readonly lower: Float64Array; readonly upper: Float64Array };
  /** Side switches a variable may make across non-convex kinks before its side is frozen. @default 3 */
  readonly maxSideSwitches?: number;
}

/** Status of an engine solve. */
export type PwlQpStatus = "optimal" | "infeasible" | "unbounded" | "max_rounds" | "solver_failure";

/** Outcome of an engine solve. Vectors are fresh arrays. */
export interface PwlQpResult {
  readonly status: PwlQpStatus;
  readonly x: Float64Array;
  /** Segment of each variable at x (global segment index). */
  readonly segment: Int32Array;
  /** Multipliers of the fixed rows (OSQP convention: > 0 at the upper side). */
  readonly y: Float64Array;
  /** Multipliers of the switch rows. */
  readonly ySwitch: Float64Array;
  /** Multipliers of the variables' domain bounds (0 inside the domain). */
  readonly yBounds: Float64Array;
  /**
   * Gradient at x of everything but the piecewise-linear costs and the switch rows: P x + q + power'(x) + A'y +
   * cone term (zeros when no solution). With `ySwitch` it gives each variable's one-dimensional model.
   */
  readonly gradient: Float64Array;
  /** The domain of each variable in this solve (segments' ends and `options.bounds`). */
  readonly domainLower: Float64Array;
  readonly domainUpper: Float64Array;
  /** Dual of each cone as reported by the QP solver. */
  readonly coneDuals: Float64Array[];
  /** True objective at x (quadratic + piecewise-linear + power cost + offset). */
  readonly objective: number;
  /** Outer rounds run. */
  readonly rounds: number;
  /** QP solves, of which cold (solver rebuilt). */
  readonly solves: number;
  readonly rebuilds: number;
  /** Newton/ADMM iterations summed over the QP solves. */
  readonly qpIterations: number;
  /** Status of the last QP solve. */
  readonly qpStatus: QpStatus;
  /**
   * KKT report of the whole problem at x, in objective units: `stationarity` = max over variables of the
   * distance from 0 to the subdifferential of the Lagrangian (restricted to the variable's domain);
   * `primal` = largest violation of rows, switch rows and domains; `powerGradientGap` = largest
   * |f'(x) - f'(x_ref)| of the power cost between the last two rounds.
   */
  readonly kkt: { stationarity: number; primal: number; powerGradientGap: number };
  /** Notes from the QP solver (infeasibility). */
  readonly diagnosis: string[];
}
