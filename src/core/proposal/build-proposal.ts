/**
 * @module core/proposal/build-proposal
 * The rebalance-proposal builder (PRODUCT.md section 4): target weights + holdings -> orders, with the
 * lots each sell consumes, the gains it realizes and the FX cost of non-USD orders. Pure: "today" is
 * `input.asOf`; money and quantities are decimal.js values at 64 significant digits.
 *
 * Steps (docs/proposals.md gives every rule with its arithmetic):
 * 1. NAV = positions at market in USD + cash; buffers; investable = NAV - buffers; target = weight x investable.
 * 2. Per asset, the trade from the current value to the target: sells (long sells, short sales) and buys
 *    (long buys, covers); no-trade assets are skipped, no-hold assets are sold or covered in full.
 * 3. Sells execute first: lots chosen by the tax engine (TAX_OPTIMAL by default, honoring wash sales),
 *    proceeds net of FX fees credited to cash.
 * 4. Buys are funded by the cash above the buffers; when it is short, every buy is scaled by the same
 *    factor and rounded down (whole shares, then one more share by largest remainder while cash lasts).
 * 5. Orders below the minimum size are dropped and reported; gains are summed with capital-gains
 *    reductions; the post-trade account is estimated at today's prices.
 */

import type { Decimal } from "decimal.js";
import { ValidationError } from "../errors.js";
import { compareDecimals } from "../tax/decimal.js";
import { type LotSelection, type SpecificLotRequest, selectLots, TaxDecimal } from "../tax/index.js";
import { cashBuffers } from "./cash-buffers.js";
import { fxCostForNet, fxCostFromBase } from "./fx-cost.js";
import { type PreparedAsset, type PreparedProposal, prepareProposal } from "./prepare-input.js";
import type { ProposalInput } from "./proposal-input.js";
import type {
  DroppedOrder,
  FxCostBreakdown,
  OrderCategory,
  OrderReason,
  PostTradePosition,
  ProposalOrder,
  ProposalResult,
  ProposalTaxLot,
  ProposalWarning,
  RealizedSummary,
} from "./proposal-result.js";
import { addRealized, emptyRealized, realizedOfLots } from "./realized-summary.js";
import {
  floorCents,
  floorPlaces,
  isNegative,
  isPositive,
  maxDecimal,
  minDecimal,
  roundHalfUp,
} from "./rounding.js";
import { coverChosenShortLots, coverShortLots } from "./short-lots.js";

const ZERO = new TaxDecimal(0);
const ONE = new TaxDecimal(1);
const HUNDRED = new TaxDecimal(100);
/** A gap between value and target below half a cent is no gap... */
const HALF_CENT = new TaxDecimal("0.005");
/** ...nor one below a step of the wire's weights (decimal(1,10)) times the investable value. */
const WEIGHT_STEP = new TaxDecimal("1e-10");

/** Per-asset context shared by the asset's orders. */
interface AssetPlan {
  asset: PreparedAsset;
  reason: OrderReason;
  targetValueUsd: Decimal;
  existingWeight: Decimal;
  /** Value change of the position (sells: -gross USD, buys: +net USD). */
  valueChangeUsd: Decimal;
  quantityChange: Decimal;
}

/** A wanted sell: `quantity` shares; `full` = the whole long position (or a forced liquidation). */
interface SellDraft {
  plan: AssetPlan;
  category: "long" | "short_order";
  quantity: Decimal;
  /** Exempt from the minimum order size (removal, no-hold). */
  forced: boolean;
  wantedUsd: Decimal;
}

/** A wanted buy, before funding. */
interface BuyDraft {
  plan: AssetPlan;
  category: "long" | "short_cover";
  forced: boolean;
  wantedUsd: Decimal;
  /** Notional buys: USD base wanted (fee grossed up), unrounded. */
  desiredBase: Decimal | null;
  /** Share buys: shares wanted, unrounded (exact for a full cover). */
  desiredShares: Decimal | null;
  /** Share buys: upper limit (shares owed, for covers). */
  maxShares: Decimal | null;
  /** Share buys: USD leaving cash for n shares, fee included (the order's exact base amount). */
  shareCost: (n: Decimal) => Decimal;
  /** Funded amount: base (notional) or shares. */
  funded: Decimal;
}

