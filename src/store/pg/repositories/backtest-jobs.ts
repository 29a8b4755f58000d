/**
 * @module store/pg/repositories/backtest-jobs
 * Durable jobs (PostgreSQL). The SQLite repository relies on IMMEDIATE transactions (one writer at a time) for its
 * check-then-write steps; here each such step takes a transaction-scoped advisory lock instead: claims and orphan
 * recovery one lock for the whole table (every process that claims waits its turn, as SQLite's writers do), the
 * full-queue check of `create` one lock per organization.
 */
import { randomUUID } from "node:crypto";
import { NotFoundError, TooManyRequestsError } from "../../../core/errors.js";
import type { Promised } from "../../lotwise-store.js";
import {
  type BacktestJobRecord,
  type BacktestProgress,
  type BacktestStatus,
  type JobKind,
  jobRestartHint,
} from "../../records.js";
// The job row and its mapping are the SQLite repository's (cancel_requested comes back as a boolean here).
import { type BacktestJobRepository, type JobRow, toJob } from "../../repositories/backtest-jobs.js";
import type { PgDb } from "../pg-db.js";

const COLUMNS = `id, organization_uuid, kind, account_uuid, status, params, resolved_params, progress, result,
  error_message, cancel_requested, attempts, lease_owner, heartbeat_at, created_at, started_at, finished_at`;

/** First key of the advisory locks of this repository ("LWJ1"). */
const LOCK_SPACE = 0x4c574a31;
/** Second key of the lock that serializes claims and recovery. */
const CLAIM_LOCK = 1;

export class PgBacktestJobRepository implements Promised<BacktestJobRepository> {
  constructor(
    private readonly db: PgDb,
    private readonly now: () => string,
  ) {}

  async create(
    organizationUuid: string,
    accountUuid: string | null,
    params: Record<string, unknown>,
    resolvedParams: Record<string, unknown>,
    progress: BacktestProgress,
    options: { maxPending?: number; kind?: JobKind } = {},
  ): Promise<BacktestJobRecord> {
    const kind = options.kind ?? "backtest";
    if ((kind === "backtest") !== (accountUuid !== null))
      throw new TypeError(
        "BacktestJobRepository.create: a backtest job needs an account, a scan or rebalance-run job has none",
      );
    const row: JobRow = {
      id: randomUUID(),
      organization_uuid: organizationUuid,
      kind,
      account_uuid: accountUuid,
      status: "PENDING",
      params: JSON.stringify(params),
      resolved_params: JSON.stringify(resolvedParams),
      progress: JSON.stringify(progress),
      result: null,
      error_message: null,
      cancel_requested: false,
      attempts: 0,
      lease_owner: null,
      heartbeat_at: null,
      created_at: this.now(),
      started_at: null,
      finished_at: null,
    };
    const insert = async () => {
      await this.db.run(
        `INSERT INTO backtest_jobs (${COLUMNS})
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)`,
        [
          row.id,
          row.organization_uuid,
          row.kind,
          row.account_uuid,
          row.status,
          row.params,
          row.resolved_params,
          row.progress,
          row.result,
          row.error_message,
          row.cancel_requested,
          row.attempts,
          row.lease_owner,
          row.heartbeat_at,
          row.created_at,
          row.started_at,
          row.finished_at,
        ],
      );
    };
    const maxPending = options.maxPending;
    if (maxPending === undefined) await insert();
    // The count and the insert under one lock per organization: two processes cannot both take the last place.
    else
      await this.db.transaction(async () => {
        await this.db.run("SELECT pg_advisory_xact_lock($1, hashtext($2))", [LOCK_SPACE, organizationUuid]);
        const pending = await this.countPending(organizationUuid);
        if (pending >= maxPending)
          throw new TooManyRequestsError(
            `This organization already has ${pending} backtest jobs waiting to run (the limit is ${maxPending}). Wait until some of them have started, or cancel some, then start this one again.`,
            "too_many_queued_jobs",
          );
        await insert();
      });
    return toJob(row);
  }

