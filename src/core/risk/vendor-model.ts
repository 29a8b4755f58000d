/**
 * @module core/risk/vendor-model
 * `risk_model_name: vendor`: a factor model bought from a vendor (Barra, Axioma, Northfield...), given as
 * records keyed by asset and factor name. File parsing happens at the edge; this module validates, orders,
 * converts units and annualizes.
 */

import type { FieldIssue } from "../errors.js";
import { NonFiniteError, ValidationError } from "../errors.js";
import { periodsPerYear, type ReturnFrequency } from "./annualization.js";
import { assertUnique, listForMessage } from "./checks.js";
import { checkFloors, DEFAULT_PSD_RELATIVE_FLOOR, repairFactorCovariance } from "./psd-repair.js";
import type { FactorModel } from "./types.js";

/** Exposure of one asset to one factor. */
export interface VendorExposureRow {
  asset: string;
  factor: string;
  exposure: number;
}

/** One entry of the factor covariance (either triangle, or both if they agree). */
export interface VendorCovarianceRow {
  factor1: string;
  factor2: string;
  covariance: number;
}

/** Specific risk of one asset (a volatility or a variance, see `specificRiskKind`). */
export interface VendorSpecificRiskRow {
  asset: string;
  specificRisk: number;
}

/**
 * A vendor model as records. Each part is either a list of rows or a nested record
 * (`exposures[asset][factor]`, `factorCovariance[factor1][factor2]`, `specificRisk[asset]`).
 */
export interface VendorRiskModelData {
  /** Factor order of the model; by default the order of first appearance in `factorCovariance`. */
  factors?: string[];
  exposures: readonly VendorExposureRow[] | Readonly<Record<string, Readonly<Record<string, number>>>>;
  factorCovariance:
    | readonly VendorCovarianceRow[]
    | Readonly<Record<string, Readonly<Record<string, number>>>>;
  specificRisk: readonly VendorSpecificRiskRow[] | Readonly<Record<string, number>>;
}

/** Options of {@link buildVendorRiskModel}. */
export interface VendorRiskModelOptions {
  /**
   * Horizon of the vendor's numbers: "annual" when already annualized (most vendors), "daily" for daily
   * variances, ... They are multiplied by its periods per year.
   */
  frequency: ReturnFrequency | number;
  /**
   * "percent" when covariances are in percent squared (400 = 20% volatility squared) and specific risk in
   * percent; "fraction" when they are in return fractions.
   * @default "fraction"
   */
  units?: "fraction" | "percent";
  /**
   * Whether `specificRisk` holds volatilities (the vendor convention) or variances.
   * @default "volatility"
   */
  specificRiskKind?: "volatility" | "variance";
  /**
   * Assets of the model, in this order; each needs a specific risk. By default every asset with a specific risk,
   * in order of appearance. Exposure rows of other assets are ignored (noted).
   */
  assets?: string[];
  /**
   * Relative tolerance for the agreement of duplicate or mirrored covariance entries.
   * @default 1e-8
   */
  symmetryTolerance?: number;
  /**
   * Relative eigenvalue floor of the PSD repair of F.
   * @default 1e-10
   */
  relativeFloor?: number;
  /**
   * Absolute eigenvalue floor of the PSD repair of F.
   * @default 0
   */
  absoluteFloor?: number;
}

function exposureRows(data: VendorRiskModelData["exposures"]): VendorExposureRow[] {
  if (Array.isArray(data)) return data as VendorExposureRow[];
  const rows: VendorExposureRow[] = [];
  for (const [asset, byFactor] of Object.entries(data as Record<string, Record<string, number>>)) {
    for (const [factor, exposure] of Object.entries(byFactor)) rows.push({ asset, factor, exposure });
  }
  return rows;
}

function covarianceRows(data: VendorRiskModelData["factorCovariance"]): VendorCovarianceRow[] {
  if (Array.isArray(data)) return data as VendorCovarianceRow[];
  const rows: VendorCovarianceRow[] = [];
  for (const [factor1, row] of Object.entries(data as Record<string, Record<string, number>>)) {
    for (const [factor2, covariance] of Object.entries(row)) rows.push({ factor1, factor2, covariance });
  }
  return rows;
}

