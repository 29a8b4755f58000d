/**
 * @module core/backtest/standard-cases
 * The cases an advisor compares (PRODUCT.md section 4, Backtest job), run together on one market:
 *
 * - `tax_managed`: the account's holdings managed by the tax-aware tracking policy (tax_gamma, harvesting
 *   above the threshold, wash-sale rules both ways);
 * - `pre_tax`: the same holdings rebalanced to the same target each period without tax awareness (FIFO lots,
 *   no harvesting); the reference of the tax alpha;
 * - `benchmark`: the starting value in cash, invested in the target at the start and held; the reference of
 *   the tracking error;
 * - `harvest_baseline`: the literature's rule-based harvester (policies/harvest-baseline), same holdings, same
 *   threshold, no optimizer: the baseline the tax-managed case has to beat;
 * - `long_short_tlh` (when a factor is given): the tax-managed policy tracking the target plus a long-short
 *   overlay tilted to the factor.
 */
import type { Decimal } from "decimal.js";
import type { TaxLot } from "../tax/index.js";
import type { BacktestTaxSettings } from "./account-book.js";
import { type CaseMetrics, summarizeBacktest } from "./case-metrics.js";
import type { TradingCosts } from "./costs.js";
import { resolveTradingCosts } from "./costs.js";
import type { BacktestMarket } from "./market-data.js";
import { buyAndHoldPolicy } from "./policies/buy-and-hold.js";
import { DEFAULT_OVERLAY_GROSS, type LongShortFactor } from "./policies/characteristic-overlay.js";
import { type HarvestBaselineStats, harvestBaselinePolicy } from "./policies/harvest-baseline.js";
import { DEFAULT_HARVEST_SCAN_DAYS, defaultBasisResetMaxGain } from "./policies/harvest-rules.js";
import { rebalanceToTargetPolicy } from "./policies/rebalance-to-target.js";
import {
  createRiskModelProvider,
  type RiskModelProvider,
  type RiskModelProviderOptions,
} from "./policies/risk-model-provider.js";
import {
  type OptimizerConfigProvider,
  type RebalanceEngine,
  type TaxAwarePolicyStats,
  taxAwareTrackingPolicy,
} from "./policies/tax-aware-tracking.js";
import type { BacktestShortLot } from "./policy.js";
import {
  type BacktestCase,
  type BacktestHooks,
  resolveBacktestTax,
  type SimulatedBacktest,
  simulateBacktest,
} from "./simulator.js";

/** Case names of the standard run (the contract's names). */
export const STANDARD_CASE_NAMES = [
  "tax_managed",
  "harvest_baseline",
  "pre_tax",
  "benchmark",
  "long_short_tlh",
] as const;

/** Input of {@link runStandardBacktest}. */
export interface StandardBacktestInput {
  readonly market: BacktestMarket;
  readonly startDate: string;
  readonly endDate: string;
  /** The account at the start (cash and lots as of the start date) for the managed and pre-tax cases. */
  readonly holdings: {
    readonly cashUsd: Decimal.Value;
    readonly lots?: readonly TaxLot[];
    readonly shortLots?: readonly BacktestShortLot[];
  };
  /** Starting value of the benchmark case (funded in cash); normally the account's value at the start. */
  readonly benchmarkStartingValueUsd: number;
  readonly taxGamma: number;
  readonly harvestThresholdBps: number;
  /** Adds the long_short_tlh case. */
  readonly longShortFactor?: LongShortFactor;
  /** Gross exposure of each overlay leg. @default 0.3 */
  readonly longShortGross?: number;
  readonly costs?: Partial<TradingCosts>;
  readonly tax?: Partial<BacktestTaxSettings>;
  /**
   * Whether the after-tax figures charge the tax of selling every position at the last close
   * (`liquidate_at_end`). @default true
   */
  readonly liquidateAtEnd?: boolean;
  /** Annual risk-free rate of the cases' Sharpe ratios, a fraction. @default 0 */
  readonly riskFreeRate?: number;
  /** Risk aversion of the tracking objective. @default 2 */
  readonly riskAversion?: number;
  /** Cash kept by every case, fraction of NAV. @default 0 */
  readonly cashBuffer?: number;
  /** Largest weight of one asset in the tax-aware cases. @default 1 */
  readonly maxWeight?: number;
  readonly minTradeFraction?: number;
  /** Step 3 of the tax-managed case (the long-short case always uses "pwl_tracking"). @default "optimizer" */
  readonly rebalanceEngine?: RebalanceEngine;
  readonly riskModel?: RiskModelProviderOptions;
  /**
   * The risk model of the tax-aware cases at each decision date, instead of the estimated one (`riskModel` is then
   * unused); it must never use data dated after the view's date. @default createRiskModelProvider(riskModel)
   */
  readonly riskModelProvider?: RiskModelProvider;
  /**
   * The account's optimizer configuration at each decision date for the tax_managed case's optimizer (engine
   * "optimizer"): the configuration in force on that date, never a later one. Its risk aversion and max weight replace
   * `riskAversion` and `maxWeight` there; costs, tax settings, cash buffer and harvesting stay the backtest's
   * (`BACKTEST_OWNED_CONFIG`). pre_tax, benchmark and long_short_tlh do not use it. @default none
   */
  readonly optimizerConfig?: OptimizerConfigProvider;
  /**
   * Trading days between the tax_managed case's harvest-only scans between rebalances (engine "optimizer"; 0 =
   * monthly harvests only; 5 = weekly). @default 0 ({@link DEFAULT_HARVEST_SCAN_DAYS})
   */
  readonly harvestScanDays?: number;
  /**
   * The tax_managed case's basis reset (engine "optimizer"): each rebalance sells and buys back every long-term lot
   * whose gain is at most this fraction of its value; 0 = never. @default {@link defaultBasisResetMaxGain} of the
   * tax settings and `liquidateAtEnd` (0.1 with `outside_gains`, liquidation at the end and a short-term rate above
   * the long-term rate, else 0)
   */
  readonly basisResetMaxGain?: number;
  readonly hooks?: BacktestHooks;
}

