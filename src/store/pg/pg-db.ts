/**
 * @module store/pg/pg-db
 * The connection side of the PostgreSQL store: a `pg.Pool` and the transaction context.
 *
 * `transaction(fn)` takes one client of the pool, BEGINs, and runs `fn` in an AsyncLocalStorage context holding
 * that client: every query issued from `fn`'s asynchronous context (through any repository of the store, nested
 * `transaction` calls included) runs on that client, inside the transaction; queries from anywhere else use the
 * pool and run beside it (READ COMMITTED). This is the design of {@link SqliteStore} with a pool in place of the
 * single connection, so transactions of one process do not wait for each other unless they touch the same rows.
 *
 * A statement that fails inside a transaction aborts it in PostgreSQL (SQLite would let the transaction go on):
 * if `fn` catches such an error and returns normally, the transaction is rolled back and the statement's error is
 * thrown from `transaction`, so nothing is ever committed half.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type pg from "pg";

/** One open transaction: its client, and whether it ended or one of its statements failed. */
interface Frame {
  readonly client: pg.PoolClient;
  done: boolean;
  failed: { error: unknown } | undefined;
}

/** Parameters of a query. */
export type Params = readonly unknown[];

export class PgDb {
  private readonly context = new AsyncLocalStorage<Frame>();

  constructor(readonly pool: pg.Pool) {}

  /** True when called from the asynchronous context of an open transaction of this store. */
  inTransaction(): boolean {
    return this.frame() !== undefined;
  }

  /** Run one statement (on the transaction's client when inside one, else on the pool). */
  async query<R extends object = Record<string, unknown>>(
    text: string,
    params?: Params,
  ): Promise<pg.QueryResult<R>> {
    const frame = this.frame();
    if (frame === undefined) return this.pool.query<R>(text, params as unknown[] | undefined);
    try {
      return await frame.client.query<R>(text, params as unknown[] | undefined);
    } catch (err) {
      frame.failed ??= { error: err };
      throw err;
    }
  }

  /** The rows of a query. */
  async rows<R extends object>(text: string, params?: Params): Promise<R[]> {
    return (await this.query<R>(text, params)).rows;
  }

  /** The first row of a query, or undefined. */
  async row<R extends object>(text: string, params?: Params): Promise<R | undefined> {
    return (await this.query<R>(text, params)).rows[0];
  }

  /** Rows of a query as arrays of column values. */
  async arrays<R extends unknown[]>(text: string, params?: Params): Promise<R[]> {
    const frame = this.frame();
    const config = { text, values: (params ?? []) as unknown[], rowMode: "array" as const };
    if (frame === undefined) return (await this.pool.query<R>(config)).rows;
    try {
      return (await frame.client.query<R>(config)).rows;
    } catch (err) {
      frame.failed ??= { error: err };
      throw err;
    }
  }

  /** The first column of every row. */
  async column<V>(text: string, params?: Params): Promise<V[]> {
    return (await this.arrays<[V]>(text, params)).map((r) => r[0]);
  }

  /** The first column of the first row, or undefined when there is no row. */
  async value<V>(text: string, params?: Params): Promise<V | undefined> {
    return (await this.arrays<[V]>(text, params))[0]?.[0];
  }

  /** Run a statement; returns how many rows it changed. */
  async run(text: string, params?: Params): Promise<number> {
    return (await this.query(text, params)).rowCount ?? 0;
  }

  /** Run `fn` as one transaction; calls from inside an open one join it (see the module comment). */
  async transaction<T>(fn: () => Promise<T>): Promise<T> {
    if (this.frame() !== undefined) return fn();
    const client = await this.pool.connect();
    const frame: Frame = { client, done: false, failed: undefined };
    // A client whose BEGIN, COMMIT or ROLLBACK failed is destroyed rather than returned to the pool.
    let broken: Error | undefined;
    const control = async (sql: string) => {
      try {
        return await client.query(sql);
      } catch (err) {
        broken = err as Error;
        throw err;
      }
    };
    try {
      await control("BEGIN");
      let result: T;
      try {
        result = await this.context.run(frame, fn);
        if (frame.failed !== undefined) throw frame.failed.error;
      } catch (err) {
        frame.done = true;
        await control("ROLLBACK").catch(() => {});
        throw err;
      }
      frame.done = true;
      const commit = await control("COMMIT");
      // A statement `fn` left running that failed after it returned aborted the transaction: COMMIT then rolls back.
      if (commit.command === "ROLLBACK")
        throw (
          (frame.failed as { error: unknown } | undefined)?.error ??
          new Error("The transaction was rolled back by PostgreSQL at commit.")
        );
      return result;
    } finally {
      frame.done = true;
      client.release(broken);
    }
  }

  private frame(): Frame | undefined {
    const frame = this.context.getStore();
    return frame !== undefined && !frame.done ? frame : undefined;
  }
}

/**
 * Rows to insert `chunk` at a time: `write(slice)` is called with consecutive slices (one statement each, so a
 * million prices cost a few hundred round trips, not a million).
 */
export async function inChunks<T>(
  items: readonly T[],
  chunk: number,
  write: (slice: readonly T[]) => Promise<void>,
): Promise<void> {
  for (let i = 0; i < items.length; i += chunk) await write(items.slice(i, i + chunk));
}

/**
 * The last item of each key (a later row replaces an earlier one with the same natural key, as row-by-row upserts
 * do; one `INSERT ... ON CONFLICT DO UPDATE` statement may not touch a row twice).
 */
export function lastByKey<T>(items: readonly T[], key: (item: T) => string): T[] {
  const at = new Map<string, number>();
  items.forEach((item, i) => {
    at.set(key(item), i);
  });
  if (at.size === items.length) return [...items];
  return [...at.values()].sort((a, b) => a - b).map((i) => items[i]!);
}

/** Rows to insert per statement in bulk writes (UNNEST of one array per column). */
export const BULK_CHUNK = 5000;

/**
 * A number as SQLite stores it: NaN becomes NULL (SQLite binds NaN as NULL, so a NaN into a NOT NULL column fails
 * there too); PostgreSQL would store NaN in a float column and refuse it in an integer one.
 */
export function sqlNumber(value: number | null | undefined): number | null {
  return value === undefined || value === null || Number.isNaN(value) ? null : value;
}

/** JSON documents in text columns: the same encoding as the SQLite store's (its module imports types only). */
export { fromJson, toJson } from "../repositories/util.js";
