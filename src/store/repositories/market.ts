/**
 * @module store/repositories/market
 * Market data: security master, daily prices, splits, dividends, FX, characteristics, indexes. Shared by every
 * organization of a store. Writes are upserts (re-importing a file updates its rows); reads are point-in-time
 * (`...AsOf(date)` never returns a value dated after `date`).
 */

import type { Statement } from "better-sqlite3";
import type {
  CharacteristicValue,
  Currency,
  Dividend,
  FxRate,
  IndexInfo,
  IndexLevel,
  IndexWeight,
  PriceBar,
  Security,
  Split,
} from "../../core/data/types.js";
import type { MarketDataWriter } from "../../market/writer.js";
import type { Db } from "../database.js";
import type { MarketImportRecord } from "../records.js";

// The security row, its column list, its upsert and its mapping to a Security are shared with the PostgreSQL repository
// (src/store/pg/repositories/market.ts): both engines return the same columns with the same JS types.

export interface SecurityRow {
  theme_asset_id: string;
  symbol: string;
  mic: string;
  name: string;
  currency: string;
  country: string;
  asset_type: string;
  sector: number | null;
  industry_group: number | null;
  industry: number | null;
  sub_industry: number | null;
  sic_code: number | null;
  shares_outstanding: number | null;
  description: string | null;
  listed_from: string | null;
  delisted_on: string | null;
}

/** The columns of a {@link SecurityRow}, in the securities table's order. */
export const SECURITY_COLUMNS = `theme_asset_id, symbol, mic, name, currency, country, asset_type, sector, industry_group,
  industry, sub_industry, sic_code, shares_outstanding, description, listed_from, delisted_on`;

/** What an upsert of a security whose listing exists already replaces: every column but the key. */
export const SECURITY_UPSERT = `ON CONFLICT (theme_asset_id) DO UPDATE SET symbol = excluded.symbol, mic = excluded.mic, name = excluded.name,
  currency = excluded.currency, country = excluded.country, asset_type = excluded.asset_type,
  sector = excluded.sector, industry_group = excluded.industry_group, industry = excluded.industry,
  sub_industry = excluded.sub_industry, sic_code = excluded.sic_code,
  shares_outstanding = excluded.shares_outstanding, description = excluded.description,
  listed_from = excluded.listed_from, delisted_on = excluded.delisted_on`;

export const toSecurity = (r: SecurityRow): Security => ({
  themeAssetId: r.theme_asset_id,
  symbol: r.symbol,
  mic: r.mic,
  name: r.name,
  currency: r.currency as Currency,
  country: r.country,
  assetType: r.asset_type as Security["assetType"],
  sector: r.sector,
  industryGroup: r.industry_group,
  industry: r.industry,
  subIndustry: r.sub_industry,
  sicCode: r.sic_code,
  sharesOutstanding: r.shares_outstanding,
  description: r.description,
  listedFrom: r.listed_from,
  delistedOn: r.delisted_on,
});

/**
 * The checks and the empty answer of `characteristicsAsOfDates` (both engines): the column of each listing and a
 * K x n grid of NaN.
 * @throws {RangeError} when `asOfDates` is not ascending or `themeAssetIds` repeats an id.
 */
export function characteristicsGrid(
  themeAssetIds: readonly string[],
  asOfDates: readonly string[],
): { column: Map<string, number>; out: Float64Array } {
  const n = themeAssetIds.length;
  const K = asOfDates.length;
  for (let k = 1; k < K; k++) {
    if (!(asOfDates[k - 1]! <= asOfDates[k]!)) {
      throw new RangeError(
        `characteristicsAsOfDates: asOfDates must be ascending (${asOfDates[k - 1]}, ${asOfDates[k]})`,
      );
    }
  }
  const column = new Map(themeAssetIds.map((id, i) => [id, i]));
  if (column.size !== n) throw new RangeError("characteristicsAsOfDates: themeAssetIds must be distinct");
  return { column, out: new Float64Array(K * n).fill(Number.NaN) };
}

/** Listing ids grouped by symbol, from (symbol, id) pairs in (symbol, id) order. */
export function idsBySymbol(rows: readonly (readonly [string, string])[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const [symbol, id] of rows) {
    const list = out.get(symbol);
    if (list) list.push(id);
    else out.set(symbol, [id]);
  }
  return out;
}

/** Columnar closes for a set of securities over a window (see src/core/data/types.ts). */
export interface CloseMatrix {
  dates: string[];
  ids: string[];
  /** close[t * ids.length + i]; NaN where the security has no price that day. */
  close: Float64Array;
}

/** Columnar prices for a set of securities over a window (see src/core/data/types.ts). */
export interface PriceMatrix extends CloseMatrix {
  /** volume[t * ids.length + i]; NaN where the security has no price or no volume that day. */
  volume: Float64Array;
}

/** What a store holds, for `lotwise market list`. */
export interface MarketSummary {
  securities: number;
  byCurrency: Record<string, number>;
  priceRows: number;
  firstDate: string | null;
  lastDate: string | null;
  splits: number;
  dividends: number;
  fxCurrencies: string[];
  characteristics: string[];
  indexes: {
    identifier: string;
    name: string;
    levels: number;
    firstDate: string | null;
    lastDate: string | null;
  }[];
}

