/**
 * @module service/jobs/runner
 * The backtest job runner: a pool of worker threads that claim PENDING jobs from the store, run them with an
 * executor and finish them. The thread that owns the runner (the server's event loop, the CLI) only dispatches
 * and watches; it never runs a backtest (except in the documented in-process mode for `:memory:` stores).
 *
 * Durability: the job's state lives in the store. At start and then periodically the runner recovers orphans — a
 * RUNNING job whose lease owner is gone (a dead thread of this process, a dead process on this host) or whose
 * heartbeat is stale is re-queued while it has attempts left, else failed with a message. A worker thread that
 * dies mid-job (terminate, uncaught error, exit) is replaced and its job recovered at once, so no job stays RUNNING.
 *
 * Nothing the runner does in the background (sweeps, the watch loop, worker events) throws out of a timer or an event
 * handler: a store whose write lock another process holds (a CLI import beside `lotwise serve`) makes a sweep or a
 * claim wait and retry with backoff, logged once per episode; any other failure is logged and the runner goes on.
 */
import { randomBytes } from "node:crypto";
import { availableParallelism } from "node:os";
import type { Worker } from "node:worker_threads";
import type { BacktestProgress } from "../../contract/index.js";
import type { BacktestJobRecord, LotwiseStore } from "../../store/index.js";
import type { ServiceContext } from "../context.js";
import { BusyEpisode, isStoreBusyError } from "../store-busy.js";
import {
  type BacktestExecutor,
  type BacktestExecutorModule,
  isBacktestExecutor,
  loadExecutor,
} from "./executor.js";
import { isLeaseOwnerLive, leaseOwnerName, registerLiveOwner } from "./lease-owner.js";
import { DEFAULT_CANCEL_CHECK_INTERVAL_MS, type JobOutcome, runClaimedJob } from "./run-job.js";
import { defaultExecutorModule, spawnJobWorker } from "./spawn-worker.js";
import type { FromWorker, ToWorker, WorkerInit } from "./worker-protocol.js";

/** Default number of attempts of a job whose worker died (the last one fails it). */
export const DEFAULT_MAX_ATTEMPTS = 3;
/** Default age of a heartbeat after which a RUNNING job is considered abandoned: 10 minutes. */
export const DEFAULT_STALE_HEARTBEAT_MS = 10 * 60_000;
/** Default interval of the dispatch/watch loop. */
export const DEFAULT_POLL_INTERVAL_MS = 250;
/** Default interval of the orphan sweep while running. */
export const DEFAULT_SWEEP_INTERVAL_MS = 60_000;
/** Default time a job has to stop after a cancel request before its worker thread is terminated. */
export const DEFAULT_CANCEL_GRACE_MS = 30_000;

/** Default concurrency: one worker per core, leaving one core to the event loop: max(1, cores - 1). */
export function defaultConcurrency(): number {
  return Math.max(1, availableParallelism() - 1);
}

/**
 * Re-queues (or, on their last attempt, fails) the RUNNING jobs of a store whose lease owner is gone or whose
 * heartbeat is older than `staleHeartbeatMs` — what a runner does at start, for callers that only read jobs (the
 * CLI's local status/show/list), so that they never show a dead job as RUNNING.
 * @example await recoverOrphanJobs(store) // { requeued: ["9f8e..."], failed: [] }
 */
export function recoverOrphanJobs(
  store: LotwiseStore,
  options: { maxAttempts?: number; staleHeartbeatMs?: number } = {},
): Promise<RecoveryReport> {
  const staleMs = options.staleHeartbeatMs ?? DEFAULT_STALE_HEARTBEAT_MS;
  return store.backtestJobs.recoverOrphans({
    liveOwners: [],
    staleBefore: new Date(Date.parse(store.now()) - staleMs).toISOString(),
    maxAttempts: options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS,
    isLiveOwner: isLeaseOwnerLive,
  });
}

/**
 * Recovers orphaned jobs now and then every `intervalMs` (what a runner's sweep does) for a process that runs no
 * jobs itself — `lotwise serve --workers 0` — so that a job left RUNNING by a killed process is re-queued or
 * failed even when no runner is started on the store. The timer does not keep the process alive.
 * @example const sweep = await startOrphanSweep(store, { intervalMs: 60_000 }); ...; sweep.stop();
 */
