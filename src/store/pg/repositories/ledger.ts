/**
 * @module store/pg/repositories/ledger
 * The account ledger on PostgreSQL (see the SQLite repository for the semantics). `applyBatch` locks the account's
 * row first (`FOR NO KEY UPDATE`), so two batches for one account take turns and the "already applied" check sees
 * the other's executions; lots are written by bulk statements (unnest), one per kind of change.
 */
import { ConflictError, NotFoundError } from "../../../core/errors.js";
import {
  addDecimalText,
  desiredLots,
  type LotChangePlan,
  type LotColumns,
  periodBounds,
  planFromChanges,
  planLotChanges,
  touchedLotIds,
} from "../../ledger-mapper.js";
import type { Promised } from "../../lotwise-store.js";
import type {
  CorporateActionApplicationRecord,
  CorporateActionRecord,
  ExecutionRecord,
  HouseholdActivity,
  LedgerBatch,
  LedgerBatchResult,
  RealizedLotInput,
  RealizedLotRecord,
  RealizedPeriod,
  RealizedScope,
  ShortLotRecord,
  TaxLotRecord,
} from "../../records.js";
import {
  type ActionRow,
  EXECUTION_COLUMNS,
  executionValues,
  type LedgerRepository,
  REALIZED_COLUMNS,
  type RealizedRowDb,
  realizedValues,
  refuseApplied,
  toAction,
  toExecution,
  toRealized,
} from "../../repositories/ledger.js";
import { BULK_CHUNK, inChunks, lastByKey, type PgDb } from "../pg-db.js";

const LOT_COMPARE_COLUMNS = `side, theme_asset_id, quantity::text, cost_basis::text, cost_basis_unit, cost_basis_currency,
  fx_rate::text, trade_date, holding_period_start, wash_sale_date, last_sold_for_loss_date`;

const placeholders = (n: number, from = 1) => Array.from({ length: n }, (_, i) => `$${from + i}`).join(", ");

export class PgLedgerRepository implements Promised<LedgerRepository> {
  constructor(
    private readonly db: PgDb,
    private readonly now: () => string,
  ) {}

  /** Lock the account's row for the transaction; its client. */
  private async lockAccount(accountUuid: string): Promise<string> {
    const client = await this.db.value<string>(
      "SELECT client_uuid FROM accounts WHERE uuid = $1 FOR NO KEY UPDATE",
      [accountUuid],
    );
    if (client === undefined)
      throw new NotFoundError(`Account ${accountUuid} not found.`, "account_not_found");
    return client;
  }

