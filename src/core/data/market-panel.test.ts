import { describe, expect, it } from "vitest";
import {
  averageDailyValueUsd,
  buildMarketPanel,
  dailyUsdReturns,
  type MarketPanelInput,
} from "./market-panel.js";

const N_ = Number.NaN;
const DATES = ["2024-01-02", "2024-01-03", "2024-01-04", "2024-01-05", "2024-01-08"];
// Columns: A (USD), B (CAD), C (USD, spun off by A on 2024-01-05).
const LISTINGS = [
  { themeAssetId: "A:XNYS", currency: "USD" },
  { themeAssetId: "B:XTSE", currency: "CAD" },
  { themeAssetId: "C:XNYS", currency: "USD" },
] as const;
const CLOSE = Float64Array.from(
  [
    [100, 50, N_],
    [102, 50, N_],
    [104, N_, N_],
    [80, 52, 12],
    [81, 52, 12.5],
  ].flat(),
);
const VOLUME = Float64Array.from(
  [
    [1000, 200, N_],
    [2000, N_, N_],
    [3000, N_, N_],
    [4000, 400, 10],
    [N_, 600, 20],
  ].flat(),
);

function input(overrides: Partial<MarketPanelInput> = {}): MarketPanelInput {
  return {
    dates: DATES,
    listings: LISTINGS,
    close: CLOSE,
    volume: VOLUME,
    // A rate on the first date only, then a new one on 2024-01-05: carried forward in between.
    fxPerUsd: { CAD: Float64Array.from([1.25, N_, N_, 1.3, N_]) },
    spinOffs: [
      {
        id: "S1",
        themeAssetId: "A:XNYS",
        childAssetId: "C:XNYS",
        date: "2024-01-05",
        distributionRatio: 2,
        basisFraction: 0.2,
      },
    ],
    dividends: [
      { themeAssetId: "A:XNYS", exDate: "2024-01-03", amount: 1 },
      { themeAssetId: "Z:XNYS", exDate: "2024-01-03", amount: 5 },
    ],
    ...overrides,
  };
}

describe("buildMarketPanel", () => {
  it("carries FX forward and keeps only its own columns' corporate actions", () => {
    const p = buildMarketPanel(input());
    expect([...p.fx.get("CAD")!]).toEqual([1.25, 1.25, 1.25, 1.3, 1.3]);
    expect([...p.fx.get("USD")!]).toEqual([1, 1, 1, 1, 1]);
    expect(p.dividends.map((d) => d.themeAssetId)).toEqual(["A:XNYS"]);
    expect(p.column.get("C:XNYS")).toBe(2);
    expect(p.currencies).toEqual(["USD", "CAD", "USD"]);
  });

  it("counts a dividend, an FX move and a spin-off at the child's close in the USD total return", () => {
    const p = buildMarketPanel(input());
    const g = (t: number, i: number) => p.growth[t * 3 + i]!;
    expect(g(1, 0)).toBeCloseTo(103 / 100, 15); // (102 + 1) / 100
    // The spin-off: 80 + 2 child shares at 12 = 104, from 104 the day before.
    expect(g(3, 0)).toBeCloseTo(1, 15);
    // B: 50 CAD at 1.25 = 40 USD on 01-03, then 52 CAD at 1.30 = 40 USD on 01-05 over the missing 01-04.
    expect(g(3, 1)).toBeCloseTo(1, 15);
    expect(g(4, 2)).toBeCloseTo(12.5 / 12, 15);
    expect(p.spinOffsAt.get(3)).toEqual([
      {
        id: "S1",
        column: 0,
        childAssetId: "C:XNYS",
        childColumn: 2,
        ratio: 2,
        basisFraction: 0.2,
        childPrice: null,
      },
    ]);
  });

  it("values a spin-off whose child is not a column by the FMV relation", () => {
    const p = buildMarketPanel(
      input({
        listings: LISTINGS.slice(0, 2),
        close: CLOSE.filter((_v, k) => k % 3 !== 2),
        volume: undefined,
      }),
    );
    // child = 80 x 0.2 / (0.8 x 2) = 10 per share: 80 + 2 x 10 = 100 from 104.
    expect(p.growth[3 * 2]!).toBeCloseTo(100 / 104, 15);
    expect(p.volume).toBeNull();
  });

  it("rejects a non-positive close, a listing currency without rates and a spin-off of its own child", () => {
    const bad = Float64Array.from(CLOSE);
    bad[4] = 0;
    expect(() => buildMarketPanel(input({ close: bad }))).toThrow(
      /close of B:XTSE on 2024-01-03 must be positive/,
    );
    expect(() => buildMarketPanel(input({ fxPerUsd: {} }))).toThrow("B:XTSE trades in CAD but no CAD rates");
    expect(() =>
      buildMarketPanel(
        input({
          spinOffs: [
            {
              id: "S2",
              themeAssetId: "A:XNYS",
              childAssetId: "A:XNYS",
              date: "2024-01-05",
              distributionRatio: 1,
              basisFraction: 0.5,
            },
          ],
        }),
      ),
    ).toThrow("spin-off S2 names A:XNYS as its own child");
  });

  it("builds an empty panel without rates", () => {
    const p = buildMarketPanel({ dates: [], listings: LISTINGS, close: new Float64Array(0) });
    expect(p.growth.length).toBe(0);
    expect(dailyUsdReturns(p).length).toBe(0);
  });
});

describe("dailyUsdReturns", () => {
  it("gives a return only between two consecutive priced dates", () => {
    const p = buildMarketPanel(input());
    const r = dailyUsdReturns(p);
    expect([r[0], r[1], r[2]]).toEqual([N_, N_, N_]); // row 0
    expect(r[1 * 3]).toBeCloseTo(0.03, 15);
    expect(r[1 * 3 + 1]).toBe(0); // same close, same (carried) rate
    expect(r[2 * 3 + 1]).toBeNaN(); // no close on 01-04
    expect(r[3 * 3 + 1]).toBeNaN(); // after the gap: missing data, not a two-day return
    expect(r[3 * 3 + 2]).toBeNaN(); // C's first price
    expect(r[4 * 3 + 2]).toBeCloseTo(12.5 / 12 - 1, 15);
  });
});

describe("averageDailyValueUsd", () => {
  it("averages close x volume / FX over the last rows with a volume", () => {
    const p = buildMarketPanel(input());
    const adv = averageDailyValueUsd(p, 2);
    expect(adv[0]).toBeCloseTo((80 * 4000 + 104 * 3000) / 2, 9); // 01-08 has no volume
    expect(adv[1]).toBeCloseTo((52 * 600 + 52 * 400) / 1.3 / 2, 9);
    expect(adv[2]).toBeCloseTo((12.5 * 20 + 12 * 10) / 2, 9);
    expect([...averageDailyValueUsd(buildMarketPanel(input({ volume: undefined })), 2)]).toEqual([
      N_,
      N_,
      N_,
    ]);
  });
});
