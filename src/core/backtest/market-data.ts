/**
 * @module core/backtest/market-data
 * The market an account backtest runs on, checked once and indexed for the simulator: raw closes (listing
 * currency), splits, cash dividends, FX, point-in-time characteristics and benchmark weights. Only the
 * simulator holds a {@link BacktestMarket}; policies see it through a {@link MarketView} served at their
 * decision date (cvxportfolio's `MarketData.serve(t)`).
 */
import type { Currency, Dividend, Split } from "../data/types.js";
import { indexAtOrAfter } from "../dates.js";

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

/**
 * A spin-off (docs/backtests.md, "Spin-offs"): on `date` (the distribution date, the first day the parent trades
 * without the child), every parent lot held at the open keeps (1 - f) of its basis and gives a child lot f of it,
 * ratio x its shares, with its acquisition date and holding period (core/ledger's `spinOffLot`).
 */
export interface BacktestSpinOff {
  /** Id of the action (child lots are named `${parentLot}:${id}`). */
  readonly id: string;
  /** The parent. */
  readonly themeAssetId: string;
  readonly childAssetId: string;
  readonly date: string;
  /** Child shares per parent share, > 0. */
  readonly distributionRatio: number;
  /** Fraction of the parent's basis allocated to the child, 0 < f < 1. */
  readonly basisFraction: number;
  /**
   * Value of one child share on the distribution date (listing currency), used when the child has no close that
   * day in the market: the child is then sold at this price. @default the FMV relation
   * parentClose x f / ((1 - f) x ratio)
   */
  readonly childPrice?: number;
}

/** What the caller provides (the service builds it from the store; tests build it by hand). */
export interface BacktestMarketInput {
  /** Trading dates, strictly ascending (T); may start before the backtest (history for risk models). */
  readonly dates: readonly string[];
  /** The universe (N columns). */
  readonly securities: readonly BacktestSecurity[];
  /** T x N raw closes in the listing currency, `close[t * N + i]`; NaN = no price that day. */
  readonly close: Float64Array;
  /** Splits (ratio = new shares per old share), effective at the open of their date. */
  readonly splits?: readonly Split[];
  /** Cash dividends per share, credited on the ex-date to shares held at the previous close. */
  readonly dividends?: readonly Dividend[];
  /** Spin-offs, applied at the open of their date (moved to the next trading date when dated on a holiday). */
  readonly spinOffs?: readonly BacktestSpinOff[];
  /** Units of each non-USD currency per USD on each date (length T); NaN = carry the last rate forward. */
  readonly fxPerUsd?: Readonly<Partial<Record<Currency, Float64Array>>>;
  readonly characteristics?: BacktestCharacteristics;
  readonly benchmark: BacktestBenchmark;
}

/** A corporate action indexed by column. */
export interface ColumnEvent {
  readonly column: number;
  /** Split ratio or dividend per share. */
  readonly value: number;
}

/** A spin-off indexed by column. */
export interface ColumnSpinOff {
  readonly id: string;
  /** Column of the parent. */
  readonly column: number;
  readonly childAssetId: string;
  /** Column of the child, or null when the child is not in the universe. */
  readonly childColumn: number | null;
  readonly ratio: number;
  readonly basisFraction: number;
  /** Given value of one child share (see {@link BacktestSpinOff.childPrice}), or null. */
  readonly childPrice: number | null;
}

