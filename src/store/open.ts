/**
 * @module store/open
 * Opening a store by its location: a file path (or `:memory:`) is a SQLite store, a `postgres://` or
 * `postgresql://` URL a PostgreSQL store (src/store/pg, loaded only then). A URL may carry the schema of the store as
 * `?options=-c%20search_path%3Dmy_schema`.
 */
import { existsSync } from "node:fs";
import { openDatabase } from "./database.js";
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

/** What {@link migrateStore} did. */
export interface MigrationReport {
  /** The store's location for messages (no password). */
  location: string;
  /** Schema version before: null when there was no store yet (it was created). */
  from: number | null;
  /** Schema version after (this lotwise's). */
  to: number;
}

/**
 * Bring the store at `location` to this lotwise's schema version (creating it when missing) and say from which
 * version to which: `lotwise store migrate`.
 * @throws {StoreVersionError} when the location holds something that is not a lotwise store, or one from a newer
 * lotwise (left unmodified).
 * @example await migrateStore("postgres://postgres@127.0.0.1/lotwise") // { location, from: 5, to: 6 }
 */
export async function migrateStore(location: string): Promise<MigrationReport> {
  let from: number | null;
  if (isPostgresLocation(location)) {
    const { pgStoredSchemaVersion } = await import("./pg/pg-store.js");
    from = await pgStoredSchemaVersion(location);
  } else if (location !== ":memory:" && existsSync(location)) {
    const db = openDatabase(location, { readonly: true });
    try {
      from = db.pragma("user_version", { simple: true }) as number;
    } finally {
      db.close();
    }
  } else from = null;
  const store = await openStore(location);
  try {
    return { location: store.location, from, to: await store.schemaVersion() };
  } finally {
    await store.close();
  }
}
