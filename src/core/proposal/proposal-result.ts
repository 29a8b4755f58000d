/**
 * @module core/proposal/proposal-result
 * What {@link buildProposal} returns: orders with the lots they consume and the FX cost of non-USD orders,
 * the cash buffers, the orders it dropped and why, realized gains, and the estimated post-trade account.
 * Every amount is a full-precision `Decimal` (64 significant digits); the service rounds to the wire's
 * decimal limits (amount decimal(10,10), lot cost_basis / gain decimal(30,10), lot quantity decimal(10,10)).
 */

import type { Decimal } from "decimal.js";
import type { Currency } from "../data/types.js";
import type { HoldingTerm } from "../tax/index.js";

/** Why an order exists (the spec's reason enum). */
export type OrderReason = "added_to_target" | "removed_from_target" | "weight_increased" | "weight_decreased";

/** `long` = ordinary buy or sell of long shares; `short_order` = sell short; `short_cover` = buy to cover. */
export type OrderCategory = "long" | "short_order" | "short_cover";

/** `qty` = `amount` counts shares; `notional` = `amount` is USD. */
export type OrderType = "qty" | "notional";

/** Direction of an order. */
export type OrderSide = "buy" | "sell";

/**
 * One lot line of a sell (long lots) or a cover (short lots).
 * Long sell: `costBasisUsd` is the TOTAL USD basis of the `quantity` sold from the lot (purchase FX), and
 * `gainUsd = quantity x price / fx_today - costBasisUsd`. Cover: `costBasisUsd` is the cost of the covering
 * shares (`quantity x price / fx_today`), `gainUsd` = short proceeds of the slice in USD (short-sale FX) - that cost.
 */
export interface ProposalTaxLot {
  lotId: string;
  quantity: Decimal;
  /** Acquisition date (long lot) or short-sale date (short lot). */
  tradeDate: string;
  /** Total basis of the slice in the lot currency (long lots) or the cover cost in the security currency. */
  costBasis: Decimal;
  /** Total basis of the slice in USD (the wire's `cost_basis`). */
  costBasisUsd: Decimal;
  /** Economic gain, USD, negative for a loss (the wire's `gain`). */
  gainUsd: Decimal;
  term: HoldingTerm;
  /** Part of a loss expected to be disallowed by the wash-sale rule, USD >= 0. */
  disallowedLossUsd: Decimal;
  /** `gainUsd + disallowedLossUsd`: what the sale recognizes for tax. */
  recognizedGainUsd: Decimal;
}

/**
 * FX cost of a non-USD order; all amounts are magnitudes (>= 0) in USD, the order's sign gives the direction.
 * `feeAmountUsd = baseAmountUsd x feePercentage / 100`, `netAmountUsd = baseAmountUsd - feeAmountUsd`.
 * Buy: `base` leaves USD cash, `net` is converted into the currency to pay for the shares.
 * Sell: `base` is the USD value of the proceeds, `net` reaches USD cash.
 */
export interface FxCostBreakdown {
  currency: Currency;
  /** Units of the currency per USD used for the conversion. */
  fxRate: Decimal;
  baseAmountUsd: Decimal;
  /** Percent (0.25 = 0.25%). */
  feePercentage: Decimal;
  feeAmountUsd: Decimal;
  netAmountUsd: Decimal;
}

/** Realized gains of one order or of the proposal, USD (recognized = after wash-sale disallowance). */
export interface RealizedSummary {
  /** Recognized net short-term gain (negative = net loss). */
  shortTermUsd: Decimal;
  /** Recognized net long-term gain. */
  longTermUsd: Decimal;
  /** Losses expected to be disallowed by wash sales (moved into replacement shares), >= 0. */
  disallowedLossUsd: Decimal;
  /** Capital-gains reduction applied (`capital_gains_reductions`), >= 0. */
  capitalGainsReductionUsd: Decimal;
  /** Short- and long-term gains left taxable after the reductions. */
  taxableShortTermUsd: Decimal;
  taxableLongTermUsd: Decimal;
}

