import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  createQueueTestStore,
  dropPrefix,
  privatePrefix,
  type QueueTestStore,
  REDIS_URL,
  redisAvailable,
  simulatedHandler,
  waitFor,
} from "../../../../test/helpers/queue-jobs.js";
import { BullJobQueue } from "./bull-queue.js";
import { QUEUE_OWNER_PREFIX, QueueWorker, type QueueWorkerOptions } from "./queue-worker.js";
import type { QueueJobHandler } from "./types.js";
import { runQueueWorker } from "./worker-main.js";

const available = await redisAvailable();
if (!available) console.warn(`queue tests skipped: needs Redis at ${REDIS_URL} (set LOTWISE_TEST_REDIS)`);

describe.skipIf(!available)("BullMQ job queue (needs Redis)", () => {
  const prefix = privatePrefix("queue");
  let s: QueueTestStore;
  let queue: BullJobQueue;
  const workers: QueueWorker[] = [];

  // Long locks: these tests never want a stall, even on a loaded machine (the process tests provoke them).
  const fast = { lockDurationMs: 5000, stalledIntervalMs: 2000, cancelPollMs: 50, reconcileIntervalMs: 0 };

  function worker(handler: QueueJobHandler, options: Partial<QueueWorkerOptions> = {}): QueueWorker {
    const w = new QueueWorker({
      connection: REDIS_URL,
      prefix,
      store: s.store,
      handler,
      ...fast,
      ...options,
    });
    workers.push(w);
    return w;
  }

  const status = async (id: string) => (await s.store.backtestJobs.getById(id))?.status;

  beforeEach(async () => {
    s = await createQueueTestStore();
    queue = new BullJobQueue({ connection: REDIS_URL, prefix, store: s.store });
  });
  afterEach(async () => {
    for (const w of workers.splice(0)) await w.close({ graceMs: 0 });
    await queue.queue.obliterate({ force: true });
    await queue.close();
    await s.close();
  });
  afterAll(async () => {
    await dropPrefix(prefix);
  });

  it("runs an enqueued job once, on one of two workers, and records SUCCESS with the result", async () => {
    const runs: string[] = [];
    const handler = simulatedHandler({
      store: s.store,
      periods: 3,
      periodMs: 20,
      onStart: (_id, owner) => runs.push(owner),
    });
    await Promise.all([worker(handler).start(), worker(handler).start()]);
    const id = await s.createJob({ tax_gamma: 2 });
    await queue.enqueue(id, "backtest");
    const done = await waitFor(
      () => s.store.backtestJobs.getById(id),
      (j) => j?.status === "SUCCESS",
    );
    expect(runs).toHaveLength(1);
    expect(runs[0]!.startsWith(QUEUE_OWNER_PREFIX)).toBe(true);
    expect(done!.result).toEqual({ ran_by: process.pid, periods: 3, account: s.account });
    expect(done!.progress?.completed_periods).toBe(3);
    expect(done!.attempts).toBe(1);
    expect(done!.leaseOwner).toBeNull();
    await new Promise((r) => setTimeout(r, 200));
    expect(runs).toHaveLength(1);
  });

  it("runQueueWorker logs when a job starts and how it ended (`lotwise worker`'s log)", async () => {
    const lines: string[] = [];
    const running = await runQueueWorker({
      store: s.store,
      queueUrl: REDIS_URL,
      prefix,
      handler: simulatedHandler({ store: s.store, periods: 2, periodMs: 20 }),
      log: (line) => lines.push(line),
      signals: [],
      ...fast,
    });
    try {
      const id = await s.createJob();
      await queue.enqueue(id, "backtest");
      await waitFor(
        () => status(id),
        (st) => st === "SUCCESS",
      );
      await waitFor(
        async () => lines,
        (l) => l.some((line) => line.startsWith(`job ${id}: SUCCESS`)),
      );
      expect(lines).toContain(`job ${id}: started (attempt 1)`);
      expect(lines.find((line) => line.startsWith(`job ${id}: SUCCESS`))).toMatch(/ after \d+\.\d s$/);
    } finally {
      await running.stop(0);
    }
  });

  it("runs a job enqueued twice (and again after it finished) only once", async () => {
    let runs = 0;
    const handler = simulatedHandler({ store: s.store, periods: 2, periodMs: 30, onStart: () => runs++ });
    const id = await s.createJob();
    await queue.enqueue(id, "backtest");
    await queue.enqueue(id, "backtest");
    expect(await queue.queue.getJobCounts("waiting", "prioritized")).toEqual({ waiting: 0, prioritized: 1 });
    await worker(handler).start();
    await waitFor(
      () => status(id),
      (st) => st === "SUCCESS",
    );
    await queue.enqueue(id, "backtest");
    await new Promise((r) => setTimeout(r, 300));
    expect(runs).toBe(1);
    expect(await status(id)).toBe("SUCCESS");
  });

  it("honours concurrency: 3 jobs on a worker of concurrency 2 never have more than 2 in flight", async () => {
    let inFlight = 0;
    let most = 0;
    const started: string[] = [];
    const finished: string[] = [];
    const inner = simulatedHandler({ store: s.store, periods: 4, periodMs: 50 });
    const handler: QueueJobHandler = async (id, ctx) => {
      inFlight++;
      most = Math.max(most, inFlight);
      started.push(id);
      try {
        await inner(id, ctx);
      } finally {
        inFlight--;
        finished.push(id);
      }
    };
    const ids = [await s.createJob(), await s.createJob(), await s.createJob()];
    for (const id of ids) await queue.enqueue(id, "backtest");
    await worker(handler, { concurrency: 2 }).start();
    await waitFor(
      async () => Promise.all(ids.map(status)),
      (all) => all.every((st) => st === "SUCCESS"),
    );
    expect(most).toBe(2);
    expect(started).toHaveLength(3);
    // The third job started only after one of the first two had finished.
    expect(finished.indexOf(started[0]!) === 0 || finished.indexOf(started[1]!) === 0).toBe(true);
    expect(finished[0]).not.toBe(started[2]);
  });

  it("cancels a waiting job: removed from the queue, the row failed as cancelled, the handler never called", async () => {
    let runs = 0;
    const handler = simulatedHandler({ store: s.store, periods: 1, periodMs: 10, onStart: () => runs++ });
    const id = await s.createJob();
    const other = await s.createJob();
    await queue.enqueue(id, "backtest");
    await queue.enqueue(other, "backtest");
    const outcome = await queue.cancel(id);
    expect(outcome).toEqual({ status: "FAILURE", removedFromQueue: true });
    expect(await queue.queue.getJob(id)).toBeUndefined();
    const row = await s.store.backtestJobs.getById(id);
    expect(row?.errorMessage).toBe("Cancelled before it started.");
    await worker(handler).start();
    await waitFor(
      () => status(other),
      (st) => st === "SUCCESS",
    );
    expect(runs).toBe(1);
    expect(await status(id)).toBe("FAILURE");
  });

  it("cancels a running job from another queue connection through the store's cancel flag", async () => {
    const periods: number[] = [];
    const handler = simulatedHandler({
      store: s.store,
      periods: 200,
      periodMs: 20,
      onPeriod: (_id, k) => periods.push(k),
    });
    await worker(handler).start();
    const id = await s.createJob();
    await queue.enqueue(id, "backtest");
    await waitFor(
      () => periods.length,
      (n) => n >= 2,
    );
    const elsewhere = new BullJobQueue({ connection: REDIS_URL, prefix, store: s.store });
    try {
      const outcome = await elsewhere.cancel(id);
      expect(outcome).toEqual({ status: "RUNNING", removedFromQueue: false });
    } finally {
      await elsewhere.close();
    }
    const row = await waitFor(
      () => s.store.backtestJobs.getById(id),
      (j) => j?.status === "FAILURE",
    );
    expect(row!.errorMessage).toMatch(/^Cancelled on request after \d+ of 200 periods\.$/);
    expect(periods.length).toBeLessThan(200);
  });

  it("does not run a job whose row already finished, and drops an id the store does not know", async () => {
    let runs = 0;
    const handler = simulatedHandler({ store: s.store, periods: 1, periodMs: 10, onStart: () => runs++ });
    const id = await s.createJob();
    await s.store.backtestJobs.fail(id, "Failed elsewhere.");
    const w = worker(handler);
    const events: string[] = [];
    w.onEvent((e) => events.push(`${e.type}:${"reason" in e ? e.reason : ""}`));
    await w.start();
    await queue.enqueue(id, "backtest");
    await queue.enqueue("00000000-0000-4000-8000-000000000000", "backtest");
    await waitFor(
      () => events.length,
      (n) => n >= 2,
    );
    expect(events.sort()).toEqual(["skipped:finished", "skipped:missing"]);
    expect(runs).toBe(0);
    expect((await s.store.backtestJobs.getById(id))?.errorMessage).toBe("Failed elsewhere.");
  });

  it("records FAILURE with the handler's error when the handler throws, and when it returns without an outcome", async () => {
    const throwing = await s.createJob();
    const silent = await s.createJob();
    await worker(async (id) => {
      if (id === throwing) throw new Error("engine exploded");
    }).start();
    await queue.enqueue(throwing, "backtest");
    await queue.enqueue(silent, "backtest");
    const a = await waitFor(
      () => s.store.backtestJobs.getById(throwing),
      (j) => j?.status === "FAILURE",
    );
    const b = await waitFor(
      () => s.store.backtestJobs.getById(silent),
      (j) => j?.status === "FAILURE",
    );
    expect(a!.errorMessage).toBe("The job stopped on an internal error (engine exploded).");
    expect(b!.errorMessage).toBe("The job ended without recording a result (internal error).");
    const entry = await queue.queue.getJob(throwing);
    expect(await entry?.getState()).toBe("failed");
  });

  it("reconcile fails a row left RUNNING under a queue lease whose queue entry is gone", async () => {
    const id = await s.createJob();
    const other = await s.createJob();
    await s.store.backtestJobs.claim(id, `${QUEUE_OWNER_PREFIX}gone-host/1/abc/1`);
    await s.store.backtestJobs.claim(other, "host/123/runner/w0"); // not a queue lease: left alone
    const w = worker(async () => {});
    expect(await w.reconcile()).toEqual({ failed: [id], enqueued: [] });
    const row = await s.store.backtestJobs.getById(id);
    expect(row?.status).toBe("FAILURE");
    expect(row?.errorMessage).toBe(
      "The worker running this job stopped once before finishing (its process ended or lost its connection); giving up. Start the backtest again.",
    );
    expect(await status(other)).toBe("RUNNING");
  });

  it("reconcile enqueues a PENDING row the queue does not have, so a failed enqueue never strands a job", async () => {
    const stranded = await s.createJob();
    const queued = await s.createJob();
    const cancelled = await s.createJob();
    await queue.enqueue(queued, "backtest");
    await s.store.backtestJobs.requestCancel(s.org, cancelled); // FAILURE: not PENDING any more
    let runs = 0;
    const w = worker(simulatedHandler({ store: s.store, periods: 1, periodMs: 10, onStart: () => runs++ }));
    await w.start(); // reconciles first
    await waitFor(
      async () => Promise.all([status(stranded), status(queued)]),
      (all) => all.every((st) => st === "SUCCESS"),
    );
    expect(runs).toBe(2);
    expect(await status(cancelled)).toBe("FAILURE");
    expect(await w.reconcile()).toEqual({ failed: [], enqueued: [] });
  });

  it("runs a job again when its row was re-queued under it (lease taken away), and it ends SUCCESS once", async () => {
    const owners: string[] = [];
    const successes: string[] = [];
    const handler = simulatedHandler({
      store: s.store,
      periods: 10,
      periodMs: 30,
      onStart: (_id, owner) => owners.push(owner),
      onSuccess: (jobId) => successes.push(jobId),
    });
    await worker(handler).start();
    const id = await s.createJob();
    await queue.enqueue(id, "backtest");
    await waitFor(
      async () => (await s.store.backtestJobs.getById(id))?.progress?.completed_periods ?? 0,
      (k) => k >= 2,
    );
    // A sweep that finds the lease stale puts the row back to PENDING while the first run is going on.
    const first = owners[0]!;
    const swept = await s.store.backtestJobs.recoverOrphans({
      liveOwners: [],
      staleBefore: "",
      maxAttempts: 5,
      isLiveOwner: (o) => o !== first,
    });
    expect(swept.requeued).toEqual([id]);
    const done = await waitFor(
      () => s.store.backtestJobs.getById(id),
      (j) => j?.status === "SUCCESS",
    );
    expect(owners).toHaveLength(2);
    expect(successes).toEqual([id]);
    expect(done!.attempts).toBe(2);
  });

  it("is fair across organizations: another organization's job runs before the rest of a long backlog", async () => {
    const order: string[] = [];
    const handler = simulatedHandler({
      store: s.store,
      periods: 1,
      periodMs: 5,
      onStart: (id) => order.push(id),
    });
    // Organization A queues 6 jobs, then organization B one: B's job gets priority 1 (its backlog), A's 1..6.
    // (Each row is stored and enqueued in turn, as endpoint 2 does; rows stored together share their priority.)
    const a = [];
    for (let i = 0; i < 6; i++) {
      a.push(await s.createJob({ n: i }));
      await queue.enqueue(a[i]!, "backtest");
    }
    const orgB = (await s.store.organizations.create("Other Org")).uuid;
    const clientB = (await s.store.clients.create(orgB, { externalId: "other" })).uuid;
    const accountB = (await s.store.accounts.create(orgB, clientB, { name: "B" })).uuid;
    const progress = {
      planned_periods: 0,
      completed_periods: 0,
      last_completed_period: null,
      last_progress_at: null,
    };
    const b = (await s.store.backtestJobs.create(orgB, accountB, {}, {}, progress)).id;
    await queue.enqueue(b, "backtest");
    expect((await queue.queue.getJob(b))?.opts.priority).toBe(1);
    expect((await queue.queue.getJob(a[5]!))?.opts.priority).toBe(6);
    await worker(handler).start();
    await waitFor(
      () => order.length,
      (n) => n === 7,
    );
    // A's first job (priority 1, queued first), then B's, then the rest of A's backlog in order.
    expect(order).toEqual([a[0], b, ...a.slice(1)]);
  });

  it("hands a running job back on close after the grace period, and another worker finishes it", async () => {
    const owners: string[] = [];
    const handler = simulatedHandler({
      store: s.store,
      periods: 40,
      periodMs: 25,
      onStart: (_id, owner) => owners.push(owner),
    });
    const first = worker(handler);
    await first.start();
    const id = await s.createJob();
    await queue.enqueue(id, "backtest");
    await waitFor(
      () => owners.length,
      (n) => n === 1,
    );
    await first.close({ graceMs: 100 });
    const back = await s.store.backtestJobs.getById(id);
    expect(back?.status).toBe("PENDING");
    expect(back?.leaseOwner).toBeNull();
    // Back in the queue: waiting, and ordered by its priority (bull-queue.ts: fair across organizations).
    expect(await (await queue.queue.getJob(id))?.getState()).toBe("prioritized");
    await worker(handler).start();
    const done = await waitFor(
      () => s.store.backtestJobs.getById(id),
      (j) => j?.status === "SUCCESS",
    );
    expect(owners).toHaveLength(2);
    expect(owners[0]).not.toBe(owners[1]);
    expect(done!.attempts).toBe(2);
    expect((await queue.queue.getJob(id))?.stalledCounter).toBe(0);
  });
});
