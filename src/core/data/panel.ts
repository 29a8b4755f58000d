/**
 * @module core/data/panel
 * Columnar market panels for large data sets (thousands of securities x thousands of days), where one object per
 * price bar would cost too much memory. A {@link PricePanel} holds dates x securities in flat row-major
 * `Float64Array`s: the value of security `i` on date `t` is at `t * N + i`. NaN means "no value that day"
 * (before a listing, after a delisting, a gap). Helpers here build, check, slice and convert panels.
 */

import type { CharacteristicValue, PriceBar } from "./types.js";

/**
 * Daily closes and volumes of N securities over T trading dates (shared-decisions.md).
 * `close[t * N + i]` is the close of `ids[i]` on `dates[t]` in the security's currency; NaN = no price that day.
 * `volume` has the same layout; NaN = unknown.
 */
export interface PricePanel {
  /** Ascending trading dates `YYYY-MM-DD` (T). */
  dates: string[];
  /** theme_asset_ids (`SYMBOL:MIC`), one per column (N). */
  ids: string[];
  /** T * N closes, row-major by date. */
  close: Float64Array;
  /** T * N volumes (shares), row-major by date. */
  volume: Float64Array;
}

/**
 * Values of several named characteristics on a set of dates (typically month ends), columnar like a
 * {@link PricePanel}: `values[name][t * N + i]` is characteristic `name` of `ids[i]` on `dates[t]`; NaN = not
 * available (not listed yet, not enough history, undefined such as P/E with negative earnings).
 */
export interface CharacteristicPanel {
  /** Ascending observation dates (M). */
  dates: string[];
  /** theme_asset_ids (N). */
  ids: string[];
  /** One M * N array per characteristic name (snake_case, see shared-decisions.md). */
  values: Record<string, Float64Array>;
}

/**
 * An empty panel of the given shape with every close and volume NaN.
 * @throws {RangeError} when dates are not strictly ascending or ids repeat (see {@link assertPricePanel}).
 * @example const p = createPricePanel(["2024-01-02", "2024-01-03"], ["AAA:XNYS"]); p.close.length // 2
 */
export function createPricePanel(dates: readonly string[], ids: readonly string[]): PricePanel {
  const n = dates.length * ids.length;
  const panel: PricePanel = {
    dates: [...dates],
    ids: [...ids],
    close: new Float64Array(n).fill(Number.NaN),
    volume: new Float64Array(n).fill(Number.NaN),
  };
  assertPricePanel(panel);
  return panel;
}

/**
 * Check a panel's shape once at entry: array lengths T * N, strictly ascending dates, unique ids, no infinite or
 * non-positive closes (NaN is allowed and means "no price").
 * @throws {RangeError} naming the first problem found.
 */
export function assertPricePanel(panel: PricePanel): void {
  const t = panel.dates.length;
  const n = panel.ids.length;
  if (panel.close.length !== t * n)
    throw new RangeError(
      `assertPricePanel: close has ${panel.close.length} cells, expected dates x ids = ${t} x ${n} = ${t * n}`,
    );
  if (panel.volume.length !== t * n)
    throw new RangeError(
      `assertPricePanel: volume has ${panel.volume.length} cells, expected dates x ids = ${t} x ${n} = ${t * n}`,
    );
  for (let k = 1; k < t; k++)
    if (!(panel.dates[k - 1]! < panel.dates[k]!))
      throw new RangeError(
        `assertPricePanel: dates must be strictly ascending; ${panel.dates[k - 1]} is followed by ${panel.dates[k]}`,
      );
  const seen = new Set<string>();
  for (const id of panel.ids) {
    if (seen.has(id)) throw new RangeError(`assertPricePanel: id ${id} appears twice`);
    seen.add(id);
  }
  for (let k = 0; k < panel.close.length; k++) {
    const c = panel.close[k]!;
    if (!Number.isNaN(c) && !(c > 0 && c < Number.POSITIVE_INFINITY))
      throw new RangeError(
        `assertPricePanel: close of ${panel.ids[k % n]} on ${panel.dates[Math.floor(k / n)]} is ${c}; closes must be positive or NaN`,
      );
  }
}

/** Map from theme_asset_id to column index. */
export function panelColumnIndex(panel: { ids: readonly string[] }): Map<string, number> {
  const m = new Map<string, number>();
  for (let i = 0; i < panel.ids.length; i++) m.set(panel.ids[i]!, i);
  return m;
}

/**
 * The close series of one security (a copy, length T; NaN where there is no price).
 * @throws {RangeError} when `id` is not in the panel.
 */
export function closeSeries(panel: PricePanel, id: string): Float64Array {
  const i = panel.ids.indexOf(id);
  if (i < 0) throw new RangeError(`closeSeries: ${id} is not in the panel`);
  const n = panel.ids.length;
  const out = new Float64Array(panel.dates.length);
  for (let t = 0; t < out.length; t++) out[t] = panel.close[t * n + i]!;
  return out;
}