/**
 * Builds the rebalance proposal of one account. Pure and deterministic: the same input gives the same
 * orders in the same order. Inputs are not mutated.
 * @throws {ValidationError} for bad input, with one issue per offending item: a negative weight in
 *   LONG_ONLY, weights summing above 1 (or the long / short / net limits of LONG_SHORT and LONG_BIASED)
 *   beyond the tolerance, a duplicate asset in the targets, a no-hold asset with a non-zero weight, an
 *   asset both no-hold and no-trade, buffers larger than NAV, a non-positive NAV, a lot bought after
 *   `asOf` or in another currency than its security, bad configuration values.
 * @throws {MissingPriceError} when an asset held or targeted has no security info or no price.
 * @throws {DataError} (code `missing_fx_rate`) when a currency in use has no FX rate.
 * @throws {NonFiniteError} for a NaN or infinite price or FX rate.
 * @throws {RangeError} / {TypeError} for a malformed lot of an asset that is sold (from the tax engine).
 * @example
 * const proposal = buildProposal({
 *   asOf: "2025-03-03", cashUsd: "1000", lots, targets: [{ themeAssetId: "AAPL:XNAS", weight: "0.5" }],
 *   securities: { "AAPL:XNAS": { symbol: "AAPL", currency: "USD" } }, prices: { "AAPL:XNAS": "240.5" },
 * });
 * proposal.orders[0]?.amount.toString();
 */
