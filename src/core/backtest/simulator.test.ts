import { describe, expect, it } from "vitest";
import { TaxDecimal } from "../tax/index.js";
import { BacktestCancelledError, LookAheadError } from "./errors.js";
import { handMarket, weekdayCalendar } from "./hand-market.js";
import { type BacktestMarket, prepareBacktestMarket } from "./market-data.js";
import type { BacktestPolicy, PolicyContext, PolicyOrder } from "./policy.js";
import { type CaseRun, type SimulateBacktestInput, simulateBacktest } from "./simulator.js";

const D = (v: string | number) => new TaxDecimal(v);

/** A policy that plays fixed orders by rebalance number. */
function scripted(script: Record<number, (c: PolicyContext) => PolicyOrder[]>): BacktestPolicy {
  return { decide: (c) => script[c.period]?.(c) ?? [] };
}

/** The accounting identities every ledger entry must satisfy exactly. */
function expectLedgerIdentities(run: CaseRun, initialCash: string) {
  for (const e of run.ledger) {
    expect(e.nav.eq(e.cash.plus(e.positionsValue)), `NAV = cash + positions on ${e.date}`).toBe(true);
    const flows = D(initialCash)
      .plus(e.totals.salesUsd)
      .minus(e.totals.purchasesUsd)
      .minus(e.totals.transactionCostUsd)
      .minus(e.totals.fxCostUsd)
      .plus(e.totals.dividendsUsd)
      .minus(e.taxesPaid);
    expect(
      e.cash.eq(flows),
      `cash = initial + sales - purchases - costs + dividends - taxes on ${e.date}`,
    ).toBe(true);
  }
}

// 2023-01-02 .. 2024-03-29 on weekdays. A: 100 until 2023-03-15, 80 until 2023-06-30, then 120.
// B: 50, split 2-for-1 on 2023-04-03 (25 after), dividend 0.50 per (new) share ex 2023-05-01.
const dates = weekdayCalendar("2023-01-02", "2024-03-29");
const handInput = handMarket({
  dates,
  assets: [
    { id: "A:XNYS", close: (_t, d) => (d < "2023-03-15" ? 100 : d < "2023-07-01" ? 80 : 120) },
    { id: "B:XNYS", close: (_t, d) => (d < "2023-04-03" ? 50 : 25) },
  ],
  weights: { "A:XNYS": 0.5, "B:XNYS": 0.5 },
  splits: [{ themeAssetId: "B:XNYS", date: "2023-04-03", ratio: 2 }],
  dividends: [{ themeAssetId: "B:XNYS", exDate: "2023-05-01", amount: 0.5 }],
});
const market: BacktestMarket = prepareBacktestMarket(handInput);

function run(policy: BacktestPolicy, extra: Partial<SimulateBacktestInput> = {}, cash = "10000"): CaseRun {
  return simulateBacktest({
    market,
    startDate: "2023-01-02",
    endDate: "2024-03-29",
    cases: [{ name: "c", description: "scripted", taxManaged: false, policy, initial: { cashUsd: cash } }],
    costs: { transactionBps: 0, fxFeeBps: 0 },
    tax: { shortTermRate: 0.37, longTermRate: 0.2 },
    ...extra,
  }).cases[0]!;
}

