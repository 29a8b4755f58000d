import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTwoSleeveConfig, writeHandMarket } from "../../test/helpers/hand-market.js";
import { listing } from "../../test/helpers/listing.js";
import { main } from "../cli/main.js";
import { memoryOutput } from "../cli/output.js";
import { RemoteBackend } from "../client/index.js";
import {
  SCAN_PAGE_MAX,
  type ScanJob,
  type ScanRow,
  scanJobSchema,
  scanResultSchema,
} from "../contract/index.js";
import { createApp, serve } from "../server/index.js";
import { openSqliteStore, type SqliteStore } from "../store/index.js";
import type { BacktestServiceContext } from "./backtest-jobs.js";
import { accountDrift } from "./drift.js";
import { evaluateAccountRules } from "./evaluation.js";
import { harvestScan } from "./harvest.js";
import { createAccount, createClient, createOrganization, type ServiceContext } from "./index.js";
import { BacktestJobRunner, defaultBacktestExecutor, runClaimedJob } from "./jobs/index.js";
import { updatePortfolioConfig } from "./portfolio-configs.js";
import { scanAccounts } from "./scan.js";
import { cancelScanJob, getScanJob, startScanJob } from "./scan-jobs.js";
import { scanAccountsParallel } from "./scan-parallel.js";

/**
 * Five accounts on the hand market (closes of 2025-06-30: AAA 110, BBB 40, CCC 25, DDD 24 USD), in creation order:
 * - A1 (client A, config "Two sleeves"): the drift test's account — NAV 9,000, cash 1,000, total drift 0.18333
 *   (warning); BBB 60 @ 55 bought 2025-01-02 is a short-term loss of 900 (tax value 900 x 0.37 = 333).
 * - A2 (client A, no config): CCC 100 @ 20 and 5,000 cash — no target (drift fails), no loss, no buffer.
 * - B1 (client B, config): nothing at all — drift fails (empty account).
 * - B2 (client B, no config): ZZZ, which has no price — the account cannot be valued.
 * - B3 (client B, config): close to the target — ok.
 * The configuration reserves cash_buffer_usd_amount 400.
 */
const dir = mkdtempSync(join(tmpdir(), "lotwise-scan-"));
const file = join(dir, "scan.db");
let store: SqliteStore;
let ctx: ServiceContext;
let org: string;
let key: string;
let configUuid: string;
let clientA: string;
let clientB: string;
const ids: Record<"A1" | "A2" | "B1" | "B2" | "B3", string> = { A1: "", A2: "", B1: "", B2: "", B3: "" };

const lot = (theme_asset_id: string, quantity: string, cost_basis: string, trade_date: string) => ({
  theme_asset_id,
  quantity,
  cost_basis,
  trade_date,
});