/** Rows a {@link MarketRepository.clearMarketData} removed, per table. */
export interface MarketRemovalCounts {
  securities: number;
  prices: number;
  splits: number;
  dividends: number;
  fxRates: number;
  characteristics: number;
  indexes: number;
  indexLevels: number;
  indexWeights: number;
}

/** One close that a write replaced with a different value. */
export interface PriceChange {
  themeAssetId: string;
  date: string;
  old: number;
  new: number;
}

/** What the writes inside {@link MarketRepository.captureChanges} did to data that was already there. */
export interface CapturedMarketChanges {
  /** Listings the writes inserted (not in the security master before), ascending. */
  listingsAdded: string[];
  /** Listings that existed and whose master record (name, currency, sector...) the writes changed, ascending. */
  listingsChanged: string[];
  /** Closes of existing (listing, date) rows that now hold a different value. */
  priceChanges: {
    count: number;
    /** Per listing, most changes first. */
    byListing: { themeAssetId: string; count: number }[];
    /** The first `exampleLimit` changes in (listing, date) order. */
    examples: PriceChange[];
  };
  /** New (listing, date) price rows of listings that were in the security master before, per listing (most first). */
  pricesAddedToExistingListings: { themeAssetId: string; count: number }[];
}

export class MarketRepository implements MarketDataWriter {
  constructor(
    private readonly db: Db,
    private readonly now: () => string,
  ) {}

  /**
   * Statements of the per-request point lookups, prepared once: a proposal looks up every targeted listing
   * (hundreds of `security` calls) and compiling the SQL each time cost more than running it. Only for
   * statements used with `get`/`all` in their default mode (no pluck/raw, no iterate).
   */
  private readonly statements = new Map<string, Statement>();

  private cached(sql: string): Statement {
    let stmt = this.statements.get(sql);
    if (stmt === undefined) {
      stmt = this.db.prepare(sql);
      this.statements.set(sql, stmt);
    }
    return stmt;
  }

  /** Run `fn` in one transaction (all-or-nothing imports). Nested calls join the outer transaction. */
  transaction<T>(fn: () => T): T {
    if (this.db.inTransaction) return fn();
    return this.db.transaction(fn).immediate();
  }

  // ---- writes -------------------------------------------------------------------------------------------

  upsertSecurities(securities: readonly Security[]): void {
    const stmt = this.db.prepare(
      `INSERT INTO securities (${SECURITY_COLUMNS})
       VALUES (@themeAssetId, @symbol, @mic, @name, @currency, @country, @assetType, @sector, @industryGroup,
         @industry, @subIndustry, @sicCode, @sharesOutstanding, @description, @listedFrom, @delistedOn)
       ${SECURITY_UPSERT}`,
    );
    this.transaction(() => {
      for (const s of securities) stmt.run(s);
    });
  }

  insertPrices(bars: readonly PriceBar[]): void {
    const stmt = this.db.prepare(
      `INSERT INTO prices (theme_asset_id, date, open, high, low, close, adj_close, volume) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (theme_asset_id, date) DO UPDATE SET open = excluded.open, high = excluded.high, low = excluded.low,
         close = excluded.close, adj_close = excluded.adj_close, volume = excluded.volume`,
    );
    this.transaction(() => {
      for (const b of bars)
        stmt.run(b.themeAssetId, b.date, b.open, b.high, b.low, b.close, b.adjClose, b.volume);
      this.addTradingDates(new Set(bars.map((b) => b.date)));
    });
  }

  /** Record dates that now have a price (the store's trading calendar). */
  private addTradingDates(dates: Iterable<string>): void {
    const stmt = this.db.prepare("INSERT OR IGNORE INTO trading_dates (date) VALUES (?)");
    for (const d of dates) stmt.run(d);
  }

  /** Bulk insert of a columnar panel (the synthetic generator's output); NaN closes are skipped. */
  insertPriceMatrix(m: PriceMatrix): number {
    const stmt = this.db.prepare(
      `INSERT INTO prices (theme_asset_id, date, close, volume) VALUES (?, ?, ?, ?)
       ON CONFLICT (theme_asset_id, date) DO UPDATE SET close = excluded.close, volume = excluded.volume`,
    );
    const n = m.ids.length;
    let rows = 0;
    this.transaction(() => {
      // Asset-major order matches the primary key, which keeps the B-tree inserts sequential.
      for (let i = 0; i < n; i++) {
        const id = m.ids[i]!;
        for (let t = 0; t < m.dates.length; t++) {
          const c = m.close[t * n + i]!;
          if (Number.isNaN(c)) continue;
          const v = m.volume[t * n + i]!;
          stmt.run(id, m.dates[t]!, c, Number.isNaN(v) ? null : v);
          rows++;
        }
      }
      this.addTradingDates(
        m.dates.filter((_, t) => m.ids.some((_, i) => !Number.isNaN(m.close[t * n + i]!))),
      );
    });
    return rows;
  }

