/**
 * @module service/jobs/worker-entry
 * Main module of a job worker thread: opens its own connection to the store file, loads the executor, then claims
 * and runs jobs one at a time when the runner asks. A run blocks this thread only; progress, cancel checks and the
 * final state go through the store, so the runner (and any other process on the file) sees them.
 */
import { type MessagePort, parentPort, workerData } from "node:worker_threads";
import { type LotwiseStore, openStore } from "../../store/index.js";
import type { ServiceContext } from "../context.js";
import { isStoreBusyError } from "../store-busy.js";
import { type BacktestExecutor, loadExecutor } from "./executor.js";
import { runClaimedJob } from "./run-job.js";
import type { FromWorker, ToWorker, WorkerInit } from "./worker-protocol.js";

if (!parentPort)
  throw new Error("worker-entry: this module runs as a worker thread of the backtest job runner");
const port: MessagePort = parentPort;
const init = workerData as WorkerInit;
const cancel = new Int32Array(init.cancelSignal);
const post = (message: FromWorker) => port.postMessage(message);
let seq = 0;

function main(store: LotwiseStore, executor: BacktestExecutor): void {
  const ctx: ServiceContext = { store, clock: () => new Date() };
  // One message at a time, in order: a run (asynchronous over the store) finishes before the next message is handled,
  // as when a run blocked the thread.
  let queue: Promise<void> = Promise.resolve();
  port.on("message", (message: ToWorker) => {
    queue = queue
      .then(() => handle(message))
      .catch((err: unknown) => {
        post({ type: "fatal", message: err instanceof Error ? err.message : String(err) });
        port.close();
      });
  });
  const handle = async (message: ToWorker): Promise<void> => {
    if (message.type === "stop") {
      await store.close();
      port.close();
      return;
    }
    let job: Awaited<ReturnType<LotwiseStore["backtestJobs"]["claim"]>>;
    // A job claimed by the queue worker of this process runs under that worker's lease.
    const owner = message.type === "run" ? message.owner : init.owner;
    if (message.type === "run") {
      const row = await store.backtestJobs.getById(message.jobId);
      if (row?.status !== "RUNNING" || row.leaseOwner !== owner) {
        post({ type: "idle", jobId: message.jobId });
        return;
      }
      job = row;
    } else
      try {
        job =
          message.jobId === undefined
            ? await store.backtestJobs.claimNext(
                init.owner,
                init.maxRunningPerOrganization === undefined
                  ? {}
                  : { maxRunningPerOrganization: init.maxRunningPerOrganization },
              )
            : await store.backtestJobs.claim(message.jobId, init.owner);
      } catch (err) {
        // Another process holds the write lock: nothing was claimed; the runner asks again later.
        if (!isStoreBusyError(err)) throw err;
        post({ type: "idle", busy: true, ...(message.jobId === undefined ? {} : { jobId: message.jobId }) });
        return;
      }
    if (!job) {
      post(message.jobId === undefined ? { type: "idle" } : { type: "idle", jobId: message.jobId });
      return;
    }
    const mySeq = ++seq;
    post({ type: "started", jobId: job.id, seq: mySeq, attempts: job.attempts });
    const outcome = await runClaimedJob({
      ctx,
      job,
      owner,
      executor,
      cancelSignal: () => Atomics.load(cancel, 0) === mySeq,
      cancelCheckIntervalMs: init.cancelCheckIntervalMs,
      onProgress: (progress) => post({ type: "progress", jobId: job.id, progress }),
    });
    post({ type: "finished", jobId: job.id, outcome });
  };
  post({ type: "ready" });
}

let store: LotwiseStore | undefined;
try {
  store = await openStore(init.storePath, { create: false });
  main(store, await loadExecutor(init.executor));
} catch (err) {
  await store?.close();
  post({ type: "fatal", message: err instanceof Error ? err.message : String(err) });
  port.close();
}
