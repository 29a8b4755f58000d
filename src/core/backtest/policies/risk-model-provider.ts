/**
 * @module core/backtest/policies/risk-model-provider
 * The risk model of the tax-aware policies at a decision date, estimated from the returns the served view
 * shows (never later ones). A statistical (`pca`) factor model of the trailing daily USD total returns
 * (docs/risk-models.md), completed for assets without enough history; before enough history exists, a
 * structural prior (market + sector factors). One provider is shared by every case of a run and caches its
 * latest model: policies deciding on the same date estimate it once, and the statistical model is re-estimated
 * when it is `maxAgeDays` old (quarterly by default: a factor structure moves slowly, and the estimate costs
 * O(T^2 n + T^3) for T trading days of n assets).
 */
import { daysBetween } from "../../dates.js";
import type { FactorModel } from "../../risk/index.js";
import { buildPcaRiskModel, imputeBySector } from "../../risk/index.js";
import type { MarketView } from "../market-view.js";

/** Options of {@link createRiskModelProvider}. */
export interface RiskModelProviderOptions {
  /** Trailing trading days of returns. @default 252 */
  readonly lookbackDays?: number;
  /** Fewest observed returns for an asset to be estimated (others are imputed). @default 60 */
  readonly minObservations?: number;
  /** Statistical factors. @default 10 */
  readonly numFactors?: number;
  /** Calendar days after which the statistical model is re-estimated. @default 80 (every third monthly rebalance) */
  readonly maxAgeDays?: number;
  /** Annualized volatilities of the prior model: market, sector, specific. @default 0.16, 0.08, 0.25 */
  readonly prior?: { readonly market: number; readonly sector: number; readonly specific: number };
}

/** Returns the risk model (over every column of the view, in column order) at the view's date. */
export type RiskModelProvider = (view: MarketView) => FactorModel;

/** Sector factor name of an asset ("sector:none" when unknown). */
function sectorKey(sector: number | null): string {
  return sector === null ? "sector:none" : `sector:${sector}`;
}

/**
 * The structural prior: Sigma = sigma_m^2 1 1' + sigma_s^2 sum_s 1_s 1_s' + sigma_e^2 I (every asset has unit
 * market exposure and unit exposure to its sector), the shape of a one-level industry model (Grinold & Kahn,
 * ch. 3) with round-number volatilities.
 */
export function priorRiskModel(
  view: MarketView,
  prior: { market: number; sector: number; specific: number },
): FactorModel {
  const n = view.size;
  const sectors = [
    ...new Set(Array.from({ length: n }, (_, i) => sectorKey(view.security(i).sector))),
  ].sort();
  const k = 1 + sectors.length;
  const col = new Map(sectors.map((s, j) => [s, 1 + j]));
  const exposures = new Float64Array(n * k);
  for (let i = 0; i < n; i++) {
    exposures[i * k] = 1;
    exposures[i * k + col.get(sectorKey(view.security(i).sector))!] = 1;
  }
  const factorCovariance = new Float64Array(k * k);
  factorCovariance[0] = prior.market ** 2;
  for (let j = 1; j < k; j++) factorCovariance[j * k + j] = prior.sector ** 2;
  return {
    assets: [...view.ids],
    factors: ["market", ...sectors],
    exposures,
    factorCovariance,
    specificVariance: new Float64Array(n).fill(prior.specific ** 2),
    annualization: 1,
    diagnostics: {
      model: "custom",
      periods: 0,
      psdRepair: {
        matrix: "factor_covariance",
        size: k,
        minEigenvalueBefore: Math.min(prior.market, prior.sector) ** 2,
        maxEigenvalue: Math.max(prior.market, prior.sector) ** 2,
        clippedCount: 0,
        floor: 0,
        frobeniusChange: 0,
      },
      spectralShift: 0,
      notes: ["Structural prior: not enough return history for a statistical model."],
    },
  };
}

/**
 * A provider of the policies' risk model (never a model estimated after the view's date: a view earlier than
 * the cached model's date gets a fresh estimate). At a date with at least `minObservations` trading days of history,
 * the `pca` model of the trailing returns of the assets with `minObservations` observed returns; an asset
 * with fewer (a new listing) gets the average exposures of the estimated assets of its sector (of all of them
 * when its sector has none) and the median specific variance of its sector. Otherwise the prior model.
 * @example const riskModelAt = createRiskModelProvider(); const model = riskModelAt(view);
 */
export function createRiskModelProvider(options: RiskModelProviderOptions = {}): RiskModelProvider {
  const lookback = options.lookbackDays ?? 252;
  const minObs = options.minObservations ?? 60;
  const numFactors = options.numFactors ?? 10;
  const prior = options.prior ?? { market: 0.16, sector: 0.08, specific: 0.25 };
  const maxAge = options.maxAgeDays ?? 80;
  let cachedDate: string | null = null;
  let cached: FactorModel | null = null;
  return (view) => {
    if (cached !== null && cachedDate !== null && cachedDate <= view.date) {
      const statistical = cached.diagnostics.model === "pca";
      if (cachedDate === view.date || (statistical && daysBetween(cachedDate, view.date) < maxAge))
        return cached;
    }
    const model = estimate(view, lookback, minObs, numFactors, prior);
    cachedDate = view.date;
    cached = model;
    return model;
  };
}

function estimate(
  view: MarketView,
  lookback: number,
  minObs: number,
  numFactors: number,
  prior: { market: number; sector: number; specific: number },
): FactorModel {
  const n = view.size;
  const { periods, returns } = view.returns(lookback);
  const counts = new Int32Array(n);
  for (let s = 0; s < periods; s++)
    for (let i = 0; i < n; i++) if (!Number.isNaN(returns[s * n + i]!)) counts[i]!++;
  const estimated: number[] = [];
  for (let i = 0; i < n; i++) if (counts[i]! >= minObs) estimated.push(i);
  const k = Math.min(numFactors, periods - 2, estimated.length);
  if (periods < minObs || estimated.length < 2 * numFactors || k < 1) return priorRiskModel(view, prior);

  const m = estimated.length;
  const sub = new Float64Array(periods * m);
  for (let s = 0; s < periods; s++)
    for (let j = 0; j < m; j++) sub[s * m + j] = returns[s * n + estimated[j]!]!;
  const pca = buildPcaRiskModel(
    { assets: estimated.map((i) => view.ids[i]!), returns: sub },
    { numFactors: k, frequency: "daily", minObservations: minObs },
  );
  const column = new Map(view.ids.map((id, i) => [id, i]));
  return imputeBySector(
    pca,
    view.ids,
    (id) => view.security(column.get(id)!).sector,
    `with fewer than ${minObs} returns`,
  );
}
