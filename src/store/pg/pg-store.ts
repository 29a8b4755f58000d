/**
 * @module store/pg/pg-store
 * The PostgreSQL store: the repositories of {@link LotwiseStore} over a `pg.Pool` (see docs/store.md, "PostgreSQL").
 *
 * Transactions follow {@link SqliteStore}: `transaction(fn)` holds one client of the pool, and calls made from `fn`'s
 * asynchronous context join it (AsyncLocalStorage, see pg-db.ts); other calls use the pool. Several PgStore
 * instances (processes, machines) share one database: every read goes to the database (no process-local cache), the
 * change token and the lots tokens are kept by triggers, and the check-then-write steps that SQLite makes safe by
 * running one writer at a time take row or advisory locks here.
 */
import { randomUUID } from "node:crypto";
import pg from "pg";
import { StoreVersionError } from "../../core/errors.js";
import type { LotImportSession, LotwiseStore } from "../lotwise-store.js";
import type { TaxLotInput } from "../records.js";
import type { LotImportCounts, LotImportMode } from "../repositories/lot-imports.js";
import type { StoreOptions } from "../store.js";
import { LOCK_SPACE, PG_MIGRATIONS, PG_SCHEMA_VERSION } from "./migrations.js";
import { BULK_CHUNK, PgDb } from "./pg-db.js";
import { PgBacktestJobRepository } from "./repositories/backtest-jobs.js";
import { nextLotPosition, PgAccountRepository, PgClientRepository } from "./repositories/clients.js";
import { PgLedgerRepository } from "./repositories/ledger.js";
import { PgMarketRepository } from "./repositories/market.js";
import { PgApiKeyRepository, PgOrganizationRepository } from "./repositories/organizations.js";
import { PgAssetClassRepository, PgPortfolioConfigRepository } from "./repositories/portfolio-configs.js";
import { PgProposalRepository } from "./repositories/proposals.js";
import { PgRebalanceRunRepository } from "./repositories/rebalance-runs.js";
import { PgRiskModelRepository } from "./repositories/risk-models.js";
import { PgThemeRepository } from "./repositories/themes.js";

/** Options of {@link openPgStore}: those of SQLite's `openStore` (busyTimeoutMs does not apply) and the pool's. */
export interface PgStoreOptions extends StoreOptions {
  /**
   * Schema holding the store's tables (created when missing). It becomes the `search_path` of every connection and
   * is kept in {@link PgStore.connectionString} as `options=-c search_path=...`. Default: the URL's own
   * `options`/search_path, else the database's default (`public`).
   */
  schema?: string;
  /** Connections of the pool. @default 10 */
  maxConnections?: number;
}

/** Rows of `lotwise_changes` above which a token read folds them into the base row. */
const COMPACT_ABOVE = 1000;
/** Lots per read of a staged import's `lots()`. */
const STAGED_READ_CHUNK = 5000;

export class PgStore implements LotwiseStore {
  readonly kind = "postgres" as const;
  readonly location: string;
  readonly connectionString: string;
  readonly organizations: PgOrganizationRepository;
  readonly apiKeys: PgApiKeyRepository;
  readonly clients: PgClientRepository;
  readonly accounts: PgAccountRepository;
  readonly portfolioConfigs: PgPortfolioConfigRepository;
  readonly assetClasses: PgAssetClassRepository;
  readonly themes: PgThemeRepository;
  readonly proposals: PgProposalRepository;
  readonly rebalanceRuns: PgRebalanceRunRepository;
  readonly riskModels: PgRiskModelRepository;
  readonly backtestJobs: PgBacktestJobRepository;
  readonly market: PgMarketRepository;
  readonly ledger: PgLedgerRepository;
  readonly now: () => string;
  /** The connections and the transaction context (for code of src/store that needs SQL, e.g. copyStore). */
  readonly db: PgDb;
  private open = true;
  private compacting = false;

  /** Use {@link openPgStore} (it migrates the schema first). */
  constructor(pool: pg.Pool, connectionString: string, now: () => string = () => new Date().toISOString()) {
    this.db = new PgDb(pool);
    this.connectionString = connectionString;
    this.location = withoutPassword(connectionString);
    this.now = now;
    this.organizations = new PgOrganizationRepository(this.db, now);
    this.apiKeys = new PgApiKeyRepository(this.db, now);
    this.clients = new PgClientRepository(this.db, now);
    this.accounts = new PgAccountRepository(this.db, now);
    this.portfolioConfigs = new PgPortfolioConfigRepository(this.db, now);
    this.assetClasses = new PgAssetClassRepository(this.db, now);
    this.themes = new PgThemeRepository(this.db, now);
    this.proposals = new PgProposalRepository(this.db, now);
    this.rebalanceRuns = new PgRebalanceRunRepository(this.db, now);
    this.riskModels = new PgRiskModelRepository(this.db, now);
    this.backtestJobs = new PgBacktestJobRepository(this.db, now);
    this.market = new PgMarketRepository(this.db, now);
    this.ledger = new PgLedgerRepository(this.db, now);
  }

