import { describe, expect, it } from "vitest";
import { totalReturnPanel } from "./market-panel.js";

const N = Number.NaN;
const DATES = ["2024-01-02", "2024-01-03", "2024-01-04", "2024-01-05", "2024-01-08"];
const IDS = ["A:XNYS", "B:XTSE", "C:XNAS"];
// Row-major close[t * 3 + i].
const CLOSE = Float64Array.from([
  100,
  130,
  50, // t0
  110,
  130,
  N, // t1
  N,
  143,
  N, // t2
  60,
  143,
  55, // t3: A after a 2-for-1 split
  61,
  N,
  56, // t4
]);
const CAD = Float64Array.from([1.3, 1.25, 1.3, 1.1, 1.1]);

const panel = () =>
  totalReturnPanel({
    dates: DATES,
    ids: IDS,
    close: CLOSE,
    splits: [
      { themeAssetId: "A:XNYS", date: "2024-01-05", ratio: 2 },
      { themeAssetId: "C:XNAS", date: "2024-01-04", ratio: 2 },
    ],
    dividends: [
      { themeAssetId: "A:XNYS", exDate: "2024-01-06", amount: 0.5 }, // a Saturday: counts on 2024-01-08
      { themeAssetId: "C:XNAS", exDate: "2024-01-03", amount: 1 },
      { themeAssetId: "C:XNAS", exDate: "2024-01-04", amount: 0.5 },
      { themeAssetId: "Z:XNYS", exDate: "2024-01-04", amount: 9 }, // not in the panel: ignored
    ],
    fxPerUsd: [undefined, CAD, undefined],
  });
const g = (t: number, i: number) => panel().growth[t * 3 + i]!;

describe("totalReturnPanel", () => {
  it("measures plain price moves and carries a missing price flat", () => {
    expect(g(0, 0)).toBe(1); // first priced date
    expect(g(1, 0)).toBeCloseTo(1.1, 15);
    expect(g(2, 0)).toBe(1); // no price on t2
    expect(panel().priced[2 * 3]).toBe(0);
  });

  it("adds back a split that happened while the price was missing: 2 x 60 / 110", () => {
    expect(g(3, 0)).toBeCloseTo(120 / 110, 14);
  });

  it("reinvests a dividend, moved from a Saturday to the next trading date: (61 + 0.5) / 60", () => {
    expect(g(4, 0)).toBeCloseTo(61.5 / 60, 14);
  });

  it("converts CAD prices to USD with units per USD: (130 / 1.25) / (130 / 1.3) = 1.04", () => {
    expect(g(1, 1)).toBeCloseTo(1.04, 14);
    expect(g(2, 1)).toBeCloseTo(110 / 104, 14); // 143 / 1.3 = 110 USD from 104
    expect(g(3, 1)).toBeCloseTo(130 / 110, 14); // 143 / 1.1 = 130 USD
    expect(g(4, 1)).toBe(1);
  });

  it("accumulates splits and dividends over a gap, the split first on a shared day", () => {
    // C holds 1 share from t0 (50): t1 dividend 1 x 1 share = 1; t2 split to 2 shares, dividend 0.5 x 2 = 1;
    // t3 value = 2 x 55 + 2 = 112 -> growth 112 / 50.
    expect(g(1, 2)).toBe(1);
    expect(g(2, 2)).toBe(1);
    expect(g(3, 2)).toBeCloseTo(112 / 50, 14);
    expect(g(4, 2)).toBeCloseTo(56 / 55, 14);
  });

  it("marks a price with an unknown FX rate as not priced", () => {
    const fx = Float64Array.from([1.3, N, 1.3, 1.1, 1.1]);
    const p = totalReturnPanel({
      dates: DATES,
      ids: IDS,
      close: CLOSE,
      fxPerUsd: [undefined, fx, undefined],
    });
    expect(p.priced[1 * 3 + 1]).toBe(0);
    expect(p.growth[2 * 3 + 1]).toBeCloseTo(110 / 100, 14); // from t0's 100 USD to t2's 110 USD
  });

  it("rejects arrays that do not match the dates and ids", () => {
    expect(() => totalReturnPanel({ dates: DATES, ids: IDS, close: new Float64Array(3) })).toThrow(
      "totalReturnPanel: close has 3 values, expected 5 x 3 = 15",
    );
    expect(() => totalReturnPanel({ dates: DATES, ids: IDS, close: CLOSE, fxPerUsd: [undefined] })).toThrow(
      "fxPerUsd has 1 entries",
    );
  });
});
