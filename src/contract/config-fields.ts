/**
 * @module contract/config-fields
 * The scalar fields of a portfolio configuration, in one table: digit limits, ranges and read defaults.
 * The write and read schemas, the dynamic-rule check and the write -> read normalization all derive from it.
 */
import * as z from "zod";
import { type DecimalRange, decimalString } from "./decimal.js";
import { bool, boundedInt } from "./primitives.js";
import { describe } from "./registry.js";

/** Optimization modes of a configuration. */
export const OPTIMIZATION_MODES = ["LONG_ONLY", "LONG_SHORT", "LONG_BIASED"] as const;
/** Risk models the optimizer can use. */
export const RISK_MODEL_NAMES = ["custom", "pca", "characteristics", "vendor"] as const;
/** Units of `capital_gains_reductions` amounts. */
export const CAPITAL_GAINS_REDUCTION_UNITS = ["DOLLARS", "PERCENT"] as const;
/** Values `status` accepts in a configuration write. */
export const PORTFOLIO_CONFIG_STATUSES = ["draft", "deployed", "archived"] as const;

/** Digit limits, range, read default and meaning of one decimal field. `default: null` = unset reads null. */
export interface DecimalFieldSpec {
  integerDigits: number;
  fractionDigits: number;
  range?: DecimalRange;
  default: string | null;
  description: string;
}

const NON_NEGATIVE: DecimalRange = { min: "0" };

/**
 * Range of a field that is a fraction of the portfolio (0.05 = 5%). A value outside it is almost always a percent
 * typed where a fraction belongs (`max_weight=5` for 5%), so the refusal names the field and the unit.
 */
function fraction(field: string, min: "0" | "-1", what = "a fraction of the portfolio"): DecimalRange {
  return { min, max: "1", unitHint: `${field} is ${what}, ${min} to 1: 0.05 means 5%` };
}

/**
 * Every decimal field of the configuration table with its `decimal(i,f)` width. Ranges: the spec's Limits
 * table (max_active_risk_pct 0..100, cash buffers 0..1) plus non-negativity where a negative value has no
 * meaning (costs, amounts, thresholds, risk aversion). Defaults are the spec's library defaults, except
 * risk_aversion which reads as the application default 2.
 */