  async get(
    organizationUuid: string,
    id: string,
    accountUuid?: string,
    kind: JobKind = "backtest",
  ): Promise<BacktestJobRecord | undefined> {
    const r = await this.db.row<JobRow>(
      `SELECT ${COLUMNS} FROM backtest_jobs WHERE id = $1 AND organization_uuid = $2 AND kind = $3`,
      [id, organizationUuid, kind],
    );
    if (!r || (accountUuid !== undefined && r.account_uuid !== accountUuid)) return undefined;
    return toJob(r);
  }

  async require(
    organizationUuid: string,
    id: string,
    accountUuid?: string,
    kind: JobKind = "backtest",
  ): Promise<BacktestJobRecord> {
    const j = await this.get(organizationUuid, id, accountUuid, kind);
    if (!j)
      throw kind === "scan"
        ? new NotFoundError(`Scan job ${id} not found.`, "scan_job_not_found")
        : new NotFoundError(`Backtest job ${id} not found.`, "backtest_not_found");
    return j;
  }

  async getById(id: string): Promise<BacktestJobRecord | undefined> {
    const r = await this.db.row<JobRow>(`SELECT ${COLUMNS} FROM backtest_jobs WHERE id = $1`, [id]);
    return r && toJob(r);
  }

  async list(
    organizationUuid: string,
    filter: { accountUuid?: string; status?: BacktestStatus; kind?: JobKind } = {},
  ): Promise<BacktestJobRecord[]> {
    const rows = await this.db.rows<JobRow>(
      `SELECT ${COLUMNS} FROM backtest_jobs WHERE organization_uuid = $1 AND kind = $2
         AND ($3::text IS NULL OR account_uuid = $3) AND ($4::text IS NULL OR status = $4)
       ORDER BY created_at, id`,
      [organizationUuid, filter.kind ?? "backtest", filter.accountUuid ?? null, filter.status ?? null],
    );
    return rows.map(toJob);
  }

  /** See the SQLite repository (fair across organizations); claims of every process take turns. */
  async claimNext(
    leaseOwner: string,
    options: { maxRunningPerOrganization?: number } = {},
  ): Promise<BacktestJobRecord | undefined> {
    const limit = options.maxRunningPerOrganization ?? null;
    return this.db.transaction(async () => {
      await this.db.run("SELECT pg_advisory_xact_lock($1, $2)", [LOCK_SPACE, CLAIM_LOCK]);
      const org = await this.db.value<string>(
        `WITH waiting AS (
           SELECT organization_uuid, min(created_at) AS first_created FROM backtest_jobs
           WHERE status = 'PENDING' AND NOT cancel_requested GROUP BY organization_uuid),
         running AS (
           SELECT organization_uuid, count(*) AS n FROM backtest_jobs WHERE status = 'RUNNING' GROUP BY organization_uuid)
         SELECT w.organization_uuid FROM waiting w LEFT JOIN running r ON r.organization_uuid = w.organization_uuid
         WHERE ($1::int IS NULL OR coalesce(r.n, 0) < $1)
         ORDER BY coalesce(r.n, 0), w.first_created, w.organization_uuid LIMIT 1`,
        [limit],
      );
      if (org === undefined) return undefined;
      const id = await this.db.value<string>(
        `SELECT id FROM backtest_jobs WHERE status = 'PENDING' AND NOT cancel_requested AND organization_uuid = $1
         ORDER BY created_at, id LIMIT 1`,
        [org],
      );
      if (id === undefined) return undefined;
      const t = this.now();
      const r = await this.db.row<JobRow>(
        `UPDATE backtest_jobs SET status = 'RUNNING', lease_owner = $1, heartbeat_at = $2, attempts = attempts + 1,
           started_at = coalesce(started_at, $2) WHERE id = $3 AND status = 'PENDING' RETURNING ${COLUMNS}`,
        [leaseOwner, t, id],
      );
      return r && toJob(r);
    });
  }

  async countPending(organizationUuid: string): Promise<number> {
    return (
      (await this.db.value<number>(
        "SELECT count(*)::int FROM backtest_jobs WHERE organization_uuid = $1 AND status = 'PENDING'",
        [organizationUuid],
      )) ?? 0
    );
  }

