/**
 * @module core/proposal/rounding
 * The few roundings a proposal makes, each in one direction on purpose: cash buffers up to the cent (never
 * keep less than configured), notional buys down to the cent (never spend more than allowed), fractional
 * share quantities half-up to the configured places, whole shares to integers. Also the sign tests used
 * in hot loops (comparing with a number literal would build a Decimal per call).
 */

import { Decimal } from "decimal.js";
import { compareDecimals } from "../tax/decimal.js";

/** `x` rounded up to the cent (toward +infinity). */
export function ceilCents(x: Decimal): Decimal {
  return x.toDecimalPlaces(2, Decimal.ROUND_CEIL);
}

/** `x` rounded down to the cent (toward -infinity). */
export function floorCents(x: Decimal): Decimal {
  return x.toDecimalPlaces(2, Decimal.ROUND_FLOOR);
}

/** `x` rounded half-up (away from zero on ties) to `places` decimals. */
export function roundHalfUp(x: Decimal, places: number): Decimal {
  return x.toDecimalPlaces(places, Decimal.ROUND_HALF_UP);
}

/** `x` rounded down to `places` decimals (toward -infinity). */
export function floorPlaces(x: Decimal, places: number): Decimal {
  return x.toDecimalPlaces(places, Decimal.ROUND_FLOOR);
}

/** The smaller of two decimals. */
export function minDecimal(a: Decimal, b: Decimal): Decimal {
  return compareDecimals(a, b) <= 0 ? a : b;
}

/** The larger of two decimals. */
export function maxDecimal(a: Decimal, b: Decimal): Decimal {
  return compareDecimals(a, b) >= 0 ? a : b;
}

/** x > 0, without building a Decimal for the literal. */
export function isPositive(x: Decimal): boolean {
  return !x.isZero() && x.isPositive();
}

/** x < 0, without building a Decimal for the literal. */
export function isNegative(x: Decimal): boolean {
  return !x.isZero() && x.isNegative();
}
