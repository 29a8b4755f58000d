/**
 * @module contract/portfolio-config-read
 * From stored write shapes to the read shape. A configuration is stored as the merge of its writes
 * ({@link mergePortfolioConfigWrite}: lists replace, tax preferences merge field by field, null resets); the
 * read ({@link portfolioConfigReadFromWrite}) fills defaults, prints every decimal in canonical form
 * (`formatDecimal`: "0.50" reads "0.5") and expands references through resolvers the service supplies.
 */
import type { AssetAllocationRead, AssetAllocationWrite, TiltRead } from "./asset-allocation.js";
import {
  PORTFOLIO_CONFIG_BOOLEAN_FIELDS,
  PORTFOLIO_CONFIG_DECIMAL_FIELDS,
  PORTFOLIO_CONFIG_SCALAR_DEFAULTS,
  type PortfolioConfigBooleanField,
  type PortfolioConfigDecimalField,
} from "./config-fields.js";
import { formatDecimal } from "./decimal.js";
import type { PortfolioConfigRead, PortfolioConfigWrite } from "./portfolio-config.js";
import { NUMERIC_STRING_WIDTH } from "./primitives.js";
import { DEFAULT_EVALUATION_RULE_TYPE, DEFAULT_EVALUATION_RULE_VERSION } from "./rules.js";
import {
  TAX_PREFERENCE_FIELDS,
  TAX_PREFERENCES_READ_DEFAULTS,
  type TaxPreferencesRead,
  type TaxPreferencesWrite,
} from "./tax-preferences.js";
import type { Ticker } from "./ticker.js";

/** Sleeve details a read shows for an allocation (everything but the allocation's own fields). */
export type AssetAllocationDetails = Omit<
  AssetAllocationRead,
  "target_allocation" | "direct_indexing_enabled" | "tilts"
>;

/**
 * Lookups the read needs; the service implements them over the store. Each may throw (e.g. a NotFoundError)
 * when a reference no longer resolves.
 */
export interface PortfolioConfigResolvers {
  /** The ticker object of a theme_asset_id. */
  ticker(themeAssetId: string): Ticker;
  /** Details of an asset class (name, benchmark, children...). */
  assetClass(assetClassUuid: string): AssetAllocationDetails;
  /** The theme a tilt points to. */
  theme(themeUuid: string): NonNullable<TiltRead["theme"]>;
  /** The index a tilt points to. */
  index(indexUuid: string): NonNullable<TiltRead["index"]>;
}

/** A stored configuration: its identity, its status and the merged write shape. */
export interface StoredPortfolioConfig {
  uuid: string;
  /** Status to report; when absent, the stored write's status, else "draft". */
  status?: string | undefined;
  config: PortfolioConfigWrite;
}

type Mutable = Record<string, unknown>;

/**
 * Applies a PATCH to a stored configuration: a provided list or object replaces the stored one (tax
 * preferences merge field by field), a scalar overwrites, null removes the field (so it reads as its default
 * or null), an absent field keeps the stored value. Neither input is mutated.
 * @example mergePortfolioConfigWrite({ min_weight: "0.01", max_weight: "0.1" }, { max_weight: null })
 *   // { min_weight: "0.01" }
 */
export function mergePortfolioConfigWrite(
  stored: PortfolioConfigWrite,
  patch: PortfolioConfigWrite,
): PortfolioConfigWrite {
  const out: Mutable = { ...stored };
  for (const [key, value] of Object.entries(patch)) {
    if (value === undefined) continue;
    if (key === "tax_preferences" && value !== null) {
      const merged: Mutable = { ...(stored.tax_preferences ?? {}) };
      for (const [k, v] of Object.entries(value as TaxPreferencesWrite)) {
        if (v === undefined) continue;
        if (v === null) delete merged[k];
        else merged[k] = v;
      }
      out[key] = merged;
    } else if (value === null) delete out[key];
    else out[key] = value;
  }
  return out as PortfolioConfigWrite;
}

const N = NUMERIC_STRING_WIDTH;

function numeric(value: string, field: string): string {
  return formatDecimal(value, N.integerDigits, N.fractionDigits, field);
}

function numericOrNull(value: string | null | undefined, field: string): string | null {
  return value == null ? null : numeric(value, field);
}

function configDecimalRead(config: PortfolioConfigWrite, field: PortfolioConfigDecimalField): string | null {
  const spec = PORTFOLIO_CONFIG_DECIMAL_FIELDS[field];
  const value = config[field] ?? spec.default;
  return value === null ? null : formatDecimal(value, spec.integerDigits, spec.fractionDigits, field);
}

