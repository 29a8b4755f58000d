/**
 * @module core/data/market-panel
 * The point-in-time market panel (issue 17 item 2): dates x assets of raw closes, volumes, FX and daily USD total
 * returns in one row-major layout (`x[t * N + i]`, as core/data/panel's PricePanel), built once from raw rows. The optimizer's
 * risk history, the account backtester's market and the theme backtest read their returns from it, so a total
 * return is computed by one rule ({@link totalReturnPanel}) in one place. `service/market-panel.ts` loads it from a
 * store; nothing dated after the panel's last date enters it.
 */

import { indexAtOrAfter } from "../dates.js";
import type { Currency, Dividend, Split } from "./types.js";

/** Inputs of {@link totalReturnPanel}. Arrays of length N align with `ids`. */
export interface TotalReturnPanelInput {
  /** Trading dates, ascending (T). */
  dates: readonly string[];
  /** theme_asset_ids (N). */
  ids: readonly string[];
  /** Raw (not split-adjusted) closes in the listing currency, row-major `close[t * N + i]`, NaN = no price. */
  close: Float64Array;
  /** Splits effective on their date (each old share becomes `ratio` shares). @default [] */
  splits?: readonly Split[];
  /** Cash dividends per share going ex on `exDate`, in the listing currency. @default [] */
  dividends?: readonly Dividend[];
  /**
   * Per security: units of its currency per USD on each date (T values, NaN = unknown), or undefined for a
   * USD listing. @default every security in USD
   */
  fxPerUsd?: readonly (Float64Array | undefined)[];
}

/** Daily USD growth factors of a set of securities. */
export interface TotalReturnPanel {
  dates: readonly string[];
  ids: readonly string[];
  /**
   * `growth[t * N + i]`: USD value on date t of what was worth 1 USD at the previous priced date of security
   * i. 1 where the security has no price on t (its value is carried at the last close) and on its first
   * priced date.
   */
  growth: Float64Array;
  /** `priced[t * N + i]` = 1 when security i has a close (and a known FX rate) on date t. */
  priced: Uint8Array;
}

/**
 * Total-return growth factors in USD. Between consecutive priced dates s < t of a security (t - s > 1 when
 * prices are missing in between):
 *
 *   g_t = ((n P_t + D) / x_t) / (P_s / x_s)
 *
 * where P is the raw close, x the units of the listing currency per USD, n the product of the split ratios
 * effective in (s, t] (one share held on s has become n shares), and D the dividends received in (s, t]: on
 * each ex-date the amount per share times the shares held then (splits apply before a dividend of the same
 * day). Dividends are reinvested at the close of t (total return). Events dated on a non-trading day count on
 * the next trading date.
 * @throws {RangeError} when array lengths do not match T and N.
 * @example totalReturnPanel({ dates, ids, close, splits, dividends }).growth[t * ids.length + i]
 */
