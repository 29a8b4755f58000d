/**
 * Fault injection: `lotwise serve` killed with SIGKILL while it runs a backtest (no clean-up at all: the job stays
 * RUNNING under the dead process's lease). A server started afterwards on the same store file with `--workers 0`
 * (it runs no jobs) still recovers the job — re-queued, never shown RUNNING — and a server with a worker then runs
 * it to SUCCESS. The servers are processes of the built binary (`npm run build` first); the demo store is made
 * in-process (test/helpers/cli-inprocess.ts).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BacktestJob, backtestJobSchema } from "../../src/contract/index.js";
import { openSqliteStore } from "../../src/store/index.js";
import { type Served, serveStore } from "../helpers/cli.js";
import { okJson, run } from "../helpers/cli-inprocess.js";

let dir: string;
let store: string;
let demo: { api_key: string; organization_uuid: string; client_uuid: string; account_uuid: string };
const servers: Served[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "lotwise-kill-"));
  store = join(dir, "demo.db");
  demo = okJson(await run(["init", "--demo", "--store", store, "--json"]));
});
afterAll(async () => {
  for (const s of servers.splice(0)) await s.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function start(workers: number): Promise<Served> {
  const s = await serveStore(store, ["--workers", String(workers)]);
  servers.push(s);
  return s;
}

async function readJob(server: Served, id: string): Promise<BacktestJob> {
  const res = await fetch(`${server.url}/api/v1/custom/org/${demo.organization_uuid}/backtests/${id}/`, {
    headers: { "X-Api-Key": demo.api_key },
  });
  expect(res.status).toBe(200);
  return backtestJobSchema.parse(await res.json());
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, ms = 60_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe("fault: lotwise serve killed with SIGKILL during a job", () => {
  it("leaves no job RUNNING forever: a --workers 0 server re-queues it and a worker finishes it", async () => {
    const first = await start(1);
    const created = await fetch(
      `${first.url}/api/v1/custom/org/${demo.organization_uuid}/clients/${demo.client_uuid}/accounts/${demo.account_uuid}/backtests/`,
      {
        method: "POST",
        headers: { "X-Api-Key": demo.api_key, "Content-Type": "application/json" },
        body: JSON.stringify({ start_date: "2024-01-31", end_date: "2024-12-31" }),
      },
    );
    expect(created.status).toBe(202);
    const id = backtestJobSchema.parse(await created.json()).id;
    // Mid-job: RUNNING with at least one period done.
    await until("the job to run", async () => {
      const job = await readJob(first, id);
      return job.status === "RUNNING" && job.progress.completed_periods >= 1 ? job : undefined;
    });
    await first.kill();
    servers.splice(servers.indexOf(first), 1);
    const db = openSqliteStore(store, { create: false });
    try {
      // Nobody cleaned up: the job is RUNNING under the dead process's lease.
      expect(await db.backtestJobs.getById(id)).toMatchObject({ status: "RUNNING", attempts: 1 });
    } finally {
      await db.close();
    }

    // A server that runs no jobs recovers it when it starts: re-queued for whichever process runs jobs.
    const noWorkers = await start(0);
    const requeued = await readJob(noWorkers, id);
    expect(requeued.status).toBe("PENDING");
    expect(requeued.error_message).toBeNull();

    // A server with a worker picks it up and runs it from the start to the end.
    const second = await start(1);
    const done = await until("the job to finish", async () => {
      const job = await readJob(noWorkers, id);
      return job.status === "SUCCESS" || job.status === "FAILURE" ? job : undefined;
    });
    expect(done.status, done.error_message ?? "").toBe("SUCCESS");
    expect(Object.keys(done.result ?? {}).sort()).toEqual([
      "benchmark",
      "harvest_baseline",
      "pre_tax",
      "tax_managed",
    ]);
    expect(done.progress.completed_periods).toBe(done.progress.planned_periods);
    const after = openSqliteStore(store, { create: false });
    try {
      expect((await after.backtestJobs.getById(id))!.attempts).toBe(2);
    } finally {
      await after.close();
    }
    expect(second.stderr()).not.toContain("Error");
  });
});
