import { describe, expect, it } from "vitest";
import type { PricePanel } from "../../core/data/panel.js";
import { syntheticTradingDates } from "./calendar.js";
import { computeCharacteristics } from "./characteristics.js";
import type { FundamentalsPanel } from "./types.js";

/** One security over 2023-2024 on the synthetic calendar; `closeAt(t)` gives its close. */
function onePanel(closeAt: (t: number) => number): PricePanel {
  const dates = syntheticTradingDates("2023-01-01", "2024-12-31");
  return {
    dates,
    ids: ["A:XNYS"],
    close: Float64Array.from(dates, (_, t) => closeAt(t)),
    volume: new Float64Array(dates.length),
  };
}

function valueAt(panel: ReturnType<typeof computeCharacteristics>, name: string, date: string): number {
  const m = panel.dates.indexOf(date);
  if (m < 0) throw new Error(`no observation on ${date}`);
  return panel.values[name]![m * panel.ids.length]!;
}

describe("computeCharacteristics", () => {
  it("observes on the last trading day of each month", () => {
    const c = computeCharacteristics({
      prices: onePanel(() => 10),
      currencies: ["USD"],
      initialShares: Float64Array.of(1000),
      splits: [],
      dividends: [],
      fxRates: [],
    });
    expect(c.dates.slice(0, 3)).toEqual(["2023-01-31", "2023-02-28", "2023-03-31"]);
    expect(c.dates).toHaveLength(24);
    expect(Object.keys(c.values)).toEqual(["market_cap", "dividend_yield", "momentum", "volatility"]);
  });

  it("measures the volatility of alternating returns exactly", () => {
    // Log returns alternate +a, -a: sample std over 251 returns = a * sqrt(n / (n - 1)) with mean a/n ~ 0.
    const a = 0.01;
    const c = computeCharacteristics({
      prices: onePanel((t) => 100 * Math.exp(t % 2 === 0 ? 0 : a)),
      currencies: ["USD"],
      initialShares: Float64Array.of(1),
      splits: [],
      dividends: [],
      fxRates: [],
    });
    const v = valueAt(c, "volatility", "2024-06-28");
    // 251 returns in the 252-row window: 126 of one sign, 125 of the other.
    const n = 251;
    const mean = a / n;
    const expected = Math.sqrt((252 * (n * a * a - n * mean * mean)) / (n - 1));
    expect(v).toBeCloseTo(expected, 12);
  });

  it("reports beta 2 for a stock whose log returns are twice the benchmark's", () => {
    const dates = syntheticTradingDates("2023-01-01", "2024-12-31");
    const logL = dates.map((_, t) => 0.01 * Math.sin(t / 3) + 0.0002 * t);
    const c = computeCharacteristics({
      prices: onePanel((t) => 50 * Math.exp(2 * logL[t]!)),
      currencies: ["USD"],
      initialShares: Float64Array.of(1),
      splits: [],
      dividends: [],
      fxRates: [],
      benchmarkLevels: Float64Array.from(logL, (x) => 1000 * Math.exp(x)),
    });
    expect(valueAt(c, "beta", "2024-12-31")).toBeCloseTo(2, 9);
    expect(Number.isNaN(valueAt(c, "beta", "2023-03-31"))).toBe(true); // fewer than 126 returns yet
  });

  it("computes 12-1 momentum on total return and neutralizes splits", () => {
    // Price doubles linearly in log over the two years; a 2:1 split on 2024-03-01 halves the raw price.
    const dates = syntheticTradingDates("2023-01-01", "2024-12-31");
    const splitRow = dates.indexOf("2024-03-01");
    const growth = Math.log(2) / dates.length;
    const c = computeCharacteristics({
      prices: onePanel((t) => 40 * Math.exp(growth * t) * (t >= splitRow ? 0.5 : 1)),
      currencies: ["USD"],
      initialShares: Float64Array.of(1000),
      splits: [{ themeAssetId: "A:XNYS", date: "2024-03-01", ratio: 2 }],
      dividends: [],
      fxRates: [],
    });
    // Momentum at 2024-06-28: from 2023-06-30 to 2024-05-31, exp(growth * rows) - 1.
    const rows = dates.indexOf("2024-05-31") - dates.indexOf("2023-06-30");
    expect(valueAt(c, "momentum", "2024-06-28")).toBeCloseTo(Math.exp(growth * rows) - 1, 12);
    expect(Number.isNaN(valueAt(c, "momentum", "2023-12-29"))).toBe(true); // needs 12 prior month ends
    // Market cap after the split uses the doubled share count: 2000 * close.
    const t = dates.indexOf("2024-06-28");
    expect(valueAt(c, "market_cap", "2024-06-28")).toBeCloseTo(2000 * 40 * Math.exp(growth * t) * 0.5, 6);
  });

  it("carries dividends and splits across a missing close into the next return", () => {
    // Rows: 0..k-1 at 100; row k missing (ex-date 1.0 and then a 2:1 split on row k + 1 with close 50.5).
    // Holding 1 share: 1.0 cash at ex, then 2 shares at 50.5 -> gross (2 * 50.5 + 1) / 100 = 1.02.
    const dates = syntheticTradingDates("2023-01-01", "2024-12-31");
    const k = dates.indexOf("2023-11-15");
    const closeAt = (t: number) => (t < k ? 100 : t === k ? Number.NaN : 50.5);
    const c = computeCharacteristics({
      prices: onePanel(closeAt),
      currencies: ["USD"],
      initialShares: Float64Array.of(1),
      splits: [{ themeAssetId: "A:XNYS", date: dates[k + 1]!, ratio: 2 }],
      dividends: [{ themeAssetId: "A:XNYS", exDate: dates[k]!, amount: 1 }],
      fxRates: [],
    });
    // Momentum at 2024-12-31 spans 2023-12-29 .. 2024-11-29: flat. At 2024-10-31 it spans 2023-10-31 .. 2024-09-30.
    expect(valueAt(c, "momentum", "2024-10-31")).toBeCloseTo(0.02, 12);
    expect(valueAt(c, "momentum", "2024-12-31")).toBeCloseTo(0, 12);
  });

  it("sums trailing-year dividends per current share and converts CAD caps to USD", () => {
    const c = computeCharacteristics({
      prices: { ...onePanel(() => 20), ids: ["A:XTSE"] },
      currencies: ["CAD"],
      initialShares: Float64Array.of(500),
      splits: [{ themeAssetId: "A:XTSE", date: "2024-05-01", ratio: 2 }],
      dividends: [
        { themeAssetId: "A:XTSE", exDate: "2023-06-15", amount: 0.5 }, // older than 365 days at 2024-06-28
        { themeAssetId: "A:XTSE", exDate: "2023-09-15", amount: 0.5 },
        { themeAssetId: "A:XTSE", exDate: "2024-03-15", amount: 0.5 },
        { themeAssetId: "A:XTSE", exDate: "2024-06-14", amount: 0.25 }, // after the split
      ],
      fxRates: [
        { date: "2022-12-30", currency: "CAD", perUsd: 1.25 },
        { date: "2024-06-01", currency: "CAD", perUsd: 1.6 },
      ],
    });
    // Per current share: 0.5/2 + 0.5/2 + 0.25 = 0.75; yield 0.75 / 20.
    expect(valueAt(c, "dividend_yield", "2024-06-28")).toBeCloseTo(0.0375, 12);
    // Cap: 1000 shares * 20 CAD / 1.6 CAD per USD.
    expect(valueAt(c, "market_cap", "2024-06-28")).toBeCloseTo(12_500, 9);
    expect(valueAt(c, "market_cap", "2024-05-31")).toBeCloseTo(16_000, 9); // 1.25 before June
  });

  it("uses only published fundamentals", () => {
    const quarterEnds = [
      "2022-03-31",
      "2022-06-30",
      "2022-09-30",
      "2022-12-31",
      "2023-03-31",
      "2023-06-30",
      "2023-09-30",
      "2023-12-31",
      "2024-03-31",
    ];
    const Q = quarterEnds.length;
    const f: FundamentalsPanel = {
      quarterEnds,
      ids: ["A:XNYS"],
      reportLagDays: Int32Array.of(40),
      sales: Float64Array.from({ length: Q }, (_, q) => 100 + 10 * q),
      netIncome: Float64Array.from({ length: Q }, (_, q) => (q === 8 ? -500 : 10)),
      bookEquity: Float64Array.from({ length: Q }, (_, q) => 200 + q),
    };
    const input = {
      prices: onePanel(() => 10),
      currencies: ["USD" as const],
      initialShares: Float64Array.of(40),
      splits: [],
      dividends: [],
      fxRates: [],
      fundamentals: f,
    };
    const c = computeCharacteristics(input);
    // On 2024-04-30 the quarter ending 2024-03-31 is not yet public (published 2024-05-10): quarters 4..7 count.
    // TTM income 40, shares 40 -> eps 1, pe 10; sales TTM 140+150+160+170 = 620; previous year 100+110+120+130 = 460.
    expect(valueAt(c, "eps", "2024-04-30")).toBeCloseTo(1, 12);
    expect(valueAt(c, "pe", "2024-04-30")).toBeCloseTo(10, 12);
    expect(valueAt(c, "growth", "2024-04-30")).toBeCloseTo(620 / 460 - 1, 12);
    expect(valueAt(c, "pb", "2024-04-30")).toBeCloseTo(400 / 207, 12);
    expect(valueAt(c, "profitability", "2024-04-30")).toBeCloseTo(40 / ((207 + 203) / 2), 12);
    expect(valueAt(c, "ps", "2024-04-30")).toBeCloseTo(400 / 620, 12);
    // From 2024-05-31 the loss quarter is public: TTM income -470, eps < 0 -> pe missing, earnings yield negative.
    expect(valueAt(c, "eps", "2024-05-31")).toBeCloseTo(-470 / 40, 12);
    expect(Number.isNaN(valueAt(c, "pe", "2024-05-31"))).toBe(true);
    expect(valueAt(c, "earnings_yield", "2024-05-31")).toBeCloseTo(-470 / 400, 12);
  });

  it("leaves every value missing before a listing", () => {
    const c = computeCharacteristics({
      prices: onePanel((t) => (t < 300 ? Number.NaN : 10)),
      currencies: ["USD"],
      initialShares: Float64Array.of(10),
      splits: [],
      dividends: [],
      fxRates: [],
    });
    expect(Number.isNaN(valueAt(c, "market_cap", "2023-12-29"))).toBe(true);
    expect(valueAt(c, "market_cap", "2024-12-31")).toBe(100);
  });

  it("rejects inputs that do not match the panel", () => {
    const base = {
      prices: onePanel(() => 1),
      currencies: ["USD" as const],
      initialShares: Float64Array.of(1),
      splits: [],
      dividends: [],
      fxRates: [],
    };
    expect(() => computeCharacteristics({ ...base, currencies: [] })).toThrow(/one entry per id/);
    const f: FundamentalsPanel = {
      quarterEnds: ["2022-12-31"],
      ids: ["A:XNYS"],
      reportLagDays: Int32Array.of(30),
      sales: new Float64Array(2),
      netIncome: new Float64Array(1),
      bookEquity: new Float64Array(1),
    };
    expect(() => computeCharacteristics({ ...base, fundamentals: f })).toThrow(/quarters x ids = 1 x 1/);
    expect(() => computeCharacteristics({ ...base, fundamentals: { ...f, ids: ["B:XNYS"] } })).toThrow(
      /fundamentals.ids must equal prices.ids/,
    );
    expect(() => computeCharacteristics({ ...base, benchmarkLevels: new Float64Array(3) })).toThrow(
      /benchmarkLevels has 3 values/,
    );
  });
});
