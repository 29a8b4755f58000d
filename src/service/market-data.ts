/**
 * @module service/market-data
 * Market data in, as service operations: the synthetic generator and the CSV importers (and the S&P 500 loader)
 * write the store through here, never directly. Each operation parses and validates everything first (staging the
 * writes), then applies them in ONE store transaction that also computes a change plan: listings added or changed,
 * closes overwritten (old and new values), price dates added to existing listings, plain symbols that become
 * ambiguous and, for `replace`, what is removed. A store that already holds market data needs an explicit mode
 * (`merge` or `replace`); `dryRun` computes the same plan and rolls the transaction back.
 *
 * Decision (replace): the store's market data is deleted first; when an account of any organization holds a lot
 * of a listing the new data does not define, the operation is refused with an error naming those listings, so a
 * replace never leaves lots without a security.
 */

import type { CorporateActionImportResult } from "../contract/corporate-action.js";
import type { Security } from "../core/data/types.js";
import { ConflictError, ValidationError } from "../core/errors.js";
import {
  type ImportSummary,
  importCharacteristics,
  importDividends,
  importFx,
  importIndexLevels,
  importIndexWeights,
  importPrices,
  importSecurities,
  importSplits,
} from "../market/importers/index.js";
import {
  loadSp500Dataset,
  type Sp500LoadSummary,
  sp500CorporateActionsCsv,
} from "../market/real-data/index.js";
import { StagedMarketWriter } from "../market/staged-writer.js";
import {
  generateMarket,
  type SyntheticMarketOptions,
  type SyntheticWriteSummary,
  writeSyntheticMarket,
} from "../market/synthetic/index.js";
import type { CapturedMarketChanges, LotwiseStore, MarketRemovalCounts } from "../store/index.js";
import type { ServiceContext } from "./context.js";
import { importCorporateActions } from "./corporate-actions.js";

/** How new market data combines with what the store holds: upsert by key, or delete the store's market data first. */
export type MarketWriteMode = "merge" | "replace";

/** The file kinds of {@link importMarketData} (`sp500` takes the folder of the S&P 500 data set). */
export const MARKET_IMPORT_KINDS = [
  "prices",
  "securities",
  "fx",
  "splits",
  "dividends",
  "characteristics",
  "index-levels",
  "index-weights",
  "sp500",
] as const;
export type MarketImportKind = (typeof MARKET_IMPORT_KINDS)[number];

/** Options every market-data write takes. */
export interface MarketWriteOptions {
  /** Required when the store already holds market data; an empty store needs none. */
  mode?: MarketWriteMode;
  /** Compute the change plan and write nothing. @default false */
  dryRun?: boolean;
}

/** How many overwritten closes a plan lists as examples (the count is exact). */
export const PLAN_PRICE_EXAMPLES = 10;

/** What a market-data write changes (or would change) in the store. */
export interface MarketChangePlan {
  /** The store held market data before the operation (then a mode is required). */
  storeHadMarketData: boolean;
  /** The mode given (null when none was given). */
  mode: MarketWriteMode | null;
  dryRun: boolean;
  /** True when the writes were committed. */
  applied: boolean;
  /** Listings that are new to the store, ascending. */
  listingsAdded: string[];
  /** Existing listings whose security-master record (name, currency, sector, shares...) changes (merge). */
  listingsChanged: string[];
  /** Closes of existing (listing, date) rows that change value (merge; a replace removes them all first). */
  pricesOverwritten: CapturedMarketChanges["priceChanges"];
  /** New price dates of listings that existed before (merge), per listing. */
  pricesAddedToExistingListings: CapturedMarketChanges["pricesAddedToExistingListings"];
  /** Plain symbols that now name several listings (or more than before), with those listings. */
  ambiguousSymbols: { symbol: string; listings: string[] }[];
  /** replace: the rows deleted before the new data was written, and the listings that are gone afterwards. */
  removed: (MarketRemovalCounts & { listings: string[] }) | null;
}

