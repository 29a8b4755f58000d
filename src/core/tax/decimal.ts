/**
 * @module core/tax/decimal
 * The decimal arithmetic of the tax engine: a private decimal.js constructor with 64 significant digits and
 * banker's rounding, so that every sum and product of lot quantities (decimal(10,10)) and money
 * (decimal(30,10)) is exact and only divisions (per-share values, FX conversion, pro-rata splits) round.
 * The global `Decimal` is never reconfigured: importing lotwise has no side effects.
 */

import { Decimal } from "decimal.js";

/** Significant digits of {@link TaxDecimal}. */
const PRECISION = 64;

/**
 * Decimal constructor used by the tax engine: precision 64 significant digits, ROUND_HALF_EVEN.
 * Values it creates are ordinary `Decimal` instances (they interoperate with any other `Decimal`).
 */
export const TaxDecimal: Decimal.Constructor = Decimal.clone({
  precision: PRECISION,
  rounding: Decimal.ROUND_HALF_EVEN,
  toExpNeg: -40,
  toExpPos: 60,
});

/** Exact zero of {@link TaxDecimal}. */
export const ZERO: Decimal = new TaxDecimal(0);
/** Exact one of {@link TaxDecimal}. */
export const ONE: Decimal = new TaxDecimal(1);

/**
 * Converts a number, string, bigint or Decimal to a finite {@link TaxDecimal}.
 * @param where names the function and field for the error message, e.g. `"applySale: sale.price"`.
 * @throws {TypeError} when the value is not a number, string, bigint or Decimal, or does not parse.
 * @throws {RangeError} when the value is NaN or infinite.
 * @example toTaxDecimal("12.50", "createLot: costBasisPerShare").toString() // "12.5"
 */
export function toTaxDecimal(value: Decimal.Value, where: string): Decimal {
  let d: Decimal;
  try {
    d = new TaxDecimal(value);
  } catch (cause) {
    throw new TypeError(`${where}: ${String(value)} is not a decimal number`, { cause });
  }
  if (!d.isFinite()) throw new RangeError(`${where}: ${String(value)} is not finite`);
  return d;
}

/** Like {@link toTaxDecimal}, and also requires value > 0. @throws {RangeError} when value <= 0. */
export function toPositiveDecimal(value: Decimal.Value, where: string): Decimal {
  const d = toTaxDecimal(value, where);
  if (!d.isPositive() || d.isZero()) throw new RangeError(`${where}: must be > 0, got ${d.toString()}`);
  return d;
}

/** Like {@link toTaxDecimal}, and also requires value >= 0. @throws {RangeError} when value < 0. */
export function toNonNegativeDecimal(value: Decimal.Value, where: string): Decimal {
  const d = toTaxDecimal(value, where);
  if (d.isNegative() && !d.isZero()) throw new RangeError(`${where}: must be >= 0, got ${d.toString()}`);
  return d;
}

/**
 * `sign(x - y)`, as `x.comparedTo(y)` gives it, without the copy of `y` decimal.js makes on
 * every comparison (and without parsing a literal, as `x.gt(0)` does): sort comparators and loops over lots
 * compare thousands of times per proposal. Reads the documented instance fields (sign `s`, exponent `e`, digits
 * `d` in base 1e7 words without trailing zero words), the representation every Decimal constructor shares.
 * @example compareDecimals(new TaxDecimal("1.5"), new TaxDecimal("1.25")) // 1
 */
export function compareDecimals(x: Decimal, y: Decimal): number {
  const xd = x.d;
  const yd = y.d;
  if (!xd || !yd) return x.comparedTo(y); // NaN or an infinity: decimal.js's rules
  const xs = x.s;
  if (!xd[0] || !yd[0]) return xd[0] ? xs : yd[0] ? -y.s : 0;
  if (xs !== y.s) return xs;
  if (x.e !== y.e) return x.e > y.e === xs > 0 ? 1 : -1;
  const n = xd.length < yd.length ? xd.length : yd.length;
  for (let i = 0; i < n; i++) if (xd[i] !== yd[i]) return xd[i]! > yd[i]! === xs > 0 ? 1 : -1;
  return xd.length === yd.length ? 0 : xd.length > yd.length === xs > 0 ? 1 : -1;
}

