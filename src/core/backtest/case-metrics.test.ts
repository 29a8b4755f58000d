import { describe, expect, it } from "vitest";
import { daysBetween } from "../dates.js";
import { summarizeBacktest } from "./case-metrics.js";
import { handMarket, weekdayCalendar } from "./hand-market.js";
import { prepareBacktestMarket } from "./market-data.js";
import type { BacktestPolicy, PolicyContext, PolicyOrder } from "./policy.js";
import { simulateBacktest } from "./simulator.js";

function scripted(script: Record<number, (c: PolicyContext) => PolicyOrder[]>): BacktestPolicy {
  return { decide: (c) => script[c.period]?.(c) ?? [] };
}

// A: 100 until 2023-03-15, 110 until 2023-07-01, 120 after. No costs, rates 37% / 20%.
const dates = weekdayCalendar("2023-01-02", "2024-06-28");
const market = prepareBacktestMarket(
  handMarket({
    dates,
    assets: [{ id: "A:XNYS", close: (_t, d) => (d < "2023-03-15" ? 100 : d < "2023-07-01" ? 110 : 120) }],
    weights: { "A:XNYS": 1 },
  }),
);
const buy = () => [{ side: "buy", column: 0, amountUsd: 10_000 }] as PolicyOrder[];
const sim = simulateBacktest({
  market,
  startDate: "2023-01-02",
  endDate: "2024-06-28",
  costs: { transactionBps: 0, fxFeeBps: 0 },
  tax: { shortTermRate: 0.37, longTermRate: 0.2 },
  cases: [
    {
      name: "hold",
      description: "buy and hold",
      taxManaged: false,
      policy: scripted({ 0: buy }),
      initial: { cashUsd: 10_000 },
    },
    {
      name: "trade",
      description: "sells half in April",
      taxManaged: true,
      // Decided 2023-04-03, executed 2023-04-04 at 110: a short-term gain of 50 x 10 = 500.
      policy: scripted({ 0: buy, 3: () => [{ side: "sell", column: 0, quantity: 50 }] }),
      initial: { cashUsd: 10_000 },
    },
  ],
});
const m = summarizeBacktest(sim, { benchmarkCase: "hold", referenceCase: "hold" });
const years = daysBetween("2023-01-02", "2024-06-28") / 365.25;
const annual = (r: number) => (1 + r) ** (1 / years) - 1;

describe("summarizeBacktest on a hand-checked pair of cases", () => {
  it("reports values at the start and each period end", () => {
    const hold = m.hold!;
    expect(hold.periods).toBe(18);
    expect(hold.values[0]).toEqual({ date: "2023-01-02", value: 10_000 });
    expect(hold.values.at(-1)).toEqual({ date: "2024-06-28", value: 12_000 });
    expect(m.trade!.endingValue).toBe(11_315); // 50 x 120 + 5,500 - 185 of 2023 tax
  });

  it("computes pre-tax returns with tax payments added back, and after-tax liquidation returns", () => {
    expect(m.hold!.preTaxReturn).toBeCloseTo(0.2, 12);
    expect(m.trade!.preTaxReturn).toBeCloseTo(0.15, 12);
    // hold: 12,000 - 2,000 long-term x 0.2 = 11,600.
    expect(m.hold!.afterTaxLiquidationValue).toBe(11_600);
    expect(m.hold!.afterTaxReturn).toBeCloseTo(0.16, 12);
    // trade: 11,315 - the remaining 50 shares' long-term gain 1,000 x 0.2 = 11,115.
    expect(m.trade!.afterTaxLiquidationValue).toBe(11_115);
    expect(m.trade!.afterTaxReturnAnnualized).toBeCloseTo(annual(0.1115), 12);
    expect(m.trade!.taxesPaid).toBe(185);
    expect(m.trade!.liquidationTax).toBe(200);
  });

  it("reports realized gains by character", () => {
    expect(m.trade!.realizedShortTermGains).toBe(500);
    expect(m.trade!.realizedLongTermGains).toBe(0);
    expect(m.trade!.realizedShortTermLosses).toBe(0);
    expect(m.hold!.realizedShortTermGains).toBe(0);
  });

  it("measures tax alpha as the annualized after-tax return difference in bps", () => {
    expect(m.trade!.taxAlphaBps).toBeCloseTo((annual(0.1115) - annual(0.16)) * 1e4, 9);
    expect(m.hold!.taxAlphaBps).toBeNull();
  });

  it("measures tracking error from period returns against the benchmark case", () => {
    // Only the July period differs: hold +9.0909%, trade 11,500 / 11,000 - 1 = +4.5455%. One active return a
    // among K zeros has sample variance a^2 / K; times K / years periods a year: TE = |a| / sqrt(years).
    const a = 11_500 / 11_000 - 12_000 / 11_000;
    expect(m.trade!.trackingError!).toBeCloseTo(Math.abs(a) / Math.sqrt(years), 12);
    expect(m.hold!.trackingError).toBeNull();
  });

  it("measures turnover as min(purchases, sales) / average value per year", () => {
    const avg = m.trade!.values.reduce((s, v) => s + v.value, 0) / m.trade!.values.length;
    expect(m.trade!.turnover).toBeCloseTo(5_500 / avg / years, 12);
    expect(m.hold!.turnover).toBe(0);
  });

  it("names an unknown reference case", () => {
    expect(() => summarizeBacktest(sim, { referenceCase: "pre_tax" })).toThrow(
      /referenceCase pre_tax is not a case/,
    );
  });
});
