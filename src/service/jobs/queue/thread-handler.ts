/**
 * @module service/jobs/queue/thread-handler
 * The {@link QueueJobHandler} of `lotwise worker`: runs each job the queue worker claimed on a worker THREAD of this
 * process (service/jobs/worker-entry.ts, the threads of the SQLite runner), so that the event loop stays free for
 * BullMQ's lock renewal. The thread opens the store by its connection string and writes progress, the cancel outcome
 * and the result under the lease owner the queue worker gives; the handler resolves when the thread reports the run
 * finished. An aborted signal (cancel, shutdown, lost lease) sets the thread's shared cancel flag: the run stops at
 * its next period; a cancelled run fails as cancelled, the others' writes are refused by the store (lease gone).
 */
import type { Worker } from "node:worker_threads";
import type { BacktestProgress } from "../../../contract/index.js";
import type { BacktestExecutorModule } from "../executor.js";
import { DEFAULT_CANCEL_CHECK_INTERVAL_MS, type JobOutcome } from "../run-job.js";
import { defaultExecutorModule, spawnJobWorker } from "../spawn-worker.js";
import type { FromWorker, WorkerInit } from "../worker-protocol.js";
import type { QueueJobContext, QueueJobHandler } from "./types.js";

/** Options of {@link threadJobHandler}. */
export interface ThreadJobHandlerOptions {
  /** What the threads pass to `openStore`: the store's `connectionString` (a `postgres://` URL or a file). */
  connectionString: string;
  /** Threads kept alive between jobs (the worker's concurrency). @default 1 */
  keepThreads?: number;
  /** The engine the threads load. @default defaultExecutorModule() (the account backtester) */
  executor?: BacktestExecutorModule;
  /** Minimum milliseconds between two reads of the cancel flag by a run. @default DEFAULT_CANCEL_CHECK_INTERVAL_MS */
  cancelCheckIntervalMs?: number;
  /**
   * Writes a period's progress to the store from THIS thread (e.g. `store.backtestJobs.progress`). The engine's
   * period loop is synchronous, so on a store whose driver is asynchronous (PostgreSQL) the job thread's own
   * progress writes only complete when the run ends; this thread's event loop is free, so recording here keeps
   * endpoint 2's progress live. The write applies only while the job is RUNNING under the lease, so one that lands
   * after the final write changes nothing.
   */
  recordProgress?: (jobId: string, leaseOwner: string, progress: BacktestProgress) => Promise<unknown>;
}

/** A handler over a set of job threads, and how to stop them. */
export interface ThreadJobHandler {
  handler: QueueJobHandler;
  /** Threads started and alive. */
  readonly threads: number;
  /** Stops every thread (idle ones at once; a running job's thread is terminated). */
  close(): Promise<void>;
}

interface Run {
  jobId: string;
  context: QueueJobContext;
  seq?: number;
  resolve(outcome: JobOutcome | undefined): void;
  reject(err: Error): void;
}

interface Thread {
  worker: Worker;
  cancel: Int32Array;
  ready: Promise<void>;
  run: Run | undefined;
  dead: boolean;
}

/**
 * A handler that runs claimed jobs on worker threads (one job per thread at a time; a thread is started when none
 * is idle, and up to `keepThreads` idle threads are kept).
 * @example
 * const threads = threadJobHandler({ connectionString: store.connectionString!, keepThreads: 2 });
 * await runQueueWorker({ store, queueUrl, concurrency: 2, handler: threads.handler }); ...; await threads.close();
 */
