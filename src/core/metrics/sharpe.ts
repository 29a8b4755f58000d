/**
 * @module core/metrics/sharpe
 * The ex post Sharpe ratio of a return series against a risk-free rate.
 */
import { assertPeriodsPerYear, assertReturns, periodicRate, TRADING_DAYS_PER_YEAR } from "./returns.js";
import { mean, type Series, sampleVariance } from "./statistics.js";

/** Options of {@link sharpeRatio}. */
export interface SharpeRatioOptions {
  /** Annual risk-free rate (a fraction, 0.02 = 2%), turned into a per-period rate by (1 + R)^(1/q) - 1. @default 0 */
  riskFreeRate?: number;
  /** q, the number of return periods in a year. @default TRADING_DAYS_PER_YEAR */
  periodsPerYear?: number;
}

/**
 * Annualized ex post Sharpe ratio (Sharpe 1994, "The Sharpe Ratio", Journal of Portfolio Management 21(1)):
 *
 *   S = mean(d) / sd(d) * sqrt(q),   d_t = r_t - r_f,   r_f = (1 + R)^(1/q) - 1,
 *
 * with the sample standard deviation (n - 1) and the sqrt(q) annualization of Lo (2002, "The Statistics
 * of Sharpe Ratios", Financial Analysts Journal 58(4)), which assumes uncorrelated returns. Null with
 * fewer than two returns or when the excess returns do not vary.
 * @throws {RangeError} when a return or the rate is not finite, a return is <= -1 or q is not positive.
 * @example sharpeRatio([0.1, -0.05, 0.02, 0.03], { riskFreeRate: 0.04060401, periodsPerYear: 4 }) // 0.48881
 */
export function sharpeRatio(returns: Series, options: SharpeRatioOptions = {}): number | null {
  const q = options.periodsPerYear ?? TRADING_DAYS_PER_YEAR;
  assertReturns(returns, "sharpeRatio");
  assertPeriodsPerYear(q, "sharpeRatio");
  const rf = periodicRate(options.riskFreeRate ?? 0, q);
  if (returns.length < 2) return null;
  const excess = new Float64Array(returns.length);
  for (let t = 0; t < returns.length; t++) excess[t] = returns[t]! - rf;
  const variance = sampleVariance(excess);
  // A constant series has no risk to reward; rounding can leave a tiny positive variance, hence the scale test.
  if (!(variance > Number.EPSILON * Number.EPSILON * Math.max(1, mean(excess) ** 2))) return null;
  return (mean(excess) / Math.sqrt(variance)) * Math.sqrt(q);
}
