/**
 * @module core/backtest/hand-market
 * Builders of small markets written by hand (examples, tests, what-if studies): a Monday-to-Friday calendar and
 * a {@link BacktestMarketInput} from per-asset price paths given as functions of the date index.
 */
import type { Currency, Dividend, Split } from "../data/types.js";
import { addDays, isWeekday } from "../dates.js";
import type { BacktestCharacteristics, BacktestMarketInput } from "./market-data.js";

/**
 * Every Monday to Friday from `from` to `to` inclusive (no holidays).
 * @example weekdayCalendar("2024-01-01", "2024-01-07") // ["2024-01-01", ..., "2024-01-05"]
 */
export function weekdayCalendar(from: string, to: string): string[] {
  const out: string[] = [];
  for (let d = from; d <= to; d = addDays(d, 1)) if (isWeekday(d)) out.push(d);
  return out;
}

/** One asset of a hand-written market. */
export interface HandAsset {
  readonly id: string;
  /** @default "USD" */
  readonly currency?: Currency;
  /** @default null */
  readonly sector?: number | null;
  /** Raw close on date index t (NaN = no price that day). */
  readonly close: (t: number, date: string) => number;
}

/** Input of {@link handMarket}. */
export interface HandMarketInput {
  readonly dates: readonly string[];
  readonly assets: readonly HandAsset[];
  /** Target weights by theme_asset_id, from the first date on (constant), or dated vectors. */
  readonly weights:
    | Readonly<Record<string, number>>
    | readonly { readonly date: string; readonly weights: Readonly<Record<string, number>> }[];
  /** @default "HAND" */
  readonly benchmarkName?: string;
  /** @default false */
  readonly drift?: boolean;
  readonly splits?: readonly Split[];
  readonly dividends?: readonly Dividend[];
  readonly fxPerUsd?: Partial<Record<Currency, (t: number, date: string) => number>>;
  readonly characteristics?: BacktestCharacteristics;
}

/**
 * A market input from price functions.
 * @throws {RangeError} when a weight names an unknown asset.
 * @example handMarket({ dates, assets: [{ id: "A:XNYS", close: (t) => 100 + t }], weights: { "A:XNYS": 1 } })
 */
export function handMarket(input: HandMarketInput): BacktestMarketInput {
  const { dates, assets } = input;
  const n = assets.length;
  const close = new Float64Array(dates.length * n);
  dates.forEach((d, t) => {
    assets.forEach((a, i) => {
      close[t * n + i] = a.close(t, d);
    });
  });
  const column = new Map(assets.map((a, i) => [a.id, i]));
  const vector = (w: Readonly<Record<string, number>>) => {
    const out = new Float64Array(n);
    for (const [id, v] of Object.entries(w)) {
      const i = column.get(id);
      if (i === undefined) throw new RangeError(`handMarket: weight of unknown asset ${id}`);
      out[i] = v;
    }
    return out;
  };
  const dated = Array.isArray(input.weights)
    ? (input.weights as readonly { date: string; weights: Readonly<Record<string, number>> }[])
    : [{ date: dates[0]!, weights: input.weights as Readonly<Record<string, number>> }];
  const fxPerUsd: Partial<Record<Currency, Float64Array>> = {};
  for (const [currency, f] of Object.entries(input.fxPerUsd ?? {}))
    if (f) fxPerUsd[currency as Currency] = Float64Array.from(dates, (d, t) => f(t, d));
  return {
    dates,
    securities: assets.map((a) => ({
      themeAssetId: a.id,
      currency: a.currency ?? "USD",
      sector: a.sector ?? null,
    })),
    close,
    splits: input.splits ?? [],
    dividends: input.dividends ?? [],
    fxPerUsd,
    ...(input.characteristics === undefined ? {} : { characteristics: input.characteristics }),
    benchmark: {
      name: input.benchmarkName ?? "HAND",
      drift: input.drift ?? false,
      dates: dated.map((x) => x.date),
      weights: dated.map((x) => vector(x.weights)),
    },
  };
}
