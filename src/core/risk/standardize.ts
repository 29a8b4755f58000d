/**
 * @module core/risk/standardize
 * Style exposures from raw characteristics: cap-weighted mean 0, equal-weighted standard deviation 1, winsorized
 * (the convention of Barra's USE4: Menchero, Orr & Wang 2011, "The Barra US Equity Model (USE4) Methodology Notes").
 */

/** Options of {@link standardizeCharacteristic}. */
export interface StandardizeOptions {
  /**
   * z-scores are clipped to [-winsorize, +winsorize] before the final re-centring.
   * @default 3
   */
  winsorize?: number;
}

/** Result of {@link standardizeCharacteristic}. */
export interface StandardizedCharacteristic {
  /** The n standardized exposures (0 for assets with a missing value). */
  values: Float64Array;
  /** Assets that had a value (non-NaN) and a positive cap weight. */
  observed: number;
  /** True when fewer than 2 values were observed or they had no dispersion: every exposure is then 0. */
  degenerate: boolean;
}

/** Cap-weighted mean and equal-weighted RMS deviation around it, over the entries where mask is set. */
function moments(
  x: Float64Array,
  cap: Float64Array,
  mask: Uint8Array,
): { mean: number; sd: number; count: number } {
  let sw = 0;
  let swx = 0;
  let count = 0;
  for (let i = 0; i < x.length; i++) {
    if (mask[i] === 0) continue;
    sw += cap[i]!;
    swx += cap[i]! * x[i]!;
    count++;
  }
  const mean = sw > 0 ? swx / sw : 0;
  let ss = 0;
  for (let i = 0; i < x.length; i++) if (mask[i] === 1) ss += (x[i]! - mean) ** 2;
  return { mean, sd: count > 1 ? Math.sqrt(ss / (count - 1)) : 0, count };
}

/**
 * Standardizes one characteristic across assets:
 *
 *   z_i = clip((x_i - m) / s, -w, +w) - c,   m = sum_i c_i x_i / sum_i c_i,   s = sqrt(sum_i (x_i - m)^2 / (N - 1)),
 *
 * over the N assets with a value (not NaN) and a cap weight c_i > 0, where the final shift c re-centres the clipped
 * scores so their cap-weighted mean is exactly 0 (a market-neutral style: the market factor then carries the
 * cap-weighted market). The scores are not rescaled after clipping (rescaling would push a lone outlier back beyond
 * the bound), so their equal-weighted deviation is 1 before clipping and slightly below after. Missing values get
 * exposure 0, the cap-weighted average. Inputs are not modified.
 *
 * @param values raw characteristic, length n (NaN = missing).
 * @param capWeights market caps (or any positive weights), length n; entries <= 0 or NaN exclude the asset from
 *   the moments (it still gets a standardized value if it has one).
 * @throws {RangeError} on a length mismatch or a winsorize bound that is not > 0.
 * @example
 * // values 1, 2, 3 with caps 1, 1, 2: m = (1 + 2 + 6) / 4 = 2.25, s = sqrt((1.5625 + 0.0625 + 0.5625) / 2)
 * standardizeCharacteristic(Float64Array.of(1, 2, 3), Float64Array.of(1, 1, 2));
 */
export function standardizeCharacteristic(
  values: Float64Array,
  capWeights: Float64Array,
  options: StandardizeOptions = {},
): StandardizedCharacteristic {
  const n = values.length;
  if (capWeights.length !== n) {
    throw new RangeError(
      `standardizeCharacteristic: capWeights has length ${capWeights.length}, expected ${n}.`,
    );
  }
  const bound = options.winsorize ?? 3;
  if (!(bound > 0)) throw new RangeError(`standardizeCharacteristic: winsorize must be > 0, got ${bound}.`);
  const mask = new Uint8Array(n);
  const hasValue = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    if (Number.isNaN(values[i]!)) continue;
    hasValue[i] = 1;
    if (capWeights[i]! > 0) mask[i] = 1;
  }
  const out = new Float64Array(n);
  const first = moments(values, capWeights, mask);
  if (first.count < 2 || !(first.sd > 0)) return { values: out, observed: first.count, degenerate: true };
  for (let i = 0; i < n; i++) {
    if (hasValue[i] === 0) continue;
    const z = (values[i]! - first.mean) / first.sd;
    out[i] = Math.min(bound, Math.max(-bound, z));
  }
  const shift = moments(out, capWeights, mask).mean;
  for (let i = 0; i < n; i++) if (hasValue[i] === 1) out[i]! -= shift;
  return { values: out, observed: first.count, degenerate: false };
}
