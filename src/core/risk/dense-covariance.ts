/**
 * @module core/risk/dense-covariance
 * The dense asset covariance of a factor model, for small universes, reports and checks.
 */

import type { FactorModel } from "./types.js";

/**
 * Sigma = X F X' + diag(D) as an n x n row-major matrix. O(n^2 k) time and n^2 memory: meant for small n
 * (reports, tests, custom models); the optimizer uses the factor form instead.
 *
 * @example
 * const sigma = riskModelCovariance(model); // sigma[i * n + j]
 */
export function riskModelCovariance(model: FactorModel): Float64Array {
  const n = model.assets.length;
  const k = model.factors.length;
  const X = model.exposures;
  const F = model.factorCovariance;
  // XF = X F (n x k), then Sigma_ij = XF_i . X_j.
  const XF = new Float64Array(n * k);
  for (let i = 0; i < n; i++) {
    for (let a = 0; a < k; a++) {
      const xa = X[i * k + a]!;
      if (xa === 0) continue;
      for (let b = 0; b < k; b++) XF[i * k + b]! += xa * F[a * k + b]!;
    }
  }
  const sigma = new Float64Array(n * n);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j <= i; j++) {
      let s = 0;
      for (let b = 0; b < k; b++) s += XF[i * k + b]! * X[j * k + b]!;
      sigma[i * n + j] = s;
      sigma[j * n + i] = s;
    }
    sigma[i * n + i]! += model.specificVariance[i]!;
  }
  return sigma;
}