export async function startOrphanSweep(
  store: LotwiseStore,
  options: {
    intervalMs?: number;
    maxAttempts?: number;
    staleHeartbeatMs?: number;
    onRecovered?: (report: RecoveryReport) => void;
    log?: (line: string) => void;
  } = {},
): Promise<{ readonly initial: RecoveryReport; stop(): void }> {
  const log = options.log ?? ((line: string) => void process.stderr.write(`${line}\n`));
  const recover = () =>
    recoverOrphanJobs(store, {
      ...(options.maxAttempts !== undefined ? { maxAttempts: options.maxAttempts } : {}),
      ...(options.staleHeartbeatMs !== undefined ? { staleHeartbeatMs: options.staleHeartbeatMs } : {}),
    });
  const initial = await recover();
  let sweeping = false;
  const timer = setInterval(() => {
    if (sweeping) return;
    sweeping = true;
    recover()
      .then((report) => {
        if (report.requeued.length + report.failed.length > 0) options.onRecovered?.(report);
      })
      .catch((err: unknown) => log(`lotwise jobs: orphan sweep failed: ${(err as Error).message}`))
      .finally(() => {
        sweeping = false;
      });
  }, options.intervalMs ?? DEFAULT_SWEEP_INTERVAL_MS);
  timer.unref();
  return { initial, stop: () => clearInterval(timer) };
}

/** Options of {@link BacktestJobRunner}. */
export interface BacktestJobRunnerOptions {
  /** The store (the runner's own connection: recovery, watching, in-process runs). */
  store: LotwiseStore;
  /**
   * `threads`: worker threads, each with its own connection to the store file (the default for files).
   * `in-process`: jobs run one at a time on the runner's thread, blocking it (the only mode for `:memory:` stores,
   * whose database cannot be shared between threads; meant for tests and embedded use).
   */
  mode?: "threads" | "in-process";
  /** Jobs run at the same time (worker threads). Ignored in-process (1). @default defaultConcurrency() */
  concurrency?: number;
  /**
   * The engine. Threads mode needs a module reference (functions cannot cross threads); in-process mode takes
   * either. @default the account backtester (see default-executor.ts)
   */
  executor?: BacktestExecutor | BacktestExecutorModule;
  /**
   * Most RUNNING jobs one organization may have (counted over the whole store, every process); its further jobs
   * wait while other organizations' jobs run. Applies to the `any` policy. @default no limit
   */
  maxRunningPerOrganization?: number;
  /**
   * `any`: run every PENDING job of the store, fairly across organizations (a server): the next job comes from
   * the organization with the fewest RUNNING jobs, ties to the one waiting longest, oldest first within it.
   * `assigned`: run only the jobs handed to {@link BacktestJobRunner.enqueue} (the CLI running the jobs it
   * created). @default "any"
   */
  claim?: "any" | "assigned";
  /** Attempts before a job whose worker keeps dying is failed. @default DEFAULT_MAX_ATTEMPTS */
  maxAttempts?: number;
  /** Heartbeat age after which a RUNNING job is recovered even if its owner looks alive. @default DEFAULT_STALE_HEARTBEAT_MS */
  staleHeartbeatMs?: number;
  /** Dispatch/watch interval. @default DEFAULT_POLL_INTERVAL_MS */
  pollIntervalMs?: number;
  /** Orphan sweep interval while running. @default DEFAULT_SWEEP_INTERVAL_MS */
  sweepIntervalMs?: number;
  /** Time a cancelled job gets to stop before its worker is terminated. @default DEFAULT_CANCEL_GRACE_MS */
  cancelGraceMs?: number;
  /** Minimum time between two reads of a running job's cancel flag in the store. @default 200 */
  cancelCheckIntervalMs?: number;
  /** Where background problems are reported. @default a line on stderr */
  log?: (line: string) => void;
}

/** What a recovery sweep did. */
export interface RecoveryReport {
  requeued: string[];
  failed: string[];
}

/** Something that happened to a job, as seen by this runner. */
export type RunnerEvent =
  | { type: "started"; jobId: string; attempts: number }
  | { type: "progress"; jobId: string; progress: BacktestProgress }
  | { type: "finished"; jobId: string; job: BacktestJobRecord }
  | { type: "requeued"; jobId: string };

