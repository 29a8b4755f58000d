/**
 * @module service/rebalance-run-jobs
 * Rebalance runs on the distributed job queue (issue 16 item 4; docs/rebalance-runs.md, "On the job queue"). When
 * the service context has a queue (`lotwise serve --queue` on a PostgreSQL store), `POST .../rebalance_runs/`
 * processes no account in the request: it creates (or finds) the run exactly as {@link runRebalance} does, stores
 * one job of kind "rebalance_run" per shard of the run's pending accounts (positions `p % count === index`), puts
 * them on the queue, and answers the run `running` with `queued_jobs`. `lotwise worker` processes claim the jobs
 * and continue the run (service/jobs/rebalance-run-executor.ts); the outcomes, idempotence and resuming are those
 * of the run itself (an outcome row per account, unique), so a shard retried after a worker died, or two shards
 * reaching the same account, never store a second proposal. The same request again reports the run; when it is
 * still running and none of its jobs is waiting or running (a job failed for good), it queues the pending accounts
 * again.
 */
import {
  type BacktestProgress,
  REBALANCE_RUN_QUEUE_SHARDS,
  type RebalanceRun,
  type RebalanceRunRequest,
} from "../contract/index.js";
import type { ServiceContext } from "./context.js";
import { enqueueStoredJob } from "./job-queue.js";
import { activeRunJobs, type RebalanceRunJobParams, runRebalance } from "./rebalance-runs.js";

export { REBALANCE_RUN_QUEUE_SHARDS };

/** What a rebalance-run job stores as resolved_params. */
export interface RebalanceRunJobResolved {
  as_of_date: string;
  /** Accounts of the shard (its positions in the run), pending or not when the job was created. */
  shard_accounts: number;
}

/** Accounts of a run of `total` at positions `p % count === index`. */
export function shardSize(total: number, shard: { index: number; count: number }): number {
  return shard.index >= total ? 0 : Math.floor((total - 1 - shard.index) / shard.count) + 1;
}

/**
 * The rebalance run of `request` on the context's job queue: created or found as {@link runRebalance} does
 * (`force` starts a new one), no account processed here; when it is running and none of its jobs is waiting or
 * running, its pending accounts are stored as up to `shards` jobs and enqueued. Answers the run with `queued_jobs`.
 * Without a queue on the context it is {@link runRebalance} (the request processes the accounts).
 * @throws as {@link runRebalance} (a bad date or selection); nothing is queued then.
 * @example (await queueRebalanceRun(ctx, org, { when: "always" })).queued_jobs // 8
 */
export async function queueRebalanceRun(
  ctx: ServiceContext,
  org: string,
  request: RebalanceRunRequest,
  options: { shards?: number } = {},
): Promise<RebalanceRun> {
  if (ctx.jobQueue === undefined) return runRebalance(ctx, org, request);
  const run = await runRebalance(ctx, org, { ...request, max_accounts: 0 });
  if (run.status === "completed") return { ...run, queued_jobs: 0 };
  const active = await activeRunJobs(ctx, org, run.run_uuid);
  if (active.length > 0) return { ...run, queued_jobs: active.length };
  const total = run.totals.accounts;
  const count = Math.max(1, Math.min(run.totals.pending, options.shards ?? REBALANCE_RUN_QUEUE_SHARDS));
  const created = await ctx.store.transaction(async (tx) => {
    const ids: string[] = [];
    for (let index = 0; index < count; index++) {
      const shard = { index, count };
      const size = shardSize(total, shard);
      const params: RebalanceRunJobParams = { run_uuid: run.run_uuid, shard };
      const resolved: RebalanceRunJobResolved = { as_of_date: run.as_of_date, shard_accounts: size };
      const progress: BacktestProgress = {
        planned_periods: size,
        completed_periods: 0,
        last_completed_period: null,
        last_progress_at: null,
      };
      const job = await tx.backtestJobs.create(org, null, { ...params }, { ...resolved }, progress, {
        kind: "rebalance_run",
      });
      ids.push(job.id);
    }
    return ids;
  });
  for (const id of created) await enqueueStoredJob(ctx, id, "rebalance_run");
  return { ...run, queued_jobs: created.length };
}
