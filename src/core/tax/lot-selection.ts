/**
 * @module core/tax/lot-selection
 * Which lots a sell consumes: TAX_OPTIMAL (default), FIFO, LIFO, HIFO or SPECIFIC lots.
 *
 * TAX_OPTIMAL order (PRODUCT.md section 4): losses first, short-term before long-term (short-term losses
 * offset gains taxed at the higher rate), larger loss per share first; then lots with zero gain (no tax);
 * then long-term gains, highest basis first (smallest gain per share); short-term gains last, highest basis
 * first. Losses exposed to a wash sale are deprioritized (see {@link WashSaleHandling}).
 * Ties always break by trade date, then lot id, so selections are deterministic.
 */

import type { Decimal } from "decimal.js";
import { isIsoDate, toDayNumber } from "../dates.js";
import { InsufficientLotsError, TaxLotError } from "../errors.js";
import {
  compareDecimals,
  divideByRate,
  proRata,
  signOf,
  sumDecimals,
  toNonNegativeDecimal,
  toPositiveDecimal,
  ZERO,
} from "./decimal.js";
import { type HoldingTerm, termOfDays } from "./holding-period.js";
import { prepareLots, type TaxLot } from "./lot.js";
import { resolveTaxRules, type TaxRulesOptions } from "./tax-rules.js";
import { inWashSaleWindow } from "./wash-sale.js";

/** Lot-selection policies. */
export type LotSelectionPolicy = "TAX_OPTIMAL" | "FIFO" | "LIFO" | "HIFO" | "SPECIFIC";

/** All policies, in documentation order. */
export const LOT_SELECTION_POLICIES: readonly LotSelectionPolicy[] = [
  "TAX_OPTIMAL",
  "FIFO",
  "LIFO",
  "HIFO",
  "SPECIFIC",
];

/** The default policy. */
export const DEFAULT_LOT_SELECTION_POLICY: LotSelectionPolicy = "TAX_OPTIMAL";

/** One line of a SPECIFIC selection. */
export interface SpecificLotRequest {
  lotId: string;
  quantity: Decimal.Value;
}

/**
 * A purchase of the asset that can make a loss sale a wash sale: a recent buy not in `lots` (e.g. in another
 * account of the household) or a planned buy. Counted when its date is within the window of the sale.
 */
export interface WashSalePurchase {
  themeAssetId: string;
  date: string;
  quantity: Decimal.Value;
  accountId?: string;
}

/**
 * How TAX_OPTIMAL treats a loss lot whose sale would be a wash sale ("exposed": at least one other share of the
 * asset was bought, or is planned to be bought, within the window — other held lots acquired within the
 * window, or {@link LotSelectionContext.purchases}).
 * - `"deprioritize"` (default): exposed losses come after clean losses and zero-gain lots but before gains:
 *   a washed loss realizes nothing now (the loss moves to the replacement's basis), which still beats
 *   realizing a gain.
 * - `"avoid"`: exposed losses come last, after short-term gains (use with prevent_tlh_invalidating_sale).
 * - `"flag"`: no reordering.
 * Every policy flags picks with their expected wash-sale quantity and disallowed loss.
 */
export type WashSaleHandling = "deprioritize" | "avoid" | "flag";

/** Context of a selection: the sale and the wash-sale environment. */
export interface LotSelectionContext extends TaxRulesOptions {
  /** Asset sold; lots of other assets are ignored. */
  themeAssetId: string;
  /** Sale date; lots acquired after it are not held yet and cannot be sold. */
  saleDate: string;
  /** Sale price per share in the lot currency (used to rank by gain and to estimate gains). */
  price: Decimal.Value;
  /** Sale-date FX, units of the lot currency per USD. @default 1 */
  fxRate?: Decimal.Value;
  /** Sell only lots of this account (lots of other accounts still count as wash-sale replacements). */
  accountId?: string;
  /** Lots and quantities for the SPECIFIC policy. */
  specificLots?: readonly SpecificLotRequest[];
  /** Purchases outside `lots` that count as replacements (recent household buys, planned buys). */
  purchases?: readonly WashSalePurchase[];
  /** @default "deprioritize" */
  washSaleHandling?: WashSaleHandling;
}

