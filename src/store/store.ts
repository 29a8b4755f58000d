/**
 * @module store/store
 * The lotwise store: one SQLite file (or `:memory:`) with one repository per entity. Each repository write is
 * one statement or one transaction; `store.transaction(fn)` groups several writes into one all-or-nothing
 * operation (the service layer uses it for every operation that writes more than one row).
 */
import { type Db, openDatabase, setBusyTimeout } from "./database.js";
import { SCHEMA_VERSION } from "./migrations.js";
import { BacktestJobRepository } from "./repositories/backtest-jobs.js";
import { AccountRepository, ClientRepository } from "./repositories/clients.js";
import { LedgerRepository } from "./repositories/ledger.js";
import { LotImportStaging } from "./repositories/lot-imports.js";
import { MarketRepository } from "./repositories/market.js";
import { ApiKeyRepository, OrganizationRepository } from "./repositories/organizations.js";
import { AssetClassRepository, PortfolioConfigRepository } from "./repositories/portfolio-configs.js";
import { ProposalRepository } from "./repositories/proposals.js";
import { RebalanceRunRepository } from "./repositories/rebalance-runs.js";
import { RiskModelRepository } from "./repositories/risk-models.js";
import { TableRepository } from "./repositories/tables.js";
import { ThemeRepository } from "./repositories/themes.js";

export interface StoreOptions {
  /** Create the file when missing. @default true */
  create?: boolean;
  /** Clock for created/modified timestamps (ISO 8601 UTC). @default () => new Date().toISOString() */
  now?: () => string;
  /** Milliseconds a write waits (blocking) for another connection's lock. @default DEFAULT_BUSY_TIMEOUT_MS (5000) */
  busyTimeoutMs?: number;
}

export class Store {
  readonly path: string;
  readonly organizations: OrganizationRepository;
  readonly apiKeys: ApiKeyRepository;
  readonly clients: ClientRepository;
  readonly accounts: AccountRepository;
  readonly portfolioConfigs: PortfolioConfigRepository;
  readonly assetClasses: AssetClassRepository;
  readonly themes: ThemeRepository;
  readonly proposals: ProposalRepository;
  readonly rebalanceRuns: RebalanceRunRepository;
  readonly riskModels: RiskModelRepository;
  readonly backtestJobs: BacktestJobRepository;
  readonly market: MarketRepository;
  readonly ledger: LedgerRepository;
  /** Raw whole-table reads and writes, for copyStore only. @internal */
  readonly tables: TableRepository;
  readonly now: () => string;
  private readonly db: Db;
  private tokenStatement: ReturnType<Db["prepare"]> | undefined;
  /**
   * Set when a ledger batch failed after its first write inside the open transaction (it joins a caller's
   * transaction without a savepoint): that transaction must not commit, so its commit rolls back and throws.
   */
  private failedWrite: { error: unknown } | undefined;
  private writeCountStatement: ReturnType<Db["prepare"]> | undefined;

  constructor(path: string, options: StoreOptions = {}) {
    this.path = path;
    this.db = openDatabase(path, {
      ...(options.create === undefined ? {} : { create: options.create }),
      ...(options.busyTimeoutMs === undefined ? {} : { busyTimeoutMs: options.busyTimeoutMs }),
    });
    this.now = options.now ?? (() => new Date().toISOString());
    this.organizations = new OrganizationRepository(this.db, this.now);
    this.apiKeys = new ApiKeyRepository(this.db, this.now);
    this.clients = new ClientRepository(this.db, this.now);
    this.accounts = new AccountRepository(this.db, this.now);
    this.portfolioConfigs = new PortfolioConfigRepository(this.db, this.now);
    this.assetClasses = new AssetClassRepository(this.db, this.now);
    this.themes = new ThemeRepository(this.db, this.now);
    this.proposals = new ProposalRepository(this.db, this.now);
    this.rebalanceRuns = new RebalanceRunRepository(this.db, this.now);
    this.riskModels = new RiskModelRepository(this.db, this.now);
    this.backtestJobs = new BacktestJobRepository(this.db, this.now);
    this.market = new MarketRepository(this.db, this.now);
    this.ledger = new LedgerRepository(this.db, this.now, (error) => {
      this.failedWrite ??= { error };
    });
    this.tables = new TableRepository(this.db);
  }

