/**
 * @module core/ledger/corporate-actions
 * Corporate actions on an account's lots: split, cash dividend (optionally reinvested), spin-off, symbol change,
 * cash merger, stock merger. Each action has an id; the book records the ids applied and refuses a second
 * application. Rules and worked examples: docs/ledger.md.
 */

import type { Decimal } from "decimal.js";
import { isIsoDate } from "../dates.js";
import { ConflictError, type FieldIssue, ValidationError } from "../errors.js";
import {
  applySplit,
  holdingDays,
  holdingTerm,
  type RealizedGain,
  type SplitRatio,
  TaxDecimal,
  type TaxLot,
  type WashSaleAdjustment,
} from "../tax/index.js";
import { type RealizedRow, realizedRows } from "./realized.js";
import { spinOffLot } from "./spin-off.js";
import type { CashMovement, LedgerBook, LedgerEntry, LedgerOptions, ShortLot } from "./types.js";
import { WorkingBook, ZERO } from "./working-book.js";

/** Shares are credited in millionths (fractional-share precision of brokers, docs/proposals.md). */
const SHARE_DECIMALS = 6;

interface ActionBase {
  /** Unique id of the action (an action is applied to a book once). */
  id: string;
  /** The asset the action is about (the parent, the target, the old listing). */
  themeAssetId: string;
  /** Effective date: ex-date of splits and dividends, distribution date of spin-offs, closing date of mergers. */
  date: string;
}

/** New shares per old share (2 for 2-for-1), or a fraction. */
export interface SplitAction extends ActionBase {
  type: "split";
  ratio: SplitRatio;
}

export interface CashDividendAction extends ActionBase {
  type: "cash_dividend";
  /** Dividend per share, listing currency. Paid on the net shares held before the ex-date (`date`). */
  amountPerShare: Decimal.Value;
  /** @default date */
  payDate?: string;
  /** Units of the listing currency per USD on the pay date. @default 1 */
  fxRate?: Decimal.Value;
  /** Reinvest (DRIP): buy shares with the dividend at this pay-date price; whole millionths of a share. */
  reinvest?: { price: Decimal.Value };
}

export interface SpinOffAction extends ActionBase {
  type: "spin_off";
  childAssetId: string;
  /** Child shares per parent share. */
  distributionRatio: Decimal.Value;
  /**
   * Fraction of the parent's basis allocated to the child (0 < f < 1), as the parent announces it. When absent,
   * it is the fair-market-value fraction ratio x childPrice / (parentPrice + ratio x childPrice).
   */
  basisFraction?: Decimal.Value;
  /** Fair market values per share after the distribution (listing currency), for the FMV fraction. */
  parentPrice?: Decimal.Value;
  childPrice?: Decimal.Value;
  /** Pay cash for the fractional child share of the position, at this price per child share. */
  cashInLieu?: { price: Decimal.Value };
  /** Units of the listing currency per USD, for cash in lieu. @default 1 */
  fxRate?: Decimal.Value;
}

export interface SymbolChangeAction extends ActionBase {
  type: "symbol_change";
  newAssetId: string;
}

export interface CashMergerAction extends ActionBase {
  type: "cash_merger";
  /** Cash paid per share (listing currency). */
  cashPerShare: Decimal.Value;
  /** @default 1 */
  fxRate?: Decimal.Value;
}

export interface StockMergerAction extends ActionBase {
  type: "stock_merger";
  acquirerAssetId: string;
  /** Acquirer shares per target share. */
  ratio: Decimal.Value;
  /** Cash (boot) per target share. @default 0 */
  cashPerShare?: Decimal.Value;
  /** Acquirer share price on the closing date; needed when there is cash (to measure the gain). */
  acquirerPrice?: Decimal.Value;
  /** @default 1 */
  fxRate?: Decimal.Value;
}

export type CorporateAction =
  | SplitAction
  | CashDividendAction
  | SpinOffAction
  | SymbolChangeAction
  | CashMergerAction
  | StockMergerAction;