  get isOpen(): boolean {
    return this.open;
  }

  transaction<T>(fn: (tx: LotwiseStore) => Promise<T>): Promise<T> {
    return this.db.transaction(() => fn(this));
  }

  /**
   * Stage lots in `lot_import_staging` (an UNLOGGED table: no WAL, written in chunks through the pool, keyed by a
   * random import id) and move them into the account in one transaction at `commit`. A process killed meanwhile
   * leaves staged rows behind; they are deleted by the next import after a day.
   */
  async beginLotImport(): Promise<LotImportSession> {
    const db = this.db;
    const importId = randomUUID();
    let staged = 0;
    let closed = false;
    await db.run("DELETE FROM lot_import_staging WHERE staged_at < now() - interval '1 day'");
    const usable = () => {
      if (closed) throw new TypeError("LotImportSession: this import was committed or discarded");
    };
    const discard = async () => {
      closed = true;
      await db.run("DELETE FROM lot_import_staging WHERE import_id = $1", [importId]);
    };
    return {
      get size() {
        return staged;
      },
      add: async (lots: readonly TaxLotInput[]) => {
        usable();
        for (let i = 0; i < lots.length; i += BULK_CHUNK) {
          const slice = lots.slice(i, i + BULK_CHUNK);
          await db.run(
            `INSERT INTO lot_import_staging (import_id, seq, uuid, theme_asset_id, quantity, cost_basis, cost_basis_unit,
               cost_basis_currency, fx_rate, trade_date, holding_period_start, wash_sale_date, last_sold_for_loss_date)
             SELECT $1, $2 + o, gen_random_uuid()::text, t, q, c, cu, cc, f, d, h, w, l
             FROM unnest($3::text[], $4::numeric[], $5::numeric[], $6::text[], $7::text[], $8::numeric[], $9::text[],
               $10::text[], $11::text[], $12::text[]) WITH ORDINALITY AS x(t, q, c, cu, cc, f, d, h, w, l, o)`,
            [
              importId,
              staged + i,
              slice.map((l) => l.themeAssetId),
              slice.map((l) => l.quantity),
              slice.map((l) => l.costBasis),
              slice.map((l) => l.costBasisUnit),
              slice.map((l) => l.costBasisCurrency),
              slice.map((l) => l.fxRate),
              slice.map((l) => l.tradeDate),
              slice.map((l) => l.holdingPeriodStart),
              slice.map((l) => l.washSaleDate),
              slice.map((l) => l.lastSoldForLossDate),
            ],
          );
        }
        staged += lots.length;
      },
      lots: () => this.stagedLots(importId, usable),
      accountLotCount: async (accountUuid: string) =>
        (await db.value<number>(
          "SELECT count(*)::int FROM tax_lots WHERE account_uuid = $1 AND side = 'long'",
          [accountUuid],
        )) ?? 0,
      commit: async (
        accountUuid: string,
        mode: LotImportMode,
        check?: (tx: LotwiseStore) => Promise<void>,
      ): Promise<LotImportCounts> => {
        usable();
        try {
          return await this.transaction(async (tx) => {
            if (check) await check(tx);
            const count = async () =>
              (await db.value<number>(
                "SELECT count(*)::int FROM tax_lots WHERE account_uuid = $1 AND side = 'long'",
                [accountUuid],
              )) ?? 0;
            const start = await nextLotPosition(db, accountUuid);
            const before = await count();
            if (mode === "replace")
              await db.run("DELETE FROM tax_lots WHERE account_uuid = $1 AND side = 'long'", [accountUuid]);
            await db.run(
              `INSERT INTO tax_lots (uuid, account_uuid, position, theme_asset_id, quantity, cost_basis, cost_basis_unit,
                 cost_basis_currency, fx_rate, trade_date, holding_period_start, wash_sale_date, last_sold_for_loss_date)
               SELECT uuid, $2, $3 + seq - 1, theme_asset_id, quantity, cost_basis, cost_basis_unit, cost_basis_currency,
                 fx_rate, trade_date, holding_period_start, wash_sale_date, last_sold_for_loss_date
               FROM lot_import_staging WHERE import_id = $1 ORDER BY seq`,
              [importId, accountUuid, mode === "replace" ? 0 : start],
            );
            return { before, after: await count() };
          });
        } finally {
          await discard();
        }
      },
      discard,
    };
  }