  async applyBatch(accountUuid: string, batch: LedgerBatch): Promise<LedgerBatchResult> {
    return this.db.transaction(async () => {
      const clientUuid = await this.lockAccount(accountUuid);
      const execIds = batch.executions.map((e) => e.executionId);
      if (execIds.length > 0) {
        const present = await this.db.column<string>(
          "SELECT execution_id FROM executions WHERE account_uuid = $1 AND execution_id = ANY($2::text[])",
          [accountUuid, execIds],
        );
        refuseApplied("execution", accountUuid, execIds, present);
      }
      const actionIds = batch.appliedActionIds ?? [];
      if (actionIds.length > 0) {
        const present = await this.db.column<string>(
          "SELECT action_id FROM corporate_action_applications WHERE account_uuid = $1 AND action_id = ANY($2::text[])",
          [accountUuid, [...actionIds]],
        );
        refuseApplied("action", accountUuid, actionIds, present);
      }

      // Every check that can refuse the batch runs before the first write: inside a caller's transaction there is no
      // savepoint, so a refusal after a write would leave that write to the caller.
      for (const h of batch.household ?? []) await this.checkHousehold(clientUuid, h);
      const cash = (await this.db.value<string>("SELECT cash_value_usd::text FROM accounts WHERE uuid = $1", [
        accountUuid,
      ])) as string;
      const cashValueUsd = addDecimalText(cash, batch.cashDelta);
      const plan = await this.planLots(accountUuid, batch);

      const lots = await this.writeLots(accountUuid, plan);
      if (cashValueUsd !== cash)
        await this.db.run("UPDATE accounts SET cash_value_usd = $1::numeric, modified = $2 WHERE uuid = $3", [
          cashValueUsd,
          this.now(),
          accountUuid,
        ]);

      const at = this.now();
      const perRow = EXECUTION_COLUMNS.length;
      let seq =
        (await this.db.value<number>(
          "SELECT (coalesce(max(seq), 0) + 1)::int FROM executions WHERE account_uuid = $1",
          [accountUuid],
        )) ?? 1;
      await inChunks(batch.executions, 1000, async (slice) => {
        await this.db.run(
          `INSERT INTO executions (${EXECUTION_COLUMNS.join(", ")}) VALUES ${slice
            .map((_, i) => `(${placeholders(perRow, i * perRow + 1)})`)
            .join(", ")}`,
          slice.flatMap((e) => executionValues(accountUuid, e, at, seq++)),
        );
      });
      await this.upsertRealized(accountUuid, clientUuid, batch.realized);

      if (actionIds.length > 0)
        await this.db.run(
          `INSERT INTO corporate_action_applications (action_id, account_uuid, applied_at)
           SELECT a, $2, $3 FROM unnest($1::text[]) WITH ORDINALITY AS x(a, o) ORDER BY o`,
          [[...actionIds], accountUuid, at],
        );

      for (const h of batch.household ?? []) {
        await this.upsertRealized(h.accountUuid, clientUuid, h.realized);
        for (const l of h.lotsChanged) {
          const n = await this.db.run(
            `UPDATE tax_lots SET quantity = $1::numeric, cost_basis = $2::numeric, cost_basis_unit = $3,
               cost_basis_currency = $4, fx_rate = $5::numeric, trade_date = $6, holding_period_start = $7,
               wash_sale_date = $8, last_sold_for_loss_date = $9
             WHERE uuid = $10 AND account_uuid = $11 AND side = 'long'`,
            [
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
            ],
          );
          if (n === 0) throw new Error(`applyBatch: lot ${l.uuid} vanished during the batch`);
        }
      }
      return { executions: batch.executions.length, realized: batch.realized.length, ...lots, cashValueUsd };
    });
  }

  /** Refuse a household update of an account of another client, or of a lot its account does not hold long. */
  private async checkHousehold(
    clientUuid: string,
    h: NonNullable<LedgerBatch["household"]>[number],
  ): Promise<void> {
    const other = await this.db.value<string>("SELECT client_uuid FROM accounts WHERE uuid = $1", [
      h.accountUuid,
    ]);
    if (other === undefined)
      throw new NotFoundError(`Account ${h.accountUuid} not found.`, "account_not_found");
    if (other !== clientUuid)
      throw new ConflictError(
        `Account ${h.accountUuid} is not an account of client ${clientUuid}.`,
        "household_account_mismatch",
      );
    const held = new Set(
      await this.db.column<string>(
        "SELECT uuid FROM tax_lots WHERE account_uuid = $1 AND side = 'long' AND uuid = ANY($2::text[])",
        [h.accountUuid, h.lotsChanged.map((l) => l.uuid)],
      ),
    );
    const missing = h.lotsChanged.filter((l) => !held.has(l.uuid)).map((l) => l.uuid);
    if (missing.length > 0)
      throw new NotFoundError(
        `Lot ${missing.join(", ")} not found in account ${h.accountUuid}.`,
        "lot_not_found",
      );
  }

