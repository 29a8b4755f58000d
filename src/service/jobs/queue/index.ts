/**
 * @module service/jobs/queue
 * Jobs on BullMQ (Redis) for deployments on a PostgreSQL store: the producer ({@link JobQueue}), the consumer
 * ({@link QueueWorker}) and the process entry of `lotwise worker` ({@link runQueueWorker}). See
 * docs/backtest-jobs.md, "Jobs on BullMQ".
 */
export {
  BullJobQueue,
  type BullJobQueueOptions,
  bullConnection,
  createBullJobQueue,
  DEFAULT_ENQUEUE_TIMEOUT_MS,
  DEFAULT_KEEP_FINISHED_SECONDS,
  EnqueueTimeoutError,
  pingClient,
  type QueueEntryData,
  queueNames,
} from "./bull-queue.js";
export {
  QUEUE_OWNER_PREFIX,
  QueueWorker,
  type QueueWorkerEvent,
  type QueueWorkerOptions,
  STALLED_LIMIT_REASON,
  stoppedWorkerMessage,
} from "./queue-worker.js";
export {
  type ThreadJobHandler,
  type ThreadJobHandlerOptions,
  threadJobHandler,
} from "./thread-handler.js";
export {
  DEFAULT_QUEUE_NAME,
  DEFAULT_QUEUE_PREFIX,
  type JobQueue,
  type QueueAbortReason,
  type QueueCancelOutcome,
  type QueueJobContext,
  type QueueJobHandler,
  type QueueLocation,
} from "./types.js";
export {
  DEFAULT_SHUTDOWN_GRACE_MS,
  type RunningQueueWorker,
  type RunQueueWorkerOptions,
  runQueueWorker,
} from "./worker-main.js";
