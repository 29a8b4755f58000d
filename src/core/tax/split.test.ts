import { describe, expect, it } from "vitest";
import { createLot, type TaxLot } from "./lot.js";
import { costBasisPerShare } from "./lot-values.js";
import { applySplit } from "./split.js";

const lot = (id: string, quantity: string, total: string, asset = "XYZ:XNYS"): TaxLot =>
  createLot({ id, themeAssetId: asset, quantity, totalCostBasis: total, tradeDate: "2021-04-01" });

describe("applySplit", () => {
  it("doubles shares and halves per-share basis on a 2-for-1 split", () => {
    const [s] = applySplit([lot("L", "10", "1000")], "XYZ:XNYS", 2);
    // 10 x 2 = 20 shares; 1000 / 20 = 50 per share; total 1000.
    expect([s!.quantity.toString(), costBasisPerShare(s!).toString(), s!.totalCostBasis.toString()]).toEqual([
      "20",
      "50",
      "1000",
    ]);
    expect([s!.tradeDate, s!.holdingPeriodStart]).toEqual(["2021-04-01", "2021-04-01"]);
  });

  it("conserves total basis exactly on a 3-for-2 split whose per-share basis does not terminate", () => {
    const [s] = applySplit([lot("L", "7", "1000.01")], "XYZ:XNYS", { numerator: 3, denominator: 2 });
    // 7 x 3 / 2 = 10.5 shares; per share 1000.01 / 10.5 = 95.2390476...; the total stays 1000.01 exactly.
    expect(s!.quantity.toString()).toBe("10.5");
    expect(s!.totalCostBasis.toString()).toBe("1000.01");
    expect(costBasisPerShare(s!).toFixed(6)).toBe("95.239048");
    // Same with the decimal ratio 1.5.
    expect(applySplit([lot("L", "7", "1000.01")], "XYZ:XNYS", "1.5")[0]!.quantity.toString()).toBe("10.5");
  });

  it("divides shares on a 1-for-10 reverse split, keeping fractional shares", () => {
    const [s] = applySplit([lot("L", "7", "700")], "XYZ:XNYS", { numerator: 1, denominator: 10 });
    // 7 / 10 = 0.7 shares at 1000 per share; total 700.
    expect([s!.quantity.toString(), costBasisPerShare(s!).toString(), s!.totalCostBasis.toString()]).toEqual([
      "0.7",
      "1000",
      "700",
    ]);
    expect(applySplit([lot("L", "7", "700")], "XYZ:XNYS", "0.1")[0]!.quantity.toString()).toBe("0.7");
  });

  it("only touches lots of the split asset and never mutates", () => {
    const lots = [lot("A", "10", "100"), lot("B", "5", "50", "ABC:XNYS")];
    const snapshot = JSON.stringify(lots);
    const out = applySplit(lots, "ABC:XNYS", 4);
    expect(out[0]).toBe(lots[0]);
    expect(out[1]!.quantity.toString()).toBe("20");
    expect(JSON.stringify(lots)).toBe(snapshot);
  });

  it("rejects a non-positive ratio", () => {
    expect(() => applySplit([lot("A", "1", "1")], "XYZ:XNYS", 0)).toThrow(/applySplit: ratio: must be > 0/);
    expect(() => applySplit([lot("A", "1", "1")], "XYZ:XNYS", { numerator: 1, denominator: -2 })).toThrow(
      /ratio.denominator: must be > 0/,
    );
  });
});
