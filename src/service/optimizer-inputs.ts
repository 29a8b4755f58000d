/**
 * @module service/optimizer-inputs
 * What `lotwise optimize` and the account backtest share to build the optimizer's input from the store: the mapping
 * of an account's effective configuration on a date to the core `OptimizerConfig` (docs/optimize-service.md, step 2),
 * and the point-in-time inputs of the `characteristics` risk model (step 8). One implementation, so a backtest runs
 * the configuration and the risk model the account is optimized with.
 */
import type { PortfolioConfigRead, PortfolioConfigWrite } from "../contract/index.js";
import type { Security } from "../core/data/types.js";
import {
  type FactorExposureBound,
  type OptimizerConfig,
  type OptimizerConfigInput,
  type OptimizerTaxPreferences,
  resolveOptimizerConfig,
  type TickerTarget,
} from "../core/optimizer/index.js";
import { buildRiskModel, type FactorModel, type RiskModelInputs } from "../core/risk/index.js";
import type { AccountRecord } from "../store/index.js";
import type { ServiceContext } from "./context.js";
import {
  type AccountConditionContext,
  type ConfigInputs,
  type EffectiveConfig,
  effectiveConfig,
  effectiveConfigLoaded,
  loadConfigInputs,
} from "./effective-config.js";

/** risk_aversion when a configuration leaves it unset (the application default; the library's is 1). */
export const SERVICE_RISK_AVERSION = 2;
/** Daily returns the risk model is estimated from (at most). */
export const RISK_LOOKBACK_DAYS = 252;
/** Fewest observed returns for an asset to be estimated by the statistical model (others are imputed). */
export const MIN_RETURN_OBSERVATIONS = 60;
/** Style characteristics of the `characteristics` risk model, used when the store holds them. */
export const STYLE_CHARACTERISTICS = [
  "momentum",
  "volatility",
  "book_to_price",
  "earnings_yield",
  "dividend_yield",
  "profitability",
  "growth",
] as const;

/** What the service resolved for the optimizer besides the configuration itself. */
export interface ConfigResolution {
  /** no_hold_tickers active on the date (conditions resolved); default: entries whose window holds at the end of `asOf`. */
  noHold?: readonly string[];
  /** no_trade_tickers active on the date. */
  noTrade?: readonly string[];
  /** Does a target_ticker_weights condition hold for the asset? @default true (a label) */
  conditionHolds?: (themeAssetId: string, condition: string, path: string) => boolean;
}

const num = (v: string | null | undefined): number | null =>
  v === null || v === undefined ? null : Number(v);
const numOr = (v: string | null | undefined): number | undefined =>
  v === null || v === undefined ? undefined : Number(v);

/**
 * The optimizer's configuration (camelCase numbers) from a configuration read (snake_case, decimals as strings),
 * typically the account's effective configuration on `asOf`. Every field with an optimizer counterpart is mapped
 * (docs/optimize-service.md has the table); risk_aversion defaults to 2, the application default. Restrictions
 * come from `resolved` when given (the service resolves their conditions against the store), else from the read's
 * entries whose validity window holds at the end of `asOf`. target_ticker_weights entries whose condition does not
 * hold are left out.
 * @example optimizerConfigFromPortfolioConfig(read, "2025-12-31").maxWeight // 0.1 for max_weight "0.1"
 */
