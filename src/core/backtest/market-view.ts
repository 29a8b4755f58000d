/**
 * @module core/backtest/market-view
 * What a policy sees of the market: the data dated on or before its decision date, nothing after
 * (cvxportfolio's `MarketData.serve(t)`). The view holds the market in a private field; every accessor reads
 * rows <= t, and the one accessor that takes a date throws {@link LookAheadError} for a later date. Arrays
 * handed out are copies, so a policy cannot reach the rest of the panel through them either.
 */
import type { Currency } from "../data/types.js";
import { DataError } from "../errors.js";
import { LookAheadError } from "./errors.js";
import type { BacktestMarket, BacktestSecurity } from "./market-data.js";

function latestAtOrBefore(dates: readonly string[], date: string): number {
  let lo = 0;
  let hi = dates.length - 1;
  let ans = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (dates[mid]! <= date) {
      ans = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return ans;
}

/** Market data served at one decision date. */
export class MarketView {
  readonly #market: BacktestMarket;
  readonly #t: number;
  /** The decision date (close of this day is the latest price a policy may use). */
  readonly date: string;
  /**
   * The trading date on which orders decided now execute (the next trading date of the calendar; exchange
   * calendars are published in advance, so this is not market data). Null on the last date.
   */
  readonly executionDate: string | null;

  /** Serves `market` at date index `t`. Only the simulator creates views. */
  constructor(market: BacktestMarket, t: number) {
    if (!Number.isInteger(t) || t < 0 || t >= market.dates.length)
      throw new RangeError(`MarketView: date index ${t} is outside 0..${market.dates.length - 1}`);
    this.#market = market;
    this.#t = t;
    this.date = market.dates[t]!;
    this.executionDate = market.dates[t + 1] ?? null;
  }

  /** Number of securities (columns). */
  get size(): number {
    return this.#market.ids.length;
  }

  /** theme_asset_ids of the columns. */
  get ids(): readonly string[] {
    return this.#market.ids;
  }

  /** The security of column `i`. */
  security(i: number): BacktestSecurity {
    return this.#market.securities[i]!;
  }

  /** Latest close of column `i` on or before the view date (listing currency); NaN before its first price. */
  price(i: number): number {
    return this.#market.lastClose[this.#t * this.size + i]!;
  }

  /** True when column `i` has a close on the view date itself (it traded today). */
  pricedToday(i: number): boolean {
    return !Number.isNaN(this.#market.close[this.#t * this.size + i]!);
  }

  /**
   * Units of `currency` per USD on the view date (1 for USD).
   * @throws {DataError} when no rate of that currency is known yet.
   */
  fxPerUsd(currency: Currency): number {
    const series = this.#market.fx.get(currency);
    const v = series?.[this.#t];
    if (v === undefined || Number.isNaN(v))
      throw new DataError(`No ${currency} per USD rate on or before ${this.date}; import FX rates for it.`, {
        code: "missing_fx",
      });
    return v;
  }

  /** Latest close of column `i` in USD (NaN before its first price). */
  priceUsd(i: number): number {
    const p = this.price(i);
    if (Number.isNaN(p)) return p;
    return p / this.fxPerUsd(this.security(i).currency);
  }

  /**
   * Daily USD total returns of the `lookback` trading days ending on the view date (fewer at the start of the
   * data), oldest first, `returns[s * size + i]`; NaN = not observed. A copy.
   */
  returns(lookback: number): { periods: number; returns: Float64Array } {
    if (!Number.isInteger(lookback) || lookback < 1)
      throw new RangeError(`MarketView.returns: lookback must be a positive integer, got ${lookback}`);
    // Row 0 of the market has no return; start at 1.
    const from = Math.max(1, this.#t - lookback + 1);
    const periods = this.#t - from + 1;
    const n = this.size;
    return { periods, returns: this.#market.usdReturn.slice(from * n, (this.#t + 1) * n) };
  }

  /**
   * Close of column `i` on `date` (or the latest before it), for policies that keep their own history.
   * @throws {LookAheadError} when `date` is after the view date.
   */
  closeOn(date: string, i: number): number {
    if (date > this.date) throw new LookAheadError(this.date, date, `the close of ${this.ids[i]}`);
    const t = latestAtOrBefore(this.#market.dates, date);
    return t < 0 ? Number.NaN : this.#market.lastClose[t * this.size + i]!;
  }

  /**
   * Benchmark (target) weights in force on the view date: the latest vector dated on or before it; for a
   * drifting (cap-weighted) benchmark, moved by each constituent's split-adjusted USD price relative since that
   * date and renormalized, w_i(t) = w_i(s) g_i / sum_j w_j(s) g_j. A copy.
   * @throws {DataError} when the benchmark has no weights dated on or before the view date.
   */
  benchmarkWeights(): Float64Array {
    const b = this.#market.benchmark;
    const j = latestAtOrBefore(b.dates, this.date);
    if (j < 0)
      throw new DataError(
        `The benchmark ${b.name} has no weights on or before ${this.date} (first weights: ${b.dates[0]}).`,
        { code: "missing_benchmark_weights" },
      );
    const w = Float64Array.from(b.weights[j]!);
    if (b.drift !== true) return w;
    const s = latestAtOrBefore(this.#market.dates, b.dates[j]!);
    if (s < 0 || s === this.#t) return w;
    const n = this.size;
    const level = this.#market.adjustedUsdPrice;
    let sum = 0;
    for (let i = 0; i < n; i++) {
      if (w[i] === 0) continue;
      const g = level[this.#t * n + i]! / level[s * n + i]!;
      // A constituent without a price at the weighting date keeps its weight.
      if (Number.isFinite(g) && g > 0) w[i]! *= g;
      sum += w[i]!;
    }
    if (sum > 0) for (let i = 0; i < n; i++) w[i]! /= sum;
    return w;
  }

  /** Name of the benchmark the account tracks. */
  get benchmarkName(): string {
    return this.#market.benchmark.name;
  }

  /**
   * Point-in-time values of a characteristic: for each column, its latest observation dated on or before the
   * view date (NaN when there is none). Null when the market carries no such characteristic.
   */
  characteristic(name: string): Float64Array | null {
    const c = this.#market.characteristics;
    const values = c?.values[name];
    if (!c || !values) return null;
    const n = this.size;
    const out = new Float64Array(n).fill(Number.NaN);
    const last = latestAtOrBefore(c.dates, this.date);
    for (let i = 0; i < n; i++) {
      for (let j = last; j >= 0; j--) {
        const v = values[j * n + i]!;
        if (!Number.isNaN(v)) {
          out[i] = v;
          break;
        }
      }
    }
    return out;
  }
}