interface Slot {
  index: number;
  owner: string;
  worker: Worker | undefined;
  cancel: Int32Array;
  state: "starting" | "idle" | "claiming" | "busy" | "dead";
  jobId: string | undefined;
  seq: number;
  /** Monotonic deadline after which a cancelled job's worker is terminated. */
  cancelDeadline: number | undefined;
  /** Store change token when the last open claim was sent (nothing to claim under it means nothing new since). */
  claimToken: string | undefined;
}

interface Waiter {
  resolve(job: BacktestJobRecord): void;
  reject(err: Error): void;
}

const TERMINAL = new Set(["SUCCESS", "FAILURE"]);

/**
 * A pool that runs backtest jobs. Call {@link start} (recovers orphans, starts the workers) and {@link stop}
 * (always: live workers keep the process alive).
 * @example
 * const runner = new BacktestJobRunner({ store, concurrency: 2 });
 * await runner.start();
 * const job = await runner.wait(jobId); // SUCCESS or FAILURE
 * await runner.stop();
 */
export class BacktestJobRunner {
  /** Random id of this runner (part of its lease owner names). */
  readonly id: string;
  readonly mode: "threads" | "in-process";
  readonly concurrency: number;
  readonly claimPolicy: "any" | "assigned";
  private readonly store: LotwiseStore;
  /**
   * The runner's store work (dispatch, watch, recovery, reports, in-process runs), one step at a time in the order
   * asked, as when each step ran synchronously on the thread.
   */
  private chain: Promise<void> = Promise.resolve();
  private readonly options: BacktestJobRunnerOptions;
  private readonly log: (line: string) => void;
  private readonly slots: Slot[] = [];
  private readonly queue: string[] = [];
  /** Jobs handed to this runner (assigned policy): re-queued here when a crash puts them back to PENDING. */
  private readonly assigned = new Set<string>();
  private spawned = 0;
  private readonly waiters = new Map<string, Waiter[]>();
  private readonly watched = new Map<string, string>();
  private readonly listeners = new Set<(event: RunnerEvent) => void>();
  private executor: BacktestExecutor | undefined;
  private pollTimer: NodeJS.Timeout | undefined;
  private sweepTimer: NodeJS.Timeout | undefined;
  /** A sweep that met a locked store, to run again after a backoff delay. */
  private retryTimer: NodeJS.Timeout | undefined;
  private readonly busy: BusyEpisode;
  private inProcessBusy = false;
  private inProcessScheduled = false;
  private missToken: string | undefined;
  private state: "new" | "starting" | "running" | "stopping" | "stopped" = "new";
  private fatal: Error | undefined;
  private readonly exits = new Set<Promise<void>>();

  /** @throws {TypeError} for a `:memory:` store in threads mode, or an executor object in threads mode */
  constructor(options: BacktestJobRunnerOptions) {
    this.options = options;
    this.store = options.store;
    const memory = options.store.connectionString === null;
    this.mode = options.mode ?? (memory ? "in-process" : "threads");
    if (this.mode === "threads" && memory)
      throw new TypeError(
        "BacktestJobRunner: a :memory: store cannot be shared with worker threads; use mode 'in-process' or a store file",
      );
    if (this.mode === "threads" && isBacktestExecutor(options.executor))
      throw new TypeError(
        "BacktestJobRunner: worker threads load the executor from a module; pass { module, exportName } (or use mode 'in-process')",
      );
    const concurrency = options.concurrency ?? defaultConcurrency();
    if (!Number.isInteger(concurrency) || concurrency < 1)
      throw new TypeError(`BacktestJobRunner: concurrency must be an integer >= 1, got ${concurrency}`);
    this.concurrency = this.mode === "in-process" ? 1 : concurrency;
    this.claimPolicy = options.claim ?? "any";
    const perOrg = options.maxRunningPerOrganization;
    if (perOrg !== undefined && (!Number.isInteger(perOrg) || perOrg < 1))
      throw new TypeError(
        `BacktestJobRunner: maxRunningPerOrganization must be an integer >= 1, got ${perOrg}`,
      );
    this.id = randomBytes(4).toString("hex");
    this.log = options.log ?? ((line) => void process.stderr.write(`${line}\n`));
    this.busy = new BusyEpisode("backtest job recovery and claims", this.log);
  }

