/**
 * @module core/metrics/volatility
 * Annualized volatility of a return series.
 */
import { assertPeriodsPerYear, assertReturns, TRADING_DAYS_PER_YEAR } from "./returns.js";
import { type Series, sampleVariance } from "./statistics.js";

/**
 * Annualized volatility: the sample standard deviation of the returns (n - 1 denominator) times
 * sqrt(q) for q periods a year, the square-root-of-time rule that assumes uncorrelated returns
 * (Hull, "Options, Futures, and Other Derivatives", 10th ed., section 15.4). Null with fewer than two
 * returns.
 * @param periodsPerYear q. @default TRADING_DAYS_PER_YEAR
 * @throws {RangeError} when a return is not finite or <= -1, or `periodsPerYear` is not positive.
 * @example annualizedVolatility([0.1, -0.05, 0.02, 0.03], 4) // 0.12274635 (sd 0.0613732 x 2)
 */
export function annualizedVolatility(returns: Series, periodsPerYear = TRADING_DAYS_PER_YEAR): number | null {
  assertReturns(returns, "annualizedVolatility");
  assertPeriodsPerYear(periodsPerYear, "annualizedVolatility");
  if (returns.length < 2) return null;
  return Math.sqrt(sampleVariance(returns) * periodsPerYear);
}
