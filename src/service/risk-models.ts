/**
 * @module service/risk-models
 * Uploaded risk models (extension; `lotwise risk-models`, `.../risk_models/` routes): a `vendor` model (exposures,
 * factor covariance, specific risk) or a `custom` one (a factor model, or a square asset covariance) is built by
 * `core/risk` (validated record by record, converted to fractions, annualized, made positive semidefinite with a
 * warning), stored whole with its as-of date, and read back point in time by the optimizer (service/optimize.ts)
 * and the account backtest (service/backtest-run.ts). See docs/optimize-service.md.
 */
import type { RiskModel, RiskModelImport, RiskModelSummary } from "../contract/index.js";
import { type FieldIssue, ValidationError } from "../core/errors.js";
import {
  buildCustomRiskModel,
  buildVendorRiskModel,
  type FactorModel,
  type PsdRepairReport,
  type ReturnFrequency,
  type RiskModelName,
} from "../core/risk/index.js";
import type { RiskModelKind, RiskModelRecord, StoredRiskModelRecord } from "../store/index.js";
import type { ServiceContext } from "./context.js";

/** How the uploaded numbers were read (stored with the model, shown by `show`). */
export interface RiskModelSource {
  form: "factor_model" | "covariance";
  frequency: ReturnFrequency;
  units: "fraction" | "percent";
  specific_risk_kind: "volatility" | "variance";
}

/** The stored document of a model: the built factor model (annualized fractions) and its source options. */
export interface RiskModelDocument {
  assets: string[];
  factors: string[];
  /** n x k row-major. */
  exposures: number[];
  /** k x k, annualized. */
  factor_covariance: number[];
  /** n, annualized. */
  specific_variance: number[];
  /** Periods-per-year multiplier that was applied. */
  annualization: number;
  psd_repair: PsdRepairReport;
  source: RiskModelSource;
}

/** Core issue paths (camelCase, as the builders name the inputs) in the wire's names. */
const WIRE_PATHS: [RegExp, string][] = [
  [/^factorCovariance/, "factor_covariance"],
  [/^specificRisk/, "specific_risk"],
  [/^specificVariance/, "specific_variance"],
  [/^asset$/, "assets"],
  [/^factor$/, "factors"],
];

function wirePath(path: string): string {
  for (const [re, name] of WIRE_PATHS) if (re.test(path)) return path.replace(re, name);
  return path;
}

/** The assets of records (rows or nested), in order of first appearance. */
function assetsOf(...parts: (readonly { asset: string }[] | Readonly<Record<string, unknown>>)[]): string[] {
  const seen = new Set<string>();
  for (const part of parts) {
    const ids = Array.isArray(part) ? part.map((r: { asset: string }) => r.asset) : Object.keys(part);
    for (const id of ids) seen.add(id);
  }
  return [...seen];
}

/**
 * The core model of an import body. Every asset named by an exposure or a specific record is a model asset, so an
 * exposure row without its specific risk is an error naming the asset (not an ignored row).
 */
function build(body: RiskModelImport): { model: FactorModel; source: RiskModelSource } {
  if (body.kind === "vendor") {
    const source: RiskModelSource = {
      form: "factor_model",
      frequency: body.frequency,
      units: body.units ?? "fraction",
      specific_risk_kind: body.specific_risk_kind ?? "volatility",
    };
    const specificRisk = Array.isArray(body.specific_risk)
      ? body.specific_risk.map((r) => ({ asset: r.asset, specificRisk: r.specific_risk }))
      : body.specific_risk;
    const model = buildVendorRiskModel(
      {
        ...(body.factors === undefined ? {} : { factors: body.factors }),
        exposures: body.exposures,
        factorCovariance: body.factor_covariance,
        specificRisk,
      },
      {
        frequency: source.frequency,
        units: source.units,
        specificRiskKind: source.specific_risk_kind,
        assets: assetsOf(body.specific_risk, body.exposures),
      },
    );
    return { model, source };
  }
  const frequency = body.frequency ?? "annual";
  if (body.covariance !== undefined) {
    const source: RiskModelSource = {
      form: "covariance",
      frequency,
      units: "fraction",
      specific_risk_kind: "variance",
    };
    const model = buildCustomRiskModel(
      { assets: body.assets!, covariance: Float64Array.from(body.covariance.flat()) },
      { frequency },
    );
    return { model, source };
  }
  const source: RiskModelSource = {
    form: "factor_model",
    frequency,
    units: "fraction",
    specific_risk_kind: "variance",
  };
  const specific = body.specific_variance!;
  const exposures = body.exposures!;
  const model = buildCustomRiskModel(
    {
      ...(body.factors === undefined ? {} : { factors: body.factors }),
      assets: assetsOf(specific, exposures),
      exposures,
      factorCovariance: body.factor_covariance!,
      specificVariance: Array.isArray(specific)
        ? specific.map((r) => ({ asset: r.asset, specificVariance: r.specific_variance }))
        : specific,
    },
    { frequency },
  );
  return { model, source };
}

