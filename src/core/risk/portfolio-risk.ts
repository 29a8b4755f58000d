/**
 * @module core/risk/portfolio-risk
 * Risk of weight vectors under a factor model, without forming the n x n covariance:
 * Sigma x = X (F (X' x)) + D o x costs O(nk + k^2) instead of O(n^2).
 */

import { NonFiniteError } from "../errors.js";
import type { FactorModel } from "./types.js";

function checkVector(fn: string, model: FactorModel, name: string, x: Float64Array): void {
  const n = model.assets.length;
  if (x.length !== n) {
    throw new RangeError(`${fn}: ${name} has length ${x.length}, the model has ${n} assets.`);
  }
  for (let i = 0; i < n; i++) {
    if (!Number.isFinite(x[i]!)) {
      throw new NonFiniteError(
        `${fn}: ${name}[${i}] (${model.assets[i]}) is ${x[i]}; weights must be finite.`,
      );
    }
  }
}

/** y = X' x (k factor exposures of x), with compensated sums. Shapes already checked. */
function exposuresOf(model: FactorModel, x: Float64Array, out: Float64Array): Float64Array {
  const n = model.assets.length;
  const k = model.factors.length;
  const comp = new Float64Array(k);
  out.fill(0, 0, k);
  const X = model.exposures;
  for (let i = 0; i < n; i++) {
    const xi = x[i]!;
    if (xi === 0) continue;
    const row = i * k;
    for (let j = 0; j < k; j++) {
      // Neumaier summation: long sums over thousands of assets.
      const term = X[row + j]! * xi;
      const s = out[j]!;
      const t = s + term;
      comp[j]! += Math.abs(s) >= Math.abs(term) ? s - t + term : term - t + s;
      out[j] = t;
    }
  }
  for (let j = 0; j < k; j++) out[j]! += comp[j]!;
  return out;
}

/**
 * Factor exposures of a portfolio, X' w (length k, in the order of `model.factors`).
 *
 * @param weights length n, aligned with `model.assets`.
 * @param out optional length-k output buffer.
 * @throws {RangeError} on a length mismatch. @throws {NonFiniteError} on NaN/Infinity weights.
 * @example
 * const beta = factorExposures(model, w)[model.factors.indexOf("market")];
 */
export function factorExposures(model: FactorModel, weights: Float64Array, out?: Float64Array): Float64Array {
  checkVector("factorExposures", model, "weights", weights);
  const k = model.factors.length;
  const y = out ?? new Float64Array(k);
  if (y.length < k) throw new RangeError(`factorExposures: out has length ${y.length}, need ${k}.`);
  return exposuresOf(model, weights, y);
}

/**
 * Covariance times a vector, Sigma x = X (F (X' x)) + D o x, without forming Sigma.
 *
 * @param x length n, aligned with `model.assets`.
 * @param out optional length-n output buffer (may not alias `x`).
 * @throws {RangeError} on a length mismatch or `out === x`. @throws {NonFiniteError} on NaN/Infinity in x.
 */
export function riskModelTimesVector(model: FactorModel, x: Float64Array, out?: Float64Array): Float64Array {
  checkVector("riskModelTimesVector", model, "x", x);
  const n = model.assets.length;
  const k = model.factors.length;
  const y = out ?? new Float64Array(n);
  if (y.length !== n) throw new RangeError(`riskModelTimesVector: out has length ${y.length}, need ${n}.`);
  if (y === x) throw new RangeError("riskModelTimesVector: out must not alias x.");
  const g = exposuresOf(model, x, new Float64Array(k));
  const F = model.factorCovariance;
  const h = new Float64Array(k);
  for (let a = 0; a < k; a++) {
    let s = 0;
    for (let b = 0; b < k; b++) s += F[a * k + b]! * g[b]!;
    h[a] = s;
  }
  const X = model.exposures;
  const D = model.specificVariance;
  for (let i = 0; i < n; i++) {
    let s = D[i]! * x[i]!;
    const row = i * k;
    for (let j = 0; j < k; j++) s += X[row + j]! * h[j]!;
    y[i] = s;
  }
  return y;
}

/** w' Sigma w = g' F g + sum_i D_i w_i^2 with g = X' w; inputs already checked. */
function quadratic(model: FactorModel, w: Float64Array): number {
  const n = model.assets.length;
  const k = model.factors.length;
  const g = exposuresOf(model, w, new Float64Array(k));
  const F = model.factorCovariance;
  let factorPart = 0;
  for (let a = 0; a < k; a++) {
    let s = 0;
    for (let b = 0; b < k; b++) s += F[a * k + b]! * g[b]!;
    factorPart += g[a]! * s;
  }
  // Compensated sum of the specific part.
  let sum = 0;
  let comp = 0;
  const D = model.specificVariance;
  for (let i = 0; i < n; i++) {
    const term = D[i]! * w[i]! * w[i]!;
    const t = sum + term;
    comp += Math.abs(sum) >= Math.abs(term) ? sum - t + term : term - t + sum;
    sum = t;
  }
  // F is PSD, so a negative total can only be rounding.
  return Math.max(0, factorPart + sum + comp);
}

/**
 * Portfolio variance w' Sigma w under the model (annualized, since the model is).
 *
 * @throws {RangeError} on a length mismatch. @throws {NonFiniteError} on NaN/Infinity weights.
 * @example
 * Math.sqrt(portfolioVariance(model, w)); // annualized volatility
 */
export function portfolioVariance(model: FactorModel, weights: Float64Array): number {
  checkVector("portfolioVariance", model, "weights", weights);
  return quadratic(model, weights);
}

/**
 * Active risk (tracking error, annualized): sqrt((w - b)' Sigma (w - b)).
 *
 * @param weights portfolio weights, length n. @param benchmark benchmark weights, length n.
 * @throws {RangeError} on a length mismatch. @throws {NonFiniteError} on NaN/Infinity weights.
 */
export function activeRisk(model: FactorModel, weights: Float64Array, benchmark: Float64Array): number {
  checkVector("activeRisk", model, "weights", weights);
  checkVector("activeRisk", model, "benchmark", benchmark);
  const n = model.assets.length;
  const active = new Float64Array(n);
  for (let i = 0; i < n; i++) active[i] = weights[i]! - benchmark[i]!;
  return Math.sqrt(quadratic(model, active));
}
