/**
 * @module core/risk/custom-model
 * `risk_model_name: custom`: a risk model the user supplies, either as a dense covariance (small n) or as a
 * factor model. Both are validated, made PSD (reported) and returned in the factor form.
 */

import { ValidationError } from "../errors.js";
import { symmetricEigen } from "../numeric/eigen.js";
import { periodsPerYear, type ReturnFrequency } from "./annualization.js";
import { assertFinite, assertLength, assertUnique, listForMessage, symmetrized } from "./checks.js";
import {
  checkFloors,
  clipSpectrum,
  DEFAULT_PSD_RELATIVE_FLOOR,
  repairFactorCovariance,
} from "./psd-repair.js";
import type { FactorModel } from "./types.js";
import { assembleFactorRecords, type VendorRiskModelData } from "./vendor-model.js";

/** A user-supplied dense covariance over `assets` (n x n row-major). */
export interface CustomCovarianceInput {
  assets: string[];
  covariance: Float64Array;
}

/** A user-supplied factor model: Sigma = X F X' + diag(D) (see {@link FactorModel} for the layouts). */
export interface CustomFactorInput {
  assets: string[];
  factors: string[];
  exposures: Float64Array;
  factorCovariance: Float64Array;
  specificVariance: Float64Array;
}

/** Specific variance of one asset (a record of {@link CustomFactorRecordsInput}). */
export interface CustomSpecificVarianceRow {
  asset: string;
  specificVariance: number;
}

/**
 * A user-supplied factor model as records keyed by asset and factor name, in the layouts of a vendor model
 * (`VendorRiskModelData`): rows or nested records; specific variances (not volatilities) by asset. Missing
 * exposures are 0.
 */
export interface CustomFactorRecordsInput {
  /** Factor order; by default the order of first appearance in `factorCovariance`. */
  factors?: string[];
  /**
   * The model's assets, in this order; each needs a specific variance. By default every asset with a specific
   * variance, in order of appearance; exposure rows of other assets are then ignored (noted).
   */
  assets?: string[];
  exposures: VendorRiskModelData["exposures"];
  factorCovariance: VendorRiskModelData["factorCovariance"];
  specificVariance: readonly CustomSpecificVarianceRow[] | Readonly<Record<string, number>>;
}

/** Options of {@link buildCustomRiskModel}. */
export interface CustomRiskModelOptions {
  /**
   * Frequency the supplied variances are expressed in; they are multiplied by its periods per year.
   * @default "annual" (taken as already annualized)
   */
  frequency?: ReturnFrequency | number;
  /**
   * Dense input only: keep the fewest leading eigen-components whose eigenvalues sum to at least this share of
   * the trace; the rest goes to the diagonal. 1 keeps every component (the model reproduces the matrix exactly).
   * @default 1
   */
  explainedVariance?: number;
  /**
   * Dense input only: at most this many components.
   * @default n
   */
  maxFactors?: number;
  /**
   * Largest accepted asymmetry |a_ij - a_ji| relative to max |a_ij| (files often round to a few digits).
   * @default 1e-8
   */
  symmetryTolerance?: number;
  /**
   * Eigenvalue floor of the PSD repair, relative to the largest eigenvalue (see `repairPsd`).
   * @default 1e-10
   */
  relativeFloor?: number;
  /**
   * Absolute eigenvalue floor of the PSD repair.
   * @default 0
   */
  absoluteFloor?: number;
}

