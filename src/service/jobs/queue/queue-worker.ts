/**
 * @module service/jobs/queue/queue-worker
 * The consumer side of the BullMQ job queue: takes job ids from the queue (at most `concurrency` at a time), claims
 * the store's row under a lease of its own and runs the caller's handler on it.
 *
 * The queue and the store agree as follows (docs/backtest-jobs.md, "Jobs on BullMQ"):
 * - a row already SUCCESS or FAILURE (finished, or cancelled while waiting) is not run again;
 * - a row RUNNING when the queue hands its job to this worker belonged to a worker that stopped (BullMQ found the
 *   job's lock expired: a stalled job): it is re-queued in the store and claimed again, `attempts` + 1;
 * - a job that stalls more than `maxStalledCount` times (default 1: retried once) is failed by BullMQ, and this
 *   worker writes FAILURE with "The worker running this job stopped twice ..." to the row, never leaving it RUNNING;
 * - the row's cancel flag is polled every `cancelPollMs` and aborts the handler's signal (reason "cancel");
 * - `close({ graceMs })` stops taking jobs, lets running ones finish for `graceMs`, then hands the rest back: the
 *   row goes back to PENDING (so the old lease can no longer write) and the queue entry back to waiting, for
 *   another worker;
 * - `reconcile()` (at start and every `reconcileIntervalMs`) fails rows still RUNNING under a queue lease whose
 *   queue entry is finished or gone (a worker that died between BullMQ's verdict and the store write), and
 *   enqueues PENDING rows the queue does not have (an enqueue that failed after the row was stored).
 */
import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import { type Job, Queue, WaitingError, Worker } from "bullmq";
import type { BacktestJobRecord, BacktestProgress, LotwiseStore } from "../../../store/index.js";
import { JOB_KINDS, type JobKind, jobRestartHint } from "../../../store/records.js";
import { addQueueEntry, bullConnection, type QueueEntryData, queueNames } from "./bull-queue.js";
import type { QueueAbortReason, QueueJobHandler, QueueLocation } from "./types.js";

/** BullMQ's reason for a job that stalled more often than `maxStalledCount`. */
export const STALLED_LIMIT_REASON = "job stalled more than allowable limit";

/** Longest error message written to a row by the worker itself. */
const MAX_MESSAGE = 4000;

/** Prefix of every lease owner made by a queue worker (5 parts: never parsed as a `host/pid/runner/worker` name). */
export const QUEUE_OWNER_PREFIX = "queue/";

/** The message of a job whose worker stopped `times` times (maxStalledCount + 1). */
export function stoppedWorkerMessage(kind: JobKind, times: number): string {
  const count = times === 1 ? "once" : times === 2 ? "twice" : `${times} times`;
  return `The worker running this job stopped ${count} before finishing (its process ended or lost its connection); giving up. ${jobRestartHint(kind)}`;
}

/** Options of {@link QueueWorker}. */
export interface QueueWorkerOptions extends QueueLocation {
  store: LotwiseStore;
  handler: QueueJobHandler;
  /** Jobs run at once by this worker. @default 1 */
  concurrency?: number;
  /** A job's lock lasts this long (ms) and is renewed every half of it; a lock left to expire marks a stall. @default 30000 */
  lockDurationMs?: number;
  /** Milliseconds between two stalled-job checks. @default 15000 */
  stalledIntervalMs?: number;
  /** Times a stalled job goes back to waiting before it is failed. @default 1 */
  maxStalledCount?: number;
  /** Milliseconds between two reads of a running job's cancel flag. @default 1000 */
  cancelPollMs?: number;
  /** Milliseconds between two {@link QueueWorker.reconcile} sweeps; 0: only at start. @default 60000 */
  reconcileIntervalMs?: number;
  /** After a hand-back, how long the handler is given to notice its aborted signal (ms). @default 1000 */
  abandonWaitMs?: number;
  /** Where to report what happened (one line per event). */
  log?: (line: string) => void;
}

/** What happened in the worker (tests and logs). */
export type QueueWorkerEvent =
  | { type: "started"; jobId: string; leaseOwner: string; attempts: number }
  | { type: "skipped"; jobId: string; reason: "finished" | "missing" | "not-claimed" }
  | { type: "finished"; jobId: string; status: string }
  | { type: "handed-back"; jobId: string }
  | { type: "stalled-failed"; jobId: string };

