/**
 * @module core/backtest/policies/buy-and-hold
 * The benchmark case: buy the target weights at the start and hold them. Later decisions only invest the
 * cash that dividends brought in, pro rata to the current holdings, once it exceeds `reinvestFraction` of NAV
 * (about once a quarter at a 2% yield: fewer, larger lots than monthly crumbs); nothing is ever sold, so the
 * case realizes no gain before the final liquidation.
 */
import type { BacktestPolicy, PolicyContext, PolicyOrder } from "../policy.js";
import { DEFAULT_MIN_TRADE_FRACTION, investableTargetWeights } from "./target-weights.js";

/** Options of {@link buyAndHoldPolicy}. */
export interface BuyAndHoldOptions {
  /** Cash kept, fraction of NAV. @default 0 */
  readonly cashBuffer?: number;
  /** Smallest initial trade, fraction of NAV. @default 1e-4 ({@link DEFAULT_MIN_TRADE_FRACTION}) */
  readonly minTradeFraction?: number;
  /** Spare cash is reinvested once it exceeds this fraction of NAV. @default 0.005 */
  readonly reinvestFraction?: number;
}

/** Default threshold of dividend reinvestment in the benchmark case, fraction of NAV. */
export const DEFAULT_REINVEST_FRACTION = 0.005;

/**
 * A buy-and-hold policy of the benchmark weights in force on the first decision date.
 * @example simulateBacktest({ ..., cases: [{ name: "benchmark", policy: buyAndHoldPolicy(), ... }] })
 */
export function buyAndHoldPolicy(options: BuyAndHoldOptions = {}): BacktestPolicy {
  const buffer = options.cashBuffer ?? 0;
  const minTrade = options.minTradeFraction ?? DEFAULT_MIN_TRADE_FRACTION;
  const reinvest = options.reinvestFraction ?? DEFAULT_REINVEST_FRACTION;
  return {
    decide({ view, portfolio, period }: PolicyContext): PolicyOrder[] {
      const nav = portfolio.navUsd;
      const orders: PolicyOrder[] = [];
      if (period === 0) {
        const w = investableTargetWeights(view, buffer);
        for (let i = 0; i < w.length; i++) {
          const delta = w[i]! * nav - portfolio.valuesUsd[i]!;
          if (Math.abs(delta) < minTrade * nav && w[i]! > 0) continue;
          if (delta < 0 && portfolio.shares[i]! > 0)
            orders.push({
              side: "sell",
              column: i,
              quantity: w[i]! === 0 ? portfolio.shares[i]! : -delta / view.priceUsd(i),
            });
          else if (delta > 0) orders.push({ side: "buy", column: i, amountUsd: delta });
        }
        return orders;
      }
      const spare = portfolio.cashUsd - buffer * nav;
      const invested = nav - portfolio.cashUsd;
      if (spare < reinvest * nav || !(invested > 0)) return orders;
      for (let i = 0; i < portfolio.valuesUsd.length; i++) {
        const v = portfolio.valuesUsd[i]!;
        if (v > 0) orders.push({ side: "buy", column: i, amountUsd: (spare * v) / invested });
      }
      return orders;
    },
  };
}
