/**
 * @module market/synthetic/characteristics
 * Point-in-time month-end characteristics computed from market data: raw closes, shares, splits, dividends,
 * FX, quarterly fundamentals and a benchmark. The value on month end m uses only rows up to m, dividends with
 * ex-date <= m, splits effective <= m, and fundamentals published (quarter end + report lag) <= m. Nothing in
 * here is specific to the generator; it works on any panel with these inputs.
 *
 * Definitions (per security i, observation row t, close P_t, shares S_t, listing-currency cap C_t = S_t P_t):
 * - market_cap = C_t / fx_t (USD; fx = units of the listing currency per USD on or before t).
 * - dividend_yield = sum of dividends per current share with ex-date in (t - 365 days, t] / P_t.
 * - eps = net income over the last four published quarters / S_t; pe = P_t / eps when eps > 0 (else missing);
 *   earnings_yield = TTM net income / C_t.
 * - pb = C_t / book (book > 0); book_to_price = book / C_t; ps = C_t / TTM sales.
 * - profitability (ROE) = TTM net income / mean(book now, book four quarters earlier), when that mean is > 0.
 * - growth = TTM sales / TTM sales four quarters earlier - 1.
 * - momentum = TR(m-1) / TR(m-12) - 1 (total-return index at the previous and the twelfth previous month ends).
 * - volatility = sqrt(252) * sample std of daily log total returns over the last 252 rows (>= 126 returns).
 * - beta = cov(r_i, r_b) / var(r_b) of daily log total returns against the benchmark over the same window.
 */

import type { CharacteristicPanel, PricePanel } from "../../core/data/panel.js";
import type { Currency, Dividend, FxRate, Split } from "../../core/data/types.js";
import { toDayNumber } from "../../core/dates.js";
import type { FundamentalsPanel } from "./types.js";

/** Trailing window of the volatility and beta estimates, in rows (trading days). */
export const RISK_WINDOW_DAYS = 252;
/** Fewest daily returns in the window for volatility and beta to be reported. */
export const RISK_MIN_OBSERVATIONS = 126;

/** Inputs of {@link computeCharacteristics}. All arrays are aligned with `prices.ids` (N) unless stated. */
export interface CharacteristicsInput {
  prices: PricePanel;
  /** Listing currency per security. */
  currencies: readonly Currency[];
  /** Shares outstanding on each security's first priced row (splits then multiply it). */
  initialShares: Float64Array;
  splits: readonly Split[];
  dividends: readonly Dividend[];
  /** Units of each currency per USD; the last rate on or before a date applies. USD needs none. */
  fxRates: readonly FxRate[];
  /** Quarterly fundamentals (same ids in the same order); without them the fundamental ratios are left out. */
  fundamentals?: FundamentalsPanel;
  /** Benchmark levels aligned with `prices.dates`; without them `beta` is left out. */
  benchmarkLevels?: Float64Array;
}

/**
 * Month-end characteristics of every security (see the module comment for the definitions).
 * @throws {RangeError} when array lengths do not match the panel, or fundamentals ids differ from the panel's.
 */
