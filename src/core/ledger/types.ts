/**
 * @module core/ledger/types
 * The account ledger's values: the book of one account (long lots, short lots, USD cash, the realized entries a
 * later purchase can still wash, the corporate actions applied) and the household wash-sale view beside it.
 *
 * Long lots are the tax engine's {@link TaxLot}s (quantity > 0, unchanged). Open short positions are kept apart as
 * {@link ShortLot}s: `side: "short"`, a POSITIVE quantity of shares owed, and the short-sale proceeds as their basis.
 * Keeping them in their own list leaves every long-lot function of core/tax working as it is (they refuse a
 * quantity <= 0), and a short can never be picked by a long sale or a wash-sale match by mistake.
 */

import type { Decimal } from "decimal.js";
import type { Currency } from "../data/types.js";
import type { LotSelectionPolicy, RealizedGain, TaxLot, TaxRulesOptions } from "../tax/index.js";

/** An open short position of one short sale: shares owed, with the short-sale proceeds as basis. */
export interface ShortLot {
  readonly side: "short";
  readonly id: string;
  readonly accountId?: string;
  readonly themeAssetId: string;
  /** Shares owed, > 0. */
  readonly quantity: Decimal;
  /** Net short-sale proceeds in the listing currency (price x quantity - fees): the lot's basis. */
  readonly proceeds: Decimal;
  readonly currency: Currency;
  /** Units of `currency` per USD on the short-sale date. */
  readonly fxRate: Decimal;
  /** Short-sale trade date. */
  readonly openDate: string;
}

/**
 * One realized entry of the ledger: the realization of one lot or lot part by one execution or action.
 * `record` is the tax engine's record (for a cover: built the same way, see docs/ledger.md); later purchases
 * update long records (wash sales looking forward), so an entry is identified by `id`, stable across updates.
 */
export interface LedgerEntry {
  /** `${sourceId}:${n}`, n = 1, 2, ... in consumption order. */
  readonly id: string;
  /** The execution or corporate action that realized it. */
  readonly sourceId: string;
  /** "long": a sale of a long lot; "short": a cover of a short lot. */
  readonly side: "long" | "short";
  /** Short entries: the date the short sale opened the lot. */
  readonly openDate?: string;
  readonly record: RealizedGain;
}

/**
 * The client's other accounts, as far as the wash-sale rule sees them (Publication 550 "Wash Sales": every
 * purchase of the taxpayer counts, in any account): their lots acquired recently (possible replacements of this
 * account's loss sales) and their recent loss sales (which this account's purchases can wash). Every lot and
 * record here carries its `accountId`, different from the book's.
 */
export interface HouseholdView {
  readonly lots: readonly TaxLot[];
  readonly realized: readonly LedgerEntry[];
}

/** The ledger of one account. */
export interface LedgerBook {
  readonly accountId: string;
  /** USD cash (may go negative: the ledger records what happened, it does not refuse a debit balance). */
  readonly cashUsd: Decimal;
  /** Long lots (quantity > 0). */
  readonly lots: readonly TaxLot[];
  /** Open short lots. @default [] */
  readonly shortLots?: readonly ShortLot[];
  /**
   * Realized entries of the account that a later purchase can still wash (at least the loss sales of the last
   * wash-sale window; the whole history is fine). @default []
   */
  readonly realized?: readonly LedgerEntry[];
  /** Ids of the corporate actions already applied. @default [] */
  readonly appliedActionIds?: readonly string[];
  /** The household wash-sale view. @default none */
  readonly household?: HouseholdView;
}

/** Execution kinds, with the proposal's order types. */
export type ExecutionKind = "buy" | "sell" | "short_order" | "short_cover";

/** One named lot of a sell (specific identification) or a cover. */
export interface ExecutionLot {
  lotId: string;
  /** Shares of that lot; a cover may omit it to close the whole short lot. */
  quantity?: Decimal.Value;
}

/** One execution (a fill of an order). Money is in the listing currency. */
export interface Execution {
  /** Execution id; the lot a buy or short sale opens takes it as its id (unless `lotId` is given). */
  id: string;
  kind: ExecutionKind;
  themeAssetId: string;
  tradeDate: string;
  /** Shares, > 0. */
  quantity: Decimal.Value;
  /** Price per share, > 0. */
  price: Decimal.Value;
  /** Commissions and fees, >= 0 (basis of buys and covers, off the proceeds of sells and short sales). @default 0 */
  fees?: Decimal.Value;
  /** @default "USD" */
  currency?: Currency;
  /** Units of the currency per USD on the trade date. @default 1 */
  fxRate?: Decimal.Value;
  /** Sells: the lots to relieve (specific identification; quantities must sum to `quantity`). Covers: the short lots. */
  lots?: readonly ExecutionLot[];
  /** Id of the lot a buy or short sale opens. @default id */
  lotId?: string;
}

/** Options of the ledger's operations. */
export interface LedgerOptions extends TaxRulesOptions {
  /** Lot method of sells that name no lots (the account's `lot_selection`). @default "TAX_OPTIMAL" */
  lotMethod?: LotSelectionPolicy;
}

/** Kinds of cash movements. */
export type CashMovementKind =
  | "buy"
  | "sell"
  | "short_sale"
  | "short_cover"
  | "dividend"
  | "dividend_reinvested"
  | "cash_in_lieu"
  | "merger_cash";

/** One movement of the account's USD cash (> 0 credit, < 0 debit). */
export interface CashMovement {
  readonly sourceId: string;
  readonly kind: CashMovementKind;
  readonly date: string;
  readonly themeAssetId: string;
  readonly amountUsd: Decimal;
}
