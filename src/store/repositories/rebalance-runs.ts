/**
 * @module store/repositories/rebalance-runs
 * Rebalance runs over many accounts (`lotwise rebalance --all`): the run (key, as-of date, `when`, selection, the
 * accounts it covers, status) and one outcome row per account. An outcome row is written once: recording an account
 * that already has one in the run fails ({@link RebalanceRunRepository.recordOutcome} returns false), which is what
 * keeps a resumed or concurrent run from storing a second proposal for the account.
 */
import { randomUUID } from "node:crypto";
import type { Statement } from "better-sqlite3";
import type { Db } from "../database.js";
import { statementCache } from "./util.js";

/** `when` of a run: which accounts get a proposal. */
export type RebalanceRunWhen = "breached" | "harvest" | "always";
/** What happened to one account of a run. */
export type RebalanceOutcomeKind = "created" | "skipped" | "failed";

/** A stored run (without its outcomes). */
export interface RebalanceRunRecord {
  uuid: string;
  organizationUuid: string;
  runKey: string;
  asOfDate: string;
  when: RebalanceRunWhen;
  /** The selection as given (a JSON-compatible value the service defines). */
  selection: unknown;
  /** The accounts the run covers, in processing order (fixed when the run starts). */
  accountUuids: string[];
  forced: boolean;
  status: "running" | "completed";
  created: string;
  finished: string | null;
}

/** The outcome of one account in a run. */
export interface RebalanceOutcomeRecord {
  accountUuid: string;
  outcome: RebalanceOutcomeKind;
  proposalUuid: string | null;
  reason: string | null;
  errorCode: string | null;
  errorMessage: string | null;
  recorded: string;
}

// Row shapes, the run column list and the mappings to records are shared with the PostgreSQL repository
// (src/store/pg/repositories/rebalance-runs.ts): same columns; `forced` is INTEGER 0/1 here, boolean there.

export interface RunRow {
  uuid: string;
  organization_uuid: string;
  run_key: string;
  as_of_date: string;
  run_when: RebalanceRunWhen;
  selection: string;
  account_uuids: string;
  forced: number | boolean;
  status: "running" | "completed";
  created: string;
  finished: string | null;
}

export interface OutcomeRow {
  account_uuid: string;
  outcome: RebalanceOutcomeKind;
  proposal_uuid: string | null;
  reason: string | null;
  error_code: string | null;
  error_message: string | null;
  recorded: string;
}

export const RUN_COLUMNS =
  "uuid, organization_uuid, run_key, as_of_date, run_when, selection, account_uuids, forced, status, created, finished";

export const toRun = (r: RunRow): RebalanceRunRecord => ({
  uuid: r.uuid,
  organizationUuid: r.organization_uuid,
  runKey: r.run_key,
  asOfDate: r.as_of_date,
  when: r.run_when,
  selection: JSON.parse(r.selection),
  accountUuids: JSON.parse(r.account_uuids),
  forced: Boolean(r.forced),
  status: r.status,
  created: r.created,
  finished: r.finished,
});

export const toOutcome = (r: OutcomeRow): RebalanceOutcomeRecord => ({
  accountUuid: r.account_uuid,
  outcome: r.outcome,
  proposalUuid: r.proposal_uuid,
  reason: r.reason,
  errorCode: r.error_code,
  errorMessage: r.error_message,
  recorded: r.recorded,
});

export class RebalanceRunRepository {
  private readonly cached: (sql: string) => Statement;

  constructor(
    db: Db,
    private readonly now: () => string,
  ) {
    this.cached = statementCache(db);
  }

  /** Start a run (status `running`). */
  create(
    organizationUuid: string,
    input: {
      runKey: string;
      asOfDate: string;
      when: RebalanceRunWhen;
      selection: unknown;
      accountUuids: readonly string[];
      forced: boolean;
    },
  ): RebalanceRunRecord {
    const row: RunRow = {
      uuid: randomUUID(),
      organization_uuid: organizationUuid,
      run_key: input.runKey,
      as_of_date: input.asOfDate,
      run_when: input.when,
      selection: JSON.stringify(input.selection),
      account_uuids: JSON.stringify(input.accountUuids),
      forced: input.forced ? 1 : 0,
      status: "running",
      created: this.now(),
      finished: null,
    };
    this.cached(
      `INSERT INTO rebalance_runs (${RUN_COLUMNS})
         VALUES (@uuid, @organization_uuid, @run_key, @as_of_date, @run_when, @selection, @account_uuids, @forced,
           @status, @created, @finished)`,
    ).run(row);
    return toRun(row);
  }

  get(organizationUuid: string, uuid: string): RebalanceRunRecord | undefined {
    const r = this.cached("SELECT * FROM rebalance_runs WHERE uuid = ? AND organization_uuid = ?").get(
      uuid,
      organizationUuid,
    ) as RunRow | undefined;
    return r && toRun(r);
  }

