/**
 * A store whose write lock another process holds (issue 12, defect 3: a CLI import beside `lotwise serve` froze every
 * request for the 5 s busy timeout, then writes failed with a generic 500). Here a second connection to the same
 * file holds the lock with BEGIN IMMEDIATE, as a CLI import does: reads keep answering at once, writes wait a bounded
 * time without blocking the event loop and then answer 503 `store_busy` with Retry-After and the envelope (or succeed
 * when the lock goes away in time), and the API-key touch is retried after the lock instead of freezing the server.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { clientSchema } from "../src/contract/index.js";
import { API_ROUTES, createApp, defineRoute, STORE_BUSY_MESSAGE } from "../src/server/index.js";
import { createClient, getClient } from "../src/service/index.js";
import { createTestStore, type TestStore } from "./helpers/fixture.js";
import { envelope, send } from "./helpers/http.js";

let dir: string;
let t: TestStore;
let clientUuid: string;
let locker: Database.Database;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), "lotwise-busy-"));
  t = await createTestStore({ path: join(dir, "store.db"), withMarket: false });
  clientUuid = (await createClient(t.ctx, t.orgA.uuid, { external_id: "before" })).uuid;
  locker = new Database(join(dir, "store.db"));
});
afterEach(() => {
  if (locker.inTransaction) locker.exec("ROLLBACK");
  locker.close();
  t.close();
  rmSync(dir, { recursive: true, force: true });
});

/** What another process's import does: take the write lock and write, without committing yet. */
function holdWriteLock(): void {
  locker.exec("BEGIN IMMEDIATE");
  locker.prepare("UPDATE organizations SET name = name WHERE uuid = ?").run(t.orgA.uuid);
}

const clientPath = () => `/api/v1/custom/org/${t.orgA.uuid}/clients/${clientUuid}/`;

