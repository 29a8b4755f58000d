/**
 * Seeded random accounts for optimizer tests: `n` assets `S0:XNYS`.., a 3-factor model (market, a style factor,
 * a two-sector factor), a log-normal benchmark, lots bought over up to 2,000 days at bases spread around the price
 * (-40%..+40%, so many loss lots and two-sided assets). The draws happen in a fixed order, so a seed names the same
 * account in every test that uses the same options.
 */
import { addDays } from "../../src/core/dates.js";
import type { OptimizationInput } from "../../src/core/optimizer/index.js";
import { type OptimizerConfigInput, resolveOptimizerConfig } from "../../src/core/optimizer/index.js";
import { createRandom } from "../../src/core/random.js";
import { buildCustomRiskModel } from "../../src/core/risk/index.js";
import { createLot, type TaxLot } from "../../src/core/tax/index.js";

export interface RandomAccountOptions {
  /** Assets. */
  n: number;
  lotsPerAsset: number;
  /** Youngest lot age in days (oldest 2,000). */
  minAgeDays: number;
  /** Share of assets not held at all (drawn per asset); omitted: every asset held. */
  unheldShare?: number;
  /** Cash drawn in [20,000, 120,000) USD; else 20,000. */
  randomCash?: boolean;
  /** Chance of one purchase 5 days before the as-of date (wash-sale window); omitted: none. */
  recentPurchaseChance?: number;
  /** Average daily traded value 2-6 million USD per asset (for spread and impact costs). */
  withVolumes?: boolean;
}

export const RANDOM_ACCOUNT_AS_OF = "2025-03-03";

/** The account and the generator, for a next month drawn from the same stream. */
export function randomAccount(seed: number, config: OptimizerConfigInput, o: RandomAccountOptions) {
  const rng = createRandom(seed);
  const { n } = o;
  const ids = Array.from({ length: n }, (_, i) => `S${i}:XNYS`);
  const X = new Float64Array(n * 3);
  for (let i = 0; i < n; i++) {
    X[i * 3] = 0.8 + 0.4 * rng.next();
    X[i * 3 + 1] = rng.normal(0, 1);
    X[i * 3 + 2] = i % 2;
  }
  const model = buildCustomRiskModel({
    assets: ids,
    factors: ["market", "style", "sector"],
    exposures: X,
    factorCovariance: Float64Array.of(0.03, 0, 0, 0, 0.004, 0, 0, 0, 0.002),
    specificVariance: Float64Array.from({ length: n }, () => 0.01 + 0.05 * rng.next()),
  });
  const prices = Float64Array.from({ length: n }, () => 20 + 200 * rng.next());
  const bench = Float64Array.from({ length: n }, () => Math.exp(rng.normal(0, 1)));
  const total = bench.reduce((a, b) => a + b, 0);
  for (let i = 0; i < n; i++) bench[i]! /= total;
  const lots: TaxLot[] = [];
  for (let i = 0; i < n; i++) {
    if (o.unheldShare !== undefined && rng.next() < o.unheldShare) continue;
    for (let l = 0; l < o.lotsPerAsset; l++)
      lots.push(
        createLot({
          id: `L${i}-${l}`,
          themeAssetId: ids[i]!,
          quantity: ((1e6 * bench[i]! * (0.7 + 0.6 * rng.next())) / prices[i]! / o.lotsPerAsset).toFixed(4),
          costBasisPerShare: (prices[i]! * (0.6 + 0.8 * rng.next())).toFixed(4),
          tradeDate: addDays(RANDOM_ACCOUNT_AS_OF, -rng.int(o.minAgeDays, 2000)),
        }),
      );
  }
  const input: OptimizationInput = {
    asOf: RANDOM_ACCOUNT_AS_OF,
    assets: ids,
    pricesUsd: prices,
    lots,
    cashUsd: o.randomCash ? 20_000 + 100_000 * rng.next() : 20_000,
    benchmark: bench,
    riskModel: model,
    ...(o.withVolumes
      ? { averageDailyVolumeUsd: Float64Array.from(prices, (_p, i) => 2e6 + 1e6 * (i % 5)) }
      : {}),
    ...(o.recentPurchaseChance === undefined
      ? {}
      : {
          recentPurchases:
            rng.next() < o.recentPurchaseChance
              ? [{ themeAssetId: ids[rng.int(0, n - 1)]!, date: addDays(RANDOM_ACCOUNT_AS_OF, -5) }]
              : [],
        }),
    config: resolveOptimizerConfig(config),
  };
  return { rng, ids, prices, bench, lots, input };
}
