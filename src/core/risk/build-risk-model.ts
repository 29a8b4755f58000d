/**
 * @module core/risk/build-risk-model
 * The single entry point the optimizer uses: a portfolio configuration's `risk_model_name` plus the data
 * available -> a {@link FactorModel} over the optimization's universe.
 */

import { DataError, ValidationError } from "../errors.js";
import {
  buildCharacteristicsRiskModel,
  type CharacteristicsModelInputs,
  type CharacteristicsRiskModelOptions,
} from "./characteristics-model.js";
import {
  buildCustomRiskModel,
  type CustomCovarianceInput,
  type CustomFactorInput,
  type CustomRiskModelOptions,
} from "./custom-model.js";
import { buildPcaRiskModel, type PcaRiskModelOptions, type ReturnHistory } from "./pca-model.js";
import { selectRiskModelAssets } from "./select-assets.js";
import { applySpectralShift } from "./spectral-shift.js";
import { type FactorModel, RISK_MODEL_NAMES, type RiskModelName } from "./types.js";
import {
  buildVendorRiskModel,
  type VendorRiskModelData,
  type VendorRiskModelOptions,
} from "./vendor-model.js";

/** The data a risk model may be built from; each model reads only its own part. */
export interface RiskModelInputs {
  /** `custom`: a dense covariance or a factor model supplied by the user. */
  custom?: CustomCovarianceInput | CustomFactorInput;
  /** `pca` and `characteristics`: trailing returns (T x n, NaN = missing). */
  returns?: ReturnHistory;
  /** `characteristics`: today's characteristics, sectors and caps (assets and returns come from `returns`). */
  characteristics?: Omit<CharacteristicsModelInputs, "assets" | "returns">;
  /** `vendor`: the vendor's exposures, factor covariance and specific risk as records. */
  vendor?: VendorRiskModelData;
}

/** Options of {@link buildRiskModel}. */
export interface BuildRiskModelOptions {
  /** The optimization's universe: the model is restricted and reordered to it (every asset must be covered). */
  assets?: string[];
  /**
   * The configuration's `spectral_shift`: added to every specific variance (Sigma + shift I), annualized
   * variance units; see `applySpectralShift`.
   * @default 0
   */
  spectralShift?: number;
  /** Options of the custom model. */
  custom?: CustomRiskModelOptions;
  /** Options of the pca model. */
  pca?: PcaRiskModelOptions;
  /** Options of the characteristics model. */
  characteristics?: CharacteristicsRiskModelOptions;
  /** Options of the vendor model; `frequency` of the vendor's numbers is required. */
  vendor?: VendorRiskModelOptions;
}

function missing(name: RiskModelName, what: string, fix: string): never {
  throw new DataError(`risk_model_name "${name}" needs ${what}, which was not provided. ${fix}`, {
    code: "risk_model_inputs_missing",
  });
}

/**
 * Builds the risk model named by a configuration's `risk_model_name`, then applies `spectral_shift` and
 * restricts it to the universe.
 *
 * - `custom`: `inputs.custom` (dense covariance or factor model) -> {@link buildCustomRiskModel}
 * - `pca`: `inputs.returns` -> {@link buildPcaRiskModel}
 * - `characteristics`: `inputs.returns` and `inputs.characteristics` -> {@link buildCharacteristicsRiskModel}
 * - `vendor`: `inputs.vendor` and `options.vendor.frequency` -> {@link buildVendorRiskModel}
 *
 * @throws {ValidationError} (code `unknown_risk_model`) for a name outside custom | pca | characteristics | vendor.
 * @throws {DataError} (code `risk_model_inputs_missing`) naming the missing input; (code `risk_model_coverage`)
 *   when the model does not cover `options.assets`.
 * @throws whatever the chosen builder throws (RangeError, NonFiniteError, ValidationError, DataError).
 * @example
 * const model = buildRiskModel(config.risk_model_name, { returns }, { assets: universe, spectralShift: 1e-6 });
 */
export function buildRiskModel(
  name: RiskModelName | string,
  inputs: RiskModelInputs,
  options: BuildRiskModelOptions = {},
): FactorModel {
  let model: FactorModel;
  switch (name) {
    case "custom":
      if (!inputs.custom) {
        missing(
          name,
          "a user-supplied covariance or factor model (inputs.custom)",
          "Upload the custom risk model, or choose pca/characteristics/vendor.",
        );
      }
      model = buildCustomRiskModel(inputs.custom, options.custom);
      break;
    case "pca":
      if (!inputs.returns) {
        missing(
          name,
          "trailing returns (inputs.returns)",
          "Import price history for the universe (lotwise market import).",
        );
      }
      model = buildPcaRiskModel(inputs.returns, options.pca);
      break;
    case "characteristics":
      if (!inputs.returns) {
        missing(
          name,
          "trailing returns (inputs.returns)",
          "Import price history for the universe (lotwise market import).",
        );
      }
      if (!inputs.characteristics) {
        missing(
          name,
          "characteristics, sectors and market caps (inputs.characteristics)",
          "Import security characteristics (market_cap, book_to_price, ...).",
        );
      }
      model = buildCharacteristicsRiskModel(
        { assets: inputs.returns.assets, returns: inputs.returns.returns, ...inputs.characteristics },
        options.characteristics,
      );
      break;
    case "vendor":
      if (!inputs.vendor) {
        missing(
          name,
          "the vendor's exposures, factor covariance and specific risk (inputs.vendor)",
          "Import the vendor model files.",
        );
      }
      if (!options.vendor) {
        missing(
          name,
          "the frequency of the vendor's numbers (options.vendor.frequency)",
          'Pass e.g. { vendor: { frequency: "annual" } }.',
        );
      }
      model = buildVendorRiskModel(inputs.vendor, options.vendor);
      break;
    default:
      throw new ValidationError(
        `Unknown risk_model_name "${name}"; expected one of ${RISK_MODEL_NAMES.join(", ")}.`,
        [{ path: "risk_model_name", message: `must be one of ${RISK_MODEL_NAMES.join(", ")}` }],
        "unknown_risk_model",
      );
  }
  if (options.spectralShift !== undefined && options.spectralShift !== 0) {
    model = applySpectralShift(model, options.spectralShift);
  }
  if (options.assets !== undefined) model = selectRiskModelAssets(model, options.assets);
  return model;
}
