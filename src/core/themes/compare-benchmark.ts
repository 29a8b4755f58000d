/**
 * @module core/themes/compare-benchmark
 * The benchmark side of a theme backtest: the benchmark's returns over the theme's periods and the summary
 * statistics (returns, beta, Sharpe, volatility, maximum drawdown, tracking error) over the dates the
 * benchmark covers.
 */
import { performanceSummary, TRADING_DAYS_PER_YEAR } from "../metrics/index.js";
import type { AlignedSeries } from "./align-series.js";

/** Options of {@link compareWithBenchmark}. */
export interface CompareWithBenchmarkOptions {
  /** Annual risk-free rate of the Sharpe ratio (fraction). @default 0 */
  riskFreeRate?: number;
  /** Observations per year of the daily values. @default TRADING_DAYS_PER_YEAR */
  periodsPerYear?: number;
}

/** The comparison of a theme's values with a benchmark over their common dates. */
export interface BenchmarkComparison {
  /** First and last date indices both series cover; the statistics use this span only. */
  first: number;
  last: number;
  /** True when the benchmark covers every date of the window. */
  coversWindow: boolean;
  /** Benchmark return of each theme period whose end is covered (from max(period start, first)). */
  periodReturns: { end: number; value: number }[];
  /** Theme return V_last / V_first - 1 over the covered span. */
  portfolioReturn: number;
  /** Benchmark return B_last / B_first - 1 over the covered span. */
  benchmarkReturn: number;
  /** portfolioReturn - benchmarkReturn. */
  relativeReturn: number;
  /** Of the theme's daily returns against the benchmark's. */
  beta: number | null;
  /** Of the theme's daily returns, annualized, against the risk-free rate. */
  sharpe: number | null;
  /** Of the theme's daily returns, annualized. */
  volatility: number | null;
  /** Of the theme's daily values, non-positive. */
  maxDrawdown: number;
  /** Of the theme's daily returns minus the benchmark's, annualized. */
  trackingError: number | null;
}

/**
 * Compares theme values with an aligned benchmark (see `alignSeries`). Returns null when the benchmark covers
 * fewer than two dates of the window (nothing to compare).
 * @param values theme values on the window's dates.
 * @param periodEnds the theme's period end indices (see `simulateTheme`).
 * @throws {RangeError} when `values` and the benchmark differ in length or a value is not positive.
 * @example compareWithBenchmark(run.values, run.periodEnds, alignSeries(dates, levelDates, levels), { riskFreeRate: 0.02 })
 */
export function compareWithBenchmark(
  values: Float64Array,
  periodEnds: readonly number[],
  benchmark: AlignedSeries,
  options: CompareWithBenchmarkOptions = {},
): BenchmarkComparison | null {
  if (benchmark.values.length !== values.length) {
    throw new RangeError(
      `compareWithBenchmark: ${values.length} values but the benchmark is aligned to ${benchmark.values.length} dates`,
    );
  }
  const { first, last } = benchmark;
  if (first < 0 || last - first < 1) return null;
  const b = benchmark.values;
  const periodReturns: { end: number; value: number }[] = [];
  let start = 0;
  for (const end of periodEnds) {
    const from = Math.max(start, first);
    if (end >= first && end <= last && from < end) periodReturns.push({ end, value: b[end]! / b[from]! - 1 });
    start = end;
  }
  const s = performanceSummary(values.subarray(first, last + 1), {
    benchmarkValues: b.subarray(first, last + 1),
    riskFreeRate: options.riskFreeRate ?? 0,
    periodsPerYear: options.periodsPerYear ?? TRADING_DAYS_PER_YEAR,
  });
  return {
    first,
    last,
    coversWindow: first === 0 && last === values.length - 1,
    periodReturns,
    portfolioReturn: s.totalReturn,
    benchmarkReturn: s.benchmark!.totalReturn,
    relativeReturn: s.benchmark!.relativeReturn,
    beta: s.benchmark!.beta,
    sharpe: s.sharpe,
    volatility: s.volatility,
    maxDrawdown: s.maxDrawdown,
    trackingError: s.benchmark!.trackingError,
  };
}
