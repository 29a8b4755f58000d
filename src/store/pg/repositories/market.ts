/**
 * @module store/pg/repositories/market
 * Market data (PostgreSQL): the reads and writes of the SQLite repository with the same results. Bulk writes send
 * one array per column (`unnest`) for up to {@link BULK_CHUNK} rows per statement; rows repeating a key within one
 * call keep the last one, as SQLite's row-by-row upserts do. Bulk reads return one row per security with its
 * dates and values aggregated (comma-joined text for the price panels, arrays for characteristics): materializing a
 * row object per price cost several times the scan, as it does with SQLite.
 *
 * `captureChanges(write)` turns on, for its own transaction only (`set_config('lotwise.capture', 'on', true)`), the
 * capture row triggers of `securities` and `prices` (installed by migration 1, idle otherwise: their WHEN clause reads
 * that setting, so other transactions and other sessions never fire them), which fill temporary tables created
 * and dropped inside the transaction. It first locks both tables against other writers (SHARE ROW EXCLUSIVE:
 * readers go on), so "what was there before" is not moved by a concurrent import and two captures take turns.
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
} from "../../../core/data/types.js";
import type { AsyncMarketRepository } from "../../lotwise-store.js";
import type { MarketImportRecord } from "../../records.js";
// The security row, its columns, its upsert and its mapping are the SQLite repository's (same columns and types).
import {
  type CapturedMarketChanges,
  type CloseMatrix,
  characteristicsGrid,
  idsBySymbol,
  type MarketRemovalCounts,
  type MarketSummary,
  type PriceChange,
  type PriceMatrix,
  SECURITY_COLUMNS,
  SECURITY_UPSERT,
  type SecurityRow,
  toSecurity,
} from "../../repositories/market.js";
import { BULK_CHUNK, inChunks, lastByKey, type PgDb, sqlNumber } from "../pg-db.js";

const CAPTURE_TABLES = `
CREATE TEMP TABLE plan_listings_added (theme_asset_id text COLLATE "C" PRIMARY KEY) ON COMMIT DROP;
CREATE TEMP TABLE plan_listings_changed (theme_asset_id text COLLATE "C" PRIMARY KEY) ON COMMIT DROP;
CREATE TEMP TABLE plan_price_changes (theme_asset_id text COLLATE "C" NOT NULL, date text COLLATE "C" NOT NULL,
  old double precision NOT NULL, new double precision NOT NULL, PRIMARY KEY (theme_asset_id, date)) ON COMMIT DROP;
CREATE TEMP TABLE plan_price_inserts (theme_asset_id text COLLATE "C" PRIMARY KEY, n integer NOT NULL) ON COMMIT DROP;
CREATE TEMP TABLE plan_listings_before (theme_asset_id text COLLATE "C" PRIMARY KEY) ON COMMIT DROP;
INSERT INTO plan_listings_before SELECT theme_asset_id FROM securities;
`;

export class PgMarketRepository implements AsyncMarketRepository {
  constructor(
    private readonly db: PgDb,
    private readonly now: () => string,
  ) {}

  // ---- writes -------------------------------------------------------------------------------------------

  async upsertSecurities(securities: readonly Security[]): Promise<void> {
    const rows = lastByKey(securities, (s) => s.themeAssetId);
    await this.db.transaction(() =>
      inChunks(rows, BULK_CHUNK, async (s) => {
        await this.db.run(
          `INSERT INTO securities (${SECURITY_COLUMNS})
           SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[],
             $8::int[], $9::int[], $10::int[], $11::int[], $12::int[], $13::float8[], $14::text[], $15::text[], $16::text[])
           ${SECURITY_UPSERT}`,
          [
            s.map((x) => x.themeAssetId),
            s.map((x) => x.symbol),
            s.map((x) => x.mic),
            s.map((x) => x.name),
            s.map((x) => x.currency),
            s.map((x) => x.country),
            s.map((x) => x.assetType),
            s.map((x) => sqlNumber(x.sector)),
            s.map((x) => sqlNumber(x.industryGroup)),
            s.map((x) => sqlNumber(x.industry)),
            s.map((x) => sqlNumber(x.subIndustry)),
            s.map((x) => sqlNumber(x.sicCode)),
            s.map((x) => sqlNumber(x.sharesOutstanding)),
            s.map((x) => x.description),
            s.map((x) => x.listedFrom),
            s.map((x) => x.delistedOn),
          ],
        );
      }),
    );
  }

  async insertPrices(bars: readonly PriceBar[]): Promise<void> {
    const rows = lastByKey(bars, (b) => `${b.themeAssetId}\u001f${b.date}`);
    await this.db.transaction(async () => {
      await inChunks(rows, BULK_CHUNK, async (b) => {
        await this.db.run(
          `INSERT INTO prices (theme_asset_id, date, open, high, low, close, adj_close, volume)
           SELECT * FROM unnest($1::text[], $2::text[], $3::float8[], $4::float8[], $5::float8[], $6::float8[],
             $7::float8[], $8::float8[])
           ON CONFLICT (theme_asset_id, date) DO UPDATE SET open = excluded.open, high = excluded.high,
             low = excluded.low, close = excluded.close, adj_close = excluded.adj_close, volume = excluded.volume`,
          [
            b.map((x) => x.themeAssetId),
            b.map((x) => x.date),
            b.map((x) => sqlNumber(x.open)),
            b.map((x) => sqlNumber(x.high)),
            b.map((x) => sqlNumber(x.low)),
            b.map((x) => sqlNumber(x.close)),
            b.map((x) => sqlNumber(x.adjClose)),
            b.map((x) => sqlNumber(x.volume)),
          ],
        );
      });
      await this.addTradingDates(new Set(bars.map((b) => b.date)));
    });
  }

  /** Record dates that now have a price (the store's trading calendar). */
  private async addTradingDates(dates: Iterable<string>): Promise<void> {
    await inChunks([...dates], BULK_CHUNK * 4, async (d) => {
      await this.db.run("INSERT INTO trading_dates (date) SELECT unnest($1::text[]) ON CONFLICT DO NOTHING", [
        d,
      ]);
    });
  }

  async insertPriceMatrix(m: PriceMatrix): Promise<number> {
    const n = m.ids.length;
    const ids: string[] = [];
    const dates: string[] = [];
    const closes: number[] = [];
    const volumes: (number | null)[] = [];
    const used = new Set<string>();
    const flush = async () => {
      if (ids.length === 0) return;
      await this.db.run(
        `INSERT INTO prices (theme_asset_id, date, close, volume)
         SELECT * FROM unnest($1::text[], $2::text[], $3::float8[], $4::float8[])
         ON CONFLICT (theme_asset_id, date) DO UPDATE SET close = excluded.close, volume = excluded.volume`,
        [ids, dates, closes, volumes],
      );
      ids.length = 0;
      dates.length = 0;
      closes.length = 0;
      volumes.length = 0;
    };
    let rows = 0;
    await this.db.transaction(async () => {
      for (let i = 0; i < n; i++) {
        const id = m.ids[i]!;
        for (let t = 0; t < m.dates.length; t++) {
          const c = m.close[t * n + i]!;
          if (Number.isNaN(c)) continue;
          const v = m.volume[t * n + i]!;
          ids.push(id);
          dates.push(m.dates[t]!);
          closes.push(c);
          volumes.push(Number.isNaN(v) ? null : v);
          used.add(m.dates[t]!);
          rows++;
          if (ids.length >= BULK_CHUNK) await flush();
        }
      }
      await flush();
      await this.addTradingDates(m.dates.filter((d) => used.has(d)));
    });
    return rows;
  }

  async insertSplits(splits: readonly Split[]): Promise<void> {
    const rows = lastByKey(splits, (s) => `${s.themeAssetId}\u001f${s.date}`);
    await this.upsert3(
      "INSERT INTO splits (theme_asset_id, date, ratio)",
      "ON CONFLICT (theme_asset_id, date) DO UPDATE SET ratio = excluded.ratio",
      rows.map((s) => [s.themeAssetId, s.date, s.ratio]),
    );
  }

  async insertDividends(dividends: readonly Dividend[]): Promise<void> {
    const rows = lastByKey(dividends, (d) => `${d.themeAssetId}\u001f${d.exDate}`);
    await this.upsert3(
      "INSERT INTO dividends (theme_asset_id, ex_date, amount)",
      "ON CONFLICT (theme_asset_id, ex_date) DO UPDATE SET amount = excluded.amount",
      rows.map((d) => [d.themeAssetId, d.exDate, d.amount]),
    );
  }

  async insertFx(rates: readonly FxRate[]): Promise<void> {
    const rows = lastByKey(rates, (r) => `${r.currency}\u001f${r.date}`);
    await this.upsert3(
      "INSERT INTO fx_rates (currency, date, per_usd)",
      "ON CONFLICT (currency, date) DO UPDATE SET per_usd = excluded.per_usd",
      rows.map((r) => [r.currency, r.date, r.perUsd]),
    );
  }

  async insertIndexLevels(levels: readonly IndexLevel[]): Promise<void> {
    const rows = lastByKey(levels, (l) => `${l.identifier}\u001f${l.date}`);
    await this.upsert3(
      "INSERT INTO index_levels (identifier, date, level)",
      "ON CONFLICT (identifier, date) DO UPDATE SET level = excluded.level",
      rows.map((l) => [l.identifier, l.date, l.level]),
    );
  }

  /** Upsert rows of (text, text, float) in chunks, in one transaction. */
  private async upsert3(
    insert: string,
    conflict: string,
    rows: readonly [string, string, number][],
  ): Promise<void> {
    await this.db.transaction(() =>
      inChunks(rows, BULK_CHUNK, async (r) => {
        await this.db.run(
          `${insert} SELECT * FROM unnest($1::text[], $2::text[], $3::float8[]) ${conflict}`,
          [r.map((x) => x[0]), r.map((x) => x[1]), r.map((x) => x[2])],
        );
      }),
    );
  }

  async insertCharacteristics(values: readonly CharacteristicValue[]): Promise<void> {
    const rows = lastByKey(values, (c) => `${c.name}\u001f${c.themeAssetId}\u001f${c.date}`);
    await this.db.transaction(() =>
      inChunks(rows, BULK_CHUNK, async (c) => {
        await this.db.run(
          `INSERT INTO characteristics (name, theme_asset_id, date, value)
           SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::float8[])
           ON CONFLICT (name, theme_asset_id, date) DO UPDATE SET value = excluded.value`,
          [
            c.map((x) => x.name),
            c.map((x) => x.themeAssetId),
            c.map((x) => x.date),
            c.map((x) => sqlNumber(x.value)),
          ],
        );
      }),
    );
  }

  async upsertIndex(info: IndexInfo): Promise<void> {
    await this.db.run(
      `INSERT INTO indexes (identifier, name, currency, description) VALUES ($1, $2, $3, $4)
       ON CONFLICT (identifier) DO UPDATE SET name = excluded.name, currency = excluded.currency,
         description = excluded.description`,
      [info.identifier, info.name, info.currency, info.description],
    );
  }

  async insertIndexWeights(weights: readonly IndexWeight[]): Promise<void> {
    const rows = lastByKey(weights, (w) => `${w.identifier}\u001f${w.date}\u001f${w.themeAssetId}`);
    await this.db.transaction(() =>
      inChunks(rows, BULK_CHUNK, async (w) => {
        await this.db.run(
          `INSERT INTO index_weights (identifier, date, theme_asset_id, weight)
           SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::float8[])
           ON CONFLICT (identifier, date, theme_asset_id) DO UPDATE SET weight = excluded.weight`,
          [
            w.map((x) => x.identifier),
            w.map((x) => x.date),
            w.map((x) => x.themeAssetId),
            w.map((x) => sqlNumber(x.weight)),
          ],
        );
      }),
    );
  }

  async recordImport(
    kind: string,
    source: string,
    rows: number,
    summary: unknown,
  ): Promise<MarketImportRecord> {
    const created = this.now();
    const id = await this.db.value<number>(
      "INSERT INTO market_imports (kind, source, rows, summary, created) VALUES ($1, $2, $3, $4, $5) RETURNING id",
      [kind, source, rows, JSON.stringify(summary), created],
    );
    return { id: id!, kind, source, rows, summary, created };
  }

  async imports(): Promise<MarketImportRecord[]> {
    const rows = await this.db.rows<{
      id: number;
      kind: string;
      source: string;
      rows: string;
      summary: string;
      created: string;
    }>("SELECT id, kind, source, rows, summary, created FROM market_imports ORDER BY id");
    return rows.map((r) => ({ ...r, rows: Number(r.rows), summary: JSON.parse(r.summary) }));
  }

  // ---- change plans -------------------------------------------------------------------------------------

  async hasMarketData(): Promise<boolean> {
    return (
      (await this.db.value<boolean>(
        `SELECT EXISTS (SELECT 1 FROM securities) OR EXISTS (SELECT 1 FROM prices) OR EXISTS (SELECT 1 FROM splits)
           OR EXISTS (SELECT 1 FROM dividends) OR EXISTS (SELECT 1 FROM fx_rates)
           OR EXISTS (SELECT 1 FROM characteristics) OR EXISTS (SELECT 1 FROM indexes)`,
      )) === true
    );
  }

  async listingIds(): Promise<string[]> {
    return this.db.column<string>("SELECT theme_asset_id FROM securities ORDER BY theme_asset_id");
  }

  async ambiguousSymbols(): Promise<Map<string, string[]>> {
    const rows = await this.db.arrays<[string, string]>(
      `SELECT symbol, theme_asset_id FROM securities
       WHERE symbol IN (SELECT symbol FROM securities GROUP BY symbol HAVING count(*) > 1)
       ORDER BY symbol, theme_asset_id`,
    );
    return idsBySymbol(rows);
  }

  async clearMarketData(): Promise<MarketRemovalCounts> {
    return this.db.transaction(async () => {
      const del = (table: string) => this.db.run(`DELETE FROM ${table}`);
      const indexLevels = await del("index_levels");
      const indexWeights = await del("index_weights");
      const counts: MarketRemovalCounts = {
        securities: await del("securities"),
        prices: await del("prices"),
        splits: await del("splits"),
        dividends: await del("dividends"),
        fxRates: await del("fx_rates"),
        characteristics: await del("characteristics"),
        indexes: await del("indexes"),
        indexLevels,
        indexWeights,
      };
      await del("trading_dates");
      return counts;
    });
  }

  /** See {@link AsyncMarketRepository.captureChanges} and the module comment. */
  async captureChanges<T>(
    write: () => Promise<T>,
    exampleLimit = 10,
  ): Promise<{ result: T; changes: CapturedMarketChanges }> {
    return this.db.transaction(async () => {
      await this.db.query("LOCK TABLE securities, prices IN SHARE ROW EXCLUSIVE MODE");
      await this.db.query(CAPTURE_TABLES);
      await this.db.query("SELECT set_config('lotwise.capture', 'on', true)");
      const result = await write();
      await this.db.query("SELECT set_config('lotwise.capture', 'off', true)");
      // A close written twice in one import and back to its first value is no change.
      await this.db.run("DELETE FROM plan_price_changes WHERE old = new");
      const listingsAdded = await this.db.column<string>(
        "SELECT theme_asset_id FROM plan_listings_added ORDER BY theme_asset_id",
      );
      const listingsChanged = await this.db.column<string>(
        `SELECT theme_asset_id FROM plan_listings_changed
         WHERE theme_asset_id NOT IN (SELECT theme_asset_id FROM plan_listings_added) ORDER BY theme_asset_id`,
      );
      const count = (await this.db.value<number>("SELECT count(*)::int FROM plan_price_changes")) ?? 0;
      const byListing = await this.db.rows<{ themeAssetId: string; count: number }>(
        `SELECT theme_asset_id AS "themeAssetId", count(*)::int AS count FROM plan_price_changes
         GROUP BY theme_asset_id ORDER BY count(*) DESC, theme_asset_id`,
      );
      const examples = await this.db.rows<PriceChange>(
        `SELECT theme_asset_id AS "themeAssetId", date, old, new FROM plan_price_changes
         ORDER BY theme_asset_id, date LIMIT $1`,
        [exampleLimit < 0 ? null : exampleLimit],
      );
      const pricesAddedToExistingListings = await this.db.rows<{ themeAssetId: string; count: number }>(
        `SELECT theme_asset_id AS "themeAssetId", n AS count FROM plan_price_inserts ORDER BY n DESC, theme_asset_id`,
      );
      await this.db.query(
        "DROP TABLE plan_listings_added, plan_listings_changed, plan_price_changes, plan_price_inserts, plan_listings_before",
      );
      return {
        result,
        changes: {
          listingsAdded,
          listingsChanged,
          priceChanges: { count, byListing, examples },
          pricesAddedToExistingListings,
        },
      };
    });
  }

  // ---- reads --------------------------------------------------------------------------------------------

  async security(themeAssetId: string): Promise<Security | undefined> {
    const r = await this.db.row<SecurityRow>(
      `SELECT ${SECURITY_COLUMNS} FROM securities WHERE theme_asset_id = $1`,
      [themeAssetId],
    );
    return r && toSecurity(r);
  }

  async securities(
    filter: { currency?: string; themeAssetIds?: readonly string[] } = {},
  ): Promise<Security[]> {
    const rows = filter.themeAssetIds
      ? await this.db.rows<SecurityRow>(
          `SELECT ${SECURITY_COLUMNS} FROM securities WHERE theme_asset_id = ANY($1::text[]) ORDER BY theme_asset_id`,
          [filter.themeAssetIds],
        )
      : await this.db.rows<SecurityRow>(
          `SELECT ${SECURITY_COLUMNS} FROM securities WHERE ($1::text IS NULL OR currency = $1) ORDER BY theme_asset_id`,
          [filter.currency ?? null],
        );
    return rows.map(toSecurity);
  }

  async securitiesByIds(themeAssetIds: readonly string[]): Promise<Map<string, Security>> {
    const out = new Map<string, Security>();
    if (themeAssetIds.length === 0) return out;
    const rows = await this.db.rows<SecurityRow>(
      `SELECT ${SECURITY_COLUMNS} FROM securities WHERE theme_asset_id = ANY($1::text[]) ORDER BY theme_asset_id`,
      [themeAssetIds],
    );
    for (const r of rows) out.set(r.theme_asset_id, toSecurity(r));
    return out;
  }

  async securitiesBySymbols(symbols: readonly string[]): Promise<Map<string, Security[]>> {
    const out = new Map<string, Security[]>();
    if (symbols.length === 0) return out;
    const rows = await this.db.rows<SecurityRow>(
      `SELECT ${SECURITY_COLUMNS} FROM securities WHERE symbol = ANY($1::text[]) ORDER BY theme_asset_id`,
      [symbols.map((s) => s.toUpperCase())],
    );
    for (const r of rows) {
      const list = out.get(r.symbol);
      if (list) list.push(toSecurity(r));
      else out.set(r.symbol, [toSecurity(r)]);
    }
    return out;
  }

  async findSecuritiesBySymbol(symbol: string): Promise<Security[]> {
    const rows = await this.db.rows<SecurityRow>(
      `SELECT ${SECURITY_COLUMNS} FROM securities WHERE symbol = $1 ORDER BY theme_asset_id`,
      [symbol.toUpperCase()],
    );
    return rows.map(toSecurity);
  }

  async tradingDates(from?: string, to?: string): Promise<string[]> {
    return this.db.column<string>(
      "SELECT date FROM trading_dates WHERE date >= $1 AND date <= $2 ORDER BY date",
      [from ?? "0000-00-00", to ?? "9999-99-99"],
    );
  }

  async latestTradingDate(date: string): Promise<string | null> {
    return (
      (await this.db.value<string | null>("SELECT max(date) FROM trading_dates WHERE date <= $1", [date])) ??
      null
    );
  }

  async latestPriceDate(): Promise<string | null> {
    return (await this.db.value<string | null>("SELECT max(date) FROM trading_dates")) ?? null;
  }

  async latestPrices(
    themeAssetIds: readonly string[],
    asOf: string,
  ): Promise<Map<string, { date: string; close: number; volume: number | null }>> {
    const out = new Map<string, { date: string; close: number; volume: number | null }>();
    if (themeAssetIds.length === 0) return out;
    const rows = await this.db.arrays<[string, string, number, number | null]>(
      `SELECT i.id, p.date, p.close, p.volume FROM unnest($1::text[]) WITH ORDINALITY AS i(id, o)
       CROSS JOIN LATERAL (SELECT date, close, volume FROM prices WHERE theme_asset_id = i.id AND date <= $2
         ORDER BY date DESC LIMIT 1) p
       ORDER BY i.o`,
      [themeAssetIds, asOf],
    );
    for (const [id, date, close, volume] of rows) out.set(id, { date, close, volume });
    return out;
  }

  async priceMatrix(from: string, to: string, themeAssetIds?: readonly string[]): Promise<PriceMatrix> {
    return (await this.readPanel(from, to, themeAssetIds, true)) as PriceMatrix;
  }

  async closeMatrix(from: string, to: string, themeAssetIds?: readonly string[]): Promise<CloseMatrix> {
    return this.readPanel(from, to, themeAssetIds, false);
  }

  /** Two statements: the trading dates (and ids) of the window, then per security its dates, closes and volumes. */
  private async readPanel(
    from: string,
    to: string,
    themeAssetIds: readonly string[] | undefined,
    withVolume: boolean,
  ): Promise<CloseMatrix & { volume?: Float64Array }> {
    const [head] = await this.db.arrays<[string[] | null, string[] | null]>(
      `SELECT (SELECT array_agg(date ORDER BY date) FROM trading_dates WHERE date >= $1 AND date <= $2),
              (SELECT array_agg(theme_asset_id ORDER BY theme_asset_id) FROM securities WHERE $3::boolean)`,
      [from, to, themeAssetIds === undefined],
    );
    const dates = head?.[0] ?? [];
    const ids = themeAssetIds ? [...themeAssetIds] : (head?.[1] ?? []);
    const n = ids.length;
    const close = new Float64Array(dates.length * n).fill(Number.NaN);
    const volume = withVolume ? new Float64Array(dates.length * n).fill(Number.NaN) : undefined;
    if (n > 0 && dates.length > 0) {
      const column = new Map<string, number[]>();
      ids.forEach((id, i) => {
        const list = column.get(id);
        if (list) list.push(i);
        else column.set(id, [i]);
      });
      const position = new Map(dates.map((d, t) => [d, t]));
      // Each security's dates and values as comma-joined text (float8 text is the shortest exact form): parsing
      // three strings per security costs a fraction of pg's array parsing per element.
      // One ordered primary-key range scan per security (LATERAL), aggregated in key order without a sort.
      const rows = await this.db.arrays<[string, string | null, string | null, string | null]>(
        `SELECT i.id, p.d, p.c, p.v FROM unnest($1::text[]) AS i(id) CROSS JOIN LATERAL (
           SELECT string_agg(date, ',') AS d, string_agg(close::text, ',') AS c,
             ${withVolume ? "string_agg(coalesce(volume::text, ''), ',')" : "NULL"} AS v
           FROM (SELECT date, close, volume FROM prices WHERE theme_asset_id = i.id AND date >= $2 AND date <= $3
                 ORDER BY date) x) p`,
        [[...column.keys()], from, to],
      );
      for (const [id, dateText, closeText, volumeText] of rows) {
        if (dateText === null || closeText === null) continue;
        const cols = column.get(id) ?? [];
        const ds = dateText.split(",");
        const cs = closeText.split(",");
        const vs = volumeText?.split(",");
        for (let k = 0; k < ds.length; k++) {
          const t = position.get(ds[k]!);
          if (t === undefined) continue;
          const c = Number(cs[k]);
          const v = vs === undefined || vs[k] === "" ? Number.NaN : Number(vs[k]);
          for (const i of cols) {
            close[t * n + i] = c;
            if (volume) volume[t * n + i] = v;
          }
        }
      }
    }
    return volume ? { dates, ids, close, volume } : { dates, ids, close };
  }

  async splits(from: string, to: string): Promise<Split[]> {
    return this.db.rows<Split>(
      `SELECT theme_asset_id AS "themeAssetId", date, ratio FROM splits WHERE date >= $1 AND date <= $2
       ORDER BY date, theme_asset_id`,
      [from, to],
    );
  }

  async dividends(from: string, to: string): Promise<Dividend[]> {
    return this.db.rows<Dividend>(
      `SELECT theme_asset_id AS "themeAssetId", ex_date AS "exDate", amount FROM dividends
       WHERE ex_date >= $1 AND ex_date <= $2 ORDER BY ex_date, theme_asset_id`,
      [from, to],
    );
  }

  async fxRateAsOf(currency: string, asOf: string): Promise<{ date: string; perUsd: number } | undefined> {
    if (currency === "USD") return { date: asOf, perUsd: 1 };
    return this.db.row<{ date: string; perUsd: number }>(
      `SELECT date, per_usd AS "perUsd" FROM fx_rates WHERE currency = $1 AND date <= $2 ORDER BY date DESC LIMIT 1`,
      [currency, asOf],
    );
  }

  async fxSeries(currency: string, from: string, to: string): Promise<FxRate[]> {
    return this.db.rows<FxRate>(
      `SELECT date, currency, per_usd AS "perUsd" FROM fx_rates WHERE currency = $1 AND date >= $2 AND date <= $3
       ORDER BY date`,
      [currency, from, to],
    );
  }

  async characteristicNames(): Promise<string[]> {
    return this.db.column<string>(
      `WITH RECURSIVE names(name) AS (
         SELECT min(name) FROM characteristics
         UNION ALL
         SELECT (SELECT min(c.name) FROM characteristics c WHERE c.name > names.name) FROM names WHERE names.name IS NOT NULL
       )
       SELECT name FROM names WHERE name IS NOT NULL`,
    );
  }

  async characteristicsAsOf(name: string, asOf: string): Promise<Map<string, number>> {
    const rows = await this.db.arrays<[string, number]>(
      `SELECT DISTINCT ON (theme_asset_id) theme_asset_id, value FROM characteristics WHERE name = $1 AND date <= $2
       ORDER BY theme_asset_id, date DESC`,
      [name, asOf],
    );
    return new Map(rows);
  }

  /** See the SQLite repository; one statement returns each security's dates and values as arrays. */
  async characteristicsAsOfDates(
    name: string,
    themeAssetIds: readonly string[],
    asOfDates: readonly string[],
  ): Promise<Float64Array> {
    const n = themeAssetIds.length;
    const K = asOfDates.length;
    const { column, out } = characteristicsGrid(themeAssetIds, asOfDates);
    if (K === 0 || n === 0) return out;
    const rows = await this.db.arrays<[string, string[], number[]]>(
      `WITH start AS (
         SELECT coalesce(min(d), $3) AS d FROM (
           SELECT max(date) AS d FROM characteristics WHERE name = $1 AND date <= $3 GROUP BY theme_asset_id) s)
       SELECT theme_asset_id, array_agg(date ORDER BY date), array_agg(value ORDER BY date)
       FROM characteristics WHERE name = $1 AND theme_asset_id = ANY($2::text[])
         AND date >= (SELECT d FROM start) AND date <= $4
       GROUP BY theme_asset_id`,
      [name, themeAssetIds, asOfDates[0]!, asOfDates[K - 1]!],
    );
    for (const [id, dates, values] of rows) {
      const i = column.get(id);
      if (i === undefined) continue;
      let j = 0;
      let latest = -1;
      for (let k = 0; k < K; k++) {
        const d = asOfDates[k]!;
        while (j < dates.length && dates[j]! <= d) latest = j++;
        if (latest >= 0) out[k * n + i] = values[latest]!;
      }
    }
    return out;
  }

  async characteristicDates(name: string): Promise<string[]> {
    return this.db.column<string>("SELECT DISTINCT date FROM characteristics WHERE name = $1 ORDER BY date", [
      name,
    ]);
  }

  async indexes(): Promise<IndexInfo[]> {
    return this.db.rows<IndexInfo>(
      "SELECT identifier, name, currency, description FROM indexes ORDER BY identifier",
    );
  }

  async index(identifier: string): Promise<IndexInfo | undefined> {
    return this.db.row<IndexInfo>(
      "SELECT identifier, name, currency, description FROM indexes WHERE identifier = $1",
      [identifier],
    );
  }

  async indexLevels(identifier: string, from: string, to: string): Promise<IndexLevel[]> {
    return this.db.rows<IndexLevel>(
      `SELECT identifier, date, level FROM index_levels WHERE identifier = $1 AND date >= $2 AND date <= $3
       ORDER BY date`,
      [identifier, from, to],
    );
  }

  async indexWeightsAsOf(identifier: string, asOf: string): Promise<IndexWeight[]> {
    return this.db.rows<IndexWeight>(
      `SELECT identifier, date, theme_asset_id AS "themeAssetId", weight FROM index_weights
       WHERE identifier = $1 AND date = (SELECT max(date) FROM index_weights WHERE identifier = $1 AND date <= $2)
       ORDER BY weight DESC, theme_asset_id`,
      [identifier, asOf],
    );
  }

  async summary(): Promise<MarketSummary> {
    const byCur = await this.db.rows<{ currency: string; n: number }>(
      "SELECT currency, count(*)::int AS n FROM securities GROUP BY currency ORDER BY currency",
    );
    const p = (await this.db.row<{ n: number; f: string | null; l: string | null }>(
      "SELECT count(*)::int AS n, min(date) AS f, max(date) AS l FROM prices",
    ))!;
    const count = async (t: string) => (await this.db.value<number>(`SELECT count(*)::int FROM ${t}`)) ?? 0;
    const idx = await this.db.rows<MarketSummary["indexes"][number]>(
      `SELECT i.identifier, i.name, count(l.date)::int AS levels, min(l.date) AS "firstDate", max(l.date) AS "lastDate"
       FROM indexes i LEFT JOIN index_levels l ON l.identifier = i.identifier GROUP BY i.identifier ORDER BY i.identifier`,
    );
    return {
      securities: byCur.reduce((a, r) => a + r.n, 0),
      byCurrency: Object.fromEntries(byCur.map((r) => [r.currency, r.n])),
      priceRows: p.n,
      firstDate: p.f,
      lastDate: p.l,
      splits: await count("splits"),
      dividends: await count("dividends"),
      fxCurrencies: await this.db.column<string>("SELECT DISTINCT currency FROM fx_rates ORDER BY currency"),
      characteristics: await this.characteristicNames(),
      indexes: idx,
    };
  }
}
