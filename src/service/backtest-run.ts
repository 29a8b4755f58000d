/**
 * @module service/backtest-run
 * The account backtest as a service operation (endpoint 2's work, run by the job system): resolve the request's
 * defaults against the account and the store, load everything the simulation needs from the store once, run
 * the standard cases of `core/backtest` and return contract-valid case results. Decisions (defaults, starting
 * portfolio, benchmark resolution) are in docs/backtests.md.
 */
import type { Decimal } from "decimal.js";
import {
  BACKTEST_LIMITS,
  type BacktestCaseResult,
  type BacktestRequest,
  type BacktestResolvedParams,
  backtestCaseResultSchema,
  DEFAULT_LIQUIDATE_AT_END,
  DEFAULT_LOSS_USAGE,
  type PortfolioConfigRead,
} from "../contract/index.js";
import {
  type BacktestBenchmark,
  type BacktestCharacteristics,
  type BacktestMarket,
  backtestMarketOf,
  backtestSchedule,
  type CaseMetrics,
  createRiskModelProvider,
  defaultBasisResetMaxGain,
  type HeldDecision,
  LONG_SHORT_FACTOR_CHARACTERISTICS,
  type LongShortFactor,
  type OptimizerConfigProvider,
  type RebalanceEngine,
  type RiskModelProvider,
  runStandardBacktest,
  type StandardBacktestResult,
} from "../core/backtest/index.js";
import type { Security, Split } from "../core/data/types.js";
import { addDays, addMonths, daysBetween, indexAtOrBefore } from "../core/dates.js";
import { DataError, type FieldIssue, NotFoundError, ValidationError } from "../core/errors.js";
import type { ShortLot } from "../core/ledger/index.js";
import type { FactorModel } from "../core/risk/index.js";
import { TaxDecimal, type TaxLot } from "../core/tax/index.js";
import type { AccountRecord, StoredRiskModelRecord } from "../store/index.js";
import { shortLotFromRecord } from "../store/ledger-mapper.js";
import type { ServiceContext } from "./context.js";
import { effectiveConfig, loadConfigInputs, primeConfigInputs } from "./effective-config.js";
import { ledgerHoldingsAsOf } from "./holdings-history.js";
import { loadMarketPanel } from "./market-panel.js";
import {
  accountOptimizerConfig,
  accountOptimizerConfigLoaded,
  characteristicsModelInputs,
  characteristicsRiskModelOf,
  configuredTickers,
  MIN_RETURN_OBSERVATIONS,
  RISK_LOOKBACK_DAYS,
} from "./optimizer-inputs.js";
import { isUploadedKind, latestUploadedModel, uploadedModelOverLoaded } from "./risk-models.js";
import { mapSerial } from "./serial.js";
import { benchmarkSource, benchmarkWeightsAsOf, sourceHasIndexes } from "./targets.js";

/** Resolved parameters plus the optional long-short factor (as stored with a job). */
export type AccountBacktestParams = BacktestResolvedParams & { ls_tlh_factor?: LongShortFactor | undefined };

/** Progress as the job record stores it. */
export interface AccountBacktestProgress {
  planned_periods: number;
  completed_periods: number;
  last_completed_period: string | null;
}

/** Hooks of a run: progress after each period, and a cancellation check before each. */
export interface AccountBacktestHooks {
  onProgress?(progress: AccountBacktestProgress): void;
  shouldCancel?(): boolean;
}

/** Default harvesting threshold: a lot is harvested when its loss reaches 5% of its basis. */
export const DEFAULT_TAX_LOSS_THRESHOLD_BPS = 500;
/** Default tax_gamma when neither the request nor the configuration's tax_preferences give one. */
export const DEFAULT_BACKTEST_TAX_GAMMA = 1;
/** Default starting value of an account without holdings at the start date, USD. */
export const DEFAULT_STARTING_NAV = 1_000_000;
/** risk_free_rate_pct when the configuration leaves it null: the spec's library default, percent. */
export const DEFAULT_RISK_FREE_RATE_PCT = 4;
/** Default window: the three years ending on the last market date. */
export const DEFAULT_BACKTEST_YEARS = 3;
/**
 * Calendar days of price history read before a date for a risk model (~252 trading days plus slack): before a
 * backtest's start for its policies, before an optimization's as-of date for the optimizer.
 */
export const RISK_HISTORY_CALENDAR_DAYS = 380;
/** Benchmarks tried, in order, when the account names none (re-exported from service/targets). */
export { FALLBACK_BENCHMARKS } from "./targets.js";

async function requireAccount(ctx: ServiceContext, org: string, accountUuid: string): Promise<AccountRecord> {
  const account = await ctx.store.accounts.getInOrganization(org, accountUuid);
  if (!account) throw new NotFoundError(`Account ${accountUuid} not found.`, "account_not_found");
  return account;
}

function invalid(path: string, message: string): ValidationError {
  return new ValidationError(`Invalid backtest request: ${path}: ${message}`, [{ path, message }]);
}

/**
 * Product of the split ratios of an asset effective after a date (to bring today's lot quantities back), from
 * `later`: the store's splits after that date.
 */
function splitFactorAfter(later: readonly Split[], themeAssetId: string): Decimal {
  let f = new TaxDecimal(1);
  for (const s of later) if (s.themeAssetId === themeAssetId) f = f.times(s.ratio);
  return f;
}

