/**
 * @module market/synthetic/rows
 * Conversions of the columnar outputs of the generator into the row types of `core/data/types.ts`, for stores
 * and importers that take rows.
 */

import type { IndexLevel, IndexWeight } from "../../core/data/types.js";
import { addDays } from "../../core/dates.js";
import type { FundamentalsPanel, SyntheticIndex } from "./types.js";

/** The index's levels as rows (dates before the index starts are skipped). */
export function indexLevelRows(index: SyntheticIndex): IndexLevel[] {
  const out: IndexLevel[] = [];
  for (let t = 0; t < index.dates.length; t++) {
    const level = index.levels[t]!;
    if (!Number.isNaN(level)) out.push({ identifier: index.info.identifier, date: index.dates[t]!, level });
  }
  return out;
}

/** The index's constituent weights as rows (zero weights are skipped); each date's weights sum to 1. */
export function indexWeightRows(index: SyntheticIndex): IndexWeight[] {
  const { dates, ids, values } = index.weights;
  const n = ids.length;
  const out: IndexWeight[] = [];
  for (let m = 0; m < dates.length; m++)
    for (let j = 0; j < n; j++) {
      const weight = values[m * n + j]!;
      if (weight > 0)
        out.push({ identifier: index.info.identifier, date: dates[m]!, themeAssetId: ids[j]!, weight });
    }
  return out;
}

/**
 * The publication date of quarter `q` of security column `i`: quarter end + the security's report lag.
 * @throws {RangeError} when q or i is out of range.
 */
export function fundamentalsReportDate(f: FundamentalsPanel, q: number, i: number): string {
  if (!(q >= 0 && q < f.quarterEnds.length && i >= 0 && i < f.ids.length))
    throw new RangeError(`fundamentalsReportDate: quarter ${q} / column ${i} out of range`);
  return addDays(f.quarterEnds[q]!, f.reportLagDays[i]!);
}