/** What {@link applyCorporateAction} returns. */
export interface CorporateActionResult {
  book: LedgerBook;
  /** Realized entries (cash mergers, cash in lieu, merger boot) and entries washed by a reinvestment. */
  entries: LedgerEntry[];
  rows: RealizedRow[];
  cash: CashMovement[];
  washSales: WashSaleAdjustment[];
}

const TYPES = ["split", "cash_dividend", "spin_off", "symbol_change", "cash_merger", "stock_merger"];

function dec(
  value: unknown,
  path: string,
  issues: FieldIssue[],
  rule: "positive" | "non_negative" | "fraction",
): Decimal | null {
  if (value === undefined || value === null || value === "") {
    issues.push({ path, message: "is required" });
    return null;
  }
  let d: Decimal;
  try {
    d = new TaxDecimal(value as Decimal.Value);
  } catch {
    issues.push({ path, message: `${String(value)} is not a number` });
    return null;
  }
  const ok =
    d.isFinite() && (rule === "positive" ? d.gt(0) : rule === "non_negative" ? d.gte(0) : d.gt(0) && d.lt(1));
  if (!ok) {
    const want = rule === "positive" ? "> 0" : rule === "non_negative" ? ">= 0" : "strictly between 0 and 1";
    issues.push({ path, message: `must be ${want}, got ${String(value)}` });
    return null;
  }
  return d;
}

function fail(action: CorporateAction, issues: FieldIssue[]): never {
  throw new ValidationError(
    `Corporate action ${String(action?.id)} is invalid; nothing was applied: ${issues
      .map((x) => `${x.path}: ${x.message}`)
      .join("; ")}`,
    issues,
  );
}

/**
 * Applies one corporate action to the book (see the action types and docs/ledger.md).
 * @throws {ConflictError} (code "action_already_applied") when the book already applied an action of that id.
 * @throws {ValidationError} for bad fields or an action the book cannot take (shorts in a spin-off or stock merger,
 *   a symbol change onto itself); nothing is applied.
 */
