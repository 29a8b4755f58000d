/**
 * @module core/themes/rebalance-schedule
 * Rebalance dates of a theme backtest: the first trading date of the window (inception) and the last trading
 * date of every calendar month, quarter, half-year or year that ends inside the window.
 */
import type { RebalancingPeriod } from "./definition.js";

/** Calendar months per rebalancing period. */
export const MONTHS_PER_PERIOD: Readonly<Record<RebalancingPeriod, number>> = Object.freeze({
  MONTHLY: 1,
  QUARTERLY: 3,
  SEMI_ANNUALLY: 6,
  ANNUALLY: 12,
});

/** The calendar period (e.g. year x 4 + quarter) a `YYYY-MM-DD` date falls in. */
function periodKey(date: string, months: number): number {
  const year = Number(date.slice(0, 4));
  const month = Number(date.slice(5, 7));
  return year * 12 + Math.floor((month - 1) / months);
}

/**
 * Indices (into the ascending trading dates of the window) of the rebalance dates: 0 (inception), then each
 * date that is the last of its calendar period (Mar/Jun/Sep/Dec for QUARTERLY, Jun/Dec for SEMI_ANNUALLY,
 * Dec for ANNUALLY) because the next trading date starts a new period. The window's last date is never a
 * rebalance date: nothing would be held after it, and whether it ends its period is unknown.
 * @throws {RangeError} on an unknown period or dates that are not ascending.
 * @example rebalanceIndices(["2024-01-30", "2024-01-31", "2024-02-01", "2024-02-29", "2024-03-01"], "MONTHLY") // [0, 1, 3]
 */
export function rebalanceIndices(dates: readonly string[], period: RebalancingPeriod): number[] {
  const months = MONTHS_PER_PERIOD[period];
  if (months === undefined) {
    throw new RangeError(
      `rebalanceIndices: period must be one of ${Object.keys(MONTHS_PER_PERIOD).join(", ")}`,
    );
  }
  const out: number[] = [];
  if (dates.length === 0) return out;
  out.push(0);
  for (let t = 0; t + 1 < dates.length; t++) {
    if (!(dates[t]! < dates[t + 1]!)) {
      throw new RangeError(
        `rebalanceIndices: dates must be strictly ascending (${dates[t]}, ${dates[t + 1]})`,
      );
    }
    if (periodKey(dates[t]!, months) !== periodKey(dates[t + 1]!, months) && t > 0) out.push(t);
  }
  return out;
}
