import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { main } from "../cli/main.js";
import { memoryOutput } from "../cli/output.js";
import { type PortfolioConfigWrite, rebalanceRunSchema } from "../contract/index.js";
import { ValidationError } from "../core/errors.js";
import { createApp, serve } from "../server/index.js";
import { openSqliteStore, type SqliteStore } from "../store/index.js";
import { buildDemo, type DemoResult } from "./demo.js";
import { accountDrift } from "./drift.js";
import { createAccount, createClient, type ServiceContext, updateClient } from "./index.js";
import { getProposal } from "./proposals.js";
import { getRebalanceRun, listRebalanceRuns, rebalanceRunKey, runRebalance } from "./rebalance-runs.js";

/**
 * A small demo store (60 synthetic securities, 2 years): the demo account A (13 positions against SYNTH500, drift
 * thresholds 2% / 5% / 1% per asset: a breach), then, with A's lots:
 * - F, "broken": its customization asks for the `custom` risk model, and the organization uploaded none;
 * - B, thresholds at 100%: its drift is ok;
 * and C, a second client's account holding only cash.
 */
const dir = mkdtempSync(join(tmpdir(), "lotwise-rebalance-runs-"));
const file = join(dir, "runs.db");
let store: SqliteStore;
let ctx: ServiceContext;
let demo: DemoResult;
let org: string;
let a: string;
let b: string;
let f: string;
let c: string;
let otherClient: string;

const proposals = (account: string) => store.proposals.count(org, account);

