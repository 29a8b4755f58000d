/**
 * @module service/themes
 * Themes over a store: create, list, read and revise (extensions), evaluate a revision into a stored
 * constituent snapshot (extension), read the latest revision's snapshot (endpoint 7) and backtest the saved
 * methodology over a window, optionally against a benchmark (endpoint 8). Evaluation is point in time: a
 * security counts from its listing date, characteristics are the latest values dated on or before the date.
 * Reference: docs/themes.md.
 */
import {
  formatDecimal,
  parseOrThrow,
  type Theme,
  type ThemeBacktestQuery,
  type ThemeBacktestResult,
  type ThemeConstituent,
  type ThemeConstituentSnapshot,
  type ThemeEvaluateRequest,
  type ThemeMethodology,
  type ThemeMethodologyInput,
  type ThemeRebalanceEvent,
  type ThemeRevision,
  themeEvaluateRequestSchema,
  themeMethodologySchema,
  themeRevisionSchema,
} from "../contract/index.js";
import { universePresetExpressions } from "../core/catalog/presets.js";
import type { MarketPanel } from "../core/data/market-panel.js";
import type { Security } from "../core/data/types.js";
import { addDays, isIsoDate, toDayNumber } from "../core/dates.js";
import { DataError, NotFoundError, ValidationError } from "../core/errors.js";
import { compensatedSum } from "../core/metrics/index.js";
import {
  CHARACTERISTIC_NAMES,
  fieldCatalog,
  parseExpression,
  referencedFields,
  SECURITY_FIELDS,
  securityTable,
} from "../core/themes/expression/index.js";
import {
  alignSeries,
  type CompiledThemeDefinition,
  characteristicColumns,
  compareWithBenchmark,
  compileThemeDefinition,
  evaluateThemeDefinition,
  listedMask,
  rebalanceIndices,
  simulateTheme,
} from "../core/themes/index.js";
import type { LotwiseStore, ThemeRecord, ThemeRevisionRecord } from "../store/index.js";
import { clockDate, marketAsOf, type ServiceContext } from "./context.js";
import { loadMarketPanel } from "./market-panel.js";
import { mapSerial } from "./serial.js";
import { resolveTicker } from "./tickers.js";

/** Annual risk-free rate of the backtest's Sharpe ratio when none is given (2%, as a fraction). */
export const DEFAULT_THEME_RISK_FREE_RATE = 0.02;
/** Default backtest window: this many calendar days before the end date. */
export const DEFAULT_THEME_BACKTEST_DAYS = 365;
/** Other names of canonical benchmark identifiers (upper case), resolved before tickers. */
export const BENCHMARK_ALIASES: Readonly<Record<string, string>> = Object.freeze({
  SPX: "SP500",
  GSPC: "SP500",
  "^GSPC": "SP500",
  "S&P500": "SP500",
  "S&P 500": "SP500",
  "SP-500": "SP500",
});
/**
 * Largest daily price panel (trading days x securities of the store) a theme backtest loads: 20 million
 * prices, e.g. 5,000 securities over about 16 years (the panel and its derived arrays take about 0.5 GB).
 */
export const MAX_THEME_BACKTEST_CELLS = 20_000_000;
/** Calendar days before the window's first date searched for the benchmark level that applies on it. */
const BENCHMARK_LOOKBACK_DAYS = 10;

/** Options of {@link backtestTheme} beyond the query parameters. */
export interface ThemeBacktestOptions {
  /** Annual risk-free rate of the Sharpe ratio, a fraction. @default DEFAULT_THEME_RISK_FREE_RATE */
  riskFreeRate?: number;
}

// ---- create, read, revise ----------------------------------------------------------------------------

