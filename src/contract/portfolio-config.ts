/**
 * @module contract/portfolio-config
 * Portfolio configuration: the write shape (PATCH body: every field optional, null resets a scalar field to
 * its default), the create shape (write with `name` required), the customization shape (write without
 * `status`) and the read shape (every field present; unset fields null; library defaults filled in).
 */
import * as z from "zod";
import { assetAllocationListWriteSchema, assetAllocationReadSchema } from "./asset-allocation.js";
import {
  capitalGainsReductionUnitsSchema,
  configBoolean,
  configDecimal,
  maxTradeCountSchema,
  optimizationModeSchema,
  PORTFOLIO_CONFIG_STATUSES,
  riskBoundMaxIterationsSchema,
  riskModelNameSchema,
} from "./config-fields.js";
import { orderedDecimalStrings } from "./decimal.js";
import { displayName, expectedMessage, numericString, themeAssetId, uuid } from "./primitives.js";
import { describe, named } from "./registry.js";
import { dynamicRuleSchema, evaluationRuleReadSchema, evaluationRuleWriteSchema } from "./rules.js";
import { taxPreferencesReadSchema, taxPreferencesWriteSchema } from "./tax-preferences.js";
import {
  factorExposureBoundReadSchema,
  factorExposureBoundWriteSchema,
  targetTickerWeightReadSchema,
  targetTickerWeightWriteSchema,
  tickerReferenceReadSchema,
  tickerReferenceWriteSchema,
} from "./ticker.js";

/**
 * A substitution group: assets of which at most one may be held; at least 2 distinct assets, each listed once (a
 * repeated asset is refused at its index rather than silently merged).
 */
export const substitutionGroupSchema = describe(
  z
    .array(themeAssetId(), { error: expectedMessage("an array of theme_asset_ids") })
    .refine((group) => new Set(group).size >= 2, {
      error: (issue) =>
        `a substitution group needs at least 2 distinct assets, got ${new Set(issue.input as string[]).size}`,
    })
    .superRefine((group, ctx) => {
      const first = new Map<string, number>();
      group.forEach((asset, i) => {
        const at = first.get(asset);
        if (at === undefined) first.set(asset, i);
        else
          ctx.addIssue({
            code: "custom",
            path: [i],
            message: `${asset} is already in this substitution group at index ${at}; list each asset once`,
          });
      });
    }),
  "mutually exclusive assets, each listed once: at most one of them is held",
);

/** `capital_gains_reductions`: theme_asset_id -> non-negative reduction (units: capital_gains_reductions_units). */
export const capitalGainsReductionsSchema = describe(
  z.record(themeAssetId(), numericString({ min: "0" }), {
    error: expectedMessage("an object mapping theme_asset_id to a decimal string"),
  }),
  "per-asset capital-gains reduction amount, keyed by theme_asset_id",
);

/** Rejects a list in which two items name the same theme_asset_id (the later one is reported). */
function uniqueAssets(
  items: readonly { theme_asset_id: string }[],
  ctx: z.core.$RefinementCtx<unknown>,
): void {
  const seen = new Map<string, number>();
  items.forEach((item, i) => {
    const first = seen.get(item.theme_asset_id);
    if (first === undefined) seen.set(item.theme_asset_id, i);
    else
      ctx.addIssue({
        code: "custom",
        path: [i, "theme_asset_id"],
        message: `${item.theme_asset_id} is already listed at index ${first}`,
      });
  });
}

function tickerReferenceList() {
  return z
    .array(tickerReferenceWriteSchema, { error: expectedMessage("an array of ticker references") })
    .superRefine(uniqueAssets);
}