/** Result of {@link importMarketData}. */
export interface MarketImportResult {
  kind: MarketImportKind;
  source: string;
  /** The importer's summary (rows, records, data flaws), or the S&P 500 loader's. */
  summary: ImportSummary | Sp500LoadSummary;
  plan: MarketChangePlan;
}

/** Result of {@link generateMarketData}. */
export interface MarketGenerateResult {
  seed: number;
  written: SyntheticWriteSummary;
  plan: MarketChangePlan;
}

/**
 * The store already holds market data and the request named no mode. Carries the plan of a merge so that callers
 * can show what would change. Nothing was written.
 */
export class MarketModeRequiredError extends ValidationError {
  readonly plan: MarketChangePlan;
  /** What the store holds. */
  readonly held: { listings: number; priceRows: number };
  constructor(plan: MarketChangePlan, held: { listings: number; priceRows: number }) {
    super(
      `The store already holds market data (${held.listings} listings, ${held.priceRows} price rows): choose whether to merge the new data into it (add, and overwrite by key) or to replace it (delete the store's market data first). Nothing was written.`,
      [{ path: "mode", message: 'required when the store holds market data: "merge" or "replace"' }],
      "market_mode_required",
    );
    this.plan = plan;
    this.held = held;
  }
}

/** Options of {@link importMarketData}. */
export interface MarketImportOptions extends MarketWriteOptions {
  /** Exchange (MIC) given to plain symbols; default: look them up in the store. */
  mic?: string;
  /** prices: the symbol of a one-security (Yahoo layout) file. */
  symbol?: string;
  /** index-levels: the index identifier and display name. */
  index?: string;
  indexName?: string;
  /** prices: add a minimal security for unknown symbols (needs `mic`). */
  createSecurities?: boolean;
  /** Skip (and report) rows whose symbol does not resolve instead of failing. */
  skipUnresolved?: boolean;
}

/**
 * Import one market-data file (or, for `sp500`, the S&P 500 data set folder) into the store, all or nothing.
 * @throws {MarketModeRequiredError} when the store holds market data and `mode` is missing (nothing written).
 * @throws {ConflictError} (`listings_held`) when a replace would remove listings that tax lots hold.
 * @throws {CsvFormatError} / {UnresolvedSymbolError} when the file does not parse (nothing written).
 * @example await importMarketData(ctx, "prices", "prices.csv", { mic: "XNYS", mode: "merge", dryRun: true })
 */
export async function importMarketData(
  ctx: ServiceContext,
  kind: MarketImportKind,
  path: string,
  options: MarketImportOptions = {},
): Promise<MarketImportResult> {
  if (!(MARKET_IMPORT_KINDS as readonly string[]).includes(kind))
    throw new ValidationError(
      `Unknown import kind "${kind}". Use one of: ${MARKET_IMPORT_KINDS.join(", ")}.`,
      [{ path: "kind", message: `one of ${MARKET_IMPORT_KINDS.join(", ")}` }],
    );
  const staged = await stagingWriter(ctx.store, options.mode);
  const sym = {
    ...(options.mic ? { defaultMic: options.mic.toUpperCase() } : {}),
    ...(options.skipUnresolved ? { onUnresolvedSymbol: "skip" as const } : {}),
  };
  let summary: ImportSummary | Sp500LoadSummary;
  switch (kind) {
    case "prices":
      summary = await importPrices(path, staged, {
        ...sym,
        ...(options.symbol ? { symbol: options.symbol } : {}),
        ...(options.createSecurities ? { createMissingSecurities: true } : {}),
      });
      break;
    case "securities":
      summary = await importSecurities(path, staged, sym);
      break;
    case "fx":
      summary = await importFx(path, staged);
      break;
    case "splits":
      summary = await importSplits(path, staged, sym);
      break;
    case "dividends":
      summary = await importDividends(path, staged, sym);
      break;
    case "characteristics":
      summary = await importCharacteristics(path, staged, sym);
      break;
    case "index-levels":
      summary = await importIndexLevels(path, staged, {
        ...(options.index ? { identifier: options.index } : {}),
        ...(options.indexName ? { name: options.indexName } : {}),
      });
      break;
    case "index-weights":
      summary = await importIndexWeights(path, staged, sym);
      break;
    case "sp500":
      summary = await loadSp500Dataset(path, staged);
      break;
  }
  const rows = "records" in summary ? summary.records : 0;
  const plan = await applyStaged(ctx.store, staged, options, async (p) => {
    await ctx.store.market.recordImport(kind, path, rows, { mode: p.mode, summary });
    // The data set's spin-offs, in the same transaction (their listings were just written).
    if (kind === "sp500") await importSp500CorporateActions(ctx);
  });
  return { kind, source: path, summary, plan };
}

