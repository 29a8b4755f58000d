/**
 * A cluster on one machine, end to end (issue 16, docs/deploy.md): two `lotwise serve` instances and three
 * `lotwise worker` processes (the built binary) on one PostgreSQL schema and one BullMQ queue. 50 backtest jobs are
 * submitted through both instances; one worker is killed with SIGKILL while it runs a job and one instance is
 * stopped half-way. Every job must end SUCCESS, none may run to the end twice, and the results must equal those of
 * the same backtests on the embedded SQLite store; a PATCH through one instance is read back through the other at
 * once. Needs PostgreSQL and Redis (LOTWISE_TEST_PG / LOTWISE_TEST_REDIS); skipped with the reason without them.
 * Run `npm run build` first (`npm test` does). The one-shot commands (init, rebalance --all, the SQLite
 * backtests) run in-process (test/helpers/cli-inprocess.ts: the same text and exit codes as the binary).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BIN, ROOT, type Served, serveStore } from "./helpers/cli.js";
import { run } from "./helpers/cli-inprocess.js";

const PG_URL = process.env.LOTWISE_TEST_PG ?? "postgres://postgres@127.0.0.1:5432/test";
const REDIS_URL = process.env.LOTWISE_TEST_REDIS ?? "redis://127.0.0.1:6379";
const JOBS = 50;
/** A short window keeps each job near a second; two parameter sets so that results differ between jobs. */
const WINDOW = { start_date: "2024-10-01", end_date: "2024-12-31" };
const PARAMS = [{ ...WINDOW }, { ...WINDOW, tax_gamma: 3 }];

async function probe(): Promise<string | null> {
  const client = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query("SELECT 1");
  } catch (err) {
    return `PostgreSQL does not answer at ${PG_URL.replace(/:[^:@/]*@/, ":***@")} (${(err as Error).message})`;
  } finally {
    await client.end().catch(() => {});
  }
  const redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 0, connectTimeout: 3000 });
  try {
    await redis.connect();
    await redis.ping();
  } catch (err) {
    return `Redis does not answer at ${REDIS_URL} (${(err as Error).message})`;
  } finally {
    redis.disconnect();
  }
  return null;
}

const missing = await probe();
if (missing) console.warn(`test/cluster.test.ts skipped: ${missing}`);

interface Worker {
  child: ChildProcess;
  exited: Promise<unknown>;
  output(): string;
}