  insertSplits(splits: readonly Split[]): void {
    const stmt = this.db.prepare(
      "INSERT INTO splits (theme_asset_id, date, ratio) VALUES (?, ?, ?) ON CONFLICT DO UPDATE SET ratio = excluded.ratio",
    );
    this.transaction(() => {
      for (const s of splits) stmt.run(s.themeAssetId, s.date, s.ratio);
    });
  }

  insertDividends(dividends: readonly Dividend[]): void {
    const stmt = this.db.prepare(
      "INSERT INTO dividends (theme_asset_id, ex_date, amount) VALUES (?, ?, ?) ON CONFLICT DO UPDATE SET amount = excluded.amount",
    );
    this.transaction(() => {
      for (const d of dividends) stmt.run(d.themeAssetId, d.exDate, d.amount);
    });
  }

  insertFx(rates: readonly FxRate[]): void {
    const stmt = this.db.prepare(
      "INSERT INTO fx_rates (currency, date, per_usd) VALUES (?, ?, ?) ON CONFLICT DO UPDATE SET per_usd = excluded.per_usd",
    );
    this.transaction(() => {
      for (const r of rates) stmt.run(r.currency, r.date, r.perUsd);
    });
  }

  insertCharacteristics(values: readonly CharacteristicValue[]): void {
    const stmt = this.db.prepare(
      "INSERT INTO characteristics (name, theme_asset_id, date, value) VALUES (?, ?, ?, ?) ON CONFLICT DO UPDATE SET value = excluded.value",
    );
    // Insert in primary-key order (name, asset, date): sequential B-tree appends instead of random page writes.
    const sorted = [...values].sort(
      (a, b) =>
        (a.name < b.name ? -1 : a.name > b.name ? 1 : 0) ||
        (a.themeAssetId < b.themeAssetId ? -1 : a.themeAssetId > b.themeAssetId ? 1 : 0) ||
        (a.date < b.date ? -1 : a.date > b.date ? 1 : 0),
    );
    this.transaction(() => {
      for (const c of sorted) stmt.run(c.name, c.themeAssetId, c.date, c.value);
    });
  }

  upsertIndex(info: IndexInfo): void {
    this.db
      .prepare(
        `INSERT INTO indexes (identifier, name, currency, description) VALUES (@identifier, @name, @currency, @description)
         ON CONFLICT (identifier) DO UPDATE SET name = excluded.name, currency = excluded.currency, description = excluded.description`,
      )
      .run(info);
  }

  insertIndexLevels(levels: readonly IndexLevel[]): void {
    const stmt = this.db.prepare(
      "INSERT INTO index_levels (identifier, date, level) VALUES (?, ?, ?) ON CONFLICT DO UPDATE SET level = excluded.level",
    );
    this.transaction(() => {
      for (const l of levels) stmt.run(l.identifier, l.date, l.level);
    });
  }

  insertIndexWeights(weights: readonly IndexWeight[]): void {
    const stmt = this.db.prepare(
      "INSERT INTO index_weights (identifier, date, theme_asset_id, weight) VALUES (?, ?, ?, ?) ON CONFLICT DO UPDATE SET weight = excluded.weight",
    );
    this.transaction(() => {
      for (const w of weights) stmt.run(w.identifier, w.date, w.themeAssetId, w.weight);
    });
  }

  recordImport(kind: string, source: string, rows: number, summary: unknown): MarketImportRecord {
    const created = this.now();
    const r = this.db
      .prepare("INSERT INTO market_imports (kind, source, rows, summary, created) VALUES (?, ?, ?, ?, ?)")
      .run(kind, source, rows, JSON.stringify(summary), created);
    return { id: Number(r.lastInsertRowid), kind, source, rows, summary, created };
  }

  imports(): MarketImportRecord[] {
    const rows = this.db.prepare("SELECT * FROM market_imports ORDER BY id").all() as (Omit<
      MarketImportRecord,
      "summary"
    > & {
      summary: string;
    })[];
    return rows.map((r) => ({ ...r, summary: JSON.parse(r.summary) }));
  }

  // ---- change plans (safe imports) ------------------------------------------------------------------------

  /** True when any market table holds a row (the import log aside). */
  hasMarketData(): boolean {
    return (
      this.db
        .prepare(
          `SELECT EXISTS (SELECT 1 FROM securities) OR EXISTS (SELECT 1 FROM prices) OR EXISTS (SELECT 1 FROM splits)
             OR EXISTS (SELECT 1 FROM dividends) OR EXISTS (SELECT 1 FROM fx_rates)
             OR EXISTS (SELECT 1 FROM characteristics) OR EXISTS (SELECT 1 FROM indexes)`,
        )
        .pluck()
        .get() === 1
    );
  }

  /** theme_asset_ids of the security master, ascending. */
  listingIds(): string[] {
    return this.db
      .prepare("SELECT theme_asset_id FROM securities ORDER BY theme_asset_id")
      .pluck()
      .all() as string[];
  }