  private async planLots(accountUuid: string, batch: LedgerBatch): Promise<LotChangePlan> {
    if (batch.lotChanges !== undefined) {
      const held = await this.db.arrays<[string, string]>(
        "SELECT uuid, side FROM tax_lots WHERE account_uuid = $1 AND uuid = ANY($2::text[])",
        [accountUuid, touchedLotIds(batch.lotChanges)],
      );
      return planFromChanges(accountUuid, batch.lotChanges, new Map(held));
    }
    const rows = await this.db.arrays<[string, ...LotColumns]>(
      `SELECT uuid, ${LOT_COMPARE_COLUMNS} FROM tax_lots WHERE account_uuid = $1`,
      [accountUuid],
    );
    const current = new Map<string, LotColumns>(
      rows.map(([id, ...cols]) => [id, cols as unknown as LotColumns]),
    );
    return planLotChanges(
      current,
      desiredLots(batch.lotsAfter, batch.shortLotsAfter),
      batch.lotsAfter.length + batch.shortLotsAfter.length,
    );
  }

  private async writeLots(
    accountUuid: string,
    plan: LotChangePlan,
  ): Promise<{ lotsInserted: number; lotsUpdated: number; lotsDeleted: number }> {
    const column = (items: readonly [string, LotColumns][], i: number) => items.map(([, c]) => c[i]);
    await inChunks(plan.deletes, BULK_CHUNK, async (ids) => {
      await this.db.run("DELETE FROM tax_lots WHERE account_uuid = $1 AND uuid = ANY($2::text[])", [
        accountUuid,
        [...ids],
      ]);
    });
    await inChunks(plan.updates, BULK_CHUNK, async (slice) => {
      await this.db.run(
        `UPDATE tax_lots SET side = x.s, theme_asset_id = x.t, quantity = x.q, cost_basis = x.c, cost_basis_unit = x.cu,
           cost_basis_currency = x.cc, fx_rate = x.f, trade_date = x.d, holding_period_start = x.h,
           wash_sale_date = x.w, last_sold_for_loss_date = x.l
         FROM unnest($2::text[], $3::text[], $4::text[], $5::numeric[], $6::numeric[], $7::text[], $8::text[],
           $9::numeric[], $10::text[], $11::text[], $12::text[], $13::text[]) AS x(u, s, t, q, c, cu, cc, f, d, h, w, l)
         WHERE tax_lots.uuid = x.u AND tax_lots.account_uuid = $1`,
        [accountUuid, slice.map(([id]) => id), ...Array.from({ length: 11 }, (_, i) => column(slice, i))],
      );
    });
    if (plan.inserts.length > 0) {
      let start =
        (await this.db.value<number>(
          "SELECT coalesce(max(position), -1) + 1 FROM tax_lots WHERE account_uuid = $1",
          [accountUuid],
        )) ?? 0;
      await inChunks(plan.inserts, BULK_CHUNK, async (slice) => {
        await this.db.run(
          `INSERT INTO tax_lots (uuid, account_uuid, position, side, theme_asset_id, quantity, cost_basis,
             cost_basis_unit, cost_basis_currency, fx_rate, trade_date, holding_period_start, wash_sale_date,
             last_sold_for_loss_date)
           SELECT u, $1, $2 + o - 1, s, t, q, c, cu, cc, f, d, h, w, l
           FROM unnest($3::text[], $4::text[], $5::text[], $6::numeric[], $7::numeric[], $8::text[], $9::text[],
             $10::numeric[], $11::text[], $12::text[], $13::text[], $14::text[])
             WITH ORDINALITY AS x(u, s, t, q, c, cu, cc, f, d, h, w, l, o)
           ORDER BY o`,
          [
            accountUuid,
            start,
            slice.map(([id]) => id),
            ...Array.from({ length: 11 }, (_, i) => column(slice, i)),
          ],
        );
        start += slice.length;
      });
    }
    return {
      lotsInserted: plan.inserts.length,
      lotsUpdated: plan.updates.length,
      lotsDeleted: plan.deletes.length,
    };
  }

