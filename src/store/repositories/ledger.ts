/**
 * @module store/repositories/ledger
 * The account ledger (migration 6): executions applied to an account, its realized rows, its short lots, and the
 * market-level corporate actions with their applications. `applyBatch` writes everything one application of the
 * core ledger produced, all or nothing. Mapping to the core's values: src/store/ledger-mapper.ts.
 */
import type { Statement } from "better-sqlite3";
import { ConflictError, NotFoundError } from "../../core/errors.js";
import type { Db } from "../database.js";
import {
  addDecimalText,
  desiredLots,
  type LotChangePlan,
  type LotColumns,
  periodBounds,
  planFromChanges,
  planLotChanges,
  touchedLotIds,
} from "../ledger-mapper.js";
import type {
  CorporateActionApplicationRecord,
  CorporateActionKind,
  CorporateActionRecord,
  ExecutionKindRecord,
  ExecutionRecord,
  ExecutionSource,
  HouseholdActivity,
  LedgerBatch,
  LedgerBatchResult,
  RealizedLotInput,
  RealizedLotRecord,
  RealizedPeriod,
  RealizedScope,
  ShortLotRecord,
  TaxLotRecord,
} from "../records.js";
import { statementCache } from "./util.js";

interface ExecutionRow {
  account_uuid: string;
  execution_id: string;
  source: string;
  proposal_uuid: string | null;
  order_index: number | null;
  kind: string;
  theme_asset_id: string;
  trade_date: string;
  quantity: string;
  price: string;
  fees: string;
  currency: string;
  fx_rate: string;
  lots: string | null;
  lot_id: string | null;
  applied_at: string;
  seq?: number;
}

export interface RealizedRowDb {
  account_uuid: string;
  client_uuid: string;
  entry_id: string;
  source_id: string;
  lot_id: string;
  theme_asset_id: string;
  side: string;
  quantity: string;
  date_acquired: string;
  date_sold: string;
  open_date: string | null;
  proceeds: string;
  cost_basis: string;
  adjustment_code: string;
  adjustment: string;
  gain: string;
  term: string;
  loss: number | boolean;
  record: string;
}

export interface ActionRow {
  id: string;
  kind: string;
  theme_asset_id: string;
  ex_date: string;
  pay_date: string | null;
  params: string;
}

export const toExecution = (r: ExecutionRow): ExecutionRecord => ({
  accountUuid: r.account_uuid,
  executionId: r.execution_id,
  source: r.source as ExecutionSource,
  proposalUuid: r.proposal_uuid,
  orderIndex: r.order_index === null ? null : Number(r.order_index),
  kind: r.kind as ExecutionKindRecord,
  themeAssetId: r.theme_asset_id,
  tradeDate: r.trade_date,
  quantity: r.quantity,
  price: r.price,
  fees: r.fees,
  currency: r.currency,
  fxRate: r.fx_rate,
  lots: r.lots === null ? null : (JSON.parse(r.lots) as ExecutionRecord["lots"]),
  lotId: r.lot_id,
  appliedAt: r.applied_at,
});

export const toRealized = (r: RealizedRowDb): RealizedLotRecord => ({
  accountUuid: r.account_uuid,
  clientUuid: r.client_uuid,
  entryId: r.entry_id,
  sourceId: r.source_id,
  lotId: r.lot_id,
  themeAssetId: r.theme_asset_id,
  side: r.side as "long" | "short",
  quantity: r.quantity,
  dateAcquired: r.date_acquired,
  dateSold: r.date_sold,
  openDate: r.open_date,
  proceeds: r.proceeds,
  costBasis: r.cost_basis,
  adjustmentCode: r.adjustment_code as "W" | "",
  adjustment: r.adjustment,
  gain: r.gain,
  term: r.term as "short_term" | "long_term",
  loss: r.loss === true || r.loss === 1,
  record: JSON.parse(r.record) as unknown,
});

export const toAction = (r: ActionRow): CorporateActionRecord => ({
  id: r.id,
  kind: r.kind as CorporateActionKind,
  themeAssetId: r.theme_asset_id,
  exDate: r.ex_date,
  payDate: r.pay_date,
  params: JSON.parse(r.params) as Record<string, unknown>,
});