  /** Lease owner names of the live workers. */
  get owners(): string[] {
    return this.slots.filter((s) => s.state !== "dead").map((s) => s.owner);
  }

  /** Jobs this runner's workers are running now. */
  get runningJobs(): string[] {
    return this.slots.filter((s) => s.jobId !== undefined && s.state === "busy").map((s) => s.jobId!);
  }

  /**
   * Recovers orphaned jobs, then starts the workers (threads: resolves once every worker has loaded the executor).
   * @throws {Error} when the executor cannot be loaded or the workers cannot start
   */
  async start(): Promise<RecoveryReport> {
    if (this.state !== "new") throw new Error("BacktestJobRunner.start: already started");
    this.state = "starting";
    let report: RecoveryReport = { requeued: [], failed: [] };
    let recoverLater = false;
    try {
      report = await this.recover();
    } catch (err) {
      // Another process holds the write lock: start anyway; the sweep runs again once the store is free.
      if (!isStoreBusyError(err)) throw err;
      this.busy.busy();
      recoverLater = true;
    }
    try {
      if (this.mode === "in-process") {
        const ex = this.options.executor ?? defaultExecutorModule();
        this.executor = isBacktestExecutor(ex) ? ex : await loadExecutor(ex);
        const owner = leaseOwnerName(this.id, "main");
        registerLiveOwner(owner, true);
        this.slots.push({
          index: 0,
          owner,
          worker: undefined,
          cancel: new Int32Array(1),
          state: "idle",
          jobId: undefined,
          seq: 0,
          cancelDeadline: undefined,
          claimToken: undefined,
        });
      } else {
        const ready: Promise<void>[] = [];
        for (let i = 0; i < this.concurrency; i++) ready.push(this.spawn(i));
        await Promise.all(ready);
      }
    } catch (err) {
      await this.stop();
      throw err;
    }
    this.state = "running";
    const poll = this.options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS;
    this.pollTimer = setInterval(() => this.tick(), poll);
    this.sweepTimer = setInterval(
      () => this.sweep(),
      this.options.sweepIntervalMs ?? DEFAULT_SWEEP_INTERVAL_MS,
    );
    if (recoverLater) this.sweepLater(this.busy.busy());
    this.pump();
    return report;
  }