  /** Symbols with more than one listing, each with its listings (ascending). */
  ambiguousSymbols(): Map<string, string[]> {
    const rows = this.db
      .prepare(
        `SELECT symbol, theme_asset_id FROM securities
         WHERE symbol IN (SELECT symbol FROM securities GROUP BY symbol HAVING count(*) > 1)
         ORDER BY symbol, theme_asset_id`,
      )
      .raw()
      .all() as [string, string][];
    return idsBySymbol(rows);
  }

  /**
   * Delete every row of market data (securities, prices, the trading calendar, splits, dividends, FX,
   * characteristics, indexes with their levels and weights) in one transaction; the import log is kept.
   */
  clearMarketData(): MarketRemovalCounts {
    return this.transaction(() => {
      const del = (table: string) => this.db.prepare(`DELETE FROM ${table}`).run().changes;
      const indexLevels = del("index_levels");
      const indexWeights = del("index_weights");
      const counts: MarketRemovalCounts = {
        securities: del("securities"),
        prices: del("prices"),
        splits: del("splits"),
        dividends: del("dividends"),
        fxRates: del("fx_rates"),
        characteristics: del("characteristics"),
        indexes: del("indexes"),
        indexLevels,
        indexWeights,
      };
      del("trading_dates");
      return counts;
    });
  }

  /**
   * Run `write` (the market writes of one import) in one transaction and report what it did to the data that was
   * already there: listings added or changed, closes overwritten with other values (old and new), new price dates
   * of existing listings. Temporary triggers watch the writes, so the cost follows the rows written, not the size
   * of the store; they are dropped before this returns (a throw from `write` rolls them back with the rest).
   */
  captureChanges<T>(write: () => T, exampleLimit = 10): { result: T; changes: CapturedMarketChanges } {
    return this.transaction(() => {
      const capture = this.beginCapture();
      try {
        const result = write();
        return { result, changes: capture.finish(exampleLimit) };
      } finally {
        capture.drop();
      }
    });
  }

