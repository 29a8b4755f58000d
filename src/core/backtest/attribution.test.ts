import { describe, expect, it } from "vitest";
import { daysBetween } from "../dates.js";
import { createLot } from "../tax/index.js";
import type { CaseMetrics } from "./case-metrics.js";
import { summarizeBacktest } from "./case-metrics.js";
import { handMarket, weekdayCalendar } from "./hand-market.js";
import { prepareBacktestMarket } from "./market-data.js";
import type { BacktestPolicy, PolicyContext, PolicyOrder } from "./policy.js";
import { randomMarket } from "./random-market.js";
import { simulateBacktest } from "./simulator.js";
import { runStandardBacktest } from "./standard-cases.js";

function scripted(script: Record<number, (c: PolicyContext) => PolicyOrder[]>): BacktestPolicy {
  return { decide: (c) => script[c.period]?.(c) ?? [] };
}

/** Weekdays 2023-01-02 .. 2023-04-05; A: 100 / 80 from 02-01 / 100 from 03-15; B: 50 / 36 / 45. */
function twoAssetMarket() {
  return prepareBacktestMarket(
    handMarket({
      dates: weekdayCalendar("2023-01-02", "2023-04-05"),
      assets: [
        { id: "A:XNYS", close: (_t, d) => (d < "2023-02-01" ? 100 : d < "2023-03-15" ? 80 : 100) },
        { id: "B:XNYS", close: (_t, d) => (d < "2023-02-01" ? 50 : d < "2023-03-15" ? 36 : 45) },
      ],
      weights: { "A:XNYS": 0.5, "B:XNYS": 0.5 },
    }),
  );
}

/** 50 A and 100 B, basis 5,000 each, bought 2022-06-01 (short-term through the window). */
function startingLots() {
  return [
    createLot({
      id: "a",
      themeAssetId: "A:XNYS",
      quantity: 50,
      totalCostBasis: 5000,
      tradeDate: "2022-06-01",
    }),
    createLot({
      id: "b",
      themeAssetId: "B:XNYS",
      quantity: 100,
      totalCostBasis: 5000,
      tradeDate: "2022-06-01",
    }),
  ];
}

/** The identities of the attribution (docs/backtests.md section 7), to 1e-12. */
function expectPartsAddUp(m: CaseMetrics) {
  const a = m.attribution!;
  expect(a, m.name).not.toBeNull();
  const tol = 1e-12;
  expect(Math.abs(a.preTaxActiveReturn + a.taxEffect - a.afterTaxActiveReturn), m.name).toBeLessThan(tol);
  expect(Math.abs(a.selection + a.costs - a.preTaxActiveReturn), m.name).toBeLessThan(tol);
  expect(
    Math.abs(a.harvestValue + a.deferralCharacter + a.liquidationRecapture - a.taxEffect),
    m.name,
  ).toBeLessThan(tol);
  const sum = a.selection + a.costs + a.harvestValue + a.deferralCharacter + a.liquidationRecapture;
  expect(Math.abs(sum - a.afterTaxActiveReturn), m.name).toBeLessThan(tol);
  if (m.taxAlphaBps !== null)
    expect(Math.abs(m.taxAlphaBps / 1e4 - a.afterTaxActiveReturn)).toBeLessThan(tol);
}

