import { describe, expect, it } from "vitest";
import type { PricePanel } from "../../core/data/panel.js";
import type { FxRate, Split } from "../../core/data/types.js";
import { buildCapWeightedIndex, type CapWeightedIndexInput } from "./cap-weighted-index.js";

const INFO = { identifier: "TEST", name: "Test", currency: "USD" as const, description: null };
const NaN_ = Number.NaN;

/** Dates span a month end (Jan 31) so the index reselects once. Ids: A (USD), B (USD), C (CAD). */
function panel(): PricePanel {
  return {
    dates: ["2024-01-30", "2024-01-31", "2024-02-01", "2024-02-02"],
    ids: ["A:XNYS", "B:XNAS", "C:XTSE"],
    // biome-ignore format: one row per date
    close: Float64Array.from([
      10, 20, 26,
      11, 20, 26,
      12, 10, 26, // B splits 2:1 on 2024-02-01 and is flat
      12, 11, 39,
    ]),
    volume: new Float64Array(12),
  };
}

function input(over: Partial<CapWeightedIndexInput> = {}): CapWeightedIndexInput {
  const fxRates: FxRate[] = [
    { date: "2024-01-30", currency: "CAD", perUsd: 1.3 },
    { date: "2024-02-02", currency: "CAD", perUsd: 1.5 },
  ];
  const splits: Split[] = [{ themeAssetId: "B:XNAS", date: "2024-02-01", ratio: 2 }];
  return {
    prices: panel(),
    currencies: ["USD", "USD", "CAD"],
    initialShares: Float64Array.from([100, 100, 100]),
    splits,
    fxRates,
    eligible: Uint8Array.from([1, 1, 1]),
    maxConstituents: 3,
    info: INFO,
    ...over,
  };
}

describe("buildCapWeightedIndex", () => {
  it("computes levels from yesterday's cap weights, neutral to splits, in USD", () => {
    const idx = buildCapWeightedIndex(input());
    // Day 0: caps A 1000, B 2000, C 2600/1.3 = 2000 (USD). Level 1000.
    // Day 1: A +10%, others flat: level = 1000 * (1100 + 2000 + 2000) / 5000 = 1020.
    // Day 2: A 11 -> 12, B split 2:1 at unchanged value (10 * 2 / 20 = 1): caps at day 1 are 1100, 2000, 2000.
    //        level = 1020 * (1200 + 2000 + 2000) / 5100 = 1040.
    // Day 3: A flat, B 10 -> 11 (+10%), C 26 -> 39 CAD but CAD/USD 1.3 -> 1.5: USD growth 1.5 * 1.3/1.5 = 1.3.
    //        caps at day 2: A 1200, B 200 * 10 = 2000, C 2000: level = 1040 * (1200 + 2200 + 2600) / 5200 = 1200.
    expect([...idx.levels].map((x) => Number(x.toFixed(9)))).toEqual([1000, 1020, 1040, 1200]);
  });

  it("records weights on the first date and each month end, summing to 1", () => {
    const idx = buildCapWeightedIndex(input());
    expect(idx.weights.dates).toEqual(["2024-01-30", "2024-01-31", "2024-02-02"]);
    for (let m = 0; m < idx.weights.dates.length; m++) {
      const row = idx.weights.values.subarray(m * 3, m * 3 + 3);
      expect(row.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 12);
    }
    // 2024-01-31: caps 1100, 2000, 2000 -> weights 1100/5100, 2000/5100, 2000/5100.
    expect(idx.weights.values[3]).toBeCloseTo(1100 / 5100, 12);
  });

  it("keeps only the largest names and only eligible ones", () => {
    const idx = buildCapWeightedIndex(input({ maxConstituents: 1, eligible: Uint8Array.from([1, 1, 0]) }));
    expect(idx.weights.ids).toEqual(["A:XNYS", "B:XNAS"]);
    // Only B (cap 2000 > 1000) is held from day 0 to 1: B flat -> level stays 1000.
    expect(idx.levels[1]).toBe(1000);
    expect([...idx.weights.values.subarray(0, 2)]).toEqual([0, 1]);
  });

  it("starts when the first eligible price appears and is NaN before", () => {
    const p = panel();
    p.close[0] = NaN_;
    p.close[1] = NaN_;
    p.close[2] = NaN_;
    const idx = buildCapWeightedIndex(input({ prices: p }));
    expect(Number.isNaN(idx.levels[0]!)).toBe(true);
    expect(idx.levels[1]).toBe(1000);
  });

  it("rejects mismatched inputs", () => {
    expect(() => buildCapWeightedIndex(input({ currencies: ["USD"] }))).toThrow(/one entry per id/);
    expect(() => buildCapWeightedIndex(input({ maxConstituents: 0 }))).toThrow(
      /maxConstituents must be >= 1/,
    );
  });
});