/**
 * The account as it stood at the close of `date`: its lots acquired on or before `date` (stored lots carry
 * today's split-adjusted quantities; quantities are divided back by the splits after `date`, total basis
 * unchanged), its USD cash, and their value at that close. `quotes` holds, per asset held, the close and the
 * listing currency's units per USD used for that value (each looked up once), so callers value positions the
 * same way without reading the market again; `lotValues[i]` is the USD value of `lots[i]` at that close. `options.lots`: the account's stored lots already converted (e.g. by
 * the memoized read `accountLots` of service/proposals.ts), in stored order, with today's cash; default: the lots and
 * cash of the date rebuilt from the ledger (service/holdings-history.ts: executions and corporate actions after the
 * date undone, later lots left out, later market splits divided back).
 */
export async function holdingsAt(
  ctx: ServiceContext,
  account: AccountRecord,
  date: string,
  options: { lots?: readonly TaxLot[] } = {},
): Promise<{
  lots: TaxLot[];
  lotValues: Decimal[];
  /** Open short lots on the date (split-adjusted as the lots); their value at the close is subtracted from valueUsd. */
  shortLots: ShortLot[];
  cashUsd: Decimal;
  valueUsd: Decimal;
  quotes: Map<string, HeldQuote>;
}> {
  const lots: TaxLot[] = [];
  const lotValues: Decimal[] = [];
  const closes = new Map<string, Decimal>();
  const quotes = new Map<string, HeldQuote>();
  const heldQuote = async (id: string): Promise<HeldQuote> => {
    let quote = quotes.get(id);
    if (!quote) {
      const p = (await ctx.store.market.latestPrices([id], date)).get(id);
      if (!p)
        throw new DataError(
          `The account holds ${id} on ${date} but the store has no price for it on or before that date.`,
          { code: "missing_price" },
        );
      const security = await ctx.store.market.security(id);
      const perUsd =
        security && security.currency !== "USD"
          ? ((await ctx.store.market.fxRateAsOf(security.currency, date))?.perUsd ?? Number.NaN)
          : 1;
      if (!Number.isFinite(perUsd))
        throw new DataError(`No ${security?.currency} per USD rate on or before ${date}.`, {
          code: "missing_fx",
        });
      quote = { close: p.close, perUsd };
      quotes.set(id, quote);
    }
    return quote;
  };
  // Without given lots, the ledger's history gives the lots and cash of the date, split-adjusted already.
  const history = options.lots === undefined ? await ledgerHoldingsAsOf(ctx, account, date) : undefined;
  const stored = options.lots ?? history!.lots;
  const cashUsd = history?.cashUsd ?? new TaxDecimal(account.cashValueUsd);
  let value = cashUsd;
  let later: Split[] | undefined = history === undefined ? undefined : [];
  for (const lot of stored) {
    if (lot.tradeDate > date) continue;
    later ??= await ctx.store.market.splits(addDays(date, 1), "9999-12-31");
    const factor = splitFactorAfter(later, lot.themeAssetId);
    const adjusted = factor.eq(1) ? lot : { ...lot, quantity: lot.quantity.dividedBy(factor) };
    lots.push(adjusted);
    const quote = await heldQuote(lot.themeAssetId);
    // Dividing by 1 (a USD listing) would return the same value: skipped.
    let close = closes.get(lot.themeAssetId);
    if (close === undefined) {
      // times(number) converts the number the same way; converted once per asset.
      close = new TaxDecimal(quote.close);
      closes.set(lot.themeAssetId, close);
    }
    const lotValue = adjusted.quantity.times(close);
    const usd = quote.perUsd === 1 ? lotValue : lotValue.dividedBy(quote.perUsd);
    lotValues.push(usd);
    value = value.plus(usd);
  }
  // Open short lots of the date (LONG_SHORT / LONG_BIASED accounts): the shares owed count against the value.
  const shortLots: ShortLot[] = [];
  const owed = history?.shortLots ?? (await ctx.store.ledger.shortLots(account.uuid)).map(shortLotFromRecord);
  for (const s of owed) {
    if (s.openDate > date) continue;
    later ??= await ctx.store.market.splits(addDays(date, 1), "9999-12-31");
    const factor = splitFactorAfter(later, s.themeAssetId);
    const adjusted = factor.eq(1) ? s : { ...s, quantity: s.quantity.dividedBy(factor) };
    shortLots.push(adjusted);
    const quote = await heldQuote(s.themeAssetId);
    const owedValue = adjusted.quantity.times(quote.close);
    value = value.minus(quote.perUsd === 1 ? owedValue : owedValue.dividedBy(quote.perUsd));
  }
  return { lots, lotValues, shortLots, cashUsd, valueUsd: value, quotes };
}

/** The close of an asset held on a date and its listing currency's units per USD (1 for USD listings). */
export interface HeldQuote {
  close: number;
  perUsd: number;
}