/** The checked and indexed market (built by {@link prepareBacktestMarket}; read it through views). */
export interface BacktestMarket {
  readonly dates: readonly string[];
  readonly securities: readonly BacktestSecurity[];
  readonly ids: readonly string[];
  /** Column of each theme_asset_id. */
  readonly column: ReadonlyMap<string, number>;
  /** Raw closes, as given. */
  readonly close: Float64Array;
  /** Closes carried forward over gaps (NaN before an asset's first price). */
  readonly lastClose: Float64Array;
  /**
   * Daily total returns in USD, `(close_t + dividend_t + spun-off value_t) x split_t / close_{t-1} x fx_{t-1} / fx_t
   * - 1` (the spun-off value: ratio x the child's value per share, {@link spinOffChildValue});
   * NaN when either close is missing (row 0 is NaN).
   */
  readonly usdReturn: Float64Array;
  /**
   * Split-adjusted USD price level per column, `lastClose x cumulative split ratio / fx` (NaN before the first
   * price): the ratio of two dates is the price relative a cap weight drifts by.
   */
  readonly adjustedUsdPrice: Float64Array;
  /** Units per USD of every currency on every date (USD = 1), carried forward; NaN before the first rate. */
  readonly fx: ReadonlyMap<Currency, Float64Array>;
  /** Splits by date index (moved to the next trading date when dated on a holiday). */
  readonly splitsAt: ReadonlyMap<number, readonly ColumnEvent[]>;
  /** Dividends by ex-date index (moved to the next trading date when dated on a holiday). */
  readonly dividendsAt: ReadonlyMap<number, readonly ColumnEvent[]>;
  /** Spin-offs by distribution-date index (moved to the next trading date when dated on a holiday). */
  readonly spinOffsAt: ReadonlyMap<number, readonly ColumnSpinOff[]>;
  readonly characteristics: BacktestCharacteristics | null;
  readonly benchmark: BacktestBenchmark;
}

function assertAscending(dates: readonly string[], where: string): void {
  for (let t = 1; t < dates.length; t++)
    if (!(dates[t - 1]! < dates[t]!))
      throw new RangeError(`${where} must be strictly ascending (${dates[t - 1]}, ${dates[t]})`);
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
 * FX by currency, corporate actions by date).
 * @throws {RangeError} / {TypeError} for malformed input: lengths, unsorted or repeated dates or ids,
 *   non-positive or infinite closes, rates or weights, a non-USD listing without FX rates, a benchmark vector
 *   of the wrong length.
 * @example const market = prepareBacktestMarket({ dates, securities, close, benchmark });
 */
