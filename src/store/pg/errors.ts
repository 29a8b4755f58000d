/**
 * @module store/pg/errors
 * Telling PostgreSQL's transient failures from others, without loading the pg driver: a deadlock (40P01), a
 * serialization failure (40001) or a lock not available (55P03) aborted the transaction, which rolled back as a
 * whole, so the operation can run again. (SQLite's counterpart is `isStoreBusyError`.)
 */

const TRANSIENT = new Set(["40001", "40P01", "55P03"]);

/** True for a PostgreSQL error whose transaction can simply be run again (see the module comment). */
export function isPgTransientError(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return (
    typeof code === "string" &&
    TRANSIENT.has(code) &&
    typeof (err as { severity?: unknown }).severity === "string"
  );
}