export function computeCharacteristics(input: CharacteristicsInput): CharacteristicPanel {
  const { prices, currencies, initialShares } = input;
  const T = prices.dates.length;
  const N = prices.ids.length;
  if (currencies.length !== N || initialShares.length !== N)
    throw new RangeError(
      `computeCharacteristics: currencies (${currencies.length}) and initialShares (${initialShares.length}) must have one entry per id (${N})`,
    );
  if (input.benchmarkLevels && input.benchmarkLevels.length !== T)
    throw new RangeError(
      `computeCharacteristics: benchmarkLevels has ${input.benchmarkLevels.length} values, expected one per date (${T})`,
    );
  const f = input.fundamentals;
  if (f && (f.ids.length !== N || f.ids.some((id, i) => id !== prices.ids[i])))
    throw new RangeError("computeCharacteristics: fundamentals.ids must equal prices.ids, in the same order");
  if (f) {
    const cells = f.quarterEnds.length * N;
    if (
      f.sales.length !== cells ||
      f.netIncome.length !== cells ||
      f.bookEquity.length !== cells ||
      f.reportLagDays.length !== N
    )
      throw new RangeError(
        `computeCharacteristics: fundamentals arrays must hold quarters x ids = ${f.quarterEnds.length} x ${N} values and one report lag per id`,
      );
  }

  // Observation rows: the last trading row of each month.
  const obsRows: number[] = [];
  for (let t = 0; t < T; t++) {
    const next = prices.dates[t + 1];
    if (next === undefined || next.slice(0, 7) !== prices.dates[t]!.slice(0, 7)) obsRows.push(t);
  }
  const M = obsRows.length;
  const dayOf = Int32Array.from(prices.dates, (d) => toDayNumber(d));

  const names = ["market_cap", "dividend_yield", "momentum", "volatility"];
  if (input.benchmarkLevels) names.push("beta");
  if (f) names.push("pe", "pb", "ps", "eps", "profitability", "growth", "book_to_price", "earnings_yield");
  const values: Record<string, Float64Array> = {};
  for (const name of names) values[name] = new Float64Array(M * N).fill(Number.NaN);

  const fx = alignFx(input.fxRates, prices.dates);
  const rowOf = (date: string): number => firstRowOnOrAfter(prices.dates, date);
  const splitsBy = groupRows(
    input.splits,
    prices.ids,
    (s) => s.date,
    rowOf,
    (s) => s.ratio,
  );
  const divsBy = groupRows(
    input.dividends,
    prices.ids,
    (d) => d.exDate,
    rowOf,
    (d) => d.amount,
  );

  // Benchmark daily log returns (NaN when either level is missing).
  const bench = new Float64Array(T).fill(Number.NaN);
  if (input.benchmarkLevels) {
    const L = input.benchmarkLevels;
    for (let t = 1; t < T; t++) if (L[t]! > 0 && L[t - 1]! > 0) bench[t] = Math.log(L[t]! / L[t - 1]!);
  }

  // Per-name work arrays, reused: prefix sums over rows (index t + 1 covers rows 0..t).
  const cR = new Float64Array(T + 1);
  const cR2 = new Float64Array(T + 1);
  const cN = new Float64Array(T + 1);
  const cPr = new Float64Array(T + 1);
  const cPb = new Float64Array(T + 1);
  const cPrb = new Float64Array(T + 1);
  const cPbb = new Float64Array(T + 1);
  const cPn = new Float64Array(T + 1);
  const logTr = new Float64Array(T);
  const sharesAt = new Float64Array(T);
  const splitCum = new Float64Array(T);

  const quarterDays = f ? Int32Array.from(f.quarterEnds, (d) => toDayNumber(d)) : new Int32Array(0);
  const Q = quarterDays.length;

  // The panel is row-major; walking one column at a time would miss the cache on every row. Copy blocks of
  // columns into a column-major buffer first (rows of a block are contiguous in the panel).
  const BLOCK = 64;
  const block = new Float64Array(Math.min(BLOCK, N) * T);
  let blockStart = -BLOCK;
  for (let i = 0; i < N; i++) {
    if (i >= blockStart + BLOCK) {
      blockStart = i;
      const width = Math.min(BLOCK, N - i);
      for (let t = 0; t < T; t++) {
        const row = t * N + i;
        for (let j = 0; j < width; j++) block[j * T + t] = prices.close[row + j]!;
      }
    }
    const colOffset = (i - blockStart) * T;
    const cur = currencies[i]!;
    const fxSeries = cur === "USD" ? null : (fx.get(cur) ?? null);
    const splitEv = splitsBy[i]!;
    const divEv = divsBy[i]!;
    let sIdx = 0;
    let dIdx = 0;
    let shares = Number.NaN;
    let cum = 1; // product of split ratios up to the current row
    let lastClose = Number.NaN;
    let pendingRatio = 1; // splits since the last priced row
    let pendingDiv = 0; // dividends (per share at the current basis) since the last priced row
    let lt = Number.NaN;
    cR[0] = cR2[0] = cN[0] = cPr[0] = cPb[0] = cPrb[0] = cPbb[0] = cPn[0] = 0;
    for (let t = 0; t < T; t++) {
      while (sIdx < splitEv.length && splitEv[sIdx]!.row === t) {
        const ratio = splitEv[sIdx]!.value;
        cum *= ratio;
        if (!Number.isNaN(shares)) shares *= ratio;
        pendingRatio *= ratio;
        pendingDiv /= ratio; // a dividend paid before the split is worth 1/ratio per new share
        sIdx++;
      }
      while (dIdx < divEv.length && divEv[dIdx]!.row === t) {
        pendingDiv += divEv[dIdx]!.value;
        dIdx++;
      }
      splitCum[t] = cum;
      const c = block[colOffset + t]!;
      let r = Number.NaN;
      if (!Number.isNaN(c)) {
        if (Number.isNaN(shares)) shares = initialShares[i]!;
        if (!Number.isNaN(lastClose)) {
          // Total return from the last priced row: (P_t + D) * (split ratios) / P_prev, dividends per new share.
          r = Math.log(((c + pendingDiv) * pendingRatio) / lastClose);
          lt += r;
        } else lt = 0;
        lastClose = c;
        pendingRatio = 1;
        pendingDiv = 0;
      }
      logTr[t] = Number.isNaN(lastClose) ? Number.NaN : lt;
      sharesAt[t] = shares;
      const ok = !Number.isNaN(r);
      const b = bench[t]!;
      const pair = ok && !Number.isNaN(b);
      cR[t + 1] = cR[t]! + (ok ? r : 0);
      cR2[t + 1] = cR2[t]! + (ok ? r * r : 0);
      cN[t + 1] = cN[t]! + (ok ? 1 : 0);
      cPr[t + 1] = cPr[t]! + (pair ? r : 0);
      cPb[t + 1] = cPb[t]! + (pair ? b : 0);
      cPrb[t + 1] = cPrb[t]! + (pair ? r * b : 0);
      cPbb[t + 1] = cPbb[t]! + (pair ? b * b : 0);
      cPn[t + 1] = cPn[t]! + (pair ? 1 : 0);
    }

    let divStart = 0;
    let pubQ = -1; // latest published quarter
    for (let m = 0; m < M; m++) {
      const t = obsRows[m]!;
      const c = block[colOffset + t]!;
      if (Number.isNaN(c)) continue;
      const k = m * N + i;
      const S = sharesAt[t]!;
      const capLocal = S * c;
      const rate = fxSeries ? fxSeries[t]! : 1;
      values.market_cap![k] = capLocal / rate;

      // Dividends with ex-date in (day - 365, day], restated per current share.
      const day = dayOf[t]!;
      while (divStart < divEv.length && dayOf[divEv[divStart]!.row]! <= day - 365) divStart++;
      let divSum = 0;
      for (let d = divStart; d < divEv.length && divEv[d]!.row <= t; d++) {
        const e = divEv[d]!;
        divSum += (e.value * splitCum[e.row]!) / splitCum[t]!;
      }
      values.dividend_yield![k] = divSum / c;

      if (m >= 12) {
        const a = logTr[obsRows[m - 1]!]!;
        const z = logTr[obsRows[m - 12]!]!;
        if (!Number.isNaN(a) && !Number.isNaN(z)) values.momentum![k] = Math.exp(a - z) - 1;
      }

      const lo = Math.max(0, t + 1 - RISK_WINDOW_DAYS);
      const n = cN[t + 1]! - cN[lo]!;
      if (n >= RISK_MIN_OBSERVATIONS) {
        const s1 = cR[t + 1]! - cR[lo]!;
        const s2 = cR2[t + 1]! - cR2[lo]!;
        const variance = Math.max(0, (s2 - (s1 * s1) / n) / (n - 1));
        values.volatility![k] = Math.sqrt(252 * variance);
      }
      if (input.benchmarkLevels) {
        const np = cPn[t + 1]! - cPn[lo]!;
        if (np >= RISK_MIN_OBSERVATIONS) {
          const sr = cPr[t + 1]! - cPr[lo]!;
          const sb = cPb[t + 1]! - cPb[lo]!;
          const cov = cPrb[t + 1]! - cPrb[lo]! - (sr * sb) / np;
          const vb = cPbb[t + 1]! - cPbb[lo]! - (sb * sb) / np;
          if (vb > 0) values.beta![k] = cov / vb;
        }
      }

      if (f) {
        const lag = f.reportLagDays[i]!;
        while (pubQ + 1 < Q && quarterDays[pubQ + 1]! + lag <= day) pubQ++;
        if (pubQ >= 3) {
          let sales = 0;
          let income = 0;
          for (let q = pubQ - 3; q <= pubQ; q++) {
            sales += f.sales[q * N + i]!;
            income += f.netIncome[q * N + i]!;
          }
          const bookNow = f.bookEquity[pubQ * N + i]!;
          const eps = income / S;
          values.eps![k] = eps;
          if (eps > 0) values.pe![k] = c / eps;
          if (bookNow > 0) values.pb![k] = capLocal / bookNow;
          values.book_to_price![k] = bookNow / capLocal;
          if (sales > 0) values.ps![k] = capLocal / sales;
          values.earnings_yield![k] = income / capLocal;
          if (pubQ >= 7) {
            let prevSales = 0;
            for (let q = pubQ - 7; q <= pubQ - 4; q++) prevSales += f.sales[q * N + i]!;
            if (prevSales > 0) values.growth![k] = sales / prevSales - 1;
            const avgBook = (bookNow + f.bookEquity[(pubQ - 4) * N + i]!) / 2;
            if (avgBook > 0) values.profitability![k] = income / avgBook;
          }
        }
      }
    }
  }
  return { dates: obsRows.map((t) => prices.dates[t]!), ids: [...prices.ids], values };
}

