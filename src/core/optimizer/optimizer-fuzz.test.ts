/**
 * Random configurations against random accounts: every combination of one to four configuration features (weight
 * and active bounds, no-hold / no-trade lists, substitution groups, risk and turnover caps, every cost, whole
 * shares, reductions, buffers, tax preferences, the tax_gamma search, factor bounds, mean-variance, long-biased and
 * long-short) must either be refused by the configuration check, end infeasible with a diagnosis, or return a
 * portfolio that keeps each constraint it asked for. This found two bugs the per-field tests did not (a rounding
 * "empty domain" with substitution groups; the tax_gamma search buying a second member of a group).
 */
import { describe, expect, it } from "vitest";
import { randomAccount } from "../../../test/helpers/random-account.js";
import { ValidationError } from "../errors.js";
import { createRandom } from "../random.js";
import type { OptimizationInput } from "./optimization-types.js";
import { createOptimizer } from "./optimize-portfolio.js";
import type { OptimizerConfigInput } from "./optimizer-config.js";

const N_ASSETS = 20;
const id = (i: number) => `S${i}:XNYS`;
type Rng = ReturnType<typeof createRandom>;

/** 4 lots per asset, 15% of assets not held, random cash, sometimes a purchase in the wash-sale window. */
const account = (seed: number, config: OptimizerConfigInput): OptimizationInput =>
  randomAccount(seed, config, {
    n: N_ASSETS,
    lotsPerAsset: 4,
    minAgeDays: 1,
    unheldShare: 0.15,
    randomCash: true,
    recentPurchaseChance: 0.3,
    withVolumes: true,
  }).input;

/** `r.int(lo, hi)` draws from lo..hi-1. */
const pick = (r: Rng) => id(r.int(0, N_ASSETS));
/** Configuration features, each drawn with random values. */
const FEATURES: ((r: Rng) => OptimizerConfigInput)[] = [
  (r) => ({ maxWeight: 0.05 + 0.2 * r.next() }),
  (r) => ({ minWeight: 0.002 * r.next() }),
  (r) => ({ minActiveWeight: -0.02 * r.next(), maxActiveWeight: 0.02 * r.next() }),
  (r) => ({ noHold: [pick(r), pick(r)] }),
  (r) => ({ noTrade: [pick(r)] }),
  (r) => ({
    substitutionGroups: [
      [id(r.int(0, 5)), id(r.int(5, 10))],
      [id(r.int(10, 15)), id(r.int(15, 20))],
    ],
  }),
  (r) => ({ useActiveRiskBounds: true, maxActiveRiskPct: 0.2 + 3 * r.next() }),
  (r) => ({ useTurnoverConstraint: true, maxTurnoverPct: 1 + 20 * r.next() }),
  (r) => ({ tcostBps: 20 * r.next() }),
  (r) => ({ bidAskSpreadParameter: 10 * r.next(), bidAskSpreadRefVolume: 3e6 }),
  (r) => ({ marketImpactParameter: r.next() }),
  (r) => ({ commissionRate: 0.001 * r.next(), brokerSpreadBps: 5 * r.next() }),
  () => ({ requireWholeShares: true }),
  (r) => ({ requireWholeShares: true, wholeShareAssets: [pick(r), pick(r)] }),
  (r) => ({ capitalGainsReductions: { [pick(r)]: 5000 * r.next() }, capitalGainsReductionsUnits: "DOLLARS" }),
  (r) => ({ capitalGainsReductions: { [pick(r)]: 100 * r.next() }, capitalGainsReductionsUnits: "PERCENT" }),
  () => ({ useCashBenchmark: true }),
  (r) => ({ cashBufferUsd: 0.05 * r.next() }),
  (r) => ({ cashBufferUsdAmount: 5000 * r.next() }),
  (r) => ({ tax: { taxGamma: 3 * r.next() } }),
  (r) => ({ tax: { taxBudgetUsd: 20_000 * r.next() } }),
  (r) => ({ tax: { taxGainTarget: -50_000 * r.next() } }),
  (r) => ({ tax: { nHighLossLots: r.int(1, 10), includePositiveTaxAlphaLots: r.next() < 0.5 } }),
  () => ({ tax: { useTaxAlpha: false } }),
  () => ({ tax: { preventTlhInvalidatingSale: true, preventTlhInvalidatingPurchase: true } }),
  (r) => ({ tax: { trackingErrorThreshold: 0.002 + 0.03 * r.next() } }),
  (r) => ({
    factorExposureBounds: [
      { factor: "style", minActiveBound: -0.05 * r.next(), maxActiveBound: 0.05 * r.next() },
    ],
  }),
  (r) => ({ useMeanVariance: true, riskAversion: 0.5 + 5 * r.next() }),
  (r) => ({
    optimizationMode: "LONG_BIASED",
    longWeightSum: 1.1 + 0.3 * r.next(),
    shortWeightSum: -0.1 - 0.3 * r.next(),
    maxWeight: 0.2,
  }),
  () => ({ optimizationMode: "LONG_SHORT", longWeightSum: 1.3, shortWeightSum: -0.3, maxWeight: 0.2 }),
  (r) => ({ targetTickerWeights: [{ themeAssetId: pick(r), lowerBound: 0.01, upperBound: 0.08 }] }),
];

