/**
 * @module core/backtest/market-data
 * The market an account backtest runs on, checked once and indexed for the simulator: raw closes (listing
 * currency), splits, cash dividends, FX, point-in-time characteristics and benchmark weights. Only the
 * simulator holds a {@link BacktestMarket}; policies see it through a {@link MarketView} served at their
 * decision date (cvxportfolio's `MarketData.serve(t)`).
 */
import {
  assertAscending,
  buildMarketPanel,
  dailyUsdReturns,
  type MarketPanel,
  type MarketPanelInput,
  type SpinOff,
} from "../data/market-panel.js";
import type { Currency } from "../data/types.js";
import { indexAtOrAfter } from "../dates.js";

export { type ColumnSpinOff, spinOffChildValue } from "../data/market-panel.js";

/** A security of the backtest universe (one column of the panel). */
export interface BacktestSecurity {
  /** `SYMBOL:MIC`. */
  readonly themeAssetId: string;
  /** Listing currency: closes, dividends and lots are in it. */
  readonly currency: Currency;
  /** Level-1 sector code of the shared taxonomy (10..60), or null when unknown. */
  readonly sector: number | null;
}

/**
 * Target weights over time (the benchmark the account tracks): `weights[j]` holds from `dates[j]` on, until
 * the next date. Point in time: a policy deciding on date t sees the latest vector dated on or before t.
 */
export interface BacktestBenchmark {
  /** What the weights are (e.g. `SYNTH500`, `SP500`, `account holdings`). */
  readonly name: string;
  /** Effective dates, strictly ascending. */
  readonly dates: readonly string[];
  /** One N-vector per date: weights >= 0 summing to 1 (columns of the universe). */
  readonly weights: readonly Float64Array[];
  /**
   * True for a capitalization-weighted index: between two weighting dates the weights drift with the
   * constituents' USD price relatives (split-adjusted, dividends excluded), as the index itself does; false for
   * fixed target weights. @default false
   */
  readonly drift?: boolean;
}

/** Characteristics observed on dates (month ends): `values[name][j * N + i]`, NaN = not available. */
export interface BacktestCharacteristics {
  readonly dates: readonly string[];
  readonly values: Readonly<Record<string, Float64Array>>;
}

/** A spin-off of the backtest's market (core/data/market-panel's {@link SpinOff}; docs/backtests.md, "Spin-offs"). */
export type BacktestSpinOff = SpinOff;

/**
 * What the caller provides (the service builds the market from the store's panel; tests build it by hand): the raw
 * rows of a market panel, whose dates may start before the backtest (history for risk models), with the universe
 * as `securities` (N columns), point-in-time characteristics and the benchmark. Dividends are credited on the
 * ex-date to shares held at the previous close; splits and spin-offs apply at the open of their date.
 */
export interface BacktestMarketInput extends Omit<MarketPanelInput, "listings" | "volume"> {
  /** The universe (N columns). */
  readonly securities: readonly BacktestSecurity[];
  readonly characteristics?: BacktestCharacteristics;
  readonly benchmark: BacktestBenchmark;
}

/** A corporate action indexed by column. */
export interface ColumnEvent {
  readonly column: number;
  /** Split ratio or dividend per share. */
  readonly value: number;
}

/**
 * The checked and indexed market (built by {@link prepareBacktestMarket}; read it through views): the market
 * panel's dates, ids, raw closes, FX and spin-offs, and the backtester's own indexes.
 */
export interface BacktestMarket
  extends Pick<MarketPanel, "dates" | "ids" | "column" | "close" | "fx" | "spinOffsAt"> {
  readonly securities: readonly BacktestSecurity[];
  /** Closes carried forward over gaps (NaN before an asset's first price). */
  readonly lastClose: Float64Array;
  /**
   * Daily total returns in USD, the market panel's ({@link dailyUsdReturns}): `(close_t + dividend_t + spun-off
   * value_t) x split_t / close_{t-1} x fx_{t-1} / fx_t - 1` (the spun-off value: ratio x the child's value per
   * share, {@link spinOffChildValue}); NaN when either close or rate is missing (row 0 is NaN).
   */
  readonly usdReturn: Float64Array;
  /**
   * Split-adjusted USD price level per column, `lastClose x cumulative split ratio / fx` (NaN before the first
   * price): the ratio of two dates is the price relative a cap weight drifts by.
   */
  readonly adjustedUsdPrice: Float64Array;
  /** Splits by date index (moved to the next trading date when dated on a holiday). */
  readonly splitsAt: ReadonlyMap<number, readonly ColumnEvent[]>;
  /** Dividends by ex-date index (moved to the next trading date when dated on a holiday). */
  readonly dividendsAt: ReadonlyMap<number, readonly ColumnEvent[]>;
  readonly characteristics: BacktestCharacteristics | null;
  readonly benchmark: BacktestBenchmark;
}

