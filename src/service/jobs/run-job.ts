/**
 * @module service/jobs/run-job
 * Runs one claimed job to its end, on whatever thread holds the lease: calls the executor with hooks that record
 * progress (the heartbeat) under the lease and poll for cancel requests, then finishes the job as SUCCESS (a result
 * that matches the contract) or FAILURE with a message a user can act on. A run whose lease was taken away (the job
 * was recovered as stale, or re-queued) leaves the job to its new owner.
 *
 * A store locked by another process (a CLI import on the same file) does not fail the job: a heartbeat that cannot be
 * written is skipped (the next period writes one; staleness takes minutes), and the final write is retried with
 * backoff for up to {@link FINISH_BUSY_WAIT_MS}.
 *
 * The account backtest engine calls its hooks from inside a synchronous loop, so a heartbeat and a cancel check
 * cannot wait for the store there. On SQLite they run synchronously on the store's connection (`SqliteStore.engine`)
 * when no transaction holds it (a worker thread's own connection: always); otherwise (another task's transaction, or
 * a store without a synchronous face) they are started and their answer is applied when it arrives, at the latest
 * when the run ends (the runner's shared-memory cancel signal still stops the run at once); heartbeats then go one at
 * a time, the latest progress replacing any not yet sent.
 */
import * as z from "zod";
import {
  type BacktestProgress,
  backtestCaseResultSchema,
  backtestProgressSchema,
  backtestResolvedParamsSchema,
  LS_TLH_FACTORS,
  scanResultSchema,
  summarizeIssues,
  toFieldIssues,
} from "../../contract/index.js";
import { PortfolioError } from "../../core/errors.js";
import { type BacktestJobRecord, SqliteStore, type Store } from "../../store/index.js";
import { nowIso, type ServiceContext } from "../context.js";
import { busyBackoffMs, isStoreBusyError } from "../store-busy.js";
import type { BacktestExecutor, BacktestPeriodProgress, BacktestRunParams } from "./executor.js";
import { rebalanceRunJobResultSchema, runRebalanceRunJob } from "./rebalance-run-executor.js";
import { runScanJob } from "./scan-executor.js";

/** Longest error_message stored (a runaway message would bloat every read of the job). */
export const MAX_ERROR_MESSAGE_LENGTH = 4000;

/** Longest time the final write of a run (SUCCESS or FAILURE) is retried while the store is locked: 2 minutes. */
export const FINISH_BUSY_WAIT_MS = 120_000;

/**
 * Runs a write, retrying it while the store is locked (each attempt also waits the connection's own busy timeout),
 * waiting with backoff between attempts, for up to `maxWaitMs`.
 * @throws the busy error once `maxWaitMs` has passed; any other error at once.
 */
async function writeWhenFree<T>(
  write: () => Promise<T>,
  maxWaitMs: number,
  monotonic: () => number,
): Promise<T> {
  const deadline = monotonic() + maxWaitMs;
  for (let attempt = 1; ; attempt++) {
    try {
      return await write();
    } catch (err) {
      const left = deadline - monotonic();
      if (!isStoreBusyError(err) || left <= 0) throw err;
      await new Promise((resolve) => setTimeout(resolve, Math.min(busyBackoffMs(attempt, 50, 1000), left)));
    }
  }
}

/** Default minimum time between two reads of the job's cancel flag in the store. */
export const DEFAULT_CANCEL_CHECK_INTERVAL_MS = 200;

/** How a run ended. `lost`: the lease was taken away, the job belongs to someone else now. */
export type JobOutcome =
  | { status: "SUCCESS"; progress: BacktestProgress }
  | { status: "FAILURE"; errorMessage: string; progress: BacktestProgress }
  | { status: "LOST"; reason: string };

/** Options of {@link runClaimedJob}. */
export interface RunClaimedJobOptions {
  /** Store and clock of the running thread. */
  ctx: ServiceContext;
  /** The job, as returned by the claim (RUNNING under `owner`). */
  job: BacktestJobRecord;
  owner: string;
  executor: BacktestExecutor;
  /** A cancel signal faster than the store (e.g. shared memory set by the runner). */
  cancelSignal?: () => boolean;
  /** Minimum milliseconds between two reads of the cancel flag in the store. @default DEFAULT_CANCEL_CHECK_INTERVAL_MS */
  cancelCheckIntervalMs?: number;
  /** Called after each recorded period. */
  onProgress?: (progress: BacktestProgress) => void;
  /** Monotonic milliseconds (throttling only). @default performance.now */
  monotonicMs?: () => number;
  /** Longest wait of the final write for a locked store. @default FINISH_BUSY_WAIT_MS */
  finishBusyWaitMs?: number;
}