export function threadJobHandler(options: ThreadJobHandlerOptions): ThreadJobHandler {
  const keep = Math.max(1, options.keepThreads ?? 1);
  const executor = options.executor ?? defaultExecutorModule();
  const all = new Set<Thread>();
  const idle: Thread[] = [];
  let closed = false;
  let writes: Promise<unknown> = Promise.resolve();

  const start = (): Thread => {
    const cancelBuffer = new SharedArrayBuffer(4);
    const init: WorkerInit = {
      storePath: options.connectionString,
      owner: "queue-thread",
      executor,
      cancelSignal: cancelBuffer,
      cancelCheckIntervalMs: options.cancelCheckIntervalMs ?? DEFAULT_CANCEL_CHECK_INTERVAL_MS,
    };
    const worker = spawnJobWorker(init);
    let readyResolve!: () => void;
    let readyReject!: (err: Error) => void;
    const thread: Thread = {
      worker,
      cancel: new Int32Array(cancelBuffer),
      ready: new Promise<void>((resolve, reject) => {
        readyResolve = resolve;
        readyReject = reject;
      }),
      run: undefined,
      dead: false,
    };
    thread.ready.catch(() => {});
    const lose = (why: string) => {
      if (thread.dead) return;
      thread.dead = true;
      all.delete(thread);
      const i = idle.indexOf(thread);
      if (i >= 0) idle.splice(i, 1);
      const err = new Error(`the job's worker thread stopped: ${why}`);
      readyReject(err);
      const run = thread.run;
      thread.run = undefined;
      run?.reject(err);
    };
    worker.on("message", (message: FromWorker) => {
      const run = thread.run;
      switch (message.type) {
        case "ready":
          readyResolve();
          return;
        case "fatal":
          lose(message.message);
          void worker.terminate();
          return;
        case "started":
          if (run) {
            run.seq = message.seq;
            if (run.context.signal.aborted) Atomics.store(thread.cancel, 0, message.seq);
          }
          return;
        case "progress":
          if (!run) return;
          run.context.reportProgress(message.progress);
          if (options.recordProgress) {
            const record = options.recordProgress;
            const { leaseOwner } = run.context;
            // One write at a time per thread, in period order; a failed write is skipped (the next period retries).
            writes = writes
              .then(() => record(message.jobId, leaseOwner, message.progress))
              .catch(() => undefined);
          }
          return;
        case "idle":
        case "finished":
          thread.run = undefined;
          release(thread);
          run?.resolve(message.type === "finished" ? message.outcome : undefined);
          return;
      }
    });
    worker.on("error", (err) => lose(err.message));
    worker.on("exit", (code) => lose(`exit code ${code}`));
    all.add(thread);
    return thread;
  };

  const release = (thread: Thread) => {
    if (thread.dead) return;
    if (closed || idle.length >= keep) {
      thread.dead = true;
      all.delete(thread);
      thread.worker.postMessage({ type: "stop" });
      return;
    }
    idle.push(thread);
  };

  const handler: QueueJobHandler = async (jobId, context) => {
    if (closed) throw new Error("the job threads are closed");
    const thread = idle.pop() ?? start();
    await thread.ready;
    await new Promise<JobOutcome | undefined>((resolve, reject) => {
      const run: Run = { jobId, context, resolve, reject };
      thread.run = run;
      const onAbort = () => {
        if (run.seq !== undefined) Atomics.store(thread.cancel, 0, run.seq);
      };
      context.signal.addEventListener("abort", onAbort, { once: true });
      thread.worker.postMessage({ type: "run", jobId, owner: context.leaseOwner });
    });
  };

  return {
    handler,
    get threads() {
      return all.size;
    },
    async close() {
      closed = true;
      const threads = [...all];
      idle.length = 0;
      await Promise.all(
        threads.map(async (t) => {
          t.dead = true;
          all.delete(t);
          const run = t.run;
          if (run) {
            // A run abandoned after a hand-back: its writes are refused anyway; stop the thread now.
            run.reject(new Error("the job threads were closed"));
            await t.worker.terminate();
            return;
          }
          // An idle thread closes its store connection first.
          const exited = new Promise<void>((resolve) => t.worker.once("exit", () => resolve()));
          t.worker.postMessage({ type: "stop" });
          const timer = setTimeout(() => void t.worker.terminate(), 5000);
          await exited;
          clearTimeout(timer);
        }),
      );
    },
  };
}
