/**
 * @module core/optimizer/optimization-types
 * Input, options and result of the tax-aware optimizer ({@link optimizePortfolio}, {@link createOptimizer}).
 * Weights are fractions of the investable value I = NAV - cash buffers (the proposal builder's convention);
 * money is USD.
 */
import type { Decimal } from "decimal.js";
import type { Currency } from "../data/types.js";
import type { QpOptions } from "../numeric/index.js";
import type { FactorModel } from "../risk/index.js";
import type { HoldingTerm, TaxLot } from "../tax/index.js";
import type { LotTable } from "./lot-table.js";
import type { OptimizerConfig } from "./optimizer-config.js";
import type { PwlQpProblem, PwlQpResult } from "./pwl-qp-types.js";

/** A dated trade of an asset outside the lots (another account's purchase, a recent sale at a loss). */
export interface DatedAssetEvent {
  readonly themeAssetId: string;
  readonly date: string;
  /**
   * Shares (a purchase: the replacement shares it brings; see wash-sale-pricing.ts). Omitted: unknown, a purchase
   * then washes every loss lot of the asset.
   */
  readonly quantity?: number;
}

/**
 * An open short lot as the optimizer sees it: shares owed and the short-sale proceeds in USD (translated at the
 * short-sale FX): the lot's basis. Covering q shares at price p realizes `proceedsUsd x q / quantity - p q`,
 * short-term (docs/ledger.md section 2).
 */
export interface OptimizerShortLot {
  readonly id: string;
  readonly themeAssetId: string;
  /** Shares owed, > 0. */
  readonly quantity: Decimal;
  /** Net short-sale proceeds in USD, >= 0. */
  readonly proceedsUsd: number;
  /** Short-sale date (`YYYY-MM-DD`), on or before the as-of date. */
  readonly openDate: string;
}

/** Everything one rebalance needs, prepared by the caller (the service reads it from the store). */
export interface OptimizationInput {
  /** Trade date (`YYYY-MM-DD`): holding terms and wash-sale windows are counted to it. */
  readonly asOf: string;
  /** The universe (theme_asset_ids): holdings plus benchmark constituents plus anything the config names. */
  readonly assets: readonly string[];
  /** Price per share in USD (local price / FX per USD), aligned with `assets`, > 0. */
  readonly pricesUsd: Float64Array;
  /** Listing currency per asset (broker FX spread on non-USD trades). @default all "USD" */
  readonly currencies?: readonly Currency[];
  /** The account's long lots; or pass `lotTable` prepared with {@link prepareLotTable} (faster). */
  readonly lots?: readonly TaxLot[];
  readonly lotTable?: LotTable;
  /**
   * Open short lots (LONG_SHORT / LONG_BIASED): each one negative current weight, and covering it is priced by
   * its proceeds (cover-schedule.ts). An asset is held long or short, never both.
   */
  readonly shortLots?: readonly OptimizerShortLot[];
  /** USD cash (may be negative: a debit). */
  readonly cashUsd: number;
  /**
   * Benchmark weights aligned with `assets` (sleeves already resolved to constituents), summing to at most 1; the
   * rest is cash. Scaled to 100% unless `useCashBenchmark`.
   */
  readonly benchmark: Float64Array;
  /** Factor risk model covering every asset (annualized). */
  readonly riskModel: FactorModel;
  /** Expected annual returns (use_mean_variance). @default zeros */
  readonly expectedReturns?: Float64Array;
  /** Average daily traded value in USD (NaN = unknown), for the spread and impact terms. */
  readonly averageDailyVolumeUsd?: Float64Array;
  /** Units of CAD per USD, for a CAD cash buffer. */
  readonly cadPerUsd?: number;
  /** Purchases not in the lots (household accounts, planned buys) for the wash-sale rules. */
  readonly recentPurchases?: readonly DatedAssetEvent[];
  /** Recent sales at a loss (for prevent_tlh_invalidating_purchase). */
  readonly recentLossSales?: readonly DatedAssetEvent[];
  readonly config: OptimizerConfig;
}

/** Options of a solve. */
export interface OptimizeOptions {
  /** Clock in milliseconds (core has none); enables `solver.timeMs`. */
  readonly now?: () => number;
  /** Outer rounds of the engine per solve. @default 60 */
  readonly maxRounds?: number;
  /** Attach the engine problem of the final solve to the result (tests, debugging). @default false */
  readonly includeProblem?: boolean;
  /** Options of the QP solver. */
  readonly qp?: QpOptions;
}

/** Final status of an optimization. */
export type OptimizationStatus =
  /** KKT point of the whole problem (and of each substitution / whole-share stage). */
  | "optimal"
  /** No portfolio satisfies the constraints: see `diagnosis`; no weights are returned. */
  | "infeasible"
  /** A feasible portfolio, but the engine stopped before certifying optimality (see `solver`). */
  | "suboptimal";

/** The trade of one asset. */
export interface AssetTrade {
  readonly themeAssetId: string;
  readonly side: "buy" | "sell";
  /** Shares (positive), whole numbers for whole-share assets. */
  readonly shares: number;
  /** USD value at the price (positive). */
  readonly amountUsd: number;
  /** Weights before and after. */
  readonly fromWeight: number;
  readonly toWeight: number;
}

