/**
 * @module core/backtest/policies/tax-aware-tracking
 * The tax-managed policy (cases `tax_managed` and `long_short_tlh`). At each rebalance date t, with orders
 * executing on the next trading date e:
 *
 * 1. Target: the benchmark weights in force at t over priced assets, scaled to 1 - cash buffer, plus the
 *    long-short overlay when one is configured.
 * 2. Harvest: every long lot whose loss is at least `harvestThresholdBps` of its basis is sold (SPECIFIC
 *    lots), unless another lot of the asset bought within the wash-sale window before e is kept (it would
 *    wash the loss). Short lots whose loss reaches the same share of their proceeds are covered. A harvested
 *    asset is not bought back this period, and no asset sold at a loss within the window is bought (the
 *    window both ways: IRC §1091); the proceeds go to substitutes through step 3, or stay in cash.
 * 3. Rebalance, engine "optimizer" (the default): the product's tax-aware optimizer (`src/core/optimizer`,
 *    docs/optimizer.md), one warm-started workspace per policy instance. Universe = the columns with a price
 *    (those without a close today are `noTrade`); lots = the long lots left after step 2; cash includes the
 *    harvest proceeds (open shorts are covered first: without an overlay the account is long only); benchmark =
 *    the step-1 target; the risk model of the provider plus a constant zero-variance factor whose exposure is
 *    bounded at 1 - {@link MAX_UNINVESTED_FRACTION}, so the account stays invested; tax_gamma, rates, wash-sale
 *    and long-term thresholds, `tcostBps` = transactionBps, `brokerSpreadBps` = fxFeeBps, no commission; no tax
 *    alpha (losses below the threshold are step 2's business, as below); `recentLossSales` = the assets sold at a
 *    loss within the window, this decision's harvests included, with `preventTlhInvalidatingPurchase` (no buy
 *    back) and `preventTlhInvalidatingSale` (no loss sale a recent purchase would wash; gains thinner than
 *    {@link WASH_SALE_GAIN_MARGIN} of such an asset are shown as losses so they stay too). An infeasible solve is
 *    retried without the invested floor; a still infeasible or failed one holds (harvest trades only), counted
 *    in `fallbacks`. Nothing is thrown.
 *
 *    Engine "pwl_tracking" (and always with an overlay, whose per-asset long and short legs are not an optimizer
 *    mode): the tax-aware mean-variance tracking problem over post-trade weights w,
 *
 *      minimize  lambda (w - w_T)' Sigma (w - w_T) + sum_i phi_i(w_i)    s.t.  sum_i w_i = sum_i w_T,i
 *
 *    with Sigma the risk model at t (annualized) and phi_i the trading cost c_i |w_i - w0_i| plus, for sales,
 *    tax_gamma x the tax of the lots consumed: lots are sold in increasing order of tax per dollar,
 *    rate(term) x gain / value (losses count as 0 in the objective, so phi stays convex; they still sell
 *    first and still realize their loss), loss lots exposed to a recent purchase cannot be sold, a blocked
 *    asset cannot be bought. Solved exactly by {@link solvePwlTracking} (the optimizer's PWL engine).
 * 4. Orders: sells name their lots (the optimizer's `lotsToSell`, SPECIFIC), buys are USD amounts, trades
 *    under `minTradeFraction` of NAV are skipped unless they close the position.
 */
import type { Currency } from "../../data/types.js";
import { addDays } from "../../dates.js";
import {
  createOptimizer,
  type DatedAssetEvent,
  type OptimizationResult,
  type Optimizer,
  type OptimizerConfigInput,
  resolveOptimizerConfig,
} from "../../optimizer/index.js";
import type { FactorModel } from "../../risk/index.js";
import { riskModelTimesVector, toQuadraticForm } from "../../risk/index.js";
import { holdingTerm, type SpecificLotRequest, type TaxLot, type TaxRulesOptions } from "../../tax/index.js";
import type { MarketView } from "../market-view.js";
import type { BacktestPolicy, BacktestShortLot, PolicyContext, PolicyOrder } from "../policy.js";
import { characteristicOverlay, type LongShortFactor } from "./characteristic-overlay.js";
import {
  basisResetOrders,
  correlationSubstitutes,
  type DEFAULT_HARVEST_SCAN_DAYS,
  harvestPays,
  harvestTrackingCostUsd,
} from "./harvest-rules.js";
import { solvePwlTracking } from "./pwl-tracking-qp.js";
import type { RiskModelProvider } from "./risk-model-provider.js";
import { DEFAULT_MIN_TRADE_FRACTION, investableTargetWeights } from "./target-weights.js";

/**
 * Smallest gain, as a fraction of a lot's value, at which a lot of an asset bought within the wash-sale window
 * may be sold: orders execute one day after the decision, and a thinner gain could turn into a loss that
 * the recent purchase would wash.
 */
export const WASH_SALE_GAIN_MARGIN = 0.05;

/**
 * Largest share of the investable value the optimizer path may leave in cash (beyond the cash buffer). The
 * optimizer's budget is an inequality, and a factor model lets cash plus high-beta names stand in for the
 * benchmark at almost no ex-ante tracking error: left free, it keeps several percent in cash after large harvests
 * (up to 17% on the synthetic market), a cash drag the model does not see. The floor, a bound on the exposure
 * to a constant factor ({@link INVESTED_FACTOR}), keeps the account invested as the PWL path's budget equality
 * does, with room for the optimizer's reserve for trading costs.
 */
export const MAX_UNINVESTED_FRACTION = 0.002;

/** Name of the constant factor (exposure 1, no variance) whose exposure is the invested share. */
export const INVESTED_FACTOR = "lotwise:invested";

/** Default risk aversion lambda of the tracking objective (annualized active variance). */
export const DEFAULT_TRACKING_RISK_AVERSION = 2;

