/**
 * The job runner with test executors (test/helpers/backtest-executors.ts): the lifecycle PENDING -> RUNNING with
 * progress -> SUCCESS / FAILURE, cancel (cooperative and forced), the concurrency limit, the event loop kept free,
 * the assigned claim policy, the in-process mode, and recovery of jobs whose worker thread died.
 */
import { afterEach, describe, expect, it } from "vitest";
import {
  executorModule,
  FAKE_DEFAULTS,
  fakeCase,
  fastExecutor,
  monthEnds,
} from "../../../test/helpers/backtest-executors.js";
import { createJobStore, type JobStore } from "../../../test/helpers/job-store.js";
import { backtestJobSchema } from "../../contract/index.js";
import { backtestJobRead, cancelBacktest, getBacktest } from "../backtest-jobs.js";
import { BacktestJobRunner, type BacktestJobRunnerOptions, type RunnerEvent } from "./runner.js";

const open: { runners: BacktestJobRunner[]; stores: JobStore[] } = { runners: [], stores: [] };
afterEach(async () => {
  for (const r of open.runners.splice(0)) await r.stop();
  for (const s of open.stores.splice(0)) await s.close();
});

async function store(memory = false): Promise<JobStore> {
  const s = await createJobStore(fastExecutor, { memory });
  open.stores.push(s);
  return s;
}

function runner(s: JobStore, exportName: string, options: Partial<BacktestJobRunnerOptions> = {}) {
  const logs: string[] = [];
  const r = new BacktestJobRunner({
    store: s.store,
    concurrency: 1,
    executor: executorModule(exportName),
    pollIntervalMs: 20,
    log: (line) => logs.push(line),
    ...options,
  });
  open.runners.push(r);
  const events: RunnerEvent[] = [];
  r.onEvent((e) => events.push(e));
  return { runner: r, events, logs };
}

