/**
 * @module core/tax/wash-sale-views
 * The account's `wash_sale_lots` and `household_wash_sale_lots`: lots whose wash-sale window is open on a date.
 *
 * An entry restricts trading of its asset on `asOf` for one of two reasons (window inclusive, T =
 * wash_sale_threshold days):
 * - `recent_purchase`: a held lot acquired within the last T days (`asOf - T <= tradeDate <= asOf`) that has
 *   not already served as a replacement (`washSaleDate` null): selling shares of the asset at a loss now
 *   would be a wash sale, this lot being the replacement;
 * - `recent_loss_sale`: shares were sold at a loss within the last T days — a held lot whose
 *   `lastSoldForLossDate` is in the window, or a loss-sale record (from applySale) with shares not yet matched
 *   to replacements (listed as a lot of the sold, unmatched shares): buying the asset now would be a wash sale.
 * `wash_sale_lots` lists the account's own entries; `household_wash_sale_lots` lists the entries of the
 * client's OTHER accounts, which restrict this account too because the wash-sale rule looks at every
 * purchase of the taxpayer (and spouse), in any account (Publication 550 "Wash Sales"; Rev. Rul. 2008-5 for
 * IRAs).
 */

import { addDays, daysBetween, isIsoDate } from "../dates.js";
import { proRata } from "./decimal.js";
import { prepareLots, type TaxLot } from "./lot.js";
import { isLossSale, normalizeRecord, type RealizedGain } from "./realized-gain.js";
import { resolveTaxRules, type TaxRulesOptions } from "./tax-rules.js";

/** One account of a client: its lots and its recent realized sales. */
export interface AccountTaxState {
  accountId: string;
  accountName?: string;
  lots: readonly TaxLot[];
  /** Realized records of recent sales (gains are ignored). @default [] */
  realized?: readonly RealizedGain[];
}

/** Why an entry restricts trading. */
export type WashSaleReason = "recent_purchase" | "recent_loss_sale";

/** One entry of wash_sale_lots / household_wash_sale_lots. */
export interface WashSaleLotEntry {
  accountId: string;
  accountName?: string;
  /** The held lot, or (source `loss_sale`) a lot view of the unmatched shares sold at a loss. */
  lot: TaxLot;
  source: "held_lot" | "loss_sale";
  reasons: WashSaleReason[];
  /** Last date on which the restriction applies (window start + T). */
  windowEnds: string;
}

/** Both views for one account. */
export interface WashSaleViews {
  washSaleLots: WashSaleLotEntry[];
  householdWashSaleLots: WashSaleLotEntry[];
}

function inWindow(date: string | null, asOf: string, t: number): boolean {
  if (date === null) return false;
  const d = daysBetween(date, asOf);
  return d >= 0 && d <= t;
}

/** Entries of one account on `asOf`. */
function accountEntries(
  account: AccountTaxState,
  asOf: string,
  t: number,
  where: string,
): WashSaleLotEntry[] {
  const lots = prepareLots(account.lots, `${where}(${account.accountId})`);
  const name = account.accountName === undefined ? {} : { accountName: account.accountName };
  const out: WashSaleLotEntry[] = [];
  for (const lot of lots) {
    const reasons: WashSaleReason[] = [];
    let start = "";
    if (lot.washSaleDate === null && inWindow(lot.tradeDate, asOf, t)) {
      reasons.push("recent_purchase");
      start = lot.tradeDate;
    }
    if (inWindow(lot.lastSoldForLossDate, asOf, t)) {
      reasons.push("recent_loss_sale");
      if (lot.lastSoldForLossDate! > start) start = lot.lastSoldForLossDate!;
    }
    if (reasons.length > 0)
      out.push({
        accountId: account.accountId,
        ...name,
        lot,
        source: "held_lot",
        reasons,
        windowEnds: addDays(start, t),
      });
  }
  for (const raw of account.realized ?? []) {
    const r = normalizeRecord(raw, where);
    if (!isLossSale(r) || !inWindow(r.saleDate, asOf, t)) continue;
    const unmatched = r.quantity.minus(r.washedQuantity);
    if (unmatched.lte(0)) continue;
    const lot: TaxLot = {
      id: r.lotId,
      ...(r.accountId === undefined ? {} : { accountId: r.accountId }),
      themeAssetId: r.themeAssetId,
      quantity: unmatched,
      totalCostBasis: proRata(r.costBasis, unmatched, r.quantity),
      currency: r.currency,
      fxRate: r.lotFxRate,
      tradeDate: r.tradeDate,
      holdingPeriodStart: r.holdingPeriodStart,
      washSaleDate: null,
      lastSoldForLossDate: r.saleDate,
    };
    out.push({
      accountId: account.accountId,
      ...name,
      lot,
      source: "loss_sale",
      reasons: ["recent_loss_sale"],
      windowEnds: addDays(r.saleDate, t),
    });
  }
  return out;
}

const entryOrder = (a: WashSaleLotEntry, b: WashSaleLotEntry): number =>
  a.lot.themeAssetId.localeCompare(b.lot.themeAssetId) ||
  a.accountId.localeCompare(b.accountId) ||
  a.lot.tradeDate.localeCompare(b.lot.tradeDate) ||
  a.lot.id.localeCompare(b.lot.id) ||
  a.source.localeCompare(b.source);

/**
 * `wash_sale_lots` and `household_wash_sale_lots` of `accountId` on `asOf`, from the states of all accounts of
 * the client (see the module doc for the exact rule). Entries are sorted by asset, account, trade date, lot id.
 * @throws {RangeError} when `accountId` is not among `accounts`, account ids repeat, `asOf` is not a date, or a
 *   lot is invalid.
 * @example washSaleViews([taxable, ira], "taxable-1", "2024-07-01").householdWashSaleLots
 */
export function washSaleViews(
  accounts: readonly AccountTaxState[],
  accountId: string,
  asOf: string,
  options: TaxRulesOptions = {},
): WashSaleViews {
  const where = "washSaleViews";
  if (!isIsoDate(asOf)) throw new RangeError(`${where}: asOf "${asOf}" is not YYYY-MM-DD`);
  const rules = resolveTaxRules(options, where);
  const ids = new Set<string>();
  for (const a of accounts) {
    if (ids.has(a.accountId)) throw new RangeError(`${where}: account ${a.accountId} is listed twice`);
    ids.add(a.accountId);
  }
  if (!ids.has(accountId))
    throw new RangeError(`${where}: account ${accountId} is not among the client's accounts`);
  const own: WashSaleLotEntry[] = [];
  const household: WashSaleLotEntry[] = [];
  for (const a of accounts) {
    const entries = accountEntries(a, asOf, rules.washSaleThresholdDays, where);
    (a.accountId === accountId ? own : household).push(...entries);
  }
  return { washSaleLots: own.sort(entryOrder), householdWashSaleLots: household.sort(entryOrder) };
}

/** The account's own entries (`wash_sale_lots`); see {@link washSaleViews}. */
export function washSaleLots(
  accounts: readonly AccountTaxState[],
  accountId: string,
  asOf: string,
  options: TaxRulesOptions = {},
): WashSaleLotEntry[] {
  return washSaleViews(accounts, accountId, asOf, options).washSaleLots;
}

/** Entries of the client's other accounts (`household_wash_sale_lots`); see {@link washSaleViews}. */
export function householdWashSaleLots(
  accounts: readonly AccountTaxState[],
  accountId: string,
  asOf: string,
  options: TaxRulesOptions = {},
): WashSaleLotEntry[] {
  return washSaleViews(accounts, accountId, asOf, options).householdWashSaleLots;
}