export function optimizerConfigFromPortfolioConfig(
  read: PortfolioConfigRead,
  asOf: string,
  resolved: ConfigResolution = {},
): OptimizerConfigInput {
  const at = `${asOf}T23:59:59.999Z`;
  const active = (list: PortfolioConfigRead["no_hold_tickers"]) =>
    list
      .filter(
        (r) =>
          (r.starts_from === null || r.starts_from <= at) && (r.expires_at === null || at < r.expires_at),
      )
      .map((r) => r.ticker.theme_asset_id);
  const holds = resolved.conditionHolds ?? (() => true);
  const targets: TickerTarget[] = [];
  read.target_ticker_weights.forEach((t, i) => {
    const id = t.ticker.theme_asset_id;
    if (t.condition !== null && !holds(id, t.condition, `target_ticker_weights[${i}]`)) return;
    targets.push({
      themeAssetId: id,
      targetWeight: num(t.target_weight),
      lowerBound: num(t.lower_bound),
      upperBound: num(t.upper_bound),
      minActive: num(t.min_active),
      maxActive: num(t.max_active),
    });
  });
  const factorBounds: FactorExposureBound[] = read.factor_exposure_bounds.map((b) => ({
    factor: b.factor,
    minBound: num(b.min_bound),
    maxBound: num(b.max_bound),
    minActiveBound: num(b.min_active_bound),
    maxActiveBound: num(b.max_active_bound),
  }));
  const reductions: Record<string, number> = {};
  for (const [id, v] of Object.entries(read.capital_gains_reductions)) reductions[id] = Number(v);
  const tp = read.tax_preferences;
  const tax = defined<OptimizerTaxPreferences>({
    shortTermRate: numOr(tp.short_term_rate),
    longTermRate: numOr(tp.long_term_rate),
    taxGamma: numOr(tp.tax_gamma),
    taxGammaMin: numOr(tp.tax_gamma_min),
    taxGammaMax: numOr(tp.tax_gamma_max),
    taxBudgetUsd: num(tp.tax_budget_usd),
    taxGainTarget: num(tp.tax_gain_target),
    taxGainTargetTolerance: num(tp.tax_gain_target_tolerance),
    useTaxAlpha: tp.tax_use_tax_alpha ?? undefined,
    positiveTaxAlphaScalingFactor: numOr(tp.positive_tax_alpha_scaling_factor),
    nHighLossLots: tp.n_high_loss_lots,
    includePositiveTaxAlphaLots: tp.include_positive_tax_alpha_lots ?? undefined,
    preventTlhInvalidatingPurchase: tp.prevent_tlh_invalidating_purchase ?? undefined,
    preventTlhInvalidatingSale: tp.prevent_tlh_invalidating_sale ?? undefined,
    washSaleThresholdDays: tp.wash_sale_threshold ?? undefined,
    longTermThresholdDays: tp.long_term_threshold ?? undefined,
    trackingErrorThreshold: num(tp.tracking_error_threshold),
  });
  const rest = defined<Omit<OptimizerConfig, "tax">>({
    optimizationMode: read.optimization_mode as OptimizerConfigInput["optimizationMode"],
    longWeightSum: num(read.long_weight_sum),
    shortWeightSum: num(read.short_weight_sum),
    minWeight: num(read.min_weight),
    maxWeight: num(read.max_weight),
    minActiveWeight: num(read.min_active_weight),
    maxActiveWeight: num(read.max_active_weight),
    targetTickerWeights: targets,
    noHold: [...(resolved.noHold ?? active(read.no_hold_tickers))],
    noTrade: [...(resolved.noTrade ?? active(read.no_trade_tickers))],
    factorExposureBounds: factorBounds,
    useActiveRiskBounds: read.use_active_risk_bounds,
    maxActiveRiskPct: num(read.max_active_risk_pct),
    riskBoundIncreaseFactor: numOr(read.risk_bound_increase_factor),
    riskBoundMaxIterations: read.risk_bound_max_iterations,
    useMeanVariance: read.use_mean_variance,
    riskAversion: numOr(read.risk_aversion) ?? SERVICE_RISK_AVERSION,
    scalingFactor: numOr(read.scaling_factor),
    spectralShift: numOr(read.spectral_shift),
    useTurnoverConstraint: read.use_turnover_constraint,
    maxTurnoverPct: numOr(read.max_turnover_pct),
    tcostBps: num(read.tcost_bps),
    bidAskSpreadParameter: num(read.bid_ask_spread_parameter),
    bidAskSpreadRefVolume: num(read.bid_ask_spread_ref_volume),
    marketImpactParameter: num(read.market_impact_parameter),
    linearTcaf: numOr(read.linear_tcaf),
    commissionRate: numOr(read.commission_rate),
    brokerSpreadBps: numOr(read.broker_spread_bps),
    minTradingVolumeDollars: numOr(read.min_trading_volume_dollars),
    requireWholeShares: read.require_whole_shares,
    wholeShareAssets: read.whole_share_assets === null ? null : [...read.whole_share_assets],
    substitutionGroups: read.substitution_pairs.map((g) => [...g]),
    capitalGainsReductions: reductions,
    capitalGainsReductionsUnits: read.capital_gains_reductions_units as "DOLLARS" | "PERCENT",
    useCashBenchmark: read.use_cash_benchmark,
    cashBufferUsd: num(read.cash_buffer_usd),
    cashBufferCad: num(read.cash_buffer_cad),
    cashBufferUsdAmount: num(read.cash_buffer_usd_amount),
    cashBufferCadAmount: num(read.cash_buffer_cad_amount),
    useRegulaFalsi: read.use_regula_falsi,
    minTradeUsd: numOr(read.min_trade_amount_usd),
    minTradePct: numOr(read.min_trade_pct),
    maxTradeCount: read.max_trade_count,
  });
  return { ...rest, tax };
}