/** Fields shared by the write, create and customization shapes (all optional; status excluded). */
function writeFields() {
  return {
    name: describe(displayName(), "configuration name, 1 to 255 characters").optional(),
    optimization_mode: optimizationModeSchema().nullable().optional(),
    long_weight_sum: configDecimal("long_weight_sum").nullable().optional(),
    short_weight_sum: configDecimal("short_weight_sum").nullable().optional(),
    risk_model_name: riskModelNameSchema().nullable().optional(),
    no_hold_tickers: describe(
      tickerReferenceList(),
      "assets the client must not hold; replaces the list",
    ).optional(),
    no_trade_tickers: describe(
      tickerReferenceList(),
      "assets the client must not trade; replaces the list",
    ).optional(),
    target_ticker_weights: describe(
      z
        .array(targetTickerWeightWriteSchema, { error: expectedMessage("an array of target ticker weights") })
        .superRefine(uniqueAssets),
      "per-asset targets and bounds; replaces the list",
    ).optional(),
    min_weight: configDecimal("min_weight").nullable().optional(),
    max_weight: configDecimal("max_weight").nullable().optional(),
    min_active_weight: configDecimal("min_active_weight").nullable().optional(),
    max_active_weight: configDecimal("max_active_weight").nullable().optional(),
    use_active_risk_bounds: configBoolean("use_active_risk_bounds").nullable().optional(),
    max_active_risk_pct: configDecimal("max_active_risk_pct").nullable().optional(),
    scaling_factor: configDecimal("scaling_factor").nullable().optional(),
    use_mean_variance: configBoolean("use_mean_variance").nullable().optional(),
    factor_exposure_bounds: z
      .array(factorExposureBoundWriteSchema, { error: expectedMessage("an array of factor exposure bounds") })
      .optional(),
    tax_preferences: taxPreferencesWriteSchema.optional(),
    asset_allocations: describe(
      assetAllocationListWriteSchema(),
      "sleeves and target allocations; replaces the list",
    ).optional(),
    bid_ask_spread_ref_volume: configDecimal("bid_ask_spread_ref_volume").nullable().optional(),
    market_impact_parameter: configDecimal("market_impact_parameter").nullable().optional(),
    bid_ask_spread_parameter: configDecimal("bid_ask_spread_parameter").nullable().optional(),
    tcost_bps: configDecimal("tcost_bps").nullable().optional(),
    cash_buffer_usd: configDecimal("cash_buffer_usd").nullable().optional(),
    cash_buffer_cad: configDecimal("cash_buffer_cad").nullable().optional(),
    cash_buffer_usd_amount: configDecimal("cash_buffer_usd_amount").nullable().optional(),
    cash_buffer_cad_amount: configDecimal("cash_buffer_cad_amount").nullable().optional(),
    drift_warning_threshold: configDecimal("drift_warning_threshold").nullable().optional(),
    drift_breach_threshold: configDecimal("drift_breach_threshold").nullable().optional(),
    asset_drift_breach_threshold: configDecimal("asset_drift_breach_threshold").nullable().optional(),
    dynamic_rules: describe(
      z.array(dynamicRuleSchema, { error: expectedMessage("an array of dynamic rules") }),
      "time-varying overrides; replaces the list",
    ).optional(),
    evaluation_rules: z
      .array(evaluationRuleWriteSchema, { error: expectedMessage("an array of evaluation rules") })
      .optional(),
    risk_aversion: configDecimal("risk_aversion").nullable().optional(),
    risk_free_rate_pct: configDecimal("risk_free_rate_pct").nullable().optional(),
    spectral_shift: configDecimal("spectral_shift").nullable().optional(),
    risk_bound_increase_factor: configDecimal("risk_bound_increase_factor").nullable().optional(),
    risk_bound_max_iterations: riskBoundMaxIterationsSchema().nullable().optional(),
    use_regula_falsi: configBoolean("use_regula_falsi").nullable().optional(),
    use_turnover_constraint: configBoolean("use_turnover_constraint").nullable().optional(),
    max_turnover_pct: configDecimal("max_turnover_pct").nullable().optional(),
    require_whole_shares: configBoolean("require_whole_shares").nullable().optional(),
    whole_share_assets: describe(
      z.array(themeAssetId(), { error: expectedMessage("an array of theme_asset_ids") }),
      "assets that trade in whole shares; null = all assets when require_whole_shares is true",
    )
      .nullable()
      .optional(),
    substitution_pairs: describe(
      z.array(substitutionGroupSchema, { error: expectedMessage("an array of arrays of theme_asset_ids") }),
      "mutually exclusive groups",
    ).optional(),
    capital_gains_reductions: capitalGainsReductionsSchema.optional(),
    capital_gains_reductions_units: capitalGainsReductionUnitsSchema().nullable().optional(),
    use_cash_benchmark: configBoolean("use_cash_benchmark").nullable().optional(),
    linear_tcaf: configDecimal("linear_tcaf").nullable().optional(),
    commission_rate: configDecimal("commission_rate").nullable().optional(),
    broker_spread_bps: configDecimal("broker_spread_bps").nullable().optional(),
    min_trading_volume_dollars: configDecimal("min_trading_volume_dollars").nullable().optional(),
    min_trade_amount_usd: configDecimal("min_trade_amount_usd").nullable().optional(),
    min_trade_pct: configDecimal("min_trade_pct").nullable().optional(),
    max_trade_count: maxTradeCountSchema().nullable().optional(),
  };
}