export function totalReturnPanel(input: TotalReturnPanelInput): TotalReturnPanel {
  const { dates, ids, close } = input;
  const T = dates.length;
  const N = ids.length;
  if (close.length !== T * N) {
    throw new RangeError(
      `totalReturnPanel: close has ${close.length} values, expected ${T} x ${N} = ${T * N}`,
    );
  }
  const fx = input.fxPerUsd ?? [];
  if (input.fxPerUsd !== undefined && fx.length !== N) {
    throw new RangeError(`totalReturnPanel: fxPerUsd has ${fx.length} entries, expected one per id (${N})`);
  }
  for (let i = 0; i < fx.length; i++) {
    if (fx[i] !== undefined && fx[i]!.length !== T) {
      throw new RangeError(`totalReturnPanel: fxPerUsd[${i}] has ${fx[i]!.length} values, expected ${T}`);
    }
  }
  const column = new Map(ids.map((id, i) => [id, i]));
  // Events by date index: [column, kind 0 = split / 1 = dividend, value]; splits sort before dividends.
  const events = new Map<number, [number, number, number][]>();
  const add = (id: string, date: string, kind: number, value: number) => {
    const i = column.get(id);
    if (i === undefined || !Number.isFinite(value)) return;
    const t = indexAtOrAfter(dates, date);
    if (t < 0) return;
    const list = events.get(t);
    if (list) list.push([i, kind, value]);
    else events.set(t, [[i, kind, value]]);
  };
  for (const s of input.splits ?? []) if (s.ratio > 0) add(s.themeAssetId, s.date, 0, s.ratio);
  for (const d of input.dividends ?? []) add(d.themeAssetId, d.exDate, 1, d.amount);
  for (const list of events.values()) list.sort((a, b) => a[1] - b[1]);

  const growth = new Float64Array(T * N).fill(1);
  const priced = new Uint8Array(T * N);
  const lastUsd = new Float64Array(N).fill(Number.NaN); // USD price of one share at the last priced date
  const shares = new Float64Array(N).fill(1); // shares held now per share held at the last priced date
  const cash = new Float64Array(N); // dividends received since, listing currency
  for (let t = 0; t < T; t++) {
    const today = events.get(t);
    if (today)
      for (const [i, kind, value] of today) {
        if (kind === 0) shares[i] = shares[i]! * value;
        else cash[i] = cash[i]! + shares[i]! * value;
      }
    const row = t * N;
    for (let i = 0; i < N; i++) {
      const p = close[row + i]!;
      const x = fx[i] === undefined ? 1 : fx[i]![t]!;
      if (!(p > 0 && Number.isFinite(p) && x > 0 && Number.isFinite(x))) continue;
      priced[row + i] = 1;
      const before = lastUsd[i]!;
      if (!Number.isNaN(before)) growth[row + i] = (shares[i]! * p + cash[i]!) / x / before;
      lastUsd[i] = p / x;
      shares[i] = 1;
      cash[i] = 0;
    }
  }
  return { dates, ids, growth, priced };
}

// ---- spin-offs -------------------------------------------------------------------------------------------------

/**
 * A spin-off (docs/backtests.md, "Spin-offs"): on `date` (the distribution date, the first day the parent trades
 * without the child), every parent share held at the open receives `distributionRatio` child shares; a lot keeps
 * (1 - f) of its basis and gives the child lot f of it (core/ledger's `spinOffLot`).
 */
export interface SpinOff {
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
   * day in the panel. @default the FMV relation parentClose x f / ((1 - f) x ratio)
   */
  readonly childPrice?: number;
}

/** A spin-off indexed by column. */
export interface ColumnSpinOff {
  readonly id: string;
  /** Column of the parent. */
  readonly column: number;
  readonly childAssetId: string;
  /** Column of the child, or null when the child is not in the panel. */
  readonly childColumn: number | null;
  readonly ratio: number;
  readonly basisFraction: number;
  /** Given value of one child share (see {@link SpinOff.childPrice}), or null. */
  readonly childPrice: number | null;
}

/**
 * Value of one child share on the distribution date `t`, in the parent's listing currency: the child's close on t
 * when the child is in the panel and priced that day (assumed to trade in the parent's currency), else the
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

/** Spin-offs by the index of their date (moved to the next date when dated on a holiday; earlier ones dropped). */
function spinOffsByDate(
  spinOffs: readonly SpinOff[],
  dates: readonly string[],
  column: ReadonlyMap<string, number>,
  where: string,
): Map<number, ColumnSpinOff[]> {
  const out = new Map<number, ColumnSpinOff[]>();
  for (const e of spinOffs) {
    const i = column.get(e.themeAssetId);
    if (i === undefined) continue;
    const what = `${where}: spin-off ${e.id} of ${e.themeAssetId}`;
    if (!(e.distributionRatio > 0 && Number.isFinite(e.distributionRatio)))
      throw new RangeError(`${what} must have a positive finite ratio, got ${e.distributionRatio}`);
    if (!(e.basisFraction > 0 && e.basisFraction < 1))
      throw new RangeError(
        `${what} must have a basis fraction strictly between 0 and 1, got ${e.basisFraction}`,
      );
    if (e.childPrice !== undefined && !(e.childPrice > 0 && Number.isFinite(e.childPrice)))
      throw new RangeError(`${what} must have a positive finite child price, got ${e.childPrice}`);
    if (e.childAssetId === e.themeAssetId)
      throw new RangeError(`${where}: spin-off ${e.id} names ${e.themeAssetId} as its own child`);
    const t = indexAtOrAfter(dates, e.date);
    if (t < 0 || e.date < dates[0]!) continue;
    const list = out.get(t) ?? [];
    list.push({
      id: e.id,
      column: i,
      childAssetId: e.childAssetId,
      childColumn: column.get(e.childAssetId) ?? null,
      ratio: e.distributionRatio,
      basisFraction: e.basisFraction,
      childPrice: e.childPrice ?? null,
    });
    out.set(t, list);
  }
  return out;
}

