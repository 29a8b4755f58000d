/**
 * The straightforward lot selection, as it was before the hot path was optimized (a verbatim copy of
 * src/core/tax/lot-selection.ts at that time, with its own date and holding-period arithmetic), kept as the
 * reference the optimized `selectLots` must match exactly (src/core/tax/lot-selection-equivalence.test.ts).
 */
import type { Decimal } from "decimal.js";
import { InsufficientLotsError, TaxLotError } from "../../src/core/errors.js";
import {
  proRata,
  sumDecimals,
  toNonNegativeDecimal,
  toPositiveDecimal,
  ZERO,
} from "../../src/core/tax/decimal.js";
import {
  DEFAULT_LOT_SELECTION_POLICY,
  type HoldingTerm,
  LOT_SELECTION_POLICIES,
  type LotPick,
  type LotSelection,
  type LotSelectionContext,
  type LotSelectionPolicy,
  resolveTaxRules,
  type TaxLot,
  type WashSaleHandling,
} from "../../src/core/tax/index.js";
import { prepareLots } from "../../src/core/tax/lot.js";
import type { TaxRules } from "../../src/core/tax/tax-rules.js";

// ---- date arithmetic, as it was (copied from src/core/dates.ts) ----
function isIsoDate(s: string): boolean {
  if (s.length !== 10 || s.charCodeAt(4) !== 45 || s.charCodeAt(7) !== 45) return false;
  let y = 0;
  let mo = 0;
  let d = 0;
  for (let i = 0; i < 10; i++) {
    if (i === 4 || i === 7) continue;
    const c = s.charCodeAt(i) - 48;
    if (c < 0 || c > 9) return false;
    if (i < 4) y = y * 10 + c;
    else if (i < 7) mo = mo * 10 + c;
    else d = d * 10 + c;
  }
  if (mo < 1 || mo > 12 || d < 1) return false;
  return d <= daysInMonth(y, mo);
}

function toDayNumber(date: string): number {
  if (!isIsoDate(date)) throw new RangeError(`toDayNumber: "${date}" is not a YYYY-MM-DD date`);
  const digit = (i: number) => date.charCodeAt(i) - 48;
  const y = digit(0) * 1000 + digit(1) * 100 + digit(2) * 10 + digit(3);
  return daysFromCivil(y, digit(5) * 10 + digit(6), digit(8) * 10 + digit(9));
}