  /**
   * The parts of {@link captureChanges} for a caller that runs the writes itself, inside a transaction it holds:
   * `beginCapture()` installs the temporary triggers, `finish()` reads what they saw, `drop()` removes them (call it
   * in a `finally`).
   * @throws {TypeError} outside a transaction
   */
  beginCapture(): { finish(exampleLimit?: number): CapturedMarketChanges; drop(): void } {
    if (!this.db.inTransaction) throw new TypeError("MarketRepository.beginCapture needs a transaction");
    this.db.exec(`
        CREATE TEMP TABLE IF NOT EXISTS plan_listings_added (theme_asset_id TEXT PRIMARY KEY) WITHOUT ROWID;
        CREATE TEMP TABLE IF NOT EXISTS plan_listings_changed (theme_asset_id TEXT PRIMARY KEY) WITHOUT ROWID;
        CREATE TEMP TABLE IF NOT EXISTS plan_price_changes (
          theme_asset_id TEXT NOT NULL, date TEXT NOT NULL, old REAL NOT NULL, new REAL NOT NULL,
          PRIMARY KEY (theme_asset_id, date)) WITHOUT ROWID;
        CREATE TEMP TABLE IF NOT EXISTS plan_price_inserts (theme_asset_id TEXT PRIMARY KEY, n INTEGER NOT NULL) WITHOUT ROWID;
        CREATE TEMP TABLE IF NOT EXISTS plan_listings_before (theme_asset_id TEXT PRIMARY KEY) WITHOUT ROWID;
        DELETE FROM plan_listings_added; DELETE FROM plan_listings_changed;
        DELETE FROM plan_price_changes; DELETE FROM plan_price_inserts; DELETE FROM plan_listings_before;
        INSERT INTO plan_listings_before SELECT theme_asset_id FROM main.securities;
        CREATE TEMP TRIGGER plan_security_insert AFTER INSERT ON main.securities BEGIN
          INSERT OR IGNORE INTO plan_listings_added VALUES (NEW.theme_asset_id);
        END;
        CREATE TEMP TRIGGER plan_security_update AFTER UPDATE ON main.securities
        WHEN OLD.symbol IS NOT NEW.symbol OR OLD.mic IS NOT NEW.mic OR OLD.name IS NOT NEW.name
          OR OLD.currency IS NOT NEW.currency OR OLD.country IS NOT NEW.country OR OLD.asset_type IS NOT NEW.asset_type
          OR OLD.sector IS NOT NEW.sector OR OLD.industry_group IS NOT NEW.industry_group
          OR OLD.industry IS NOT NEW.industry OR OLD.sub_industry IS NOT NEW.sub_industry
          OR OLD.sic_code IS NOT NEW.sic_code OR OLD.shares_outstanding IS NOT NEW.shares_outstanding
          OR OLD.listed_from IS NOT NEW.listed_from OR OLD.delisted_on IS NOT NEW.delisted_on
        BEGIN
          INSERT OR IGNORE INTO plan_listings_changed VALUES (NEW.theme_asset_id);
        END;
        CREATE TEMP TRIGGER plan_price_update AFTER UPDATE OF close ON main.prices WHEN OLD.close IS NOT NEW.close BEGIN
          INSERT INTO plan_price_changes VALUES (OLD.theme_asset_id, OLD.date, OLD.close, NEW.close)
            ON CONFLICT (theme_asset_id, date) DO UPDATE SET new = excluded.new;
        END;
        CREATE TEMP TRIGGER plan_price_insert AFTER INSERT ON main.prices
        WHEN EXISTS (SELECT 1 FROM plan_listings_before WHERE theme_asset_id = NEW.theme_asset_id) BEGIN
          INSERT INTO plan_price_inserts VALUES (NEW.theme_asset_id, 1)
            ON CONFLICT (theme_asset_id) DO UPDATE SET n = n + 1;
        END;
      `);
    const db = this.db;
    return {
      finish(exampleLimit = 10): CapturedMarketChanges {
        // A close written twice in one import and back to its first value is no change.
        db.exec("DELETE FROM plan_price_changes WHERE old = new");
        const ids = (sql: string) => db.prepare(sql).pluck().all() as string[];
        const listingsAdded = ids("SELECT theme_asset_id FROM plan_listings_added ORDER BY theme_asset_id");
        const listingsChanged = ids(
          `SELECT theme_asset_id FROM plan_listings_changed
           WHERE theme_asset_id NOT IN (SELECT theme_asset_id FROM plan_listings_added) ORDER BY theme_asset_id`,
        );
        const count = db.prepare("SELECT count(*) FROM plan_price_changes").pluck().get() as number;
        const byListing = db
          .prepare(
            `SELECT theme_asset_id AS themeAssetId, count(*) AS count FROM plan_price_changes
             GROUP BY theme_asset_id ORDER BY count DESC, theme_asset_id`,
          )
          .all() as { themeAssetId: string; count: number }[];
        const examples = db
          .prepare(
            `SELECT theme_asset_id AS themeAssetId, date, old, new FROM plan_price_changes
             ORDER BY theme_asset_id, date LIMIT ?`,
          )
          .all(exampleLimit) as PriceChange[];
        const pricesAddedToExistingListings = db
          .prepare(
            "SELECT theme_asset_id AS themeAssetId, n AS count FROM plan_price_inserts ORDER BY n DESC, theme_asset_id",
          )
          .all() as { themeAssetId: string; count: number }[];
        return {
          listingsAdded,
          listingsChanged,
          priceChanges: { count, byListing, examples },
          pricesAddedToExistingListings,
        };
      },
      drop(): void {
        if (!db.open) return;
        db.exec(`
          DROP TRIGGER IF EXISTS temp.plan_security_insert; DROP TRIGGER IF EXISTS temp.plan_security_update;
          DROP TRIGGER IF EXISTS temp.plan_price_update; DROP TRIGGER IF EXISTS temp.plan_price_insert;
          DELETE FROM plan_listings_added; DELETE FROM plan_listings_changed;
          DELETE FROM plan_price_changes; DELETE FROM plan_price_inserts; DELETE FROM plan_listings_before;
        `);
      },
    };
  }

  // ---- reads --------------------------------------------------------------------------------------------

  security(themeAssetId: string): Security | undefined {
    const r = this.cached("SELECT * FROM securities WHERE theme_asset_id = ?").get(themeAssetId) as
      | SecurityRow
      | undefined;
    return r && toSecurity(r);
  }

  securities(filter: { currency?: string; themeAssetIds?: readonly string[] } = {}): Security[] {
    let rows: SecurityRow[];
    if (filter.themeAssetIds) {
      const want = new Set(filter.themeAssetIds);
      rows = (
        this.db.prepare("SELECT * FROM securities ORDER BY theme_asset_id").all() as SecurityRow[]
      ).filter((r) => want.has(r.theme_asset_id));
    } else {
      rows = this.db
        .prepare("SELECT * FROM securities WHERE (@c IS NULL OR currency = @c) ORDER BY theme_asset_id")
        .all({ c: filter.currency ?? null }) as SecurityRow[];
    }
    return rows.map(toSecurity);
  }

  /**
   * The listings of `themeAssetIds` found in the security master, by theme_asset_id, in one query (a proposal
   * looks up hundreds). Ids not in the master are absent from the map.
   */
  securitiesByIds(themeAssetIds: readonly string[]): Map<string, Security> {
    const out = new Map<string, Security>();
    if (themeAssetIds.length === 0) return out;
    const rows = this.cached(
      "SELECT * FROM securities WHERE theme_asset_id IN (SELECT value FROM json_each(?))",
    ).all(JSON.stringify(themeAssetIds)) as SecurityRow[];
    for (const r of rows) out.set(r.theme_asset_id, toSecurity(r));
    return out;
  }

