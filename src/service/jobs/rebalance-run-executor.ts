/**
 * @module service/jobs/rebalance-run-executor
 * The rebalance_run kind of the job table (service/rebalance-run-jobs.ts, docs/rebalance-runs.md): continues the
 * job's run over its shard of accounts (positions `p % count === index`) with {@link continueRebalanceRun},
 * reporting progress in accounts (planned_periods = the shard's accounts, completed_periods = those with an outcome)
 * and stopping between accounts on a cancel request, a shutdown or a lost lease. A retried job (its worker died)
 * processes only the accounts still pending: outcomes are unique per account. {@link runClaimedJob} dispatches here.
 */
import * as z from "zod";
import type { BacktestJobRecord } from "../../store/index.js";
import type { ServiceContext } from "../context.js";
import type { RebalanceRunJobResolved } from "../rebalance-run-jobs.js";
import { continueRebalanceRun, type RebalanceRunJobParams } from "../rebalance-runs.js";
import type { BacktestRunHooks } from "./executor.js";

/** Thrown between accounts to stop a cancelled run; the runner records the cancellation, never this error. */
class RunStopped extends Error {}

/** What a finished rebalance-run job stores as its result. */
export const rebalanceRunJobResultSchema = z.strictObject({
  run_uuid: z.string(),
  shard: z.strictObject({ index: z.int().nonnegative(), count: z.int().positive() }),
  /** Accounts this job gave an outcome to (a retried job counts only its own attempt's). */
  processed: z.int().nonnegative(),
});
export type RebalanceRunJobResult = z.infer<typeof rebalanceRunJobResultSchema>;

/**
 * Continues the run of a claimed job of kind "rebalance_run" over its shard and returns what it processed.
 * @throws {PortfolioError} when the run is gone (`rebalance_run_not_found`: its organization was deleted)
 */
export async function runRebalanceRunJob(
  ctx: ServiceContext,
  job: BacktestJobRecord,
  hooks: BacktestRunHooks = {},
): Promise<RebalanceRunJobResult> {
  const { run_uuid, shard } = job.params as unknown as RebalanceRunJobParams;
  const planned = (job.resolvedParams as unknown as RebalanceRunJobResolved).shard_accounts;
  const org = job.organizationUuid;
  const outcomes = await ctx.store.rebalanceRuns.outcomes(run_uuid);
  const run = await ctx.store.rebalanceRuns.get(org, run_uuid);
  let done = 0;
  run?.accountUuids.forEach((account, position) => {
    if (position % shard.count === shard.index && outcomes.has(account)) done++;
  });
  if (hooks.shouldCancel?.()) throw new RunStopped("cancelled");
  const processed = await continueRebalanceRun(ctx, org, run_uuid, {
    shard,
    onProgress: () => {
      done++;
      hooks.onProgress?.({ planned_periods: planned, completed_periods: done, last_completed_period: null });
      if (hooks.shouldCancel?.()) throw new RunStopped("cancelled");
    },
  });
  return { run_uuid, shard, processed };
}
