/**
 * @module core/optimizer/optimizer-config
 * The optimizer's numeric configuration: every field of a portfolio configuration that shapes the problem, as
 * plain numbers, booleans and lists (the service converts the contract's decimal strings in one place), with the
 * spec's library defaults. Weights are fractions of the investable value (NAV minus cash buffers), as in
 * proposals. See docs/optimizer.md for the effect of each field.
 */
import { ValidationError } from "../errors.js";

/** LONG_ONLY, LONG_SHORT (long and short sums are targets) or LONG_BIASED (sums are limits, net >= 0). */
export type OptimizationMode = "LONG_ONLY" | "LONG_SHORT" | "LONG_BIASED";

/** A per-asset target and bounds (`target_ticker_weights`, already filtered by its condition). */
export interface TickerTarget {
  readonly themeAssetId: string;
  /** Replaces the asset's benchmark weight in the tracking term. */
  readonly targetWeight?: number | null;
  readonly lowerBound?: number | null;
  readonly upperBound?: number | null;
  /** Bounds of the active weight (weight - benchmark weight). */
  readonly minActive?: number | null;
  readonly maxActive?: number | null;
}

/** Bounds on the portfolio's exposure to one factor of the risk model (`factor_exposure_bounds`). */
export interface FactorExposureBound {
  readonly factor: string;
  readonly minBound?: number | null;
  readonly maxBound?: number | null;
  readonly minActiveBound?: number | null;
  readonly maxActiveBound?: number | null;
}

/** Tax preferences (`tax_preferences`). Rates are fractions; money in USD. */
export interface OptimizerTaxPreferences {
  /** @default 0.37 */
  readonly shortTermRate: number;
  /** @default 0.2 */
  readonly longTermRate: number;
  /** Weight of the tax term. @default 1 */
  readonly taxGamma: number;
  /** Search interval of the tax_gamma search. @default 0 */
  readonly taxGammaMin: number;
  /** @default 100 */
  readonly taxGammaMax: number;
  /** Net tax a rebalance may realize; triggers the tax_gamma search. @default null */
  readonly taxBudgetUsd: number | null;
  /** Net realized gain to aim for (negative = harvest); triggers the search. @default null */
  readonly taxGainTarget: number | null;
  /** Tolerance of the search, USD. @default max(1, 1% of the budget or target) */
  readonly taxGainTargetTolerance: number | null;
  /** Realized losses earn tax alpha (a negative tax cost). @default true */
  readonly useTaxAlpha: boolean;
  /** Multiplies the tax alpha of losses. @default 1 */
  readonly positiveTaxAlphaScalingFactor: number;
  /** Only the N loss lots with the largest tax alpha (USD) earn it. @default null (all) */
  readonly nHighLossLots: number | null;
  /** With nHighLossLots, every other loss lot earns its tax alpha too. @default false */
  readonly includePositiveTaxAlphaLots: boolean;
  /** No buys of an asset sold at a loss within the wash-sale window. @default false */
  readonly preventTlhInvalidatingPurchase: boolean;
  /** No loss sales of an asset bought within the window (those lots are held). @default false */
  readonly preventTlhInvalidatingSale: boolean;
  /** @default 30 */
  readonly washSaleThresholdDays: number;
  /** @default 365 */
  readonly longTermThresholdDays: number;
  /** Tracking-error cap (annualized fraction) enforced whenever set; the tighter of it and max_active_risk_pct. @default null */
  readonly trackingErrorThreshold: number | null;
}