/**
 * Fills the defaults of a backtest request and checks the window against the store's data.
 *
 * Defaults: end_date = the last market date; start_date = end_date - 3 years (or the first market date when the
 * data are shorter); rebalance_period MONTHLY; tax_gamma = the effective configuration's
 * tax_preferences.tax_gamma, else 1; tax_loss_threshold_bps 500; starting_nav = the account's value at the close
 * of start_date (cash + lots held then), else 1,000,000 for an account without holdings.
 * @throws {NotFoundError} for an account not in the organization.
 * @throws {ValidationError} naming the field: dates outside the market data, a window without a rebalance,
 *   a resolved starting_nav outside the limits.
 * @example await resolveBacktestParams(ctx, org, account, {}) // { start_date: "2022-12-31", end_date: "2025-12-31", ... }
 */
export async function resolveBacktestParams(
  ctx: ServiceContext,
  org: string,
  accountUuid: string,
  request: BacktestRequest,
): Promise<BacktestResolvedParams> {
  const account = await requireAccount(ctx, org, accountUuid);
  const market = ctx.store.market;
  const lastDate = await market.latestPriceDate();
  const firstDate = (await market.tradingDates())[0];
  if (lastDate === null || firstDate === undefined)
    throw new ValidationError("Invalid backtest request: the store holds no market data to backtest on.", [
      { path: "start_date", message: "the store holds no prices (lotwise market generate | import)" },
    ]);
  const end = request.end_date ?? lastDate;
  if (end > lastDate) throw invalid("end_date", `${end} is after the last market date ${lastDate}`);
  if (end <= firstDate) throw invalid("end_date", `${end} is not after the first market date ${firstDate}`);
  let start = request.start_date;
  if (start === undefined) {
    start = addMonths(end, -12 * DEFAULT_BACKTEST_YEARS);
    if (start < firstDate) start = firstDate;
  } else if (start < firstDate)
    throw invalid("start_date", `${start} is before the first market date ${firstDate}`);
  if (start >= end) throw invalid("end_date", "end_date must be after start_date");
  if (end < addMonths(start, 1))
    throw invalid("end_date", `the window ${start} to ${end} is shorter than one monthly rebalance period`);
  const dates = await market.tradingDates(start, end);
  if (dates.length < 2 || backtestSchedule(dates, start, end).rebalances.length === 0)
    throw invalid("end_date", `the window ${start} to ${end} holds fewer than two trading dates`);

  const config = (await effectiveConfig(ctx, account, dates[0]!)).read;
  // An uploaded risk model must be in force from the first decision date on (point in time, never a later one).
  const kind = config.risk_model_name;
  if (kind !== null && isUploadedKind(kind))
    await latestUploadedModel(ctx, org, kind, dates[0]!, "start the backtest on or after it");
  const gammaPref = config.tax_preferences.tax_gamma;
  const taxGamma = request.tax_gamma ?? (gammaPref === null ? DEFAULT_BACKTEST_TAX_GAMMA : Number(gammaPref));
  const threshold = request.tax_loss_threshold_bps ?? DEFAULT_TAX_LOSS_THRESHOLD_BPS;
  let startingNav = request.starting_nav;
  if (startingNav === undefined) {
    const at = await holdingsAt(ctx, account, dates[0]!);
    startingNav = at.valueUsd.gt(0) ? at.valueUsd.toDecimalPlaces(2).toNumber() : DEFAULT_STARTING_NAV;
    const { min, max } = BACKTEST_LIMITS.starting_nav;
    if (startingNav < min || startingNav > max)
      throw invalid(
        "starting_nav",
        `the account is worth ${startingNav} USD on ${dates[0]}, outside ${min}..${max}; give starting_nav`,
      );
  }
  const lossUsage = request.loss_usage ?? DEFAULT_LOSS_USAGE;
  const liquidateAtEnd = request.liquidate_at_end ?? DEFAULT_LIQUIDATE_AT_END;
  return {
    start_date: start,
    end_date: end,
    rebalance_period: request.rebalance_period ?? "MONTHLY",
    starting_nav: startingNav,
    tax_gamma: taxGamma,
    tax_loss_threshold_bps: threshold,
    loss_usage: lossUsage,
    liquidate_at_end: liquidateAtEnd,
    basis_reset_max_gain:
      request.basis_reset_max_gain ??
      defaultBasisResetMaxGain({
        lossUsage,
        liquidateAtEnd,
        shortTermRate: configNumber(config.tax_preferences.short_term_rate, 0.37),
        longTermRate: configNumber(config.tax_preferences.long_term_rate, 0.2),
      }),
  };
}

/** Everything the simulation needs, loaded from the store once. */
interface LoadedBacktest {
  market: BacktestMarket;
  lots: TaxLot[];
  cashUsd: Decimal;
  startingValueUsd: number;
  config: PortfolioConfigRead;
  securities: ReadonlyMap<string, Security>;
  /** The decision dates of the schedule (a risk model is only ever estimated at one of them). */
  rebalanceDates: readonly string[];
}