const resultSchema = z.record(z.string().min(1), backtestCaseResultSchema);

/** Thrown inside the executor's hooks to abort a run whose lease is gone; never stored. */
class LeaseLostSignal extends Error {}

/** The message stored for an error thrown by the executor (`engine`: what ran, "backtest" or "scan"). */
export function failureMessage(err: unknown, engine = "backtest"): string {
  let text: string;
  if (err instanceof PortfolioError) text = err.message;
  else if (err instanceof Error)
    text = `Internal error in the ${engine} engine (${err.name}: ${err.message}). Please report it with the job id.`;
  else
    text = `Internal error in the ${engine} engine: it threw ${String(err)}. Please report it with the job id.`;
  return text.length > MAX_ERROR_MESSAGE_LENGTH ? `${text.slice(0, MAX_ERROR_MESSAGE_LENGTH - 3)}...` : text;
}

/** Parameters of the run: resolved parameters (checked) plus the long-short factor of the request. */
function runParams(job: BacktestJobRecord): BacktestRunParams {
  const resolved = backtestResolvedParamsSchema.parse(job.resolvedParams);
  const factor = job.params.ls_tlh_factor;
  return (LS_TLH_FACTORS as readonly unknown[]).includes(factor)
    ? { ...resolved, ls_tlh_factor: factor as BacktestRunParams["ls_tlh_factor"] & string }
    : resolved;
}

/** The result of a finished run of `job`, checked against the contract of its kind (or why it does not match). */
function checkedResult(
  job: BacktestJobRecord,
  result: unknown,
): { data: Record<string, unknown> } | { error: string } {
  if (job.kind === "rebalance_run") {
    const run = rebalanceRunJobResultSchema.safeParse(result);
    return run.success
      ? { data: run.data }
      : {
          error: `the rebalance-run job's result does not match its schema: ${summarizeIssues(toFieldIssues(run.error))}`,
        };
  }
  if (job.kind === "scan") {
    const scan = scanResultSchema.safeParse(result);
    return scan.success
      ? { data: scan.data }
      : { error: `the scan does not match the contract: ${summarizeIssues(toFieldIssues(scan.error))}` };
  }
  const parsed = resultSchema.safeParse(result);
  if (!parsed.success)
    return {
      error: `the result does not match the contract: ${summarizeIssues(toFieldIssues(parsed.error))}`,
    };
  return Object.keys(parsed.data).length === 0 ? { error: "the result has no case" } : { data: parsed.data };
}

/**
 * Runs a claimed job and records how it ended (unless the lease was lost). Never throws for a failing backtest or
 * scan: every error becomes the job's FAILURE. A job of kind "scan" runs {@link runScanJob} (progress in accounts),
 * one of kind "rebalance_run" {@link runRebalanceRunJob} (its shard of a rebalance run, progress in accounts);
 * a backtest runs on `executor`.
 * @example const outcome = await runClaimedJob({ ctx, job: (await store.backtestJobs.claimNext(owner))!, owner, executor });
 */