/**
 * Imports the S&P 500 data set's corporate actions (`data/sp500/corporate-actions.csv`: the spin-offs of DISCA,
 * NI, EBAY, ARNC and YUM and the DISCK split) into the store's corporate actions, so that `lotwise actions apply`
 * applies them to accounts and backtests apply the spin-offs. The store must hold the data set's listings
 * (`loadSp500Dataset` with its default `corporateActions: true`). Re-importing replaces the actions by id.
 * @throws {ValidationError} `invalid_actions_file` when a listing is missing.
 */
export async function importSp500CorporateActions(ctx: ServiceContext): Promise<CorporateActionImportResult> {
  return importCorporateActions(ctx, sp500CorporateActionsCsv(), {
    file_name: "data/sp500/corporate-actions.csv",
  });
}

/**
 * Generate a seeded synthetic market and write it into the store, all or nothing.
 * @throws {ValidationError} for invalid generator options.
 * @throws {MarketModeRequiredError} / {ConflictError} as {@link importMarketData}.
 * @example await generateMarketData(ctx, { seed: 42, securities: 200, years: 3 }, { mode: "replace" })
 */
export async function generateMarketData(
  ctx: ServiceContext,
  options: SyntheticMarketOptions,
  write: MarketWriteOptions & { onProgress?: (message: string) => void } = {},
): Promise<MarketGenerateResult> {
  const market = generateMarket(options);
  write.onProgress?.(`writing ${market.securities.length} securities x ${market.prices.dates.length} days`);
  const staged = await stagingWriter(ctx.store, write.mode);
  const written = writeSyntheticMarket(market, staged);
  const plan = await applyStaged(ctx.store, staged, write, async (p) => {
    await ctx.store.market.recordImport("synthetic", `seed=${options.seed}`, written.prices, {
      mode: p.mode,
      options: market.options,
      written,
    });
  });
  return { seed: options.seed, written, plan };
}

/**
 * A staging writer whose symbol lookups see the store's listings, or none when the store is to be replaced (then
 * plain symbols resolve only against the new data, which is what the store will hold).
 */
async function stagingWriter(
  store: LotwiseStore,
  mode: MarketWriteMode | undefined,
): Promise<StagedMarketWriter> {
  if (mode === "replace") return new StagedMarketWriter(() => []);
  // The importers resolve symbols synchronously: the store's listings are read first, by symbol (as
  // findSecuritiesBySymbol: upper-cased, ordered by theme_asset_id).
  const bySymbol = new Map<string, Security[]>();
  for (const s of await store.market.securities()) {
    const list = bySymbol.get(s.symbol);
    if (list) list.push(s);
    else bySymbol.set(s.symbol, [s]);
  }
  return new StagedMarketWriter((symbol) => bySymbol.get(symbol.toUpperCase()) ?? []);
}

/** Thrown inside the transaction to roll it back after the plan is computed (dry runs, missing mode). */
const ROLLBACK = Symbol("rollback");

/** How many listings an error message names before "and N more". */
const NAMED_IN_MESSAGES = 10;

