/**
 * @module core/metrics/returns
 * Returns from values and back: simple period returns, cumulative (compounded) returns, total and
 * annualized return, and the per-period equivalent of an annual rate.
 */
import { assertFiniteSeries, type Series } from "./statistics.js";

/** Trading days per year used to annualize daily statistics (the usual US equity convention). */
export const TRADING_DAYS_PER_YEAR = 252;

/**
 * Simple returns of a value series: r_t = V_t / V_{t-1} - 1, one fewer than the values.
 * @throws {RangeError} when a value is not finite or not positive.
 * @example simpleReturns([100, 110, 99]) // Float64Array [0.1, -0.1]
 */
export function simpleReturns(values: Series): Float64Array {
  assertFiniteSeries(values, "simpleReturns", "values");
  for (let i = 0; i < values.length; i++) {
    if (!(values[i]! > 0)) {
      throw new RangeError(`simpleReturns: values[${i}] is ${values[i]}; values must be positive`);
    }
  }
  const out = new Float64Array(Math.max(0, values.length - 1));
  for (let t = 1; t < values.length; t++) out[t - 1] = values[t]! / values[t - 1]! - 1;
  return out;
}

/**
 * Cumulative returns: c_t = prod_{s <= t} (1 + r_s) - 1, one per return.
 * @throws {RangeError} when a return is not finite or is <= -1 (a loss of more than everything).
 * @example cumulativeReturns([0.1, -0.1]) // Float64Array [0.1, -0.01] (1.1 * 0.9 - 1)
 */
export function cumulativeReturns(returns: Series): Float64Array {
  assertReturns(returns, "cumulativeReturns");
  const out = new Float64Array(returns.length);
  let growth = 1;
  for (let t = 0; t < returns.length; t++) {
    growth *= 1 + returns[t]!;
    out[t] = growth - 1;
  }
  return out;
}

/**
 * Total (compounded) return over a return series: prod (1 + r_t) - 1; 0 for an empty series.
 * @throws {RangeError} when a return is not finite or is <= -1.
 * @example totalReturn([0.1, -0.1]) // -0.01
 */
export function totalReturn(returns: Series): number {
  assertReturns(returns, "totalReturn");
  let growth = 1;
  for (let t = 0; t < returns.length; t++) growth *= 1 + returns[t]!;
  return growth - 1;
}

/**
 * Annualized (geometric) return, the compound annual growth rate:
 * (prod (1 + r_t))^(q / n) - 1 for n returns observed q times a year (Bacon, "Practical Portfolio
 * Performance Measurement and Attribution", 2nd ed., 2008, section 2.4). Null for an empty series.
 * @param periodsPerYear q. @default TRADING_DAYS_PER_YEAR
 * @throws {RangeError} when a return is invalid or `periodsPerYear` is not positive.
 * @example annualizedReturn([0.01, 0.01, 0.01, 0.01], 4) // 0.04060401 (1.01^4 - 1)
 */
export function annualizedReturn(returns: Series, periodsPerYear = TRADING_DAYS_PER_YEAR): number | null {
  assertPeriodsPerYear(periodsPerYear, "annualizedReturn");
  const total = totalReturn(returns);
  if (returns.length === 0) return null;
  return (1 + total) ** (periodsPerYear / returns.length) - 1;
}

/**
 * The per-period rate equivalent to an annual rate compounded `periodsPerYear` times: (1 + R)^(1/q) - 1.
 * @throws {RangeError} when the rate is not finite or <= -1, or `periodsPerYear` is not positive.
 * @example periodicRate(0.04060401, 4) // 0.01
 */
export function periodicRate(annualRate: number, periodsPerYear = TRADING_DAYS_PER_YEAR): number {
  assertPeriodsPerYear(periodsPerYear, "periodicRate");
  if (!Number.isFinite(annualRate) || annualRate <= -1) {
    throw new RangeError(`periodicRate: annualRate must be a finite number above -1, got ${annualRate}`);
  }
  return (1 + annualRate) ** (1 / periodsPerYear) - 1;
}

/** @throws {RangeError} unless every return is finite and above -1. */
export function assertReturns(returns: Series, caller: string, argument = "returns"): void {
  assertFiniteSeries(returns, caller, argument);
  for (let t = 0; t < returns.length; t++) {
    if (returns[t]! <= -1) {
      throw new RangeError(`${caller}: ${argument}[${t}] is ${returns[t]}; a return must be above -1`);
    }
  }
}

/** @throws {RangeError} unless `q` is a finite positive number. */
export function assertPeriodsPerYear(q: number, caller: string): void {
  if (!Number.isFinite(q) || q <= 0) {
    throw new RangeError(`${caller}: periodsPerYear must be a positive number, got ${q}`);
  }
}