  /** Subscribe to job events; returns the unsubscribe function. */
  onEvent(listener: (event: RunnerEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Hand jobs to the runner (`assigned` policy) and dispatch at once; with `any`, a hint that new jobs exist. */
  enqueue(jobIds: readonly string[]): void {
    if (this.claimPolicy === "assigned")
      for (const id of jobIds) {
        this.assigned.add(id);
        if (!this.queue.includes(id)) this.queue.push(id);
      }
    this.missToken = undefined;
    this.pump();
  }

  /** Look for new PENDING jobs now (after creating one in this process). */
  wake(): void {
    this.missToken = undefined;
    this.pump();
  }

  /**
   * Resolves with the job once it is SUCCESS or FAILURE, whoever runs it (this runner, or another process on the
   * same store, observed by polling).
   * @throws {NotFoundError}-like Error (rejects) when the job does not exist or the runner stops first
   */
  async wait(jobId: string): Promise<BacktestJobRecord> {
    const job = await this.store.backtestJobs.getById(jobId);
    if (!job) throw new Error(`BacktestJobRunner.wait: no backtest job ${jobId}`);
    if (TERMINAL.has(job.status)) return job;
    // Watched from here: a job that ended meanwhile is settled by the next watch.
    return new Promise((resolve, reject) => {
      const list = this.waiters.get(jobId) ?? [];
      list.push({ resolve, reject });
      this.waiters.set(jobId, list);
      this.watched.set(jobId, JSON.stringify(job.progress));
    });
  }

  /** {@link enqueue} then {@link wait} for every job. */
  run(jobIds: readonly string[]): Promise<BacktestJobRecord[]> {
    this.enqueue(jobIds);
    return Promise.all(jobIds.map((id) => this.wait(id)));
  }

  /**
   * Signals this runner's worker of a job to stop at its next period (the caller records the request in the store
   * with `requestCancel`); if it has not stopped after `cancelGraceMs`, its thread is terminated and the job fails.
   * Returns whether this runner was running the job.
   */
  signalCancel(jobId: string): boolean {
    const slot = this.slots.find((s) => s.jobId === jobId && s.state === "busy");
    if (!slot) return false;
    Atomics.store(slot.cancel, 0, slot.seq);
    slot.cancelDeadline ??= performance.now() + (this.options.cancelGraceMs ?? DEFAULT_CANCEL_GRACE_MS);
    return true;
  }

  /**
   * Re-queues or fails RUNNING jobs whose owner is gone or whose heartbeat is stale (see module doc).
   * Runs at start, on every worker death and every `sweepIntervalMs`.
   */
  recover(): Promise<RecoveryReport> {
    return recoverOrphanJobs(this.store, {
      ...(this.options.maxAttempts !== undefined ? { maxAttempts: this.options.maxAttempts } : {}),
      ...(this.options.staleHeartbeatMs !== undefined
        ? { staleHeartbeatMs: this.options.staleHeartbeatMs }
        : {}),
    });
  }

  /**
   * Stops dispatching, lets running jobs finish for up to `graceMs`, then terminates the workers; jobs they were
   * running are re-queued (an attempt is counted) or failed by the final recovery. Pending {@link wait} calls reject.
   * Idempotent.
   */
  async stop(options: { graceMs?: number } = {}): Promise<void> {
    if (this.state === "stopped" || this.state === "stopping") {
      await Promise.all([...this.exits]);
      return;
    }
    this.state = "stopping";
    clearInterval(this.pollTimer);
    clearInterval(this.sweepTimer);
    clearTimeout(this.retryTimer);
    const graceMs = options.graceMs ?? 0;
    const deadline = performance.now() + graceMs;
    while (
      this.slots.some((s) => s.state === "busy" || s.state === "claiming") &&
      performance.now() < deadline
    )
      await new Promise((r) => setTimeout(r, Math.min(50, Math.max(1, deadline - performance.now()))));
    for (const slot of this.slots) {
      if (slot.worker && slot.state !== "dead") {
        if (slot.state === "idle" || slot.state === "starting") this.send(slot, { type: "stop" });
        void slot.worker.terminate();
      }
      if (!slot.worker && slot.state !== "dead") {
        slot.state = "dead";
        registerLiveOwner(slot.owner, false);
      }
    }
    await Promise.all([...this.exits]);
    await this.chain;
    if (this.store.connectionString !== null || this.mode === "in-process") {
      try {
        await this.afterRecovery(await this.recover());
      } catch (err) {
        this.log(`lotwise jobs: recovery at stop failed: ${(err as Error).message}`);
      }
    }
    this.state = "stopped";
    for (const [jobId, list] of this.waiters)
      for (const w of list)
        w.reject(new Error(`The job runner stopped before backtest job ${jobId} finished.`));
    this.waiters.clear();
    this.watched.clear();
  }

  // ---- internals -------------------------------------------------------------------------------------------

  /**
   * A recovery sweep from a timer or an event handler: never throws. A locked store schedules another sweep after a
   * backoff delay (logged once per episode); any other failure is logged and the next periodic sweep tries again.
   */
  private sweep(): void {
    this.later(async () => {
      if (this.state !== "running" && this.state !== "starting") return;
      try {
        await this.afterRecovery(await this.recover());
        this.busy.ok();
      } catch (err) {
        if (isStoreBusyError(err)) this.sweepLater(this.busy.busy());
        else this.log(`lotwise jobs: recovery sweep failed: ${(err as Error).message}`);
      }
    });
  }

  /** Queue a step of store work on {@link chain}; it never rejects (failures are logged). */
  private later(step: () => Promise<void>, what = "a background step"): void {
    this.chain = this.chain.then(step).catch((err: unknown) => this.backgroundFailure(err, what));
  }

  /** One pending retry sweep at a time. */
  private sweepLater(delayMs: number): void {
    if (this.retryTimer !== undefined) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      this.sweep();
    }, delayMs);
    this.retryTimer.unref();
  }

