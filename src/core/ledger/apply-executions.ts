/**
 * @module core/ledger/apply-executions
 * Applies a batch of executions (buys, sells, short sales, covers) to an account's ledger book, all or nothing.
 */

import type { Decimal } from "decimal.js";
import { CURRENCIES, type Currency } from "../data/types.js";
import { isIsoDate } from "../dates.js";
import { type FieldIssue, ValidationError } from "../errors.js";
import { type SpecificLotRequest, TaxDecimal, type TaxLot, type WashSaleAdjustment } from "../tax/index.js";
import { type RealizedRow, realizedRows } from "./realized.js";
import type {
  CashMovement,
  Execution,
  ExecutionKind,
  LedgerBook,
  LedgerEntry,
  LedgerOptions,
  ShortLot,
} from "./types.js";
import { WorkingBook, ZERO } from "./working-book.js";

const ONE = new TaxDecimal(1);
const KINDS: readonly ExecutionKind[] = ["buy", "sell", "short_order", "short_cover"];

/** What {@link applyExecutions} returns. */
export interface ExecutionsResult {
  /** The new book (the input book is not modified). */
  book: LedgerBook;
  /** Realized entries the batch created, and earlier entries of the account its purchases washed (updated). */
  entries: LedgerEntry[];
  /** {@link entries} as realized rows (Form 8949 fields). */
  rows: RealizedRow[];
  /** Household entries (other accounts' loss sales) the batch's purchases washed, updated. */
  householdEntries: LedgerEntry[];
  /** One cash movement per execution, in application order. */
  cash: CashMovement[];
  /** Wash-sale adjustments made to replacement lots (own or household). */
  washSales: WashSaleAdjustment[];
}

/** A parsed execution: decimals checked, defaults filled. */
interface Parsed {
  index: number;
  e: Execution;
  quantity: Decimal;
  price: Decimal;
  fees: Decimal;
  fxRate: Decimal;
  currency: Currency;
  lotId: string;
}

function parseDecimal(
  value: unknown,
  path: string,
  issues: FieldIssue[],
  min: "positive" | "non_negative",
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
  if (!d.isFinite()) {
    issues.push({ path, message: `${String(value)} is not finite` });
    return null;
  }
  if (min === "positive" ? d.lte(0) : d.lt(0)) {
    issues.push({ path, message: `must be ${min === "positive" ? "> 0" : ">= 0"}, got ${d.toString()}` });
    return null;
  }
  return d;
}

/** Field checks of one execution on its own (no book state). */
function parseExecution(e: Execution, index: number, issues: FieldIssue[]): Parsed | null {
  const at = `executions[${index}]`;
  const before = issues.length;
  if (typeof e !== "object" || e === null) {
    issues.push({ path: at, message: "must be an object" });
    return null;
  }
  if (typeof e.id !== "string" || e.id.length === 0)
    issues.push({ path: `${at}.id`, message: "must be a non-empty string" });
  if (!KINDS.includes(e.kind))
    issues.push({ path: `${at}.kind`, message: `must be one of ${KINDS.join(", ")}, got ${String(e.kind)}` });
  if (typeof e.themeAssetId !== "string" || e.themeAssetId.length === 0)
    issues.push({ path: `${at}.themeAssetId`, message: "must be a non-empty string" });
  if (typeof e.tradeDate !== "string" || !isIsoDate(e.tradeDate))
    issues.push({ path: `${at}.tradeDate`, message: `"${String(e.tradeDate)}" is not a YYYY-MM-DD date` });
  const quantity = parseDecimal(e.quantity, `${at}.quantity`, issues, "positive");
  const price = parseDecimal(e.price, `${at}.price`, issues, "positive");
  const fees = e.fees === undefined ? ZERO : parseDecimal(e.fees, `${at}.fees`, issues, "non_negative");
  const fxRate = e.fxRate === undefined ? ONE : parseDecimal(e.fxRate, `${at}.fxRate`, issues, "positive");
  const currency = e.currency ?? "USD";
  if (!(CURRENCIES as readonly string[]).includes(currency))
    issues.push({ path: `${at}.currency`, message: `unknown currency ${String(currency)}` });
  else if (currency === "USD" && fxRate !== null && !fxRate.eq(1))
    issues.push({ path: `${at}.fxRate`, message: `a USD execution has fxRate 1, got ${fxRate.toString()}` });
  if (e.lots !== undefined && e.kind !== "sell" && e.kind !== "short_cover")
    issues.push({ path: `${at}.lots`, message: "only sells and covers name lots" });
  if (e.lots !== undefined && !Array.isArray(e.lots))
    issues.push({ path: `${at}.lots`, message: "must be an array" });
  const lotId = e.lotId ?? e.id;
  if (e.lotId !== undefined && (typeof e.lotId !== "string" || e.lotId.length === 0))
    issues.push({ path: `${at}.lotId`, message: "must be a non-empty string" });
  if (issues.length > before) return null;
  return { index, e, quantity: quantity!, price: price!, fees: fees!, fxRate: fxRate!, currency, lotId };
}

