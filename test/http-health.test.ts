/**
 * The probes of every `lotwise serve` on its embedded (SQLite) store: /healthz and /readyz need no API key, /readyz
 * checks the database only (no queue configured) and turns 503 with `stopping` once the app is marked as shutting
 * down (`serve()`'s close() marks it, on SIGTERM).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp, type LotwiseApp, markAppStopping } from "../src/server/index.js";
import { createTestStore, type TestStore } from "./helpers/fixture.js";
import { send } from "./helpers/http.js";

let t: TestStore;
let app: LotwiseApp;

beforeAll(async () => {
  t = await createTestStore({ withMarket: false });
  app = createApp({ ctx: t.ctx, requestWorkers: 0 });
});
afterAll(() => t.close());

describe("health endpoints", () => {
  it("answers /healthz 200 {status: ok} without an API key, never cached", async () => {
    const r = await send(app, "GET", "/healthz");
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ status: "ok" });
    expect(r.headers.get("cache-control")).toBe("no-store");
  });

  it("answers /readyz 200 with the database check only when no queue is configured", async () => {
    const r = await send(app, "GET", "/readyz");
    expect(r.status).toBe(200);
    const body = r.body as { ready: boolean; checks: Record<string, { ok: boolean; ms: number }> };
    expect(body.ready).toBe(true);
    expect(Object.keys(body.checks)).toEqual(["database"]);
    expect(body.checks.database!.ok).toBe(true);
  });

  it("keeps the probes out of the API's routes and OpenAPI document", async () => {
    const doc = (await send(app, "GET", "/api/v1/openapi.json")).body as { paths: Record<string, unknown> };
    expect(Object.keys(doc.paths).filter((p) => /healthz|readyz/.test(p))).toEqual([]);
    expect((await send(app, "POST", "/readyz")).status).toBe(404);
  });

  it("answers /readyz 503 with stopping: true once the app is stopping, while /healthz stays 200", async () => {
    const own = createApp({ ctx: t.ctx, requestWorkers: 0 });
    markAppStopping(own);
    const r = await send(own, "GET", "/readyz");
    expect(r.status).toBe(503);
    expect(r.body).toMatchObject({ ready: false, stopping: true, checks: { database: { ok: true } } });
    expect((await send(own, "GET", "/healthz")).status).toBe(200);
  });
});