/**
 * Builds the `custom` risk model.
 *
 * Dense covariance Sigma (n x n): Sigma = Q diag(lambda) Q' (eigenvalues clipped to the PSD floor and
 * reported); the K leading components become the factors, X = Q_K (orthonormal columns, named pc1..pcK),
 * F = diag(lambda_1..lambda_K), and D_i = sum_{j > K} Q_ij^2 lambda_j keeps the exact diagonal. With K = n
 * (the default) X F X' + diag(D) equals the repaired Sigma.
 *
 * Factor model: dimensions, names, finiteness, symmetry of F and D >= 0 are checked; F is repaired by
 * eigenvalue clipping when it is not PSD (reported in `diagnostics.psdRepair` and the notes). Given as records
 * ({@link CustomFactorRecordsInput}), it is first checked record by record as a vendor model is (unknown factors,
 * missing covariance entries, missing or negative specific variances, conflicting duplicates).
 *
 * @throws {RangeError} on array lengths that do not match the names, or bad options.
 * @throws {NonFiniteError} on NaN/Infinity anywhere in the input.
 * @throws {ValidationError} on duplicate names, an asymmetric matrix or a negative specific variance.
 * @example
 * const model = buildCustomRiskModel({ assets: ["A:XNYS", "B:XNYS"], covariance: Float64Array.of(0.04, 0.01, 0.01, 0.09) });
 */
export function buildCustomRiskModel(
  input: CustomCovarianceInput | CustomFactorInput | CustomFactorRecordsInput,
  options: CustomRiskModelOptions = {},
): FactorModel {
  const relativeFloor = options.relativeFloor ?? DEFAULT_PSD_RELATIVE_FLOOR;
  const absoluteFloor = options.absoluteFloor ?? 0;
  checkFloors("buildCustomRiskModel", relativeFloor, absoluteFloor);
  const annualization = periodsPerYear(options.frequency ?? "annual");
  const symmetryTolerance = options.symmetryTolerance ?? 1e-8;
  if ("covariance" in input)
    return fromCovariance(input, options, annualization, symmetryTolerance, relativeFloor, absoluteFloor);
  if (input.exposures instanceof Float64Array)
    return fromFactors(
      input as CustomFactorInput,
      annualization,
      symmetryTolerance,
      relativeFloor,
      absoluteFloor,
    );
  // Records: ordered and checked as a vendor model's (variances, fraction units), then built as a factor model.
  const records = input as CustomFactorRecordsInput;
  const specific = records.specificVariance;
  const assembled = assembleFactorRecords(
    "buildCustomRiskModel",
    {
      ...(records.factors === undefined ? {} : { factors: records.factors }),
      exposures: records.exposures,
      factorCovariance: records.factorCovariance,
      specificRisk: Array.isArray(specific)
        ? (specific as readonly CustomSpecificVarianceRow[]).map((r) => ({
            asset: r.asset,
            specificRisk: r.specificVariance,
          }))
        : (specific as Readonly<Record<string, number>>),
    },
    {
      varianceScale: 1,
      specificRiskKind: "variance",
      symmetryTolerance,
      specificField: "specificVariance",
      assets: records.assets,
    },
  );
  const model = fromFactors(assembled, annualization, symmetryTolerance, relativeFloor, absoluteFloor);
  model.diagnostics.notes.unshift(...assembled.notes);
  return model;
}

