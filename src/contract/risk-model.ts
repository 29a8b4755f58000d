/**
 * @module contract/risk-model
 * Extension shapes of uploaded risk models (`lotwise risk-models`, `.../risk_models/` routes): the import body of a
 * `vendor` model (exposures, factor covariance, specific risk, as records) or a `custom` one (a factor model as
 * records, or a square asset covariance), and the answers. Answers never carry the matrices: a summary in lists,
 * and with the factor volatilities and the source options when one model is read.
 */
import * as z from "zod";
import {
  displayName,
  expectedMessage,
  finiteNumber,
  isoDate,
  isoDatetime,
  nonEmptyString,
  themeAssetId,
  uuid,
} from "./primitives.js";
import { describe, named } from "./registry.js";

/** Kinds of uploaded models: the `risk_model_name` values that read one. */
export const RISK_MODEL_KINDS = ["custom", "vendor"] as const;
/** Horizons a model's numbers may be stated in (variances are multiplied by the periods per year). */
export const RISK_MODEL_FREQUENCIES = ["annual", "quarterly", "monthly", "weekly", "daily"] as const;
/** Units of a vendor model: fractions, or percent (covariances in %^2, volatilities in %). */
export const RISK_MODEL_UNITS = ["fraction", "percent"] as const;
/** Largest square asset covariance accepted (its eigendecomposition is O(n^3)); give a factor model beyond. */
export const MAX_DENSE_COVARIANCE_ASSETS = 1000;

const factorName = () => nonEmptyString(100);
const num = finiteNumber;
/** An enum whose messages say what to send ("Required" when absent). */
const oneOf = <const T extends readonly [string, ...string[]]>(values: T) =>
  z.enum(values, { error: expectedMessage(`one of ${values.join(", ")}`) });

/** A list of rows, or the same numbers as a record keyed by `key` (the two layouts files come in). */
function rowsOrRecord<R extends z.ZodType, K extends z.core.$ZodRecordKey, V extends z.ZodType>(
  row: R,
  key: K,
  value: V,
  description: string,
) {
  return describe(z.union([z.array(row), z.record(key, value)]), description);
}

/** Exposures: rows `{asset, factor, exposure}`, or nested `{asset: {factor: exposure}}`; missing ones are 0. */
const exposuresSchema = () =>
  rowsOrRecord(
    z.strictObject({ asset: themeAssetId(), factor: factorName(), exposure: num() }),
    themeAssetId(),
    z.record(factorName(), num()),
    "exposure of each asset to each factor: rows {asset, factor, exposure} or nested {asset: {factor: exposure}}; missing exposures are 0",
  );

/** Factor covariance: rows `{factor1, factor2, covariance}` or nested; one triangle suffices. */
const factorCovarianceSchema = () =>
  rowsOrRecord(
    z.strictObject({ factor1: factorName(), factor2: factorName(), covariance: num() }),
    factorName(),
    z.record(factorName(), num()),
    "factor covariance: rows {factor1, factor2, covariance} or nested {factor1: {factor2: covariance}}; one triangle suffices, both must agree",
  );

/** Specific risk (vendor): rows `{asset, specific_risk}` or `{asset: specific_risk}`. */
const specificRiskSchema = () =>
  rowsOrRecord(
    z.strictObject({ asset: themeAssetId(), specific_risk: num() }),
    themeAssetId(),
    num(),
    "specific risk of every asset of the model: rows {asset, specific_risk} or {asset: specific_risk}",
  );

/** Specific variance (custom): rows `{asset, specific_variance}` or `{asset: specific_variance}`. */
const specificVarianceSchema = () =>
  rowsOrRecord(
    z.strictObject({ asset: themeAssetId(), specific_variance: num() }),
    themeAssetId(),
    num(),
    "factor form: specific variance of every asset of the model, in fractions: rows {asset, specific_variance} or {asset: specific_variance}",
  );

const common = {
  name: describe(displayName(), "a name to recognize the model by, e.g. Barra USE4 2025-12"),
  as_of_date: describe(
    isoDate(),
    "the date the model describes: it serves optimizations dated on or after it, until a later model",
  ),
  factors: describe(
    z.array(factorName()),
    "factor order (default: first appearance in factor_covariance)",
  ).optional(),
};

const vendorImportSchema = z.strictObject(
  {
    kind: z.literal("vendor"),
    ...common,
    frequency: describe(
      oneOf(RISK_MODEL_FREQUENCIES),
      "horizon of the vendor's numbers (annual for most vendors; daily numbers are multiplied by 252); required",
    ),
    units: describe(
      oneOf(RISK_MODEL_UNITS),
      "fraction (default) or percent (covariances in %^2 are divided by 10,000, volatilities in % by 100)",
    ).optional(),
    specific_risk_kind: describe(
      oneOf(["volatility", "variance"]),
      "whether specific_risk holds volatilities (default, the vendor convention) or variances",
    ).optional(),
    exposures: exposuresSchema(),
    factor_covariance: factorCovarianceSchema(),
    specific_risk: specificRiskSchema(),
  },
  { error: expectedMessage("an object") },
);