function daysFromCivil(y: number, m: number, d: number): number {
  const yy = m <= 2 ? y - 1 : y;
  const era = Math.floor(yy / 400);
  const yoe = yy - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

function fromDayNumber(day: number): string {
  const z = day + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor(
    (doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365,
  );
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp < 10 ? mp + 3 : mp - 9;
  const y = yoe + era * 400 + (m <= 2 ? 1 : 0);
  return `${String(y).padStart(4, "0")}-${m < 10 ? "0" : ""}${m}-${d < 10 ? "0" : ""}${d}`;
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** Number of days in month `month` (1-12) of `year` (Gregorian leap years). */
function daysInMonth(year: number, month: number): number {
  if (month === 2 && ((year % 4 === 0 && year % 100 !== 0) || year % 400 === 0)) return 29;
  return DAYS_IN_MONTH[month - 1]!;
}

function daysBetween(from: string, to: string): number {
  return toDayNumber(to) - toDayNumber(from);
}
function addDays(date: string, days: number): string {
  return fromDayNumber(toDayNumber(date) + days);
}

// ---- holding periods and the wash-sale window, as they were ----
function yearOf(date: string): number {
  return Number(date.slice(0, 4));
}
function isLeapYear(y: number): boolean {
  return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
}
function leapDaysBetween(from: string, to: string): number {
  let n = 0;
  for (let y = yearOf(from); y <= yearOf(to); y++) {
    if (!isLeapYear(y)) continue;
    const d = `${String(y).padStart(4, "0")}-02-29`;
    if (d > from && d <= to) n++;
  }
  return n;
}
function longTermRequiredDays(start: string, rules: TaxRules): number {
  const n = rules.longTermThresholdDays;
  if (rules.holdingPeriodConvention === "actual_days") return n;
  let required = n;
  for (;;) {
    const next = n + leapDaysBetween(start, addDays(start, required));
    if (next === required) return required;
    required = next;
  }
}
function termOf(start: string, date: string, rules: TaxRules): HoldingTerm {
  if (!isIsoDate(start) || !isIsoDate(date))
    throw new RangeError(`holdingDays: dates must be YYYY-MM-DD, got "${start}" and "${date}"`);
  const days = daysBetween(start, date);
  if (days < 0) throw new RangeError(`holdingDays: ${date} is before the holding-period start ${start}`);
  return days > longTermRequiredDays(start, rules) ? "long_term" : "short_term";
}
function inWashSaleWindow(acquisitionDate: string, saleDate: string, thresholdDays: number): boolean {
  return Math.abs(daysBetween(saleDate, acquisitionDate)) <= thresholdDays;
}

/** A source of replacement shares for the wash-sale estimate, in acquisition order. */
interface Replacement {
  date: string;
  lotId: string | null;
  capacity: Decimal;
}

/** A held lot with its ranking figures at the sale price. */
interface Ranked {
  lot: TaxLot;
  basisPerShareUsd: Decimal;
  gainPerShareUsd: Decimal;
  term: HoldingTerm;
  exposed: boolean;
}

const byDateThenId = (a: Ranked, b: Ranked): number =>
  a.lot.tradeDate < b.lot.tradeDate
    ? -1
    : a.lot.tradeDate > b.lot.tradeDate
      ? 1
      : a.lot.id < b.lot.id
        ? -1
        : a.lot.id > b.lot.id
          ? 1
          : 0;

const byBasisDesc = (a: Ranked, b: Ranked): number =>
  b.basisPerShareUsd.comparedTo(a.basisPerShareUsd) || byDateThenId(a, b);

/** TAX_OPTIMAL bucket of a lot (lower sells first). */
function bucketOf(r: Ranked, handling: WashSaleHandling): number {
  const sign = r.gainPerShareUsd.isZero() ? 0 : r.gainPerShareUsd.isNegative() ? -1 : 1;
  if (sign < 0) {
    const st = r.term === "short_term";
    if (!r.exposed || handling === "flag") return st ? 0 : 1;
    if (handling === "deprioritize") return st ? 3 : 4;
    return st ? 7 : 8; // avoid: after every gain
  }
  if (sign === 0) return 2;
  return r.term === "long_term" ? 5 : 6;
}

/** Checks the context and fills defaults. */
function prepareContext(context: LotSelectionContext, where: string) {
  if (context === null || typeof context !== "object") throw new TypeError(`${where}: context is required`);
  if (typeof context.themeAssetId !== "string" || context.themeAssetId.length === 0)
    throw new TypeError(`${where}: context.themeAssetId must be a non-empty string`);
  if (!isIsoDate(context.saleDate))
    throw new RangeError(`${where}: context.saleDate "${context.saleDate}" is not YYYY-MM-DD`);
  const rules = resolveTaxRules(context, where);
  const price = toPositiveDecimal(context.price, `${where}: context.price`);
  const fxRate = toPositiveDecimal(context.fxRate ?? 1, `${where}: context.fxRate`);
  const handling = context.washSaleHandling ?? "deprioritize";
  if (handling !== "deprioritize" && handling !== "avoid" && handling !== "flag")
    throw new RangeError(
      `${where}: washSaleHandling must be "deprioritize", "avoid" or "flag", got ${String(handling)}`,
    );
  const purchases = (context.purchases ?? [])
    .map((p, i) => {
      if (!isIsoDate(p.date))
        throw new RangeError(`${where}: purchases[${i}].date "${p.date}" is not YYYY-MM-DD`);
      return { ...p, qty: toNonNegativeDecimal(p.quantity, `${where}: purchases[${i}].quantity`) };
    })
    .filter(
      (p) =>
        p.themeAssetId === context.themeAssetId &&
        p.qty.gt(0) &&
        inWashSaleWindow(p.date, context.saleDate, rules.washSaleThresholdDays),
    );
  return { rules, price, fxRate, handling, purchases };
}

/**
 * Chooses the lots (and quantities) that a sale of `quantity` shares of `context.themeAssetId` consumes.
 * Picks never exceed a lot's quantity, never repeat a lot, and sum exactly to `quantity` (fractional shares
 * allowed). Lots of other assets are ignored (and not validated); lots of other accounts (when
 * `context.accountId` is set) or acquired after the sale date are not sold. Inputs are not mutated.
 * @throws {InsufficientLotsError} when the eligible lots hold fewer than `quantity` shares.
 * @throws {TaxLotError} for a SPECIFIC request that names an unknown or ineligible lot, repeats a lot, asks
 *   for more than a lot holds or does not add up to `quantity`; or for lots of one asset in several currencies.
 * @throws {RangeError} / {TypeError} for invalid lots, quantity, policy or context.
 * @example selectLots(lots, "15", "TAX_OPTIMAL", { themeAssetId: "AAPL:XNAS", saleDate: "2024-06-28", price: "120" })
 */
export function referenceSelectLots(
  lots: readonly TaxLot[],
  quantity: Decimal.Value,
  policy: LotSelectionPolicy = DEFAULT_LOT_SELECTION_POLICY,
  context: LotSelectionContext,
): LotSelection {
  const where = "selectLots";
  if (!Array.isArray(lots)) throw new TypeError(`${where}: lots must be an array`);
  const requested = toNonNegativeDecimal(quantity, `${where}: quantity`);
  if (!LOT_SELECTION_POLICIES.includes(policy))
    throw new RangeError(
      `${where}: unknown policy ${String(policy)} (known: ${LOT_SELECTION_POLICIES.join(", ")})`,
    );
  const ctx = prepareContext(context, where);
  const { rules, price, fxRate } = ctx;
  const asset = context.themeAssetId;

  // Only the asset's lots are validated and used: selection cost does not grow with the rest of the account.
  const sameAsset = prepareLots(
    lots.filter((l) => l.themeAssetId === asset),
    where,
  );
  const eligible = sameAsset.filter(
    (l) =>
      l.tradeDate <= context.saleDate &&
      (context.accountId === undefined || l.accountId === context.accountId),
  );
  const currencies = new Set(eligible.map((l) => l.currency));
  if (currencies.size > 1)
    throw new TaxLotError(
      `Lots of ${asset} are in several currencies (${[...currencies].join(", ")}); a sale price has one currency. Fix the lots' cost_basis_currency.`,
      { code: "mixed_lot_currencies" },
    );
  if (eligible.length > 0 && eligible[0]!.currency === "USD" && !fxRate.eq(1))
    throw new RangeError(`${where}: ${asset} is a USD asset, its fxRate is 1 (got ${fxRate.toString()})`);
  const available = sumDecimals(eligible.map((l) => l.quantity));
  if (requested.gt(available))
    throw new InsufficientLotsError(asset, requested.toString(), available.toString());

  const priceUsd = price.dividedBy(fxRate);
  // Held lots acquired in the window that could replace sold shares (never-adjusted ones only).
  const windowLots = sameAsset.filter(
    (l) =>
      l.washSaleDate === null && inWashSaleWindow(l.tradeDate, context.saleDate, rules.washSaleThresholdDays),
  );
  const hasPlanned = ctx.purchases.length > 0;
  const windowIds = new Set(windowLots.map((l) => l.id));
  const ranked: Ranked[] = eligible.map((lot) => {
    const basisPerShareUsd = lot.totalCostBasis.dividedBy(lot.fxRate).dividedBy(lot.quantity);
    return {
      lot,
      basisPerShareUsd,
      gainPerShareUsd: priceUsd.minus(basisPerShareUsd),
      term: termOf(lot.holdingPeriodStart, context.saleDate, rules),
      // Exposed when some other share was (or will be) bought in the window.
      exposed: hasPlanned || windowLots.length > (windowIds.has(lot.id) ? 1 : 0),
    };
  });

  let order: Ranked[];
  let picksQty: Map<string, Decimal>;
  if (policy === "SPECIFIC") {
    ({ order, picksQty } = specificOrder(ranked, requested, context, asset));
  } else {
    order = [...ranked];
    if (policy === "FIFO") order.sort(byDateThenId);
    else if (policy === "LIFO") order.sort((a, b) => -byDateThenId(a, b));
    else if (policy === "HIFO") order.sort(byBasisDesc);
    else order.sort((a, b) => bucketOf(a, ctx.handling) - bucketOf(b, ctx.handling) || byBasisDesc(a, b));
    picksQty = new Map();
    let left = requested;
    for (const r of order) {
      if (left.lte(0)) break;
      const q = r.lot.quantity.lte(left) ? r.lot.quantity : left;
      picksQty.set(r.lot.id, q);
      left = left.minus(q);
    }
  }

  const chosen = order.filter((r) => picksQty.has(r.lot.id));
  const washed = estimateWash(chosen, picksQty, windowLots, ctx.purchases, priceUsd);
  const picks: LotPick[] = chosen.map((r) => {
    const q = picksQty.get(r.lot.id)!;
    const costBasis = proRata(r.lot.totalCostBasis, q, r.lot.quantity);
    const costBasisUsd = costBasis.dividedBy(r.lot.fxRate);
    const proceedsUsd = q.times(price).dividedBy(fxRate);
    const gainUsd = proceedsUsd.minus(costBasisUsd);
    const wq = washed.get(r.lot.id) ?? ZERO;
    return {
      lotId: r.lot.id,
      ...(r.lot.accountId === undefined ? {} : { accountId: r.lot.accountId }),
      quantity: q,
      tradeDate: r.lot.tradeDate,
      holdingPeriodStart: r.lot.holdingPeriodStart,
      term: r.term,
      costBasis,
      costBasisUsd,
      proceedsUsd,
      gainUsd,
      washSaleQuantity: wq,
      expectedDisallowedLossUsd: wq.isZero() ? ZERO : proRata(gainUsd.negated(), wq, q),
    };
  });
  return { themeAssetId: asset, policy, quantity: requested, available, picks };
}

/** Validates a SPECIFIC request; the order is the request's order. */
function specificOrder(
  ranked: Ranked[],
  requested: Decimal,
  context: LotSelectionContext,
  asset: string,
): { order: Ranked[]; picksQty: Map<string, Decimal> } {
  const lines = context.specificLots;
  if (lines === undefined) throw new TypeError("selectLots: the SPECIFIC policy needs context.specificLots");
  const byId = new Map(ranked.map((r) => [r.lot.id, r]));
  const order: Ranked[] = [];
  const picksQty = new Map<string, Decimal>();
  for (const [i, line] of lines.entries()) {
    const r = byId.get(line.lotId);
    if (r === undefined)
      throw new TaxLotError(
        `Lot ${line.lotId} (specificLots[${i}]) is not a lot of ${asset} held${context.accountId ? ` in account ${context.accountId}` : ""} on ${context.saleDate}.`,
        { code: "unknown_lot" },
      );
    if (picksQty.has(line.lotId))
      throw new TaxLotError(`Lot ${line.lotId} appears twice in specificLots; give each lot once.`, {
        code: "duplicate_lot",
      });
    const q = toPositiveDecimal(line.quantity, `selectLots: specificLots[${i}].quantity`);
    if (q.gt(r.lot.quantity))
      throw new TaxLotError(
        `specificLots[${i}] asks for ${q.toString()} shares of lot ${line.lotId}, which holds ${r.lot.quantity.toString()}.`,
        { code: "insufficient_lots" },
      );
    picksQty.set(line.lotId, q);
    order.push(r);
  }
  const total = sumDecimals(picksQty.values());
  if (!total.eq(requested))
    throw new TaxLotError(
      `specificLots add up to ${total.toString()} shares of ${asset}, the sale is for ${requested.toString()}.`,
      { code: "specific_lots_mismatch" },
    );
  return { order, picksQty };
}

/**
 * Expected washed shares per picked loss lot: loss picks in consumption order are matched to replacement
 * shares in acquisition order (held window lots after this sale, then planned/recent purchases by date),
 * skipping the pick's own lot — the same rules applySale and applyPurchase book.
 */
function estimateWash(
  chosen: Ranked[],
  picksQty: Map<string, Decimal>,
  windowLots: TaxLot[],
  purchases: { date: string; qty: Decimal }[],
  priceUsd: Decimal,
): Map<string, Decimal> {
  const out = new Map<string, Decimal>();
  const losses = chosen.filter((r) => priceUsd.lt(r.basisPerShareUsd));
  if (losses.length === 0) return out;
  const pool: Replacement[] = [
    ...windowLots.map((l) => ({
      date: l.tradeDate,
      lotId: l.id,
      capacity: l.quantity.minus(picksQty.get(l.id) ?? ZERO),
    })),
    ...purchases.map((p) => ({ date: p.date, lotId: null, capacity: p.qty })),
  ]
    .filter((p) => p.capacity.gt(0))
    .sort((a, b) => {
      // First acquired first matched; held lots by id on equal dates, before same-day outside purchases.
      if (a.date !== b.date) return a.date < b.date ? -1 : 1;
      if (a.lotId === null || b.lotId === null) return a.lotId === null ? (b.lotId === null ? 0 : 1) : -1;
      return a.lotId < b.lotId ? -1 : a.lotId > b.lotId ? 1 : 0;
    });
  let head = 0;
  for (const r of losses) {
    let left = picksQty.get(r.lot.id)!;
    let washed = ZERO;
    while (head < pool.length && pool[head]!.capacity.lte(0)) head++;
    for (let k = head; k < pool.length; k++) {
      const p = pool[k]!;
      if (left.lte(0)) break;
      if (p.lotId === r.lot.id || p.capacity.lte(0)) continue;
      const m = p.capacity.lte(left) ? p.capacity : left;
      p.capacity = p.capacity.minus(m);
      left = left.minus(m);
      washed = washed.plus(m);
    }
    if (washed.gt(0)) out.set(r.lot.id, washed);
  }
  return out;
}
