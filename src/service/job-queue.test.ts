/**
 * The service side of the distributed job queue, with an in-memory JobQueue that records calls: endpoint 2 and
 * scan jobs enqueue the stored row (already PENDING in the store when enqueue runs), an enqueue failure still
 * answers the PENDING job (and is logged with its id), and cancel goes through the queue after the organization
 * check, falling back to the store when the queue cannot be reached.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fastExecutor } from "../../test/helpers/backtest-executors.js";
import {
  createTestStore,
  type SeededOrganization,
  seedOrganization,
  type TestStore,
} from "../../test/helpers/fixture.js";
import { cancelBacktest, startBacktest } from "./backtest-jobs.js";
import type { ServiceContext } from "./context.js";
import { setJobQueueLog } from "./job-queue.js";
import type { JobQueue, QueueCancelOutcome } from "./jobs/queue/types.js";
import { startScanJob } from "./scan-jobs.js";

/** A queue that records what the service asks of it, and fails when told to. */
class RecordingQueue implements JobQueue {
  readonly enqueued: { id: string; kind: string; statusAtEnqueue: string | undefined }[] = [];
  readonly cancelled: string[] = [];
  failEnqueue = false;
  failCancel = false;
  constructor(private readonly t: TestStore) {}
  async enqueue(jobId: string, kind: "backtest" | "scan"): Promise<void> {
    if (this.failEnqueue) throw new Error("redis is down");
    const row = await this.t.store.backtestJobs.getById(jobId);
    this.enqueued.push({ id: jobId, kind, statusAtEnqueue: row?.status });
  }
  async cancel(jobId: string): Promise<QueueCancelOutcome> {
    if (this.failCancel) throw new Error("redis is down");
    this.cancelled.push(jobId);
    const row = (await this.t.store.backtestJobs.getById(jobId))!;
    const after = await this.t.store.backtestJobs.requestCancel(row.organizationUuid, jobId, row.kind);
    return { status: after.status, removedFromQueue: true };
  }
  async ping(): Promise<void> {}
  async close(): Promise<void> {}
}

let t: TestStore;
let seeded: SeededOrganization;
let queue: RecordingQueue;
let ctx: ServiceContext;
const logged: string[] = [];
let restoreLog: (line: string) => void;

beforeAll(async () => {
  t = await createTestStore({ withMarket: true });
  seeded = await seedOrganization(t, t.orgA);
  queue = new RecordingQueue(t);
  ctx = { ...t.ctx, jobQueue: queue, backtestExecutor: fastExecutor } as ServiceContext;
  restoreLog = setJobQueueLog((line) => logged.push(line));
});
afterAll(() => {
  setJobQueueLog(restoreLog);
  t.close();
});

const start = () => startBacktest(ctx, t.orgA.uuid, seeded.clientUuid, seeded.accountUuid, {});

describe("service with a job queue", () => {
  it("enqueues a started backtest after its PENDING row is stored", async () => {
    const job = await start();
    expect(job.status).toBe("PENDING");
    expect(queue.enqueued.at(-1)).toEqual({ id: job.id, kind: "backtest", statusAtEnqueue: "PENDING" });
  });

  it("enqueues a scan job that runs on the workers, with kind scan", async () => {
    const job = await startScanJob(ctx, t.orgA.uuid, { async: true });
    expect(job.status).toBe("PENDING");
    expect(queue.enqueued.at(-1)).toEqual({ id: job.id, kind: "scan", statusAtEnqueue: "PENDING" });
  });

  it("still answers the PENDING job when the queue refuses it, and logs the job id", async () => {
    queue.failEnqueue = true;
    try {
      const job = await start();
      expect(job.status).toBe("PENDING");
      expect((await t.store.backtestJobs.getById(job.id))?.status).toBe("PENDING");
      expect(logged.at(-1)).toContain(
        `could not put backtest job ${job.id} on the job queue (redis is down)`,
      );
    } finally {
      queue.failEnqueue = false;
    }
  });

  it("cancels through the queue, only after the organization check", async () => {
    const job = await start();
    await expect(cancelBacktest(ctx, t.orgB.uuid, job.id)).rejects.toMatchObject({
      code: "backtest_not_found",
    });
    expect(queue.cancelled).not.toContain(job.id);
    const after = await cancelBacktest(ctx, t.orgA.uuid, job.id);
    expect(queue.cancelled).toContain(job.id);
    expect(after.status).toBe("FAILURE");
    expect(after.error_message).toBe("Cancelled before it started.");
  });

  it("cancels in the store when the queue cannot be reached", async () => {
    const job = await start();
    queue.failCancel = true;
    try {
      const after = await cancelBacktest(ctx, t.orgA.uuid, job.id);
      expect(after.status).toBe("FAILURE");
      expect(after.error_message).toBe("Cancelled before it started.");
      expect(logged.at(-1)).toContain(`cancel of job ${job.id} through the job queue failed`);
    } finally {
      queue.failCancel = false;
    }
  });
});
