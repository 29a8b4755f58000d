/**
 * @module test/helpers/queue-jobs
 * Helpers of the BullMQ queue tests: a Redis probe, a private key prefix per test file (deleted afterwards), a
 * SQLite store file with an organization and an account, and a simulated job handler that runs "periods" with
 * sleeps, writing progress and its outcome to the store under the lease like the real engine does.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import type { QueueJobHandler } from "../../src/service/jobs/queue/index.js";
import { type LotwiseStore, openSqliteStore } from "../../src/store/index.js";

export const REDIS_URL = process.env.LOTWISE_TEST_REDIS ?? "redis://127.0.0.1:6379";

/** True when Redis answers PING at `url` within 2 s. */
export async function redisAvailable(url = REDIS_URL): Promise<boolean> {
  const client = new Redis(url, {
    lazyConnect: true,
    connectTimeout: 2000,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  client.on("error", () => {});
  try {
    await client.connect();
    return (await client.ping()) === "PONG";
  } catch {
    return false;
  } finally {
    client.disconnect();
  }
}

/** A key prefix no other test file or helper uses. */
export function privatePrefix(name: string): string {
  return `lotwise-test-${name}-${process.pid}-${randomBytes(4).toString("hex")}`;
}

/** Delete every Redis key under `prefix`. */
export async function dropPrefix(prefix: string, url = REDIS_URL): Promise<void> {
  const client = new Redis(url, { maxRetriesPerRequest: 1 });
  client.on("error", () => {});
  try {
    let cursor = "0";
    do {
      const [next, keys] = await client.scan(cursor, "MATCH", `${prefix}:*`, "COUNT", 500);
      cursor = next;
      if (keys.length > 0) await client.del(...keys);
    } while (cursor !== "0");
  } finally {
    client.disconnect();
  }
}

/** A store file with one organization and one account. */
export interface QueueTestStore {
  store: LotwiseStore;
  path: string;
  org: string;
  account: string;
  /** A new PENDING backtest job row; returns its id. */
  createJob(params?: Record<string, unknown>): Promise<string>;
  close(): Promise<void>;
}

export async function createQueueTestStore(): Promise<QueueTestStore> {
  const dir = mkdtempSync(join(tmpdir(), "lotwise-queue-"));
  const path = join(dir, "queue.db");
  const store = openSqliteStore(path);
  const org = (await store.organizations.create("Queue Org")).uuid;
  const client = (await store.clients.create(org, { externalId: "queue-client" })).uuid;
  const account = (await store.accounts.create(org, client, { name: "Taxable" })).uuid;
  return {
    store,
    path,
    org,
    account,
    createJob: async (params = {}) =>
      (
        await store.backtestJobs.create(org, account, params, params, {
          planned_periods: 0,
          completed_periods: 0,
          last_completed_period: null,
          last_progress_at: null,
        })
      ).id,
    close: async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Options of {@link simulatedHandler}. */
export interface SimulatedJobOptions {
  store: LotwiseStore;
  periods: number;
  periodMs: number;
  /** Called at the start of each run and after each recorded period. */
  onStart?: (jobId: string, leaseOwner: string) => void;
  onPeriod?: (jobId: string, period: number) => void;
  /** Called when the run wrote SUCCESS. */
  onSuccess?: (jobId: string) => void;
}

/**
 * A handler like the engine's: `periods` periods of `periodMs`, progress written under the lease after each; on a
 * cancel, FAILURE "Cancelled on request after k of n periods."; on a shutdown or a lost lease it just stops; at the
 * end SUCCESS with `{ ran_by: pid, periods }`.
 */
export function simulatedHandler(options: SimulatedJobOptions): QueueJobHandler {
  return async (jobId, { job, leaseOwner, signal, reportProgress }) => {
    const store = options.store;
    options.onStart?.(jobId, leaseOwner);
    const n = options.periods;
    for (let k = 1; k <= n; k++) {
      await new Promise((resolve) => setTimeout(resolve, options.periodMs));
      if (signal.aborted) {
        if (signal.reason === "cancel")
          await store.backtestJobs.fail(
            jobId,
            `Cancelled on request after ${k - 1} of ${n} periods.`,
            leaseOwner,
          );
        return;
      }
      const progress = {
        planned_periods: n,
        completed_periods: k,
        last_completed_period: `P${k}`,
        last_progress_at: new Date().toISOString(),
      };
      if (!(await store.backtestJobs.progress(jobId, leaseOwner, progress))) return; // lease lost
      reportProgress(progress);
      options.onPeriod?.(jobId, k);
    }
    const done = await store.backtestJobs.succeed(
      jobId,
      leaseOwner,
      { ran_by: process.pid, periods: n, account: job.accountUuid },
      {
        planned_periods: n,
        completed_periods: n,
        last_completed_period: `P${n}`,
        last_progress_at: new Date().toISOString(),
      },
    );
    if (done) options.onSuccess?.(jobId);
  };
}

/** Poll `read` every 25 ms until `done(value)` or `timeoutMs` (then throw with the last value). */
export async function waitFor<T>(
  read: () => Promise<T> | T,
  done: (value: T) => boolean,
  timeoutMs = 15_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: T;
  for (;;) {
    last = await read();
    if (done(last)) return last;
    if (Date.now() > deadline) throw new Error(`waitFor: timed out; last value ${JSON.stringify(last)}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
