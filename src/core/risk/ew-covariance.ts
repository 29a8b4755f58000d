/**
 * @module core/risk/ew-covariance
 * Exponentially weighted moments of a multivariate series (RiskMetrics-style decay, parameterized by
 * half-life as in Barra USE4).
 */

/**
 * Weights w_t proportional to 2^(-(T - 1 - t) / halfLife) for t = 0..T-1 (oldest first, newest weight largest),
 * normalized to sum to 1. A weight halves every `halfLife` periods back in time.
 *
 * @throws {RangeError} when count < 0 or halfLife is not > 0 (Infinity gives equal weights).
 * @example
 * exponentialWeights(3, 1); // [1, 2, 4] / 7
 */
export function exponentialWeights(count: number, halfLife: number): Float64Array {
  if (!Number.isInteger(count) || count < 0) {
    throw new RangeError(`exponentialWeights: count must be a non-negative integer, got ${count}.`);
  }
  if (!(halfLife > 0)) throw new RangeError(`exponentialWeights: halfLife must be > 0, got ${halfLife}.`);
  const w = new Float64Array(count);
  let sum = 0;
  for (let t = 0; t < count; t++) {
    w[t] = 2 ** (-(count - 1 - t) / halfLife);
    sum += w[t]!;
  }
  for (let t = 0; t < count; t++) w[t]! /= sum;
  return w;
}

/**
 * Weighted covariance of T observations of a k-vector (rows of `series`, T x k row-major) with weights w
 * summing to 1:
 *
 *   m = sum_t w_t x_t,   S = sum_t w_t (x_t - m)(x_t - m)' / (1 - sum_t w_t^2)
 *
 * The divisor is the unbiased correction for reliability weights (it is T / (T - 1) for equal weights, the
 * usual sample covariance). With `demean: false`, S = sum_t w_t x_t x_t' (no mean, no correction).
 *
 * @throws {RangeError} on inconsistent lengths, or when demeaning with sum_t w_t^2 >= 1 (a single observation).
 * @example
 * ewCovariance(Float64Array.of(1, 3), 2, 1, Float64Array.of(0.5, 0.5)); // [2]: ((1-2)^2 + (3-2)^2) / 2 / (1 - 0.5)
 */
export function ewCovariance(
  series: Float64Array,
  T: number,
  k: number,
  weights: Float64Array,
  options: { demean?: boolean } = {},
): Float64Array {
  if (series.length !== T * k || weights.length !== T) {
    throw new RangeError(
      `ewCovariance: expected series of length T x k = ${T * k} and ${T} weights, got ${series.length} and ${weights.length}.`,
    );
  }
  const demean = options.demean ?? true;
  const mean = new Float64Array(k);
  let sumSq = 0;
  for (let t = 0; t < T; t++) {
    const w = weights[t]!;
    sumSq += w * w;
    if (demean) for (let a = 0; a < k; a++) mean[a]! += w * series[t * k + a]!;
  }
  const correction = demean ? 1 - sumSq : 1;
  if (!(correction > 0)) {
    throw new RangeError(
      "ewCovariance: need at least two observations with weight to estimate a covariance.",
    );
  }
  const S = new Float64Array(k * k);
  const d = new Float64Array(k);
  for (let t = 0; t < T; t++) {
    const w = weights[t]!;
    if (w === 0) continue;
    for (let a = 0; a < k; a++) d[a] = series[t * k + a]! - mean[a]!;
    for (let a = 0; a < k; a++) {
      const wa = w * d[a]!;
      for (let b = 0; b <= a; b++) S[a * k + b]! += wa * d[b]!;
    }
  }
  for (let a = 0; a < k; a++) {
    for (let b = 0; b <= a; b++) {
      const v = S[a * k + b]! / correction;
      S[a * k + b] = v;
      S[b * k + a] = v;
    }
  }
  return S;
}