/** The object without its undefined fields (the optimizer's defaults then apply). */
function defined<T>(o: { [K in keyof T]: T[K] | undefined }): Partial<T> {
  const out: Partial<T> = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined) (out as Record<string, unknown>)[k] = v;
  return out;
}

/**
 * The account's configuration for the optimizer on `asOf`: its effective configuration on the date (portfolio
 * configuration, account customization, the dynamic rules in force, evaluated against `facts` when given), mapped by
 * {@link optimizerConfigFromPortfolioConfig} with the restrictions and target conditions resolved against the store
 * on the date. Warnings (labels kept as conditions) are appended to `warnings`.
 * @throws {ValidationError} for configuration values the optimizer refuses.
 * @example (await accountOptimizerConfig(ctx, account, "2025-06-30", undefined, [])).config.maxWeight // 0.1
 */
export async function accountOptimizerConfig(
  ctx: ServiceContext,
  account: AccountRecord,
  asOf: string,
  facts: AccountConditionContext | undefined,
  warnings: string[],
  inputs?: ConfigInputs,
): Promise<{ read: PortfolioConfigRead; config: OptimizerConfig; write: PortfolioConfigWrite }> {
  const loaded = inputs ?? (await loadConfigInputs(ctx, account));
  const eff = await effectiveConfig(
    ctx,
    account,
    asOf,
    facts === undefined ? {} : { account: facts },
    loaded,
  );
  // The mapping is synchronous: the per-ticker target conditions are read first.
  for (const t of eff.read.target_ticker_weights)
    if (t.condition !== null) await loaded.conditions.load(t.ticker.theme_asset_id, t.condition, asOf);
  return optimizerConfigOf(loaded, eff, asOf, warnings);
}

/**
 * {@link accountOptimizerConfig} from inputs read ahead for `asOf` ({@link primeConfigInputs}), synchronously: the
 * backtest engine asks for the configuration of each decision date from inside its loop.
 * @throws {Error} when the inputs were not primed for the date.
 */
export function accountOptimizerConfigLoaded(
  inputs: ConfigInputs,
  account: AccountRecord,
  asOf: string,
  facts: AccountConditionContext | undefined,
  warnings: string[],
): { read: PortfolioConfigRead; config: OptimizerConfig; write: PortfolioConfigWrite } {
  const eff = effectiveConfigLoaded(inputs, account, asOf, facts === undefined ? {} : { account: facts });
  return optimizerConfigOf(inputs, eff, asOf, warnings);
}

function optimizerConfigOf(
  inputs: ConfigInputs,
  eff: EffectiveConfig,
  asOf: string,
  warnings: string[],
): { read: PortfolioConfigRead; config: OptimizerConfig; write: PortfolioConfigWrite } {
  warnings.push(...eff.warnings);
  const read = eff.read;
  const input = optimizerConfigFromPortfolioConfig(read, asOf, {
    noHold: eff.noHold,
    noTrade: eff.noTrade,
    conditionHolds: (id, condition, path) => {
      const holds = inputs.conditions.evaluate(id, condition, asOf, path, warnings);
      if (holds === undefined)
        throw new Error(`accountOptimizerConfig: the condition of ${path} on ${asOf} was not read ahead.`);
      return holds;
    },
  });
  return { read, config: resolveOptimizerConfig(input), write: eff.write };
}

