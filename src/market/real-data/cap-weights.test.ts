import { describe, expect, it } from "vitest";
import type { PriceBar } from "../../core/data/types.js";
import { monthEndCapWeights } from "./cap-weights.js";

const bar = (themeAssetId: string, date: string, close: number): PriceBar => ({
  themeAssetId,
  date,
  open: null,
  high: null,
  low: null,
  close,
  adjClose: null,
  volume: null,
});

const BARS = [
  bar("C:XNYS", "2020-01-02", 5),
  bar("A:XNYS", "2020-01-30", 9),
  bar("A:XNYS", "2020-01-31", 10),
  bar("A:XNYS", "2020-02-27", 11),
  bar("A:XNYS", "2020-02-28", 12),
  bar("B:XNYS", "2020-01-31", 20),
  bar("B:XNYS", "2020-02-27", 30),
];
const SHARES = new Map([
  ["A:XNYS", 100],
  ["B:XNYS", 50],
  ["C:XNYS", 10],
]);

describe("monthEndCapWeights", () => {
  it("weights by close x shares at each month end, using a recent close across a short gap", () => {
    const { dates, weights, marketCaps } = monthEndCapWeights(BARS, SHARES, "IDX", { maxStaleDays: 1 });
    expect(dates).toEqual(["2020-01-31", "2020-02-28"]);
    // Jan 31: A 10 x 100 = 1000, B 20 x 50 = 1000; C's last close (Jan 2) is 2 trading days old > 1: out.
    // Feb 28: A 12 x 100 = 1200, B 30 x 50 = 1500 (Feb 27 close, 1 day old) -> 1200/2700, 1500/2700.
    expect(weights.map((w) => [w.date, w.themeAssetId, w.weight])).toEqual([
      ["2020-01-31", "A:XNYS", 0.5],
      ["2020-01-31", "B:XNYS", 0.5],
      ["2020-02-28", "A:XNYS", 1200 / 2700],
      ["2020-02-28", "B:XNYS", 1500 / 2700],
    ]);
    expect(marketCaps.map((m) => [m.date, m.themeAssetId, m.name, m.value])).toEqual([
      ["2020-01-31", "A:XNYS", "market_cap", 1000],
      ["2020-01-31", "B:XNYS", "market_cap", 1000],
      ["2020-02-28", "A:XNYS", "market_cap", 1200],
      ["2020-02-28", "B:XNYS", "market_cap", 1500],
    ]);
  });

  it("keeps a stale constituent within the tolerance; weights of each date sum to 1", () => {
    const { weights } = monthEndCapWeights(BARS, SHARES, "IDX", { maxStaleDays: 5 });
    // Jan 31: C 5 x 10 = 50 joins: 1000 / 2050, 1000 / 2050, 50 / 2050.
    const jan = weights.filter((w) => w.date === "2020-01-31");
    expect(jan.map((w) => w.weight)).toEqual([1000 / 2050, 1000 / 2050, 50 / 2050]);
    for (const d of ["2020-01-31", "2020-02-28"]) {
      const sum = weights.filter((w) => w.date === d).reduce((s, w) => s + w.weight, 0);
      expect(sum).toBeCloseTo(1, 14);
    }
  });

  it("leaves out securities without a share count and rejects a bad one", () => {
    const { weights } = monthEndCapWeights(BARS, new Map([["A:XNYS", 100]]), "IDX");
    expect(new Set(weights.map((w) => w.themeAssetId))).toEqual(new Set(["A:XNYS"]));
    expect(() => monthEndCapWeights(BARS, new Map([["A:XNYS", 0]]), "IDX")).toThrowError(RangeError);
  });
});
