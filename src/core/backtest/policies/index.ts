/**
 * @module core/backtest/policies
 * Trading policies of the account backtest: buy-and-hold, rebalance-to-target (pre-tax) and the tax-aware
 * tracking policy with harvesting and the long-short overlay, plus their building blocks.
 */
export { type BuyAndHoldOptions, buyAndHoldPolicy, DEFAULT_REINVEST_FRACTION } from "./buy-and-hold.js";
export {
  type CharacteristicOverlayOptions,
  characteristicOverlay,
  DEFAULT_OVERLAY_GROSS,
  DEFAULT_OVERLAY_QUANTILE,
  LONG_SHORT_FACTOR_CHARACTERISTICS,
  type LongShortFactor,
} from "./characteristic-overlay.js";
export {
  type HarvestBaselineOptions,
  type HarvestBaselinePolicy,
  type HarvestBaselineStats,
  harvestBaselinePolicy,
} from "./harvest-baseline.js";
export {
  type BasisReset,
  type BasisResetAssumptions,
  basisResetOrders,
  DEFAULT_BASIS_RESET_MAX_GAIN,
  defaultBasisResetMaxGain,
  type ResetCandidate,
} from "./harvest-rules.js";
export {
  type PwlSegments,
  type PwlTrackingOptions,
  type PwlTrackingProblem,
  type PwlTrackingResult,
  solvePwlTracking,
} from "./pwl-tracking-qp.js";
export {
  ordersToTarget,
  type RebalanceToTargetOptions,
  rebalanceToTargetPolicy,
} from "./rebalance-to-target.js";
export {
  createRiskModelProvider,
  priorRiskModel,
  type RiskModelProvider,
  type RiskModelProviderOptions,
} from "./risk-model-provider.js";
export { DEFAULT_MIN_TRADE_FRACTION, investableTargetWeights } from "./target-weights.js";
export {
  BACKTEST_OWNED_CONFIG,
  DEFAULT_TRACKING_RISK_AVERSION,
  type DecisionAccountFacts,
  type HeldDecision,
  INVESTED_FACTOR,
  MAX_UNINVESTED_FRACTION,
  type OptimizerConfigProvider,
  type RebalanceEngine,
  type TaxAwarePolicy,
  type TaxAwarePolicyStats,
  type TaxAwareTrackingOptions,
  taxAwareTrackingPolicy,
  WASH_SALE_GAIN_MARGIN,
} from "./tax-aware-tracking.js";
