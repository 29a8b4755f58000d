/**
 * @module service/optimize
 * The tax-aware optimizer as a service operation (`lotwise optimize` / `lotwise rebalance` and their routes): read
 * an account from the store, prepare the optimizer's input (universe, USD prices, lots, benchmark weights, risk
 * model, configuration) as of a date, run `core/optimizer`, and answer in the contract's `AccountOptimization`
 * shape; `rebalanceAccount` then turns the optimized weights into a stored proposal through endpoint 1's service.
 * How each input is built is in docs/optimize-service.md.
 */
import { Decimal } from "decimal.js";
import {
  type AccountOptimization,
  type AccountRebalance,
  accountOptimizationSchema,
  accountRebalanceSchema,
  type CashRequest,
  type ProposalResponse,
  parseOrThrow,
  proposalRequestSchema,
} from "../contract/index.js";
import { averageDailyValueUsd, dailyUsdReturns } from "../core/data/market-panel.js";
import type { Currency, Security } from "../core/data/types.js";
import { addDays } from "../core/dates.js";
import { DataError, ValidationError } from "../core/errors.js";
import {
  createOptimizer,
  type OptimizationInput,
  type OptimizationResult,
  type Optimizer,
  optimizePortfolio,
} from "../core/optimizer/index.js";
import { buildRiskModel, type FactorModel, imputeBySector } from "../core/risk/index.js";
import type { AccountRecord, MarketRepository, RiskModelKind } from "../store/index.js";
import { holdingsAt, RISK_HISTORY_CALENDAR_DAYS } from "./backtest-run.js";
import {
  type AccountValue,
  accountValue,
  type CashAmount,
  cashAmountOf,
  cashRequestReport,
  checkWithdrawal,
  withdrawWithLotEngine,
} from "./cash-request.js";
import { findAccount } from "./clients.js";
import { checkedAsOf, type ServiceContext } from "./context.js";
import { type YearToDateTaxes, yearToDateTaxes, yearToDateWire } from "./ledger-ytd.js";
import { loadMarketPanel } from "./market-panel.js";
import {
  accountOptimizerConfig,
  characteristicsRiskModel,
  configuredTickers,
  MIN_RETURN_OBSERVATIONS,
  RISK_LOOKBACK_DAYS,
} from "./optimizer-inputs.js";
import { accountLots, createProposalJson, type ProposalQuotes } from "./proposals.js";
import { isUploadedKind, latestUploadedModel, listForMessage, uploadedModelOver } from "./risk-models.js";
import { benchmarkSource, benchmarkWeightsAsOf } from "./targets.js";

/** Risk model when a configuration names none. */
export const DEFAULT_RISK_MODEL = "pca";
/** Trading days averaged for the average daily traded value (spread and impact terms). */
export const ADV_WINDOW_DAYS = 63;

/** Options of {@link optimizeAccount} and {@link rebalanceAccount}. */
export interface OptimizeAccountOptions {
  /** Trade date (`YYYY-MM-DD`). @default the market's as-of date (latest trading date on or before today) */
  asOf?: string | undefined;
  /** The account's client, when the caller has it (HTTP path): the account must belong to it. */
  clientUuid?: string | undefined;
  /**
   * Inputs shared by the optimizations of many accounts on one date (a rebalance run): the price history and the
   * estimated risk model of a universe are computed once per (date, risk model, universe). Reuse one memo only
   * while the market data does not change.
   */
  memo?: OptimizationMemo | undefined;
}

/**
 * See {@link OptimizeAccountOptions.memo}; {@link createOptimizationMemo} makes one. Keys hold the date and the
 * asset list; the values are read-only once stored.
 */
export interface OptimizationMemo {
  readonly history: Map<string, PriceHistory>;
  readonly riskModels: Map<string, { model: FactorModel; warnings: readonly string[] }>;
  /** Benchmark weights by source and date. */
  readonly targets: Map<string, Awaited<ReturnType<typeof benchmarkWeightsAsOf>>>;
  /** Security master rows and last closes of a candidate list on a date. */
  readonly quotes: Map<
    string,
    { securities: Map<string, Security>; closes: ReturnType<MarketRepository["latestPrices"]> }
  >;
  /**
   * One optimizer workspace for every account: accounts of the same universe share the risk model object, so the
   * workspace's model factorizations and warm-started solver are reused (the answer is the same optimum).
   */
  readonly optimizer: Optimizer;
}

/** An empty {@link OptimizationMemo}. */
export function createOptimizationMemo(): OptimizationMemo {
  return {
    history: new Map(),
    riskModels: new Map(),
    targets: new Map(),
    quotes: new Map(),
    optimizer: createOptimizer(),
  };
}