export const PORTFOLIO_CONFIG_DECIMAL_FIELDS = {
  long_weight_sum: {
    integerDigits: 3,
    fractionDigits: 2,
    default: null,
    description: "target sum of long weights for LONG_SHORT / LONG_BIASED (2.5 = 250% long)",
  },
  short_weight_sum: {
    integerDigits: 3,
    fractionDigits: 2,
    default: null,
    description: "target sum of short weights for LONG_SHORT / LONG_BIASED (negative = short)",
  },
  min_weight: {
    integerDigits: 3,
    fractionDigits: 2,
    range: fraction("min_weight", "-1"),
    default: null,
    description: "lower bound of every asset weight",
  },
  max_weight: {
    integerDigits: 3,
    fractionDigits: 2,
    range: fraction("max_weight", "-1"),
    default: null,
    description: "upper bound of every asset weight",
  },
  min_active_weight: {
    integerDigits: 3,
    fractionDigits: 2,
    range: fraction("min_active_weight", "-1"),
    default: null,
    description: "lower bound of every active weight (weight - benchmark weight)",
  },
  max_active_weight: {
    integerDigits: 3,
    fractionDigits: 2,
    range: fraction("max_active_weight", "-1"),
    default: null,
    description: "upper bound of every active weight (weight - benchmark weight)",
  },
  max_active_risk_pct: {
    integerDigits: 3,
    fractionDigits: 2,
    range: { min: "0", max: "100" },
    default: null,
    description: "active-risk cap in percent (0 to 100); enforced only when use_active_risk_bounds is true",
  },
  scaling_factor: { integerDigits: 3, fractionDigits: 2, default: null, description: "scaling factor" },
  bid_ask_spread_ref_volume: {
    integerDigits: 8,
    fractionDigits: 2,
    range: NON_NEGATIVE,
    default: null,
    description: "transaction-cost parameter: reference volume of the bid-ask spread term",
  },
  market_impact_parameter: {
    integerDigits: 8,
    fractionDigits: 2,
    range: NON_NEGATIVE,
    default: null,
    description: "transaction-cost parameter: market impact coefficient",
  },
  bid_ask_spread_parameter: {
    integerDigits: 8,
    fractionDigits: 2,
    range: NON_NEGATIVE,
    default: null,
    description: "transaction-cost parameter: bid-ask spread coefficient",
  },
  tcost_bps: {
    integerDigits: 8,
    fractionDigits: 2,
    range: NON_NEGATIVE,
    default: null,
    description: "flat transaction cost in basis points of traded value",
  },
  cash_buffer_usd: {
    integerDigits: 1,
    fractionDigits: 4,
    range: fraction("cash_buffer_usd", "0"),
    default: null,
    description: "USD cash buffer as a fraction of portfolio value, 0.0 to 1.0 (0.05 = 5%)",
  },
  cash_buffer_cad: {
    integerDigits: 1,
    fractionDigits: 4,
    range: fraction("cash_buffer_cad", "0"),
    default: null,
    description: "CAD cash buffer as a fraction of portfolio value, 0.0 to 1.0",
  },
  cash_buffer_usd_amount: {
    integerDigits: 10,
    fractionDigits: 2,
    range: NON_NEGATIVE,
    default: null,
    description: "absolute USD buffer; when set it overrides cash_buffer_usd",
  },
  cash_buffer_cad_amount: {
    integerDigits: 10,
    fractionDigits: 2,
    range: NON_NEGATIVE,
    default: null,
    description: "absolute CAD buffer; when set it overrides cash_buffer_cad",
  },
  drift_warning_threshold: {
    integerDigits: 2,
    fractionDigits: 10,
    range: fraction("drift_warning_threshold", "0", "a fractional weight"),
    default: null,
    description: "total-drift warning threshold as a fractional weight",
  },
  drift_breach_threshold: {
    integerDigits: 2,
    fractionDigits: 10,
    range: fraction("drift_breach_threshold", "0", "a fractional weight"),
    default: null,
    description: "total-drift breach threshold as a fractional weight",
  },
  asset_drift_breach_threshold: {
    integerDigits: 2,
    fractionDigits: 10,
    range: fraction("asset_drift_breach_threshold", "0", "a fractional weight"),
    default: null,
    description: "absolute per-asset drift breach threshold as a fractional weight",
  },
  risk_aversion: {
    integerDigits: 3,
    fractionDigits: 3,
    range: NON_NEGATIVE,
    default: "2",
    description: "risk aversion lambda (application default 2; library default 1.0)",
  },
  risk_free_rate_pct: {
    integerDigits: 3,
    fractionDigits: 4,
    default: "4",
    description: "risk-free rate in percent, used in Sharpe ratios",
  },
  spectral_shift: {
    integerDigits: 5,
    fractionDigits: 10,
    range: NON_NEGATIVE,
    default: "0",
    description: "added to the risk matrix diagonal for conditioning",
  },
  risk_bound_increase_factor: {
    integerDigits: 4,
    fractionDigits: 4,
    range: { min: "1" },
    default: "2",
    description: "factor applied to risk bounds on infeasibility (at least 1)",
  },
  max_turnover_pct: {
    integerDigits: 4,
    fractionDigits: 4,
    range: NON_NEGATIVE,
    default: "100",
    description: "turnover cap in percent of portfolio value; enforced when use_turnover_constraint is true",
  },
  linear_tcaf: {
    integerDigits: 4,
    fractionDigits: 6,
    range: fraction("linear_tcaf", "0", "a fraction of the traded value"),
    default: "0",
    description: "linear transaction cost as a fraction of traded value",
  },
  commission_rate: {
    integerDigits: 4,
    fractionDigits: 4,
    range: NON_NEGATIVE,
    default: "0.75",
    description: "commission rate",
  },
  broker_spread_bps: {
    integerDigits: 6,
    fractionDigits: 4,
    range: NON_NEGATIVE,
    default: "30",
    description: "broker spread in basis points",
  },
  min_trading_volume_dollars: {
    integerDigits: 14,
    fractionDigits: 2,
    range: NON_NEGATIVE,
    default: "1000000",
    description: "minimum trading volume for market impact, in USD",
  },
  min_trade_amount_usd: {
    integerDigits: 12,
    fractionDigits: 2,
    range: NON_NEGATIVE,
    default: "100",
    description:
      "extension: smallest order in USD; the minimum trade is the larger of this and min_trade_pct of NAV (orders closing a position excepted; 0 = off)",
  },
  min_trade_pct: {
    integerDigits: 3,
    fractionDigits: 4,
    range: { min: "0", max: "100" },
    default: "0.05",
    description: "extension: smallest order in percent of NAV (0.05 = 0.05%; 0 = off)",
  },
} as const satisfies Record<string, DecimalFieldSpec>;

