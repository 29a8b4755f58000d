/**
 * @module core/numeric/qp-types
 * Problem, options and result types of the QP solver ({@link solveQp}, {@link createQpSolver}).
 *
 * Standard form (as OSQP, Stellato et al. 2020, plus bounds and cones):
 *
 *     minimize    1/2 x'Px + q'x + offset
 *     subject to  l <= A x <= u                 (l_i = u_i for equalities; +-Infinity allowed)
 *                 lower <= x <= upper           (optional `bounds`; rows of A with one entry work too)
 *                 x in each cone of `cones`
 *
 * with P = diag(d) + V diag(s) V' given in factor form and A sparse (CSR).
 */
import type { DenseMatrix } from "./dense-matrix.js";
import type { FactorForm } from "./factor-model.js";
import type { SparseMatrix } from "./sparse-matrix.js";

/**
 * The factor-risk ball (x - c)'(diag(e) + W W')(x - c) <= r^2, i.e. the tracking-error cap
 * ||G (x - c)|| <= r with G = [diag(sqrt(e)); W']. Used for the optimizer's active-risk cap.
 */
export interface FactorRiskBall {
  readonly kind: "factor-risk-ball";
  /** c (length n); default zeros. */
  readonly center?: Float64Array;
  /** e (length n), >= 0: specific variances. */
  readonly diagonal: Float64Array;
  /** W (n x kW), optional: factor loadings times the square root of the factor covariance. */
  readonly factors?: DenseMatrix;
  /** r >= 0 (the cap on the norm, e.g. tracking volatility, not its square). */
  readonly radius: number;
}

/**
 * A general second-order cone ||G x - g|| <= h'x + t (G sparse p x n). Solved by ADMM with projections
 * (COSMO/SCS style), to the ADMM tolerances; no exact polish.
 */
export interface SecondOrderCone {
  readonly kind: "second-order-cone";
  readonly G: SparseMatrix;
  /** g (length p); default zeros. */
  readonly g?: Float64Array;
  /** h (length n); default zeros. */
  readonly h?: Float64Array;
  /** t; default 0. */
  readonly t?: number;
}

/** A cone constraint of a {@link QpProblem}. */
export type ConeConstraint = FactorRiskBall | SecondOrderCone;

/** A convex QP in the solver's standard form (see the module comment). */
export interface QpProblem {
  /** P = diag(d) + V diag(s) V', PSD: d >= 0 and s >= 0. Its diagonal fixes n. */
  readonly P: FactorForm;
  /** Linear cost q (length n). */
  readonly q: Float64Array;
  /** Constraint matrix A (m x n, CSR); omit for no linear rows. */
  readonly A?: SparseMatrix;
  /** Row lower bounds (length m), -Infinity allowed. Required with A. */
  readonly l?: Float64Array;
  /** Row upper bounds (length m), +Infinity allowed. Required with A. */
  readonly u?: Float64Array;
  /** Simple bounds on x (length n each, +-Infinity allowed). */
  readonly bounds?: { readonly lower: Float64Array; readonly upper: Float64Array };
  /** Cone constraints. */
  readonly cones?: readonly ConeConstraint[];
  /** Constant added to the reported objective; default 0. */
  readonly offset?: number;
}

/** Termination status of a solve. */
export type QpStatus =
  | "optimal"
  | "optimal_inaccurate"
  | "primal_infeasible"
  | "dual_infeasible"
  | "max_iter"
  | "time_limit";

/** Which algorithm ran (see docs/solver.md). */
export type QpMethod = "active-set" | "admm";

