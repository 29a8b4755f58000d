/**
 * @module store/sqlite-store
 * The embedded store: the SQLite repositories ({@link Store}, better-sqlite3, synchronous) behind the asynchronous
 * {@link LotwiseStore} interface. The file format and migrations are those of {@link Store}.
 *
 * One connection serves every caller, so a transaction must not interleave with other work: `transaction(fn)`
 * takes the connection (BEGIN IMMEDIATE) until `fn` settles, calls from `fn`'s asynchronous context (found with
 * AsyncLocalStorage) run inside it, and calls from anywhere else wait until it commits or rolls back. Transactions
 * run one at a time, in the order they asked.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type { LotImportSession, LotwiseStore, SqliteControls } from "./lotwise-store.js";
import type { TaxLotInput } from "./records.js";
import type { LotImportMode } from "./repositories/lot-imports.js";
import { Store, type StoreOptions } from "./store.js";

/** One open transaction (identity only). */
interface TxFrame {
  readonly id: number;
}

export class SqliteStore implements LotwiseStore {
  readonly kind = "sqlite" as const;
  readonly location: string;
  readonly connectionString: string | null;
  readonly organizations: LotwiseStore["organizations"];
  readonly apiKeys: LotwiseStore["apiKeys"];
  readonly clients: LotwiseStore["clients"];
  readonly accounts: LotwiseStore["accounts"];
  readonly portfolioConfigs: LotwiseStore["portfolioConfigs"];
  readonly assetClasses: LotwiseStore["assetClasses"];
  readonly themes: LotwiseStore["themes"];
  readonly proposals: LotwiseStore["proposals"];
  readonly rebalanceRuns: LotwiseStore["rebalanceRuns"];
  readonly riskModels: LotwiseStore["riskModels"];
  readonly backtestJobs: LotwiseStore["backtestJobs"];
  readonly market: LotwiseStore["market"];
  readonly ledger: LotwiseStore["ledger"];
  readonly now: () => string;
  readonly sqlite: SqliteControls;
  /** The synchronous SQLite store underneath (for code that must run synchronously, e.g. a worker's hot loop). */
  readonly engine: Store;

  private readonly context = new AsyncLocalStorage<TxFrame>();
  private active: TxFrame | undefined;
  private idle: Promise<void> = Promise.resolve();
  private nextId = 0;

  constructor(engine: Store) {
    this.engine = engine;
    this.location = engine.path;
    this.connectionString = engine.path === ":memory:" || engine.path === "" ? null : engine.path;
    this.now = engine.now;
    this.sqlite = {
      setBusyTimeout: (ms) => engine.setBusyTimeout(ms),
      writeCount: () => engine.writeCount(),
    };
    this.organizations = this.wrap(engine.organizations);
    this.apiKeys = this.wrap(engine.apiKeys);
    this.clients = this.wrap(engine.clients);
    this.accounts = this.wrap(engine.accounts) as unknown as LotwiseStore["accounts"];
    this.portfolioConfigs = this.wrap(engine.portfolioConfigs);
    this.assetClasses = this.wrap(engine.assetClasses);
    this.themes = this.wrap(engine.themes);
    this.proposals = this.wrap(engine.proposals);
    this.rebalanceRuns = this.wrap(engine.rebalanceRuns);
    this.riskModels = this.wrap(engine.riskModels);
    this.backtestJobs = this.wrap(engine.backtestJobs);
    const market = this.wrap(engine.market) as unknown as Record<string, unknown>;
    market.captureChanges = <T>(write: () => Promise<T>, exampleLimit?: number) =>
      this.transaction(async () => {
        // The triggers of captureChanges watch the writes; `write` runs between install and read-out.
        const capture = engine.market.beginCapture();
        try {
          const result = await write();
          return { result, changes: capture.finish(exampleLimit) };
        } finally {
          capture.drop();
        }
      });
    this.market = market as unknown as LotwiseStore["market"];
    this.ledger = this.wrap(engine.ledger);
  }

  get isOpen(): boolean {
    return this.engine.isOpen;
  }

  /**
   * True while a transaction holds the connection. Code that must call {@link engine} synchronously (the hooks a
   * synchronous engine loop calls) does so only when this is false: otherwise its statements would join that
   * transaction.
   */
  get transactionOpen(): boolean {
    return this.active !== undefined;
  }