/** Replays `staged` onto the store in one transaction with the change plan; commits unless dry run or refused. */
async function applyStaged(
  store: LotwiseStore,
  staged: StagedMarketWriter,
  options: MarketWriteOptions,
  record: (plan: MarketChangePlan) => Promise<void>,
): Promise<MarketChangePlan> {
  const mode = options.mode ?? null;
  const dryRun = options.dryRun === true;
  let plan: MarketChangePlan | undefined;
  let held = { listings: 0, priceRows: 0 };
  let refused = false;
  try {
    await store.transaction(async (tx) => {
      const hadData = await tx.market.hasMarketData();
      refused = hadData && mode === null && !dryRun;
      if (hadData) {
        const s = await tx.market.summary();
        held = { listings: s.securities, priceRows: s.priceRows };
      }
      const before = new Set(await tx.market.listingIds());
      const ambiguousBefore = await tx.market.ambiguousSymbols();
      let removed: MarketChangePlan["removed"] = null;
      if (mode === "replace" && hadData) {
        const incoming = staged.stagedListingIds();
        await refuseOrphanedLots(tx, incoming);
        removed = {
          ...(await tx.market.clearMarketData()),
          listings: [...before].filter((id) => !incoming.has(id)),
        };
      }
      // Into an empty store (or one just cleared by a replace) nothing can be overwritten: no need to watch.
      const empty = !hadData || removed !== null;
      const changes = empty
        ? await noChanges(staged, tx)
        : (await tx.market.captureChanges(() => staged.replayInto(tx.market), PLAN_PRICE_EXAMPLES)).changes;
      const ambiguousSymbols = [...(await tx.market.ambiguousSymbols())]
        .filter(([symbol, ids]) => (ambiguousBefore.get(symbol) ?? []).join(" ") !== ids.join(" "))
        .map(([symbol, listings]) => ({ symbol, listings }));
      plan = {
        storeHadMarketData: hadData,
        mode,
        dryRun,
        applied: false,
        listingsAdded: changes.listingsAdded.filter((id) => !before.has(id)),
        listingsChanged: changes.listingsChanged,
        pricesOverwritten: changes.priceChanges,
        pricesAddedToExistingListings: changes.pricesAddedToExistingListings,
        ambiguousSymbols,
        removed,
      };
      if (dryRun || refused) throw ROLLBACK;
      plan.applied = true;
      await record(plan);
    });
  } catch (err) {
    if (err !== ROLLBACK) throw err;
  }
  if (plan === undefined) throw new Error("market change plan missing after the transaction");
  if (refused) throw new MarketModeRequiredError(plan, held);
  return plan;
}

/** Replays into a store without market data: every listing written is new, nothing is overwritten. */
async function noChanges(staged: StagedMarketWriter, store: LotwiseStore): Promise<CapturedMarketChanges> {
  await staged.replayInto(store.market);
  return {
    listingsAdded: await store.market.listingIds(),
    listingsChanged: [],
    priceChanges: { count: 0, byListing: [], examples: [] },
    pricesAddedToExistingListings: [],
  };
}

/** A replace must not drop listings that tax lots name: refuse, naming them. */
async function refuseOrphanedLots(store: LotwiseStore, incoming: ReadonlySet<string>): Promise<void> {
  const orphaned = (await store.accounts.heldListings()).filter((h) => !incoming.has(h.themeAssetId));
  if (orphaned.length === 0) return;
  const named = orphaned
    .slice(0, NAMED_IN_MESSAGES)
    .map(
      (h) =>
        `${h.themeAssetId} (${h.lots} lot${h.lots === 1 ? "" : "s"} in ${h.accounts} account${h.accounts === 1 ? "" : "s"})`,
    )
    .join(", ");
  const more = orphaned.length > NAMED_IN_MESSAGES ? ` and ${orphaned.length - NAMED_IN_MESSAGES} more` : "";
  throw new ConflictError(
    `Replacing the market data would remove ${orphaned.length} listing${orphaned.length === 1 ? "" : "s"} that accounts hold in tax lots: ${named}${more}. Replace with data that lists them, or merge instead. Nothing was written.`,
    "listings_held",
  );
}
