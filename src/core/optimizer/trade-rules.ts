/**
 * @module core/optimizer/trade-rules
 * Desk-ready trades: the minimum trade (`min_trade_amount_usd`, `min_trade_pct` of NAV) and the trade-count
 * budget (`max_trade_count`), one component (component.ts) with an explicit lifecycle (docs/optimizer.md, "Minimum
 * trade and trade count"):
 *
 * 1. {@link tradeRules}`.initialize` ({@link tradeRulesOf}) reads the configuration once per rebalance (`null`
 *    when neither rule is set: the stage costs nothing);
 * 2. {@link pinsFor} looks at a solution and says which assets to pin, and where: an order below the minimum goes
 *    back to its current weight (no trade) when its bounds allow it, else up to the minimum in its direction; when
 *    more assets trade than the budget allows, every asset outside the largest `max_trade_count` trades is pinned
 *    at its current weight;
 * 3. the caller re-solves with the pins as bounds, so the rest of the portfolio absorbs the residual under every
 *    other constraint (budget with costs, factor rows, switch rows, the risk ball), and asks again until a
 *    solution has no pin to add ({@link enforceTradeRules}).
 *
 * An order that closes a position (weight 0 after the trade) is never dust, whatever its size: selling the last
 * 20 USD of a holding is allowed. The problem with "trade 0 or at least the minimum" is not convex; this is the
 * usual rounding heuristic (fix the small trades, re-optimize the rest), each pass adds pins, so it ends.
 */
import type { OptimizerComponent } from "./component.js";
import { type PeriodModel, WEIGHT_EPSILON } from "./period-model.js";

/** The rules of one rebalance, in weight units (fractions of the investable value). */
export interface TradeRules {
  /** Smallest order in USD: max(min_trade_amount_usd, min_trade_pct % of NAV); 0 when unset. */
  readonly minTradeUsd: number;
  /** The same as a weight (USD / investable value). */
  readonly minTradeWeight: number;
  /** Largest number of orders, or null. */
  readonly maxTradeCount: number | null;
}

/** The rules of the configuration on this period, or null when neither is set. */
export function tradeRulesOf(m: PeriodModel): TradeRules | null {
  const c = m.config;
  const minTradeUsd = Math.max(c.minTradeUsd, (c.minTradePct / 100) * m.navUsd);
  if (!(minTradeUsd > 0) && c.maxTradeCount === null) return null;
  return {
    minTradeUsd: minTradeUsd > 0 ? minTradeUsd : 0,
    minTradeWeight: minTradeUsd > 0 ? minTradeUsd / m.investableUsd : 0,
    maxTradeCount: c.maxTradeCount,
  };
}

/** The trade-rules component: its period state is {@link TradeRules}, its stage hook {@link enforceTradeRules}. */
export const tradeRules: OptimizerComponent<PeriodModel, TradeRules> = {
  name: "trade_rules",
  fields: ["min_trade_amount_usd", "min_trade_pct", "max_trade_count"],
  initialize: tradeRulesOf,
};

/** Tolerance on the minimum (a pinned trade at exactly the minimum must pass): a millionth of a cent of USD. */
const USD_TOLERANCE = 1e-8;

/** Is the trade of asset i at weights w an order (non-zero) below the minimum that does not close the position? */
export function isDust(m: PeriodModel, rules: TradeRules, w: Float64Array, i: number): boolean {
  const t = Math.abs(w[i]! - m.w0[i]!);
  if (t <= WEIGHT_EPSILON || rules.minTradeUsd <= 0) return false;
  if (Math.abs(w[i]!) <= WEIGHT_EPSILON) return false; // a full close
  return t * m.investableUsd < rules.minTradeUsd - USD_TOLERANCE;
}

/** Pins to apply: asset -> pinned weight. `conflicts` names orders that no pin can make desk-ready. */
export interface Pins {
  readonly assets: number[];
  readonly weights: number[];
  readonly conflicts: string[];
}

/**
 * Pins for the solution `w` whose domain was [lower, upper] (see the module comment). `raise` pins dust up to the
 * minimum instead of back to no trade (the fallback when removing the dust made the problem infeasible).
 */
