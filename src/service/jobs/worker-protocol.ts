/**
 * @module service/jobs/worker-protocol
 * Messages between the runner (main thread) and its worker threads. The runner only dispatches and watches; the
 * worker claims, runs and finishes jobs through its own store connection, so a job's state lives in the store and
 * survives the loss of either side.
 */
import type { BacktestProgress } from "../../contract/index.js";
import type { BacktestExecutorModule } from "./executor.js";
import type { JobOutcome } from "./run-job.js";

/** `workerData` of a worker thread. */
export interface WorkerInit {
  /** Path of the store file (WAL; each worker opens its own connection). */
  storePath: string;
  /** Lease owner name of this worker. */
  owner: string;
  executor: BacktestExecutorModule;
  /**
   * One Int32 the runner sets to the sequence number of the worker's current job to cancel it without going
   * through the store (read by the run's shouldCancel hook).
   */
  cancelSignal: SharedArrayBuffer;
  cancelCheckIntervalMs: number;
  /** Most RUNNING jobs of one organization when claiming the next job (no limit when absent). */
  maxRunningPerOrganization?: number;
}

/** Runner -> worker. */
export type ToWorker =
  /** Claim the given PENDING job, or the next PENDING job (fair across organizations) when `jobId` is absent, and run it. */
  | { type: "claim"; jobId?: string }
  /**
   * Run the job `jobId` that another thread already claimed under `owner` (a queue worker's lease): progress, cancel
   * checks and the outcome are written under `owner`. Answers `idle` when the row is not RUNNING under `owner`.
   */
  | { type: "run"; jobId: string; owner: string }
  /** Close the store and end the thread (sent to idle workers). */
  | { type: "stop" };

/** Worker -> runner. */
export type FromWorker =
  /** The executor is loaded and the store open. */
  | { type: "ready" }
  /** The worker cannot work (executor module or store failed); it ends after this message. */
  | { type: "fatal"; message: string }
  /**
   * The claim found nothing to run (for a given job: it is not PENDING anymore), or, with `busy`, could not look
   * because another process held the store's write lock (the runner asks again later).
   */
  | { type: "idle"; jobId?: string; busy?: boolean }
  /** A job was claimed; `seq` identifies this run for the cancel signal. */
  | { type: "started"; jobId: string; seq: number; attempts: number }
  | { type: "progress"; jobId: string; progress: BacktestProgress }
  | { type: "finished"; jobId: string; outcome: JobOutcome };
