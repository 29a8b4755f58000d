/**
 * @module core/optimizer/tax-schedule
 * The sell side of every held asset as the optimizer sees it: its lots in the order a sale consumes them
 * (cheapest objective tax cost per dollar first), each with its tax per unit of weight. Selling x of an asset
 * consumes this order, so the tax is a convex piecewise-linear function of x (the cost per unit rises along the
 * order) and bucket variables would represent it exactly; the engine uses the same pieces as segments.
 *
 * Per lot, with gain g per share, price p (USD), rate r (short/long term at the as-of date):
 *   objective cost c = r g / p                      (gains; PERCENT reductions scale it by 1 - pct/100)
 *                    = r g / p x positive_tax_alpha_scaling_factor   (losses earning tax alpha)
 *                    = 0                            (losses without alpha: tax alpha off, outside the
 *                                                    n_high_loss_lots, or wash-sale exposed)
 *   real tax          = r g / p (0 for a washed loss: disallowed now)
 * A DOLLARS reduction makes the first `amount` USD of gain along the order untaxed (a lot may be split).
 * Loss lots exposed to a wash sale are kept out of the order entirely under prevent_tlh_invalidating_sale.
 */
import { isExposedLoss, type WashSaleEnvironment } from "./household-wash-sales.js";
import type { LotTable } from "./lot-table.js";
import type { OptimizerConfig } from "./optimizer-config.js";
import type { WashedFractionPricing } from "./wash-sale-pricing.js";

/** The consumption order of every held asset (see the module comment); costs are per unit of weight sold. */
export interface SchedulePieces {
  /** Asset i owns pieces start[i] .. start[i+1]-1, in consumption order. */
  readonly start: Int32Array;
  readonly lot: Int32Array;
  readonly weight: Float64Array;
  /** Tax term of the objective per unit of weight, before tax_gamma. */
  readonly objectiveCost: Float64Array;
  /** Tax at the configured rates per unit of weight, reductions as modeled, washed losses at 0. */
  readonly realTax: Float64Array;
  /** Recognized gain per unit of weight (0 for a washed loss). */
  readonly recognizedGain: Float64Array;
  /** Raw gain per unit of weight. */
  readonly gain: Float64Array;
  readonly longTerm: Uint8Array;
  readonly alphaIgnored: Uint8Array;
  /** Washed fraction of the piece's lot (wash-sale-pricing.ts): its loss is disallowed in that proportion. */
  readonly washedFraction: Float64Array;
}

/** What {@link buildTaxSchedule} needs. */
export interface TaxScheduleInput {
  readonly lotTable: LotTable;
  readonly n: number;
  readonly assets: readonly string[];
  readonly prices: Float64Array;
  readonly shares: Float64Array;
  readonly investableUsd: number;
  readonly asOfDay: number;
  readonly config: OptimizerConfig;
  /** Assets sold in full (no_hold): their exposed losses are sold too. */
  readonly liquidating: Uint8Array;
  /** The wash-sale window (household-wash-sales.ts). */
  readonly env: WashSaleEnvironment;
  /** The washed-fraction pricing (wash-sale-pricing.ts), null when no asset has replacement shares. */
  readonly pricing: WashedFractionPricing | null;
}

/**
 * Loss lots that earn tax alpha under n_high_loss_lots (1), or undefined when every loss lot may: the N loss lots
 * with the largest tax alpha in USD (rate x loss x quantity) among those not exposed to a wash sale, ties by lot.
 */
function highLossLots(x: TaxScheduleInput): Uint8Array | undefined {
  const tax = x.config.tax;
  if (tax.nHighLossLots === null || tax.includePositiveTaxAlphaLots) return undefined;
  const t = x.lotTable;
  const L = t.asset.length;
  const alphaRank = new Float64Array(L);
  const candidates: number[] = [];
  const { asset, quantity: qty, basisUsd: basis, longTermFromDay: ltDay } = t;
  for (let k = 0; k < L; k++) {
    const i = asset[k]!;
    const g = x.prices[i]! - basis[k]! / qty[k]!;
    if (g >= 0) continue;
    // Another purchase within the window (a held window lot other than this one, or an outside purchase).
    if (isExposedLoss(x.env, i, k)) continue;
    alphaRank[k] = (x.asOfDay >= ltDay[k]! ? tax.longTermRate : tax.shortTermRate) * -g * qty[k]!;
    candidates.push(k);
  }
  const topLoss = new Uint8Array(L).fill(1);
  candidates.sort((a, b) => alphaRank[b]! - alphaRank[a]! || a - b);
  for (let r = tax.nHighLossLots; r < candidates.length; r++) topLoss[candidates[r]!] = 0;
  return topLoss;
}

