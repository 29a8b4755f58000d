import { describe, expect, it } from "vitest";
import { daysBetween } from "../../dates.js";
import { prepareBacktestMarket } from "../market-data.js";
import type { BacktestPolicy, PolicyOrder } from "../policy.js";
import { randomMarket } from "../random-market.js";
import { simulateBacktest } from "../simulator.js";
import { harvestBaselinePolicy } from "./harvest-baseline.js";

describe("harvestBaselinePolicy (the literature's rule-based harvester)", () => {
  const market = prepareBacktestMarket(
    randomMarket({ seed: 21, assets: 20, from: "2020-06-01", to: "2022-12-30", specificVolatility: 0.45 }),
  );
  const threshold = 500;
  const baseline = harvestBaselinePolicy({ harvestThresholdBps: threshold });
  // Each decision's harvest orders and the lots the rule names, computed here from the snapshot and the view.
  const checks: { date: string; expected: string[]; harvested: string[]; bought: number[] }[] = [];
  const spy: BacktestPolicy = {
    decide(context) {
      const { view, portfolio } = context;
      const expected: string[] = [];
      for (let i = 0; i < view.size; i++) {
        if (Number.isNaN(view.price(i))) continue;
        for (const lot of portfolio.lots(i)) {
          const value = lot.quantity.toNumber() * view.priceUsd(i);
          const basis = lot.totalCostBasis.toNumber() / lot.fxRate.toNumber();
          if (basis - value >= (threshold / 1e4) * basis && basis > value) expected.push(lot.id);
        }
      }
      const orders: readonly PolicyOrder[] = baseline.decide(context);
      const harvested: string[] = [];
      const bought: number[] = [];
      for (const o of orders) {
        if (o.side === "sell" && o.harvest === true) for (const l of o.lots ?? []) harvested.push(l.lotId);
        if (o.side === "buy") bought.push(o.column);
      }
      checks.push({ date: view.date, expected: expected.sort(), harvested: harvested.sort(), bought });
      return orders;
    },
  };
  const sim = simulateBacktest({
    market,
    startDate: "2021-01-04",
    endDate: "2022-12-30",
    cases: [
      {
        name: "harvest_baseline",
        description: "",
        taxManaged: true,
        policy: spy,
        initial: { cashUsd: 1_000_000 },
        lotSelection: "TAX_OPTIMAL",
      },
    ],
  });
  const run = sim.cases[0]!;

  it("sells exactly the lots whose loss reaches the threshold at each decision", () => {
    expect(checks.length).toBe(24);
    for (const c of checks) expect(c.harvested, c.date).toEqual(c.expected);
    const harvestedLots = checks.reduce((s, c) => s + c.harvested.length, 0);
    expect(harvestedLots).toBeGreaterThan(10);
    expect(baseline.stats.harvestedLots).toBe(harvestedLots);
    // Every harvest order was filled: one realized record (or more, for a partial wash split) per lot.
    const soldLots = new Set(run.realized.filter((r) => r.harvest).map((r) => r.record.lotId));
    expect(soldLots.size).toBe(harvestedLots);
  });

  it("never buys an asset within the wash-sale window after a loss sale of it", () => {
    const lossSales = run.realized.filter((r) => r.record.gainUsd.isNegative());
    expect(lossSales.length).toBeGreaterThan(10);
    for (const f of run.fills.filter((x) => x.side === "buy"))
      for (const r of lossSales)
        if (r.record.themeAssetId === f.themeAssetId && r.record.saleDate <= f.date)
          expect(
            daysBetween(r.record.saleDate, f.date),
            `${f.themeAssetId} bought ${f.date}`,
          ).toBeGreaterThan(30);
  });

  it("puts the proceeds into the rest of the target and returns to the harvested assets after the window", () => {
    // Cash stays invested: under 2% of NAV at every period end (a month's dividends wait for the next decision).
    for (const e of run.ledger.slice(1))
      expect(e.cash.dividedBy(e.nav).toNumber(), e.date).toBeLessThan(0.02);
    expect(baseline.stats.returns).toBeGreaterThan(0);
    // Some harvested asset is bought again, after its window.
    const returned = run.realized
      .filter((r) => r.harvest)
      .some((r) =>
        run.fills.some(
          (f) =>
            f.side === "buy" &&
            f.themeAssetId === r.record.themeAssetId &&
            daysBetween(r.record.saleDate, f.date) > 30,
        ),
      );
    expect(returned).toBe(true);
  });
});
