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
import { toDayNumber } from "../dates.js";
import { type LotTable, NO_DAY } from "./lot-table.js";
import type { OptimizationInput } from "./optimization-types.js";
import type { OptimizerConfig } from "./optimizer-config.js";

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
}

/** Wash-sale facts per asset and per lot. */
export interface WashSaleEnvironment {
  /** A purchase outside the lots within the window (input.recentPurchases). */
  readonly recentPurchase: Uint8Array;
  /** A sale at a loss within the window (input.recentLossSales or a lot's last_sold_for_loss_date). */
  readonly recentLossSale: Uint8Array;
  readonly lossSaleDate: (string | null)[];
  /** Held lots bought within the window that have not served as replacements, per asset. */
  readonly windowLots: Int32Array;
  /** Per lot: bought within the window and not yet a replacement. */
  readonly inWindowLot: Uint8Array;
}

/** The wash-sale window facts (T days before and after the as-of date, both ends inclusive). */
export function washSaleEnvironment(
  input: OptimizationInput,
  table: LotTable,
  index: ReadonlyMap<string, number>,
  n: number,
  asOfDay: number,
  T: number,
): WashSaleEnvironment {
  const recentPurchase = new Uint8Array(n);
  const recentLossSale = new Uint8Array(n);
  const lossSaleDate: (string | null)[] = new Array(n).fill(null);
  const lo = asOfDay - T;
  const hi = asOfDay + T;
  for (const e of input.recentPurchases ?? []) {
    const i = index.get(e.themeAssetId);
    const d = toDayNumber(e.date);
    if (i !== undefined && d >= lo && d <= hi) recentPurchase[i] = 1;
  }
  for (const e of input.recentLossSales ?? []) {
    const i = index.get(e.themeAssetId);
    const d = toDayNumber(e.date);
    if (i !== undefined && d >= lo && d <= hi) {
      recentLossSale[i] = 1;
      lossSaleDate[i] = e.date;
    }
  }
  const L = table.asset.length;
  const windowLots = new Int32Array(n);
  const inWindowLot = new Uint8Array(L);
  const asset = table.asset;
  const tradeDay = table.tradeDay;
  const washDay = table.washSaleDay;
  const soldDay = table.lastSoldForLossDay;
  for (let k = 0; k < L; k++) {
    const i = asset[k]!;
    const td = tradeDay[k]!;
    if (td >= lo && td <= hi && washDay[k] === NO_DAY) {
      inWindowLot[k] = 1;
      windowLots[i]!++;
    }
    const sd = soldDay[k]!;
    if (sd !== NO_DAY && sd >= lo && sd <= hi) {
      recentLossSale[i] = 1;
      lossSaleDate[i] ??= table.lots[k]!.lastSoldForLossDate;
    }
  }
  return { recentPurchase, recentLossSale, lossSaleDate, windowLots, inWindowLot };
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
  readonly env: WashSaleEnvironment;
}

/** Per-lot facts: gain per share, term, wash exposure; the loss lots ranked by tax alpha (n_high_loss_lots). */
function lotFacts(x: TaxScheduleInput) {
  const t = x.lotTable;
  const L = t.asset.length;
  const tax = x.config.tax;
  const gainPerShare = new Float64Array(L);
  const isLong = new Uint8Array(L);
  const exposed = new Uint8Array(L);
  const alphaRank = new Float64Array(L);
  const candidates: number[] = [];
  const { windowLots, inWindowLot, recentPurchase } = x.env;
  const asset = t.asset;
  const qty = t.quantity;
  const basis = t.basisUsd;
  const ltDay = t.longTermFromDay;
  const prices = x.prices;
  const asOfDay = x.asOfDay;
  const stRate = tax.shortTermRate;
  const ltRate = tax.longTermRate;
  for (let k = 0; k < L; k++) {
    const i = asset[k]!;
    const g = prices[i]! - basis[k]! / qty[k]!;
    gainPerShare[k] = g;
    const lt = asOfDay >= ltDay[k]! ? 1 : 0;
    isLong[k] = lt;
    if (g >= 0) continue;
    // Another purchase within the window (a held window lot other than this one, or an outside purchase).
    if (windowLots[i]! - inWindowLot[k]! > 0 || recentPurchase[i] === 1) exposed[k] = 1;
    else {
      alphaRank[k] = (lt ? ltRate : stRate) * -g * qty[k]!;
      candidates.push(k);
    }
  }
  const topLoss = new Uint8Array(L).fill(1);
  if (tax.nHighLossLots !== null && !tax.includePositiveTaxAlphaLots) {
    candidates.sort((a, b) => alphaRank[b]! - alphaRank[a]! || a - b);
    for (let r = tax.nHighLossLots; r < candidates.length; r++) topLoss[candidates[r]!] = 0;
  }
  return { gainPerShare, isLong, exposed, topLoss };
}

