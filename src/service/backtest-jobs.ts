/**
 * @module service/backtest-jobs
 * Endpoint 2 (start an account backtest) and its extensions: read a job, list an account's jobs, cancel a job.
 * Starting validates and resolves the parameters (defaults filled by the engine's resolver), stores a PENDING job
 * and tells this process's job runner, if any; the run itself happens on a worker thread (service/jobs), never on
 * the caller's thread. See docs/backtest-jobs.md for states, transitions and recovery.
 */
import {
  type BacktestJob,
  type BacktestProgress,
  type BacktestRequest,
  backtestResolvedParamsSchema,
  summarizeIssues,
  toFieldIssues,
} from "../contract/index.js";
import { ConflictError } from "../core/errors.js";
import type { BacktestJobRecord } from "../store/index.js";
import { type ServiceContext, serviceLimit } from "./context.js";
import { cancelThroughQueue, enqueueStoredJob } from "./job-queue.js";
import { defaultBacktestExecutor } from "./jobs/default-executor.js";
import type { BacktestExecutor } from "./jobs/executor.js";

/**
 * What the backtest operations may find on the service context besides store and clock (both optional): the
 * engine that resolves defaults, and the job runner of this process (told about new jobs and cancel requests so
 * that it reacts at once rather than at its next poll).
 */
export interface BacktestServiceContext extends ServiceContext {
  /** @default defaultBacktestExecutor() */
  readonly backtestExecutor?: BacktestExecutor;
  readonly backtestRunner?: {
    wake(): void;
    signalCancel(jobId: string): boolean;
  };
}

let defaultExecutor: BacktestExecutor | undefined;

function executorOf(ctx: ServiceContext): BacktestExecutor {
  const own = (ctx as BacktestServiceContext).backtestExecutor;
  if (own) return own;
  defaultExecutor ??= defaultBacktestExecutor();
  return defaultExecutor;
}

/** Progress of a job that has not started. */
const NOT_STARTED: BacktestProgress = {
  planned_periods: 0,
  completed_periods: 0,
  last_completed_period: null,
  last_progress_at: null,
};

/** A stored job in the wire shape of the contract. */
export function backtestJobRead(job: BacktestJobRecord): BacktestJob {
  return {
    id: job.id,
    account_uuid: job.accountUuid ?? undefined,
    status: job.status,
    params: job.params as BacktestRequest,
    resolved_params: job.resolvedParams as BacktestJob["resolved_params"],
    progress: job.progress ?? NOT_STARTED,
    result: job.result as BacktestJob["result"],
    error_message: job.errorMessage,
    created_at: job.createdAt,
    started_at: job.startedAt,
    finished_at: job.finishedAt,
  };
}

/**
 * Endpoint 2: validates the account and the parameters, resolves the defaults and stores a PENDING job (returned
 * with `resolved_params`). The job runs later on a worker thread.
 * @throws {NotFoundError} `client_not_found` / `account_not_found` for an account that is not the organization's
 * @throws {ValidationError} naming the field when the parameters do not fit the account or the market data
 * @throws {TooManyRequestsError} `too_many_queued_jobs` when the organization already has
 * `limits.maxQueuedJobsPerOrganization` (default 100) PENDING jobs
 * @example await startBacktest(ctx, org, client, account, { start_date: "2020-01-02", tax_gamma: 1 }) // status PENDING
 */
export async function startBacktest(
  ctx: ServiceContext,
  org: string,
  clientUuid: string,
  accountUuid: string,
  request: BacktestRequest,
): Promise<BacktestJob> {
  await ctx.store.accounts.require(org, clientUuid, accountUuid);
  const resolved = await executorOf(ctx).resolveParams(ctx, org, accountUuid, request);
  const checked = backtestResolvedParamsSchema.safeParse(resolved);
  if (!checked.success)
    throw new TypeError(
      `startBacktest: the engine resolved parameters that do not match the contract (${summarizeIssues(toFieldIssues(checked.error))})`,
    );
  const cap = serviceLimit(ctx, "maxQueuedJobsPerOrganization");
  const job = await ctx.store.backtestJobs.create(
    org,
    accountUuid,
    request,
    checked.data,
    NOT_STARTED,
    cap > 0 ? { maxPending: cap } : {},
  );
  (ctx as BacktestServiceContext).backtestRunner?.wake();
  await enqueueStoredJob(ctx, job.id, job.kind);
  return backtestJobRead(job);
}

/**
 * A job by id within the organization; with `account`, the job must also belong to that client's account.
 * @throws {NotFoundError} `backtest_not_found` (also for another organization's job), `client_not_found`,
 * `account_not_found`
 */
export async function getBacktest(
  ctx: ServiceContext,
  org: string,
  jobId: string,
  account?: { clientUuid: string; accountUuid: string },
): Promise<BacktestJob> {
  if (account) await ctx.store.accounts.require(org, account.clientUuid, account.accountUuid);
  return backtestJobRead(await ctx.store.backtestJobs.require(org, jobId, account?.accountUuid));
}

/**
 * The jobs of one account, oldest first.
 * @throws {NotFoundError} `client_not_found` / `account_not_found`
 */
export async function listBacktests(
  ctx: ServiceContext,
  org: string,
  clientUuid: string,
  accountUuid: string,
): Promise<BacktestJob[]> {
  await ctx.store.accounts.require(org, clientUuid, accountUuid);
  return (await ctx.store.backtestJobs.list(org, { accountUuid })).map(backtestJobRead);
}

/**
 * Cancels a job: a PENDING job fails at once ("Cancelled before it started."), a RUNNING one stops at its next
 * period and fails as cancelled (its worker is terminated if it does not stop within the runner's grace period).
 * @throws {NotFoundError} `backtest_not_found`
 * @throws {ConflictError} `backtest_finished` for a job that is already SUCCESS or FAILURE
 */
export async function cancelBacktest(ctx: ServiceContext, org: string, jobId: string): Promise<BacktestJob> {
  const job = await ctx.store.backtestJobs.require(org, jobId);
  if (job.status === "SUCCESS" || job.status === "FAILURE")
    throw new ConflictError(
      `Backtest job ${jobId} already finished with status ${job.status} at ${job.finishedAt ?? "an unknown time"}; there is nothing to cancel.`,
      "backtest_finished",
    );
  const after = (await cancelThroughQueue(ctx, jobId))
    ? await ctx.store.backtestJobs.require(org, jobId)
    : await ctx.store.backtestJobs.requestCancel(org, jobId);
  if (after.status === "RUNNING") (ctx as BacktestServiceContext).backtestRunner?.signalCancel(jobId);
  return backtestJobRead(after);
}
