import type { Statement } from "better-sqlite3";
import type { Db } from "../database.js";
/** @module store/repositories/util Small helpers shared by the repositories. */

/** Serialize a JSON document for a TEXT column (`null` stays SQL NULL). */
export function toJson(value: unknown): string | null {
  return value === undefined || value === null ? null : JSON.stringify(value);
}

/** Parse a TEXT column written by {@link toJson}. */
export function fromJson<T = unknown>(text: string | null): T | null {
  return text === null ? null : (JSON.parse(text) as T);
}

/**
 * A statement cache over a connection: `cached(sql)` prepares `sql` once and returns the same statement after that.
 * For statements run with `get` / `all` / `run` only (an `iterate` in progress keeps its statement busy).
 */
export function statementCache(db: Db): (sql: string) => Statement {
  const statements = new Map<string, Statement>();
  return (sql) => {
    let stmt = statements.get(sql);
    if (stmt === undefined) {
      stmt = db.prepare(sql);
      statements.set(sql, stmt);
    }
    return stmt;
  };
}