describe("attribution on a hand-computed 3-period, 2-asset backtest", () => {
  // Weekdays 2023-01-02 .. 2023-04-05; window 2023-01-02 .. 2023-04-03: rebalances 01-02, 02-02, 03-02 (3 periods).
  // A: 100 to 01-31, 80 from 02-01, 100 from 03-15.  B: 50 to 01-31, 36 from 02-01, 45 from 03-15.
  const market = twoAssetMarket();
  // Both cases start with 50 A at 100 and 100 B at 50 (basis 5,000 each, bought 2022-06-01: short-term to the end).
  const lots = startingLots;
  // managed: decided 02-02, executed 02-03: harvests the A lot and buys 3,636 USD of B. ref: holds.
  const managed = scripted({
    1: () => [
      { side: "sell", column: 0, lots: [{ lotId: "a", quantity: lots()[0]!.quantity }], harvest: true },
      { side: "buy", column: 1, amountUsd: 3636 },
    ],
  });
  const sim = (liquidate: boolean) =>
    summarizeBacktest(
      simulateBacktest({
        market,
        startDate: "2023-01-02",
        endDate: "2023-04-03",
        cases: [
          {
            name: "managed",
            description: "",
            taxManaged: true,
            policy: managed,
            initial: { cashUsd: 0, lots: lots() },
          },
          {
            name: "ref",
            description: "",
            taxManaged: false,
            policy: scripted({}),
            initial: { cashUsd: 0, lots: lots() },
          },
        ],
        costs: { transactionBps: 100, fxFeeBps: 0 },
        tax: { shortTermRate: 0.4, longTermRate: 0.2, lossUsage: "outside_gains" },
      }),
      { referenceCase: "ref", liquidateAtEnd: liquidate },
    );

  // By hand (1% cost, 40% / 20%, losses offset outside gains):
  // - V0 = 50 x 100 + 100 x 50 = 10,000 for both.
  // - managed, 02-03: sells 50 A at 80 x 0.99 = 79.2 -> 3,960 cash, recognized loss 3,960 - 5,000 = -1,040 ST,
  //   cost 40; buys 3,636 / (36 x 1.01 = 36.36) = 100 B, cost 36; cash 324. Costs of the day: 76.
  //   V(02-02) = 50 x 80 + 100 x 36 = 7,600; V(02-03) = 324 + 200 x 36 = 7,524; V_end = 324 + 200 x 45 = 9,324.
  //   Pre-tax R = 9,324 / 10,000 - 1; with the 76 of costs added back on 02-03: (7,600 / 10,000) x (9,324 / 7,524).
  //   Final year as is: -1,040 x 0.4 = -416 (a saving, not paid inside the window: the year is still open), and
  //   it is all the harvest's: harvest saving 416. Kept value = 9,324 + 416 = 9,740.
  //   Liquidation at 45: lot b 4,500 - 5,000 = -500 ST, new lot 4,500 - 3,636 = +864 ST; year total
  //   -1,040 - 500 + 864 = -676 -> tax -270.4; L = 9,324 + 270.4 = 9,594.4; recapture tax 416 - 270.4 = 145.6.
  // - ref: no trade. V_end = 50 x 100 + 100 x 45 = 9,500 (= kept value). Liquidation: A 0, B -500 -> tax -200,
  //   L = 9,700.
  const years = daysBetween("2023-01-02", "2023-04-03") / 365.25; // 91 days
  const ann = (value: number) => (value / 10_000) ** (1 / years) - 1;

  it("splits the after-tax active return into the hand-computed parts (liquidation at the end)", () => {
    const m = sim(true);
    const a = m.managed!.attribution!;
    expect(a.afterTaxActiveReturn).toBeCloseTo(ann(9594.4) - ann(9700), 12);
    expect(a.preTaxActiveReturn).toBeCloseTo(ann(9324) - ann(9500), 12);
    expect(a.costs).toBeCloseTo(ann(9324) - ann(10_000 * (7600 / 10_000) * (9324 / 7524)), 12);
    expect(a.taxEffect).toBeCloseTo(ann(9594.4) - ann(9700) - (ann(9324) - ann(9500)), 12);
    expect(a.harvestValue).toBeCloseTo(ann(9594.4) - ann(9594.4 - 416), 12);
    expect(a.liquidationRecapture).toBeCloseTo(ann(9594.4) - ann(9740) - (ann(9700) - ann(9500)), 12);
    expect(a.taxEffectUsd).toBeCloseTo(0 - -416 + (-200 - 0) - (-270.4 - -416), 9); // 416 - 200 - 145.6 = 70.4
    expect(a.taxEffectUsd).toBeCloseTo(70.4, 9);
    expect(m.managed!.harvestSaving).toBeCloseTo(416, 9);
    expect(m.managed!.liquidationRecaptureTax).toBeCloseTo(145.6, 9);
    expect(m.managed!.taxYears).toEqual([
      {
        year: 2023,
        shortTermGains: 0,
        shortTermLosses: 1040,
        longTermGains: 0,
        longTermLosses: 0,
        harvestedLosses: 1040,
        taxes: -416,
        harvestSaving: 416,
        taxSavedVsReference: 416,
      },
    ]);
    expectPartsAddUp(m.managed!);
    expectPartsAddUp(m.ref!);
    expect(m.ref!.attribution!.afterTaxActiveReturn).toBe(0);
  });

  it("without liquidation the after-tax value is the kept value and nothing is recaptured", () => {
    const m = sim(false);
    const a = m.managed!.attribution!;
    expect(m.managed!.afterTaxLiquidationValue).toBeCloseTo(9740, 9);
    expect(m.ref!.afterTaxLiquidationValue).toBeCloseTo(9500, 9);
    expect(a.liquidationRecapture).toBe(0);
    expect(a.afterTaxActiveReturn).toBeCloseTo(ann(9740) - ann(9500), 12);
    expect(a.harvestValue).toBeCloseTo(ann(9740) - ann(9740 - 416), 12);
    expect(a.taxEffectUsd).toBeCloseTo(416, 9);
    expect(m.managed!.liquidationRecaptureTax).toBe(0);
    expectPartsAddUp(m.managed!);
  });
});

