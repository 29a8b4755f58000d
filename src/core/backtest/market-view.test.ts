import { describe, expect, it } from "vitest";
import { LookAheadError } from "./errors.js";
import { handMarket, weekdayCalendar } from "./hand-market.js";
import { prepareBacktestMarket } from "./market-data.js";
import { MarketView } from "./market-view.js";

const dates = weekdayCalendar("2024-01-01", "2024-03-29");
const market = prepareBacktestMarket(
  handMarket({
    dates,
    assets: [
      { id: "A:XNYS", close: (t) => 100 + t },
      // B splits 2-for-1 on 2024-02-01 (its raw close halves) and has a gap on 2024-01-10.
      {
        id: "B:XNYS",
        close: (_t, d) => (d === "2024-01-10" ? Number.NaN : d < "2024-02-01" ? 50 : 25),
      },
      { id: "C:XTSE", currency: "CAD", close: () => 27 },
    ],
    weights: [
      { date: "2024-01-01", weights: { "A:XNYS": 0.5, "B:XNYS": 0.5 } },
      { date: "2024-02-15", weights: { "A:XNYS": 0.25, "B:XNYS": 0.25, "C:XTSE": 0.5 } },
    ],
    drift: true,
    splits: [{ themeAssetId: "B:XNYS", date: "2024-02-01", ratio: 2 }],
    dividends: [{ themeAssetId: "A:XNYS", exDate: "2024-01-06", amount: 1 }],
    fxPerUsd: { CAD: (t) => (t < 10 ? 1.35 : 1.5) },
    characteristics: {
      dates: ["2024-01-31", "2024-02-29"],
      values: { growth: Float64Array.of(0.1, Number.NaN, 0.3, 0.2, 0.05, Number.NaN) },
    },
  }),
);
const at = (date: string) => new MarketView(market, dates.indexOf(date));

describe("MarketView", () => {
  it("refuses a close dated after the view date with LookAheadError naming both dates", () => {
    const view = at("2024-01-15");
    expect(view.closeOn("2024-01-12", 0)).toBe(100 + dates.indexOf("2024-01-12"));
    expect(() => view.closeOn("2024-01-16", 0)).toThrow(LookAheadError);
    expect(() => view.closeOn("2024-01-16", 0)).toThrow(
      /deciding on 2024-01-15 asked for the close of A:XNYS of 2024-01-16/,
    );
  });

  it("serves returns that end on the view date, oldest first", () => {
    const view = at("2024-01-05");
    const { periods, returns } = view.returns(3);
    expect(periods).toBe(3);
    // A: closes 100..104 on Jan 1..5; last three returns 102/101, 103/102, 104/103.
    expect(returns[0 * 3]).toBeCloseTo(102 / 101 - 1, 14);
    expect(returns[2 * 3]).toBeCloseTo(104 / 103 - 1, 14);
    // At the start of the data there are fewer rows.
    expect(at("2024-01-02").returns(10).periods).toBe(1);
  });

  it("carries prices over a gap and credits dividends and splits in the total return", () => {
    const view = at("2024-01-10");
    expect(view.price(1)).toBe(50);
    expect(view.pricedToday(1)).toBe(false);
    // Ex-dividend Saturday 2024-01-06 moves to Monday 2024-01-08: (105 + 1) / 104 - 1.
    const r = at("2024-01-08").returns(1).returns;
    expect(r[0]).toBeCloseTo(106 / 104 - 1, 14);
    // The split day: 25 x 2 / 50 - 1 = 0 for B.
    expect(at("2024-02-01").returns(1).returns[1]).toBe(0);
  });

  it("converts CAD closes at the day's rate", () => {
    expect(at("2024-01-02").priceUsd(2)).toBeCloseTo(27 / 1.35, 14);
    expect(at("2024-03-01").priceUsd(2)).toBeCloseTo(27 / 1.5, 14);
  });

  it("gives the benchmark weights in force, drifted by split-adjusted USD price relatives", () => {
    // From 2024-01-01: A 100 -> 100 + t, B flat in split-adjusted terms.
    const t = dates.indexOf("2024-02-14");
    const w = at("2024-02-14").benchmarkWeights();
    const gA = (100 + t) / 100;
    expect(w[0]).toBeCloseTo((0.5 * gA) / (0.5 * gA + 0.5), 14);
    expect(w[1]).toBeCloseTo(0.5 / (0.5 * gA + 0.5), 14);
    // New weights from 2024-02-15 on, undrifted on their own date.
    expect([...at("2024-02-15").benchmarkWeights()]).toEqual([0.25, 0.25, 0.5]);
  });

  it("serves each characteristic's latest observation on or before the view date", () => {
    expect([...at("2024-01-30").characteristic("growth")!]).toEqual([Number.NaN, Number.NaN, Number.NaN]);
    expect([...at("2024-02-01").characteristic("growth")!]).toEqual([0.1, Number.NaN, 0.3]);
    // On 2024-02-29 A and B are observed, C is not: C keeps its 2024-01-31 value.
    expect([...at("2024-03-01").characteristic("growth")!]).toEqual([0.2, 0.05, 0.3]);
    expect(at("2024-03-01").characteristic("unknown")).toBeNull();
  });

  it("hands out copies, so a policy cannot write into the market", () => {
    const view = at("2024-01-05");
    const before = view.benchmarkWeights()[0];
    view.benchmarkWeights().fill(9);
    view.returns(2).returns.fill(9);
    expect(view.benchmarkWeights()[0]).toBe(before);
    expect(view.returns(1).returns[0]).toBeCloseTo(104 / 103 - 1, 14);
  });
});

describe("prepareBacktestMarket", () => {
  it("names the security and date of a bad close", () => {
    const input = handMarket({
      dates,
      assets: [{ id: "A:XNYS", close: (t) => (t === 3 ? -1 : 10) }],
      weights: { "A:XNYS": 1 },
    });
    expect(() => prepareBacktestMarket(input)).toThrow(/close of A:XNYS on 2024-01-04 must be positive/);
  });

  it("requires FX rates for a non-USD listing", () => {
    const input = handMarket({
      dates,
      assets: [{ id: "C:XTSE", currency: "CAD", close: () => 10 }],
      weights: { "C:XTSE": 1 },
    });
    expect(() => prepareBacktestMarket(input)).toThrow(/trades in CAD but no CAD rates/);
  });

  it("refuses a benchmark vector of the wrong length and negative weights", () => {
    const input = handMarket({
      dates,
      assets: [{ id: "A:XNYS", close: () => 10 }],
      weights: { "A:XNYS": -0.5 },
    });
    expect(() => prepareBacktestMarket(input)).toThrow(
      /benchmark weight of A:XNYS on 2024-01-01 must be finite and >= 0/,
    );
  });
});