/** Per-lot costs per unit of weight sold (see the module comment), and the lots kept out of the order. */
function lotCosts(x: TaxScheduleInput, facts: ReturnType<typeof lotFacts>) {
  const t = x.lotTable;
  const L = t.asset.length;
  const { n, prices, shares, investableUsd, config } = x;
  const tax = config.tax;
  const obj = new Float64Array(L);
  const real = new Float64Array(L);
  const recog = new Float64Array(L);
  const gain = new Float64Array(L);
  const ignored = new Uint8Array(L);
  const keep = new Uint8Array(L);
  const blockedWeight = new Float64Array(n);
  const exposedLossAssets = new Uint8Array(n);
  const percentKeep = new Float64Array(n).fill(1);
  const reductions = config.capitalGainsReductions;
  if (config.capitalGainsReductionsUnits === "PERCENT")
    for (let i = 0; i < n; i++) {
      const id = x.assets[i]!;
      if (Object.hasOwn(reductions, id)) percentKeep[i] = 1 - reductions[id]! / 100;
    }
  const { gainPerShare, isLong, exposed, topLoss } = facts;
  const asset = t.asset;
  const qty = t.quantity;
  const preventSale = tax.preventTlhInvalidatingSale;
  const useAlpha = tax.useTaxAlpha;
  const alphaScale = tax.positiveTaxAlphaScalingFactor;
  const stRate = tax.shortTermRate;
  const ltRate = tax.longTermRate;
  let count = 0;
  for (let k = 0; k < L; k++) {
    const i = asset[k]!;
    if (shares[i]! <= 0) continue;
    const g = gainPerShare[k]!;
    const p = prices[i]!;
    if (g < 0 && exposed[k] === 1) {
      exposedLossAssets[i] = 1;
      if (preventSale && x.liquidating[i] !== 1) {
        blockedWeight[i]! += (qty[k]! * p) / investableUsd;
        continue;
      }
    }
    keep[k] = 1;
    count++;
    const rate = isLong[k] ? ltRate : stRate;
    const gw = g / p; // gain per unit of value sold
    gain[k] = gw;
    if (g >= 0) {
      obj[k] = rate * gw * percentKeep[i]!;
      real[k] = obj[k]!;
      recog[k] = gw;
    } else if (exposed[k] === 1) {
      // A washed loss is disallowed now (it moves into the replacement's basis): no tax effect today.
      ignored[k] = 1;
    } else {
      real[k] = rate * gw;
      recog[k] = gw;
      const earns = useAlpha && topLoss[k] === 1;
      obj[k] = earns ? rate * gw * alphaScale : 0;
      ignored[k] = earns ? 0 : 1;
    }
  }
  return { obj, real, recog, gain, ignored, keep, count, blockedWeight, exposedLossAssets };
}

