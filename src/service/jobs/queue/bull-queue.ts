/**
 * @module service/jobs/queue/bull-queue
 * {@link JobQueue} on BullMQ (Redis). A queue entry is `{ name: kind, data: { kind }, id: the store's job id }`:
 * BullMQ ignores an add whose id exists, so a job is queued at most once; everything else about the job stays in
 * the store's row.
 */
import { Queue } from "bullmq";
import { Redis } from "ioredis";
import type { LotwiseStore } from "../../../store/index.js";
import type { JobKind } from "../../../store/records.js";
import {
  DEFAULT_QUEUE_NAME,
  DEFAULT_QUEUE_PREFIX,
  type JobQueue,
  type QueueCancelOutcome,
  type QueueLocation,
} from "./types.js";

/** The data of a queue entry. */
export interface QueueEntryData {
  kind: JobKind;
}

/** Finished entries are kept this long (seconds) so that a late duplicate enqueue is still recognized: 1 day. */
export const DEFAULT_KEEP_FINISHED_SECONDS = 86_400;

/** BullMQ connection options for a Redis URL (workers need `maxRetriesPerRequest: null` for blocking reads). */
export function bullConnection(url: string): { url: string; maxRetriesPerRequest: null } {
  return { url, maxRetriesPerRequest: null };
}

/** The queue's key prefix and name with their defaults. */
export function queueNames(location: QueueLocation): { prefix: string; queueName: string } {
  return {
    prefix: location.prefix ?? DEFAULT_QUEUE_PREFIX,
    queueName: location.queueName ?? DEFAULT_QUEUE_NAME,
  };
}

/**
 * A Redis client for health checks only: a command waits for at most one connection attempt (then fails) and the
 * client keeps reconnecting in the background, so a readiness probe gets an answer instead of a hang.
 */
export function pingClient(url: string): Redis {
  return new Redis(url, {
    maxRetriesPerRequest: 0,
    connectTimeout: 2000,
    retryStrategy: (times) => Math.min(times * 200, 2000),
    lazyConnect: false,
  }).on("error", () => {
    // Reported through ping(); an unhandled "error" event would crash the process.
  });
}

/** Options of {@link BullJobQueue}. */
export interface BullJobQueueOptions extends QueueLocation {
  /** The store whose job rows the queue's entries name (cancel marks them). */
  store: LotwiseStore;
  /** How long finished entries stay in Redis (seconds). @default DEFAULT_KEEP_FINISHED_SECONDS */
  keepFinishedSeconds?: number;
  /** Longest wait for Redis to accept an entry (ms) before `enqueue` rejects. @default DEFAULT_ENQUEUE_TIMEOUT_MS */
  enqueueTimeoutMs?: number;
}

/** Longest wait of {@link BullJobQueue.enqueue} for Redis: 5 s (a request should not hang on an outage). */
export const DEFAULT_ENQUEUE_TIMEOUT_MS = 5000;

/** `enqueue` could not reach the queue in time; the row stays PENDING and a worker's reconcile sweep queues it. */
export class EnqueueTimeoutError extends Error {
  constructor(
    readonly jobId: string,
    readonly timeoutMs: number,
  ) {
    super(`The job queue did not accept job ${jobId} within ${timeoutMs} ms.`);
    this.name = "EnqueueTimeoutError";
  }
}

/** BullMQ's largest priority (2^21); lower numbers run first. */
const MAX_PRIORITY = 2_097_152;

/**
 * Puts the stored job `jobId` on `queue` under its id, with a priority that makes the queue fair across
 * organizations as the SQLite runner is (docs/backtest-jobs.md, "Jobs on BullMQ"): the number of PENDING jobs its
 * organization has when it is enqueued (this one included). An organization that queues 500 jobs gets priorities
 * 1..500; another organization's next job gets 1 and runs after the job in hand, not after the 500 (BullMQ runs
 * lower priorities first, FIFO within one). Adding an id already queued adds nothing.
 */