  /**
   * {@link MarketRepository.findSecuritiesBySymbol} for many symbols in one query: for each symbol (upper-cased,
   * as the key) its listings ordered by theme_asset_id; a symbol without listings is absent from the map.
   */
  securitiesBySymbols(symbols: readonly string[]): Map<string, Security[]> {
    const out = new Map<string, Security[]>();
    if (symbols.length === 0) return out;
    const rows = this.cached(
      "SELECT * FROM securities WHERE symbol IN (SELECT value FROM json_each(?)) ORDER BY theme_asset_id",
    ).all(JSON.stringify(symbols.map((s) => s.toUpperCase()))) as SecurityRow[];
    for (const r of rows) {
      const list = out.get(r.symbol);
      if (list) list.push(toSecurity(r));
      else out.set(r.symbol, [toSecurity(r)]);
    }
    return out;
  }

  /** Listings whose symbol is `symbol` (case-insensitive); more than one means the symbol is ambiguous. */
  findSecuritiesBySymbol(symbol: string): Security[] {
    const rows = this.cached("SELECT * FROM securities WHERE symbol = ? ORDER BY theme_asset_id").all(
      symbol.toUpperCase(),
    ) as SecurityRow[];
    return rows.map(toSecurity);
  }

  /** All trading dates with at least one price, ascending, optionally within [from, to]. */
  tradingDates(from?: string, to?: string): string[] {
    return this.db
      .prepare("SELECT date FROM trading_dates WHERE date >= ? AND date <= ? ORDER BY date")
      .pluck()
      .all(from ?? "0000-00-00", to ?? "9999-99-99") as string[];
  }

  /** Latest trading date (a date with any price) on or before `date`, or null when there is none. */
  latestTradingDate(date: string): string | null {
    return (
      (this.cached("SELECT max(date) FROM trading_dates WHERE date <= ?").pluck().get(date) as
        | string
        | null) ?? null
    );
  }

  /** Latest date with any price (the "as of" of a store), or null for an empty store. */
  latestPriceDate(): string | null {
    return (this.db.prepare("SELECT max(date) FROM trading_dates").pluck().get() as string | null) ?? null;
  }

  /**
   * Last close on or before `asOf` for each requested security (absent from the map when none exists).
   * Returns the date of that close too, so callers can flag stale prices.
   */
  latestPrices(
    themeAssetIds: readonly string[],
    asOf: string,
  ): Map<string, { date: string; close: number; volume: number | null }> {
    const stmt = this.cached(
      "SELECT date, close, volume FROM prices WHERE theme_asset_id = ? AND date <= ? ORDER BY date DESC LIMIT 1",
    );
    const out = new Map<string, { date: string; close: number; volume: number | null }>();
    for (const id of themeAssetIds) {
      const r = stmt.get(id, asOf) as { date: string; close: number; volume: number | null } | undefined;
      if (r) out.set(id, r);
    }
    return out;
  }

  /** Closes and volumes of `themeAssetIds` (all securities when omitted) on every trading date in [from, to]. */
  priceMatrix(from: string, to: string, themeAssetIds?: readonly string[]): PriceMatrix {
    return this.readPanel(from, to, themeAssetIds, true) as PriceMatrix;
  }

  /**
   * Closes only of `themeAssetIds` (all securities when omitted) on every trading date in [from, to]: the same
   * `dates`, `ids` and `close` as {@link priceMatrix}, without the volume read.
   */
  closeMatrix(from: string, to: string, themeAssetIds?: readonly string[]): CloseMatrix {
    return this.readPanel(from, to, themeAssetIds, false);
  }

  /**
   * One primary-key range scan per security and column, each read as a flat array of numbers (`pluck`):
   * materializing a row array and a date string per price costs four times the scan itself. A security
   * whose prices fill its first-to-last trading dates of the window without a gap (the usual case) needs
   * no dates: its k-th close belongs to the k-th trading date from its first. Otherwise its dates are read
   * too. This relies on every price date being in trading_dates (the price writers keep it so). The reads
   * share one read transaction, so a concurrent writer cannot misalign them.
   */
  private readPanel(
    from: string,
    to: string,
    themeAssetIds: readonly string[] | undefined,
    withVolume: boolean,
  ): CloseMatrix & { volume?: Float64Array } {
    const read = () => {
      const dates = this.tradingDates(from, to);
      const ids = themeAssetIds
        ? [...themeAssetIds]
        : (this.db
            .prepare("SELECT theme_asset_id FROM securities ORDER BY theme_asset_id")
            .pluck()
            .all() as string[]);
      const n = ids.length;
      const close = new Float64Array(dates.length * n).fill(Number.NaN);
      const volume = withVolume ? new Float64Array(dates.length * n).fill(Number.NaN) : undefined;
      const position = new Map(dates.map((d, t) => [d, t]));
      const range = "FROM prices WHERE theme_asset_id = ? AND date >= ? AND date <= ?";
      const closes = this.db.prepare(`SELECT close ${range} ORDER BY date`).pluck();
      const volumes = this.db.prepare(`SELECT volume ${range} ORDER BY date`).pluck();
      const allDates = this.db.prepare(`SELECT date ${range} ORDER BY date`).pluck();
      const firstDate = this.db.prepare(`SELECT date ${range} ORDER BY date LIMIT 1`).pluck();
      const lastDate = this.db.prepare(`SELECT date ${range} ORDER BY date DESC LIMIT 1`).pluck();
      const rows = new Int32Array(dates.length);
      for (let i = 0; i < n; i++) {
        const id = ids[i]!;
        const c = closes.all(id, from, to) as number[];
        const m = c.length;
        if (m === 0) continue;
        const t0 = position.get(firstDate.get(id, from, to) as string);
        const t1 = position.get(lastDate.get(id, from, to) as string);
        if (t0 !== undefined && t1 !== undefined && t1 - t0 + 1 === m) {
          for (let k = 0; k < m; k++) rows[k] = t0 + k;
        } else {
          const ds = allDates.all(id, from, to) as string[];
          for (let k = 0; k < m; k++) rows[k] = position.get(ds[k]!) ?? -1;
        }
        for (let k = 0; k < m; k++) if (rows[k]! >= 0) close[rows[k]! * n + i] = c[k]!;
        if (volume) {
          const v = volumes.all(id, from, to) as (number | null)[];
          for (let k = 0; k < m; k++) if (rows[k]! >= 0) volume[rows[k]! * n + i] = v[k] ?? Number.NaN;
        }
      }
      return volume ? { dates, ids, close, volume } : { dates, ids, close };
    };
    return this.db.inTransaction ? read() : this.db.transaction(read).deferred();
  }