// ---- the panel -------------------------------------------------------------------------------------------------

/** A column of a {@link MarketPanel}: a listing and the currency its closes, dividends and lots are in. */
export interface PanelListing {
  readonly themeAssetId: string;
  readonly currency: Currency;
}

/** Raw rows a {@link MarketPanel} is built from (a store read, a generated market, a test's hand-made data). */
export interface MarketPanelInput {
  /** Trading dates, strictly ascending (T). */
  readonly dates: readonly string[];
  /** The columns (N), ids unique. */
  readonly listings: readonly PanelListing[];
  /** T x N raw (not split-adjusted) closes in the listing currency, `close[t * N + i]`; NaN = no price that day. */
  readonly close: Float64Array;
  /** T x N traded shares, same layout; NaN = unknown. Omitted when the user of the panel needs none. */
  readonly volume?: Float64Array | undefined;
  /** Splits (ratio = new shares per old share), effective at the open of their date. */
  readonly splits?: readonly Split[];
  /** Cash dividends per share going ex on their date, in the listing currency. */
  readonly dividends?: readonly Dividend[];
  /** Spin-offs: a distribution of child shares, counted in the parent's total return at the child's value. */
  readonly spinOffs?: readonly SpinOff[];
  /** Units of each non-USD listing currency per USD on each date (length T); NaN = carry the last rate forward. */
  readonly fxPerUsd?: Readonly<Partial<Record<Currency, Float64Array>>>;
}

/**
 * Dates x assets of one market, checked once: raw closes and volumes, FX carried forward, the corporate actions
 * of its columns and the daily USD total return of every column. Point in time: built from rows dated on or
 * before its last date, so whatever reads row t reads nothing later than `dates[t]` from it.
 */
export interface MarketPanel {
  readonly dates: readonly string[];
  readonly ids: readonly string[];
  /** Listing currency of each column. */
  readonly currencies: readonly Currency[];
  /** Column of each theme_asset_id. */
  readonly column: ReadonlyMap<string, number>;
  /** Raw closes, as given. */
  readonly close: Float64Array;
  /** Traded shares, as given; null when the panel was built without volumes. */
  readonly volume: Float64Array | null;
  /** Units per USD of every listing currency on every date (USD = 1), carried forward; NaN before the first rate. */
  readonly fx: ReadonlyMap<Currency, Float64Array>;
  /** Splits and dividends of the panel's columns. */
  readonly splits: readonly Split[];
  readonly dividends: readonly Dividend[];
  /** Spin-offs of the panel's parents by date index. */
  readonly spinOffsAt: ReadonlyMap<number, readonly ColumnSpinOff[]>;
  /**
   * `growth[t * N + i]`: USD value on date t of 1 USD held in column i at its previous priced date, splits,
   * dividends and spin-offs included ({@link totalReturnPanel}); 1 where the column has no price on t.
   */
  readonly growth: Float64Array;
  /** `priced[t * N + i]` = 1 when column i has a close and a known FX rate on date t. */
  readonly priced: Uint8Array;
}

/** @throws {RangeError} naming `where` when `dates` are not strictly ascending. */
export function assertAscending(dates: readonly string[], where: string): void {
  for (let t = 1; t < dates.length; t++)
    if (!(dates[t - 1]! < dates[t]!))
      throw new RangeError(`${where} must be strictly ascending (${dates[t - 1]}, ${dates[t]})`);
}

