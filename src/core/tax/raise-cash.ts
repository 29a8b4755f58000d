/**
 * @module core/tax/raise-cash
 * The lot engine of a withdrawal (docs/cash-requests.md): which lots to sell to raise an amount of cash with the
 * least tax, when no optimizer applies (no target, no risk model).
 *
 * Rule: every sellable lot is ranked by its **tax per dollar raised**, `rate(term) x gain / proceeds` (a loss has a
 * negative tax: a saving), ascending; ties by holding term (short-term first), trade date, lot id. Lots are sold in
 * that order, each in full while the amount still needed is at least its proceeds, the last one in part (the
 * quantity rounded UP to `quantityDecimals`, or to whole shares). With tax linear in the shares sold
 * (`sum rate x gain`), "raise exactly R, minimize tax" is a linear program with one equality and box bounds per lot:
 * a fractional knapsack, whose optimum is this greedy order (the cheapest dollars first). So: short-term losses
 * before long-term losses of the same size, losses first, then long-term gains with the lowest gain per dollar,
 * then short-term gains.
 *
 * Configuration it honors:
 * - the **minimum trade** (`minTradeUsd`): an asset's sell order is never below it unless it sells the whole
 *   position. A lot whose sale would start an order below the minimum is skipped (the next lots raise the cash);
 *   when only such lots are left, the best one's asset sells the minimum (or its whole position when smaller), so
 *   the cash raised exceeds the amount by less than the minimum trade;
 * - **whole shares** (`wholeShares` of an asset): its order is a whole number of shares unless it sells the whole
 *   position; the last lot then sells the fewest whole shares that cover the amount (raising the smallest amount
 *   >= the one asked, given the lots before it);
 * - **no-trade** assets (`frozen`) are not sold;
 * - **wash sales**: the loss of an asset with replacement shares in the window (`lossWashed`) would be disallowed,
 *   so it is ranked as no saving (gain 0); with `keepWashedLosses` (prevent_tlh_invalidating_sale) its loss lots
 *   are not sold at all.
 *
 * Pure; decimal.js money.
 */
import type { Decimal } from "decimal.js";
import { TaxDecimal, ZERO } from "./decimal.js";
import { type HoldingTerm, holdingTerm } from "./holding-period.js";
import type { TaxLot } from "./lot.js";
import type { TaxRulesOptions } from "./tax-rules.js";

/** What the engine needs of each held asset. */
export interface RaiseCashAsset {
  /** Net USD cash one share sold brings: the USD price, less the FX fee of a non-USD listing. */
  readonly proceedsPerShareUsd: Decimal;
  /** Orders in whole shares (unless the whole position is sold). @default false */
  readonly wholeShares?: boolean;
  /** Not to be sold (no-trade list). @default false */
  readonly frozen?: boolean;
  /** Its losses would be disallowed by replacement shares bought within the wash-sale window. @default false */
  readonly lossWashed?: boolean;
}

/** Input of {@link raiseCash}. */
export interface RaiseCashInput {
  /** Trade date (`YYYY-MM-DD`): the holding terms are counted to it. */
  readonly asOf: string;
  /** USD to raise, > 0. */
  readonly amountUsd: Decimal;
  /** The account's lots (several per asset allowed). */
  readonly lots: readonly TaxLot[];
  /** Every asset of the lots; a lot whose asset is missing is not sold. */
  readonly assets: ReadonlyMap<string, RaiseCashAsset>;
  /** Tax rates on realized gains (fractions). */
  readonly rates: { readonly shortTerm: Decimal; readonly longTerm: Decimal };
  /** Smallest sell order in USD (0 = none). @default 0 */
  readonly minTradeUsd?: Decimal;
  /** Decimals of fractional quantities. @default 6 */
  readonly quantityDecimals?: number;
  /** Holding-period rules. */
  readonly rules?: TaxRulesOptions;
  /** Do not sell the loss lots of `lossWashed` assets (prevent_tlh_invalidating_sale). @default false */
  readonly keepWashedLosses?: boolean;
}

/** One lot (or part of one) to sell. */
export interface RaiseCashPick {
  readonly lotId: string;
  readonly themeAssetId: string;
  readonly quantity: Decimal;
  readonly proceedsUsd: Decimal;
  readonly costBasisUsd: Decimal;
  /** proceeds - basis (negative = loss). */
  readonly gainUsd: Decimal;
  readonly term: HoldingTerm;
  /** rate(term) x gain, the disallowed loss of a washed asset counting 0. */
  readonly taxUsd: Decimal;
}