export function buildProposal(input: ProposalInput): ProposalResult {
  const p = prepareProposal(input);
  const buffers = cashBuffers(p.buffers, p.navUsd, p.cadPerUsd);
  const withdrawal = new TaxDecimal(input.withdrawalUsd ?? 0);
  if (!withdrawal.isFinite() || withdrawal.isNegative())
    throw new ValidationError(`withdrawalUsd must be a USD amount >= 0, got ${withdrawal.toString()}.`, [
      { path: "withdrawalUsd", message: "must be >= 0" },
    ]);
  // Cash kept out of the trades: the buffers and the withdrawal.
  const reserved = buffers.reservedUsd.plus(withdrawal);
  const investable = p.navUsd.minus(reserved);
  if (investable.lt(0))
    throw new ValidationError(
      withdrawal.isZero()
        ? `The cash buffers (${buffers.reservedUsd.toString()} USD) exceed the account's NAV (${p.navUsd.toString()} USD); lower cash_buffer_* or cash_buffer_*_amount.`
        : `The withdrawal (${withdrawal.toString()} USD) and the cash buffers (${buffers.reservedUsd.toString()} USD) exceed the account's NAV (${p.navUsd.toString()} USD).`,
      [
        withdrawal.isZero()
          ? {
              path: "config.cashBufferUsdAmount",
              message: `buffers reserve ${buffers.reservedUsd.toString()} USD of a ${p.navUsd.toString()} USD account`,
            }
          : {
              path: "withdrawalUsd",
              message: `withdrawal and buffers reserve ${reserved.toString()} USD of a ${p.navUsd.toString()} USD account`,
            },
      ],
    );
  const feePct = p.fxFeePercentage;
  const keep = HUNDRED.minus(feePct).dividedBy(HUNDRED);
  const orders: ProposalOrder[] = [];
  const dropped: DroppedOrder[] = [];
  const warnings: ProposalWarning[] = [];
  const plans: AssetPlan[] = [];
  const sells: SellDraft[] = [];
  const buys: BuyDraft[] = [];

  // ---- 1-2. plan every asset ----
  const atTarget = maxDecimal(HALF_CENT, investable.times(WEIGHT_STEP));
  const navNumber = p.navUsd.isZero() ? null : p.navUsd.toNumber();
  for (const asset of p.assets) {
    const targetValueUsd = asset.targetWeight.times(investable);
    const value = asset.valueUsd;
    const plan: AssetPlan = {
      asset,
      reason: "weight_increased",
      targetValueUsd,
      existingWeight: weightOf(value, navNumber),
      valueChangeUsd: ZERO,
      quantityChange: ZERO,
    };
    plans.push(plan);
    const delta = targetValueUsd.minus(value);
    const removed = asset.targetWeight.isZero();
    // A gap the request cannot express is no gap; a removed position is always sold (no dust left).
    if (compareDecimals(delta.abs(), atTarget) < 0 && !(removed && !value.isZero())) continue;
    if (asset.noTrade) {
      dropped.push({
        themeAssetId: asset.id,
        side: isPositive(delta) ? "buy" : "sell",
        category: "long",
        reason: "no_trade",
        wantedAmountUsd: delta,
        message: `${asset.id} is a no-trade ticker: no order for the ${usd(delta.abs())} USD needed to reach its target.`,
      });
      continue;
    }
    const held = !asset.netQuantity.isZero();
    plan.reason = !held
      ? "added_to_target"
      : removed
        ? "removed_from_target"
        : isPositive(delta)
          ? "weight_increased"
          : "weight_decreased";
    planTrades(plan, delta, removed, p, keep, sells, buys);
  }

  // ---- 3. sells ----
  let cash = p.cashUsd;
  let fees = ZERO;
  const realizedByAsset = new Map<string, RealizedSummary>();
  for (const s of sells) {
    const a = s.plan.asset;
    // A chosen set of lots (the optimizer's) fixes the quantity, unless the position is sold in full anyway.
    const choice = s.category === "long" && !s.forced ? p.lotChoices.get(a.id) : undefined;
    const chosen =
      choice !== undefined && compareDecimals(choice.total, a.netQuantity) <= 0 ? choice : undefined;
    const q = chosen !== undefined ? chosen.total : s.quantity;
    const drop = sizeCheck(
      s.forced,
      q,
      q.times(a.priceUsd),
      a.wholeShares || s.category === "short_order",
      p,
    );
    if (drop !== null) {
      dropped.push(dropOf(a.id, "sell", s.category, drop, s.wantedUsd, q, p));
      continue;
    }
    const base = a.currency === "USD" ? q.times(a.price) : q.times(a.price).dividedBy(a.fxRate);
    const fx = a.currency === "USD" ? null : fxCostFromBase(a.currency, a.fxRate, base, feePct);
    const net = fx === null ? base : fx.netAmountUsd;
    cash = cash.plus(net);
    if (fx !== null) fees = fees.plus(fx.feeAmountUsd);
    s.plan.valueChangeUsd = s.plan.valueChangeUsd.minus(base);
    s.plan.quantityChange = s.plan.quantityChange.minus(q);
    let taxLots: ProposalTaxLot[] | null = null;
    let realized: RealizedSummary | null = null;
    if (s.category === "long") {
      taxLots = lotLines(sellLots(a, q, p, chosen?.lots));
      realized = realizedOfLots(taxLots, reductionOf(p, a.id), p.reductionUnits);
      realizedByAsset.set(a.id, realized);
      if (realized.disallowedLossUsd.gt(0)) warnings.push(washedLossWarning(a.id, q, taxLots, p));
    }
    orders.push(
      order(s.plan, "sell", s.category, "qty", q.negated(), q, base.negated(), taxLots, fx, realized),
    );
  }
  const cashAfterSells = cash;

  // ---- 4. buys: wash-sale guard, funding, rounding ----
  const candidates: BuyDraft[] = [];
  for (const b of buys) {
    const id = b.plan.asset.id;
    const lossDate = b.category === "long" ? p.recentLossAssets.get(id) : undefined;
    if (lossDate !== undefined) {
      const msg = `${id} was sold at a loss on ${lossDate}, within ${p.rules.washSaleThresholdDays} days; buying it now would wash that loss`;
      if (p.preventPurchase) {
        dropped.push({
          themeAssetId: id,
          side: "buy",
          category: b.category,
          reason: "wash_sale_prevented",
          wantedAmountUsd: b.wantedUsd,
          message: `${msg} (prevent_tlh_invalidating_purchase).`,
        });
        continue;
      }
      warnings.push({ code: "purchase_washes_recent_loss", themeAssetId: id, message: `${msg}.` });
    }
    candidates.push(b);
  }
  // Covers are funded first (a short is closed before the asset is bought long), then long buys.
  const budget = cashAfterSells.minus(reserved);
  const covers = candidates.filter((b) => b.category === "short_cover");
  const longs = candidates.filter((b) => b.category === "long");
  const coverScale = fundBuys(covers, budget);
  const longScale = fundBuys(longs, budget.minus(spentOn(covers)));
  const openShorts = new Set(
    covers.filter((b) => b.forced && b.funded.lt(b.desiredShares!)).map((b) => b.plan.asset.id),
  );
  for (const b of longs) if (openShorts.has(b.plan.asset.id)) b.funded = ZERO;
  const scale = minDecimal(coverScale, longScale);
  if (scale.lt(1))
    warnings.push({
      code: "buys_scaled",
      themeAssetId: null,
      message: `The cash above the buffers (${usd(maxDecimal(budget, ZERO))} USD after sells) funds ${scale.times(100).toDecimalPlaces(4).toString()}% of the wanted buys; every buy was scaled by that factor and rounded down.`,
    });
  for (const b of candidates) {
    const a = b.plan.asset;
    const isShares = b.desiredShares !== null;
    if (b.funded.isZero()) {
      const reason = scale.lt(1) ? "scaled_to_zero" : isShares ? "rounded_to_zero" : "below_min_notional";
      dropped.push(dropOf(a.id, "buy", b.category, reason, b.wantedUsd, ZERO, p));
      continue;
    }
    let fx: FxCostBreakdown | null;
    let base: Decimal;
    let net: Decimal;
    let q: Decimal;
    if (isShares) {
      q = b.funded;
      net = a.currency === "USD" ? q.times(a.price) : q.times(a.price).dividedBy(a.fxRate);
      fx = a.currency === "USD" ? null : fxCostForNet(a.currency, a.fxRate, net, feePct);
      base = fx === null ? net : fx.baseAmountUsd;
    } else {
      base = b.funded;
      fx = a.currency === "USD" ? null : fxCostFromBase(a.currency, a.fxRate, base, feePct);
      net = fx === null ? base : fx.netAmountUsd;
      q = net.dividedBy(a.priceUsd);
    }
    const drop = sizeCheck(b.forced, q, base, isShares, p);
    if (drop !== null) {
      dropped.push(dropOf(a.id, "buy", b.category, drop, b.wantedUsd, q, p));
      continue;
    }
    cash = cash.minus(base);
    if (fx !== null) fees = fees.plus(fx.feeAmountUsd);
    b.plan.valueChangeUsd = b.plan.valueChangeUsd.plus(net);
    b.plan.quantityChange = b.plan.quantityChange.plus(q);
    let taxLots: ProposalTaxLot[] | null = null;
    let realized: RealizedSummary | null = null;
    if (b.category === "short_cover") {
      // The chosen short lots when the cover is for exactly their total (not scaled by the cash), else the rule.
      const choice = b.forced ? undefined : p.lotChoices.get(a.id);
      taxLots =
        choice !== undefined && q.eq(choice.total)
          ? coverChosenShortLots(a.shortLots, choice.lots, a.price, a.fxRate)
          : coverShortLots(a.shortLots, q, a.price, a.fxRate);
      realized = realizedOfLots(taxLots, reductionOf(p, a.id), p.reductionUnits);
      realizedByAsset.set(a.id, realized);
    }
    const type = isShares ? "qty" : "notional";
    orders.push(order(b.plan, "buy", b.category, type, isShares ? q : base, q, base, taxLots, fx, realized));
  }

  // ---- 5. totals and post-trade account ----
  let realized = emptyRealized();
  for (const r of realizedByAsset.values()) realized = addRealized(realized, r);
  const positions: PostTradePosition[] = [];
  let positionsUsd = ZERO;
  const after: { plan: AssetPlan; value: Decimal; quantity: Decimal }[] = [];
  for (const plan of plans) {
    const quantity = plan.asset.netQuantity.plus(plan.quantityChange);
    const value = plan.asset.valueUsd.plus(plan.valueChangeUsd);
    positionsUsd = positionsUsd.plus(value);
    after.push({ plan, value, quantity });
  }
  const navAfter = cash.plus(positionsUsd);
  const navAfterNumber = navAfter.isZero() ? null : navAfter.toNumber();
  for (const { plan, value, quantity } of after) {
    if (quantity.isZero() && plan.asset.targetWeight.isZero()) continue;
    positions.push({
      themeAssetId: plan.asset.id,
      quantity,
      marketValueUsd: value,
      weight: weightOf(value, navAfterNumber),
      targetWeight: plan.asset.targetWeight,
      targetValueUsd: plan.targetValueUsd,
    });
  }
  const uninvested = ONE.minus(p.longWeightSum);
  if (p.mode === "LONG_ONLY" && uninvested.gt(p.weightSumTolerance))
    warnings.push({
      code: "weights_below_one",
      themeAssetId: null,
      message: `The target weights sum to ${p.longWeightSum.toString()}, not 1: the remaining ${uninvested.toString()} of the investable value (${usd(uninvested.times(investable))} USD) stays in cash, on top of the cash buffers.`,
    });
  const shortfall = reserved.minus(cash);
  if (shortfall.gt(0))
    warnings.push({
      code: "cash_below_buffer",
      themeAssetId: null,
      message: `Cash after the trades (${usd(cash)} USD) stays ${usd(shortfall)} USD below the buffers${withdrawal.isZero() ? "" : " and the withdrawal"} (${usd(reserved)} USD): the sells the targets ask for do not raise enough cash.`,
    });

  orders.sort(orderComparator);
  dropped.sort(
    (x, y) =>
      (x.themeAssetId < y.themeAssetId ? -1 : x.themeAssetId > y.themeAssetId ? 1 : 0) ||
      (x.side === y.side ? 0 : x.side === "sell" ? -1 : 1) ||
      (x.category === y.category ? 0 : x.category < y.category ? -1 : 1),
  );
  return {
    asOf: p.asOf,
    navUsd: p.navUsd,
    cashUsd: p.cashUsd,
    cashBufferUsdAmount: buffers.usd,
    cashBufferCadAmount: buffers.cad,
    reservedCashUsd: reserved,
    investableUsd: investable,
    orders,
    dropped,
    warnings,
    realized,
    fxFeesUsd: fees,
    buyScale: scale,
    postTrade: {
      cashUsd: cash,
      navUsd: navAfter,
      cashShortfallUsd: shortfall.gt(0) ? shortfall : ZERO,
      positions,
    },
  };
}

