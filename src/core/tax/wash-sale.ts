/**
 * @module core/tax/wash-sale
 * Matching loss sales to replacement shares (IRC §1091; Treas. Reg. §1.1091-1; Publication 550 "Wash Sales").
 *
 * Rules implemented:
 * - A loss sale is a wash sale to the extent substantially identical shares (same `themeAssetId`) are
 *   acquired within `washSaleThresholdDays` days before or after the sale date (inclusive: 61 days by default).
 * - Matching order: loss sales in the order given (chronological), each matched to replacement shares in
 *   the order of their acquisition, first acquired first matched (§1.1091-1(b)-(d)).
 * - A replacement share is used at most once (§1.1091-1(e)): once a lot received a wash-sale adjustment
 *   (`washSaleDate` set) it is not matched again; a partially used lot is carved so only the matched shares
 *   carry the adjustment.
 * - Disallowance is pro rata: matching m of the n shares of a loss sale disallows |loss| x m / n.
 * - The disallowed loss is added to the replacement shares' basis (§1091(d)); converted to the replacement
 *   lot's currency at that lot's purchase FX so its USD basis rises by exactly the disallowed USD.
 * - The sold shares' holding period is tacked on (IRC §1223, wash-sale paragraph): the replacement's holding-period start moves
 *   back by the calendar days the sold shares were held (brokers report this as an "adjusted acquisition
 *   date"); the periods add even when the replacement was bought before the sale.
 * - The unsold remainder of the very lot sold is not a replacement for it (same acquisition).
 */

import type { Decimal } from "decimal.js";
import { addDays, daysBetween } from "../dates.js";
import { proRata } from "./decimal.js";
import { holdingDays } from "./holding-period.js";
import type { TaxLot } from "./lot.js";
import type { RealizedGain, WashSaleMatch } from "./realized-gain.js";
import { isLossSale } from "./realized-gain.js";

/**
 * One wash-sale adjustment made to a replacement lot, as reported by applySale and applyPurchase.
 */
export interface WashSaleAdjustment {
  /** Lot (id after carving) whose basis and holding period were adjusted. */
  readonly replacementLotId: string;
  /** The loss sale: sold lot id and sale date. */
  readonly soldLotId: string;
  readonly saleDate: string;
  readonly themeAssetId: string;
  /** Shares matched. */
  readonly quantity: Decimal;
  /** Loss disallowed and added to the replacement basis, USD. */
  readonly disallowedLossUsd: Decimal;
  /** Calendar days of holding period tacked onto the replacement (days the sold shares were held). */
  readonly tackedDays: number;
  /** New holding-period start of the replacement shares. */
  readonly holdingPeriodStart: string;
  /** Adjustment date (the later of the sale and the replacement purchase); becomes the lot's washSaleDate. */
  readonly date: string;
}

/**
 * True when an acquisition on `acquisitionDate` falls in the wash-sale window of a sale on `saleDate`:
 * `|acquisition - sale| <= thresholdDays` calendar days.
 * @example inWashSaleWindow("2024-05-20", "2024-06-19", 30) // true (30 days before)
 */
export function inWashSaleWindow(acquisitionDate: string, saleDate: string, thresholdDays: number): boolean {
  return Math.abs(daysBetween(saleDate, acquisitionDate)) <= thresholdDays;
}

/** Smallest `${base}.w${k}` not taken. */
function freshId(base: string, taken: (id: string) => boolean): string {
  for (let k = 1; ; k++) {
    const id = `${base}.w${k}`;
    if (!taken(id)) return id;
  }
}

/**
 * A membership test over the ids of `lots`, building the id set only on first use (carving is rare, the
 * lot set can be large).
 */
export function lazyIdSet(lots: readonly TaxLot[]): (id: string) => boolean {
  let ids: Set<string> | null = null;
  return (id) => {
    if (ids === null) ids = new Set(lots.map((l) => l.id));
    return ids.has(id);
  };
}

/** Inputs of {@link matchWashSales}. */
export interface WashMatchInput {
  /** Current lot set (not mutated). */
  lots: readonly TaxLot[];
  /** Realized records (not mutated); only the indices in `lossOrder` are matched. */
  records: readonly RealizedGain[];
  /** Indices into `records` of the loss sales to match, in matching order. */
  lossOrder: readonly number[];
  /** Ids of candidate replacement lots, first acquired first. */
  candidateIds: readonly string[];
  /** True for ids used outside `lots` (carved lots get ids unused everywhere). @default none */
  isReserved?: (id: string) => boolean;
  /** Whether `lot` may replace shares of the loss `record` (window, asset, not the same lot...). */
  eligible: (record: RealizedGain, lot: TaxLot) => boolean;
}