async function loadBacktest(
  ctx: ServiceContext,
  account: AccountRecord,
  params: AccountBacktestParams,
): Promise<LoadedBacktest> {
  const store = ctx.store.market;
  const windowDates = await store.tradingDates(params.start_date, params.end_date);
  if (windowDates.length < 2)
    throw invalid(
      "end_date",
      `the window ${params.start_date} to ${params.end_date} holds fewer than two trading dates`,
    );
  const first = windowDates[0]!;
  const schedule = backtestSchedule(windowDates, params.start_date, params.end_date, params.rebalance_period);
  const rebalanceDates = schedule.rebalances.map((t) => windowDates[t]!);
  const inputs = await loadConfigInputs(ctx, account);
  const config = (await effectiveConfig(ctx, account, first, {}, inputs)).read;

  // The starting account, scaled to starting_nav (quantities and basis alike, so gains keep their ratio).
  const at = await holdingsAt(ctx, account, first);
  const nav = new TaxDecimal(params.starting_nav);
  const scale = at.valueUsd.gt(0) ? nav.dividedBy(at.valueUsd) : null;
  const lots =
    scale === null || scale.eq(1)
      ? at.lots
      : at.lots.map((l) => ({
          ...l,
          quantity: l.quantity.times(scale),
          totalCostBasis: l.totalCostBasis.times(scale),
        }));
  const cashUsd = scale === null ? nav : scale.eq(1) ? at.cashUsd : at.cashUsd.times(scale);

  // Target weights in force at each rebalance date (point in time), with the date they were set.
  const source = await benchmarkSource(ctx, account, config);
  const byDate: { date: string; weights: Map<string, number> }[] = await mapSerial(
    rebalanceDates,
    async (date) => {
      if (source === null) return { date, weights: new Map<string, number>() };
      const { weights, date: set } = await benchmarkWeightsAsOf(ctx, source, date);
      return { date: set === "" ? date : set, weights };
    },
  );
  // An index whose first weights are dated after the start (month-end weights, a start mid-month) uses its
  // earliest weights from the start on: a slight look-ahead in the constituent list (docs/backtests.md).
  const firstWeighted = byDate.findIndex((b) => b.weights.size > 0);
  for (let k = 0; k < firstWeighted; k++) byDate[k] = byDate[firstWeighted]!;
  if (firstWeighted >= 0 && byDate[0]!.date > rebalanceDates[0]!)
    byDate[0] = { date: rebalanceDates[0]!, weights: byDate[0]!.weights };
  const benchmarkDates: string[] = [];
  const benchmarkMaps: Map<string, number>[] = [];
  for (const b of byDate)
    if (benchmarkDates.length === 0 || b.date > benchmarkDates[benchmarkDates.length - 1]!) {
      benchmarkDates.push(b.date);
      benchmarkMaps.push(b.weights);
    }
  const universe = new Set<string>();
  for (const w of benchmarkMaps) for (const id of w.keys()) universe.add(id);
  for (const l of lots) universe.add(l.themeAssetId);
  // As lotwise optimize: the tickers the configuration names at a decision date (targets, restrictions,
  // substitution groups) join the universe when the security master knows them; at each date the optimizer sees
  // those priced then and ignores the others.
  const named = new Set<string>();
  for (const date of rebalanceDates)
    for (const id of configuredTickers(
      (await accountOptimizerConfig(ctx, account, date, undefined, [], inputs)).config,
    ))
      if (!universe.has(id)) named.add(id);
  if (named.size > 0)
    for (const s of await store.securities({ themeAssetIds: [...named] })) universe.add(s.themeAssetId);
  const ids = [...universe].sort();
  if (ids.length === 0)
    throw invalid(
      "start_date",
      "nothing to backtest: the account holds nothing on the start date and no benchmark index with constituent weights is stored",
    );
  const securityList = await store.securities({ themeAssetIds: ids });
  const securityById = new Map<string, Security>(securityList.map((s) => [s.themeAssetId, s]));
  const unknown = ids.filter((id) => !securityById.has(id));
  if (unknown.length > 0)
    throw new DataError(
      `The backtest universe names securities missing from the security master: ${unknown.slice(0, 10).join(", ")}.`,
    );

  // The market panel: prices from a year before the start (history for risk models), corporate actions, FX.
  const panel = await loadMarketPanel(ctx, {
    listings: ids.map((id) => securityById.get(id)!),
    start: addDays(first, -RISK_HISTORY_CALENDAR_DAYS),
    end: params.end_date,
    spinOffs: true,
  });
  const N = ids.length;
  const column = panel.column;
  let benchmark: BacktestBenchmark;
  if (source === null) {
    // No index: hold the account's own starting weights (at the start close) as the target.
    const t0 = indexAtOrBefore(panel.dates, first);
    const w = new Float64Array(N);
    let total = 0;
    for (const l of lots) {
      const i = column.get(l.themeAssetId)!;
      const v = (l.quantity.toNumber() * panel.close[t0 * N + i]!) / panel.fx.get(panel.currencies[i]!)![t0]!;
      w[i]! += v;
      total += v;
    }
    for (let i = 0; i < N; i++) w[i]! /= total;
    benchmark = { name: "account holdings at the start", dates: [first], weights: [w] };
  } else {
    benchmark = {
      name: source.name,
      // Index and theme weights drift with prices between weighting dates (single securities are tiny exceptions).
      drift: sourceHasIndexes(source),
      dates: benchmarkDates,
      weights: benchmarkMaps.map((m) => {
        const w = new Float64Array(N);
        for (const [id, v] of m) w[column.get(id)!] = v;
        return w;
      }),
    };
  }

  let characteristics: BacktestCharacteristics | undefined;
  if (params.ls_tlh_factor !== undefined) {
    const names = LONG_SHORT_FACTOR_CHARACTERISTICS[params.ls_tlh_factor];
    const values: Record<string, Float64Array> = {};
    const obsDates = new Set<string>();
    const available: string[] = [];
    for (const n of names) if ((await store.characteristicDates(n)).length > 0) available.push(n);
    if (available.length === 0)
      throw invalid(
        "ls_tlh_factor",
        `the ${params.ls_tlh_factor} overlay needs the characteristic ${names.join(" or ")}, which the store does not hold`,
      );
    for (const name of available)
      for (const d of await store.characteristicDates(name)) if (d <= params.end_date) obsDates.add(d);
    const dates = [...obsDates].sort();
    for (const name of available) {
      const v = new Float64Array(dates.length * N).fill(Number.NaN);
      for (const [j, d] of dates.entries()) {
        for (const [id, x] of await store.characteristicsAsOf(name, d)) {
          const i = column.get(id);
          if (i !== undefined) v[j * N + i] = x;
        }
      }
      values[name] = v;
    }
    characteristics = { dates, values };
  }

  const market = backtestMarketOf(panel, {
    securities: ids.map((id) => {
      const s = securityById.get(id)!;
      return { themeAssetId: id, currency: s.currency, sector: s.sector };
    }),
    ...(characteristics === undefined ? {} : { characteristics }),
    benchmark,
  });
  return {
    market,
    lots,
    cashUsd,
    startingValueUsd: params.starting_nav,
    config,
    securities: securityById,
    rebalanceDates,
  };
}