  /** The newest run with this key (runs share a key when forced), or undefined. */
  latestByKey(organizationUuid: string, runKey: string): RebalanceRunRecord | undefined {
    const r = this.cached(
      "SELECT * FROM rebalance_runs WHERE organization_uuid = ? AND run_key = ? ORDER BY created DESC, rowid DESC LIMIT 1",
    ).get(organizationUuid, runKey) as RunRow | undefined;
    return r && toRun(r);
  }

  /** The organization's runs, newest first, optionally of one as-of date. */
  list(organizationUuid: string, options: { asOfDate?: string; limit?: number } = {}): RebalanceRunRecord[] {
    const rows = this.cached(
      `SELECT * FROM rebalance_runs WHERE organization_uuid = @org AND (@date IS NULL OR as_of_date = @date)
         ORDER BY created DESC, rowid DESC LIMIT @limit`,
    ).all({ org: organizationUuid, date: options.asOfDate ?? null, limit: options.limit ?? -1 }) as RunRow[];
    return rows.map(toRun);
  }

  /** Mark a run completed now. */
  finish(organizationUuid: string, uuid: string): void {
    this.cached(
      "UPDATE rebalance_runs SET status = 'completed', finished = ? WHERE uuid = ? AND organization_uuid = ? AND status = 'running'",
    ).run(this.now(), uuid, organizationUuid);
  }

  /** The outcomes recorded so far, keyed by account. */
  outcomes(runUuid: string): Map<string, RebalanceOutcomeRecord> {
    const rows = this.cached("SELECT * FROM rebalance_run_accounts WHERE run_uuid = ? ORDER BY position").all(
      runUuid,
    ) as OutcomeRow[];
    return new Map(rows.map((r) => [r.account_uuid, toOutcome(r)]));
  }

  /** Counts of outcomes per kind for several runs at once (run listing). */
  outcomeCounts(runUuids: readonly string[]): Map<string, Record<RebalanceOutcomeKind, number>> {
    const out = new Map<string, Record<RebalanceOutcomeKind, number>>();
    if (runUuids.length === 0) return out;
    const rows = this.cached(
      `SELECT run_uuid, outcome, count(*) AS n FROM rebalance_run_accounts
         WHERE run_uuid IN (SELECT value FROM json_each(?)) GROUP BY run_uuid, outcome`,
    ).all(JSON.stringify(runUuids)) as { run_uuid: string; outcome: RebalanceOutcomeKind; n: number }[];
    for (const r of rows) {
      const c = out.get(r.run_uuid) ?? { created: 0, skipped: 0, failed: 0 };
      c[r.outcome] = r.n;
      out.set(r.run_uuid, c);
    }
    return out;
  }

  /**
   * Record the outcome of an account in a run; false (nothing written) when the run already has one for it.
   * Call it in the transaction that stores the account's proposal, so that a refused record rolls the proposal back.
   */
  recordOutcome(runUuid: string, position: number, o: Omit<RebalanceOutcomeRecord, "recorded">): boolean {
    const insert = this.cached(
      `INSERT OR IGNORE INTO rebalance_run_accounts
         (run_uuid, account_uuid, position, outcome, proposal_uuid, reason, error_code, error_message, recorded)
       VALUES (@run, @account, @position, @outcome, @proposal, @reason, @code, @message, @recorded)`,
    );
    return (
      insert.run({
        run: runUuid,
        account: o.accountUuid,
        position,
        outcome: o.outcome,
        proposal: o.proposalUuid,
        reason: o.reason,
        code: o.errorCode,
        message: o.errorMessage,
        recorded: this.now(),
      }).changes === 1
    );
  }

  /**
   * The run (other than `exceptRunUuid`) of the organization and as-of date in which the account got a proposal,
   * the newest if several; undefined when none did.
   */
  proposalRunOf(
    organizationUuid: string,
    asOfDate: string,
    accountUuid: string,
    exceptRunUuid: string,
  ): { runUuid: string; proposalUuid: string } | undefined {
    const r = this.cached(
      `SELECT o.run_uuid, o.proposal_uuid FROM rebalance_run_accounts o
         JOIN rebalance_runs r ON r.uuid = o.run_uuid
         WHERE o.account_uuid = ? AND o.outcome = 'created' AND o.run_uuid <> ?
           AND r.organization_uuid = ? AND r.as_of_date = ?
         ORDER BY o.recorded DESC LIMIT 1`,
    ).get(accountUuid, exceptRunUuid, organizationUuid, asOfDate) as
      | { run_uuid: string; proposal_uuid: string }
      | undefined;
    return r && { runUuid: r.run_uuid, proposalUuid: r.proposal_uuid };
  }
}
