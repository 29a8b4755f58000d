/**
 * @module core/themes/expression/kernels
 * Vectorized operations over columns. A numeric value is either a `Float64Array` (one entry per row,
 * NaN = missing) or a plain number (the same for every row, from constant sub-expressions); a
 * condition is a `Uint8Array` (1 = true) or a boolean. Loops broadcast scalars with a zero stride so
 * each operator has one tight loop. Numeric results are sanitized: anything not finite becomes NaN.
 */
import type { ArithmeticOperator, ComparisonOperator } from "./ast.js";

/** Per-row numbers, or one number for all rows. */
export type NumberVector = Float64Array | number;
/** Per-row truth values (1/0), or one for all rows. Arrays returned by kernels are fresh and owned by the caller. */
export type BoolVector = Uint8Array | boolean;
/** A text column (null/undefined = missing), or one upper-cased literal. */
export type StringVector = readonly (string | null | undefined)[] | string;

/** NaN unless finite. */
export function finiteOrNaN(x: number): number {
  return x - x === 0 ? x : Number.NaN;
}

function broadcast(x: NumberVector): [Float64Array, number] {
  return typeof x === "number" ? [Float64Array.of(x), 0] : [x, 1];
}

/** Elementwise `a op b`; non-finite results (x/0, overflow) are missing. */
export function arithmetic(
  op: ArithmeticOperator,
  a: NumberVector,
  b: NumberVector,
  size: number,
): NumberVector {
  if (typeof a === "number" && typeof b === "number") {
    const r = op === "+" ? a + b : op === "-" ? a - b : op === "*" ? a * b : a / b;
    return finiteOrNaN(r);
  }
  const [x, sx] = broadcast(a);
  const [y, sy] = broadcast(b);
  const out = new Float64Array(size);
  switch (op) {
    case "+":
      for (let i = 0; i < size; i++) out[i] = x[i * sx]! + y[i * sy]!;
      break;
    case "-":
      for (let i = 0; i < size; i++) out[i] = x[i * sx]! - y[i * sy]!;
      break;
    case "*":
      for (let i = 0; i < size; i++) out[i] = x[i * sx]! * y[i * sy]!;
      break;
    case "/":
      for (let i = 0; i < size; i++) out[i] = x[i * sx]! / y[i * sy]!;
      break;
  }
  for (let i = 0; i < size; i++) {
    const r = out[i]!;
    if (r - r !== 0) out[i] = Number.NaN;
  }
  return out;
}

/** Elementwise unary function (sanitized). */
export function map1(x: NumberVector, f: (v: number) => number, size: number): NumberVector {
  if (typeof x === "number") return finiteOrNaN(f(x));
  const out = new Float64Array(size);
  for (let i = 0; i < size; i++) out[i] = finiteOrNaN(f(x[i]!));
  return out;
}

/** Elementwise binary function (sanitized). */
export function map2(
  a: NumberVector,
  b: NumberVector,
  f: (x: number, y: number) => number,
  size: number,
): NumberVector {
  if (typeof a === "number" && typeof b === "number") return finiteOrNaN(f(a, b));
  const [x, sx] = broadcast(a);
  const [y, sy] = broadcast(b);
  const out = new Float64Array(size);
  for (let i = 0; i < size; i++) out[i] = finiteOrNaN(f(x[i * sx]!, y[i * sy]!));
  return out;
}

/** The operator with its operands swapped: `a < b` is `b > a`. */
const FLIPPED: Readonly<Record<ComparisonOperator, ComparisonOperator>> = {
  "=": "=",
  "!=": "!=",
  "<": ">",
  "<=": ">=",
  ">": "<",
  ">=": "<=",
};