export function prepareBacktestMarket(input: BacktestMarketInput): BacktestMarket {
  const where = "prepareBacktestMarket";
  const { dates, securities, close } = input;
  const T = dates.length;
  const N = securities.length;
  if (T === 0) throw new RangeError(`${where}: dates is empty`);
  assertAscending(dates, `${where}: dates`);
  if (!(close instanceof Float64Array) || close.length !== T * N)
    throw new RangeError(`${where}: close must be a Float64Array of ${T} x ${N} = ${T * N} values`);
  const ids = securities.map((s) => s.themeAssetId);
  const column = new Map<string, number>();
  ids.forEach((id, i) => {
    if (column.has(id)) throw new RangeError(`${where}: security ${id} appears twice`);
    column.set(id, i);
  });
  for (let k = 0; k < close.length; k++) {
    const v = close[k]!;
    if (!Number.isNaN(v) && !(v > 0 && v < Number.POSITIVE_INFINITY))
      throw new RangeError(
        `${where}: close of ${ids[k % N]} on ${dates[Math.floor(k / N)]} must be positive and finite (NaN = no price), got ${v}`,
      );
  }

  const fx = new Map<Currency, Float64Array>();
  fx.set("USD", new Float64Array(T).fill(1));
  for (const s of securities) {
    if (s.currency === "USD" || fx.has(s.currency)) continue;
    const given = input.fxPerUsd?.[s.currency];
    if (given === undefined)
      throw new RangeError(
        `${where}: ${s.themeAssetId} trades in ${s.currency} but no ${s.currency} rates were given`,
      );
    if (given.length !== T) throw new RangeError(`${where}: ${s.currency} rates must have ${T} values`);
    const filled = new Float64Array(T);
    let lastRate = Number.NaN;
    for (let t = 0; t < T; t++) {
      const v = given[t]!;
      if (!Number.isNaN(v)) {
        if (!(v > 0 && v < Number.POSITIVE_INFINITY))
          throw new RangeError(`${where}: ${s.currency} rate on ${dates[t]} must be positive, got ${v}`);
        lastRate = v;
      }
      filled[t] = lastRate;
    }
    fx.set(s.currency, filled);
  }

  const splitsAt = eventsByDate(
    (input.splits ?? []).map((s) => ({ themeAssetId: s.themeAssetId, date: s.date, value: s.ratio })),
    dates,
    column,
    "split ratio",
  );
  const dividendsAt = eventsByDate(
    (input.dividends ?? []).map((d) => ({ themeAssetId: d.themeAssetId, date: d.exDate, value: d.amount })),
    dates,
    column,
    "dividend",
  );

  const spinOffsAt = new Map<number, ColumnSpinOff[]>();
  for (const e of input.spinOffs ?? []) {
    const i = column.get(e.themeAssetId);
    if (i === undefined) continue;
    if (!(e.distributionRatio > 0 && Number.isFinite(e.distributionRatio)))
      throw new RangeError(
        `${where}: spin-off ${e.id} of ${e.themeAssetId} must have a positive finite ratio, got ${e.distributionRatio}`,
      );
    if (!(e.basisFraction > 0 && e.basisFraction < 1))
      throw new RangeError(
        `${where}: spin-off ${e.id} of ${e.themeAssetId} must have a basis fraction strictly between 0 and 1, got ${e.basisFraction}`,
      );
    if (e.childPrice !== undefined && !(e.childPrice > 0 && Number.isFinite(e.childPrice)))
      throw new RangeError(
        `${where}: spin-off ${e.id} of ${e.themeAssetId} must have a positive finite child price, got ${e.childPrice}`,
      );
    if (e.childAssetId === e.themeAssetId)
      throw new RangeError(`${where}: spin-off ${e.id} names ${e.themeAssetId} as its own child`);
    const t = indexAtOrAfter(dates, e.date);
    if (t < 0 || e.date < dates[0]!) continue;
    const list = spinOffsAt.get(t) ?? [];
    list.push({
      id: e.id,
      column: i,
      childAssetId: e.childAssetId,
      childColumn: column.get(e.childAssetId) ?? null,
      ratio: e.distributionRatio,
      basisFraction: e.basisFraction,
      childPrice: e.childPrice ?? null,
    });
    spinOffsAt.set(t, list);
  }

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

  const usdReturn = new Float64Array(T * N).fill(Number.NaN);
  const ratio = new Float64Array(N);
  const dividend = new Float64Array(N);
  for (let t = 1; t < T; t++) {
    ratio.fill(1);
    dividend.fill(0);
    for (const e of splitsAt.get(t) ?? []) ratio[e.column] = e.value;
    for (const e of dividendsAt.get(t) ?? []) dividend[e.column] = e.value;
    for (const e of spinOffsAt.get(t) ?? []) {
      const v = spinOffChildValue(e, close, N, t);
      if (!Number.isNaN(v)) dividend[e.column]! += e.ratio * v;
    }
    for (let i = 0; i < N; i++) {
      const p0 = close[(t - 1) * N + i]!;
      const p1 = close[t * N + i]!;
      if (Number.isNaN(p0) || Number.isNaN(p1)) continue;
      const f = fx.get(securities[i]!.currency)!;
      const fxMove = f[t - 1]! / f[t]!;
      const r = ((p1 + dividend[i]!) * ratio[i]! * fxMove) / p0 - 1;
      if (Number.isFinite(r)) usdReturn[t * N + i] = r;
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
    usdReturn,
    fx,
    splitsAt,
    dividendsAt,
    spinOffsAt,
    characteristics,
    benchmark,
  };
}

/**
 * Value of one child share on the distribution date `t`, in the parent's listing currency: the child's close on t
 * when the child is in the universe and priced that day (assumed to trade in the parent's currency), else the
 * spin-off's given `childPrice`, else the fair-market-value relation f = ratio x child / (parent + ratio x child)
 * solved for the child: parentClose_t x f / ((1 - f) x ratio). NaN without a parent close on t.
 */
export function spinOffChildValue(e: ColumnSpinOff, close: Float64Array, n: number, t: number): number {
  if (e.childColumn !== null) {
    const c = close[t * n + e.childColumn]!;
    if (!Number.isNaN(c)) return c;
  }
  if (e.childPrice !== null) return e.childPrice;
  const p = close[t * n + e.column]!;
  return (p * e.basisFraction) / ((1 - e.basisFraction) * e.ratio);
}
