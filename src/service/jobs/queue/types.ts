/**
 * @module service/jobs/queue/types
 * What the service and `lotwise worker` see of the distributed job queue used when the store is PostgreSQL
 * (docs/backtest-jobs.md, "Jobs on BullMQ"). The queue carries only job ids; the job's state, progress, cancel
 * flag and result live in the store's job row, so endpoint 2 answers from the store exactly as with SQLite.
 */
import type { BacktestJobRecord, BacktestProgress, BacktestStatus } from "../../../store/index.js";
import type { JobKind } from "../../../store/records.js";

/** What happened to a cancel request (see {@link JobQueue.cancel}). */
export interface QueueCancelOutcome {
  /** The job row's status after the request; null when the store has no such job. */
  status: BacktestStatus | null;
  /** True when the job was still waiting in the queue and was removed from it. */
  removedFromQueue: boolean;
}

/** The producer side: what the service calls after it stored a job row (and when a user cancels one). */
export interface JobQueue {
  /**
   * Put the stored job `jobId` on the queue. The queue's job id is the store's job id, so enqueueing an id that is
   * already queued, running or recently finished adds nothing (a job is never run twice).
   */
  enqueue(jobId: string, kind: JobKind): Promise<void>;
  /**
   * Cancel a job from any machine: marks the store row (a PENDING job fails at once, "Cancelled before it
   * started."; a RUNNING one gets its cancel flag, which its worker polls between periods) and removes the queue
   * entry while it is still waiting. A finished job is left as it is.
   */
  cancel(jobId: string): Promise<QueueCancelOutcome>;
  /** Resolves when the queue's server answers (readiness checks); rejects otherwise. */
  ping(): Promise<void>;
  /**
   * Where the queue lives, when another thread may open a producer of its own on it (the HTTP server's request
   * workers do). Holds credentials: never print it.
   */
  readonly location?: QueueLocation;
  close(): Promise<void>;
}

/** Why a running job's signal was aborted: `signal.reason` is one of these. */
export type QueueAbortReason =
  /** A user asked to cancel the job (the store row's cancel flag). Fail it as cancelled. */
  | "cancel"
  /** The worker is shutting down; the job has already been handed back. Stop; any further write is refused. */
  | "shutdown"
  /** The job's lease was taken away (it was given to another worker). Stop; any further write is refused. */
  | "lost";

/** What a handler gets for one job. */
export interface QueueJobContext {
  /** The job, claimed by this worker: RUNNING under {@link leaseOwner}, `attempts` already counted. */
  job: BacktestJobRecord;
  /** The lease-owner name under which every progress and final write of this run must be made. */
  leaseOwner: string;
  /** Aborted when the run should stop; `signal.reason` is a {@link QueueAbortReason}. */
  signal: AbortSignal;
  /** Mirror progress to the queue (monitoring only; the store's progress is written by the handler). */
  reportProgress(progress: BacktestProgress): void;
}

/**
 * Runs one claimed job to its end and records the outcome in the store (SUCCESS or FAILURE under the lease), e.g.
 * `runClaimedJob` with `cancelSignal: () => signal.reason === "cancel"`. It must let the event loop run at least
 * every half lock duration (the queue's lock is renewed by a timer): run the engine on a worker thread or await
 * between periods.
 */
export type QueueJobHandler = (jobId: string, context: QueueJobContext) => Promise<void>;

/** Where the queue lives. */
export interface QueueLocation {
  /** `redis://[user:password@]host:port[/db]` (or `rediss://`). */
  connection: string;
  /** Prefix of every Redis key of the queue (one per deployment, or per test). @default "lotwise" */
  prefix?: string;
  /** Name of the queue under the prefix. @default "jobs" */
  queueName?: string;
}

export const DEFAULT_QUEUE_PREFIX = "lotwise";
export const DEFAULT_QUEUE_NAME = "jobs";
