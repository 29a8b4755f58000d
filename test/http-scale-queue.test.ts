/**
 * The scaled-out shape through its public interfaces: the HTTP app on a PostgreSQL store with a BullMQ queue, and one
 * in-test QueueWorker running the real handler (`threadJobHandler`: the real engine on a worker thread that opens the
 * store by its URL) on the demo data. A backtest posted to endpoint 2 is enqueued by the service, run by the worker
 * and read back SUCCESS, equal to the same job run on the SQLite store it was copied from; a scan job runs too; a
 * job cancelled while it runs on the worker ends FAILURE "Cancelled on request"; /healthz and /readyz answer, and
 * /readyz turns 503 once the store is closed. Skipped, with the reason, without PostgreSQL or Redis.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type BacktestJob,
  backtestJobSchema,
  type ProposalResponse,
  rebalanceRunSchema,
} from "../src/contract/index.js";
import { appRequestPoolStats, closeApp, createApp, type LotwiseApp } from "../src/server/index.js";
import { buildDemo, type DemoResult } from "../src/service/demo.js";
import { createAccount, runRebalance, type ServiceContext, startBacktest } from "../src/service/index.js";
import { defaultBacktestExecutor, runClaimedJob } from "../src/service/jobs/index.js";
import {
  BullJobQueue,
  QueueWorker,
  type ThreadJobHandler,
  threadJobHandler,
} from "../src/service/jobs/queue/index.js";
import { copyStore, type LotwiseStore, openSqliteStore, openStore } from "../src/store/index.js";
import { executorModule } from "./helpers/backtest-executors.js";
import { send } from "./helpers/http.js";
import { dropSchemas, PG_URL, privateSchema, probePostgres } from "./helpers/pg.js";
import { dropPrefix, privatePrefix, REDIS_URL, redisAvailable } from "./helpers/queue-jobs.js";

const pgProblem = await probePostgres();
const redisOk = await redisAvailable();
const missing = [
  ...(pgProblem === null ? [] : [`PostgreSQL at ${PG_URL} (${pgProblem}; set LOTWISE_TEST_PG)`]),
  ...(redisOk ? [] : [`Redis at ${REDIS_URL} (set LOTWISE_TEST_REDIS)`]),
];
if (missing.length > 0) console.warn(`http-scale-queue tests skipped: needs ${missing.join(" and ")}`);

/** Every number of `a` and `b` equal to 1e-12 (relative, or absolute near 0); everything else equal. */
function expectClose(a: unknown, b: unknown, path = "result"): void {
  if (typeof a === "number" && typeof b === "number") {
    const scale = Math.max(1, Math.abs(a), Math.abs(b));
    if (Math.abs(a - b) > 1e-12 * scale) expect.fail(`${path}: ${a} != ${b}`);
    return;
  }
  if (Array.isArray(a) && Array.isArray(b)) {
    expect(a.length, `${path}.length`).toBe(b.length);
    for (let i = 0; i < a.length; i++) expectClose(a[i], b[i], `${path}[${i}]`);
    return;
  }
  if (a && b && typeof a === "object" && typeof b === "object") {
    expect(Object.keys(a).sort(), `${path} keys`).toEqual(Object.keys(b).sort());
    for (const k of Object.keys(a))
      expectClose((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], `${path}.${k}`);
    return;
  }
  expect(a, path).toEqual(b);
}