/**
 * Checks raw market rows once and builds the panel: FX columns carried forward, spin-offs indexed by date and
 * valued at the child's close (else its given price, else the FMV relation), the daily USD total returns.
 * `where` names the caller in error messages.
 * @throws {RangeError} for malformed input: lengths, unsorted dates, repeated ids, non-positive or infinite closes
 *   or rates, a non-USD listing without rates, a malformed spin-off.
 * @example buildMarketPanel({ dates, listings: [{ themeAssetId: "RY:XTSE", currency: "CAD" }], close, fxPerUsd: { CAD } })
 */
export function buildMarketPanel(input: MarketPanelInput, where = "buildMarketPanel"): MarketPanel {
  const { dates, listings, close } = input;
  const T = dates.length;
  const N = listings.length;
  assertAscending(dates, `${where}: dates`);
  if (!(close instanceof Float64Array) || close.length !== T * N)
    throw new RangeError(`${where}: close must be a Float64Array of ${T} x ${N} = ${T * N} values`);
  if (input.volume !== undefined && input.volume.length !== T * N)
    throw new RangeError(`${where}: volume must have ${T} x ${N} = ${T * N} values`);
  const ids = listings.map((s) => s.themeAssetId);
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
  for (const s of listings) {
    if (fx.has(s.currency)) continue;
    // An empty panel needs no rates.
    const given = T === 0 ? new Float64Array(0) : input.fxPerUsd?.[s.currency];
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

  const splits = (input.splits ?? []).filter((s) => column.has(s.themeAssetId));
  const dividends = (input.dividends ?? []).filter((d) => column.has(d.themeAssetId));
  const spinOffsAt = spinOffsByDate(input.spinOffs ?? [], dates, column, where);
  // A spin-off pays its parent's holders the child shares: in the total return, a dividend of ratio x child value.
  const paid: Dividend[] = [];
  for (const [t, list] of spinOffsAt)
    for (const e of list) {
      const v = spinOffChildValue(e, close, N, t);
      if (!Number.isNaN(v))
        paid.push({ themeAssetId: ids[e.column]!, exDate: dates[t]!, amount: e.ratio * v });
    }
  const currencies = listings.map((s) => s.currency);
  const { growth, priced } = totalReturnPanel({
    dates,
    ids,
    close,
    splits,
    dividends: paid.length === 0 ? dividends : [...dividends, ...paid],
    fxPerUsd: currencies.map((c) => (c === "USD" ? undefined : fx.get(c))),
  });
  return {
    dates,
    ids,
    currencies,
    column,
    close,
    volume: input.volume ?? null,
    fx,
    splits,
    dividends,
    spinOffsAt,
    growth,
    priced,
  };
}

/**
 * Daily USD total returns of the panel, `r[t * N + i]` = growth - 1 between two consecutive dates both priced for
 * column i; NaN otherwise (row 0, a missing close or rate on either date: a gap is missing data to a risk model).
 * @example dailyUsdReturns(panel)[t * panel.ids.length + i]
 */
export function dailyUsdReturns(panel: MarketPanel): Float64Array {
  const N = panel.ids.length;
  const out = new Float64Array(panel.dates.length * N).fill(Number.NaN);
  const { growth, priced } = panel;
  for (let k = N; k < out.length; k++) {
    if (priced[k] !== 1 || priced[k - N] !== 1) continue;
    const r = growth[k]! - 1;
    if (Number.isFinite(r)) out[k] = r;
  }
  return out;
}

/**
 * Average daily traded value in USD per column: close x volume / FX over the last `window` rows with a volume
 * (NaN for a column without any, or a panel built without volumes).
 */
export function averageDailyValueUsd(panel: MarketPanel, window: number): Float64Array {
  const N = panel.ids.length;
  const out = new Float64Array(N).fill(Number.NaN);
  const volume = panel.volume;
  if (volume === null) return out;
  for (let i = 0; i < N; i++) {
    const fx = panel.fx.get(panel.currencies[i]!)!;
    let sum = 0;
    let count = 0;
    for (let t = panel.dates.length - 1; t >= 0 && count < window; t--) {
      const v = volume[t * N + i]! * (panel.close[t * N + i]! / fx[t]!);
      if (Number.isFinite(v)) {
        sum += v;
        count++;
      }
    }
    if (count > 0) out[i] = sum / count;
  }
  return out;
}