/**
 * The market an account backtest runs on (the universe, prices from a year before the start, corporate actions,
 * FX, point-in-time benchmark weights), as {@link runAccountBacktestDetailed} loads it: for studies and checks.
 * @throws as {@link runAccountBacktest}.
 */
export async function loadAccountBacktestMarket(
  ctx: ServiceContext,
  org: string,
  accountUuid: string,
  params: AccountBacktestParams,
): Promise<{
  market: BacktestMarket;
  securities: ReadonlyMap<string, Security>;
  rebalanceDates: readonly string[];
}> {
  const loaded = await loadBacktest(ctx, await requireAccount(ctx, org, accountUuid), params);
  return { market: loaded.market, securities: loaded.securities, rebalanceDates: loaded.rebalanceDates };
}

/**
 * The tax-aware cases' risk model when the configuration names `custom` or `vendor`: at each decision date the
 * organization's newest model of that kind dated on or before it (the last uploaded among models of one date, as
 * `latestAsOf`), over the backtest's securities, assets it does not cover imputed from their sector. The engine
 * asks synchronously, so the models of the decision dates (`decisionDates`) are read before the run, each once,
 * with the listings their sectors need; a date without a model fails as `latestUploadedModel` says.
 */
async function uploadedRiskModelProvider(
  ctx: ServiceContext,
  org: string,
  kind: "custom" | "vendor",
  decisionDates: readonly string[],
): Promise<RiskModelProvider> {
  const dated = await ctx.store.riskModels.list(org, kind);
  const pickOn = (date: string) => {
    let pick: string | undefined;
    for (const m of dated) if (m.asOfDate <= date) pick = m.uuid;
    return pick;
  };
  const stored = new Map<string, { record: StoredRiskModelRecord; listings: Map<string, Security> }>();
  const missing = new Map<string, unknown>();
  for (const date of decisionDates) {
    const uuid = pickOn(date);
    if (uuid === undefined) {
      // None dated by then: the store's answer (the error saying what to upload).
      try {
        await latestUploadedModel(ctx, org, kind, date, "start the backtest on or after it");
      } catch (err) {
        missing.set(date, err);
      }
      continue;
    }
    if (stored.has(uuid)) continue;
    const record = await ctx.store.riskModels.require(org, uuid);
    const listings = await ctx.store.market.securitiesByIds((record.document as { assets: string[] }).assets);
    stored.set(uuid, { record, listings });
  }
  const built = new Map<string, FactorModel>();
  return (view) => {
    const uuid = pickOn(view.date);
    if (uuid === undefined) {
      if (missing.has(view.date)) throw missing.get(view.date);
      throw new Error(`uploadedRiskModelProvider: ${view.date} is not a decision date of the run.`);
    }
    let model = built.get(uuid);
    if (model === undefined) {
      const s = stored.get(uuid);
      if (s === undefined)
        throw new Error(`uploadedRiskModelProvider: ${view.date} is not a decision date of the run.`);
      const column = new Map(view.ids.map((id, i) => [id, i]));
      model = uploadedModelOverLoaded(
        s.record,
        view.ids,
        (id) => {
          const i = column.get(id);
          return i === undefined ? null : view.security(i).sector;
        },
        s.listings,
      ).model;
      built.set(uuid, model);
    }
    return model;
  };
}

/**
 * The tax_managed case's optimizer configuration at each decision date: the account's effective configuration on
 * that date (dynamic rules in force then, their conditions tested on the simulated account), mapped as for
 * `lotwise optimize` (service/optimizer-inputs). The engine asks synchronously, so what any of `decisionDates` can
 * need is read from the store first ({@link primeConfigInputs}).
 */
