/**
 * @module core/backtest/policies/rebalance-to-target
 * The pre-tax case: at every rebalance, trade each asset back to its target weight, without regard to taxes
 * (sells take lots first in, first out: the IRS default without identification, Treas. Reg. §1.1012-1(c)),
 * no harvesting and no wash-sale avoidance (wash sales that happen are applied and recorded by the tax engine).
 */
import type { BacktestPolicy, PolicyContext, PolicyOrder } from "../policy.js";
import { DEFAULT_MIN_TRADE_FRACTION, investableTargetWeights } from "./target-weights.js";

/** Options of {@link rebalanceToTargetPolicy}. */
export interface RebalanceToTargetOptions {
  /** Cash kept, fraction of NAV. @default 0 */
  readonly cashBuffer?: number;
  /** Trades smaller than this fraction of NAV are skipped (removals never are). @default 1e-4 */
  readonly minTradeFraction?: number;
}

/**
 * Orders that move every position to `target x NAV` at the view's prices: sells in shares (the whole position
 * when the target is 0), buys in USD.
 */
export function ordersToTarget(
  context: PolicyContext,
  target: Float64Array,
  minTradeFraction: number,
): PolicyOrder[] {
  const { view, portfolio } = context;
  const nav = portfolio.navUsd;
  const orders: PolicyOrder[] = [];
  for (let i = 0; i < target.length; i++) {
    const value = portfolio.valuesUsd[i]!;
    const delta = target[i]! * nav - value;
    const removal = target[i] === 0 && portfolio.shares[i]! > 0;
    if (!removal && Math.abs(delta) < minTradeFraction * nav) continue;
    if (delta < 0 && portfolio.shares[i]! > 0)
      orders.push({
        side: "sell",
        column: i,
        quantity: removal ? portfolio.shares[i]! : Math.min(portfolio.shares[i]!, -delta / view.priceUsd(i)),
      });
    else if (delta > 0) orders.push({ side: "buy", column: i, amountUsd: delta });
  }
  return orders;
}

/**
 * A policy that rebalances to the benchmark weights in force at each decision date.
 * @example { name: "pre_tax", policy: rebalanceToTargetPolicy(), lotSelection: "FIFO", ... }
 */
export function rebalanceToTargetPolicy(options: RebalanceToTargetOptions = {}): BacktestPolicy {
  const buffer = options.cashBuffer ?? 0;
  const minTrade = options.minTradeFraction ?? DEFAULT_MIN_TRADE_FRACTION;
  return {
    decide(context: PolicyContext): PolicyOrder[] {
      return ordersToTarget(context, investableTargetWeights(context.view, buffer), minTrade);
    },
  };
}
