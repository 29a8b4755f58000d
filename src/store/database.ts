/**
 * @module store/database
 * Opening a store file: pragmas (WAL, foreign keys, busy timeout), identity and version checks, migrations; and
 * telling a "store is locked by another writer" failure from other errors ({@link isStoreBusyError}).
 */
import { closeSync, existsSync, openSync } from "node:fs";
import Database from "better-sqlite3";
import { StoreVersionError } from "../core/errors.js";
import { APPLICATION_ID, MIGRATIONS, SCHEMA_VERSION } from "./migrations.js";

export type Db = Database.Database;

export interface OpenDatabaseOptions {
  /** Create the file when it does not exist. @default true */
  create?: boolean;
  /** Open read-only (no migrations). @default false */
  readonly?: boolean;
  /**
   * Milliseconds a statement waits (blocking the thread) for another connection's write lock before it fails with
   * a busy error. @default DEFAULT_BUSY_TIMEOUT_MS
   */
  busyTimeoutMs?: number;
}

/** Default busy timeout of a connection: 5 s (the CLI and worker threads can afford to block that long). */
export const DEFAULT_BUSY_TIMEOUT_MS = 5000;

/**
 * True for SQLite's "database is locked" family (SQLITE_BUSY, SQLITE_LOCKED and their extended codes): another
 * connection holds the write lock and the statement gave up waiting. Nothing of the failed statement was written,
 * so the operation can be retried later.
 */
export function isStoreBusyError(err: unknown): boolean {
  if (!(err instanceof Database.SqliteError)) return false;
  return /^SQLITE_(BUSY|LOCKED)(_|$)/.test(err.code);
}

/** Sets the busy timeout of an open connection. */
export function setBusyTimeout(db: Db, ms: number): void {
  if (!Number.isInteger(ms) || ms < 0) throw new TypeError(`busy timeout must be an integer >= 0, got ${ms}`);
  db.pragma(`busy_timeout = ${ms}`);
}

/**
 * Open (and migrate) a lotwise SQLite file, or `":memory:"`.
 * @throws {StoreVersionError} when the file is not a lotwise store or was written by a newer lotwise.
 */
export function openDatabase(path: string, options: OpenDatabaseOptions = {}): Db {
  const memory = path === ":memory:";
  if (!memory && options.create === false && !existsSync(path)) {
    throw new StoreVersionError(
      `No lotwise store at ${path}. Create one with \`lotwise init --store ${path}\`.`,
    );
  }
  let db: Db;
  try {
    if (!memory && !options.readonly && options.create !== false) createPrivateFile(path);
    db = new Database(path, { readonly: options.readonly ?? false, fileMustExist: options.create === false });
  } catch (err) {
    throw new StoreVersionError(`Cannot open store ${path}: ${(err as Error).message}`);
  }
  try {
    checkIdentity(db, path);
    if (!memory && !options.readonly) db.pragma("journal_mode = WAL");
    db.pragma("foreign_keys = ON");
    setBusyTimeout(db, options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS);
    db.pragma("synchronous = NORMAL");
    // 64 MiB of page cache: bulk market-data imports touch several B-trees at once (table + date index).
    db.pragma("cache_size = -65536");
    db.pragma("temp_store = MEMORY");
    if (!options.readonly) migrate(db, path);
    return db;
  } catch (err) {
    db.close();
    throw err;
  }
}

/** Permission bits of a store file this module creates: owner read/write only (it holds clients' tax lots and key hashes). */
export const STORE_FILE_MODE = 0o600;

/**
 * Creates `path` empty with {@link STORE_FILE_MODE} when it does not exist, so that SQLite never creates it with the
 * process umask (0644 by default). SQLite gives the -wal and -shm files it creates the mode of the database file.
 * An existing file is left as it is.
 */
function createPrivateFile(path: string): void {
  if (path === "" || path.startsWith("file:")) return; // temporary database or URI: SQLite decides
  let fd: number;
  try {
    fd = openSync(path, "wx", STORE_FILE_MODE);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "EEXIST") return;
    throw err;
  }
  closeSync(fd);
}

function checkIdentity(db: Db, path: string): void {
  let appId: number;
  try {
    appId = db.pragma("application_id", { simple: true }) as number;
  } catch (err) {
    throw new StoreVersionError(`${path} is not a SQLite database (${(err as Error).message}).`);
  }
  const version = db.pragma("user_version", { simple: true }) as number;
  const tables = db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE type = 'table'").get() as {
    n: number;
  };
  if (appId === 0 && tables.n === 0) return; // brand-new file
  if (appId !== APPLICATION_ID) {
    throw new StoreVersionError(
      `${path} is a SQLite database but not a lotwise store; refusing to modify it.`,
    );
  }
  if (version > SCHEMA_VERSION) {
    throw new StoreVersionError(
      `${path} has store schema version ${version}, written by a newer lotwise; this lotwise knows versions up to ${SCHEMA_VERSION}. Upgrade lotwise to open it (the file was not modified).`,
    );
  }
}

function migrate(db: Db, path: string): void {
  const current = db.pragma("user_version", { simple: true }) as number;
  for (const m of MIGRATIONS) {
    if (m.version <= current) continue;
    const run = db.transaction(() => {
      db.exec(m.sql);
      db.pragma(`application_id = ${APPLICATION_ID}`);
      db.pragma(`user_version = ${m.version}`);
    });
    try {
      run.immediate();
    } catch (err) {
      throw new StoreVersionError(
        `Migrating ${path} to schema version ${m.version} failed: ${(err as Error).message}`,
      );
    }
  }
}