describe.skipIf(missing !== null)(
  "a cluster of 2 serve instances and 3 workers on PostgreSQL and Redis",
  () => {
    const tag = randomBytes(4).toString("hex");
    const schema = `lotwise_cluster_${tag}`;
    const storeUrl = `${PG_URL}${PG_URL.includes("?") ? "&" : "?"}options=-c%20search_path%3D${schema}`;
    const prefix = `lotwise-test-cluster-${tag}`;
    const env = { LOTWISE_QUEUE_PREFIX: prefix };
    let dir: string;
    let demo: { api_key: string; organization_uuid: string; client_uuid: string; account_uuid: string };
    const servers: Served[] = [];
    const workers: Worker[] = [];

    function startWorker(): Promise<Worker> {
      const child = spawn(
        process.execPath,
        [
          BIN,
          "worker",
          "--store",
          storeUrl,
          "--queue",
          REDIS_URL,
          "--concurrency",
          "1",
          "--grace",
          "5",
          "--json",
        ],
        { cwd: ROOT, env: { ...process.env, CI: "true", ...env }, stdio: ["ignore", "pipe", "pipe"] },
      );
      let out = "";
      child.stdout!.on("data", (d) => {
        out += String(d);
      });
      child.stderr!.on("data", (d) => {
        out += String(d);
      });
      const exited = new Promise((resolve) => child.once("exit", resolve));
      return new Promise((ok, fail) => {
        const timer = setInterval(() => {
          if (/"status":\s*"ready"/.test(out)) {
            clearInterval(timer);
            ok({ child, exited, output: () => out });
          }
        }, 50);
        child.once("exit", (code) => {
          clearInterval(timer);
          fail(new Error(`worker exited with ${code}: ${out}`));
        });
      });
    }

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), "lotwise-cluster-"));
      const init = await run(["init", "--demo", "--store", storeUrl, "--json"], env);
      expect(init.code, init.stderr).toBe(0);
      demo = JSON.parse(init.stdout);
      // The second instance is given --workers, which a queue makes meaningless: it says so.
      servers.push(await serveStore(storeUrl, ["--queue", REDIS_URL], env));
      servers.push(await serveStore(storeUrl, ["--queue", REDIS_URL, "--workers", "2"], env));
      for (let i = 0; i < 3; i++) workers.push(await startWorker());
    }, 180_000);

    afterAll(async () => {
      for (const w of workers) w.child.kill("SIGKILL");
      for (const s of servers) await s.kill().catch(() => {});
      const admin = new pg.Client({ connectionString: PG_URL });
      await admin.connect();
      await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await admin.end();
      const redis = new Redis(REDIS_URL);
      const keys = await redis.keys(`${prefix}:*`);
      if (keys.length > 0) await redis.del(...keys);
      redis.disconnect();
      if (dir) rmSync(dir, { recursive: true, force: true });
    }, 60_000);

    const headers = () => ({ "X-Api-Key": demo.api_key, "Content-Type": "application/json" });
    const orgPath = () => `/api/v1/custom/org/${demo.organization_uuid}`;
    const accountPath = () => `${orgPath()}/clients/${demo.client_uuid}/accounts/${demo.account_uuid}`;
    async function call(server: Served, method: string, path: string, body?: unknown) {
      const res = await fetch(`${server.url}${path}`, {
        method,
        headers: headers(),
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await res.text();
      return { status: res.status, body: text === "" ? null : JSON.parse(text) };
    }

    it("reads a PATCH made through one instance through the other at once", async () => {
      const [a, b] = servers as [Served, Served];
      const externalId = `patched-through-a-${tag}`;
      const clientPath = `${orgPath()}/clients/${demo.client_uuid}/`;
      const patched = await call(a, "PATCH", clientPath, { external_id: externalId });
      expect(patched.status, JSON.stringify(patched.body)).toBe(200);
      const read = await call(b, "GET", clientPath);
      expect(read.status).toBe(200);
      expect(read.body.external_id).toBe(externalId);
    });

    it("says --workers is ignored by an instance with a queue", () => {
      expect(servers[1]!.stderr()).toContain("--workers is ignored with a job queue");
      expect(servers[0]!.stderr()).not.toContain("ignored");
    });

    it("runs `lotwise rebalance --all` against an instance with a queue: the workers process the run, the CLI follows it", async () => {
      const r = await run(
        [
          "rebalance",
          "--all",
          "--when",
          "always",
          "--url",
          servers[0]!.url,
          "--api-key",
          demo.api_key,
          "--json",
        ],
        env,
      );
      expect(r.code, r.stderr).toBe(0);
      const done = JSON.parse(r.stdout);
      expect(done.status).toBe("completed");
      expect(done.totals).toMatchObject({ accounts: 1, created: 1, pending: 0 });
      const admin = new pg.Client({ connectionString: storeUrl });
      await admin.connect();
      try {
        const { rows } = await admin.query(
          "SELECT status, lease_owner, result FROM backtest_jobs WHERE kind = 'rebalance_run'",
        );
        expect(rows).toHaveLength(1);
        expect(rows[0].status).toBe("SUCCESS");
        expect(JSON.parse(rows[0].result)).toMatchObject({ run_uuid: done.run_uuid, processed: 1 });
      } finally {
        await admin.end();
      }
    }, 120_000);

    it("runs 50 jobs to SUCCESS through a SIGKILLed worker and a stopped instance, each once, as SQLite does", async () => {
      const [a, b] = servers as [Served, Served];
      const ids: { id: string; params: number }[] = [];
      for (let i = 0; i < JOBS; i++) {
        const via = i % 2 === 0 ? a : b;
        const created = await call(via, "POST", `${accountPath()}/backtests/`, PARAMS[i % PARAMS.length]);
        expect(created.status, JSON.stringify(created.body)).toBe(202);
        ids.push({ id: created.body.id, params: i % PARAMS.length });
      }
      // Kill a worker while it runs a job: wait until some job is RUNNING, then SIGKILL the first worker.
      const admin = new pg.Client({ connectionString: storeUrl });
      await admin.connect();
      try {
        const deadline = Date.now() + 60_000;
        for (;;) {
          const { rows } = await admin.query(
            "SELECT count(*)::int AS n FROM backtest_jobs WHERE status = 'RUNNING' AND lease_owner IS NOT NULL",
          );
          if (rows[0].n > 0) break;
          if (Date.now() > deadline) throw new Error("no job started within 60 s");
          await new Promise((r) => setTimeout(r, 100));
        }
        workers[0]!.child.kill("SIGKILL");
        await workers[0]!.exited;
        // Stop instance B half-way; the rest is watched through A.
        await b.stop();

        const final = new Map<string, { status: string; result: unknown; error_message: unknown }>();
        const deadline2 = Date.now() + 240_000;
        while (final.size < JOBS) {
          for (const { id } of ids) {
            if (final.has(id)) continue;
            const job = await call(a, "GET", `${orgPath()}/backtests/${id}/`);
            expect(job.status).toBe(200);
            if (job.body.status === "SUCCESS" || job.body.status === "FAILURE") final.set(id, job.body);
          }
          if (Date.now() > deadline2) throw new Error(`only ${final.size} of ${JOBS} jobs finished in 240 s`);
          await new Promise((r) => setTimeout(r, 250));
        }
        const failed = [...final.values()].filter((j) => j.status !== "SUCCESS");
        expect(failed.map((j) => j.error_message)).toEqual([]);

        // None twice: a job runs again only after its worker was lost (the one killed: concurrency 1).
        const { rows } = await admin.query("SELECT id, attempts FROM backtest_jobs");
        const attempts = rows.map((r) => Number(r.attempts));
        expect(attempts.every((n) => n >= 1 && n <= 2)).toBe(true);
        expect(attempts.filter((n) => n === 2).length).toBeLessThanOrEqual(1);

        // The same backtests on the embedded store give the same results.
        const file = join(dir, "demo.db");
        const local = await run(["init", "--demo", "--store", file, "--json"]);
        expect(local.code, local.stderr).toBe(0);
        const account = JSON.parse(local.stdout).account_uuid as string;
        for (const [p, params] of PARAMS.entries()) {
          const args = ["backtest", "start", "--store", file, "--account", account, "--json"];
          args.push("--start-date", params.start_date, "--end-date", params.end_date);
          if ("tax_gamma" in params) args.push("--tax-gamma", String(params.tax_gamma));
          const r = await run(args);
          expect(r.code, r.stderr).toBe(0);
          const expected = JSON.parse(r.stdout).result;
          for (const { id, params: q } of ids) if (q === p) expect(final.get(id)!.result).toEqual(expected);
        }
      } finally {
        await admin.end();
      }
    }, 420_000);
  },
);
