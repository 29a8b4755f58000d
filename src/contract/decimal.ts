/**
 * @module contract/decimal
 * The spec's `decimal(i,f)`: a JSON string with an optional leading minus, 1 to `i` integer digits and
 * optionally a point followed by 1 to `f` fractional digits. Parsing is strict (no exponent, no spaces, no
 * '+', no NaN/Infinity, no JSON numbers); printing rounds half-to-even to `f` places, trims trailing zeros
 * and refuses values that need more than `i` integer digits.
 */
import { Decimal } from "decimal.js";
import * as z from "zod";
import { describe } from "./registry.js";

/**
 * Decimal constructor used by the contract: wide precision so that products and quotients of
 * decimal(30,10) operands stay exact to their last printed digit; half-even rounding.
 */
export const ContractDecimal = Decimal.clone({ precision: 80, rounding: Decimal.ROUND_HALF_EVEN });

/** Rounding mode of {@link formatDecimal}: half to even (IEEE 754 default, Python `decimal` default). */
export const DECIMAL_ROUNDING = Decimal.ROUND_HALF_EVEN;

/** Bounds on the value of a decimal field, in addition to its digit limits. Bounds are inclusive unless marked. */
export interface DecimalRange {
  /** Smallest allowed value (a decimal string, e.g. `"0"`). */
  min?: string;
  /** Largest allowed value (a decimal string, e.g. `"100"`). */
  max?: string;
  /** When true, `min` itself is not allowed (value must be strictly greater). @default false */
  exclusiveMin?: boolean;
  /**
   * The field's unit in words, said when a value is out of range instead of the bare bounds, e.g.
   * `max_weight is a fraction of the portfolio, -1 to 1: 0.05 means 5%` (the message ends `; got <value>`).
   */
  unitHint?: string;
}

function checkWidth(integerDigits: number, fractionDigits: number, where: string): void {
  if (!Number.isInteger(integerDigits) || integerDigits < 1)
    throw new RangeError(`${where}: integer digits must be an integer >= 1, got ${integerDigits}`);
  if (!Number.isInteger(fractionDigits) || fractionDigits < 0)
    throw new RangeError(`${where}: fraction digits must be an integer >= 0, got ${fractionDigits}`);
}

/**
 * The regular expression of `decimal(i,f)`: `^-?\d{1,i}(\.\d{1,f})?$` (no fraction part when `f` is 0).
 * @throws {RangeError} when `i < 1` or `f < 0` or either is not an integer.
 * @example decimalPattern(3, 2).test("-12.5") // true
 */
export function decimalPattern(integerDigits: number, fractionDigits: number): RegExp {
  checkWidth(integerDigits, fractionDigits, "decimalPattern");
  const fraction = fractionDigits > 0 ? `(\\.\\d{1,${fractionDigits}})?` : "";
  return new RegExp(`^-?\\d{1,${integerDigits}}${fraction}$`);
}

/**
 * True when `value` is a string that `decimal(i,f)` accepts.
 * @example isDecimalString("1.5e3", 6, 2) // false: exponents are not accepted
 */
export function isDecimalString(value: unknown, integerDigits: number, fractionDigits: number): boolean {
  return typeof value === "string" && decimalPattern(integerDigits, fractionDigits).test(value);
}

/** Describes a non-string input for an error message. */
function describeInput(input: unknown): string {
  if (input === null) return "null";
  if (typeof input === "number") return `the number ${String(input)}`;
  if (Array.isArray(input)) return "an array";
  return typeof input === "object" ? "an object" : typeof input;
}

/**
 * Why `input` is not a `decimal(i,f)` string, in one sentence. Used as the issue message so that a caller
 * learns what to change ("has 3 decimal places; at most 2 allowed") rather than only the pattern.
 */