/** Pairs (lower, upper) of fields that must be ordered when both are given. */
const ORDERED_PAIRS = [
  ["min_weight", "max_weight"],
  ["min_active_weight", "max_active_weight"],
] as const;

type OrderedFields = Partial<Record<(typeof ORDERED_PAIRS)[number][number], string | null | undefined>>;

function checkOrderedPairs(value: OrderedFields, ctx: z.core.$RefinementCtx<unknown>): void {
  for (const [low, high] of ORDERED_PAIRS) {
    const a = value[low];
    const b = value[high];
    if (!orderedDecimalStrings(a, b))
      ctx.addIssue({ code: "custom", path: [high], message: `${high} (${b}) is below ${low} (${a})` });
  }
}

const statusWrite = describe(z.enum(PORTFOLIO_CONFIG_STATUSES), "draft, deployed or archived");

/**
 * Portfolio configuration, write shape (body of the PATCH). Every field is optional; provided lists replace
 * the stored lists; null resets a scalar field (to its default, or unset).
 */
export const portfolioConfigWriteSchema = named(
  z
    .strictObject(
      { ...writeFields(), status: statusWrite.optional() },
      { error: expectedMessage("an object") },
    )
    .superRefine(checkOrderedPairs),
  "PortfolioConfigWrite",
  "Portfolio configuration update (PATCH body); lists provided replace the stored lists.",
);
/** Portfolio configuration, write shape. */
export type PortfolioConfigWrite = z.infer<typeof portfolioConfigWriteSchema>;

/** Portfolio configuration, create shape (extension): the write shape with `name` required. */
export const portfolioConfigCreateSchema = named(
  z
    .strictObject(
      {
        ...writeFields(),
        name: describe(displayName(), "configuration name, 1 to 255 characters"),
        status: statusWrite.optional(),
      },
      { error: expectedMessage("an object") },
    )
    .superRefine(checkOrderedPairs),
  "PortfolioConfigCreate",
  "Body of configuration creation (extension): the write shape with name required; status defaults to draft.",
);
/** Portfolio configuration, create shape. */
export type PortfolioConfigCreate = z.infer<typeof portfolioConfigCreateSchema>;

/** An account's customization_config in a write: the configuration write shape without status. */
export const customizationConfigWriteSchema = named(
  z.strictObject(writeFields(), { error: expectedMessage("an object") }).superRefine(checkOrderedPairs),
  "CustomizationConfigWrite",
  "An account's configuration overrides: the configuration write shape without status.",
);
/** customization_config in a write. */
export type CustomizationConfigWrite = z.infer<typeof customizationConfigWriteSchema>;

