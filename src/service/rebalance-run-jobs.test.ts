/**
 * Rebalance runs on a job queue (service/rebalance-run-jobs.ts) without Redis: the context's queue is a recorder,
 * and the stored rebalance_run jobs are claimed and run in-process by the job runner's `runClaimedJob`, as a
 * `lotwise worker` thread does. The queued path on PostgreSQL + BullMQ is tested in test/http-scale-queue.test.ts.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openSqliteStore, type SqliteStore } from "../store/index.js";
import { buildDemo, type DemoResult } from "./demo.js";
import { createAccount, type ServiceContext } from "./index.js";
import { defaultBacktestExecutor, runClaimedJob } from "./jobs/index.js";
import type { JobQueue } from "./jobs/queue/index.js";
import { queueRebalanceRun, shardSize } from "./rebalance-run-jobs.js";
import { getRebalanceRun, runRebalance } from "./rebalance-runs.js";

const dir = mkdtempSync(join(tmpdir(), "lotwise-run-jobs-"));
let store: SqliteStore;
let ctx: ServiceContext;
let plain: ServiceContext;
let demo: DemoResult;
let org: string;
const enqueued: { id: string; kind: string }[] = [];

const recorder: JobQueue = {
  enqueue: async (id, kind) => void enqueued.push({ id, kind }),
  cancel: async () => ({ status: null, removedFromQueue: false }),
  ping: async () => {},
  close: async () => {},
};

beforeAll(async () => {
  store = openSqliteStore(join(dir, "jobs.db"));
  plain = { store, clock: () => new Date("2026-01-15T15:00:00Z") };
  ctx = { ...plain, jobQueue: recorder };
  demo = await buildDemo(plain, { securities: 60, years: 2 });
  org = demo.organization_uuid;
  for (const [name, cash] of [
    ["IRA", "40000"],
    ["Trust", "60000"],
    ["Joint", "75000"],
    ["Custodial", "20000"],
  ] as const)
    await createAccount(plain, org, demo.client_uuid, {
      name,
      cash_value_usd: cash,
      portfolio_config_uuid: demo.portfolio_config_uuid,
    });
}, 120_000);

afterAll(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Claims a stored job and runs it to its end in this process; returns the job row after. */
async function work(id: string, options: { cancel?: boolean } = {}) {
  const owner = "test/1/runner/0";
  const job = (await store.backtestJobs.claim(id, owner))!;
  expect(job.status).toBe("RUNNING");
  await runClaimedJob({
    ctx: plain,
    job,
    owner,
    executor: defaultBacktestExecutor(),
    ...(options.cancel ? { cancelSignal: () => true } : {}),
  });
  return (await store.backtestJobs.getById(id))!;
}

describe("rebalance runs on a job queue", () => {
  it("splits accounts into shards by position: every position in exactly one", () => {
    for (const total of [0, 1, 5, 8, 17])
      for (const count of [1, 2, 3, 8]) {
        let sum = 0;
        for (let index = 0; index < count; index++) sum += shardSize(total, { index, count });
        expect(sum, `${total} accounts in ${count} shards`).toBe(total);
      }
    expect(shardSize(5, { index: 1, count: 2 })).toBe(2);
    expect(shardSize(5, { index: 0, count: 2 })).toBe(3);
  });

  it("queues the run's accounts as shard jobs, and a job that failed for good is queued again by the same request; each account ends with one proposal", async () => {
    const request = { when: "always" as const };
    const queued = await queueRebalanceRun(ctx, org, request, { shards: 2 });
    expect(queued.status).toBe("running");
    expect(queued.totals).toMatchObject({ accounts: 5, pending: 5, created: 0 });
    expect(queued.queued_jobs).toBe(2);
    expect(enqueued.map((e) => e.kind)).toEqual(["rebalance_run", "rebalance_run"]);
    const jobs = await Promise.all(enqueued.map((e) => store.backtestJobs.getById(e.id)));
    const byShard = jobs.sort(
      (x, y) => (x!.params.shard as { index: number }).index - (y!.params.shard as { index: number }).index,
    );
    expect(byShard.map((j) => j!.progress?.planned_periods)).toEqual([3, 2]);
    expect(byShard.map((j) => j!.accountUuid)).toEqual([null, null]);

    // Asked again while they wait: the same run, nothing more queued.
    const again = await queueRebalanceRun(ctx, org, request, { shards: 2 });
    expect(again.run_uuid).toBe(queued.run_uuid);
    expect(again.queued_jobs).toBe(2);
    expect(enqueued).toHaveLength(2);

    // Shard 0 runs; shard 1 is cancelled before its first account (a job that ended FAILURE).
    const first = await work(byShard[0]!.id);
    expect(first.status).toBe("SUCCESS");
    expect(first.result).toEqual({ run_uuid: queued.run_uuid, shard: { index: 0, count: 2 }, processed: 3 });
    expect(first.progress?.completed_periods).toBe(3);
    const second = await work(byShard[1]!.id, { cancel: true });
    expect(second.status).toBe("FAILURE");
    expect(second.errorMessage).toBe("Cancelled on request after 0 of 2 accounts.");

    const half = await getRebalanceRun(ctx, org, queued.run_uuid);
    expect(half.status).toBe("running");
    expect(half.totals).toMatchObject({ created: 3, pending: 2 });
    expect(half.queued_jobs).toBe(0);
    // Positions 0, 2, 4 (shard 0) have their proposals; 1 and 3 are pending.
    expect(half.accounts.map((a) => a.outcome)).toEqual([
      "created",
      "pending",
      "created",
      "pending",
      "created",
    ]);

    // The same request queues the two pending accounts again, and the new jobs complete the run.
    const resumed = await queueRebalanceRun(ctx, org, request);
    expect(resumed.run_uuid).toBe(queued.run_uuid);
    expect(resumed.queued_jobs).toBe(2);
    for (const e of enqueued.slice(2)) expect((await work(e.id)).status).toBe("SUCCESS");
    const done = await getRebalanceRun(ctx, org, queued.run_uuid);
    expect(done.status).toBe("completed");
    expect(done.finished).not.toBeNull();
    expect(done.totals).toMatchObject({ accounts: 5, created: 5, pending: 0 });
    for (const a of done.accounts) expect(await store.proposals.count(org, a.account_uuid)).toBe(1);

    // A shard job run again after the run completed processes nothing and stores no proposal.
    const late = await store.backtestJobs.create(
      org,
      null,
      { run_uuid: queued.run_uuid, shard: { index: 0, count: 1 } },
      { as_of_date: done.as_of_date, shard_accounts: 5 },
      { planned_periods: 5, completed_periods: 0, last_completed_period: null, last_progress_at: null },
      { kind: "rebalance_run" },
    );
    expect((await work(late.id)).result).toMatchObject({ processed: 0 });
    for (const a of done.accounts) expect(await store.proposals.count(org, a.account_uuid)).toBe(1);

    // The same run processed in one call on a context without a queue gives the same orders (force: a new run).
    const inline = await runRebalance(plain, org, { ...request, force: true });
    expect(inline.totals.created).toBe(5);
    for (const [i, a] of inline.accounts.entries()) {
      const queuedProposal = await store.proposals.require(
        org,
        a.account_uuid,
        done.accounts[i]!.proposal_uuid!,
      );
      const inlineProposal = await store.proposals.require(org, a.account_uuid, a.proposal_uuid!);
      expect((inlineProposal.response as { orders: unknown }).orders).toEqual(
        (queuedProposal.response as { orders: unknown }).orders,
      );
    }
  }, 180_000);
});
