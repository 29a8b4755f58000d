/**
 * @module contract/primitives
 * Field-level schemas shared by every shape: uuid, date, datetime, theme_asset_id, the generic numeric string
 * used where the spec says only "string", bounded integers and JSON values. Messages say what to send.
 */
import * as z from "zod";
import { type DecimalRange, decimalString } from "./decimal.js";
import { named } from "./registry.js";

function received(input: unknown): string {
  if (input === null) return "null";
  if (Array.isArray(input)) return "an array";
  if (typeof input === "string") return `"${input}"`;
  if (typeof input === "number" || typeof input === "boolean") return `${typeof input} ${String(input)}`;
  return typeof input;
}

/** "Required" for a missing key, otherwise `expected <what>, received <input>`. */
export function expectedMessage(what: string): (issue: { input?: unknown }) => string {
  return (issue) =>
    issue.input === undefined ? "Required" : `expected ${what}, received ${received(issue.input)}`;
}

/**
 * A uuid: 8-4-4-4-12 hexadecimal digits, any version nibble (JSON Schema `format: uuid`). The version is not
 * checked so that fixed test identifiers such as `00000000-0000-0000-0000-000000000001` pass.
 */
export function uuid() {
  return z.guid({ error: expectedMessage("a uuid (8-4-4-4-12 hexadecimal digits)") });
}

/** A calendar date `YYYY-MM-DD` (month lengths and leap years checked). */
export function isoDate() {
  return z.iso.date({ error: expectedMessage("a YYYY-MM-DD calendar date") });
}

/** An ISO 8601 UTC timestamp ending in `Z`, e.g. `2024-01-31T15:04:05Z` (fractional seconds allowed). */
export function isoDatetime() {
  return z.iso.datetime({ error: expectedMessage("an ISO 8601 UTC timestamp such as 2024-01-31T15:04:05Z") });
}

/** `SYMBOL:MIC`: upper-case symbol (letters, digits, '.', '-'), a colon, a 4-character ISO 10383 MIC. */
export const THEME_ASSET_ID_PATTERN = /^[A-Z0-9][A-Z0-9.-]{0,19}:[A-Z0-9]{4}$/;

/** A theme_asset_id, e.g. `AAPL:XNAS`, `BRK.B:XNYS`, `RY:XTSE`. */
export function themeAssetId() {
  return z
    .string({ error: expectedMessage("a theme_asset_id such as AAPL:XNAS") })
    .regex(THEME_ASSET_ID_PATTERN, {
      error: (issue) =>
        `expected a theme_asset_id SYMBOL:MIC in upper case (e.g. AAPL:XNAS, BRK.B:XNYS), received ${received(issue.input)}`,
    });
}

/** Digit limits used for numeric fields the spec types only as "string": decimal(20,10). */
export const NUMERIC_STRING_WIDTH = { integerDigits: 20, fractionDigits: 10 } as const;

/**
 * A numeric field the spec types as "string" (tax rates, lot quantities, bounds...): validated as
 * decimal(20,10) so that "abc" or "1e5" is rejected at the edge.
 */
export function numericString(range: DecimalRange = {}) {
  return decimalString(NUMERIC_STRING_WIDTH.integerDigits, NUMERIC_STRING_WIDTH.fractionDigits, range);
}

/**
 * Largest lot quantity accepted on input: 10^12 shares (more than any listed company has outstanding). With the
 * money bound below it keeps the figures derived from a lot (its market value at any price up to 10^7, cost-basis
 * totals over the lots of a 1 MiB body) inside the 20 integer digits of the responses' decimal(20,10), so a value
 * that passes validation is not refused later by the output format (a 500 after the write was rolled back).
 */
export const MAX_LOT_QUANTITY = "1000000000000";

/**
 * Largest money amount accepted on input (cash, non-tradable value, a lot's cost basis per share or in total, in
 * its currency and in USD): 10^15, a quadrillion, above the wealth of any household or fund.
 */
export const MAX_MONEY_AMOUNT = "1000000000000000";

/** Range of a lot's fx_rate (units of the lot currency per USD): wide of every supported currency's rate. */
export const FX_RATE_RANGE = { min: "0.0001", max: "100000" } as const;

/** A string with at least one non-blank character and at most `max` characters. */
export function nonEmptyString(max = 255) {
  return z
    .string({ error: expectedMessage("a string") })
    .min(1, { error: "must not be empty" })
    .max(max, { error: `must be at most ${max} characters` })
    .refine((s) => s.length === 0 || s.trim().length > 0, { error: "must not be blank" });
}

/** A display name: 1 to 255 characters (the spec's configuration and asset-class name limit). */
export function displayName() {
  return nonEmptyString(255);
}

/** An integer in `[min, max]` (JSON number without fraction). */
export function boundedInt(min: number, max: number) {
  return z
    .int({ error: expectedMessage(`an integer from ${min} to ${max}`) })
    .min(min, { error: (issue) => `${String(issue.input)} is below the minimum ${min}` })
    .max(max, { error: (issue) => `${String(issue.input)} is above the maximum ${max}` });
}

/** A boolean (JSON true/false only). */
export function bool() {
  return z.boolean({ error: expectedMessage("true or false") });
}

/**
 * Any JSON value (string, number, boolean, null, array, object); a missing key is rejected as "Required".
 * One shared named instance, so that JSON Schema refers to its recursive definition by the id `JsonValue`.
 */
export const jsonValueSchema = named(z.json(), "JsonValue", "Any JSON value.");

/** A finite JSON number. */
export function finiteNumber() {
  return z.number({ error: expectedMessage("a finite number") });
}
