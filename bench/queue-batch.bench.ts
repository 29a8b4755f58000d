/**
 * A batch of demo-account backtests through BullMQ (issue 16): accounts per minute with 1, 2 and 3 `lotwise worker`
 * processes (the built binary, concurrency 1 each) on one PostgreSQL schema and one Redis queue, behind one
 * `lotwise serve --queue` instance. For each worker count: start the workers, submit the jobs through endpoint 2,
 * and time from the first submission to the last job finished (read from the store's job table).
 * Needs PostgreSQL and Redis (LOTWISE_TEST_PG, LOTWISE_TEST_REDIS) and `npm run build`.
 * Run: node --import tsx bench/queue-batch.bench.ts [--accounts 200] [--start 2024-07-01] [--end 2024-12-31]
 * Writes bench/results/queue-batch.json.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { availableParallelism, loadavg } from "node:os";
import { join, resolve } from "node:path";
import { Redis } from "ioredis";
import pg from "pg";
import { line, writeResult } from "./lib/harness.js";

const ROOT = resolve(import.meta.dirname, "..");
const BIN = join(ROOT, "bin", "lotwise.js");
const PG_URL = process.env.LOTWISE_TEST_PG ?? "postgres://postgres@127.0.0.1:5432/test";
const REDIS_URL = process.env.LOTWISE_TEST_REDIS ?? "redis://127.0.0.1:6379";

function option(name: string, fallback: string): string {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1]! : fallback;
}

/** Starts `lotwise ...args` and resolves once its output matches `ready`. */
function start(
  args: string[],
  env: Record<string, string>,
  ready: RegExp,
): Promise<{ child: ChildProcess; out: () => string }> {
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: ROOT,
    env: { ...process.env, CI: "true", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout!.on("data", (d) => {
    out += String(d);
  });
  child.stderr!.on("data", (d) => {
    out += String(d);
  });
  return new Promise((ok, fail) => {
    const timer = setInterval(() => {
      if (ready.test(out)) {
        clearInterval(timer);
        ok({ child, out: () => out });
      }
    }, 50);
    child.once("exit", (code) => {
      clearInterval(timer);
      fail(new Error(`lotwise ${args[0]} exited with ${code}: ${out}`));
    });
  });
}

function runCli(args: string[], env: Record<string, string>): Promise<string> {
  return new Promise((ok, fail) =>
    execFile(
      process.execPath,
      [BIN, ...args],
      { cwd: ROOT, env: { ...process.env, CI: "true", ...env }, maxBuffer: 64 << 20 },
      (err, stdout, stderr) => (err ? fail(new Error(stderr || String(err))) : ok(stdout)),
    ),
  );
}

const stop = async (child: ChildProcess) => {
  if (child.exitCode !== null) return;
  const exited = new Promise((r) => child.once("exit", r));
  child.kill("SIGTERM");
  await exited;
};

async function main(): Promise<void> {
  const accounts = Number(option("--accounts", "200"));
  const window = { start_date: option("--start", "2024-07-01"), end_date: option("--end", "2024-12-31") };
  const tag = randomBytes(4).toString("hex");
  const schema = `bench_queue_${tag}`;
  const storeUrl = `${PG_URL}${PG_URL.includes("?") ? "&" : "?"}options=-c%20search_path%3D${schema}`;
  const admin = new pg.Client({ connectionString: storeUrl });
  const redis = new Redis(REDIS_URL);
  const curve: { workers: number; seconds: number; accountsPerMinute: number; failed: number }[] = [];
  try {
    const demo = JSON.parse(await runCli(["init", "--demo", "--store", storeUrl, "--json"], {})) as {
      api_key: string;
      organization_uuid: string;
      client_uuid: string;
      account_uuid: string;
    };
    await admin.connect();
    for (const workers of [1, 2, 3]) {
      const prefix = `lotwise-bench-queue-${tag}-${workers}`;
      const env = { LOTWISE_QUEUE_PREFIX: prefix, LOTWISE_MAX_QUEUED_JOBS: "0" };
      const server = await start(
        ["serve", "--store", storeUrl, "--queue", REDIS_URL, "--port", "0", "--json"],
        env,
        /"url":\s*"[^"]+"/,
      );
      const url = /"url":\s*"([^"]+)"/.exec(server.out())![1]!;
      const procs: ChildProcess[] = [];
      try {
        for (let w = 0; w < workers; w++)
          procs.push(
            (
              await start(
                ["worker", "--store", storeUrl, "--queue", REDIS_URL, "--concurrency", "1", "--json"],
                env,
                /"status":\s*"ready"/,
              )
            ).child,
          );
        await admin.query("DELETE FROM backtest_jobs");
        const path = `${url}/api/v1/custom/org/${demo.organization_uuid}/clients/${demo.client_uuid}/accounts/${demo.account_uuid}/backtests/`;
        const t0 = performance.now();
        for (let i = 0; i < accounts; i++) {
          for (;;) {
            const res = await fetch(path, {
              method: "POST",
              headers: { "X-Api-Key": demo.api_key, "Content-Type": "application/json" },
              body: JSON.stringify(window),
            });
            const text = await res.text();
            // The API key's rate limit on expensive routes (bursts of 100): wait as told, like a client should.
            if (res.status === 429) {
              await new Promise((r) => setTimeout(r, 1000 * Number(res.headers.get("retry-after") ?? 1)));
              continue;
            }
            if (res.status !== 202) throw new Error(`POST backtest answered ${res.status}: ${text}`);
            break;
          }
        }
        for (;;) {
          const { rows } = await admin.query(
            "SELECT count(*) FILTER (WHERE status IN ('SUCCESS', 'FAILURE'))::int AS done, count(*) FILTER (WHERE status = 'FAILURE')::int AS failed FROM backtest_jobs",
          );
          if (rows[0].done >= accounts) {
            const seconds = (performance.now() - t0) / 1000;
            curve.push({
              workers,
              seconds,
              accountsPerMinute: (accounts / seconds) * 60,
              failed: rows[0].failed,
            });
            console.log(line(`${workers} worker(s): ${accounts} backtests`, seconds, "s"));
            console.log(line(`  accounts per minute`, (accounts / seconds) * 60, "/min"));
            if (rows[0].failed > 0) console.log(`  ${rows[0].failed} job(s) FAILED`);
            break;
          }
          await new Promise((r) => setTimeout(r, 200));
        }
      } finally {
        for (const p of procs) await stop(p);
        await stop(server.child);
        const keys = await redis.keys(`${prefix}:*`);
        if (keys.length > 0) await redis.del(...keys);
      }
    }
    const load = loadavg()[0]!;
    console.log(line("load average (1 min) at the end", load, ""));
    console.log(
      `wrote ${writeResult("queue-batch", {
        accounts,
        window,
        cores: availableParallelism(),
        curve,
        speedup2: curve[1] ? curve[1].accountsPerMinute / curve[0]!.accountsPerMinute : null,
        speedup3: curve[2] ? curve[2].accountsPerMinute / curve[0]!.accountsPerMinute : null,
        loadAverage1m: load,
      })}`,
    );
  } finally {
    await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch(() => {});
    await admin.end().catch(() => {});
    redis.disconnect();
  }
}

await main();