/**
 * Creates a theme with its first revision. The methodology is validated (contract schema) and every
 * expression is compiled against the securities' fields and the store's characteristics.
 * @throws {ValidationError} code `validation_error` for a malformed body, `invalid_expression` for an
 *   invalid filter or score (issue path e.g. `filters[1]`), `invalid_methodology` for an unknown preset.
 * @example await createTheme(ctx, org, { name: "Dividend tech", universe: { preset: "us_information_technology" },
 *   filters: ["dividend_yield > 1%"], score: "dividend_yield", selection: { mode: "top_n", value: 30 },
 *   weighting: { scheme: "score", max_weight: 0.1 }, rules: { rebalancing_period: "QUARTERLY" } })
 */
export async function createTheme(
  ctx: ServiceContext,
  org: string,
  body: ThemeMethodologyInput,
): Promise<Theme> {
  const methodology = parseOrThrow(themeMethodologySchema, body, "theme methodology");
  await compileMethodology(ctx, methodology);
  const { theme, revision } = await ctx.store.transaction((tx) =>
    tx.themes.create(org, methodology.name, methodology as unknown as Record<string, unknown>),
  );
  return themeRead(theme, revision);
}

/** The organization's themes, oldest first, each with its latest methodology. */
export async function listThemes(ctx: ServiceContext, org: string): Promise<Theme[]> {
  return mapSerial(await ctx.store.themes.list(org), async (t) =>
    themeRead(t, await latestRevision(ctx, t.uuid)),
  );
}

/**
 * One theme with its latest methodology.
 * @throws {NotFoundError} code `theme_not_found`.
 */
export async function getTheme(ctx: ServiceContext, org: string, uuid: string): Promise<Theme> {
  const theme = await ctx.store.themes.require(org, uuid);
  return themeRead(theme, await latestRevision(ctx, uuid));
}

/**
 * Saves a new revision: each top-level field of `body` replaces the stored one. The previous revision's
 * snapshots stay stored but endpoint 7 answers `snapshot_not_found` until the new revision is evaluated.
 * @throws {NotFoundError} code `theme_not_found`.
 * @throws {ValidationError} as {@link createTheme}, for the body or the merged methodology.
 */
export async function reviseTheme(
  ctx: ServiceContext,
  org: string,
  uuid: string,
  body: ThemeRevision,
): Promise<Theme> {
  const theme = await ctx.store.themes.require(org, uuid);
  const changes = parseOrThrow(themeRevisionSchema, body, "theme revision");
  const current = (await latestRevision(ctx, uuid)).methodology;
  const merged: Record<string, unknown> = { ...current };
  for (const [key, value] of Object.entries(changes)) if (value !== undefined) merged[key] = value;
  const methodology = parseOrThrow(themeMethodologySchema, merged, "theme methodology");
  await compileMethodology(ctx, methodology);
  const revision = await ctx.store.transaction((tx) =>
    tx.themes.revise(org, uuid, methodology.name, methodology as unknown as Record<string, unknown>),
  );
  const updated = (await ctx.store.themes.get(org, uuid)) ?? theme;
  return themeRead(updated, revision);
}

// ---- evaluation and snapshots ----------------------------------------------------------------------------

/**
 * Evaluates the theme's latest revision as of a date (default: the latest trading date in the store not
 * after today) and stores the snapshot (replacing one of the same revision and date).
 *
 * A security is a candidate when it is listed on or before the date (`listedFrom`; a security without one
 * needs a price on or before the date) and not delisted before it; characteristics are the latest values
 * dated on or before the date.
 * @throws {NotFoundError} code `theme_not_found`.
 * @throws {ValidationError} for a malformed body (`as_of_date` not a date).
 * @throws {DataError} code `no_market_data` when no security is listed on or before the date.
 * @example (await evaluateTheme(ctx, org, uuid, { as_of_date: "2017-12-29" })).constituents[0]
 */