/** The optimizer's configuration (see the module comment). Build one with {@link resolveOptimizerConfig}. */
export interface OptimizerConfig {
  /** @default "LONG_ONLY" */
  readonly optimizationMode: OptimizationMode;
  /** Sum of long weights (2.5 = 250%). @default null */
  readonly longWeightSum: number | null;
  /** Sum of short weights (negative). @default null */
  readonly shortWeightSum: number | null;
  readonly minWeight: number | null;
  readonly maxWeight: number | null;
  readonly minActiveWeight: number | null;
  readonly maxActiveWeight: number | null;
  readonly targetTickerWeights: readonly TickerTarget[];
  /** Assets that must not be held on the as-of date (active entries, conditions resolved). */
  readonly noHold: readonly string[];
  /** Assets that must not be traded on the as-of date. */
  readonly noTrade: readonly string[];
  readonly factorExposureBounds: readonly FactorExposureBound[];
  /** @default false */
  readonly useActiveRiskBounds: boolean;
  /** Active-risk cap in percent (3 = 3% annualized tracking error). @default null */
  readonly maxActiveRiskPct: number | null;
  /** @default 2 */
  readonly riskBoundIncreaseFactor: number;
  /** @default 10 */
  readonly riskBoundMaxIterations: number;
  /** Total risk with expected returns instead of active risk. @default false */
  readonly useMeanVariance: boolean;
  /** lambda. @default 1 (library default; the service reads 2, the application default) */
  readonly riskAversion: number;
  /** Multiplier of the transaction-cost term (trade aversion). @default 1 */
  readonly scalingFactor: number;
  /** Added to every specific variance (annualized variance). @default 0 */
  readonly spectralShift: number;
  /** @default false */
  readonly useTurnoverConstraint: boolean;
  /** One-way turnover cap in percent of the investable value. @default 100 */
  readonly maxTurnoverPct: number;
  /** Flat cost, bps of traded value. @default null (0) */
  readonly tcostBps: number | null;
  /** Half-spread in bps (scaled by sqrt(ref volume / ADV) when a reference volume is set). @default null (0) */
  readonly bidAskSpreadParameter: number | null;
  /** Reference daily volume (USD) of the spread term. @default null */
  readonly bidAskSpreadRefVolume: number | null;
  /** Coefficient of the 3/2-power market impact. @default null (none) */
  readonly marketImpactParameter: number | null;
  /** Linear cost, fraction of traded value. @default 0 */
  readonly linearTcaf: number;
  /** Commission, bps of traded value. @default 0.75 */
  readonly commissionRate: number;
  /** Broker FX spread on trades of non-USD listings, bps. @default 30 */
  readonly brokerSpreadBps: number;
  /** Floor of the daily dollar volume in the impact term (and its value when unknown). @default 1_000_000 */
  readonly minTradingVolumeDollars: number;
  /** @default false */
  readonly requireWholeShares: boolean;
  /** Assets traded in whole shares; null or empty = all (when requireWholeShares). @default null */
  readonly wholeShareAssets: readonly string[] | null;
  /** Groups of which at most one member is held. @default [] */
  readonly substitutionGroups: readonly (readonly string[])[];
  /** theme_asset_id -> reduction (USD or percent). @default {} */
  readonly capitalGainsReductions: Readonly<Record<string, number>>;
  /** @default "DOLLARS" */
  readonly capitalGainsReductionsUnits: "DOLLARS" | "PERCENT";
  /** The benchmark keeps its unallocated part in cash instead of being scaled to 100%. @default false */
  readonly useCashBenchmark: boolean;
  /** USD cash buffer, fraction of NAV. @default null (0) */
  readonly cashBufferUsd: number | null;
  readonly cashBufferCad: number | null;
  /** Absolute buffers; they override the fractions. */
  readonly cashBufferUsdAmount: number | null;
  readonly cashBufferCadAmount: number | null;
  /** Regula falsi (Illinois) for the tax_gamma search; false = bisection. @default true */
  readonly useRegulaFalsi: boolean;
  /**
   * Smallest order, USD (extension `min_trade_amount_usd`): no trade below max(this, minTradePct % of NAV), except
   * one that closes the position. @default 0 (off; the service's application default is 100)
   */
  readonly minTradeUsd: number;
  /** Smallest order in percent of NAV (extension `min_trade_pct`). @default 0 (off; the service's is 0.05) */
  readonly minTradePct: number;
  /** Most orders a rebalance may have (extension `max_trade_count`). @default null (no limit) */
  readonly maxTradeCount: number | null;
  readonly tax: OptimizerTaxPreferences;
}

/** Input of {@link resolveOptimizerConfig}: every field optional. */
export type OptimizerConfigInput = Partial<Omit<OptimizerConfig, "tax">> & {
  readonly tax?: Partial<OptimizerTaxPreferences>;
};

/** The tax preferences' defaults. */
export const DEFAULT_TAX_PREFERENCES: OptimizerTaxPreferences = {
  shortTermRate: 0.37,
  longTermRate: 0.2,
  taxGamma: 1,
  taxGammaMin: 0,
  taxGammaMax: 100,
  taxBudgetUsd: null,
  taxGainTarget: null,
  taxGainTargetTolerance: null,
  useTaxAlpha: true,
  positiveTaxAlphaScalingFactor: 1,
  nHighLossLots: null,
  includePositiveTaxAlphaLots: false,
  preventTlhInvalidatingPurchase: false,
  preventTlhInvalidatingSale: false,
  washSaleThresholdDays: 30,
  longTermThresholdDays: 365,
  trackingErrorThreshold: null,
};

