import type { Decimal } from "decimal.js";
import { describe, expect, it } from "vitest";
import { daysBetween } from "../dates.js";
import { TaxDecimal } from "../tax/index.js";
import { type BacktestMarketInput, prepareBacktestMarket } from "./market-data.js";
import { createRiskModelProvider } from "./policies/risk-model-provider.js";
import { taxAwareTrackingPolicy } from "./policies/tax-aware-tracking.js";
import type { BacktestPolicy, PolicyOrder } from "./policy.js";
import { randomMarket } from "./random-market.js";
import type { CaseRun } from "./simulator.js";
import { simulateBacktest } from "./simulator.js";
import { runStandardBacktest, type StandardBacktestInput } from "./standard-cases.js";

const input = randomMarket({ seed: 7, assets: 30, canadian: 2 });
const market = prepareBacktestMarket(input);
const base: StandardBacktestInput = {
  market,
  startDate: "2021-01-04",
  endDate: "2023-12-29",
  holdings: { cashUsd: 1_000_000 },
  benchmarkStartingValueUsd: 1_000_000,
  taxGamma: 1,
  harvestThresholdBps: 500,
  longShortFactor: "value",
};
const result = runStandardBacktest(base);
const runs = new Map(result.simulation.cases.map((c) => [c.name, c]));

/** Purchases (buys and covers for longs; short sales for shorts) of an asset within +-30 days of `date`. */
function purchasesNear(run: CaseRun, themeAssetId: string, date: string, side: "buy" | "short") {
  return run.fills.filter(
    (f) => f.themeAssetId === themeAssetId && f.side === side && Math.abs(daysBetween(f.date, date)) <= 30,
  );
}

/** True when a lot of the asset bought on `date` is still held at the end or sold after the loss sale. */
function heldAfter(run: CaseRun, loss: CaseRun["realized"][number]["record"], date: string): boolean {
  return (
    run.endLots.some((l) => l.themeAssetId === loss.themeAssetId && l.tradeDate === date) ||
    run.realized.some(
      (r) =>
        r.record.themeAssetId === loss.themeAssetId &&
        r.record.tradeDate === date &&
        r.record.saleDate > loss.saleDate,
    )
  );
}

