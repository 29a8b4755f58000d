/**
 * @module core/optimizer
 * The tax-aware portfolio optimizer: the numeric configuration, the lot table, the piecewise-linear QP engine,
 * and optimizePortfolio / createOptimizer (see docs/optimizer.md).
 */
export { type BuiltProblem, buildProblem, impactCurvature, type SolveState } from "./build-problem.js";
export { type LotTable, NO_DAY, prepareLotTable } from "./lot-table.js";
export type {
  AssetTrade,
  DatedAssetEvent,
  LotSale,
  OptimizationInput,
  OptimizationResult,
  OptimizationStatus,
  OptimizeOptions,
  OptimizerShortLot,
  RiskCapReport,
  ShortCover,
  TaxGammaSearchReport,
} from "./optimization-types.js";
export { createOptimizer, type Optimizer, optimizePortfolio } from "./optimize-portfolio.js";
export {
  DEFAULT_OPTIMIZER_CONFIG,
  DEFAULT_TAX_PREFERENCES,
  type FactorExposureBound,
  type OptimizationMode,
  type OptimizerConfig,
  type OptimizerConfigInput,
  type OptimizerTaxPreferences,
  resolveOptimizerConfig,
  type TickerTarget,
} from "./optimizer-config.js";
export { buildPeriodModel, type PeriodModel } from "./period-model.js";
export { createPwlQpSolver, type PwlQpSolver, solvePwlQp } from "./pwl-qp.js";
export type {
  PowerCost,
  PwlQpOptions,
  PwlQpProblem,
  PwlQpResult,
  PwlQpStatus,
  PwlSegments,
  SwitchRows,
} from "./pwl-qp-types.js";
export { type GammaSearchOptions, type GammaSearchResult, searchTaxGamma } from "./tax-gamma-search.js";