interface InFlight {
  jobId: string;
  abort: AbortController;
  /** Resolves the hand-back request (shutdown after the grace period). */
  handBack: () => void;
}

const FINAL = new Set(["SUCCESS", "FAILURE"]);

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

/** Error codes of a Redis connection that could not be made or was lost (the client retries on its own). */
const CONNECTION_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ENOTFOUND",
  "EAI_AGAIN",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EPIPE",
]);

/** An identical connection error is logged again at most this often (ms); ioredis retries every few hundred ms. */
const REPEAT_LOG_MS = 60_000;

function messageOf(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  return text.length > 300 ? `${text.slice(0, 300)}...` : text;
}

export class QueueWorker {
  readonly worker: Worker<QueueEntryData, unknown, JobKind>;
  private readonly queue: Queue<QueueEntryData, unknown, JobKind>;
  private readonly store: LotwiseStore;
  private readonly handler: QueueJobHandler;
  private readonly options: QueueWorkerOptions;
  private readonly name =
    `${hostname().replaceAll("/", "_")}/${process.pid}/${randomBytes(3).toString("hex")}`;
  private readonly inFlight = new Map<string, InFlight>();
  private readonly background = new Set<Promise<unknown>>();
  private readonly listeners: ((e: QueueWorkerEvent) => void)[] = [];
  private reconcileTimer: NodeJS.Timeout | undefined;
  private stopping = false;
  /** Set when the grace period is over (or on a second signal): every job still running goes back. */
  private handingBack = false;
  /** Processor calls in progress (from the moment BullMQ hands a job over, before any await). */
  private active = 0;
  private idleWaiters: (() => void)[] = [];
  private closed: Promise<void> | undefined;
  private runs = 0;
  /** Resolves when {@link close} is called: a start still waiting for Redis gives up. */
  private stopRequested!: () => void;
  private readonly stopSignal = new Promise<void>((resolve) => {
    this.stopRequested = resolve;
  });
  /** The last Redis error logged, when, and how many identical ones were not logged since. */
  private lastRedisError = { text: "", at: 0, repeats: 0 };

  constructor(options: QueueWorkerOptions) {
    this.options = options;
    this.store = options.store;
    this.handler = options.handler;
    const { prefix, queueName } = queueNames(options);
    const connection = bullConnection(options.connection);
    this.queue = new Queue<QueueEntryData, unknown, JobKind>(queueName, { connection, prefix });
    this.queue.on("error", (err) => this.logRedisError(err));
    this.worker = new Worker<QueueEntryData, unknown, JobKind>(
      queueName,
      (job, token, signal) => this.process(job, token, signal),
      {
        connection,
        prefix,
        name: this.name,
        autorun: false,
        concurrency: options.concurrency ?? 1,
        lockDuration: options.lockDurationMs ?? 30_000,
        stalledInterval: options.stalledIntervalMs ?? 15_000,
        maxStalledCount: options.maxStalledCount ?? 1,
      },
    );
    this.worker.on("error", (err) => this.logRedisError(err));
    this.worker.on("failed", (job, err) => {
      if (job && (err.message === STALLED_LIMIT_REASON || job.failedReason === STALLED_LIMIT_REASON))
        this.track(this.failStalled(job));
    });
  }

  /** Subscribe to what the worker does. */
  onEvent(listener: (e: QueueWorkerEvent) => void): void {
    this.listeners.push(listener);
  }

  /**
   * Start taking jobs, once Redis answers (it may be down or not up yet: the wait is logged, see
   * {@link logRedisError}) and after a first {@link reconcile}. Resolves true when the worker takes jobs, false when
   * {@link close} was called first (a BullMQ worker that never reached Redis would otherwise never close).
   */
  async start(): Promise<boolean> {
    const reached = await Promise.race([
      // A rejection (the queue closed meanwhile) counts as not reached.
      this.queue.waitUntilReady().then(
        () => true,
        () => false,
      ),
      this.stopSignal.then(() => false),
    ]);
    if (!reached || this.stopping) return false;
    if (this.lastRedisError.text !== "") {
      this.log("the job queue (Redis) answers now");
      this.lastRedisError = { text: "", at: 0, repeats: 0 };
    }
    await this.reconcileQuietly();
    if (this.stopping) return false;
    void this.worker.run().catch((err) => this.log(`worker stopped: ${messageOf(err)}`));
    await this.worker.waitUntilReady();
    const every = this.options.reconcileIntervalMs ?? 60_000;
    if (every > 0) {
      this.reconcileTimer = setInterval(() => this.track(this.reconcileQuietly()), every);
      this.reconcileTimer.unref();
    }
    return true;
  }