describe("runStandardBacktest on a random 30-asset market (2 Canadian listings)", () => {
  it("runs the five cases with 36 monthly periods", () => {
    expect(Object.keys(result.metrics).sort()).toEqual([
      "benchmark",
      "harvest_baseline",
      "long_short_tlh",
      "pre_tax",
      "tax_managed",
    ]);
    for (const m of Object.values(result.metrics)) {
      expect(m.periods).toBe(36);
      expect(m.values).toHaveLength(37);
      expect(m.startingValue).toBe(1_000_000);
    }
  });

  it("keeps NAV = cash + positions exactly and the cash identity to 64-digit rounding in every case", () => {
    for (const run of result.simulation.cases)
      for (const e of run.ledger) {
        expect(e.nav.eq(e.cash.plus(e.positionsValue))).toBe(true);
        const flows = new TaxDecimal(run.name === "benchmark" ? 1_000_000 : 1_000_000)
          .plus(e.totals.salesUsd)
          .minus(e.totals.purchasesUsd)
          .minus(e.totals.transactionCostUsd)
          .minus(e.totals.fxCostUsd)
          .plus(e.totals.dividendsUsd)
          .minus(e.taxesPaid);
        // CAD trades divide by the rate: the two sides round differently at 64 digits.
        expect(e.cash.minus(flows).abs().lt("1e-40")).toBe(true);
      }
  });

  it("conserves lot quantities: held = bought - sold (x splits) for every asset", () => {
    for (const run of result.simulation.cases) {
      const held = new Map<string, Decimal>();
      for (const l of run.endLots)
        held.set(l.themeAssetId, (held.get(l.themeAssetId) ?? new TaxDecimal(0)).plus(l.quantity));
      for (const id of market.ids) {
        // Replay the fills with the split ratios in date order.
        let q = new TaxDecimal(0);
        const splits = market.splitsAt;
        const column = market.column.get(id)!;
        const fills = run.fills.filter(
          (f) => f.themeAssetId === id && (f.side === "buy" || f.side === "sell"),
        );
        let k = 0;
        for (let t = 0; t < market.dates.length; t++) {
          const ev = splits.get(t)?.find((e) => e.column === column);
          if (ev) q = q.times(ev.value);
          while (k < fills.length && fills[k]!.date === market.dates[t]) {
            q = fills[k]!.side === "buy" ? q.plus(fills[k]!.quantity) : q.minus(fills[k]!.quantity);
            k++;
          }
        }
        expect(q.eq(held.get(id) ?? 0), `${run.name} ${id}`).toBe(true);
      }
    }
  });

  it("never sells at a loss within 30 days of a purchase of the same asset in the tax-managed cases", () => {
    for (const name of ["tax_managed", "long_short_tlh"]) {
      const run = runs.get(name)!;
      let lossSales = 0;
      for (const { record } of run.realized) {
        if (!record.gainUsd.isNegative()) continue;
        lossSales++;
        // The purchase of the sold lot itself is no replacement, nor a purchase whose shares were sold by the
        // loss sale's date (sold together, the loss moves into a basis realized the same day; docs/tax.md 5).
        const soldBy = new Set(
          run.realized
            .filter(
              (r) => r.record.themeAssetId === record.themeAssetId && r.record.saleDate <= record.saleDate,
            )
            .map((r) => r.record.tradeDate),
        );
        const near = purchasesNear(run, record.themeAssetId, record.saleDate, "buy").filter(
          (f) =>
            f.date !== record.tradeDate &&
            !(soldBy.has(f.date) && f.date < record.saleDate && !heldAfter(run, record, f.date)),
        );
        expect(near, `${name}: loss sale of ${record.themeAssetId} on ${record.saleDate}`).toEqual([]);
        expect(record.disallowedLossUsd.isZero()).toBe(true);
      }
      expect(lossSales).toBeGreaterThan(20);
      // Shorts: no new short within 30 days of covering one at a loss.
      for (const cover of run.covers)
        if (cover.gainUsd.isNegative())
          expect(
            purchasesNear(run, cover.themeAssetId, cover.coverDate, "short").filter(
              (f) => f.date > cover.coverDate,
            ),
          ).toEqual([]);
    }
  });

  it("tax_managed calls the core optimizer at every decision (the long-short case keeps the PWL QP)", () => {
    const tm = result.policyStats.tax_managed!;
    expect(tm.decisions).toBe(36);
    expect(tm.optimizerSolves).toBeGreaterThanOrEqual(tm.decisions);
    expect(tm.fallbacks).toBe(0);
    expect(tm.rounds).toBeGreaterThan(0);
    expect(result.policyStats.long_short_tlh!.optimizerSolves).toBe(0);
  });

  it("executes no buy of a harvested asset within the wash-sale window after the harvest", () => {
    const run = runs.get("tax_managed")!;
    let harvests = 0;
    for (const { record, harvest } of run.realized) {
      if (!harvest || !record.gainUsd.isNegative()) continue;
      harvests++;
      const after = purchasesNear(run, record.themeAssetId, record.saleDate, "buy").filter(
        (f) => f.date >= record.saleDate,
      );
      expect(after, `harvest of ${record.themeAssetId} on ${record.saleDate}`).toEqual([]);
      expect(record.disallowedLossUsd.isZero()).toBe(true);
    }
    expect(harvests).toBeGreaterThan(20);
    expect(result.metrics.tax_managed!.washSales).toBe(0);
  });

  it("keeps the PWL tracking engine available for comparison", () => {
    const { longShortFactor: _, ...noOverlay } = base;
    const pwl = runStandardBacktest({ ...noOverlay, rebalanceEngine: "pwl_tracking" });
    const stats = pwl.policyStats.tax_managed!;
    expect(stats.optimizerSolves).toBe(0);
    expect(stats.rounds).toBeGreaterThan(0);
    expect(pwl.metrics.tax_managed!.harvestedLosses).toBeGreaterThan(50_000);
    expect(pwl.metrics.tax_managed!.washSales).toBe(0);
  });

  it("records the wash sales the pre-tax case walks into, each against a purchase in the window", () => {
    const run = runs.get("pre_tax")!;
    const preTax = result.metrics.pre_tax!;
    let washed = 0;
    for (const { record } of run.realized) {
      if (record.disallowedLossUsd.isZero()) continue;
      washed++;
      expect(record.gainUsd.isNegative()).toBe(true);
      expect(record.disallowedLossUsd.lte(record.gainUsd.negated())).toBe(true);
      expect(purchasesNear(run, record.themeAssetId, record.saleDate, "buy").length).toBeGreaterThan(0);
    }
    expect(washed).toBe(preTax.washSales);
  });

  it("harvests: realized losses of harvest sales, reinvested (cash stays small)", () => {
    const tm = result.metrics.tax_managed!;
    expect(tm.harvestedLosses).toBeGreaterThan(50_000);
    expect(tm.harvestedLosses).toBeLessThanOrEqual(
      tm.realizedShortTermLosses + tm.realizedLongTermLosses + 1e-6,
    );
    expect(result.policyStats.tax_managed!.harvestedLots).toBeGreaterThan(50);
    const run = runs.get("tax_managed")!;
    for (const e of run.ledger.slice(1)) expect(e.cash.toNumber()).toBeLessThan(0.03 * e.nav.toNumber());
    expect(result.metrics.pre_tax!.harvestedLosses).toBe(0);
  });

  it("measures tax alpha against pre_tax and tracking error against the benchmark", () => {
    const m = result.metrics;
    expect(m.tax_managed!.taxAlphaBps).toBeCloseTo(
      (m.tax_managed!.afterTaxReturnAnnualized - m.pre_tax!.afterTaxReturnAnnualized) * 1e4,
      9,
    );
    expect(m.pre_tax!.taxAlphaBps).toBeNull();
    expect(m.benchmark!.taxAlphaBps).toBeNull();
    expect(m.benchmark!.trackingError).toBeNull();
    // Rebalanced to the drifting cap weights, pre_tax hugs the buy-and-hold benchmark.
    expect(m.pre_tax!.trackingError!).toBeLessThan(0.01);
    expect(m.tax_managed!.trackingError!).toBeGreaterThan(m.pre_tax!.trackingError!);
    // The benchmark never sells.
    expect(m.benchmark!.turnover).toBe(0);
    expect(m.benchmark!.taxesPaid).toBe(0);
  });

  it("is deterministic: the same inputs give the same bytes", () => {
    const again = runStandardBacktest(base);
    const bytes = (x: unknown) =>
      JSON.stringify(x, (_k, v) => (v instanceof Float64Array ? Array.from(v) : v));
    expect(bytes(again.metrics)).toBe(bytes(result.metrics));
  });
});

