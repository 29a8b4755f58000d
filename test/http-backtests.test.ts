/**
 * Endpoint 2 and the backtest job extensions over HTTP: 202 with a PENDING job and resolved_params; JSON, form
 * and multipart bodies give the same job; every range of the spec refused with a 400 that names the field (and
 * the bounds accepted); a job run by the server's runner read back as SUCCESS; and the remote backend starting
 * jobs on a real server and polling them to the end.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RemoteBackend } from "../src/client/index.js";
import { type BacktestJob, backtestJobSchema } from "../src/contract/index.js";
import { createApp, type LotwiseApp, serve } from "../src/server/index.js";
import { type BacktestServiceContext, LocalBackend } from "../src/service/index.js";
import { BacktestJobRunner } from "../src/service/jobs/index.js";
import {
  executorModule,
  FAKE_DEFAULTS,
  FAKE_FIRST_DATE,
  fastExecutor,
} from "./helpers/backtest-executors.js";
import {
  createTestStore,
  type SeededOrganization,
  seedOrganization,
  type TestStore,
} from "./helpers/fixture.js";
import { type Answer, envelope, send } from "./helpers/http.js";

let t: TestStore;
let app: LotwiseApp;
let seeded: SeededOrganization;
let runner: BacktestJobRunner;
let key: string;
let path: string;

beforeAll(async () => {
  t = await createTestStore({ withMarket: true });
  seeded = await seedOrganization(t, t.orgA);
  runner = new BacktestJobRunner({
    store: t.store,
    executor: fastExecutor,
    pollIntervalMs: 10,
    log: () => {},
  });
  await runner.start();
  const ctx: BacktestServiceContext = { ...t.ctx, backtestExecutor: fastExecutor, backtestRunner: runner };
  app = createApp({ ctx });
  key = t.orgA.apiKey;
  path = `/api/v1/custom/org/${t.orgA.uuid}/clients/${seeded.clientUuid}/accounts/${seeded.accountUuid}/backtests/`;
});
afterAll(async () => {
  await runner.stop();
  t.close();
});

function job(answer: Answer, status = 202): BacktestJob {
  expect(answer.status, answer.text.slice(0, 400)).toBe(status);
  return backtestJobSchema.parse(answer.body);
}

function multipart(fields: Record<string, string>): FormData {
  const f = new FormData();
  for (const [k, v] of Object.entries(fields)) f.append(k, v);
  return f;
}

describe("endpoint 2: start an account backtest", () => {
  it("answers 202 with a PENDING job whose resolved_params fill every default", async () => {
    const created = job(await send(app, "POST", path, { key, json: {} }));
    expect(created).toMatchObject({
      status: "PENDING",
      params: {},
      resolved_params: FAKE_DEFAULTS,
      result: null,
      error_message: null,
      started_at: null,
      finished_at: null,
    });
    expect(created.created_at).toBe(t.clock.now().toISOString());
  });

  it("takes the same fields as JSON, form-urlencoded and multipart, with the same job", async () => {
    const fields = {
      start_date: "2024-01-02",
      end_date: "2024-12-31",
      rebalance_period: "MONTHLY",
      tax_gamma: "2.5",
      tax_loss_threshold_bps: "750",
      starting_nav: "250000",
      ls_tlh_factor: "growth",
    };
    const expected = {
      start_date: "2024-01-02",
      end_date: "2024-12-31",
      rebalance_period: "MONTHLY",
      tax_gamma: 2.5,
      tax_loss_threshold_bps: 750,
      starting_nav: 250_000,
      ls_tlh_factor: "growth",
    };
    const fromJson = job(await send(app, "POST", path, { key, json: expected }));
    const fromForm = job(
      await send(app, "POST", path, {
        key,
        raw: new URLSearchParams(fields).toString(),
        headers: { "Content-Type": "application/x-www-form-urlencoded" },
      }),
    );
    const fromMultipart = job(await send(app, "POST", path, { key, raw: multipart(fields) }));
    for (const j of [fromJson, fromForm, fromMultipart]) {
      expect(j.params).toEqual(expected);
      const { ls_tlh_factor: _factor, ...resolved } = expected;
      expect(j.resolved_params).toEqual(resolved);
    }
    expect(new Set([fromJson.id, fromForm.id, fromMultipart.id]).size).toBe(3);
  });

  it("takes the extension fields loss_usage, liquidate_at_end and basis_reset_max_gain from JSON, form and multipart bodies", async () => {
    const expected = { loss_usage: "outside_gains", liquidate_at_end: false, basis_reset_max_gain: 0.05 };
    const fields = { loss_usage: "outside_gains", liquidate_at_end: "false", basis_reset_max_gain: "0.05" };
    const fromJson = job(await send(app, "POST", path, { key, json: expected }));
    const fromForm = job(
      await send(app, "POST", path, {
        key,
        raw: new URLSearchParams(fields).toString(),
        headers: { "Content-Type": "application/x-www-form-urlencoded" },
      }),
    );
    const fromMultipart = job(await send(app, "POST", path, { key, raw: multipart(fields) }));
    for (const j of [fromJson, fromForm, fromMultipart]) {
      expect(j.params).toEqual(expected);
      expect(j.account_uuid).toBe(seeded.accountUuid);
    }
  });

  it("accepts the bounds of every range", async () => {
    for (const body of [
      { tax_gamma: 0, tax_loss_threshold_bps: 0, starting_nav: 100 },
      { tax_gamma: 100, tax_loss_threshold_bps: 5000, starting_nav: 1_000_000_000 },
    ])
      expect(job(await send(app, "POST", path, { key, json: body })).resolved_params).toMatchObject(body);
    // This server's test executor resolves the spec's fields only; the extension field is kept as requested.
    for (const body of [{ basis_reset_max_gain: 0 }, { basis_reset_max_gain: 1 }])
      expect(job(await send(app, "POST", path, { key, json: body })).params).toEqual(body);
  });

  it("refuses every out-of-range value with a 400 that names the field", async () => {
    const cases: [Record<string, unknown>, string, RegExp][] = [
      [{ tax_gamma: -0.01 }, "tax_gamma", /-0\.01 is below the minimum 0/],
      [{ tax_gamma: 100.5 }, "tax_gamma", /100\.5 is above the maximum 100/],
      [{ tax_loss_threshold_bps: -1 }, "tax_loss_threshold_bps", /below the minimum 0/],
      [{ tax_loss_threshold_bps: 5000.01 }, "tax_loss_threshold_bps", /above the maximum 5000/],
      [{ starting_nav: 99.99 }, "starting_nav", /below the minimum 100/],
      [{ starting_nav: 1_000_000_001 }, "starting_nav", /above the maximum 1000000000/],
      [{ rebalance_period: "QUARTERLY" }, "rebalance_period", /MONTHLY/],
      [{ ls_tlh_factor: "momentum" }, "ls_tlh_factor", /quality.*value.*growth/],
      [{ loss_usage: "carryforward" }, "loss_usage", /account_only.*outside_gains/],
      [{ liquidate_at_end: "no" }, "liquidate_at_end", /true or false/],
      [{ basis_reset_max_gain: -0.1 }, "basis_reset_max_gain", /below the minimum 0/],
      [{ basis_reset_max_gain: 1.01 }, "basis_reset_max_gain", /above the maximum 1/],
      [{ start_date: "2024-02-30" }, "start_date", /YYYY-MM-DD/],
      [{ end_date: "31/12/2024" }, "end_date", /YYYY-MM-DD/],
      [{ start_date: "2024-06-01", end_date: "2024-05-31" }, "end_date", /end_date must be after start_date/],
      [{ start_date: "2024-06-01", end_date: "2024-06-01" }, "end_date", /end_date must be after start_date/],
      [{ tax_gamma: "1" }, "tax_gamma", /number/],
      [{ taxgamma: 1 }, "", /taxgamma/],
    ];
    for (const [body, field, message] of cases) {
      const answer = await send(app, "POST", path, { key, json: body });
      expect(answer.status, JSON.stringify(body)).toBe(400);
      const e = envelope(answer);
      expect(e.code).toBe("validation_error");
      expect(e.message).toContain("Invalid request body");
      if (field) {
        expect(e.message).toContain(field);
        expect(e.details?.map((d) => d.path)).toEqual([field]);
      }
      expect(JSON.stringify(e.details)).toMatch(message);
    }
  });

  it("refuses bad form values by field name too", async () => {
    const answer = await send(app, "POST", path, {
      key,
      raw: "tax_gamma=lots&starting_nav=50",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
    });
    expect(answer.status).toBe(400);
    expect(
      envelope(answer)
        .details?.map((d) => d.path)
        .sort(),
    ).toEqual(["starting_nav", "tax_gamma"]);
  });

  it("passes the engine's own refusals on as 400 naming the field", async () => {
    const answer = await send(app, "POST", path, { key, json: { start_date: "2019-12-31" } });
    expect(answer.status).toBe(400);
    expect(envelope(answer)).toMatchObject({
      code: "validation_error",
      details: [{ path: "start_date", message: `before the first price date ${FAKE_FIRST_DATE}` }],
    });
  });

  it("answers 404 for an account of another client and stores nothing", async () => {
    const before = (await t.store.backtestJobs.list(t.orgA.uuid)).length;
    const other = await send(
      app,
      "POST",
      `/api/v1/custom/org/${t.orgA.uuid}/clients/${crypto.randomUUID()}/accounts/${seeded.accountUuid}/backtests/`,
      { key, json: {} },
    );
    expect(other.status).toBe(404);
    expect(envelope(other).code).toBe("account_not_found");
    expect(await t.store.backtestJobs.list(t.orgA.uuid)).toHaveLength(before);
  });

  it("runs the job on the server's runner: read back as SUCCESS with its result and progress", async () => {
    const created = job(await send(app, "POST", path, { key, json: { end_date: "2024-12-31" } }));
    await runner.wait(created.id);
    const done = job(await send(app, "GET", `${path}${created.id}/`, { key }), 200);
    expect(done.status).toBe("SUCCESS");
    expect(Object.keys(done.result!).sort()).toEqual(["benchmark", "pre_tax", "tax_managed"]);
    expect(done.progress).toMatchObject({
      planned_periods: 6,
      completed_periods: 6,
      last_completed_period: "2024-12-31",
    });
    const other = job(
      await send(app, "GET", `/api/v1/custom/org/${t.orgA.uuid}/backtests/${created.id}/`, { key }),
      200,
    );
    expect(other).toEqual(done);
    const late = await send(
      app,
      "POST",
      `/api/v1/custom/org/${t.orgA.uuid}/backtests/${created.id}/cancel/`,
      {
        key,
      },
    );
    expect(late.status).toBe(409);
    expect(envelope(late).message).toMatch(/already finished with status SUCCESS/);
  });
});

describe("remote backend over a real server with worker threads", () => {
  it("starts jobs on the server, polls them to the end and reads the same jobs as the local backend", async () => {
    const dir = mkdtempSync(join(tmpdir(), "lotwise-http-backtests-"));
    const f = await createTestStore({ path: join(dir, "store.db") });
    const s = await seedOrganization(f, f.orgA);
    const pool = new BacktestJobRunner({
      store: f.store,
      concurrency: 2,
      executor: executorModule("slowExecutor"),
      pollIntervalMs: 20,
      log: () => {},
    });
    try {
      await pool.start();
      const ctx: BacktestServiceContext = { ...f.ctx, backtestExecutor: fastExecutor, backtestRunner: pool };
      const handle = await serve({ ctx, port: 0, log: () => {} });
      try {
        const remote = await RemoteBackend.connect({ url: handle.url, apiKey: f.orgA.apiKey });
        const a = await remote.startBacktest(s.clientUuid, s.accountUuid, { end_date: "2024-10-31" });
        const b = await remote.startBacktest(s.clientUuid, s.accountUuid, { tax_gamma: 3 });
        expect([a.status, b.status]).toEqual(["PENDING", "PENDING"]);
        const end = Date.now() + 20_000;
        let jobs: BacktestJob[] = [];
        while (Date.now() < end) {
          jobs = await Promise.all([remote.getBacktest(a.id), remote.getBacktest(b.id)]);
          if (jobs.every((j) => j.status === "SUCCESS" || j.status === "FAILURE")) break;
          await new Promise((r) => setTimeout(r, 50));
        }
        expect(jobs.map((j) => j.status)).toEqual(["SUCCESS", "SUCCESS"]);
        const local = new LocalBackend(ctx, f.orgA.uuid);
        expect(await remote.listBacktests(s.clientUuid, s.accountUuid)).toEqual(
          JSON.parse(JSON.stringify(await local.listBacktests(s.clientUuid, s.accountUuid))),
        );
        const pending = await remote.startBacktest(s.clientUuid, s.accountUuid, {});
        const cancelled = await remote.cancelBacktest(pending.id).catch(() => undefined);
        // Either it was still PENDING (failed at once) or the pool already took it (RUNNING, stops at next period).
        expect(["FAILURE", "RUNNING"]).toContain(cancelled?.status);
      } finally {
        await handle.close();
      }
    } finally {
      await pool.stop();
      f.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