/** One sell order (an asset's picks together). */
export interface RaiseCashOrder {
  readonly themeAssetId: string;
  readonly quantity: Decimal;
  readonly proceedsUsd: Decimal;
  /** The whole position is sold. */
  readonly closes: boolean;
}

/** Answer of {@link raiseCash}. */
export interface RaiseCashResult {
  /** Lots sold, in the order chosen. */
  readonly picks: readonly RaiseCashPick[];
  /** By asset, in the order first sold. */
  readonly orders: readonly RaiseCashOrder[];
  readonly raisedUsd: Decimal;
  readonly shortTermUsd: Decimal;
  readonly longTermUsd: Decimal;
  /** Estimated tax of the sales (negative = saving). */
  readonly taxUsd: Decimal;
  /** Cash still missing when the sellable lots do not cover the amount (0 otherwise). */
  readonly shortfallUsd: Decimal;
}

interface Ranked {
  lot: TaxLot;
  pps: Decimal;
  basisPerShareUsd: Decimal;
  term: HoldingTerm;
  rate: Decimal;
  washed: boolean;
  key: Decimal;
  left: Decimal;
}

/** rate(term) x gain, the loss of a washed asset counting as no saving. */
function taxOf(r: Ranked, gain: Decimal): Decimal {
  if (r.washed && gain.isNegative()) return ZERO;
  return gain.times(r.rate);
}

/**
 * Lots to sell to raise `amountUsd` with the least estimated tax (see the module comment for the rule).
 * @throws {RangeError} for a non-positive amount or a non-positive price.
 * @example raiseCash({ asOf: "2025-06-30", amountUsd: new TaxDecimal(1000), lots, assets,
 *   rates: { shortTerm: new TaxDecimal("0.4"), longTerm: new TaxDecimal("0.15") } }).picks
 */
