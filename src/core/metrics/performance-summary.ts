/**
 * @module core/metrics/performance-summary
 * Every performance statistic of a value series (and, optionally, of a benchmark over the same dates) in
 * one call: what the theme backtest and the account backtest report.
 */
import { beta } from "./beta.js";
import { maxDrawdown } from "./drawdown.js";
import { annualizedReturn, simpleReturns, TRADING_DAYS_PER_YEAR } from "./returns.js";
import { sharpeRatio } from "./sharpe.js";
import { assertSameLength, type Series } from "./statistics.js";
import { trackingError } from "./tracking-error.js";
import { annualizedVolatility } from "./volatility.js";

/** Options of {@link performanceSummary}. */
export interface PerformanceSummaryOptions {
  /** Benchmark values on the same dates as the portfolio values (positive, finite). */
  benchmarkValues?: Series;
  /** Annual risk-free rate for the Sharpe ratio (fraction). @default 0 */
  riskFreeRate?: number;
  /** Observations per year of the value series. @default TRADING_DAYS_PER_YEAR */
  periodsPerYear?: number;
}

/** Statistics of a value series; a statistic that needs more data than given is null. */
export interface PerformanceSummary {
  /** V_last / V_first - 1. */
  totalReturn: number;
  /** Compound annual growth rate, (V_last / V_first)^(q / n) - 1 over n returns; null without returns. */
  annualizedReturn: number | null;
  /** Sample sd of the returns x sqrt(q). */
  volatility: number | null;
  /** Annualized Sharpe ratio against `riskFreeRate`. */
  sharpe: number | null;
  /** Deepest peak-to-trough fall, non-positive (-0.25 = 25% below the previous high). */
  maxDrawdown: number;
  /** Benchmark statistics; present only with `benchmarkValues`. */
  benchmark?: {
    totalReturn: number;
    /** Portfolio total return minus benchmark total return (arithmetic difference). */
    relativeReturn: number;
    beta: number | null;
    trackingError: number | null;
  };
}

/**
 * Total and annualized return, volatility, Sharpe ratio and maximum drawdown of `values`, plus the
 * benchmark's total return, the relative return, beta and tracking error when `benchmarkValues` is given.
 * Formulas: see {@link annualizedReturn}, {@link annualizedVolatility}, {@link sharpeRatio},
 * {@link maxDrawdown}, {@link beta} and {@link trackingError}; every statistic uses the simple returns
 * V_t / V_{t-1} - 1.
 * @throws {RangeError} when a value is not finite or not positive, the series are empty or differ in
 *   length, or an option is out of range.
 * @example performanceSummary([1, 1.1, 1.045], { benchmarkValues: [1, 1.05, 1.029], periodsPerYear: 4 })
 */
export function performanceSummary(
  values: Series,
  options: PerformanceSummaryOptions = {},
): PerformanceSummary {
  if (values.length === 0) throw new RangeError("performanceSummary: values must not be empty");
  const q = options.periodsPerYear ?? TRADING_DAYS_PER_YEAR;
  const returns = simpleReturns(values);
  const summary: PerformanceSummary = {
    totalReturn: values[values.length - 1]! / values[0]! - 1,
    annualizedReturn: annualizedReturn(returns, q),
    volatility: annualizedVolatility(returns, q),
    sharpe: sharpeRatio(returns, { riskFreeRate: options.riskFreeRate ?? 0, periodsPerYear: q }),
    maxDrawdown: maxDrawdown(values),
  };
  const bench = options.benchmarkValues;
  if (bench !== undefined) {
    assertSameLength(values, bench, "performanceSummary", ["values", "benchmarkValues"]);
    const benchReturns = simpleReturns(bench);
    const benchTotal = bench[bench.length - 1]! / bench[0]! - 1;
    summary.benchmark = {
      totalReturn: benchTotal,
      relativeReturn: summary.totalReturn - benchTotal,
      beta: beta(returns, benchReturns),
      trackingError: trackingError(returns, benchReturns, q),
    };
  }
  return summary;
}