describe("Sharpe ratio of a case", () => {
  // Same market as above; one case holding 50 A and 100 B from 01-02 to 04-03 (no trade, no cost).
  const market = twoAssetMarket();
  const run = (riskFreeRate?: number) =>
    summarizeBacktest(
      simulateBacktest({
        market,
        startDate: "2023-01-02",
        endDate: "2023-04-03",
        cases: [
          {
            name: "hold",
            description: "",
            taxManaged: false,
            policy: scripted({}),
            initial: {
              cashUsd: 0,
              lots: startingLots(),
            },
          },
        ],
        costs: { transactionBps: 0, fxFeeBps: 0 },
        tax: { shortTermRate: 0.4, longTermRate: 0.2 },
      }),
      riskFreeRate === undefined ? {} : { riskFreeRate },
    ).hold!;

  // Period values by hand: 10,000 (01-02), 7,600 (02-02), 7,600 (03-02), 9,500 (04-03): returns -0.24, 0, 0.25.
  // Three periods in 91 days: q = 3 / (91 / 365.25) periods a year.
  const returns = [-0.24, 0, 0.25];
  const q = 3 / (daysBetween("2023-01-02", "2023-04-03") / 365.25);
  const byHand = (rf: number) => {
    const d = returns.map((r) => r - rf);
    const mean = (d[0]! + d[1]! + d[2]!) / 3;
    const sd = Math.sqrt(d.reduce((s, x) => s + (x - mean) ** 2, 0) / 2);
    return (mean / sd) * Math.sqrt(q);
  };

  it("is the annualized mean over the deviation of the period returns, risk-free 0 by default", () => {
    const m = run();
    expect([...m.periodReturns].map((r) => Number(r.toFixed(12)))).toEqual(returns);
    expect(m.sharpeRatio).toBeCloseTo(byHand(0), 12);
  });

  it("subtracts the per-period risk-free rate", () => {
    const m = run(0.04);
    expect(m.sharpeRatio).toBeCloseTo(byHand(1.04 ** (1 / q) - 1), 12);
    expect(m.sharpeRatio!).toBeLessThan(run(0).sharpeRatio!);
  });
});

describe("attribution on standard runs", () => {
  const runs = [
    { seed: 3, lossUsage: "account_only", liquidateAtEnd: true },
    { seed: 5, lossUsage: "outside_gains", liquidateAtEnd: true },
    { seed: 11, lossUsage: "outside_gains", liquidateAtEnd: false },
  ] as const;
  for (const r of runs)
    it(`adds up to the after-tax active return on every case (seed ${r.seed}, ${r.lossUsage}, liquidate ${r.liquidateAtEnd})`, () => {
      const market = prepareBacktestMarket(
        randomMarket({ seed: r.seed, assets: 20, from: "2020-06-01", to: "2022-12-30" }),
      );
      const result = runStandardBacktest({
        market,
        startDate: "2021-01-04",
        endDate: "2022-12-30",
        holdings: { cashUsd: 1_000_000 },
        benchmarkStartingValueUsd: 1_000_000,
        taxGamma: 1,
        harvestThresholdBps: 300,
        tax: { lossUsage: r.lossUsage },
        liquidateAtEnd: r.liquidateAtEnd,
      });
      const names = Object.keys(result.metrics).sort();
      expect(names).toEqual(["benchmark", "harvest_baseline", "pre_tax", "tax_managed"]);
      for (const m of Object.values(result.metrics)) {
        expectPartsAddUp(m);
        expect(m.attribution!.referenceCase).toBe("pre_tax");
        expect(m.attribution!.preTaxActiveReturnVsBenchmark).toBeCloseTo(
          m.preTaxReturnAnnualized - result.metrics.benchmark!.preTaxReturnAnnualized,
          12,
        );
        if (!r.liquidateAtEnd) expect(m.attribution!.liquidationRecapture).toBe(0);
      }
      const tm = result.metrics.tax_managed!;
      expect(tm.harvestedLosses).toBeGreaterThan(0);
      expect(tm.attribution!.harvestValue).toBeGreaterThan(0);
      // Outside gains: each year's harvested losses save exactly their marginal-rate value that year.
      if (r.lossUsage === "outside_gains") {
        const run = result.simulation.cases.find((c) => c.name === "tax_managed")!;
        for (const y of [...run.taxYears, run.finalYear]) {
          const expected = y.harvestedShortTerm.times(-0.37).plus(y.harvestedLongTerm.times(-0.2));
          expect(y.harvestSaving.minus(expected).abs().toNumber()).toBeLessThan(1e-9);
        }
      }
    }, 60_000);
});