function specificRows(data: VendorRiskModelData["specificRisk"]): VendorSpecificRiskRow[] {
  if (Array.isArray(data)) return data as VendorSpecificRiskRow[];
  return Object.entries(data as Record<string, number>).map(([asset, specificRisk]) => ({
    asset,
    specificRisk,
  }));
}

function differ(x: number, y: number, tol: number): boolean {
  return Math.abs(x - y) > tol * Math.max(Math.abs(x), Math.abs(y), Number.MIN_VALUE);
}

function fail(fn: string, message: string, issues: FieldIssue[]): never {
  throw new ValidationError(`${fn}: ${message}`, issues);
}

/** Options of {@link assembleFactorRecords}. */
export interface FactorRecordsOptions {
  /** Multiplier of covariances and specific variances (1e-4 for percent units). */
  varianceScale: number;
  /** Whether the specific records hold volatilities (squared here) or variances. */
  specificRiskKind: "volatility" | "variance";
  /** Model assets and their order (see {@link VendorRiskModelOptions.assets}). */
  assets?: string[] | undefined;
  /** Relative tolerance for duplicate and mirrored entries. */
  symmetryTolerance: number;
  /** Name of the specific records in issue paths and messages. @default "specificRisk" */
  specificField?: "specificRisk" | "specificVariance";
}

/** Records ordered into the arrays of a factor model: F exactly symmetric but not repaired, nothing annualized. */
export interface AssembledFactorRecords {
  assets: string[];
  factors: string[];
  exposures: Float64Array;
  factorCovariance: Float64Array;
  specificVariance: Float64Array;
  /** Ignored exposure rows and assets without exposures. */
  notes: string[];
}

/**
 * The checks and ordering of {@link buildVendorRiskModel} without its PSD repair and annualization, shared with
 * `buildCustomRiskModel`'s record input. `fn` names the caller in messages.
 * @throws {NonFiniteError} on NaN/Infinity in any record.
 * @throws {ValidationError} with one issue per offending record.
 */