  splits(from: string, to: string): Split[] {
    return this.cached(
      "SELECT theme_asset_id AS themeAssetId, date, ratio FROM splits WHERE date >= ? AND date <= ? ORDER BY date, theme_asset_id",
    ).all(from, to) as Split[];
  }

  dividends(from: string, to: string): Dividend[] {
    return this.cached(
      "SELECT theme_asset_id AS themeAssetId, ex_date AS exDate, amount FROM dividends WHERE ex_date >= ? AND ex_date <= ? ORDER BY ex_date, theme_asset_id",
    ).all(from, to) as Dividend[];
  }

  /** Units of `currency` per USD on the last date on or before `asOf` (1 for USD); undefined when unknown. */
  fxRateAsOf(currency: string, asOf: string): { date: string; perUsd: number } | undefined {
    if (currency === "USD") return { date: asOf, perUsd: 1 };
    return this.cached(
      "SELECT date, per_usd AS perUsd FROM fx_rates WHERE currency = ? AND date <= ? ORDER BY date DESC LIMIT 1",
    ).get(currency, asOf) as { date: string; perUsd: number } | undefined;
  }

  fxSeries(currency: string, from: string, to: string): FxRate[] {
    return this.db
      .prepare(
        "SELECT date, currency, per_usd AS perUsd FROM fx_rates WHERE currency = ? AND date >= ? AND date <= ? ORDER BY date",
      )
      .all(currency, from, to) as FxRate[];
  }

  /**
   * Names of the characteristics present in the store. A loose index scan: each name is the smallest key after the
   * previous one, a primary-key seek, so the read costs a few seeks per name instead of a scan of every observation
   * (`SELECT DISTINCT name` walked all of them: millions of rows with the S&P 500 data).
   */
  characteristicNames(): string[] {
    return this.db
      .prepare(
        `WITH RECURSIVE names(name) AS (
           SELECT min(name) FROM characteristics
           UNION ALL
           SELECT (SELECT min(c.name) FROM characteristics c WHERE c.name > names.name) FROM names WHERE names.name IS NOT NULL
         )
         SELECT name FROM names WHERE name IS NOT NULL`,
      )
      .pluck()
      .all() as string[];
  }

  /** Point-in-time values: for each security, the latest value of `name` dated on or before `asOf`. */
  characteristicsAsOf(name: string, asOf: string): Map<string, number> {
    // SQLite returns the bare columns of the row holding max(date).
    const rows = this.db
      .prepare(
        "SELECT theme_asset_id, value, max(date) FROM characteristics WHERE name = ? AND date <= ? GROUP BY theme_asset_id",
      )
      .raw()
      .all(name, asOf) as [string, number, string][];
    return new Map(rows.map((r) => [r[0], r[1]]));
  }