/** Polls until `check` holds (or fails after `ms`). */
async function until(check: () => boolean | Promise<boolean>, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error("condition not reached in time");
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe("backtest job runner", () => {
  it("moves a job from PENDING through RUNNING with progress every period to SUCCESS with the result", async () => {
    const s = await store();
    const { runner: r, events } = runner(s, "slowExecutor");
    await r.start();
    const created = await s.start({ tax_gamma: 2, ls_tlh_factor: "value" });
    expect(created.status).toBe("PENDING");
    expect(created.started_at).toBeNull();
    r.wake();
    let sawRunning = false;
    const checks: Promise<void>[] = [];
    r.onEvent((e) => {
      if (e.type === "progress")
        checks.push(
          s.store.backtestJobs.getById(created.id).then((job) => {
            if (job!.status === "RUNNING") sawRunning = true;
          }),
        );
    });
    const done = backtestJobRead(await r.wait(created.id));
    await Promise.all(checks);
    expect(sawRunning).toBe(true);
    // 2024-07-01 .. 2025-06-30 is 12 month ends; one progress event per period, in order.
    const progress = events.filter((e) => e.type === "progress");
    expect(progress.map((e) => e.type === "progress" && e.progress.completed_periods)).toEqual([
      1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12,
    ]);
    expect(events[0]).toEqual({ type: "started", jobId: created.id, attempts: 1 });
    expect(backtestJobSchema.parse(done)).toEqual(done);
    expect(done.status).toBe("SUCCESS");
    expect(done.progress).toMatchObject({
      planned_periods: 12,
      completed_periods: 12,
      last_completed_period: "2025-06-30",
    });
    const params = { ...FAKE_DEFAULTS, tax_gamma: 2, ls_tlh_factor: "value" as const };
    const dates = monthEnds(params.start_date, params.end_date);
    expect(done.result).toEqual({
      tax_managed: fakeCase(params, dates, 0.01, true),
      pre_tax: fakeCase(params, dates, 0.009, false),
      benchmark: fakeCase(params, dates, 0.008, false),
      long_short_tlh: fakeCase(params, dates, 0.011, true),
    });
    expect(done.error_message).toBeNull();
    expect(done.started_at! <= done.finished_at!).toBe(true);
    expect(done.progress.last_progress_at! <= done.finished_at!).toBe(true);
  });

  it("keeps the owning thread's event loop free while a job runs", async () => {
    const s = await store();
    const { runner: r } = runner(s, "slowExecutor");
    await r.start();
    const job = await s.start();
    r.wake();
    let ticks = 0;
    const timer = setInterval(() => ticks++, 5);
    const t0 = performance.now();
    await r.wait(job.id);
    const elapsed = performance.now() - t0;
    clearInterval(timer);
    // 12 periods x 15 ms run on the worker; a blocked loop would tick about once in that time.
    expect(elapsed).toBeGreaterThan(150);
    expect(ticks).toBeGreaterThan(elapsed / 5 / 4);
  });

  it("fails a job with the engine's message and keeps the progress it reached", async () => {
    const s = await store();
    const { runner: r } = runner(s, "failingExecutor");
    await r.start();
    const job = await s.start();
    r.wake();
    const done = backtestJobRead(await r.wait(job.id));
    expect(done.status).toBe("FAILURE");
    expect(done.error_message).toBe("No price for FAKE:XNAS on or before 2024-08-30. Import prices for it.");
    expect(done.result).toBeNull();
    expect(done.progress).toMatchObject({ planned_periods: 2, completed_periods: 2 });
    expect(done.finished_at).not.toBeNull();
  });

  it("fails engine bugs and results that break the contract with an internal-error message", async () => {
    const s = await store();
    const { runner: r } = runner(s, "buggyExecutor");
    await r.start();
    const job = await s.start();
    r.wake();
    const done = await r.wait(job.id);
    expect(done.status).toBe("FAILURE");
    expect(done.errorMessage).toMatch(
      /^Internal error in the backtest engine \(TypeError: Cannot read properties of undefined \(reading '0'\)\)\. Please report it with the job id\.$/,
    );
    await r.stop();
    const { runner: r2 } = runner(s, "badResultExecutor");
    await r2.start();
    const job2 = await s.start();
    r2.wake();
    const done2 = await r2.wait(job2.id);
    expect(done2.status).toBe("FAILURE");
    expect(done2.errorMessage).toContain("the result does not match the contract: tax_managed.ending_value");
  });

  it("cancels a RUNNING job at its next period and a PENDING job at once", async () => {
    const s = await store();
    const pending = await s.start();
    const cancelledEarly = await cancelBacktest(s.ctx, s.org, pending.id);
    expect(cancelledEarly).toMatchObject({
      status: "FAILURE",
      error_message: "Cancelled before it started.",
    });
    const { runner: r } = runner(s, "endlessExecutor");
    await r.start();
    const job = await s.start();
    r.wake();
    await until(
      async () => ((await s.store.backtestJobs.getById(job.id))?.progress?.completed_periods ?? 0) >= 3,
    );
    const answer = await cancelBacktest(s.ctx, s.org, job.id);
    // Accepted: the job stops at its next period.
    expect(answer.status).toBe("RUNNING");
    const done = await r.wait(job.id);
    expect(done.status).toBe("FAILURE");
    expect(done.errorMessage).toMatch(
      /^Cancelled on request after \d+ of 1000000 periods \(last completed period 2024-07-31\)\.$/,
    );
    await expect((() => cancelBacktest(s.ctx, s.org, job.id))()).rejects.toThrow(
      /already finished with status FAILURE/,
    );
  });

  it("terminates a worker that ignores a cancel request after the grace period and keeps serving jobs", async () => {
    const s = await store();
    const { runner: r, logs } = runner(s, "stubbornExecutor", { cancelGraceMs: 300 });
    await r.start();
    const job = await s.start();
    r.wake();
    await until(async () => (await s.store.backtestJobs.getById(job.id))?.status === "RUNNING");
    const [owner] = r.owners;
    await cancelBacktest(s.ctx, s.org, job.id);
    const done = await r.wait(job.id);
    expect(done.status).toBe("FAILURE");
    expect(done.errorMessage).toBe("Cancelled; its worker stopped before finishing.");
    expect(logs.some((l) => l.includes("did not stop within the cancel grace period"))).toBe(true);
    // A fresh worker took the slot.
    await until(() => r.owners.length === 1 && r.owners[0] !== owner);
    expect(r.runningJobs).toEqual([]);
    const next = await s.start();
    r.wake();
    await until(async () => (await s.store.backtestJobs.getById(next.id))?.status === "RUNNING");
  });

  it("never runs more jobs at once than its concurrency", async () => {
    const s = await store();
    const { runner: r } = runner(s, "slowExecutor", { concurrency: 2 });
    await r.start();
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) ids.push((await s.start({ end_date: "2024-12-31" })).id);
    r.wake();
    let maxRunning = 0;
    r.onEvent(() => {
      maxRunning = Math.max(maxRunning, r.runningJobs.length);
    });
    const jobs = await Promise.all(ids.map((id) => r.wait(id)));
    expect(jobs.every((j) => j.status === "SUCCESS")).toBe(true);
    // Overlap from the stored timestamps: sweep the start/finish events (a finish before a start at a tie).
    const points = jobs.flatMap((j) => [
      { t: j.startedAt!, d: 1 },
      { t: j.finishedAt!, d: -1 },
    ]);
    points.sort((a, b) => (a.t === b.t ? a.d - b.d : a.t < b.t ? -1 : 1));
    let level = 0;
    let peak = 0;
    for (const p of points) {
      level += p.d;
      peak = Math.max(peak, level);
    }
    expect(peak).toBe(2);
    expect(maxRunning).toBe(2);
  });

  it("runs at most maxRunningPerOrganization jobs of one organization at once, even with idle workers", async () => {
    const s = await store();
    const { runner: r } = runner(s, "slowExecutor", { concurrency: 3, maxRunningPerOrganization: 1 });
    await r.start();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await s.start({ end_date: "2024-10-31" })).id);
    r.wake();
    const jobs = await Promise.all(ids.map((id) => r.wait(id)));
    expect(jobs.every((j) => j.status === "SUCCESS")).toBe(true);
    // One after the other: each starts no earlier than the previous one finished.
    const sorted = [...jobs].sort((a, b) => (a.startedAt! < b.startedAt! ? -1 : 1));
    for (let i = 1; i < sorted.length; i++)
      expect(sorted[i]!.startedAt! >= sorted[i - 1]!.finishedAt!).toBe(true);
  });

  it("runs only the jobs handed to it under the assigned policy", async () => {
    const s = await store();
    const other = await s.start();
    const mine = await s.start();
    const { runner: r } = runner(s, "fastExecutor", { claim: "assigned" });
    await r.start();
    const [done] = await r.run([mine.id]);
    expect(done!.status).toBe("SUCCESS");
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect((await s.store.backtestJobs.getById(other.id))!.status).toBe("PENDING");
  });

  it("follows a job run by another runner on the same store until it finishes", async () => {
    const s = await store();
    const job = await s.start();
    const { runner: watcher, events } = runner(s, "fastExecutor", { claim: "assigned" });
    await watcher.start();
    const waiting = watcher.wait(job.id);
    const { runner: worker } = runner(s, "slowExecutor");
    await worker.start();
    worker.wake();
    const done = await waiting;
    expect(done.status).toBe("SUCCESS");
    expect(events.some((e) => e.type === "progress")).toBe(true);
    expect(events.at(-1)).toMatchObject({ type: "finished", jobId: job.id });
  });

  it("re-queues the job of a worker thread that dies mid-job, and fails it after the last attempt", async () => {
    const s = await store();
    const { runner: r, events, logs } = runner(s, "exitingExecutor", { maxAttempts: 2 });
    await r.start();
    const job = await s.start();
    r.wake();
    const done = await r.wait(job.id);
    expect(done.status).toBe("FAILURE");
    expect(done.attempts).toBe(2);
    expect(done.errorMessage).toMatch(
      /^The worker running this job stopped unexpectedly 2 time\(s\) \(last heartbeat .+\); giving up\. Start the backtest again\.$/,
    );
    expect(events.filter((e) => e.type === "requeued").map((e) => e.jobId)).toEqual([job.id]);
    expect(events.filter((e) => e.type === "started")).toHaveLength(2);
    expect(logs.filter((l) => l.includes("exit code 7"))).toHaveLength(2);
    await until(() => r.owners.length === 1);
  });

  it("re-queues the jobs of workers terminated at stop, and a later runner finishes them", async () => {
    const s = await store();
    const { runner: r } = runner(s, "endlessExecutor");
    await r.start();
    const job = await s.start();
    r.wake();
    await until(
      async () => ((await s.store.backtestJobs.getById(job.id))?.progress?.completed_periods ?? 0) >= 2,
    );
    await r.stop();
    const requeued = (await s.store.backtestJobs.getById(job.id))!;
    expect(requeued).toMatchObject({ status: "PENDING", attempts: 1, leaseOwner: null });
    const { runner: next } = runner(s, "fastExecutor");
    await next.start();
    const done = await next.wait(job.id);
    expect(done).toMatchObject({ status: "SUCCESS", attempts: 2 });
  });

  it("runs jobs in-process for :memory: stores and refuses worker threads there", async () => {
    const s = await store(true);
    expect(() => new BacktestJobRunner({ store: s.store, mode: "threads" })).toThrow(
      /a :memory: store cannot be shared with worker threads/,
    );
    const r = new BacktestJobRunner({ store: s.store, executor: fastExecutor, pollIntervalMs: 10 });
    open.runners.push(r);
    expect(r.mode).toBe("in-process");
    await r.start();
    const job = await s.start({ end_date: "2024-09-30" });
    r.wake();
    const done = await r.wait(job.id);
    expect(done.status).toBe("SUCCESS");
    expect((await getBacktest(s.ctx, s.org, job.id)).progress.completed_periods).toBe(3);
  });

  it("rejects an executor object for worker threads and a bad concurrency", async () => {
    const s = await store();
    expect(() => new BacktestJobRunner({ store: s.store, executor: fastExecutor })).toThrow(
      /worker threads load the executor from a module/,
    );
    expect(() => new BacktestJobRunner({ store: s.store, concurrency: 0 })).toThrow(
      /concurrency must be an integer >= 1, got 0/,
    );
  });

  it("fails to start with the reason when the executor module cannot be loaded", async () => {
    const s = await store();
    const { runner: r } = runner(s, "noSuchExport");
    await expect(r.start()).rejects.toThrow(
      /Backtest worker could not start: loadExecutor: .*backtest-executors\.ts has no export "noSuchExport"/,
    );
  });
});