beforeAll(async () => {
  store = openSqliteStore(file);
  ctx = { store, clock: () => new Date("2026-01-15T15:00:00Z") };
  demo = await buildDemo(ctx, { securities: 60, years: 2 });
  org = demo.organization_uuid;
  a = demo.account_uuid;
  const lots = (await store.accounts.lots(a)).map((l) => ({
    theme_asset_id: l.themeAssetId,
    quantity: l.quantity,
    cost_basis: l.costBasis,
    trade_date: l.tradeDate,
    cost_basis_unit: l.costBasisUnit,
    cost_basis_currency: l.costBasisCurrency as "USD" | "CAD",
    fx_rate: l.fxRate,
  }));
  const like = async (name: string, customization: PortfolioConfigWrite) => {
    const uuid = (
      await createAccount(ctx, org, demo.client_uuid, {
        name,
        cash_value_usd: "25000",
        portfolio_config_uuid: demo.portfolio_config_uuid,
        holdings: { tax_lots: lots },
      })
    ).uuid;
    await updateClient(ctx, org, demo.client_uuid, {
      account_uuid: uuid,
      customization_config: customization,
    });
    return uuid;
  };
  f = await like("Broken", { risk_model_name: "custom" });
  b = await like("Calm", {
    drift_warning_threshold: "1",
    drift_breach_threshold: "1",
    asset_drift_breach_threshold: "1",
  });
  otherClient = (await createClient(ctx, org, { external_id: "cash-only" })).uuid;
  c = (
    await createAccount(ctx, org, otherClient, {
      name: "Cash",
      cash_value_usd: "10000",
      portfolio_config_uuid: demo.portfolio_config_uuid,
    })
  ).uuid;
}, 120_000);
afterAll(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("runRebalance", () => {
  let first: Awaited<ReturnType<typeof runRebalance>>;

  it("records created, skipped (why) and failed (the error) per account; the broken account does not stop the run", async () => {
    expect((await accountDrift(ctx, org, a)).status).toBe("breach");
    const calm = await accountDrift(ctx, org, b);
    expect(calm.status).toBe("ok");
    const progress: string[] = [];
    first = await runRebalance(
      ctx,
      org,
      { when: "breached", client_uuid: demo.client_uuid },
      { onProgress: (p) => progress.push(`${p.completed}/${p.total} ${p.outcome}`) },
    );
    expect(rebalanceRunSchema.parse(first)).toEqual(first);
    expect(first.status).toBe("completed");
    expect(first.finished).not.toBeNull();
    expect(first.run_key).toBe(`2025-12-31|breached|client:${demo.client_uuid}`);
    expect(first.totals).toEqual({ accounts: 3, created: 1, skipped: 1, failed: 1, pending: 0 });
    // Each outcome names its account, so that a desk reads names, not uuids.
    expect(first.accounts.map((x) => x.account_name)).toEqual([
      "Joint taxable",
      "Broken",
      expect.any(String),
    ]);
    // Processing order is creation order: A, then F (broken), then B, which still ran.
    expect(first.accounts.map((x) => [x.account_uuid, x.outcome])).toEqual([
      [a, "created"],
      [f, "failed"],
      [b, "skipped"],
    ]);
    expect(progress).toEqual(["1/3 created", "2/3 failed", "3/3 skipped"]);
    const [created, failed, skipped] = first.accounts;
    const stored = await getProposal(ctx, org, demo.client_uuid, a, created!.proposal_uuid!);
    expect(stored.proposal_uuid).toBe(created!.proposal_uuid);
    expect(stored.orders.length).toBeGreaterThan(0);
    expect(failed!.proposal_uuid).toBeNull();
    expect(failed!.error?.code).toBe("risk_model_inputs_missing");
    expect(failed!.error?.message).toMatch(/custom/);
    expect(skipped!.reason).toBe(`drift ok (total drift ${(Number(calm.total_drift) * 100).toFixed(2)}%)`);
    expect(await proposals(a)).toBe(1);
    expect(await proposals(f)).toBe(0);
    expect(await proposals(b)).toBe(0);
  }, 60_000);

  it("creates nothing when the same run is asked again: it reports the stored run", async () => {
    const again = await runRebalance(ctx, org, { when: "breached", client_uuid: demo.client_uuid });
    expect(again).toEqual(first);
    expect(await getRebalanceRun(ctx, org, first.run_uuid)).toEqual(first);
    expect(await proposals(a)).toBe(1);
  });

  it("skips an account that got a proposal on the date in another run, naming that run", async () => {
    const other = await runRebalance(ctx, org, { when: "always", account_uuids: [a] });
    expect(other.run_uuid).not.toBe(first.run_uuid);
    expect(other.accounts).toEqual([
      {
        account_uuid: a,
        account_name: "Joint taxable",
        outcome: "skipped",
        proposal_uuid: null,
        reason: `already in run ${first.run_uuid} (proposal ${first.accounts[0]!.proposal_uuid})`,
        error: null,
      },
    ]);
    expect(await proposals(a)).toBe(1);
  });

  it("with force, starts a new run of the same key that creates new proposals", async () => {
    const forced = await runRebalance(ctx, org, {
      when: "breached",
      client_uuid: demo.client_uuid,
      force: true,
    });
    expect(forced.run_uuid).not.toBe(first.run_uuid);
    expect(forced.run_key).toBe(first.run_key);
    expect(forced.forced).toBe(true);
    expect(forced.accounts.map((x) => x.outcome)).toEqual(["created", "failed", "skipped"]);
    expect(forced.accounts[0]!.proposal_uuid).not.toBe(first.accounts[0]!.proposal_uuid);
    expect(await proposals(a)).toBe(2);
    // The newest run of the key is the one a repeated request now reports.
    expect((await runRebalance(ctx, org, { when: "breached", client_uuid: demo.client_uuid })).run_uuid).toBe(
      forced.run_uuid,
    );
    expect(await proposals(a)).toBe(2);
    expect((await listRebalanceRuns(ctx, org)).map((r) => r.run_uuid)[0]).toBe(forced.run_uuid);
  });

  it("skips accounts without a harvestable loss under when=harvest", async () => {
    const run = await runRebalance(ctx, org, { when: "harvest", client_uuid: otherClient });
    expect(run.accounts).toEqual([
      {
        account_uuid: c,
        account_name: "Cash",
        outcome: "skipped",
        proposal_uuid: null,
        reason: "no harvestable loss",
        error: null,
      },
    ]);
  });

  it("resumes an interrupted run with only the accounts that have no outcome", async () => {
    // Forced (A already got proposals on the date); the repeated request, without force, continues the newest run.
    const request = { when: "always" as const, account_uuids: [a, b, c] };
    const before = [await proposals(a), await proposals(b)];
    await expect(
      (() =>
        runRebalance(
          ctx,
          org,
          { ...request, force: true },
          {
            onProgress: (p) => {
              if (p.completed === 1) throw new Error("interrupted");
            },
          },
        ))(),
    ).rejects.toThrow("interrupted");
    const [runUuid] = (await listRebalanceRuns(ctx, org)).map((r) => r.run_uuid);
    const half = await getRebalanceRun(ctx, org, runUuid!);
    expect(half.status).toBe("running");
    expect(half.finished).toBeNull();
    expect(half.totals).toEqual({ accounts: 3, created: 1, skipped: 0, failed: 0, pending: 2 });
    expect(half.accounts.map((x) => x.outcome)).toEqual(["created", "pending", "pending"]);

    const progress: number[] = [];
    const done = await runRebalance(ctx, org, request, { onProgress: (p) => progress.push(p.completed) });
    expect(done.run_uuid).toBe(runUuid);
    expect(progress).toEqual([2, 3]);
    expect(done.status).toBe("completed");
    expect(done.accounts[0]).toEqual(half.accounts[0]);
    expect(done.accounts.map((x) => x.outcome)).toEqual(["created", "created", "created"]);
    // One proposal per account, the first one's from before the interruption.
    expect([await proposals(a), await proposals(b), await proposals(c)]).toEqual([
      before[0]! + 1,
      before[1]! + 1,
      1,
    ]);
  }, 60_000);

  it("keys a list of accounts by its set, and refuses unknown accounts naming them", async () => {
    const sel = (ids: string[]) => ({
      kind: "accounts" as const,
      client_uuid: null,
      portfolio_config_uuid: null,
      account_uuids: ids,
    });
    expect(rebalanceRunKey("2025-12-31", "always", sel([a, b]))).toBe(
      rebalanceRunKey("2025-12-31", "always", sel([b, a])),
    );
    expect(rebalanceRunKey("2025-12-31", "always", sel([a, b]))).toMatch(
      /^2025-12-31\|always\|accounts:2:[0-9a-f]{32}$/,
    );
    const unknown = "00000000-0000-4000-8000-000000000000";
    let error: unknown;
    try {
      await runRebalance(ctx, org, { account_uuids: [a, unknown] });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).issues).toEqual([
      { path: "account_uuids", message: `account ${unknown} not found` },
    ]);
  });
});