/** Splits the move from the current position to the target into sell and buy drafts. */
function planTrades(
  plan: AssetPlan,
  delta: Decimal,
  removed: boolean,
  p: PreparedProposal,
  keep: Decimal,
  sells: SellDraft[],
  buys: BuyDraft[],
): void {
  const a = plan.asset;
  const target = plan.targetValueUsd;
  const places = a.wholeShares ? 0 : p.quantityDecimals;
  // Same operations as fxCostForNet, so the funding check and the order's base agree to the last digit.
  const shareCost = (n: Decimal) =>
    a.currency === "USD" ? n.times(a.price) : n.times(a.price).dividedBy(a.fxRate).dividedBy(keep);
  const longBuy = (valueUsd: Decimal) => {
    if (!isPositive(valueUsd)) return;
    buys.push({
      plan,
      category: "long",
      forced: false,
      wantedUsd: valueUsd,
      desiredBase: a.wholeShares ? null : a.currency === "USD" ? valueUsd : valueUsd.dividedBy(keep),
      desiredShares: a.wholeShares ? valueUsd.dividedBy(a.priceUsd) : null,
      maxShares: null,
      shareCost,
      funded: ZERO,
    });
  };
  const shortSale = (valueUsd: Decimal) => {
    // Shorts trade in whole shares: brokers do not lend fractional shares.
    sells.push({
      plan,
      category: "short_order",
      quantity: roundHalfUp(valueUsd.dividedBy(a.priceUsd), 0),
      forced: false,
      wantedUsd: valueUsd.negated(),
    });
  };
  if (!isNegative(target)) {
    if (isPositive(a.shortQuantity)) {
      // Cover the whole short (target >= 0), then buy the long part.
      buys.push({
        plan,
        category: "short_cover",
        forced: true,
        wantedUsd: a.valueUsd.negated(),
        desiredBase: null,
        desiredShares: a.shortQuantity,
        maxShares: a.shortQuantity,
        shareCost,
        funded: ZERO,
      });
      longBuy(target);
      return;
    }
    if (isPositive(delta)) {
      longBuy(delta);
      return;
    }
    const quantity = removed
      ? a.longQuantity
      : minDecimal(roundHalfUp(delta.negated().dividedBy(a.priceUsd), places), a.longQuantity);
    sells.push({ plan, category: "long", quantity, forced: removed, wantedUsd: delta });
    return;
  }
  // target < 0 (LONG_SHORT / LONG_BIASED)
  if (isPositive(a.longQuantity)) {
    // Going short needs the whole long position sold first (forced: never dropped for size).
    sells.push({
      plan,
      category: "long",
      quantity: a.longQuantity,
      forced: true,
      wantedUsd: a.valueUsd.negated(),
    });
    shortSale(target.negated());
    return;
  }
  if (isNegative(delta)) {
    shortSale(delta.negated());
    return;
  }
  // A chosen set of short lots (the optimizer's) fixes the cover's quantity, as for long sells.
  const choice = p.lotChoices.get(a.id);
  buys.push({
    plan,
    category: "short_cover",
    forced: false,
    wantedUsd: delta,
    desiredBase: null,
    desiredShares:
      choice !== undefined && compareDecimals(choice.total, a.shortQuantity) <= 0
        ? choice.total
        : delta.dividedBy(a.priceUsd),
    maxShares: a.shortQuantity,
    shareCost,
    funded: ZERO,
  });
}