/**
 * Applies `executions` to `book`, in trade-date order (executions of one date in the order given). Sells relieve
 * the named lots (specific identification) or the lots the account's lot method picks, partial lots split; buys
 * create lots (basis = quantity x price + fees, at the trade-date FX); short sales open short lots, covers close
 * them. Wash sales follow IRC §1091 through core/tax, over the account and the household view. Cash moves by
 * proceeds net of fees and by costs with fees, in USD at each execution's FX.
 *
 * The batch is validated WHOLE before the result is returned: every execution is checked (fields, and against
 * the book as the earlier valid executions of the batch leave it: unknown lot, oversell, a sale dated before the
 * lot's trade date, a lot id already in use, a buy of a shorted asset or a short of a held one, a currency other
 * than the asset's lots'); when any is bad, one {@link ValidationError} lists every bad execution by index and
 * field, and nothing is applied. The input book and executions are never modified.
 * @throws {ValidationError} (code "validation_error") listing every issue as `executions[i].field`.
 * @example applyExecutions(book, [{ id: "x1", kind: "buy", themeAssetId: "AAPL:XNAS", tradeDate: "2025-03-03",
 *   quantity: "10", price: "180.25" }], { lotMethod: "FIFO" })
 */
export function applyExecutions(
  book: LedgerBook,
  executions: readonly Execution[],
  options: LedgerOptions = {},
): ExecutionsResult {
  const where = "applyExecutions";
  if (!Array.isArray(executions)) throw new TypeError(`${where}: executions must be an array`);
  const w = new WorkingBook(book, options, where);
  const issues: FieldIssue[] = [];
  const parsed: Parsed[] = [];
  const ids = new Set<string>();
  executions.forEach((e, i) => {
    const p = parseExecution(e, i, issues);
    if (p === null) return;
    if (ids.has(p.e.id)) {
      issues.push({
        path: `executions[${i}].id`,
        message: `execution id ${p.e.id} appears twice in the batch`,
      });
      return;
    }
    ids.add(p.e.id);
    parsed.push(p);
  });
  // Trade-date order; a stable sort keeps the given order within a date.
  parsed.sort((a, b) => (a.e.tradeDate < b.e.tradeDate ? -1 : a.e.tradeDate > b.e.tradeDate ? 1 : 0));
  for (const p of parsed) {
    const before = issues.length;
    const named = checkAgainstBook(w, p, issues);
    if (issues.length > before) continue;
    try {
      run(w, p, named);
    } catch (err) {
      issues.push({
        path: `executions[${p.index}]`,
        message: err instanceof Error ? err.message : String(err),
      });
    }
  }
  if (issues.length > 0) {
    const bad = new Set(issues.map((x) => /^executions\[(\d+)\]/.exec(x.path)?.[1] ?? x.path)).size;
    throw new ValidationError(
      `${bad} of ${executions.length} executions are invalid; nothing was applied: ${issues
        .map((x) => `${x.path}: ${x.message}`)
        .join("; ")}`,
      issues,
    );
  }
  const changed = w.changedEntries();
  return {
    book: w.toBook(),
    entries: changed.own,
    rows: realizedRows(changed.own),
    householdEntries: changed.household,
    cash: w.cashMovements,
    washSales: w.washSales,
  };
}

/**
 * Checks an execution against the working book; pushes issues, changes nothing. Returns the named lots with their
 * quantities parsed (a cover naming a lot without shares takes the whole lot), or null when none are named.
 */