  async transaction<T>(fn: (tx: LotwiseStore) => Promise<T>): Promise<T> {
    const current = this.context.getStore();
    if (current !== undefined && current === this.active) return fn(this);
    while (this.active !== undefined) await this.idle;
    const frame: TxFrame = { id: ++this.nextId };
    let release!: () => void;
    this.active = frame;
    this.idle = new Promise<void>((resolve) => {
      release = resolve;
    });
    try {
      this.engine.begin();
      let result: T;
      try {
        result = await this.context.run(frame, () => fn(this));
      } catch (err) {
        this.engine.rollback();
        throw err;
      }
      this.engine.commit();
      return result;
    } finally {
      this.active = undefined;
      // AsyncLocalStorage keeps promise hooks on for the whole process while it is enabled (a cost on every promise
      // of every request); with no transaction open it has nothing to track: the next `run` enables it again.
      this.context.disable();
      release();
    }
  }

  async beginLotImport(): Promise<LotImportSession> {
    await this.ready();
    const staging = this.engine.beginLotImport();
    return {
      get size() {
        return staging.size;
      },
      add: async (lots: readonly TaxLotInput[]) => staging.add(lots),
      lots: () => toAsync(staging.lots()),
      accountLotCount: async (accountUuid: string) => {
        await this.ready();
        return staging.accountLotCount(accountUuid);
      },
      commit: async (
        accountUuid: string,
        mode: LotImportMode,
        check?: (tx: LotwiseStore) => Promise<void>,
      ) => {
        await this.ready();
        // The staging file is attached outside any transaction (SQLite refuses ATTACH inside one), then moved
        // in one transaction of this store after `check`.
        const move = staging.attach();
        try {
          return await this.transaction(async (tx) => {
            if (check) await check(tx);
            return move.into(accountUuid, mode);
          });
        } finally {
          move.detach();
        }
      },
      discard: async () => staging.discard(),
    };
  }

  changeToken(): Promise<string> {
    // Read on every request (response cache, key memory): no extra promise when no transaction holds the connection.
    if (this.active === undefined) {
      try {
        return Promise.resolve(this.engine.changeToken());
      } catch (err) {
        return Promise.reject(err);
      }
    }
    return this.ready().then(() => this.engine.changeToken());
  }

  async schemaVersion(): Promise<number> {
    return this.engine.schemaVersion;
  }

  async ping(): Promise<void> {
    await this.ready();
    this.engine.schemaVersion;
  }

  async close(): Promise<void> {
    while (this.active !== undefined) await this.idle;
    this.engine.close();
  }

  /** Resolves when a call from the current context may use the connection. */
  private async ready(): Promise<void> {
    while (this.active !== undefined && this.context.getStore() !== this.active) await this.idle;
  }

  /** The repository with each method returning a promise and waiting for another context's transaction. */
  private wrap<R extends object>(repository: R): import("./lotwise-store.js").Promised<R> {
    const out: Record<string, unknown> = {};
    let proto: object | null = Object.getPrototypeOf(repository);
    while (proto !== null && proto !== Object.prototype) {
      for (const name of Object.getOwnPropertyNames(proto)) {
        if (name === "constructor" || name in out) continue;
        const descriptor = Object.getOwnPropertyDescriptor(proto, name);
        if (typeof descriptor?.value !== "function") continue;
        const method = descriptor.value as (...args: unknown[]) => unknown;
        out[name] = (...args: unknown[]) => {
          if (this.active !== undefined && this.context.getStore() !== this.active)
            return this.ready().then(() => method.apply(repository, args));
          try {
            return Promise.resolve(method.apply(repository, args));
          } catch (err) {
            return Promise.reject(err);
          }
        };
      }
      proto = Object.getPrototypeOf(proto);
    }
    return out as import("./lotwise-store.js").Promised<R>;
  }
}

async function* toAsync<T>(items: Iterable<T>): AsyncIterable<T> {
  yield* items;
}

/**
 * Open or create a SQLite store behind the asynchronous interface.
 * @throws {StoreVersionError} for a file that is not a lotwise store or comes from a newer version.
 * @example const store = openSqliteStore("lotwise.db"); await store.organizations.create("Acme Advisors");
 */
export function openSqliteStore(path: string, options: StoreOptions = {}): SqliteStore {
  return new SqliteStore(new Store(path, options));
}