function eventsByDate(
  events: readonly { themeAssetId: string; date: string; value: number }[],
  dates: readonly string[],
  column: ReadonlyMap<string, number>,
  what: string,
): Map<number, ColumnEvent[]> {
  const out = new Map<number, ColumnEvent[]>();
  for (const e of events) {
    const i = column.get(e.themeAssetId);
    if (i === undefined) continue;
    if (!Number.isFinite(e.value) || e.value <= 0)
      throw new RangeError(
        `prepareBacktestMarket: ${what} of ${e.themeAssetId} on ${e.date} must be a positive finite number, got ${e.value}`,
      );
    const t = indexAtOrAfter(dates, e.date);
    // Events before the first date already happened; after the last, never within the data.
    if (t < 0 || e.date < dates[0]!) continue;
    const list = out.get(t) ?? [];
    const same = list.find((x) => x.column === i);
    // Two events of one asset moved onto the same date compose (ratios multiply, dividends add).
    if (same)
      list[list.indexOf(same)] = {
        column: i,
        value: what === "split ratio" ? same.value * e.value : same.value + e.value,
      };
    else list.push({ column: i, value: e.value });
    out.set(t, list);
  }
  return out;
}

/**
 * Checks the market once and builds the simulator's indexes (carried-forward closes, daily USD total returns,
 * FX by currency, corporate actions by date): the market panel of the raw rows ({@link buildMarketPanel}), then
 * {@link backtestMarketOf}.
 * @throws {RangeError} / {TypeError} for malformed input: lengths, unsorted or repeated dates or ids,
 *   non-positive or infinite closes, rates or weights, a non-USD listing without FX rates, a benchmark vector
 *   of the wrong length.
 * @example const market = prepareBacktestMarket({ dates, securities, close, benchmark });
 */
export function prepareBacktestMarket(input: BacktestMarketInput): BacktestMarket {
  const panel = buildMarketPanel({ ...input, listings: input.securities }, "prepareBacktestMarket");
  return backtestMarketOf(panel, input);
}

/**
 * The simulator's market over a {@link MarketPanel} (the service loads one from the store): its closes, FX and
 * daily USD total returns as they are, plus the backtester's own indexes (closes carried over gaps, split-adjusted
 * USD price levels, splits and dividends by date), the characteristics and the benchmark, checked.
 * @throws {RangeError} when `securities` are not the panel's columns in order, or as {@link prepareBacktestMarket}.
 */
export function backtestMarketOf(
  panel: MarketPanel,
  input: Pick<BacktestMarketInput, "securities" | "characteristics" | "benchmark">,
): BacktestMarket {
  const where = "prepareBacktestMarket";
  const { dates, close, column, fx, ids } = panel;
  const securities = input.securities;
  const T = dates.length;
  const N = securities.length;
  if (T === 0) throw new RangeError(`${where}: dates is empty`);
  if (N !== ids.length || securities.some((s, i) => s.themeAssetId !== ids[i]))
    throw new RangeError(`${where}: securities must be the panel's ${ids.length} columns, in order`);

  const splitsAt = eventsByDate(
    panel.splits.map((s) => ({ themeAssetId: s.themeAssetId, date: s.date, value: s.ratio })),
    dates,
    column,
    "split ratio",
  );
  const dividendsAt = eventsByDate(
    panel.dividends.map((d) => ({ themeAssetId: d.themeAssetId, date: d.exDate, value: d.amount })),
    dates,
    column,
    "dividend",
  );

  const lastClose = new Float64Array(T * N);
  for (let i = 0; i < N; i++) {
    let p = Number.NaN;
    for (let t = 0; t < T; t++) {
      const v = close[t * N + i]!;
      if (!Number.isNaN(v)) p = v;
      else if (!Number.isNaN(p)) {
        // A split during a gap changes the share count: carry the last close in today's shares.
        const ev = splitsAt.get(t)?.find((e) => e.column === i);
        if (ev) p /= ev.value;
      }
      lastClose[t * N + i] = p;
    }
  }

  const adjustedUsdPrice = new Float64Array(T * N);
  for (let i = 0; i < N; i++) {
    let cumulative = 1;
    const f = fx.get(securities[i]!.currency)!;
    for (let t = 0; t < T; t++) {
      const ev = splitsAt.get(t)?.find((e) => e.column === i);
      if (ev) cumulative *= ev.value;
      adjustedUsdPrice[t * N + i] = (lastClose[t * N + i]! * cumulative) / f[t]!;
    }
  }

  const characteristics = input.characteristics ?? null;
  if (characteristics) {
    assertAscending(characteristics.dates, `${where}: characteristics.dates`);
    for (const [name, values] of Object.entries(characteristics.values))
      if (values.length !== characteristics.dates.length * N)
        throw new RangeError(
          `${where}: characteristic ${name} must have ${characteristics.dates.length} x ${N} values`,
        );
  }
  const benchmark = input.benchmark;
  assertAscending(benchmark.dates, `${where}: benchmark.dates`);
  if (benchmark.dates.length !== benchmark.weights.length || benchmark.dates.length === 0)
    throw new RangeError(`${where}: benchmark needs one weight vector per date and at least one date`);
  benchmark.weights.forEach((w, j) => {
    if (w.length !== N)
      throw new RangeError(`${where}: benchmark weights of ${benchmark.dates[j]} must have ${N} values`);
    for (let i = 0; i < N; i++)
      if (!(w[i]! >= 0 && w[i]! < Number.POSITIVE_INFINITY))
        throw new RangeError(
          `${where}: benchmark weight of ${ids[i]} on ${benchmark.dates[j]} must be finite and >= 0, got ${w[i]}`,
        );
  });

  return {
    dates,
    securities,
    ids,
    column,
    close,
    lastClose,
    adjustedUsdPrice,
    usdReturn: dailyUsdReturns(panel),
    fx,
    splitsAt,
    dividendsAt,
    spinOffsAt: panel.spinOffsAt,
    characteristics,
    benchmark,
  };
}
