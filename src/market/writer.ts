/**
 * @module market/writer
 * The write side of the market-data store, as the importers and the synthetic generator see it. The SQLite
 * store implements it; `InMemoryMarketDataWriter` (importers/memory-writer.ts) implements it for tests and
 * dry runs.
 */
import type {
  CharacteristicValue,
  Dividend,
  FxRate,
  IndexInfo,
  IndexLevel,
  IndexWeight,
  PriceBar,
  Security,
  Split,
} from "../core/data/types.js";

/**
 * Where market data goes. Contract every implementation keeps:
 *
 * - **Transactions.** `transaction(fn)` runs `fn` synchronously and commits when it returns; if `fn` throws,
 *   nothing `fn` wrote remains and the error is rethrown. Nested calls join the outer transaction
 *   (better-sqlite3 savepoint semantics: an inner failure that the outer `fn` catches undoes only the inner
 *   part). The importers parse a whole file first and then write it inside ONE `transaction` call, so a file
 *   is imported entirely or not at all.
 * - **Idempotent writes.** Every `insert*` replaces an existing row with the same natural key instead of
 *   failing, so importing the same file twice leaves the store as after the first import. Keys:
 *   prices (themeAssetId, date); splits (themeAssetId, date); dividends (themeAssetId, exDate);
 *   FX (currency, date); characteristics (themeAssetId, name, date); index levels (identifier, date);
 *   index weights (identifier, date, themeAssetId). `upsertSecurities` / `upsertIndex` replace by
 *   themeAssetId / identifier.
 * - **References.** Prices, splits, dividends, characteristics and weights refer to securities by
 *   themeAssetId, levels and weights to an index by identifier. The importers never invent securities:
 *   import the security master first (or use an importer's `createMissingSecurities` option). A store may
 *   enforce the references (throwing inside the transaction, which then rolls back).
 * - **Arrays are not retained.** An implementation copies what it needs; callers may reuse the arrays.
 */
export interface MarketDataWriter {
  /** Runs `fn` atomically (see the interface notes) and returns its result. */
  transaction<T>(fn: () => T): T;
  /** Inserts or replaces securities by themeAssetId. */
  upsertSecurities(securities: readonly Security[]): void;
  /** Inserts or replaces daily bars by (themeAssetId, date). */
  insertPrices(bars: readonly PriceBar[]): void;
  /** Inserts or replaces splits by (themeAssetId, date). */
  insertSplits(splits: readonly Split[]): void;
  /** Inserts or replaces cash dividends by (themeAssetId, exDate). */
  insertDividends(dividends: readonly Dividend[]): void;
  /** Inserts or replaces FX rates by (currency, date). */
  insertFx(rates: readonly FxRate[]): void;
  /** Inserts or replaces characteristic values by (themeAssetId, name, date). */
  insertCharacteristics(values: readonly CharacteristicValue[]): void;
  /** Inserts or replaces an index definition by identifier. */
  upsertIndex(index: IndexInfo): void;
  /** Inserts or replaces index levels by (identifier, date). */
  insertIndexLevels(levels: readonly IndexLevel[]): void;
  /** Inserts or replaces constituent weights by (identifier, date, themeAssetId). */
  insertIndexWeights(weights: readonly IndexWeight[]): void;
  /**
   * All listings whose symbol equals `symbol` (exact, upper case), in any order; empty when none. Used to
   * resolve plain symbols in files to theme_asset_ids.
   */
  findSecuritiesBySymbol(symbol: string): Security[];
}