function withDefault(config: PortfolioConfigWrite, field: PortfolioConfigDecimalField): string {
  const value = configDecimalRead(config, field);
  if (value === null) throw new TypeError(`portfolioConfigReadFromWrite: ${field} has no default`);
  return value;
}

function booleanRead(config: PortfolioConfigWrite, field: PortfolioConfigBooleanField): boolean {
  return config[field] ?? PORTFOLIO_CONFIG_BOOLEAN_FIELDS[field].default;
}

function taxPreferencesRead(prefs: TaxPreferencesWrite | undefined): TaxPreferencesRead {
  const out: Mutable = { ...TAX_PREFERENCES_READ_DEFAULTS };
  for (const key of TAX_PREFERENCE_FIELDS) {
    const value = prefs?.[key];
    out[key] =
      typeof value === "string"
        ? numeric(value, `tax_preferences.${key}`)
        : value === undefined
          ? null
          : value;
  }
  return out as TaxPreferencesRead;
}

function allocationRead(
  item: AssetAllocationWrite,
  resolvers: PortfolioConfigResolvers,
  i: number,
): AssetAllocationRead {
  const details = resolvers.assetClass(item.asset_class_uuid);
  return {
    ...details,
    target_allocation: numeric(item.target_allocation, `asset_allocations[${i}].target_allocation`),
    direct_indexing_enabled: item.direct_indexing_enabled ?? false,
    tilts: (item.tilts ?? []).map((t, j) => ({
      weight_adjustment: numeric(
        t.weight_adjustment,
        `asset_allocations[${i}].tilts[${j}].weight_adjustment`,
      ),
      theme: t.theme_uuid == null ? null : resolvers.theme(t.theme_uuid),
      index: t.index_uuid == null ? null : resolvers.index(t.index_uuid),
    })),
  };
}

/**
 * The read shape of a stored configuration: every field present, defaults filled (library defaults of the
 * spec; risk_aversion 2), unset fields null, decimals canonical, references expanded by `resolvers`,
 * evaluation rules given rule_type model_drift and version 1, duplicate assets removed from substitution groups.
 * A configuration without a name (an account customization) reads name "".
 * @throws whatever a resolver throws for a reference that does not resolve.
 */