/** Per-asset values of the capital-gains reductions of one unit (0 / 1 without any reduction). */
function reductionsOf(x: TaxScheduleInput, units: "DOLLARS" | "PERCENT", fill: number): Float64Array {
  const out = new Float64Array(x.n).fill(fill);
  const reductions = x.config.capitalGainsReductions;
  if (x.config.capitalGainsReductionsUnits !== units || Object.getOwnPropertyNames(reductions).length === 0)
    return out;
  for (let i = 0; i < x.n; i++) {
    const id = x.assets[i]!;
    if (Object.hasOwn(reductions, id))
      out[i] = units === "PERCENT" ? 1 - reductions[id]! / 100 : reductions[id]!;
  }
  return out;
}

/** Lots of each asset in lot order: asset i owns order[start[i] .. start[i+1]) (a counting sort by asset). */
function lotsByAsset(t: LotTable, n: number): { start: Int32Array; order: Int32Array } {
  const L = t.asset.length;
  const asset = t.asset;
  const start = new Int32Array(n + 1);
  for (let k = 0; k < L; k++) start[asset[k]! + 1]!++;
  for (let i = 0; i < n; i++) start[i + 1]! += start[i]!;
  const order = new Int32Array(L);
  const fill = start.slice(0, n);
  for (let k = 0; k < L; k++) order[fill[asset[k]!]!++] = k;
  return { start, order };
}

/**
 * The schedule (see the module comment) plus the weight of lots kept by prevent_tlh_invalidating_sale. One pass
 * per asset: each lot's costs per unit of weight, then the asset's kept lots sorted into consumption order, then
 * the pieces.
 */