describe("simulateBacktest: a hand-checked account", () => {
  // Rebalances fall on the 2nd of each month (or the next weekday); orders execute the next trading day.
  const policy = scripted({
    // Decided 2023-01-02, executed 2023-01-03: 50 A at 100, 100 B at 50.
    0: () => [
      { side: "buy", column: 0, amountUsd: 5000 },
      { side: "buy", column: 1, amountUsd: 5000 },
    ],
    // Decided 2023-04-03, executed 2023-04-04 at 80: a loss of 25 x (80 - 100) = -500, short-term.
    3: () => [{ side: "sell", column: 0, quantity: 25 }],
    // Decided 2023-05-02, executed 2023-05-03 (29 days after the loss sale): buys 2,100 / 80 = 26.25 A.
    4: () => [{ side: "buy", column: 0, amountUsd: 2100 }],
    // Decided 2024-02-02, executed 2024-02-05 at 120: everything A holds.
    13: (c) => [{ side: "sell", column: 0, quantity: c.portfolio.shares[0]! }],
  });
  const result = run(policy);

  it("keeps NAV = cash + positions and the cash flow identity exactly at every period end", () => {
    expect(result.ledger).toHaveLength(16);
    expectLedgerIdentities(result, "10000");
  });

  it("applies the split to the lot: quantity doubled, total basis unchanged", () => {
    const b = result.endLots.filter((l) => l.themeAssetId === "B:XNYS");
    expect(b).toHaveLength(1);
    expect(b[0]!.quantity.eq(200)).toBe(true);
    expect(b[0]!.totalCostBasis.eq(5000)).toBe(true);
  });

  it("credits the dividend on the ex-date to the shares held the day before", () => {
    // 200 post-split shares x 0.50.
    expect(result.totals.dividendsUsd.eq(100)).toBe(true);
    const may = result.ledger.find((e) => e.date === "2023-05-02")!;
    expect(may.totals.dividendsUsd.eq(100)).toBe(true);
  });

  it("washes the loss repurchased within 30 days and moves it into the replacement lot", () => {
    const loss = result.realized.find((r) => r.record.saleDate === "2023-04-04")!.record;
    expect(loss.gainUsd.eq(-500)).toBe(true);
    expect(loss.disallowedLossUsd.eq(500)).toBe(true);
    expect(loss.recognizedGainUsd.eq(0)).toBe(true);
    expect(loss.washedQuantity.eq(25)).toBe(true);
  });

  it("realizes the sold lots' gains by character and settles them at the end", () => {
    const feb = result.realized.filter((r) => r.record.saleDate === "2024-02-05").map((r) => r.record);
    // Lot of 2023-01-03: 25 x 120 - 2,500 = 500 long-term (398 days).
    // Replacement 2023-05-03 carved to 25 shares, basis 2,000 + 500 washed, holding period tacked back by the
    // 91 days the sold shares were held (start 2023-02-01): 500 long-term.
    // Remainder 1.25 shares, basis 100: 1.25 x 120 - 100 = 50 short-term.
    const byTerm = (term: string) =>
      feb.filter((r) => r.term === term).reduce((s, r) => s.plus(r.recognizedGainUsd), D(0));
    expect(byTerm("long_term").eq(1000)).toBe(true);
    expect(byTerm("short_term").eq(50)).toBe(true);
    // 2023: the only loss was washed, nothing to pay.
    expect(result.taxYears).toHaveLength(1);
    expect(result.taxYears[0]!.taxOwed.eq(0)).toBe(true);
    // 2024 (final, partial): 50 x 0.37 + 1,000 x 0.20 = 218.5.
    expect(result.finalYear.taxOwed.eq("218.5")).toBe(true);
    // Liquidation of the 200 B shares at 25 (basis 5,000): no gain, same tax.
    expect(result.liquidation.taxOwed.eq("218.5")).toBe(true);
  });

  it("conserves realized gains: the tax years book exactly the sum over the sold lots", () => {
    const total = result.realized.reduce((s, r) => s.plus(r.record.recognizedGainUsd), D(0));
    const booked = result.taxYears
      .reduce((s, y) => s.plus(y.shortTerm).plus(y.longTerm), D(0))
      .plus(result.finalYear.shortTerm)
      .plus(result.finalYear.longTerm);
    expect(booked.eq(total)).toBe(true);
  });

  it("values the account exactly: cash + 200 B at 25 at the end", () => {
    // Cash: 10,000 - 10,000 + 2,000 + 100 - 2,100 + 51.25 x 120 = 6,150.
    expect(result.endCash.eq(6150)).toBe(true);
    expect(result.periodValues.at(-1)!.eq(6150 + 5000)).toBe(true);
  });
});

describe("simulateBacktest: year-end taxes", () => {
  it("deducts a net loss below 3,000 against ordinary income", () => {
    // Buy 100 A at 100 (2023-01-03), sell them at 80 (2023-04-04): ST loss 2,000; the cash then buys B.
    const loss = scripted({
      0: () => [{ side: "buy", column: 0, amountUsd: 10000 }],
      3: () => [{ side: "sell", column: 0, quantity: 100 }],
      6: () => [{ side: "buy", column: 1, amountUsd: 8000 }],
    });
    const r = run(loss, { tax: { shortTermRate: 0.37, longTermRate: 0.2, ordinaryIncomeRate: 0.35 } });
    // 2023: net ST -2,000 -> deduction 2,000 x 0.35 = -700 (refund), nothing carried.
    expect(r.taxYears[0]!.taxOwed.eq(-700)).toBe(true);
    expect(r.taxYears[0]!.carryforward.shortTerm.eq(0)).toBe(true);
    expectLedgerIdentities(r, "10000");
  });

  it("carries a loss above 3,000 into the next year", () => {
    // 500 A bought at 100 and sold at 80 (2023-04-04): ST loss 10,000. 100 A bought again at 80 on
    // 2023-06-05 (62 days after the loss sale: no wash sale) and sold at 120 on 2024-02-05: ST gain 4,000.
    const big = scripted({
      0: () => [{ side: "buy", column: 0, amountUsd: 50000 }],
      3: () => [{ side: "sell", column: 0, quantity: 500 }],
      5: () => [{ side: "buy", column: 0, amountUsd: 8000 }],
      13: (c) => [{ side: "sell", column: 0, quantity: c.portfolio.shares[0]! }],
    });
    const r = run(big, {}, "50000");
    // 2023: -10,000 ST -> tax -3,000 x 0.37 = -1,110; carryforward 7,000 ST.
    expect(r.taxYears[0]!.taxOwed.eq(-1110)).toBe(true);
    expect(r.taxYears[0]!.carryforward.shortTerm.eq(7000)).toBe(true);
    // 2024: 100 x (120 - 80) = +4,000 ST - 7,000 carried = -3,000 -> -1,110 again, nothing left.
    expect(r.finalYear.shortTerm.eq(4000)).toBe(true);
    expect(r.finalYear.taxOwed.eq(-1110)).toBe(true);
    expect(r.finalYear.carryforward.shortTerm.eq(0)).toBe(true);
    // The 2023 refund reached the cash at the 2023 year end.
    const yearEnd = r.ledger.find((e) => e.date === "2024-01-02")!;
    expect(yearEnd.taxesPaid.eq(-1110)).toBe(true);
    expectLedgerIdentities(r, "50000");
  });

  it("taxes every recognized dollar at its rate when losses offset outside gains", () => {
    const big = scripted({
      0: () => [{ side: "buy", column: 0, amountUsd: 50000 }],
      3: () => [{ side: "sell", column: 0, quantity: 500 }],
    });
    const r = run(
      big,
      { tax: { shortTermRate: 0.35, longTermRate: 0.15, lossUsage: "outside_gains" } },
      "50000",
    );
    // -10,000 x 0.35.
    expect(r.taxYears[0]!.taxOwed.eq(-3500)).toBe(true);
  });
});

