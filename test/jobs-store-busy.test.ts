/**
 * The job runner meets a store whose write lock another process holds (issue 12, defect 2: a CLI import beside
 * `lotwise serve` made the runner's recovery hit SQLITE_BUSY uncaught and the process exited with code 1). A child
 * process runs a runner (start-up recovery, 100 ms sweeps, one worker thread) while this process holds the lock
 * with BEGIN IMMEDIATE for longer than the 5 s busy timeout: the child stays up, logs the episode once, and once the
 * lock is released claims and finishes the PENDING job. And a job whose run meets the lock (a heartbeat, then the
 * final write) still succeeds on its first attempt.
 */
import { spawn } from "node:child_process";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { BacktestJobRunner } from "../src/service/jobs/index.js";
import { executorModule, fastExecutor } from "./helpers/backtest-executors.js";
import { createJobStore } from "./helpers/job-store.js";

const LOCKING = new URL("./helpers/locking-executor.ts", import.meta.url).href;
const CHILD = new URL("./helpers/busy-runner-child.ts", import.meta.url).pathname;

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("job runner and a locked store", () => {
  it("keeps a runner process alive through a write lock held past the busy timeout, then runs the pending job", async () => {
    const s = await createJobStore(fastExecutor);
    cleanup.push(() => s.close());
    const job = await s.start();
    const locker = new Database(s.path);
    cleanup.push(() => {
      if (locker.inTransaction) locker.exec("ROLLBACK");
      locker.close();
    });
    locker.exec("BEGIN IMMEDIATE");
    locker.prepare("UPDATE organizations SET name = name WHERE uuid = ?").run(s.org);

    const child = spawn(process.execPath, ["--import", "tsx", CHILD, s.path], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout!.on("data", (d) => {
      stdout += String(d);
    });
    child.stderr!.on("data", (d) => {
      stderr += String(d);
    });
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    cleanup.push(async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      await exited;
    });

    // Once the runner is about to start, hold the lock 6 s: past the 5 s busy timeout of its start-up recovery.
    const spawned = Date.now();
    while (!stdout.includes("starting") && child.exitCode === null && Date.now() - spawned < 20_000)
      await sleep(20);
    expect(stdout, stderr).toContain("starting");
    await sleep(6000);
    expect(child.exitCode, stderr).toBeNull();
    expect((await s.store.backtestJobs.getById(job.id))!.status).toBe("PENDING");
    locker.exec("COMMIT");

    const deadline = Date.now() + 20_000;
    while (!stdout.includes(`finished ${job.id}`) && child.exitCode === null && Date.now() < deadline)
      await sleep(50);
    expect(child.exitCode, stderr).toBeNull();
    expect(stdout).toContain("ready");
    expect(stdout).toContain(`finished ${job.id} SUCCESS`);
    expect((await s.store.backtestJobs.getById(job.id))!.status).toBe("SUCCESS");
    // One line when the episode starts, one when it ends; no stack, no uncaught error.
    expect(stderr.match(/locked by another writer/g)).toHaveLength(1);
    expect(stderr).toMatch(/writable again/);
    expect(stderr).not.toMatch(/SqliteError|at .*\.ts:\d+/);
  });

  it("finishes a job whose run meets the lock (heartbeat skipped, final write retried) on its first attempt", async () => {
    const s = await createJobStore(fastExecutor);
    cleanup.push(() => s.close());
    const logged: string[] = [];
    const runner = new BacktestJobRunner({
      store: s.store,
      concurrency: 1,
      executor: { ...executorModule("lockDuringRunExecutor"), module: LOCKING },
      pollIntervalMs: 20,
      log: (l) => logged.push(l),
    });
    cleanup.push(() => runner.stop());
    await runner.start();
    const job = await s.start();
    runner.wake();
    const started = Date.now();
    const done = await runner.wait(job.id);
    expect(done.status, done.errorMessage ?? "").toBe("SUCCESS");
    expect(done.attempts).toBe(1);
    expect(Object.keys(done.result ?? {})).toContain("tax_managed");
    // Period 2 was recorded in the final state even though its heartbeat could not be written at the time.
    expect(done.progress).toMatchObject({ completed_periods: 2 });
    // It finished only after the other process released the lock (12 s after it took it).
    expect(Date.now() - started).toBeGreaterThan(10_000);
    expect(logged.filter((l) => /stopped|failed/.test(l))).toEqual([]);
  });
});
