/**
 * @module core/risk
 * Risk models (custom, pca, characteristics, vendor) as factor models Sigma = X F X' + diag(D), and the
 * operations the optimizer needs on them.
 */

export type { ReturnFrequency } from "./annualization.js";
export { PERIODS_PER_YEAR, periodsPerYear } from "./annualization.js";
export type { BuildRiskModelOptions, RiskModelInputs } from "./build-risk-model.js";
export { buildRiskModel } from "./build-risk-model.js";
export type { CharacteristicsModelInputs, CharacteristicsRiskModelOptions } from "./characteristics-model.js";
export { buildCharacteristicsRiskModel, DEFAULT_CHARACTERISTICS_HALF_LIFE } from "./characteristics-model.js";
export type { CrossSection, CrossSectionFit } from "./cross-sectional-regression.js";
export { crossSectionalRegression } from "./cross-sectional-regression.js";
export type {
  CustomCovarianceInput,
  CustomFactorInput,
  CustomFactorRecordsInput,
  CustomRiskModelOptions,
  CustomSpecificVarianceRow,
} from "./custom-model.js";
export { buildCustomRiskModel } from "./custom-model.js";
export { riskModelCovariance } from "./dense-covariance.js";
export { ewCovariance, exponentialWeights } from "./ew-covariance.js";
export { imputeBySector } from "./impute-by-sector.js";
export type { PcaRiskModelOptions, ReturnHistory } from "./pca-model.js";
export { buildPcaRiskModel, DEFAULT_PCA_FACTORS } from "./pca-model.js";
export { activeRisk, factorExposures, portfolioVariance, riskModelTimesVector } from "./portfolio-risk.js";
export type { PsdRepairOptions, PsdRepairResult } from "./psd-repair.js";
export { DEFAULT_PSD_RELATIVE_FLOOR, repairPsd } from "./psd-repair.js";
export type { QuadraticFormOptions } from "./quadratic-form.js";
export { toQuadraticForm } from "./quadratic-form.js";
export { selectRiskModelAssets } from "./select-assets.js";
export { applySpectralShift } from "./spectral-shift.js";
export type { StandardizedCharacteristic, StandardizeOptions } from "./standardize.js";
export { standardizeCharacteristic } from "./standardize.js";
export type {
  FactorModel,
  PsdRepairReport,
  RiskModelDiagnostics,
  RiskModelName,
} from "./types.js";
export { RISK_MODEL_NAMES } from "./types.js";
export { validateFactorModel } from "./validate-factor-model.js";
export type {
  VendorCovarianceRow,
  VendorExposureRow,
  VendorRiskModelData,
  VendorRiskModelOptions,
  VendorSpecificRiskRow,
} from "./vendor-model.js";
export { buildVendorRiskModel } from "./vendor-model.js";