  async claim(id: string, leaseOwner: string): Promise<BacktestJobRecord | undefined> {
    const t = this.now();
    const r = await this.db.row<JobRow>(
      `UPDATE backtest_jobs SET status = 'RUNNING', lease_owner = $1, heartbeat_at = $2, attempts = attempts + 1,
         started_at = coalesce(started_at, $2) WHERE id = $3 AND status = 'PENDING' AND NOT cancel_requested
       RETURNING ${COLUMNS}`,
      [leaseOwner, t, id],
    );
    return r && toJob(r);
  }

  async progress(id: string, leaseOwner: string, progress: BacktestProgress): Promise<boolean> {
    const n = await this.db.run(
      "UPDATE backtest_jobs SET progress = $1, heartbeat_at = $2 WHERE id = $3 AND status = 'RUNNING' AND lease_owner = $4",
      [JSON.stringify(progress), this.now(), id, leaseOwner],
    );
    return n === 1;
  }

  async succeed(
    id: string,
    leaseOwner: string,
    result: Record<string, unknown>,
    progress: BacktestProgress,
  ): Promise<boolean> {
    const t = this.now();
    const n = await this.db.run(
      `UPDATE backtest_jobs SET status = 'SUCCESS', result = $1, progress = $2, finished_at = $3, heartbeat_at = $3,
         lease_owner = NULL
       WHERE id = $4 AND status = 'RUNNING' AND lease_owner = $5`,
      [JSON.stringify(result), JSON.stringify(progress), t, id, leaseOwner],
    );
    return n === 1;
  }

  async fail(id: string, message: string, leaseOwner: string | null = null): Promise<boolean> {
    const n = await this.db.run(
      `UPDATE backtest_jobs SET status = 'FAILURE', error_message = $1, finished_at = $2, lease_owner = NULL
       WHERE id = $3 AND status IN ('PENDING', 'RUNNING') AND ($4::text IS NULL OR lease_owner = $4)`,
      [message, this.now(), id, leaseOwner],
    );
    return n === 1;
  }

  async requestCancel(
    organizationUuid: string,
    id: string,
    kind: JobKind = "backtest",
  ): Promise<BacktestJobRecord> {
    const job = await this.require(organizationUuid, id, undefined, kind);
    if (job.status === "PENDING") await this.fail(id, "Cancelled before it started.");
    else if (job.status === "RUNNING")
      await this.db.run("UPDATE backtest_jobs SET cancel_requested = true WHERE id = $1", [id]);
    return this.require(organizationUuid, id, undefined, kind);
  }

  async recoverOrphans(options: {
    liveOwners: readonly string[];
    staleBefore: string;
    maxAttempts: number;
    isLiveOwner?: (leaseOwner: string) => boolean;
  }): Promise<{ requeued: string[]; failed: string[] }> {
    return this.db.transaction(async () => {
      await this.db.run("SELECT pg_advisory_xact_lock($1, $2)", [LOCK_SPACE, CLAIM_LOCK]);
      const rows = await this.db.rows<JobRow>(
        `SELECT ${COLUMNS} FROM backtest_jobs WHERE status = 'RUNNING' ORDER BY created_at, id FOR UPDATE`,
      );
      const requeued: string[] = [];
      const failed: string[] = [];
      for (const r of rows) {
        const live =
          r.lease_owner !== null &&
          (options.liveOwners.includes(r.lease_owner) || options.isLiveOwner?.(r.lease_owner) === true);
        const stale = r.heartbeat_at === null || r.heartbeat_at < options.staleBefore;
        if (live && !stale) continue;
        if (r.cancel_requested) {
          await this.fail(r.id, "Cancelled; its worker stopped before finishing.");
          failed.push(r.id);
        } else if (r.attempts < options.maxAttempts) {
          await this.db.run("UPDATE backtest_jobs SET status = 'PENDING', lease_owner = NULL WHERE id = $1", [
            r.id,
          ]);
          requeued.push(r.id);
        } else {
          await this.fail(
            r.id,
            `The worker running this job stopped unexpectedly ${r.attempts} time(s) (last heartbeat ${r.heartbeat_at ?? "never"}); giving up. ${jobRestartHint(r.kind)}`,
          );
          failed.push(r.id);
        }
      }
      return { requeued, failed };
    });
  }
}