/** Portfolio configuration, read shape (responses of list, read, create and update). */
export const portfolioConfigReadSchema = named(
  z.strictObject({
    uuid: uuid(),
    name: z.string().max(255),
    status: describe(z.string(), "draft, deployed or archived (unrestricted string in a read)"),
    optimization_mode: optimizationModeSchema(),
    long_weight_sum: configDecimal("long_weight_sum").nullable(),
    short_weight_sum: configDecimal("short_weight_sum").nullable(),
    risk_model_name: riskModelNameSchema().nullable(),
    no_hold_tickers: z.array(tickerReferenceReadSchema),
    no_trade_tickers: z.array(tickerReferenceReadSchema),
    target_ticker_weights: z.array(targetTickerWeightReadSchema),
    min_weight: configDecimal("min_weight").nullable(),
    max_weight: configDecimal("max_weight").nullable(),
    min_active_weight: configDecimal("min_active_weight").nullable(),
    max_active_weight: configDecimal("max_active_weight").nullable(),
    use_active_risk_bounds: configBoolean("use_active_risk_bounds"),
    max_active_risk_pct: configDecimal("max_active_risk_pct").nullable(),
    scaling_factor: configDecimal("scaling_factor").nullable(),
    use_mean_variance: configBoolean("use_mean_variance"),
    factor_exposure_bounds: z.array(factorExposureBoundReadSchema),
    tax_preferences: taxPreferencesReadSchema,
    asset_allocations: z.array(assetAllocationReadSchema),
    bid_ask_spread_ref_volume: configDecimal("bid_ask_spread_ref_volume").nullable(),
    market_impact_parameter: configDecimal("market_impact_parameter").nullable(),
    bid_ask_spread_parameter: configDecimal("bid_ask_spread_parameter").nullable(),
    tcost_bps: configDecimal("tcost_bps").nullable(),
    cash_buffer_usd: configDecimal("cash_buffer_usd").nullable(),
    cash_buffer_cad: configDecimal("cash_buffer_cad").nullable(),
    cash_buffer_usd_amount: configDecimal("cash_buffer_usd_amount").nullable(),
    cash_buffer_cad_amount: configDecimal("cash_buffer_cad_amount").nullable(),
    drift_warning_threshold: configDecimal("drift_warning_threshold").nullable(),
    drift_breach_threshold: configDecimal("drift_breach_threshold").nullable(),
    asset_drift_breach_threshold: configDecimal("asset_drift_breach_threshold").nullable(),
    dynamic_rules: z.array(dynamicRuleSchema),
    evaluation_rules: z.array(evaluationRuleReadSchema),
    risk_aversion: configDecimal("risk_aversion"),
    risk_free_rate_pct: configDecimal("risk_free_rate_pct"),
    spectral_shift: configDecimal("spectral_shift"),
    risk_bound_increase_factor: configDecimal("risk_bound_increase_factor"),
    risk_bound_max_iterations: riskBoundMaxIterationsSchema(),
    use_regula_falsi: configBoolean("use_regula_falsi"),
    use_turnover_constraint: configBoolean("use_turnover_constraint"),
    max_turnover_pct: configDecimal("max_turnover_pct"),
    require_whole_shares: configBoolean("require_whole_shares"),
    whole_share_assets: z.array(themeAssetId()).nullable(),
    substitution_pairs: z.array(substitutionGroupSchema),
    capital_gains_reductions: capitalGainsReductionsSchema,
    capital_gains_reductions_units: capitalGainsReductionUnitsSchema(),
    use_cash_benchmark: configBoolean("use_cash_benchmark"),
    linear_tcaf: configDecimal("linear_tcaf"),
    commission_rate: configDecimal("commission_rate"),
    broker_spread_bps: configDecimal("broker_spread_bps"),
    min_trading_volume_dollars: configDecimal("min_trading_volume_dollars"),
    min_trade_amount_usd: configDecimal("min_trade_amount_usd"),
    min_trade_pct: configDecimal("min_trade_pct"),
    max_trade_count: maxTradeCountSchema().nullable(),
  }),
  "PortfolioConfigRead",
  "Portfolio configuration as returned by the service; unset fields are null, library defaults filled in.",
);
/** Portfolio configuration, read shape. */
export type PortfolioConfigRead = z.infer<typeof portfolioConfigReadSchema>;

/** Response of endpoint 3: an array of configurations (read shape). */
export const portfolioConfigListSchema = named(
  z.array(portfolioConfigReadSchema),
  "PortfolioConfigList",
  "Response of the list endpoint: configurations in read shape.",
);
/** Response of endpoint 3. */
export type PortfolioConfigList = z.infer<typeof portfolioConfigListSchema>;
