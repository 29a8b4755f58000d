/**
 * @module core/themes/expression/cross-sectional
 * Cross-sectional transforms computed over the current universe (the rows of a mask) ignoring missing
 * values. Rows outside the universe or with a missing input get NaN.
 */

/** Present values of the universe, ascending (native numeric sort, no comparator). */
function sortedPresentValues(x: Float64Array, universe: Uint8Array | undefined): Float64Array {
  const values = new Float64Array(x.length);
  let n = 0;
  for (let i = 0; i < x.length; i++) {
    const v = x[i]!;
    if (!Number.isNaN(v) && (universe === undefined || universe[i] === 1)) values[n++] = v;
  }
  return values.subarray(0, n).sort();
}

/** First index of `sorted` whose value is >= v. */
function lowerBound(sorted: Float64Array, v: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid]! < v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Ascending fractional rank among the universe's present values: the smallest gets 1, the largest n,
 * ties share the average of the ranks they span ("average" ties, as scipy.stats.rankdata and pandas
 * `rank()` by default). `rank([10, 30, 20, 20])` = `[1, 4, 2.5, 2.5]`.
 * A tied block at sorted positions lo..hi (0-based) holds ranks lo+1..hi+1, whose mean is (lo + hi) / 2 + 1;
 * each row finds the start of its block by binary search.
 */
export function rank(x: Float64Array, universe: Uint8Array | undefined): Float64Array {
  const out = new Float64Array(x.length).fill(Number.NaN);
  const sorted = sortedPresentValues(x, universe);
  const n = sorted.length;
  // Mean rank of the block starting at each block start.
  const blockRank = new Float64Array(n);
  for (let lo = 0; lo < n; ) {
    let hi = lo;
    while (hi + 1 < n && sorted[hi + 1] === sorted[lo]) hi++;
    blockRank[lo] = (lo + hi) / 2 + 1;
    lo = hi + 1;
  }
  for (let i = 0; i < x.length; i++) {
    const v = x[i]!;
    if (Number.isNaN(v) || (universe !== undefined && universe[i] !== 1)) continue;
    out[i] = blockRank[lowerBound(sorted, v)]!;
  }
  return out;
}

/**
 * Percentile rank in [0, 1]: (rank - 1) / (n - 1), so the smallest value maps to 0 and the largest to 1;
 * a universe with a single present value maps it to 0.5 (as when all values tie).
 */
export function percentile(x: Float64Array, universe: Uint8Array | undefined): Float64Array {
  const r = rank(x, universe);
  let n = 0;
  for (let i = 0; i < r.length; i++) if (!Number.isNaN(r[i])) n++;
  for (let i = 0; i < r.length; i++) {
    const v = r[i]!;
    if (!Number.isNaN(v)) r[i] = n === 1 ? 0.5 : (v - 1) / (n - 1);
  }
  return r;
}

/**
 * Standard score (x - mean) / sd over the universe's present values, sd being the sample standard
 * deviation (n - 1 denominator, as pandas `std()`). With fewer than two values or zero dispersion every
 * present value scores 0. Sums use Neumaier compensated summation.
 */
export function zscore(x: Float64Array, universe: Uint8Array | undefined): Float64Array {
  const size = x.length;
  const out = new Float64Array(size).fill(Number.NaN);
  let n = 0;
  let sum = 0;
  let c = 0;
  for (let i = 0; i < size; i++) {
    const v = x[i]!;
    if (Number.isNaN(v) || (universe !== undefined && universe[i] !== 1)) continue;
    n++;
    const t = sum + v;
    c += Math.abs(sum) >= Math.abs(v) ? sum - t + v : v - t + sum;
    sum = t;
  }
  if (n === 0) return out;
  const mean = (sum + c) / n;
  let ss = 0;
  let cs = 0;
  for (let i = 0; i < size; i++) {
    const v = x[i]!;
    if (Number.isNaN(v) || (universe !== undefined && universe[i] !== 1)) continue;
    const d = (v - mean) * (v - mean);
    const t = ss + d;
    cs += ss >= d ? ss - t + d : d - t + ss;
    ss = t;
  }
  const sd = n > 1 ? Math.sqrt((ss + cs) / (n - 1)) : 0;
  for (let i = 0; i < size; i++) {
    const v = x[i]!;
    if (Number.isNaN(v) || (universe !== undefined && universe[i] !== 1)) continue;
    out[i] = sd > 0 ? (v - mean) / sd : 0;
  }
  return out;
}
