/**
 * @module core/themes/point-in-time
 * The point-in-time inputs of an evaluation at a date: which securities exist then, and characteristic
 * columns built from as-of values (each the latest observation dated on or before the date, as the store's
 * `characteristicsAsOf` returns them).
 */
import type { Security } from "../data/types.js";

/**
 * The securities that exist at `asOf`: listed on or before it (`listedFrom <= asOf`) and not delisted before
 * it (`delistedOn` null or `>= asOf`), ANDed with `priced` when given (e.g. "has a close on that date"). A
 * security with an unknown `listedFrom` relies on `priced` alone.
 * @throws {RangeError} when `priced` does not have one entry per security.
 * @example listedMask(securities, "2015-06-30") // Uint8Array, 1 = exists on 2015-06-30
 */
export function listedMask(securities: readonly Security[], asOf: string, priced?: Uint8Array): Uint8Array {
  const n = securities.length;
  if (priced !== undefined && priced.length !== n) {
    throw new RangeError(`listedMask: priced has ${priced.length} entries but there are ${n} securities`);
  }
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    const s = securities[i]!;
    const listed = s.listedFrom === null || s.listedFrom <= asOf;
    const alive = s.delistedOn === null || asOf <= s.delistedOn;
    out[i] = listed && alive && (priced === undefined || priced[i] !== 0) ? 1 : 0;
  }
  return out;
}

/**
 * One Float64Array column per characteristic, aligned with `securities` (NaN where a security has no value),
 * from as-of values keyed by theme_asset_id. Non-finite values become NaN (missing).
 * @example characteristicColumns(securities, new Map([["pe", new Map([["AAPL:XNAS", 28.1]])]]))
 */
export function characteristicColumns(
  securities: readonly Security[],
  values: ReadonlyMap<string, ReadonlyMap<string, number>>,
): Map<string, Float64Array> {
  const out = new Map<string, Float64Array>();
  for (const [name, byId] of values) {
    const column = new Float64Array(securities.length);
    for (let i = 0; i < securities.length; i++) {
      const v = byId.get(securities[i]!.themeAssetId);
      column[i] = v !== undefined && Number.isFinite(v) ? v : Number.NaN;
    }
    out.set(name, column);
  }
  return out;
}
