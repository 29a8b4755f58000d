/**
 * CPU-heavy requests off the event loop (issue 12: an optimize or theme-backtest request blocked other
 * organizations' requests for up to ~0.5 s). Over a store file, the app runs the `heavy` routes on its pool of
 * request workers, each with its own connection to the file. These tests check, through `app.request()`, that a
 * pooled request answers what the service function (or the in-process app) answers, that a worker's writes are
 * read at once through the main connection (response cache included), that errors keep their envelopes, and that
 * another organization's request is answered while a heavy one runs.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appRequestPoolStats, closeApp, createApp, type LotwiseApp } from "../src/server/index.js";
import { backtestTheme, optimizeAccount } from "../src/service/index.js";
import {
  createTestStore,
  type SeededOrganization,
  seedOrganization,
  type TestStore,
} from "./helpers/fixture.js";
import { type Answer, send } from "./helpers/http.js";

let dir: string;
let t: TestStore;
let a: SeededOrganization;
let b: SeededOrganization;
/** Heavy routes on two request workers. */
let pooled: LotwiseApp;
/** The same app with heavy routes on the event loop (what every app did before the pool). */
let inProcess: LotwiseApp;

const accountPath = (s: SeededOrganization, org: string) =>
  `/api/v1/custom/org/${org}/clients/${s.clientUuid}/accounts/${s.accountUuid}`;

/** Requests the pool has answered so far. */
const completed = () => appRequestPoolStats(pooled)?.completed ?? 0;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "lotwise-request-pool-"));
  t = await createTestStore({ path: join(dir, "store.db") });
  a = await seedOrganization(t, t.orgA);
  b = await seedOrganization(t, t.orgB);
  pooled = createApp({ ctx: t.ctx, requestWorkers: 2 });
  inProcess = createApp({ ctx: t.ctx, requestWorkers: 0 });
  // The first request starts a worker (from the TypeScript sources under tsx: seconds on a busy machine).
  const first = await send(pooled, "POST", `${accountPath(a, t.orgA.uuid)}/optimize/`, {
    key: t.orgA.apiKey,
    json: {},
  });
  expect(first.status).toBe(200);
}, 120_000);