/** `compute()` through `map` under `key` (no memo: computed each time). */
async function memoized<K, V>(map: Map<K, V> | undefined, key: K, compute: () => V | Promise<V>): Promise<V> {
  let v = map?.get(key);
  if (v === undefined) {
    v = await compute();
    map?.set(key, v);
  }
  return v;
}

/** Everything prepared for one optimization, with what the answer reports besides the result. */
export interface PreparedOptimization {
  account: AccountRecord;
  input: OptimizationInput;
  securities: Map<string, Security>;
  benchmarkName: string;
  riskModelName: string;
  uploaded: AccountOptimization["uploaded_risk_model"];
  warnings: string[];
  /** Last closes on the as-of date of the candidates (the universe and what was left out of it). */
  closes: ProposalQuotes["closes"];
  /** Gains the ledger realized this year before the optimization, and the budget left (docs/ledger.md). */
  yearToDate: YearToDateTaxes;
}

async function resolveAccount(
  ctx: ServiceContext,
  org: string,
  accountUuid: string,
  clientUuid?: string,
): Promise<AccountRecord> {
  if (clientUuid !== undefined) return ctx.store.accounts.require(org, clientUuid, accountUuid);
  return (await findAccount(ctx, org, accountUuid)).account;
}

/** Units of each listing currency per USD on `asOf`. @throws {DataError} when a rate is missing. */
async function fxOn(
  ctx: ServiceContext,
  currencies: Iterable<Currency>,
  asOf: string,
): Promise<Map<Currency, number>> {
  const out = new Map<Currency, number>();
  for (const c of currencies) {
    if (out.has(c)) continue;
    const r = await ctx.store.market.fxRateAsOf(c, asOf);
    if (!r) throw new DataError(`No ${c} per USD rate on or before ${asOf}.`, { code: "missing_fx" });
    out.set(c, r.perUsd);
  }
  return out;
}

/**
 * The core optimizer's input for an account as of a date, exactly as {@link optimizeAccount} builds it (steps 1-8 of
 * docs/optimize-service.md), with the warnings so far: for research, and to check the service against the core.
 * @throws as {@link optimizeAccount}.
 */
