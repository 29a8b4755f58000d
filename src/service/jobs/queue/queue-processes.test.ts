/**
 * Workers in child processes, killed mid-job: with SIGKILL (BullMQ's stalled-job check hands the job to another
 * worker once, then fails it with a clear message in the store) and with SIGTERM (the worker finishes the job within
 * its grace period, or hands it back). Short lock (2 s) and stall-check (0.5 s) intervals keep the tests fast.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { resolve } from "node:path";
import { createInterface } from "node:readline";
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
import { QueueWorker } from "./queue-worker.js";

const CHILD = resolve(import.meta.dirname, "../../../../test/helpers/queue-worker-child.ts");
const available = await redisAvailable();
if (!available)
  console.warn(`queue process tests skipped: needs Redis at ${REDIS_URL} (set LOTWISE_TEST_REDIS)`);

/** A worker child process and the lines it printed. */
interface Child {
  proc: ChildProcess;
  lines: string[];
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  waitLine(line: string, timeoutMs?: number): Promise<void>;
}

describe.skipIf(!available)("queue workers in child processes (needs Redis)", () => {
  const prefix = privatePrefix("queue-procs");
  let s: QueueTestStore;
  let queue: BullJobQueue;
  const children: Child[] = [];
  const workers: QueueWorker[] = [];

  function startChild(periods: number, periodMs: number, graceMs = 5000): Child {
    const proc = spawn(
      process.execPath,
      [
        "--import",
        "tsx",
        CHILD,
        s.path,
        REDIS_URL,
        prefix,
        String(periods),
        String(periodMs),
        String(graceMs),
      ],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    const lines: string[] = [];
    createInterface({ input: proc.stdout! }).on("line", (l) => lines.push(l));
    let stderr = "";
    proc.stderr!.on("data", (d) => {
      stderr += String(d);
    });
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((res) =>
      proc.on("exit", (code, signal) => res({ code, signal })),
    );
    const child: Child = {
      proc,
      lines,
      exited,
      waitLine: async (line, timeoutMs = 20_000) => {
        try {
          await waitFor(
            () => lines.includes(line),
            (seen) => seen,
            timeoutMs,
          );
        } catch {
          throw new Error(`child never printed "${line}"; stdout ${JSON.stringify(lines)}; stderr ${stderr}`);
        }
      },
    };
    children.push(child);
    return child;
  }

  function inProcessWorker(onStart: (id: string) => void, onSuccess: (id: string) => void): QueueWorker {
    const w = new QueueWorker({
      connection: REDIS_URL,
      prefix,
      store: s.store,
      handler: simulatedHandler({ store: s.store, periods: 3, periodMs: 20, onStart, onSuccess }),
      lockDurationMs: 2000,
      stalledIntervalMs: 500,
      cancelPollMs: 50,
      reconcileIntervalMs: 0,
    });
    workers.push(w);
    return w;
  }

  beforeEach(async () => {
    s = await createQueueTestStore();
    queue = new BullJobQueue({ connection: REDIS_URL, prefix, store: s.store });
  });
  afterEach(async () => {
    for (const c of children.splice(0))
      if (c.proc.exitCode === null && c.proc.signalCode === null) c.proc.kill("SIGKILL");
    for (const w of workers.splice(0)) await w.close({ graceMs: 0 });
    await queue.queue.obliterate({ force: true });
    await queue.close();
    await s.close();
  });
  afterAll(async () => {
    await dropPrefix(prefix);
  });

  it("retries a job on another worker after its worker was SIGKILLed mid-job; it ends SUCCESS exactly once", async () => {
    const id = await s.createJob();
    const child = startChild(100, 50); // 5 s of work: killed long before the end
    await child.waitLine("ready");
    await queue.enqueue(id, "backtest");
    await child.waitLine(`started ${id}`);
    await waitFor(
      async () => (await s.store.backtestJobs.getById(id))?.progress?.completed_periods ?? 0,
      (k) => k >= 2,
    );
    child.proc.kill("SIGKILL");
    expect((await child.exited).signal).toBe("SIGKILL");
    expect((await s.store.backtestJobs.getById(id))?.status).toBe("RUNNING");

    const starts: string[] = [];
    const successes: string[] = [];
    await inProcessWorker(
      (j) => starts.push(j),
      (j) => successes.push(j),
    ).start();
    const done = await waitFor(
      () => s.store.backtestJobs.getById(id),
      (j) => j?.status === "SUCCESS",
    );
    expect(done!.result).toMatchObject({ ran_by: process.pid });
    expect(done!.attempts).toBe(2);
    expect(starts).toEqual([id]);
    expect(successes).toEqual([id]);
    expect(child.lines.filter((l) => l.startsWith("succeeded"))).toEqual([]);
    expect((await queue.queue.getJob(id))?.stalledCounter).toBe(1);
  });

  it("fails a job whose worker was SIGKILLed twice with a clear message in the store, never leaving it RUNNING", async () => {
    const id = await s.createJob();
    const first = startChild(100, 50);
    await first.waitLine("ready");
    await queue.enqueue(id, "backtest");
    await first.waitLine(`started ${id}`);
    first.proc.kill("SIGKILL");
    await first.exited;

    const second = startChild(100, 50);
    await second.waitLine(`started ${id}`); // its own stalled check gave it the job
    second.proc.kill("SIGKILL");
    await second.exited;
    expect((await s.store.backtestJobs.getById(id))?.attempts).toBe(2);

    const starts: string[] = [];
    await inProcessWorker(
      (j) => starts.push(j),
      () => {},
    ).start();
    const failed = await waitFor(
      () => s.store.backtestJobs.getById(id),
      (j) => j?.status !== "RUNNING" && j?.status !== "PENDING",
    );
    expect(failed!.status).toBe("FAILURE");
    expect(failed!.errorMessage).toBe(
      "The worker running this job stopped twice before finishing (its process ended or lost its connection); giving up. Start the backtest again.",
    );
    expect(failed!.finishedAt).not.toBeNull();
    expect(starts).toEqual([]);
    expect(await (await queue.queue.getJob(id))?.getState()).toBe("failed");
  });

  it("on SIGTERM mid-job finishes the job within the grace period, then exits 0", async () => {
    const id = await s.createJob();
    const child = startChild(20, 50, 10_000); // 1 s of work, 10 s of grace
    await child.waitLine("ready");
    await queue.enqueue(id, "backtest");
    await child.waitLine(`started ${id}`);
    child.proc.kill("SIGTERM");
    expect(await child.exited).toEqual({ code: 0, signal: null });
    expect(child.lines).toContain(`succeeded ${id}`);
    expect(child.lines.at(-1)).toBe("stopped");
    const row = await s.store.backtestJobs.getById(id);
    expect(row?.status).toBe("SUCCESS");
    expect(row?.result).toMatchObject({ ran_by: child.proc.pid });
    expect(row?.attempts).toBe(1);
  });

  it("on SIGTERM mid-job hands a job that outlasts the grace period back; another worker finishes it", async () => {
    const id = await s.createJob();
    const child = startChild(200, 50, 300); // 10 s of work, 0.3 s of grace
    await child.waitLine("ready");
    await queue.enqueue(id, "backtest");
    await child.waitLine(`started ${id}`);
    child.proc.kill("SIGTERM");
    expect(await child.exited).toEqual({ code: 0, signal: null });
    expect(child.lines).not.toContain(`succeeded ${id}`);
    const back = await s.store.backtestJobs.getById(id);
    expect(back?.status).toBe("PENDING");
    // Back in the queue: waiting, and ordered by its priority (bull-queue.ts: fair across organizations).
    expect(await (await queue.queue.getJob(id))?.getState()).toBe("prioritized");

    const successes: string[] = [];
    await inProcessWorker(
      () => {},
      (j) => successes.push(j),
    ).start();
    const done = await waitFor(
      () => s.store.backtestJobs.getById(id),
      (j) => j?.status === "SUCCESS",
    );
    expect(successes).toEqual([id]);
    expect(done!.result).toMatchObject({ ran_by: process.pid });
    expect(done!.attempts).toBe(2);
    expect((await queue.queue.getJob(id))?.stalledCounter).toBe(0);
  });

  it("on a second SIGTERM hands the running job back at once, without waiting for the grace period", async () => {
    const id = await s.createJob();
    const child = startChild(200, 50, 60_000); // 10 s of work, 60 s of grace
    await child.waitLine("ready");
    await queue.enqueue(id, "backtest");
    await child.waitLine(`started ${id}`);
    const t0 = Date.now();
    child.proc.kill("SIGTERM");
    await new Promise((r) => setTimeout(r, 300));
    expect(child.proc.exitCode).toBeNull(); // still finishing within its grace period
    child.proc.kill("SIGTERM");
    expect(await child.exited).toEqual({ code: 0, signal: null });
    expect(Date.now() - t0).toBeLessThan(5000);
    expect((await s.store.backtestJobs.getById(id))?.status).toBe("PENDING");
    // Back in the queue: waiting, and ordered by its priority (bull-queue.ts: fair across organizations).
    expect(await (await queue.queue.getJob(id))?.getState()).toBe("prioritized");
  });
});
