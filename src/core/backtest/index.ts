/**
 * @module core/backtest
 * The account backtest (docs/backtests.md): a simulator over a served market view, accounts kept lot by lot
 * through the tax engine, trading policies, the standard cases and their figures. Pure; money in decimal.js.
 */
export {
  AccountBook,
  type AccountBookOptions,
  type BacktestTaxSettings,
  type CoverRecord,
  type InitialHoldings,
  LOSS_USAGES,
  type LossUsage,
  QUANTITY_DECIMALS,
  type SpinOffRecord,
  type TaxYearRecord,
  type TradeFill,
  type TradeTotals,
} from "./account-book.js";
export {
  type CaseAttribution,
  type CaseMetrics,
  type CaseTaxYear,
  type SummarizeOptions,
  summarizeBacktest,
} from "./case-metrics.js";
export {
  DEFAULT_FX_FEE_BPS,
  DEFAULT_TRANSACTION_COST_BPS,
  resolveTradingCosts,
  type TradingCosts,
} from "./costs.js";
export { BacktestCancelledError, LookAheadError } from "./errors.js";
export { type HandAsset, type HandMarketInput, handMarket, weekdayCalendar } from "./hand-market.js";
export {
  type BacktestBenchmark,
  type BacktestCharacteristics,
  type BacktestMarket,
  type BacktestMarketInput,
  type BacktestSecurity,
  type BacktestSpinOff,
  backtestMarketOf,
  type ColumnEvent,
  type ColumnSpinOff,
  prepareBacktestMarket,
  spinOffChildValue,
} from "./market-data.js";
export { MarketView } from "./market-view.js";
export {
  BACKTEST_OWNED_CONFIG,
  type BasisReset,
  type BasisResetAssumptions,
  type BuyAndHoldOptions,
  basisResetOrders,
  buyAndHoldPolicy,
  type CharacteristicOverlayOptions,
  characteristicOverlay,
  createRiskModelProvider,
  DEFAULT_BASIS_RESET_MAX_GAIN,
  DEFAULT_MIN_TRADE_FRACTION,
  DEFAULT_OVERLAY_GROSS,
  DEFAULT_OVERLAY_QUANTILE,
  DEFAULT_REINVEST_FRACTION,
  DEFAULT_TRACKING_RISK_AVERSION,
  type DecisionAccountFacts,
  defaultBasisResetMaxGain,
  type HarvestBaselineOptions,
  type HarvestBaselinePolicy,
  type HarvestBaselineStats,
  type HeldDecision,
  harvestBaselinePolicy,
  INVESTED_FACTOR,
  investableTargetWeights,
  LONG_SHORT_FACTOR_CHARACTERISTICS,
  type LongShortFactor,
  MAX_UNINVESTED_FRACTION,
  type OptimizerConfigProvider,
  ordersToTarget,
  type PwlSegments,
  type PwlTrackingOptions,
  type PwlTrackingProblem,
  type PwlTrackingResult,
  priorRiskModel,
  type RebalanceEngine,
  type RebalanceToTargetOptions,
  type RiskModelProvider,
  type RiskModelProviderOptions,
  rebalanceToTargetPolicy,
  solvePwlTracking,
  type TaxAwarePolicy,
  type TaxAwarePolicyStats,
  type TaxAwareTrackingOptions,
  taxAwareTrackingPolicy,
  WASH_SALE_GAIN_MARGIN,
} from "./policies/index.js";
export type {
  BacktestPolicy,
  BacktestShortLot,
  PolicyContext,
  PolicyOrder,
  PortfolioSnapshot,
} from "./policy.js";
export { type RandomMarketOptions, randomMarket } from "./random-market.js";
export { type BacktestRebalancePeriod, type BacktestSchedule, backtestSchedule } from "./schedule.js";
export {
  type BacktestCase,
  type BacktestHooks,
  type BacktestProgressReport,
  type CaseRun,
  DEFAULT_BACKTEST_TAX_RATES,
  type LedgerEntry,
  resolveBacktestTax,
  type SimulateBacktestInput,
  type SimulatedBacktest,
  simulateBacktest,
} from "./simulator.js";
export {
  runStandardBacktest,
  STANDARD_CASE_NAMES,
  type StandardBacktestInput,
  type StandardBacktestResult,
} from "./standard-cases.js";
