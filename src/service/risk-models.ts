/**
 * @module service/risk-models
 * Uploaded risk models (extension; `lotwise risk-models`, `.../risk_models/` routes): a `vendor` model (exposures,
 * factor covariance, specific risk) or a `custom` one (a factor model, or a square asset covariance) is built by
 * `core/risk` (validated record by record, converted to fractions, annualized, made positive semidefinite with a
 * warning), stored whole with its as-of date, and read back point in time by the optimizer (service/optimize.ts)
 * and the account backtest (service/backtest-run.ts). See docs/optimize-service.md.
 */
import type { RiskModel, RiskModelImport, RiskModelSummary } from "../contract/index.js";
import type { Security } from "../core/data/types.js";
import { DataError, type FieldIssue, ValidationError } from "../core/errors.js";
import {
  buildCustomRiskModel,
  buildVendorRiskModel,
  type FactorModel,
  imputeBySector,
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
 * @example await importRiskModel(ctx, org, { kind: "vendor", name: "Barra", as_of_date: "2025-12-31", frequency: "annual", ... })
 */
export async function importRiskModel(
  ctx: ServiceContext,
  org: string,
  body: RiskModelImport,
): Promise<RiskModel> {
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
  const created = await ctx.store.riskModels.create(org, {
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
export async function listRiskModels(ctx: ServiceContext, org: string): Promise<RiskModelSummary[]> {
  return (await ctx.store.riskModels.list(org)).map(summaryOf);
}

/** Extension: one uploaded model (summary, source, factor and specific volatilities). @throws {NotFoundError} */
export async function getRiskModel(ctx: ServiceContext, org: string, uuid: string): Promise<RiskModel> {
  return detailOf(await ctx.store.riskModels.require(org, uuid));
}

/** Extension: delete an uploaded model. @throws {NotFoundError} `risk_model_not_found` */
export async function deleteRiskModel(ctx: ServiceContext, org: string, uuid: string): Promise<void> {
  await ctx.store.riskModels.delete(org, uuid);
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

/** The first items for a message, then how many more. */
export function listForMessage(items: readonly string[], max = 10): string {
  return items.length <= max
    ? items.join(", ")
    : `${items.slice(0, max).join(", ")} and ${items.length - max} more`;
}

/**
 * The organization's newest uploaded model of `kind` dated on or before `date` (point in time), with its document.
 * @param otherwise the second remedy of the error message, e.g. "optimize as of a later date".
 * @throws {DataError} `risk_model_inputs_missing` saying how to upload one (and the earliest date, when there are
 *   only later ones).
 */
export async function latestUploadedModel(
  ctx: ServiceContext,
  org: string,
  kind: RiskModelKind,
  date: string,
  otherwise: string,
): Promise<StoredRiskModelRecord> {
  const stored = await ctx.store.riskModels.latestAsOf(org, kind, date);
  if (stored) return stored;
  const all = await ctx.store.riskModels.list(org, kind);
  throw new DataError(
    all.length === 0
      ? `risk_model_name is "${kind}" but no ${kind} risk model has been uploaded. Upload one with \`lotwise risk-models import --kind ${kind} ...\` (POST .../risk_models/), or set risk_model_name to pca or characteristics.`
      : `risk_model_name is "${kind}" but no ${kind} risk model is dated on or before ${date} (the earliest is dated ${all[0]!.asOfDate}). Upload one dated on or before ${date} (\`lotwise risk-models import --kind ${kind} --as-of DATE ...\`) or ${otherwise}.`,
    { code: "risk_model_inputs_missing" },
  );
}

/**
 * A stored model over `assets`, in that order. Assets it does not cover get the average exposures of its covered
 * assets of their sector (of all of them when the sector has none) and that group's median specific variance
 * (`imputeBySector`); sectors come from `sectorOf`, else from the security master for the model's other assets.
 * @throws {ValidationError} when the model covers none of `assets` (its assets are not these listings).
 */
export async function uploadedModelOver(
  ctx: ServiceContext,
  stored: StoredRiskModelRecord,
  assets: readonly string[],
  sectorOf: (themeAssetId: string) => number | null,
): Promise<{ model: FactorModel; uncovered: string[]; label: string }> {
  const known = new Set(assets);
  const doc = stored.document as RiskModelDocument;
  const others = await ctx.store.market.securitiesByIds(doc.assets.filter((id) => !known.has(id)));
  return uploadedModelOverLoaded(stored, assets, sectorOf, others);
}

/**
 * {@link uploadedModelOver} with the listings of the model's assets already read (`listings`: at least those not in
 * `assets`), synchronously.
 */
export function uploadedModelOverLoaded(
  stored: StoredRiskModelRecord,
  assets: readonly string[],
  sectorOf: (themeAssetId: string) => number | null,
  listings: ReadonlyMap<string, Security>,
): { model: FactorModel; uncovered: string[]; label: string } {
  const full = storedFactorModel(stored);
  const inModel = new Set(full.assets);
  const uncovered = assets.filter((id) => !inModel.has(id));
  const label = `${stored.kind} risk model "${stored.name}" (${stored.uuid}, as of ${stored.asOfDate})`;
  if (uncovered.length === assets.length)
    throw new ValidationError(
      `The ${label} covers none of the ${assets.length} assets to optimize (e.g. ${listForMessage(assets, 5)}); its assets are theme_asset_ids such as ${listForMessage(full.assets, 5)}. Upload a model over these listings.`,
      [
        {
          path: "risk_model_name",
          message: `the ${stored.kind} model ${stored.uuid} covers none of the universe`,
        },
      ],
    );
  // Sectors of the model's other assets too: imputation averages over every covered asset of a sector.
  const known = new Set(assets);
  const sector = (id: string) => (known.has(id) ? sectorOf(id) : (listings.get(id)?.sector ?? null));
  const model = imputeBySector(full, assets, sector, `not in the ${stored.kind} risk model`);
  return { model, uncovered, label };
}