export async function accountConfigProvider(
  ctx: ServiceContext,
  account: AccountRecord,
  decisionDates: readonly string[],
): Promise<OptimizerConfigProvider> {
  const inputs = await loadConfigInputs(ctx, account);
  await primeConfigInputs(inputs, account, decisionDates);
  return (view, facts) => {
    const { config, write } = accountOptimizerConfigLoaded(
      inputs,
      account,
      view.date,
      { nav: facts.navUsd, cash_usd: facts.cashUsd, positions: facts.positions },
      [],
    );
    // The backtest keeps its own dust rule (DEFAULT_MIN_TRADE_FRACTION of the engine) unless the configuration
    // sets a minimum trade itself: the service's default minimum (100 USD / 0.05% of NAV, for desk-ready orders)
    // re-solves each rebalance several times and made demo backtests about 4.5x slower for no tax effect.
    return write.min_trade_amount_usd == null && write.min_trade_pct == null
      ? { ...config, minTradeUsd: 0, minTradePct: 0 }
      : config;
  };
}

/** Calendar days after which the backtest's `characteristics` model is rebuilt (as the estimated model). */
export const CHARACTERISTICS_MODEL_MAX_AGE_DAYS = 80;

/**
 * The tax-aware cases' risk model when the configuration names `characteristics`: the model `lotwise optimize`
 * builds (service/optimizer-inputs `characteristicsRiskModel`) from the view's trailing returns and the store's
 * characteristics, sectors and market caps as of the decision date, rebuilt every
 * {@link CHARACTERISTICS_MODEL_MAX_AGE_DAYS} days. Before {@link MIN_RETURN_OBSERVATIONS} returns exist, the
 * estimated provider's structural prior. The engine asks synchronously: each characteristic the model reads is read
 * before the run at every decision date in one pass of the store (characteristicsAsOfDates) over the securities
 * (in their order), the same values as one characteristicsAsOf query per date; a view over other assets reads its
 * columns from those.
 * @throws {Error} (when asked) for a date that is not one of `decisionDates`.
 */
export async function characteristicsRiskModelProvider(
  ctx: ServiceContext,
  securities: ReadonlyMap<string, Security>,
  decisionDates: readonly string[],
): Promise<RiskModelProvider> {
  const fallback = createRiskModelProvider();
  const available = new Set(await ctx.store.market.characteristicNames());
  const ids = [...securities.keys()];
  const position = new Map(ids.map((id, i) => [id, i]));
  const column = new Map(decisionDates.map((d, k) => [d, k]));
  const series = new Map<string, Float64Array>();
  for (const name of characteristicsModelInputs(available))
    series.set(name, await ctx.store.market.characteristicsAsOfDates(name, ids, decisionDates));
  const read = (viewIds: readonly string[], asOf: string) => {
    const k = column.get(asOf);
    if (k === undefined)
      throw new Error(`characteristicsRiskModelProvider: ${asOf} is not a decision date of the run.`);
    return (name: string): ReadonlyMap<string, number> => {
      const values = series.get(name)!;
      const out = new Map<string, number>();
      for (const id of viewIds) {
        const i = position.get(id);
        const v = i === undefined ? Number.NaN : values[k * ids.length + i]!;
        if (!Number.isNaN(v)) out.set(id, v);
      }
      return out;
    };
  };
  let cachedDate: string | null = null;
  let cached: FactorModel | null = null;
  return (view) => {
    if (cached !== null && cachedDate !== null && cachedDate <= view.date)
      if (daysBetween(cachedDate, view.date) < CHARACTERISTICS_MODEL_MAX_AGE_DAYS) return cached;
    const { periods, returns } = view.returns(RISK_LOOKBACK_DAYS);
    if (periods < MIN_RETURN_OBSERVATIONS) return fallback(view);
    const pricesUsd = Float64Array.from(view.ids, (_, i) => view.priceUsd(i));
    cached = characteristicsRiskModelOf(
      view.ids,
      (id) => securities.get(id),
      pricesUsd,
      returns,
      [],
      available,
      read(view.ids, view.date),
    );
    cachedDate = view.date;
    return cached;
  };
}

/** Number of a configuration decimal field, or `fallback` when unset. */
function configNumber(value: string | null | undefined, fallback: number): number {
  return value === null || value === undefined ? fallback : Number(value);
}

/** The tax assumptions of a run, in the contract's shape. */
export interface BacktestRunAssumptions {
  short_term_rate: number;
  long_term_rate: number;
  loss_usage: "account_only" | "outside_gains";
  liquidate_at_end: boolean;
}

/** What a run says of all its cases: the target index and whether its returns are price returns. */
export interface BacktestRunContext {
  benchmark_name: string;
  return_basis: "total_return" | "price_return";
}