/** Name of a decimal field of the configuration. */
export type PortfolioConfigDecimalField = keyof typeof PORTFOLIO_CONFIG_DECIMAL_FIELDS;

/** Boolean fields with their read defaults. */
export const PORTFOLIO_CONFIG_BOOLEAN_FIELDS = {
  use_active_risk_bounds: { default: false, description: "enforce the active-risk cap max_active_risk_pct" },
  use_mean_variance: {
    default: false,
    description: "optimize total risk with expected returns (mean-variance)",
  },
  use_regula_falsi: {
    default: true,
    description: "regula falsi search for tax_gamma (tax budget / gain target)",
  },
  use_turnover_constraint: { default: false, description: "enforce max_turnover_pct" },
  require_whole_shares: { default: false, description: "trade whole shares (see whole_share_assets)" },
  use_cash_benchmark: { default: false, description: "include cash as a benchmark component" },
} as const;

/** Name of a boolean field of the configuration. */
export type PortfolioConfigBooleanField = keyof typeof PORTFOLIO_CONFIG_BOOLEAN_FIELDS;

/** Read defaults of the non-decimal scalar fields. */
export const PORTFOLIO_CONFIG_SCALAR_DEFAULTS = {
  status: "draft",
  optimization_mode: "LONG_ONLY",
  risk_model_name: null,
  risk_bound_max_iterations: 10,
  capital_gains_reductions_units: "DOLLARS",
} as const;

/** Largest value of `risk_bound_max_iterations` (the spec's 32-bit limit). */
export const MAX_RISK_BOUND_ITERATIONS = 2_147_483_647;

/** Schema of one configuration decimal field (no null, no optional): its width and range. */
export function configDecimal(field: PortfolioConfigDecimalField) {
  const spec: DecimalFieldSpec = PORTFOLIO_CONFIG_DECIMAL_FIELDS[field];
  return describe(decimalString(spec.integerDigits, spec.fractionDigits, spec.range ?? {}), spec.description);
}

/** Schema of one configuration boolean field. */
export function configBoolean(field: PortfolioConfigBooleanField) {
  return describe(bool(), PORTFOLIO_CONFIG_BOOLEAN_FIELDS[field].description);
}

/** `optimization_mode` enum schema. */
export function optimizationModeSchema() {
  return describe(z.enum(OPTIMIZATION_MODES), "LONG_ONLY, LONG_SHORT or LONG_BIASED");
}

/** `risk_model_name` enum schema. */
export function riskModelNameSchema() {
  return describe(z.enum(RISK_MODEL_NAMES), "risk model used by the optimizer");
}

/** `capital_gains_reductions_units` enum schema. */
export function capitalGainsReductionUnitsSchema() {
  return describe(z.enum(CAPITAL_GAINS_REDUCTION_UNITS), "units of capital_gains_reductions amounts");
}

/** `max_trade_count` schema (extension): integer 0 to 2147483647, null = no limit. */
export function maxTradeCountSchema() {
  return describe(
    boundedInt(0, MAX_RISK_BOUND_ITERATIONS),
    "extension: most orders a rebalance may have (the largest are kept); null = no limit",
  );
}

/** `risk_bound_max_iterations` schema: integer 0 to 2147483647. */
export function riskBoundMaxIterationsSchema() {
  return describe(
    boundedInt(0, MAX_RISK_BOUND_ITERATIONS),
    "maximum number of risk-bound relaxations on infeasibility (0 to 2147483647)",
  );
}

/**
 * The scalar fields a dynamic rule may override, each with the schema its `value` must satisfy
 * (a decimal string, boolean, enum or integer, exactly as in a configuration write).
 */
export function dynamicRuleFieldSchemas(): ReadonlyMap<string, z.ZodType> {
  const map = new Map<string, z.ZodType>();
  for (const name of Object.keys(PORTFOLIO_CONFIG_DECIMAL_FIELDS) as PortfolioConfigDecimalField[])
    map.set(name, configDecimal(name));
  for (const name of Object.keys(PORTFOLIO_CONFIG_BOOLEAN_FIELDS) as PortfolioConfigBooleanField[])
    map.set(name, configBoolean(name));
  map.set("optimization_mode", optimizationModeSchema());
  map.set("risk_model_name", riskModelNameSchema());
  map.set("capital_gains_reductions_units", capitalGainsReductionUnitsSchema());
  map.set("risk_bound_max_iterations", riskBoundMaxIterationsSchema());
  return map;
}
