/**
 * @module core/proposal/proposal-input
 * What {@link buildProposal} needs: the account (lots, short lots, USD cash), market data (securities,
 * prices, FX), the optimized target weights, the effective configuration values that shape orders, and the
 * wash-sale environment (household lots, recent purchases and loss sales). Decimals may be given as
 * strings, numbers or `Decimal`s; they are converted once at entry.
 */

import type { Decimal } from "decimal.js";
import type { Currency } from "../data/types.js";
import type {
  CapitalGainsReductionUnits,
  HoldingPeriodConvention,
  LotSelectionPolicy,
  SpecificLotRequest,
  TaxLot,
  WashSalePurchase,
} from "../tax/index.js";

/** Optimization modes of the portfolio configuration. */
export type OptimizationMode = "LONG_ONLY" | "LONG_SHORT" | "LONG_BIASED";

/** All optimization modes. */
export const OPTIMIZATION_MODES: readonly OptimizationMode[] = ["LONG_ONLY", "LONG_SHORT", "LONG_BIASED"];

/** Security-master facts the proposal needs about one asset. */
export interface ProposalSecurity {
  /** Ticker symbol (`ticker_symbol` of the order). @default null */
  symbol?: string | null;
  /** Listing (trading) currency; prices and lots of the asset are in it. */
  currency: Currency;
  /**
   * The asset cannot be traded in fractional shares at the broker (independent of the configuration's
   * `require_whole_shares`). @default false
   */
  wholeSharesOnly?: boolean;
}

/**
 * One open short position lot: `quantity` shares sold short on `openDate` for `proceeds` (total, in the
 * security currency) at `fxRate` (units per USD on the short-sale date). The tax engine only knows long lots;
 * shorts are carried by this module (see docs/proposals.md, "Short positions").
 */
export interface ShortLot {
  id: string;
  themeAssetId: string;
  /** Shares owed, > 0. */
  quantity: Decimal.Value;
  /** Total proceeds of the short sale, security currency, >= 0. */
  proceeds: Decimal.Value;
  /** Units of the security currency per USD on `openDate`. @default 1 */
  fxRate?: Decimal.Value;
  /** Short-sale date (`YYYY-MM-DD`), <= asOf. */
  openDate: string;
}

/** One optimized target weight, already resolved from the user's ticker to a theme_asset_id. */
export interface TargetWeight {
  themeAssetId: string;
  /** Fraction of the investable value; negative = short (LONG_SHORT / LONG_BIASED only). */
  weight: Decimal.Value;
}

/**
 * A loss sale that a purchase could wash: a realized record of the account or the household (a
 * `RealizedGain` from the tax engine fits this shape). Only losses (`gainUsd < 0`) with shares not yet
 * matched to replacements (`washedQuantity < quantity`) count.
 */
export interface RecentSale {
  themeAssetId: string;
  saleDate: string;
  quantity: Decimal.Value;
  gainUsd: Decimal.Value;
  /** @default 0 */
  washedQuantity?: Decimal.Value;
}

/** The tax preferences that shape sells and buys. */
export interface ProposalTaxPreferences {
  /** `long_term_threshold`, days. @default 365 */
  longTermThreshold?: number | null;
  /** `wash_sale_threshold`, days before and after a loss sale. @default 30 */
  washSaleThreshold?: number | null;
  /** Drop buys that would wash a loss realized within the window. @default false */
  preventTlhInvalidatingPurchase?: boolean | null;
  /** Sell loss lots exposed to a wash sale only after every other lot. @default false */
  preventTlhInvalidatingSale?: boolean | null;
  /** How the long-term threshold treats February 29 (see the tax engine). @default "calendar" */
  holdingPeriodConvention?: HoldingPeriodConvention;
}

/**
 * The effective configuration values that matter to a proposal (the account's customization over its
 * portfolio configuration, with `no_hold_tickers` / `no_trade_tickers` already reduced by the service to the
 * entries active on the as-of date). Nulls mean "not set", like the wire shape.
 */
