/**
 * @module server/request-pool
 * A small pool of worker threads that run the "heavy" routes of the table (optimize, rebalance, proposal creation,
 * theme evaluate and theme backtest) off the server's event loop, so that one organization's long computation does
 * not hold up every other request. Each worker opens its own better-sqlite3 connection to the same store file
 * (WAL: its reads run beside the main connection's, and its commits bump the main connection's `data_version`, so
 * the response cache's change token sees them). The main thread keeps authentication, parsing and validation; it
 * sends the validated input to a free worker (FIFO queue when all are busy) and answers with what comes back:
 * the serialized JSON body, or the error envelope the worker built with the same `errorResponse` mapping.
 * Workers start on first use; an idle worker does not keep the process alive.
 */
import { availableParallelism } from "node:os";
import type { Worker } from "node:worker_threads";
import type { ErrorEnvelope } from "../contract/index.js";
import type { ServiceLimits } from "../service/index.js";
import { spawnModuleWorker } from "../service/jobs/index.js";
import type { QueueLocation } from "../service/jobs/queue/types.js";
import { HttpError } from "./http-error.js";

/** The error of a request the pool will not run because it is closing. */
function shuttingDown(): HttpError {
  return new HttpError(
    "service_unavailable",
    "The server is shutting down and did not run this request; retry it.",
  );
}

/** Default number of request workers: min(2, cores). */
export function defaultRequestWorkers(): number {
  return Math.min(2, availableParallelism());
}

/** `workerData` of a request worker. */
export interface RequestWorkerInit {
  /** Path of the store file (each worker opens its own connection). */
  storePath: string;
  /** The main context's service limits (proposal retention, queued jobs), so a worker applies the same ones. */
  limits?: ServiceLimits;
  /** The main context's job queue: a worker enqueues the jobs its requests create (a scan job) on it too. */
  queue?: QueueLocation;
}

/** One heavy request, validated by the main thread. */
export interface RequestTask {
  /** operationId of a route of API_ROUTES. */
  operationId: string;
  org: string;
  keyId: string;
  params: Record<string, string>;
  body: unknown;
  query: unknown;
  method: string;
  url: string;
  /**
   * The operation holds SQLite's write lock for its whole computation (proposal creation): such tasks run one at a
   * time across the pool, since two at once would only wait on each other's lock (SQLite's busy handler polls with
   * sleeps of up to 100 ms). Other tasks run beside it.
   */
  exclusive: boolean;
  /**
   * The main context's clock when the request was dispatched (ms since the epoch): the worker's clock stands still
   * at it for the whole request, so timestamps and "today" are those of the request (and a test's fixed clock
   * gives the same records as in-process).
   */
  nowMs: number;
}

/** What a worker answers. */
export type RequestAnswer =
  /**
   * The handler's result. `contentType` is set when the handler returned a Response (sent with its status);
   * otherwise `bytes` is the JSON text of the result (empty for a 204 route).
   */
  | { kind: "ok"; bytes: Uint8Array; status?: number; contentType?: string }
  /** A lotwise error, already mapped to status, envelope and headers by `errorResponse`. */
  | { kind: "error"; status: number; body: ErrorEnvelope; headers: Record<string, string> }
  /** Anything else thrown: the detail (with stack) is for the server's log only. */
  | { kind: "internal"; detail: string };

/** Main thread -> worker. */
export type ToRequestWorker = { type: "run"; id: number; task: RequestTask } | { type: "stop" };

/** Worker -> main thread. */
export type FromRequestWorker =
  | { type: "ready" }
  | { type: "fatal"; message: string }
  | { type: "answer"; id: number; answer: RequestAnswer };

/** Extension of this module's siblings: `.ts` when running from the sources, `.js` from dist. */
const EXTENSION = import.meta.url.endsWith(".ts") ? ".ts" : ".js";

interface Pending {
  id: number;
  task: RequestTask;
  resolve: (answer: RequestAnswer) => void;
  reject: (error: Error) => void;
}

interface Slot {
  worker: Worker;
  current: Pending | undefined;
  exited: Promise<void>;
}

/** Options of {@link RequestWorkerPool}. */
export interface RequestWorkerPoolOptions {
  storePath: string;
  /** Service limits the workers apply (the app context's). */
  limits?: ServiceLimits;
  /** Worker threads (at least 1). */
  size: number;
  /** The job queue the workers enqueue created jobs on (the app context's `jobQueue`). */
  queue?: QueueLocation;
}

/**
 * The pool. `run` resolves with the worker's answer, or rejects (an internal error) when the worker died under the
 * request or the pool is closed.
 */