/** Output of {@link matchWashSales}: new lots and records, plus the adjustments made. */
export interface WashMatchResult {
  lots: TaxLot[];
  records: RealizedGain[];
  adjustments: WashSaleAdjustment[];
}

/**
 * Matches the loss sales `lossOrder` to candidate replacement lots and applies the adjustments.
 * A lot is eligible while its `washSaleDate` is null (never used as a replacement). Internal to the tax engine.
 */
export function matchWashSales(input: WashMatchInput): WashMatchResult {
  // One slot per input lot: the adjusted pieces carved from it, then what is left of it (null when used up).
  // Slots keep positions stable, so the work is linear in lots + candidates + matches.
  const slots = input.lots.map((lot) => ({ pieces: [] as TaxLot[], rest: lot as TaxLot | null }));
  const slotOf = new Map(input.lots.map((l, i) => [l.id, i]));
  const records = [...input.records];
  const adjustments: WashSaleAdjustment[] = [];
  const carved = new Set<string>();
  const taken = (id: string): boolean =>
    slotOf.has(id) || carved.has(id) || (input.isReserved?.(id) ?? false);
  const queue: number[] = [];
  for (const id of input.candidateIds) {
    const i = slotOf.get(id);
    if (i !== undefined && slots[i]!.rest!.washSaleDate === null) queue.push(i);
  }
  let head = 0;

  for (const ri of input.lossOrder) {
    // Candidates used up by earlier matches are never eligible again; none left ends the matching.
    while (head < queue.length && slots[queue[head]!]!.rest === null) head++;
    if (head === queue.length) break;
    let rec = records[ri]!;
    if (!isLossSale(rec)) continue;
    const totalLoss = rec.gainUsd.negated();
    // Days the sold shares were held, computed at the first match (most loss sales have no replacement).
    let tackedDays = -1;
    for (let k = head; k < queue.length; k++) {
      const unwashed = rec.quantity.minus(rec.washedQuantity);
      if (unwashed.lte(0)) break;
      const slot = slots[queue[k]!]!;
      const cand = slot.rest;
      if (cand === null || !input.eligible(rec, cand)) continue;

      const m = minDecimal(unwashed, cand.quantity);
      const washed = rec.washedQuantity.plus(m);
      // Cumulative pro-rata total, so several matches of one sale add up to exactly |loss| when fully washed.
      const disallowedTotal = proRata(totalLoss, washed, rec.quantity);
      const increment = disallowedTotal.minus(rec.disallowedLossUsd);
      const date = laterDate(cand.tradeDate, rec.saleDate);

      // Carve the matched shares off the candidate; the rest keeps the id and stays a candidate.
      let piece: TaxLot;
      if (m.eq(cand.quantity)) {
        piece = cand;
        slot.rest = null;
      } else {
        const pieceBasis = proRata(cand.totalCostBasis, m, cand.quantity);
        const id = freshId(cand.id, taken);
        carved.add(id);
        piece = { ...cand, id, quantity: m, totalCostBasis: pieceBasis };
        slot.rest = {
          ...cand,
          quantity: cand.quantity.minus(m),
          totalCostBasis: cand.totalCostBasis.minus(pieceBasis),
        };
      }
      if (tackedDays < 0) tackedDays = holdingDays(rec.holdingPeriodStart, rec.saleDate);
      const holdingPeriodStart = addDays(piece.holdingPeriodStart, -tackedDays);
      const adjusted: TaxLot = {
        ...piece,
        totalCostBasis: piece.totalCostBasis.plus(increment.times(piece.fxRate)),
        holdingPeriodStart,
        washSaleDate: date,
      };
      slot.pieces.push(adjusted);

      const match: WashSaleMatch = {
        replacementLotId: adjusted.id,
        quantity: m,
        disallowedLossUsd: increment,
        date,
      };
      rec = {
        ...rec,
        washedQuantity: washed,
        disallowedLossUsd: disallowedTotal,
        recognizedGainUsd: rec.gainUsd.plus(disallowedTotal),
        washSaleMatches: [...rec.washSaleMatches, match],
      };
      records[ri] = rec;
      adjustments.push({
        replacementLotId: adjusted.id,
        soldLotId: rec.lotId,
        saleDate: rec.saleDate,
        themeAssetId: rec.themeAssetId,
        quantity: m,
        disallowedLossUsd: increment,
        tackedDays,
        holdingPeriodStart,
        date,
      });
    }
  }
  // Adjusted pieces sit just before what is left of the lot they came from.
  const lots = slots.flatMap((s) => (s.rest === null ? s.pieces : [...s.pieces, s.rest]));
  return { lots, records, adjustments };
}

function minDecimal(a: Decimal, b: Decimal): Decimal {
  return a.lte(b) ? a : b;
}

/** The later of two ISO dates (they compare as strings). */
function laterDate(a: string, b: string): string {
  if (a > b) return a;
  return b;
}
