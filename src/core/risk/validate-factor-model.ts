/**
 * @module core/risk/validate-factor-model
 * Structural check of a {@link FactorModel} built elsewhere (or by hand) before it is used.
 */

import { ValidationError } from "../errors.js";
import { assertFinite, assertLength, assertUnique, listForMessage } from "./checks.js";
import type { FactorModel } from "./types.js";

/**
 * Checks that a factor model is well formed: array lengths match n assets and k factors, names are unique,
 * every number is finite, specific variances are >= 0 and F is symmetric (to 1e-10 relative). It does not
 * check that F is PSD (that needs an eigendecomposition; `toQuadraticForm` does it).
 *
 * @param fn name of the calling function, for messages.
 * @throws {RangeError} on a length mismatch or a non-positive `annualization`.
 * @throws {NonFiniteError} on NaN/Infinity.
 * @throws {ValidationError} on duplicate names, negative specific variance or an asymmetric F.
 */
export function validateFactorModel(model: FactorModel, fn = "validateFactorModel"): void {
  const n = model.assets.length;
  const k = model.factors.length;
  assertLength(fn, "exposures", model.exposures, n * k);
  assertLength(fn, "factorCovariance", model.factorCovariance, k * k);
  assertLength(fn, "specificVariance", model.specificVariance, n);
  if (!Number.isFinite(model.annualization) || model.annualization <= 0) {
    throw new RangeError(`${fn}: annualization must be a positive number, got ${model.annualization}.`);
  }
  assertUnique(fn, "asset", model.assets);
  assertUnique(fn, "factor", model.factors);
  assertFinite(
    fn,
    "exposures",
    model.exposures,
    (i) => `${model.assets[Math.floor(i / k)]} / ${model.factors[i % k]}`,
  );
  assertFinite(
    fn,
    "factorCovariance",
    model.factorCovariance,
    (i) => `${model.factors[Math.floor(i / k)]} / ${model.factors[i % k]}`,
  );
  assertFinite(fn, "specificVariance", model.specificVariance, (i) => `${model.assets[i]}`);
  const negative: string[] = [];
  for (let i = 0; i < n; i++) if (model.specificVariance[i]! < 0) negative.push(model.assets[i]!);
  if (negative.length > 0) {
    throw new ValidationError(
      `${fn}: specific variance is negative for ${listForMessage(negative)}.`,
      negative.map((a) => ({ path: `specificVariance.${a}`, message: "must be >= 0" })),
    );
  }
  const F = model.factorCovariance;
  let maxAbs = 0;
  for (let i = 0; i < k * k; i++) maxAbs = Math.max(maxAbs, Math.abs(F[i]!));
  for (let a = 0; a < k; a++) {
    for (let b = 0; b < a; b++) {
      if (Math.abs(F[a * k + b]! - F[b * k + a]!) > 1e-10 * maxAbs) {
        throw new ValidationError(
          `${fn}: factor covariance is not symmetric at (${model.factors[a]}, ${model.factors[b]}).`,
          [{ path: "factorCovariance", message: `asymmetric at ${model.factors[a]} / ${model.factors[b]}` }],
        );
      }
    }
  }
}
