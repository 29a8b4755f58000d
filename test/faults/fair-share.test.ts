/**
 * Fault injection: one organization floods the job queue. Organization A queues 24 backtests on a runner with two
 * worker threads; organization B then starts one. B's job must start as soon as a worker frees up (after at most
 * the 2 of A's jobs running when it arrived) and finish within its fair share, not after A's whole queue.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type BacktestServiceContext,
  createAccount,
  createClient,
  createOrganization,
  startBacktest,
} from "../../src/service/index.js";
import { BacktestJobRunner, type RunnerEvent } from "../../src/service/jobs/index.js";
import { executorModule, slowExecutor } from "../helpers/backtest-executors.js";
import { createJobStore, type JobStore } from "../helpers/job-store.js";

const CONCURRENCY = 2;
const FLOOD = 24;

let s: JobStore;
let runner: BacktestJobRunner;

beforeAll(async () => {
  s = await createJobStore(slowExecutor);
  runner = new BacktestJobRunner({
    store: s.store,
    concurrency: CONCURRENCY,
    executor: executorModule("slowExecutor"),
    pollIntervalMs: 20,
    log: () => {},
  });
  await runner.start();
});
afterAll(async () => {
  await runner.stop();
  await s.close();
});

describe("fault: an organization flooding the job queue", () => {
  it("runs another organization's job within its fair share while the flood waits", async () => {
    const ctx: BacktestServiceContext = { ...s.ctx, backtestRunner: runner };
    const orgB = (await createOrganization(ctx, "Org B")).organization.uuid;
    const clientB = await createClient(ctx, orgB, { external_id: "b-client" });
    const accountB = (await createAccount(ctx, orgB, clientB.uuid, { name: "B", cash_value_usd: "1000" }))
      .uuid;

    const events: { type: RunnerEvent["type"]; jobId: string }[] = [];
    runner.onEvent((e) => {
      if (e.type === "started" || e.type === "finished") events.push({ type: e.type, jobId: e.jobId });
    });
    // A: 24 jobs of 12 periods each (15 ms a period).
    const flood: string[] = [];
    for (let i = 0; i < FLOOD; i++)
      flood.push((await startBacktest(ctx, s.org, s.clientUuid, s.accountUuid, {})).id);
    const fromA = new Set(flood);
    // B arrives while both workers are busy with A's jobs.
    const end = Date.now() + 20_000;
    while (runner.runningJobs.length < CONCURRENCY) {
      if (Date.now() > end) throw new Error("the runner never got busy");
      await new Promise((r) => setTimeout(r, 5));
    }
    const b = await startBacktest(ctx, orgB, clientB.uuid, accountB, {});
    const doneB = await runner.wait(b.id);
    expect(doneB.status).toBe("SUCCESS");

    const at = (type: RunnerEvent["type"], id: string) =>
      events.findIndex((e) => e.type === type && e.jobId === id);
    const ofABefore = (type: RunnerEvent["type"], index: number) =>
      events.slice(0, index).filter((e) => e.type === type && fromA.has(e.jobId)).length;
    const finishedABefore = (index: number) => ofABefore("finished", index);
    // B started when a worker freed: at most the CONCURRENCY jobs of A that were running had finished.
    expect(finishedABefore(at("started", b.id))).toBeLessThanOrEqual(CONCURRENCY);
    // And it was done while most of A's queue still waited (FIFO would have run all 24 first).
    expect(finishedABefore(at("finished", b.id))).toBeLessThanOrEqual(2 * CONCURRENCY);
    expect(ofABefore("started", at("finished", b.id))).toBeLessThanOrEqual(3 * CONCURRENCY);

    // The flood itself is not starved either: every job of A still finishes.
    const doneA = await Promise.all(flood.map((id) => runner.wait(id)));
    expect(doneA.every((j) => j.status === "SUCCESS")).toBe(true);
  });
});
