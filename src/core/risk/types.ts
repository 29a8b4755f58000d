/**
 * @module core/risk/types
 * The factor-model shape every risk model produces: Sigma = X F X' + diag(D), annualized.
 * The optimizer never sees a dense n x n covariance; it gets this structure (see `toQuadraticForm`).
 */

/** The `risk_model_name` values of a portfolio configuration. */
export const RISK_MODEL_NAMES = ["custom", "pca", "characteristics", "vendor"] as const;

/** One of {@link RISK_MODEL_NAMES}. */
export type RiskModelName = (typeof RISK_MODEL_NAMES)[number];

/**
 * What a positive-semidefinite check found and changed (see `repairPsd`). A repair is never silent:
 * every built model carries the report of the matrix it checked.
 */
export interface PsdRepairReport {
  /** Which matrix was checked: the k x k factor covariance, or a dense n x n asset covariance. */
  matrix: "factor_covariance" | "covariance";
  /** Order of the matrix. */
  size: number;
  /** Smallest eigenvalue before the repair (negative when the input was indefinite). */
  minEigenvalueBefore: number;
  /** Largest eigenvalue (unchanged by the repair). */
  maxEigenvalue: number;
  /** Eigenvalues below `floor` that were raised to it (0 = the matrix was left as given). */
  clippedCount: number;
  /** The floor eigenvalues were clipped to. */
  floor: number;
  /** Frobenius norm of the change to the matrix (0 when nothing was clipped). */
  frobeniusChange: number;
}

/** How a model was estimated and what was adjusted on the way. */
export interface RiskModelDiagnostics {
  /** Which estimator produced the model. */
  model: RiskModelName;
  /** Return periods used for estimation (0 when the model was supplied rather than estimated). */
  periods: number;
  /** PSD check (and repair, if any) of the covariance that was factored. */
  psdRepair: PsdRepairReport;
  /** Total spectral shift added to the specific variances (annualized variance units), 0 by default. */
  spectralShift: number;
  /** One sentence per adjustment: dropped factors, imputed values, clamped options... */
  notes: string[];
  /** Share of the (sample or given) total variance carried by the factors (pca, custom). */
  explainedVariance?: number;
  /** Shrinkage intensity of the specific variances toward their cross-sectional mean (pca). */
  specificShrinkage?: number;
  /** Share of missing (NaN) entries in the return history (pca, characteristics). */
  missingFraction?: number;
  /** Average weighted cross-sectional R^2 of the factor regressions (characteristics). */
  averageRSquared?: number;
  /** Assets whose specific variance was imputed for lack of history (characteristics). */
  imputedSpecificVariance?: string[];
  /** Half-lives in periods used for the exponentially weighted estimates (characteristics). */
  halfLives?: { factor: number; specific: number };
}

/**
 * A factor risk model over n assets and k factors, meaning
 *
 *   Sigma = X F X' + diag(D)
 *
 * with every quantity annualized (variance per year, returns as fractions).
 */
export interface FactorModel {
  /** The n assets (theme_asset_ids), in the row order of `exposures` and `specificVariance`. */
  assets: string[];
  /** The k factor names, in the column order of `exposures`. */
  factors: string[];
  /** X: n x k row-major, `exposures[i * k + j]` = exposure of asset i to factor j. */
  exposures: Float64Array;
  /** F: k x k symmetric positive semidefinite, annualized. */
  factorCovariance: Float64Array;
  /** D: n specific (idiosyncratic) variances, annualized, >= 0. */
  specificVariance: Float64Array;
  /**
   * The multiplier that turned per-period estimates into annual ones (periods per year: 252 for daily
   * data); 1 when the inputs were already annual.
   */
  annualization: number;
  /** How the model was obtained. */
  diagnostics: RiskModelDiagnostics;
}
