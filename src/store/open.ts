/**
 * @module store/open
 * Opening a store by its location: a file path (or `:memory:`) is a SQLite store, a `postgres://` or
 * `postgresql://` URL a PostgreSQL store (src/store/pg, loaded only then). A URL may carry the schema of the store as
 * `?options=-c%20search_path%3Dmy_schema`.
 */
import type { LotwiseStore } from "./lotwise-store.js";
import { openSqliteStore } from "./sqlite-store.js";
import type { StoreOptions } from "./store.js";

/** True for a `postgres://` / `postgresql://` location. */
export function isPostgresLocation(location: string): boolean {
  return /^postgres(ql)?:\/\//i.test(location);
}

/**
 * Open the store at `location` (see the module comment).
 * @throws {StoreVersionError} for a file or database that is not a lotwise store or comes from a newer version.
 * @example const store = await openStore("lotwise.db"); await store.organizations.create("Acme Advisors");
 */
export async function openStore(location: string, options: StoreOptions = {}): Promise<LotwiseStore> {
  if (isPostgresLocation(location)) {
    // Loaded on demand: SQLite users never load the pg driver.
    const { openPgStore } = await import("./pg/pg-store.js");
    return openPgStore(location, options);
  }
  return openSqliteStore(location, options);
}
