import { describe, expect, it } from "vitest";
import { DataError } from "../../errors.js";
import { handMarket, weekdayCalendar } from "../hand-market.js";
import { prepareBacktestMarket } from "../market-data.js";
import { MarketView } from "../market-view.js";
import { characteristicOverlay } from "./characteristic-overlay.js";

const dates = weekdayCalendar("2024-01-01", "2024-02-29");
const ids = Array.from({ length: 10 }, (_, i) => `S${i}:XNYS`);
// Profitability 0.0, 0.1, ..., 0.9 by asset; S9 is not in the benchmark; S4 has no value.
const profitability = Float64Array.from(ids, (_, i) => (i === 4 ? Number.NaN : i / 10));
const market = prepareBacktestMarket(
  handMarket({
    dates,
    assets: ids.map((id) => ({ id, close: () => 10 })),
    weights: Object.fromEntries(ids.slice(0, 9).map((id) => [id, 1 / 9])),
    characteristics: { dates: ["2024-01-31"], values: { profitability } },
  }),
);
const view = new MarketView(market, dates.indexOf("2024-02-01"));

describe("characteristicOverlay", () => {
  it("goes long the top and short the bottom quantile of the scored benchmark members, dollar-neutral", () => {
    const w = characteristicOverlay(view, view.benchmarkWeights(), {
      factor: "quality",
      grossExposure: 0.3,
      quantile: 0.25,
    });
    // Scored members: S0..S8 without S4 = 8 names, m = floor(0.25 x 8) = 2: long S8, S7; short S0, S1.
    expect(w[8]).toBeCloseTo(0.15, 15);
    expect(w[7]).toBeCloseTo(0.15, 15);
    expect(w[0]).toBeCloseTo(-0.15, 15);
    expect(w[1]).toBeCloseTo(-0.15, 15);
    expect(w[9]).toBe(0);
    expect(w[4]).toBe(0);
    expect(w.reduce((s, x) => s + x, 0)).toBeCloseTo(0, 15);
  });

  it("reads characteristics point in time: none before the first observation", () => {
    const early = new MarketView(market, dates.indexOf("2024-01-30"));
    expect(() => characteristicOverlay(early, early.benchmarkWeights(), { factor: "quality" })).toThrow(
      DataError,
    );
    expect(() => characteristicOverlay(view, view.benchmarkWeights(), { factor: "value" })).toThrow(
      /value overlay needs book_to_price or earnings_yield/,
    );
  });

  it("refuses a gross exposure above 1 or a quantile above one half", () => {
    expect(() =>
      characteristicOverlay(view, view.benchmarkWeights(), { factor: "quality", grossExposure: 1.5 }),
    ).toThrow(RangeError);
    expect(() =>
      characteristicOverlay(view, view.benchmarkWeights(), { factor: "quality", quantile: 0.6 }),
    ).toThrow(RangeError);
  });
});
