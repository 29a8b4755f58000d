/**
 * @module core/optimizer/solution-report
 * What a solution means: trades, the lots each sale consumes (in the schedule's order, the same order the
 * piecewise-linear tax cost was built from), realized gains and tax in exact decimal arithmetic, costs, turnover,
 * tracking error and the objective's terms.
 */
import { Decimal } from "decimal.js";
import { portfolioVariance } from "../risk/index.js";
import type { AssetTrade, LotSale, ShortCover } from "./optimization-types.js";
import { type PeriodModel, WEIGHT_EPSILON } from "./period-model.js";

/** Float summary of a weight vector (cheap; used inside searches). */
export interface SolutionStats {
  readonly w: Float64Array;
  readonly t: Float64Array;
  /** Net tax in the optimizer's model (reductions as modeled), USD. */
  readonly taxUsd: number;
  /** Net recognized gain (losses negative, washed losses 0), USD. */
  readonly netGainUsd: number;
  readonly linearCostUsd: number;
  readonly impactUsd: number;
  /** One-way turnover. */
  readonly turnover: number;
  readonly trackingError: number;
  readonly totalRisk: number;
  /** Objective terms (fractions of I; risk in annualized variance). */
  readonly riskTerm: number;
  readonly costTerm: number;
  readonly taxTerm: number;
  readonly returnTerm: number;
  readonly objective: number;
}

/**
 * The 3/2-power impact c |t|^{3/2} of a trade of size a = |t| (0 without impact, skipping the power; the same
 * sums as c a^{3/2} for every finite a).
 */
export function impactOf(c: number, a: number): number {
  return c === 0 && a < Number.POSITIVE_INFINITY ? 0 : c * a ** 1.5;
}

/** Stats of the weights `w` at tax_gamma `gamma`. */
export function solutionStats(m: PeriodModel, w: Float64Array, gamma: number): SolutionStats {
  const { n, config } = m;
  const I = m.investableUsd;
  const t = new Float64Array(n);
  let tax = 0;
  let gain = 0;
  let objTax = 0;
  let linear = 0;
  let impact = 0;
  let turnover = 0;
  let expected = 0;
  const active = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const ti = w[i]! - m.w0[i]!;
    t[i] = ti;
    active[i] = w[i]! - m.benchmark[i]!;
    const a = Math.abs(ti);
    turnover += 0.5 * a;
    linear += m.costRate[i]! * a;
    impact += impactOf(m.impact[i]!, a);
    expected += m.expectedReturns[i]! * w[i]!;
    if (ti < 0 && m.shares[i]! > 0) {
      const sc = m.schedule;
      let left = Math.min(-ti, m.w0[i]!);
      for (let p = sc.start[i]!; p < sc.start[i + 1]! && left > 0; p++) {
        const wp = Math.min(left, sc.weight[p]!);
        tax += sc.realTax[p]! * wp;
        gain += sc.recognizedGain[p]! * wp;
        objTax += sc.objectiveCost[p]! * wp;
        left -= wp;
      }
    } else if (ti > 0 && m.shares[i]! < 0) {
      // A cover consumes the short lots in the cover order (cover-schedule.ts).
      const cv = m.covers;
      let left = Math.min(ti, -m.w0[i]!);
      for (let p = cv.start[i]!; p < cv.start[i + 1]! && left > 0; p++) {
        const wp = Math.min(left, cv.weight[p]!);
        tax += cv.realTax[p]! * wp;
        gain += cv.gain[p]! * wp;
        objTax += cv.objectiveCost[p]! * wp;
        left -= wp;
      }
    }
  }
  const te = Math.sqrt(Math.max(0, portfolioVariance(m.riskModel, active)));
  const vol = Math.sqrt(Math.max(0, portfolioVariance(m.riskModel, w)));
  const lambda = config.riskAversion;
  const riskTerm = lambda * (config.useMeanVariance ? vol * vol : te * te);
  const costTerm = config.scalingFactor * (linear + impact);
  const taxTerm = gamma * objTax;
  const returnTerm = config.useMeanVariance ? expected : 0;
  return {
    w,
    t,
    taxUsd: tax * I,
    netGainUsd: gain * I,
    linearCostUsd: linear * I,
    impactUsd: impact * I,
    turnover,
    trackingError: te,
    totalRisk: vol,
    riskTerm,
    costTerm,
    taxTerm,
    returnTerm,
    objective: riskTerm + costTerm + taxTerm - returnTerm,
  };
}

