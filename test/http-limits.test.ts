/**
 * The limits that keep one caller from starving the others or growing the store without bound, through the HTTP
 * app: the per-key rate limit on the expensive routes (429 `rate_limited` with Retry-After), the per-organization
 * cap on queued backtest jobs (429 `too_many_queued_jobs`), and the retention of stored proposals per account
 * (count and age), applied when a proposal is written.
 */
import { afterEach, describe, expect, it } from "vitest";
import { createApp, type LotwiseApp } from "../src/server/index.js";
import {
  type BacktestServiceContext,
  createApiKey,
  type ServiceLimits,
  startBacktest,
} from "../src/service/index.js";
import { fastExecutor } from "./helpers/backtest-executors.js";
import {
  createTestStore,
  type SeededOrganization,
  seedOrganization,
  type TestStore,
} from "./helpers/fixture.js";
import { envelope, send } from "./helpers/http.js";

const opened: TestStore[] = [];
afterEach(() => {
  for (const t of opened.splice(0)) t.close();
});

async function setup(limits?: ServiceLimits) {
  const t = await createTestStore();
  opened.push(t);
  const a = await seedOrganization(t, t.orgA);
  const b = await seedOrganization(t, t.orgB);
  const ctx: BacktestServiceContext = {
    ...t.ctx,
    backtestExecutor: fastExecutor,
    ...(limits ? { limits } : {}),
  };
  return { t, a, b, ctx };
}

const accountPath = (org: string, s: SeededOrganization) =>
  `/api/v1/custom/org/${org}/clients/${s.clientUuid}/accounts/${s.accountUuid}`;

describe("rate limit per API key on the expensive routes", () => {
  it("answers 429 rate_limited with Retry-After once a key has used its burst, and serves it again after the refill", async () => {
    const { t, a, ctx } = await setup();
    let now = 0;
    const app = createApp({ ctx, rateLimit: { perMinute: 30, burst: 3, now: () => now } });
    const path = `${accountPath(t.orgA.uuid, a)}/proposal/`;
    const body = { optimized_weights: [{ ticker: t.usTickers[2]!, weight: "0.5" }] };
    for (let i = 0; i < 3; i++)
      expect((await send(app, "POST", path, { key: t.orgA.apiKey, json: body })).status).toBe(200);
    const refused = await send(app, "POST", path, { key: t.orgA.apiKey, json: body });
    expect(refused.status).toBe(429);
    // 30 a minute is one token every 2 s.
    expect(refused.headers.get("retry-after")).toBe("2");
    const e = envelope(refused);
    expect(e.code).toBe("rate_limited");
    expect(e.message).toBe(
      "Too many requests to the expensive routes (proposal, optimize, rebalance, backtest creation) with this API key: the limit is 30 per minute, in bursts of up to 3. Retry in 2 s.",
    );
    // The other expensive routes share the bucket; a refused request did not store a proposal.
    const optimize = await send(app, "POST", `${accountPath(t.orgA.uuid, a)}/optimize/`, {
      key: t.orgA.apiKey,
      json: {},
    });
    expect(optimize.status).toBe(429);
    expect((await t.store.proposals.list(t.orgA.uuid, a.accountUuid)).length).toBe(4); // the seeded one + 3
    now += 1_000;
    expect(
      (await send(app, "POST", path, { key: t.orgA.apiKey, json: body })).headers.get("retry-after"),
    ).toBe("1");
    now += 1_000;
    expect((await send(app, "POST", path, { key: t.orgA.apiKey, json: body })).status).toBe(200);
    expect((await send(app, "POST", path, { key: t.orgA.apiKey, json: body })).status).toBe(429);
  });

  it("keeps one key's bucket from touching another key's and the cheap routes", async () => {
    const { t, a, b, ctx } = await setup();
    const app = createApp({ ctx, rateLimit: { perMinute: 1, burst: 1, now: () => 0 } });
    const second = (await createApiKey(t.ctx, t.orgA.uuid, "second key")).key;
    const optimize = (key: string, org: string, s: SeededOrganization) =>
      send(app, "POST", `${accountPath(org, s)}/rebalance/`, { key, json: { as_of_date: "not a date" } });
    expect((await optimize(t.orgA.apiKey, t.orgA.uuid, a)).status).toBe(400);
    expect((await optimize(t.orgA.apiKey, t.orgA.uuid, a)).status).toBe(429);
    // Another key of the same organization, and another organization's key, have their own buckets.
    expect((await optimize(second, t.orgA.uuid, a)).status).toBe(400);
    expect((await optimize(t.orgB.apiKey, t.orgB.uuid, b)).status).toBe(400);
    // Reads are not limited.
    for (let i = 0; i < 5; i++)
      expect((await send(app, "GET", `${accountPath(t.orgA.uuid, a)}/`, { key: t.orgA.apiKey })).status).toBe(
        200,
      );
  });

  it("limits by default (bursts of 100, 600 a minute per key), and not at all with rateLimit: false", async () => {
    const { t, a, ctx } = await setup();
    // An invalid body costs nothing to refuse, and the limit is taken before the body is read. The default bucket
    // refills 10 tokens a second, so a loop of fast requests runs past the first 100 before it is refused.
    const flood = async (app: LotwiseApp, max: number) => {
      const statuses: number[] = [];
      let refused: { message: string } | undefined;
      for (let i = 0; i < max && refused === undefined; i++) {
        const r = await send(app, "POST", `${accountPath(t.orgA.uuid, a)}/backtests/`, {
          key: t.orgA.apiKey,
          json: { tax_gamma: 101 },
        });
        statuses.push(r.status);
        if (r.status === 429) refused = envelope(r);
      }
      return { statuses, refused };
    };
    const limited = await flood(createApp({ ctx }), 1000);
    expect(limited.statuses.length).toBeGreaterThan(100);
    expect(limited.statuses.slice(0, 100).every((s) => s === 400)).toBe(true);
    expect(limited.statuses.at(-1)).toBe(429);
    expect(limited.refused?.message).toContain("the limit is 600 per minute, in bursts of up to 100");
    const open = await flood(createApp({ ctx, rateLimit: false }), 300);
    expect(open.statuses.every((s) => s === 400)).toBe(true);
  });
});