  /** Reports a failure of a background step (watch loop, worker event): never rethrown. */
  private backgroundFailure(err: unknown, what: string): void {
    if (isStoreBusyError(err)) this.busy.busy();
    else this.log(`lotwise jobs: ${what} failed: ${err instanceof Error ? err.message : String(err)}`);
  }

  private emit(event: RunnerEvent): void {
    for (const l of this.listeners) {
      try {
        l(event);
      } catch (err) {
        this.log(`lotwise jobs: event listener failed: ${(err as Error).message}`);
      }
    }
  }

  private send(slot: Slot, message: ToWorker): void {
    slot.worker?.postMessage(message);
  }

  private spawn(index: number): Promise<void> {
    // A new name per thread, so that a replacement never inherits the leases of the thread it replaces.
    const owner = leaseOwnerName(this.id, `w${index}-${++this.spawned}`);
    const cancelSignal = new SharedArrayBuffer(4);
    const init: WorkerInit = {
      storePath: this.store.connectionString!,
      owner,
      executor: (this.options.executor as BacktestExecutorModule | undefined) ?? defaultExecutorModule(),
      cancelSignal,
      cancelCheckIntervalMs: this.options.cancelCheckIntervalMs ?? DEFAULT_CANCEL_CHECK_INTERVAL_MS,
      ...(this.options.maxRunningPerOrganization !== undefined
        ? { maxRunningPerOrganization: this.options.maxRunningPerOrganization }
        : {}),
    };
    const worker = spawnJobWorker(init);
    const slot: Slot = {
      index,
      owner,
      worker,
      cancel: new Int32Array(cancelSignal),
      state: "starting",
      jobId: undefined,
      seq: 0,
      cancelDeadline: undefined,
      claimToken: undefined,
    };
    this.slots[index] = slot;
    registerLiveOwner(owner, true);
    let settle: { resolve(): void; reject(err: Error): void } | undefined;
    const ready = new Promise<void>((resolve, reject) => {
      settle = { resolve, reject };
    });
    let lastError: Error | undefined;
    worker.on("message", (message: FromWorker) => {
      if (message.type === "ready") {
        slot.state = "idle";
        settle?.resolve();
        settle = undefined;
        this.pump();
      } else if (message.type === "fatal") {
        lastError = new Error(`Backtest worker could not start: ${message.message}`);
      } else {
        try {
          this.onWorkerMessage(slot, message);
        } catch (err) {
          this.backgroundFailure(err, `handling a message of worker ${owner}`);
        }
      }
    });
    worker.on("error", (err) => {
      lastError = err;
    });
    const exited = new Promise<void>((resolve) => {
      worker.once("exit", (code) => {
        this.exits.delete(exited);
        const hadJob = slot.state === "busy" || slot.state === "claiming";
        const jobId = slot.jobId;
        slot.state = "dead";
        slot.jobId = undefined;
        registerLiveOwner(owner, false);
        if (settle) {
          const err = lastError ?? new Error(`Backtest worker exited with code ${code} before it was ready.`);
          this.fatal = err;
          settle.reject(err);
          settle = undefined;
        } else if (this.state === "running" || this.state === "starting") {
          if (hadJob || lastError)
            this.log(
              `lotwise jobs: worker ${owner} stopped${jobId ? ` while running job ${jobId}` : ""} (exit code ${code}${lastError ? `, ${lastError.message}` : ""}); recovering its job and starting a new worker.`,
            );
          this.sweep();
          if (!this.fatal) void this.spawn(index).catch((err: Error) => this.giveUp(err));
        }
        resolve();
      });
    });
    this.exits.add(exited);
    return ready;
  }

  /** A replacement worker cannot start: stop dispatching and fail the waiters with the reason. */
  private giveUp(err: Error): void {
    this.fatal = err;
    this.log(`lotwise jobs: ${err.message}; backtest jobs will not run in this process.`);
    for (const [, list] of this.waiters) for (const w of list) w.reject(err);
    this.waiters.clear();
  }