/** Options of {@link taxAwareTrackingPolicy}. */
export interface TaxAwareTrackingOptions {
  /** Weight of the tax cost in the objective (0 = tax-blind rebalancing, harvesting still on). */
  readonly taxGamma: number;
  /** Harvest a lot when its loss reaches this many bps of its basis. */
  readonly harvestThresholdBps: number;
  readonly shortTermRate: number;
  readonly longTermRate: number;
  /** Wash-sale window, long-term threshold and holding-period convention. */
  readonly taxRules?: TaxRulesOptions;
  /** One-way transaction cost, bps (the simulator's). */
  readonly transactionBps: number;
  /** FX fee of non-USD trades, bps (the simulator's). */
  readonly fxFeeBps: number;
  /** @default 2 ({@link DEFAULT_TRACKING_RISK_AVERSION}) */
  readonly riskAversion?: number;
  /** @default 0 */
  readonly cashBuffer?: number;
  /** Largest weight of one asset (long) or short position. @default 1 */
  readonly maxWeight?: number;
  /** @default 1e-4 */
  readonly minTradeFraction?: number;
  /** The risk model at a decision date (share one provider between cases). */
  readonly riskModel: RiskModelProvider;
  /**
   * Step 3's solver: the product's tax-aware optimizer (`src/core/optimizer`, one warm-started workspace per
   * policy) or the policy's own PWL tracking QP ({@link solvePwlTracking}). A long-short overlay always uses
   * "pwl_tracking" (its long and short legs per asset are not an optimizer mode). @default "optimizer"
   */
  readonly rebalanceEngine?: RebalanceEngine;
  /**
   * The account's configuration at each decision (engine "optimizer" only): targets, restrictions, bounds, caps,
   * substitution groups, whole shares... as the account is optimized with. Its risk aversion and max weight replace
   * `riskAversion` and `maxWeight`; {@link BACKTEST_OWNED_CONFIG} and the tax block stay the policy's.
   * @default none (the fields of these options only)
   */
  readonly optimizerConfig?: OptimizerConfigProvider;
  /**
   * Trading days between harvest-only scans between rebalances (step 2b; engine "optimizer", no overlay): lots past
   * the threshold whose harvest pays ({@link harvestPays}) are sold and the proceeds buy the most correlated names
   * of their sector ({@link correlationSubstitutes}); nothing else trades. 0 = monthly harvests only. @default 0
   * (the standard backtest's tax_managed case uses {@link DEFAULT_HARVEST_SCAN_DAYS})
   */
  readonly harvestScanDays?: number;
  /**
   * Basis reset (step 5; engine "optimizer"): at each rebalance every long-term lot whose unrealized gain is at most
   * this fraction of its value, and at least {@link WASH_SALE_GAIN_MARGIN}, is sold and bought back the same day
   * ({@link basisResetOrders}). 0 = never.
   * @default 0 (the standard backtest resolves it with {@link defaultBasisResetMaxGain})
   */
  readonly basisResetMaxGain?: number;
  /** Adds a long-short overlay tilted to this factor. */
  readonly overlay?: {
    readonly factor: LongShortFactor;
    readonly grossExposure?: number;
    readonly quantile?: number;
  };
}

/** What a configuration provider may know of the account at a decision (its rules' conditions test these). */
export interface DecisionAccountFacts {
  /** Value of the account at the decision's closes, USD. */
  readonly navUsd: number;
  readonly cashUsd: number;
  /** Assets held (long or short). */
  readonly positions: number;
}

/**
 * The account's optimizer configuration in force at the view's date (point in time: never a later one), for step 3
 * with engine "optimizer". The policy keeps its own costs, tax settings, cash buffer and wash-sale flags (see
 * {@link BACKTEST_OWNED_CONFIG}); every other field is the provider's.
 */
export type OptimizerConfigProvider = (
  view: MarketView,
  account: DecisionAccountFacts,
) => OptimizerConfigInput;

/**
 * Fields of the optimizer configuration the backtest sets itself, over any provided configuration: the costs the
 * simulator charges (tcost, FX spread, no commission, spread or impact model), its cash buffer, a long-only
 * portfolio benchmarked at 100% (the case's orders are long buys and lot sales), and the tax block (the request's
 * tax_gamma without a search, the simulated rates and windows, harvesting left to step 2, the wash-sale flags).
 */
export const BACKTEST_OWNED_CONFIG = {
  optimizationMode: "LONG_ONLY",
  longWeightSum: null,
  shortWeightSum: null,
  useMeanVariance: false,
  useCashBenchmark: false,
  commissionRate: 0,
  bidAskSpreadParameter: null,
  bidAskSpreadRefVolume: null,
  marketImpactParameter: null,
  linearTcaf: 0,
  cashBufferCad: null,
  cashBufferUsdAmount: null,
  cashBufferCadAmount: null,
} as const satisfies OptimizerConfigInput;

/** A decision that held (harvest trades only) because the optimizer found no feasible or usable portfolio. */
export interface HeldDecision {
  /** Decision date. */
  readonly date: string;
  /** "infeasible" or "error". */
  readonly status: "infeasible" | "error";
  /** The optimizer's diagnosis (infeasible) or the error message. */
  readonly reasons: readonly string[];
}

/** Step 3's solver (see {@link TaxAwareTrackingOptions.rebalanceEngine}). */
export type RebalanceEngine = "optimizer" | "pwl_tracking";

/** Counters of a policy's decisions, for reports and tests. */
export interface TaxAwarePolicyStats {
  decisions: number;
  /** Lots harvested (long and short). */
  harvestedLots: number;
  /** Long lots past the threshold that were not harvested (a recent purchase would have washed them). */
  skippedHarvestLots: number;
  /** Their loss at the decision's prices, USD. */
  skippedHarvestLossUsd: number;
  /** Harvests made although a recent purchase washes part of them (the unwashed part paid). */
  partlyWashedHarvests: number;
  /** The lots those harvests sold (each can be a wash sale, by choice). */
  partlyWashedLots: number;
  /** Interim harvest scans run, and the lots they harvested. */
  scans: number;
  scanHarvestedLots: number;
  /** Long-term lots sold and bought back by the basis reset (step 5), and their value, USD. */
  basisResetLots: number;
  basisResetUsd: number;
  /**
   * Decisions whose optimization hit its round limit (kept: the point is feasible), was infeasible or failed
   * (held: only the harvest trades).
   */
  unsolved: number;
  /** Segment rounds summed over decisions. */
  rounds: number;
  /** Calls of the core optimizer (engine "optimizer"). */
  optimizerSolves: number;
  /** Decisions that held instead of rebalancing: the optimizer found the problem infeasible or threw. */
  fallbacks: number;
  /** Optimizer decisions re-solved without the invested floor (see {@link MAX_UNINVESTED_FRACTION}). */
  investedFloorRelaxed: number;
  /** Fallbacks whose optimization was infeasible even without the invested floor (the configuration's constraints). */
  infeasible: number;
  /** The decisions that held (the `fallbacks`), with their date and the optimizer's diagnosis. */
  held: HeldDecision[];
}

