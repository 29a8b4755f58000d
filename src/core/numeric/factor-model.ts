/**
 * @module core/numeric/factor-model
 * Diagonal-plus-low-rank symmetric matrices P = diag(d) + V diag(s) V', the form of every factor risk
 * model (Grinold & Kahn, "Active Portfolio Management", 2nd ed., ch. 3) and of the QP solver's Hessian.
 * The n x n matrix is never formed: a product costs O(n k).
 */
import type { DenseMatrix } from "./dense-matrix.js";

/**
 * P = diag(diagonal) + factors diag(factorScales) factors'. `factors` is n x k row-major (k may be 0 or
 * the field absent); `factorScales` defaults to ones. P is positive semidefinite when `diagonal >= 0` and
 * `factorScales >= 0`, which the QP solver requires.
 */
export interface FactorForm {
  readonly diagonal: Float64Array;
  readonly factors?: DenseMatrix;
  readonly factorScales?: Float64Array;
}

/**
 * Product `out = P x = d .* x + V (s .* (V' x))` in O(n k).
 *
 * @throws {RangeError} when the shapes of `model`, `x` or `out` disagree.
 * @example
 * // P = diag(1, 2) + [1; 1] [1; 1]' = [[2, 1], [1, 3]]
 * const p = { diagonal: Float64Array.of(1, 2), factors: denseMatrix(2, 1, Float64Array.of(1, 1)) };
 * factorModelMultiply(p, Float64Array.of(1, 0)); // [2, 1]
 */
export function factorModelMultiply(model: FactorForm, x: Float64Array, out?: Float64Array): Float64Array {
  const n = model.diagonal.length;
  if (x.length !== n) throw new RangeError(`factorModelMultiply: x has length ${x.length}, expected ${n}.`);
  const y = out ?? new Float64Array(n);
  if (y.length !== n) throw new RangeError(`factorModelMultiply: out has length ${y.length}, expected ${n}.`);
  const d = model.diagonal;
  for (let i = 0; i < n; i++) y[i] = d[i]! * x[i]!;
  const f = model.factors;
  if (f === undefined || f.cols === 0) return y;
  if (f.rows !== n) throw new RangeError(`factorModelMultiply: factors have ${f.rows} rows, expected ${n}.`);
  const k = f.cols;
  const s = model.factorScales;
  if (s !== undefined && s.length !== k)
    throw new RangeError(`factorModelMultiply: factorScales has length ${s.length}, expected ${k}.`);
  const t = new Float64Array(k);
  const v = f.data;
  for (let i = 0; i < n; i++) {
    const xi = x[i]!;
    if (xi === 0) continue;
    const o = i * k;
    for (let j = 0; j < k; j++) t[j]! += v[o + j]! * xi;
  }
  if (s !== undefined) for (let j = 0; j < k; j++) t[j]! *= s[j]!;
  for (let i = 0; i < n; i++) {
    const o = i * k;
    let acc = 0;
    for (let j = 0; j < k; j++) acc += v[o + j]! * t[j]!;
    y[i]! += acc;
  }
  return y;
}

/**
 * Quadratic form x' P x = sum d_i x_i^2 + sum_j s_j (V' x)_j^2 in O(n k), without forming P x.
 *
 * @throws {RangeError} when the shapes disagree.
 * @example
 * factorModelQuadraticForm(p, Float64Array.of(1, 0)); // 2 for P = [[2, 1], [1, 3]]
 */
export function factorModelQuadraticForm(model: FactorForm, x: Float64Array): number {
  const n = model.diagonal.length;
  if (x.length !== n)
    throw new RangeError(`factorModelQuadraticForm: x has length ${x.length}, expected ${n}.`);
  let q = 0;
  const d = model.diagonal;
  for (let i = 0; i < n; i++) q += d[i]! * x[i]! * x[i]!;
  const f = model.factors;
  if (f === undefined || f.cols === 0) return q;
  if (f.rows !== n)
    throw new RangeError(`factorModelQuadraticForm: factors have ${f.rows} rows, expected ${n}.`);
  const k = f.cols;
  const t = new Float64Array(k);
  const v = f.data;
  for (let i = 0; i < n; i++) {
    const xi = x[i]!;
    if (xi === 0) continue;
    const o = i * k;
    for (let j = 0; j < k; j++) t[j]! += v[o + j]! * xi;
  }
  const s = model.factorScales;
  for (let j = 0; j < k; j++) q += (s === undefined ? 1 : s[j]!) * t[j]! * t[j]!;
  return q;
}
