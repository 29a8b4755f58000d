/**
 * @module core/backtest/random-market
 * A small seeded market for examples, tests and quick studies of the backtest engine (the full synthetic
 * generator lives in src/market): one market factor and one factor per sector, Gaussian specific returns,
 * quarterly dividends, a few splits, optional Canadian listings, a value characteristic at month ends, and a
 * cap-weighted benchmark (fixed share counts) with drifting weights.
 */
import type { Currency, Dividend, Split } from "../data/types.js";
import { createRandom } from "../random.js";
import { weekdayCalendar } from "./hand-market.js";
import type { BacktestMarketInput } from "./market-data.js";

/** Options of {@link randomMarket}. */
export interface RandomMarketOptions {
  readonly seed: number;
  /** @default 30 */
  readonly assets?: number;
  /** @default "2020-01-01" */
  readonly from?: string;
  /** @default "2023-12-29" */
  readonly to?: string;
  /** Annualized volatility of the specific returns. @default 0.3 */
  readonly specificVolatility?: number;
  /** Annual drift of every asset. @default 0.06 */
  readonly drift?: number;
  /** Listings in CAD (the last ones). @default 0 */
  readonly canadian?: number;
}

/**
 * Builds the market. Same options, same bytes.
 * @example const input = randomMarket({ seed: 1 }); prepareBacktestMarket(input)
 */
export function randomMarket(options: RandomMarketOptions): BacktestMarketInput {
  const rng = createRandom(options.seed);
  const n = options.assets ?? 30;
  const dates = weekdayCalendar(options.from ?? "2020-01-01", options.to ?? "2023-12-29");
  const T = dates.length;
  const sectorCodes = [10, 20, 40, 45, 55];
  const vol = (options.specificVolatility ?? 0.3) / Math.sqrt(252);
  const mu = (options.drift ?? 0.06) / 252;
  const canadian = options.canadian ?? 0;
  const ids = Array.from(
    { length: n },
    (_, i) => `R${String(i).padStart(3, "0")}:${i >= n - canadian ? "XTSE" : "XNYS"}`,
  );
  const sector = ids.map((_, i) => sectorCodes[i % sectorCodes.length]!);
  const shares = ids.map(() => Math.round(rng.uniform(1e6, 2e7)));
  const initialShares = [...shares];
  const close = new Float64Array(T * n);
  const splits: Split[] = [];
  const dividends: Dividend[] = [];
  const fxCad = new Float64Array(T);
  let fx = 1.3;
  const price = ids.map(() => rng.uniform(20, 150));
  const payer = ids.map((_, i) => i % 3 !== 2);
  const value = new Float64Array(T * n).fill(Number.NaN);
  for (let t = 0; t < T; t++) {
    const m = rng.normal(0, 0.16 / Math.sqrt(252));
    const s = sectorCodes.map(() => rng.normal(0, 0.08 / Math.sqrt(252)));
    fx *= Math.exp(rng.normal(0, 0.06 / Math.sqrt(252)));
    fxCad[t] = Math.round(fx * 1e4) / 1e4;
    for (let i = 0; i < n; i++) {
      if (t > 0) {
        const r = mu + m + s[sectorCodes.indexOf(sector[i]!)]! + rng.normal(0, vol);
        price[i] = Math.max(0.5, price[i]! * (1 + r));
        // A split when the price runs above 300 (about once for the best performers).
        if (price[i]! > 300) {
          price[i]! /= 2;
          shares[i]! *= 2;
          splits.push({ themeAssetId: ids[i]!, date: dates[t]!, ratio: 2 });
        }
      }
      close[t * n + i] = Math.round(price[i]! * 100) / 100;
    }
    const month = Number(dates[t]!.slice(5, 7));
    const next = dates[t + 1];
    const monthEnd = next === undefined || next.slice(0, 7) !== dates[t]!.slice(0, 7);
    if (monthEnd && month % 3 === 0)
      for (let i = 0; i < n; i++)
        if (payer[i])
          dividends.push({
            themeAssetId: ids[i]!,
            exDate: dates[t]!,
            amount: Math.round(close[t * n + i]! * 0.005 * 100) / 100,
          });
    if (monthEnd) for (let i = 0; i < n; i++) value[t * n + i] = rng.uniform(0, 1);
  }
  // Month-end characteristic panel (book-to-price stand-in) and cap weights at the first date.
  const monthEnds: number[] = [];
  for (let t = 0; t < T; t++) if (!Number.isNaN(value[t * n]!)) monthEnds.push(t);
  const btp = new Float64Array(monthEnds.length * n);
  monthEnds.forEach((t, j) => {
    for (let i = 0; i < n; i++) btp[j * n + i] = value[t * n + i]!;
  });
  const caps = ids.map((_, i) => (initialShares[i]! * close[i]!) / (i >= n - canadian ? fxCad[0]! : 1));
  const total = caps.reduce((a, b) => a + b, 0);
  const currency = (i: number): Currency => (i >= n - canadian ? "CAD" : "USD");
  return {
    dates,
    securities: ids.map((id, i) => ({ themeAssetId: id, currency: currency(i), sector: sector[i]! })),
    close,
    splits,
    dividends,
    fxPerUsd: canadian > 0 ? { CAD: fxCad } : {},
    characteristics: { dates: monthEnds.map((t) => dates[t]!), values: { book_to_price: btp } },
    benchmark: {
      name: "RANDOM",
      drift: true,
      dates: [dates[0]!],
      weights: [Float64Array.from(caps, (c) => c / total)],
    },
  };
}