/** A tax-aware policy with its counters. */
export interface TaxAwarePolicy extends BacktestPolicy {
  readonly stats: TaxAwarePolicyStats;
}

interface LotInfo {
  lot: TaxLot;
  valueUsd: number;
  /** gain / value. */
  gainFraction: number;
  /** Tax per dollar sold: rate(term) x gain / value (negative for a loss). */
  taxPerDollar: number;
  loss: boolean;
}

interface ShortInfo {
  lot: BacktestShortLot;
  valueUsd: number;
  taxPerDollar: number;
  loss: boolean;
}

/**
 * Creates the policy. One instance per case (it keeps its counters); the risk-model provider may be shared.
 * @throws {RangeError} for a negative gamma, threshold, cost or risk aversion.
 * @example taxAwareTrackingPolicy({ taxGamma: 1, harvestThresholdBps: 500, shortTermRate: 0.37, longTermRate: 0.2,
 *   transactionBps: 5, fxFeeBps: 25, riskModel: createRiskModelProvider() })
 */
export function taxAwareTrackingPolicy(options: TaxAwareTrackingOptions): TaxAwarePolicy {
  for (const key of ["taxGamma", "harvestThresholdBps", "transactionBps", "fxFeeBps"] as const)
    if (!(options[key] >= 0 && Number.isFinite(options[key])))
      throw new RangeError(`taxAwareTrackingPolicy: ${key} must be finite and >= 0, got ${options[key]}`);
  const lambda = options.riskAversion ?? DEFAULT_TRACKING_RISK_AVERSION;
  if (!(lambda > 0 && Number.isFinite(lambda)))
    throw new RangeError(`taxAwareTrackingPolicy: riskAversion must be finite and > 0, got ${lambda}`);
  const engine = options.overlay ? "pwl_tracking" : (options.rebalanceEngine ?? "optimizer");
  if (engine !== "optimizer" && engine !== "pwl_tracking")
    throw new RangeError(`taxAwareTrackingPolicy: unknown rebalanceEngine ${String(engine)}`);
  const stats: TaxAwarePolicyStats = {
    decisions: 0,
    harvestedLots: 0,
    skippedHarvestLots: 0,
    skippedHarvestLossUsd: 0,
    partlyWashedHarvests: 0,
    partlyWashedLots: 0,
    scans: 0,
    scanHarvestedLots: 0,
    basisResetLots: 0,
    basisResetUsd: 0,
    unsolved: 0,
    rounds: 0,
    optimizerSolves: 0,
    fallbacks: 0,
    investedFloorRelaxed: 0,
    infeasible: 0,
    held: [],
  };
  // One workspace per policy: consecutive decisions warm-start (engines, sides, cost reserve).
  const optimizer = engine === "optimizer" ? createOptimizer() : null;
  const scanDays = optimizer === null ? 0 : (options.harvestScanDays ?? 0);
  if (!(Number.isInteger(scanDays) && scanDays >= 0))
    throw new RangeError(`taxAwareTrackingPolicy: harvestScanDays must be an integer >= 0, got ${scanDays}`);
  const memory: ScanMemory = { model: null, noTrade: new Set(), noHold: new Set(), maxWeight: 1 };
  return {
    stats,
    scanEveryTradingDays: scanDays,
    decide(context: PolicyContext): PolicyOrder[] {
      stats.decisions += 1;
      return optimizer === null
        ? decide(context, options, lambda, stats)
        : decideWithOptimizer(context, options, lambda, stats, optimizer, memory);
    },
    scan(context: PolicyContext): PolicyOrder[] {
      return scanDays > 0 ? harvestScan(context, options, lambda, stats, memory) : [];
    },
  };
}

/** What an interim scan reuses of the last rebalance (no new risk model or configuration between rebalances). */
interface ScanMemory {
  model: FactorModel | null;
  noTrade: Set<string>;
  noHold: Set<string>;
  maxWeight: number;
}

