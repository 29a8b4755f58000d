/**
 * runClaimedJob on a store without a synchronous face (PostgreSQL): the engine's period loop is synchronous, so
 * every heartbeat it reports is started while the loop runs and only goes to the store when the loop yields.
 */
import { afterEach, describe, expect, it } from "vitest";
import { fastExecutor } from "../../../test/helpers/backtest-executors.js";
import { createJobStore, type JobStore } from "../../../test/helpers/job-store.js";
import type { BacktestProgress } from "../../contract/index.js";
import type { LotwiseStore } from "../../store/index.js";
import { runClaimedJob } from "./run-job.js";

const stores: JobStore[] = [];
afterEach(async () => {
  for (const s of stores.splice(0)) await s.close();
});

/** The job repository of `s` behind an asynchronous face whose progress writes are counted while in flight. */
function asynchronous(s: JobStore) {
  const jobs = s.store.backtestJobs;
  const seen = { inFlight: 0, most: 0, written: [] as number[] };
  const backtestJobs = new Proxy(jobs, {
    get(target, key) {
      if (key === "progress")
        return async (id: string, owner: string, progress: BacktestProgress) => {
          seen.most = Math.max(seen.most, ++seen.inFlight);
          // A round trip to a database server.
          await new Promise((resolve) => setTimeout(resolve, 5));
          seen.inFlight--;
          seen.written.push(progress.completed_periods);
          return target.progress(id, owner, progress);
        };
      const value = Reflect.get(target, key);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  // Not a SqliteStore: runClaimedJob takes the asynchronous path, as on PostgreSQL.
  const store = { backtestJobs } as unknown as LotwiseStore;
  return { store, seen };
}

describe("runClaimedJob on an asynchronous store", () => {
  it("has at most one heartbeat write in flight and writes the latest one, not one per period at once", async () => {
    const s = await createJobStore(fastExecutor, { memory: true });
    stores.push(s);
    const created = await s.start();
    const owner = "queue/test/1/abc/1";
    const job = await s.store.backtestJobs.claim(created.id, owner);
    const { store, seen } = asynchronous(s);
    const outcome = await runClaimedJob({
      ctx: { store, clock: () => new Date() },
      job: job!,
      owner,
      executor: fastExecutor,
    });
    expect(outcome.status).toBe("SUCCESS");
    // 12 periods reported inside one synchronous loop: before, 12 writes started together (a connection each, up
    // to the pool's 10); now the first, then the latest that arrived while it was in flight.
    expect(seen.most).toBe(1);
    expect(seen.written).toEqual([1, 12]);
    expect((await s.store.backtestJobs.getById(created.id))?.progress?.completed_periods).toBe(12);
  });

  it("still notices a lease taken away through a coalesced heartbeat", async () => {
    const s = await createJobStore(fastExecutor, { memory: true });
    stores.push(s);
    const created = await s.start();
    const job = await s.store.backtestJobs.claim(created.id, "queue/test/1/abc/1");
    const { store } = asynchronous(s);
    const outcome = await runClaimedJob({
      ctx: { store, clock: () => new Date() },
      job: job!,
      owner: "queue/test/1/abc/2",
      executor: fastExecutor,
    });
    expect(outcome.status).toBe("LOST");
  });
});
