/**
 * @module store/repositories/backtest-jobs
 * Durable backtest jobs. A worker claims a PENDING job atomically (PENDING -> RUNNING with a lease owner),
 * heartbeats while it runs, and finishes it as SUCCESS or FAILURE. {@link BacktestJobRepository.recoverOrphans}
 * runs at start-up so that no job is left RUNNING after a crash: it is re-queued (resumed) or failed.
 */
import { randomUUID } from "node:crypto";
import { NotFoundError, TooManyRequestsError } from "../../core/errors.js";
import type { Db } from "../database.js";
import {
  type BacktestJobRecord,
  type BacktestProgress,
  type BacktestStatus,
  type JobKind,
  jobRestartHint,
} from "../records.js";
import { fromJson } from "./util.js";

// The job row and its mapping to a record are shared with the PostgreSQL repository
// (src/store/pg/repositories/backtest-jobs.ts): same columns; cancel_requested is INTEGER 0/1 here, boolean there.

export interface JobRow {
  id: string;
  organization_uuid: string;
  kind: JobKind;
  account_uuid: string | null;
  status: string;
  params: string;
  resolved_params: string;
  progress: string | null;
  result: string | null;
  error_message: string | null;
  cancel_requested: number | boolean;
  attempts: number;
  lease_owner: string | null;
  heartbeat_at: string | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
}

export const toJob = (r: JobRow): BacktestJobRecord => ({
  id: r.id,
  organizationUuid: r.organization_uuid,
  kind: r.kind,
  accountUuid: r.account_uuid,
  status: r.status as BacktestStatus,
  params: JSON.parse(r.params) as Record<string, unknown>,
  resolvedParams: JSON.parse(r.resolved_params) as Record<string, unknown>,
  progress: fromJson<BacktestProgress>(r.progress),
  result: fromJson<Record<string, unknown>>(r.result),
  errorMessage: r.error_message,
  cancelRequested: Boolean(r.cancel_requested),
  attempts: r.attempts,
  leaseOwner: r.lease_owner,
  heartbeatAt: r.heartbeat_at,
  createdAt: r.created_at,
  startedAt: r.started_at,
  finishedAt: r.finished_at,
});

export class BacktestJobRepository {
  constructor(
    private readonly db: Db,
    private readonly now: () => string,
  ) {}