/**
 * Funds the buys from `budget` (cash above the buffers after sells); sets each draft's `funded` amount and
 * returns the scale factor s (1 when everything fits).
 * Unscaled: notional = floor_cent(desired), shares = round-half-up(desired) (capped at the shares owed).
 * When that costs more than the budget: s = budget / sum(desired costs); notional = floor_cent(s x desired),
 * shares = floor(s x desired), then one more share to the largest remainders >= 0.5 while the cash lasts.
 */
function fundBuys(buys: BuyDraft[], budget: Decimal): Decimal {
  const capped = (b: BuyDraft, n: Decimal) => (b.maxShares === null ? n : minDecimal(n, b.maxShares));
  let cost = ZERO;
  let raw = ZERO;
  for (const b of buys) {
    if (b.desiredBase !== null) {
      b.funded = floorCents(b.desiredBase);
      cost = cost.plus(b.funded);
      raw = raw.plus(b.desiredBase);
    } else {
      b.funded = capped(b, roundHalfUp(b.desiredShares!, 0));
      // A fractional short (owed quantity) is covered exactly.
      if (b.forced) b.funded = b.desiredShares!;
      cost = cost.plus(b.shareCost(b.funded));
      raw = raw.plus(b.shareCost(b.desiredShares!));
    }
  }
  if (cost.lte(budget)) return ONE;
  const none = !isPositive(budget) || raw.isZero();
  const s = none ? ZERO : minDecimal(ONE, budget.dividedBy(raw));
  // desired x budget / raw (multiply first: 105 x 100 / 210 is exactly 50, 105 x 0.476... is not).
  const scaled = (x: Decimal) => (none ? ZERO : s.eq(ONE) ? x : x.times(budget).dividedBy(raw));
  let spent = ZERO;
  const remainders: { b: BuyDraft; r: Decimal }[] = [];
  for (const b of buys) {
    if (b.desiredBase !== null) {
      b.funded = floorCents(scaled(b.desiredBase));
      spent = spent.plus(b.funded);
    } else {
      const x = scaled(b.desiredShares!);
      b.funded = capped(b, floorPlaces(x, 0));
      spent = spent.plus(b.shareCost(b.funded));
      remainders.push({ b, r: x.minus(b.funded) });
    }
  }
  let left = budget.minus(spent);
  remainders.sort(
    (u, v) =>
      v.r.comparedTo(u.r) ||
      (u.b.plan.asset.id < v.b.plan.asset.id ? -1 : u.b.plan.asset.id > v.b.plan.asset.id ? 1 : 0),
  );
  for (const { b, r } of remainders) {
    if (r.lt(0.5)) break;
    const next = b.funded.plus(1);
    if (b.maxShares !== null && next.gt(b.maxShares)) continue;
    const extra = b.shareCost(next).minus(b.shareCost(b.funded));
    if (extra.gt(left)) continue;
    b.funded = next;
    left = left.minus(extra);
  }
  // Guard against 64-digit rounding: the largest buy gives back a share or a cent until the total fits.
  while (spentOn(buys).gt(budget)) {
    const top = buys
      .filter((b) => isPositive(b.funded))
      .sort((u, v) => spentOn([v]).comparedTo(spentOn([u])))[0];
    if (top === undefined) break;
    top.funded = top.desiredBase !== null ? top.funded.minus("0.01") : maxDecimal(ZERO, top.funded.minus(1));
  }
  return s;
}

