/**
 * @module core/tax/split
 * Stock splits: each old share becomes `ratio` new shares; basis per share divides by the ratio and the lot's
 * total basis, trade date and holding period are unchanged (IRS Publication 550, "Stock splits").
 */

import type { Decimal } from "decimal.js";
import { toPositiveDecimal } from "./decimal.js";
import { normalizeLot, prepareLots, type TaxLot } from "./lot.js";

/**
 * A split ratio: new shares per old share, as a decimal (2 for 2-for-1, 1.5 for 3-for-2, 0.1 for 1-for-10) or
 * as a fraction `{ numerator: new, denominator: old }` (3-for-2 = `{ numerator: 3, denominator: 2 }`).
 */
export type SplitRatio = Decimal.Value | { numerator: Decimal.Value; denominator: Decimal.Value };

/**
 * Applies a split of `themeAssetId` to every lot of that asset (all accounts given): quantity x ratio, total
 * basis unchanged (so per-share basis / ratio, and the total is conserved exactly: it is never recomputed).
 * Quantities keep full decimal precision (a fraction like 2/3 rounds at 64 significant digits); fractional
 * shares are kept — cash in lieu of fractional shares is not modeled (book it as a sale if your broker pays it).
 * Lots of other assets are returned as they are. Inputs are not mutated.
 * @throws {RangeError} / {TypeError} for invalid lots or a ratio <= 0.
 * @example applySplit(lots, "AAPL:XNAS", 4) // 4-for-1
 * @example applySplit(lots, "GE:XNYS", { numerator: 1, denominator: 8 }) // 1-for-8 reverse split
 */
export function applySplit(lots: readonly TaxLot[], themeAssetId: string, ratio: SplitRatio): TaxLot[] {
  const where = "applySplit";
  if (!Array.isArray(lots)) throw new TypeError(`${where}: lots must be an array`);
  const isFraction =
    typeof ratio === "object" && ratio !== null && "numerator" in ratio && "denominator" in ratio;
  const numerator = toPositiveDecimal(
    isFraction ? ratio.numerator : (ratio as Decimal.Value),
    `${where}: ratio`,
  );
  const denominator = isFraction ? toPositiveDecimal(ratio.denominator, `${where}: ratio.denominator`) : null;
  // Only the asset's lots are validated and changed.
  prepareLots(
    lots.filter((l) => l.themeAssetId === themeAssetId),
    where,
  );
  return lots.map((raw) => {
    if (raw.themeAssetId !== themeAssetId) return raw;
    const lot = normalizeLot(raw);
    const q = lot.quantity.times(numerator);
    return { ...lot, quantity: denominator === null ? q : q.dividedBy(denominator) };
  });
}