/** The configuration's defaults (the spec's library defaults where it names one). */
export const DEFAULT_OPTIMIZER_CONFIG: OptimizerConfig = {
  optimizationMode: "LONG_ONLY",
  longWeightSum: null,
  shortWeightSum: null,
  minWeight: null,
  maxWeight: null,
  minActiveWeight: null,
  maxActiveWeight: null,
  targetTickerWeights: [],
  noHold: [],
  noTrade: [],
  factorExposureBounds: [],
  useActiveRiskBounds: false,
  maxActiveRiskPct: null,
  riskBoundIncreaseFactor: 2,
  riskBoundMaxIterations: 10,
  useMeanVariance: false,
  riskAversion: 1,
  scalingFactor: 1,
  spectralShift: 0,
  useTurnoverConstraint: false,
  maxTurnoverPct: 100,
  tcostBps: null,
  bidAskSpreadParameter: null,
  bidAskSpreadRefVolume: null,
  marketImpactParameter: null,
  linearTcaf: 0,
  commissionRate: 0.75,
  brokerSpreadBps: 30,
  minTradingVolumeDollars: 1_000_000,
  requireWholeShares: false,
  wholeShareAssets: null,
  substitutionGroups: [],
  capitalGainsReductions: {},
  capitalGainsReductionsUnits: "DOLLARS",
  useCashBenchmark: false,
  cashBufferUsd: null,
  cashBufferCad: null,
  cashBufferUsdAmount: null,
  cashBufferCadAmount: null,
  useRegulaFalsi: true,
  minTradeUsd: 0,
  minTradePct: 0,
  maxTradeCount: null,
  tax: DEFAULT_TAX_PREFERENCES,
};

type Check = (value: number) => string | null;
const finite: Check = (v) => (Number.isFinite(v) ? null : "must be a finite number");
const nonNegative: Check = (v) => (Number.isFinite(v) && v >= 0 ? null : "must be a finite number >= 0");
const fraction: Check = (v) => (Number.isFinite(v) && v >= 0 && v <= 1 ? null : "must lie in [0, 1]");
const atLeastOne: Check = (v) => (Number.isFinite(v) && v >= 1 ? null : "must be a finite number >= 1");
const nonNegativeInteger: Check = (v) => (Number.isInteger(v) && v >= 0 ? null : "must be an integer >= 0");

/**
 * Fill the defaults of a partial configuration and check every value.
 * @throws {ValidationError} naming each offending field (`config.maxWeight`, `config.tax.shortTermRate`, ...).
 * @example resolveOptimizerConfig({ maxWeight: 0.05 }).riskAversion // 1
 */
