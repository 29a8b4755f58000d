/**
 * The optimizer's components through their lifecycle (component.ts, docs/optimizer.md "Stages and components"):
 * initialized once per rebalance (null when inactive), then their hooks — the turnover cap's row, check and
 * relaxation, the wash-sale window's exposure, the washed-fraction pricing.
 */
import { describe, expect, it } from "vitest";
import { addDays, toDayNumber } from "../dates.js";
import { buildCustomRiskModel } from "../risk/index.js";
import { createLot } from "../tax/index.js";
import { householdWashSales, isExposedLoss } from "./household-wash-sales.js";
import { prepareLotTable } from "./lot-table.js";
import type { OptimizationInput } from "./optimization-types.js";
import { optimizePortfolio } from "./optimize-portfolio.js";
import { type OptimizerConfigInput, resolveOptimizerConfig } from "./optimizer-config.js";
import { buildPeriodModel, createModelCache } from "./period-model.js";
import { turnoverLimit } from "./turnover-limit.js";
import { washedFractionPricing } from "./wash-sale-pricing.js";

const AS_OF = "2025-03-03";
const A = "A:XNYS";
const B = "B:XNYS";

/** NAV 20,000 USD: A at 60 (a 100-share lot bought at 100, a 20-share lot bought 10 days ago), B at 50 the rest. */
function input(config: OptimizerConfigInput = {}, extra: Partial<OptimizationInput> = {}): OptimizationInput {
  return {
    asOf: AS_OF,
    assets: [A, B],
    pricesUsd: Float64Array.of(60, 50),
    lots: [
      createLot({
        id: "loss",
        themeAssetId: A,
        quantity: 100,
        costBasisPerShare: 100,
        tradeDate: addDays(AS_OF, -400),
      }),
      createLot({
        id: "new",
        themeAssetId: A,
        quantity: 20,
        costBasisPerShare: 65,
        tradeDate: addDays(AS_OF, -10),
      }),
      createLot({
        id: "b",
        themeAssetId: B,
        quantity: 256,
        costBasisPerShare: 40,
        tradeDate: addDays(AS_OF, -800),
      }),
    ],
    cashUsd: 0,
    benchmark: Float64Array.of(0.5, 0.5),
    riskModel: buildCustomRiskModel({
      assets: [A, B],
      factors: ["market"],
      exposures: Float64Array.of(1, 1),
      factorCovariance: Float64Array.of(0.04),
      specificVariance: Float64Array.of(0.02, 0.02),
    }),
    config: resolveOptimizerConfig(config),
    ...extra,
  };
}

const model = (i: OptimizationInput) => buildPeriodModel(i, createModelCache());

describe("the turnover cap component", () => {
  it("is inactive without use_turnover_constraint: no component, no row", () => {
    const m = model(input({ maxTurnoverPct: 5 }));
    expect(turnoverLimit.initialize(m)).toBeNull();
    expect(m.constraints).toEqual([]);
  });

  it("adds the row sum |t| / 2 <= max_turnover_pct / 100, with coefficient +-1/2 by the trade's sign", () => {
    const m = model(input({ useTurnoverConstraint: true, maxTurnoverPct: 5 }));
    expect(m.constraints.map((c) => c.name)).toEqual(["turnover"]);
    const row = m.constraints[0]!.rows![0]!;
    expect([row.name, row.lower, row.upper]).toEqual(["turnover", Number.NEGATIVE_INFINITY, 0.05]);
    expect([row.coefficient(0.01, 0.3), row.coefficient(-0.01, 0.3), row.coefficient(0, 0.3)]).toEqual([
      0.5, -0.5, 0,
    ]);
    // Value c t = c (x - shift): the constant of a buy segment at shift 0.1 is -0.05.
    expect(row.constant(0.5, 0.1, 0.4)).toBe(-0.05);
    expect(m.constraints[0]!.relaxation).toEqual({ name: "max_turnover_pct", detail: "5" });
  });

  it("checks the turnover the bounds force before any solve, naming the constraint that forces it", () => {
    // A holds 120 x 60 = 7,200 of 20,000 USD (36%); no_hold sells it all: 18% one-way turnover, above 5%.
    const i = input({ useTurnoverConstraint: true, maxTurnoverPct: 5, noHold: [A] });
    expect(model(i).constraints[0]!.precheck!()).toEqual([
      "The weight bounds force at least 18% one-way turnover, above max_turnover_pct 5: no_hold_tickers on 1 asset = 0.18.",
    ]);
    const r = optimizePortfolio(i);
    expect(r.status).toBe("infeasible");
    expect(r.diagnosis).toContain(
      "The weight bounds force at least 18% one-way turnover, above max_turnover_pct 5: no_hold_tickers on 1 asset = 0.18.",
    );
  });

  it("keeps the optimizer's turnover at the cap", () => {
    const r = optimizePortfolio(input({ useTurnoverConstraint: true, maxTurnoverPct: 2, tcostBps: 0 }));
    expect(r.status).toBe("optimal");
    expect(r.turnover).toBeLessThanOrEqual(0.02 + 1e-9);
    expect(r.turnover).toBeGreaterThan(0.019);
  });
});

describe("the wash-sale window and the washed-fraction pricing components", () => {
  const context = (i: OptimizationInput) => ({
    input: i,
    lotTable: prepareLotTable(i.lots!, i.assets, 365),
    index: new Map(i.assets.map((a, k) => [a, k] as const)),
    n: i.assets.length,
    asOfDay: toDayNumber(AS_OF),
    thresholdDays: 30,
  });

  it("counts household purchases inside the window only, and never lets a lot replace itself", () => {
    const i = input(
      {},
      {
        recentPurchases: [
          { themeAssetId: B, date: addDays(AS_OF, -40), quantity: 10 },
          { themeAssetId: B, date: addDays(AS_OF, -3), quantity: 7 },
        ],
      },
    );
    const env = householdWashSales.initialize(context(i))!;
    expect(env.purchases).toEqual([{ asset: 1, day: toDayNumber(AS_OF) - 3, shares: 7 }]);
    expect([...env.recentPurchase]).toEqual([0, 1]);
    // A's 100-share loss lot is exposed by the 20 shares bought 10 days ago; that window lot is not by itself.
    expect(isExposedLoss(env, 0, 0)).toBe(true);
    expect(isExposedLoss(env, 0, 1)).toBe(false);
    // B's lot by the household purchase.
    expect(isExposedLoss(env, 1, 2)).toBe(true);
  });

  it("prices the washed fraction by replacement shares, and is inactive without any", () => {
    const ctx = context(input());
    const env = householdWashSales.initialize(ctx)!;
    const pricing = washedFractionPricing.initialize({ n: 2, lotTable: ctx.lotTable, window: env })!;
    expect([pricing.covers(0), pricing.covers(1)]).toEqual([true, false]);
    const fraction = new Float64Array(3);
    // A's loss lots in consumption order: the old lot, then the new one (which cannot replace itself).
    pricing.price(0, [0, 1], fraction);
    expect([...fraction]).toEqual([0.2, 0, 0]);

    // Outside the window nothing replaces anything: no pricing state at all.
    const late = { ...context(input()), asOfDay: toDayNumber(AS_OF) + 60 };
    const lateEnv = householdWashSales.initialize(late)!;
    expect(washedFractionPricing.initialize({ n: 2, lotTable: late.lotTable, window: lateEnv })).toBeNull();
  });
});
