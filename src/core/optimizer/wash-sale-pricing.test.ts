/**
 * The optimizer prices the washed fraction of a loss, as the proposal books it (issue 13, item 4a): 5 replacement
 * shares against a 100-share loss lot disallow 5/100 of its loss, not all of it.
 */
import { describe, expect, it } from "vitest";
import { addDays } from "../dates.js";
import { buildProposal } from "../proposal/build-proposal.js";
import { buildCustomRiskModel } from "../risk/index.js";
import { createLot, type TaxLot } from "../tax/index.js";
import type { OptimizationInput } from "./optimization-types.js";
import { optimizePortfolio } from "./optimize-portfolio.js";
import { type OptimizerConfigInput, resolveOptimizerConfig } from "./optimizer-config.js";
import { replacementPools, washedShares } from "./wash-sale-pricing.js";

const AS_OF = "2025-03-03";
const A = "A:XNYS";
const B = "B:XNYS";

/**
 * NAV 20,000 USD: A at 60 USD held in a 100-share lot bought at 100 (a 4,000 USD long-term loss) and `newShares`
 * shares bought 10 days ago at 55; B at 50 fills the rest. A's weight may not exceed what the new shares are worth,
 * so the optimizer sells exactly the loss lot.
 */
function account(
  newShares: number,
  config: OptimizerConfigInput = {},
  extra: Partial<OptimizationInput> = {},
) {
  const lots: TaxLot[] = [
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
      quantity: newShares,
      costBasisPerShare: 55,
      tradeDate: addDays(AS_OF, -10),
    }),
    createLot({
      id: "b",
      themeAssetId: B,
      quantity: (20_000 - (100 + newShares) * 60) / 50,
      costBasisPerShare: 40,
      tradeDate: addDays(AS_OF, -800),
    }),
  ];
  const model = buildCustomRiskModel({
    assets: [A, B],
    factors: ["market"],
    exposures: Float64Array.of(1, 1),
    factorCovariance: Float64Array.of(0.04),
    specificVariance: Float64Array.of(0.02, 0.02),
  });
  const cap = (newShares * 60) / 20_000;
  const input: OptimizationInput = {
    asOf: AS_OF,
    assets: [A, B],
    pricesUsd: Float64Array.of(60, 50),
    lots,
    cashUsd: 0,
    benchmark: Float64Array.of(0, 1),
    riskModel: model,
    config: resolveOptimizerConfig({
      commissionRate: 0,
      brokerSpreadBps: 0,
      targetTickerWeights: [{ themeAssetId: A, upperBound: cap }],
      ...config,
    }),
    ...extra,
  };
  return input;
}

describe("the optimizer's washed-fraction pricing", () => {
  it("disallows 5/100 of a 100-share loss with 5 shares bought in the window, the proposal's amount", () => {
    const input = account(5);
    const r = optimizePortfolio(input);
    expect(r.status).toBe("optimal");
    const line = r.lotsToSell.find((l) => l.lotId === "loss")!;
    expect(line.quantity.toString()).toBe("100");
    expect(line.gainUsd).toBeCloseTo(-4000, 9);
    // The optimizer: 5/100 of the 4,000 USD loss is disallowed, the rest harvested at the long-term rate.
    expect(line.disallowedLossUsd).toBeCloseTo(200, 9);
    expect(line.taxAlphaIgnored).toBe(false);
    expect(r.harvestedLossesUsd).toBeCloseTo(3800, 9);
    expect(r.taxCostUsd).toBeCloseTo(-0.2 * 3800, 9);
    // The objective's tax term is the same priced amount (tax_gamma 1, fraction of I = NAV).
    expect(r.objective.tax * r.investableUsd).toBeCloseTo(-0.2 * 3800, 6);

    // The proposal of the same weights selling the optimizer's lots books the same disallowed loss.
    const p = buildProposal({
      asOf: AS_OF,
      lots: input.lots as TaxLot[],
      cashUsd: "0",
      securities: {
        [A]: { symbol: "A", currency: "USD", wholeSharesOnly: false },
        [B]: { symbol: "B", currency: "USD", wholeSharesOnly: false },
      },
      prices: { [A]: "60", [B]: "50" },
      targets: [
        { themeAssetId: A, weight: r.weights[0]!.toFixed(10) },
        { themeAssetId: B, weight: "0.985" },
      ],
      lotChoices: { [A]: r.lotsToSell.map((l) => ({ lotId: l.lotId, quantity: l.quantity.toString() })) },
    });
    const sell = p.orders.find((o) => o.themeAssetId === A)!;
    const booked = sell.taxLots!.find((l) => l.lotId === "loss")!;
    expect(booked.disallowedLossUsd.toNumber()).toBeCloseTo(line.disallowedLossUsd, 9);
    expect(p.realized.disallowedLossUsd.toNumber()).toBeCloseTo(200, 9);
  });

  it("prices an outside purchase by its quantity: 30 of 100 shares, 30% of the loss", () => {
    const r = optimizePortfolio(
      account(
        5,
        { tax: { washSaleThresholdDays: 5 } },
        {
          // The held lot is outside a 5-day window; a household purchase of 30 shares 2 days ago is inside.
          recentPurchases: [{ themeAssetId: A, date: addDays(AS_OF, -2), quantity: 30 }],
        },
      ),
    );
    const line = r.lotsToSell.find((l) => l.lotId === "loss")!;
    expect(line.disallowedLossUsd).toBeCloseTo(1200, 9);
    expect(r.harvestedLossesUsd).toBeCloseTo(2800, 9);
  });

  it("matches replacement shares first acquired first, never a lot to itself", () => {
    // Lots 0 (100 shares, loss) and 1 (40 shares bought in the window, loss too); a purchase of 10 shares.
    const pools = replacementPools(
      1,
      Int32Array.of(0, 0),
      Int32Array.of(100, 200),
      Float64Array.of(100, 40),
      Uint8Array.of(0, 1),
      [{ asset: 0, day: 190, shares: 10 }],
    );
    expect(pools[0]!.map((p) => p.lot)).toEqual([-1, 1]);
    // Lot 1 first: it cannot replace itself, so it takes the 10 outside shares; lot 0 then gets lot 1's 40.
    expect([...washedShares(pools[0]!, [1, 0], Float64Array.of(100, 40))]).toEqual([10, 40]);
  });
});