export async function prepareAccountOptimization(
  ctx: ServiceContext,
  org: string,
  accountUuid: string,
  options: OptimizeAccountOptions = {},
): Promise<PreparedOptimization> {
  const account = await resolveAccount(ctx, org, accountUuid, options.clientUuid);
  const asOf = await checkedAsOf(ctx, options.asOf);
  const market = ctx.store.market;
  const warnings: string[] = [];

  // The account on the date (lots bought on or before it, split-adjusted back), valued at the closes.
  const held = await holdingsAt(ctx, account, asOf);
  // Assets held long or short: a short is a negative current weight whose covers are priced by its lots.
  const heldIds = new Set([
    ...held.lots.map((l) => l.themeAssetId),
    ...held.shortLots.map((s) => s.themeAssetId),
  ]);
  const mapped = await accountOptimizerConfig(
    ctx,
    account,
    asOf,
    { nav: held.valueUsd.toNumber(), cash_usd: held.cashUsd.toNumber(), positions: heldIds.size },
    warnings,
  );
  const read = mapped.read;
  // Year-to-date taxes: the budget / gain target count what the ledger realized this year (service/ledger-ytd.ts).
  const yearToDate = await yearToDateTaxes(ctx.store, account.uuid, asOf, mapped.config);
  const config = yearToDate.config;
  if (yearToDate.warning !== null) warnings.push(yearToDate.warning);

  // Target weights.
  const source = await benchmarkSource(ctx, account, read);
  let benchmarkName: string;
  let targetWeights: Map<string, number>;
  const memo = options.memo;
  const fromSource =
    source === null
      ? null
      : await memoized(memo?.targets, `${asOf}|${JSON.stringify(source)}`, () =>
          benchmarkWeightsAsOf(ctx, source, asOf),
        );
  if (source !== null && fromSource !== null && fromSource.weights.size > 0) {
    benchmarkName = source.name;
    targetWeights = fromSource.weights;
  } else if (heldIds.size > 0) {
    // No index weights by the date: the account's own weights are the target (as the backtest does).
    benchmarkName = "account holdings";
    targetWeights = new Map();
    warnings.push(
      "No benchmark with constituent weights on the date (asset allocations, asset-class benchmarks, SYNTH500, SP500); the account's own weights are the target.",
    );
  } else
    throw new ValidationError(
      `Nothing to optimize: account ${account.uuid} holds nothing on ${asOf} and no benchmark index with constituent weights is stored.`,
      [{ path: "asset_allocations", message: "no benchmark with constituent weights and no holdings" }],
    );

  // Universe: benchmark constituents, holdings, and what the configuration names.
  const named = new Set<string>(configuredTickers(config));
  const candidates = [...new Set([...targetWeights.keys(), ...heldIds, ...named])].sort();
  const { securities, closes } = await memoized(
    memo?.quotes,
    `${asOf}|${candidates.join(",")}`,
    async () => ({
      securities: new Map(
        (await market.securities({ themeAssetIds: candidates })).map((s) => [s.themeAssetId, s] as const),
      ),
      closes: await market.latestPrices(candidates, asOf),
    }),
  );
  const assets: string[] = [];
  const dropped: string[] = [];
  for (const id of candidates) {
    const priced = securities.has(id) && closes.has(id);
    if (priced) assets.push(id);
    else if (heldIds.has(id))
      throw new DataError(`The account holds ${id} but the store has no price for it on or before ${asOf}.`, {
        code: "missing_price",
      });
    else dropped.push(id);
  }
  if (dropped.length > 0)
    warnings.push(
      `Left out of the universe (no security or no price on or before ${asOf}): ${dropped.slice(0, 10).join(", ")}${dropped.length > 10 ? ` and ${dropped.length - 10} more` : ""}.`,
    );
  const n = assets.length;
  const fx = await fxOn(
    ctx,
    assets.map((id) => securities.get(id)!.currency),
    asOf,
  );
  const currencies = assets.map((id) => securities.get(id)!.currency);
  const pricesUsd = Float64Array.from(assets, (id, i) => closes.get(id)!.close / fx.get(currencies[i]!)!);

  const benchmark = new Float64Array(n);
  if (targetWeights.size > 0) for (let i = 0; i < n; i++) benchmark[i] = targetWeights.get(assets[i]!) ?? 0;
  else
    for (const l of held.lots) {
      const i = assets.indexOf(l.themeAssetId);
      benchmark[i]! += l.quantity.toNumber() * pricesUsd[i]!;
    }
  let total = 0;
  for (const b of benchmark) total += b;
  // Index weights are stored as fractions summing to 1 up to rounding; holdings weights are normalized here.
  if (total > 1 || targetWeights.size === 0) for (let i = 0; i < n; i++) benchmark[i]! /= total;

  // Market data for the risk model and the cost terms (shared through the memo by accounts of the same universe).
  const riskModelName = read.risk_model_name ?? DEFAULT_RISK_MODEL;
  const universeKey = memo === undefined ? "" : `${asOf}|${assets.join(",")}`;
  const history = await memoized(memo?.history, universeKey, () =>
    priceHistory(ctx, assets, currencies, asOf),
  );
  let uploaded: PreparedOptimization["uploaded"] = null;
  let riskModel: FactorModel;
  if (isUploadedKind(riskModelName)) {
    const u = await uploadedRiskModel(ctx, org, riskModelName, assets, securities, asOf);
    riskModel = u.model;
    uploaded = u.used;
    if (u.warning !== null) warnings.push(u.warning);
  } else {
    const built = await memoized(memo?.riskModels, `${riskModelName}|${universeKey}`, async () => {
      const modelWarnings: string[] = [];
      const model = await buildAccountRiskModel(
        ctx,
        riskModelName,
        assets,
        securities,
        pricesUsd,
        history,
        asOf,
        modelWarnings,
      );
      return { model, warnings: modelWarnings };
    });
    riskModel = built.model;
    warnings.push(...built.warnings);
  }
  const cad = read.cash_buffer_cad_amount !== null || Number(read.cash_buffer_cad ?? 0) > 0;
  const cadPerUsd = cad ? (await fxOn(ctx, ["CAD"], asOf)).get("CAD") : undefined;
  const household = await householdWashSaleEvents(ctx, account, asOf, config.tax.washSaleThresholdDays);

  return {
    account,
    securities,
    closes,
    yearToDate,
    benchmarkName,
    riskModelName,
    uploaded,
    warnings,
    input: {
      asOf,
      assets,
      pricesUsd,
      currencies,
      lots: held.lots,
      ...(held.shortLots.length === 0
        ? {}
        : {
            shortLots: held.shortLots.map((l) => ({
              id: l.id,
              themeAssetId: l.themeAssetId,
              quantity: l.quantity,
              proceedsUsd: l.proceeds.dividedBy(l.fxRate).toNumber(),
              openDate: l.openDate,
            })),
          }),
      cashUsd: held.cashUsd.toNumber(),
      benchmark,
      riskModel,
      averageDailyVolumeUsd: history.advUsd,
      ...(cadPerUsd === undefined ? {} : { cadPerUsd }),
      ...(household.purchases.length === 0 ? {} : { recentPurchases: household.purchases }),
      ...(household.lossSales.length === 0 ? {} : { recentLossSales: household.lossSales }),
      config,
    },
  };
}

/**
 * The wash-sale facts of the client's other accounts on `asOf` (docs/optimize-service.md, step 9): their lots
 * bought within the window before the date that have not yet replaced washed shares (replacement shares for this
 * account's loss sales, with their quantities) and their loss sales within the window (for
 * prevent_tlh_invalidating_purchase). The optimizer prices the washed fraction of a loss from them.
 */