export function explainDecimalRejection(
  input: unknown,
  integerDigits: number,
  fractionDigits: number,
): string {
  const width = `decimal(${integerDigits},${fractionDigits})`;
  if (input === undefined) return "Required";
  if (typeof input === "number")
    return `expected a ${width} string, received ${describeInput(input)}; send it as a JSON string, e.g. "${Number.isFinite(input) ? String(input) : "0"}"`;
  if (typeof input !== "string") return `expected a ${width} string, received ${describeInput(input)}`;
  if (input === "") return `expected a ${width} string, received an empty string`;
  if (/\s/.test(input)) return `"${input}" contains whitespace; ${width} allows only digits, '-' and '.'`;
  if (/^[+]/.test(input)) return `"${input}" has a leading '+'; ${width} allows only a leading '-'`;
  if (/^-?(nan|infinity|inf)$/i.test(input)) return `"${input}" is not a finite number`;
  if (/[eE]/.test(input)) return `"${input}" uses exponent notation; write all digits, e.g. "0.00012"`;
  const m = /^-?(\d*)(?:\.(\d*))?$/.exec(input);
  if (!m) return `"${input}" is not a decimal number; ${width} allows only digits, a leading '-' and one '.'`;
  const intPart = m[1] ?? "";
  const fracPart = m[2];
  if (intPart.length === 0) return `"${input}" needs at least one digit before the point, e.g. "0.5"`;
  if (fracPart !== undefined && fracPart.length === 0)
    return `"${input}" ends with a point; drop it or add digits`;
  if (intPart.length > integerDigits)
    return `"${input}" has ${intPart.length} integer digits; ${width} allows at most ${integerDigits}`;
  if (fracPart !== undefined && fractionDigits === 0)
    return `"${input}" has a fraction; ${width} allows none`;
  if (fracPart !== undefined && fracPart.length > fractionDigits)
    return `"${input}" has ${fracPart.length} decimal places; ${width} allows at most ${fractionDigits}`;
  return `"${input}" is not a valid ${width} string`;
}

function rangeText(range: DecimalRange): string {
  const lower =
    range.min === undefined
      ? undefined
      : `${range.exclusiveMin === true ? "greater than" : "at least"} ${range.min}`;
  const upper = range.max === undefined ? undefined : `at most ${range.max}`;
  return [lower, upper].filter((s) => s !== undefined).join(" and ");
}

function inRange(value: string, range: DecimalRange, pattern: RegExp): boolean {
  // A malformed string already has its own issue; the range says nothing about it.
  if (!pattern.test(value)) return true;
  const d = new ContractDecimal(value);
  if (range.min !== undefined) {
    const c = d.comparedTo(range.min);
    if (c < 0 || (c === 0 && range.exclusiveMin === true)) return false;
  }
  return range.max === undefined || d.comparedTo(range.max) <= 0;
}

/**
 * Schema of a `decimal(i,f)` string (used for requests AND responses): accepts exactly the strings matched by
 * {@link decimalPattern} and yields the string unchanged, so no digit is lost or invented on the way in.
 * Optional `range` bounds the value (compared exactly, in decimal).
 * @throws {RangeError} when the width is invalid or `range` bounds are not decimal strings.
 * @example decimalString(1, 4, { min: "0", max: "1" }).parse("0.05") // "0.05"
 */
export function decimalString(integerDigits: number, fractionDigits: number, range: DecimalRange = {}) {
  const pattern = decimalPattern(integerDigits, fractionDigits);
  for (const bound of [range.min, range.max])
    if (bound !== undefined && !/^-?\d+(\.\d+)?$/.test(bound))
      throw new RangeError(`decimalString: range bound "${bound}" is not a plain decimal string`);
  const explain = (input: unknown) => explainDecimalRejection(input, integerDigits, fractionDigits);
  let schema = z
    .string({ error: (issue) => explain(issue.input) })
    .regex(pattern, { error: (issue) => explain(issue.input) });
  if (range.min !== undefined || range.max !== undefined) {
    const text = rangeText(range);
    const hint = range.unitHint;
    schema = schema.refine((s) => inRange(s, range, pattern), {
      error: (issue) =>
        hint === undefined
          ? `must be ${text}, got ${String(issue.input)}`
          : `${hint}; got ${String(issue.input)}`,
    });
  }
  const rangeNote = range.min !== undefined || range.max !== undefined ? `; value ${rangeText(range)}` : "";
  return describe(
    schema,
    `decimal(${integerDigits},${fractionDigits}): a string with an optional '-', at most ${integerDigits} integer digit(s) and at most ${fractionDigits} decimal place(s)${rangeNote}`,
  );
}

/** Accepts any decimal.js instance, whatever constructor clone made it. */
const decimalInstance = z.custom<Decimal>((v) => Decimal.isDecimal(v), { error: "expected a Decimal" });

/**
 * Codec of a `decimal(i,f)` string to a decimal.js `Decimal` (constructed with {@link ContractDecimal}).
 * `schema.parse("1.50")` gives a Decimal; `z.encode(schema, d)` prints with {@link formatDecimal}.
 * Not for JSON Schema output (a Decimal has no JSON form); the named wire schemas use {@link decimalString}.
 * @example decimalValue(10, 2).parse("12.30").toString() // "12.3"
 */
export function decimalValue(integerDigits: number, fractionDigits: number, range: DecimalRange = {}) {
  return z.codec(decimalString(integerDigits, fractionDigits, range), decimalInstance, {
    decode: (s) => new ContractDecimal(s),
    encode: (d) => formatDecimal(d, integerDigits, fractionDigits),
  });
}