  private async upsertRealized(
    accountUuid: string,
    clientUuid: string,
    rows: readonly RealizedLotInput[],
  ): Promise<void> {
    if (rows.length === 0) return;
    // One row per entry id, the last one (SQLite's row-by-row upserts keep the last; one PostgreSQL statement may
    // not touch a row twice). seq numbers new rows in the order written; a rewritten row keeps its seq.
    const unique = lastByKey(rows, (r) => r.entryId);
    let seq =
      (await this.db.value<number>(
        "SELECT (coalesce(max(seq), 0) + 1)::int FROM realized_lots WHERE account_uuid = $1",
        [accountUuid],
      )) ?? 1;
    const perRow = REALIZED_COLUMNS.length + 1;
    await inChunks(unique, 1000, async (slice) => {
      await this.db.run(
        `INSERT INTO realized_lots (${REALIZED_COLUMNS.join(", ")}, seq) VALUES ${slice
          .map((_, i) => `(${placeholders(perRow, i * perRow + 1)})`)
          .join(", ")}
         ON CONFLICT (account_uuid, entry_id) DO UPDATE SET ${REALIZED_COLUMNS.slice(2)
           .map((c) => `${c} = excluded.${c}`)
           .join(", ")}`,
        slice.flatMap((r) => [...realizedValues(accountUuid, clientUuid, r, (v) => v), seq++]),
      );
    });
  }

  async shortLots(accountUuid: string): Promise<ShortLotRecord[]> {
    return this.db.rows<ShortLotRecord>(
      `SELECT uuid, account_uuid AS "accountUuid", theme_asset_id AS "themeAssetId", quantity::text AS quantity,
         cost_basis::text AS proceeds, cost_basis_currency AS currency, fx_rate::text AS "fxRate",
         trade_date AS "openDate"
       FROM tax_lots WHERE account_uuid = $1 AND side = 'short' ORDER BY position`,
      [accountUuid],
    );
  }

  async appliedExecutionIds(accountUuid: string, ids: readonly string[]): Promise<string[]> {
    if (ids.length === 0) return [];
    return this.db.column<string>(
      "SELECT execution_id FROM executions WHERE account_uuid = $1 AND execution_id = ANY($2::text[])",
      [accountUuid, [...ids]],
    );
  }

  async proposalFills(
    accountUuid: string,
    proposalUuid: string,
  ): Promise<{ orderIndex: number; quantity: string }[]> {
    const rows = await this.db.rows<{ orderIndex: number | string; quantity: string }>(
      `SELECT order_index AS "orderIndex", quantity::text AS quantity FROM executions
       WHERE account_uuid = $1 AND execution_id >= $2 AND execution_id < $3 AND proposal_uuid = $4
         AND order_index IS NOT NULL
       ORDER BY seq`,
      [accountUuid, `${proposalUuid}:`, `${proposalUuid};`, proposalUuid],
    );
    return rows.map((r) => ({ orderIndex: Number(r.orderIndex), quantity: r.quantity }));
  }

  async executions(
    accountUuid: string,
    window: { from?: string; to?: string } = {},
  ): Promise<ExecutionRecord[]> {
    const rows = await this.db.rows<Parameters<typeof toExecution>[0]>(
      `SELECT account_uuid, execution_id, source, proposal_uuid, order_index, kind, theme_asset_id, trade_date,
         quantity::text AS quantity, price::text AS price, fees::text AS fees, currency, fx_rate::text AS fx_rate,
         lots, lot_id, applied_at
       FROM executions WHERE account_uuid = $1 AND trade_date >= $2 AND trade_date <= $3
       ORDER BY trade_date, seq`,
      [accountUuid, window.from ?? "", window.to ?? "\uffff"],
    );
    return rows.map(toExecution);
  }

  async realized(scope: RealizedScope, period: RealizedPeriod): Promise<RealizedLotRecord[]> {
    const [from, to] = periodBounds(period);
    const byAccount = "accountUuid" in scope;
    const rows = await this.db.rows<RealizedRowDb>(
      `SELECT ${REALIZED_SELECT} FROM realized_lots WHERE ${byAccount ? "account_uuid" : "client_uuid"} = $1
       AND date_sold >= $2 AND date_sold <= $3 ORDER BY date_sold, account_uuid, seq`,
      [byAccount ? scope.accountUuid : scope.clientUuid, from, to],
    );
    return rows.map(toRealized);
  }