async function householdWashSaleEvents(
  ctx: ServiceContext,
  account: AccountRecord,
  asOf: string,
  thresholdDays: number,
): Promise<{
  purchases: { themeAssetId: string; date: string; quantity: number }[];
  lossSales: { themeAssetId: string; date: string }[];
}> {
  const purchases: { themeAssetId: string; date: string; quantity: number }[] = [];
  const lossSales: { themeAssetId: string; date: string }[] = [];
  const from = addDays(asOf, -thresholdDays);
  for (const other of await ctx.store.accounts.listByClient(account.organizationUuid, account.clientUuid)) {
    if (other.uuid === account.uuid) continue;
    for (const lot of await accountLots(ctx, other.uuid)) {
      if (lot.tradeDate >= from && lot.tradeDate <= asOf && lot.washSaleDate === null)
        purchases.push({
          themeAssetId: lot.themeAssetId,
          date: lot.tradeDate,
          quantity: lot.quantity.toNumber(),
        });
      const sold = lot.lastSoldForLossDate;
      if (sold !== null && sold >= from && sold <= asOf)
        lossSales.push({ themeAssetId: lot.themeAssetId, date: sold });
    }
  }
  return { purchases, lossSales };
}

/** Trailing daily returns of {@link priceHistory}: `returns[s * n + i]` of period s and asset i (NaN when missing). */
export interface PriceHistory {
  periods: number;
  returns: Float64Array;
  advUsd: Float64Array;
}

/**
 * Daily USD total returns over the trailing year ending on `asOf`, from the market panel (service/market-panel.ts:
 * close-to-close with split ratios and dividends on their dates, converted at each date's FX carried forward; a
 * return only between two consecutive priced dates); the last {@link RISK_LOOKBACK_DAYS}. The average daily traded
 * value is close x volume / FX over the last {@link ADV_WINDOW_DAYS} rows with a volume (NaN without).
 */
export async function priceHistory(
  ctx: ServiceContext,
  assets: readonly string[],
  currencies: readonly Currency[],
  asOf: string,
): Promise<PriceHistory> {
  const panel = await loadMarketPanel(ctx, {
    listings: assets.map((themeAssetId, i) => ({ themeAssetId, currency: currencies[i]! })),
    start: addDays(asOf, -RISK_HISTORY_CALENDAR_DAYS),
    end: asOf,
    volume: true,
  });
  const n = assets.length;
  const T = panel.dates.length;
  const periods = Math.max(0, Math.min(RISK_LOOKBACK_DAYS, T - 1));
  return {
    periods,
    returns: dailyUsdReturns(panel).slice((T - periods) * n),
    advUsd: averageDailyValueUsd(panel, ADV_WINDOW_DAYS),
  };
}

/**
 * The risk model named by the configuration over the universe (annualized; the optimizer applies spectral_shift).
 * `pca`: the statistical model of the trailing returns of the assets with at least
 * {@link MIN_RETURN_OBSERVATIONS} returns, the others imputed from their sector. `characteristics`: market,
 * sector and style factors from the store's characteristics (point in time on `asOf`), market caps from
 * `market_cap` (else shares outstanding x price, else the median). (`custom` / `vendor`: {@link uploadedRiskModel}.)
 */
async function buildAccountRiskModel(
  ctx: ServiceContext,
  name: string,
  assets: readonly string[],
  securities: ReadonlyMap<string, Security>,
  pricesUsd: Float64Array,
  history: PriceHistory,
  asOf: string,
  warnings: string[],
): Promise<FactorModel> {
  const n = assets.length;
  if (history.periods < MIN_RETURN_OBSERVATIONS)
    throw new DataError(
      `risk_model_name "${name}" needs at least ${MIN_RETURN_OBSERVATIONS} daily returns before ${asOf}; the store holds ${history.periods}. Import more price history (lotwise market import).`,
      { code: "insufficient_history" },
    );
  const counts = new Int32Array(n);
  for (let s = 0; s < history.periods; s++)
    for (let i = 0; i < n; i++) if (!Number.isNaN(history.returns[s * n + i]!)) counts[i]!++;
  const sectorOf = (id: string) => securities.get(id)?.sector ?? null;
  if (name === "characteristics")
    return characteristicsRiskModel(
      ctx,
      assets,
      (id) => securities.get(id),
      pricesUsd,
      history.returns,
      asOf,
      warnings,
    );
  // pca (or an unknown name, which buildRiskModel refuses naming risk_model_name).
  const covered: number[] = [];
  for (let i = 0; i < n; i++) if (counts[i]! >= MIN_RETURN_OBSERVATIONS) covered.push(i);
  if (covered.length < 2)
    throw new DataError(
      `risk_model_name "${name}" needs at least 2 assets with ${MIN_RETURN_OBSERVATIONS} daily returns before ${asOf}; the universe has ${covered.length}.`,
      { code: "insufficient_history" },
    );
  const T = history.periods;
  const sub = new Float64Array(T * covered.length);
  for (let s = 0; s < T; s++)
    covered.forEach((i, j) => {
      sub[s * covered.length + j] = history.returns[s * n + i]!;
    });
  const model = buildRiskModel(
    name,
    { returns: { assets: covered.map((i) => assets[i]!), returns: sub } },
    { pca: { minObservations: MIN_RETURN_OBSERVATIONS } },
  );
  return imputeBySector(model, assets, sectorOf, `with fewer than ${MIN_RETURN_OBSERVATIONS} returns`);
}