/** Result of {@link runStandardBacktest}. */
export interface StandardBacktestResult {
  /** Figures per case name. */
  readonly metrics: Record<string, CaseMetrics>;
  readonly simulation: SimulatedBacktest;
  /** Decision counters of the tax-aware cases. */
  readonly policyStats: Record<string, TaxAwarePolicyStats>;
  /** Decision counters of the harvest_baseline case. */
  readonly baselineStats: HarvestBaselineStats;
  /** Name of the target index (the benchmark case holds it). */
  readonly benchmarkName: string;
  /**
   * `price_return` when the market carries no dividend inside the window (every return is then a price return,
   * e.g. the real S&P 500 set), else `total_return` (dividends paid in cash and reinvested).
   */
  readonly returnBasis: "total_return" | "price_return";
}

/**
 * The basis-reset band of the tax_managed case: the input's, checked, or the default for its assumptions.
 * @throws {RangeError} for a band outside [0, 1].
 */
export function resolveBasisResetMaxGain(
  input: Pick<StandardBacktestInput, "basisResetMaxGain" | "liquidateAtEnd">,
  tax: BacktestTaxSettings,
): number {
  const band =
    input.basisResetMaxGain ??
    defaultBasisResetMaxGain({
      lossUsage: tax.lossUsage,
      liquidateAtEnd: input.liquidateAtEnd ?? true,
      shortTermRate: tax.shortTermRate,
      longTermRate: tax.longTermRate,
    });
  if (!(band >= 0 && band <= 1))
    throw new RangeError(`runStandardBacktest: basisResetMaxGain must be a fraction in [0, 1], got ${band}`);
  return band;
}

/**
 * Runs the standard cases and their figures (tax alpha against `pre_tax`, tracking error against
 * `benchmark`).
 * @throws whatever {@link simulateBacktest} throws (cancellation, look-ahead, bad input).
 * @example runStandardBacktest({ market, startDate, endDate, holdings: { cashUsd: 1e6 },
 *   benchmarkStartingValueUsd: 1e6, taxGamma: 1, harvestThresholdBps: 500 }).metrics.tax_managed.taxAlphaBps
 */
