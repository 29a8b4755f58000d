import { describe, expect, it } from "vitest";
import { TaxDecimal } from "../tax/index.js";
import { type CashBufferSettings, cashBuffers } from "./cash-buffers.js";

const d = (v: string | number) => new TaxDecimal(v);
const NONE: CashBufferSettings = { usdFraction: null, usdAmount: null, cadFraction: null, cadAmount: null };

describe("cashBuffers", () => {
  it("reserves nothing and reports null buffers when nothing is set", () => {
    const b = cashBuffers(NONE, d(1000), null);
    expect([b.usd, b.cad, b.reservedUsd.toString()]).toEqual([null, null, "0"]);
  });

  it("rounds a fraction of NAV up to the cent", () => {
    // 0.05 x 10,000.10 = 500.005 -> 500.01; 0.0001 x 12,345.67 = 1.234567 -> 1.24.
    expect(cashBuffers({ ...NONE, usdFraction: d("0.05") }, d("10000.10"), null).usd?.toString()).toBe(
      "500.01",
    );
    expect(cashBuffers({ ...NONE, usdFraction: d("0.0001") }, d("12345.67"), null).usd?.toString()).toBe(
      "1.24",
    );
  });

  it("lets the amount override the fraction", () => {
    const b = cashBuffers({ ...NONE, usdFraction: d("0.5"), usdAmount: d("250") }, d(10000), null);
    expect([b.usd?.toString(), b.reservedUsd.toString()]).toEqual(["250", "250"]);
  });

  it("expresses the CAD buffer in CAD and reserves it in USD at the CAD rate", () => {
    // 0.03 x 10,000 USD x 1.3712 CAD/USD = 411.36 CAD; reserved 411.36 / 1.3712 = 300 USD; plus 100 USD.
    const b = cashBuffers({ ...NONE, usdAmount: d(100), cadFraction: d("0.03") }, d(10000), d("1.3712"));
    expect([b.cad?.toString(), b.reservedUsd.toString()]).toEqual(["411.36", "400"]);
  });

  it("reports a zero CAD fraction as a zero buffer without needing the CAD rate", () => {
    const b = cashBuffers({ ...NONE, cadFraction: d(0) }, d(10000), null);
    expect([b.cad?.toString(), b.reservedUsd.toString()]).toEqual(["0", "0"]);
  });

  it("needs the CAD rate for a non-zero CAD buffer", () => {
    expect(() => cashBuffers({ ...NONE, cadAmount: d(10) }, d(10000), null)).toThrow(/needs the CAD rate/);
  });
});
