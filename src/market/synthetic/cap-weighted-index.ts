/**
 * @module market/synthetic/cap-weighted-index
 * A capitalization-weighted price index built from a price panel: constituents are the largest eligible
 * securities by USD market cap, chosen on the first date and at every month end from data up to that date; they
 * are held with floating cap weights until the next selection. Daily level:
 *
 *   L_t = L_{t-1} * sum_i C_{i,t-1} g_{i,t} / sum_i C_{i,t-1},   g_{i,t} = (P_{i,t} R_{i,t} / P_{i,t-1}) (x_{t-1} / x_t)
 *
 * with C the USD market cap (shares x close / x), R the split ratio effective on t (1 when none) and x the units
 * of the listing currency per USD. Dividends are not reinvested (a price index, like the usual headline indexes).
 */

import type { PricePanel } from "../../core/data/panel.js";
import type { Currency, FxRate, IndexInfo, Split } from "../../core/data/types.js";
import { alignFx } from "./characteristics.js";
import type { SyntheticIndex } from "./types.js";

/** Inputs of {@link buildCapWeightedIndex}; arrays align with `prices.ids`. */
export interface CapWeightedIndexInput {
  prices: PricePanel;
  currencies: readonly Currency[];
  /** Shares on each security's first priced row. */
  initialShares: Float64Array;
  splits: readonly Split[];
  fxRates: readonly FxRate[];
  /** 1 for securities that may enter the index. */
  eligible: Uint8Array;
  /** Largest number of constituents. */
  maxConstituents: number;
  info: IndexInfo;
  /**
   * Level on the first date with an eligible price.
   * @default 1000
   */
  baseLevel?: number;
}

/**
 * Build the index: levels on every date of the panel (NaN before it starts) and weights at each selection date.
 * @throws {RangeError} when array lengths do not match the panel or maxConstituents < 1.
 */
export function buildCapWeightedIndex(input: CapWeightedIndexInput): SyntheticIndex {
  const { prices, currencies, initialShares, eligible } = input;
  const T = prices.dates.length;
  const N = prices.ids.length;
  if (currencies.length !== N || initialShares.length !== N || eligible.length !== N)
    throw new RangeError(
      "buildCapWeightedIndex: currencies, initialShares and eligible need one entry per id",
    );
  if (!(input.maxConstituents >= 1))
    throw new RangeError(`buildCapWeightedIndex: maxConstituents must be >= 1, got ${input.maxConstituents}`);
  const base = input.baseLevel ?? 1000;
  const fxByCur = alignFx(input.fxRates, prices.dates);
  const fxOf: (Float64Array | null)[] = currencies.map((c) =>
    c === "USD" ? null : (fxByCur.get(c) ?? null),
  );

  const splitAt = new Map<number, { i: number; ratio: number }[]>();
  const col = new Map(prices.ids.map((id, i) => [id, i]));
  const rowOfDate = new Map(prices.dates.map((d, t) => [d, t]));
  for (const s of input.splits) {
    const i = col.get(s.themeAssetId);
    const t = rowOfDate.get(s.date);
    if (i === undefined || t === undefined) continue;
    const list = splitAt.get(t);
    if (list) list.push({ i, ratio: s.ratio });
    else splitAt.set(t, [{ i, ratio: s.ratio }]);
  }

  const eligibleIds: string[] = [];
  const eligibleCol: number[] = [];
  for (let i = 0; i < N; i++)
    if (eligible[i]) {
      eligibleIds.push(prices.ids[i]!);
      eligibleCol.push(i);
    }
  const E = eligibleCol.length;

  const levels = new Float64Array(T).fill(Number.NaN);
  const shares = new Float64Array(N).fill(Number.NaN);
  const member = new Uint8Array(N);
  const ratioToday = new Float64Array(N).fill(1);
  const weightDates: string[] = [];
  const weightRows: Float64Array[] = [];
  const capUsd = (i: number, t: number): number => {
    const p = prices.close[t * N + i]!;
    const x = fxOf[i] ? fxOf[i]![t]! : 1;
    return (shares[i]! * p) / x;
  };

  let started = false;
  const order: number[] = [];
  const caps = new Float64Array(E);
  for (let t = 0; t < T; t++) {
    const todaysSplits = splitAt.get(t);
    if (todaysSplits) for (const { i, ratio } of todaysSplits) ratioToday[i] = ratio;
    // Daily level from yesterday's members and yesterday's caps (shares before today's splits).
    if (started) {
      let num = 0;
      let den = 0;
      for (let i = 0; i < N; i++) {
        if (!member[i]) continue;
        const c0 = capUsd(i, t - 1);
        if (!(c0 > 0)) continue;
        const p1 = prices.close[t * N + i]!;
        let g = 1; // a member without a price today is carried flat
        if (p1 > 0) {
          g = (p1 * ratioToday[i]!) / prices.close[(t - 1) * N + i]!;
          const x = fxOf[i];
          if (x) g *= x[t - 1]! / x[t]!;
        }
        num += c0 * g;
        den += c0;
      }
      levels[t] = den > 0 ? (levels[t - 1]! * num) / den : levels[t - 1]!;
    }
    // Shares: set on the first priced row, multiplied on split dates.
    if (todaysSplits)
      for (const { i, ratio } of todaysSplits) {
        if (!Number.isNaN(shares[i]!)) shares[i] = shares[i]! * ratio;
        ratioToday[i] = 1;
      }
    for (let i = 0; i < N; i++)
      if (Number.isNaN(shares[i]!) && !Number.isNaN(prices.close[t * N + i]!)) shares[i] = initialShares[i]!;

    const next = prices.dates[t + 1];
    const monthEnd = next === undefined || next.slice(0, 7) !== prices.dates[t]!.slice(0, 7);
    let anyPriced = false;
    for (let j = 0; j < E && !anyPriced; j++)
      anyPriced = !Number.isNaN(prices.close[t * N + eligibleCol[j]!]!);
    if ((!started && anyPriced) || (started && monthEnd)) {
      if (!started) {
        started = true;
        levels[t] = base;
      }
      // Select the largest eligible names by USD cap on this date.
      order.length = 0;
      for (let j = 0; j < E; j++) {
        caps[j] = capUsd(eligibleCol[j]!, t);
        if (caps[j]! > 0) order.push(j);
      }
      // Largest first; ties broken by column so the selection is deterministic.
      order.sort((a, b) => caps[b]! - caps[a]! || a - b);
      order.length = Math.min(order.length, input.maxConstituents);
      member.fill(0);
      let total = 0;
      for (const j of order) total += caps[j]!;
      const w = new Float64Array(E);
      for (const j of order) {
        member[eligibleCol[j]!] = 1;
        w[j] = caps[j]! / total;
      }
      weightDates.push(prices.dates[t]!);
      weightRows.push(w);
    }
  }
  const values = new Float64Array(weightRows.length * E);
  weightRows.forEach((w, m) => {
    values.set(w, m * E);
  });
  return {
    info: input.info,
    dates: [...prices.dates],
    levels,
    weights: { dates: weightDates, ids: eligibleIds, values },
  };
}
