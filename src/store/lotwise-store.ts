/**
 * @module store/lotwise-store
 * The store as the service layer sees it: repositories whose methods return promises, and
 * `store.transaction(async (tx) => ...)`. Two implementations: {@link SqliteStore} (one SQLite file, the embedded
 * default) and the PostgreSQL store (`postgres://` URLs, several service instances and workers on one database).
 *
 * The repository shapes are the SQLite repository classes with every method made asynchronous ({@link Promised});
 * the few methods that take a callback are declared by hand. Inside `transaction(fn)` every call made from `fn`'s
 * asynchronous context joins the transaction, whether it goes through `tx` or through the store object itself
 * (the implementations track the context with AsyncLocalStorage); calls from elsewhere wait until it ends
 * (SQLite, one connection) or run on another connection (PostgreSQL).
 */
import type { TaxLotInput, TaxLotRow } from "./records.js";
import type { BacktestJobRepository } from "./repositories/backtest-jobs.js";
import type { AccountRepository, ClientRepository } from "./repositories/clients.js";
import type { LedgerRepository } from "./repositories/ledger.js";
import type { LotImportCounts, LotImportMode } from "./repositories/lot-imports.js";
import type { CapturedMarketChanges, MarketRepository } from "./repositories/market.js";
import type { ApiKeyRepository, OrganizationRepository } from "./repositories/organizations.js";
import type { AssetClassRepository, PortfolioConfigRepository } from "./repositories/portfolio-configs.js";
import type { ProposalRepository } from "./repositories/proposals.js";
import type { RebalanceRunRepository } from "./repositories/rebalance-runs.js";
import type { RiskModelRepository } from "./repositories/risk-models.js";
import type { ThemeRepository } from "./repositories/themes.js";

/** The public methods of `T`, each returning a promise of what it returned. Generic methods lose their generics. */
export type Promised<T> = {
  [K in keyof T as T[K] extends (...args: never[]) => unknown ? K : never]: T[K] extends (
    ...args: infer A
  ) => infer R
    ? (...args: A) => Promise<Awaited<R>>
    : never;
};

/** The account repository; `lotValues` keeps its generic converter. */
export type AsyncAccountRepository = Omit<Promised<AccountRepository>, "lotValues"> & {
  /** See {@link AccountRepository.lotValues}: the lots in stored order, converted, reusing `previous` by content. */
  lotValues<T>(
    accountUuid: string,
    convert: (row: TaxLotRow) => T,
    previous?: ReadonlyMap<string, T>,
  ): Promise<{ values: T[]; memo: Map<string, T> }>;
};

/**
 * The market repository; its writes group with `store.transaction`, and `captureChanges` takes an async write.
 * (`beginCapture`, the synchronous parts of SQLite's capture, is not part of it.)
 */
export type AsyncMarketRepository = Omit<
  Promised<MarketRepository>,
  "transaction" | "captureChanges" | "beginCapture"
> & {
  /**
   * Run `write` (the market writes of one import) in one transaction and report what it did to data that was
   * already there (see {@link MarketRepository.captureChanges}).
   */
  captureChanges<T>(
    write: () => Promise<T>,
    exampleLimit?: number,
  ): Promise<{ result: T; changes: CapturedMarketChanges }>;
};

/** The staged lots of one tax-lot import; not reusable after `commit` or `discard`. */
export interface LotImportSession {
  /** Lots staged so far. */
  readonly size: number;
  /** Stage lots after the ones already staged. */
  add(lots: readonly TaxLotInput[]): Promise<void>;
  /** The staged lots in file order. */
  lots(): AsyncIterable<TaxLotInput>;
  /** The account's lot count now (a dry run's "before"). */
  accountLotCount(accountUuid: string): Promise<number>;
  /**
   * Move every staged lot into the account in ONE transaction: `replace` deletes the account's lots first, `append`
   * inserts after its last position as of that transaction. `check` runs first inside the transaction; throwing
   * from it, or any failure, rolls everything back. The staging is discarded in all cases.
   */
  commit(
    accountUuid: string,
    mode: LotImportMode,
    check?: (tx: LotwiseStore) => Promise<void>,
  ): Promise<LotImportCounts>;
  /** Drop the staged lots (idempotent). */
  discard(): Promise<void>;
}

/** Which engine holds the data. */
export type StoreKind = "sqlite" | "postgres";

/** SQLite-only controls of the one connection (absent on PostgreSQL). */
export interface SqliteControls {
  /** Milliseconds a statement waits (blocking the thread) for another connection's write lock. */
  setBusyTimeout(ms: number): void;
  /** Rows changed by this connection since it opened: equal counts around a failed operation prove it wrote nothing. */
  writeCount(): number;
}

/** The lotwise store (see the module comment). */
export interface LotwiseStore {
  readonly kind: StoreKind;
  /** Where the data lives, for messages: a file path, `:memory:`, or a `postgres://` URL without its password. */
  readonly location: string;
  /**
   * What a worker thread or another process passes to `openStore` to reach the same data: the file path, or the
   * full `postgres://` URL (with credentials; never shown). `null` for `:memory:` (no other connection can see it).
   */
  readonly connectionString: string | null;
  readonly organizations: Promised<OrganizationRepository>;
  readonly apiKeys: Promised<ApiKeyRepository>;
  readonly clients: Promised<ClientRepository>;
  readonly accounts: AsyncAccountRepository;
  readonly portfolioConfigs: Promised<PortfolioConfigRepository>;
  readonly assetClasses: Promised<AssetClassRepository>;
  readonly themes: Promised<ThemeRepository>;
  readonly proposals: Promised<ProposalRepository>;
  readonly rebalanceRuns: Promised<RebalanceRunRepository>;
  readonly riskModels: Promised<RiskModelRepository>;
  readonly backtestJobs: Promised<BacktestJobRepository>;
  readonly market: AsyncMarketRepository;
  /** The account ledger: executions, realized rows, short lots, corporate actions (docs/ledger.md). */
  readonly ledger: Promised<LedgerRepository>;
  /** Clock of created/modified timestamps (ISO 8601 UTC). */
  readonly now: () => string;
  /** SQLite's connection controls; undefined on PostgreSQL. */
  readonly sqlite?: SqliteControls;
  /**
   * Run `fn` as one transaction. Calls made from `fn` (through `tx` or this store) join it, nested `transaction`
   * calls included; throwing rolls everything back.
   */
  transaction<T>(fn: (tx: LotwiseStore) => Promise<T>): Promise<T>;
  /** Start a tax-lot import (lots are staged outside the account until `commit`). */
  beginLotImport(): Promise<LotImportSession>;
  /**
   * A token that changes whenever the stored data may have changed, read from the database itself (so every
   * process on the same data agrees). Equal tokens mean unchanged content; response caches key on it.
   */
  changeToken(): Promise<string>;
  /** Schema version of the open store. */
  schemaVersion(): Promise<number>;
  /** Resolves when the database answers a trivial query (readiness checks). */
  ping(): Promise<void>;
  /** False once {@link close} has run. */
  readonly isOpen: boolean;
  close(): Promise<void>;
}