/** USD the funded drafts take from cash (base amounts, fees included). */
function spentOn(buys: readonly BuyDraft[]): Decimal {
  let total = ZERO;
  for (const b of buys) total = total.plus(b.desiredBase !== null ? b.funded : b.shareCost(b.funded));
  return total;
}

/** Lot selection of a long sell through the tax engine. */
function sellLots(
  a: PreparedAsset,
  quantity: Decimal,
  p: PreparedProposal,
  specificLots?: readonly SpecificLotRequest[],
): LotSelection {
  const purchases = p.washPurchases.get(a.id);
  return selectLots(a.lots, quantity, specificLots === undefined ? p.policy : "SPECIFIC", {
    ...(specificLots === undefined ? {} : { specificLots }),
    themeAssetId: a.id,
    saleDate: p.asOf,
    price: a.price,
    fxRate: a.fxRate,
    longTermThresholdDays: p.rules.longTermThresholdDays,
    washSaleThresholdDays: p.rules.washSaleThresholdDays,
    holdingPeriodConvention: p.rules.holdingPeriodConvention,
    washSaleHandling: p.preventSale ? "avoid" : "deprioritize",
    ...(purchases === undefined ? {} : { purchases }),
  });
}

/**
 * The warning of a sell whose loss the wash-sale rule disallows in part or in full: the lot lines show the economic
 * loss, the realized figures only the recognized part.
 */