  /** Jobs this worker is running now. */
  get running(): number {
    return this.inFlight.size;
  }

  /**
   * Stop: take no more jobs, let the running ones finish for up to `graceMs`, then hand the others back to the
   * store (PENDING) and the queue (waiting). Idempotent; a second call with a shorter grace does not shorten it.
   */
  close(options: { graceMs?: number } = {}): Promise<void> {
    this.closed ??= this.shutdown(options.graceMs ?? 30_000);
    return this.closed;
  }

  /** During {@link close}: hand every running job back now (a second SIGTERM) instead of at the grace's end. */
  handBackAll(): void {
    if (!this.stopping) return;
    this.handingBack = true;
    for (const f of this.inFlight.values()) f.handBack();
  }

  /** Resolves when no processor call is in progress. */
  private whenIdle(): Promise<void> {
    if (this.active === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private async shutdown(graceMs: number): Promise<void> {
    this.stopping = true;
    this.stopRequested();
    if (this.reconcileTimer) clearInterval(this.reconcileTimer);
    const closing = this.worker.close();
    let timer: NodeJS.Timeout | undefined;
    const graceOver = new Promise<"grace">((resolve) => {
      timer = setTimeout(() => resolve("grace"), graceMs);
    });
    if ((await Promise.race([this.whenIdle(), graceOver])) === "grace") {
      if (this.inFlight.size > 0) this.log(`grace period over: handing back ${this.inFlight.size} job(s)`);
      this.handBackAll();
    }
    clearTimeout(timer);
    await this.whenIdle();
    await closing;
    while (this.background.size > 0) await Promise.allSettled([...this.background]);
    await this.queue.close();
  }

  /**
   * Make the store and the queue agree again after a process died between a write to one and to the other:
   * - a row RUNNING under a queue lease whose queue entry is finished or gone (its worker stopped after BullMQ gave
   *   up on the job, before it wrote the row) is failed;
   * - a row PENDING whose queue entry is missing or finished (an enqueue that failed after the row was stored, or
   *   rows written before the store had a queue) is enqueued again under its id.
   * Returns the ids of both kinds.
   */
  async reconcile(): Promise<{ failed: string[]; enqueued: string[] }> {
    const failed: string[] = [];
    const enqueued: string[] = [];
    const stateOf = async (id: string) => {
      const entry = await this.queue.getJob(id);
      return { entry, state: entry ? await entry.getState() : "unknown" };
    };
    const gone = (state: string) => state === "completed" || state === "failed" || state === "unknown";
    for (const org of await this.store.organizations.list()) {
      for (const kind of JOB_KINDS) {
        for (const row of await this.store.backtestJobs.list(org.uuid, { status: "RUNNING", kind })) {
          if (!row.leaseOwner?.startsWith(QUEUE_OWNER_PREFIX)) continue;
          if (!gone((await stateOf(row.id)).state)) continue;
          const message = row.cancelRequested
            ? "Cancelled; its worker stopped before finishing."
            : stoppedWorkerMessage(row.kind, row.attempts);
          // Lease-checked: a row claimed again meanwhile has another owner and is left alone.
          if (await this.store.backtestJobs.fail(row.id, message, row.leaseOwner)) failed.push(row.id);
        }
        for (const row of await this.store.backtestJobs.list(org.uuid, { status: "PENDING", kind })) {
          if (row.cancelRequested) continue;
          const { entry, state } = await stateOf(row.id);
          if (!gone(state)) continue;
          if (entry) await entry.remove();
          await addQueueEntry(this.queue, this.store, row.id, row.kind);
          enqueued.push(row.id);
        }
      }
    }
    if (failed.length > 0)
      this.log(`reconcile: failed ${failed.length} job(s) left running by a stopped worker`);
    if (enqueued.length > 0)
      this.log(`reconcile: queued ${enqueued.length} waiting job(s) the queue did not have`);
    return { failed, enqueued };
  }

  private async reconcileQuietly(): Promise<void> {
    try {
      await this.reconcile();
    } catch (err) {
      this.log(`reconcile: ${messageOf(err)}`);
    }
  }

  private track(p: Promise<unknown>): void {
    this.background.add(p);
    void p.finally(() => this.background.delete(p));
  }

  private emit(e: QueueWorkerEvent): void {
    for (const l of this.listeners) l(e);
  }

  private log(line: string): void {
    this.options.log?.(line);
  }

  /**
   * An error event of the queue's or the worker's Redis connections. The client reconnects on its own, every few
   * hundred ms and on each connection, so one outage would write a line per retry: an identical message is logged
   * again only after {@link REPEAT_LOG_MS}, with the number of repeats in between.
   */
  private logRedisError(err: unknown): void {
    const code = (err as { code?: unknown } | null)?.code;
    const text =
      typeof code === "string" && CONNECTION_CODES.has(code)
        ? `the job queue (Redis) is not reachable: ${messageOf(err)}; retrying`
        : `the job queue (Redis) failed: ${messageOf(err)}`;
    const now = Date.now();
    const last = this.lastRedisError;
    if (text === last.text && now - last.at < REPEAT_LOG_MS) {
      last.repeats++;
      return;
    }
    const repeated =
      text === last.text && last.repeats > 0 ? ` (${last.repeats} more time(s) in the last minute)` : "";
    this.lastRedisError = { text, at: now, repeats: 0 };
    this.log(`${text}${repeated}`);
  }

  /** BullMQ failed a job that stalled too often: write FAILURE with a clear message to the row. */
  private async failStalled(job: Job<QueueEntryData, unknown, JobKind>): Promise<void> {
    const id = job.id!;
    try {
      const row = await this.store.backtestJobs.getById(id);
      if (!row || FINAL.has(row.status)) return;
      const message = row.cancelRequested
        ? "Cancelled; its worker stopped before finishing."
        : stoppedWorkerMessage(row.kind, (this.options.maxStalledCount ?? 1) + 1);
      if (await this.store.backtestJobs.fail(id, message)) {
        this.log(`job ${id}: ${message}`);
        this.emit({ type: "stalled-failed", jobId: id });
      }
    } catch (err) {
      // The reconcile sweep of any worker fails the row later.
      this.log(`job ${id}: could not record the stalled failure: ${messageOf(err)}`);
    }
  }

  /** Put a RUNNING row whose worker is gone back to PENDING (a cancelled one is failed instead). */
  private async requeueRow(row: BacktestJobRecord): Promise<void> {
    const owner = row.leaseOwner;
    await this.store.backtestJobs.recoverOrphans({
      liveOwners: [],
      staleBefore: "",
      maxAttempts: Number.MAX_SAFE_INTEGER,
      isLiveOwner: (o) => o !== owner,
    });
  }

  private async process(
    job: Job<QueueEntryData, unknown, JobKind>,
    token: string | undefined,
    bullSignal: AbortSignal | undefined,
  ): Promise<{ status: string }> {
    this.active++;
    try {
      return await this.runEntry(job, token, bullSignal);
    } finally {
      if (--this.active === 0) for (const w of this.idleWaiters.splice(0)) w();
    }
  }

  private async runEntry(
    job: Job<QueueEntryData, unknown, JobKind>,
    token: string | undefined,
    bullSignal: AbortSignal | undefined,
  ): Promise<{ status: string }> {
    const jobId = job.id!;
    if (this.stopping) {
      // Fetched while closing (a fetch already under way): give it straight back, start nothing new.
      await job.moveToWait(token);
      throw new WaitingError();
    }
    let row = await this.store.backtestJobs.getById(jobId);
    if (!row) {
      this.log(`job ${jobId}: not in the store; dropped`);
      this.emit({ type: "skipped", jobId, reason: "missing" });
      return { status: "MISSING" };
    }
    if (FINAL.has(row.status)) {
      this.emit({ type: "skipped", jobId, reason: "finished" });
      return { status: row.status };
    }
    if (row.status === "RUNNING") {
      // BullMQ hands out a job whose lock expired: the worker that held it stopped (a stalled job).
      this.log(
        `job ${jobId}: its previous worker stopped (${row.leaseOwner ?? "no owner"}); running it again`,
      );
      await this.requeueRow(row);
    }
    const leaseOwner = `${QUEUE_OWNER_PREFIX}${this.name}/${++this.runs}`;
    const claimed = await this.store.backtestJobs.claim(jobId, leaseOwner);
    if (!claimed) {
      row = await this.store.backtestJobs.getById(jobId);
      this.emit({ type: "skipped", jobId, reason: "not-claimed" });
      return { status: row?.status ?? "MISSING" };
    }
    this.emit({ type: "started", jobId, leaseOwner, attempts: claimed.attempts });

    const abort = new AbortController();
    const stop = (reason: QueueAbortReason) => {
      if (!abort.signal.aborted) abort.abort(reason);
    };
    bullSignal?.addEventListener("abort", () => stop("lost"), { once: true });
    let handBack!: () => void;
    const handBackRequested = new Promise<"hand-back">((resolve) => {
      handBack = () => resolve("hand-back");
    });
    const entry: InFlight = { jobId, abort, handBack };
    this.inFlight.set(jobId, entry);
    if (this.handingBack) handBack();

    const poll = setInterval(() => {
      void this.store.backtestJobs.getById(jobId).then(
        (r) => {
          if (r?.cancelRequested) stop("cancel");
          else if (r?.status !== "RUNNING" || r.leaseOwner !== leaseOwner) stop("lost");
        },
        () => {},
      );
    }, this.options.cancelPollMs ?? 1000);
    poll.unref();

    let handlerError: unknown;
    let handlerFailed = false;
    const running = (async () => {
      try {
        await this.handler(jobId, {
          job: claimed,
          leaseOwner,
          signal: abort.signal,
          reportProgress: (p: BacktestProgress) => {
            void job.updateProgress({ ...p }).catch(() => {});
          },
        });
      } catch (err) {
        handlerFailed = true;
        handlerError = err;
      }
    })();

    try {
      const how = await Promise.race([running.then(() => "done" as const), handBackRequested]);
      if (how === "hand-back") return await this.handBack(job, token, claimed, leaseOwner, running, stop);
      clearInterval(poll);
      const after = await this.store.backtestJobs.getById(jobId);
      if (after?.status === "RUNNING" && after.leaseOwner === leaseOwner) {
        // The handler returned without recording an outcome: record one, so the row never stays RUNNING.
        const message = handlerFailed
          ? `The job stopped on an internal error (${messageOf(handlerError)}).`
          : abort.signal.reason === "cancel"
            ? "Cancelled on request."
            : "The job ended without recording a result (internal error).";
        await this.store.backtestJobs.fail(jobId, message.slice(0, MAX_MESSAGE), leaseOwner);
      } else if (after?.status === "PENDING") {
        // The lease was taken away and the row re-queued (e.g. by a heartbeat sweep): run it again rather than
        // completing the entry of a job that has not run.
        await job.moveToWait(token);
        this.log(`job ${jobId}: its row was re-queued while it ran; back to the queue`);
        this.emit({ type: "handed-back", jobId });
        throw new WaitingError();
      }
      const final = await this.store.backtestJobs.getById(jobId);
      this.emit({ type: "finished", jobId, status: final?.status ?? "MISSING" });
      if (handlerFailed) throw handlerError instanceof Error ? handlerError : new Error(String(handlerError));
      return { status: final?.status ?? "MISSING" };
    } finally {
      clearInterval(poll);
      this.inFlight.delete(jobId);
    }
  }

  /**
   * Give a running job back (shutdown after the grace period): the row to PENDING first (from then on the old
   * lease cannot write), then the handler's signal, then the queue entry to waiting.
   */
  private async handBack(
    job: Job<QueueEntryData, unknown, JobKind>,
    token: string | undefined,
    claimed: BacktestJobRecord,
    leaseOwner: string,
    running: Promise<void>,
    stop: (reason: QueueAbortReason) => void,
  ): Promise<{ status: string }> {
    await this.requeueRow({ ...claimed, leaseOwner });
    stop("shutdown");
    await Promise.race([running, sleep(this.options.abandonWaitMs ?? 1000)]);
    const row = await this.store.backtestJobs.getById(job.id!);
    if (row && FINAL.has(row.status)) {
      // It finished before the row was taken back.
      this.emit({ type: "finished", jobId: job.id!, status: row.status });
      return { status: row.status };
    }
    await job.moveToWait(token);
    this.log(`job ${job.id}: handed back to the queue`);
    this.emit({ type: "handed-back", jobId: job.id! });
    throw new WaitingError();
  }
}