export function buildTaxSchedule(x: TaxScheduleInput): {
  schedule: SchedulePieces;
  blockedWeight: Float64Array;
  exposedLossAssets: Uint8Array;
} {
  const t = x.lotTable;
  const { n, prices, shares, investableUsd, config } = x;
  const tax = config.tax;
  const L = t.asset.length;
  const topLoss = highLossLots(x);
  const percentKeep = reductionsOf(x, "PERCENT", 1);
  const allowanceUsd = reductionsOf(x, "DOLLARS", 0);
  const byAsset = lotsByAsset(t, n);
  const blockedWeight = new Float64Array(n);
  const exposedLossAssets = new Uint8Array(n);
  // Room for one extra piece per asset (a lot split by a DOLLARS allowance).
  const cap = L + n;
  const pStart = new Int32Array(n + 1);
  const pLot = new Int32Array(cap);
  const pWeight = new Float64Array(cap);
  const pObj = new Float64Array(cap);
  const pReal = new Float64Array(cap);
  const pRecog = new Float64Array(cap);
  const pGain = new Float64Array(cap);
  const pLong = new Uint8Array(cap);
  const pIgnored = new Uint8Array(cap);
  const pWashed = new Float64Array(cap);
  // Washed fraction per lot (only assets with replacement shares have non-zero entries).
  const washFraction = new Float64Array(L);
  let longest = 0;
  for (let i = 0; i < n; i++) longest = Math.max(longest, byAsset.start[i + 1]! - byAsset.start[i]!);
  // The kept lots of one asset: lot, costs, and their consumption order (positions into these arrays).
  const kLot = new Int32Array(longest);
  const kObj = new Float64Array(longest);
  const kReal = new Float64Array(longest);
  const kRecog = new Float64Array(longest);
  const kGain = new Float64Array(longest);
  const kLong = new Uint8Array(longest);
  const kIgnored = new Uint8Array(longest);
  const kWashed = new Float64Array(longest);
  const kOrder = new Int32Array(longest);
  const { env, pricing } = x;
  const { quantity: qty, basisUsd: basis, longTermFromDay: ltDay, tradeDay } = t;
  const asOfDay = x.asOfDay;
  const preventSale = tax.preventTlhInvalidatingSale;
  const useAlpha = tax.useTaxAlpha;
  const alphaScale = tax.positiveTaxAlphaScalingFactor;
  const stRate = tax.shortTermRate;
  const ltRate = tax.longTermRate;
  let q = 0;
  for (let i = 0; i < n; i++) {
    pStart[i] = q;
    if (shares[i]! <= 0) continue;
    const p = prices[i]!;
    const keepShare = percentKeep[i]!;
    if (pricing?.covers(i) === true) {
      // Loss lots in their (unwashed) consumption order, matched to the replacement shares.
      const losses: { k: number; obj: number; real: number }[] = [];
      for (let o = byAsset.start[i]!; o < byAsset.start[i + 1]!; o++) {
        const k = byAsset.order[o]!;
        const g = p - basis[k]! / qty[k]!;
        if (!(g < 0)) continue;
        const rate = asOfDay >= ltDay[k]! ? ltRate : stRate;
        const earns = useAlpha && (topLoss === undefined || topLoss[k] === 1);
        losses.push({ k, obj: earns ? rate * (g / p) * alphaScale : 0, real: rate * (g / p) });
      }
      losses.sort((a, b) => a.obj - b.obj || a.real - b.real || tradeDay[a.k]! - tradeDay[b.k]! || a.k - b.k);
      pricing.price(
        i,
        losses.map((l) => l.k),
        washFraction,
      );
    }
    let count = 0;
    for (let o = byAsset.start[i]!; o < byAsset.start[i + 1]!; o++) {
      const k = byAsset.order[o]!;
      const g = p - basis[k]! / qty[k]!;
      // A loss exposed to a wash sale: another purchase within the window (a held window lot other than this
      // one, or an outside purchase).
      const exposed = g < 0 && isExposedLoss(env, i, k);
      if (exposed) {
        exposedLossAssets[i] = 1;
        if (preventSale && x.liquidating[i] !== 1) {
          blockedWeight[i]! += (qty[k]! * p) / investableUsd;
          continue;
        }
      }
      const isLong = asOfDay >= ltDay[k]! ? 1 : 0;
      const rate = isLong ? ltRate : stRate;
      const gw = g / p; // gain per unit of value sold
      let obj = 0;
      let real = 0;
      let recog = 0;
      let ignored = 0;
      // The washed part of a loss is disallowed now (it moves into the replacement's basis): no tax effect today.
      const washedPart = g < 0 && exposed ? washFraction[k]! : 0;
      const kept = 1 - washedPart;
      if (g >= 0) {
        obj = rate * gw * keepShare;
        real = obj;
        recog = gw;
      } else if (kept <= 1e-12) {
        ignored = 1;
      } else {
        real = rate * gw * kept;
        recog = gw * kept;
        const earns = useAlpha && (topLoss === undefined || topLoss[k] === 1);
        obj = earns ? rate * gw * alphaScale * kept : 0;
        ignored = earns ? 0 : 1;
      }
      kLot[count] = k;
      kObj[count] = obj;
      kReal[count] = real;
      kRecog[count] = recog;
      kGain[count] = gw;
      kLong[count] = isLong;
      kIgnored[count] = ignored;
      kWashed[count] = washedPart;
      count++;
    }
    for (let c = 0; c < count; c++) insertLot(c, c, kLot, kObj, kReal, tradeDay, kOrder);
    let allowance = allowanceUsd[i]!;
    for (let o = 0; o < count; o++) {
      const c = kOrder[o]!;
      const k = kLot[c]!;
      const gain = kGain[c]!;
      const w = (qty[k]! * p) / investableUsd;
      // DOLLARS reduction: the first `amount` USD of gain in the order is untaxed (convex: see the docs): a piece
      // without tax, then the rest of the lot.
      let freeWeight = 0;
      if (allowance > 0 && gain > 0) {
        const gainUsd = gain * w * investableUsd;
        freeWeight = gainUsd <= allowance ? w : allowance / (gain * investableUsd);
        allowance = gainUsd <= allowance ? allowance - gainUsd : 0;
        if (freeWeight > 0) {
          pLot[q] = k;
          pWeight[q] = freeWeight;
          pRecog[q] = kRecog[c]!;
          pGain[q] = gain;
          pLong[q] = kLong[c]!;
          pIgnored[q] = kIgnored[c]!;
          pWashed[q] = kWashed[c]!;
          q++;
        }
      }
      const weight = w - freeWeight;
      if (!(weight > 0)) continue;
      pLot[q] = k;
      pWeight[q] = weight;
      pObj[q] = kObj[c]!;
      pReal[q] = kReal[c]!;
      pRecog[q] = kRecog[c]!;
      pGain[q] = gain;
      pLong[q] = kLong[c]!;
      pIgnored[q] = kIgnored[c]!;
      pWashed[q] = kWashed[c]!;
      q++;
    }
  }
  pStart[n] = q;
  return {
    schedule: {
      start: pStart,
      lot: pLot.subarray(0, q),
      weight: pWeight.subarray(0, q),
      objectiveCost: pObj.subarray(0, q),
      realTax: pReal.subarray(0, q),
      recognizedGain: pRecog.subarray(0, q),
      gain: pGain.subarray(0, q),
      longTerm: pLong.subarray(0, q),
      alphaIgnored: pIgnored.subarray(0, q),
      washedFraction: pWashed.subarray(0, q),
    },
    blockedWeight,
    exposedLossAssets,
  };
}

/**
 * One step of an insertion sort (an asset has tens of lots): insert kept lot c into out[0..placed), which is in
 * consumption order: cheapest objective cost first; ties by real tax, then older lot, then lot index.
 */
function insertLot(
  c: number,
  placed: number,
  lot: Int32Array,
  obj: Float64Array,
  real: Float64Array,
  tradeDay: Int32Array,
  out: Int32Array,
): void {
  let j = placed;
  const key = obj[c]!;
  const r = real[c]!;
  const k = lot[c]!;
  while (j > 0) {
    const prev = out[j - 1]!;
    const pk = obj[prev]!;
    const before =
      pk < key ||
      (pk === key &&
        (real[prev]! < r ||
          (real[prev] === r &&
            (tradeDay[lot[prev]!]! < tradeDay[k]! ||
              (tradeDay[lot[prev]!] === tradeDay[k] && lot[prev]! < k)))));
    if (before) break;
    out[j] = prev;
    j--;
  }
  out[j] = c;
}
