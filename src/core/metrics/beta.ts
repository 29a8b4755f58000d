/**
 * @module core/metrics/beta
 * Beta of a return series against a benchmark's.
 */
import { assertReturns } from "./returns.js";
import { assertSameLength, type Series, sampleCovariance, sampleVariance } from "./statistics.js";

/**
 * Beta: the least-squares slope of the portfolio's returns on the benchmark's,
 * beta = Cov(r_p, r_b) / Var(r_b) (the market-model regression of Sharpe 1963, "A Simplified Model for
 * Portfolio Analysis", Management Science 9(2)), with sample moments. Null with fewer than two paired
 * returns or when the benchmark does not vary.
 * @throws {RangeError} when the series differ in length or hold a non-finite return or one <= -1.
 * @example beta([0.1, -0.05, 0.02, 0.03], [0.05, -0.02, 0.01, 0.02]) // 2.12 (0.0053 / 0.0025)
 */
export function beta(returns: Series, benchmarkReturns: Series): number | null {
  assertReturns(returns, "beta");
  assertReturns(benchmarkReturns, "beta", "benchmarkReturns");
  assertSameLength(returns, benchmarkReturns, "beta", ["returns", "benchmarkReturns"]);
  if (returns.length < 2) return null;
  const variance = sampleVariance(benchmarkReturns);
  if (!(variance > 0)) return null;
  return sampleCovariance(returns, benchmarkReturns) / variance;
}