export async function addQueueEntry(
  queue: Queue<QueueEntryData, unknown, JobKind>,
  store: LotwiseStore,
  jobId: string,
  kind: JobKind,
  keepSeconds: number = DEFAULT_KEEP_FINISHED_SECONDS,
): Promise<void> {
  const row = await store.backtestJobs.getById(jobId);
  const backlog = row ? await store.backtestJobs.countPending(row.organizationUuid) : 1;
  await queue.add(
    kind,
    { kind },
    {
      jobId,
      priority: Math.min(MAX_PRIORITY, Math.max(1, backlog)),
      // One attempt as far as BullMQ is concerned: an error is final (the store row says why). Only a stalled
      // worker makes BullMQ run the job again (the worker's maxStalledCount).
      attempts: 1,
      removeOnComplete: { age: keepSeconds },
      removeOnFail: { age: keepSeconds },
    },
  );
}

/** States in which an entry has not been handed to a worker yet. */
const WAITING_STATES = new Set(["waiting", "delayed", "prioritized", "paused", "wait"]);

export class BullJobQueue implements JobQueue {
  readonly queue: Queue<QueueEntryData, unknown, JobKind>;
  private readonly store: LotwiseStore;
  private readonly keepSeconds: number;
  private readonly enqueueTimeoutMs: number;
  private pinger: Redis | undefined;
  private readonly url: string;
  readonly location: QueueLocation;

  constructor(options: BullJobQueueOptions) {
    const { prefix, queueName } = queueNames(options);
    this.url = options.connection;
    this.location = { connection: options.connection, prefix, queueName };
    this.store = options.store;
    this.keepSeconds = options.keepFinishedSeconds ?? DEFAULT_KEEP_FINISHED_SECONDS;
    this.enqueueTimeoutMs = options.enqueueTimeoutMs ?? DEFAULT_ENQUEUE_TIMEOUT_MS;
    this.queue = new Queue<QueueEntryData, unknown, JobKind>(queueName, {
      connection: bullConnection(options.connection),
      prefix,
    });
    // Connection trouble surfaces as rejected calls; without a listener an "error" event would end the process.
    this.queue.on("error", () => {});
  }

  /**
   * @throws {EnqueueTimeoutError} when Redis does not accept the entry within `enqueueTimeoutMs`. The row is
   * stored already: a caller may answer as usual and log, since every worker's reconcile sweep queues PENDING rows
   * the queue lacks (and a late add of the same id is a no-op).
   */
  async enqueue(jobId: string, kind: JobKind): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new EnqueueTimeoutError(jobId, this.enqueueTimeoutMs)),
        this.enqueueTimeoutMs,
      );
    });
    const adding = this.add(jobId, kind);
    adding.catch(() => {}); // a late failure after the timeout is not unhandled
    try {
      await Promise.race([adding, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  private async add(jobId: string, kind: JobKind): Promise<void> {
    await addQueueEntry(this.queue, this.store, jobId, kind, this.keepSeconds);
  }

  /** See {@link JobQueue.cancel}; the caller has checked that the job belongs to the asking organization. */
  async cancel(jobId: string): Promise<QueueCancelOutcome> {
    const row = await this.store.backtestJobs.getById(jobId);
    let status = row?.status ?? null;
    if (row && (row.status === "PENDING" || row.status === "RUNNING"))
      status = (await this.store.backtestJobs.requestCancel(row.organizationUuid, jobId, row.kind)).status;
    let removedFromQueue = false;
    const entry = await this.queue.getJob(jobId);
    if (entry && WAITING_STATES.has(await entry.getState())) {
      try {
        await entry.remove();
        removedFromQueue = true;
      } catch {
        // Taken by a worker meanwhile (locked): the worker finds the row failed or flagged and stops.
      }
    }
    return { status, removedFromQueue };
  }

  async ping(): Promise<void> {
    this.pinger ??= pingClient(this.url);
    await this.pinger.ping();
  }

  async close(): Promise<void> {
    this.pinger?.disconnect();
    await this.queue.close();
  }
}

/** A {@link JobQueue} on BullMQ at `options.connection`. */
export function createBullJobQueue(options: BullJobQueueOptions): BullJobQueue {
  return new BullJobQueue(options);
}
