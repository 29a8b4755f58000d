import { describe, expect, it } from "vitest";
import { openSqliteStore } from "../../../store/index.js";
import { BullJobQueue, EnqueueTimeoutError, queueNames } from "./bull-queue.js";

describe("BullJobQueue without a reachable Redis", () => {
  it("rejects an enqueue after its time limit instead of hanging the request", async () => {
    const store = openSqliteStore(":memory:");
    const queue = new BullJobQueue({
      connection: "redis://127.0.0.1:1",
      prefix: "lotwise-unreachable",
      store,
      enqueueTimeoutMs: 300,
    });
    try {
      const t0 = performance.now();
      const err = await queue.enqueue("5f0c2f4e-0000-4000-8000-000000000001", "backtest").catch((e) => e);
      const elapsed = performance.now() - t0;
      expect(err).toBeInstanceOf(EnqueueTimeoutError);
      expect(err.message).toBe(
        "The job queue did not accept job 5f0c2f4e-0000-4000-8000-000000000001 within 300 ms.",
      );
      expect(elapsed).toBeGreaterThanOrEqual(290);
      expect(elapsed).toBeLessThan(2000);
    } finally {
      await queue.close().catch(() => {});
      await store.close();
    }
  });
});

describe("queueNames", () => {
  it("defaults to prefix lotwise and queue jobs, and keeps given names", () => {
    expect(queueNames({ connection: "redis://x" })).toEqual({ prefix: "lotwise", queueName: "jobs" });
    expect(queueNames({ connection: "redis://x", prefix: "acme", queueName: "nightly" })).toEqual({
      prefix: "acme",
      queueName: "nightly",
    });
  });
});