export function pinsFor(
  m: PeriodModel,
  rules: TradeRules,
  w: Float64Array,
  lower: Float64Array,
  upper: Float64Array,
  raise = false,
  whole?: Uint8Array,
): Pins {
  const assets: number[] = [];
  const weights: number[] = [];
  const conflicts: string[] = [];
  const pinned = new Uint8Array(m.n);
  const tol = 1e-12;
  const allowsNoTrade = (i: number) => lower[i]! <= m.w0[i]! + tol && upper[i]! >= m.w0[i]! - tol;
  for (let i = 0; i < m.n; i++) {
    if (!isDust(m, rules, w, i)) continue;
    const t = w[i]! - m.w0[i]!;
    // Up to the minimum (whole-share assets: the fewest whole shares worth at least the minimum).
    const step =
      whole?.[i] === 1
        ? (Math.ceil(rules.minTradeUsd / m.prices[i]! - 1e-9) * m.prices[i]!) / m.investableUsd
        : rules.minTradeWeight;
    const up = m.w0[i]! + Math.sign(t) * step;
    const upOk = up >= lower[i]! - tol && up <= upper[i]! + tol;
    let target: number | null = null;
    if (!raise && allowsNoTrade(i)) target = m.w0[i]!;
    else if (upOk) target = up;
    else if (allowsNoTrade(i)) target = m.w0[i]!;
    if (target === null) {
      conflicts.push(
        `${m.assets[i]}: its bounds [${lower[i]}, ${upper[i]}] (${m.lowerSource[i]}; ${m.upperSource[i]}) force an order of ${(Math.abs(t) * m.investableUsd).toFixed(2)} USD, below the minimum trade of ${rules.minTradeUsd.toFixed(2)} USD`,
      );
      continue;
    }
    assets.push(i);
    weights.push(target);
    pinned[i] = 1;
  }
  if (rules.maxTradeCount !== null) {
    // Orders after the dust pins: the assets still trading, and those pinned away from their current weight.
    const trading: { i: number; size: number }[] = [];
    for (let i = 0; i < m.n; i++) {
      const size =
        pinned[i] === 1 ? Math.abs(weights[assets.indexOf(i)]! - m.w0[i]!) : Math.abs(w[i]! - m.w0[i]!);
      if (size > WEIGHT_EPSILON) trading.push({ i, size });
    }
    if (trading.length > rules.maxTradeCount) {
      // Keep the largest orders and the forced ones; every other asset stays where it is.
      trading.sort((a, b) => b.size - a.size || a.i - b.i);
      const keep = new Uint8Array(m.n);
      let kept = 0;
      for (const { i } of trading)
        if (!allowsNoTrade(i)) {
          keep[i] = 1;
          kept++;
        }
      if (kept > rules.maxTradeCount)
        conflicts.push(
          `max_trade_count ${rules.maxTradeCount}: the bounds force ${kept} orders (${trading
            .filter((x) => keep[x.i] === 1)
            .slice(0, 5)
            .map((x) => m.assets[x.i])
            .join(", ")}${kept > 5 ? ", ..." : ""})`,
        );
      for (const { i } of trading) {
        if (kept >= rules.maxTradeCount) break;
        if (keep[i] === 1) continue;
        keep[i] = 1;
        kept++;
      }
      for (let i = 0; i < m.n; i++) {
        if (keep[i] === 1 || !allowsNoTrade(i)) continue;
        if (Math.abs(m.w0[i]! - lower[i]!) <= tol && Math.abs(m.w0[i]! - upper[i]!) <= tol) continue;
        const at = assets.indexOf(i);
        if (at >= 0) weights[at] = m.w0[i]!;
        else {
          assets.push(i);
          weights.push(m.w0[i]!);
        }
      }
    }
  }
  return { assets, weights, conflicts };
}

/** What {@link enforceTradeRules} needs from the optimizer: a solve with extra bounds. */
export interface TradeRulesStage<S> {
  /** The current solution: weights and the domain it was solved on. */
  readonly current: () => { w: Float64Array; lower: Float64Array; upper: Float64Array };
  /** Re-solve with these extra bounds (NaN = none); null when infeasible (the caller keeps its last solution). */
  readonly solve: (extraLower: Float64Array, extraUpper: Float64Array) => S | null;
  /** Accept a solve's result as the current solution. */
  readonly accept: (s: S) => void;
}

/**
 * Pins and re-solves until no pin is to add (each pass pins at least one more asset, so at most n + 1 passes).
 * `extraLower` / `extraUpper` hold the pins of earlier stages and receive these ones (the later stages keep them).
 * Returns the conflicts when the rules cannot be met (an empty list on success).
 */
export function enforceTradeRules<S>(
  m: PeriodModel,
  rules: TradeRules,
  extraLower: Float64Array,
  extraUpper: Float64Array,
  stage: TradeRulesStage<S>,
  whole?: Uint8Array,
): string[] {
  for (let pass = 0; pass <= m.n; pass++) {
    const cur = stage.current();
    const pins = pinsFor(m, rules, cur.w, cur.lower, cur.upper, false, whole);
    if (pins.conflicts.length > 0) return pins.conflicts;
    if (pins.assets.length === 0) return [];
    let solved: S | null = null;
    for (const raise of [false, true]) {
      const p = raise ? pinsFor(m, rules, cur.w, cur.lower, cur.upper, true, whole) : pins;
      if (p.conflicts.length > 0) return p.conflicts;
      const lo = Float64Array.from(extraLower);
      const hi = Float64Array.from(extraUpper);
      p.assets.forEach((i, k) => {
        lo[i] = p.weights[k]!;
        hi[i] = p.weights[k]!;
      });
      solved = stage.solve(lo, hi);
      if (solved !== null) {
        extraLower.set(lo);
        extraUpper.set(hi);
        break;
      }
    }
    if (solved === null)
      return [
        `min_trade_amount_usd / min_trade_pct (${rules.minTradeUsd.toFixed(2)} USD)${rules.maxTradeCount === null ? "" : ` and max_trade_count ${rules.maxTradeCount}`}: the orders ${pins.assets
          .slice(0, 5)
          .map((i) => m.assets[i])
          .join(
            ", ",
          )}${pins.assets.length > 5 ? ", ..." : ""} can be neither dropped nor raised to the minimum without breaking the other constraints.`,
      ];
    stage.accept(solved);
  }
  return [];
}