function decide(
  { view, portfolio }: PolicyContext,
  o: TaxAwareTrackingOptions,
  lambda: number,
  stats: TaxAwarePolicyStats,
): PolicyOrder[] {
  const n = view.size;
  const exec = view.executionDate ?? view.date;
  const rules = o.taxRules ?? {};
  const windowStart = addDays(exec, -(rules.washSaleThresholdDays ?? 30));
  const nav = portfolio.navUsd;
  const minTrade = (o.minTradeFraction ?? DEFAULT_MIN_TRADE_FRACTION) * nav;
  const maxWeight = o.maxWeight ?? 1;
  const threshold = o.harvestThresholdBps / 1e4;
  const gamma = o.taxGamma;
  const target = investableTargetWeights(view, o.cashBuffer ?? 0);
  if (o.overlay) {
    const overlay = characteristicOverlay(view, target, o.overlay);
    for (let i = 0; i < n; i++) target[i]! += overlay[i]!;
  }
  let targetSum = 0;
  for (let i = 0; i < n; i++) targetSum += target[i]!;

  // Lots bought on one date share their term: memoize it per decision.
  const terms = new Map<string, "short_term" | "long_term">();
  const termAt = (start: string) => {
    let term = terms.get(start);
    if (term === undefined) {
      term = holdingTerm(start, exec, rules);
      terms.set(start, term);
    }
    return term;
  };
  const orders: PolicyOrder[] = [];
  // Assets harvested in this decision: no buy (long) or new short (short) this period.
  const blockedBuy = new Set<number>();
  const blockedShort = new Set<number>();
  const current = new Float64Array(n);
  const sellOrder: (LotInfo[] | ShortInfo[] | null)[] = new Array(n).fill(null);
  const domainShort = new Uint8Array(n);
  const segStart: number[] = [0];
  const segLower: number[] = [];
  const segUpper: number[] = [];
  const segSlope: number[] = [];
  const push = (lo: number, hi: number, slope: number) => {
    const k = segSlope.length;
    // Adjacent pieces with one slope are one segment.
    if (k > segStart[segStart.length - 1]! && segSlope[k - 1] === slope && segUpper[k - 1] === lo)
      segUpper[k - 1] = hi;
    else {
      segLower.push(lo);
      segUpper.push(hi);
      segSlope.push(slope);
    }
  };

  for (let i = 0; i < n; i++) {
    const price = view.priceUsd(i);
    const value = portfolio.valuesUsd[i]!;
    current[i] = value / nav;
    const tradable = view.pricedToday(i) && price > 0;
    if (!tradable) {
      push(current[i]!, current[i]!, 0);
      segStart.push(segSlope.length);
      continue;
    }
    const usd = view.security(i).currency === "USD";
    const cost = (o.transactionBps + (usd ? 0 : o.fxFeeBps)) / 1e4;
    const wantShort = target[i]! < 0;
    let lots = portfolio.lots(i).map((lot) => lotInfo(lot, view, i, termAt(lot.holdingPeriodStart), o));
    let shorts = portfolio.shortLots(i).map((lot) => shortInfo(lot, view, i, o));

    // 2. Harvest.
    if (lots.length > 0) {
      const harvest = longHarvest(lots, threshold, windowStart, stats);
      const picked = harvestOrder(orders, stats, i, harvest);
      if (harvest.length > 0) {
        for (const l of harvest) current[i]! -= l.valueUsd / nav;
        lots = lots.filter((l) => !picked.has(l.lot.id));
        blockedBuy.add(i);
      }
    }
    if (shorts.length > 0) {
      const harvest = shorts.filter((s) => s.loss && lossOfShort(s) >= threshold * proceedsUsd(s));
      if (harvest.length > 0) {
        orders.push({ side: "cover", column: i, shortLotIds: harvest.map((s) => s.lot.id), harvest: true });
        stats.harvestedLots += harvest.length;
        for (const s of harvest) current[i]! += s.valueUsd / nav;
        const ids = new Set(harvest.map((s) => s.lot.id));
        shorts = shorts.filter((s) => !ids.has(s.lot.id));
        blockedShort.add(i);
      }
    }
    const lossSold = (portfolio.lastLossSale(i) ?? "") >= windowStart || blockedBuy.has(i);
    const coveredAtLoss = (portfolio.lastShortLossCover(i) ?? "") >= windowStart || blockedShort.has(i);

    // Positions are never long and short at once: a sign change closes the old side first.
    if (wantShort && lots.length > 0) {
      orders.push({
        side: "sell",
        column: i,
        lots: lots.map((l) => ({ lotId: l.lot.id, quantity: l.lot.quantity })),
      });
      for (const l of lots) current[i]! -= l.valueUsd / nav;
      lots = [];
    }
    if (!wantShort && shorts.length > 0) {
      orders.push({ side: "cover", column: i, shortLotIds: shorts.map((s) => s.lot.id) });
      for (const s of shorts) current[i]! += s.valueUsd / nav;
      shorts = [];
    }
    const c = current[i]!;
    if (!wantShort) {
      // 3. Long domain: sells consume sellable lots cheapest tax first. When another lot of the asset was
      // bought within the window, a loss (or a gain thin enough to become one by the execution close) stays.
      const recent = lots.filter((l) => isRecent(l.lot, windowStart));
      const sellable = lots.filter(
        (l) => l.gainFraction >= WASH_SALE_GAIN_MARGIN || !recent.some((r) => r.lot.id !== l.lot.id),
      );
      sellable.sort(
        (a, b) =>
          Math.max(a.taxPerDollar, 0) - Math.max(b.taxPerDollar, 0) ||
          a.taxPerDollar - b.taxPerDollar ||
          (a.lot.id < b.lot.id ? -1 : 1),
      );
      sellOrder[i] = sellable;
      let position = c;
      for (const l of sellable) position -= l.valueUsd / nav;
      position = Math.max(0, position);
      const upper = lossSold ? c : Math.max(c, maxWeight);
      for (let k = sellable.length - 1; k >= 0; k--) {
        const l = sellable[k]!;
        const w = l.valueUsd / nav;
        if (w > 0) push(position, position + w, -(cost + gamma * Math.max(l.taxPerDollar, 0)));
        position += w;
      }
      // Rounding of the float sums must not open a gap: the buy segment starts where the lots end.
      if (upper > position) push(position, upper, cost);
      if (segSlope.length === segStart[segStart.length - 1]) push(c, c, 0);
    } else {
      domainShort[i] = 1;
      const ordered = [...shorts].sort(
        (a, b) => Math.max(a.taxPerDollar, 0) - Math.max(b.taxPerDollar, 0) || (a.lot.id < b.lot.id ? -1 : 1),
      );
      sellOrder[i] = ordered;
      const lower = coveredAtLoss ? c : Math.min(c, -maxWeight);
      if (lower < c) push(lower, c, -cost);
      let position = c;
      for (const s of ordered) {
        const w = s.valueUsd / nav;
        if (w > 0) push(position, Math.min(0, position + w), cost + gamma * Math.max(s.taxPerDollar, 0));
        position += w;
      }
      if (segSlope.length === segStart[segStart.length - 1]) push(c, c, 0);
    }
    segStart.push(segSlope.length);
  }

  // The tracking QP.
  const model: FactorModel = o.riskModel(view);
  const P = toQuadraticForm(model, { scale: 2 * lambda });
  const sigmaTarget = riskModelTimesVector(model, target);
  const q = new Float64Array(n);
  for (let i = 0; i < n; i++) q[i] = -2 * lambda * sigmaTarget[i]!;
  const segments = {
    start: Int32Array.from(segStart),
    lower: Float64Array.from(segLower),
    upper: Float64Array.from(segUpper),
    slope: Float64Array.from(segSlope),
  };
  let minSum = 0;
  let maxSum = 0;
  for (let i = 0; i < n; i++) {
    minSum += segments.lower[segments.start[i]!]!;
    maxSum += segments.upper[segments.start[i + 1]! - 1]!;
  }
  const budget = Math.min(Math.max(targetSum, minSum), maxSum);
  const solved = solvePwlTracking({
    P,
    q,
    segments,
    budget: { lower: budget, upper: budget },
    start: current,
  });
  stats.rounds += solved.rounds;
  if (solved.status !== "optimal" && solved.status !== "max_rounds") {
    stats.unsolved += 1;
    return orders;
  }
  if (solved.status === "max_rounds") stats.unsolved += 1;

  // 4. Orders.
  const w = solved.x;
  for (let i = 0; i < n; i++) {
    const delta = (w[i]! - current[i]!) * nav;
    const exit = Math.abs(w[i]!) * nav < minTrade && current[i] !== 0;
    if (Math.abs(delta) < minTrade && !exit) continue;
    const price = view.priceUsd(i);
    if (domainShort[i]) {
      if (delta < 0) orders.push({ side: "short", column: i, quantity: (-delta / price).toFixed(6) });
      else if (exit) {
        const remaining = (sellOrder[i] ?? []) as ShortInfo[];
        if (remaining.length > 0)
          orders.push({ side: "cover", column: i, shortLotIds: remaining.map((s) => s.lot.id) });
      } else orders.push({ side: "cover", column: i, quantity: (delta / price).toFixed(6) });
      continue;
    }
    if (delta > 0) {
      orders.push({ side: "buy", column: i, amountUsd: delta });
      continue;
    }
    const sellable = (sellOrder[i] ?? []) as LotInfo[];
    let left = exit ? Number.POSITIVE_INFINITY : -delta;
    const picks: { lotId: string; quantity: string }[] = [];
    for (const l of sellable) {
      if (left <= 0) break;
      if (l.valueUsd <= left) {
        picks.push({ lotId: l.lot.id, quantity: l.lot.quantity.toString() });
        left -= l.valueUsd;
      } else {
        const q6 = (Math.floor((left / price) * 1e6) / 1e6).toFixed(6);
        if (Number(q6) > 0) picks.push({ lotId: l.lot.id, quantity: q6 });
        left = 0;
      }
    }
    if (picks.length > 0) orders.push({ side: "sell", column: i, lots: picks });
  }
  return orders;
}

