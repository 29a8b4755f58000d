/**
 * @module contract/tax-preferences
 * `tax_preferences` of a configuration. Rates are fractions (0.37 = 37%), like every rate of the contract
 * without a `_pct` suffix. Every field is optional in a write (null clears it); a read carries every field,
 * null when unset, plus `tax_region` and `tax_algorithm`.
 */
import * as z from "zod";
import { orderedDecimalStrings } from "./decimal.js";
import { bool, boundedInt, expectedMessage, numericString } from "./primitives.js";
import { describe, named } from "./registry.js";

const MAX_INT32 = 2_147_483_647;

function taxPreferenceShape() {
  return {
    short_term_rate: describe(
      numericString({
        min: "0",
        max: "1",
        unitHint: "short_term_rate is a fraction, 0 to 1: 0.37 means 37%",
      }),
      "short-term capital gains rate, fraction 0..1",
    ),
    long_term_rate: describe(
      numericString({ min: "0", max: "1", unitHint: "long_term_rate is a fraction, 0 to 1: 0.20 means 20%" }),
      "long-term capital gains rate, fraction 0..1",
    ),
    tracking_error_threshold: describe(
      numericString({ min: "0" }),
      "tracking error tolerated, annualized fraction",
    ),
    ordinary_income_tax_rate: describe(
      numericString({
        min: "0",
        max: "1",
        unitHint: "ordinary_income_tax_rate is a fraction, 0 to 1: 0.37 means 37%",
      }),
      "ordinary income tax rate, fraction 0..1",
    ),
    tax_gamma: describe(
      numericString({ min: "0", max: "100" }),
      "weight of tax cost in the objective, 0..100",
    ),
    positive_tax_alpha_scaling_factor: describe(numericString({ min: "0" }), "scaling of positive tax alpha"),
    tax_gamma_min: describe(
      numericString({ min: "0", max: "100" }),
      "lower end of the tax_gamma search, 0..100",
    ),
    tax_gamma_max: describe(
      numericString({ min: "0", max: "100" }),
      "upper end of the tax_gamma search, 0..100",
    ),
    tax_budget_usd: describe(numericString({ min: "0" }), "maximum taxes a rebalance may realize, USD"),
    tax_gain_target: describe(
      numericString(),
      "net realized gain to aim for, USD (negative = harvest losses)",
    ),
    tax_gain_target_tolerance: describe(numericString({ min: "0" }), "tolerance around tax_gain_target, USD"),
    wash_sale_threshold: describe(
      boundedInt(0, MAX_INT32),
      "wash-sale window in calendar days (US rule: 30)",
    ),
    long_term_threshold: describe(
      boundedInt(0, MAX_INT32),
      "holding days after which a gain is long-term (US: 365)",
    ),
    n_high_loss_lots: describe(
      boundedInt(0, MAX_INT32),
      "number of highest-loss lots considered for harvesting",
    ),
    tax_use_tax_alpha: describe(bool(), "reward realized losses (tax alpha) in the objective"),
    include_positive_tax_alpha_lots: describe(bool(), "consider lots whose sale has positive tax alpha"),
    prevent_tlh_invalidating_purchase: describe(
      bool(),
      "block buys that would make a harvested loss a wash sale",
    ),
    prevent_tlh_invalidating_sale: describe(
      bool(),
      "block loss sales that a recent buy would make a wash sale",
    ),
  };
}

type Shape = ReturnType<typeof taxPreferenceShape>;

function orderedGammaRange(t: {
  tax_gamma_min?: string | null | undefined;
  tax_gamma_max?: string | null | undefined;
}): boolean {
  return orderedDecimalStrings(t.tax_gamma_min, t.tax_gamma_max);
}

const GAMMA_ORDER = { error: "tax_gamma_max is below tax_gamma_min", path: ["tax_gamma_max"] };

function writeShape(): { [K in keyof Shape]: z.ZodOptional<z.ZodNullable<Shape[K]>> } {
  const base = taxPreferenceShape();
  const out = {} as Record<string, z.ZodType>;
  for (const [key, schema] of Object.entries(base)) out[key] = schema.nullable().optional();
  return out as { [K in keyof Shape]: z.ZodOptional<z.ZodNullable<Shape[K]>> };
}

function readShape(): { [K in keyof Shape]: z.ZodNullable<Shape[K]> } {
  const base = taxPreferenceShape();
  const out = {} as Record<string, z.ZodType>;
  for (const [key, schema] of Object.entries(base)) out[key] = schema.nullable();
  return out as { [K in keyof Shape]: z.ZodNullable<Shape[K]> };
}

/** Names of the tax-preference fields shared by read and write. */
export const TAX_PREFERENCE_FIELDS = Object.keys(taxPreferenceShape()) as (keyof Shape)[];

/** Tax preferences, write shape: every field optional; null clears a stored value. */
export const taxPreferencesWriteSchema = named(
  z
    .strictObject(writeShape(), { error: expectedMessage("an object of tax preferences") })
    .refine(orderedGammaRange, GAMMA_ORDER),
  "TaxPreferencesWrite",
  "Tax preferences of a configuration write; every field optional, null clears it. Rates are fractions.",
);
/** Tax preferences, write shape. */
export type TaxPreferencesWrite = z.infer<typeof taxPreferencesWriteSchema>;

/** Region and algorithm a read reports when none is stored. */
export const TAX_PREFERENCES_READ_DEFAULTS = { tax_region: "US", tax_algorithm: "tax_aware_qp" } as const;

/** Tax preferences, read shape: every field present (null when unset), plus tax_region and tax_algorithm. */
export const taxPreferencesReadSchema = named(
  z.strictObject({
    ...readShape(),
    tax_region: describe(
      z.string(),
      "tax jurisdiction whose rules apply (US: 30-day wash sales, 365-day long term)",
    ),
    tax_algorithm: describe(z.string(), "lot-selection / tax-optimization algorithm"),
  }),
  "TaxPreferencesRead",
  "Tax preferences as returned with a configuration; unset fields are null.",
);
/** Tax preferences, read shape. */
export type TaxPreferencesRead = z.infer<typeof taxPreferencesReadSchema>;