const merge = (a: OptimizerConfigInput, b: OptimizerConfigInput): OptimizerConfigInput => ({
  ...a,
  ...b,
  tax: { ...(a.tax ?? {}), ...(b.tax ?? {}) },
});

/** The constraints the result breaks (empty when it keeps them all). */
function broken(input: OptimizationInput, r: ReturnType<ReturnType<typeof createOptimizer>["optimize"]>) {
  const c = input.config;
  const w = r.weights;
  const at = (a: string) => r.assets.indexOf(a);
  const out: string[] = [];
  for (let i = 0; i < w.length; i++) {
    if (!Number.isFinite(w[i]!)) out.push(`weight of ${r.assets[i]} is ${w[i]}`);
    if (c.optimizationMode === "LONG_ONLY" && w[i]! < -1e-9) out.push(`${r.assets[i]} short: ${w[i]}`);
    // A target's own bounds replace max_weight; a no-trade asset keeps its weight even above it.
    const exempt =
      c.targetTickerWeights.some((t) => t.themeAssetId === r.assets[i]) || c.noTrade.includes(r.assets[i]!);
    if (c.maxWeight !== null && !exempt && w[i]! > c.maxWeight + 1e-9)
      out.push(`${r.assets[i]} above max_weight: ${w[i]}`);
  }
  for (const h of c.noHold) if (Math.abs(w[at(h)]!) > 1e-9) out.push(`no-hold ${h} held: ${w[at(h)]}`);
  for (const t of c.noTrade)
    if (!c.noHold.includes(t) && Math.abs(w[at(t)]! - r.currentWeights[at(t)]!) > 1e-9)
      out.push(`no-trade ${t} traded: ${r.currentWeights[at(t)]} -> ${w[at(t)]}`);
  for (const g of c.substitutionGroups)
    if (g.filter((a) => Math.abs(w[at(a)]!) > 1e-9).length > 1) out.push(`group ${g.join("/")} holds two`);
  for (const t of r.trades) {
    const whole =
      c.requireWholeShares && (c.wholeShareAssets === null || c.wholeShareAssets.includes(t.themeAssetId));
    // A whole-share position closed entirely may sell its fraction.
    if (whole && Math.abs(t.toWeight) > 1e-12 && Math.abs(t.shares - Math.round(t.shares)) > 1e-6)
      out.push(`${t.themeAssetId} trades ${t.shares} shares, not whole`);
  }
  for (const t of c.targetTickerWeights) {
    const v = w[at(t.themeAssetId)]!;
    if (!c.noHold.includes(t.themeAssetId) && !c.noTrade.includes(t.themeAssetId))
      if (v < (t.lowerBound ?? -Infinity) - 1e-9 || v > (t.upperBound ?? Infinity) + 1e-9)
        out.push(`${t.themeAssetId} outside its target bounds: ${v}`);
  }
  if (c.minWeight !== null && c.optimizationMode === "LONG_ONLY" && !c.requireWholeShares)
    for (let i = 0; i < w.length; i++) {
      const a = r.assets[i]!;
      const restricted =
        c.noHold.includes(a) || c.noTrade.includes(a) || c.substitutionGroups.some((g) => g.includes(a));
      if (!restricted && w[i]! < c.minWeight - 1e-9) out.push(`${a} below min_weight: ${w[i]}`);
    }
  if (c.useTurnoverConstraint && r.turnover > c.maxTurnoverPct / 100 + 1e-7)
    out.push(`turnover ${r.turnover} above ${c.maxTurnoverPct}%`);
  if (c.optimizationMode !== "LONG_SHORT" && r.cashAfterUsd < r.cashBufferUsd - 1e-6)
    out.push(`cash ${r.cashAfterUsd} below the buffer ${r.cashBufferUsd}`);
  if (r.riskCap !== null && r.trackingError > r.riskCap.used * (1 + 1e-6) && !c.requireWholeShares)
    out.push(`tracking error ${r.trackingError} above the cap ${r.riskCap.used}`);
  return out;
}

