/**
 * @module store/repositories/tables
 * Whole-table reads and writes of raw rows, for `copyStore` (src/store/copy.ts) only: every column as stored (flags
 * as 0/1, the lots token as bytes), so that a copy keeps what no repository returns (key hashes, lot positions,
 * tokens). Table and column names come from copyStore's fixed list and are checked to be plain identifiers.
 */
import type { Db } from "../database.js";

const IDENT = /^[a-z_][a-z0-9_]*$/;

function checked(names: readonly string[]): string {
  for (const n of names) if (!IDENT.test(n)) throw new TypeError(`TableRepository: not an identifier: ${n}`);
  return names.join(", ");
}

export class TableRepository {
  constructor(private readonly db: Db) {}

  /** Rows of `table`. */
  count(table: string): number {
    return this.db
      .prepare(`SELECT count(*) FROM ${checked([table])}`)
      .pluck()
      .get() as number;
  }

  /** The rows of `table` as arrays of `columns`, `chunk` rows at a time, in `order` (column names, or rowid). */
  *read(
    table: string,
    columns: readonly string[],
    order: readonly string[],
    chunk: number,
  ): IterableIterator<unknown[][]> {
    const rows = this.db
      .prepare(`SELECT ${checked(columns)} FROM ${checked([table])} ORDER BY ${checked(order)}`)
      .raw(true)
      .iterate() as IterableIterator<unknown[]>;
    let batch: unknown[][] = [];
    for (const row of rows) {
      batch.push(row);
      if (batch.length >= chunk) {
        yield batch;
        batch = [];
      }
    }
    if (batch.length > 0) yield batch;
  }

  /** Insert rows of `columns` into `table` (in the caller's transaction). */
  insert(table: string, columns: readonly string[], rows: readonly unknown[][]): void {
    const insert = this.db.prepare(
      `INSERT INTO ${checked([table])} (${checked(columns)}) VALUES (${columns.map(() => "?").join(", ")})`,
    );
    for (const row of rows) insert.run(row);
  }
}