/**
 * The organization's uploaded model of `kind` in force on `asOf` (the newest dated on or before it) over the universe.
 * Assets it does not cover are imputed from their sector (see {@link uploadedModelOver}), with a warning saying how
 * many.
 * @throws {DataError} `risk_model_inputs_missing` when no model of the kind is dated on or before `asOf`.
 * @throws {ValidationError} when the model covers none of the universe.
 */
export async function uploadedRiskModel(
  ctx: ServiceContext,
  org: string,
  kind: RiskModelKind,
  assets: readonly string[],
  securities: ReadonlyMap<string, Security>,
  asOf: string,
): Promise<{
  model: FactorModel;
  used: NonNullable<PreparedOptimization["uploaded"]>;
  warning: string | null;
}> {
  const stored = await latestUploadedModel(ctx, org, kind, asOf, "optimize as of a later date");
  const { model, uncovered, label } = await uploadedModelOver(
    ctx,
    stored,
    assets,
    (id) => securities.get(id)?.sector ?? null,
  );
  return {
    model,
    used: {
      uuid: stored.uuid,
      name: stored.name,
      as_of_date: stored.asOfDate,
      assets_covered: assets.length - uncovered.length,
      assets_imputed: uncovered.length,
    },
    warning:
      uncovered.length === 0
        ? null
        : `${uncovered.length} of ${assets.length} assets are not in the ${label} (${listForMessage(uncovered, 5)}): imputed from their sector's average exposures and median specific variance.`,
  };
}

const finiteOrNull = (v: number): number | null => (Number.isFinite(v) ? v : null);

/** The optimizer's result in the contract shape. */
function toWire(p: PreparedOptimization, r: OptimizationResult): AccountOptimization {
  const symbol = (id: string) => p.securities.get(id)?.symbol ?? id;
  const index = new Map(r.assets.map((a, i) => [a, i]));
  const eps = 1e-12;
  const weights = r.assets
    .map((id, i) => ({
      ticker: id,
      symbol: symbol(id),
      current_weight: r.currentWeights[i]!,
      target_weight: r.status === "infeasible" ? 0 : r.weights[i]!,
      benchmark_weight: r.benchmarkWeights[i]!,
    }))
    .filter(
      (w) => Math.abs(w.current_weight) > eps || Math.abs(w.target_weight) > eps || w.benchmark_weight > eps,
    )
    .sort((a, b) => b.target_weight - a.target_weight || (a.ticker < b.ticker ? -1 : 1));
  return accountOptimizationSchema.parse({
    account_uuid: p.account.uuid,
    status: r.status,
    as_of_date: r.asOf,
    benchmark: p.benchmarkName,
    risk_model: p.riskModelName,
    uploaded_risk_model: p.uploaded,
    universe_size: r.assets.length,
    nav_usd: r.navUsd,
    investable_usd: r.investableUsd,
    cash_usd: p.input.cashUsd,
    cash_buffer_usd: r.cashBufferUsd,
    cash_after_usd: r.cashAfterUsd,
    weights,
    trades: r.trades.map((t) => ({
      ticker: t.themeAssetId,
      symbol: symbol(t.themeAssetId),
      side: t.side,
      shares: t.shares,
      amount_usd: t.amountUsd,
      price_usd: p.input.pricesUsd[index.get(t.themeAssetId)!]!,
      from_weight: t.fromWeight,
      to_weight: t.toWeight,
    })),
    lots_to_sell: r.lotsToSell.map((s) => ({
      lot_uuid: s.lotId,
      ticker: s.themeAssetId,
      symbol: symbol(s.themeAssetId),
      quantity: s.quantity.toFixed(),
      proceeds_usd: s.proceedsUsd,
      cost_basis_usd: s.costBasisUsd,
      gain_usd: s.gainUsd,
      term: s.term,
      tax_alpha_ignored: s.taxAlphaIgnored,
      disallowed_loss_usd: s.disallowedLossUsd,
    })),
    short_lots_to_cover: r.shortLotsToCover.map((c) => ({
      lot_uuid: c.lotId,
      ticker: c.themeAssetId,
      symbol: symbol(c.themeAssetId),
      quantity: c.quantity.toFixed(),
      proceeds_usd: c.proceedsUsd,
      cost_usd: c.costUsd,
      gain_usd: c.gainUsd,
      term: c.term,
      tax_alpha_ignored: c.taxAlphaIgnored,
    })),
    tracking_error: finiteOrNull(r.trackingError),
    total_risk: finiteOrNull(r.totalRisk),
    tax_cost_usd: r.taxCostUsd,
    realized_short_term_usd: r.realizedShortTermUsd,
    realized_long_term_usd: r.realizedLongTermUsd,
    capital_gains_reduction_usd: r.capitalGainsReductionUsd,
    year_to_date_realized: yearToDateWire(p.yearToDate, r.realizedShortTermUsd + r.realizedLongTermUsd),
    harvested_losses_usd: r.harvestedLossesUsd,
    transaction_cost_usd: r.transactionCostUsd,
    market_impact_usd: r.marketImpactUsd,
    turnover: r.turnover,
    tax_gamma: r.taxGamma,
    tax_gamma_search:
      r.taxGammaSearch === null
        ? null
        : {
            method: r.taxGammaSearch.method,
            goal: r.taxGammaSearch.goal,
            target: r.taxGammaSearch.target,
            achieved: r.taxGammaSearch.achieved,
            evaluations: r.taxGammaSearch.evaluations,
            within_tolerance: r.taxGammaSearch.withinTolerance,
          },
    risk_cap:
      r.riskCap === null
        ? null
        : {
            requested: r.riskCap.requested,
            used: r.riskCap.used,
            relaxations: r.riskCap.relaxations,
            minimum_achievable: r.riskCap.minimumAchievable,
            binding: r.riskCap.binding,
          },
    solver: {
      status: r.solver.status,
      rounds: r.solver.rounds,
      solves: r.solver.solves,
      rebuilds: r.solver.rebuilds,
      qp_iterations: r.solver.qpIterations,
    },
    binding: [...r.binding],
    diagnosis: [...r.diagnosis],
    warnings: [...p.warnings, ...r.warnings],
  });
}