describe("a store locked by another writer", () => {
  it("answers a write 503 store_busy with Retry-After and the envelope after the bounded wait, writing nothing", async () => {
    const logged: string[] = [];
    const app = createApp({ ctx: t.ctx, storeBusyWaitMs: 300, log: (l) => logged.push(l) });
    holdWriteLock();
    const started = performance.now();
    const res = await send(app, "PATCH", clientPath(), {
      key: t.orgA.apiKey,
      json: { external_id: "after" },
    });
    const elapsed = performance.now() - started;
    expect(res.status).toBe(503);
    expect(res.headers.get("retry-after")).toBe("1");
    expect(envelope(res)).toEqual({ code: "store_busy", message: STORE_BUSY_MESSAGE });
    expect(res.text).not.toMatch(/sqlite|SQLITE|stack|at .*\.ts/i);
    // It waited for the lock (about 300 ms) but not the 5 s busy timeout of a blocking connection.
    expect(elapsed).toBeGreaterThanOrEqual(250);
    expect(elapsed).toBeLessThan(3000);
    expect(logged.filter((l) => l.includes("internal error"))).toEqual([]);
    locker.exec("ROLLBACK");
    expect((await getClient(t.ctx, t.orgA.uuid, clientUuid)).external_id).toBe("before");
  });

  it("keeps answering reads (GET /me, client list, client read) while the lock is held, the key touches included", async () => {
    // touchIntervalMs 0: every request schedules a last_used_at write, the "read that writes" of the issue.
    const app = createApp({ ctx: t.ctx, touchIntervalMs: 0, log: () => {} });
    holdWriteLock();
    const paths = ["/api/v1/me", `/api/v1/custom/org/${t.orgA.uuid}/clients/`, clientPath()];
    const started = performance.now();
    for (let i = 0; i < 12; i++) {
      const res = await send(app, "GET", paths[i % 3]!, { key: t.orgA.apiKey });
      expect(res.status).toBe(200);
      // Let the deferred key touch of that request run before the next one, as it would between requests.
      await new Promise((r) => setTimeout(r, 5));
    }
    const elapsed = performance.now() - started;
    // A blocking touch froze the event loop 5 s per attempt; twelve reads now take a small fraction of one.
    expect(elapsed).toBeLessThan(2000);
    const me = await send(app, "GET", "/api/v1/me", { key: t.orgA.apiKey });
    expect(me.body).toEqual({
      organization_uuid: t.orgA.uuid,
      organization_name: "Org A",
      api_key_id: t.orgA.keyId,
    });
  });

  it("lets a waiting write through once the lock is released within the wait, while reads keep flowing", async () => {
    const app = createApp({ ctx: t.ctx, storeBusyWaitMs: 10_000, log: () => {} });
    holdWriteLock();
    const started = performance.now();
    const patch = send(app, "PATCH", clientPath(), {
      key: t.orgA.apiKey,
      json: { external_id: "after" },
    });
    // A read during the wait answers at once: the waiting write does not hold the event loop.
    await new Promise((r) => setTimeout(r, 100));
    const readStarted = performance.now();
    const read = await send(app, "GET", clientPath(), { key: t.orgA.apiKey });
    expect(read.status).toBe(200);
    expect((read.body as { external_id: string }).external_id).toBe("before");
    expect(performance.now() - readStarted).toBeLessThan(1000);
    setTimeout(() => locker.exec("COMMIT"), 400);
    const res = await patch;
    expect(res.status).toBe(200);
    expect((res.body as { external_id: string }).external_id).toBe("after");
    expect(performance.now() - started).toBeGreaterThanOrEqual(400);
    expect((await getClient(t.ctx, t.orgA.uuid, clientUuid)).external_id).toBe("after");
  });

  it("records the key's use once the lock is released, logging the busy episode once and its end once", async () => {
    const logged: string[] = [];
    const app = createApp({ ctx: t.ctx, touchIntervalMs: 0, log: (l) => logged.push(l) });
    const before = (await t.store.apiKeys.list(t.orgA.uuid)).find((k) => k.id === t.orgA.keyId)!.lastUsedAt;
    holdWriteLock();
    for (let i = 0; i < 5; i++) {
      expect((await send(app, "GET", "/api/v1/me", { key: t.orgA.apiKey })).status).toBe(200);
      await new Promise((r) => setTimeout(r, 20));
    }
    t.clock.advance(60_000);
    locker.exec("COMMIT");
    const deadline = performance.now() + 15_000;
    let used = before;
    while (used === before && performance.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
      used = (await t.store.apiKeys.list(t.orgA.uuid)).find((k) => k.id === t.orgA.keyId)!.lastUsedAt;
    }
    expect(used).toBe(t.clock.now().toISOString());
    expect(logged.filter((l) => l.includes("locked by another writer"))).toHaveLength(1);
    await new Promise((r) => setTimeout(r, 200));
    expect(logged.filter((l) => l.includes("writable again"))).toHaveLength(1);
  });

  it("does not repeat an operation that wrote before it met the lock: 503 at once, its first write kept once", async () => {
    let runs = 0;
    const route = defineRoute({
      method: "POST",
      path: "/api/v1/custom/org/{organization_uuid}/test_two_writes/",
      operationId: "testTwoWrites",
      tag: "Test",
      summary: "two separate writes",
      response: { status: 201, schema: clientSchema, description: "the second client" },
      handler: async ({ ctx, org }) => {
        runs += 1;
        await createClient(ctx, org, { external_id: `first-${runs}` });
        holdWriteLock(); // another process takes the lock between the two writes
        return createClient(ctx, org, { external_id: `second-${runs}` });
      },
    });
    const app = createApp({
      ctx: t.ctx,
      routes: [...API_ROUTES, route],
      storeBusyWaitMs: 5000,
      log: () => {},
    });
    const started = performance.now();
    const res = await send(app, "POST", `/api/v1/custom/org/${t.orgA.uuid}/test_two_writes/`, {
      key: t.orgA.apiKey,
    });
    expect(res.status).toBe(503);
    expect(envelope(res).code).toBe("store_busy");
    expect(runs).toBe(1);
    expect(performance.now() - started).toBeLessThan(2000);
    locker.exec("ROLLBACK");
    const ids = (await t.store.clients.list(t.orgA.uuid)).map((c) => c.externalId);
    expect(ids.sort()).toEqual(["before", "first-1"]);
  });

  it("documents 503 store_busy with Retry-After on every keyed operation of the OpenAPI document", async () => {
    const app = createApp({ ctx: t.ctx });
    const doc = (await send(app, "GET", "/api/v1/openapi.json")).body as {
      paths: Record<string, Record<string, { responses: Record<string, unknown>; security?: unknown[] }>>;
      components: { responses: Record<string, { description: string; headers?: Record<string, unknown> }> };
    };
    const keyed = Object.values(doc.paths)
      .flatMap((ops) => Object.values(ops))
      .filter((op) => op.security === undefined || op.security.length > 0);
    expect(keyed.length).toBe(API_ROUTES.length);
    for (const op of keyed)
      expect(op.responses["503"]).toEqual({ $ref: "#/components/responses/ServiceUnavailable" });
    const unavailable = doc.components.responses.ServiceUnavailable!;
    expect(unavailable.description).toContain("`store_busy`");
    expect(Object.keys(unavailable.headers ?? {})).toEqual(["Retry-After"]);
  });
});