function washedLossWarning(
  id: string,
  quantity: Decimal,
  lines: readonly ProposalTaxLot[],
  p: PreparedProposal,
): ProposalWarning {
  let loss = ZERO;
  let disallowed = ZERO;
  for (const l of lines) {
    if (l.gainUsd.lt(0)) loss = loss.minus(l.gainUsd);
    disallowed = disallowed.plus(l.disallowedLossUsd);
  }
  return {
    code: "sale_loss_washed",
    themeAssetId: id,
    message: `Selling ${quantity.toString()} shares of ${id} realizes a loss of ${loss.toFixed(2)} USD, of which ${disallowed.toFixed(2)} USD is disallowed by the wash-sale rule: shares of ${id} were bought within ${p.rules.washSaleThresholdDays} days (in this account or another account of the household). The disallowed loss moves into the basis of those shares; the lot lines show the loss before the disallowance.`,
  };
}

/** The proposal's lot lines from a selection. */
function lotLines(selection: LotSelection): ProposalTaxLot[] {
  return selection.picks.map((pick) => ({
    lotId: pick.lotId,
    quantity: pick.quantity,
    tradeDate: pick.tradeDate,
    costBasis: pick.costBasis,
    costBasisUsd: pick.costBasisUsd,
    gainUsd: pick.gainUsd,
    term: pick.term,
    disallowedLossUsd: pick.expectedDisallowedLossUsd,
    recognizedGainUsd: pick.gainUsd.plus(pick.expectedDisallowedLossUsd),
  }));
}

function reductionOf(p: PreparedProposal, id: string): Decimal.Value | undefined {
  return Object.hasOwn(p.reductions, id) ? p.reductions[id] : undefined;
}