/**
 * Steps 1, 2 and 4 as in {@link decide}; step 3 is the core optimizer over the priced columns, with the lots left
 * after the harvest, the cash including its proceeds, the step-1 target as the benchmark and the wash-sale
 * rules as the optimizer's flags (no buy of an asset sold at a loss within the window, harvested ones included;
 * no sale of a loss lot a recent purchase would wash). An infeasible or failed optimization keeps the harvest
 * trades only (counted in `fallbacks`); nothing is thrown.
 */
function decideWithOptimizer(
  { view, portfolio }: PolicyContext,
  o: TaxAwareTrackingOptions,
  lambda: number,
  stats: TaxAwarePolicyStats,
  optimizer: Optimizer,
  memory: ScanMemory,
): PolicyOrder[] {
  const n = view.size;
  const exec = view.executionDate ?? view.date;
  const rules = o.taxRules ?? {};
  const washDays = rules.washSaleThresholdDays ?? 30;
  const windowStart = addDays(exec, -washDays);
  const nav = portfolio.navUsd;
  const minTrade = (o.minTradeFraction ?? DEFAULT_MIN_TRADE_FRACTION) * nav;
  const threshold = o.harvestThresholdBps / 1e4;
  const cashBuffer = o.cashBuffer ?? 0;
  const target = investableTargetWeights(view, cashBuffer);
  let providerModel: FactorModel | null = null;
  try {
    providerModel = o.riskModel(view);
  } catch {
    // The optimizer's call below reports it (the decision holds).
  }
  const gate = harvestGate(o, lambda, nav, providerModel);

  const orders: PolicyOrder[] = [];
  const columns: number[] = [];
  const assets: string[] = [];
  const prices: number[] = [];
  const currencies: Currency[] = [];
  const noTrade: string[] = [];
  const lots: TaxLot[] = [];
  const recentLossSales: DatedAssetEvent[] = [];
  let cashUsd = portfolio.cashUsd;
  for (let i = 0; i < n; i++) {
    const price = view.priceUsd(i);
    if (!(price > 0)) continue;
    const id = view.ids[i]!;
    const tradable = view.pricedToday(i);
    let held: readonly TaxLot[] = portfolio.lots(i);
    const shorts = portfolio.shortLots(i);
    if (tradable && held.length > 0) {
      // 2. Harvest, when it pays (harvestPays: the unwashed tax value against the round trip and the tracking).
      const infos = held.map((lot) =>
        lotInfo(lot, view, i, holdingTerm(lot.holdingPeriodStart, exec, rules), o),
      );
      const harvest = paidHarvest(
        infos,
        threshold,
        windowStart,
        stats,
        gate(i, id, view.security(i).currency === "USD"),
      );
      const picked = harvestOrder(orders, stats, i, harvest);
      if (harvest.length > 0) {
        for (const l of harvest) cashUsd += l.valueUsd;
        held = held.filter((lot) => !picked.has(lot.id));
        recentLossSales.push({ themeAssetId: id, date: exec });
      }
    }
    if (shorts.length > 0) {
      // No overlay: short positions are closed (harvest-marked when their loss reaches the threshold).
      const infos = shorts.map((lot) => shortInfo(lot, view, i, o));
      for (const s of infos) cashUsd -= s.valueUsd;
      if (tradable) {
        const harvest = infos.filter((s) => s.loss && lossOfShort(s) >= threshold * proceedsUsd(s));
        const rest = infos.filter((s) => !harvest.includes(s));
        if (harvest.length > 0) {
          orders.push({ side: "cover", column: i, shortLotIds: harvest.map((s) => s.lot.id), harvest: true });
          stats.harvestedLots += harvest.length;
        }
        if (rest.length > 0)
          orders.push({ side: "cover", column: i, shortLotIds: rest.map((s) => s.lot.id) });
      }
      // An untradable short stays open; the optimizer sees it as the cash it owes.
    }
    const lastLoss = portfolio.lastLossSale(i);
    if (lastLoss !== null && lastLoss >= windowStart)
      recentLossSales.push({ themeAssetId: id, date: lastLoss });
    if (!tradable) noTrade.push(id);
    // As in the PWL path, when another lot of the asset was bought within the window, a gain thinner than
    // WASH_SALE_GAIN_MARGIN stays too: it could be a loss by the execution close, washed by that purchase. The
    // optimizer keeps exposed losses (preventTlhInvalidatingSale), so it sees such a lot with a basis just above
    // its value; nothing of that lot is sold, so the stand-in basis reaches no order.
    const recent = held.filter((lot) => isRecent(lot, windowStart));
    for (const lot of held) {
      if (recent.length > 0 && recent.some((r) => r.id !== lot.id)) {
        const valueUsd = lot.quantity.toNumber() * price;
        const gain = valueUsd - lot.totalCostBasis.toNumber() / lot.fxRate.toNumber();
        if (valueUsd > 0 && gain >= 0 && gain < WASH_SALE_GAIN_MARGIN * valueUsd) {
          const basis = lot.quantity.times(price * (1 + WASH_SALE_GAIN_MARGIN)).times(lot.fxRate);
          lots.push({ ...lot, totalCostBasis: basis });
          continue;
        }
      }
      lots.push(lot);
    }
    columns.push(i);
    assets.push(id);
    prices.push(price);
    currencies.push(view.security(i).currency);
  }
  const m = assets.length;
  if (m === 0) return orders;
  const benchmark = new Float64Array(m);
  for (let k = 0; k < m; k++) benchmark[k] = Math.max(0, target[columns[k]!]!);

  // 3. The core optimizer, with the account's configuration in force at t when one is provided.
  let positions = 0;
  for (let i = 0; i < n; i++)
    if (portfolio.lots(i).length > 0 || portfolio.shortLots(i).length > 0) positions++;
  const dated = o.optimizerConfig?.(view, { navUsd: nav, cashUsd: portfolio.cashUsd, positions });
  memory.noTrade = new Set(dated?.noTrade ?? []);
  memory.noHold = new Set(dated?.noHold ?? []);
  memory.maxWeight = (dated === undefined ? o.maxWeight : dated.maxWeight) ?? 1;
  memory.model = providerModel;
  const configOf = (invested: boolean) =>
    resolveOptimizerConfig({
      ...dated,
      ...BACKTEST_OWNED_CONFIG,
      riskAversion: dated?.riskAversion ?? lambda,
      tcostBps: o.transactionBps,
      brokerSpreadBps: o.fxFeeBps,
      cashBufferUsd: cashBuffer,
      maxWeight: dated === undefined ? (o.maxWeight ?? null) : (dated.maxWeight ?? null),
      noTrade: [...new Set([...(dated?.noTrade ?? []), ...noTrade])],
      factorExposureBounds: [
        ...(dated?.factorExposureBounds ?? []),
        ...(invested ? [{ factor: INVESTED_FACTOR, minBound: 1 - MAX_UNINVESTED_FRACTION }] : []),
      ],
      tax: {
        // The configuration's tracking-error cap is a constraint, not a tax setting: it applies.
        trackingErrorThreshold: dated?.tax?.trackingErrorThreshold ?? null,
        taxGamma: o.taxGamma,
        shortTermRate: o.shortTermRate,
        longTermRate: o.longTermRate,
        // As the PWL path: losses below the harvest threshold carry no tax alpha (step 2 decides harvests).
        useTaxAlpha: false,
        preventTlhInvalidatingPurchase: true,
        preventTlhInvalidatingSale: true,
        washSaleThresholdDays: washDays,
        longTermThresholdDays: rules.longTermThresholdDays ?? 365,
      },
    });
  let result: OptimizationResult;
  try {
    const riskModel = withInvestedFactor(providerModel ?? o.riskModel(view));
    const solve = (invested: boolean) => {
      stats.optimizerSolves += 1;
      return optimizer.optimize({
        asOf: exec,
        assets,
        pricesUsd: Float64Array.from(prices),
        currencies,
        lots,
        cashUsd,
        benchmark,
        riskModel,
        recentLossSales,
        config: configOf(invested),
      });
    };
    result = solve(true);
    stats.rounds += result.solver.rounds;
    if (result.status === "infeasible") {
      // The invested floor conflicts with the other constraints (costs, untradable positions): without it.
      stats.investedFloorRelaxed += 1;
      result = solve(false);
      stats.rounds += result.solver.rounds;
    }
  } catch (e) {
    stats.unsolved += 1;
    stats.fallbacks += 1;
    stats.held.push({
      date: view.date,
      status: "error",
      reasons: [e instanceof Error ? e.message : String(e)],
    });
    return orders;
  }
  if (result.status === "infeasible") {
    stats.unsolved += 1;
    stats.fallbacks += 1;
    stats.infeasible += 1;
    stats.held.push({ date: view.date, status: "infeasible", reasons: [...result.diagnosis] });
    return orders;
  }
  if (result.status === "suboptimal") stats.unsolved += 1;

  // 4. Orders: sells name the optimizer's lots, buys are USD amounts; trades under minTrade are skipped unless
  // they close the position.
  const column = new Map(assets.map((id, k) => [id, columns[k]!]));
  const lotsOf = new Map<string, SpecificLotRequest[]>();
  for (const s of result.lotsToSell) {
    let list = lotsOf.get(s.themeAssetId);
    if (list === undefined) {
      list = [];
      lotsOf.set(s.themeAssetId, list);
    }
    list.push({ lotId: s.lotId, quantity: s.quantity.toString() });
  }
  for (const t of result.trades) {
    const i = column.get(t.themeAssetId)!;
    if (t.side === "buy") {
      if (t.amountUsd >= minTrade) orders.push({ side: "buy", column: i, amountUsd: t.amountUsd });
      continue;
    }
    const exit = t.toWeight * result.investableUsd < minTrade;
    if (t.amountUsd < minTrade && !exit) continue;
    const picks = lotsOf.get(t.themeAssetId);
    if (picks !== undefined && picks.length > 0) orders.push({ side: "sell", column: i, lots: picks });
  }
  // 5. Basis reset: long-term lots with a small gain, sold and bought back (docs/backtests.md, "Basis reset").
  const band = o.basisResetMaxGain ?? 0;
  if (band > 0) {
    const blocked = new Set(recentLossSales.map((e) => e.themeAssetId));
    for (const id of [...noTrade, ...memory.noTrade, ...memory.noHold]) blocked.add(id);
    const trading = new Set(orders.filter((x) => x.side === "sell").map((x) => x.column));
    for (let k = 0; k < m; k++) {
      const i = columns[k]!;
      if (blocked.has(assets[k]!) || trading.has(i)) continue;
      const reset = basisResetOrders(
        portfolio.lots(i).map((lot) => {
          const term = holdingTerm(lot.holdingPeriodStart, exec, rules);
          const l = lotInfo(lot, view, i, term, o);
          return {
            lotId: lot.id,
            quantity: lot.quantity.toString(),
            valueUsd: l.valueUsd,
            gainUsd: l.valueUsd - basisUsd(l),
            longTerm: term === "long_term",
          };
        }),
        { minGain: WASH_SALE_GAIN_MARGIN, maxGain: band },
        (o.transactionBps + (currencies[k] === "USD" ? 0 : o.fxFeeBps)) / 1e4,
        minTrade,
      );
      if (reset === null) continue;
      orders.push(
        { side: "sell", column: i, lots: reset.lots },
        { side: "buy", column: i, amountUsd: reset.buyUsd },
      );
      stats.basisResetLots += reset.lots.length;
      stats.basisResetUsd += reset.valueUsd;
    }
  }
  return orders;
}

