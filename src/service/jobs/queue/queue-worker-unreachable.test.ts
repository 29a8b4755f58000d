import { describe, expect, it } from "vitest";
import { openSqliteStore } from "../../../store/index.js";
import { QueueWorker } from "./queue-worker.js";
import { runQueueWorker } from "./worker-main.js";

// No Redis needed: port 1 refuses every connection, as a mistyped LOTWISE_QUEUE port does.
const UNREACHABLE = "redis://127.0.0.1:1";

const within = <T>(p: Promise<T>, ms: number): Promise<T | "timed out"> =>
  Promise.race([p, new Promise<"timed out">((resolve) => setTimeout(() => resolve("timed out"), ms))]);

describe("QueueWorker without a reachable Redis", () => {
  it("stops at once when closed before the queue ever answered, and logs the outage once", async () => {
    const store = openSqliteStore(":memory:");
    const lines: string[] = [];
    const worker = new QueueWorker({
      connection: UNREACHABLE,
      prefix: "lotwise-unreachable",
      store,
      handler: async () => {},
      log: (line) => lines.push(line),
    });
    try {
      const starting = worker.start();
      await new Promise((resolve) => setTimeout(resolve, 1500));
      expect(await within(worker.close({ graceMs: 0 }), 5000)).toBeUndefined();
      expect(await within(starting, 1000)).toBe(false);
      // ioredis retries every few hundred ms on two connections: one line says what is wrong, not one per retry.
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(
        /^the job queue \(Redis\) is not reachable: connect ECONNREFUSED 127\.0\.0\.1:1; /,
      );
    } finally {
      await store.close();
    }
  });

  it("runQueueWorker stops on its signal while it waits for the queue (SIGTERM of `lotwise worker`)", async () => {
    const store = openSqliteStore(":memory:");
    const lines: string[] = [];
    try {
      const running = runQueueWorker({
        store,
        queueUrl: UNREACHABLE,
        prefix: "lotwise-unreachable",
        handler: async () => {},
        log: (line) => lines.push(line),
        signals: ["SIGUSR2"],
      });
      await new Promise((resolve) => setTimeout(resolve, 1000));
      process.emit("SIGUSR2", "SIGUSR2");
      const r = await within(running, 5000);
      expect(r).not.toBe("timed out");
      if (r === "timed out") return;
      expect(r.started).toBe(false);
      expect(await within(r.done, 5000)).toBeUndefined();
      expect(lines).toContain("stopped");
      expect(lines).not.toContain("worker ready: concurrency 1");
    } finally {
      await store.close();
    }
  });
});