export function applyCorporateAction(
  book: LedgerBook,
  action: CorporateAction,
  options: LedgerOptions = {},
): CorporateActionResult {
  const where = "applyCorporateAction";
  const issues: FieldIssue[] = [];
  if (typeof action?.id !== "string" || action.id.length === 0)
    issues.push({ path: "action.id", message: "must be a non-empty string" });
  if (!TYPES.includes(action?.type))
    issues.push({ path: "action.type", message: `must be one of ${TYPES.join(", ")}` });
  if (typeof action?.themeAssetId !== "string" || action.themeAssetId.length === 0)
    issues.push({ path: "action.themeAssetId", message: "must be a non-empty string" });
  if (typeof action?.date !== "string" || !isIsoDate(action.date))
    issues.push({ path: "action.date", message: `"${String(action?.date)}" is not a YYYY-MM-DD date` });
  if (issues.length > 0) fail(action, issues);
  if ((book.appliedActionIds ?? []).includes(action.id))
    throw new ConflictError(
      `Corporate action ${action.id} was already applied to account ${book.accountId}; it is applied once.`,
      "action_already_applied",
    );
  const w = new WorkingBook(book, options, where);
  const asset = action.themeAssetId;
  const fx = (v: Decimal.Value | undefined) => dec(v ?? 1, "action.fxRate", issues, "positive");

  switch (action.type) {
    case "split": {
      let ratio: SplitRatio = action.ratio;
      const isFraction = typeof ratio === "object" && ratio !== null && "numerator" in ratio;
      const num = dec(
        isFraction ? (ratio as { numerator: Decimal.Value }).numerator : ratio,
        "action.ratio",
        issues,
        "positive",
      );
      const den = isFraction
        ? dec(
            (ratio as { denominator: Decimal.Value }).denominator,
            "action.ratio.denominator",
            issues,
            "positive",
          )
        : new TaxDecimal(1);
      if (issues.length > 0) fail(action, issues);
      ratio = { numerator: num!, denominator: den! };
      if (w.lotsOf(asset).length > 0) w.setLots(asset, applySplit(w.lotsOf(asset), asset, ratio));
      if (w.shortsOf(asset).length > 0)
        w.setShorts(
          asset,
          w.shortsOf(asset).map((s) => ({ ...s, quantity: s.quantity.times(num!).dividedBy(den!) })),
        );
      break;
    }
    case "cash_dividend": {
      const perShare = dec(action.amountPerShare, "action.amountPerShare", issues, "positive");
      const rate = fx(action.fxRate);
      const payDate = action.payDate ?? action.date;
      if (!isIsoDate(payDate) || payDate < action.date)
        issues.push({ path: "action.payDate", message: `must be a date on or after ${action.date}` });
      const price =
        action.reinvest === undefined
          ? null
          : dec(action.reinvest.price, "action.reinvest.price", issues, "positive");
      if (issues.length > 0) fail(action, issues);
      // Shares entitled: held before the ex-date (bought on the ex-date or later are not).
      let long = ZERO;
      for (const l of w.lotsOf(asset)) if (l.tradeDate < action.date) long = long.plus(l.quantity);
      let short = ZERO;
      for (const s of w.shortsOf(asset)) if (s.openDate < action.date) short = short.plus(s.quantity);
      const net = long.minus(short);
      if (net.isZero()) break;
      const amount = net.times(perShare!);
      w.moveCash(action.id, "dividend", payDate, asset, amount.dividedBy(rate!));
      if (price !== null && net.isPositive()) {
        const shares = amount.dividedBy(price).toDecimalPlaces(SHARE_DECIMALS, TaxDecimal.ROUND_DOWN);
        if (shares.gt(0)) {
          const lotId = `${action.id}:reinvest`;
          if (w.lotIds.has(lotId))
            fail(action, [{ path: "action.id", message: `lot id ${lotId} is already in use` }]);
          const currency = w.lotsOf(asset)[0]!.currency;
          w.buy({
            sourceId: action.id,
            lotId,
            themeAssetId: asset,
            date: payDate,
            quantity: shares,
            price: price,
            fees: ZERO,
            currency,
            fxRate: rate!,
            cashKind: "dividend_reinvested",
          });
        }
      }
      break;
    }
    case "spin_off": {
      const ratio = dec(action.distributionRatio, "action.distributionRatio", issues, "positive");
      let fraction: Decimal | null = null;
      if (action.basisFraction !== undefined)
        fraction = dec(action.basisFraction, "action.basisFraction", issues, "fraction");
      else {
        const pp = dec(action.parentPrice, "action.parentPrice", issues, "positive");
        const cp = dec(action.childPrice, "action.childPrice", issues, "positive");
        if (pp !== null && cp !== null && ratio !== null) {
          const child = ratio.times(cp);
          fraction = child.dividedBy(pp.plus(child));
        }
      }
      const rate = fx(action.fxRate);
      const cilPrice =
        action.cashInLieu === undefined
          ? null
          : dec(action.cashInLieu.price, "action.cashInLieu.price", issues, "positive");
      if (
        typeof action.childAssetId !== "string" ||
        action.childAssetId.length === 0 ||
        action.childAssetId === asset
      )
        issues.push({ path: "action.childAssetId", message: "must name another asset" });
      if (w.shortsOf(asset).length > 0)
        issues.push({
          path: "action.themeAssetId",
          message: `spin-offs of a short position of ${asset} are not modeled`,
        });
      if (issues.length > 0) fail(action, issues);
      const parents: TaxLot[] = [];
      const children: TaxLot[] = [...w.lotsOf(action.childAssetId)];
      const terms = {
        actionId: action.id,
        childAssetId: action.childAssetId,
        ratio: ratio!,
        basisFraction: fraction!,
      };
      for (const lot of w.lotsOf(asset)) {
        const { parent, child } = spinOffLot(lot, terms);
        if (w.lotIds.has(child.id))
          fail(action, [{ path: "action.id", message: `lot id ${child.id} is already in use` }]);
        parents.push(parent);
        children.push(child);
        w.lotIds.add(child.id);
      }
      if (parents.length === 0) break;
      w.setLots(asset, parents);
      w.setLots(action.childAssetId, children);
      if (cilPrice !== null) {
        let total = ZERO;
        for (const l of children) if (l.id.endsWith(`:${action.id}`)) total = total.plus(l.quantity);
        const frac = total.minus(total.floor());
        if (frac.gt(0)) {
          // The fractional share is sold from the newest child lots (the last distributed), by name.
          const lots: { lotId: string; quantity: Decimal }[] = [];
          let left = frac;
          for (const l of [...children].reverse()) {
            if (left.lte(0) || !l.id.endsWith(`:${action.id}`)) continue;
            const q = l.quantity.lte(left) ? l.quantity : left;
            lots.push({ lotId: l.id, quantity: q });
            left = left.minus(q);
          }
          w.sell({
            sourceId: action.id,
            themeAssetId: action.childAssetId,
            date: action.date,
            quantity: frac,
            price: cilPrice,
            fees: ZERO,
            fxRate: rate!,
            lots,
            cashKind: "cash_in_lieu",
          });
        }
      }
      break;
    }
    case "symbol_change": {
      if (
        typeof action.newAssetId !== "string" ||
        action.newAssetId.length === 0 ||
        action.newAssetId === asset
      )
        fail(action, [{ path: "action.newAssetId", message: "must name another asset id" }]);
      const to = action.newAssetId;
      const moved = w.lotsOf(asset).map((l) => ({ ...l, themeAssetId: to }));
      const movedShorts: ShortLot[] = w.shortsOf(asset).map((s) => ({ ...s, themeAssetId: to }));
      if (moved.length > 0) {
        w.setLots(asset, []);
        w.setLots(to, [...w.lotsOf(to), ...moved]);
      }
      if (movedShorts.length > 0) {
        w.setShorts(asset, []);
        w.setShorts(to, [...w.shortsOf(to), ...movedShorts]);
      }
      break;
    }
    case "cash_merger": {
      const cash = dec(action.cashPerShare, "action.cashPerShare", issues, "positive");
      const rate = fx(action.fxRate);
      if (issues.length > 0) fail(action, issues);
      const base = {
        sourceId: action.id,
        themeAssetId: asset,
        date: action.date,
        price: cash!,
        fees: ZERO,
        fxRate: rate!,
      };
      let long = ZERO;
      for (const l of w.lotsOf(asset)) long = long.plus(l.quantity);
      if (long.gt(0))
        w.sell({ ...base, quantity: long, lots: null, policy: "FIFO", cashKind: "merger_cash" });
      let short = ZERO;
      for (const s of w.shortsOf(asset)) short = short.plus(s.quantity);
      if (short.gt(0)) w.cover({ ...base, quantity: short, lots: null, cashKind: "merger_cash" });
      break;
    }
    case "stock_merger": {
      const ratio = dec(action.ratio, "action.ratio", issues, "positive");
      const cash = dec(action.cashPerShare ?? 0, "action.cashPerShare", issues, "non_negative");
      const rate = fx(action.fxRate);
      const acquirerPrice = cash?.gt(0)
        ? dec(action.acquirerPrice, "action.acquirerPrice", issues, "positive")
        : null;
      if (
        typeof action.acquirerAssetId !== "string" ||
        action.acquirerAssetId.length === 0 ||
        action.acquirerAssetId === asset
      )
        issues.push({ path: "action.acquirerAssetId", message: "must name another asset" });
      if (w.shortsOf(asset).length > 0)
        issues.push({
          path: "action.themeAssetId",
          message: `stock mergers of a short position of ${asset} are not modeled`,
        });
      if (issues.length > 0) fail(action, issues);
      const converted: TaxLot[] = [];
      let k = 0;
      for (const lot of w.lotsOf(asset)) {
        const newQuantity = lot.quantity.times(ratio!);
        let basis = lot.totalCostBasis;
        if (cash!.gt(0)) {
          // Gain realized = value received - basis; recognized up to the cash (boot), never a loss (IRC §356).
          const boot = lot.quantity.times(cash!);
          const gain = newQuantity.times(acquirerPrice!).plus(boot).minus(lot.totalCostBasis);
          const recognized = gain.lte(0) ? ZERO : gain.lt(boot) ? gain : boot;
          basis = lot.totalCostBasis.minus(boot).plus(recognized);
          const costBasis = boot.minus(recognized);
          const proceedsUsd = boot.dividedBy(rate!);
          const costBasisUsd = costBasis.dividedBy(rate!);
          const g = proceedsUsd.minus(costBasisUsd);
          const record: RealizedGain = {
            lotId: lot.id,
            ...(lot.accountId === undefined ? {} : { accountId: lot.accountId }),
            themeAssetId: asset,
            quantity: lot.quantity,
            saleDate: action.date,
            tradeDate: lot.tradeDate,
            holdingPeriodStart: lot.holdingPeriodStart,
            holdingDays: holdingDays(lot.holdingPeriodStart, action.date),
            term: holdingTerm(lot.holdingPeriodStart, action.date, options),
            currency: lot.currency,
            price: cash!,
            lotFxRate: lot.fxRate,
            saleFxRate: rate!,
            proceeds: boot,
            costBasis,
            proceedsUsd,
            costBasisUsd,
            gainUsd: g,
            disallowedLossUsd: ZERO,
            washedQuantity: ZERO,
            washSaleMatches: [],
            recognizedGainUsd: g,
          };
          k += 1;
          w.addEntry({ id: `${action.id}:${k}`, sourceId: action.id, side: "long", record });
          w.moveCash(action.id, "merger_cash", action.date, asset, proceedsUsd);
        }
        converted.push({
          ...lot,
          themeAssetId: action.acquirerAssetId,
          quantity: newQuantity,
          totalCostBasis: basis,
        });
      }
      if (converted.length > 0) {
        w.setLots(asset, []);
        w.setLots(action.acquirerAssetId, [...w.lotsOf(action.acquirerAssetId), ...converted]);
      }
      break;
    }
  }
  w.appliedActionIds.push(action.id);
  const changed = w.changedEntries();
  return {
    book: w.toBook(),
    entries: changed.own,
    rows: realizedRows(changed.own),
    cash: w.cashMovements,
    washSales: w.washSales,
  };
}

/**
 * Applies several actions in date order (stable for equal dates), each once.
 * @throws as {@link applyCorporateAction}; on a failure nothing of the list is applied (the input book is kept).
 */
export function applyCorporateActions(
  book: LedgerBook,
  actions: readonly CorporateAction[],
  options: LedgerOptions = {},
): CorporateActionResult {
  const sorted = actions
    .map((a, i) => ({ a, i }))
    .sort((x, y) => (x.a.date < y.a.date ? -1 : x.a.date > y.a.date ? 1 : x.i - y.i));
  let current = book;
  const entries = new Map<string, LedgerEntry>();
  const cash: CashMovement[] = [];
  const washSales: WashSaleAdjustment[] = [];
  for (const { a } of sorted) {
    const r = applyCorporateAction(current, a, options);
    current = r.book;
    for (const e of r.entries) entries.set(e.id, e);
    cash.push(...r.cash);
    washSales.push(...r.washSales);
  }
  const list = [...entries.values()];
  return { book: current, entries: list, rows: realizedRows(list), cash, washSales };
}