afterAll(async () => {
  await closeApp(pooled);
  t.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("request worker pool", () => {
  it("is used for a store file and not for a :memory: store or requestWorkers 0", async () => {
    expect(appRequestPoolStats(pooled)).toMatchObject({ size: 2, started: 1 });
    expect(appRequestPoolStats(inProcess)).toBeUndefined();
    const memory = await createTestStore({ withMarket: false });
    try {
      expect(appRequestPoolStats(createApp({ ctx: memory.ctx, requestWorkers: 2 }))).toBeUndefined();
    } finally {
      memory.close();
    }
  });

  it("answers an optimize on a worker with exactly the JSON of optimizeAccount", async () => {
    const before = completed();
    const answer = await send(pooled, "POST", `${accountPath(a, t.orgA.uuid)}/optimize/`, {
      key: t.orgA.apiKey,
      json: { as_of_date: "2025-05-30" },
    });
    expect(answer.status).toBe(200);
    expect(completed()).toBe(before + 1);
    const direct = await optimizeAccount(t.ctx, t.orgA.uuid, a.accountUuid, {
      clientUuid: a.clientUuid,
      asOf: "2025-05-30",
    });
    expect(answer.body).toEqual(JSON.parse(JSON.stringify(direct)));
    expect((answer.body as { universe_size: number }).universe_size).toBeGreaterThan(0);
  });

  it("creates a proposal on a worker equal to the in-process one and readable at once through the main app", async () => {
    const body = {
      optimized_weights: [
        { ticker: t.usTickers[1]!, weight: "0.25" },
        { ticker: t.usTickers[4]!, weight: "0.35" },
      ],
    };
    const path = `${accountPath(b, t.orgB.uuid)}/proposal/`;
    const before = completed();
    const fromWorker = await send(pooled, "POST", path, { key: t.orgB.apiKey, json: body });
    expect(fromWorker.status).toBe(200);
    expect(completed()).toBe(before + 1);
    expect(fromWorker.headers.get("content-type")).toMatch(/^application\/json/);
    const fromLoop = await send(inProcess, "POST", path, { key: t.orgB.apiKey, json: body });
    const { proposal_uuid: workerUuid, ...workerRest } = fromWorker.body as Record<string, unknown>;
    const { proposal_uuid: loopUuid, ...loopRest } = fromLoop.body as Record<string, unknown>;
    expect(workerUuid).not.toBe(loopUuid);
    expect(workerRest).toEqual(loopRest);
    // Written by the worker's connection, read by the main one (and through the response cache) at once.
    const read = await send(pooled, "GET", `${accountPath(b, t.orgB.uuid)}/proposals/${workerUuid}/`, {
      key: t.orgB.apiKey,
    });
    expect(read.status).toBe(200);
    expect(read.body).toEqual(fromWorker.body);
  });

  it("applies the app context's proposal retention in the workers too", async () => {
    const kept = createApp({ ctx: { ...t.ctx, limits: { proposalsKeptPerAccount: 1 } }, requestWorkers: 1 });
    try {
      const path = `${accountPath(a, t.orgA.uuid)}/proposal/`;
      const body = { optimized_weights: [{ ticker: t.usTickers[3]!, weight: "0.5" }] };
      const uuids: string[] = [];
      for (let i = 0; i < 2; i++) {
        const r = await send(kept, "POST", path, { key: t.orgA.apiKey, json: body });
        expect(r.status, r.text.slice(0, 300)).toBe(200);
        uuids.push((r.body as { proposal_uuid: string }).proposal_uuid);
      }
      expect(appRequestPoolStats(kept)?.completed).toBe(2);
      // One proposal kept per account: the first one is gone, the newest is there.
      const first = await send(kept, "GET", `${accountPath(a, t.orgA.uuid)}/proposals/${uuids[0]}/`, {
        key: t.orgA.apiKey,
      });
      const second = await send(kept, "GET", `${accountPath(a, t.orgA.uuid)}/proposals/${uuids[1]}/`, {
        key: t.orgA.apiKey,
      });
      expect(first.status).toBe(404);
      expect(second.status).toBe(200);
    } finally {
      await closeApp(kept);
    }
  }, 120_000);

  it("answers a theme backtest on a worker with exactly the JSON of backtestTheme", async () => {
    const query = { start_date: "2024-01-02", end_date: "2025-06-30", benchmark: "SYNTH500" };
    const before = completed();
    const answer = await send(
      pooled,
      "GET",
      `/api/v1/themes/${a.themeUuid}/backtest?${new URLSearchParams(query)}`,
      { key: t.orgA.apiKey },
    );
    expect(answer.status).toBe(200);
    expect(completed()).toBe(before + 1);
    const direct = await backtestTheme(t.ctx, t.orgA.uuid, a.themeUuid, query);
    expect(answer.body).toEqual(JSON.parse(JSON.stringify(direct)));
  });

  it("shows the snapshots a worker's theme evaluations write in the next (cached) constituents reads", async () => {
    const theme = `/api/v1/themes/${b.themeUuid}`;
    const key = { key: t.orgB.apiKey };
    // A new revision has no snapshot until it is evaluated.
    const revised = await send(pooled, "PATCH", theme, { ...key, json: { name: "Org B revised" } });
    expect(revised.status).toBe(200);
    expect((await send(pooled, "GET", `${theme}/constituents`, key)).status).toBe(404);
    const before = completed();
    const march = await send(pooled, "POST", `${theme}/evaluate`, {
      ...key,
      json: { as_of_date: "2025-03-31" },
    });
    expect(march.status).toBe(200);
    const first = await send(pooled, "GET", `${theme}/constituents`, key);
    const again = await send(pooled, "GET", `${theme}/constituents`, key);
    expect(first.body).toEqual(march.body);
    expect(again.headers.get("etag")).toBe(first.headers.get("etag")); // the same cached answer
    // A later evaluation on the worker changes the store: the cached answer must not be served again.
    const june = await send(pooled, "POST", `${theme}/evaluate`, { ...key, json: {} });
    expect(june.status).toBe(200);
    expect(completed()).toBe(before + 2);
    const after = await send(pooled, "GET", `${theme}/constituents`, key);
    expect((after.body as { as_of_date: string }).as_of_date).toBe("2025-06-30");
    expect(after.body).toEqual(june.body);
  });

  it("answers failing heavy requests with the in-process status, code, message and details", async () => {
    const unknown = "00000000-0000-4000-8000-000000000000";
    const cases: [method: string, path: string, json?: unknown][] = [
      ["POST", `/api/v1/custom/org/${t.orgA.uuid}/clients/${a.clientUuid}/accounts/${unknown}/optimize/`, {}],
      ["POST", `${accountPath(a, t.orgA.uuid)}/rebalance/`, { as_of_date: "1990-01-02" }],
      [
        "POST",
        `${accountPath(a, t.orgA.uuid)}/proposal/`,
        {
          optimized_weights: [
            { ticker: "NOPE:XNAS", weight: "0.5" },
            { ticker: t.usTickers[0]!, weight: "0.5" },
          ],
        },
      ],
      ["GET", `/api/v1/themes/${a.themeUuid}/backtest?start_date=1990-01-02&end_date=1990-06-29`],
      ["GET", `/api/v1/themes/${a.themeUuid}/backtest?benchmark=NOSUCHINDEX`],
      // Organization B's theme through organization A's key: as if it did not exist.
      ["POST", `/api/v1/themes/${b.themeUuid}/evaluate`, {}],
    ];
    const before = completed();
    const shape = (r: Answer) => ({
      status: r.status,
      contentType: r.headers.get("content-type"),
      body: r.body,
    });
    for (const [method, path, json] of cases) {
      const options = { key: t.orgA.apiKey, ...(json !== undefined ? { json } : {}) };
      const fromWorker = await send(pooled, method, path, options);
      const fromLoop = await send(inProcess, method, path, options);
      expect(fromWorker.status, `${method} ${path}`).toBeGreaterThanOrEqual(400);
      expect(shape(fromWorker), `${method} ${path}`).toEqual(shape(fromLoop));
      expect(fromWorker.text).not.toMatch(/at .+\.ts:\d+|Error:/);
    }
    expect(completed()).toBe(before + cases.length);
  });

  it("answers another organization's GET /api/v1/me while an optimize runs", async () => {
    const heavyStart = performance.now();
    const heavy = send(pooled, "POST", `${accountPath(a, t.orgA.uuid)}/optimize/`, {
      key: t.orgA.apiKey,
      // A date no earlier request used: nothing of it is memoized yet.
      json: { as_of_date: "2025-04-30" },
    }).then((r) => ({ status: r.status, ms: performance.now() - heavyStart }));
    // Organization B's requests arrive 10, 20 and 30 ms after the optimize; each one's latency counts from its
    // arrival time (a request cannot be answered while the event loop is busy, timers included).
    const gets = [10, 20, 30].map(
      (offset) =>
        new Promise<number>((resolve, reject) => {
          setTimeout(() => {
            send(pooled, "GET", "/api/v1/me", { key: t.orgB.apiKey })
              .then((r) => {
                expect(r.status).toBe(200);
                expect((r.body as { organization_uuid: string }).organization_uuid).toBe(t.orgB.uuid);
                resolve(performance.now() - (heavyStart + offset));
              })
              .catch(reject);
          }, offset);
        }),
    );
    const [done, ...latencies] = await Promise.all([heavy, ...gets]);
    expect(done.status).toBe(200);
    if (process.env.POOL_DEBUG) console.log("heavy", done.ms, "gets", latencies);
    const median = [...latencies].sort((x, y) => x - y)[1]!;
    // Generous: on the event loop each GET waited for the rest of the optimize (hundreds of ms).
    expect(
      median,
      `GET latencies ${latencies.map((l) => l.toFixed(1))} ms, optimize ${done.ms.toFixed(1)} ms`,
    ).toBeLessThan(done.ms / 4);
  });
});

describe("request worker pool scheduling", () => {
  it("runs proposals (they hold the write lock while computing) one at a time, reads beside each other", async () => {
    const app = createApp({ ctx: t.ctx, requestWorkers: 2 });
    try {
      const body = { optimized_weights: [{ ticker: t.usTickers[1]!, weight: "0.5" }] };
      const proposals = await Promise.all(
        [0, 1, 2].map(() =>
          send(app, "POST", `${accountPath(b, t.orgB.uuid)}/proposal/`, { key: t.orgB.apiKey, json: body }),
        ),
      );
      expect(proposals.map((p) => p.status)).toEqual([200, 200, 200]);
      // Each proposal waited for the one before it, so the first worker took them all.
      expect(appRequestPoolStats(app)).toMatchObject({ started: 1, completed: 3 });
      const backtest = `/api/v1/themes/${a.themeUuid}/backtest?start_date=2024-07-01&end_date=2025-06-30`;
      const reads = await Promise.all([0, 1].map(() => send(app, "GET", backtest, { key: t.orgA.apiKey })));
      expect(reads.map((r) => r.status)).toEqual([200, 200]);
      expect(appRequestPoolStats(app)).toMatchObject({ started: 2 });
    } finally {
      await closeApp(app);
    }
  }, 120_000);

  it("answers a heavy request 503 service_unavailable once the app's workers are closed", async () => {
    const app = createApp({ ctx: t.ctx, requestWorkers: 1 });
    await closeApp(app);
    const heavy = await send(app, "POST", `${accountPath(a, t.orgA.uuid)}/optimize/`, {
      key: t.orgA.apiKey,
      json: {},
    });
    expect(heavy.status).toBe(503);
    expect(heavy.body).toEqual({
      error: {
        code: "service_unavailable",
        message: "The server is shutting down and did not run this request; retry it.",
      },
    });
    // Everything else is still answered on the event loop.
    expect((await send(app, "GET", "/api/v1/me", { key: t.orgA.apiKey })).status).toBe(200);
    expect(appRequestPoolStats(app)).toMatchObject({ started: 0, completed: 0 });
  });
});