/** A lot (or part of it) the optimizer sells. Money figures are float estimates (USD). */
export interface LotSale {
  readonly lotId: string;
  readonly themeAssetId: string;
  /** Shares of the lot to sell (whole for whole-share assets, 6 decimals otherwise, exact when sold out). */
  readonly quantity: Decimal;
  readonly proceedsUsd: number;
  readonly costBasisUsd: number;
  /** Realized gain (negative = loss), before capital-gains reductions. */
  readonly gainUsd: number;
  readonly term: HoldingTerm;
  /** The loss counts no tax alpha (wholly washed, outside n_high_loss_lots, or tax alpha off). */
  readonly taxAlphaIgnored: boolean;
  /**
   * Part of the loss disallowed by the wash-sale rule, USD >= 0 (the lot's washed fraction of its loss, see
   * wash-sale-pricing.ts); `gainUsd + disallowedLossUsd` is what the sale recognizes.
   */
  readonly disallowedLossUsd: number;
}

/** A short lot (or part of it) the optimizer covers (buys back). Money figures are float estimates (USD). */
export interface ShortCover {
  readonly lotId: string;
  readonly themeAssetId: string;
  /** Shares covered (whole when the owed quantity is whole, exact when the lot is covered in full). */
  readonly quantity: Decimal;
  /** The lot's short-sale proceeds for these shares (its basis), USD. */
  readonly proceedsUsd: number;
  /** Cost of buying the shares back at the price, USD. */
  readonly costUsd: number;
  /** Realized gain `proceedsUsd - costUsd` (negative = loss), before capital-gains reductions. */
  readonly gainUsd: number;
  /** Always short-term (IRC section 1233). */
  readonly term: "short_term";
  /** The loss counts no tax alpha (tax alpha off). */
  readonly taxAlphaIgnored: boolean;
}

/** Risk cap outcome. */
export interface RiskCapReport {
  /** Requested cap (annualized tracking error, fraction). */
  readonly requested: number;
  /** Cap used after relaxation. */
  readonly used: number;
  /** Times the cap was multiplied by risk_bound_increase_factor. */
  readonly relaxations: number;
  /** Smallest tracking error the other constraints allow (computed when the cap binds). */
  readonly minimumAchievable: number | null;
  readonly binding: boolean;
}

/** Outcome of the tax_gamma search. */
export interface TaxGammaSearchReport {
  readonly method: "regula_falsi" | "bisection";
  readonly goal: "tax_budget" | "gain_target";
  readonly target: number;
  readonly tolerance: number;
  /** The net tax (budget) or net realized gain (target) reached, USD. */
  readonly achieved: number;
  readonly evaluations: number;
  readonly withinTolerance: boolean;
}

/** Result of an optimization (see docs/optimizer.md "Result"). */
export interface OptimizationResult {
  readonly status: OptimizationStatus;
  readonly asOf: string;
  readonly assets: readonly string[];
  readonly navUsd: number;
  readonly investableUsd: number;
  /** Cash reserved by the buffers, USD. */
  readonly cashBufferUsd: number;
  /** Post-trade weights (investable fractions); all zeros when infeasible. */
  readonly weights: Float64Array;
  readonly currentWeights: Float64Array;
  /** The benchmark after per-ticker targets and the cash-benchmark rule. */
  readonly benchmarkWeights: Float64Array;
  readonly trades: readonly AssetTrade[];
  readonly lotsToSell: readonly LotSale[];
  /** Short lots the covers close, in the order the cover schedule consumes them (lowest gain first). */
  readonly shortLotsToCover: readonly ShortCover[];
  /** Ex-ante annualized tracking error of the post-trade weights vs the benchmark. */
  readonly trackingError: number;
  /** Ex-ante annualized volatility of the post-trade weights. */
  readonly totalRisk: number;
  /** Net tax of the sales at the configured rates after capital-gains reductions (negative = saving). */
  readonly taxCostUsd: number;
  readonly realizedShortTermUsd: number;
  readonly realizedLongTermUsd: number;
  readonly capitalGainsReductionUsd: number;
  /** Losses realized (positive magnitude). */
  readonly harvestedLossesUsd: number;
  /** Linear costs plus market impact, USD (unscaled). */
  readonly transactionCostUsd: number;
  readonly marketImpactUsd: number;
  /** One-way turnover, fraction of the investable value. */
  readonly turnover: number;
  /** Cash after the trades and their costs, USD (>= the buffers). */
  readonly cashAfterUsd: number;
  /** tax_gamma used (after the search). */
  readonly taxGamma: number;
  readonly taxGammaSearch: TaxGammaSearchReport | null;
  readonly riskCap: RiskCapReport | null;
  /** Objective terms at the solution (risk in annualized variance, costs and taxes as fractions of I). */
  readonly objective: {
    readonly total: number;
    readonly risk: number;
    readonly transactionCost: number;
    readonly tax: number;
    readonly expectedReturn: number;
  };
  readonly solver: {
    readonly status: string;
    readonly rounds: number;
    readonly solves: number;
    readonly rebuilds: number;
    readonly qpIterations: number;
    /** Wall time (with an injected clock): total, preparing the period model, solving, reporting. */
    readonly timeMs: number | null;
    readonly prepareMs: number | null;
    readonly solveMs: number | null;
    readonly reportMs: number | null;
  };
  /** KKT residuals of the final continuous solve (see PwlQpResult.kkt). */
  readonly kkt: { readonly stationarity: number; readonly primal: number; readonly powerGradientGap: number };
  /** Constraints holding with a non-zero multiplier, by name. */
  readonly binding: readonly string[];
  /** When infeasible: the conflicting constraints, with numbers. */
  readonly diagnosis: readonly string[];
  readonly warnings: readonly string[];
  /** With `includeProblem`: the engine problem of the final continuous solve and its solution (multipliers). */
  readonly problem?: PwlQpProblem;
  readonly engine?: PwlQpResult;
}