function checkAgainstBook(w: WorkingBook, p: Parsed, issues: FieldIssue[]): SpecificLotRequest[] | null {
  const at = `executions[${p.index}]`;
  const { e } = p;
  const asset = e.themeAssetId;
  const longs = w.lotsOf(asset);
  const shorts = w.shortsOf(asset);
  const held = longs.length > 0 ? longs[0]! : shorts.length > 0 ? shorts[0]! : null;
  if (held !== null && held.currency !== p.currency)
    issues.push({
      path: `${at}.currency`,
      message: `${asset} is held in ${held.currency}, the execution is in ${p.currency}`,
    });
  if (e.kind === "buy" || e.kind === "short_order") {
    if (w.lotIds.has(p.lotId))
      issues.push({
        path: `${at}.${e.lotId === undefined ? "id" : "lotId"}`,
        message: `lot id ${p.lotId} is already in use`,
      });
    if (e.kind === "buy" && shorts.length > 0)
      issues.push({
        path: `${at}.kind`,
        message: `${asset} is held short: cover the short lots before buying`,
      });
    if (e.kind === "short_order" && longs.length > 0)
      issues.push({
        path: `${at}.kind`,
        message: `${asset} is held long: sell the long lots before shorting`,
      });
    return null;
  }
  const isSell = e.kind === "sell";
  const pool: readonly (TaxLot | ShortLot)[] = isSell ? longs : shorts;
  const dateOf = (l: TaxLot | ShortLot): string => ("side" in l ? l.openDate : l.tradeDate);
  const noun = isSell ? "lot" : "short lot";
  if (e.lots !== undefined) {
    const byId = new Map<string, TaxLot | ShortLot>();
    for (const l of pool) byId.set(l.id, l);
    const seen = new Set<string>();
    let sum = ZERO;
    const named: SpecificLotRequest[] = [];
    e.lots.forEach((x, k) => {
      const lat = `${at}.lots[${k}]`;
      const lot = byId.get(x?.lotId);
      if (lot === undefined) {
        issues.push({
          path: `${lat}.lotId`,
          message: `unknown ${noun} ${String(x?.lotId)} of ${asset} in the account`,
        });
        return;
      }
      if (seen.has(lot.id)) {
        issues.push({ path: `${lat}.lotId`, message: `${noun} ${lot.id} is named twice` });
        return;
      }
      seen.add(lot.id);
      const lotDate = dateOf(lot);
      if (lotDate > e.tradeDate)
        issues.push({
          path: `${at}.tradeDate`,
          message: `${e.tradeDate} is before the trade date ${lotDate} of ${noun} ${lot.id}`,
        });
      if (x.quantity === undefined && isSell) {
        issues.push({ path: `${lat}.quantity`, message: "a sell names the shares of each lot" });
        return;
      }
      const q =
        x.quantity === undefined
          ? lot.quantity
          : parseDecimal(x.quantity, `${lat}.quantity`, issues, "positive");
      if (q === null) return;
      if (q.gt(lot.quantity))
        issues.push({
          path: `${lat}.quantity`,
          message: `oversell: ${q.toString()} shares of ${noun} ${lot.id}, which holds ${lot.quantity.toString()}`,
        });
      sum = sum.plus(q);
      named.push({ lotId: lot.id, quantity: q });
    });
    if (!sum.eq(p.quantity) && issues.every((x) => !x.path.startsWith(`${at}.lots`)))
      issues.push({
        path: `${at}.quantity`,
        message: `${p.quantity.toString()} does not equal the sum ${sum.toString()} of the named lots`,
      });
    return named;
  }
  let available = ZERO;
  let later = ZERO;
  for (const l of pool) {
    if (dateOf(l) <= e.tradeDate) available = available.plus(l.quantity);
    else later = later.plus(l.quantity);
  }
  if (p.quantity.gt(available))
    issues.push({
      path: `${at}.quantity`,
      message: `oversell: ${p.quantity.toString()} shares of ${asset}, the account ${isSell ? "holds" : "owes"} ${available.toString()} on ${e.tradeDate}${later.gt(0) ? ` (${later.toString()} more from later trade dates)` : ""}`,
    });
  return null;
}

function run(w: WorkingBook, p: Parsed, lots: SpecificLotRequest[] | null): void {
  const { e } = p;
  const base = {
    sourceId: e.id,
    themeAssetId: e.themeAssetId,
    date: e.tradeDate,
    quantity: p.quantity,
    price: p.price,
    fees: p.fees,
    fxRate: p.fxRate,
  };
  if (e.kind === "buy" || e.kind === "short_order") {
    const req = { ...base, lotId: p.lotId, currency: p.currency, cashKind: "buy" as const };
    if (e.kind === "buy") w.buy(req);
    else w.shortSale(req);
  } else if (e.kind === "sell") w.sell({ ...base, lots, cashKind: "sell" });
  else w.cover({ ...base, lots, cashKind: "short_cover" });
}