/**
 * Why an order is too small, or null when it may go. Forced orders (removals, no-hold, full covers)
 * always go, so nothing is left behind.
 */
function sizeCheck(
  forced: boolean,
  quantity: Decimal,
  valueUsd: Decimal,
  wholeShares: boolean,
  p: PreparedProposal,
): "rounded_to_zero" | "below_min_quantity" | "below_min_notional" | null {
  if (quantity.isZero()) return "rounded_to_zero";
  if (forced) return null;
  if (!wholeShares && compareDecimals(quantity, p.minQuantity) < 0) return "below_min_quantity";
  if (compareDecimals(valueUsd, p.minNotionalUsd) < 0) return "below_min_notional";
  return null;
}

function dropOf(
  id: string,
  side: "buy" | "sell",
  category: OrderCategory,
  reason: DroppedOrder["reason"],
  wantedUsd: Decimal,
  quantity: Decimal,
  p: PreparedProposal,
): DroppedOrder {
  const what = `${side === "buy" ? "buy" : "sell"}${category === "long" ? "" : ` (${category})`} of ${id} worth ${usd(wantedUsd.abs())} USD`;
  const why: Record<DroppedOrder["reason"], string> = {
    no_trade: "it is a no-trade ticker",
    below_min_notional: `it is below the minimum order of ${p.minNotionalUsd.toString()} USD`,
    below_min_quantity: `${quantity.toString()} shares is below the minimum of ${p.minQuantity.toString()} shares`,
    rounded_to_zero: "it rounds to zero shares",
    scaled_to_zero: "the cash above the buffers does not fund it after scaling",
    wash_sale_prevented: "it would wash a recent loss",
  };
  return {
    themeAssetId: id,
    side,
    category,
    reason,
    wantedAmountUsd: side === "buy" ? wantedUsd.abs() : wantedUsd.abs().negated(),
    message: `Dropped the ${what}: ${why[reason]}.`,
  };
}

function order(
  plan: AssetPlan,
  side: "buy" | "sell",
  category: OrderCategory,
  type: "qty" | "notional",
  amount: Decimal,
  quantity: Decimal,
  amountUsd: Decimal,
  taxLots: ProposalTaxLot[] | null,
  fx: FxCostBreakdown | null,
  realized: RealizedSummary | null,
): ProposalOrder {
  const a = plan.asset;
  return {
    themeAssetId: a.id,
    symbol: a.symbol,
    currency: a.currency,
    side,
    type,
    category,
    reason: plan.reason,
    amount,
    quantity,
    amountUsd,
    existingQuantity: a.netQuantity,
    existingWeight: plan.existingWeight,
    existingMarketValueUsd: a.valueUsd,
    targetWeight: a.targetWeight,
    targetValueUsd: plan.targetValueUsd,
    taxLots,
    fxCostBreakdown: fx,
    realized,
  };
}

/** Sells before buys; then by theme_asset_id; a long sell before a short sale, a cover before a long buy. */
function orderComparator(x: ProposalOrder, y: ProposalOrder): number {
  const side = (o: ProposalOrder) => (o.side === "sell" ? 0 : 1);
  // Within an asset: long sell (0) before short sale (1); cover (0) before long buy (1).
  const leg = (o: ProposalOrder) =>
    o.category === "short_order" || (o.side === "buy" && o.category === "long") ? 1 : 0;
  return (
    side(x) - side(y) ||
    (x.themeAssetId < y.themeAssetId ? -1 : x.themeAssetId > y.themeAssetId ? 1 : 0) ||
    leg(x) - leg(y)
  );
}

/**
 * `value / nav` as a float64 ratio (16 significant digits, ample for the wire's 10 decimals): weights are
 * float64 by convention (docs/architecture.md "Numbers") and a 64-digit division per asset would cost more
 * than the rest of an untouched asset's work. `nav` is the NAV as a number (converted once per proposal), null
 * when it is zero.
 */
function weightOf(value: Decimal, nav: number | null): Decimal {
  return nav === null ? ZERO : new TaxDecimal(value.toNumber() / nav);
}

/** USD figure for messages: two decimals. */
function usd(x: Decimal): string {
  return x.toFixed(2);
}