/** The values of one realized row insert, in {@link REALIZED_COLUMNS} order. */
export function realizedValues(
  accountUuid: string,
  clientUuid: string,
  r: RealizedLotInput,
  loss: (v: boolean) => unknown,
): unknown[] {
  return [
    accountUuid,
    r.entryId,
    clientUuid,
    r.sourceId,
    r.lotId,
    r.themeAssetId,
    r.side,
    r.quantity,
    r.dateAcquired,
    r.dateSold,
    r.openDate,
    r.proceeds,
    r.costBasis,
    r.adjustmentCode,
    r.adjustment,
    r.gain,
    r.term,
    loss(r.loss),
    JSON.stringify(r.record),
  ];
}

export const REALIZED_COLUMNS = [
  "account_uuid",
  "entry_id",
  "client_uuid",
  "source_id",
  "lot_id",
  "theme_asset_id",
  "side",
  "quantity",
  "date_acquired",
  "date_sold",
  "open_date",
  "proceeds",
  "cost_basis",
  "adjustment_code",
  "adjustment",
  "gain",
  "term",
  "loss",
  "record",
] as const;

/** The values of one execution insert, in {@link EXECUTION_COLUMNS} order. */
export function executionValues(
  accountUuid: string,
  e: LedgerBatch["executions"][number],
  at: string,
  seq: number,
): unknown[] {
  return [
    accountUuid,
    e.executionId,
    e.source,
    e.proposalUuid,
    e.orderIndex,
    e.kind,
    e.themeAssetId,
    e.tradeDate,
    e.quantity,
    e.price,
    e.fees,
    e.currency,
    e.fxRate,
    e.lots === null ? null : JSON.stringify(e.lots),
    e.lotId,
    at,
    seq,
  ];
}

export const EXECUTION_COLUMNS = [
  "account_uuid",
  "execution_id",
  "source",
  "proposal_uuid",
  "order_index",
  "kind",
  "theme_asset_id",
  "trade_date",
  "quantity",
  "price",
  "fees",
  "currency",
  "fx_rate",
  "lots",
  "lot_id",
  "applied_at",
  "seq",
] as const;

/** The ids of `wanted` that `present` holds, refused as a conflict naming them. */
export function refuseApplied(
  kind: "execution" | "action",
  accountUuid: string,
  wanted: readonly string[],
  present: readonly string[],
): void {
  if (present.length === 0) return;
  const set = new Set(present);
  const ids = [...new Set(wanted.filter((id) => set.has(id)))];
  if (kind === "execution")
    throw new ConflictError(
      `Execution${ids.length > 1 ? "s" : ""} ${ids.join(", ")} already applied to account ${accountUuid}.`,
      "execution_already_applied",
    );
  throw new ConflictError(
    `Corporate action${ids.length > 1 ? "s" : ""} ${ids.join(", ")} already applied to account ${accountUuid}.`,
    "action_already_applied",
  );
}

/** Realized rows per insert statement (20 values each). */
const REALIZED_CHUNK = 50;

const LOT_COMPARE_COLUMNS = `side, theme_asset_id, quantity, cost_basis, cost_basis_unit, cost_basis_currency, fx_rate,
  trade_date, holding_period_start, wash_sale_date, last_sold_for_loss_date`;

export class LedgerRepository {
  private readonly cached: (sql: string) => Statement;

  constructor(
    private readonly db: Db,
    private readonly now: () => string,
    /** Told when a batch inside a caller's transaction failed after writing: that transaction must not commit. */
    private readonly failedInTransaction: (error: unknown) => void = () => {},
  ) {
    this.cached = statementCache(db);
  }

  /**
   * Run `fn` as one transaction, or inside the caller's. There it opens no savepoint: SQLite copies every page that
   * statements inside a savepoint first touch to a sub-journal, which made the writes of a 500-execution batch three
   * to four times slower. Every check that can refuse a batch runs before its first write; a failure after it (a
   * constraint, an I/O error) marks the caller's transaction, whose commit then rolls back and throws (PostgreSQL
   * behaves alike: a failed statement aborts the transaction).
   */
  private tx<T>(fn: () => T): T {
    if (!this.db.inTransaction) return this.db.transaction(fn).immediate();
    const before = this.totalChanges();
    try {
      return fn();
    } catch (err) {
      if (this.db.inTransaction && this.totalChanges() !== before) this.failedInTransaction(err);
      throw err;
    }
  }

  /** Rows inserted, updated or deleted on this connection so far (triggers included). */
  private totalChanges(): number {
    return this.cached("SELECT total_changes()").pluck(true).get() as number;
  }