describe("rebalance runs over HTTP and the CLI", () => {
  const runAlways = ["node", "lotwise", "rebalance", "--all", "--when", "always", "--accounts"];
  it("answers the same through HTTP, the local CLI and the remote CLI", async () => {
    const app = createApp({ ctx, requestWorkers: 0 });
    const headers = { "X-Api-Key": demo.api_key, "content-type": "application/json" };
    const base = `/api/v1/custom/org/${org}/rebalance_runs/`;
    const bad = await app.request(base, {
      method: "POST",
      headers,
      body: JSON.stringify({ when: "sometimes" }),
    });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(await bad.json())).toMatch(/when/);
    const both = await app.request(base, {
      method: "POST",
      headers,
      body: JSON.stringify({ client_uuid: otherClient, account_uuids: [c] }),
    });
    expect(both.status).toBe(400);

    // A request that processes fewer accounts than the run has leaves it running; the same request continues it.
    const chunk = { when: "always", account_uuids: [f, c], max_accounts: 1 };
    const part = await app.request(base, { method: "POST", headers, body: JSON.stringify(chunk) });
    const partRun = rebalanceRunSchema.parse(await part.json());
    expect([partRun.status, partRun.totals.failed, partRun.totals.pending]).toEqual(["running", 1, 1]);
    const rest = await app.request(base, { method: "POST", headers, body: JSON.stringify(chunk) });
    const restRun = rebalanceRunSchema.parse(await rest.json());
    expect(restRun.run_uuid).toBe(partRun.run_uuid);
    expect([restRun.status, restRun.totals.pending]).toEqual(["completed", 0]);
    expect(restRun.accounts[1]!.reason).toMatch(/^already in run /);

    // The remote CLI runs a new run in chunks over a listening server...
    const handle = await serve({ ctx, port: 0, log: () => {}, requestWorkers: 0 });
    const remote = memoryOutput(true);
    try {
      const code = await main(
        [...runAlways, `${b},${c}`, "--force", "--url", handle.url, "--api-key", demo.api_key, "--json"],
        { output: () => remote },
      );
      expect(code, remote.stderr.join("\n")).toBe(0);
    } finally {
      await handle.close();
    }
    const run = rebalanceRunSchema.parse(JSON.parse(remote.stdout.join("\n")));
    expect(run.totals).toEqual({ accounts: 2, created: 2, skipped: 0, failed: 0, pending: 0 });
    expect(run.as_of_date).toBe("2025-12-31");
    expect(run.forced).toBe(true);

    // ...and the local CLI, asked the same, reports that very run (nothing created twice), as HTTP does.
    const local = memoryOutput(true);
    const localCode = await main([...runAlways, `${c},${b}`, "--store", file, "--org", org, "--json"], {
      output: () => local,
    });
    expect(localCode, local.stderr.join("\n")).toBe(0);
    expect(local.stdout).toEqual(remote.stdout);
    const got = await app.request(`${base}${run.run_uuid}/`, { headers });
    expect(await got.json()).toEqual(run);
    const listed = await app.request(`${base}?as_of_date=2025-12-31`, { headers });
    const runs = (await listed.json()) as { run_uuid: string }[];
    expect(runs[0]!.run_uuid).toBe(run.run_uuid);
    expect(runs).toHaveLength((await listRebalanceRuns(ctx, org)).length);

    const shown = memoryOutput(false);
    expect(
      await main(
        ["node", "lotwise", "rebalance", "runs", "show", run.run_uuid, "--store", file, "--org", org],
        { output: () => shown },
      ),
    ).toBe(0);
    const text = shown.stdout.join("\n");
    expect(text).toContain("2: 2 created, 0 skipped, 0 failed");
    expect(text).toContain(run.accounts[0]!.proposal_uuid!);

    // --concurrency 2: two worker threads on the shards of one run, the same outcomes, one proposal per account.
    const counts = await Promise.all([a, b, c].map(proposals));
    const threaded = memoryOutput(true);
    const threadedCode = await main(
      [
        ...runAlways,
        `${a},${f},${b},${c}`,
        "--force",
        "--concurrency",
        "2",
        "--store",
        file,
        "--org",
        org,
        "--json",
      ],
      { output: () => threaded },
    );
    expect(threadedCode).toBe(1); // F failed
    const parallel = rebalanceRunSchema.parse(JSON.parse(threaded.stdout.join("\n")));
    expect(parallel.status).toBe("completed");
    expect(parallel.accounts.map((x) => x.outcome)).toEqual(["created", "failed", "created", "created"]);
    expect(parallel.accounts[1]!.error?.code).toBe("risk_model_inputs_missing");
    expect(await Promise.all([a, b, c].map(proposals))).toEqual(counts.map((n) => n + 1));

    // A run with a failed account exits 1, after printing the summary.
    const failing = memoryOutput(false);
    const failCode = await main(
      [
        "node",
        "lotwise",
        "rebalance",
        "--all",
        "--when",
        "always",
        "--accounts",
        f,
        "--store",
        file,
        "--org",
        org,
      ],
      { output: () => failing },
    );
    expect(failCode).toBe(1);
    expect(failing.stdout.join("\n")).toContain("risk_model_inputs_missing");
  }, 120_000);
});
