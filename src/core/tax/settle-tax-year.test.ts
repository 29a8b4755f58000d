import { describe, expect, it } from "vitest";
import { settleTaxYear } from "./settle-tax-year.js";
import { taxCost } from "./tax-cost.js";

const RATES = { shortTermRate: "0.37", longTermRate: "0.2", ordinaryIncomeRate: "0.37" };
const fmt = (s: ReturnType<typeof settleTaxYear>) => ({
  taxableShortTerm: s.taxableShortTerm.toString(),
  taxableLongTerm: s.taxableLongTerm.toString(),
  deduction: s.capitalLossDeduction.toString(),
  taxOwed: s.taxOwed.toString(),
  carryST: s.carryforward.shortTerm.toString(),
  carryLT: s.carryforward.longTerm.toString(),
});

describe("settleTaxYear", () => {
  it("taxes gains at their rates when both nets are gains", () => {
    // 10,000 x 0.37 + 20,000 x 0.20 = 3,700 + 4,000 = 7,700
    expect(fmt(settleTaxYear({ shortTerm: 10000, longTerm: 20000, ...RATES }))).toEqual({
      taxableShortTerm: "10000",
      taxableLongTerm: "20000",
      deduction: "0",
      taxOwed: "7700",
      carryST: "0",
      carryLT: "0",
    });
  });

  it("nets a short-term loss against a long-term gain; the rest stays long-term", () => {
    // -4,000 + 10,000 = 6,000 long-term x 0.20 = 1,200
    expect(fmt(settleTaxYear({ shortTerm: -4000, longTerm: 10000, ...RATES }))).toMatchObject({
      taxableShortTerm: "0",
      taxableLongTerm: "6000",
      taxOwed: "1200",
    });
  });

  it("nets a long-term loss against a short-term gain; the rest stays short-term", () => {
    // 5,000 - 2,000 = 3,000 short-term x 0.37 = 1,110
    expect(fmt(settleTaxYear({ shortTerm: 5000, longTerm: -2000, ...RATES }))).toMatchObject({
      taxableShortTerm: "3000",
      taxableLongTerm: "0",
      taxOwed: "1110",
    });
  });

  it("deducts $3,000 of a net loss and carries the rest forward with its character", () => {
    // ST -6,000, LT -2,500: net loss 8,500; deduct 3,000 (saves 3,000 x 0.37 = 1,110).
    // Carryover: the deduction absorbs short-term loss first: ST 6,000 - 3,000 = 3,000; LT 2,500.
    expect(fmt(settleTaxYear({ shortTerm: -6000, longTerm: -2500, ...RATES }))).toEqual({
      taxableShortTerm: "0",
      taxableLongTerm: "0",
      deduction: "3000",
      taxOwed: "-1110",
      carryST: "3000",
      carryLT: "2500",
    });
    // ST -1,000, LT -5,000: deduction 3,000 uses the 1,000 ST and 2,000 LT -> carry LT 3,000.
    expect(fmt(settleTaxYear({ shortTerm: -1000, longTerm: -5000, ...RATES }))).toMatchObject({
      carryST: "0",
      carryLT: "3000",
    });
    // ST +2,000, LT -7,000: net loss 5,000; deduction 3,000; carry LT 2,000.
    expect(fmt(settleTaxYear({ shortTerm: 2000, longTerm: -7000, ...RATES }))).toMatchObject({
      deduction: "3000",
      carryST: "0",
      carryLT: "2000",
    });
    // ST -7,000, LT +2,000: net loss 5,000; deduction 3,000; carry ST 2,000.
    expect(fmt(settleTaxYear({ shortTerm: -7000, longTerm: 2000, ...RATES }))).toMatchObject({
      deduction: "3000",
      carryST: "2000",
      carryLT: "0",
    });
  });

  it("uses a prior-year carryforward and a smaller limit", () => {
    // Carry in ST 3,000, LT 2,500; year ST +1,000, LT +4,000 -> ST -2,000, LT +1,500 -> net loss 500,
    // fully deducted: tax -500 x 0.37 = -185, nothing carried.
    const s = settleTaxYear({
      shortTerm: 1000,
      longTerm: 4000,
      carryforward: { shortTerm: 3000, longTerm: 2500 },
      ...RATES,
    });
    expect(fmt(s)).toEqual({
      taxableShortTerm: "0",
      taxableLongTerm: "0",
      deduction: "500",
      taxOwed: "-185",
      carryST: "0",
      carryLT: "0",
    });
    // Married filing separately: 1,500 limit. Loss 4,000 -> deduct 1,500, carry 2,500 short-term.
    expect(
      fmt(settleTaxYear({ shortTerm: -4000, longTerm: 0, lossDeductionLimit: 1500, ...RATES })),
    ).toMatchObject({
      deduction: "1500",
      carryST: "2500",
    });
  });

  it("keeps the carryover identity: carried = net loss - deduction", () => {
    for (const st of [-9000, -3000, -1, 0, 2500]) {
      for (const lt of [-8000, -2999, 0, 1000]) {
        const s = settleTaxYear({ shortTerm: st, longTerm: lt, ...RATES });
        const netLoss = Math.max(0, -(st + lt));
        expect(s.carryforward.shortTerm.plus(s.carryforward.longTerm).toNumber()).toBe(
          netLoss - s.capitalLossDeduction.toNumber(),
        );
      }
    }
  });

  it("rejects rates written as percents and negative carryforwards", () => {
    expect(() => settleTaxYear({ shortTerm: 1, longTerm: 1, ...RATES, shortTermRate: 37 })).toThrow(
      /rates are fractions in \[0, 1\] \(0.37 = 37%\), got 37/,
    );
    expect(() =>
      settleTaxYear({ shortTerm: 1, longTerm: 1, ...RATES, carryforward: { shortTerm: -1, longTerm: 0 } }),
    ).toThrow(/carryforward.shortTerm: must be >= 0/);
  });
});

describe("taxCost", () => {
  it("is linear in short- and long-term gains; losses earn a negative cost", () => {
    // 1000 x 0.37 - 500 x 0.20 = 370 - 100 = 270
    expect(
      taxCost(
        { shortTerm: "1000", longTerm: "-500" },
        { shortTermRate: "0.37", longTermRate: "0.2" },
      ).toString(),
    ).toBe("270");
    expect(
      taxCost({ shortTerm: "-1000", longTerm: 0 }, { shortTermRate: "0.37", longTermRate: "0.2" }).toString(),
    ).toBe("-370");
  });
});
