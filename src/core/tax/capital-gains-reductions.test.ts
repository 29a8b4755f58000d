import { describe, expect, it } from "vitest";
import { applySale } from "./apply-sale.js";
import { applyCapitalGainsReductions, capitalGainsReduction } from "./capital-gains-reductions.js";
import { createLot } from "./lot.js";
import type { RealizedGain } from "./realized-gain.js";

/** Sells one lot of `asset` and returns its realized record (gain = quantity x (price - basis)). */
function realized(
  asset: string,
  basis: number,
  price: number,
  tradeDate: string,
  quantity = 10,
): RealizedGain {
  const lot = createLot({
    id: `${asset}-${tradeDate}`,
    themeAssetId: asset,
    quantity,
    costBasisPerShare: basis,
    tradeDate,
  });
  return applySale([lot], { themeAssetId: asset, quantity, price, date: "2024-06-28" }).realized[0]!;
}

// A: ST +1000 (10 x (200 - 100)), LT +3000 (10 x (400 - 100)) -> net +4000.
// B: ST -500 (10 x (50 - 100)), LT +2000 (10 x (300 - 100)) -> net +1500.
// C: LT -700 -> net loss.
const RECORDS = [
  realized("A:XNYS", 100, 200, "2024-01-02"),
  realized("A:XNYS", 100, 400, "2020-01-02"),
  realized("B:XNYS", 100, 50, "2024-01-02"),
  realized("B:XNYS", 100, 300, "2020-01-02"),
  realized("C:XNYS", 100, 30, "2020-01-02"),
];

describe("capital gains reductions", () => {
  it("reduces the net gain by up to the dollar amount, never below zero", () => {
    expect(capitalGainsReduction("1000", "400").toString()).toBe("400");
    expect(capitalGainsReduction("300", "400", "DOLLARS").toString()).toBe("300");
    expect(capitalGainsReduction("-300", "400", "DOLLARS").toString()).toBe("0");
  });

  it("reduces the net gain by a percent", () => {
    expect(capitalGainsReduction("1000", "25", "PERCENT").toString()).toBe("250");
    expect(capitalGainsReduction("-1000", "25", "PERCENT").toString()).toBe("0");
  });

  it("applies DOLLARS per asset, pro rata over positive short- and long-term parts", () => {
    const r = applyCapitalGainsReductions(
      RECORDS,
      { "A:XNYS": "2000", "B:XNYS": "5000", "C:XNYS": "100" },
      "DOLLARS",
    );
    const row = (id: string) => {
      const a = r.byAsset.find((x) => x.themeAssetId === id)!;
      return [a.reduction.toString(), a.shortTerm.toString(), a.longTerm.toString()];
    };
    // A: reduction 2000 of net 4000; ST share 2000 x 1000/4000 = 500 -> ST 500, LT 3000 - 1500 = 1500.
    expect(row("A:XNYS")).toEqual(["2000", "500", "1500"]);
    // B: min(5000, 1500) = 1500, all on the positive LT part: LT 2000 - 1500 = 500, ST -500 -> net 0.
    expect(row("B:XNYS")).toEqual(["1500", "-500", "500"]);
    // C: a net loss is not reduced.
    expect(row("C:XNYS")).toEqual(["0", "0", "-700"]);
    // Totals: ST 500 - 500 + 0 = 0; LT 1500 + 500 - 700 = 1300; reduction 3500.
    expect([r.shortTerm.toString(), r.longTerm.toString(), r.totalReduction.toString()]).toEqual([
      "0",
      "1300",
      "3500",
    ]);
  });

  it("applies PERCENT per asset", () => {
    const r = applyCapitalGainsReductions(RECORDS, { "A:XNYS": "25", "B:XNYS": "25" }, "PERCENT");
    // A: 25% of 4000 = 1000 -> ST 1000 - 250 = 750, LT 3000 - 750 = 2250.
    // B: 25% of 1500 = 375 -> LT 2000 - 375 = 1625, ST -500.
    expect(r.byAsset.map((a) => [a.themeAssetId, a.shortTerm.toString(), a.longTerm.toString()])).toEqual([
      ["A:XNYS", "750", "2250"],
      ["B:XNYS", "-500", "1625"],
      ["C:XNYS", "0", "-700"],
    ]);
    expect(r.totalReduction.toString()).toBe("1375");
  });

  it("leaves assets without a reduction untouched", () => {
    const r = applyCapitalGainsReductions(RECORDS, {});
    // ST 1000 - 500 = 500; LT 3000 + 2000 - 700 = 4300.
    expect([r.shortTerm.toString(), r.longTerm.toString(), r.totalReduction.toString()]).toEqual([
      "500",
      "4300",
      "0",
    ]);
  });

  it("rejects negative amounts, percents over 100 and unknown units", () => {
    expect(() => capitalGainsReduction("1", "-1")).toThrow(/amount: must be >= 0/);
    expect(() => capitalGainsReduction("1", "101", "PERCENT")).toThrow(/at most 100/);
    expect(() => capitalGainsReduction("1", "1", "EUROS" as "DOLLARS")).toThrow(/units must be/);
  });
});