/** The contract shape of a case's figures (with the run's assumptions and context when given). */
export function toCaseResult(
  m: CaseMetrics,
  assumptions?: BacktestRunAssumptions,
  run?: BacktestRunContext,
): BacktestCaseResult {
  const a = m.attribution;
  return backtestCaseResultSchema.parse({
    description: m.description,
    tax_managed: m.taxManaged,
    start_date: m.startDate,
    end_date: m.endDate,
    periods: m.periods,
    starting_value: m.startingValue,
    ending_value: m.endingValue,
    values: m.values.map((v) => ({ date: v.date, value: v.value })),
    pre_tax_return: m.preTaxReturn,
    pre_tax_return_annualized: m.preTaxReturnAnnualized,
    after_tax_return: m.afterTaxReturn,
    after_tax_return_annualized: m.afterTaxReturnAnnualized,
    after_tax_liquidation_value: m.afterTaxLiquidationValue,
    realized_short_term_gains: m.realizedShortTermGains,
    realized_short_term_losses: m.realizedShortTermLosses,
    realized_long_term_gains: m.realizedLongTermGains,
    realized_long_term_losses: m.realizedLongTermLosses,
    harvested_losses: m.harvestedLosses,
    taxes_paid: m.taxesPaid,
    tax_alpha_bps: m.taxAlphaBps,
    turnover: m.turnover,
    tracking_error: m.trackingError,
    sharpe_ratio: m.sharpeRatio,
    costs: { transaction: m.costs.transaction, fx: m.costs.fx },
    liquidation_tax: m.liquidationRecaptureTax,
    ...(run === undefined ? {} : run),
    ...(assumptions === undefined ? {} : { assumptions }),
    ...(a === null
      ? {}
      : {
          attribution: {
            reference_case: a.referenceCase,
            benchmark_case: a.benchmarkCase,
            pre_tax_active_return: a.preTaxActiveReturn,
            pre_tax_active_return_vs_benchmark: a.preTaxActiveReturnVsBenchmark,
            selection: a.selection,
            costs: a.costs,
            tax_effect: a.taxEffect,
            harvest_value: a.harvestValue,
            deferral_character: a.deferralCharacter,
            liquidation_recapture: a.liquidationRecapture,
            after_tax_active_return: a.afterTaxActiveReturn,
            tax_effect_usd: a.taxEffectUsd,
          },
        }),
    tax_years: m.taxYears.map((y) => ({
      year: y.year,
      realized_short_term_gains: y.shortTermGains,
      realized_short_term_losses: y.shortTermLosses,
      realized_long_term_gains: y.longTermGains,
      realized_long_term_losses: y.longTermLosses,
      harvested_losses: y.harvestedLosses,
      taxes_paid: y.taxes,
      harvest_tax_saving: y.harvestSaving,
      tax_saved_vs_reference: y.taxSavedVsReference,
    })),
  });
}

/** The assumptions of a run with `params` under the account's effective configuration (as the run resolves them). */
export async function backtestAssumptions(
  ctx: ServiceContext,
  org: string,
  accountUuid: string,
  params: AccountBacktestParams,
): Promise<BacktestRunAssumptions> {
  const account = await requireAccount(ctx, org, accountUuid);
  const first =
    (await ctx.store.market.tradingDates(params.start_date, params.end_date))[0] ?? params.start_date;
  const tp = (await effectiveConfig(ctx, account, first)).read.tax_preferences;
  return {
    short_term_rate: configNumber(tp.short_term_rate, 0.37),
    long_term_rate: configNumber(tp.long_term_rate, 0.2),
    loss_usage: params.loss_usage ?? DEFAULT_LOSS_USAGE,
    liquidate_at_end: params.liquidate_at_end ?? DEFAULT_LIQUIDATE_AT_END,
  };
}

/**
 * Runs the standard cases and returns the full core result (figures, simulation and policy counters); the
 * job helper uses {@link runAccountBacktest}, this is for reports and studies.
 * @throws as {@link runAccountBacktest}.
 */