  /** Run `fn` as one transaction (nested calls join the outer one). Throwing rolls everything back. */
  transaction<T>(fn: () => T): T {
    if (this.db.inTransaction) return fn();
    return this.db
      .transaction(() => {
        this.failedWrite = undefined;
        const result = fn();
        this.throwIfFailedWrite();
        return result;
      })
      .immediate();
  }

  /** Throws (clearing the mark) when a write failed half-way inside the open transaction; see `failedWrite`. */
  private throwIfFailedWrite(): void {
    const failed = this.failedWrite;
    if (failed === undefined) return;
    this.failedWrite = undefined;
    const message = failed.error instanceof Error ? failed.error.message : String(failed.error);
    throw new Error(
      `The transaction was rolled back: a ledger batch failed inside it after writing (${message}).`,
      { cause: failed.error },
    );
  }

  /** Open a transaction by hand (BEGIN IMMEDIATE); {@link SqliteStore} pairs it with commit or rollback. */
  begin(): void {
    this.db.exec("BEGIN IMMEDIATE");
    this.failedWrite = undefined;
  }

  /**
   * Commit the transaction opened by {@link begin}; when a ledger batch failed half-way inside it (and the caller
   * went on), roll it back instead and throw.
   */
  commit(): void {
    if (this.failedWrite !== undefined) {
      this.rollback();
      this.throwIfFailedWrite();
    }
    this.db.exec("COMMIT");
  }

  /** Roll back the transaction opened by {@link begin} (nothing when SQLite already rolled it back). */
  rollback(): void {
    this.failedWrite = undefined;
    if (this.db.open && this.db.inTransaction) this.db.exec("ROLLBACK");
  }

  /**
   * Start a tax-lot import: lots are staged in a private temporary file as they are read and moved into an account
   * by one transaction ({@link LotImportStaging.commit}); call `discard()` when giving up.
   */
  beginLotImport(): LotImportStaging {
    return new LotImportStaging(this.db);
  }

  /**
   * A token that changes whenever the database may have changed: SQLite's `data_version` (bumped by commits of other
   * connections, e.g. a CLI writing the same file) and this connection's `total_changes()`. Equal tokens mean
   * unchanged content; the HTTP server keys its response cache on it.
   */
  changeToken(): string {
    this.tokenStatement ??= this.db
      .prepare("SELECT data_version, total_changes() FROM pragma_data_version")
      .raw(true);
    const row = this.tokenStatement.get([]) as [number, number];
    return `${row[0]}:${row[1]}`;
  }

  /**
   * Changes the time a statement of this connection waits (blocking its thread) for another connection's write
   * lock. The HTTP server sets 0: a locked store fails at once and the app waits asynchronously, so the event loop
   * never freezes behind a CLI import (see docs/store.md).
   */
  setBusyTimeout(ms: number): void {
    setBusyTimeout(this.db, ms);
  }

  /**
   * Rows changed by this connection since it opened (SQLite's `total_changes()`). Equal counts before and after a
   * failed operation prove it wrote nothing, so it can be retried safely.
   */
  writeCount(): number {
    this.writeCountStatement ??= this.db.prepare("SELECT total_changes()").pluck(true);
    return this.writeCountStatement.get([]) as number;
  }

  /** Schema version of the open file. */
  get schemaVersion(): number {
    return this.db.pragma("user_version", { simple: true }) as number;
  }

  /** False once {@link close} has run (deferred work checks it instead of failing on a closed file). */
  get isOpen(): boolean {
    return this.db.open;
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}

/**
 * Open or create a SQLite store file with the synchronous repositories (internal: the service layer uses the
 * asynchronous `openStore` of store/open.ts; {@link SqliteStore} wraps this).
 * @throws {StoreVersionError} for a file that is not a lotwise store or comes from a newer version.
 * @example const store = openSqliteFile("lotwise.db"); store.organizations.create("Acme Advisors");
 */
export function openSqliteFile(path: string, options: StoreOptions = {}): Store {
  return new Store(path, options);
}

export { SCHEMA_VERSION };
