/**
 * @module core/risk/quadratic-form
 * Turns a factor model into the QP solver's risk term P = diag(d) + V diag(s) V'.
 */

import { symmetricEigen } from "../numeric/eigen.js";
import type { FactorForm } from "../numeric/factor-model.js";
import type { FactorModel } from "./types.js";
import { validateFactorModel } from "./validate-factor-model.js";

/** Options of {@link toQuadraticForm}. */
export interface QuadraticFormOptions {
  /**
   * Multiplier c of the covariance: P = c Sigma. For an objective lambda w'Sigma w written as (1/2) w'Pw, pass
   * c = 2 lambda.
   * @default 1
   */
  scale?: number;
  /**
   * Factor-covariance eigenvalues at or below `dropTolerance * lambda_max` contribute nothing and their
   * columns are dropped; eigenvalues below `-dropTolerance * lambda_max` are an error (F is not PSD).
   * @default 1e-12
   */
  dropTolerance?: number;
}

/**
 * The model as P = c (diag(D) + V V') in the solver's form diag(d) + V diag(s) V', with
 * V = X L, F = L L' from the eigendecomposition F = Q diag(lambda) Q', L = Q diag(sqrt(lambda)) (PSD-safe:
 * unlike Cholesky it accepts a singular F), d = c D and s = (c, ..., c). V does not depend on c, so a
 * caller that changes the risk aversion only rescales d and s.
 *
 * Cost: O(k^3) for the eigendecomposition of F plus O(n k^2) for V.
 *
 * @throws {RangeError} when `scale` is not finite and >= 0, or F has a clearly negative eigenvalue (build the
 *   model with a builder or repair F with `repairPsd` first).
 * @throws {NonFiniteError} when the model holds NaN/Infinity.
 * @example
 * // objective lambda * w'Sigma w = (1/2) w'Pw
 * const P = toQuadraticForm(model, { scale: 2 * riskAversion });
 */
export function toQuadraticForm(model: FactorModel, options: QuadraticFormOptions = {}): FactorForm {
  validateFactorModel(model, "toQuadraticForm");
  const scale = options.scale ?? 1;
  const tol = options.dropTolerance ?? 1e-12;
  if (!Number.isFinite(scale) || scale < 0) {
    throw new RangeError(`toQuadraticForm: scale must be finite and >= 0, got ${scale}.`);
  }
  if (!Number.isFinite(tol) || tol < 0) {
    throw new RangeError(`toQuadraticForm: dropTolerance must be finite and >= 0, got ${tol}.`);
  }
  const n = model.assets.length;
  const k = model.factors.length;
  const eig = symmetricEigen({ rows: k, cols: k, data: model.factorCovariance }, { order: "descending" });
  const lambdaMax = k > 0 ? Math.max(eig.values[0]!, 0) : 0;
  const kept: number[] = [];
  for (let j = 0; j < k; j++) {
    const v = eig.values[j]!;
    if (v < -tol * lambdaMax - Number.MIN_VALUE) {
      throw new RangeError(
        `toQuadraticForm: the factor covariance has eigenvalue ${v} < 0; repair it with repairPsd (or build the model with buildRiskModel, which does).`,
      );
    }
    if (v > tol * lambdaMax) kept.push(j);
  }
  const m = kept.length;
  // L = Q_kept diag(sqrt(lambda_kept)), k x m.
  const L = new Float64Array(k * m);
  const Q = eig.vectors!;
  for (let c = 0; c < m; c++) {
    const j = kept[c]!;
    const root = Math.sqrt(eig.values[j]!);
    for (let a = 0; a < k; a++) L[a * m + c] = Q[a * k + j]! * root;
  }
  const V = new Float64Array(n * m);
  const X = model.exposures;
  for (let i = 0; i < n; i++) {
    const xRow = i * k;
    const vRow = i * m;
    for (let a = 0; a < k; a++) {
      const xa = X[xRow + a]!;
      if (xa === 0) continue;
      const lRow = a * m;
      for (let c = 0; c < m; c++) V[vRow + c]! += xa * L[lRow + c]!;
    }
  }
  const diagonal = new Float64Array(n);
  for (let i = 0; i < n; i++) diagonal[i] = scale * model.specificVariance[i]!;
  return { diagonal, factors: { rows: n, cols: m, data: V }, factorScales: new Float64Array(m).fill(scale) };
}
