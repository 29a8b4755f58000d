/**
 * The scale-out commands end to end: `lotwise worker` refuses a SQLite store and needs a queue;
 * `lotwise store migrate` creates or upgrades a store and says from which version to which; `lotwise store copy`
 * copies a store into an empty one and refuses a non-empty target; a PostgreSQL URL is never shown with its
 * password. With PostgreSQL: `serve` without a queue runs jobs on its own threads. With PostgreSQL and Redis: `init --demo` on a
 * postgres:// URL, copy both ways, and a `lotwise serve --queue` plus a `lotwise worker` process running a backtest
 * posted over HTTP, /readyz 200 with both checks, and both processes exiting 0 on SIGTERM (skipped, with the reason,
 * without them).
 * The one-shot commands run in-process (test/helpers/cli-inprocess.ts: the same text and exit codes as the binary);
 * `serve` and `worker` are real processes of the built binary (`npm run build` first), stopped with SIGTERM.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { APPLICATION_ID, MIGRATIONS, SCHEMA_VERSION } from "../src/store/index.js";
import { BIN, ROOT } from "./helpers/cli.js";
import { okJson, run } from "./helpers/cli-inprocess.js";
import { dropSchemas, PG_URL, privateSchema, probePostgres } from "./helpers/pg.js";
import { dropPrefix, privatePrefix, REDIS_URL, redisAvailable } from "./helpers/queue-jobs.js";

const dir = mkdtempSync(join(tmpdir(), "lotwise-cli-scale-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("lotwise worker and lotwise store (SQLite)", () => {
  it("refuses to run a worker on a SQLite store, saying that serve runs its jobs (exit 2)", async () => {
    const path = join(dir, "worker.db");
    okJson(await run(["init", "--store", path, "--json"]));
    const r = await run(["worker", "--store", path, "--queue", "redis://127.0.0.1:6379"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("is a SQLite store: its jobs run inside `lotwise serve");
  });

  it("asks for the queue when a worker on PostgreSQL has none (exit 2), before connecting anywhere", async () => {
    const r = await run(["worker", "--store", "postgres://nobody:secret@127.0.0.1:1/none"], {
      LOTWISE_QUEUE: "",
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("needs the job queue: pass --queue redis://host:6379 or set LOTWISE_QUEUE");
    expect(r.stderr).not.toContain("secret");
  });

  it("refuses a queue that is not a redis:// URL (exit 2), before connecting anywhere, without its password", async () => {
    const store = "postgres://nobody:secret@127.0.0.1:1/none";
    for (const [queue, shown] of [
      ["127.0.0.1:6379", "got 127.0.0.1:6379."],
      ["http://user:q-secret@127.0.0.1:6379", "got http://***@127.0.0.1:6379."],
    ] as const) {
      for (const args of [["worker"], ["serve", "--port", "0"]]) {
        const r = await run([...args, "--store", store, "--queue", queue]);
        expect(r.code, `${args[0]} ${queue}`).toBe(2);
        expect(r.stderr).toContain(
          "The job queue (--queue or LOTWISE_QUEUE) must be a redis:// or rediss:// URL, redis://[user:password@]host:6379[/db];",
        );
        expect(r.stderr).toContain(shown);
        expect(r.stderr).not.toContain("secret");
      }
    }
    const local = await run(["clients", "list", "--store", store], { LOTWISE_QUEUE: "127.0.0.1:6379" });
    expect(local.code).toBe(2);
    expect(local.stderr).toContain("must be a redis:// or rediss:// URL");
  });

  it("names an unreachable PostgreSQL store without its password, in every command", async () => {
    const url = "postgres://lotwise:s3cret-pw@127.0.0.1:1/none";
    for (const args of [["clients", "list"], ["store", "migrate"], ["init"]]) {
      const r = await run([...args, "--store", url]);
      expect(r.code, args.join(" ")).toBe(1);
      expect(r.stderr).toContain("postgres://lotwise@127.0.0.1:1/none");
      expect(r.stderr + r.stdout).not.toContain("s3cret-pw");
    }
  });

  it("lists worker and store in the help, and the worker's options in its own", async () => {
    const top = await run(["--help"]);
    expect(top.stdout).toMatch(/\n\s+worker \[options\]\s+Run backtest and scan jobs of a PostgreSQL store/);
    expect(top.stdout).toMatch(/\n\s+store\s+Store maintenance/);
    const help = await run(["worker", "--help"]);
    for (const flag of ["--queue <url>", "--concurrency <n>", "--grace <seconds>"])
      expect(help.stdout).toContain(flag);
    // serve's help names what an operator sets on every instance of a cluster, not only worker's.
    const serve = await run(["serve", "--help"]);
    for (const text of [
      "redis://[user:password@]host:6379[/db]",
      "LOTWISE_QUEUE_PREFIX",
      "LOTWISE_STORE",
      "/readyz",
    ])
      expect(serve.stdout).toContain(text);
  });

  it("store migrate creates a new store, then reports it is already current", async () => {
    const path = join(dir, "migrate.db");
    const created = await run(["store", "migrate", "--store", path]);
    expect(created.code, created.stderr).toBe(0);
    const version = /Created the store at .*migrate\.db \(schema version (\d+)\)\./.exec(created.stdout);
    expect(version, created.stdout).not.toBeNull();
    const again = okJson(await run(["store", "migrate", "--store", path, "--json"]));
    expect(again).toEqual({
      store: path,
      from_version: Number(version![1]),
      to_version: Number(version![1]),
    });
    const text = await run(["store", "migrate", "--store", path]);
    expect(text.stdout).toContain(`is already at schema version ${version![1]}; nothing to do.`);
  });

  it("store migrate upgrades a store of an older schema version and says from which version to which", async () => {
    const path = join(dir, "old.db");
    // A store file as an older lotwise left it: the migrations up to version 2 only.
    const db = new Database(path);
    for (const m of MIGRATIONS.filter((m) => m.version <= 2)) {
      db.exec(m.sql);
      db.pragma(`application_id = ${APPLICATION_ID}`);
      db.pragma(`user_version = ${m.version}`);
    }
    db.close();
    const r = await run(["store", "migrate", "--store", path]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe(`Migrated ${path} from schema version 2 to ${SCHEMA_VERSION}.`);
    const again = okJson(await run(["store", "migrate", "--store", path, "--json"]));
    expect(again).toEqual({ store: path, from_version: SCHEMA_VERSION, to_version: SCHEMA_VERSION });
  });

  it("store copy copies every row into a new file and refuses a target that is not empty", async () => {
    const from = join(dir, "copy-from.db");
    const to = join(dir, "copy-to.db");
    const init = okJson(await run(["init", "--store", from, "--json", "--name", "Copy Org"]));
    const copied = okJson(await run(["store", "copy", "--from", from, "--to", to, "--json"]));
    expect(copied.from).toBe(from);
    expect(copied.to).toBe(to);
    expect(copied.rows.organizations).toBe(1);
    expect(copied.rows.api_keys).toBe(1);
    expect(copied.total_rows).toBe(
      Object.values(copied.rows as Record<string, number>).reduce((a, b) => a + b, 0),
    );
    // The copy answers like the original: the organization and its key.
    const orgs = okJson(await run(["orgs", "list", "--store", to, "--json"]));
    expect(orgs.map((o: { uuid: string }) => o.uuid)).toEqual([init.organization_uuid]);
    const again = await run(["store", "copy", "--from", from, "--to", to]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain("is not empty; copy into a new, empty store.");
  });
});

const pgProblem = await probePostgres();
const redisOk = await redisAvailable();
const missing = [
  ...(pgProblem === null ? [] : [`PostgreSQL at ${PG_URL} (${pgProblem}; set LOTWISE_TEST_PG)`]),
  ...(redisOk ? [] : [`Redis at ${REDIS_URL} (set LOTWISE_TEST_REDIS)`]),
];
if (missing.length > 0) console.warn(`cli-scale PostgreSQL tests skipped: needs ${missing.join(" and ")}`);

/** A long-running CLI child (serve, worker) with its output and exit code. */
function start(args: string[], env: Record<string, string>) {
  const child: ChildProcess = spawn(process.execPath, [BIN, ...args], {
    cwd: ROOT,
    env: { ...process.env, CI: "true", LOTWISE_STORE: "", LOTWISE_URL: "", LOTWISE_API_KEY: "", ...env },
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
  const exit = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return {
    child,
    exit,
    stdout: () => stdout,
    stderr: () => stderr,
    async waitFor(re: RegExp, timeoutMs = 60_000): Promise<RegExpExecArray> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const m = re.exec(stdout);
        if (m) return m;
        if (Date.now() > deadline || child.exitCode !== null)
          throw new Error(`no ${re} in the output of lotwise ${args[0]}: ${stdout}\n${stderr}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
  };
}

/** Post a backtest of the demo account to a running server and poll it until it ends. */
async function backtestOver(
  base: string,
  demo: { api_key: string; organization_uuid: string; client_uuid: string; account_uuid: string },
) {
  const headers = { "X-Api-Key": demo.api_key, "Content-Type": "application/json" };
  const org = `${base}/api/v1/custom/org/${demo.organization_uuid}`;
  const created = await fetch(`${org}/clients/${demo.client_uuid}/accounts/${demo.account_uuid}/backtests/`, {
    method: "POST",
    headers,
    body: "{}",
  });
  expect(created.status).toBe(202);
  const id = ((await created.json()) as { id: string }).id;
  const deadline = Date.now() + 120_000;
  let job: { status: string; error_message: string | null; result: Record<string, unknown> | null };
  do {
    await new Promise((r) => setTimeout(r, 200));
    job = (await (await fetch(`${org}/backtests/${id}/`, { headers })).json()) as typeof job;
  } while ((job.status === "PENDING" || job.status === "RUNNING") && Date.now() < deadline);
  return job;
}

describe.skipIf(pgProblem !== null)("lotwise serve on PostgreSQL without a queue (needs PostgreSQL)", () => {
  const schemas: string[] = [];
  afterAll(async () => {
    await dropSchemas(schemas);
  });

  it("runs jobs on its own worker threads, which open the same URL, and exits 0 on SIGTERM", async () => {
    const { schema, url } = privateSchema("cli_noqueue");
    schemas.push(schema);
    const demo = okJson(
      await run(["init", "--demo", "--store", url, "--securities", "50", "--years", "2", "--json"]),
    );
    const serve = start(["serve", "--store", url, "--port", "0", "--workers", "1", "--json"], {
      LOTWISE_QUEUE: "",
    });
    try {
      const base = (await serve.waitFor(/"url":\s*"([^"]+)"/))[1]!;
      expect(JSON.parse(serve.stdout())).toMatchObject({ backtest_workers: 1, job_queue: false });
      const ready = (await (await fetch(`${base}/readyz`)).json()) as { checks: Record<string, unknown> };
      expect(Object.keys(ready.checks)).toEqual(["database"]);
      const job = await backtestOver(base, demo);
      expect(job.error_message, serve.stderr()).toBeNull();
      expect(job.status).toBe("SUCCESS");
    } finally {
      serve.child.kill("SIGTERM");
    }
    expect(await serve.exit, serve.stderr()).toBe(0);
  }, 240_000);
});

describe.skipIf(missing.length > 0)("lotwise on PostgreSQL with a queue (needs PostgreSQL and Redis)", () => {
  const schemas: string[] = [];
  const prefix = privatePrefix("cli-scale");
  afterAll(async () => {
    await dropSchemas(schemas);
    await dropPrefix(prefix);
  });

  it("init --demo on a postgres:// URL creates the schema; migrate and copy to a file work on it", async () => {
    const { schema, url } = privateSchema("cli_init");
    schemas.push(schema);
    const demo = okJson(
      await run(["init", "--demo", "--store", url, "--securities", "50", "--years", "2", "--json"]),
    );
    expect(demo.store).toMatch(/^postgres:\/\//);
    const migrate = okJson(await run(["store", "migrate", "--store", url, "--json"]));
    expect(migrate.from_version).toBe(migrate.to_version);
    const again = await run(["init", "--store", url]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain("already holds a lotwise store with 1 organization(s)");
    const file = join(dir, "from-pg.db");
    const copied = okJson(await run(["store", "copy", "--from", url, "--to", file, "--json"]));
    expect(copied.rows.accounts).toBe(1);
    const account = okJson(await run(["accounts", "show", demo.account_uuid, "--store", file, "--json"]));
    const onPg = okJson(await run(["accounts", "show", demo.account_uuid, "--store", url, "--json"]));
    expect(account).toEqual(onPg);
  }, 240_000);

  it("serve --queue enqueues, a lotwise worker process runs the job, and both exit 0 on SIGTERM", async () => {
    const { schema, url } = privateSchema("cli_queue");
    schemas.push(schema);
    const demo = okJson(
      await run(["init", "--demo", "--store", url, "--securities", "50", "--years", "2", "--json"]),
    );
    const env = { LOTWISE_QUEUE_PREFIX: prefix };
    const serve = start(["serve", "--store", url, "--queue", REDIS_URL, "--port", "0", "--json"], env);
    const worker = start(["worker", "--store", url, "--concurrency", "1", "--grace", "5"], {
      ...env,
      LOTWISE_QUEUE: REDIS_URL,
    });
    try {
      const base = (await serve.waitFor(/"url":\s*"([^"]+)"/))[1]!;
      expect(JSON.parse(serve.stdout())).toMatchObject({ backtest_workers: 0, job_queue: true });
      await worker.waitFor(/lotwise worker on postgres:\/\/.*: 1 job\(s\) at a time/);
      const ready = await fetch(`${base}/readyz`);
      expect(ready.status).toBe(200);
      expect(await ready.json()).toMatchObject({
        ready: true,
        checks: { database: { ok: true }, queue: { ok: true } },
      });
      const job = await backtestOver(base, demo);
      expect(job.error_message, worker.stderr()).toBeNull();
      expect(job.status).toBe("SUCCESS");
      expect(Object.keys(job.result!)).toEqual(
        expect.arrayContaining(["tax_managed", "pre_tax", "benchmark"]),
      );
    } finally {
      serve.child.kill("SIGTERM");
      worker.child.kill("SIGTERM");
    }
    expect(await serve.exit, serve.stderr()).toBe(0);
    expect(await worker.exit, worker.stderr()).toBe(0);
    expect(worker.stderr()).toContain("lotwise worker: stopped");
  }, 300_000);
});