export async function evaluateTheme(
  ctx: ServiceContext,
  org: string,
  uuid: string,
  body: ThemeEvaluateRequest = {},
): Promise<ThemeConstituentSnapshot> {
  await ctx.store.themes.require(org, uuid);
  const request = parseOrThrow(themeEvaluateRequestSchema, body, "theme evaluation request");
  const revision = await latestRevision(ctx, uuid);
  const compiled = await compileMethodology(
    ctx,
    revision.methodology as unknown as ThemeMethodology,
    "saved",
  );
  const asOf = request.as_of_date ?? (await defaultAsOf(ctx));
  const securities = await ctx.store.market.securities();
  const unknownListing = securities.filter((s) => s.listedFrom === null).map((s) => s.themeAssetId);
  const pricedBefore = await ctx.store.market.latestPrices(unknownListing, asOf);
  const priced = Uint8Array.from(securities, (s) =>
    s.listedFrom !== null || pricedBefore.has(s.themeAssetId) ? 1 : 0,
  );
  const eligible = listedMask(securities, asOf, priced);
  if (!eligible.includes(1)) {
    throw new DataError(
      `No security is listed on or before ${asOf}, so theme ${uuid} cannot be evaluated then; load market data (lotwise market import or generate) or choose a later as_of_date.`,
      { code: "no_market_data" },
    );
  }
  const columns = characteristicColumns(
    securities,
    await asOfValues(ctx.store, characteristicFields(compiled), asOf),
  );
  const result = evaluateThemeDefinition(compiled, securityTable(securities, columns), { eligible });
  const constituents: ThemeConstituent[] = [...result.rows].map((row, k) => {
    const s = securities[row]!;
    return {
      theme_asset_id: s.themeAssetId,
      symbol: s.symbol,
      name: s.name,
      exchange: s.mic,
      score: result.scores[k]!,
      weight: result.weights[k]!,
    };
  });
  const totalWeight = compensatedSum(result.weights);
  const saved = await ctx.store.themes.saveSnapshot({
    themeUuid: uuid,
    revision: revision.revision,
    asOfDate: asOf,
    totalWeight,
    constituents,
  });
  return snapshotRead(saved.themeUuid, saved.revision, saved.asOfDate, saved.totalWeight, constituents);
}

/**
 * Endpoint 7: the latest snapshot (by as-of date) of the theme's latest revision, constituents by weight
 * descending.
 * @throws {NotFoundError} code `theme_not_found`; code `snapshot_not_found` when the latest revision has not
 *   been evaluated (also right after a revision).
 */
export async function getThemeConstituents(
  ctx: ServiceContext,
  org: string,
  uuid: string,
): Promise<ThemeConstituentSnapshot> {
  await ctx.store.themes.require(org, uuid);
  const revision = await latestRevision(ctx, uuid);
  const snapshot = await ctx.store.themes.latestSnapshot(uuid, revision.revision);
  if (snapshot === undefined) {
    throw new NotFoundError(
      `Theme ${uuid} revision ${revision.revision} has not been evaluated, so it has no constituents yet; evaluate it first (POST /api/v1/themes/${uuid}/evaluate, or lotwise themes evaluate ${uuid}). Each new revision needs its own evaluation.`,
      "snapshot_not_found",
    );
  }
  return snapshotRead(
    snapshot.themeUuid,
    snapshot.revision,
    snapshot.asOfDate,
    snapshot.totalWeight,
    snapshot.constituents as ThemeConstituent[],
  );
}

// ---- backtest ------------------------------------------------------------------------------------------

/**
 * Endpoint 8: backtests the theme's saved methodology (latest revision) over [start_date, end_date],
 * rebalancing at its `rules.rebalancing_period` with point-in-time evaluations, optionally against a
 * benchmark (an index identifier such as SP500, or a ticker / theme_asset_id).
 *
 * Defaults: end_date = the latest trading date in the store not after today; start_date = 365 days before
 * end_date. Values are daily (1 on the first trading date of the window), returns per rebalance period, keyed
 * by the period's last date. See docs/themes.md for every convention.
 * @throws {NotFoundError} code `theme_not_found`.
 * @throws {ValidationError} code `invalid_window` (a date that is not YYYY-MM-DD, start_date not before
 *   end_date); code `unknown_benchmark` (neither an index nor a ticker of the store, or an ambiguous symbol).
 * @throws {DataError} code `no_data_in_window` when the window holds fewer than two trading dates, or the
 *   benchmark has fewer than two observations in it.
 * @example await backtestTheme(ctx, org, uuid, { start_date: "2014-01-01", end_date: "2018-02-07", benchmark: "SP500" })
 */
