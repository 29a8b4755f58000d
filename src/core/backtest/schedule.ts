/**
 * @module core/backtest/schedule
 * The calendar of an account backtest: rebalance (decision) dates, execution dates and tax year ends.
 *
 * Monthly rebalancing on the start date's day of the month: r_k = first trading date on or after
 * addMonths(start, k), for k = 0, 1, ... while r_k is before the last trading date of the window. Orders decided
 * at the close of r_k execute at the close of the next trading date (one-day lag). Period k runs from the close
 * of r_k to the close of r_{k+1} (the last period ends on the last trading date). 2013-02-08..2018-02-07 gives
 * 60 periods, as five years of monthly rebalancing should.
 */
import { addMonths, indexAtOrAfter, indexAtOrBefore } from "../dates.js";

/** Rebalance cadences of an account backtest. */
export type BacktestRebalancePeriod = "MONTHLY";

/** Date indices (into the market's trading dates) of a backtest. */
export interface BacktestSchedule {
  /** First trading date on or after the start date (r_0; the starting value is measured at its close). */
  readonly first: number;
  /** Last trading date on or before the end date. */
  readonly last: number;
  /** Rebalance dates r_0 < r_1 < ... < r_{K-1} < last. */
  readonly rebalances: readonly number[];
  /** Period ends: r_1, ..., r_{K-1}, last (one per rebalance). */
  readonly periodEnds: readonly number[];
  /** Last trading date of each calendar year, for first <= t < last (tax settlement dates). */
  readonly yearEnds: readonly number[];
}

/**
 * Builds the schedule of a backtest over the trading `dates` (ascending).
 * @throws {RangeError} when the window holds fewer than two trading dates or the period is unknown.
 * @example backtestSchedule(dates, "2013-02-08", "2018-02-07").rebalances.length // 60 on the S&P 500 calendar
 */
export function backtestSchedule(
  dates: readonly string[],
  startDate: string,
  endDate: string,
  period: BacktestRebalancePeriod = "MONTHLY",
): BacktestSchedule {
  if (period !== "MONTHLY")
    throw new RangeError(`backtestSchedule: rebalance period must be MONTHLY, got ${String(period)}`);
  const first = indexAtOrAfter(dates, startDate);
  const last = indexAtOrBefore(dates, endDate);
  if (first < 0 || last < 0 || last <= first)
    throw new RangeError(
      `backtestSchedule: the window ${startDate} to ${endDate} holds fewer than two trading dates`,
    );
  const rebalances: number[] = [];
  for (let k = 0; ; k++) {
    // Always from the start date, so that a 31st does not drift to the 28th after February.
    const t = indexAtOrAfter(dates, addMonths(dates[first]!, k));
    if (t < 0 || t >= last) break;
    if (rebalances.length === 0 || t > rebalances[rebalances.length - 1]!) rebalances.push(t);
  }
  const periodEnds = [...rebalances.slice(1), last];
  const yearEnds: number[] = [];
  for (let t = first; t < last; t++) {
    if (dates[t]!.slice(0, 4) !== dates[t + 1]!.slice(0, 4)) yearEnds.push(t);
  }
  return { first, last, rebalances, periodEnds, yearEnds };
}
