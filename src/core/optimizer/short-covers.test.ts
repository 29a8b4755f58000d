import { Decimal } from "decimal.js";
import { describe, expect, it } from "vitest";
import { buildCustomRiskModel } from "../risk/index.js";
import { createLot } from "../tax/index.js";
import type { OptimizationInput, OptimizerShortLot } from "./optimization-types.js";
import { optimizePortfolio } from "./optimize-portfolio.js";
import { type OptimizerConfigInput, resolveOptimizerConfig } from "./optimizer-config.js";

const AS_OF = "2025-03-03";
const L = "L:XNYS";
const S = "S:XNYS";

/**
 * L held long (100 shares at 100, basis 100: no gain), S held short through `shorts` at price `price`; cash is the
 * long-only account's 0 plus the short-sale proceeds. The benchmark holds L only, so tracking error wants S at 0.
 */
function input(
  shorts: { id: string; qty: number; proceedsPerShare: number }[],
  price: number,
  config: OptimizerConfigInput,
): OptimizationInput {
  const shortLots: OptimizerShortLot[] = shorts.map((s) => ({
    id: s.id,
    themeAssetId: S,
    quantity: new Decimal(s.qty),
    proceedsUsd: s.qty * s.proceedsPerShare,
    openDate: "2025-01-06",
  }));
  const proceeds = shorts.reduce((a, s) => a + s.qty * s.proceedsPerShare, 0);
  return {
    asOf: AS_OF,
    assets: [L, S],
    pricesUsd: Float64Array.of(100, price),
    lots: [
      createLot({
        id: "L#1",
        themeAssetId: L,
        quantity: "100",
        costBasisPerShare: "100",
        tradeDate: "2022-01-03",
      }),
    ],
    shortLots,
    cashUsd: proceeds,
    benchmark: Float64Array.of(1, 0),
    riskModel: buildCustomRiskModel({
      assets: [L, S],
      factors: ["market"],
      exposures: Float64Array.of(1, 1),
      factorCovariance: Float64Array.of(0.04),
      specificVariance: Float64Array.of(0.02, 0.02),
    }),
    config: resolveOptimizerConfig({
      optimizationMode: "LONG_BIASED",
      ...config,
      tax: { shortTermRate: 0.4, longTermRate: 0.2, ...config.tax },
    }),
  };
}

const coveredShares = (r: ReturnType<typeof optimizePortfolio>) =>
  r.shortLotsToCover.reduce((a, c) => a + c.quantity.toNumber(), 0);