export interface ProposalConfig {
  /** @default "LONG_ONLY" */
  optimizationMode?: OptimizationMode | null;
  /** Upper limit of the sum of positive weights (LONG_SHORT / LONG_BIASED). @default 1 + |sum of negative weights| */
  longWeightSum?: Decimal.Value | null;
  /** Lower limit (<= 0) of the sum of negative weights (LONG_SHORT / LONG_BIASED). @default no limit */
  shortWeightSum?: Decimal.Value | null;
  /** USD buffer as a fraction of NAV, 0..1. @default 0 */
  cashBufferUsd?: Decimal.Value | null;
  /** CAD buffer as a fraction of NAV, 0..1 (expressed in CAD at the CAD rate). @default 0 */
  cashBufferCad?: Decimal.Value | null;
  /** Absolute USD buffer; overrides `cashBufferUsd` when set. */
  cashBufferUsdAmount?: Decimal.Value | null;
  /** Absolute CAD buffer, in CAD; overrides `cashBufferCad` when set. */
  cashBufferCadAmount?: Decimal.Value | null;
  /** @default false */
  requireWholeShares?: boolean | null;
  /** Assets that trade in whole shares when `requireWholeShares`; null or empty = all assets. */
  wholeShareAssets?: readonly string[] | null;
  /** Active no-trade assets: no order at all (their value still counts in NAV). @default [] */
  noTradeTickers?: readonly string[] | null;
  /** Active no-hold assets: sold (or covered) in full; their target weight must be 0. @default [] */
  noHoldTickers?: readonly string[] | null;
  taxPreferences?: ProposalTaxPreferences | null;
  /** theme_asset_id -> reduction amount (units below). @default {} */
  capitalGainsReductions?: Readonly<Record<string, Decimal.Value>> | null;
  /** @default "DOLLARS" */
  capitalGainsReductionsUnits?: CapitalGainsReductionUnits | null;
  /**
   * Smallest order in USD (configuration extension `min_trade_amount_usd`): the minimum order is the largest of
   * this, `minTradePct` % of NAV and `options.minOrderNotionalUsd`; smaller orders are dropped (full liquidations
   * excepted). @default none
   */
  minTradeUsd?: Decimal.Value | null;
  /** Smallest order in percent of NAV (`min_trade_pct`, 0.05 = 0.05%). @default none */
  minTradePct?: Decimal.Value | null;
  /** Lot selection of sells; SPECIFIC is refused (a proposal names no lots). @default "TAX_OPTIMAL" */
  lotSelectionPolicy?: LotSelectionPolicy | null;
}

/** Trading conventions that are not part of the configuration. Every field has a documented default. */
export interface ProposalOptions {
  /** FX fee in percent of the USD base amount of a non-USD order (0.25 = 0.25%). @default 0.25 */
  fxFeePercentage?: Decimal.Value;
  /** Orders worth less than this many USD are dropped (full liquidations excepted). @default 1 */
  minOrderNotionalUsd?: Decimal.Value;
  /** Share orders for fewer shares than this are dropped (full liquidations excepted). @default 0.0001 */
  minOrderQuantity?: Decimal.Value;
  /** Decimal places of fractional share quantities (0..10). @default 6 */
  quantityDecimals?: number;
  /** Tolerance on weight sums (weights arrive rounded to 10 places). @default 1e-6 */
  weightSumTolerance?: number;
}

/** Input of {@link buildProposal}. */
export interface ProposalInput {
  /** "Today": trade date of every order, `YYYY-MM-DD`. */
  asOf: string;
  /** The account's long tax lots (every lot must be of an asset with security info and a price). */
  lots: readonly TaxLot[];
  /** The account's open short lots. @default [] */
  shortLots?: readonly ShortLot[];
  /** Cash in USD (the spec's `cash_value_usd`); may be negative (a debit) but NAV must be positive. */
  cashUsd: Decimal.Value;
  /** theme_asset_id -> security facts, for every asset held or targeted. */
  securities: Readonly<Record<string, ProposalSecurity>>;
  /** theme_asset_id -> latest price per share in the security currency, > 0. */
  prices: Readonly<Record<string, Decimal.Value>>;
  /** Currency -> units per 1 USD (FRED H.10); needed for every non-USD currency in use. USD is 1. */
  fxRates?: Readonly<Partial<Record<Currency, Decimal.Value>>>;
  /** Optimized target weights (one per asset); an asset held but absent is removed from the target. */
  targets: readonly TargetWeight[];
  config?: ProposalConfig;
  options?: ProposalOptions;
  /** Lots of the client's other accounts: wash-sale replacements for sells, loss-sale marks for buys. @default [] */
  householdLots?: readonly TaxLot[];
  /** Other recent or pending purchases that count as wash-sale replacements. @default [] */
  recentPurchases?: readonly WashSalePurchase[];
  /** Recent realized sales of the account and household (only unmatched losses matter). @default [] */
  recentSales?: readonly RecentSale[];
  /**
   * theme_asset_id -> the lots a long sell of that asset consumes (SPECIFIC identification), e.g. the optimizer's
   * choice. When given for an asset the proposal sells, the sell is for exactly their total (capped by the
   * holding) and names those lots; a full liquidation still sells every lot. Other assets use the policy. For an
   * asset held short the lots are short lots: a partial cover is for exactly their total and names them (a cover
   * scaled down by the cash, or a full cover, uses the lowest-proceeds-first rule).
   * @default {}
   */
  lotChoices?: Readonly<Record<string, readonly SpecificLotRequest[]>>;
  /**
   * USD set aside for a withdrawal (a cash request, docs/cash-requests.md), >= 0: reserved like a cash buffer, so
   * weights are fractions of NAV - buffers - withdrawal and buys never spend it. @default 0
   */
  withdrawalUsd?: Decimal.Value;
}