export async function backtestTheme(
  ctx: ServiceContext,
  org: string,
  uuid: string,
  query: ThemeBacktestQuery = {},
  options: ThemeBacktestOptions = {},
): Promise<ThemeBacktestResult> {
  await ctx.store.themes.require(org, uuid);
  const revision = await latestRevision(ctx, uuid);
  const methodology = revision.methodology as unknown as ThemeMethodology;
  const compiled = await compileMethodology(ctx, methodology, "saved");
  const riskFreeRate = options.riskFreeRate ?? DEFAULT_THEME_RISK_FREE_RATE;
  if (!Number.isFinite(riskFreeRate) || riskFreeRate <= -1) {
    throw new RangeError(
      `backtestTheme: riskFreeRate must be a finite fraction above -1, got ${riskFreeRate}`,
    );
  }
  const { start, end } = await backtestWindow(ctx, query);
  const benchmark =
    query.benchmark === undefined ? undefined : await resolveBenchmark(ctx.store, query.benchmark);

  const market = ctx.store.market;
  const securities = await market.securities();
  await checkWindowSize(ctx.store, securities, start, end);
  // Every security of the store (the universe is filtered at each rebalance): closes, FX, total returns.
  const panel = await loadMarketPanel(ctx, { listings: securities, start, end });
  const dates = panel.dates;
  if (dates.length < 2) {
    const s = await market.summary();
    const held =
      s.firstDate === null
        ? "the store holds no prices"
        : `the store holds prices from ${s.firstDate} to ${s.lastDate}`;
    throw new DataError(
      `The window ${start} to ${end} has ${dates.length === 0 ? "no trading date" : "a single trading date"} with prices (${held}); choose a window with at least two trading dates.`,
      { code: "no_data_in_window" },
    );
  }
  const first = dates[0]!;
  const last = dates[dates.length - 1]!;
  const N = securities.length;
  const rebalances = rebalanceIndices(panel.dates, methodology.rules.rebalancing_period);
  const columnsAt = await rebalanceColumns(
    ctx.store,
    characteristicFields(compiled),
    panel.ids,
    rebalances.map((t) => panel.dates[t]!),
  );
  const rebalanceOf = new Map(rebalances.map((t, k) => [t, k]));
  const run = simulateTheme({
    dates: panel.dates,
    width: N,
    growth: panel.growth,
    rebalances,
    targetsAt: (t) => {
      const date = panel.dates[t]!;
      const eligible = listedMask(securities, date, panel.priced.subarray(t * N, (t + 1) * N));
      const table = securityTable(securities, columnsAt(rebalanceOf.get(t)!));
      const r = evaluateThemeDefinition(compiled, table, { eligible });
      return { columns: r.rows, weights: r.weights };
    },
  });

  const ref = (i: number) => ({ symbol: securities[i]!.symbol, theme_asset_id: securities[i]!.themeAssetId });
  const rebalanceEvents: ThemeRebalanceEvent[] = run.rebalances.map((r) => ({
    date: panel.dates[r.index]!,
    added: r.added.map(ref),
    removed: r.removed.map(ref),
    constituent_count: r.columns.length,
  }));
  const values: Record<string, number> = {};
  panel.dates.forEach((d, t) => {
    values[d] = run.values[t]!;
  });
  const returns: Record<string, number> = {};
  const cumulative: Record<string, number> = {};
  run.periodEnds.forEach((end, k) => {
    const d = panel.dates[end]!;
    returns[d] = run.periodReturns[k]!;
    cumulative[d] = run.values[end]! - 1;
  });
  const result: ThemeBacktestResult = {
    theme: {
      backtest_returns: returns,
      backtest_values: values,
      since_inception_returns: formatDecimal(
        run.values[run.values.length - 1]! - 1,
        20,
        10,
        "since_inception_returns",
      ),
      cumulative_backtest_returns: cumulative,
    },
    rebalance_events: rebalanceEvents,
  };
  if (benchmark === undefined) return result;

  const series = await benchmarkSeries(ctx.store, benchmark, panel, first, last);
  const aligned = alignSeries(panel.dates, series.dates, series.values);
  const cmp = compareWithBenchmark(run.values, run.periodEnds, aligned, { riskFreeRate });
  if (cmp === null) {
    throw new DataError(
      `Benchmark ${benchmark.identifier} has ${aligned.first < 0 ? "no" : "a single"} observation between ${first} and ${last}, so it cannot be compared; choose a window it covers or another benchmark.`,
      { code: "no_data_in_window" },
    );
  }
  const benchReturns: Record<string, number> = {};
  for (const p of cmp.periodReturns) benchReturns[panel.dates[p.end]!] = p.value;
  // Daily, as the theme's backtest_values, so that the two can be charted and compared at the same frequency.
  const benchValues: Record<string, number> = {};
  const base = aligned.values[cmp.first]!;
  for (let t = cmp.first; t <= cmp.last; t++) benchValues[panel.dates[t]!] = aligned.values[t]! / base;
  result.benchmark = {
    identifier: benchmark.identifier,
    backtest_returns: benchReturns,
    backtest_values: benchValues,
  };
  const coveredFrom = panel.dates[cmp.first]!;
  const coveredTo = panel.dates[cmp.last]!;
  result.summary = {
    portfolio_return: cmp.portfolioReturn,
    benchmark_return: cmp.benchmarkReturn,
    relative_return: cmp.relativeReturn,
    risk_metrics: {
      beta: cmp.beta,
      sharpe: cmp.sharpe,
      volatility: cmp.volatility,
      max_drawdown: cmp.maxDrawdown,
    },
    benchmark_coverage_note: cmp.coversWindow
      ? null
      : `Benchmark ${benchmark.identifier} has data from ${coveredFrom} to ${coveredTo} only, not the whole window ${first} to ${last}; its returns, the summary and the risk metrics cover ${coveredFrom} to ${coveredTo}.`,
  };
  return result;
}

