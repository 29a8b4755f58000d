/**
 * The additions of the job runner to the backtest-job repository: claiming one given job, a liveness predicate
 * for lease owners in orphan recovery, and fair claiming across organizations (with a per-organization limit).
 */
import { describe, expect, it } from "vitest";
import { openSqliteFile } from "../store.js";

function setup() {
  const store = openSqliteFile(":memory:");
  const org = store.organizations.create("Org").uuid;
  const client = store.clients.create(org, {});
  const account = store.accounts.create(org, client.uuid, { cashValueUsd: "0" });
  const progress = {
    planned_periods: 0,
    completed_periods: 0,
    last_completed_period: null,
    last_progress_at: null,
  };
  const create = () => store.backtestJobs.create(org, account.uuid, {}, {}, progress);
  return { store, org, create };
}

describe("backtest job repository", () => {
  it("claims one given PENDING job, and nothing that is running, finished or cancelled", () => {
    const { store, org, create } = setup();
    const a = create();
    const b = create();
    const claimed = store.backtestJobs.claim(b.id, "owner-1")!;
    expect(claimed).toMatchObject({ id: b.id, status: "RUNNING", leaseOwner: "owner-1", attempts: 1 });
    expect(claimed.startedAt).toBe(claimed.heartbeatAt);
    // Already running: a second claim gets nothing.
    expect(store.backtestJobs.claim(b.id, "owner-2")).toBeUndefined();
    // The other job is untouched and still first in line for claimNext.
    expect(store.backtestJobs.getById(a.id)!.status).toBe("PENDING");
    store.backtestJobs.requestCancel(org, a.id);
    expect(store.backtestJobs.claim(a.id, "owner-2")).toBeUndefined();
    expect(store.backtestJobs.claim("00000000-0000-4000-8000-000000000000", "owner-2")).toBeUndefined();
    store.close();
  });

  it("keeps jobs of owners the predicate calls live, and recovers the others", () => {
    const { store, create } = setup();
    const a = create();
    const b = create();
    store.backtestJobs.claim(a.id, "alive");
    store.backtestJobs.claim(b.id, "dead");
    const asked: string[] = [];
    const r = store.backtestJobs.recoverOrphans({
      liveOwners: [],
      staleBefore: "2000-01-01T00:00:00.000Z",
      maxAttempts: 3,
      isLiveOwner: (owner) => {
        asked.push(owner);
        return owner === "alive";
      },
    });
    expect(r).toEqual({ requeued: [b.id], failed: [] });
    expect(asked.sort()).toEqual(["alive", "dead"]);
    expect(store.backtestJobs.getById(a.id)!.status).toBe("RUNNING");
    // A live owner whose heartbeat is stale is recovered all the same.
    const r2 = store.backtestJobs.recoverOrphans({
      liveOwners: [],
      staleBefore: "9999-01-01T00:00:00.000Z",
      maxAttempts: 3,
      isLiveOwner: () => true,
    });
    expect(r2).toEqual({ requeued: [a.id], failed: [] });
    store.close();
  });

  it("claims the next job from the organization with the fewest running jobs, ties to the one waiting longest", () => {
    const { store, jobOf } = threeOrgs();
    const a = [jobOf("A"), jobOf("A"), jobOf("A")];
    const b = jobOf("B");
    const c = jobOf("C");
    const order = Array.from({ length: 5 }, () => store.backtestJobs.claimNext("w")?.id);
    // A first (everyone has 0 running, A waited longest), then B and C (0 running each), then A's others.
    expect(order).toEqual([a[0]!.id, b.id, c.id, a[1]!.id, a[2]!.id]);
    expect(store.backtestJobs.claimNext("w")).toBeUndefined();
    store.close();
  });

  it("leaves an organization's jobs waiting while it has maxRunningPerOrganization running", () => {
    const { store, jobOf } = threeOrgs();
    const a1 = jobOf("A");
    const a2 = jobOf("A");
    const b1 = jobOf("B");
    const limit = { maxRunningPerOrganization: 1 };
    expect(store.backtestJobs.claimNext("w", limit)?.id).toBe(a1.id);
    expect(store.backtestJobs.claimNext("w", limit)?.id).toBe(b1.id);
    // A is at its limit and B has nothing waiting.
    expect(store.backtestJobs.claimNext("w", limit)).toBeUndefined();
    expect(store.backtestJobs.getById(a2.id)!.status).toBe("PENDING");
    store.backtestJobs.fail(a1.id, "done");
    expect(store.backtestJobs.claimNext("w", limit)?.id).toBe(a2.id);
    store.close();
  });
});

/** Three organizations with an account each, on a clock that ticks 1 ms per read (creation order is strict). */
function threeOrgs() {
  let t = Date.parse("2026-01-01T00:00:00.000Z");
  const store = openSqliteFile(":memory:", { now: () => new Date(t++).toISOString() });
  const progress = {
    planned_periods: 0,
    completed_periods: 0,
    last_completed_period: null,
    last_progress_at: null,
  };
  const accounts = new Map<string, { org: string; account: string }>();
  for (const name of ["A", "B", "C"]) {
    const org = store.organizations.create(name).uuid;
    const client = store.clients.create(org, {});
    accounts.set(name, { org, account: store.accounts.create(org, client.uuid, { cashValueUsd: "0" }).uuid });
  }
  const jobOf = (name: string) => {
    const { org, account } = accounts.get(name)!;
    return store.backtestJobs.create(org, account, {}, {}, progress);
  };
  return { store, jobOf };
}
