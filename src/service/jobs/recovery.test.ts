/**
 * Recovery of jobs left RUNNING: a whole process killed with SIGKILL mid-job (the next runner to start recovers the
 * job: re-queued and finished, or failed after its last attempt), and the liveness rules of lease owners (dead pid
 * on this host, another host with a fresh or stale heartbeat, a worker of this process).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { hostname } from "node:os";
import { afterEach, describe, expect, it } from "vitest";
import { executorModule, fastExecutor } from "../../../test/helpers/backtest-executors.js";
import { createJobStore, type JobStore } from "../../../test/helpers/job-store.js";
import {
  isLeaseOwnerLive,
  leaseOwnerName,
  parseLeaseOwner,
  processExists,
  registerLiveOwner,
} from "./lease-owner.js";
import { BacktestJobRunner, startOrphanSweep } from "./runner.js";

const CHILD = new URL("../../../test/helpers/backtest-crash-child.ts", import.meta.url).pathname;

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f();
});

async function jobStore(): Promise<JobStore> {
  const s = await createJobStore(fastExecutor);
  cleanup.push(() => s.close());
  return s;
}

/** Starts the child runner on the store file; resolves once it runs `jobId` with at least 2 periods done. */
async function crashAfterProgress(s: JobStore, jobId: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, ["--import", "tsx", CHILD, s.path], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr!.on("data", (d) => {
    stderr += String(d);
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  cleanup.push(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    await exited;
  });
  const end = Date.now() + 20_000;
  for (;;) {
    const job = (await s.store.backtestJobs.getById(jobId))!;
    if (job.status === "RUNNING" && (job.progress?.completed_periods ?? 0) >= 2) break;
    if (child.exitCode !== null) throw new Error(`child exited early: ${stderr}`);
    if (Date.now() > end) throw new Error(`child did not run the job: ${stderr}`);
    await new Promise((r) => setTimeout(r, 20));
  }
  child.kill("SIGKILL");
  await exited;
  expect(child.signalCode).toBe("SIGKILL");
  return child;
}

describe("recovery after a process crash", () => {
  it("re-queues the job of a process killed mid-job at the next start, which then finishes it", async () => {
    const s = await jobStore();
    const job = await s.start();
    const child = await crashAfterProgress(s, job.id);
    // The killed process could not clean up: its job is still RUNNING under its (dead) lease.
    const stuck = (await s.store.backtestJobs.getById(job.id))!;
    expect(stuck.status).toBe("RUNNING");
    expect(parseLeaseOwner(stuck.leaseOwner!)).toMatchObject({ host: hostname(), pid: child.pid });
    const next = new BacktestJobRunner({
      store: s.store,
      concurrency: 1,
      executor: executorModule("fastExecutor"),
      pollIntervalMs: 20,
      log: () => {},
    });
    cleanup.push(() => next.stop());
    const report = await next.start();
    expect(report).toEqual({ requeued: [job.id], failed: [] });
    const done = await next.wait(job.id);
    expect(done).toMatchObject({ status: "SUCCESS", attempts: 2 });
    expect(done.progress).toMatchObject({ planned_periods: 12, completed_periods: 12 });
  });

  it("fails the job of a process killed on its last attempt with a message saying so", async () => {
    const s = await jobStore();
    const job = await s.start();
    await crashAfterProgress(s, job.id);
    const next = new BacktestJobRunner({
      store: s.store,
      concurrency: 1,
      executor: executorModule("fastExecutor"),
      maxAttempts: 1,
      log: () => {},
    });
    cleanup.push(() => next.stop());
    const report = await next.start();
    expect(report).toEqual({ requeued: [], failed: [job.id] });
    const failed = (await s.store.backtestJobs.getById(job.id))!;
    expect(failed.status).toBe("FAILURE");
    expect(failed.errorMessage).toMatch(
      /^The worker running this job stopped unexpectedly 1 time\(s\) \(last heartbeat \d{4}-\d\d-\d\dT.+Z\); giving up\. Start the backtest again\.$/,
    );
    expect(failed.finishedAt).not.toBeNull();
  });
});

describe("orphan sweep without workers (lotwise serve --workers 0)", () => {
  it("re-queues a dead process's job at start and again on its timer, and fails it after the last attempt", async () => {
    const s = await jobStore();
    const job = await s.start();
    const jobs = s.store.backtestJobs;
    // A process of this host that has exited: its pid no longer exists.
    const gone = spawn(process.execPath, ["-e", ""]);
    await new Promise((r) => gone.once("exit", r));
    const deadOwner = `${hostname()}/${gone.pid}/r/w0`;
    await jobs.claim(job.id, deadOwner);
    const recovered: string[][] = [];
    const sweep = await startOrphanSweep(s.store, {
      intervalMs: 30,
      maxAttempts: 2,
      onRecovered: (r) => recovered.push([...r.requeued, ...r.failed]),
    });
    cleanup.push(() => sweep.stop());
    expect(sweep.initial).toEqual({ requeued: [job.id], failed: [] });
    expect(await jobs.getById(job.id)).toMatchObject({ status: "PENDING", leaseOwner: null, attempts: 1 });
    // Claimed again by a process that dies too: the timer finds it, and on the last attempt fails it.
    await jobs.claim(job.id, deadOwner);
    const end = Date.now() + 10_000;
    while ((await jobs.getById(job.id))!.status === "RUNNING" && Date.now() < end)
      await new Promise((r) => setTimeout(r, 10));
    const failed = (await jobs.getById(job.id))!;
    expect(failed.status).toBe("FAILURE");
    expect(failed.errorMessage).toMatch(/^The worker running this job stopped unexpectedly 2 time\(s\)/);
    expect(recovered).toEqual([[job.id]]);
  });
});

describe("lease owners", () => {
  it("names owners host/pid/runner/worker and parses them back", () => {
    const name = leaseOwnerName("abc123", 2);
    expect(name).toBe(`${hostname()}/${process.pid}/abc123/w2`);
    expect(parseLeaseOwner(name)).toEqual({
      host: hostname(),
      pid: process.pid,
      runner: "abc123",
      worker: "w2",
    });
    expect(parseLeaseOwner("worker-1")).toBeUndefined();
    expect(parseLeaseOwner("h/notapid/r/w")).toBeUndefined();
    expect(() => leaseOwnerName("a/b", 0)).toThrow(/may not contain "\/"/);
  });

  it("calls a worker of this process live only while it is registered", () => {
    const name = leaseOwnerName("live01", 0);
    expect(isLeaseOwnerLive(name)).toBe(false);
    registerLiveOwner(name, true);
    expect(isLeaseOwnerLive(name)).toBe(true);
    registerLiveOwner(name, false);
    expect(isLeaseOwnerLive(name)).toBe(false);
  });

  it("asks the OS about processes of this host and trusts the heartbeat for other hosts", async () => {
    const child = spawn(process.execPath, ["-e", ""]);
    const pid = child.pid!;
    await new Promise((r) => child.once("exit", r));
    expect(processExists(process.pid)).toBe(true);
    expect(processExists(pid)).toBe(false);
    expect(isLeaseOwnerLive(`${hostname()}/${pid}/r/w0`)).toBe(false);
    expect(isLeaseOwnerLive(`${hostname()}/${process.ppid}/r/w0`)).toBe(true);
    expect(isLeaseOwnerLive(`elsewhere.example/${pid}/r/w0`)).toBe(true);
    expect(isLeaseOwnerLive("legacy-worker")).toBe(true);
  });

  it("recovers a foreign owner's job only when its heartbeat is stale", async () => {
    const s = await jobStore();
    const stale = await s.start();
    const fresh = await s.start();
    const jobs = s.store.backtestJobs;
    await jobs.claim(stale.id, "elsewhere.example/1/r/w0");
    await new Promise((r) => setTimeout(r, 5));
    await jobs.claim(fresh.id, "elsewhere.example/1/r/w1");
    const options = { liveOwners: [], maxAttempts: 3, isLiveOwner: isLeaseOwnerLive };
    expect(await jobs.recoverOrphans({ ...options, staleBefore: "2000-01-01T00:00:00.000Z" })).toEqual({
      requeued: [],
      failed: [],
    });
    // Cut-off at the fresh heartbeat: only the older one is stale.
    const cutOff = (await jobs.getById(fresh.id))!.heartbeatAt!;
    expect((await jobs.getById(stale.id))!.heartbeatAt! < cutOff).toBe(true);
    expect(await jobs.recoverOrphans({ ...options, staleBefore: cutOff })).toEqual({
      requeued: [stale.id],
      failed: [],
    });
    expect((await jobs.getById(fresh.id))!.status).toBe("RUNNING");
    expect(await jobs.getById(stale.id)).toMatchObject({ status: "PENDING", leaseOwner: null, attempts: 1 });
  });
});
