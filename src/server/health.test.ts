import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { dropPrefix, privatePrefix, REDIS_URL, redisAvailable } from "../../test/helpers/queue-jobs.js";
import { BullJobQueue } from "../service/jobs/queue/index.js";
import { openSqliteStore } from "../store/index.js";
import { health, type Pingable, readiness } from "./health.js";

const ok: Pingable = { ping: async () => {} };
const refused: Pingable = {
  ping: async () => {
    throw new Error("connect ECONNREFUSED 10.1.2.3:5432 (user lotwise, password hunter2)");
  },
};
const hanging: Pingable = { ping: () => new Promise<void>(() => {}) };
const haveRedis = await redisAvailable();
if (!haveRedis) console.warn(`readiness test on Redis skipped: needs Redis at ${REDIS_URL}`);

describe("health", () => {
  it("answers status ok", () => {
    expect(health()).toEqual({ status: "ok" });
  });
});

describe("readiness", () => {
  it("is ready when the database and the queue answer, with a time for each", async () => {
    const r = await readiness({ store: ok, queue: ok });
    expect(r.ready).toBe(true);
    expect(r.checks.database.ok).toBe(true);
    expect(r.checks.queue?.ok).toBe(true);
    expect(r.checks.database.error).toBeUndefined();
    expect(r.checks.database.ms).toBeGreaterThanOrEqual(0);
    expect(r.checks.database.ms).toBeLessThan(1000);
  });

  it("has no queue check in a deployment without a queue", async () => {
    const r = await readiness({ store: ok });
    expect(r).toEqual({ ready: true, checks: { database: { ok: true, ms: r.checks.database.ms } } });
  });

  it("is not ready when the database refuses, with a message that names no host, user or password", async () => {
    const seen: unknown[] = [];
    const r = await readiness({ store: refused, queue: ok, onError: (_c, err) => seen.push(err) });
    expect(r.ready).toBe(false);
    expect(r.checks.database).toMatchObject({ ok: false, error: "the database is not reachable" });
    expect(JSON.stringify(r)).not.toMatch(/10\.1\.2\.3|5432|hunter2|lotwise|ECONNREFUSED/);
    expect(r.checks.queue?.ok).toBe(true);
    expect(String(seen[0])).toContain("ECONNREFUSED"); // the raw error goes to the log only
  });

  it("is not ready while the instance is stopping, even with every dependency answering", async () => {
    const r = await readiness({ store: ok, queue: ok, stopping: true });
    expect(r.ready).toBe(false);
    expect(r.stopping).toBe(true);
    expect(r.checks.database.ok).toBe(true);
    expect(r.checks.queue?.ok).toBe(true);
    expect((await readiness({ store: ok, stopping: false })).stopping).toBeUndefined();
  });

  it("gives up on a ping that hangs after the time limit", async () => {
    const t0 = performance.now();
    const r = await readiness({ store: ok, queue: hanging, timeoutMs: 150 });
    const elapsed = performance.now() - t0;
    expect(r.ready).toBe(false);
    expect(r.checks.queue).toMatchObject({ ok: false, error: "the job queue did not answer within 150 ms" });
    expect(r.checks.queue!.ms).toBeGreaterThanOrEqual(140);
    expect(elapsed).toBeLessThan(1000);
    expect(r.checks.database.ok).toBe(true);
  });

  it("pings a real store file, and reports it not reachable once closed", async () => {
    const dir = mkdtempSync(join(tmpdir(), "lotwise-health-"));
    try {
      const store = openSqliteStore(join(dir, "h.db"));
      expect((await readiness({ store })).ready).toBe(true);
      await store.close();
      const r = await readiness({ store });
      expect(r.ready).toBe(false);
      expect(r.checks.database.error).toBe("the database is not reachable");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("reports a job queue whose Redis does not listen as not reachable, within the time limit", async () => {
    const store = openSqliteStore(":memory:");
    const queue = new BullJobQueue({
      connection: "redis://127.0.0.1:1",
      prefix: "lotwise-health-none",
      store,
    });
    try {
      const r = await readiness({ store, queue, timeoutMs: 1500 });
      expect(r.ready).toBe(false);
      expect(r.checks.queue?.ok).toBe(false);
      expect(r.checks.queue?.error).toMatch(
        /^the job queue (is not reachable|did not answer within 1500 ms)$/,
      );
    } finally {
      await queue.close().catch(() => {});
      await store.close();
    }
  });

  it.skipIf(!haveRedis)("is ready with a real store and a real Redis queue (needs Redis)", async () => {
    const store = openSqliteStore(":memory:");
    const prefix = privatePrefix("health");
    const queue = new BullJobQueue({ connection: REDIS_URL, prefix, store });
    try {
      const r = await readiness({ store, queue });
      expect(r.ready).toBe(true);
      expect(r.checks.queue?.ok).toBe(true);
    } finally {
      await queue.close();
      await store.close();
      await dropPrefix(prefix);
    }
  });
});