  private async *stagedLots(importId: string, usable: () => void): AsyncIterable<TaxLotInput> {
    let after = 0;
    for (;;) {
      usable();
      const rows = await this.db.rows<{
        seq: number;
        theme_asset_id: string;
        quantity: string;
        cost_basis: string;
        cost_basis_unit: TaxLotInput["costBasisUnit"];
        cost_basis_currency: string;
        fx_rate: string;
        trade_date: string;
        holding_period_start: string | null;
        wash_sale_date: string | null;
        last_sold_for_loss_date: string | null;
      }>(
        `SELECT seq, theme_asset_id, quantity, cost_basis, cost_basis_unit, cost_basis_currency, fx_rate, trade_date,
           holding_period_start, wash_sale_date, last_sold_for_loss_date
         FROM lot_import_staging WHERE import_id = $1 AND seq > $2 ORDER BY seq LIMIT $3`,
        [importId, after, STAGED_READ_CHUNK],
      );
      for (const r of rows)
        yield {
          themeAssetId: r.theme_asset_id,
          quantity: r.quantity,
          costBasis: r.cost_basis,
          costBasisUnit: r.cost_basis_unit,
          costBasisCurrency: r.cost_basis_currency,
          fxRate: r.fx_rate,
          tradeDate: r.trade_date,
          holdingPeriodStart: r.holding_period_start,
          washSaleDate: r.wash_sale_date,
          lastSoldForLossDate: r.last_sold_for_loss_date,
        };
      if (rows.length < STAGED_READ_CHUNK) return;
      after = rows[rows.length - 1]!.seq;
    }
  }

  /**
   * The sum of `lotwise_changes.n`: one more for every transaction that wrote to a table of the store and committed,
   * whichever process wrote (see migrations.ts). Inside a transaction the read sees that transaction's own writes.
   */
  async changeToken(): Promise<string> {
    const row = await this.db.arrays<[string, number]>(
      "SELECT sum(n)::text, count(*)::int FROM lotwise_changes",
    );
    const [sum, rows] = row[0]!;
    if (rows > COMPACT_ABOVE && !this.compacting && !this.db.inTransaction()) void this.compactChanges();
    return `pg:${sum}`;
  }

  /** Fold the rows of `lotwise_changes` into the row of transaction 0 (the sum stays the same). */
  private async compactChanges(): Promise<void> {
    this.compacting = true;
    try {
      await this.db.transaction(async () => {
        const got = await this.db.value<boolean>("SELECT pg_try_advisory_xact_lock($1, 2)", [LOCK_SPACE]);
        if (!got) return;
        await this.db.run(
          `WITH gone AS (DELETE FROM lotwise_changes WHERE tx <> 0 RETURNING n)
           UPDATE lotwise_changes SET n = n + (SELECT coalesce(sum(n), 0) FROM gone) WHERE tx = 0`,
        );
      });
    } catch {
      // Best effort: the next token read tries again.
    } finally {
      this.compacting = false;
    }
  }

  async schemaVersion(): Promise<number> {
    return (await this.db.value<number>("SELECT coalesce(max(version), 0) FROM lotwise_schema")) ?? 0;
  }

  async ping(): Promise<void> {
    await this.db.query("SELECT 1");
  }

  async close(): Promise<void> {
    if (!this.open) return;
    this.open = false;
    await this.db.pool.end();
  }
}

/** The URL without its password (for messages). */
function withoutPassword(url: string): string {
  try {
    const u = new URL(url);
    if (u.password !== "") u.password = "";
    return u.toString().replace(/:@/, "@");
  } catch {
    return url.replace(/\/\/([^:/@]*):[^@]*@/, "//$1@");
  }
}

/** The URL with `options=-c search_path=<schema>` (replacing any options it had). */
function withSearchPath(url: string, schema: string): string {
  const u = new URL(url);
  u.searchParams.set("options", `-c search_path=${schema}`);
  return u.toString();
}

/** The first schema of a `search_path` set by the URL's `options` parameter, if any. */
function searchPathOf(url: string): string | undefined {
  let options: string | null;
  try {
    options = new URL(url).searchParams.get("options");
  } catch {
    return undefined;
  }
  const m = options === null ? null : /search_path\s*=\s*"?([^\s,"]+)/.exec(options);
  return m?.[1];
}