// ---- helpers ----------------------------------------------------------------------------------------------

async function latestRevision(ctx: ServiceContext, uuid: string): Promise<ThemeRevisionRecord> {
  const revision = await ctx.store.themes.latestRevision(uuid);
  if (revision === undefined) throw new NotFoundError(`Theme ${uuid} has no revision.`, "theme_not_found");
  return revision;
}

function themeRead(theme: ThemeRecord, revision: ThemeRevisionRecord): Theme {
  const methodology = revision.methodology as unknown as ThemeMethodology;
  return {
    uuid: theme.uuid,
    name: theme.name,
    description: methodology.description ?? null,
    revision: revision.revision,
    methodology,
    created: theme.created,
    modified: theme.modified,
  };
}

function snapshotRead(
  themeUuid: string,
  revision: string,
  asOfDate: string,
  totalWeight: number,
  constituents: ThemeConstituent[],
): ThemeConstituentSnapshot {
  return {
    theme_uuid: themeUuid,
    revision,
    as_of_date: asOfDate,
    total_constituents: constituents.length,
    total_weight: totalWeight,
    constituents,
  };
}

/** The field catalog of the store: security fields, the standard characteristics and any others stored. */
async function storeFields(store: LotwiseStore): Promise<Map<string, "number" | "string" | "code">> {
  const names = new Set<string>(CHARACTERISTIC_NAMES);
  for (const n of await store.market.characteristicNames())
    if (!SECURITY_FIELDS.has(n.toLowerCase())) names.add(n);
  return fieldCatalog(names);
}

/**
 * Compiles a methodology. `validate` (create, revise) checks names against the characteristics the store
 * holds; evaluations of a saved methodology skip that query (a scan of the characteristics table) and accept
 * the names it references, which were checked when it was saved (a name the store no longer holds reads as
 * missing values).
 */