  async householdActivity(
    clientUuid: string,
    from: string,
    to: string,
    exceptAccount?: string,
  ): Promise<HouseholdActivity> {
    const except = exceptAccount ?? null;
    const lots = await this.db.rows<TaxLotRecord>(
      `SELECT l.uuid, l.account_uuid AS "accountUuid", l.theme_asset_id AS "themeAssetId", l.quantity::text AS quantity,
         l.cost_basis::text AS "costBasis", l.cost_basis_unit AS "costBasisUnit",
         l.cost_basis_currency AS "costBasisCurrency", l.fx_rate::text AS "fxRate", l.trade_date AS "tradeDate",
         l.holding_period_start AS "holdingPeriodStart", l.wash_sale_date AS "washSaleDate",
         l.last_sold_for_loss_date AS "lastSoldForLossDate"
       FROM tax_lots l JOIN accounts a ON a.uuid = l.account_uuid
       WHERE a.client_uuid = $1 AND l.side = 'long' AND l.trade_date >= $2 AND l.trade_date <= $3
         AND ($4::text IS NULL OR l.account_uuid <> $4)
       ORDER BY l.account_uuid, l.position`,
      [clientUuid, from, to, except],
    );
    const lossSales = await this.db.rows<RealizedRowDb>(
      `SELECT ${REALIZED_SELECT} FROM realized_lots WHERE client_uuid = $1 AND date_sold >= $2 AND date_sold <= $3
       AND loss AND ($4::text IS NULL OR account_uuid <> $4) ORDER BY date_sold, account_uuid, seq`,
      [clientUuid, from, to, except],
    );
    return { lots, lossSales: lossSales.map(toRealized) };
  }

  async corporateActions(
    filter: { from?: string; to?: string; listing?: string } = {},
  ): Promise<CorporateActionRecord[]> {
    const rows = await this.db.rows<ActionRow>(
      `SELECT * FROM corporate_actions WHERE ex_date >= $1 AND ex_date <= $2 AND ($3::text IS NULL OR theme_asset_id = $3)
       ORDER BY ex_date, id`,
      [filter.from ?? "", filter.to ?? "\uffff", filter.listing ?? null],
    );
    return rows.map(toAction);
  }

  async addCorporateActions(actions: readonly CorporateActionRecord[]): Promise<void> {
    if (actions.length === 0) return;
    await this.db.transaction(async () => {
      // One row per id (the last wins, as SQLite's row-by-row upserts do): one statement may not touch a row twice.
      const byId = new Map(actions.map((a) => [a.id, a]));
      const list = [...byId.values()];
      await inChunks(list, BULK_CHUNK, async (slice) => {
        await this.db.run(
          `INSERT INTO corporate_actions (id, kind, theme_asset_id, ex_date, pay_date, params)
           SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[])
           ON CONFLICT (id) DO UPDATE SET kind = excluded.kind, theme_asset_id = excluded.theme_asset_id,
             ex_date = excluded.ex_date, pay_date = excluded.pay_date, params = excluded.params`,
          [
            slice.map((a) => a.id),
            slice.map((a) => a.kind),
            slice.map((a) => a.themeAssetId),
            slice.map((a) => a.exDate),
            slice.map((a) => a.payDate),
            slice.map((a) => JSON.stringify(a.params)),
          ],
        );
      });
    });
  }

  async appliedActions(accountUuid: string): Promise<CorporateActionApplicationRecord[]> {
    return this.db.rows<CorporateActionApplicationRecord>(
      `SELECT action_id AS "actionId", account_uuid AS "accountUuid", applied_at AS "appliedAt"
       FROM corporate_action_applications WHERE account_uuid = $1 ORDER BY applied_at, action_id`,
      [accountUuid],
    );
  }
}

/** realized_lots columns with numerics as text (exactly as written). */
const REALIZED_SELECT = REALIZED_COLUMNS.map((c) =>
  ["quantity", "proceeds", "cost_basis", "adjustment", "gain"].includes(c) ? `${c}::text AS ${c}` : c,
).join(", ");