/**
 * Converts a Decimal, a finite number or a numeric string (decimal.js syntax, exponents allowed) to a
 * {@link ContractDecimal}.
 * @throws {RangeError} naming `field` when the value is NaN, infinite or not numeric.
 */
export function toContractDecimal(value: Decimal | string | number, field?: string): Decimal {
  const where = field ?? "value";
  if (typeof value === "number" && !Number.isFinite(value))
    throw new RangeError(`${where}: ${String(value)} is not a finite number`);
  let d: Decimal;
  try {
    d = new ContractDecimal(value);
  } catch (cause) {
    throw new RangeError(`${where}: ${JSON.stringify(String(value))} is not a number`, { cause });
  }
  if (!d.isFinite()) throw new RangeError(`${where}: ${d.toString()} is not a finite number`);
  return d;
}

/**
 * True for a Decimal of any clone whose exponent limits are {@link ContractDecimal}'s: rounding it to decimal places
 * in its own constructor gives the digits that rounding its ContractDecimal copy gives (rounding to places does not
 * depend on the precision), so {@link formatDecimal} skips the copy (thousands per proposal response).
 */
function sameRangeDecimal(value: unknown): value is Decimal {
  if (!Decimal.isDecimal(value)) return false;
  const ctor = (value as unknown as { constructor: Decimal.Constructor }).constructor;
  return ctor.maxE === ContractDecimal.maxE && ctor.minE === ContractDecimal.minE;
}

function finiteDecimal(value: Decimal, field: string | undefined): Decimal {
  if (!value.isFinite())
    throw new RangeError(`${field ?? "value"}: ${value.toString()} is not a finite number`);
  return value;
}

/**
 * Prints `value` as a `decimal(i,f)` string: rounded half-to-even to `f` places, trailing fractional zeros
 * (and a bare point) removed, `-0` printed as `0`, never exponent notation.
 * @param field named in the error message (e.g. `"orders[3].amount"`).
 * @throws {RangeError} when the rounded value needs more than `i` integer digits, or is not finite.
 * @example formatDecimal("2.345", 3, 2) // "2.34" (half to even)
 * @example formatDecimal(0.1 + 0.2, 1, 10) // "0.3"
 */
export function formatDecimal(
  value: Decimal | string | number,
  integerDigits: number,
  fractionDigits: number,
  field?: string,
): string {
  checkWidth(integerDigits, fractionDigits, "formatDecimal");
  const exact = sameRangeDecimal(value) ? finiteDecimal(value, field) : toContractDecimal(value, field);
  // A value with no more than f decimal places is its own rounding (no new Decimal).
  const rounded =
    exact.decimalPlaces() <= fractionDigits ? exact : exact.toDecimalPlaces(fractionDigits, DECIMAL_ROUNDING);
  if (rounded.isZero()) return "0";
  // decimal.js drops trailing zeros itself; toFixed() without argument never uses exponent notation.
  const text = rounded.toFixed();
  // Integer digits of the nonzero rounded value: e + 1 for |x| >= 1, the single "0" of "0.xxx" otherwise.
  const intLength = rounded.e >= 0 ? rounded.e + 1 : 1;
  if (intLength > integerDigits)
    throw new RangeError(
      `${field ?? "value"}: ${text} needs ${intLength} integer digits; decimal(${integerDigits},${fractionDigits}) allows at most ${integerDigits}`,
    );
  return text;
}

const PLAIN_DECIMAL = /^-?\d+(\.\d+)?$/;

/**
 * Exact comparison of two plain decimal strings: -1, 0 or 1.
 * @throws {RangeError} when either string is not a plain decimal (digits, optional '-' and '.').
 * @example compareDecimalStrings("0.10", "0.1") // 0
 */
export function compareDecimalStrings(a: string, b: string): number {
  for (const s of [a, b])
    if (!PLAIN_DECIMAL.test(s))
      throw new RangeError(`compareDecimalStrings: "${s}" is not a plain decimal string`);
  return new ContractDecimal(a).comparedTo(b);
}

/**
 * True unless both bounds are plain decimal strings and `low > high`. Cross-field rules use it: a bound that
 * is absent or malformed (already reported by its own field) does not make a second issue.
 * @example orderedDecimalStrings("0.1", "0.05") // false
 */
export function orderedDecimalStrings(
  low: string | null | undefined,
  high: string | null | undefined,
): boolean {
  if (low == null || high == null || !PLAIN_DECIMAL.test(low) || !PLAIN_DECIMAL.test(high)) return true;
  return new ContractDecimal(low).lte(high);
}

/** The Decimal of a plain decimal string, or undefined when the string is malformed. */
export function plainDecimalOrUndefined(value: string): Decimal | undefined {
  return PLAIN_DECIMAL.test(value) ? new ContractDecimal(value) : undefined;
}