/**
 * Optimize an account as of a date (docs/optimize-service.md): its lots and cash on the date, its effective
 * configuration, the benchmark weights in force, the configured risk model. An infeasible configuration answers
 * status `infeasible` with the diagnosis (no weights, no trades); it does not throw.
 * @throws {NotFoundError} for an account not in the organization (or not of `clientUuid`).
 * @throws {ValidationError} for a date without market data, invalid configuration values, nothing to optimize.
 * @throws {DataError} for missing prices / FX of held assets, a risk model without its inputs.
 * @example (await optimizeAccount(ctx, org, accountUuid)).trades
 */
export async function optimizeAccount(
  ctx: ServiceContext,
  org: string,
  accountUuid: string,
  options: OptimizeAccountOptions = {},
): Promise<AccountOptimization> {
  return (await optimizeAccountWithQuotes(ctx, org, accountUuid, options)).optimization;
}

/**
 * {@link optimizeAccount}, with the security rows and closes it priced the universe at, for a proposal of the same
 * date ({@link proposalOfOptimization}) to reuse.
 */
export async function optimizeAccountWithQuotes(
  ctx: ServiceContext,
  org: string,
  accountUuid: string,
  options: OptimizeAccountOptions = {},
): Promise<{ optimization: AccountOptimization; quotes: ProposalQuotes }> {
  const prepared = await prepareAccountOptimization(ctx, org, accountUuid, options);
  requirePositiveNav(prepared);
  const optimizer = options.memo?.optimizer;
  const result =
    optimizer === undefined ? optimizePortfolio(prepared.input) : optimizer.optimize(prepared.input);
  return {
    optimization: toWire(prepared, result),
    quotes: { securities: prepared.securities, closes: prepared.closes },
  };
}

/** The optimized weights as endpoint 1's `optimized_weights` (decimal(1,10), truncated toward zero so they never add above 1). */
export function optimizedWeightsOf(o: AccountOptimization): { ticker: string; weight: string }[] {
  return o.weights
    .map((w) => ({
      ticker: w.ticker,
      weight: new Decimal(w.target_weight).toDecimalPlaces(10, Decimal.ROUND_DOWN),
    }))
    .filter((w) => !w.weight.isZero())
    .map((w) => ({ ticker: w.ticker, weight: w.weight.toFixed() }));
}

/** Options of {@link rebalanceAccount}. */
export interface RebalanceAccountOptions extends OptimizeAccountOptions {
  /** A withdrawal to raise or a deposit to invest (docs/cash-requests.md). */
  cashRequest?: CashRequest | undefined;
}