  private onWorkerMessage(slot: Slot, message: FromWorker): void {
    switch (message.type) {
      case "idle":
        slot.state = "idle";
        if (message.busy) {
          // The claim met a locked store: ask again at the next tick (no hot loop), the assigned job first.
          this.busy.busy();
          if (message.jobId !== undefined && !this.queue.includes(message.jobId))
            this.queue.unshift(message.jobId);
          return;
        }
        if (message.jobId === undefined) this.missToken = slot.claimToken;
        this.pump();
        return;
      case "started":
        this.busy.ok();
        slot.state = "busy";
        slot.jobId = message.jobId;
        slot.seq = message.seq;
        slot.cancelDeadline = undefined;
        this.emit({ type: "started", jobId: message.jobId, attempts: message.attempts });
        return;
      case "progress":
        this.watched.set(message.jobId, JSON.stringify(message.progress));
        this.emit({ type: "progress", jobId: message.jobId, progress: message.progress });
        return;
      case "finished":
        slot.state = "idle";
        slot.jobId = undefined;
        slot.cancelDeadline = undefined;
        this.later(() => this.finished(message.jobId, message.outcome), `reporting job ${message.jobId}`);
        this.pump();
        return;
      default:
        return;
    }
  }

  /** A run ended on one of our threads: settle waiters (a lost lease means someone else has the job now). */
  private async finished(jobId: string, outcome: JobOutcome): Promise<void> {
    if (outcome.status === "LOST") {
      this.log(`lotwise jobs: job ${jobId} left to its new owner: ${outcome.reason}.`);
      return;
    }
    const job = await this.store.backtestJobs.getById(jobId);
    if (job && TERMINAL.has(job.status)) this.settle(job);
  }

  private settle(job: BacktestJobRecord): void {
    this.watched.delete(job.id);
    this.assigned.delete(job.id);
    const list = this.waiters.get(job.id);
    this.waiters.delete(job.id);
    this.emit({ type: "finished", jobId: job.id, job });
    for (const w of list ?? []) w.resolve(job);
  }

  /** After a recovery: terminate our workers whose job was taken from them (hung), settle failed jobs, re-queue. */
  private async afterRecovery(report: RecoveryReport): Promise<void> {
    for (const id of [...report.requeued, ...report.failed]) {
      const slot = this.slots.find((s) => s.jobId === id && s.state === "busy");
      if (slot?.worker) {
        this.log(
          `lotwise jobs: job ${id} was recovered from a worker that stopped heartbeating; terminating it.`,
        );
        void slot.worker.terminate();
      }
    }
    for (const id of report.requeued) {
      this.emit({ type: "requeued", jobId: id });
      if (this.assigned.has(id) && !this.queue.includes(id)) this.queue.push(id);
    }
    for (const id of report.failed) {
      const job = await this.store.backtestJobs.getById(id);
      if (job && this.waiters.has(id)) this.settle(job);
    }
    if (report.requeued.length > 0) this.missToken = undefined;
  }

  private claimOptions(): { maxRunningPerOrganization?: number } {
    const limit = this.options.maxRunningPerOrganization;
    return limit === undefined ? {} : { maxRunningPerOrganization: limit };
  }

  /** Give work to idle slots (never throws: called from timers and worker events). */
  private pump(): void {
    this.later(() => this.dispatch(), "dispatching jobs");
  }

  private async dispatch(): Promise<void> {
    if (this.state !== "running" || this.fatal) return;
    if (this.mode === "in-process") {
      if (!this.inProcessBusy && !this.inProcessScheduled) {
        this.inProcessScheduled = true;
        setImmediate(() => {
          this.inProcessScheduled = false;
          this.later(() => this.runInProcess(), "running a job");
        });
      }
      return;
    }
    for (const slot of this.slots) {
      if (slot.state !== "idle") continue;
      if (this.claimPolicy === "assigned") {
        const id = this.queue.shift();
        if (id === undefined) return;
        slot.state = "claiming";
        this.send(slot, { type: "claim", jobId: id });
      } else {
        const token = await this.store.changeToken();
        if (slot.state !== "idle" || this.state !== "running") continue;
        if (this.missToken !== undefined && token === this.missToken) return;
        slot.state = "claiming";
        slot.claimToken = token;
        this.send(slot, { type: "claim" });
      }
    }
  }

