import { describe, expect, it } from "vitest";
import { fxCostForNet, fxCostFromBase } from "./fx-cost.js";

describe("fxCostFromBase", () => {
  it("takes the fee out of the base amount (contract example: 1,500 USD at 0.25%)", () => {
    // fee = 1500 x 0.25 / 100 = 3.75; net = 1500 - 3.75 = 1496.25.
    const b = fxCostFromBase("CAD", "1.35", 1500, "0.25");
    expect([b.currency, b.fxRate.toString(), b.baseAmountUsd.toString()]).toEqual(["CAD", "1.35", "1500"]);
    expect([b.feeAmountUsd.toString(), b.netAmountUsd.toString()]).toEqual(["3.75", "1496.25"]);
  });

  it("is exact for a cent amount (at most six decimals)", () => {
    // 0.01 x 0.25 / 100 = 0.000025.
    expect(fxCostFromBase("CAD", 1.3, "0.01", "0.25").feeAmountUsd.toString()).toBe("0.000025");
  });

  it("charges nothing at a zero fee", () => {
    const b = fxCostFromBase("EUR", "0.92", "100", 0);
    expect([b.feeAmountUsd.toString(), b.netAmountUsd.toString()]).toEqual(["0", "100"]);
  });
});

describe("fxCostForNet", () => {
  it("grosses the base up so that base - fee pays the shares exactly", () => {
    // net 990 at 1%: base = 990 / 0.99 = 1000; fee = 1000 - 990 = 10 (= 1000 x 1%).
    const b = fxCostForNet("CAD", "1.25", 990, 1);
    expect([b.baseAmountUsd.toString(), b.feeAmountUsd.toString(), b.netAmountUsd.toString()]).toEqual([
      "1000",
      "10",
      "990",
    ]);
  });

  it("keeps base = net + fee exactly when the division does not terminate", () => {
    // net 100 at 0.25%: base = 100 / 0.9975 = 100.2506265664...; fee = base - net.
    const b = fxCostForNet("CAD", "1.35", 100, "0.25");
    expect(b.baseAmountUsd.toFixed(10)).toBe("100.2506265664");
    expect(b.netAmountUsd.plus(b.feeAmountUsd).eq(b.baseAmountUsd)).toBe(true);
    expect(b.baseAmountUsd.times("0.0025").minus(b.feeAmountUsd).abs().lt("1e-55")).toBe(true);
  });

  it("refuses a fee of 100% or more", () => {
    expect(() => fxCostForNet("CAD", 1.3, 10, 100)).toThrow(
      /fxCostForNet: fee percentage 100 must be below 100/,
    );
  });
});
