/**
 * @module core/proposal
 * The rebalance-proposal builder: optimized target weights + the account's lots and cash -> orders with
 * the lots they sell, realized gains, FX costs, cash buffers and the dropped orders. Pure; decimal.js money.
 */

export { buildProposal } from "./build-proposal.js";
export { type CashBufferSettings, type CashBuffers, cashBuffers } from "./cash-buffers.js";
export { fxCostForNet, fxCostFromBase } from "./fx-cost.js";
export {
  DEFAULT_FX_FEE_PERCENTAGE,
  DEFAULT_MIN_ORDER_NOTIONAL_USD,
  DEFAULT_MIN_ORDER_QUANTITY,
  DEFAULT_QUANTITY_DECIMALS,
  DEFAULT_WEIGHT_SUM_TOLERANCE,
} from "./proposal-defaults.js";
export {
  OPTIMIZATION_MODES,
  type OptimizationMode,
  type ProposalConfig,
  type ProposalInput,
  type ProposalOptions,
  type ProposalSecurity,
  type ProposalTaxPreferences,
  type RecentSale,
  type ShortLot,
  type TargetWeight,
} from "./proposal-input.js";
export type {
  DroppedOrder,
  DropReason,
  FxCostBreakdown,
  OrderCategory,
  OrderReason,
  OrderSide,
  OrderType,
  PostTrade,
  PostTradePosition,
  ProposalOrder,
  ProposalResult,
  ProposalTaxLot,
  ProposalWarning,
  RealizedSummary,
} from "./proposal-result.js";