export function assembleFactorRecords(
  fn: string,
  data: VendorRiskModelData,
  options: FactorRecordsOptions,
): AssembledFactorRecords {
  const { varianceScale, symmetryTolerance: tol } = options;
  const kind = options.specificRiskKind;
  const field = options.specificField ?? "specificRisk";
  const words = field === "specificRisk" ? "specific risk" : "specific variance";
  const notes: string[] = [];
  const covRows = covarianceRows(data.factorCovariance);
  const expRows = exposureRows(data.exposures);
  const specRows = specificRows(data.specificRisk);
  covRows.forEach((r, x) => {
    if (!Number.isFinite(r.covariance)) {
      throw new NonFiniteError(
        `${fn}: factorCovariance[${x}] (${r.factor1}, ${r.factor2}) is ${r.covariance}.`,
      );
    }
  });
  expRows.forEach((r, x) => {
    if (!Number.isFinite(r.exposure)) {
      throw new NonFiniteError(`${fn}: exposures[${x}] (${r.asset}, ${r.factor}) is ${r.exposure}.`);
    }
  });
  specRows.forEach((r, x) => {
    if (!Number.isFinite(r.specificRisk)) {
      throw new NonFiniteError(`${fn}: ${field}[${x}] (${r.asset}) is ${r.specificRisk}.`);
    }
  });

  // Factors.
  let factors: string[];
  if (data.factors !== undefined) {
    assertUnique(fn, "factor", data.factors);
    factors = [...data.factors];
    const known = new Set(factors);
    const issues: FieldIssue[] = [];
    covRows.forEach((r, x) => {
      for (const f of [r.factor1, r.factor2]) {
        if (!known.has(f)) issues.push({ path: `factorCovariance[${x}]`, message: `unknown factor "${f}"` });
      }
    });
    if (issues.length > 0) fail(fn, `the factor covariance names factors outside "factors".`, issues);
  } else {
    const seen = new Set<string>();
    factors = [];
    for (const r of covRows) {
      for (const f of [r.factor1, r.factor2]) {
        if (!seen.has(f)) {
          seen.add(f);
          factors.push(f);
        }
      }
    }
  }
  const k = factors.length;
  const fIndex = new Map(factors.map((f, j) => [f, j]));

  // Factor covariance, with conflict and coverage checks (state 0 unset, 1 mirrored, 2 explicit).
  const F = new Float64Array(k * k);
  const state = new Uint8Array(k * k);
  const covIssues: FieldIssue[] = [];
  covRows.forEach((r, x) => {
    const a = fIndex.get(r.factor1)!;
    const b = fIndex.get(r.factor2)!;
    const v = r.covariance * varianceScale;
    const s = state[a * k + b]!;
    if (s === 2 && differ(F[a * k + b]!, v, tol)) {
      covIssues.push({
        path: `factorCovariance[${x}]`,
        message: `conflicting duplicate for (${r.factor1}, ${r.factor2})`,
      });
    } else if (s === 1 && differ(F[a * k + b]!, v, tol)) {
      covIssues.push({
        path: `factorCovariance[${x}]`,
        message: `(${r.factor1}, ${r.factor2}) = ${r.covariance} disagrees with (${r.factor2}, ${r.factor1})`,
      });
    }
    F[a * k + b] = v;
    state[a * k + b] = 2;
    if (a !== b && state[b * k + a] === 0) {
      F[b * k + a] = v;
      state[b * k + a] = 1;
    }
  });
  const uncovered: string[] = [];
  for (let a = 0; a < k; a++) {
    for (let b = 0; b <= a; b++) if (state[a * k + b] === 0) uncovered.push(`(${factors[a]}, ${factors[b]})`);
  }
  if (uncovered.length > 0) {
    covIssues.push(...uncovered.map((p) => ({ path: "factorCovariance", message: `missing entry ${p}` })));
  }
  if (covIssues.length > 0) {
    fail(
      fn,
      `the factor covariance is inconsistent or incomplete (${covIssues.length} problem(s)): ${listForMessage(
        covIssues.map((i) => i.message),
        5,
      )}.${uncovered.length > 0 ? " Give every pair of factors (one triangle is enough), with 0 for uncorrelated ones: a missing entry is never taken as 0." : ""}`,
      covIssues,
    );
  }

  // Specific risk.
  const specific = new Map<string, number>();
  const specIssues: FieldIssue[] = [];
  specRows.forEach((r, x) => {
    if (r.specificRisk < 0) specIssues.push({ path: `${field}[${x}]`, message: `negative for ${r.asset}` });
    const variance = (kind === "volatility" ? r.specificRisk ** 2 : r.specificRisk) * varianceScale;
    const prev = specific.get(r.asset);
    if (prev !== undefined && differ(prev, variance, tol)) {
      specIssues.push({ path: `${field}[${x}]`, message: `conflicting duplicate for ${r.asset}` });
    }
    specific.set(r.asset, variance);
  });
  const assets = options.assets !== undefined ? [...options.assets] : [...specific.keys()];
  assertUnique(fn, "asset", assets);
  const uncoveredAssets = assets.filter((a) => !specific.has(a));
  for (const a of uncoveredAssets)
    specIssues.push({ path: `${field}.${a}`, message: `no ${words} for ${a}` });
  if (specIssues.length > 0) {
    fail(
      fn,
      `${words} problems: ${listForMessage(
        specIssues.map((i) => i.message),
        5,
      )}.`,
      specIssues,
    );
  }

  // Exposures.
  const n = assets.length;
  const aIndex = new Map(assets.map((a, i) => [a, i]));
  const X = new Float64Array(n * k);
  const set = new Uint8Array(n * k);
  const expIssues: FieldIssue[] = [];
  const ignored = new Set<string>();
  expRows.forEach((r, x) => {
    const j = fIndex.get(r.factor);
    if (j === undefined) {
      expIssues.push({ path: `exposures[${x}]`, message: `unknown factor "${r.factor}" for ${r.asset}` });
      return;
    }
    const i = aIndex.get(r.asset);
    if (i === undefined) {
      ignored.add(r.asset);
      return;
    }
    if (set[i * k + j] === 1 && differ(X[i * k + j]!, r.exposure, tol)) {
      expIssues.push({
        path: `exposures[${x}]`,
        message: `conflicting duplicate for (${r.asset}, ${r.factor})`,
      });
    }
    X[i * k + j] = r.exposure;
    set[i * k + j] = 1;
  });
  if (expIssues.length > 0)
    fail(
      fn,
      `exposure problems: ${listForMessage(
        expIssues.map((i) => i.message),
        5,
      )}.`,
      expIssues,
    );
  if (ignored.size > 0) {
    notes.push(
      `Ignored exposures of ${ignored.size} asset(s) outside the model's assets: ${listForMessage([...ignored])}.`,
    );
  }
  const bare: string[] = [];
  for (let i = 0; i < n; i++) {
    let any = false;
    for (let j = 0; j < k && !any; j++) any = set[i * k + j] === 1;
    if (!any) bare.push(assets[i]!);
  }
  if (bare.length > 0)
    notes.push(`${bare.length} asset(s) have no exposure rows (all exposures 0): ${listForMessage(bare)}.`);

  // Entries given in both triangles agree to `tol`; average them so F is exactly symmetric.
  for (let a = 0; a < k; a++) {
    for (let b = 0; b < a; b++) {
      const m = 0.5 * (F[a * k + b]! + F[b * k + a]!);
      F[a * k + b] = m;
      F[b * k + a] = m;
    }
  }
  const specificVariance = new Float64Array(n);
  for (let i = 0; i < n; i++) specificVariance[i] = specific.get(assets[i]!)!;
  return { assets, factors, exposures: X, factorCovariance: F, specificVariance, notes };
}