export function portfolioConfigReadFromWrite(
  stored: StoredPortfolioConfig,
  resolvers: PortfolioConfigResolvers,
): PortfolioConfigRead {
  const c = stored.config;
  const tickerRef = (r: NonNullable<PortfolioConfigWrite["no_hold_tickers"]>[number]) => ({
    ticker: resolvers.ticker(r.theme_asset_id),
    starts_from: r.starts_from ?? null,
    expires_at: r.expires_at ?? null,
    condition: r.condition ?? null,
  });
  const gains: Record<string, string> = {};
  for (const [id, amount] of Object.entries(c.capital_gains_reductions ?? {}))
    gains[id] = numeric(amount, `capital_gains_reductions["${id}"]`);
  return {
    uuid: stored.uuid,
    name: c.name ?? "",
    status: stored.status ?? c.status ?? PORTFOLIO_CONFIG_SCALAR_DEFAULTS.status,
    optimization_mode: c.optimization_mode ?? PORTFOLIO_CONFIG_SCALAR_DEFAULTS.optimization_mode,
    long_weight_sum: configDecimalRead(c, "long_weight_sum"),
    short_weight_sum: configDecimalRead(c, "short_weight_sum"),
    risk_model_name: c.risk_model_name ?? PORTFOLIO_CONFIG_SCALAR_DEFAULTS.risk_model_name,
    no_hold_tickers: (c.no_hold_tickers ?? []).map(tickerRef),
    no_trade_tickers: (c.no_trade_tickers ?? []).map(tickerRef),
    target_ticker_weights: (c.target_ticker_weights ?? []).map((t, i) => {
      const at = (name: string) => `target_ticker_weights[${i}].${name}`;
      return {
        ticker: resolvers.ticker(t.theme_asset_id),
        target_weight: numericOrNull(t.target_weight, at("target_weight")),
        lower_bound: numericOrNull(t.lower_bound, at("lower_bound")),
        upper_bound: numericOrNull(t.upper_bound, at("upper_bound")),
        min_active: numericOrNull(t.min_active, at("min_active")),
        max_active: numericOrNull(t.max_active, at("max_active")),
        condition: t.condition ?? null,
      };
    }),
    min_weight: configDecimalRead(c, "min_weight"),
    max_weight: configDecimalRead(c, "max_weight"),
    min_active_weight: configDecimalRead(c, "min_active_weight"),
    max_active_weight: configDecimalRead(c, "max_active_weight"),
    use_active_risk_bounds: booleanRead(c, "use_active_risk_bounds"),
    max_active_risk_pct: configDecimalRead(c, "max_active_risk_pct"),
    scaling_factor: configDecimalRead(c, "scaling_factor"),
    use_mean_variance: booleanRead(c, "use_mean_variance"),
    factor_exposure_bounds: (c.factor_exposure_bounds ?? []).map((b, i) => {
      const at = (name: string) => `factor_exposure_bounds[${i}].${name}`;
      return {
        factor: b.factor,
        min_bound: numericOrNull(b.min_bound, at("min_bound")),
        max_bound: numericOrNull(b.max_bound, at("max_bound")),
        min_active_bound: numericOrNull(b.min_active_bound, at("min_active_bound")),
        max_active_bound: numericOrNull(b.max_active_bound, at("max_active_bound")),
      };
    }),
    tax_preferences: taxPreferencesRead(c.tax_preferences),
    asset_allocations: (c.asset_allocations ?? []).map((a, i) => allocationRead(a, resolvers, i)),
    bid_ask_spread_ref_volume: configDecimalRead(c, "bid_ask_spread_ref_volume"),
    market_impact_parameter: configDecimalRead(c, "market_impact_parameter"),
    bid_ask_spread_parameter: configDecimalRead(c, "bid_ask_spread_parameter"),
    tcost_bps: configDecimalRead(c, "tcost_bps"),
    cash_buffer_usd: configDecimalRead(c, "cash_buffer_usd"),
    cash_buffer_cad: configDecimalRead(c, "cash_buffer_cad"),
    cash_buffer_usd_amount: configDecimalRead(c, "cash_buffer_usd_amount"),
    cash_buffer_cad_amount: configDecimalRead(c, "cash_buffer_cad_amount"),
    drift_warning_threshold: configDecimalRead(c, "drift_warning_threshold"),
    drift_breach_threshold: configDecimalRead(c, "drift_breach_threshold"),
    asset_drift_breach_threshold: configDecimalRead(c, "asset_drift_breach_threshold"),
    dynamic_rules: c.dynamic_rules ?? [],
    evaluation_rules: (c.evaluation_rules ?? []).map((r) => ({
      rule_type: DEFAULT_EVALUATION_RULE_TYPE,
      rules: r.rules,
      version: DEFAULT_EVALUATION_RULE_VERSION,
      enabled: r.enabled,
    })),
    risk_aversion: withDefault(c, "risk_aversion"),
    risk_free_rate_pct: withDefault(c, "risk_free_rate_pct"),
    spectral_shift: withDefault(c, "spectral_shift"),
    risk_bound_increase_factor: withDefault(c, "risk_bound_increase_factor"),
    risk_bound_max_iterations:
      c.risk_bound_max_iterations ?? PORTFOLIO_CONFIG_SCALAR_DEFAULTS.risk_bound_max_iterations,
    use_regula_falsi: booleanRead(c, "use_regula_falsi"),
    use_turnover_constraint: booleanRead(c, "use_turnover_constraint"),
    max_turnover_pct: withDefault(c, "max_turnover_pct"),
    require_whole_shares: booleanRead(c, "require_whole_shares"),
    whole_share_assets: c.whole_share_assets ?? null,
    substitution_pairs: (c.substitution_pairs ?? []).map((group) => [...new Set(group)]),
    capital_gains_reductions: gains,
    capital_gains_reductions_units:
      c.capital_gains_reductions_units ?? PORTFOLIO_CONFIG_SCALAR_DEFAULTS.capital_gains_reductions_units,
    use_cash_benchmark: booleanRead(c, "use_cash_benchmark"),
    linear_tcaf: withDefault(c, "linear_tcaf"),
    commission_rate: withDefault(c, "commission_rate"),
    broker_spread_bps: withDefault(c, "broker_spread_bps"),
    min_trading_volume_dollars: withDefault(c, "min_trading_volume_dollars"),
    min_trade_amount_usd: withDefault(c, "min_trade_amount_usd"),
    min_trade_pct: withDefault(c, "min_trade_pct"),
    max_trade_count: c.max_trade_count ?? null,
  };
}