describe("the tax-aware policy sees no future", () => {
  /** The market with every close, dividend and characteristic after `cut` changed. */
  function perturbed(source: BacktestMarketInput, cut: string): BacktestMarketInput {
    const n = source.securities.length;
    const close = Float64Array.from(source.close);
    source.dates.forEach((d, t) => {
      if (d > cut)
        for (let i = 0; i < n; i++) close[t * n + i] = close[t * n + i]! * (1 + 0.3 * Math.sin(t + i));
    });
    const c = source.characteristics!;
    const values: Record<string, Float64Array> = {};
    for (const [name, v] of Object.entries(c.values)) {
      const copy = Float64Array.from(v);
      c.dates.forEach((d, j) => {
        if (d > cut) for (let i = 0; i < n; i++) copy[j * n + i] = 1 - copy[j * n + i]!;
      });
      values[name] = copy;
    }
    return {
      ...source,
      close,
      dividends: (source.dividends ?? []).map((x) => (x.exDate > cut ? { ...x, amount: x.amount * 3 } : x)),
      characteristics: { dates: c.dates, values },
    };
  }

  function decisions(source: BacktestMarketInput): Map<string, string> {
    const seen = new Map<string, string>();
    const inner = taxAwareTrackingPolicy({
      taxGamma: 1,
      harvestThresholdBps: 300,
      shortTermRate: 0.37,
      longTermRate: 0.2,
      transactionBps: 5,
      fxFeeBps: 25,
      riskModel: createRiskModelProvider(),
      overlay: { factor: "value" },
    });
    const recording: BacktestPolicy = {
      decide: (c) => {
        const orders: readonly PolicyOrder[] = inner.decide(c);
        seen.set(c.view.date, JSON.stringify(orders));
        return orders;
      },
    };
    simulateBacktest({
      market: prepareBacktestMarket(source),
      startDate: "2021-01-04",
      endDate: "2022-12-30",
      cases: [{ name: "x", description: "", taxManaged: true, policy: recording, initial: { cashUsd: 1e6 } }],
    });
    return seen;
  }

  it("decides the same up to a date whatever happens after it", () => {
    const cut = "2021-09-15";
    const a = decisions(input);
    const b = decisions(perturbed(input, cut));
    let compared = 0;
    for (const [date, orders] of a) {
      if (date > cut) continue;
      expect(b.get(date), date).toBe(orders);
      compared++;
    }
    expect(compared).toBe(9);
    // And the perturbation does change later decisions (the test can fail).
    expect([...a].filter(([d]) => d > cut).some(([d, o]) => b.get(d) !== o)).toBe(true);
  });
});