  private clientOf(accountUuid: string): string {
    const row = this.cached("SELECT client_uuid FROM accounts WHERE uuid = ?").get(accountUuid) as
      | { client_uuid: string }
      | undefined;
    if (row === undefined) throw new NotFoundError(`Account ${accountUuid} not found.`, "account_not_found");
    return row.client_uuid;
  }

  /**
   * Write one application of the ledger to an account, in one transaction: refuse execution ids or action ids
   * already applied to the account (ConflictError `execution_already_applied` / `action_already_applied`, nothing
   * written), then bring the account's lots (long and short) to `lotsAfter` / `shortLotsAfter` (unchanged lots are
   * not touched, changed ones updated in place, new ones appended, missing ones deleted), add `cashDelta` to its
   * cash, insert the executions, upsert the realized rows (a washed earlier row keeps its entry id), record the
   * applied actions, and apply `household` updates to other accounts of the same client. Any failure writes nothing.
   */
  applyBatch(accountUuid: string, batch: LedgerBatch): LedgerBatchResult {
    return this.tx(() => {
      const clientUuid = this.clientOf(accountUuid);
      const execIds = batch.executions.map((e) => e.executionId);
      if (execIds.length > 0) {
        const present = this.db
          .prepare(
            `SELECT execution_id FROM executions WHERE account_uuid = ? AND execution_id IN (SELECT value FROM json_each(?))`,
          )
          .pluck(true)
          .all(accountUuid, JSON.stringify(execIds)) as string[];
        refuseApplied("execution", accountUuid, execIds, present);
      }
      const actionIds = batch.appliedActionIds ?? [];
      if (actionIds.length > 0) {
        const present = this.db
          .prepare(
            `SELECT action_id FROM corporate_action_applications WHERE account_uuid = ?
             AND action_id IN (SELECT value FROM json_each(?))`,
          )
          .pluck(true)
          .all(accountUuid, JSON.stringify(actionIds)) as string[];
        refuseApplied("action", accountUuid, actionIds, present);
      }

      // Every check that can refuse the batch runs before the first write (on PostgreSQL a batch inside a caller's
      // transaction has no savepoint, so both engines refuse before writing anything).
      for (const h of batch.household ?? []) this.checkHousehold(clientUuid, h);
      const cash = this.cached("SELECT cash_value_usd FROM accounts WHERE uuid = ?").get(accountUuid) as {
        cash_value_usd: string;
      };
      const cashValueUsd = addDecimalText(cash.cash_value_usd, batch.cashDelta);
      const plan = this.planLots(accountUuid, batch);

      const lots = this.writeLots(accountUuid, plan);
      if (cashValueUsd !== cash.cash_value_usd)
        this.cached("UPDATE accounts SET cash_value_usd = ?, modified = ? WHERE uuid = ?").run(
          cashValueUsd,
          this.now(),
          accountUuid,
        );

      const at = this.now();
      const insertExecution = this.cached(
        `INSERT INTO executions (${EXECUTION_COLUMNS.join(", ")}) VALUES (${EXECUTION_COLUMNS.map(() => "?").join(", ")})`,
      );
      let seq = (
        this.cached("SELECT coalesce(max(seq), 0) + 1 AS s FROM executions WHERE account_uuid = ?").get(
          accountUuid,
        ) as {
          s: number;
        }
      ).s;
      for (const e of batch.executions) insertExecution.run(executionValues(accountUuid, e, at, seq++));
      this.upsertRealized(accountUuid, clientUuid, batch.realized);

      const insertApplication = this.cached(
        "INSERT INTO corporate_action_applications (action_id, account_uuid, applied_at) VALUES (?, ?, ?)",
      );
      for (const id of actionIds) insertApplication.run(id, accountUuid, at);

      for (const h of batch.household ?? []) {
        this.upsertRealized(h.accountUuid, clientUuid, h.realized);
        const update = this.cached(
          `UPDATE tax_lots SET quantity = ?, cost_basis = ?, cost_basis_unit = ?, cost_basis_currency = ?, fx_rate = ?,
            trade_date = ?, holding_period_start = ?, wash_sale_date = ?, last_sold_for_loss_date = ?
           WHERE uuid = ? AND account_uuid = ? AND side = 'long'`,
        );
        for (const l of h.lotsChanged) {
          const r = update.run(
            l.quantity,
            l.costBasis,
            l.costBasisUnit,
            l.costBasisCurrency,
            l.fxRate,
            l.tradeDate,
            l.holdingPeriodStart,
            l.washSaleDate,
            l.lastSoldForLossDate,
            l.uuid,
            h.accountUuid,
          );
          if (r.changes === 0) throw new Error(`applyBatch: lot ${l.uuid} vanished during the batch`);
        }
      }
      return {
        executions: batch.executions.length,
        realized: batch.realized.length,
        ...lots,
        cashValueUsd,
      };
    });
  }

