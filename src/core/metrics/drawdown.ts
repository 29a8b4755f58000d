/**
 * @module core/metrics/drawdown
 * Maximum drawdown of a value series.
 */
import { assertFiniteSeries, type Series } from "./statistics.js";

/** The deepest peak-to-trough fall of a value series and where it happened. */
export interface Drawdown {
  /** min_t (V_t / max_{s <= t} V_s - 1): 0 when the series never falls, -0.25 for a 25% fall. */
  maxDrawdown: number;
  /** Index of the peak before the deepest trough (0 when there is no fall). */
  peakIndex: number;
  /** Index of the deepest trough (0 when there is no fall). */
  troughIndex: number;
}

/**
 * Maximum drawdown with its peak and trough (Magdon-Ismail and Atiya 2004, "Maximum Drawdown", Risk
 * 17(10)): the largest relative fall from a running peak, reported as a non-positive fraction as empyrical
 * and pyfolio do (-0.25 = the value fell 25% below its previous high). One pass, O(n).
 * @throws {RangeError} when a value is not finite or not positive.
 * @example drawdownOf([1, 1.1, 1.045, 1.0659]) // { maxDrawdown: -0.05, peakIndex: 1, troughIndex: 2 }
 */
export function drawdownOf(values: Series): Drawdown {
  assertFiniteSeries(values, "drawdownOf", "values");
  let peak = 0;
  let best: Drawdown = { maxDrawdown: 0, peakIndex: 0, troughIndex: 0 };
  for (let t = 0; t < values.length; t++) {
    const v = values[t]!;
    if (!(v > 0)) throw new RangeError(`drawdownOf: values[${t}] is ${v}; values must be positive`);
    if (v > values[peak]!) peak = t;
    const dd = v / values[peak]! - 1;
    if (dd < best.maxDrawdown) best = { maxDrawdown: dd, peakIndex: peak, troughIndex: t };
  }
  return best;
}

/**
 * Maximum drawdown of a value series as a non-positive fraction (see {@link drawdownOf}); 0 for fewer than
 * two values.
 * @throws {RangeError} when a value is not finite or not positive.
 * @example maxDrawdown([100, 120, 90, 130, 117]) // -0.25 (120 -> 90)
 */
export function maxDrawdown(values: Series): number {
  return drawdownOf(values).maxDrawdown;
}
