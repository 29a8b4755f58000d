/**
 * @module core/backtest/policies/target-weights
 * The target portfolio of the reference policies: the benchmark weights in force on the decision date,
 * restricted to assets with a price, renormalized, and scaled to the investable share of the account.
 */
import type { MarketView } from "../market-view.js";

/**
 * Default smallest trade, as a fraction of NAV (1 bp: $100 on a $1,000,000 account). Smaller trades are
 * skipped: they cost more attention than they move the portfolio.
 */
export const DEFAULT_MIN_TRADE_FRACTION = 1e-4;

/**
 * Benchmark weights on the view date over the assets priced on or before it, renormalized to sum to
 * `1 - cashBuffer`. Assets never priced so far get 0 (their weight goes to the others).
 * @throws {DataError} when the benchmark has no weights yet (from {@link MarketView.benchmarkWeights}).
 * @throws {RangeError} when `cashBuffer` is outside [0, 1) or no weighted asset has a price.
 */
export function investableTargetWeights(view: MarketView, cashBuffer: number): Float64Array {
  if (!(cashBuffer >= 0 && cashBuffer < 1))
    throw new RangeError(`investableTargetWeights: cashBuffer must be in [0, 1), got ${cashBuffer}`);
  const w = view.benchmarkWeights();
  let sum = 0;
  for (let i = 0; i < w.length; i++) {
    if (w[i]! > 0 && Number.isNaN(view.price(i))) w[i] = 0;
    sum += w[i]!;
  }
  if (!(sum > 0))
    throw new RangeError(
      `investableTargetWeights: none of the ${view.benchmarkName} constituents has a price on or before ${view.date}`,
    );
  const scale = (1 - cashBuffer) / sum;
  for (let i = 0; i < w.length; i++) w[i]! *= scale;
  return w;
}