  /** Refuse a household update of an account of another client, or of a lot its account does not hold long. */
  private checkHousehold(clientUuid: string, h: NonNullable<LedgerBatch["household"]>[number]): void {
    if (this.clientOf(h.accountUuid) !== clientUuid)
      throw new ConflictError(
        `Account ${h.accountUuid} is not an account of client ${clientUuid}.`,
        "household_account_mismatch",
      );
    const held = new Set(
      this.db
        .prepare(
          `SELECT uuid FROM tax_lots WHERE +account_uuid = ? AND side = 'long' AND uuid IN (SELECT value FROM json_each(?))`,
        )
        .pluck(true)
        .all(h.accountUuid, JSON.stringify(h.lotsChanged.map((l) => l.uuid))) as string[],
    );
    const missing = h.lotsChanged.filter((l) => !held.has(l.uuid)).map((l) => l.uuid);
    if (missing.length > 0)
      throw new NotFoundError(
        `Lot ${missing.join(", ")} not found in account ${h.accountUuid}.`,
        "lot_not_found",
      );
  }

  private planLots(accountUuid: string, batch: LedgerBatch): LotChangePlan {
    if (batch.lotChanges !== undefined) {
      const held = this.cached(
        // `+account_uuid`: look each id up by its key, not scan the account's lots through tax_lots_account.
        `SELECT uuid, side FROM tax_lots WHERE +account_uuid = ? AND uuid IN (SELECT value FROM json_each(?))`,
      )
        .raw(true)
        .all(accountUuid, JSON.stringify(touchedLotIds(batch.lotChanges))) as [string, string][];
      return planFromChanges(accountUuid, batch.lotChanges, new Map(held));
    }
    const rows = this.db
      .prepare(`SELECT uuid, ${LOT_COMPARE_COLUMNS} FROM tax_lots WHERE account_uuid = ?`)
      .raw(true)
      .all(accountUuid) as [string, ...LotColumns][];
    const current = new Map<string, LotColumns>(
      rows.map(([id, ...cols]) => [id, cols as unknown as LotColumns]),
    );
    return planLotChanges(
      current,
      desiredLots(batch.lotsAfter, batch.shortLotsAfter),
      batch.lotsAfter.length + batch.shortLotsAfter.length,
    );
  }