describe("the optimizer on random configurations", () => {
  it("refuses, diagnoses, or keeps every constraint it was given: 300 random accounts x feature mixes", () => {
    const seen = { refused: 0, infeasible: 0, solved: 0 };
    const failures: string[] = [];
    for (let k = 0; k < 300; k++) {
      const r = createRandom(1000 + k);
      let config: OptimizerConfigInput = {};
      const features = r.int(1, 5);
      for (let j = 0; j < features; j++) config = merge(config, FEATURES[r.int(0, FEATURES.length)]!(r));
      let input: OptimizationInput;
      try {
        input = account(k, config);
      } catch (err) {
        if (!(err instanceof ValidationError)) throw err; // only the configuration check may refuse
        seen.refused++;
        continue;
      }
      const result = createOptimizer().optimize(input);
      if (result.status === "infeasible") {
        seen.infeasible++;
        expect(result.diagnosis.length).toBeGreaterThan(0);
        continue;
      }
      seen.solved++;
      const b = broken(input, result);
      if (b.length > 0) failures.push(`case ${k} ${JSON.stringify(config)}: ${b.join("; ")}`);
    }
    expect(failures).toEqual([]);
    // The mixes exercise all three outcomes, mostly solved.
    expect(seen.solved).toBeGreaterThan(200);
    expect(seen.infeasible).toBeGreaterThan(10);
  });

  it("leaves no order below the minimum trade and keeps the trade count, on 300 random configurations", () => {
    const seen = { refused: 0, infeasible: 0, solved: 0, counted: 0, pinned: 0 };
    const failures: string[] = [];
    for (let k = 0; k < 300; k++) {
      const r = createRandom(5000 + k);
      let config: OptimizerConfigInput = {};
      const features = r.int(0, 4);
      for (let j = 0; j < features; j++) config = merge(config, FEATURES[r.int(0, FEATURES.length)]!(r));
      // The rules under test: a USD minimum, a NAV fraction, or both; a trade count in one case of three.
      const kind = r.int(0, 3);
      const minTradeUsd = kind === 1 ? 0 : 100 + 2900 * r.next();
      const minTradePct = kind === 0 ? 0 : 0.05 + 1.5 * r.next();
      const maxTradeCount = r.next() < 1 / 3 ? r.int(1, 12) : null;
      config = merge(config, { minTradeUsd, minTradePct, maxTradeCount });
      let input: OptimizationInput;
      try {
        input = account(k, config);
      } catch (err) {
        if (!(err instanceof ValidationError)) throw err;
        seen.refused++;
        continue;
      }
      const result = createOptimizer().optimize(input);
      if (result.status === "infeasible") {
        seen.infeasible++;
        expect(result.diagnosis.length).toBeGreaterThan(0);
        continue;
      }
      seen.solved++;
      const minimum = Math.max(minTradeUsd, (minTradePct / 100) * result.navUsd);
      const problems = broken(input, result);
      for (const t of result.trades) {
        // Orders closing a position are exempt; every other order is at least the minimum.
        if (Math.abs(t.toWeight) > 1e-12 && t.amountUsd < minimum - 1e-6)
          problems.push(`${t.themeAssetId} order of ${t.amountUsd} USD below the minimum ${minimum}`);
      }
      if (maxTradeCount !== null) {
        seen.counted++;
        if (result.trades.length > maxTradeCount)
          problems.push(`${result.trades.length} orders, above max_trade_count ${maxTradeCount}`);
      }
      // The same account without the rules has dust (so the rules had work to do).
      const free = createOptimizer().optimize(
        account(k, merge(config, { minTradeUsd: 0, minTradePct: 0, maxTradeCount: null })),
      );
      if (
        free.status !== "infeasible" &&
        free.trades.some((t) => Math.abs(t.toWeight) > 1e-12 && t.amountUsd < minimum - 1e-6)
      )
        seen.pinned++;
      if (problems.length > 0) failures.push(`case ${k} ${JSON.stringify(config)}: ${problems.join("; ")}`);
    }
    expect(failures).toEqual([]);
    expect(seen.solved).toBeGreaterThan(200);
    expect(seen.counted).toBeGreaterThan(50);
    // Most solved cases had orders below the minimum to remove.
    expect(seen.pinned).toBeGreaterThan(100);
  });

  // Cases the random mixes found, kept as they were drawn (the draws above have changed since).
  it("keeps substitution groups when resolving one group makes an earlier one hold two members", () => {
    const input = account(111, {
      substitutionGroups: [
        ["S3:XNYS", "S5:XNYS"],
        ["S13:XNYS", "S16:XNYS"],
      ],
      useActiveRiskBounds: true,
      maxActiveRiskPct: 1.42541155015867,
      commissionRate: 0.0005775107386874485,
      brokerSpreadBps: 3.657666609987152,
    });
    const r = createOptimizer().optimize(input);
    expect(r.status).toBe("optimal");
    expect(broken(input, r)).toEqual([]);
  });

  it("keeps substitution groups through the tax_gamma search, which may buy a second member", () => {
    // S12 held at a loss, its substitute S18 not held; harvesting toward the gain target sold S12 down and bought
    // S18 with S12 still held.
    const input = account(242, {
      substitutionGroups: [
        ["S0:XNYS", "S8:XNYS"],
        ["S12:XNYS", "S18:XNYS"],
      ],
      tax: {
        taxGainTarget: -23017.25,
        preventTlhInvalidatingSale: true,
        preventTlhInvalidatingPurchase: true,
      },
    });
    const r = createOptimizer().optimize(input);
    expect(r.status).toBe("optimal");
    expect(broken(input, r)).toEqual([]);
    expect(r.taxGammaSearch?.withinTolerance).toBe(true);
    expect(Math.abs(r.taxGammaSearch!.achieved - -23017.25)).toBeLessThanOrEqual(r.taxGammaSearch!.tolerance);
  });
});