/** Error codes of a risk model that cannot be built: a withdrawal then falls back to the lot engine. */
const NO_RISK_MODEL_CODES = new Set(["insufficient_history", "risk_model_inputs_missing"]);

/**
 * Optimize an account, then build and store the rebalance proposal of the optimized weights through endpoint 1's
 * service (priced at the optimization's as-of date). When the optimization is infeasible no proposal is stored:
 * the answer has `proposal: null` and a `message` with the diagnosis.
 *
 * With a cash request (docs/cash-requests.md): a deposit is added to the cash the optimizer and the proposal see
 * (the stored cash is not changed); a withdrawal is reserved like a cash buffer (the optimizer's and the
 * proposal's investable value is NAV - buffers - withdrawal, so the account ends with cash >= withdrawal +
 * buffers, the rest optimized as usual). A withdrawal from an account without a target (no benchmark: its own
 * holdings would be the target) or without a risk model (not enough history, no uploaded model) is raised by the
 * lot engine instead (`optimization: null`). The answer's `cash_request` reports the cash raised, the realized
 * gains and the estimated tax.
 * @throws as {@link optimizeAccount} and endpoint 1; {@link ValidationError} for a withdrawal above the account's
 *   value (less its buffers).
 */
export async function rebalanceAccount(
  ctx: ServiceContext,
  org: string,
  accountUuid: string,
  options: RebalanceAccountOptions = {},
): Promise<AccountRebalance> {
  const clientUuid = options.clientUuid ?? (await findAccount(ctx, org, accountUuid)).clientUuid;
  const cash = options.cashRequest === undefined ? null : cashAmountOf(options.cashRequest);
  let prepared: PreparedOptimization;
  let value: AccountValue | null = null;
  if (cash === null)
    prepared = await prepareAccountOptimization(ctx, org, accountUuid, { ...options, clientUuid });
  else {
    const account = await resolveAccount(ctx, org, accountUuid, clientUuid);
    const asOf = await checkedAsOf(ctx, options.asOf);
    value = await accountValue(ctx, account, asOf, cash.kind === "deposit" ? cash.amountUsd : undefined);
    checkWithdrawal(value, cash, asOf);
    try {
      prepared = await prepareAccountOptimization(ctx, org, accountUuid, { ...options, clientUuid });
    } catch (err) {
      if (!(cash.kind === "withdrawal" && err instanceof DataError && NO_RISK_MODEL_CODES.has(err.code)))
        throw err;
      const why = `No risk model applies (${err.message}), so the lot engine chose the least-tax sales.`;
      return withdrawWithLotEngine(ctx, org, clientUuid, account, asOf, value, cash, why);
    }
    if (cash.kind === "withdrawal" && prepared.benchmarkName === "account holdings")
      return withdrawWithLotEngine(
        ctx,
        org,
        clientUuid,
        account,
        asOf,
        value,
        cash,
        "The account has no target (no benchmark with constituent weights), so the lot engine chose the least-tax sales.",
      );
    prepared = withCashRequest(prepared, cash);
  }
  requirePositiveNav(prepared);
  const optimizer = options.memo?.optimizer;
  const optimization = toWire(
    prepared,
    optimizer === undefined ? optimizePortfolio(prepared.input) : optimizer.optimize(prepared.input),
  );
  const made = await proposalOfOptimization(
    ctx,
    org,
    clientUuid,
    accountUuid,
    optimization,
    { securities: prepared.securities, closes: prepared.closes },
    cash === null
      ? {}
      : cash.kind === "deposit"
        ? { depositUsd: cash.amountUsd }
        : { withdrawalUsd: cash.amountUsd },
  );
  return accountRebalanceSchema.parse({
    optimization,
    proposal: made.proposal,
    message: made.message,
    cash_request:
      cash === null || value === null || made.proposal === null
        ? null
        : cashRequestReport(
            value,
            cash,
            "optimizer",
            `The tax-aware optimizer with the ${cash.kind === "withdrawal" ? "withdrawal reserved as cash" : "deposit added to the cash"} (target: ${optimization.benchmark}).`,
            made.proposal,
            made.cashAfterUsd,
          ),
  });
}

/** NAV in USD of an optimizer input: cash plus long lots minus short lots at the input's prices. */
function navUsdOf(input: PreparedOptimization["input"]): number {
  const index = new Map(input.assets.map((id, i) => [id, i]));
  let nav = input.cashUsd;
  for (const l of input.lots ?? [])
    nav += l.quantity.toNumber() * input.pricesUsd[index.get(l.themeAssetId)!]!;
  for (const l of input.shortLots ?? [])
    nav -= l.quantity.toNumber() * input.pricesUsd[index.get(l.themeAssetId)!]!;
  return nav;
}