/** Options of {@link solveQp} and {@link createQpSolver}. Every field is optional. */
export interface QpOptions {
  /**
   * Algorithm: `"active-set"` (dual semismooth Newton on the factor structure with exact line search,
   * exact answers), `"admm"` (OSQP's ADMM, then the active-set polish), or `"auto"` (active-set when the
   * problem has no general second-order cone and the low-rank size is moderate; ADMM otherwise and as
   * fallback, which also produces infeasibility certificates).
   * @default "auto"
   */
  readonly method?: "auto" | QpMethod;
  /** ADMM iteration limit. @default 10000 */
  readonly maxIter?: number;
  /** Active-set Newton iteration limit (per solve, and per polish). @default 500 */
  readonly maxNewtonIter?: number;
  /** ADMM absolute tolerance eps_abs. @default 1e-4 */
  readonly epsAbs?: number;
  /** ADMM relative tolerance eps_rel. @default 1e-4 */
  readonly epsRel?: number;
  /** Primal infeasibility tolerance of the ADMM certificate test. @default 1e-5 */
  readonly epsPrimalInfeasible?: number;
  /** Dual infeasibility tolerance of the ADMM certificate test. @default 1e-5 */
  readonly epsDualInfeasible?: number;
  /** Initial ADMM step rho (inequality rows; equality rows use 1e3 rho). @default 0.1 */
  readonly rho?: number;
  /** ADMM regularization sigma. @default 1e-6 */
  readonly sigma?: number;
  /** ADMM over-relaxation alpha in (0, 2). @default 1.6 */
  readonly alpha?: number;
  /** Adapt rho from the ratio of scaled primal and dual residuals (OSQP section 5.2). @default true */
  readonly adaptiveRho?: boolean;
  /** ADMM iterations between rho adaptations. @default 25 */
  readonly adaptiveRhoInterval?: number;
  /** Refactor only when the proposed rho differs by more than this factor. @default 5 */
  readonly adaptiveRhoTolerance?: number;
  /** Ruiz equilibration passes of the ADMM data (0 = none). @default 10 */
  readonly scalingIterations?: number;
  /** Run the active-set polish after ADMM. @default true */
  readonly polish?: boolean;
  /**
   * Bar of the KKT check that qualifies an active-set or polished answer as `optimal`: relative
   * stationarity, primal violation and complementarity all below it.
   * @default 1e-9
   */
  readonly kktTolerance?: number;
  /** Start from the previous solution of a {@link QpSolver} (ignored by `solveQp`). @default true */
  readonly warmStart?: boolean;
  /** Time limit in milliseconds, effective only with `now`. @default Infinity */
  readonly timeLimitMs?: number;
  /** Clock in milliseconds (core has no clock of its own); enables `timeLimitMs`. */
  readonly now?: () => number;
}

/** Outcome of a solve. Vectors are fresh arrays owned by the caller. */
export interface QpResult {
  readonly status: QpStatus;
  /** Primal solution (best iterate when not optimal). */
  readonly x: Float64Array;
  /** Multipliers of the rows of A (length m): > 0 at an active upper bound, < 0 at an active lower bound. */
  readonly y: Float64Array;
  /** Multipliers of `bounds` (length n), same sign convention; zeros when the problem has no bounds. */
  readonly yBounds: Float64Array;
  /**
   * Dual vector of each cone (ADMM row form): for a factor-risk ball, length n + kW with
   * G'y = mu Sigma (x - c) / ||G (x - c)||; for a second-order cone, length 1 + p ((h'x + t) row first).
   */
  readonly coneDuals: Float64Array[];
  /** Objective 1/2 x'Px + q'x + offset at x. */
  readonly objective: number;
  /** Iterations of the method that produced x (Newton steps, or ADMM iterations plus polish steps). */
  readonly iterations: number;
  /** Largest constraint violation at x (rows, bounds, cones), in the problem's units. */
  readonly primalResidual: number;
  /** Largest entry of the stationarity residual P x + q + A'y + yBounds + cone terms. */
  readonly dualResidual: number;
  /** True when the answer comes from an exact active-set solve that passed the KKT check. */
  readonly polished: boolean;
  /** Method that produced the answer. */
  readonly method: QpMethod;
  /** Final ADMM rho (undefined when ADMM did not run). */
  readonly rho?: number;
  /** Certificate: for `primal_infeasible`, delta-y over rows of A (then `bounds`, then cone rows); for `dual_infeasible`, delta-x. */
  readonly certificate?: Float64Array;
  /** Human-readable notes on infeasibility or failure (e.g. "row 3: lower bound 2 > upper bound 1"). */
  readonly diagnosis: string[];
}