/** A quoted SQL identifier. */
function ident(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/**
 * Open a PostgreSQL store, creating or migrating its tables first (one transaction per schema version, each under an
 * advisory lock, so concurrent openers take turns and every version runs once).
 * @throws {StoreVersionError} when the schema holds tables that are not a lotwise store, was written by a newer
 * lotwise, or (with `create: false`) holds no store; when the database cannot be reached.
 * @example const store = await openPgStore("postgres://postgres@127.0.0.1:5432/lotwise");
 */
export async function openPgStore(url: string, options: PgStoreOptions = {}): Promise<PgStore> {
  const connectionString = options.schema === undefined ? url : withSearchPath(url, options.schema);
  // A schema named by the URL's own search_path is created when missing too.
  const schema = options.schema ?? searchPathOf(url);
  const pool = new pg.Pool({
    connectionString,
    max: options.maxConnections ?? 10,
    // Idle connections do not keep a finished CLI command's process alive (close() still ends them at once).
    allowExitOnIdle: true,
    ...(/[?&]application_name=/.test(connectionString) ? {} : { application_name: "lotwise" }),
  });
  // An idle client that loses its connection emits 'error' on the pool; the next query reconnects.
  pool.on("error", () => {});
  const store = new PgStore(pool, connectionString, options.now);
  try {
    await migrate(store.db, store.location, { ...options, ...(schema === undefined ? {} : { schema }) });
  } catch (err) {
    await pool.end().catch(() => {});
    if (err instanceof StoreVersionError) throw err;
    throw new StoreVersionError(`Cannot open store ${store.location}: ${(err as Error).message}`);
  }
  return store;
}

async function migrate(db: PgDb, location: string, options: PgStoreOptions): Promise<void> {
  for (;;) {
    const done = await db.transaction(async () => {
      await db.run("SELECT pg_advisory_xact_lock($1, hashtext($2))", [
        LOCK_SPACE,
        `migrate:${options.schema ?? ""}`,
      ]);
      if (options.schema !== undefined)
        await db.query(`CREATE SCHEMA IF NOT EXISTS ${ident(options.schema)}`);
      const schema = await db.value<string | null>("SELECT current_schema()");
      if (schema === null || schema === undefined)
        throw new StoreVersionError(`${location}: no schema to hold the store (check search_path).`);
      const tables = await db.column<string>(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = $1",
        [schema],
      );
      let current = 0;
      if (tables.includes("lotwise_schema")) {
        current = (await db.value<number>("SELECT coalesce(max(version), 0) FROM lotwise_schema")) ?? 0;
      } else {
        if (tables.length > 0)
          throw new StoreVersionError(
            `${location} (schema ${schema}) holds tables but is not a lotwise store; refusing to modify it.`,
          );
        if (options.create === false)
          throw new StoreVersionError(
            `No lotwise store at ${location} (schema ${schema}). Create one with \`lotwise init --store ${location}\`.`,
          );
        await db.query(
          "CREATE TABLE lotwise_schema (version integer PRIMARY KEY, description text NOT NULL, applied text NOT NULL)",
        );
      }
      if (current > PG_SCHEMA_VERSION)
        throw new StoreVersionError(
          `${location} has store schema version ${current}, written by a newer lotwise; this lotwise knows versions up to ${PG_SCHEMA_VERSION}. Upgrade lotwise to open it (the database was not modified).`,
        );
      const next = PG_MIGRATIONS.find((m) => m.version === current + 1);
      if (next === undefined) return true;
      try {
        await db.query(next.sql);
      } catch (err) {
        throw new StoreVersionError(
          `Migrating ${location} to schema version ${next.version} failed: ${(err as Error).message}`,
        );
      }
      await db.run("INSERT INTO lotwise_schema (version, description, applied) VALUES ($1, $2, $3)", [
        next.version,
        next.description,
        new Date().toISOString(),
      ]);
      return false;
    });
    if (done) return;
  }
}

/**
 * The schema version a PostgreSQL store holds now, without migrating it: null when the URL's schema holds no lotwise
 * store yet (or does not exist). `lotwise store migrate` reports it as the version it started from.
 * @throws {StoreVersionError} when the database cannot be reached.
 */
export async function pgStoredSchemaVersion(url: string): Promise<number | null> {
  const client = new pg.Client({ connectionString: url });
  client.on("error", () => {});
  try {
    await client.connect();
    const regclass = await client.query<{ t: string | null }>(
      "SELECT to_regclass('lotwise_schema')::text AS t",
    );
    if (regclass.rows[0]?.t == null) return null;
    const v = await client.query<{ v: number }>(
      "SELECT coalesce(max(version), 0)::int AS v FROM lotwise_schema",
    );
    return v.rows[0]?.v ?? null;
  } catch (err) {
    throw new StoreVersionError(
      `Cannot read the store at ${withoutPassword(url)}: ${(err as Error).message}`,
    );
  } finally {
    await client.end().catch(() => {});
  }
}
