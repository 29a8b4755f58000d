/**
 * @module cli/flags
 * Parsers of flag and argument values. A malformed value is a usage error (exit 2) that commander reports with the
 * flag's name (`option '--seed <n>' argument 'abc' is invalid. expected ...`) before anything runs. Light on
 * purpose: main.ts imports it (for {@link uuidFlag}) without loading any command, store or service.
 */
import { InvalidArgumentError } from "commander";
import { isIsoDate } from "../core/dates.js";

/** 8-4-4-4-12 hexadecimal digits, any case. */
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A uuid (8-4-4-4-12 hexadecimal digits), as every identifier of the store is. */
export function uuidFlag(value: string): string {
  if (!UUID.test(value))
    throw new InvalidArgumentError(`expected a uuid (8-4-4-4-12 hexadecimal digits), got "${value}".`);
  return value;
}

/** A whole number from `min` to `max`. */
export function integerFlag(min: number, max: number): (value: string) => number {
  return (value) => {
    const n = /^-?\d+$/.test(value.trim()) ? Number(value.trim()) : Number.NaN;
    if (!Number.isSafeInteger(n) || n < min || n > max) {
      const range = max === Number.MAX_SAFE_INTEGER ? `of at least ${min}` : `from ${min} to ${max}`;
      throw new InvalidArgumentError(`expected a whole number ${range}, got "${value}".`);
    }
    return n;
  };
}

/** A number from `min` to `max` (a fraction when the range is within 0..1: "0.05 means 5%"). */
export function numberFlag(min: number, max: number): (value: string) => number {
  return (value) => {
    const n = /^-?(\d+\.?\d*|\.\d+)$/.test(value.trim()) ? Number(value.trim()) : Number.NaN;
    if (!Number.isFinite(n) || n < min || n > max) {
      const fraction = min >= 0 && max <= 1 ? ` (a fraction: 0.05 means 5%)` : "";
      throw new InvalidArgumentError(`expected a number from ${min} to ${max}${fraction}, got "${value}".`);
    }
    return n;
  };
}

/** A non-negative amount in USD as a decimal string (kept as text: money goes to decimal.js, never to a float). */
export function usdFlag(value: string): string {
  if (!/^\d+(\.\d+)?$/.test(value.trim()))
    throw new InvalidArgumentError(`expected an amount in USD such as 2500 or 1234.56, got "${value}".`);
  return value.trim();
}

/** A fraction from 0 to 1 kept as the text given (for request fields that are decimal strings). */
export function fractionText(value: string): string {
  numberFlag(0, 1)(value);
  return value.trim();
}

/**
 * Parser of a date flag (`--as-of`, `--start-date`, `--end-date`): a malformed date is a usage error (exit 2, the
 * flag named by commander), the same in every command, before anything runs.
 */
export function dateFlag(value: string): string {
  if (!isIsoDate(value))
    throw new InvalidArgumentError(`expected a YYYY-MM-DD calendar date (e.g. 2025-06-30), got "${value}".`);
  return value;
}
