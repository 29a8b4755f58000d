/**
 * @module core/risk/checks
 * Entry checks shared by the risk-model builders (internal: not re-exported by the folder index).
 * Shapes are checked once at entry; kernels then trust them.
 */

import { NonFiniteError, ValidationError } from "../errors.js";

/** Throws RangeError unless `array.length === expected`. */
export function assertLength(fn: string, name: string, array: ArrayLike<unknown>, expected: number): void {
  if (array.length !== expected) {
    throw new RangeError(`${fn}: ${name} has length ${array.length}, expected ${expected}.`);
  }
}

/**
 * Throws NonFiniteError at the first NaN or infinite entry. `label(i)` names entry i for the message
 * (e.g. the asset and factor).
 */
export function assertFinite(
  fn: string,
  name: string,
  array: Float64Array,
  label?: (i: number) => string,
): void {
  for (let i = 0; i < array.length; i++) {
    const v = array[i]!;
    if (!Number.isFinite(v)) {
      const where = label ? label(i) : `index ${i}`;
      throw new NonFiniteError(`${fn}: ${name} at ${where} is ${v}; risk inputs must be finite numbers.`);
    }
  }
}

/**
 * Throws NonFiniteError at the first infinite entry; NaN is allowed (it means "missing" in return and
 * characteristic histories).
 */
export function assertNoInfinity(
  fn: string,
  name: string,
  array: Float64Array,
  label?: (i: number) => string,
): void {
  for (let i = 0; i < array.length; i++) {
    const v = array[i]!;
    if (v === Number.POSITIVE_INFINITY || v === Number.NEGATIVE_INFINITY) {
      const where = label ? label(i) : `index ${i}`;
      throw new NonFiniteError(`${fn}: ${name} at ${where} is ${v}; use NaN for a missing value.`);
    }
  }
}

/** Throws ValidationError listing duplicated names (assets or factors). */
export function assertUnique(fn: string, kind: string, names: readonly string[]): void {
  const seen = new Set<string>();
  const dups = new Set<string>();
  for (const name of names) {
    if (seen.has(name)) dups.add(name);
    seen.add(name);
  }
  if (dups.size > 0) {
    const list = [...dups];
    throw new ValidationError(
      `${fn}: duplicate ${kind} ${list.slice(0, 10).join(", ")}${list.length > 10 ? ", ..." : ""}.`,
      list.map((d) => ({ path: kind, message: `duplicate ${kind} "${d}"` })),
    );
  }
}

/**
 * Largest |a_ij - a_ji| of an n x n matrix relative to max |a_ij|; throws ValidationError above `tolerance`.
 * Returns the symmetrized copy (A + A') / 2.
 */
export function symmetrized(
  fn: string,
  name: string,
  matrix: Float64Array,
  n: number,
  tolerance: number,
  label: (i: number, j: number) => string,
): Float64Array {
  let maxAbs = 0;
  for (let i = 0; i < n * n; i++) maxAbs = Math.max(maxAbs, Math.abs(matrix[i]!));
  const out = new Float64Array(n * n);
  for (let i = 0; i < n; i++) {
    out[i * n + i] = matrix[i * n + i]!;
    for (let j = 0; j < i; j++) {
      const x = matrix[i * n + j]!;
      const y = matrix[j * n + i]!;
      if (Math.abs(x - y) > tolerance * maxAbs) {
        throw new ValidationError(
          `${fn}: ${name} is not symmetric: entry ${label(i, j)} is ${x} but ${label(j, i)} is ${y}.`,
          [{ path: name, message: `asymmetric at ${label(i, j)}` }],
        );
      }
      const m = 0.5 * (x + y);
      out[i * n + j] = m;
      out[j * n + i] = m;
    }
  }
  return out;
}

/** A short list for messages: the first `max` items, then "and N more". */
export function listForMessage(items: readonly string[], max = 10): string {
  return items.length <= max
    ? items.join(", ")
    : `${items.slice(0, max).join(", ")} and ${items.length - max} more`;
}
