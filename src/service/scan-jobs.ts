/**
 * @module service/scan-jobs
 * The scan as a job (issue 14 item 6, docs/scan.md): `POST .../scan_jobs/` scans a selection of at most
 * `limits.scanJobThreshold` accounts (default {@link SCAN_JOB_THRESHOLD}) at once and answers the job finished; a
 * larger selection, or a request with `async`, is stored as a PENDING job of kind "scan" in the job table and runs on
 * the job runner's workers like a backtest (claiming, leases, heartbeats, recovery, cancel), its progress record
 * counting accounts. Read it back (status, progress, the whole scan when SUCCESS) or cancel it by id.
 */
import {
  type BacktestProgress,
  SCAN_JOB_THRESHOLD,
  type ScanJob,
  type ScanJobRequest,
  type ScanResult,
} from "../contract/index.js";
import { ConflictError } from "../core/errors.js";
import type { BacktestJobRecord } from "../store/index.js";
import { selectAccounts } from "./account-selection.js";
import type { BacktestServiceContext } from "./backtest-jobs.js";
import { checkedAsOf, type ServiceContext, serviceLimit } from "./context.js";
import { cancelThroughQueue, enqueueStoredJob } from "./job-queue.js";
import type { ScanJobResolved } from "./jobs/scan-executor.js";
import { scanAccounts } from "./scan.js";

export { SCAN_JOB_THRESHOLD };

/** Lease owner recorded on a scan job finished inside the request that created it. */
const IN_REQUEST_OWNER = "in-request";

/** A stored scan job in the wire shape of the contract (the progress record counts accounts). */
export function scanJobRead(job: BacktestJobRecord): ScanJob {
  const resolved = job.resolvedParams as unknown as ScanJobResolved;
  return {
    id: job.id,
    status: job.status,
    params: job.params as ScanJobRequest,
    as_of_date: resolved.as_of_date,
    progress: {
      total_accounts: job.progress?.planned_periods ?? resolved.selected_accounts,
      completed_accounts: job.progress?.completed_periods ?? 0,
      last_progress_at: job.progress?.last_progress_at ?? null,
    },
    result: job.result as ScanResult | null,
    error_message: job.errorMessage,
    created_at: job.createdAt,
    started_at: job.startedAt,
    finished_at: job.finishedAt,
  };
}

/**
 * Starts a scan of the selected accounts: checks the selection and the date now (the date is fixed for the job),
 * then either scans at once (at most `limits.scanJobThreshold` accounts, no `async`: the job is stored SUCCESS
 * with the scan) or stores a PENDING job for the workers and tells this process's runner.
 * @throws {NotFoundError} `client_not_found`, `portfolio_config_not_found`, `account_not_found` for a selection
 *   naming something that is not the organization's
 * @throws {ValidationError} for a date outside the market data
 * @throws {TooManyRequestsError} `too_many_queued_jobs` when the organization's job queue is full
 * @example (await startScanJob(ctx, org, { status: ["breach"], async: true })).status // "PENDING"
 */
export async function startScanJob(
  ctx: ServiceContext,
  org: string,
  request: ScanJobRequest = {},
): Promise<ScanJob> {
  const { as_of_date, min_loss_usd, min_loss_fraction, async, ...selection } = request;
  const asOf = await checkedAsOf(ctx, as_of_date);
  const selected = (await selectAccounts(ctx, org, selection)).length;
  const resolved: ScanJobResolved = { as_of_date: asOf, selected_accounts: selected };
  const progress = (done: number): BacktestProgress => ({
    planned_periods: selected,
    completed_periods: done,
    last_completed_period: null,
    last_progress_at: done === 0 ? null : ctx.clock().toISOString(),
  });
  const threshold = serviceLimit(ctx, "scanJobThreshold");
  const jobs = ctx.store.backtestJobs;
  if (async !== true && threshold > 0 && selected <= threshold) {
    const result = await scanAccounts(ctx, org, selection, {
      asOf,
      minLossUsd: min_loss_usd,
      minLossFraction: min_loss_fraction,
    });
    // Created, claimed and finished in one transaction: no runner can claim it meanwhile.
    const job = await ctx.store.transaction(async (tx) => {
      const created = await tx.backtestJobs.create(org, null, request, { ...resolved }, progress(0), {
        kind: "scan",
      });
      await tx.backtestJobs.claim(created.id, IN_REQUEST_OWNER);
      await tx.backtestJobs.succeed(created.id, IN_REQUEST_OWNER, result, progress(selected));
      return tx.backtestJobs.require(org, created.id, undefined, "scan");
    });
    return scanJobRead(job);
  }
  const cap = serviceLimit(ctx, "maxQueuedJobsPerOrganization");
  const job = await jobs.create(org, null, request, { ...resolved }, progress(0), {
    kind: "scan",
    ...(cap > 0 ? { maxPending: cap } : {}),
  });
  (ctx as BacktestServiceContext).backtestRunner?.wake();
  await enqueueStoredJob(ctx, job.id, "scan");
  return scanJobRead(job);
}

/**
 * A scan job by id within the organization.
 * @throws {NotFoundError} `scan_job_not_found` (also for another organization's job, or a backtest job's id)
 */
export async function getScanJob(ctx: ServiceContext, org: string, jobId: string): Promise<ScanJob> {
  return scanJobRead(await ctx.store.backtestJobs.require(org, jobId, undefined, "scan"));
}

/**
 * Cancels a scan job: a PENDING job fails at once ("Cancelled before it started."), a RUNNING one stops before its
 * next account and fails as cancelled.
 * @throws {NotFoundError} `scan_job_not_found`
 * @throws {ConflictError} `scan_job_finished` for a job that is already SUCCESS or FAILURE
 */
export async function cancelScanJob(ctx: ServiceContext, org: string, jobId: string): Promise<ScanJob> {
  const job = await ctx.store.backtestJobs.require(org, jobId, undefined, "scan");
  if (job.status === "SUCCESS" || job.status === "FAILURE")
    throw new ConflictError(
      `Scan job ${jobId} already finished with status ${job.status} at ${job.finishedAt ?? "an unknown time"}; there is nothing to cancel.`,
      "scan_job_finished",
    );
  const after = (await cancelThroughQueue(ctx, jobId))
    ? await ctx.store.backtestJobs.require(org, jobId, undefined, "scan")
    : await ctx.store.backtestJobs.requestCancel(org, jobId, "scan");
  if (after.status === "RUNNING") (ctx as BacktestServiceContext).backtestRunner?.signalCancel(jobId);
  return scanJobRead(after);
}