describe.skipIf(missing.length > 0)(
  "HTTP on PostgreSQL with the BullMQ queue (needs PostgreSQL and Redis)",
  () => {
    const dir = mkdtempSync(join(tmpdir(), "lotwise-scale-"));
    const { schema, url } = privateSchema("scale_http");
    const prefix = privatePrefix("scale-http");
    let sqlite: LotwiseStore;
    let pgStore: LotwiseStore;
    let queue: BullJobQueue;
    let threads: ThreadJobHandler;
    /** Threads with an engine that runs until cancelled, for the jobs posted with {@link ENDLESS_GAMMA}. */
    let endless: ThreadJobHandler;
    const ENDLESS_GAMMA = 0.25;
    let worker: QueueWorker;
    let app: LotwiseApp;
    let demo: DemoResult;
    let base: string;
    const started: string[] = [];

    beforeAll(async () => {
      sqlite = openSqliteStore(join(dir, "demo.db"));
      demo = await buildDemo({ store: sqlite, clock: () => new Date() }, { securities: 60, years: 3 });
      pgStore = await openStore(url);
      await copyStore(sqlite, pgStore);
      queue = new BullJobQueue({ connection: REDIS_URL, prefix, store: pgStore });
      const ctx: ServiceContext = { store: pgStore, clock: () => new Date(), jobQueue: queue };
      // One request worker: the scan job (a heavy route) is created on that thread, which enqueues it itself.
      app = createApp({ ctx, requestWorkers: 1, rateLimit: false, log: () => {} });
      threads = threadJobHandler({ connectionString: pgStore.connectionString!, keepThreads: 1 });
      endless = threadJobHandler({
        connectionString: pgStore.connectionString!,
        executor: executorModule("endlessExecutor"),
        // As `lotwise worker` does: progress recorded from the handler's thread, live while the engine runs.
        recordProgress: (jobId, owner, progress) => pgStore.backtestJobs.progress(jobId, owner, progress),
      });
      worker = new QueueWorker({
        connection: REDIS_URL,
        prefix,
        store: pgStore,
        // The real engine, except for the jobs the cancel tests need running for as long as they take.
        handler: (id, context) =>
          (context.job.params.tax_gamma === ENDLESS_GAMMA ? endless : threads).handler(id, context),
        cancelPollMs: 50,
        reconcileIntervalMs: 0,
      });
      worker.onEvent((e) => {
        if (e.type === "started") started.push(e.jobId);
      });
      await worker.start();
      base = `/api/v1/custom/org/${demo.organization_uuid}`;
    }, 120_000);

    afterAll(async () => {
      if (app) await closeApp(app);
      await worker?.close({ graceMs: 0 });
      await threads?.close();
      await endless?.close();
      await queue?.queue.obliterate({ force: true }).catch(() => {});
      await queue?.close();
      if (pgStore?.isOpen) await pgStore.close();
      await sqlite?.close();
      await dropSchemas([schema]);
      await dropPrefix(prefix);
      rmSync(dir, { recursive: true, force: true });
    });

    const post = (path: string, body: unknown) =>
      send(app, "POST", `${base}${path}`, {
        key: demo.api_key,
        ...(body === undefined ? {} : { json: body }),
      });
    const get = (path: string) => send(app, "GET", `${base}${path}`, { key: demo.api_key });
    const accountPath = () => `/clients/${demo.client_uuid}/accounts/${demo.account_uuid}/backtests/`;

    async function until(
      path: string,
      done: (j: BacktestJob) => boolean,
      timeoutMs = 90_000,
    ): Promise<BacktestJob> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const r = await get(path);
        expect(r.status, r.text.slice(0, 300)).toBe(200);
        const job = backtestJobSchema.parse(r.body);
        if (done(job)) return job;
        if (Date.now() > deadline) expect.fail(`job at ${path} is still ${job.status} after ${timeoutMs} ms`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }

    it("runs a posted backtest on the queue worker, with the result of the same job on the SQLite store", async () => {
      const request = { tax_gamma: 1.5 };
      const created = await post(accountPath(), request);
      expect(created.status, created.text.slice(0, 300)).toBe(202);
      const pending = backtestJobSchema.parse(created.body);
      expect(pending.status).toBe("PENDING");
      // Enqueued by the service (no runner in this process): BullMQ holds an entry under the job's id.
      expect(await queue.queue.getJob(pending.id)).toBeDefined();
      const done = await until(
        `/backtests/${pending.id}/`,
        (j) => j.status === "SUCCESS" || j.status === "FAILURE",
      );
      expect(done.error_message).toBeNull();
      expect(done.status).toBe("SUCCESS");
      expect(started).toContain(pending.id);
      expect(done.progress.completed_periods).toBe(done.progress.planned_periods);
      expect(done.progress.planned_periods).toBeGreaterThan(10);

      // The same job on the SQLite store the PostgreSQL one was copied from, run in-process.
      const ctx: ServiceContext = { store: sqlite, clock: () => new Date() };
      const ref = await startBacktest(
        ctx,
        demo.organization_uuid,
        demo.client_uuid,
        demo.account_uuid,
        request,
      );
      expect(ref.resolved_params).toEqual(pending.resolved_params);
      const claimed = (await sqlite.backtestJobs.claim(ref.id, "test/1/ref/0"))!;
      const outcome = await runClaimedJob({
        ctx,
        job: claimed,
        owner: "test/1/ref/0",
        executor: defaultBacktestExecutor(),
      });
      expect(outcome.status).toBe("SUCCESS");
      const expected = (await sqlite.backtestJobs.getById(ref.id))!.result as Record<
        string,
        Record<string, unknown>
      >;
      const got = done.result as Record<string, Record<string, unknown>>;
      expect(Object.keys(got).sort()).toEqual(Object.keys(expected).sort());
      for (const name of Object.keys(expected))
        for (const figure of [
          "ending_value",
          "after_tax_return",
          "pre_tax_return_annualized",
          "after_tax_liquidation_value",
        ])
          expectClose(got[name]![figure], expected[name]![figure], `${name}.${figure}`);
      expectClose(got, expected);
    }, 180_000);

    it("runs a scan job created on a request worker thread through the queue too", async () => {
      const created = await post("/scan_jobs/", { async: true });
      expect(created.status, created.text.slice(0, 300)).toBe(202);
      const job = created.body as { id: string; status: string };
      expect(job.status).toBe("PENDING");
      const deadline = Date.now() + 60_000;
      let read: { status: string; result: { rows?: unknown[] } | null; error_message: string | null };
      do {
        await new Promise((resolve) => setTimeout(resolve, 50));
        read = (await get(`/scan_jobs/${job.id}/`)).body as typeof read;
      } while ((read.status === "PENDING" || read.status === "RUNNING") && Date.now() < deadline);
      expect(read.error_message).toBeNull();
      expect(read.status).toBe("SUCCESS");
      expect(started).toContain(job.id);
      // It was created (and enqueued) by the request worker thread.
      expect(appRequestPoolStats(app)?.completed).toBeGreaterThanOrEqual(1);
    }, 90_000);

    it("shows live progress of a job running on the worker's thread, then cancels it: FAILURE 'Cancelled on request after k of N periods'", async () => {
      const created = await post(accountPath(), { tax_gamma: ENDLESS_GAMMA });
      const id = backtestJobSchema.parse(created.body).id;
      // The engine's loop is synchronous on its thread; the handler's thread records each period, so endpoint 2
      // shows the periods advance while the job runs.
      const first = await until(
        `/backtests/${id}/`,
        (j) => j.status === "RUNNING" && j.progress.completed_periods > 0,
      );
      const later = await until(
        `/backtests/${id}/`,
        (j) => j.status === "RUNNING" && j.progress.completed_periods > first.progress.completed_periods + 10,
      );
      expect(later.progress.planned_periods).toBe(1_000_000);
      const cancel = await post(`/backtests/${id}/cancel/`, undefined);
      expect(cancel.status, cancel.text.slice(0, 300)).toBe(202);
      const after = await until(`/backtests/${id}/`, (j) => j.status === "FAILURE" || j.status === "SUCCESS");
      expect(after.status).toBe("FAILURE");
      expect(after.error_message).toMatch(/^Cancelled on request after \d+ of \d+ periods/);
    }, 120_000);

    it("cancels a waiting job through the queue: FAILURE at once and its queue entry removed", async () => {
      // One worker with one thread is busy with this long job; the second waits in the queue.
      const busy = backtestJobSchema.parse((await post(accountPath(), { tax_gamma: ENDLESS_GAMMA })).body).id;
      await until(`/backtests/${busy}/`, (j) => j.status === "RUNNING");
      const waiting = backtestJobSchema.parse((await post(accountPath(), { tax_gamma: 4 })).body).id;
      const cancel = await post(`/backtests/${waiting}/cancel/`, undefined);
      expect(cancel.status).toBe(202);
      expect(backtestJobSchema.parse(cancel.body).error_message).toBe("Cancelled before it started.");
      expect(await queue.queue.getJob(waiting)).toBeUndefined();
      await post(`/backtests/${busy}/cancel/`, undefined);
      await until(`/backtests/${busy}/`, (j) => j.status === "FAILURE");
      expect(started).not.toContain(waiting);
    }, 120_000);

    it("runs a rebalance run on the workers: answered running with queued jobs, then completed with the outcomes and proposals of the same run on SQLite", async () => {
      // Two more accounts of the demo client on both stores: three accounts, three shard jobs.
      const org = demo.organization_uuid;
      const sqliteCtx: ServiceContext = { store: sqlite, clock: () => new Date() };
      const pgCtx: ServiceContext = { store: pgStore, clock: () => new Date() };
      for (const c of [sqliteCtx, pgCtx])
        for (const [name, cash] of [
          ["Queued IRA", "50000"],
          ["Queued Trust", "80000"],
        ] as const)
          await createAccount(c, org, demo.client_uuid, {
            name,
            cash_value_usd: cash,
            portfolio_config_uuid: demo.portfolio_config_uuid,
          });
      const request = { when: "always" as const };
      const posted = await post("/rebalance_runs/", { ...request, max_accounts: 1 });
      expect(posted.status, posted.text.slice(0, 300)).toBe(200);
      const queued = rebalanceRunSchema.parse(posted.body);
      // Nothing was processed in the request (max_accounts is ignored on a queue): every account is on the workers.
      expect(queued.status).toBe("running");
      expect(queued.totals).toMatchObject({ accounts: 3, pending: 3 });
      expect(queued.queued_jobs).toBe(3);
      const jobs = await pgStore.backtestJobs.list(org, { kind: "rebalance_run" });
      const shardOf = (j: (typeof jobs)[number]) => j.params.shard as { index: number; count: number };
      jobs.sort((x, y) => shardOf(x).index - shardOf(y).index);
      expect(jobs.map(shardOf)).toEqual([
        { index: 0, count: 3 },
        { index: 1, count: 3 },
        { index: 2, count: 3 },
      ]);
      for (const j of jobs) expect(await queue.queue.getJob(j.id)).toBeDefined();
      // The same request while the workers are on it queues nothing more.
      const again = rebalanceRunSchema.parse((await post("/rebalance_runs/", request)).body);
      expect(again.run_uuid).toBe(queued.run_uuid);
      expect(await pgStore.backtestJobs.list(org, { kind: "rebalance_run" })).toHaveLength(3);

      const deadline = Date.now() + 120_000;
      let run = again;
      while (run.status !== "completed" && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        run = rebalanceRunSchema.parse((await get(`/rebalance_runs/${queued.run_uuid}/`)).body);
      }
      expect(run.status).toBe("completed");
      expect(run.queued_jobs).toBe(0);
      const finishedJobs = await pgStore.backtestJobs.list(org, { kind: "rebalance_run" });
      finishedJobs.sort((x, y) => shardOf(x).index - shardOf(y).index);
      expect(finishedJobs.map((j) => j.status)).toEqual(["SUCCESS", "SUCCESS", "SUCCESS"]);
      expect(finishedJobs.map((j) => j.result?.processed)).toEqual([1, 1, 1]);
      expect(finishedJobs.map((j) => j.progress?.completed_periods)).toEqual([1, 1, 1]);
      for (const j of finishedJobs) expect(started).toContain(j.id);

      // The same run in one process on the SQLite store: the same outcome and the same orders per account.
      const ref = await runRebalance(sqliteCtx, org, request);
      expect(ref.status).toBe("completed");
      const byName = (r: typeof run) => new Map(r.accounts.map((a) => [a.account_name, a]));
      const got = byName(run);
      const orders = async (c: ServiceContext, account: string, proposal: string | null) =>
        ((await c.store.proposals.require(org, account, proposal!)).response as ProposalResponse).orders;
      expect([...got.keys()].sort()).toEqual([...byName(ref).keys()].sort());
      for (const [name, want] of byName(ref)) {
        const have = got.get(name)!;
        expect(have.outcome, String(name)).toBe(want.outcome);
        expect(want.outcome).toBe("created");
        expectClose(
          await orders(pgCtx, have.account_uuid, have.proposal_uuid),
          await orders(sqliteCtx, want.account_uuid, want.proposal_uuid),
        );
      }
    }, 180_000);

    it("answers /healthz, and /readyz 200 with the database and the queue, then 503 once the store is closed", async () => {
      const live = await send(app, "GET", "/healthz");
      expect(live.status).toBe(200);
      expect(live.body).toEqual({ status: "ok" });
      const ready = await send(app, "GET", "/readyz");
      expect(ready.status).toBe(200);
      expect(ready.body).toMatchObject({
        ready: true,
        checks: { database: { ok: true }, queue: { ok: true } },
      });
      await worker.close({ graceMs: 0 });
      await pgStore.close();
      const down = await send(app, "GET", "/readyz");
      expect(down.status).toBe(503);
      expect(down.body).toMatchObject({
        ready: false,
        checks: { database: { ok: false, error: "the database is not reachable" }, queue: { ok: true } },
      });
      expect(down.text).not.toContain("127.0.0.1");
    }, 30_000);
  },
);