  /**
   * Point-in-time values of `name` at each of `asOfDates` (ascending) for `themeAssetIds` (distinct), as
   * {@link characteristicsAsOf} at each date but in one pass: `values[k * themeAssetIds.length + i]` is the
   * latest value of security i dated on or before `asOfDates[k]`, NaN when it has none.
   *
   * Reads the observations from the earliest of the securities' last observations on or before the first date
   * (older ones can never be an as-of value) to the last date, as three flat primary-key range scans (run
   * lengths per security, dates, values) in one read transaction, rather than one row array with an id and a
   * date string per observation.
   * @throws {RangeError} when `asOfDates` is not ascending or `themeAssetIds` repeats an id.
   * @example characteristicsAsOfDates("pe", ["AAPL:XNAS"], ["2024-06-28", "2024-07-31"]) // Float64Array(2)
   */
  characteristicsAsOfDates(
    name: string,
    themeAssetIds: readonly string[],
    asOfDates: readonly string[],
  ): Float64Array {
    const n = themeAssetIds.length;
    const K = asOfDates.length;
    const { column, out } = characteristicsGrid(themeAssetIds, asOfDates);
    if (K === 0 || n === 0) return out;
    const first = asOfDates[0]!;
    const last = asOfDates[K - 1]!;
    const read = () => {
      const from =
        (this.db
          .prepare(
            "SELECT min(d) FROM (SELECT max(date) AS d FROM characteristics WHERE name = ? AND date <= ? GROUP BY theme_asset_id)",
          )
          .pluck()
          .get(name, first) as string | null) ?? first;
      const range = "FROM characteristics WHERE name = ? AND date >= ? AND date <= ?";
      return {
        runs: this.db
          .prepare(`SELECT theme_asset_id, count(*) ${range} GROUP BY theme_asset_id ORDER BY theme_asset_id`)
          .raw()
          .all(name, from, last) as [string, number][],
        dates: this.db
          .prepare(`SELECT date ${range} ORDER BY theme_asset_id, date`)
          .pluck()
          .all(name, from, last) as string[],
        values: this.db
          .prepare(`SELECT value ${range} ORDER BY theme_asset_id, date`)
          .pluck()
          .all(name, from, last) as number[],
      };
    };
    const { runs, dates, values } = this.db.inTransaction ? read() : this.db.transaction(read).deferred();
    let offset = 0;
    for (const [id, count] of runs) {
      const i = column.get(id);
      const end = offset + count;
      if (i !== undefined) {
        // Walk the security's observations and the as-of dates together; `latest` is the last one not after d.
        let j = offset;
        let latest = -1;
        for (let k = 0; k < K; k++) {
          const d = asOfDates[k]!;
          while (j < end && dates[j]! <= d) latest = j++;
          if (latest >= 0) out[k * n + i] = values[latest]!;
        }
      }
      offset = end;
    }
    return out;
  }

  /** Dates on which `name` was observed, ascending. */
  characteristicDates(name: string): string[] {
    return this.db
      .prepare("SELECT DISTINCT date FROM characteristics WHERE name = ? ORDER BY date")
      .pluck()
      .all(name) as string[];
  }

  indexes(): IndexInfo[] {
    return this.db
      .prepare("SELECT identifier, name, currency, description FROM indexes ORDER BY identifier")
      .all() as IndexInfo[];
  }

  index(identifier: string): IndexInfo | undefined {
    return this.db
      .prepare("SELECT identifier, name, currency, description FROM indexes WHERE identifier = ?")
      .get(identifier) as IndexInfo | undefined;
  }

  indexLevels(identifier: string, from: string, to: string): IndexLevel[] {
    return this.db
      .prepare(
        "SELECT identifier, date, level FROM index_levels WHERE identifier = ? AND date >= ? AND date <= ? ORDER BY date",
      )
      .all(identifier, from, to) as IndexLevel[];
  }

  /** Constituent weights of the index on the last weighting date on or before `asOf`. */
  indexWeightsAsOf(identifier: string, asOf: string): IndexWeight[] {
    const date = this.db
      .prepare("SELECT max(date) FROM index_weights WHERE identifier = ? AND date <= ?")
      .pluck()
      .get(identifier, asOf) as string | null;
    if (date === null) return [];
    return this.db
      .prepare(
        "SELECT identifier, date, theme_asset_id AS themeAssetId, weight FROM index_weights WHERE identifier = ? AND date = ? ORDER BY weight DESC, theme_asset_id",
      )
      .all(identifier, date) as IndexWeight[];
  }

  summary(): MarketSummary {
    const byCur = this.db
      .prepare("SELECT currency, count(*) AS n FROM securities GROUP BY currency")
      .all() as {
      currency: string;
      n: number;
    }[];
    const p = this.db.prepare("SELECT count(*) AS n, min(date) AS f, max(date) AS l FROM prices").get() as {
      n: number;
      f: string | null;
      l: string | null;
    };
    const count = (t: string) => (this.db.prepare(`SELECT count(*) FROM ${t}`).pluck().get() as number) ?? 0;
    const idx = this.db
      .prepare(
        `SELECT i.identifier, i.name, count(l.date) AS levels, min(l.date) AS firstDate, max(l.date) AS lastDate
         FROM indexes i LEFT JOIN index_levels l ON l.identifier = i.identifier GROUP BY i.identifier ORDER BY i.identifier`,
      )
      .all() as MarketSummary["indexes"];
    return {
      securities: byCur.reduce((a, r) => a + r.n, 0),
      byCurrency: Object.fromEntries(byCur.map((r) => [r.currency, r.n])),
      priceRows: p.n,
      firstDate: p.f,
      lastDate: p.l,
      splits: count("splits"),
      dividends: count("dividends"),
      fxCurrencies: this.db
        .prepare("SELECT DISTINCT currency FROM fx_rates ORDER BY currency")
        .pluck()
        .all() as string[],
      characteristics: this.characteristicNames(),
      indexes: idx,
    };
  }
}
