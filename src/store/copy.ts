/**
 * @module store/copy
 * Copying a whole store into an empty one, between any two kinds (SQLite -> PostgreSQL to scale out, PostgreSQL ->
 * SQLite to take a copy home): every table, in dependency order, as raw rows (key hashes, lot positions, market-import
 * ids included), all written in ONE transaction of the target, so a failed copy leaves the target empty. The source
 * is read inside one transaction too (on PostgreSQL a read-only REPEATABLE READ one), so a copy of a live store is a
 * consistent snapshot. Lots tokens are not carried over: the target's triggers give every copied account a fresh one.
 */
import { ConflictError, StoreVersionError } from "../core/errors.js";
import type { LotwiseStore } from "./lotwise-store.js";
import type { PgDb } from "./pg/pg-db.js";
import type { SqliteStore } from "./sqlite-store.js";

/** One table of the copy: its columns (SQLite's names and order), flags (0/1 in SQLite, boolean in PostgreSQL). */
interface TableSpec {
  name: string;
  columns: readonly string[];
  /** Read order: SQLite's (rowid or the primary key of a WITHOUT ROWID table) and PostgreSQL's (seq, id or key). */
  sqliteOrder: readonly string[];
  pgOrder: readonly string[];
  flags?: readonly string[];
  /** Columns PostgreSQL returns as bigint text that SQLite holds as numbers. */
  bigints?: readonly string[];
}

const byRowid = (
  name: string,
  columns: readonly string[],
  pgOrder: readonly string[],
  extra: Partial<TableSpec> = {},
) => ({
  name,
  columns,
  sqliteOrder: ["rowid"],
  pgOrder,
  ...extra,
});
const byKey = (name: string, columns: readonly string[], key: readonly string[]) => ({
  name,
  columns,
  sqliteOrder: key,
  pgOrder: key,
});

