/**
 * @module core/themes/return-panel
 * Daily total returns in USD from raw closes, splits, dividends and FX: what one USD invested in a security
 * becomes from one priced date to the next. Used by the theme backtest for constituents and ticker
 * benchmarks.
 */

import type { Dividend, Split } from "../data/types.js";
import { indexAtOrAfter } from "../dates.js";

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