/** One lot consumed by a selection, with the gain it would realize. */
export interface LotPick {
  readonly lotId: string;
  readonly accountId?: string;
  readonly quantity: Decimal;
  readonly tradeDate: string;
  readonly holdingPeriodStart: string;
  readonly term: HoldingTerm;
  /** Consumed basis in the lot currency and in USD. */
  readonly costBasis: Decimal;
  readonly costBasisUsd: Decimal;
  readonly proceedsUsd: Decimal;
  /** Economic gain, USD (negative = loss). */
  readonly gainUsd: Decimal;
  /** Expected shares of this pick matched to replacement shares (0 when no wash sale). */
  readonly washSaleQuantity: Decimal;
  /** Expected disallowed loss, USD (|gain| x washSaleQuantity / quantity). */
  readonly expectedDisallowedLossUsd: Decimal;
}

/** Result of {@link selectLots}: picks in consumption order; their quantities sum exactly to `quantity`. */
export interface LotSelection {
  readonly themeAssetId: string;
  readonly policy: LotSelectionPolicy;
  readonly quantity: Decimal;
  /** Shares held in the eligible lots before the sale. */
  readonly available: Decimal;
  readonly picks: readonly LotPick[];
}

/**
 * A held lot with its ranking figures at the sale price, computed once per lot (never in a comparator).
 * `gainSign` is the sign of the gain per share (priceUsd - basisPerShareUsd): -1, 0 or 1. HIFO and TAX_OPTIMAL rank
 * by them and compute them for every held lot; FIFO, LIFO and SPECIFIC need them only for the wash-sale estimate
 * of the picks, which computes them ({@link gainSignOf}) when some replacement share could wash a loss.
 */
interface Ranked {
  lot: TaxLot;
  /** null until computed ({@link gainSignOf}). */
  basisPerShareUsd: Decimal | null;
  /** {@link UNKNOWN_SIGN} until computed. */
  gainSign: number;
  term: HoldingTerm;
  exposed: boolean;
  /** TAX_OPTIMAL bucket ({@link bucketOf}); 0 for the other policies. */
  bucket: number;
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

/** HIFO and TAX_OPTIMAL compute every ranked lot's basis before sorting. */
const byBasisDesc = (a: Ranked, b: Ranked): number =>
  compareDecimals(b.basisPerShareUsd!, a.basisPerShareUsd!) || byDateThenId(a, b);

const UNKNOWN_SIGN = 2;

/** The lot's gain sign at `priceUsd` (and its basis per share), computed once. */
function gainSignOf(r: Ranked, priceUsd: Decimal): number {
  if (r.gainSign === UNKNOWN_SIGN) {
    const basis = basisPerShareUsdOf(r.lot);
    r.basisPerShareUsd = basis;
    // sign(priceUsd - basis): a 64-digit difference of two distinct values is never rounded to zero.
    r.gainSign = compareDecimals(priceUsd, basis);
  }
  return r.gainSign;
}

/** TAX_OPTIMAL bucket of a lot (lower sells first). */
function bucketOf(sign: number, term: HoldingTerm, exposed: boolean, handling: WashSaleHandling): number {
  if (sign < 0) {
    const st = term === "short_term";
    if (!exposed || handling === "flag") return st ? 0 : 1;
    if (handling === "deprioritize") return st ? 3 : 4;
    return st ? 7 : 8; // avoid: after every gain
  }
  if (sign === 0) return 2;
  return term === "long_term" ? 5 : 6;
}

const byBucket = (a: Ranked, b: Ranked): number => a.bucket - b.bucket || byBasisDesc(a, b);

/**
 * Per-share basis in USD of frozen lots, computed once (a 64-digit division, the costliest step of ranking): a
 * frozen lot cannot change, and callers that propose repeatedly keep their lots (`createLot` returns frozen lots).
 */
const basisOfFrozen = new WeakMap<TaxLot, Decimal>();

/** The lot's basis per share in USD, `totalCostBasis / fxRate / quantity` (64 significant digits). */
function basisPerShareUsdOf(lot: TaxLot): Decimal {
  let basis = basisOfFrozen.get(lot);
  if (basis === undefined) {
    basis = divideByRate(lot.totalCostBasis, lot.fxRate).dividedBy(lot.quantity);
    if (Object.isFrozen(lot)) basisOfFrozen.set(lot, basis);
  }
  return basis;
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
        signOf(p.qty) > 0 &&
        inWashSaleWindow(p.date, context.saleDate, rules.washSaleThresholdDays),
    );
  return { rules, price, fxRate, handling, purchases };
}