/** Trades of the weights `w` (shares from weights; whole-share assets are whole by construction). */
export function tradesOf(m: PeriodModel, w: Float64Array): AssetTrade[] {
  const out: AssetTrade[] = [];
  const I = m.investableUsd;
  for (let i = 0; i < m.n; i++) {
    const t = w[i]! - m.w0[i]!;
    if (Math.abs(t) <= WEIGHT_EPSILON) continue;
    const amount = Math.abs(t) * I;
    out.push({
      themeAssetId: m.assets[i]!,
      side: t > 0 ? "buy" : "sell",
      shares: amount / m.prices[i]!,
      amountUsd: amount,
      fromWeight: m.w0[i]!,
      toWeight: w[i]!,
    });
  }
  return out;
}

/** Sales and taxes of the weights `w`. */
export interface LotSalesReport {
  readonly lotsToSell: LotSale[];
  /** Short lots the covers close (their gains are in the short-term total). */
  readonly shortLotsToCover: ShortCover[];
  /** Recognized gains before reductions. */
  readonly realizedShortTermUsd: number;
  readonly realizedLongTermUsd: number;
  readonly capitalGainsReductionUsd: number;
  readonly harvestedLossesUsd: number;
  readonly taxCostUsd: number;
}

/** Quantity decimals of fractional sells (brokers' common precision, as the proposal builder). */
export const SELL_QUANTITY_DECIMALS = 6;

/**
 * The lots each sale consumes, in the schedule order, with decimal quantities (whole shares for whole-share
 * assets, 6 decimals otherwise, the lot's exact quantity when it is sold out) and estimated gains (float USD;
 * the proposal builder books the exact decimal gains); then each asset's capital-gains reduction with the tax
 * engine's semantics (on the asset's positive net, pro rata to its short- and long-term parts) and the tax at the
 * configured rates.
 */