/** The tickers a configuration names (targets, restrictions, substitution groups): candidates of the universe. */
export function configuredTickers(config: OptimizerConfig): string[] {
  return [
    ...config.targetTickerWeights.map((t) => t.themeAssetId),
    ...config.noHold,
    ...config.noTrade,
    ...config.substitutionGroups.flat(),
  ];
}

/**
 * The `characteristics` risk model over `assets` on `asOf`: market, sector and style factors fitted to the trailing
 * daily USD returns (`returns`, periods x assets, NaN = missing), with the store's style characteristics
 * ({@link STYLE_CHARACTERISTICS} it holds) as of `asOf` as exposures, market caps from `market_cap` as of `asOf`
 * (else shares outstanding x `pricesUsd`, else the median cap, with a warning). Point in time: nothing dated after
 * `asOf` is read.
 */
export async function characteristicsRiskModel(
  ctx: ServiceContext,
  assets: readonly string[],
  securityOf: (themeAssetId: string) => Security | undefined,
  pricesUsd: Float64Array,
  returns: Float64Array,
  asOf: string,
  warnings: string[],
  /** Point-in-time values of one characteristic (default: the store's `characteristicsAsOf`). */
  read: (name: string, asOf: string) => Promise<ReadonlyMap<string, number>> = (name, date) =>
    ctx.store.market.characteristicsAsOf(name, date),
): Promise<FactorModel> {
  const available = new Set(await ctx.store.market.characteristicNames());
  const values = new Map<string, ReadonlyMap<string, number>>();
  for (const name of characteristicsModelInputs(available)) values.set(name, await read(name, asOf));
  return characteristicsRiskModelOf(assets, securityOf, pricesUsd, returns, warnings, available, (name) => {
    const v = values.get(name);
    if (v === undefined) throw new Error(`characteristicsRiskModel: ${name} was not read.`);
    return v;
  });
}

/** The characteristics the `characteristics` model reads when the store holds `available`. */
export function characteristicsModelInputs(available: ReadonlySet<string>): string[] {
  const names = STYLE_CHARACTERISTICS.filter((c) => available.has(c));
  return names.length > 0 || available.has("market_cap") ? [...names, "market_cap"] : [];
}

/**
 * {@link characteristicsRiskModel} over characteristics already read: `available` (the store's characteristic
 * names) and `read(name)`, the values of one characteristic on the model's date.
 */
export function characteristicsRiskModelOf(
  assets: readonly string[],
  securityOf: (themeAssetId: string) => Security | undefined,
  pricesUsd: Float64Array,
  returns: Float64Array,
  warnings: string[],
  available: ReadonlySet<string>,
  read: (name: string) => ReadonlyMap<string, number>,
): FactorModel {
  const n = assets.length;
  const names = STYLE_CHARACTERISTICS.filter((c) => available.has(c));
  const inputs: RiskModelInputs = { returns: { assets: [...assets], returns } };
  if (names.length > 0 || available.has("market_cap")) {
    const c = names.length;
    const characteristics = new Float64Array(n * c).fill(Number.NaN);
    names.forEach((nm, j) => {
      const values = read(nm);
      assets.forEach((id, i) => {
        const v = values.get(id);
        if (v !== undefined) characteristics[i * c + j] = v;
      });
    });
    const caps = read("market_cap");
    const marketCap = Float64Array.from(assets, (id, i) => {
      const v = caps.get(id);
      if (v !== undefined && v > 0) return v;
      const shares = securityOf(id)?.sharesOutstanding ?? null;
      return shares !== null && shares > 0 ? shares * pricesUsd[i]! : Number.NaN;
    });
    const known = [...marketCap].filter((v) => v > 0).sort((a, b) => a - b);
    const median = known.length > 0 ? known[Math.floor(known.length / 2)]! : 1e9;
    let filled = 0;
    for (let i = 0; i < n; i++)
      if (!(marketCap[i]! > 0)) {
        marketCap[i] = median;
        filled++;
      }
    if (filled > 0)
      warnings.push(`${filled} asset(s) without a market cap use the median cap in the risk model.`);
    inputs.characteristics = {
      characteristicNames: [...names],
      characteristics,
      sectors: assets.map((id) => securityOf(id)?.sector ?? null),
      marketCap,
    };
  }
  return buildRiskModel("characteristics", inputs, { assets: [...assets] });
}
