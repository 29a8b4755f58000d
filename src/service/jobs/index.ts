/**
 * @module service/jobs
 * The backtest job system: the executor interface, the worker-thread runner with recovery of orphaned jobs, and
 * the single-job routine both threads and the in-process mode use.
 */
export { backtestExecutor, defaultBacktestExecutor } from "./default-executor.js";
export {
  type BacktestExecutor,
  type BacktestExecutorModule,
  type BacktestPeriodProgress,
  type BacktestRunHooks,
  type BacktestRunParams,
  DEFAULT_EXECUTOR_EXPORT,
  isBacktestExecutor,
  loadExecutor,
} from "./executor.js";
export {
  isLeaseOwnerLive,
  type LeaseOwnerParts,
  leaseOwnerName,
  parseLeaseOwner,
  processExists,
  registerLiveOwner,
} from "./lease-owner.js";
export {
  DEFAULT_CANCEL_CHECK_INTERVAL_MS,
  failureMessage,
  type JobOutcome,
  MAX_ERROR_MESSAGE_LENGTH,
  type RunClaimedJobOptions,
  runClaimedJob,
} from "./run-job.js";
export {
  BacktestJobRunner,
  type BacktestJobRunnerOptions,
  DEFAULT_CANCEL_GRACE_MS,
  DEFAULT_MAX_ATTEMPTS,
  DEFAULT_POLL_INTERVAL_MS,
  DEFAULT_STALE_HEARTBEAT_MS,
  DEFAULT_SWEEP_INTERVAL_MS,
  defaultConcurrency,
  type RecoveryReport,
  type RunnerEvent,
  recoverOrphanJobs,
  startOrphanSweep,
} from "./runner.js";
export { defaultExecutorModule, spawnJobWorker, spawnModuleWorker } from "./spawn-worker.js";