export function runStandardBacktest(input: StandardBacktestInput): StandardBacktestResult {
  const costs = resolveTradingCosts(input.costs);
  const tax = resolveBacktestTax(input.tax);
  const riskModel = input.riskModelProvider ?? createRiskModelProvider(input.riskModel ?? {});
  const cashBuffer = input.cashBuffer ?? 0;
  const benchmarkName = input.market.benchmark.name;
  const returnBasis = hasDividendsIn(input.market, input.startDate, input.endDate)
    ? "total_return"
    : "price_return";
  const shared = {
    taxGamma: input.taxGamma,
    harvestThresholdBps: input.harvestThresholdBps,
    shortTermRate: tax.shortTermRate,
    longTermRate: tax.longTermRate,
    taxRules: tax.rules,
    transactionBps: costs.transactionBps,
    fxFeeBps: costs.fxFeeBps,
    cashBuffer,
    riskModel,
    ...(input.riskAversion === undefined ? {} : { riskAversion: input.riskAversion }),
    ...(input.maxWeight === undefined ? {} : { maxWeight: input.maxWeight }),
    ...(input.minTradeFraction === undefined ? {} : { minTradeFraction: input.minTradeFraction }),
  };
  const managed = taxAwareTrackingPolicy({
    ...shared,
    harvestScanDays: input.harvestScanDays ?? DEFAULT_HARVEST_SCAN_DAYS,
    basisResetMaxGain: resolveBasisResetMaxGain(input, tax),
    ...(input.rebalanceEngine === undefined ? {} : { rebalanceEngine: input.rebalanceEngine }),
    ...(input.optimizerConfig === undefined ? {} : { optimizerConfig: input.optimizerConfig }),
  });
  const baseline = harvestBaselinePolicy({
    harvestThresholdBps: input.harvestThresholdBps,
    taxRules: tax.rules,
    cashBuffer,
    ...optionalMinTrade(input),
  });
  const harvestText = `harvests lots whose loss reaches ${input.harvestThresholdBps} bps of their basis`;
  const cases: BacktestCase[] = [
    {
      name: "tax_managed",
      description: `Tax-managed: tracks ${benchmarkName} with the tax-aware optimizer (tax_gamma ${input.taxGamma}), ${harvestText}, wash-sale rules applied both ways.`,
      taxManaged: true,
      policy: managed,
      initial: input.holdings,
      lotSelection: "TAX_OPTIMAL",
    },
    {
      name: "harvest_baseline",
      description: `Harvest baseline (rule-based, no optimizer): each period sells every lot whose loss reaches ${input.harvestThresholdBps} bps of its basis, puts the proceeds pro rata into the rest of ${benchmarkName}, never buys an asset within the wash-sale window of a loss sale, and buys it back to its weight after the window.`,
      taxManaged: true,
      policy: baseline,
      initial: input.holdings,
      lotSelection: "TAX_OPTIMAL",
    },
    {
      name: "pre_tax",
      description: `Same portfolio without tax management: rebalanced to ${benchmarkName} each period, FIFO lots, no harvesting.`,
      taxManaged: false,
      policy: rebalanceToTargetPolicy({ cashBuffer, ...optionalMinTrade(input) }),
      initial: input.holdings,
      lotSelection: "FIFO",
    },
    {
      name: "benchmark",
      description: `Benchmark: ${benchmarkName} bought with the starting value in cash and held (${returnBasis === "price_return" ? "price return: the data carry no dividends" : "dividends reinvested"}).`,
      taxManaged: false,
      policy: buyAndHoldPolicy({ cashBuffer, ...optionalMinTrade(input) }),
      initial: { cashUsd: input.benchmarkStartingValueUsd },
      lotSelection: "FIFO",
    },
  ];
  const policyStats: Record<string, TaxAwarePolicyStats> = { tax_managed: managed.stats };
  if (input.longShortFactor !== undefined) {
    const gross = input.longShortGross ?? DEFAULT_OVERLAY_GROSS;
    const ls = taxAwareTrackingPolicy({
      ...shared,
      overlay: { factor: input.longShortFactor, grossExposure: gross },
    });
    policyStats.long_short_tlh = ls.stats;
    cases.push({
      name: "long_short_tlh",
      description: `Long-short TLH: the tax-managed portfolio plus a ${Math.round(gross * 100)}/${Math.round(gross * 100)} overlay long the top and short the bottom quintile of ${benchmarkName} by ${input.longShortFactor}, harvesting losses on both legs.`,
      taxManaged: true,
      policy: ls,
      initial: input.holdings,
      lotSelection: "TAX_OPTIMAL",
    });
  }
  const simulation = simulateBacktest({
    market: input.market,
    startDate: input.startDate,
    endDate: input.endDate,
    cases,
    costs,
    tax,
    ...(input.hooks === undefined ? {} : { hooks: input.hooks }),
  });
  const metrics = summarizeBacktest(simulation, {
    benchmarkCase: "benchmark",
    referenceCase: "pre_tax",
    ...(input.liquidateAtEnd === undefined ? {} : { liquidateAtEnd: input.liquidateAtEnd }),
    ...(input.riskFreeRate === undefined ? {} : { riskFreeRate: input.riskFreeRate }),
  });
  return {
    metrics,
    simulation,
    policyStats,
    baselineStats: baseline.stats,
    benchmarkName,
    returnBasis,
  };
}

function hasDividendsIn(market: BacktestMarket, startDate: string, endDate: string): boolean {
  for (const [t, events] of market.dividendsAt) {
    const d = market.dates[t]!;
    if (d > startDate && d <= endDate && events.length > 0) return true;
  }
  return false;
}

function optionalMinTrade(input: StandardBacktestInput): { minTradeFraction?: number } {
  return input.minTradeFraction === undefined ? {} : { minTradeFraction: input.minTradeFraction };
}
