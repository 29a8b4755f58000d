/**
 * @module core/optimizer/lot-table
 * A columnar float view of an account's tax lots, prepared once and reused by every solve (10,000 lots cost
 * ~60 ms to read through decimal.js and the calendar rules, far more than a solve). Each lot keeps its
 * quantity, USD cost basis, day numbers of its dates and the first day it is long-term; the `TaxLot` itself is
 * kept for the exact decimal arithmetic of the lots that are sold.
 */
import { toDayNumber } from "../dates.js";
import { longTermRequiredDays } from "../tax/holding-period.js";
import type { TaxLot } from "../tax/index.js";
import { resolveTaxRules } from "../tax/index.js";

/** How far past the last matched lot {@link prepareLotTableFrom} looks for a lot of the previous table. */
const REUSE_WINDOW = 64;

/** "No date" in the day-number columns. */
export const NO_DAY = -2_147_483_648;

/** Columnar lots (see the module comment). Lot k belongs to asset `asset[k]` of `assets`. */
export interface LotTable {
  readonly assets: readonly string[];
  readonly lots: readonly TaxLot[];
  readonly asset: Int32Array;
  readonly quantity: Float64Array;
  /** Total cost basis in USD at the purchase FX (totalCostBasis / fxRate). */
  readonly basisUsd: Float64Array;
  readonly tradeDay: Int32Array;
  /** First day on which a sale is long-term (holding period start + the threshold, calendar convention). */
  readonly longTermFromDay: Int32Array;
  readonly washSaleDay: Int32Array;
  readonly lastSoldForLossDay: Int32Array;
  /** Long-term threshold the table was prepared for. */
  readonly longTermThresholdDays: number;
}

/**
 * Prepare the lot table of `lots` over the universe `assets` (calendar holding-period convention, docs/tax.md).
 * @throws {RangeError} when a lot's asset is not in `assets` (naming the lot and the asset).
 * @example prepareLotTable(lots, ["AAPL:XNAS"], 365).longTermFromDay[0]
 */
export function prepareLotTable(
  lots: readonly TaxLot[],
  assets: readonly string[],
  longTermThresholdDays = 365,
): LotTable {
  return prepareRows(lots, assets, longTermThresholdDays, undefined);
}

/**
 * {@link prepareLotTable} of `lots` that copies the rows of the lot objects `previous` already holds (a `TaxLot` is
 * immutable, so its row is a function of the object, the universe and the threshold) and prepares only the others:
 * next month's account is mostly last month's lot objects. Lots are matched by identity in order (sold lots
 * skipped, new ones anywhere); a kept lot found out of order is simply prepared again, so the table always equals
 * {@link prepareLotTable}'s. `previous` must have been prepared for the same universe and threshold (checked).
 * @throws {RangeError} as {@link prepareLotTable}, or when `previous` was prepared for another universe or threshold.
 */
export function prepareLotTableFrom(
  previous: LotTable,
  lots: readonly TaxLot[],
  assets: readonly string[],
  longTermThresholdDays = 365,
): LotTable {
  if (
    previous.longTermThresholdDays !== longTermThresholdDays ||
    previous.assets.length !== assets.length ||
    previous.assets.some((a, i) => a !== assets[i])
  )
    throw new RangeError("prepareLotTableFrom: previous was prepared for another universe or threshold.");
  return prepareRows(lots, assets, longTermThresholdDays, previous);
}

function prepareRows(
  lots: readonly TaxLot[],
  assets: readonly string[],
  longTermThresholdDays: number,
  previous: LotTable | undefined,
): LotTable {
  const index = new Map(assets.map((a, i) => [a, i]));
  const rules = resolveTaxRules({ longTermThresholdDays }, "prepareLotTable");
  const m = lots.length;
  const asset = new Int32Array(m);
  const quantity = new Float64Array(m);
  const basisUsd = new Float64Array(m);
  const tradeDay = new Int32Array(m);
  const longTermFromDay = new Int32Array(m);
  const washSaleDay = new Int32Array(m);
  const lastSoldForLossDay = new Int32Array(m);
  const dayCache = new Map<string, number>();
  const ltCache = new Map<string, number>();
  const day = (d: string | null): number => {
    if (d === null) return NO_DAY;
    let v = dayCache.get(d);
    if (v === undefined) {
      v = toDayNumber(d);
      dayCache.set(d, v);
    }
    return v;
  };
  // Lots kept from the previous table usually come in the same order, with sold lots left out and new ones in
  // between or at the end: match them by a forward scan of the previous lots (a short window past each gap).
  const before = previous?.lots ?? [];
  let next = 0;
  for (let k = 0; k < m; k++) {
    const lot = lots[k]!;
    let p = -1;
    for (let q = next; q < before.length && q < next + REUSE_WINDOW; q++)
      if (before[q] === lot) {
        p = q;
        break;
      }
    if (p >= 0 && previous !== undefined) {
      next = p + 1;
      asset[k] = previous.asset[p]!;
      quantity[k] = previous.quantity[p]!;
      basisUsd[k] = previous.basisUsd[p]!;
      tradeDay[k] = previous.tradeDay[p]!;
      longTermFromDay[k] = previous.longTermFromDay[p]!;
      washSaleDay[k] = previous.washSaleDay[p]!;
      lastSoldForLossDay[k] = previous.lastSoldForLossDay[p]!;
      continue;
    }
    const a = index.get(lot.themeAssetId);
    if (a === undefined)
      throw new RangeError(
        `prepareLotTable: lot ${lot.id} holds ${lot.themeAssetId}, which is not in the universe.`,
      );
    asset[k] = a;
    quantity[k] = lot.quantity.toNumber();
    basisUsd[k] = lot.fxRate.eq(1)
      ? lot.totalCostBasis.toNumber()
      : lot.totalCostBasis.div(lot.fxRate).toNumber();
    tradeDay[k] = day(lot.tradeDate);
    let lt = ltCache.get(lot.holdingPeriodStart);
    if (lt === undefined) {
      // Long-term when held MORE than the required days: the first long-term day is start + required + 1.
      lt = day(lot.holdingPeriodStart) + longTermRequiredDays(lot.holdingPeriodStart, rules) + 1;
      ltCache.set(lot.holdingPeriodStart, lt);
    }
    longTermFromDay[k] = lt;
    washSaleDay[k] = day(lot.washSaleDate);
    lastSoldForLossDay[k] = day(lot.lastSoldForLossDate);
    if (!(quantity[k]! > 0) || !Number.isFinite(basisUsd[k]!))
      throw new RangeError(
        `prepareLotTable: lot ${lot.id} has quantity ${quantity[k]} and USD basis ${basisUsd[k]}.`,
      );
  }
  return {
    assets: [...assets],
    lots: [...lots],
    asset,
    quantity,
    basisUsd,
    tradeDay,
    longTermFromDay,
    washSaleDay,
    lastSoldForLossDay,
    longTermThresholdDays,
  };
}