export function lotSales(m: PeriodModel, w: Float64Array, wholeShares: Uint8Array): LotSalesReport {
  const out: LotSale[] = [];
  const tax = m.config.tax;
  const table = m.lotTable;
  const sc = m.schedule;
  const I = m.investableUsd;
  let stRaw = 0;
  let ltRaw = 0;
  let reductionTotal = 0;
  let harvested = 0;
  let taxCost = 0;
  const scale = 10 ** SELL_QUANTITY_DECIMALS;
  const reductions = m.config.capitalGainsReductions;
  const anyReduction = Object.getOwnPropertyNames(reductions).length > 0;
  /** Books an asset's realized short- and long-term gains, its capital-gains reduction and their tax. */
  const settle = (i: number, st: number, lt: number) => {
    stRaw += st;
    ltRaw += lt;
    const id = m.assets[i]!;
    const amount = anyReduction && Object.hasOwn(reductions, id) ? reductions[id]! : 0;
    const net = st + lt;
    const reduction =
      amount > 0 && net > 0
        ? m.config.capitalGainsReductionsUnits === "DOLLARS"
          ? Math.min(amount, net)
          : (amount / 100) * net
        : 0;
    const sp = Math.max(st, 0);
    const lp = Math.max(lt, 0);
    const stCut = reduction > 0 ? (reduction * sp) / (sp + lp) : 0;
    reductionTotal += reduction;
    taxCost += (st - stCut) * tax.shortTermRate + (lt - (reduction - stCut)) * tax.longTermRate;
  };
  for (let i = 0; i < m.n; i++) {
    const t = w[i]! - m.w0[i]!;
    if (!(t < -WEIGHT_EPSILON) || m.shares[i]! <= 0) continue;
    const price = m.prices[i]!;
    const full = w[i]! <= WEIGHT_EPSILON;
    const whole = wholeShares[i] === 1;
    let sharesToSell = Math.min(m.shares[i]!, (-t * I) / price);
    sharesToSell = whole && !full ? Math.round(sharesToSell) : Math.round(sharesToSell * scale) / scale;
    let remaining = sharesToSell;
    let st = 0;
    let lt = 0;
    let left = -t;
    // Walk the schedule; consecutive pieces of one lot (a DOLLARS allowance split) are one sale.
    for (let p = sc.start[i]!; p < sc.start[i + 1]! && left > 0 && remaining > 0; ) {
      const k = sc.lot[p]!;
      const firstPiece = p;
      let sh = 0;
      while (p < sc.start[i + 1]! && sc.lot[p] === k && left > 0) {
        const wp = Math.min(left, sc.weight[p]!);
        sh += (wp * I) / price;
        left -= wp;
        p++;
      }
      while (p < sc.start[i + 1]! && sc.lot[p] === k) p++;
      const lot = table.lots[k]!;
      const held = table.quantity[k]!;
      const soldOut = full || sh >= held * (1 - 1e-9);
      let qn = soldOut ? held : Math.min(Math.round(sh * scale) / scale, remaining);
      if (qn > held) qn = held;
      if (!(qn > 0)) continue;
      remaining -= qn;
      const basis = (table.basisUsd[k]! * qn) / held;
      const proceeds = qn * price;
      const gain = proceeds - basis;
      const longTerm = m.asOfDay >= table.longTermFromDay[k]!;
      const washed = sc.washedFraction[firstPiece]!;
      const disallowed = gain < 0 && washed > 0 ? (washed >= 1 ? -gain : -gain * washed) : 0;
      out.push({
        lotId: lot.id,
        themeAssetId: lot.themeAssetId,
        quantity: soldOut ? lot.quantity : new Decimal(qn.toFixed(SELL_QUANTITY_DECIMALS)),
        proceedsUsd: proceeds,
        costBasisUsd: basis,
        gainUsd: gain,
        term: longTerm ? "long_term" : "short_term",
        taxAlphaIgnored: sc.alphaIgnored[firstPiece] === 1,
        disallowedLossUsd: disallowed,
      });
      // The washed part of a loss is disallowed now: it does not count in the realized totals.
      const recognized = gain + disallowed;
      if (longTerm) lt += recognized;
      else st += recognized;
      if (recognized < 0) harvested -= recognized;
    }
    settle(i, st, lt);
  }
  // Covers of short lots (an asset is long or short, never both): short-term gains, lowest gain first.
  const covers: ShortCover[] = [];
  const cv = m.covers;
  const shortTable = m.shortLots;
  for (let i = 0; i < m.n; i++) {
    const t = w[i]! - m.w0[i]!;
    if (!(t > WEIGHT_EPSILON) || m.shares[i]! >= 0) continue;
    const price = m.prices[i]!;
    const owed = -m.shares[i]!;
    const full = w[i]! >= -WEIGHT_EPSILON;
    const whole = wholeShares[i] === 1;
    let sharesToCover = Math.min(owed, (t * I) / price);
    sharesToCover = whole && !full ? Math.round(sharesToCover) : Math.round(sharesToCover * scale) / scale;
    let remaining = full ? owed : sharesToCover;
    let st = 0;
    for (let p = cv.start[i]!; p < cv.start[i + 1]! && remaining > 1e-12; p++) {
      const k = cv.lot[p]!;
      const lot = shortTable.lots[k]!;
      const heldQ = shortTable.quantity[k]!;
      const coveredOut = full || remaining >= heldQ * (1 - 1e-9);
      const qn = coveredOut ? heldQ : Math.round(remaining * scale) / scale;
      if (!(qn > 0)) break;
      remaining -= qn;
      const proceeds = (shortTable.proceedsUsd[k]! * qn) / heldQ;
      const cost = qn * price;
      const gain = proceeds - cost;
      covers.push({
        lotId: lot.id,
        themeAssetId: lot.themeAssetId,
        quantity: coveredOut ? lot.quantity : new Decimal(qn.toFixed(SELL_QUANTITY_DECIMALS)),
        proceedsUsd: proceeds,
        costUsd: cost,
        gainUsd: gain,
        term: "short_term",
        taxAlphaIgnored: gain < 0 && cv.alphaIgnored[p] === 1,
      });
      st += gain;
      if (gain < 0) harvested -= gain;
    }
    settle(i, st, 0);
  }
  return {
    lotsToSell: out,
    shortLotsToCover: covers,
    realizedShortTermUsd: stRaw,
    realizedLongTermUsd: ltRaw,
    capitalGainsReductionUsd: reductionTotal,
    harvestedLossesUsd: harvested,
    taxCostUsd: taxCost,
  };
}
