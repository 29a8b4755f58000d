/**
 * @module core/risk/select-assets
 * Restricts and reorders a factor model to the assets an optimization needs.
 */

import { DataError } from "../errors.js";
import { assertUnique, listForMessage } from "./checks.js";
import type { FactorModel } from "./types.js";

/**
 * The model restricted to `assets`, in that order (rows of X and D are gathered; F is shared, unchanged).
 * Selecting a subset of a factor model is exact: the covariance of the selected assets is the corresponding
 * block of the full Sigma.
 *
 * @throws {DataError} (code `risk_model_coverage`) naming the requested assets the model does not cover.
 * @throws {ValidationError} when `assets` has duplicates.
 * @example
 * const m = selectRiskModelAssets(model, ["MSFT:XNAS", "AAPL:XNAS"]);
 */
export function selectRiskModelAssets(model: FactorModel, assets: readonly string[]): FactorModel {
  assertUnique("selectRiskModelAssets", "asset", assets);
  const index = new Map(model.assets.map((a, i) => [a, i]));
  const missing = assets.filter((a) => !index.has(a));
  if (missing.length > 0) {
    throw new DataError(
      `The ${model.diagnostics.model} risk model does not cover ${missing.length} requested asset(s): ${listForMessage(missing)}. ` +
        "Add their data (returns, characteristics or vendor rows) or remove them from the universe.",
      { code: "risk_model_coverage" },
    );
  }
  const k = model.factors.length;
  const m = assets.length;
  const exposures = new Float64Array(m * k);
  const specificVariance = new Float64Array(m);
  for (let r = 0; r < m; r++) {
    const i = index.get(assets[r]!)!;
    exposures.set(model.exposures.subarray(i * k, i * k + k), r * k);
    specificVariance[r] = model.specificVariance[i]!;
  }
  return { ...model, assets: [...assets], exposures, specificVariance };
}