async function compileMethodology(
  ctx: ServiceContext,
  methodology: ThemeMethodology,
  mode: "validate" | "saved" = "validate",
): Promise<CompiledThemeDefinition> {
  const presets = universePresetExpressions();
  return compileThemeDefinition(methodology, {
    fields: mode === "validate" ? await storeFields(ctx.store) : savedFields(methodology, presets),
    presets,
  });
}

/** The standard catalog plus every non-security field a saved methodology's expressions reference. */
function savedFields(methodology: ThemeMethodology, presets: ReadonlyMap<string, string>) {
  const names = new Set<string>(CHARACTERISTIC_NAMES);
  const sources = [
    methodology.universe.expression ?? presets.get(methodology.universe.preset ?? "") ?? "",
    ...(methodology.filters ?? []),
    methodology.score ?? "",
  ];
  for (const source of sources) {
    const parsed = safeParse(source);
    if (parsed === undefined) continue;
    for (const name of referencedFields(parsed)) if (!SECURITY_FIELDS.has(name)) names.add(name);
  }
  return fieldCatalog(names);
}

function safeParse(source: string) {
  try {
    return parseExpression(source);
  } catch {
    return undefined; // compileThemeDefinition reports it with its path
  }
}

/**
 * Default "as of" date: the latest trading date in the store when it is not after today (one indexed
 * lookup), else the latest trading date on or before today (see `marketAsOf`).
 */
async function defaultAsOf(ctx: ServiceContext): Promise<string> {
  const latest = await ctx.store.market.latestPriceDate();
  return latest !== null && latest <= clockDate(ctx) ? latest : marketAsOf(ctx);
}

/** The characteristics (number fields that are not security fields) an evaluation reads. */
function characteristicFields(compiled: CompiledThemeDefinition): string[] {
  return compiled.fields.filter((f) => !SECURITY_FIELDS.has(f));
}

/** As-of values of each characteristic; names the store does not hold get an empty map (all missing). */
async function asOfValues(
  store: LotwiseStore,
  names: readonly string[],
  asOf: string,
): Promise<Map<string, Map<string, number>>> {
  const out = new Map<string, Map<string, number>>();
  for (const name of names) out.set(name, await store.market.characteristicsAsOf(name, asOf));
  return out;
}

/**
 * Characteristic columns (aligned with `ids`) at each of the ascending evaluation `dates`, by index: one store
 * pass per characteristic for all the dates (`characteristicsAsOfDates`: the latest value dated on or before
 * each date, so nothing later than the date is used), non-finite values as missing (NaN) as
 * `characteristicColumns` makes them. Names the store does not hold are all missing.
 */
async function rebalanceColumns(
  store: LotwiseStore,
  names: readonly string[],
  ids: readonly string[],
  dates: readonly string[],
): Promise<(k: number) => Map<string, Float64Array>> {
  const N = ids.length;
  const panels = await mapSerial(names, async (name) => {
    const values = await store.market.characteristicsAsOfDates(name, ids, dates);
    for (let j = 0; j < values.length; j++) if (!Number.isFinite(values[j]!)) values[j] = Number.NaN;
    return [name, values] as const;
  });
  return (k) => new Map(panels.map(([name, values]) => [name, values.slice(k * N, (k + 1) * N)]));
}

async function backtestWindow(
  ctx: ServiceContext,
  query: ThemeBacktestQuery,
): Promise<{ start: string; end: string }> {
  const bad = (path: string, message: string) =>
    new ValidationError(`Invalid backtest window: ${message}`, [{ path, message }], "invalid_window");
  for (const key of ["start_date", "end_date"] as const) {
    const v = query[key];
    if (v !== undefined && (typeof v !== "string" || !isIsoDate(v))) {
      throw bad(key, `${key} must be a calendar date YYYY-MM-DD, got ${JSON.stringify(v)}`);
    }
  }
  const end = query.end_date ?? (await defaultAsOf(ctx));
  const start = query.start_date ?? addDays(end, -DEFAULT_THEME_BACKTEST_DAYS);
  if (start >= end) {
    const path = query.end_date !== undefined ? "end_date" : "start_date";
    throw bad(path, `start_date ${start} must be before end_date ${end}`);
  }
  return { start, end };
}