const investedModels = new WeakMap<FactorModel, FactorModel>();

/**
 * The risk model plus {@link INVESTED_FACTOR}: exposure 1 for every asset, no variance, so the risk is unchanged
 * and the factor's exposure is the sum of the weights. Remembered per model object (the optimizer keeps its risk
 * form, and warm engines, per model object).
 */
function withInvestedFactor(model: FactorModel): FactorModel {
  const hit = investedModels.get(model);
  if (hit !== undefined) return hit;
  const n = model.assets.length;
  const k = model.factors.length;
  const exposures = new Float64Array(n * (k + 1));
  for (let i = 0; i < n; i++) {
    exposures.set(model.exposures.subarray(i * k, (i + 1) * k), i * (k + 1));
    exposures[i * (k + 1) + k] = 1;
  }
  const factorCovariance = new Float64Array((k + 1) * (k + 1));
  for (let a = 0; a < k; a++)
    factorCovariance.set(model.factorCovariance.subarray(a * k, (a + 1) * k), a * (k + 1));
  const out: FactorModel = {
    ...model,
    factors: [...model.factors, INVESTED_FACTOR],
    exposures,
    factorCovariance,
  };
  investedModels.set(model, out);
  return out;
}

/** Queues the harvest sale of `harvest` (when any) and counts it; returns the ids of the lots it sells. */
function harvestOrder(
  orders: PolicyOrder[],
  stats: TaxAwarePolicyStats,
  column: number,
  harvest: readonly LotInfo[],
): Set<string> {
  if (harvest.length > 0) {
    orders.push({
      side: "sell",
      column,
      lots: harvest.map((l) => ({ lotId: l.lot.id, quantity: l.lot.quantity })),
      harvest: true,
    });
    stats.harvestedLots += harvest.length;
  }
  return new Set(harvest.map((l) => l.lot.id));
}