/**
 * The last close of column `i` on or before row `t` and the row it comes from, or null when there is none.
 * Walks back at most `maxStaleRows` rows (default: to the start).
 */
export function lastCloseAtOrBefore(
  panel: PricePanel,
  i: number,
  t: number,
  maxStaleRows = Number.POSITIVE_INFINITY,
): { close: number; row: number } | null {
  const n = panel.ids.length;
  for (let r = Math.min(t, panel.dates.length - 1); r >= 0 && t - r <= maxStaleRows; r--) {
    const c = panel.close[r * n + i]!;
    if (!Number.isNaN(c)) return { close: c, row: r };
  }
  return null;
}

/**
 * A new panel holding the rows with `from <= date <= to` (either bound optional). Copies the data.
 * @example slicePanelDates(panel, "2020-01-01", "2020-12-31")
 */
export function slicePanelDates(panel: PricePanel, from?: string, to?: string): PricePanel {
  const n = panel.ids.length;
  let start = 0;
  while (start < panel.dates.length && from !== undefined && panel.dates[start]! < from) start++;
  let end = panel.dates.length;
  while (end > start && to !== undefined && panel.dates[end - 1]! > to) end--;
  return {
    dates: panel.dates.slice(start, end),
    ids: [...panel.ids],
    close: panel.close.slice(start * n, end * n),
    volume: panel.volume.slice(start * n, end * n),
  };
}

/**
 * A new panel with only the given columns, in the given order. Copies the data.
 * @throws {RangeError} when an id is not in the panel.
 */
export function selectPanelIds(panel: PricePanel, ids: readonly string[]): PricePanel {
  const index = panelColumnIndex(panel);
  const cols = ids.map((id) => {
    const i = index.get(id);
    if (i === undefined) throw new RangeError(`selectPanelIds: ${id} is not in the panel`);
    return i;
  });
  const n = panel.ids.length;
  const m = cols.length;
  const t = panel.dates.length;
  const close = new Float64Array(t * m);
  const volume = new Float64Array(t * m);
  for (let r = 0; r < t; r++)
    for (let j = 0; j < m; j++) {
      close[r * m + j] = panel.close[r * n + cols[j]!]!;
      volume[r * m + j] = panel.volume[r * n + cols[j]!]!;
    }
  return { dates: panel.dates.slice(), ids: [...ids], close, volume };
}

/**
 * Build a panel from price bars (any order). Dates are the union of the bars' dates; ids are sorted.
 * Missing cells are NaN; a null volume becomes NaN.
 * @throws {RangeError} when two bars share an id and a date, or a close is not positive and finite.
 */
export function panelFromBars(bars: readonly PriceBar[]): PricePanel {
  const dates = [...new Set(bars.map((b) => b.date))].sort();
  const ids = [...new Set(bars.map((b) => b.themeAssetId))].sort();
  const panel = createPricePanel(dates, ids);
  const row = new Map(dates.map((d, t) => [d, t]));
  const col = panelColumnIndex(panel);
  const n = ids.length;
  for (const b of bars) {
    if (!(b.close > 0 && Number.isFinite(b.close)))
      throw new RangeError(`panelFromBars: close of ${b.themeAssetId} on ${b.date} is ${b.close}`);
    const k = row.get(b.date)! * n + col.get(b.themeAssetId)!;
    if (!Number.isNaN(panel.close[k]!))
      throw new RangeError(`panelFromBars: two bars for ${b.themeAssetId} on ${b.date}`);
    panel.close[k] = b.close;
    panel.volume[k] = b.volume ?? Number.NaN;
  }
  return panel;
}

/**
 * Price bars of a panel (one per non-NaN close), date-major. Open/high/low/adjClose are null: a panel carries
 * closes and volumes only.
 */
export function panelToBars(panel: PricePanel): PriceBar[] {
  const n = panel.ids.length;
  const out: PriceBar[] = [];
  for (let t = 0; t < panel.dates.length; t++)
    for (let i = 0; i < n; i++) {
      const c = panel.close[t * n + i]!;
      if (Number.isNaN(c)) continue;
      const v = panel.volume[t * n + i]!;
      out.push({
        themeAssetId: panel.ids[i]!,
        date: panel.dates[t]!,
        open: null,
        high: null,
        low: null,
        close: c,
        adjClose: null,
        volume: Number.isNaN(v) ? null : v,
      });
    }
  return out;
}

/** The characteristic values of a panel as model rows (NaN cells are skipped), date-major, names in key order. */
export function characteristicPanelToValues(panel: CharacteristicPanel): CharacteristicValue[] {
  const n = panel.ids.length;
  const out: CharacteristicValue[] = [];
  const names = Object.keys(panel.values);
  for (let t = 0; t < panel.dates.length; t++)
    for (let i = 0; i < n; i++)
      for (const name of names) {
        const v = panel.values[name]![t * n + i]!;
        if (!Number.isNaN(v))
          out.push({ themeAssetId: panel.ids[i]!, date: panel.dates[t]!, name, value: v });
      }
  return out;
}