function fromCovariance(
  input: CustomCovarianceInput,
  options: CustomRiskModelOptions,
  annualization: number,
  symmetryTolerance: number,
  relativeFloor: number,
  absoluteFloor: number,
): FactorModel {
  const fn = "buildCustomRiskModel";
  const { assets, covariance } = input;
  const n = assets.length;
  assertUnique(fn, "asset", assets);
  assertLength(fn, "covariance", covariance, n * n);
  assertFinite(fn, "covariance", covariance, (i) => `(${assets[Math.floor(i / n)]}, ${assets[i % n]})`);
  const target = options.explainedVariance ?? 1;
  if (!(target > 0 && target <= 1)) {
    throw new RangeError(`${fn}: explainedVariance must lie in (0, 1], got ${target}.`);
  }
  const maxFactors = options.maxFactors ?? n;
  if (!Number.isInteger(maxFactors) || maxFactors < 0 || maxFactors > n) {
    throw new RangeError(`${fn}: maxFactors must be an integer in [0, ${n}], got ${maxFactors}.`);
  }
  const sym = symmetrized(
    fn,
    "covariance",
    covariance,
    n,
    symmetryTolerance,
    (i, j) => `(${assets[i]}, ${assets[j]})`,
  );
  const eig = symmetricEigen({ rows: n, cols: n, data: sym }, { order: "descending" });
  const { values: lambda, report } = clipSpectrum(eig.values, {
    relativeFloor,
    absoluteFloor,
    matrix: "covariance",
  });
  const Q = eig.vectors!;
  let total = 0;
  for (let j = 0; j < n; j++) total += lambda[j]!;
  let K = n;
  if (target < 1) {
    let cumulative = 0;
    K = 0;
    while (K < n && cumulative < target * total) cumulative += lambda[K++]!;
  }
  K = Math.min(K, maxFactors);
  const exposures = new Float64Array(n * K);
  const factorCovariance = new Float64Array(K * K);
  const specificVariance = new Float64Array(n);
  let explained = 0;
  for (let j = 0; j < K; j++) {
    factorCovariance[j * K + j] = lambda[j]! * annualization;
    explained += lambda[j]!;
  }
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < K; j++) exposures[i * K + j] = Q[i * n + j]!;
    // The dropped components' contribution to the diagonal: a sum of nonnegative terms (no cancellation).
    let rest = 0;
    for (let j = K; j < n; j++) rest += Q[i * n + j]! ** 2 * lambda[j]!;
    specificVariance[i] = rest * annualization;
  }
  const notes: string[] = [];
  if (report.clippedCount > 0) {
    notes.push(
      `Covariance was not positive definite (min eigenvalue ${report.minEigenvalueBefore}); ${report.clippedCount} eigenvalue(s) clipped to ${report.floor}.`,
    );
  }
  if (K < n) notes.push(`Kept ${K} of ${n} components; the rest of each variance is specific.`);
  return {
    assets: [...assets],
    factors: Array.from({ length: K }, (_, j) => `pc${j + 1}`),
    exposures,
    factorCovariance,
    specificVariance,
    annualization,
    diagnostics: {
      model: "custom",
      periods: 0,
      psdRepair: report,
      spectralShift: 0,
      notes,
      explainedVariance: total > 0 ? explained / total : 1,
    },
  };
}

function fromFactors(
  input: CustomFactorInput,
  annualization: number,
  symmetryTolerance: number,
  relativeFloor: number,
  absoluteFloor: number,
): FactorModel {
  const fn = "buildCustomRiskModel";
  const { assets, factors } = input;
  const n = assets.length;
  const k = factors.length;
  assertUnique(fn, "asset", assets);
  assertUnique(fn, "factor", factors);
  assertLength(fn, "exposures", input.exposures, n * k);
  assertLength(fn, "factorCovariance", input.factorCovariance, k * k);
  assertLength(fn, "specificVariance", input.specificVariance, n);
  assertFinite(fn, "exposures", input.exposures, (i) => `${assets[Math.floor(i / k)]} / ${factors[i % k]}`);
  assertFinite(
    fn,
    "factorCovariance",
    input.factorCovariance,
    (i) => `${factors[Math.floor(i / k)]} / ${factors[i % k]}`,
  );
  assertFinite(fn, "specificVariance", input.specificVariance, (i) => `${assets[i]}`);
  const negative = assets.filter((_, i) => input.specificVariance[i]! < 0);
  if (negative.length > 0) {
    throw new ValidationError(
      `${fn}: specific variance is negative for ${listForMessage(negative)}.`,
      negative.map((a) => ({ path: `specificVariance.${a}`, message: "must be >= 0" })),
    );
  }
  const sym = symmetrized(
    fn,
    "factorCovariance",
    input.factorCovariance,
    k,
    symmetryTolerance,
    (a, b) => `(${factors[a]}, ${factors[b]})`,
  );
  const { matrix, report, notes } = repairFactorCovariance(sym, k, relativeFloor, absoluteFloor);
  for (let i = 0; i < k * k; i++) matrix[i]! *= annualization;
  const specificVariance = new Float64Array(n);
  for (let i = 0; i < n; i++) specificVariance[i] = input.specificVariance[i]! * annualization;
  return {
    assets: [...assets],
    factors: [...factors],
    exposures: Float64Array.from(input.exposures),
    factorCovariance: matrix,
    specificVariance,
    annualization,
    diagnostics: { model: "custom", periods: 0, psdRepair: report, spectralShift: 0, notes },
  };
}
