/**
 * @module core/backtest/policies/harvest-rules
 * The harvest decisions of the tax-managed policy (docs/backtests.md, "tax_managed", steps 2 and 2b):
 *
 * - {@link harvestPays}: a harvest is worth its cost. Its tax value is rate(term) x loss on the part of the loss a
 *   recent purchase does not wash (IRC §1091 disallows the loss on as many shares as were bought within the window,
 *   not the whole sale); its cost is the round trip into a substitute (two one-way trades) plus the tracking it adds:
 *   lambda x (weight^2 x the asset's specific variance, what a substitute sharing its factors cannot replace) for the
 *   wash-sale window, in USD of the account.
 * - {@link correlationSubstitutes}: where the proceeds of a harvest go between rebalances: the names the risk model
 *   finds most correlated with the sold one, in its sector, never one sold at a loss within the window.
 * - {@link basisResetOrders}: long-term lots with a small gain sold and bought back, so that their later losses are
 *   short-term (Constantinides 1984); {@link defaultBasisResetMaxGain} says when that pays.
 */
import type { FactorModel } from "../../risk/index.js";
import { riskModelTimesVector } from "../../risk/index.js";

/** Number of substitutes that share the proceeds of one harvested asset in an interim scan. */
export const SUBSTITUTES_PER_HARVEST = 10;

/**
 * Trading days between the tax-managed case's harvest scans in the standard backtest: 0, off. Weekly scans (5) catch
 * more losses but, as measured (docs/backtests.md, "Where the tax effect is lost"), raise tracking error beyond the
 * goal, so they are opt-in (`StandardBacktestInput.harvestScanDays`).
 */
export const DEFAULT_HARVEST_SCAN_DAYS = 0;

/** What {@link harvestPays} weighs. */
export interface HarvestEconomics {
  /** Tax value of the loss if nothing were washed: sum over lots of rate(term) x loss, USD (>= 0). */
  readonly taxValueUsd: number;
  /** Market value sold, USD. */
  readonly valueUsd: number;
  /** Shares of the harvest whose loss a recent purchase washes, over the shares sold (0..1). */
  readonly washedFraction: number;
  /** One-way trading cost, fraction of value (transaction + FX fee). */
  readonly oneWayCost: number;
  /** Tracking cost of the harvest, USD (see {@link harvestTrackingCostUsd}). */
  readonly trackingCostUsd: number;
}

/** True when the unwashed tax value of a harvest exceeds its round-trip cost plus the tracking it adds. */
export function harvestPays(e: HarvestEconomics): boolean {
  const value = e.taxValueUsd * (1 - Math.min(Math.max(e.washedFraction, 0), 1));
  const cost = 2 * e.oneWayCost * e.valueUsd + e.trackingCostUsd;
  return value > cost;
}

/**
 * USD cost of the tracking a harvest adds: lambda x w^2 x specific variance (annualized) x window / 365 x NAV,
 * where w = value sold / NAV. The factor part of the sold weight is replaced by the substitutes; its specific part
 * is not, for as long as the asset cannot be bought back.
 */
export function harvestTrackingCostUsd(
  lambda: number,
  valueUsd: number,
  navUsd: number,
  specificVariance: number,
  windowDays: number,
): number {
  if (!(navUsd > 0)) return 0;
  const w = valueUsd / navUsd;
  return lambda * w * w * Math.max(specificVariance, 0) * (windowDays / 365) * navUsd;
}

const variances = new WeakMap<FactorModel, Float64Array>();

/** Total variance of each asset of the model (diag of X F X' + D), remembered per model. */
export function assetVariances(model: FactorModel): Float64Array {
  const hit = variances.get(model);
  if (hit !== undefined) return hit;
  const n = model.assets.length;
  const k = model.factors.length;
  const X = model.exposures;
  const F = model.factorCovariance;
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    let v = model.specificVariance[i]!;
    for (let a = 0; a < k; a++) {
      const xa = X[i * k + a]!;
      if (xa === 0) continue;
      let row = 0;
      for (let b = 0; b < k; b++) row += F[a * k + b]! * X[i * k + b]!;
      v += xa * row;
    }
    out[i] = v;
  }
  variances.set(model, out);
  return out;
}

/** A substitute and its correlation with the sold asset. */
export interface Substitute {
  readonly id: string;
  readonly correlation: number;
}

/**
 * The `count` assets most correlated with `soldId` under the model among `candidates` (ids the caller found
 * eligible: priced, in the target, not sold at a loss within the window...), preferring those with the same
 * sector (`sectorOf`); other sectors only when no candidate of the sector is positively correlated. Only positive
 * correlations count. Empty when the sold asset is not in the model.
 */