/** A source of replacement shares for the wash-sale estimate, in acquisition order. */
interface Replacement {
  date: string;
  lotId: string | null;
  capacity: Decimal;
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
export function selectLots(
  lots: readonly TaxLot[],
  quantity: Decimal.Value,
  policy: LotSelectionPolicy = DEFAULT_LOT_SELECTION_POLICY,
  context: LotSelectionContext,
): LotSelection {
  const where = "selectLots";
  if (!Array.isArray(lots)) throw new TypeError(`${where}: lots must be an array`);
  const requested = toNonNegativeDecimal(quantity, `${where}: quantity`);
  checkPolicy(policy, where);
  const ctx = prepareContext(context, where);
  // Only the asset's lots are validated and used: selection cost does not grow with the rest of the account.
  const sameAsset = prepareLots(
    lots.filter((l) => l.themeAssetId === context.themeAssetId),
    where,
  );
  return selectPrepared(sameAsset, requested, policy, context, ctx);
}

function checkPolicy(policy: LotSelectionPolicy, where: string): void {
  if (!LOT_SELECTION_POLICIES.includes(policy))
    throw new RangeError(
      `${where}: unknown policy ${String(policy)} (known: ${LOT_SELECTION_POLICIES.join(", ")})`,
    );
}

/**
 * {@link selectLots} for a caller that has already validated and normalized the lots ({@link prepareLots}):
 * `sameAsset` holds exactly the lots of `context.themeAssetId`, checked, with unique ids, and `requested` is a
 * TaxDecimal >= 0. The policy and the context are checked as selectLots checks them (same errors); the lots are
 * not checked again. applySale uses it: it has prepared the asset's lots itself. Internal to core/tax (not
 * exported by its index); the result is the one selectLots gives for the same lots.
 */
export function selectPreparedLots(
  sameAsset: readonly TaxLot[],
  requested: Decimal,
  policy: LotSelectionPolicy,
  context: LotSelectionContext,
): LotSelection {
  const where = "selectLots";
  checkPolicy(policy, where);
  return selectPrepared(sameAsset, requested, policy, context, prepareContext(context, where));
}

/** The selection proper, on the asset's prepared lots. */
function selectPrepared(
  sameAsset: readonly TaxLot[],
  requested: Decimal,
  policy: LotSelectionPolicy,
  context: LotSelectionContext,
  ctx: ReturnType<typeof prepareContext>,
): LotSelection {
  const where = "selectLots";
  const { rules, price, fxRate } = ctx;
  const asset = context.themeAssetId;
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
  if (compareDecimals(requested, available) > 0)
    throw new InsufficientLotsError(asset, requested.toString(), available.toString());

  const priceUsd = divideByRate(price, fxRate);
  // Day numbers once per lot: the wash-sale window and the holding term are integer arithmetic.
  const saleDay = toDayNumber(context.saleDate);
  const windowDays = rules.washSaleThresholdDays;
  // Held lots acquired in the window that could replace sold shares (never-adjusted ones only).
  const windowLots: TaxLot[] = [];
  const inWindow = new Set<TaxLot>();
  const tradeDayOf = new Map<TaxLot, number>();
  for (const l of sameAsset) {
    const day = toDayNumber(l.tradeDate);
    tradeDayOf.set(l, day);
    if (l.washSaleDate === null && Math.abs(day - saleDay) <= windowDays) {
      windowLots.push(l);
      inWindow.add(l);
    }
  }
  const hasPlanned = ctx.purchases.length > 0;
  const taxOptimal = policy === "TAX_OPTIMAL";
  // Only these rank by basis and gain; the others compute them for the picks' wash-sale estimate, when needed.
  const byBasis = taxOptimal || policy === "HIFO";
  // A SPECIFIC selection ranks only the lots it names (the others are neither picked nor compared).
  const named =
    policy === "SPECIFIC" && context.specificLots !== undefined
      ? new Set(context.specificLots.map((l) => l.lotId))
      : null;
  const ranked: Ranked[] = (named === null ? eligible : eligible.filter((l) => named.has(l.id))).map(
    (lot) => {
      const tradeDay = tradeDayOf.get(lot)!;
      const startDay =
        lot.holdingPeriodStart === lot.tradeDate ? tradeDay : toDayNumber(lot.holdingPeriodStart);
      const term = termOfDays(lot.holdingPeriodStart, startDay, context.saleDate, saleDay, rules);
      // Exposed when some other share was (or will be) bought in the window.
      const exposed = hasPlanned || windowLots.length > (inWindow.has(lot) ? 1 : 0);
      const r: Ranked = { lot, basisPerShareUsd: null, gainSign: UNKNOWN_SIGN, term, exposed, bucket: 0 };
      if (byBasis) gainSignOf(r, priceUsd);
      if (taxOptimal) r.bucket = bucketOf(r.gainSign, term, exposed, ctx.handling);
      return r;
    },
  );

  let order: Ranked[];
  let picksQty: Map<string, Decimal>;
  if (policy === "SPECIFIC") {
    ({ order, picksQty } = specificOrder(ranked, requested, context, asset));
  } else {
    order = [...ranked];
    if (policy === "FIFO") order.sort(byDateThenId);
    else if (policy === "LIFO") order.sort((a, b) => -byDateThenId(a, b));
    else if (policy === "HIFO") order.sort(byBasisDesc);
    else order.sort(byBucket);
    picksQty = new Map();
    let left = requested;
    for (const r of order) {
      if (signOf(left) <= 0) break;
      const q = compareDecimals(r.lot.quantity, left) <= 0 ? r.lot.quantity : left;
      picksQty.set(r.lot.id, q);
      left = left.minus(q);
    }
  }

  const chosen = order.filter((r) => picksQty.has(r.lot.id));
  const washed = estimateWash(chosen, picksQty, windowLots, ctx.purchases, priceUsd);
  const picks: LotPick[] = chosen.map((r) => {
    const q = picksQty.get(r.lot.id)!;
    const costBasis = proRata(r.lot.totalCostBasis, q, r.lot.quantity);
    const costBasisUsd = divideByRate(costBasis, r.lot.fxRate);
    const proceedsUsd = divideByRate(q.times(price), fxRate);
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
  // No replacement share left: nothing is washed, whatever the picks' gains (they are not computed then).
  if (windowLots.length === 0 && purchases.length === 0) return out;
  const pool: Replacement[] = [
    ...windowLots.map((l) => ({
      date: l.tradeDate,
      lotId: l.id,
      capacity: l.quantity.minus(picksQty.get(l.id) ?? ZERO),
    })),
    ...purchases.map((p) => ({ date: p.date, lotId: null, capacity: p.qty })),
  ]
    .filter((p) => signOf(p.capacity) > 0)
    .sort((a, b) => {
      // First acquired first matched; held lots by id on equal dates, before same-day outside purchases.
      if (a.date !== b.date) return a.date < b.date ? -1 : 1;
      if (a.lotId === null || b.lotId === null) return a.lotId === null ? (b.lotId === null ? 0 : 1) : -1;
      return a.lotId < b.lotId ? -1 : a.lotId > b.lotId ? 1 : 0;
    });
  if (pool.length === 0) return out;
  const losses = chosen.filter((r) => gainSignOf(r, priceUsd) < 0);
  let head = 0;
  for (const r of losses) {
    let left = picksQty.get(r.lot.id)!;
    let washed = ZERO;
    while (head < pool.length && signOf(pool[head]!.capacity) <= 0) head++;
    for (let k = head; k < pool.length; k++) {
      const p = pool[k]!;
      if (signOf(left) <= 0) break;
      if (p.lotId === r.lot.id || signOf(p.capacity) <= 0) continue;
      const m = compareDecimals(p.capacity, left) <= 0 ? p.capacity : left;
      p.capacity = p.capacity.minus(m);
      left = left.minus(m);
      washed = washed.plus(m);
    }
    if (signOf(washed) > 0) out.set(r.lot.id, washed);
  }
  return out;
}