describe("simulateBacktest: costs", () => {
  it("folds 10 bps into the trade prices and reports it as transaction cost", () => {
    const policy = scripted({
      0: () => [{ side: "buy", column: 0, amountUsd: 5000 }],
      3: () => [{ side: "sell", column: 0, quantity: 10 }],
    });
    const r = run(policy, { costs: { transactionBps: 10, fxFeeBps: 0 } });
    // Buy: 5,000 / (100 x 1.001) = 49.950049 shares (6 decimals, down); cost 49.950049 x 100.1.
    const lot = r.endLots.find((l) => l.themeAssetId === "A:XNYS")!;
    expect(lot.quantity.plus(10).eq("49.950049")).toBe(true);
    // Sell 10 at 80 x 0.999: loss = 799.2 - 10 x 100.1 = -201.8 (costs in basis and proceeds).
    expect(r.realized[0]!.record.gainUsd.eq("-201.8")).toBe(true);
    // Cost: 49.950049 x 100 x 0.001 + 10 x 80 x 0.001.
    expect(r.totals.transactionCostUsd.eq(D("49.950049").times("0.1").plus("0.8"))).toBe(true);
    expectLedgerIdentities(r, "10000");
  });
});

describe("simulateBacktest: the served view", () => {
  it("fails the run when a policy peeks at a later close", () => {
    const peeking: BacktestPolicy = {
      decide: ({ view }) => {
        const tomorrow = view.executionDate!;
        // A clairvoyant rule: buy A when tomorrow's close is higher.
        return view.closeOn(tomorrow, 0) > view.price(0) ? [{ side: "buy", column: 0, amountUsd: 100 }] : [];
      },
    };
    expect(() => run(peeking)).toThrow(LookAheadError);
  });

  it("reports progress after each period and stops when cancelled", () => {
    const seen: number[] = [];
    let checks = 0;
    expect(() =>
      run(scripted({}), {
        hooks: {
          onProgress: (p) => seen.push(p.completedPeriods),
          shouldCancel: () => ++checks > 3,
        },
      }),
    ).toThrow(BacktestCancelledError);
    expect(seen).toEqual([0, 1, 2, 3]);
    const all: { planned: number; done: number; last: string | null }[] = [];
    run(scripted({}), {
      hooks: {
        onProgress: (p) =>
          all.push({ planned: p.plannedPeriods, done: p.completedPeriods, last: p.lastCompletedPeriod }),
      },
    });
    expect(all).toHaveLength(16);
    expect(all[1]).toEqual({ planned: 15, done: 1, last: "2023-01-02" });
    expect(all.at(-1)).toEqual({ planned: 15, done: 15, last: "2024-03-04" });
  });

  it("names a sell order's unknown lot", () => {
    const bad = scripted({
      0: () => [{ side: "buy", column: 0, amountUsd: 1000 }],
      1: () => [{ side: "sell", column: 0, lots: [{ lotId: "nope", quantity: 1 }] }],
    });
    expect(() => run(bad)).toThrow(
      /sell order of A:XNYS on 2023-02-03 names lot nope, which the account does not hold/,
    );
  });

  it("refuses duplicate case names and an empty case list", () => {
    const c = {
      name: "x",
      description: "",
      taxManaged: false,
      policy: scripted({}),
      initial: { cashUsd: 1 },
    };
    expect(() =>
      simulateBacktest({ market, startDate: "2023-01-02", endDate: "2023-06-30", cases: [] }),
    ).toThrow(/at least one case/);
    expect(() =>
      simulateBacktest({ market, startDate: "2023-01-02", endDate: "2023-06-30", cases: [c, c] }),
    ).toThrow(/appears twice/);
  });
});