/** Sorted copy's value at the middle (the upper median). */
function median(values: Float64Array): number {
  const sorted = Float64Array.from(values).sort();
  return sorted.length === 0 ? 0 : sorted[Math.floor(sorted.length / 2)]!;
}

function summaryOf(r: RiskModelRecord): RiskModelSummary {
  return {
    uuid: r.uuid,
    kind: r.kind,
    name: r.name,
    as_of_date: r.asOfDate,
    asset_count: r.assetCount,
    factor_count: r.factorCount,
    warnings: [...r.warnings],
    created: r.created,
  };
}

function detailOf(r: StoredRiskModelRecord): RiskModel {
  const doc = r.document as RiskModelDocument;
  const k = doc.factors.length;
  const vols = Float64Array.from(doc.specific_variance, Math.sqrt);
  let min = Number.POSITIVE_INFINITY;
  let max = 0;
  for (const v of vols) {
    min = Math.min(min, v);
    max = Math.max(max, v);
  }
  return {
    ...summaryOf(r),
    source: { ...doc.source },
    factors: doc.factors.map((name, j) => ({
      name,
      volatility: Math.sqrt(Math.max(0, doc.factor_covariance[j * k + j]!)),
    })),
    specific_volatility: { min: vols.length > 0 ? min : 0, median: median(vols), max },
  };
}

/**
 * Import a risk model (extension): build it with `core/risk` and store it with its as-of date. The answer names
 * what the build adjusted in `warnings` (a covariance that was not positive semidefinite is repaired, never
 * silently).
 * @throws {ValidationError} naming each bad record (unknown factor, missing or negative specific risk, a missing or
 *   conflicting covariance entry, an asymmetric covariance, duplicate assets), with the wire's field paths.
 * @example importRiskModel(ctx, org, { kind: "vendor", name: "Barra", as_of_date: "2025-12-31", frequency: "annual", ... })
 */
export function importRiskModel(ctx: ServiceContext, org: string, body: RiskModelImport): RiskModel {
  let built: { model: FactorModel; source: RiskModelSource };
  try {
    built = build(body);
  } catch (err) {
    if (!(err instanceof ValidationError)) throw err;
    const issues: FieldIssue[] = err.issues.map((i) => ({ path: wirePath(i.path), message: i.message }));
    const what = err.message.replace(/^build\w+RiskModel: /, "");
    throw new ValidationError(`Invalid ${body.kind} risk model "${body.name}": ${what}`, issues, err.code);
  }
  const { model, source } = built;
  const document: RiskModelDocument = {
    assets: model.assets,
    factors: model.factors,
    exposures: Array.from(model.exposures),
    factor_covariance: Array.from(model.factorCovariance),
    specific_variance: Array.from(model.specificVariance),
    annualization: model.annualization,
    psd_repair: model.diagnostics.psdRepair,
    source,
  };
  const created = ctx.store.riskModels.create(org, {
    kind: body.kind,
    name: body.name,
    asOfDate: body.as_of_date,
    assetCount: model.assets.length,
    factorCount: model.factors.length,
    warnings: [...model.diagnostics.notes],
    document,
  });
  return detailOf({ ...created, document });
}

/** Extension: the organization's uploaded models without their matrices, by as-of date then upload order. */
export function listRiskModels(ctx: ServiceContext, org: string): RiskModelSummary[] {
  return ctx.store.riskModels.list(org).map(summaryOf);
}

/** Extension: one uploaded model (summary, source, factor and specific volatilities). @throws {NotFoundError} */
export function getRiskModel(ctx: ServiceContext, org: string, uuid: string): RiskModel {
  return detailOf(ctx.store.riskModels.require(org, uuid));
}

/** Extension: delete an uploaded model. @throws {NotFoundError} `risk_model_not_found` */
export function deleteRiskModel(ctx: ServiceContext, org: string, uuid: string): void {
  ctx.store.riskModels.delete(org, uuid);
}

/** The core factor model of a stored model (the numbers exactly as built at import). */
export function storedFactorModel(r: StoredRiskModelRecord): FactorModel {
  const doc = r.document as RiskModelDocument;
  return {
    assets: [...doc.assets],
    factors: [...doc.factors],
    exposures: Float64Array.from(doc.exposures),
    factorCovariance: Float64Array.from(doc.factor_covariance),
    specificVariance: Float64Array.from(doc.specific_variance),
    annualization: doc.annualization,
    diagnostics: {
      model: r.kind as RiskModelName,
      periods: 0,
      psdRepair: doc.psd_repair,
      spectralShift: 0,
      notes: [...r.warnings],
    },
  };
}

/** `risk_model_name` values that read an uploaded model. */
export function isUploadedKind(name: string): name is RiskModelKind {
  return name === "custom" || name === "vendor";
}