  private writeLots(
    accountUuid: string,
    plan: LotChangePlan,
  ): { lotsInserted: number; lotsUpdated: number; lotsDeleted: number } {
    const del = this.cached("DELETE FROM tax_lots WHERE uuid = ? AND account_uuid = ?");
    for (const id of plan.deletes) del.run(id, accountUuid);
    const update = this.cached(
      `UPDATE tax_lots SET side = ?, theme_asset_id = ?, quantity = ?, cost_basis = ?, cost_basis_unit = ?,
        cost_basis_currency = ?, fx_rate = ?, trade_date = ?, holding_period_start = ?, wash_sale_date = ?,
        last_sold_for_loss_date = ? WHERE uuid = ? AND account_uuid = ?`,
    );
    for (const [id, c] of plan.updates) update.run(...c, id, accountUuid);
    if (plan.inserts.length > 0) {
      let next = (
        this.cached("SELECT coalesce(max(position), -1) + 1 AS p FROM tax_lots WHERE account_uuid = ?").get(
          accountUuid,
        ) as { p: number }
      ).p;
      const insert = this.cached(
        `INSERT INTO tax_lots (uuid, account_uuid, position, ${LOT_COMPARE_COLUMNS})
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      );
      for (const [id, c] of plan.inserts) insert.run(id, accountUuid, next++, ...c);
    }
    return {
      lotsInserted: plan.inserts.length,
      lotsUpdated: plan.updates.length,
      lotsDeleted: plan.deletes.length,
    };
  }

  private upsertRealized(accountUuid: string, clientUuid: string, rows: readonly RealizedLotInput[]): void {
    if (rows.length === 0) return;
    // Several rows per statement (REALIZED_CHUNK): a 500-execution batch writes about 2,000 rows. SQLite applies
    // the rows of one statement in order, so a row listed twice ends as the last one, as row by row.
    const upsert = (n: number) =>
      this.cached(
        `INSERT INTO realized_lots (${REALIZED_COLUMNS.join(", ")}, seq)
         VALUES ${Array.from({ length: n }, () => `(${REALIZED_COLUMNS.map(() => "?").join(", ")}, ?)`).join(", ")}
         ON CONFLICT (account_uuid, entry_id) DO UPDATE SET ${REALIZED_COLUMNS.slice(2)
           .map((c) => `${c} = excluded.${c}`)
           .join(", ")}`,
      );
    let seq = (
      this.cached("SELECT coalesce(max(seq), 0) + 1 AS s FROM realized_lots WHERE account_uuid = ?").get(
        accountUuid,
      ) as { s: number }
    ).s;
    for (let i = 0; i < rows.length; i += REALIZED_CHUNK) {
      const slice = rows.slice(i, i + REALIZED_CHUNK);
      const values: unknown[] = [];
      for (const r of slice)
        values.push(...realizedValues(accountUuid, clientUuid, r, (v) => (v ? 1 : 0)), seq++);
      upsert(slice.length).run(values);
    }
  }

  /** The account's open short lots in stored order. */
  shortLots(accountUuid: string): ShortLotRecord[] {
    const rows = this.cached(
      `SELECT uuid, account_uuid, theme_asset_id, quantity, cost_basis, cost_basis_currency, fx_rate, trade_date
       FROM tax_lots WHERE account_uuid = ? AND side = 'short' ORDER BY position`,
    ).all(accountUuid) as {
      uuid: string;
      account_uuid: string;
      theme_asset_id: string;
      quantity: string;
      cost_basis: string;
      cost_basis_currency: string;
      fx_rate: string;
      trade_date: string;
    }[];
    return rows.map((r) => ({
      uuid: r.uuid,
      accountUuid: r.account_uuid,
      themeAssetId: r.theme_asset_id,
      quantity: r.quantity,
      proceeds: r.cost_basis,
      currency: r.cost_basis_currency,
      fxRate: r.fx_rate,
      openDate: r.trade_date,
    }));
  }

  /** The ids among `ids` already applied to the account (a lookup per id: not the account's whole history). */
  appliedExecutionIds(accountUuid: string, ids: readonly string[]): string[] {
    if (ids.length === 0) return [];
    return this.cached(
      `SELECT execution_id FROM executions WHERE account_uuid = ? AND execution_id IN (SELECT value FROM json_each(?))`,
    )
      .pluck(true)
      .all(accountUuid, JSON.stringify(ids)) as string[];
  }

  /**
   * The fills of a stored proposal applied to the account: order index and quantity of each, in the order applied.
   * A range of the primary key (their ids start with `<proposal>:`), not the account's whole history.
   */
  proposalFills(accountUuid: string, proposalUuid: string): { orderIndex: number; quantity: string }[] {
    return this.cached(
      `SELECT order_index AS orderIndex, quantity FROM executions
       WHERE account_uuid = ? AND execution_id >= ? AND execution_id < ? AND proposal_uuid = ?
         AND order_index IS NOT NULL
       ORDER BY seq`,
    ).all(accountUuid, `${proposalUuid}:`, `${proposalUuid};`, proposalUuid) as {
      orderIndex: number;
      quantity: string;
    }[];
  }

  /**
   * The account's executions by trade date, then in the order applied (same-date executions replay in that order),
   * optionally within [from, to] (trade dates, inclusive).
   */
  executions(accountUuid: string, window: { from?: string; to?: string } = {}): ExecutionRecord[] {
    const rows = this.cached(
      `SELECT * FROM executions WHERE account_uuid = ? AND trade_date >= ? AND trade_date <= ?
       ORDER BY trade_date, seq`,
    ).all(accountUuid, window.from ?? "", window.to ?? "\uffff") as ExecutionRow[];
    return rows.map(toExecution);
  }

  /** Realized rows of an account or of every account of a client, by date sold in a year or window. */
  realized(scope: RealizedScope, period: RealizedPeriod): RealizedLotRecord[] {
    const [from, to] = periodBounds(period);
    const byAccount = "accountUuid" in scope;
    const rows = this.cached(
      `SELECT * FROM realized_lots WHERE ${byAccount ? "account_uuid" : "client_uuid"} = ?
       AND date_sold >= ? AND date_sold <= ? ORDER BY date_sold, account_uuid, seq`,
    ).all(byAccount ? scope.accountUuid : scope.clientUuid, from, to) as RealizedRowDb[];
    return rows.map(toRealized);
  }

  /**
   * The household wash-sale view of a client over [from, to]: the long lots of every account of the client whose
   * trade date is in the window (possible replacement shares), and the loss sales sold in the window.
   * `exceptAccount` leaves one account out (the one a batch applies to, whose lots and rows its caller reads anyway).
   */
  householdActivity(clientUuid: string, from: string, to: string, exceptAccount?: string): HouseholdActivity {
    const except = exceptAccount ?? null;
    const lots = this.cached(
      `SELECT l.* FROM tax_lots l JOIN accounts a ON a.uuid = l.account_uuid
       WHERE a.client_uuid = ? AND l.side = 'long' AND l.trade_date >= ? AND l.trade_date <= ?
         AND (? IS NULL OR l.account_uuid <> ?)
       ORDER BY l.account_uuid, l.position`,
    ).all(clientUuid, from, to, except, except) as Record<string, string | null>[];
    const lossSales = this.cached(
      `SELECT * FROM realized_lots WHERE client_uuid = ? AND date_sold >= ? AND date_sold <= ? AND loss = 1
         AND (? IS NULL OR account_uuid <> ?)
       ORDER BY date_sold, account_uuid, seq`,
    ).all(clientUuid, from, to, except, except) as RealizedRowDb[];
    return { lots: lots.map(lotRecord), lossSales: lossSales.map(toRealized) };
  }

  /** Corporate actions by ex date then id, optionally within [from, to] and for one listing. */
  corporateActions(filter: { from?: string; to?: string; listing?: string } = {}): CorporateActionRecord[] {
    const rows = this.cached(
      `SELECT * FROM corporate_actions WHERE ex_date >= ? AND ex_date <= ? AND (? IS NULL OR theme_asset_id = ?)
       ORDER BY ex_date, id`,
    ).all(
      filter.from ?? "",
      filter.to ?? "\uffff",
      filter.listing ?? null,
      filter.listing ?? null,
    ) as ActionRow[];
    return rows.map(toAction);
  }

  /** Insert or replace corporate actions by id (one transaction). */
  addCorporateActions(actions: readonly CorporateActionRecord[]): void {
    this.tx(() => {
      const upsert = this.cached(
        `INSERT INTO corporate_actions (id, kind, theme_asset_id, ex_date, pay_date, params) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (id) DO UPDATE SET kind = excluded.kind, theme_asset_id = excluded.theme_asset_id,
           ex_date = excluded.ex_date, pay_date = excluded.pay_date, params = excluded.params`,
      );
      for (const a of actions)
        upsert.run(a.id, a.kind, a.themeAssetId, a.exDate, a.payDate, JSON.stringify(a.params));
    });
  }

  /** The corporate actions applied to the account, in the order applied. */
  appliedActions(accountUuid: string): CorporateActionApplicationRecord[] {
    return this.cached(
      `SELECT action_id AS actionId, account_uuid AS accountUuid, applied_at AS appliedAt
       FROM corporate_action_applications WHERE account_uuid = ? ORDER BY applied_at, action_id`,
    ).all(accountUuid) as CorporateActionApplicationRecord[];
  }
}

function lotRecord(r: Record<string, string | null>): TaxLotRecord {
  return {
    uuid: r.uuid as string,
    accountUuid: r.account_uuid as string,
    themeAssetId: r.theme_asset_id as string,
    quantity: r.quantity as string,
    costBasis: r.cost_basis as string,
    costBasisUnit: r.cost_basis_unit as TaxLotRecord["costBasisUnit"],
    costBasisCurrency: r.cost_basis_currency as string,
    fxRate: r.fx_rate as string,
    tradeDate: r.trade_date as string,
    holdingPeriodStart: r.holding_period_start ?? null,
    washSaleDate: r.wash_sale_date ?? null,
    lastSoldForLossDate: r.last_sold_for_loss_date ?? null,
  };
}