/** Every table of schema version 6, parents before children. */
export const COPY_TABLES: readonly TableSpec[] = [
  byRowid("organizations", ["uuid", "name", "created", "modified"], ["uuid"]),
  byRowid(
    "api_keys",
    ["id", "organization_uuid", "prefix", "hash", "label", "created", "last_used_at", "revoked_at"],
    ["id"],
  ),
  byRowid(
    "clients",
    ["uuid", "organization_uuid", "external_id", "metadata", "created", "modified"],
    ["uuid"],
  ),
  byRowid(
    "portfolio_configs",
    ["uuid", "organization_uuid", "name", "status", "document", "created", "modified"],
    ["uuid"],
  ),
  byRowid(
    "asset_classes",
    ["uuid", "organization_uuid", "name", "document", "archived_at", "created", "modified"],
    ["uuid"],
  ),
  byRowid(
    "accounts",
    [
      "uuid",
      "organization_uuid",
      "client_uuid",
      "external_id",
      "name",
      "cash_value_usd",
      "non_tradable_assets_value",
      "liabilities_value",
      "portfolio_config_uuid",
      "customization_config",
      "metadata",
      "is_read_only",
      "created",
      "modified",
    ],
    ["uuid"],
    { flags: ["is_read_only"] },
  ),
  byRowid(
    "account_asset_class_settings",
    ["account_uuid", "position", "asset_class_uuid", "direct_indexing_enabled", "implementation_sleeve_uuid"],
    ["account_uuid", "position"],
    { flags: ["direct_indexing_enabled"] },
  ),
  byRowid(
    "tax_lots",
    [
      "uuid",
      "account_uuid",
      "position",
      "theme_asset_id",
      "quantity",
      "cost_basis",
      "cost_basis_unit",
      "cost_basis_currency",
      "fx_rate",
      "trade_date",
      "holding_period_start",
      "wash_sale_date",
      "last_sold_for_loss_date",
      "side",
    ],
    ["account_uuid", "position"],
  ),
  byRowid("themes", ["uuid", "organization_uuid", "name", "created", "modified"], ["uuid"]),
  byRowid(
    "theme_revisions",
    ["theme_uuid", "revision", "methodology", "published_at"],
    ["theme_uuid", "revision"],
  ),
  byRowid(
    "theme_snapshots",
    ["theme_uuid", "revision", "as_of_date", "total_weight", "constituents", "created"],
    ["theme_uuid", "revision", "as_of_date"],
  ),
  byRowid(
    "proposals",
    ["uuid", "organization_uuid", "account_uuid", "request", "response", "created"],
    ["seq"],
  ),
  byRowid(
    "backtest_jobs",
    [
      "id",
      "organization_uuid",
      "kind",
      "account_uuid",
      "status",
      "params",
      "resolved_params",
      "progress",
      "result",
      "error_message",
      "cancel_requested",
      "attempts",
      "lease_owner",
      "heartbeat_at",
      "created_at",
      "started_at",
      "finished_at",
    ],
    ["id"],
    { flags: ["cancel_requested"] },
  ),
  byRowid(
    "risk_models",
    [
      "uuid",
      "organization_uuid",
      "kind",
      "name",
      "as_of_date",
      "asset_count",
      "factor_count",
      "warnings",
      "document",
      "created",
    ],
    ["seq"],
  ),
  byRowid(
    "rebalance_runs",
    [
      "uuid",
      "organization_uuid",
      "run_key",
      "as_of_date",
      "run_when",
      "selection",
      "account_uuids",
      "forced",
      "status",
      "created",
      "finished",
    ],
    ["seq"],
    { flags: ["forced"] },
  ),
  byKey(
    "rebalance_run_accounts",
    [
      "run_uuid",
      "account_uuid",
      "position",
      "outcome",
      "proposal_uuid",
      "reason",
      "error_code",
      "error_message",
      "recorded",
    ],
    ["run_uuid", "account_uuid"],
  ),
  byRowid(
    "securities",
    [
      "theme_asset_id",
      "symbol",
      "mic",
      "name",
      "currency",
      "country",
      "asset_type",
      "sector",
      "industry_group",
      "industry",
      "sub_industry",
      "sic_code",
      "shares_outstanding",
      "description",
      "listed_from",
      "delisted_on",
    ],
    ["theme_asset_id"],
  ),
  byKey(
    "prices",
    ["theme_asset_id", "date", "open", "high", "low", "close", "adj_close", "volume"],
    ["theme_asset_id", "date"],
  ),
  byKey("trading_dates", ["date"], ["date"]),
  byKey("splits", ["theme_asset_id", "date", "ratio"], ["theme_asset_id", "date"]),
  byKey("dividends", ["theme_asset_id", "ex_date", "amount"], ["theme_asset_id", "ex_date"]),
  byKey("fx_rates", ["currency", "date", "per_usd"], ["currency", "date"]),
  byKey("characteristics", ["name", "theme_asset_id", "date", "value"], ["name", "theme_asset_id", "date"]),
  byRowid("indexes", ["identifier", "name", "currency", "description"], ["identifier"]),
  byKey("index_levels", ["identifier", "date", "level"], ["identifier", "date"]),
  byKey(
    "index_weights",
    ["identifier", "date", "theme_asset_id", "weight"],
    ["identifier", "date", "theme_asset_id"],
  ),
  byRowid("market_imports", ["id", "kind", "source", "rows", "summary", "created"], ["id"], {
    bigints: ["rows"],
  }),
  byKey(
    "executions",
    [
      "account_uuid",
      "execution_id",
      "source",
      "proposal_uuid",
      "order_index",
      "kind",
      "theme_asset_id",
      "trade_date",
      "quantity",
      "price",
      "fees",
      "currency",
      "fx_rate",
      "lots",
      "lot_id",
      "applied_at",
      "seq",
    ],
    ["account_uuid", "execution_id"],
  ),
  {
    ...byKey(
      "realized_lots",
      [
        "account_uuid",
        "entry_id",
        "client_uuid",
        "source_id",
        "lot_id",
        "theme_asset_id",
        "side",
        "quantity",
        "date_acquired",
        "date_sold",
        "open_date",
        "proceeds",
        "cost_basis",
        "adjustment_code",
        "adjustment",
        "gain",
        "term",
        "loss",
        "record",
        "seq",
      ],
      ["account_uuid", "entry_id"],
    ),
    flags: ["loss"],
  },
  byRowid("corporate_actions", ["id", "kind", "theme_asset_id", "ex_date", "pay_date", "params"], ["id"]),
  byKey(
    "corporate_action_applications",
    ["action_id", "account_uuid", "applied_at"],
    ["action_id", "account_uuid"],
  ),
];

/** Rows read per chunk of the source. */
const READ_CHUNK = 2000;
/** Bind parameters per INSERT on PostgreSQL (its limit is 65535). */
const PG_PARAMS = 30000;

/** Raw rows in and out of one store (flags as 0/1, bigints as numbers: SQLite's forms). */
interface TableIo {
  inTransaction<T>(fn: () => Promise<T>, readOnly: boolean): Promise<T>;
  count(t: TableSpec): Promise<number>;
  read(t: TableSpec): AsyncIterable<unknown[][]>;
  write(t: TableSpec, rows: unknown[][]): Promise<void>;
  /** After every table: continue identity sequences past the copied ids. */
  finish(): Promise<void>;
}

function sqliteIo(store: SqliteStore): TableIo {
  const tables = store.engine.tables;
  return {
    inTransaction: (fn) => store.transaction(fn),
    count: async (t) => tables.count(t.name),
    read: (t) =>
      (async function* () {
        yield* tables.read(t.name, t.columns, t.sqliteOrder, READ_CHUNK);
      })(),
    write: async (t, rows) => tables.insert(t.name, t.columns, rows),
    finish: async () => {},
  };
}