  /**
   * Store a PENDING job: a backtest of `accountUuid`, or (`kind` "scan", `accountUuid` null) a scan. With
   * `maxPending`, refuses when the organization already has that many PENDING jobs (of every kind: they share the
   * queue and the workers).
   * @throws {TooManyRequestsError} `too_many_queued_jobs` when the organization's queue is full
   */
  create(
    organizationUuid: string,
    accountUuid: string | null,
    params: Record<string, unknown>,
    resolvedParams: Record<string, unknown>,
    progress: BacktestProgress,
    options: { maxPending?: number; kind?: JobKind } = {},
  ): BacktestJobRecord {
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
      cancel_requested: 0,
      attempts: 0,
      lease_owner: null,
      heartbeat_at: null,
      created_at: this.now(),
      started_at: null,
      finished_at: null,
    };
    const insert = () => {
      if (options.maxPending !== undefined) {
        const pending = this.countPending(organizationUuid);
        if (pending >= options.maxPending)
          throw new TooManyRequestsError(
            `This organization already has ${pending} backtest jobs waiting to run (the limit is ${options.maxPending}). Wait until some of them have started, or cancel some, then start this one again.`,
            "too_many_queued_jobs",
          );
      }
      this.db
        .prepare(
          `INSERT INTO backtest_jobs (id, organization_uuid, kind, account_uuid, status, params, resolved_params, progress, result,
          error_message, cancel_requested, attempts, lease_owner, heartbeat_at, created_at, started_at, finished_at)
         VALUES (@id, @organization_uuid, @kind, @account_uuid, @status, @params, @resolved_params, @progress, @result,
          @error_message, @cancel_requested, @attempts, @lease_owner, @heartbeat_at, @created_at, @started_at, @finished_at)`,
        )
        .run(row);
    };
    // The count and the insert in one IMMEDIATE transaction: two processes cannot both take the last place.
    if (options.maxPending === undefined || this.db.inTransaction) insert();
    else this.db.transaction(insert).immediate();
    return toJob(row);
  }

  /** A job of `kind` (default backtest) by id, scoped to organization (and account when given). */
  get(
    organizationUuid: string,
    id: string,
    accountUuid?: string,
    kind: JobKind = "backtest",
  ): BacktestJobRecord | undefined {
    const r = this.db
      .prepare("SELECT * FROM backtest_jobs WHERE id = ? AND organization_uuid = ? AND kind = ?")
      .get(id, organizationUuid, kind) as JobRow | undefined;
    if (!r || (accountUuid !== undefined && r.account_uuid !== accountUuid)) return undefined;
    return toJob(r);
  }

  /** @throws {NotFoundError} `backtest_not_found` (`scan_job_not_found` for kind scan) */
  require(
    organizationUuid: string,
    id: string,
    accountUuid?: string,
    kind: JobKind = "backtest",
  ): BacktestJobRecord {
    const j = this.get(organizationUuid, id, accountUuid, kind);
    if (!j)
      throw kind === "scan"
        ? new NotFoundError(`Scan job ${id} not found.`, "scan_job_not_found")
        : new NotFoundError(`Backtest job ${id} not found.`, "backtest_not_found");
    return j;
  }

  /** Unscoped read, for workers that only know the id. */
  getById(id: string): BacktestJobRecord | undefined {
    const r = this.db.prepare("SELECT * FROM backtest_jobs WHERE id = ?").get(id) as JobRow | undefined;
    return r && toJob(r);
  }

  list(
    organizationUuid: string,
    filter: { accountUuid?: string; status?: BacktestStatus; kind?: JobKind } = {},
  ): BacktestJobRecord[] {
    const rows = this.db
      .prepare(
        `SELECT * FROM backtest_jobs WHERE organization_uuid = @org AND kind = @kind
           AND (@account IS NULL OR account_uuid = @account) AND (@status IS NULL OR status = @status)
         ORDER BY created_at, id`,
      )
      .all({
        org: organizationUuid,
        kind: filter.kind ?? "backtest",
        account: filter.accountUuid ?? null,
        status: filter.status ?? null,
      }) as JobRow[];
    return rows.map(toJob);
  }

  /**
   * Atomically move the next PENDING job to RUNNING for `leaseOwner`; undefined when none waits (or when every
   * organization with waiting jobs is at `maxRunningPerOrganization`).
   *
   * Fair across organizations: the job comes from the organization with the fewest RUNNING jobs (in the whole
   * store, whichever process runs them), ties going to the organization whose oldest waiting job is the oldest;
   * within an organization, oldest first. So one organization queuing hundreds of jobs delays another's next job
   * by at most one finishing job per free worker, not by its whole queue.
   */
  claimNext(
    leaseOwner: string,
    options: { maxRunningPerOrganization?: number } = {},
  ): BacktestJobRecord | undefined {
    const limit = options.maxRunningPerOrganization ?? null;
    const claim = this.db.transaction(() => {
      const org = this.db
        .prepare(
          `WITH waiting AS (
             SELECT organization_uuid, min(created_at) AS first_created FROM backtest_jobs
             WHERE status = 'PENDING' AND cancel_requested = 0 GROUP BY organization_uuid),
           running AS (
             SELECT organization_uuid, count(*) AS n FROM backtest_jobs WHERE status = 'RUNNING' GROUP BY organization_uuid)
           SELECT w.organization_uuid AS org FROM waiting w LEFT JOIN running r ON r.organization_uuid = w.organization_uuid
           WHERE (@limit IS NULL OR coalesce(r.n, 0) < @limit)
           ORDER BY coalesce(r.n, 0), w.first_created, w.organization_uuid LIMIT 1`,
        )
        .get({ limit }) as { org: string } | undefined;
      if (!org) return undefined;
      const r = this.db
        .prepare(
          `SELECT id FROM backtest_jobs WHERE status = 'PENDING' AND cancel_requested = 0 AND organization_uuid = ?
           ORDER BY created_at, id LIMIT 1`,
        )
        .get(org.org) as { id: string } | undefined;
      if (!r) return undefined;
      const t = this.now();
      this.db
        .prepare(
          `UPDATE backtest_jobs SET status = 'RUNNING', lease_owner = ?, heartbeat_at = ?, attempts = attempts + 1,
             started_at = coalesce(started_at, ?) WHERE id = ? AND status = 'PENDING'`,
        )
        .run(leaseOwner, t, t, r.id);
      return this.getById(r.id);
    });
    return claim.immediate();
  }

  /** Number of PENDING jobs of an organization (its queue). */
  countPending(organizationUuid: string): number {
    const r = this.db
      .prepare("SELECT count(*) AS n FROM backtest_jobs WHERE organization_uuid = ? AND status = 'PENDING'")
      .get(organizationUuid) as { n: number };
    return r.n;
  }

  /**
   * Atomically move one given PENDING job to RUNNING for `leaseOwner` (a runner that was handed specific jobs, e.g.
   * the CLI running the job it just created); undefined when that job is not PENDING (claimed elsewhere, finished,
   * cancelled or unknown).
   */
  claim(id: string, leaseOwner: string): BacktestJobRecord | undefined {
    const t = this.now();
    const r = this.db
      .prepare(
        `UPDATE backtest_jobs SET status = 'RUNNING', lease_owner = ?, heartbeat_at = ?, attempts = attempts + 1,
           started_at = coalesce(started_at, ?) WHERE id = ? AND status = 'PENDING' AND cancel_requested = 0`,
      )
      .run(leaseOwner, t, t, id);
    return r.changes === 1 ? this.getById(id) : undefined;
  }

  /** Record progress (and the heartbeat) of a running job owned by `leaseOwner`. Returns false if the lease was lost. */
  progress(id: string, leaseOwner: string, progress: BacktestProgress): boolean {
    const r = this.db
      .prepare(
        "UPDATE backtest_jobs SET progress = ?, heartbeat_at = ? WHERE id = ? AND status = 'RUNNING' AND lease_owner = ?",
      )
      .run(JSON.stringify(progress), this.now(), id, leaseOwner);
    return r.changes === 1;
  }

  succeed(
    id: string,
    leaseOwner: string,
    result: Record<string, unknown>,
    progress: BacktestProgress,
  ): boolean {
    const t = this.now();
    const r = this.db
      .prepare(
        `UPDATE backtest_jobs SET status = 'SUCCESS', result = ?, progress = ?, finished_at = ?, heartbeat_at = ?, lease_owner = NULL
         WHERE id = ? AND status = 'RUNNING' AND lease_owner = ?`,
      )
      .run(JSON.stringify(result), JSON.stringify(progress), t, t, id, leaseOwner);
    return r.changes === 1;
  }

  /** Fail a job that is PENDING or RUNNING (any owner when `leaseOwner` is null). */
  fail(id: string, message: string, leaseOwner: string | null = null): boolean {
    const t = this.now();
    const r = this.db
      .prepare(
        `UPDATE backtest_jobs SET status = 'FAILURE', error_message = ?, finished_at = ?, lease_owner = NULL
         WHERE id = ? AND status IN ('PENDING', 'RUNNING') AND (? IS NULL OR lease_owner = ?)`,
      )
      .run(message, t, id, leaseOwner, leaseOwner);
    return r.changes === 1;
  }

  /** Ask a job of `kind` to stop: a PENDING job fails at once, a RUNNING one at its next period (or account). */
  requestCancel(organizationUuid: string, id: string, kind: JobKind = "backtest"): BacktestJobRecord {
    const job = this.require(organizationUuid, id, undefined, kind);
    if (job.status === "PENDING") this.fail(id, "Cancelled before it started.");
    else if (job.status === "RUNNING")
      this.db.prepare("UPDATE backtest_jobs SET cancel_requested = 1 WHERE id = ?").run(id);
    return this.require(organizationUuid, id, undefined, kind);
  }

  /**
   * Make sure no job stays RUNNING after its worker died. Jobs RUNNING under another lease owner whose heartbeat
   * is older than `staleBefore` (or any owner not in `liveOwners`) are re-queued as PENDING while they have had
   * fewer than `maxAttempts` attempts, and otherwise failed with a message saying why. `isLiveOwner`, when given, is
   * asked about owners not in `liveOwners` inside the same transaction (so a job claimed meanwhile by another live
   * process is judged with the rest); owners it calls live are still recovered when their heartbeat is stale.
   * Returns what it did.
   */
  recoverOrphans(options: {
    liveOwners: readonly string[];
    staleBefore: string;
    maxAttempts: number;
    isLiveOwner?: (leaseOwner: string) => boolean;
  }): {
    requeued: string[];
    failed: string[];
  } {
    const run = this.db.transaction(() => {
      const rows = this.db.prepare("SELECT * FROM backtest_jobs WHERE status = 'RUNNING'").all() as JobRow[];
      const requeued: string[] = [];
      const failed: string[] = [];
      for (const r of rows) {
        const live =
          r.lease_owner !== null &&
          (options.liveOwners.includes(r.lease_owner) || options.isLiveOwner?.(r.lease_owner) === true);
        const stale = r.heartbeat_at === null || r.heartbeat_at < options.staleBefore;
        if (live && !stale) continue;
        if (r.cancel_requested) {
          this.fail(r.id, "Cancelled; its worker stopped before finishing.");
          failed.push(r.id);
        } else if (r.attempts < options.maxAttempts) {
          this.db
            .prepare("UPDATE backtest_jobs SET status = 'PENDING', lease_owner = NULL WHERE id = ?")
            .run(r.id);
          requeued.push(r.id);
        } else {
          this.fail(
            r.id,
            `The worker running this job stopped unexpectedly ${r.attempts} time(s) (last heartbeat ${r.heartbeat_at ?? "never"}); giving up. ${jobRestartHint(r.kind)}`,
          );
          failed.push(r.id);
        }
      }
      return { requeued, failed };
    });
    return run.immediate();
  }
}