/** The lots at a loss of at least `threshold` of their USD basis (the harvest candidates of step 2). */
function pastThreshold(lots: readonly LotInfo[], threshold: number): LotInfo[] {
  return lots.filter(
    (l) => l.loss && l.valueUsd > 0 && basisUsd(l) > 0 && basisUsd(l) - l.valueUsd >= threshold * basisUsd(l),
  );
}

/**
 * Step 2 for the long lots of one asset: the lots whose loss reaches `threshold` of their basis, or none when
 * another lot of the asset bought within the wash-sale window is kept (it would wash the loss).
 */
function longHarvest(
  lots: readonly LotInfo[],
  threshold: number,
  windowStart: string,
  stats: TaxAwarePolicyStats,
): LotInfo[] {
  const harvest = pastThreshold(lots, threshold);
  if (harvest.length === 0) return harvest;
  const picked = new Set(harvest.map((l) => l.lot.id));
  if (!lots.some((l) => !picked.has(l.lot.id) && isRecent(l.lot, windowStart))) return harvest;
  stats.skippedHarvestLots += harvest.length;
  for (const l of harvest) stats.skippedHarvestLossUsd += basisUsd(l) - l.valueUsd;
  return [];
}

/** The harvest economics of one asset at a decision, but for the lots' values (see {@link paidHarvest}). */
interface AssetGate {
  /** One-way trading cost of the asset, fraction of value. */
  readonly oneWayCost: number;
  /** Tracking cost of selling `valueUsd` of the asset for the wash-sale window, USD. */
  trackingCostUsd(valueUsd: number): number;
}

/** Gate factory of a decision: costs of the asset, its specific variance in the model (0 when absent). */
function harvestGate(
  o: TaxAwareTrackingOptions,
  lambda: number,
  navUsd: number,
  model: FactorModel | null,
): (column: number, id: string, usd?: boolean) => AssetGate {
  const index = model === null ? null : new Map(model.assets.map((id, k) => [id, k]));
  const windowDays = o.taxRules?.washSaleThresholdDays ?? 30;
  return (_column, id, usd = true) => {
    const k = index?.get(id);
    const specific = k === undefined || model === null ? 0 : model.specificVariance[k]!;
    return {
      oneWayCost: (o.transactionBps + (usd ? 0 : o.fxFeeBps)) / 1e4,
      trackingCostUsd: (valueUsd) => harvestTrackingCostUsd(lambda, valueUsd, navUsd, specific, windowDays),
    };
  };
}

/**
 * Step 2 for the long lots of one asset (`lots` priced with their term's rate): the lots whose loss reaches
 * `threshold` of their basis, when their harvest pays ({@link harvestPays}): a purchase within the window of shares
 * that stay washes the loss of as many shares (not the whole sale), so the value counted is the unwashed part's.
 * A harvest that does not pay is skipped and counted.
 */
function paidHarvest(
  lots: readonly LotInfo[],
  threshold: number,
  windowStart: string,
  stats: TaxAwarePolicyStats,
  gate: AssetGate,
): LotInfo[] {
  const harvest = pastThreshold(lots, threshold);
  if (harvest.length === 0) return harvest;
  const picked = new Set(harvest.map((l) => l.lot.id));
  let recentShares = 0;
  for (const l of lots)
    if (!picked.has(l.lot.id) && isRecent(l.lot, windowStart)) recentShares += l.lot.quantity.toNumber();
  let soldShares = 0;
  let valueUsd = 0;
  let taxValueUsd = 0;
  for (const l of harvest) {
    soldShares += l.lot.quantity.toNumber();
    valueUsd += l.valueUsd;
    taxValueUsd -= l.taxPerDollar * l.valueUsd;
  }
  const washedFraction = soldShares > 0 ? Math.min(recentShares, soldShares) / soldShares : 0;
  const pays = harvestPays({
    taxValueUsd,
    valueUsd,
    washedFraction,
    oneWayCost: gate.oneWayCost,
    trackingCostUsd: gate.trackingCostUsd(valueUsd),
  });
  if (pays) {
    if (washedFraction > 0) {
      stats.partlyWashedHarvests += 1;
      stats.partlyWashedLots += harvest.length;
    }
    return harvest;
  }
  stats.skippedHarvestLots += harvest.length;
  for (const l of harvest) stats.skippedHarvestLossUsd += basisUsd(l) - l.valueUsd;
  return [];
}