  /** In-process mode: claim and run jobs on this thread, yielding to the event loop between jobs. */
  private async runInProcess(): Promise<void> {
    if (this.state !== "running" || this.inProcessBusy) return;
    const slot = this.slots[0]!;
    let job: BacktestJobRecord | undefined;
    try {
      if (this.claimPolicy === "assigned") {
        while (!job && this.queue.length > 0) {
          const id = this.queue[0]!;
          job = await this.store.backtestJobs.claim(id, slot.owner);
          this.queue.shift();
        }
      } else {
        const token = await this.store.changeToken();
        if (this.missToken === undefined || token !== this.missToken) {
          job = await this.store.backtestJobs.claimNext(slot.owner, this.claimOptions());
          if (!job) this.missToken = token;
        }
      }
    } catch (err) {
      // A locked store: nothing was claimed (an assigned job stays first in the queue); the next tick tries again.
      this.backgroundFailure(err, "claiming a job");
      return;
    }
    if (!job) return;
    this.busy.ok();
    this.inProcessBusy = true;
    slot.state = "busy";
    slot.jobId = job.id;
    slot.seq += 1;
    const seq = slot.seq;
    this.emit({ type: "started", jobId: job.id, attempts: job.attempts });
    const ctx: ServiceContext = { store: this.store, clock: () => new Date(this.store.now()) };
    const claimed = job;
    let outcome: JobOutcome | undefined;
    try {
      outcome = await runClaimedJob({
        ctx,
        job: claimed,
        owner: slot.owner,
        executor: this.executor!,
        cancelSignal: () => Atomics.load(slot.cancel, 0) === seq,
        cancelCheckIntervalMs: this.options.cancelCheckIntervalMs ?? DEFAULT_CANCEL_CHECK_INTERVAL_MS,
        onProgress: (progress) => {
          this.watched.set(claimed.id, JSON.stringify(progress));
          this.emit({ type: "progress", jobId: claimed.id, progress });
        },
      });
    } catch (err) {
      // Only the final write can throw (a store locked for longer than run-job's retries): the job stays RUNNING
      // under this live owner until its heartbeat is stale, then the sweep re-queues it.
      this.backgroundFailure(err, `finishing job ${claimed.id}`);
    } finally {
      this.inProcessBusy = false;
      slot.state = "idle";
      slot.jobId = undefined;
    }
    try {
      if (outcome) await this.finished(claimed.id, outcome);
    } catch (err) {
      this.backgroundFailure(err, `reporting job ${claimed.id}`);
    }
    this.pump();
  }

  /** The watch loop: dispatch, report jobs run elsewhere, enforce cancel deadlines. Never throws. */
  private tick(): void {
    this.later(() => this.watch(), "watching jobs");
  }

  private async watch(): Promise<void> {
    if (this.state !== "running") return;
    const now = performance.now();
    for (const slot of this.slots) {
      if (slot.state !== "busy" || slot.jobId === undefined || !slot.worker) continue;
      if (slot.cancelDeadline === undefined) {
        // A cancel requested through the store (another process, the HTTP API) also gets a deadline.
        const jobId = slot.jobId;
        if ((await this.store.backtestJobs.getById(jobId))?.cancelRequested) this.signalCancel(jobId);
      } else if (now >= slot.cancelDeadline) {
        this.log(
          `lotwise jobs: job ${slot.jobId} did not stop within the cancel grace period; terminating its worker.`,
        );
        slot.cancelDeadline = Number.POSITIVE_INFINITY;
        void slot.worker.terminate();
      }
    }
    const mine = new Set(this.runningJobs);
    for (const [jobId, seen] of this.watched) {
      if (mine.has(jobId)) continue;
      const job = await this.store.backtestJobs.getById(jobId);
      if (!job) {
        // Deleted with its client or account.
        this.watched.delete(jobId);
        for (const w of this.waiters.get(jobId) ?? [])
          w.reject(new Error(`Backtest job ${jobId} was deleted.`));
        this.waiters.delete(jobId);
        continue;
      }
      if (TERMINAL.has(job.status)) this.settle(job);
      else {
        const progress = JSON.stringify(job.progress);
        if (progress !== seen && job.progress) {
          this.watched.set(jobId, progress);
          this.emit({ type: "progress", jobId, progress: job.progress });
        }
        if (job.status === "PENDING" && this.assigned.has(jobId) && !this.queue.includes(jobId))
          this.queue.push(jobId);
      }
    }
    this.pump();
  }
}