describe("the optimizer prices covers of short lots", () => {
  it("counts the short as a negative current weight: NAV = cash + longs - shorts, weights + cash share = 1", () => {
    const r = optimizePortfolio(
      input([{ id: "s1", qty: 20, proceedsPerShare: 150 }], 100, { tax: { taxGamma: 0 } }),
    );
    // cash 3000 + 100 x 100 long - 20 x 100 owed = 11,000.
    expect(r.navUsd).toBeCloseTo(11_000, 9);
    expect(r.currentWeights[1]).toBeCloseTo(-2000 / 11_000, 12);
    expect(r.currentWeights[0]).toBeCloseTo(10_000 / 11_000, 12);
    expect(r.currentWeights[0]! + r.currentWeights[1]! + 3000 / r.investableUsd).toBeCloseTo(1, 12);
    // After the trades: longs - shorts + cash + the trading costs paid is still the NAV.
    const after = r.weights[0]! + r.weights[1]! + (r.cashAfterUsd + r.transactionCostUsd) / r.investableUsd;
    expect(after).toBeCloseTo(1, 9);
  });

  it("a short whose price fell: covering realizes (proceeds - price) x shares short-term, and a tax penalty covers less", () => {
    const free = optimizePortfolio(
      input([{ id: "s1", qty: 20, proceedsPerShare: 150 }], 100, { tax: { taxGamma: 0 } }),
    );
    // Without a tax penalty tracking error alone decides: the short (benchmark weight 0) is covered in full.
    expect(free.weights[1]).toBeCloseTo(0, 9);
    expect(free.shortLotsToCover.map((c) => [c.lotId, c.quantity.toString(), c.gainUsd, c.term])).toEqual([
      ["s1", "20", 1000, "short_term"],
    ]);
    expect(free.realizedShortTermUsd).toBeCloseTo(1000, 9);
    expect(free.realizedLongTermUsd).toBe(0);
    expect(free.taxCostUsd).toBeCloseTo(1000 * 0.4, 9);
    const taxed = optimizePortfolio(
      input([{ id: "s1", qty: 20, proceedsPerShare: 150 }], 100, { tax: { taxGamma: 1 } }),
    );
    expect(coveredShares(taxed)).toBeLessThan(20);
    expect(taxed.taxCostUsd).toBeCloseTo(coveredShares(taxed) * 50 * 0.4, 9);
  });

  it("a short whose price rose: covering realizes a loss, and the tax penalty (tax alpha) covers it in full", () => {
    const r = optimizePortfolio(
      input([{ id: "s1", qty: 20, proceedsPerShare: 80 }], 100, { tax: { taxGamma: 1 } }),
    );
    expect(r.weights[1]).toBeCloseTo(0, 9);
    expect(r.shortLotsToCover.map((c) => [c.lotId, c.quantity.toString(), c.gainUsd])).toEqual([
      ["s1", "20", -400],
    ]);
    expect(r.realizedShortTermUsd).toBeCloseTo(-400, 9);
    expect(r.harvestedLossesUsd).toBeCloseTo(400, 9);
    expect(r.taxCostUsd).toBeCloseTo(-160, 9);
  });

  it("a partial cover consumes the short lot with the lowest proceeds per share first", () => {
    // 10 shares shorted at 140 and 10 at 120; S is pinned at -15 shares (cover 5): the 120 lot, 5 x (120 - 100).
    const nav = 2600 + 10_000 - 2000;
    const pinned = -1500 / nav;
    const r = optimizePortfolio(
      input(
        [
          { id: "at140", qty: 10, proceedsPerShare: 140 },
          { id: "at120", qty: 10, proceedsPerShare: 120 },
        ],
        100,
        {
          tax: { taxGamma: 0 },
          targetTickerWeights: [
            { themeAssetId: S, targetWeight: null, lowerBound: pinned, upperBound: pinned },
          ],
        },
      ),
    );
    expect(r.shortLotsToCover.map((c) => [c.lotId, c.quantity.toString(), c.gainUsd])).toEqual([
      ["at120", "5", 100],
    ]);
    expect(r.realizedShortTermUsd).toBeCloseTo(100, 9);
    // A loss lot goes before any gain lot: lots at 90 and 120, cover 12 = the 90 lot (10) then 2 of the 120 lot.
    const r2 = optimizePortfolio(
      input(
        [
          { id: "at120", qty: 10, proceedsPerShare: 120 },
          { id: "at90", qty: 10, proceedsPerShare: 90 },
        ],
        100,
        {
          tax: { taxGamma: 0 },
          targetTickerWeights: [
            { themeAssetId: S, targetWeight: null, lowerBound: -800 / 10_100, upperBound: -800 / 10_100 },
          ],
        },
      ),
    );
    expect(r2.shortLotsToCover.map((c) => [c.lotId, c.quantity.toString(), c.gainUsd])).toEqual([
      ["at90", "10", -100],
      ["at120", "2", 40],
    ]);
    expect(r2.realizedShortTermUsd).toBeCloseTo(-60, 9);
  });

  it("a tax budget counts the covers' gains: the gamma search stops the cover at the budget", () => {
    // Gain 50 a share at 40%: 20 USD of tax a share; a 100 USD budget allows 5 shares.
    const r = optimizePortfolio(
      input([{ id: "s1", qty: 20, proceedsPerShare: 150 }], 100, {
        tax: { taxGamma: 0, taxGammaMin: 0, taxGammaMax: 50, taxBudgetUsd: 100 },
      }),
    );
    expect(r.taxGammaSearch?.goal).toBe("tax_budget");
    expect(r.taxGammaSearch?.withinTolerance).toBe(true);
    expect(coveredShares(r)).toBe(5);
    expect(r.taxCostUsd).toBeCloseTo(100, 6);
    expect(r.realizedShortTermUsd).toBeCloseTo(250, 6);
    // Without the budget the same configuration covers everything (tracking error alone).
    const free = optimizePortfolio(
      input([{ id: "s1", qty: 20, proceedsPerShare: 150 }], 100, { tax: { taxGamma: 0 } }),
    );
    expect(coveredShares(free)).toBe(20);
  });

  it("a LONG_ONLY account holding a short covers it in full, with a warning", () => {
    const base = input([{ id: "s1", qty: 20, proceedsPerShare: 150 }], 100, { tax: { taxGamma: 1 } });
    const r = optimizePortfolio({ ...base, config: { ...base.config, optimizationMode: "LONG_ONLY" } });
    expect(r.weights[1]).toBe(0);
    expect(r.shortLotsToCover.map((c) => [c.lotId, c.quantity.toString(), c.gainUsd])).toEqual([
      ["s1", "20", 1000],
    ]);
    expect(r.warnings.join(" ")).toContain("LONG_ONLY: the rebalance covers the short in full");
  });
});