export class RequestWorkerPool {
  readonly size: number;
  private readonly storePath: string;
  private readonly limits: ServiceLimits | undefined;
  private readonly jobQueue: QueueLocation | undefined;
  private readonly slots: Slot[] = [];
  private readonly queue: Pending[] = [];
  private nextId = 1;
  private answered = 0;
  private closing: Promise<void> | undefined;

  constructor(options: RequestWorkerPoolOptions) {
    if (!Number.isInteger(options.size) || options.size < 1)
      throw new RangeError(`RequestWorkerPool: size must be a positive integer, got ${options.size}`);
    this.size = options.size;
    this.storePath = options.storePath;
    this.limits = options.limits;
    this.jobQueue = options.queue;
  }

  /** Number of worker threads started and alive. */
  get started(): number {
    return this.slots.length;
  }

  /** Number of tasks the workers have answered (results and errors alike). */
  get completed(): number {
    return this.answered;
  }

  /** Starts every worker now (the server does it at start so that the first heavy request does not pay for it). */
  warm(): void {
    while (!this.closing && this.slots.length < this.size) this.spawn();
  }

  /** Runs one task on a worker; rejects with `service_unavailable` once the pool is closing. */
  run(task: RequestTask): Promise<RequestAnswer> {
    if (this.closing) return Promise.reject(shuttingDown());
    return new Promise((resolve, reject) => {
      this.queue.push({ id: this.nextId++, task, resolve, reject });
      this.dispatch();
    });
  }

  /**
   * Stops the workers: queued tasks are rejected (`service_unavailable`, 503), a running task may finish within `graceMs`, then its worker is
   * terminated. Idempotent.
   */
  close({ graceMs = 5_000 }: { graceMs?: number } = {}): Promise<void> {
    this.closing ??= (async () => {
      for (const p of this.queue.splice(0)) p.reject(shuttingDown());
      await Promise.all(
        this.slots.map(async (slot) => {
          slot.worker.ref();
          slot.worker.postMessage({ type: "stop" } satisfies ToRequestWorker);
          const timer = setTimeout(() => void slot.worker.terminate(), graceMs);
          await slot.exited;
          clearTimeout(timer);
        }),
      );
    })();
    return this.closing;
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      // The oldest task that may start: an exclusive one waits while another exclusive one runs.
      const writing = this.slots.some((s) => s.current?.task.exclusive === true);
      const next = this.queue.findIndex((p) => !(writing && p.task.exclusive));
      if (next < 0) return;
      let slot = this.slots.find((s) => s.current === undefined);
      if (!slot) {
        if (this.slots.length >= this.size) return;
        slot = this.spawn();
      }
      const pending = this.queue.splice(next, 1)[0]!;
      slot.current = pending;
      slot.worker.ref();
      slot.worker.postMessage({ type: "run", id: pending.id, task: pending.task } satisfies ToRequestWorker);
    }
  }

  private spawn(): Slot {
    const entry = new URL(`./request-worker${EXTENSION}`, import.meta.url);
    const worker = spawnModuleWorker(entry, {
      storePath: this.storePath,
      ...(this.limits ? { limits: this.limits } : {}),
      ...(this.jobQueue ? { queue: this.jobQueue } : {}),
    } satisfies RequestWorkerInit);
    worker.unref();
    let exited!: () => void;
    const slot: Slot = { worker, current: undefined, exited: new Promise((r) => (exited = r)) };
    this.slots.push(slot);
    let fatal: string | undefined;
    const lose = (why: string) => {
      const i = this.slots.indexOf(slot);
      if (i >= 0) this.slots.splice(i, 1);
      const pending = slot.current;
      slot.current = undefined;
      pending?.reject(new Error(`request worker stopped while running ${pending.task.operationId}: ${why}`));
      // A replacement takes the queue (unless the pool is closing).
      if (!this.closing) this.dispatch();
    };
    worker.on("message", (message: FromRequestWorker) => {
      if (message.type === "fatal") fatal = message.message;
      else if (message.type === "answer" && slot.current?.id === message.id) {
        const pending = slot.current;
        slot.current = undefined;
        worker.unref();
        this.answered++;
        pending.resolve(message.answer);
        if (!this.closing) this.dispatch();
      }
    });
    worker.on("error", (err) => {
      fatal ??= err.stack ?? err.message;
    });
    worker.on("exit", (code) => {
      lose(fatal ?? `exit code ${code}`);
      exited();
    });
    return slot;
  }
}