/** One order of the proposal. */
export interface ProposalOrder {
  /** theme_asset_id (the wire's `ticker`). */
  themeAssetId: string;
  symbol: string | null;
  currency: Currency;
  side: OrderSide;
  type: OrderType;
  category: OrderCategory;
  reason: OrderReason;
  /** Signed like the wire: > 0 buys, < 0 sells; shares (`qty`) or USD (`notional`). */
  amount: Decimal;
  /** Shares: exact for `qty`; for `notional`, the estimate `net x fx / price`. */
  quantity: Decimal;
  /** Signed USD value: buys + the USD leaving cash (fee included), sells - the gross USD value. */
  amountUsd: Decimal;
  /** Net shares held before (negative = short). */
  existingQuantity: Decimal;
  /** Existing market value / NAV. */
  existingWeight: Decimal;
  /** Existing market value, USD (negative = short). */
  existingMarketValueUsd: Decimal;
  /** Target weight (fraction of investable value; 0 when removed). */
  targetWeight: Decimal;
  /** `targetWeight x investable`, USD. */
  targetValueUsd: Decimal;
  /** Lots consumed (sells of long shares, covers); null for buys and short sales. */
  taxLots: ProposalTaxLot[] | null;
  /** FX cost of a non-USD order; null for USD assets. */
  fxCostBreakdown: FxCostBreakdown | null;
  /** Gains this order realizes (sells and covers); null otherwise. */
  realized: RealizedSummary | null;
}

/** Why a wanted trade produced no order (or a smaller one). */
export type DropReason =
  | "no_trade"
  | "below_min_notional"
  | "below_min_quantity"
  | "rounded_to_zero"
  | "scaled_to_zero"
  | "wash_sale_prevented";

/** A trade the targets asked for that is not in `orders`. */
export interface DroppedOrder {
  themeAssetId: string;
  side: OrderSide;
  category: OrderCategory;
  reason: DropReason;
  /** The USD value that was wanted (signed: > 0 buy, < 0 sell), before rounding and scaling. */
  wantedAmountUsd: Decimal;
  /** Human-readable explanation naming the asset and the figures. */
  message: string;
}

/** Something the advisor should know that did not stop the proposal. */
export interface ProposalWarning {
  code:
    | "purchase_washes_recent_loss"
    | "sale_loss_washed"
    | "buys_scaled"
    | "cash_below_buffer"
    | "weights_below_one";
  /** The asset concerned, when there is one. */
  themeAssetId: string | null;
  message: string;
}

/** One asset after the proposed trades (estimates at today's prices and FX). */
export interface PostTradePosition {
  themeAssetId: string;
  /** Net shares (negative = short). */
  quantity: Decimal;
  marketValueUsd: Decimal;
  /** marketValueUsd / post-trade NAV. */
  weight: Decimal;
  targetWeight: Decimal;
  targetValueUsd: Decimal;
}

/** The account after the proposed trades. */
export interface PostTrade {
  cashUsd: Decimal;
  /** NAV before minus the FX fees: `navUsd = cashUsd + sum(marketValueUsd)`. */
  navUsd: Decimal;
  /** `reservedCashUsd - cashUsd` when the sells could not restore the buffers, else 0. */
  cashShortfallUsd: Decimal;
  /** Positions held before or after, by theme_asset_id. */
  positions: PostTradePosition[];
}

/** Result of {@link buildProposal}. */
export interface ProposalResult {
  asOf: string;
  /** Positions at market in USD + cash. */
  navUsd: Decimal;
  cashUsd: Decimal;
  /** USD buffer (rounded up to the cent); null when neither USD buffer field is set. */
  cashBufferUsdAmount: Decimal | null;
  /** CAD buffer in CAD (rounded up to the cent); null when neither CAD buffer field is set. */
  cashBufferCadAmount: Decimal | null;
  /** Cash kept out of the trades: USD buffer + CAD buffer converted at the CAD rate (+ the withdrawal, when one). */
  reservedCashUsd: Decimal;
  /** NAV - reserved cash: the base of the target weights. */
  investableUsd: Decimal;
  /** Sells first, then buys; each by theme_asset_id (see docs/proposals.md). */
  orders: ProposalOrder[];
  dropped: DroppedOrder[];
  warnings: ProposalWarning[];
  realized: RealizedSummary;
  /** Sum of the FX fees of the orders, USD. */
  fxFeesUsd: Decimal;
  /** Fraction of the wanted buys that the cash above the buffers could fund (1 = all). */
  buyScale: Decimal;
  postTrade: PostTrade;
}
