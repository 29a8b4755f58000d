/**
 * @module core/backtest/policy
 * The contract between the simulator and a trading policy (cvxportfolio's policy lifecycle): a policy is
 * initialized once with the universe, then at each rebalance date it receives the market served at that date
 * and a read-only snapshot of the account, and returns orders. Policies never import the simulator, never see
 * data after their date, and never mutate the account: the simulator executes their orders on the next
 * trading date, through the tax engine.
 */
import type { Decimal } from "decimal.js";
import type { SpecificLotRequest, TaxLot } from "../tax/index.js";
import type { BacktestSecurity } from "./market-data.js";
import type { MarketView } from "./market-view.js";

/**
 * An open short position: `quantity` shares owed, sold short on `openDate` for `proceeds` (listing currency,
 * net of costs) at `fxRate` units per USD. The tax engine knows long lots only, so shorts live here.
 */
export interface BacktestShortLot {
  readonly id: string;
  readonly themeAssetId: string;
  readonly quantity: Decimal;
  readonly proceeds: Decimal;
  readonly fxRate: Decimal;
  readonly openDate: string;
}

/**
 * An order. Sells and covers are in shares (a sell may name its lots, SPECIFIC identification); buys are in
 * USD (the simulator turns the amount into shares at the execution price); short sales are in shares.
 * `harvest` marks a tax-loss-harvesting trade (its realized losses count as harvested losses).
 */
export type PolicyOrder =
  | {
      readonly side: "sell";
      readonly column: number;
      /** Shares; ignored when `lots` is given (the sum of the lots is sold). */
      readonly quantity?: Decimal.Value;
      readonly lots?: readonly SpecificLotRequest[];
      readonly harvest?: boolean;
    }
  | { readonly side: "buy"; readonly column: number; readonly amountUsd: number }
  | { readonly side: "short"; readonly column: number; readonly quantity: Decimal.Value }
  | {
      readonly side: "cover";
      readonly column: number;
      /** Shares; ignored when `shortLotIds` is given (those lots are covered in full). */
      readonly quantity?: Decimal.Value;
      readonly shortLotIds?: readonly string[];
      readonly harvest?: boolean;
    };

/** What a policy knows about the account at its decision date (values at the view's prices). */
export interface PortfolioSnapshot {
  readonly date: string;
  /** USD cash (may be negative right after a tax payment). */
  readonly cashUsd: number;
  /** Net asset value, USD. */
  readonly navUsd: number;
  /** Shares per column, negative for a short position. */
  readonly shares: Float64Array;
  /** Position values per column, USD, negative for a short position. */
  readonly valuesUsd: Float64Array;
  /** Long lots of a column. */
  lots(column: number): readonly TaxLot[];
  /** Short lots of a column. */
  shortLots(column: number): readonly BacktestShortLot[];
  /** Latest date shares of the column were sold at a loss, or null. */
  lastLossSale(column: number): string | null;
  /** Latest date a short of the column was covered at a loss, or null. */
  lastShortLossCover(column: number): string | null;
}

/** Arguments of {@link BacktestPolicy.decide}. */
export interface PolicyContext {
  /** Market data served at the decision date. */
  readonly view: MarketView;
  readonly portfolio: PortfolioSnapshot;
  /** Rebalance number, 0 at the start. */
  readonly period: number;
}

/** A trading policy. */
export interface BacktestPolicy {
  /** Allocates per-universe state; called once before the first decision. */
  initialize?(universe: readonly BacktestSecurity[]): void;
  /** Orders to execute on the next trading date. */
  decide(context: PolicyContext): readonly PolicyOrder[];
  /**
   * Trading days between interim scans (see {@link BacktestPolicy.scan}): the simulator calls `scan` on the
   * trading dates `r_k + s`, `r_k + 2s`, ... strictly between two rebalances (and before the last date).
   * 0 or absent: no scan.
   */
  readonly scanEveryTradingDays?: number;
  /**
   * An interim decision between rebalances (e.g. a harvest-only scan); its orders execute on the next trading
   * date like a rebalance's. `period` is the number of the last rebalance.
   */
  scan?(context: PolicyContext): readonly PolicyOrder[];
}