describe("cap on queued backtest jobs per organization", () => {
  it("refuses a job beyond the cap with 429 too_many_queued_jobs, per organization, until one leaves the queue", async () => {
    const { t, a, b, ctx } = await setup({ maxQueuedJobsPerOrganization: 2 });
    const app = createApp({ ctx, rateLimit: false });
    const start = (key: string, org: string, s: SeededOrganization) =>
      send(app, "POST", `${accountPath(org, s)}/backtests/`, { key, json: {} });
    const first = await start(t.orgA.apiKey, t.orgA.uuid, a);
    expect(first.status).toBe(202);
    expect((await start(t.orgA.apiKey, t.orgA.uuid, a)).status).toBe(202);
    const refused = await start(t.orgA.apiKey, t.orgA.uuid, a);
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBeNull();
    expect(envelope(refused)).toEqual({
      code: "too_many_queued_jobs",
      message:
        "This organization already has 2 backtest jobs waiting to run (the limit is 2). Wait until some of them have started, or cancel some, then start this one again.",
    });
    expect(await t.store.backtestJobs.list(t.orgA.uuid)).toHaveLength(2);
    // Another organization's queue is its own.
    expect((await start(t.orgB.apiKey, t.orgB.uuid, b)).status).toBe(202);
    // A job that leaves the queue (cancelled here; started by a runner alike) makes room.
    const id = (first.body as { id: string }).id;
    expect(
      (
        await send(app, "POST", `/api/v1/custom/org/${t.orgA.uuid}/backtests/${id}/cancel/`, {
          key: t.orgA.apiKey,
        })
      ).status,
    ).toBe(202);
    expect((await start(t.orgA.apiKey, t.orgA.uuid, a)).status).toBe(202);
  });

  it("applies the default cap of 100 through the service, and none when set to 0", async () => {
    const { t, a, ctx } = await setup();
    for (let i = 0; i < 100; i++) await startBacktest(ctx, t.orgA.uuid, a.clientUuid, a.accountUuid, {});
    await expect((() => startBacktest(ctx, t.orgA.uuid, a.clientUuid, a.accountUuid, {}))()).rejects.toThrow(
      expect.objectContaining({ code: "too_many_queued_jobs" }),
    );
    const uncapped = { ...ctx, limits: { maxQueuedJobsPerOrganization: 0 } };
    expect((await startBacktest(uncapped, t.orgA.uuid, a.clientUuid, a.accountUuid, {})).status).toBe(
      "PENDING",
    );
    expect((await t.store.backtestJobs.list(t.orgA.uuid, { status: "PENDING" })).length).toBe(101);
  });
});

describe("proposal retention per account", () => {
  it("keeps only the newest N proposals of an account when a new one is written", async () => {
    const { t, a, b, ctx } = await setup({ proposalsKeptPerAccount: 3 });
    const app = createApp({ ctx, rateLimit: false });
    const base = accountPath(t.orgA.uuid, a);
    const ids: string[] = [a.proposalUuid];
    for (let i = 0; i < 5; i++) {
      t.clock.advance(1_000);
      const r = await send(app, "POST", `${base}/proposal/`, {
        key: t.orgA.apiKey,
        json: { optimized_weights: [{ ticker: t.usTickers[3]!, weight: `0.1${i}` }] },
      });
      expect(r.status, r.text).toBe(200);
      ids.push((r.body as { proposal_uuid: string }).proposal_uuid);
    }
    const status = async (id: string) =>
      (await send(app, "GET", `${base}/proposals/${id}/`, { key: t.orgA.apiKey })).status;
    expect(await Promise.all(ids.map(status))).toEqual([404, 404, 404, 200, 200, 200]);
    expect((await t.store.proposals.list(t.orgA.uuid, a.accountUuid)).length).toBe(3);
    // Other accounts keep theirs.
    expect((await t.store.proposals.list(t.orgB.uuid, b.accountUuid)).length).toBe(1);
  });

  it("deletes an account's proposals older than the maximum age when it gets a new one", async () => {
    const { t, a, b, ctx } = await setup({ proposalMaxAgeDays: 30, proposalsKeptPerAccount: 0 });
    const app = createApp({ ctx, rateLimit: false });
    const base = accountPath(t.orgA.uuid, a);
    const post = async () =>
      (
        await send(app, "POST", `${base}/proposal/`, {
          key: t.orgA.apiKey,
          json: { optimized_weights: [{ ticker: t.usTickers[3]!, weight: "0.2" }] },
        })
      ).body as { proposal_uuid: string };
    t.clock.advance(29 * 86_400_000);
    const young = await post();
    // Day 29: the seeded proposal is 29 days old and stays.
    expect((await t.store.proposals.list(t.orgA.uuid, a.accountUuid)).length).toBe(2);
    t.clock.advance(2 * 86_400_000);
    const latest = await post();
    // Day 31: the seeded one (31 days) goes, the one of day 29 (2 days) stays.
    const kept = (await t.store.proposals.list(t.orgA.uuid, a.accountUuid)).map((p) => p.uuid);
    expect(kept).toEqual([young.proposal_uuid, latest.proposal_uuid]);
    // Organization B wrote nothing: its old proposal is untouched.
    expect((await t.store.proposals.list(t.orgB.uuid, b.accountUuid)).length).toBe(1);
  });
});