function pgIo(db: PgDb): TableIo {
  return {
    inTransaction: (fn, readOnly) =>
      db.transaction(async () => {
        if (readOnly) await db.query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY");
        return fn();
      }),
    count: async (t) => (await db.value<number>(`SELECT count(*)::int FROM ${t.name}`)) ?? 0,
    read: (t) =>
      (async function* () {
        // A cursor of the source's transaction: each FETCH continues where the last stopped (OFFSET pages would
        // rescan every row before the page, quadratic on a large prices table).
        const cursor = `lotwise_copy_${t.name}`;
        await db.query(
          `DECLARE ${cursor} NO SCROLL CURSOR FOR SELECT ${t.columns.join(", ")} FROM ${t.name} ORDER BY ${t.pgOrder.join(", ")}`,
        );
        const flags = (t.flags ?? []).map((f) => t.columns.indexOf(f));
        const bigints = (t.bigints ?? []).map((f) => t.columns.indexOf(f));
        try {
          for (;;) {
            const rows = await db.arrays<unknown[]>(`FETCH ${READ_CHUNK} FROM ${cursor}`);
            for (const row of rows) {
              for (const i of flags) row[i] = row[i] === null ? null : row[i] ? 1 : 0;
              for (const i of bigints) row[i] = row[i] === null ? null : Number(row[i]);
            }
            if (rows.length > 0) yield rows;
            if (rows.length < READ_CHUNK) return;
          }
        } finally {
          await db.query(`CLOSE ${cursor}`).catch(() => undefined);
        }
      })(),
    write: async (t, rows) => {
      const flags = (t.flags ?? []).map((f) => t.columns.indexOf(f));
      const n = t.columns.length;
      const per = Math.max(1, Math.floor(PG_PARAMS / n));
      for (let i = 0; i < rows.length; i += per) {
        const slice = rows.slice(i, i + per);
        const params: unknown[] = [];
        const values = slice.map((row) => {
          const at = params.length;
          row.forEach((v, c) => {
            params.push(flags.includes(c) && v !== null ? v === 1 || v === true : v);
          });
          return `(${row.map((_, c) => `$${at + c + 1}`).join(", ")})`;
        });
        await db.run(`INSERT INTO ${t.name} (${t.columns.join(", ")}) VALUES ${values.join(", ")}`, params);
      }
    },
    finish: async () => {
      await db.query(
        "SELECT setval(pg_get_serial_sequence('market_imports', 'id'), coalesce(max(id), 0) + 1, false) FROM market_imports",
      );
    },
  };
}

function io(store: LotwiseStore): TableIo {
  if (store.kind === "postgres") return pgIo((store as unknown as { db: PgDb }).db);
  const engine = (store as Partial<SqliteStore>).engine;
  if (engine === undefined) throw new TypeError("copyStore: a SQLite store must be a SqliteStore");
  return sqliteIo(store as SqliteStore);
}

/** Rows copied, per table. */
export type CopyCounts = Record<string, number>;

/**
 * Copy every row of `from` into `to` (see the module comment).
 * @throws {ConflictError} `store_not_empty` when `to` holds any row; {@link StoreVersionError} when the two stores are
 * at different schema versions.
 * @example await copyStore(openSqliteStore("lotwise.db"), await openStore("postgres://db/lotwise"));
 */
export async function copyStore(
  from: LotwiseStore,
  to: LotwiseStore,
  options: {
    /** Called after each table with its rows copied so far, and once more when the table is done. */
    onProgress?: (table: string, rows: number, done: boolean) => void;
  } = {},
): Promise<CopyCounts> {
  const [fromVersion, toVersion] = [await from.schemaVersion(), await to.schemaVersion()];
  if (fromVersion !== toVersion)
    throw new StoreVersionError(
      `Cannot copy ${from.location} (schema version ${fromVersion}) into ${to.location} (schema version ${toVersion}); open both with the same lotwise first.`,
    );
  const source = io(from);
  const target = io(to);
  return target.inTransaction(async () => {
    for (const t of COPY_TABLES) {
      if ((await target.count(t)) > 0)
        throw new ConflictError(
          `Cannot copy into ${to.location}: its table ${t.name} is not empty; copy into a new, empty store.`,
          "store_not_empty",
        );
    }
    const counts: CopyCounts = {};
    await source.inTransaction(async () => {
      for (const t of COPY_TABLES) {
        let n = 0;
        for await (const rows of source.read(t)) {
          await target.write(t, rows);
          n += rows.length;
          options.onProgress?.(t.name, n, false);
        }
        counts[t.name] = n;
        options.onProgress?.(t.name, n, true);
      }
    }, true);
    await target.finish();
    return counts;
  }, false);
}
