/**
 * @module service/jobs/queue/worker-main
 * The body of `lotwise worker`: a {@link QueueWorker} on the deployment's queue that stops gracefully on SIGTERM or
 * SIGINT. On the first signal it takes no more jobs and lets the running ones finish for `graceMs`; jobs still
 * running then are handed back (store row PENDING, queue entry waiting) so another worker runs them. A second
 * signal hands them back at once. The caller closes the store and exits once `done` resolves.
 */
import { QueueWorker, type QueueWorkerOptions } from "./queue-worker.js";
import type { QueueJobHandler } from "./types.js";

/** Default time running jobs get to finish after SIGTERM: 30 s (leave room under the orchestrator's kill timeout). */
export const DEFAULT_SHUTDOWN_GRACE_MS = 30_000;

/** Options of {@link runQueueWorker}. */
export interface RunQueueWorkerOptions
  extends Omit<QueueWorkerOptions, "connection" | "handler" | "store" | "log" | "concurrency"> {
  store: QueueWorkerOptions["store"];
  /** `redis://...` (LOTWISE_QUEUE). */
  queueUrl: string;
  /** Jobs run at once by this process. @default 1 */
  concurrency?: number;
  handler: QueueJobHandler;
  log?: (line: string) => void;
  /** How long running jobs may finish after the first signal (ms). @default DEFAULT_SHUTDOWN_GRACE_MS */
  graceMs?: number;
  /** Signals that stop the worker. @default ["SIGTERM", "SIGINT"] */
  signals?: readonly NodeJS.Signals[];
}

/** A running worker process body. */
export interface RunningQueueWorker {
  readonly worker: QueueWorker;
  /** False when a signal (or {@link stop}) came before the worker took jobs (Redis never answered): it is stopping. */
  readonly started: boolean;
  /** Stop as on SIGTERM (idempotent); resolves when every job is finished or handed back. */
  stop(graceMs?: number): Promise<void>;
  /** Resolves once the worker has stopped (after a signal or {@link stop}). */
  readonly done: Promise<void>;
}

/**
 * Start consuming the queue at `queueUrl` with `handler` and install the signal handlers (removed when stopped).
 * @example
 * const w = await runQueueWorker({ store, queueUrl: process.env.LOTWISE_QUEUE!, concurrency: 2, handler, log });
 * await w.done; await store.close();
 */
export async function runQueueWorker(options: RunQueueWorkerOptions): Promise<RunningQueueWorker> {
  const log = options.log ?? (() => {});
  const graceMs = options.graceMs ?? DEFAULT_SHUTDOWN_GRACE_MS;
  const signals = options.signals ?? (["SIGTERM", "SIGINT"] as const);
  const { queueUrl, signals: _signals, graceMs: _grace, ...rest } = options;
  const worker = new QueueWorker({ ...rest, connection: queueUrl, log });
  let stopping: Promise<void> | undefined;
  let resolveDone!: () => void;
  const done = new Promise<void>((resolve) => {
    resolveDone = resolve;
  });

  const stop = (grace = graceMs): Promise<void> => {
    if (!stopping) {
      const n = worker.running;
      log(
        `stopping: taking no more jobs; ${n} running job(s) get ${Math.round(grace / 1000)} s to finish, then go back to the queue`,
      );
      stopping = worker.close({ graceMs: grace }).then(() => {
        for (const s of signals) process.off(s, onSignal);
        log("stopped");
        resolveDone();
      });
    }
    return stopping;
  };

  function onSignal(signal: NodeJS.Signals): void {
    if (stopping) {
      log(`${signal} again: handing the running jobs back now`);
      worker.handBackAll();
      return;
    }
    log(`${signal} received`);
    void stop();
  }

  // One line when a job starts and when it ends: which worker ran a job, and for how long, is in its log.
  const since = new Map<string, number>();
  worker.onEvent((e) => {
    if (e.type === "started") {
      since.set(e.jobId, performance.now());
      log(`job ${e.jobId}: started (attempt ${e.attempts})`);
    } else if (e.type === "finished" && since.has(e.jobId)) {
      const seconds = (performance.now() - since.get(e.jobId)!) / 1000;
      since.delete(e.jobId);
      log(`job ${e.jobId}: ${e.status} after ${seconds.toFixed(1)} s`);
    } else if (e.type === "handed-back") since.delete(e.jobId);
  });
  for (const s of signals) process.on(s, onSignal);
  let started: boolean;
  try {
    started = await worker.start();
  } catch (err) {
    for (const s of signals) process.off(s, onSignal);
    await worker.close({ graceMs: 0 }).catch(() => {});
    throw err;
  }
  if (started) log(`worker ready: concurrency ${options.concurrency ?? 1}`);
  return { worker, started, stop, done };
}