/** Elementwise comparison; false wherever either side is missing (NaN), for every operator. */
export function compareNumbers(
  op: ComparisonOperator,
  a: NumberVector,
  b: NumberVector,
  size: number,
): BoolVector {
  if (typeof a === "number") {
    return typeof b === "number" ? compareScalars(op, a, b) : compareToScalar(FLIPPED[op], b, a, size);
  }
  if (typeof b === "number") return compareToScalar(op, a, b, size);
  const out = new Uint8Array(size);
  switch (op) {
    case "=":
      for (let i = 0; i < size; i++) out[i] = a[i] === b[i] ? 1 : 0;
      break;
    case "!=":
      for (let i = 0; i < size; i++) {
        const u = a[i]!;
        const v = b[i]!;
        // NaN !== NaN, so test both sides for presence first.
        out[i] = !Number.isNaN(u) && !Number.isNaN(v) && u !== v ? 1 : 0;
      }
      break;
    case "<":
      for (let i = 0; i < size; i++) out[i] = a[i]! < b[i]! ? 1 : 0;
      break;
    case "<=":
      for (let i = 0; i < size; i++) out[i] = a[i]! <= b[i]! ? 1 : 0;
      break;
    case ">":
      for (let i = 0; i < size; i++) out[i] = a[i]! > b[i]! ? 1 : 0;
      break;
    case ">=":
      for (let i = 0; i < size; i++) out[i] = a[i]! >= b[i]! ? 1 : 0;
      break;
  }
  return out;
}

/** Column-versus-constant comparison, the common case (`pe < 20`), in its own tight loops. */
function compareToScalar(op: ComparisonOperator, a: Float64Array, y: number, size: number): Uint8Array {
  const out = new Uint8Array(size);
  if (Number.isNaN(y)) return out;
  switch (op) {
    case "=":
      for (let i = 0; i < size; i++) out[i] = a[i] === y ? 1 : 0;
      break;
    case "!=":
      for (let i = 0; i < size; i++) {
        const u = a[i]!;
        out[i] = !Number.isNaN(u) && u !== y ? 1 : 0;
      }
      break;
    case "<":
      for (let i = 0; i < size; i++) out[i] = a[i]! < y ? 1 : 0;
      break;
    case "<=":
      for (let i = 0; i < size; i++) out[i] = a[i]! <= y ? 1 : 0;
      break;
    case ">":
      for (let i = 0; i < size; i++) out[i] = a[i]! > y ? 1 : 0;
      break;
    case ">=":
      for (let i = 0; i < size; i++) out[i] = a[i]! >= y ? 1 : 0;
      break;
  }
  return out;
}

function compareScalars(op: ComparisonOperator, a: number, b: number): boolean {
  if (Number.isNaN(a) || Number.isNaN(b)) return false;
  switch (op) {
    case "=":
      return a === b;
    case "!=":
      return a !== b;
    case "<":
      return a < b;
    case "<=":
      return a <= b;
    case ">":
      return a > b;
    case ">=":
      return a >= b;
  }
}

/** `low <= x <= high` elementwise (false when any of the three is missing), negated when `negated`. */
export function between(
  x: NumberVector,
  low: NumberVector,
  high: NumberVector,
  negated: boolean,
  size: number,
): BoolVector {
  const test = (v: number, lo: number, hi: number): boolean =>
    !Number.isNaN(v) &&
    !Number.isNaN(lo) &&
    !Number.isNaN(hi) &&
    (negated ? v < lo || v > hi : v >= lo && v <= hi);
  if (typeof x === "number" && typeof low === "number" && typeof high === "number") return test(x, low, high);
  const [v, sv] = broadcast(x);
  const [lo, sl] = broadcast(low);
  const [hi, sh] = broadcast(high);
  const out = new Uint8Array(size);
  for (let i = 0; i < size; i++) out[i] = test(v[i * sv]!, lo[i * sl]!, hi[i * sh]!) ? 1 : 0;
  return out;
}

/** Membership of numbers in a set of literals; false for missing values, also when `negated`. */
export function numberInSet(
  x: NumberVector,
  set: ReadonlySet<number>,
  negated: boolean,
  size: number,
): BoolVector {
  if (typeof x === "number") return !Number.isNaN(x) && set.has(x) !== negated;
  const out = new Uint8Array(size);
  for (let i = 0; i < size; i++) {
    const v = x[i]!;
    out[i] = !Number.isNaN(v) && set.has(v) !== negated ? 1 : 0;
  }
  return out;
}

/** Upper-cases for case-insensitive comparison (locale-independent). */
export function normalizeString(s: string): string {
  return s.toUpperCase();
}

/**
 * `s` upper-cased, without allocating when it has no lower-case ASCII letter and no non-ASCII character
 * (the usual case for symbols, MICs and ISO codes).
 */