export function raiseCash(input: RaiseCashInput): RaiseCashResult {
  if (!input.amountUsd.isFinite() || input.amountUsd.lte(0))
    throw new RangeError(`raiseCash: amountUsd must be positive, got ${input.amountUsd.toString()}.`);
  const places = input.quantityDecimals ?? 6;
  const minTrade = input.minTradeUsd ?? ZERO;
  const ranked: Ranked[] = [];
  const held = new Map<string, Decimal>();
  for (const lot of input.lots) {
    const a = input.assets.get(lot.themeAssetId);
    if (a === undefined || a.frozen === true || lot.quantity.lte(0)) continue;
    if (a.proceedsPerShareUsd.lte(0))
      throw new RangeError(`raiseCash: ${lot.themeAssetId} has no positive price.`);
    const pps = a.proceedsPerShareUsd;
    const basisPerShareUsd = lot.totalCostBasis.dividedBy(lot.fxRate).dividedBy(lot.quantity);
    const term = holdingTerm(lot.holdingPeriodStart, input.asOf, input.rules ?? {});
    const rate = term === "long_term" ? input.rates.longTerm : input.rates.shortTerm;
    const washed = a.lossWashed === true;
    const gainPerShare = pps.minus(basisPerShareUsd);
    if (washed && gainPerShare.isNegative() && input.keepWashedLosses === true) continue;
    const r: Ranked = { lot, pps, basisPerShareUsd, term, rate, washed, key: ZERO, left: lot.quantity };
    r.key = taxOf(r, gainPerShare).dividedBy(pps);
    ranked.push(r);
    held.set(lot.themeAssetId, (held.get(lot.themeAssetId) ?? ZERO).plus(lot.quantity));
  }
  ranked.sort(
    (x, y) =>
      x.key.comparedTo(y.key) ||
      (x.term === y.term ? 0 : x.term === "short_term" ? -1 : 1) ||
      (x.lot.tradeDate < y.lot.tradeDate ? -1 : x.lot.tradeDate > y.lot.tradeDate ? 1 : 0) ||
      (x.lot.id < y.lot.id ? -1 : x.lot.id > y.lot.id ? 1 : 0),
  );

  const sold = new Map<string, Decimal>();
  const taken = new Map<Ranked, Decimal>();
  const pickOrder: Ranked[] = [];
  const whole = (id: string) => input.assets.get(id)?.wholeShares === true;
  let need = input.amountUsd;

  const take = (r: Ranked, q: Decimal) => {
    if (q.lte(0)) return;
    r.left = r.left.minus(q);
    if (!taken.has(r)) pickOrder.push(r);
    taken.set(r, (taken.get(r) ?? ZERO).plus(q));
    sold.set(r.lot.themeAssetId, (sold.get(r.lot.themeAssetId) ?? ZERO).plus(q));
    need = need.minus(q.times(r.pps));
  };
  /** Shares of lot r that raise `amount` (rounded up, at most what is left of the lot). */
  const sharesFor = (r: Ranked, amount: Decimal) => {
    const full = r.left;
    if (full.times(r.pps).lte(amount)) return full;
    const q = amount
      .dividedBy(r.pps)
      .toDecimalPlaces(whole(r.lot.themeAssetId) ? 0 : places, TaxDecimal.ROUND_CEIL);
    return q.gt(full) ? full : q;
  };
  /** Whole-share assets: keep the order a whole number unless it sells the position. */
  const keepWhole = (r: Ranked, q: Decimal) => {
    const id = r.lot.themeAssetId;
    if (!whole(id)) return q;
    const after = (sold.get(id) ?? ZERO).plus(q);
    if (after.eq(held.get(id)!) || after.isInteger()) return q;
    return after.floor().minus(sold.get(id) ?? ZERO);
  };

  for (;;) {
    // One pass in rank order, never starting an order below the minimum trade.
    const deferred: Ranked[] = [];
    for (const r of ranked) {
      if (need.lte(0)) break;
      if (r.left.isZero()) continue;
      const id = r.lot.themeAssetId;
      const q = keepWhole(r, sharesFor(r, need));
      if (q.lte(0)) continue;
      const before = sold.get(id) ?? ZERO;
      const closes = before.plus(q).eq(held.get(id)!);
      if (before.isZero() && !closes && q.times(r.pps).lt(minTrade)) {
        deferred.push(r);
        continue;
      }
      take(r, q);
    }
    if (need.lte(0) || deferred.length === 0) break;
    // Only orders below the minimum are left: the best one's asset sells the minimum (or its whole position).
    const id = deferred[0]!.lot.themeAssetId;
    let amount = TaxDecimal.max(need, minTrade);
    for (const r of ranked) {
      if (r.lot.themeAssetId !== id || r.left.isZero() || amount.lte(0)) continue;
      const q = sharesFor(r, amount);
      amount = amount.minus(q.times(r.pps));
      take(r, q);
    }
  }

  const picks: RaiseCashPick[] = pickOrder.map((r) => {
    const quantity = taken.get(r)!;
    const proceedsUsd = quantity.times(r.pps);
    const costBasisUsd = quantity.eq(r.lot.quantity)
      ? r.lot.totalCostBasis.dividedBy(r.lot.fxRate)
      : r.basisPerShareUsd.times(quantity);
    const gainUsd = proceedsUsd.minus(costBasisUsd);
    return {
      lotId: r.lot.id,
      themeAssetId: r.lot.themeAssetId,
      quantity,
      proceedsUsd,
      costBasisUsd,
      gainUsd,
      term: r.term,
      taxUsd: taxOf(r, gainUsd),
    };
  });
  const orders = new Map<string, { quantity: Decimal; proceedsUsd: Decimal }>();
  for (const p of picks) {
    const o = orders.get(p.themeAssetId) ?? { quantity: ZERO, proceedsUsd: ZERO };
    orders.set(p.themeAssetId, {
      quantity: o.quantity.plus(p.quantity),
      proceedsUsd: o.proceedsUsd.plus(p.proceedsUsd),
    });
  }
  const sum = (f: (p: RaiseCashPick) => Decimal, which?: HoldingTerm) =>
    picks.reduce((s, p) => (which === undefined || p.term === which ? s.plus(f(p)) : s), ZERO);
  return {
    picks,
    orders: [...orders].map(([themeAssetId, o]) => ({
      themeAssetId,
      ...o,
      closes: o.quantity.eq(held.get(themeAssetId)!),
    })),
    raisedUsd: sum((p) => p.proceedsUsd),
    shortTermUsd: sum((p) => p.gainUsd, "short_term"),
    longTermUsd: sum((p) => p.gainUsd, "long_term"),
    taxUsd: sum((p) => p.taxUsd),
    shortfallUsd: need.gt(0) ? need : ZERO,
  };
}
