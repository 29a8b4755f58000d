/**
 * @module service/jobs/scan-executor
 * The scan kind of the job table (docs/scan.md, docs/backtest-jobs.md): runs {@link scanAccounts} over the job's
 * selection at the date fixed when the job was created, reporting accounts done through the job's progress record
 * (planned_periods = accounts selected, completed_periods = accounts scanned) and stopping between accounts on a
 * cancel request. {@link runClaimedJob} dispatches here for jobs of kind "scan".
 */
import { type ScanResult, scanJobRequestSchema } from "../../contract/index.js";
import type { BacktestJobRecord } from "../../store/index.js";
import type { ServiceContext } from "../context.js";
import { scanAccounts } from "../scan.js";
import type { BacktestRunHooks } from "./executor.js";

/** Most heartbeats (progress writes) of one scan job: one every 1% of its accounts, and the last account. */
export const SCAN_JOB_HEARTBEATS = 100;

/** Thrown between accounts to stop a cancelled scan; the runner records the cancellation, never this error. */
class ScanCancelled extends Error {}

/** What the job stores as resolved_params: the date of the scan and the accounts selected when it was created. */
export interface ScanJobResolved {
  as_of_date: string;
  selected_accounts: number;
}

/**
 * Runs the scan of a claimed job of kind "scan" and returns the whole scan (every row, no page).
 * @throws {PortfolioError} when the selection cannot be scanned any more (e.g. its client was deleted meanwhile)
 */
export function runScanJob(
  ctx: ServiceContext,
  job: BacktestJobRecord,
  hooks: BacktestRunHooks = {},
): Promise<ScanResult> {
  const {
    as_of_date,
    min_loss_usd,
    min_loss_fraction,
    async: _async,
    ...selection
  } = scanJobRequestSchema.parse(job.params);
  const resolved = job.resolvedParams as unknown as ScanJobResolved;
  let every = 1;
  return scanAccounts(ctx, job.organizationUuid, selection, {
    asOf: resolved.as_of_date ?? as_of_date,
    minLossUsd: min_loss_usd,
    minLossFraction: min_loss_fraction,
    onProgress: (done, total) => {
      if (done === 1) every = Math.max(1, Math.ceil(total / SCAN_JOB_HEARTBEATS));
      if (done % every === 0 || done === total)
        hooks.onProgress?.({ planned_periods: total, completed_periods: done, last_completed_period: null });
      if (done < total && hooks.shouldCancel?.()) throw new ScanCancelled("cancelled");
    },
  });
}