/**
 * Builds the `vendor` risk model from records.
 *
 * Checks: every number finite (NonFiniteError naming the record); factors referenced by exposures exist in the
 * covariance; every factor pair is covered (one triangle suffices; given twice, the entries must agree to
 * `symmetryTolerance`); each model asset has one specific risk >= 0; no conflicting duplicates. F is made PSD by
 * eigenvalue clipping when needed (reported in `diagnostics.psdRepair` and the notes). Missing exposures are 0.
 *
 * Units: with `units: "percent"`, covariances and variances are divided by 10,000 and volatilities by 100.
 * Specific volatilities are squared. Then F and D are multiplied by the periods per year of `frequency`.
 *
 * @throws {NonFiniteError} on NaN/Infinity in any record.
 * @throws {ValidationError} with one issue per offending record.
 * @throws {RangeError} on bad options.
 * @example
 * buildVendorRiskModel(
 *   { exposures: [{ asset: "A:XNYS", factor: "market", exposure: 1 }],
 *     factorCovariance: [{ factor1: "market", factor2: "market", covariance: 0.04 }],
 *     specificRisk: [{ asset: "A:XNYS", specificRisk: 0.25 }] },
 *   { frequency: "annual" },
 * );
 */
export function buildVendorRiskModel(
  data: VendorRiskModelData,
  options: VendorRiskModelOptions,
): FactorModel {
  const fn = "buildVendorRiskModel";
  const annualization = periodsPerYear(options.frequency);
  const units = options.units ?? "fraction";
  if (units !== "fraction" && units !== "percent")
    throw new RangeError(`${fn}: unknown units "${String(units)}".`);
  const kind = options.specificRiskKind ?? "volatility";
  if (kind !== "volatility" && kind !== "variance") {
    throw new RangeError(`${fn}: unknown specificRiskKind "${String(kind)}".`);
  }
  const relativeFloor = options.relativeFloor ?? DEFAULT_PSD_RELATIVE_FLOOR;
  const absoluteFloor = options.absoluteFloor ?? 0;
  checkFloors(fn, relativeFloor, absoluteFloor);
  const assembled = assembleFactorRecords(fn, data, {
    varianceScale: units === "percent" ? 1e-4 : 1,
    specificRiskKind: kind,
    assets: options.assets,
    symmetryTolerance: options.symmetryTolerance ?? 1e-8,
  });
  const { assets, factors, notes } = assembled;
  const k = factors.length;
  const {
    matrix: factorCovariance,
    report,
    notes: repairNotes,
  } = repairFactorCovariance(assembled.factorCovariance, k, relativeFloor, absoluteFloor);
  notes.push(...repairNotes);
  for (let x = 0; x < k * k; x++) factorCovariance[x]! *= annualization;
  const specificVariance = assembled.specificVariance.map((v) => v * annualization);
  return {
    assets,
    factors,
    exposures: assembled.exposures,
    factorCovariance,
    specificVariance,
    annualization,
    diagnostics: { model: "vendor", periods: 0, psdRepair: report, spectralShift: 0, notes },
  };
}