/** First row whose date is >= `date` (T when none): events on non-trading days apply on the next trading day. */
function firstRowOnOrAfter(dates: readonly string[], date: string): number {
  let lo = 0;
  let hi = dates.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (dates[mid]! < date) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Events per security column, sorted by row, as `{ row, value }`. Unknown ids are ignored. */
function groupRows<E extends { themeAssetId: string }>(
  events: readonly E[],
  ids: readonly string[],
  dateOf: (e: E) => string,
  rowOf: (date: string) => number,
  valueFor: (e: E) => number,
): { row: number; value: number }[][] {
  const col = new Map(ids.map((id, i) => [id, i]));
  const out: { row: number; value: number }[][] = ids.map(() => []);
  for (const e of events) {
    const i = col.get(e.themeAssetId);
    if (i === undefined) continue;
    out[i]!.push({ row: rowOf(dateOf(e)), value: valueFor(e) });
  }
  for (const list of out) list.sort((a, b) => a.row - b.row);
  return out;
}

/** Per-currency rate series aligned with `dates` (last rate on or before each date; NaN before the first). */
export function alignFx(rates: readonly FxRate[], dates: readonly string[]): Map<Currency, Float64Array> {
  const byCurrency = new Map<Currency, FxRate[]>();
  for (const r of rates) {
    const list = byCurrency.get(r.currency);
    if (list) list.push(r);
    else byCurrency.set(r.currency, [r]);
  }
  const out = new Map<Currency, Float64Array>();
  for (const [cur, list] of byCurrency) {
    list.sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
    const series = new Float64Array(dates.length).fill(Number.NaN);
    let k = -1;
    for (let t = 0; t < dates.length; t++) {
      while (k + 1 < list.length && list[k + 1]!.date <= dates[t]!) k++;
      if (k >= 0) series[t] = list[k]!.perUsd;
    }
    out.set(cur, series);
  }
  return out;
}