const customImportSchema = z
  .strictObject(
    {
      kind: z.literal("custom"),
      ...common,
      frequency: describe(
        oneOf(RISK_MODEL_FREQUENCIES),
        "horizon of the numbers (default annual: taken as already annualized)",
      ).optional(),
      assets: describe(
        z.array(themeAssetId()),
        "covariance form: the assets of the rows and columns of covariance, in order",
      ).optional(),
      covariance: describe(
        z.array(z.array(num())),
        `covariance form: the square asset covariance, one row per asset (at most ${MAX_DENSE_COVARIANCE_ASSETS} assets), in fractions`,
      ).optional(),
      exposures: exposuresSchema().optional(),
      factor_covariance: factorCovarianceSchema().optional(),
      specific_variance: specificVarianceSchema().optional(),
    },
    { error: expectedMessage("an object") },
  )
  .superRefine((body, ctx) => {
    const dense = body.assets !== undefined || body.covariance !== undefined;
    const factor =
      body.exposures !== undefined ||
      body.factor_covariance !== undefined ||
      body.specific_variance !== undefined;
    const need = (path: string, message: string) => ctx.addIssue({ code: "custom", path: [path], message });
    if (dense && factor) {
      need(
        "covariance",
        "give either assets + covariance (an asset covariance) or exposures + factor_covariance + specific_variance (a factor model), not both",
      );
      return;
    }
    if (!dense && !factor) {
      need(
        "covariance",
        "Required: assets + covariance (an asset covariance) or exposures + factor_covariance + specific_variance (a factor model)",
      );
      return;
    }
    if (factor) {
      if (body.exposures === undefined) need("exposures", "Required (factor form)");
      if (body.factor_covariance === undefined) need("factor_covariance", "Required (factor form)");
      if (body.specific_variance === undefined) need("specific_variance", "Required (factor form)");
      return;
    }
    if (body.assets === undefined) need("assets", "Required (covariance form)");
    if (body.covariance === undefined) need("covariance", "Required (covariance form)");
    if (body.assets === undefined || body.covariance === undefined) return;
    const n = body.assets.length;
    if (n > MAX_DENSE_COVARIANCE_ASSETS)
      need(
        "assets",
        `${n} assets is more than the ${MAX_DENSE_COVARIANCE_ASSETS} a covariance may have; upload a factor model instead`,
      );
    if (body.factors !== undefined)
      need("factors", "only for the factor form (a covariance's factors are its principal components)");
    if (body.covariance.length !== n)
      need("covariance", `has ${body.covariance.length} rows, expected ${n} (one per asset of assets)`);
    body.covariance.forEach((row, i) => {
      if (row.length !== n)
        ctx.addIssue({
          code: "custom",
          path: ["covariance", i],
          message: `row of ${body.assets![i] ?? `#${i}`} has ${row.length} entries, expected ${n} (one per asset of assets)`,
        });
    });
  });

/** Body of a risk-model import (extension): a vendor model, or a custom one in either form. */
export const riskModelImportSchema = named(
  z.discriminatedUnion("kind", [vendorImportSchema, customImportSchema], {
    error: expectedMessage('an object with kind "vendor" or "custom"'),
  }),
  "RiskModelImport",
  "An uploaded risk model: kind vendor (exposures, factor_covariance, specific_risk, frequency, units) or custom (a factor model with specific_variance, or assets + a square covariance). Validated, converted to annualized fractions, made positive semidefinite (reported in warnings) and stored with its as_of_date.",
);
/** Body of a risk-model import. */
export type RiskModelImport = z.infer<typeof riskModelImportSchema>;

const summaryFields = {
  uuid: uuid(),
  kind: z.enum(RISK_MODEL_KINDS),
  name: z.string(),
  as_of_date: isoDate(),
  asset_count: describe(z.int(), "assets the model covers"),
  factor_count: describe(z.int(), "factors (principal components for a custom covariance)"),
  warnings: describe(
    z.array(z.string()),
    "what the import adjusted: PSD repair, ignored rows, zero exposures",
  ),
  created: isoDatetime(),
};

/** An uploaded model without its matrices (list item). */
export const riskModelSummarySchema = named(
  z.strictObject(summaryFields),
  "RiskModelSummary",
  "An uploaded risk model without its matrices.",
);
/** An uploaded model without its matrices. */
export type RiskModelSummary = z.infer<typeof riskModelSummarySchema>;

/** Response of the risk-model list extension. */
export const riskModelListSchema = named(
  z.array(riskModelSummarySchema),
  "RiskModelList",
  "An organization's uploaded risk models, by as_of_date then upload order.",
);
/** Response of the risk-model list extension. */
export type RiskModelList = z.infer<typeof riskModelListSchema>;

/** One uploaded model: the summary, the source options and what the stored numbers come to. */
export const riskModelSchema = named(
  z.strictObject({
    ...summaryFields,
    source: describe(
      z.strictObject({
        form: z.enum(["factor_model", "covariance"]),
        frequency: z.enum(RISK_MODEL_FREQUENCIES),
        units: z.enum(RISK_MODEL_UNITS),
        specific_risk_kind: z.enum(["volatility", "variance"]),
      }),
      "how the uploaded numbers were read (they are stored annualized, in fractions)",
    ),
    factors: describe(
      z.array(z.strictObject({ name: z.string(), volatility: num() })),
      "each factor with its annualized volatility sqrt(F_jj), a fraction (0.16 = 16%)",
    ),
    specific_volatility: describe(
      z.strictObject({ min: num(), median: num(), max: num() }),
      "annualized specific volatilities sqrt(D_i) across the assets, fractions",
    ),
  }),
  "RiskModel",
  "An uploaded risk model: summary, source options, factor volatilities and specific volatilities (annualized fractions); never the matrices.",
);
/** One uploaded model. */
export type RiskModel = z.infer<typeof riskModelSchema>;