/** The schedule (see the module comment) plus the weight of lots kept by prevent_tlh_invalidating_sale. */
export function buildTaxSchedule(x: TaxScheduleInput): {
  schedule: SchedulePieces;
  blockedWeight: Float64Array;
  exposedLossAssets: Uint8Array;
} {
  const t = x.lotTable;
  const { n, prices, shares, investableUsd, config } = x;
  const L = t.asset.length;
  const facts = lotFacts(x);
  const costs = lotCosts(x, facts);
  const { obj, real, recog, gain, ignored, keep } = costs;
  // Lots of each asset (counting sort by asset).
  const lotStart = new Int32Array(n + 1);
  const asset = t.asset;
  for (let k = 0; k < L; k++) lotStart[asset[k]! + 1]!++;
  for (let i = 0; i < n; i++) lotStart[i + 1]! += lotStart[i]!;
  const lotOrder = new Int32Array(L);
  const fill = lotStart.slice(0, n);
  for (let k = 0; k < L; k++) lotOrder[fill[asset[k]!]!++] = k;
  const allowanceUsd = new Float64Array(n);
  if (config.capitalGainsReductionsUnits === "DOLLARS")
    for (let i = 0; i < n; i++) {
      const id = x.assets[i]!;
      if (Object.hasOwn(config.capitalGainsReductions, id))
        allowanceUsd[i] = config.capitalGainsReductions[id]!;
    }
  // Room for one extra piece per asset (a lot split by a DOLLARS allowance).
  const cap = costs.count + n;
  const pStart = new Int32Array(n + 1);
  const pLot = new Int32Array(cap);
  const pWeight = new Float64Array(cap);
  const pObj = new Float64Array(cap);
  const pReal = new Float64Array(cap);
  const pRecog = new Float64Array(cap);
  const pGain = new Float64Array(cap);
  const pLong = new Uint8Array(cap);
  const pIgnored = new Uint8Array(cap);
  let longest = 0;
  for (let i = 0; i < n; i++) longest = Math.max(longest, lotStart[i + 1]! - lotStart[i]!);
  const order = new Int32Array(longest);
  const tradeDay = t.tradeDay;
  const qty = t.quantity;
  const isLong = facts.isLong;
  let q = 0;
  for (let i = 0; i < n; i++) {
    pStart[i] = q;
    if (shares[i]! <= 0) continue;
    const count = sortLots(lotOrder, lotStart[i]!, lotStart[i + 1]!, keep, obj, real, tradeDay, order);
    const p = prices[i]!;
    let allowance = allowanceUsd[i]!;
    for (let o = 0; o < count; o++) {
      const k = order[o]!;
      const w = (qty[k]! * p) / investableUsd;
      // DOLLARS reduction: the first `amount` USD of gain in the order is untaxed (convex: see the docs).
      let freeWeight = 0;
      if (allowance > 0 && gain[k]! > 0) {
        const gainUsd = gain[k]! * w * investableUsd;
        freeWeight = gainUsd <= allowance ? w : allowance / (gain[k]! * investableUsd);
        allowance = gainUsd <= allowance ? allowance - gainUsd : 0;
      }
      for (let part = 0; part < 2; part++) {
        const free = part === 0;
        const weight = free ? freeWeight : w - freeWeight;
        if (!(weight > 0)) continue;
        pLot[q] = k;
        pWeight[q] = weight;
        pObj[q] = free ? 0 : obj[k]!;
        pReal[q] = free ? 0 : real[k]!;
        pRecog[q] = recog[k]!;
        pGain[q] = gain[k]!;
        pLong[q] = isLong[k]!;
        pIgnored[q] = ignored[k]!;
        q++;
      }
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
    },
    blockedWeight: costs.blockedWeight,
    exposedLossAssets: costs.exposedLossAssets,
  };
}

/**
 * Insertion sort (an asset has tens of lots) of the kept lots lotOrder[from..to) into `out`: cheapest objective
 * cost first; ties by real tax, then older lot, then lot index (deterministic). Returns the count.
 */
function sortLots(
  lotOrder: Int32Array,
  from: number,
  to: number,
  keep: Uint8Array,
  obj: Float64Array,
  real: Float64Array,
  tradeDay: Int32Array,
  out: Int32Array,
): number {
  let count = 0;
  for (let o = from; o < to; o++) {
    const k = lotOrder[o]!;
    if (keep[k] !== 1) continue;
    let j = count++;
    const key = obj[k]!;
    while (j > 0) {
      const prev = out[j - 1]!;
      const pk = obj[prev]!;
      const before =
        pk < key ||
        (pk === key &&
          (real[prev]! < real[k]! ||
            (real[prev] === real[k] &&
              (tradeDay[prev]! < tradeDay[k]! || (tradeDay[prev] === tradeDay[k] && prev < k)))));
      if (before) break;
      out[j] = prev;
      j--;
    }
    out[j] = k;
  }
  return count;
}