/** The sign of a decimal: -1, 0 or 1 (0 for negative zero; +-1 for an infinity, NaN for NaN). */
export function signOf(x: Decimal): number {
  return x.d?.[0] ? x.s : x.d ? 0 : x.s;
}

/** Scale of the integer fast path of {@link sumDecimals}: terms with at most this many decimals. */
const SUM_SCALE = 10;
const POW10 = Array.from({ length: 23 }, (_, i) => 10 ** i); // exact doubles up to 1e22

/**
 * `v x 10^SUM_SCALE` as a double when that is an integer of magnitude below 2^53 (so the double is exact), else
 * NaN. decimal.js keeps the digits in base 1e7 words, the first one holding the leading digits, and `e` the
 * exponent of the leading digit: v = (words as one integer) x 10^(e - digits(d[0]) + 1 - 7 (words - 1)).
 */
function scaledInteger(v: Decimal): number {
  const d = v.d;
  if (!d) return Number.NaN;
  if (!d[0]) return 0;
  let m = d[0];
  for (let i = 1; i < d.length; i++) m = m * 1e7 + d[i]!;
  const lead =
    d[0] >= 1e6
      ? 7
      : d[0] >= 1e5
        ? 6
        : d[0] >= 1e4
          ? 5
          : d[0] >= 1e3
            ? 4
            : d[0] >= 100
              ? 3
              : d[0] >= 10
                ? 2
                : 1;
  const p = v.e - lead + 1 - 7 * (d.length - 1) + SUM_SCALE;
  if (p < 0 || p > 22 || m > Number.MAX_SAFE_INTEGER) return Number.NaN;
  const scaled = m * POW10[p]!;
  return scaled <= Number.MAX_SAFE_INTEGER ? v.s * scaled : Number.NaN;
}

/**
 * Exact sum of decimals (decimal addition is exact at this precision, so no compensation is needed). Terms with
 * at most 10 decimals (lot quantities are decimal(10,10)) are added as exact integers of 1e-10 while the running
 * total stays below 2^53, without a Decimal per term; the others, and the rest once the total is that large, with
 * decimal.js. Same value as adding them all with `plus`.
 */
export function sumDecimals(values: Iterable<Decimal>): Decimal {
  let fast = 0;
  let slow: Decimal | null = null;
  for (const v of values) {
    const k = scaledInteger(v);
    const next = fast + k;
    if (Number.isNaN(k) || !(Math.abs(next) <= Number.MAX_SAFE_INTEGER)) slow = (slow ?? ZERO).plus(v);
    else fast = next;
  }
  const head = fast === 0 ? ZERO : new TaxDecimal(`${fast}e-${SUM_SCALE}`);
  return slow === null ? head : head.plus(slow);
}

/**
 * `total x part / whole`, the pro-rata share of `total` for `part` of `whole`; exact (no division) when
 * `part` equals `whole`, so consuming a whole lot moves its basis to the cent with no rounding at all.
 */
export function proRata(total: Decimal, part: Decimal, whole: Decimal): Decimal {
  if (compareDecimals(part, whole) === 0) return new TaxDecimal(total);
  return new TaxDecimal(total).times(part).dividedBy(whole);
}

/**
 * `x / rate` (a lot-currency amount to USD), skipping the division when it cannot change the value: `rate`
 * is exactly 1 (every USD lot) and `x` is a {@link TaxDecimal} that already fits in 64 significant digits —
 * a division by 1 only rounds to the precision. Same value as `x.dividedBy(rate)` in every case.
 */
export function divideByRate(x: Decimal, rate: Decimal): Decimal {
  return compareDecimals(rate, ONE) === 0 &&
    (x as unknown as { constructor: unknown }).constructor === TaxDecimal &&
    x.sd() <= PRECISION
    ? x
    : x.dividedBy(rate);
}
