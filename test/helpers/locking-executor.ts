/**
 * @module test/helpers/locking-executor
 * A test executor (worker threads load it by module URL) whose first run has another process take the store's write
 * lock mid-run: after period 1 it spawns test/faults/hold-write-lock.mjs for HOLD_MS, waits until that process holds
 * the lock, reports period 2 (a heartbeat that meets the lock) and returns its result at once (the final write meets
 * the lock too). A marker file next to the store makes later runs plain, so a retry after a crash is visible as a
 * second attempt.
 */
import { spawn } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import type { BacktestExecutor } from "../../src/service/jobs/index.js";
import { fastExecutor, monthEnds } from "./backtest-executors.js";

/** How long the helper process holds the lock: past two 5 s busy waits of the worker's connection. */
export const HOLD_MS = 12_000;
const HOLDER = new URL("../faults/hold-write-lock.mjs", import.meta.url).pathname;

function sleep(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** True while another connection holds the write lock of the file. */
function locked(path: string): boolean {
  const probe = new Database(path, { fileMustExist: true });
  try {
    probe.pragma("busy_timeout = 0");
    probe.exec("BEGIN IMMEDIATE");
    probe.exec("ROLLBACK");
    return false;
  } catch {
    return true;
  } finally {
    probe.close();
  }
}

export const lockDuringRunExecutor: BacktestExecutor = {
  resolveParams: fastExecutor.resolveParams,
  run: (ctx, org, account, params, hooks) => {
    const marker = join(ctx.store.connectionString!, "..", "locked-once");
    if (existsSync(marker)) return fastExecutor.run(ctx, org, account, params, hooks);
    writeFileSync(marker, "");
    const dates = monthEnds(params.start_date, params.end_date);
    hooks?.onProgress?.({
      planned_periods: dates.length,
      completed_periods: 1,
      last_completed_period: dates[0]!,
    });
    spawn(process.execPath, [HOLDER, ctx.store.connectionString!, String(HOLD_MS)], {
      stdio: "ignore",
    }).unref();
    const deadline = Date.now() + 20_000;
    while (!locked(ctx.store.connectionString!)) {
      if (Date.now() > deadline) throw new Error("the lock holder did not take the lock");
      sleep(20);
    }
    hooks?.onProgress?.({
      planned_periods: dates.length,
      completed_periods: 2,
      last_completed_period: dates[1]!,
    });
    return fastExecutor.run(ctx, org, account, { ...params, end_date: dates[1]! }, undefined);
  },
};
