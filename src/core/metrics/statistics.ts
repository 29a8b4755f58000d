/**
 * @module core/metrics/statistics
 * The sample statistics behind the performance metrics: compensated sums, means, sample variance and
 * covariance (n - 1 denominators), with entry checks shared by every metric.
 */

/** A numeric series: a typed array or a plain array of numbers. */
export type Series = ArrayLike<number>;

/**
 * Throws unless every value of `x` is finite.
 * @throws {RangeError} naming `caller`, the argument and the first offending position.
 */
export function assertFiniteSeries(x: Series, caller: string, argument: string): void {
  if (x === null || typeof x !== "object" || typeof x.length !== "number") {
    throw new TypeError(`${caller}: ${argument} must be an array of numbers`);
  }
  for (let i = 0; i < x.length; i++) {
    const v = x[i];
    if (typeof v !== "number" || !Number.isFinite(v)) {
      throw new RangeError(
        `${caller}: ${argument}[${i}] is ${String(v)}; every value must be a finite number`,
      );
    }
  }
}

/**
 * Throws unless `a` and `b` have the same length.
 * @throws {RangeError} naming `caller` and both lengths.
 */
export function assertSameLength(a: Series, b: Series, caller: string, names: [string, string]): void {
  if (a.length !== b.length) {
    throw new RangeError(
      `${caller}: ${names[0]} has ${a.length} values but ${names[1]} has ${b.length}; pass aligned series`,
    );
  }
}

/**
 * Sum with Neumaier's compensation (Neumaier 1974, "Rundungsfehleranalyse einiger Verfahren zur Summation
 * endlicher Summen", ZAMM 54), exact to about one rounding of the result for long series.
 * @example compensatedSum([1e16, 1, -1e16]) // 1 (a plain loop gives 0)
 */
export function compensatedSum(x: Series): number {
  let sum = 0;
  let c = 0;
  for (let i = 0; i < x.length; i++) {
    const v = x[i]!;
    const t = sum + v;
    c += Math.abs(sum) >= Math.abs(v) ? sum - t + v : v - t + sum;
    sum = t;
  }
  return sum + c;
}

/** Arithmetic mean; NaN for an empty series (callers check the length first). */
export function mean(x: Series): number {
  return x.length === 0 ? Number.NaN : compensatedSum(x) / x.length;
}

/**
 * Sample covariance with the n - 1 denominator: sum((x - mean x)(y - mean y)) / (n - 1). Two-pass (means
 * first) for accuracy; NaN when n < 2.
 */
export function sampleCovariance(x: Series, y: Series): number {
  const n = x.length;
  if (n < 2) return Number.NaN;
  const mx = mean(x);
  const my = mean(y);
  const products = new Float64Array(n);
  for (let i = 0; i < n; i++) products[i] = (x[i]! - mx) * (y[i]! - my);
  return compensatedSum(products) / (n - 1);
}

/** Sample variance with the n - 1 denominator; NaN when n < 2. */
export function sampleVariance(x: Series): number {
  return sampleCovariance(x, x);
}