export async function runClaimedJob(options: RunClaimedJobOptions): Promise<JobOutcome> {
  const { ctx, job, owner, executor } = options;
  const jobs = ctx.store.backtestJobs;
  // See the module doc: the hooks' store calls, synchronous when the connection allows it.
  const sqlite = ctx.store instanceof SqliteStore ? ctx.store : undefined;
  const now = <T>(op: (engine: Store) => T): { done: true; value: T } | { done: false } =>
    sqlite?.isOpen && !sqlite.transactionOpen ? { done: true, value: op(sqlite.engine) } : { done: false };
  const pending: Promise<void>[] = [];
  let reading = false;
  const monotonic = options.monotonicMs ?? (() => performance.now());
  const checkEvery = options.cancelCheckIntervalMs ?? DEFAULT_CANCEL_CHECK_INTERVAL_MS;
  let progress: BacktestProgress = {
    planned_periods: job.progress?.planned_periods ?? 0,
    completed_periods: 0,
    last_completed_period: null,
    last_progress_at: job.progress?.last_progress_at ?? null,
  };
  let cancelled = false;
  let lost: string | undefined;
  let lastCheck = Number.NEGATIVE_INFINITY;

  // Heartbeats through an asynchronous store: one write in flight at a time, the latest progress next. A synchronous
  // engine loop reports every period before any write can leave, so one write per heartbeat would start them all at
  // once when the loop yields (on PostgreSQL: as many pooled connections, up to the pool's size, per job thread).
  let writing = false;
  let latest: BacktestProgress | undefined;
  const writeLater = (data: BacktestProgress, takenOver: string) => {
    latest = data;
    if (writing) return;
    writing = true;
    pending.push(
      (async () => {
        while (latest !== undefined && lost === undefined) {
          const write = latest;
          latest = undefined;
          try {
            if (!(await jobs.progress(job.id, owner, write))) lost ??= takenOver;
          } catch (err) {
            if (!isStoreBusyError(err)) lost ??= `its heartbeat could not be written (${String(err)})`;
          }
        }
        writing = false;
      })(),
    );
  };

  const onProgress = (p: BacktestPeriodProgress) => {
    if (lost !== undefined) throw new LeaseLostSignal(lost);
    const next = backtestProgressSchema.safeParse({
      planned_periods: p.planned_periods,
      completed_periods: p.completed_periods,
      last_completed_period: p.last_completed_period,
      last_progress_at: nowIso(ctx),
    });
    if (!next.success)
      throw new TypeError(
        `onProgress received an invalid progress record (${summarizeIssues(toFieldIssues(next.error))})`,
      );
    const takenOver = "the job's lease was taken over while it ran (its heartbeat was considered stale)";
    let recorded: boolean;
    try {
      const r = now((engine) => engine.backtestJobs.progress(job.id, owner, next.data));
      if (r.done) recorded = r.value;
      else {
        recorded = true;
        writeLater(next.data, takenOver);
      }
    } catch (err) {
      // Another process holds the write lock: skip this heartbeat, the run goes on (the next period writes one).
      if (!isStoreBusyError(err)) throw err;
      recorded = true;
    }
    if (!recorded) {
      lost = takenOver;
      throw new LeaseLostSignal(lost);
    }
    progress = next.data;
    options.onProgress?.(progress);
  };
  const shouldCancel = () => {
    if (cancelled || lost !== undefined) return true;
    if (options.cancelSignal?.()) cancelled = true;
    else if (monotonic() - lastCheck >= checkEvery) {
      lastCheck = monotonic();
      const apply = (current: BacktestJobRecord | undefined) => {
        if (current?.status !== "RUNNING" || current.leaseOwner !== owner)
          lost ??= "the job is no longer leased to this worker";
        else if (current.cancelRequested) cancelled = true;
      };
      const r = now((engine) => engine.backtestJobs.getById(job.id));
      if (r.done) apply(r.value);
      else if (!reading) {
        reading = true;
        pending.push(
          jobs
            .getById(job.id)
            .then(apply, () => undefined)
            .finally(() => {
              reading = false;
            }),
        );
      }
    }
    return cancelled || lost !== undefined;
  };

  let result: unknown;
  let error: unknown;
  let failed = false;
  try {
    const hooks = { onProgress, shouldCancel };
    if (job.kind === "scan") result = await runScanJob(ctx, job, hooks);
    else if (job.kind === "rebalance_run") result = await runRebalanceRunJob(ctx, job, hooks);
    else if (job.accountUuid === null) throw new TypeError("a backtest job without an account");
    else result = await executor.run(ctx, job.organizationUuid, job.accountUuid, runParams(job), hooks);
  } catch (err) {
    failed = true;
    error = err;
  }
  await Promise.all(pending);
  if (lost !== undefined) return { status: "LOST", reason: lost };
  const finishWait = options.finishBusyWaitMs ?? FINISH_BUSY_WAIT_MS;
  const fail = async (message: string): Promise<JobOutcome> =>
    (await writeWhenFree(() => jobs.fail(job.id, message, owner), finishWait, monotonic))
      ? { status: "FAILURE", errorMessage: message, progress }
      : { status: "LOST", reason: "the job was finished or re-queued by someone else meanwhile" };
  const unit = job.kind === "backtest" ? "periods" : "accounts";
  if (cancelled)
    return fail(
      `Cancelled on request after ${progress.completed_periods} of ${progress.planned_periods} ${unit}${progress.last_completed_period ? ` (last completed period ${progress.last_completed_period})` : ""}.`,
    );
  if (failed) return fail(failureMessage(error, job.kind.replace("_", "-")));
  const checked = checkedResult(job, result);
  if ("error" in checked) return fail(failureMessage(new Error(checked.error), job.kind.replace("_", "-")));
  return (await writeWhenFree(
    () => jobs.succeed(job.id, owner, checked.data, progress),
    finishWait,
    monotonic,
  ))
    ? { status: "SUCCESS", progress }
    : { status: "LOST", reason: "the job was finished or re-queued by someone else meanwhile" };
}
