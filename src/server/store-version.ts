/**
 * @module server/store-version
 * A token that changes whenever the store's content may have changed: SQLite's `data_version` (bumped by commits
 * of other connections, e.g. a CLI writing the same file) together with `total_changes()` of the server's own
 * connection. Equal tokens mean an unchanged database, which is what makes the response cache safe.
 *
 * The Store class has no public accessor for this yet (see the report of the http branch: proposed
 * `Store.changeToken()`); until it has one, this module prepares the query on the store's connection handle. When
 * neither is available it returns undefined and the server simply does not cache.
 */
import type { ServiceContext } from "../service/index.js";

/** The store, as the service layer hands it to the server (the server never imports src/store). */
type Store = ServiceContext["store"];

interface StatementLike {
  raw(toggle?: boolean): { get(): unknown };
}
interface ConnectionLike {
  prepare(sql: string): StatementLike;
  open?: boolean;
}

/**
 * A function returning the store's current change token, or undefined when the store does not expose one.
 * @example const token = storeChangeToken(store); token?.() // "3:17"
 */
export function storeChangeToken(store: Store): (() => string) | undefined {
  const own = (store as unknown as { changeToken?: () => string }).changeToken;
  if (typeof own === "function") return () => own.call(store);
  const db = (store as unknown as { db?: ConnectionLike }).db;
  if (!db || typeof db.prepare !== "function") return undefined;
  let statement: { get(): unknown } | undefined;
  return () => {
    statement ??= db.prepare("SELECT data_version, total_changes() FROM pragma_data_version").raw(true);
    const row = statement.get() as [number, number];
    return `${row[0]}:${row[1]}`;
  };
}
