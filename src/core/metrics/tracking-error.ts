/**
 * @module core/metrics/tracking-error
 * Tracking error (active risk) of a return series against a benchmark's.
 */
import { assertPeriodsPerYear, assertReturns, TRADING_DAYS_PER_YEAR } from "./returns.js";
import { assertSameLength, type Series, sampleVariance } from "./statistics.js";

/**
 * Annualized ex post tracking error: the sample standard deviation of the active returns
 * a_t = r_t - b_t times sqrt(q) (Grinold and Kahn, "Active Portfolio Management", 2nd ed., 2000, ch. 5:
 * active risk). Null with fewer than two paired returns.
 * @param periodsPerYear q. @default TRADING_DAYS_PER_YEAR
 * @throws {RangeError} when the series differ in length, hold a non-finite return or one <= -1, or q is
 *   not positive.
 * @example trackingError([0.1, -0.05, 0.02, 0.03], [0.05, -0.02, 0.01, 0.02], 4) // 0.0653197
 */
export function trackingError(
  returns: Series,
  benchmarkReturns: Series,
  periodsPerYear = TRADING_DAYS_PER_YEAR,
): number | null {
  assertReturns(returns, "trackingError");
  assertReturns(benchmarkReturns, "trackingError", "benchmarkReturns");
  assertSameLength(returns, benchmarkReturns, "trackingError", ["returns", "benchmarkReturns"]);
  assertPeriodsPerYear(periodsPerYear, "trackingError");
  if (returns.length < 2) return null;
  const active = new Float64Array(returns.length);
  for (let t = 0; t < returns.length; t++) active[t] = returns[t]! - benchmarkReturns[t]!;
  return Math.sqrt(sampleVariance(active) * periodsPerYear);
}