/**
 * Step 2b, an interim harvest scan between rebalances: the step-2 harvests (those that pay), their proceeds net of
 * the round trip's costs split over the {@link SUBSTITUTES_PER_HARVEST} names most correlated with the sold one in
 * the last rebalance's risk model, in its sector, pro rata to the correlation. A substitute is priced today, in the
 * target, not sold at a loss within the window, not harvested now, holds no lot down half the threshold or more (a
 * purchase would expose that loss to a wash sale), is neither no-trade nor no-hold in the last configuration, and stays under the max
 * weight. Nothing else trades; proceeds without a substitute stay in cash until the next rebalance.
 */
function harvestScan(
  { view, portfolio }: PolicyContext,
  o: TaxAwareTrackingOptions,
  lambda: number,
  stats: TaxAwarePolicyStats,
  memory: ScanMemory,
): PolicyOrder[] {
  const model = memory.model;
  if (model === null) return [];
  stats.scans += 1;
  const n = view.size;
  const exec = view.executionDate ?? view.date;
  const rules = o.taxRules ?? {};
  const windowStart = addDays(exec, -(rules.washSaleThresholdDays ?? 30));
  const nav = portfolio.navUsd;
  const minTrade = (o.minTradeFraction ?? DEFAULT_MIN_TRADE_FRACTION) * nav;
  const threshold = o.harvestThresholdBps / 1e4;
  const target = investableTargetWeights(view, o.cashBuffer ?? 0);
  const gate = harvestGate(o, lambda, nav, model);
  const orders: PolicyOrder[] = [];
  const blocked = new Uint8Array(n);
  const sold: { column: number; proceedsUsd: number }[] = [];
  for (let i = 0; i < n; i++) {
    const id = view.ids[i]!;
    if ((portfolio.lastLossSale(i) ?? "") >= windowStart || memory.noHold.has(id)) blocked[i] = 1;
    if (memory.noTrade.has(id)) {
      blocked[i] = 1;
      continue;
    }
    const held = portfolio.lots(i);
    if (held.length === 0 || !view.pricedToday(i) || !(view.priceUsd(i) > 0)) continue;
    const infos = held.map((lot) =>
      lotInfo(lot, view, i, holdingTerm(lot.holdingPeriodStart, exec, rules), o),
    );
    const usd = view.security(i).currency === "USD";
    const g = gate(i, id, usd);
    const harvest = paidHarvest(infos, threshold, windowStart, stats, g);
    if (harvest.length === 0) {
      // A substitute must not expose a loss of its own to a wash sale: none of its lots may be down half the
      // threshold or more (the costs folded into a new lot's basis make every fresh lot a tiny loss).
      if (infos.some((l) => l.loss && basisUsd(l) - l.valueUsd >= 0.5 * threshold * basisUsd(l)))
        blocked[i] = 1;
      continue;
    }
    harvestOrder(orders, stats, i, harvest);
    stats.scanHarvestedLots += harvest.length;
    blocked[i] = 1;
    let value = 0;
    for (const l of harvest) value += l.valueUsd;
    sold.push({ column: i, proceedsUsd: value * (1 - 2 * g.oneWayCost) });
  }
  if (sold.length === 0) return orders;
  const candidates: string[] = [];
  const column = new Map<string, number>();
  for (let j = 0; j < n; j++) {
    if (blocked[j] === 1 || !(target[j]! > 0) || !view.pricedToday(j) || !(view.priceUsd(j) > 0)) continue;
    candidates.push(view.ids[j]!);
    column.set(view.ids[j]!, j);
  }
  const sectorOf = (id: string) => {
    const j = column.get(id) ?? view.ids.indexOf(id);
    return j >= 0 ? view.security(j).sector : null;
  };
  const buys = new Float64Array(n);
  const room = (j: number) => memory.maxWeight * nav - portfolio.valuesUsd[j]! - buys[j]!;
  for (const { column: i, proceedsUsd } of sold) {
    const subs = correlationSubstitutes(
      model,
      view.ids[i]!,
      candidates.filter((id) => room(column.get(id)!) > 0),
      sectorOf,
    );
    let total = 0;
    for (const s of subs) total += s.correlation * target[column.get(s.id)!]!;
    for (const s of subs) {
      const j = column.get(s.id)!;
      const share = (s.correlation * target[j]!) / total;
      buys[j]! += Math.min(proceedsUsd * share, Math.max(room(j), 0));
    }
  }
  for (let j = 0; j < n; j++)
    if (buys[j]! >= minTrade) orders.push({ side: "buy", column: j, amountUsd: buys[j]! });
  return orders;
}

function isRecent(lot: TaxLot, windowStart: string): boolean {
  return lot.tradeDate >= windowStart && lot.washSaleDate === null;
}

function basisUsd(l: LotInfo): number {
  return l.lot.totalCostBasis.toNumber() / l.lot.fxRate.toNumber();
}

function proceedsUsd(s: ShortInfo): number {
  return s.lot.proceeds.toNumber() / s.lot.fxRate.toNumber();
}

function lossOfShort(s: ShortInfo): number {
  return s.valueUsd - proceedsUsd(s);
}

function lotInfo(
  lot: TaxLot,
  view: MarketView,
  i: number,
  term: "short_term" | "long_term",
  o: TaxAwareTrackingOptions,
): LotInfo {
  const valueUsd = lot.quantity.toNumber() * view.priceUsd(i);
  const gain = valueUsd - lot.totalCostBasis.toNumber() / lot.fxRate.toNumber();
  const rate = term === "long_term" ? o.longTermRate : o.shortTermRate;
  return {
    lot,
    valueUsd,
    gainFraction: valueUsd > 0 ? gain / valueUsd : 0,
    taxPerDollar: valueUsd > 0 ? (rate * gain) / valueUsd : 0,
    loss: gain < 0,
  };
}

function shortInfo(
  lot: BacktestShortLot,
  view: MarketView,
  i: number,
  o: TaxAwareTrackingOptions,
): ShortInfo {
  // Value of a short = cost to cover it now (positive number); gain = proceeds - cost, always short-term.
  const valueUsd = lot.quantity.toNumber() * view.priceUsd(i);
  const gain = lot.proceeds.toNumber() / lot.fxRate.toNumber() - valueUsd;
  return {
    lot,
    valueUsd,
    taxPerDollar: valueUsd > 0 ? (o.shortTermRate * gain) / valueUsd : 0,
    loss: gain < 0,
  };
}