function upperCased(s: string): string {
  for (let k = 0; k < s.length; k++) {
    const c = s.charCodeAt(k);
    if ((c >= 97 && c <= 122) || c >= 128) return s.toUpperCase();
  }
  return s;
}

/**
 * Whether `v` upper-cased equals `upper` (already upper case), without allocating in the ASCII case:
 * ASCII characters upper-case one to one, so the first ASCII mismatch decides; a non-ASCII character
 * (which may change length or map to ASCII, like dotless i) falls back to `toUpperCase`.
 */
function equalsUpper(v: string, upper: string): boolean {
  if (v === upper) return true;
  const n = v.length;
  if (n !== upper.length) {
    for (let k = 0; k < n; k++) if (v.charCodeAt(k) >= 128) return v.toUpperCase() === upper;
    return false;
  }
  for (let k = 0; k < n; k++) {
    const a = v.charCodeAt(k);
    const b = upper.charCodeAt(k);
    if (a === b || (a >= 97 && a <= 122 && a - 32 === b)) continue;
    return a >= 128 ? v.toUpperCase() === upper : false;
  }
  return true;
}

/** Case-insensitive `=` / `!=` between text values; false when either side is missing. */
export function compareStrings(op: "=" | "!=", a: StringVector, b: StringVector, size: number): BoolVector {
  const want = op === "=";
  if (typeof a === "string" && typeof b === "string") return (a === b) === want;
  const out = new Uint8Array(size);
  if (typeof a === "string" || typeof b === "string") {
    const literal = (typeof a === "string" ? a : b) as string;
    const column = (typeof a === "string" ? b : a) as readonly (string | null | undefined)[];
    for (let i = 0; i < size; i++) {
      const v = column[i];
      if (v == null) continue;
      out[i] = equalsUpper(v, literal) === want ? 1 : 0;
    }
    return out;
  }
  for (let i = 0; i < size; i++) {
    const u = a[i];
    const v = b[i];
    if (u == null || v == null) continue;
    out[i] = (u === v || upperCased(u) === upperCased(v)) === want ? 1 : 0;
  }
  return out;
}

/** Case-insensitive membership of text values in a set of upper-cased literals; false for missing values. */
export function stringInSet(
  x: StringVector,
  set: ReadonlySet<string>,
  negated: boolean,
  size: number,
): BoolVector {
  if (typeof x === "string") return set.has(x) !== negated;
  const out = new Uint8Array(size);
  // A short list is scanned (cheaper than hashing); values usually match without case folding.
  const items = set.size <= 8 ? [...set] : undefined;
  for (let i = 0; i < size; i++) {
    const v = x[i];
    if (v == null) continue;
    let hit: boolean;
    if (items === undefined) {
      hit = set.has(upperCased(v));
    } else {
      hit = items.includes(v);
      if (!hit) {
        const u = upperCased(v);
        hit = u !== v && items.includes(u);
      }
    }
    out[i] = hit !== negated ? 1 : 0;
  }
  return out;
}

const POW10 = [1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9];

/** Number of decimal digits of a positive integer code below 1e9 (0 for anything else, NaN included). */
export function codeDigits(c: number): number {
  if (!(c >= 1 && c < 1e9) || Math.floor(c) !== c) return 0;
  if (c < 1e4) return c < 100 ? (c < 10 ? 1 : 2) : c < 1e3 ? 3 : 4;
  if (c < 1e8) return c < 1e6 ? (c < 1e5 ? 5 : 6) : c < 1e7 ? 7 : 8;
  return 9;
}

/**
 * Hierarchical code membership: a row's code `c` matches a literal code `n` of `d` digits when `c` has at
 * least `d` digits and its first `d` digits are `n` (so sub-industry 45102010 matches 45, 4510, 451020 and
 * 45102010). `byDigits` maps a digit count to the literals of that length. False for missing codes and for
 * malformed ones (not 2, 4, 6 or 8 digits), also when `negated`.
 */
export function codeInSet(
  column: Float64Array,
  byDigits: ReadonlyMap<number, ReadonlySet<number>>,
  negated: boolean,
  size: number,
): Uint8Array {
  let literals = 0;
  for (const set of byDigits.values()) literals += set.size;
  return literals <= 4
    ? codeInRanges(column, byDigits, negated, size)
    : codeInHashedSets(column, byDigits, negated, size);
}