/**
 * Refuses an account worth nothing (or less) before the optimizer sees it, as drift does (`empty_account`, 422):
 * the core's own refusal names its function and input field (`optimizePortfolio`, `cashUsd`), which mean nothing to
 * a caller.
 * @throws {DataError} `empty_account` when the NAV (cash + positions, a deposit included) is not positive.
 */
function requirePositiveNav(p: PreparedOptimization): void {
  const nav = navUsdOf(p.input);
  if (nav > 0) return;
  const shown = Number.isFinite(nav) ? nav.toFixed(2) : String(nav);
  throw new DataError(
    `Account ${p.account.uuid} is worth nothing on ${p.input.asOf} (NAV, positions + cash: ${shown} USD): nothing to optimize.`,
    { code: "empty_account" },
  );
}

/**
 * The optimizer's input with a cash request: a deposit adds to the cash; a withdrawal raises the USD cash buffer by
 * its amount (`cashBufferUsdAmount` = the configured USD buffer, as an amount on the NAV, + the withdrawal), so the
 * budget row keeps it in cash and the weights are fractions of NAV - buffers - withdrawal, as in the proposal.
 */
function withCashRequest(p: PreparedOptimization, cash: CashAmount): PreparedOptimization {
  const input = p.input;
  if (cash.kind === "deposit")
    return { ...p, input: { ...input, cashUsd: input.cashUsd + cash.amountUsd.toNumber() } };
  const nav = navUsdOf(input);
  const c = input.config;
  const usdBuffer = c.cashBufferUsdAmount ?? (c.cashBufferUsd ?? 0) * nav;
  return {
    ...p,
    input: { ...input, config: { ...c, cashBufferUsdAmount: usdBuffer + cash.amountUsd.toNumber() } },
  };
}

/** Why an optimization gives no proposal: `infeasible`, or `all_cash` (the optimized portfolio holds no asset). */
export type NoProposalReason = "infeasible" | "all_cash";

/**
 * Build and store the proposal of an optimization's weights through endpoint 1's service, priced at its as-of date
 * and selling exactly the lots the optimizer chose (covering exactly the short lots it chose); `proposal: null` with the reason and a message when the
 * optimization is infeasible or all cash. `quotes`: the optimization's (optimizeAccountWithQuotes), not read again;
 * `cash`: a cash request's deposit (assumed added to the cash) or withdrawal (reserved like a cash buffer).
 * @throws as endpoint 1.
 */
export async function proposalOfOptimization(
  ctx: ServiceContext,
  org: string,
  clientUuid: string,
  accountUuid: string,
  optimization: AccountOptimization,
  quotes?: ProposalQuotes,
  cash: { depositUsd?: Decimal; withdrawalUsd?: Decimal } = {},
): Promise<
  | { proposal: ProposalResponse; message: null; reason: null; cashAfterUsd: Decimal }
  | { proposal: null; message: string; reason: NoProposalReason; cashAfterUsd: null }
> {
  if (optimization.status === "infeasible")
    return {
      proposal: null,
      reason: "infeasible",
      message: `The optimization is infeasible, so no proposal was stored: ${optimization.diagnosis.join(" ")}`,
      cashAfterUsd: null,
    };
  const weights = optimizedWeightsOf(optimization);
  if (weights.length === 0)
    return {
      proposal: null,
      reason: "all_cash",
      message: "The optimized portfolio holds no asset (all cash), so no proposal was stored.",
      cashAfterUsd: null,
    };
  const body = parseOrThrow(proposalRequestSchema, { optimized_weights: weights });
  // The proposal sells exactly the lots the optimizer chose (its tax decisions), not the default policy's.
  const lotChoices: Record<string, { lotId: string; quantity: string }[]> = {};
  for (const l of optimization.lots_to_sell) {
    const list = lotChoices[l.ticker] ?? [];
    list.push({ lotId: l.lot_uuid, quantity: l.quantity });
    lotChoices[l.ticker] = list;
  }
  // Covers close exactly the short lots the optimizer chose (an asset is held long or short, never both).
  for (const c of optimization.short_lots_to_cover) {
    const list = lotChoices[c.ticker] ?? [];
    list.push({ lotId: c.lot_uuid, quantity: c.quantity });
    lotChoices[c.ticker] = list;
  }
  const made = await createProposalJson(ctx, org, clientUuid, accountUuid, body, {
    asOf: optimization.as_of_date,
    holdingsAsOf: true,
    lotChoices,
    quotes,
    ...(cash.depositUsd === undefined ? {} : { depositUsd: cash.depositUsd.toFixed() }),
    ...(cash.withdrawalUsd === undefined ? {} : { withdrawalUsd: cash.withdrawalUsd.toFixed() }),
  });
  return { proposal: made.response, message: null, reason: null, cashAfterUsd: made.cashAfterUsd };
}
