/**
 * @module core/tax
 * The tax-lot engine: lots, holding periods, realized gains, wash sales, lot selection, splits,
 * capital-gains reductions, tax cost and year-end settlement. Pure; money and quantities in decimal.js.
 */

export { applyPurchase, type Purchase, type PurchaseResult } from "./apply-purchase.js";
export { type ApplySaleOptions, applySale, type Sale, type SaleResult } from "./apply-sale.js";
export {
  type AssetReducedGains,
  applyCapitalGainsReductions,
  type CapitalGainsReductionUnits,
  capitalGainsReduction,
  DEFAULT_CAPITAL_GAINS_REDUCTION_UNITS,
  type ReducedGains,
} from "./capital-gains-reductions.js";
export { TaxDecimal } from "./decimal.js";
export { type HoldingTerm, holdingDays, holdingTerm, longTermDate } from "./holding-period.js";
export {
  assertValidLot,
  assertValidLots,
  createLot,
  lotFromTrusted,
  type TaxLot,
  type TaxLotInput,
  type TrustedLotFields,
} from "./lot.js";
export {
  DEFAULT_LOT_SELECTION_POLICY,
  LOT_SELECTION_POLICIES,
  type LotPick,
  type LotSelection,
  type LotSelectionContext,
  type LotSelectionPolicy,
  type SpecificLotRequest,
  selectLots,
  type WashSaleHandling,
  type WashSalePurchase,
} from "./lot-selection.js";
export {
  costBasisPerShare,
  costBasisPerShareUsd,
  marketValue,
  marketValueUsd,
  totalCostBasisUsd,
  type UnrealizedGain,
  type UnrealizedGainOptions,
  unrealizedGain,
} from "./lot-values.js";
export {
  type RaiseCashAsset,
  type RaiseCashInput,
  type RaiseCashOrder,
  type RaiseCashPick,
  type RaiseCashResult,
  raiseCash,
} from "./raise-cash.js";
export {
  isLossSale,
  REALIZED_GAIN_DECIMALS,
  type RealizedGain,
  type WashSaleMatch,
} from "./realized-gain.js";
export { settleTaxYear, type TaxYearInput, type TaxYearSettlement } from "./settle-tax-year.js";
export { applySplit, type SplitRatio } from "./split.js";
export { type GainSummary, summarizeGains, type TaxRates, taxCost } from "./tax-cost.js";
export {
  CAPITAL_LOSS_DEDUCTION_LIMIT,
  type HoldingPeriodConvention,
  LONG_TERM_THRESHOLD_DAYS,
  resolveTaxRules,
  type TaxRules,
  type TaxRulesOptions,
  WASH_SALE_THRESHOLD_DAYS,
} from "./tax-rules.js";
export { inWashSaleWindow, type WashSaleAdjustment } from "./wash-sale.js";
export {
  type AccountTaxState,
  householdWashSaleLots,
  type WashSaleLotEntry,
  type WashSaleReason,
  type WashSaleViews,
  washSaleLots,
  washSaleViews,
} from "./wash-sale-views.js";