export async function runAccountBacktestDetailed(
  ctx: ServiceContext,
  org: string,
  accountUuid: string,
  params: AccountBacktestParams,
  hooks: AccountBacktestHooks = {},
  options: { rebalanceEngine?: RebalanceEngine } = {},
): Promise<StandardBacktestResult> {
  const account = await requireAccount(ctx, org, accountUuid);
  const issues: FieldIssue[] = [];
  for (const key of ["tax_gamma", "tax_loss_threshold_bps", "starting_nav"] as const) {
    const { min, max } = BACKTEST_LIMITS[key];
    const v = params[key];
    if (!(Number.isFinite(v) && v >= min && v <= max))
      issues.push({ path: key, message: `${v} is outside ${min}..${max}` });
  }
  if (issues.length > 0)
    throw new ValidationError(
      `Invalid backtest parameters: ${issues.map((i) => `${i.path}: ${i.message}`).join("; ")}`,
      issues,
    );
  const loaded = await loadBacktest(ctx, account, params);
  const c = loaded.config;
  const kind = c.risk_model_name;
  const riskModelProvider =
    kind !== null && isUploadedKind(kind)
      ? await uploadedRiskModelProvider(ctx, org, kind, loaded.rebalanceDates)
      : kind === "characteristics"
        ? await characteristicsRiskModelProvider(ctx, loaded.securities, loaded.rebalanceDates)
        : undefined;
  const optimizerConfig = await accountConfigProvider(ctx, account, loaded.rebalanceDates);
  const tp = c.tax_preferences;
  const shortTermRate = configNumber(tp.short_term_rate, 0.37);
  return runStandardBacktest({
    market: loaded.market,
    startDate: params.start_date,
    endDate: params.end_date,
    holdings: { cashUsd: loaded.cashUsd, lots: loaded.lots },
    benchmarkStartingValueUsd: loaded.startingValueUsd,
    taxGamma: params.tax_gamma,
    harvestThresholdBps: params.tax_loss_threshold_bps,
    ...(params.ls_tlh_factor === undefined ? {} : { longShortFactor: params.ls_tlh_factor }),
    costs: { transactionBps: configNumber(c.tcost_bps, 5) },
    tax: {
      shortTermRate,
      longTermRate: configNumber(tp.long_term_rate, 0.2),
      ordinaryIncomeRate: configNumber(tp.ordinary_income_tax_rate, shortTermRate),
      lossUsage: params.loss_usage ?? DEFAULT_LOSS_USAGE,
      rules: {
        ...(tp.wash_sale_threshold === null ? {} : { washSaleThresholdDays: tp.wash_sale_threshold }),
        ...(tp.long_term_threshold === null ? {} : { longTermThresholdDays: tp.long_term_threshold }),
      },
    },
    liquidateAtEnd: params.liquidate_at_end ?? DEFAULT_LIQUIDATE_AT_END,
    ...(params.basis_reset_max_gain === undefined ? {} : { basisResetMaxGain: params.basis_reset_max_gain }),
    riskFreeRate: configNumber(c.risk_free_rate_pct, DEFAULT_RISK_FREE_RATE_PCT) / 100,
    riskAversion: configNumber(c.risk_aversion, 2),
    ...(riskModelProvider === undefined ? {} : { riskModelProvider }),
    cashBuffer: configNumber(c.cash_buffer_usd, 0),
    maxWeight: configNumber(c.max_weight, 1),
    ...(options.rebalanceEngine === undefined ? {} : { rebalanceEngine: options.rebalanceEngine }),
    optimizerConfig,
    hooks: {
      ...(hooks.onProgress === undefined
        ? {}
        : {
            onProgress: (p) =>
              hooks.onProgress!({
                planned_periods: p.plannedPeriods,
                completed_periods: p.completedPeriods,
                last_completed_period: p.lastCompletedPeriod,
              }),
          }),
      ...(hooks.shouldCancel === undefined ? {} : { shouldCancel: hooks.shouldCancel }),
    },
  });
}

/**
 * Runs the account backtest: tax_managed, harvest_baseline, pre_tax, benchmark, and long_short_tlh when `ls_tlh_factor` is given.
 * Loads the market once (one price matrix over the window plus a year of history, splits, dividends, FX,
 * point-in-time benchmark weights, characteristics for the overlay), starts from the account as it stood on
 * start_date scaled to starting_nav, and applies the account's effective configuration at the start
 * (tax_preferences rates and windows, tcost_bps, risk_aversion, cash_buffer_usd, max_weight).
 * @throws {NotFoundError} for an account not in the organization.
 * @throws {ValidationError} for parameters outside the contract's limits, a window without data, an overlay
 *   whose characteristic the store lacks.
 * @throws {DataError} for prices or FX missing where the account needs them.
 * @throws {BacktestCancelledError} when `hooks.shouldCancel` returns true.
 * @example await runAccountBacktest(ctx, org, account, await resolveBacktestParams(ctx, org, account, {}), { onProgress })
 */
export async function runAccountBacktest(
  ctx: ServiceContext,
  org: string,
  accountUuid: string,
  params: AccountBacktestParams,
  hooks: AccountBacktestHooks = {},
): Promise<Record<string, BacktestCaseResult>> {
  const { metrics, policyStats, benchmarkName, returnBasis } = await runAccountBacktestDetailed(
    ctx,
    org,
    accountUuid,
    params,
    hooks,
  );
  const assumptions = await backtestAssumptions(ctx, org, accountUuid, params);
  const run: BacktestRunContext = { benchmark_name: benchmarkName, return_basis: returnBasis };
  const out: Record<string, BacktestCaseResult> = {};
  for (const [name, m] of Object.entries(metrics)) {
    const held = policyStats[name]?.held ?? [];
    out[name] = toCaseResult(
      held.length === 0 ? m : { ...m, description: `${m.description} ${heldNote(held, m.periods)}` },
      assumptions,
      run,
    );
  }
  return out;
}

/**
 * What a case's description says of its held decisions: how many rebalances kept their positions (harvest trades
 * only) because the optimizer found the configuration infeasible or failed, with the dates and the first reason.
 */
export function heldNote(held: readonly HeldDecision[], periods: number): string {
  const infeasible = held.filter((h) => h.status === "infeasible");
  const dates = (list: readonly HeldDecision[]) =>
    `${list
      .slice(0, 5)
      .map((h) => h.date)
      .join(", ")}${list.length > 5 ? ` and ${list.length - 5} more` : ""}`;
  const parts: string[] = [];
  if (infeasible.length > 0) {
    const reason = infeasible[0]!.reasons[0];
    parts.push(
      `the configuration was infeasible on ${dates(infeasible)}${reason === undefined ? "" : ` (${reason})`}`,
    );
  }
  const failed = held.filter((h) => h.status === "error");
  if (failed.length > 0) parts.push(`the optimizer failed on ${dates(failed)} (${failed[0]!.reasons[0]})`);
  return `${held.length} of ${periods} rebalances held their positions (harvest trades only): ${parts.join("; ")}.`;
}
