/**
 * @module market/real-data/cap-weights
 * Month-end capitalization weights of a benchmark from daily closes and share counts:
 *
 *   cap_i(t) = close_i(t) x shares_i,   w_i(t) = cap_i(t) / sum_j cap_j(t)
 *
 * at the last trading day t of each month (a free-float-free version of the S&P 500's cap weighting). With
 * shares from a single late snapshot this has LOOK-AHEAD: a 2018 share count applied to 2013 prices ignores
 * buybacks and issuance in between, so early weights and market caps are approximations.
 */
import type { CharacteristicValue, IndexWeight, PriceBar } from "../../core/data/types.js";
import { indexAtOrBefore, monthEnds } from "../../core/dates.js";

/** Options of {@link monthEndCapWeights}. */
export interface CapWeightOptions {
  /**
   * A constituent whose last close is more than this many trading days before the month end is left out
   * (stale price); fewer (e.g. a short gap in the series) still counts with its last close.
   * @default 5
   */
  maxStaleDays?: number;
}

/** Result of {@link monthEndCapWeights}. */
export interface MonthEndCaps {
  /** The month ends (last trading day of each month of the bars' calendar, including the last, partial one). */
  dates: string[];
  /** Weights per month end, each date summing to 1. */
  weights: IndexWeight[];
  /** `market_cap` characteristic per constituent and month end (USD). */
  marketCaps: CharacteristicValue[];
}

/** Neumaier-compensated sum (Neumaier 1974), exact to about one rounding for long sums of positive caps. */
function compensatedSum(xs: readonly number[]): number {
  let s = 0;
  let c = 0;
  for (const x of xs) {
    const t = s + x;
    c += Math.abs(s) >= Math.abs(x) ? s - t + x : x - t + s;
    s = t;
  }
  return s + c;
}

/**
 * Cap weights and market caps at every month end of the bars' trading calendar, for the securities that
 * have a share count and a recent close.
 * @throws {RangeError} when a share count is not positive and finite.
 * @example
 * // Two stocks: caps 10 x 100 = 1000 and 20 x 50 = 1000 -> weights 0.5 and 0.5.
 */
export function monthEndCapWeights(
  bars: readonly PriceBar[],
  shares: ReadonlyMap<string, number>,
  identifier: string,
  options: CapWeightOptions = {},
): MonthEndCaps {
  const maxStale = options.maxStaleDays ?? 5;
  for (const [id, n] of shares)
    if (!(n > 0 && Number.isFinite(n)))
      throw new RangeError(`monthEndCapWeights: shares of ${id} must be positive, got ${n}`);
  const series = new Map<string, { dates: string[]; closes: number[] }>();
  const calendarSet = new Set<string>();
  for (const b of bars) {
    calendarSet.add(b.date);
    if (!shares.has(b.themeAssetId)) continue;
    let s = series.get(b.themeAssetId);
    if (s === undefined) {
      s = { dates: [], closes: [] };
      series.set(b.themeAssetId, s);
    }
    s.dates.push(b.date);
    s.closes.push(b.close);
  }
  for (const s of series.values()) {
    // Bars normally arrive sorted per series; sort defensively (by date) when they do not.
    if (s.dates.some((d, i) => i > 0 && d < s.dates[i - 1]!)) {
      const order = s.dates.map((_, i) => i).sort((a, b) => (s.dates[a]! < s.dates[b]! ? -1 : 1));
      s.dates = order.map((i) => s.dates[i]!);
      s.closes = order.map((i) => s.closes[i]!);
    }
  }
  const calendar = [...calendarSet].sort();
  const position = new Map<string, number>();
  for (let i = 0; i < calendar.length; i++) position.set(calendar[i]!, i);
  const ids = [...series.keys()].sort();
  const dates = monthEnds(calendar);
  const weights: IndexWeight[] = [];
  const marketCaps: CharacteristicValue[] = [];
  for (const t of dates) {
    const pt = position.get(t)!;
    const members: { id: string; cap: number }[] = [];
    for (const id of ids) {
      const s = series.get(id)!;
      const k = indexAtOrBefore(s.dates, t);
      if (k < 0 || pt - position.get(s.dates[k]!)! > maxStale) continue;
      members.push({ id, cap: s.closes[k]! * shares.get(id)! });
    }
    const total = compensatedSum(members.map((m) => m.cap));
    for (const m of members) {
      weights.push({ identifier, date: t, themeAssetId: m.id, weight: m.cap / total });
      marketCaps.push({ themeAssetId: m.id, date: t, name: "market_cap", value: m.cap });
    }
  }
  return { dates, weights, marketCaps };
}