export function correlationSubstitutes(
  model: FactorModel,
  soldId: string,
  candidates: readonly string[],
  sectorOf: (id: string) => number | null,
  count = SUBSTITUTES_PER_HARVEST,
): Substitute[] {
  const index = new Map(model.assets.map((id, i) => [id, i]));
  const s = index.get(soldId);
  if (s === undefined) return [];
  const unit = new Float64Array(model.assets.length);
  unit[s] = 1;
  const cov = riskModelTimesVector(model, unit);
  const v = assetVariances(model);
  const sector = sectorOf(soldId);
  const ranked = (sameSector: boolean) => {
    const out: Substitute[] = [];
    for (const id of candidates) {
      if (id === soldId) continue;
      if (sameSector && (sector === null || sectorOf(id) !== sector)) continue;
      const j = index.get(id);
      if (j === undefined) continue;
      const denom = Math.sqrt(v[s]! * v[j]!);
      const correlation = denom > 0 ? cov[j]! / denom : 0;
      if (correlation > 0) out.push({ id, correlation });
    }
    out.sort((a, b) => b.correlation - a.correlation || (a.id < b.id ? -1 : 1));
    return out.slice(0, count);
  };
  const same = ranked(true);
  return same.length > 0 ? same : ranked(false);
}

/**
 * Largest gain, as a fraction of the lot's value, of a long-term lot the basis reset sells and buys back when the
 * investor's assumptions make it pay ({@link defaultBasisResetMaxGain}).
 */
export const DEFAULT_BASIS_RESET_MAX_GAIN = 0.1;

/** The assumptions {@link defaultBasisResetMaxGain} reads. */
export interface BasisResetAssumptions {
  readonly lossUsage: "account_only" | "outside_gains";
  readonly liquidateAtEnd: boolean;
  readonly shortTermRate: number;
  readonly longTermRate: number;
}

/**
 * The basis-reset band when the request names none: {@link DEFAULT_BASIS_RESET_MAX_GAIN} when a reset pays, else 0.
 * It pays when the gain it realizes is taxed at the end anyway (`liquidateAtEnd`: realizing it now costs only the
 * time value of its tax), the losses the fresh lot may give later are valued when realized (`outside_gains`), and
 * short-term losses are worth more than long-term ones (short-term rate above the long-term rate): the reset turns
 * the lot's later losses from long-term into short-term (Constantinides 1984). With `account_only` the realized
 * gain is taxed now against the account's own losses, and on the studies the reset lowered the tax effect.
 */
export function defaultBasisResetMaxGain(a: BasisResetAssumptions): number {
  return a.liquidateAtEnd && a.lossUsage === "outside_gains" && a.shortTermRate > a.longTermRate
    ? DEFAULT_BASIS_RESET_MAX_GAIN
    : 0;
}

/** A held long lot as {@link basisResetOrders} sees it. */
export interface ResetCandidate {
  readonly lotId: string;
  /** Its exact quantity (the sale sells the whole lot). */
  readonly quantity: string;
  readonly valueUsd: number;
  /** Unrealized gain, USD (negative for a loss). */
  readonly gainUsd: number;
  /** Long-term at the execution date. */
  readonly longTerm: boolean;
}

/** The trades of one asset's basis reset. */
export interface BasisReset {
  /** The lots sold, whole. */
  readonly lots: { lotId: string; quantity: string }[];
  /** Their value, USD. */
  readonly valueUsd: number;
  /** The buy-back, USD: the value less two one-way costs (the rest stays in cash). */
  readonly buyUsd: number;
}

/**
 * One asset's basis reset: its long-term lots whose gain is between `minGain` and `maxGain` x value, sold whole
 * and bought back the same day for their value less the round trip. A gain sale is no wash sale, so the buy-back is
 * allowed; `minGain` is the margin that keeps it a gain at the execution price (orders execute a day after the
 * decision: a thinner gain could turn into a loss, which the buy-back would wash). None when the asset holds a lot
 * at a loss (the purchase would wash that loss if it were harvested within the window), or when the lots are worth
 * less than `minTradeUsd`.
 */
export function basisResetOrders(
  lots: readonly ResetCandidate[],
  band: { readonly minGain: number; readonly maxGain: number },
  oneWayCost: number,
  minTradeUsd: number,
): BasisReset | null {
  const { minGain, maxGain } = band;
  if (!(maxGain > 0) || lots.some((l) => l.gainUsd < 0)) return null;
  const picks = lots.filter(
    (l) =>
      l.longTerm && l.valueUsd > 0 && l.gainUsd >= minGain * l.valueUsd && l.gainUsd <= maxGain * l.valueUsd,
  );
  let valueUsd = 0;
  for (const l of picks) valueUsd += l.valueUsd;
  if (picks.length === 0 || valueUsd < minTradeUsd) return null;
  return {
    lots: picks.map((l) => ({ lotId: l.lotId, quantity: l.quantity })),
    valueUsd,
    buyUsd: valueUsd * (1 - 2 * oneWayCost),
  };
}