/**
 * Refuses a window whose daily price panel would exceed {@link MAX_THEME_BACKTEST_CELLS} (weekdays of the
 * window clipped to the data, times the securities), before anything is read.
 */
async function checkWindowSize(
  store: LotwiseStore,
  securities: readonly Security[],
  start: string,
  end: string,
): Promise<void> {
  let dataStart: string | undefined;
  for (const s of securities)
    if (s.listedFrom !== null && (dataStart === undefined || s.listedFrom < dataStart))
      dataStart = s.listedFrom;
  const latest = await store.market.latestPriceDate();
  const from = dataStart !== undefined && dataStart > start ? dataStart : start;
  const to = latest !== null && latest < end ? latest : end;
  if (from > to) return;
  const days = Math.floor(((toDayNumber(to) - toDayNumber(from) + 1) * 5) / 7);
  const cells = days * securities.length;
  if (cells > MAX_THEME_BACKTEST_CELLS) {
    const message = `the window ${start} to ${end} spans about ${days} trading days of ${securities.length} securities (${(cells / 1e6).toFixed(0)} million daily prices, at most ${MAX_THEME_BACKTEST_CELLS / 1e6} million); shorten it`;
    throw new ValidationError(
      `Invalid backtest window: ${message}`,
      [{ path: "start_date", message }],
      "invalid_window",
    );
  }
}

type Benchmark =
  | { kind: "index"; identifier: string }
  | { kind: "security"; identifier: string; security: Security };

async function resolveBenchmark(store: LotwiseStore, raw: string): Promise<Benchmark> {
  const invalid = (message: string) =>
    new ValidationError(message, [{ path: "benchmark", message }], "unknown_benchmark");
  if (typeof raw !== "string" || raw.trim().length === 0) throw invalid("benchmark must not be empty");
  const text = raw.trim();
  const upper = text.toUpperCase();
  const wanted = BENCHMARK_ALIASES[upper] ?? upper;
  const indexes = await store.market.indexes();
  const index = indexes.find((i) => i.identifier.toUpperCase() === wanted);
  if (index) return { kind: "index", identifier: index.identifier };
  const r = await resolveTicker(store, text);
  if (r.ok) return { kind: "security", identifier: r.security.themeAssetId, security: r.security };
  const known = indexes.map((i) => i.identifier).join(", ") || "none";
  throw invalid(
    r.reason === "ambiguous"
      ? `Benchmark ${r.message}.`
      : `Unknown benchmark '${text}': it is neither an index identifier (known: ${known}) nor a ticker or theme_asset_id of the security master.`,
  );
}

/** The benchmark's observations: index levels, or a security's total-return index from the panel. */
async function benchmarkSeries(
  store: LotwiseStore,
  benchmark: Benchmark,
  panel: MarketPanel,
  first: string,
  last: string,
): Promise<{ dates: string[]; values: Float64Array }> {
  if (benchmark.kind === "index") {
    const levels = await store.market.indexLevels(
      benchmark.identifier,
      addDays(first, -BENCHMARK_LOOKBACK_DAYS),
      last,
    );
    return { dates: levels.map((l) => l.date), values: Float64Array.from(levels, (l) => l.level) };
  }
  const N = panel.ids.length;
  const i = panel.ids.indexOf(benchmark.identifier);
  const dates: string[] = [];
  const values: number[] = [];
  let level = 1;
  panel.dates.forEach((d, t) => {
    if (i < 0 || panel.priced[t * N + i] !== 1) return;
    level *= panel.growth[t * N + i]!;
    dates.push(d);
    values.push(level);
  });
  return { dates, values: Float64Array.from(values) };
}