beforeAll(async () => {
  store = openSqliteStore(file);
  writeHandMarket(store.engine);
  await store.market.upsertSecurities([listing("ZZZ:XNYS", { sector: 45 })]);
  ctx = { store, clock: () => new Date("2025-07-01T12:00:00Z") };
  const made = await createOrganization(ctx, "Scan test");
  org = made.organization.uuid;
  key = made.apiKey.key;
  configUuid = await createTwoSleeveConfig(ctx, org, { cash_buffer_usd_amount: "400" });
  clientA = (await createClient(ctx, org, { external_id: "A" })).uuid;
  clientB = (await createClient(ctx, org, { external_id: "B" })).uuid;
  const cad = { cost_basis_currency: "CAD" as const, fx_rate: "1.25" };
  ids.A1 = (
    await createAccount(ctx, org, clientA, {
      name: "A1",
      cash_value_usd: "1000",
      portfolio_config_uuid: configUuid,
      holdings: {
        tax_lots: [
          lot("AAA:XNYS", "40", "90", "2024-01-02"),
          lot("BBB:XNYS", "60", "55", "2025-01-02"),
          { ...lot("DDD:XTSE", "50", "28", "2024-06-03"), ...cad },
        ],
      },
    })
  ).uuid;
  ids.A2 = (
    await createAccount(ctx, org, clientA, {
      name: "A2",
      cash_value_usd: "5000",
      holdings: { tax_lots: [lot("CCC:XNYS", "100", "20", "2025-06-02")] },
    })
  ).uuid;
  ids.B1 = (await createAccount(ctx, org, clientB, { name: "B1", portfolio_config_uuid: configUuid })).uuid;
  ids.B2 = (
    await createAccount(ctx, org, clientB, {
      name: "B2",
      holdings: { tax_lots: [lot("ZZZ:XNYS", "10", "10", "2025-06-02")] },
    })
  ).uuid;
  ids.B3 = (
    await createAccount(ctx, org, clientB, {
      name: "B3",
      cash_value_usd: "0",
      portfolio_config_uuid: configUuid,
      holdings: {
        tax_lots: [
          lot("AAA:XNYS", "40", "100", "2025-06-02"),
          lot("BBB:XNYS", "70", "40", "2025-06-30"),
          lot("CCC:XNYS", "70", "25", "2025-06-30"),
          { ...lot("DDD:XTSE", "40", "30", "2025-06-30"), ...cad },
        ],
      },
    })
  ).uuid;
});
afterAll(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const names = (rows: readonly ScanRow[]) => rows.map((r) => r.account_name);
/** The named accounts in the order the store lists the organization's accounts (created, then uuid). */
const inOrder = async (...wanted: (keyof typeof ids)[]) =>
  (await store.accounts.listByOrganization(org))
    .map((a) => a.name as keyof typeof ids)
    .filter((name) => wanted.includes(name));
const row = (rows: readonly ScanRow[], name: string) => rows.find((r) => r.account_name === name)!;

describe("the morning scan", () => {
  it("gives each account the drift, harvest totals and NAV of the single-account operations, and cash to invest", async () => {
    const scan = await scanAccounts(ctx, org);
    expect(scanResultSchema.parse(scan)).toEqual(scan);
    expect(scan.as_of_date).toBe("2025-06-30");
    expect(names(scan.rows)).toEqual(await inOrder("A1", "A2", "B1", "B2", "B3"));
    const a1 = row(scan.rows, "A1");
    // Hand figures (see the file doc): cash to invest = 1,000 - the 400 buffer.
    expect(a1).toEqual({
      account_uuid: ids.A1,
      client_uuid: clientA,
      account_name: "A1",
      portfolio_config_uuid: configUuid,
      nav_usd: "9000",
      cash_usd: "1000",
      cash_to_invest_usd: "600",
      drift_status: "warning",
      total_drift: "0.1833333333",
      max_asset_drift: "0.18",
      target: "blend of HAND3, DDD:XTSE",
      harvestable_lots: 1,
      harvestable_loss_usd: "900",
      estimated_tax_value_usd: "333",
      errors: [],
      rules_fired: [],
    });
    // Every row without errors equals what accountDrift and harvestScan answer for that account alone.
    for (const row of scan.rows.filter((r) => r.errors.length === 0)) {
      const drift = await accountDrift(ctx, org, row.account_uuid);
      const harvest = await harvestScan(ctx, org, row.account_uuid);
      expect(row.drift_status).toBe(drift.status);
      expect(row.total_drift).toBe(drift.total_drift);
      expect(row.max_asset_drift).toBe(drift.max_asset_drift);
      expect(row.target).toBe(drift.target);
      expect(row.nav_usd).toBe(drift.nav_usd);
      expect(row.harvestable_lots).toBe(harvest.totals.harvestable_lots);
      expect(row.harvestable_loss_usd).toBe(harvest.totals.harvestable_loss_usd);
      expect(row.estimated_tax_value_usd).toBe(harvest.totals.estimated_tax_value_usd);
    }
    expect(row(scan.rows, "B3").drift_status).toBe("ok");
    // B3: 4,400 + 2,800 + 1,750 + 40 x 30 / 1.25 = 9,910, no cash: nothing to invest (below the buffer).
    expect(row(scan.rows, "B3")).toMatchObject({
      nav_usd: "9910",
      cash_to_invest_usd: "0",
      harvestable_lots: 0,
    });
    expect(scan.summary).toEqual({
      accounts: 5,
      ok: 1,
      warning: 1,
      breach: 0,
      with_errors: 3,
      with_harvest: 1,
      with_cash_to_invest: 2,
      nav_usd: "26410", // 9,000 + 7,500 + 0 + 9,910 (B2 has no NAV)
      harvestable_loss_usd: "900",
      estimated_tax_value_usd: "333",
      cash_to_invest_usd: "5600",
    });
  });

  it("lists the evaluation rules that fire for each account, as the evaluation extension does", async () => {
    const rules = [
      { value: "rebalance", condition: "drift_status = 'warning'", priority: 3 },
      { value: "harvest", condition: "harvest_value_usd > 100", priority: 1 },
      { value: "invest cash", condition: "cash_weight > 0.5", priority: 2 },
    ];
    await updatePortfolioConfig(ctx, org, configUuid, { evaluation_rules: [{ enabled: true, rules }] });
    try {
      const rows = (await scanAccounts(ctx, org)).rows;
      // A1: warning, tax value 333, cash 1,000 of 9,000: rebalance (3) then harvest (1).
      expect(row(rows, "A1").rules_fired).toEqual([
        { rule: "evaluation_rules[0].rules[0]", value: "rebalance", priority: 3 },
        { rule: "evaluation_rules[0].rules[1]", value: "harvest", priority: 1 },
      ]);
      // B3: ok, nothing harvestable, no cash: nothing fires.
      expect(row(rows, "B3").rules_fired).toEqual([]);
      // B2 cannot be valued: no facts, no rules.
      expect(row(rows, "B2").rules_fired).toBeNull();
      for (const r of rows.filter((x) => x.account_name !== "B2" && x.portfolio_config_uuid === configUuid)) {
        const e = await evaluateAccountRules(ctx, org, r.account_uuid);
        expect(r.rules_fired, r.account_name ?? "").toEqual(
          e.fired.map((f) => ({
            rule: `evaluation_rules[${f.index}].rules[${f.rule_index}]`,
            value: f.value,
            priority: f.priority,
          })),
        );
      }
    } finally {
      await updatePortfolioConfig(ctx, org, configUuid, { evaluation_rules: [] });
    }
  });

  it("keeps going past accounts that fail, each row saying which part failed and why", async () => {
    const rows = (await scanAccounts(ctx, org)).rows;
    const [a2, b1, b2] = [row(rows, "A2"), row(rows, "B1"), row(rows, "B2")];
    // A2: no configuration, no index stored under a fallback name: no target. The rest is computed.
    expect(a2.errors.map((e) => [e.part, e.code])).toEqual([["drift", "no_target"]]);
    expect(a2.errors[0]!.message).toMatch(/has no target on 2025-06-30/);
    expect(a2).toMatchObject({
      drift_status: null,
      total_drift: null,
      nav_usd: "7500",
      cash_to_invest_usd: "5000",
      harvestable_lots: 0,
      harvestable_loss_usd: "0",
    });
    expect(b1.errors.map((e) => [e.part, e.code])).toEqual([["drift", "empty_account"]]);
    expect(b1).toMatchObject({ nav_usd: "0", cash_to_invest_usd: "0", harvestable_lots: 0 });
    // B2 holds a listing without a price: nothing can be valued, every figure is null.
    expect(b2.errors.map((e) => [e.part, e.code])).toEqual([["account", "missing_price"]]);
    expect(b2.errors[0]!.message).toMatch(/ZZZ:XNYS/);
    expect(b2).toMatchObject({
      nav_usd: null,
      drift_status: null,
      harvestable_lots: null,
      cash_to_invest_usd: null,
    });
  });

  it("scans the selected accounts only: a client, a configuration, a list, a status", async () => {
    expect(names((await scanAccounts(ctx, org, { client_uuid: clientB })).rows)).toEqual(
      await inOrder("B1", "B2", "B3"),
    );
    expect(names((await scanAccounts(ctx, org, { portfolio_config_uuid: configUuid })).rows)).toEqual(
      await inOrder("A1", "B1", "B3"),
    );
    // Oldest first whatever the order of the list.
    expect(names((await scanAccounts(ctx, org, { accounts: [ids.B3, ids.A1] })).rows)).toEqual(
      await inOrder("A1", "B3"),
    );
    // The status filter keeps the rows whose status could not be computed.
    const warned = await scanAccounts(ctx, org, { status: ["warning", "breach"] });
    expect(names(warned.rows)).toEqual(await inOrder("A1", "A2", "B1", "B2"));
    expect(warned.selected_accounts).toBe(5);
    expect(names((await scanAccounts(ctx, org, { client_uuid: clientB, status: ["ok"] })).rows)).toEqual(
      await inOrder("B1", "B2", "B3"),
    );
    const unknown = "00000000-0000-4000-8000-000000000001";
    await expect((() => scanAccounts(ctx, org, { accounts: [ids.A1, unknown] }))()).rejects.toThrow(
      `Account not found: ${unknown}.`,
    );
    const other = (await createOrganization(ctx, "Other scan org")).organization.uuid;
    await expect((() => scanAccounts(ctx, other, { client_uuid: clientA }))()).rejects.toThrow(/not found/);
    expect((await scanAccounts(ctx, other)).rows).toEqual([]);
  });

  it("scans a page of the selection with offset and limit", async () => {
    const first = await scanAccounts(ctx, org, {}, { limit: 2 });
    const all = await inOrder("A1", "A2", "B1", "B2", "B3");
    expect(names(first.rows)).toEqual(all.slice(0, 2));
    expect(first).toMatchObject({ selected_accounts: 5, offset: 0, next_offset: 2 });
    const last = await scanAccounts(ctx, org, {}, { offset: 4, limit: 2 });
    expect(names(last.rows)).toEqual(all.slice(4));
    expect(last).toMatchObject({ offset: 4, next_offset: null });
    const progress: [number, number][] = [];
    await scanAccounts(ctx, org, {}, { offset: 1, limit: 3, onProgress: (d, t) => progress.push([d, t]) });
    expect(progress).toEqual([
      [1, 3],
      [2, 3],
      [3, 3],
    ]);
  });

  it("gives the same rows on worker threads as on one thread", async () => {
    const progress: number[] = [];
    const parallel = await scanAccountsParallel(
      ctx,
      org,
      { status: ["warning", "ok"] },
      { concurrency: 2, minAccountsPerThread: 1, onProgress: (done) => progress.push(done) },
    );
    expect(parallel).toEqual(await scanAccounts(ctx, org, { status: ["warning", "ok"] }));
    expect(progress.at(-1)).toBe(5);
  });

  it("answers the library's rows over HTTP, one page per request", async () => {
    const app = createApp({ ctx, requestWorkers: 0 });
    const path = `/api/v1/custom/org/${org}/scans/`;
    const post = (body: unknown, apiKey = key) =>
      app.request(path, {
        method: "POST",
        headers: { "X-Api-Key": apiKey, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    const res = await post({ client_uuid: clientB });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual(await scanAccounts(ctx, org, { client_uuid: clientB }, { limit: 2000 }));
    const page = await post({ limit: 2, offset: 2, min_loss_fraction: "0.3" });
    expect(await page.json()).toEqual(
      await scanAccounts(ctx, org, {}, { offset: 2, limit: 2, minLossFraction: "0.3" }),
    );
    const bad = await post({ status: ["red"] });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(await bad.json())).toMatch(/status/);
    const otherKey = (await createOrganization(ctx, "Third scan org")).apiKey.key;
    expect((await post({ client_uuid: clientA }, otherKey)).status).toBe(404);
  });

  it("reads a selection larger than one page remotely as a job run by the server's runner, with the local rows", async () => {
    const big = await createOrganization(ctx, "Many accounts");
    const bigOrg = big.organization.uuid;
    // Ten accounts per client, as households are: one client of 2,001 accounts would make every account's
    // household wash-sale check read 2,000 others.
    const clients: string[] = [];
    for (let i = 0; i < 201; i++) clients.push((await createClient(ctx, bigOrg, {})).uuid);
    await store.transaction(async () => {
      for (let i = 0; i <= SCAN_PAGE_MAX; i++)
        await store.accounts.create(bigOrg, clients[i % clients.length]!, { cashValueUsd: "10" });
    });
    const runner = new BacktestJobRunner({ store, mode: "in-process", pollIntervalMs: 10, log: () => {} });
    await runner.start();
    const served: BacktestServiceContext = { ...ctx, backtestRunner: runner };
    const handle = await serve({ ctx: served, port: 0, log: () => {}, requestWorkers: 0 });
    try {
      const remote = await RemoteBackend.connect({ url: handle.url, apiKey: big.apiKey.key });
      const progress: [number, number][] = [];
      const result = await remote.scan({}, { onProgress: (d, t) => progress.push([d, t]) });
      // 2,001 accounts are above the default threshold (2,000): a job, read back until SUCCESS.
      expect(progress[0]).toEqual([0, SCAN_PAGE_MAX + 1]);
      expect(progress.at(-1)).toEqual([SCAN_PAGE_MAX + 1, SCAN_PAGE_MAX + 1]);
      const jobs = await store.backtestJobs.list(bigOrg, { kind: "scan" });
      expect(jobs.map((j) => [j.status, j.result])).toEqual([["SUCCESS", result]]);
      expect(result).toEqual(await scanAccounts(ctx, bigOrg));
      expect(result.rows).toHaveLength(SCAN_PAGE_MAX + 1);
      expect(result.summary).toMatchObject({ accounts: SCAN_PAGE_MAX + 1, with_errors: SCAN_PAGE_MAX + 1 });
      expect(result.summary.cash_to_invest_usd).toBe("20010"); // 2,001 x 10 USD, no configuration
    } finally {
      await handle.close();
      await runner.stop();
    }
  });

  it("prints the same rows from the CLI locally and remotely, writes CSV, and gates CI with exit codes", async () => {
    const run = async (args: string[], json = true) => {
      const out = memoryOutput(json);
      const code = await main(["node", "lotwise", "scan", ...args], { output: () => out });
      return { code, out };
    };
    const local = await run(["--store", file, "--org", org, "--json"]);
    expect(local.code, local.out.stderr.join("\n")).toBe(0);
    expect(JSON.parse(local.out.stdout.join("\n"))).toEqual(await scanAccounts(ctx, org));

    const handle = await serve({ ctx, port: 0, log: () => {}, requestWorkers: 0 });
    try {
      const remote = await run(["--url", handle.url, "--api-key", key, "--json"]);
      expect(remote.code, remote.out.stderr.join("\n")).toBe(0);
      expect(remote.out.stdout).toEqual(local.out.stdout);
    } finally {
      await handle.close();
    }

    const csv = join(dir, "scan.csv");
    const written = await run(["--store", file, "--org", org, "--out", csv], false);
    expect(written.code).toBe(0);
    const lines = readFileSync(csv, "utf8").trim().split("\r\n");
    expect(lines[0]).toBe(
      "account_uuid,client_uuid,account_name,portfolio_config_uuid,nav_usd,cash_usd,cash_to_invest_usd,drift_status,total_drift,max_asset_drift,target,harvestable_lots,harvestable_loss_usd,estimated_tax_value_usd,errors,rules_fired",
    );
    expect(lines).toHaveLength(6);
    expect(lines.find((l) => l.startsWith(ids.A1))).toBe(
      `${ids.A1},${clientA},A1,${configUuid},9000,1000,600,warning,0.1833333333,0.18,"blend of HAND3, DDD:XTSE",1,900,333,,`,
    );
    expect(lines.find((l) => l.startsWith(ids.B2))).toBe(
      `${ids.B2},${clientB},B2,,,,,,,,,,,,account: missing_price,`,
    );

    const gate = async (...args: string[]) =>
      (await run(["--store", file, "--org", org, ...args], false)).code;
    expect(await gate("--fail-on", "warning")).toBe(1); // A1 is at warning
    expect(await gate("--fail-on", "breach")).toBe(0); // nobody is in breach
    expect(await gate("--fail-on", "error")).toBe(1); // A2, B1, B2 have errors
    expect(await gate("--client", clientB, "--fail-on", "warning")).toBe(0);
    expect(await gate("--fail-on", "red")).toBe(2);

    const human = await run(["--store", file, "--org", org], false);
    const text = human.out.stdout.join("\n");
    expect(text).toContain("Scan of 5 accounts on 2025-06-30");
    expect(text).toContain("Status: 0 breach, 1 warning, 1 ok; 3 with errors.");
    expect(text).toContain("Cash to invest: 5,600.00 USD in 2 accounts. NAV 26,410.00 USD.");
  });
});

describe("the scan as a job", () => {
  /** The test's organization with a scan job threshold of 2 accounts. */
  const small = () => ({ ...ctx, limits: { scanJobThreshold: 2 } });
  const owner = "test-host/1/scan-test/w0";

  it("runs a selection above the threshold as a job: PENDING, RUNNING with progress in accounts, SUCCESS with the scan", async () => {
    const c = small();
    const started = await startScanJob(c, org, { min_loss_fraction: "0.3" });
    expect(scanJobSchema.parse(started)).toEqual(started);
    expect(started).toMatchObject({
      status: "PENDING",
      params: { min_loss_fraction: "0.3" },
      as_of_date: "2025-06-30",
      progress: { total_accounts: 5, completed_accounts: 0, last_progress_at: null },
      result: null,
      error_message: null,
      started_at: null,
    });

    const job = (await store.backtestJobs.claim(started.id, owner))!;
    expect((await getScanJob(c, org, started.id)).status).toBe("RUNNING");
    const seen: number[] = [];
    const outcome = await runClaimedJob({
      ctx: c,
      job,
      owner,
      executor: defaultBacktestExecutor(),
      onProgress: (p) => seen.push(p.completed_periods),
    });
    expect(outcome.status).toBe("SUCCESS");
    expect(seen).toEqual([1, 2, 3, 4, 5]);

    const done = await getScanJob(c, org, started.id);
    expect(done.status).toBe("SUCCESS");
    expect(done.progress).toMatchObject({ total_accounts: 5, completed_accounts: 5 });
    expect(done.progress.last_progress_at).not.toBeNull();
    expect(done.result).toEqual(await scanAccounts(ctx, org, {}, { minLossFraction: "0.3" }));

    // The same job over HTTP.
    const app = createApp({ ctx: c, requestWorkers: 0 });
    const res = await app.request(`/api/v1/custom/org/${org}/scan_jobs/${started.id}/`, {
      headers: { "X-Api-Key": key },
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual(done);
  });

  it("scans a selection up to the threshold in the request (answered SUCCESS) and queues it with async", async () => {
    const app = createApp({ ctx: small(), requestWorkers: 0 });
    const post = async (body: unknown): Promise<{ status: number; body: ScanJob }> => {
      const res = await app.request(`/api/v1/custom/org/${org}/scan_jobs/`, {
        method: "POST",
        headers: { "X-Api-Key": key, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      return { status: res.status, body: (await res.json()) as ScanJob };
    };
    const now = await post({ client_uuid: clientA });
    expect(now.status).toBe(202);
    expect(now.body).toMatchObject({
      status: "SUCCESS",
      progress: { total_accounts: 2, completed_accounts: 2 },
      result: await scanAccounts(ctx, org, { client_uuid: clientA }),
    });
    const queued = await post({ client_uuid: clientA, async: true });
    expect(queued.body).toMatchObject({ status: "PENDING", result: null });
    expect((await cancelScanJob(ctx, org, queued.body.id)).status).toBe("FAILURE");
  });

  it("cancels a queued job at once and a running one before its next account; refuses a finished one", async () => {
    const c = small();
    const queued = await startScanJob(c, org, {});
    expect(await cancelScanJob(c, org, queued.id)).toMatchObject({
      status: "FAILURE",
      error_message: "Cancelled before it started.",
    });
    await expect((() => cancelScanJob(c, org, queued.id))()).rejects.toThrow(
      expect.objectContaining({ code: "scan_job_finished" }),
    );

    const running = await startScanJob(c, org, {});
    const job = (await store.backtestJobs.claim(running.id, owner))!;
    expect((await cancelScanJob(c, org, running.id)).status).toBe("RUNNING");
    const outcome = await runClaimedJob({ ctx: c, job, owner, executor: defaultBacktestExecutor() });
    expect(outcome).toMatchObject({
      status: "FAILURE",
      errorMessage: "Cancelled on request after 1 of 5 accounts.",
    });
    expect(await getScanJob(c, org, running.id)).toMatchObject({ status: "FAILURE", result: null });
  });

  it("checks the selection when the job is created and keeps scan jobs apart from backtest jobs", async () => {
    const other = await createOrganization(ctx, "Scan job stranger");
    await expect(
      (() => startScanJob(small(), other.organization.uuid, { client_uuid: clientA }))(),
    ).rejects.toThrow(expect.objectContaining({ code: "client_not_found" }));
    const job = await startScanJob(small(), org, { async: true });
    await expect((() => getScanJob(ctx, other.organization.uuid, job.id))()).rejects.toThrow(
      expect.objectContaining({ code: "scan_job_not_found" }),
    );
    await expect((() => store.backtestJobs.require(org, job.id))()).rejects.toThrow(
      expect.objectContaining({ code: "backtest_not_found" }),
    );
    await cancelScanJob(ctx, org, job.id);
  });

  it("makes the remote CLI run a scan above the server's threshold as a job and print the local JSON", async () => {
    const run = async (args: string[]) => {
      const out = memoryOutput(true);
      const code = await main(["node", "lotwise", "scan", ...args, "--json"], { output: () => out });
      return { code, out };
    };
    const local = await run(["--store", file, "--org", org]);
    expect(local.code, local.out.stderr.join("\n")).toBe(0);
    const runner = new BacktestJobRunner({ store, mode: "in-process", pollIntervalMs: 10, log: () => {} });
    await runner.start();
    const served: BacktestServiceContext = { ...small(), backtestRunner: runner };
    const handle = await serve({ ctx: served, port: 0, log: () => {}, requestWorkers: 0 });
    const before = new Set((await store.backtestJobs.list(org, { kind: "scan" })).map((j) => j.id));
    try {
      const remote = await run(["--url", handle.url, "--api-key", key]);
      expect(remote.code, remote.out.stderr.join("\n")).toBe(0);
      expect(remote.out.stdout).toEqual(local.out.stdout);
    } finally {
      await handle.close();
      await runner.stop();
    }
    const made = (await store.backtestJobs.list(org, { kind: "scan" })).filter((j) => !before.has(j.id));
    expect(made.map((j) => [j.status, j.progress?.completed_periods, j.attempts])).toEqual([
      ["SUCCESS", 5, 1],
    ]);
    expect(made[0]!.result).toEqual(JSON.parse(local.out.stdout.join("\n")));
  });
});
