/** @module store/pg/repositories/rebalance-runs Rebalance runs over many accounts (PostgreSQL). */
import { randomUUID } from "node:crypto";
import type { Promised } from "../../lotwise-store.js";
// Row shapes, the run columns and the mappings are the SQLite repository's (`forced` comes back as a boolean here).
import {
  type OutcomeRow,
  type RebalanceOutcomeKind,
  type RebalanceOutcomeRecord,
  type RebalanceRunRecord,
  type RebalanceRunRepository,
  type RebalanceRunWhen,
  RUN_COLUMNS,
  type RunRow,
  toOutcome,
  toRun,
} from "../../repositories/rebalance-runs.js";
import type { PgDb } from "../pg-db.js";

export class PgRebalanceRunRepository implements Promised<RebalanceRunRepository> {
  constructor(
    private readonly db: PgDb,
    private readonly now: () => string,
  ) {}

  async create(
    organizationUuid: string,
    input: {
      runKey: string;
      asOfDate: string;
      when: RebalanceRunWhen;
      selection: unknown;
      accountUuids: readonly string[];
      forced: boolean;
    },
  ): Promise<RebalanceRunRecord> {
    const row: RunRow = {
      uuid: randomUUID(),
      organization_uuid: organizationUuid,
      run_key: input.runKey,
      as_of_date: input.asOfDate,
      run_when: input.when,
      selection: JSON.stringify(input.selection),
      account_uuids: JSON.stringify(input.accountUuids),
      forced: input.forced,
      status: "running",
      created: this.now(),
      finished: null,
    };
    await this.db.run(
      `INSERT INTO rebalance_runs (${RUN_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
      [
        row.uuid,
        row.organization_uuid,
        row.run_key,
        row.as_of_date,
        row.run_when,
        row.selection,
        row.account_uuids,
        row.forced,
        row.status,
        row.created,
        row.finished,
      ],
    );
    return toRun(row);
  }

  async get(organizationUuid: string, uuid: string): Promise<RebalanceRunRecord | undefined> {
    const r = await this.db.row<RunRow>(
      `SELECT ${RUN_COLUMNS} FROM rebalance_runs WHERE uuid = $1 AND organization_uuid = $2`,
      [uuid, organizationUuid],
    );
    return r && toRun(r);
  }

  async latestByKey(organizationUuid: string, runKey: string): Promise<RebalanceRunRecord | undefined> {
    const r = await this.db.row<RunRow>(
      `SELECT ${RUN_COLUMNS} FROM rebalance_runs WHERE organization_uuid = $1 AND run_key = $2
       ORDER BY created DESC, seq DESC LIMIT 1`,
      [organizationUuid, runKey],
    );
    return r && toRun(r);
  }

  async list(
    organizationUuid: string,
    options: { asOfDate?: string; limit?: number } = {},
  ): Promise<RebalanceRunRecord[]> {
    const rows = await this.db.rows<RunRow>(
      `SELECT ${RUN_COLUMNS} FROM rebalance_runs WHERE organization_uuid = $1 AND ($2::text IS NULL OR as_of_date = $2)
       ORDER BY created DESC, seq DESC LIMIT $3`,
      [
        organizationUuid,
        options.asOfDate ?? null,
        options.limit === undefined || options.limit < 0 ? null : options.limit,
      ],
    );
    return rows.map(toRun);
  }

  async finish(organizationUuid: string, uuid: string): Promise<void> {
    await this.db.run(
      "UPDATE rebalance_runs SET status = 'completed', finished = $1 WHERE uuid = $2 AND organization_uuid = $3 AND status = 'running'",
      [this.now(), uuid, organizationUuid],
    );
  }

  async outcomes(runUuid: string): Promise<Map<string, RebalanceOutcomeRecord>> {
    const rows = await this.db.rows<OutcomeRow>(
      `SELECT account_uuid, outcome, proposal_uuid, reason, error_code, error_message, recorded
       FROM rebalance_run_accounts WHERE run_uuid = $1 ORDER BY position`,
      [runUuid],
    );
    return new Map(rows.map((r) => [r.account_uuid, toOutcome(r)]));
  }

  async outcomeCounts(
    runUuids: readonly string[],
  ): Promise<Map<string, Record<RebalanceOutcomeKind, number>>> {
    const out = new Map<string, Record<RebalanceOutcomeKind, number>>();
    if (runUuids.length === 0) return out;
    const rows = await this.db.rows<{ run_uuid: string; outcome: RebalanceOutcomeKind; n: number }>(
      `SELECT run_uuid, outcome, count(*)::int AS n FROM rebalance_run_accounts
       WHERE run_uuid = ANY($1::text[]) GROUP BY run_uuid, outcome`,
      [runUuids],
    );
    for (const r of rows) {
      const c = out.get(r.run_uuid) ?? { created: 0, skipped: 0, failed: 0 };
      c[r.outcome] = r.n;
      out.set(r.run_uuid, c);
    }
    return out;
  }

  async recordOutcome(
    runUuid: string,
    position: number,
    o: Omit<RebalanceOutcomeRecord, "recorded">,
  ): Promise<boolean> {
    const n = await this.db.run(
      `INSERT INTO rebalance_run_accounts
         (run_uuid, account_uuid, position, outcome, proposal_uuid, reason, error_code, error_message, recorded)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT DO NOTHING`,
      [
        runUuid,
        o.accountUuid,
        position,
        o.outcome,
        o.proposalUuid,
        o.reason,
        o.errorCode,
        o.errorMessage,
        this.now(),
      ],
    );
    return n === 1;
  }

  async proposalRunOf(
    organizationUuid: string,
    asOfDate: string,
    accountUuid: string,
    exceptRunUuid: string,
  ): Promise<{ runUuid: string; proposalUuid: string } | undefined> {
    const r = await this.db.row<{ run_uuid: string; proposal_uuid: string }>(
      `SELECT o.run_uuid, o.proposal_uuid FROM rebalance_run_accounts o
       JOIN rebalance_runs r ON r.uuid = o.run_uuid
       WHERE o.account_uuid = $1 AND o.outcome = 'created' AND o.run_uuid <> $2
         AND r.organization_uuid = $3 AND r.as_of_date = $4
       ORDER BY o.recorded DESC LIMIT 1`,
      [accountUuid, exceptRunUuid, organizationUuid, asOfDate],
    );
    return r && { runUuid: r.run_uuid, proposalUuid: r.proposal_uuid };
  }
}