export function resolveOptimizerConfig(input: OptimizerConfigInput = {}): OptimizerConfig {
  const tax: OptimizerTaxPreferences = { ...DEFAULT_TAX_PREFERENCES, ...stripUndefined(input.tax ?? {}) };
  const c: OptimizerConfig = { ...DEFAULT_OPTIMIZER_CONFIG, ...stripUndefined(input), tax };
  const issues: { path: string; message: string }[] = [];
  const check = (path: string, value: number | null, rule: Check) => {
    if (value === null) return;
    const m = rule(value);
    if (m !== null) issues.push({ path: `config.${path}`, message: `${path} is ${value}; it ${m}` });
  };
  if (!["LONG_ONLY", "LONG_SHORT", "LONG_BIASED"].includes(c.optimizationMode))
    issues.push({
      path: "config.optimizationMode",
      message: `unknown optimization mode ${c.optimizationMode}`,
    });
  for (const f of [
    "longWeightSum",
    "shortWeightSum",
    "minWeight",
    "maxWeight",
    "minActiveWeight",
    "maxActiveWeight",
  ] as const)
    check(f, c[f], finite);
  check("maxActiveRiskPct", c.maxActiveRiskPct, (v) => (v >= 0 && v <= 100 ? null : "must lie in [0, 100]"));
  check("riskBoundIncreaseFactor", c.riskBoundIncreaseFactor, atLeastOne);
  check("riskBoundMaxIterations", c.riskBoundMaxIterations, nonNegativeInteger);
  for (const f of [
    "riskAversion",
    "scalingFactor",
    "spectralShift",
    "maxTurnoverPct",
    "tcostBps",
    "bidAskSpreadParameter",
    "bidAskSpreadRefVolume",
    "marketImpactParameter",
    "linearTcaf",
    "commissionRate",
    "brokerSpreadBps",
    "minTradingVolumeDollars",
    "cashBufferUsdAmount",
    "cashBufferCadAmount",
    "minTradeUsd",
  ] as const)
    check(f, c[f], nonNegative);
  check("minTradePct", c.minTradePct, (v) => (v >= 0 && v <= 100 ? null : "must lie in [0, 100]"));
  check("maxTradeCount", c.maxTradeCount, nonNegativeInteger);
  check("cashBufferUsd", c.cashBufferUsd, fraction);
  check("cashBufferCad", c.cashBufferCad, fraction);
  if (c.minWeight !== null && c.maxWeight !== null && c.minWeight > c.maxWeight)
    issues.push({
      path: "config.maxWeight",
      message: `maxWeight ${c.maxWeight} is below minWeight ${c.minWeight}`,
    });
  if (c.minActiveWeight !== null && c.maxActiveWeight !== null && c.minActiveWeight > c.maxActiveWeight)
    issues.push({
      path: "config.maxActiveWeight",
      message: `maxActiveWeight ${c.maxActiveWeight} is below minActiveWeight ${c.minActiveWeight}`,
    });
  check("tax.shortTermRate", tax.shortTermRate, fraction);
  check("tax.longTermRate", tax.longTermRate, fraction);
  for (const f of ["taxGamma", "taxGammaMin", "taxGammaMax"] as const) check(`tax.${f}`, tax[f], nonNegative);
  if (tax.taxGammaMin > tax.taxGammaMax)
    issues.push({
      path: "config.tax.taxGammaMax",
      message: `taxGammaMax ${tax.taxGammaMax} is below taxGammaMin ${tax.taxGammaMin}`,
    });
  check("tax.taxBudgetUsd", tax.taxBudgetUsd, nonNegative);
  check("tax.taxGainTarget", tax.taxGainTarget, finite);
  check("tax.taxGainTargetTolerance", tax.taxGainTargetTolerance, nonNegative);
  check("tax.positiveTaxAlphaScalingFactor", tax.positiveTaxAlphaScalingFactor, nonNegative);
  check("tax.nHighLossLots", tax.nHighLossLots, nonNegativeInteger);
  check("tax.washSaleThresholdDays", tax.washSaleThresholdDays, nonNegativeInteger);
  check("tax.longTermThresholdDays", tax.longTermThresholdDays, nonNegativeInteger);
  check("tax.trackingErrorThreshold", tax.trackingErrorThreshold, nonNegative);
  for (const [id, v] of Object.entries(c.capitalGainsReductions)) {
    if (!(Number.isFinite(v) && v >= 0))
      issues.push({
        path: `config.capitalGainsReductions["${id}"]`,
        message: `reduction of ${id} is ${v}; it must be >= 0`,
      });
    else if (c.capitalGainsReductionsUnits === "PERCENT" && v > 100)
      issues.push({
        path: `config.capitalGainsReductions["${id}"]`,
        message: `reduction of ${id} is ${v}%; at most 100`,
      });
  }
  if (c.capitalGainsReductionsUnits !== "DOLLARS" && c.capitalGainsReductionsUnits !== "PERCENT")
    issues.push({ path: "config.capitalGainsReductionsUnits", message: "must be DOLLARS or PERCENT" });
  c.targetTickerWeights.forEach((t, i) => {
    for (const f of ["targetWeight", "lowerBound", "upperBound", "minActive", "maxActive"] as const) {
      const v = t[f];
      if (v !== null && v !== undefined && !Number.isFinite(v))
        issues.push({
          path: `config.targetTickerWeights[${i}].${f}`,
          message: `${f} of ${t.themeAssetId} must be finite`,
        });
    }
  });
  c.factorExposureBounds.forEach((b, i) => {
    for (const f of ["minBound", "maxBound", "minActiveBound", "maxActiveBound"] as const) {
      const v = b[f];
      if (v !== null && v !== undefined && !Number.isFinite(v))
        issues.push({
          path: `config.factorExposureBounds[${i}].${f}`,
          message: `${f} of factor ${b.factor} must be finite`,
        });
    }
  });
  c.substitutionGroups.forEach((g, i) => {
    if (new Set(g).size < 2)
      issues.push({
        path: `config.substitutionGroups[${i}]`,
        message: "a substitution group needs at least 2 distinct assets",
      });
  });
  if (issues.length > 0)
    throw new ValidationError(
      `resolveOptimizerConfig: ${issues.length} invalid field(s): ${issues.map((x) => x.message).join("; ")}`,
      issues,
    );
  return c;
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  const out: Partial<T> = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined) (out as Record<string, unknown>)[k] = v;
  return out;
}