/**
 * Few literals: the codes below `n` (d digits) at level d + k are exactly the integers in
 * [n * 10^k, (n + 1) * 10^k), and those have d + k digits; so a match is a few range tests per row
 * (k = 0, 2, 4... up to 8 digits in all).
 */
function codeInRanges(
  column: Float64Array,
  byDigits: ReadonlyMap<number, ReadonlySet<number>>,
  negated: boolean,
  size: number,
): Uint8Array {
  const lows: number[] = [];
  const highs: number[] = [];
  for (const [d, set] of byDigits) {
    for (const n of set) {
      for (let k = 0; d + k <= 8; k += 2) {
        lows.push(n * POW10[k]!);
        highs.push((n + 1) * POW10[k]!);
      }
    }
  }
  const lo = Float64Array.from(lows);
  const hi = Float64Array.from(highs);
  const m = lo.length;
  const out = new Uint8Array(size);
  for (let i = 0; i < size; i++) {
    const c = column[i]!;
    // Missing (NaN) and out-of-range codes stay 0, also when negated.
    if (!(c >= 10 && c < 1e8)) continue;
    // Branch-free: industry codes arrive in no particular order, so a branch per range mispredicts.
    let inside = 0;
    for (let r = 0; r < m; r++) inside |= Number(c >= lo[r]!) & Number(c < hi[r]!);
    const hit = inside === 1;
    // Malformed codes (fractional, odd length) match nothing, negated or not; odd lengths are never in range.
    if (hit) out[i] = !negated && Math.floor(c) === c ? 1 : 0;
    else if (negated) out[i] = Math.floor(c) === c && (codeDigits(c) & 1) === 0 ? 1 : 0;
  }
  return out;
}

/** Many literals: the prefix of each length is looked up in a hash set. */
function codeInHashedSets(
  column: Float64Array,
  byDigits: ReadonlyMap<number, ReadonlySet<number>>,
  negated: boolean,
  size: number,
): Uint8Array {
  const groups = [...byDigits].sort((p, q) => p[0] - q[0]);
  const digits = groups.map((g) => g[0]);
  const sets = groups.map((g) => g[1]);
  const m = groups.length;
  const out = new Uint8Array(size);
  for (let i = 0; i < size; i++) {
    const c = column[i]!;
    const dc = codeDigits(c);
    // Only well-formed codes (2, 4, 6 or 8 digits) match anything.
    if (dc === 0 || dc > 8 || (dc & 1) === 1) continue;
    let hit = false;
    for (let g = 0; g < m; g++) {
      const d = digits[g]!;
      if (d > dc) break;
      if (sets[g]!.has(d === dc ? c : Math.floor(c / POW10[dc - d]!))) {
        hit = true;
        break;
      }
    }
    out[i] = hit !== negated ? 1 : 0;
  }
  return out;
}

/** Missing-value test: `x is null` (or `is not null` when `negated`). */
export function isMissingNumber(x: NumberVector, negated: boolean, size: number): BoolVector {
  if (typeof x === "number") return Number.isNaN(x) !== negated;
  const out = new Uint8Array(size);
  for (let i = 0; i < size; i++) {
    const v = x[i]!;
    out[i] = Number.isNaN(v) !== negated ? 1 : 0;
  }
  return out;
}

/** Missing-value test for text. */
export function isMissingString(x: StringVector, negated: boolean, size: number): BoolVector {
  if (typeof x === "string") return negated;
  const out = new Uint8Array(size);
  for (let i = 0; i < size; i++) out[i] = (x[i] == null) !== negated ? 1 : 0;
  return out;
}

/** Expands a condition to a fresh per-row array. */
export function toMask(x: BoolVector, size: number): Uint8Array {
  if (typeof x !== "boolean") return x;
  const out = new Uint8Array(size);
  if (x) out.fill(1);
  return out;
}

/** Expands a number to a per-row array (returns arrays as they are; do not mutate the result). */
export function toColumn(x: NumberVector, size: number): Float64Array {
  if (typeof x !== "number") return x;
  return new Float64Array(size).fill(x);
}
