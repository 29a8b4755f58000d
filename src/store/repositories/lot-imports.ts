/**
 * @module store/repositories/lot-imports
 * Staging of a tax-lot import. The lots of a file are written, as they are read, to a private SQLite file in the
 * temporary directory (not the store): memory stays flat however large the file, and the store is not touched
 * until {@link LotImportStaging.commit} moves every staged lot into the account in ONE transaction. An append
 * only inserts after the account's last position as read inside that transaction, so two imports appending to
 * one account at once both land (SQLite serializes the two transactions); a replace deletes and inserts in the
 * same transaction. A process killed at any moment leaves the store as it was (the transaction never committed)
 * and at worst a stale staging file in the temporary directory.
 */
import { randomUUID } from "node:crypto";
import { rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import type { Db } from "../database.js";
import type { TaxLotInput } from "../records.js";

/** Page cache of the store while an import moves its lots, in KiB (negative: SQLite's "KiB" form). */
const IMPORT_CACHE_KIB = -8192;

/** Where the moved lots go. */
export type LotImportMode = "replace" | "append";

/** Lot counts of the account around a committed import. */
export interface LotImportCounts {
  before: number;
  after: number;
}

const COLUMNS = `theme_asset_id, quantity, cost_basis, cost_basis_unit, cost_basis_currency, fx_rate, trade_date,
  holding_period_start, wash_sale_date, last_sold_for_loss_date`;

/** The staged lots of one import. Not reusable: after commit or discard it is closed. */
export class LotImportStaging {
  private staging: Db | undefined;
  private readonly file: string;
  private insert: Database.Statement | undefined;
  private staged = 0;

  constructor(
    private readonly db: Db,
    directory: string = tmpdir(),
  ) {
    this.file = join(directory, `lotwise-import-${randomUUID()}.db`);
    const staging = new Database(this.file);
    this.staging = staging;
    try {
      staging.pragma("journal_mode = OFF");
      staging.pragma("synchronous = OFF");
      staging.exec(`CREATE TABLE lots (seq INTEGER PRIMARY KEY, uuid TEXT NOT NULL, theme_asset_id TEXT NOT NULL,
        quantity TEXT NOT NULL, cost_basis TEXT NOT NULL, cost_basis_unit TEXT NOT NULL,
        cost_basis_currency TEXT NOT NULL, fx_rate TEXT NOT NULL, trade_date TEXT NOT NULL,
        holding_period_start TEXT, wash_sale_date TEXT, last_sold_for_loss_date TEXT)`);
    } catch (err) {
      this.discard();
      throw err;
    }
  }

  /** Lots staged so far. */
  get size(): number {
    return this.staged;
  }

  /** Stage lots after the ones already staged (one transaction of the staging file). */
  add(lots: readonly TaxLotInput[]): void {
    const staging = this.open();
    this.insert ??= staging.prepare(
      `INSERT INTO lots (uuid, ${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    const insert = this.insert;
    staging.transaction(() => {
      for (const l of lots)
        insert.run(
          randomUUID(),
          l.themeAssetId,
          l.quantity,
          l.costBasis,
          l.costBasisUnit,
          l.costBasisCurrency,
          l.fxRate,
          l.tradeDate,
          l.holdingPeriodStart,
          l.washSaleDate,
          l.lastSoldForLossDate,
        );
    })();
    this.staged += lots.length;
  }

  /** The staged lots in file order (a lazy read: one row in memory at a time). */
  *lots(): IterableIterator<TaxLotInput> {
    const rows = this.open()
      .prepare(`SELECT ${COLUMNS} FROM lots ORDER BY seq`)
      .iterate() as IterableIterator<Record<string, string | null>>;
    for (const r of rows)
      yield {
        themeAssetId: r.theme_asset_id!,
        quantity: r.quantity!,
        costBasis: r.cost_basis!,
        costBasisUnit: r.cost_basis_unit as TaxLotInput["costBasisUnit"],
        costBasisCurrency: r.cost_basis_currency!,
        fxRate: r.fx_rate!,
        tradeDate: r.trade_date!,
        holdingPeriodStart: r.holding_period_start ?? null,
        washSaleDate: r.wash_sale_date ?? null,
        lastSoldForLossDate: r.last_sold_for_loss_date ?? null,
      };
  }

  /** The account's lot count (outside any import transaction; a dry run's "before"). */
  accountLotCount(accountUuid: string): number {
    return (
      this.db
        .prepare("SELECT count(*) AS n FROM tax_lots WHERE account_uuid = ? AND side = 'long'")
        .get(accountUuid) as {
        n: number;
      }
    ).n;
  }

  /**
   * Move every staged lot into the account in one immediate transaction of the store: `replace` deletes the
   * account's lots first, `append` inserts after its last position as of that transaction. `check` runs first
   * inside the transaction (e.g. the account still exists); throwing from it, or any failure, rolls back.
   * The staging is discarded in all cases.
   * @throws {TypeError} when called inside a store transaction (the staging file is attached, which SQLite does
   * not allow within a transaction)
   */
  commit(accountUuid: string, mode: LotImportMode, check: () => void = () => {}): LotImportCounts {
    if (this.db.inTransaction) throw new TypeError("LotImportStaging.commit cannot run inside a transaction");
    const move = this.attach();
    try {
      return this.db
        .transaction((): LotImportCounts => {
          check();
          return move.into(accountUuid, mode);
        })
        .immediate();
    } finally {
      move.detach();
    }
  }

  /**
   * The parts of {@link commit} for a caller that holds the transaction itself: `attach()` (outside any
   * transaction) closes the staging and attaches it to the store, `into()` (inside the caller's transaction) moves
   * the lots, `detach()` (after it ended, in a `finally`) detaches and discards the staging.
   * @throws {TypeError} when called inside a store transaction
   */
  attach(): { into(accountUuid: string, mode: LotImportMode): LotImportCounts; detach(): void } {
    if (this.db.inTransaction) throw new TypeError("LotImportStaging.attach cannot run inside a transaction");
    this.open().close();
    this.staging = undefined;
    const db = this.db;
    const schema = `lot_import_${randomUUID().replace(/-/g, "")}`;
    db.prepare("ATTACH DATABASE ? AS ?").run(this.file, schema);
    // A million-lot insert would fill the store's 64 MiB page cache with dirty pages (and the process's memory
    // with it): during the move the cache is capped at 8 MiB, SQLite spilling to the WAL as it goes; restored after.
    const cacheSize = db.pragma("main.cache_size", { simple: true }) as number;
    db.pragma(`main.cache_size = ${IMPORT_CACHE_KIB}`);
    return {
      into(accountUuid: string, mode: LotImportMode): LotImportCounts {
        const count = db.prepare(
          "SELECT count(*) AS n FROM tax_lots WHERE account_uuid = ? AND side = 'long'",
        );
        const before = (count.get(accountUuid) as { n: number }).n;
        if (mode === "replace")
          db.prepare("DELETE FROM tax_lots WHERE account_uuid = ? AND side = 'long'").run(accountUuid);
        const start =
          mode === "replace"
            ? 0
            : (
                db
                  .prepare("SELECT coalesce(max(position), -1) + 1 AS p FROM tax_lots WHERE account_uuid = ?")
                  .get(accountUuid) as { p: number }
              ).p;
        db.prepare(
          `INSERT INTO main.tax_lots (uuid, account_uuid, position, ${COLUMNS})
           SELECT uuid, ?, ? + seq - 1, ${COLUMNS} FROM ${schema}.lots ORDER BY seq`,
        ).run(accountUuid, start);
        return { before, after: (count.get(accountUuid) as { n: number }).n };
      },
      detach: () => {
        if (db.open) {
          db.pragma(`main.cache_size = ${Math.trunc(cacheSize)}`);
          db.prepare("DETACH DATABASE ?").run(schema);
        }
        this.discard();
      },
    };
  }

  /** Close and delete the staging file (idempotent). */
  discard(): void {
    if (this.staging?.open) this.staging.close();
    this.staging = undefined;
    rmSync(this.file, { force: true });
  }

  private open(): Db {
    if (!this.staging?.open) throw new TypeError("LotImportStaging: this import was committed or discarded");
    return this.staging;
  }
}
