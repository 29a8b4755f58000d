/**
 * Every operation route through the app (`app.request`): status codes and success shapes validated by the
 * contract, agreement with the service layer, PATCH semantics of endpoints 4 and 6 (lists replace, absent fields
 * keep their values, null resets), reference checks (unknown theme_asset_id, archived asset classes).
 */
import { Readable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type * as z from "zod";
import {
  accountDriftSchema,
  accountEvaluationSchema,
  accountListSchema,
  accountLookupSchema,
  accountOptimizationSchema,
  accountRebalanceSchema,
  accountSchema,
  assetClassListSchema,
  assetClassSchema,
  backtestJobListSchema,
  backtestJobSchema,
  type Client,
  clientListSchema,
  clientSchema,
  corporateActionApplyResultSchema,
  corporateActionListSchema,
  executionListSchema,
  executionResultSchema,
  harvestScanSchema,
  holdingsAsOfSchema,
  industrySearchResponseSchema,
  lotImportResultSchema,
  type PortfolioConfigRead,
  portfolioConfigListSchema,
  portfolioConfigReadSchema,
  proposalResponseSchema,
  realizedLedgerSchema,
  realizedQuerySchema,
  rebalanceRunListSchema,
  rebalanceRunSchema,
  riskModelListSchema,
  riskModelSchema,
  scanJobSchema,
  scanResultSchema,
  themeBacktestResultSchema,
  themeConstituentSnapshotSchema,
  themeListSchema,
  themeSchema,
  tickerResolveResponseSchema,
  universePresetsResponseSchema,
  whoAmISchema,
} from "../src/contract/index.js";
import { API_ROUTES, createApp, type LotwiseApp } from "../src/server/index.js";
import { importCorporateActions } from "../src/service/corporate-actions.js";
import {
  accountDrift,
  type BacktestServiceContext,
  createAccount,
  createClient,
  evaluateAccountRules,
  getClient,
  getRiskModel,
  harvestScan,
  listPortfolioConfigs,
  optimizeAccount,
  prepareAccountOptimization,
  readAssetClass,
  scanAccounts,
} from "../src/service/index.js";
import { FAKE_DEFAULTS, fastExecutor } from "./helpers/backtest-executors.js";
import {
  createTestStore,
  type SeededOrganization,
  seedOrganization,
  type TestStore,
  vendorModelBody,
} from "./helpers/fixture.js";
import { type Answer, envelope, send } from "./helpers/http.js";

let t: TestStore;
let app: LotwiseApp;
let seeded: SeededOrganization;
let key: string;
let org: string;

beforeAll(async () => {
  t = await createTestStore();
  seeded = await seedOrganization(t, t.orgA);
  await seedOrganization(t, t.orgB);
  app = createApp({ ctx: t.ctx });
  key = t.orgA.apiKey;
  org = `/api/v1/custom/org/${t.orgA.uuid}`;
});
afterAll(() => t.close());

/** Asserts the status and parses the body with the contract schema (a mismatch fails with zod's issues). */
function shape<T>(answer: Answer, status: number, schema: z.ZodType<T>): T {
  expect(answer.status, answer.text.slice(0, 500)).toBe(status);
  expect(answer.headers.get("content-type")).toMatch(/^application\/json/);
  const parsed = schema.safeParse(answer.body);
  if (!parsed.success) throw new Error(`response does not match the contract: ${parsed.error.message}`);
  return parsed.data;
}

describe("success shapes of every route", () => {
  it("GET /api/v1/me names the key's organization", async () => {
    const me = shape(await send(app, "GET", "/api/v1/me", { key }), 200, whoAmISchema);
    expect(me).toEqual({
      organization_uuid: t.orgA.uuid,
      organization_name: "Org A",
      api_key_id: t.orgA.keyId,
    });
  });

  it("clients: create 201, list, read, update (endpoint 6), delete 204", async () => {
    const created = shape(
      await send(app, "POST", `${org}/clients/`, { key, json: { external_id: "CRM-1", metadata: { a: 1 } } }),
      201,
      clientSchema,
    );
    expect(created).toMatchObject({ external_id: "CRM-1", accounts: [], metadata: { a: 1 } });
    const list = shape(await send(app, "GET", `${org}/clients/`, { key }), 200, clientListSchema);
    expect(list.map((c) => c.uuid)).toContain(created.uuid);
    const read = shape(await send(app, "GET", `${org}/clients/${created.uuid}/`, { key }), 200, clientSchema);
    expect(read).toEqual(created);
    const updated = shape(
      await send(app, "PATCH", `${org}/clients/${created.uuid}/`, { key, json: { external_id: "CRM-2" } }),
      200,
      clientSchema,
    );
    expect(updated.external_id).toBe("CRM-2");
    const del = await send(app, "DELETE", `${org}/clients/${created.uuid}/`, { key });
    expect(del.status).toBe(204);
    expect(del.text).toBe("");
    const gone = await send(app, "GET", `${org}/clients/${created.uuid}/`, { key });
    expect(gone.status).toBe(404);
    expect(envelope(gone)).toEqual({
      code: "client_not_found",
      message: `Client ${created.uuid} not found.`,
    });
  });

  it("accounts: create 201, list, read, find by uuid alone", async () => {
    const client = shape(await send(app, "POST", `${org}/clients/`, { key, json: {} }), 201, clientSchema);
    const account = shape(
      await send(app, "POST", `${org}/clients/${client.uuid}/accounts/`, {
        key,
        json: {
          name: "IRA",
          cash_value_usd: "1000",
          holdings: {
            tax_lots: [
              { theme_asset_id: t.usTickers[3]!, quantity: "4", cost_basis: "10", trade_date: "2024-05-01" },
            ],
          },
        },
      }),
      201,
      accountSchema,
    );
    expect(account.name).toBe("IRA");
    expect(account.holdings.tax_lots).toHaveLength(1);
    const list = shape(
      await send(app, "GET", `${org}/clients/${client.uuid}/accounts/`, { key }),
      200,
      accountListSchema,
    );
    expect(list.map((a) => a.uuid)).toEqual([account.uuid]);
    const read = shape(
      await send(app, "GET", `${org}/clients/${client.uuid}/accounts/${account.uuid}/`, { key }),
      200,
      accountSchema,
    );
    expect(read).toEqual(account);
    const found = shape(
      await send(app, "GET", `${org}/accounts/${account.uuid}/`, { key }),
      200,
      accountLookupSchema,
    );
    expect(found).toEqual({ client_uuid: client.uuid, account });
    const imported = shape(
      await send(app, "POST", `${org}/accounts/${account.uuid}/tax_lots/import/?mode=append`, {
        key,
        raw: `Symbol,Quantity,Cost Basis,Open Date\n${t.usTickers[0]},3,30,2024-05-06\n`,
        headers: { "Content-Type": "text/csv" },
      }),
      200,
      lotImportResultSchema,
    );
    const before = account.holdings.tax_lots.length;
    expect(imported).toMatchObject({ lots_before: before, lots_after: before + 1, lots_in_file: 1 });
    expect(imported.by_ticker).toEqual([
      { theme_asset_id: t.usTickers[0], lots: 1, quantity: "3", total_cost_basis_usd: "30.00" },
    ]);
  });

  it("corporate actions: import, list, apply once; holdings as of a date before them", async () => {
    const client = await createClient(t.ctx, t.orgA.uuid, {});
    const account = await createAccount(t.ctx, t.orgA.uuid, client.uuid, { name: "Actions" });
    const listing = t.usTickers[1]!;
    shape(
      await send(app, "POST", `${org}/accounts/${account.uuid}/tax_lots/import/`, {
        key,
        raw: `Symbol,Quantity,Cost Basis,Open Date\n${listing},10,1000,2024-05-06\n`,
        headers: { "Content-Type": "text/csv" },
      }),
      200,
      lotImportResultSchema,
    );
    // Corporate actions are market data shared by every organization: imported by the store's administrator
    // (the service function / `lotwise actions import` on a local store), never through an organization's API.
    const imported = await importCorporateActions(
      t.ctx,
      Readable.from([`id,kind,listing,ex_date,ratio\nROUTE-SPLIT,split,${listing},2024-06-03,3:1\n`]),
      { file_name: "a.csv" },
    );
    expect(imported).toMatchObject({ file: "a.csv", actions_in_file: 1 });
    const refused = await send(app, "POST", `${org}/corporate_actions/import/?file_name=a.csv`, {
      key,
      raw: "id,kind,listing,ex_date,ratio\n",
      headers: { "Content-Type": "text/csv" },
    });
    expect(refused.status).toBe(404);
    const listed = shape(
      await send(app, "GET", `${org}/corporate_actions/?listing=${listing}`, { key }),
      200,
      corporateActionListSchema,
    );
    expect(listed.map((a) => a.id)).toEqual(["ROUTE-SPLIT"]);
    const body = { account_uuid: account.uuid, through: "2024-12-31" };
    const applied = shape(
      await send(app, "POST", `${org}/corporate_actions/apply/`, { key, json: body }),
      200,
      corporateActionApplyResultSchema,
    );
    expect(applied.accounts.map((a) => a.lots.map((l) => [l.quantity_before, l.quantity_after]))).toEqual([
      [["10", "30"]],
    ]);
    const again = shape(
      await send(app, "POST", `${org}/corporate_actions/apply/`, { key, json: body }),
      200,
      corporateActionApplyResultSchema,
    );
    expect(again.accounts).toEqual([]);
    const held = shape(
      await send(
        app,
        "GET",
        `${org}/clients/${client.uuid}/accounts/${account.uuid}/holdings/?as_of=2024-05-31`,
        {
          key,
        },
      ),
      200,
      holdingsAsOfSchema,
    );
    expect(held.tax_lots.map((l) => [l.theme_asset_id, l.quantity])).toEqual([[listing, "10"]]);
    expect(held.undone.corporate_actions).toEqual(["ROUTE-SPLIT"]);
  });

  it("portfolio configurations: list (endpoint 3), create 201, read, update (endpoint 4)", async () => {
    const list = shape(
      await send(app, "GET", `${org}/portfolio_configs/`, { key }),
      200,
      portfolioConfigListSchema,
    );
    expect(list.map((c) => c.uuid)).toContain(seeded.configUuid);
    // The HTTP answer is the service's result, serialized.
    expect(list).toEqual(JSON.parse(JSON.stringify(await listPortfolioConfigs(t.ctx, t.orgA.uuid))));
    const created = shape(
      await send(app, "POST", `${org}/portfolio_configs/`, { key, json: { name: "Minimal" } }),
      201,
      portfolioConfigReadSchema,
    );
    expect(created).toMatchObject({ name: "Minimal", status: "draft", no_hold_tickers: [] });
    const read = shape(
      await send(app, "GET", `${org}/portfolio_configs/${created.uuid}/`, { key }),
      200,
      portfolioConfigReadSchema,
    );
    expect(read).toEqual(created);
    const patched = shape(
      await send(app, "PATCH", `${org}/portfolio_configs/${created.uuid}/`, {
        key,
        json: { status: "archived" },
      }),
      200,
      portfolioConfigReadSchema,
    );
    expect(patched.status).toBe("archived");
  });

  it("asset classes: create 201, list, read (endpoint 5)", async () => {
    const created = shape(
      await send(app, "POST", `${org}/asset_classes/`, {
        key,
        json: { name: "Total market", benchmark_index_identifier: "SYNTHTOTAL" },
      }),
      201,
      assetClassSchema,
    );
    expect(created).toMatchObject({
      name: "Total market",
      benchmark_index_identifier: "SYNTHTOTAL",
      archived_at: null,
    });
    const list = shape(await send(app, "GET", `${org}/asset_classes/`, { key }), 200, assetClassListSchema);
    // The test clock stands still, so creation times tie and the order is by uuid: compare as sets.
    expect(list.map((a) => a.uuid).sort()).toEqual([...seeded.assetClassUuids, created.uuid].sort());
    const read = shape(
      await send(app, "GET", `${org}/asset_classes/${seeded.assetClassUuids[0]}/`, { key }),
      200,
      assetClassSchema,
    );
    expect(read).toEqual(
      JSON.parse(JSON.stringify(await readAssetClass(t.ctx, t.orgA.uuid, seeded.assetClassUuids[0]!))),
    );
  });

  it("drift (extension) agrees with the service, and refuses a date after the market data", async () => {
    const account = `${org}/clients/${seeded.clientUuid}/accounts/${seeded.accountUuid}`;
    const d = shape(await send(app, "GET", `${account}/drift/`, { key }), 200, accountDriftSchema);
    expect(d).toEqual(JSON.parse(JSON.stringify(await accountDrift(t.ctx, t.orgA.uuid, seeded.accountUuid))));
    expect(Number(d.total_drift)).toBeGreaterThan(0);
    const late = await send(app, "GET", `${account}/drift/?as_of_date=2099-01-01`, { key });
    expect(late.status).toBe(400);
    expect(envelope(late).message).toMatch(/after the last market date/);
  });

  it("evaluation (extension) agrees with the service: the fixture's Monday rule fires on a Monday only", async () => {
    const account = `${org}/clients/${seeded.clientUuid}/accounts/${seeded.accountUuid}`;
    const monday = shape(
      await send(app, "GET", `${account}/evaluation/?as_of_date=2025-03-31`, { key }),
      200,
      accountEvaluationSchema,
    );
    expect(monday).toEqual(
      JSON.parse(
        JSON.stringify(
          await evaluateAccountRules(t.ctx, t.orgA.uuid, seeded.accountUuid, { asOf: "2025-03-31" }),
        ),
      ),
    );
    expect(monday.fired.map((r) => [r.rule_type, r.index, r.rule_index, r.value, r.reason])).toEqual([
      ["model_drift", 0, 0, 0.03, 'cron "0 9 * * 1" fires on 2025-03-31 (Monday)'],
    ]);
    const tuesday = shape(
      await send(app, "GET", `${account}/evaluation/?as_of_date=2025-04-01`, { key }),
      200,
      accountEvaluationSchema,
    );
    expect(tuesday.fired).toEqual([]);
    expect(tuesday.not_fired[0]!.reason).toBe('cron "0 9 * * 1" does not fire on 2025-04-01 (Tuesday)');
  });

  it("scan (extension) answers the service's rows for the organization's accounts", async () => {
    const scan = shape(
      await send(app, "POST", `${org}/scans/`, { key, json: { client_uuid: seeded.clientUuid } }),
      200,
      scanResultSchema,
    );
    expect(scan).toEqual(
      JSON.parse(
        JSON.stringify(
          await scanAccounts(t.ctx, t.orgA.uuid, { client_uuid: seeded.clientUuid }, { limit: 2000 }),
        ),
      ),
    );
    expect(scan.rows.map((r) => r.account_uuid)).toContain(seeded.accountUuid);
    const bad = await send(app, "POST", `${org}/scans/`, { key, json: { limit: 0 } });
    expect(bad.status).toBe(400);
    expect(envelope(bad).message).toMatch(/limit/);
  });

  it("scan jobs (extension) scan a small selection at once, read it back by id, and refuse to cancel a finished one", async () => {
    const started = shape(
      await send(app, "POST", `${org}/scan_jobs/`, { key, json: { client_uuid: seeded.clientUuid } }),
      202,
      scanJobSchema,
    );
    expect(started).toMatchObject({ status: "SUCCESS", error_message: null });
    expect(started.result).toEqual(
      JSON.parse(JSON.stringify(await scanAccounts(t.ctx, t.orgA.uuid, { client_uuid: seeded.clientUuid }))),
    );
    const read = shape(
      await send(app, "GET", `${org}/scan_jobs/${started.id}/`, { key }),
      200,
      scanJobSchema,
    );
    expect(read).toEqual(started);
    const cancel = await send(app, "POST", `${org}/scan_jobs/${started.id}/cancel/`, { key });
    expect(cancel.status).toBe(409);
    expect(envelope(cancel).code).toBe("scan_job_finished");
    const missing = await send(app, "GET", `${org}/scan_jobs/${seeded.accountUuid}/`, { key });
    expect(missing.status).toBe(404);
    expect(envelope(missing).code).toBe("scan_job_not_found");
  });

  it("harvest scan (extension) agrees with the service, and refuses a negative threshold", async () => {
    const account = `${org}/clients/${seeded.clientUuid}/accounts/${seeded.accountUuid}`;
    const h = shape(
      await send(app, "GET", `${account}/harvest/?min_loss_usd=1`, { key }),
      200,
      harvestScanSchema,
    );
    expect(h).toEqual(
      JSON.parse(
        JSON.stringify(await harvestScan(t.ctx, t.orgA.uuid, seeded.accountUuid, { minLossUsd: "1" })),
      ),
    );
    expect(h.thresholds.min_loss_usd).toBe("1");
    const bad = await send(app, "GET", `${account}/harvest/?min_loss_usd=-5`, { key });
    expect(bad.status).toBe(400);
    expect(envelope(bad).message).toMatch(/min_loss_usd/);
  });

  it("optimizer: optimize (extension) agrees with the service; rebalance stores the proposal it returns", async () => {
    const account = `${org}/clients/${seeded.clientUuid}/accounts/${seeded.accountUuid}`;
    const o = shape(
      await send(app, "POST", `${account}/optimize/`, { key, json: {} }),
      200,
      accountOptimizationSchema,
    );
    expect(o).toEqual(
      JSON.parse(JSON.stringify(await optimizeAccount(t.ctx, t.orgA.uuid, seeded.accountUuid))),
    );
    expect(o.status).toBe("optimal");
    expect(o.account_uuid).toBe(seeded.accountUuid);
    expect(o.trades.length).toBeGreaterThan(0);
    const earlier = shape(
      await send(app, "POST", `${account}/optimize/`, { key, json: { as_of_date: "2025-03-31" } }),
      200,
      accountOptimizationSchema,
    );
    expect(earlier.as_of_date).toBe("2025-03-31");
    const badDate = await send(app, "POST", `${account}/optimize/`, {
      key,
      json: { as_of_date: "31/03/2025" },
    });
    expect(badDate.status).toBe(400);
    expect(envelope(badDate).details?.[0]?.path).toBe("as_of_date");
    const r = shape(
      await send(app, "POST", `${account}/rebalance/`, { key, json: {} }),
      200,
      accountRebalanceSchema,
    );
    expect(r.optimization).toEqual(o);
    expect(r.message).toBeNull();
    const stored = shape(
      await send(app, "GET", `${account}/proposals/${r.proposal!.proposal_uuid}/`, { key }),
      200,
      proposalResponseSchema,
    );
    expect(stored).toEqual(r.proposal);
    const sides = new Map(o.trades.map((x) => [x.ticker, x.side]));
    for (const order of stored.orders)
      expect(order.amount.startsWith("-") ? "sell" : "buy").toBe(sides.get(order.ticker));
  });

  it("optimize and rebalance refuse an account worth nothing with 422 empty_account, as drift does, no internal names", async () => {
    // A client of its own: the other tests read the seeded client's first account.
    const client = await send(app, "POST", `${org}/clients/`, { key, json: { external_id: "empty-nav" } });
    expect(client.status).toBe(201);
    const clientPath = `${org}/clients/${(client.body as { uuid: string }).uuid}`;
    const created = await send(app, "POST", `${clientPath}/accounts/`, { key, json: { name: "Empty" } });
    expect(created.status).toBe(201);
    const account = `${clientPath}/accounts/${(created.body as { uuid: string }).uuid}`;
    const drift = await send(app, "GET", `${account}/drift/`, { key });
    expect([drift.status, envelope(drift).code]).toEqual([422, "empty_account"]);
    for (const route of ["optimize", "rebalance"]) {
      const answer = await send(app, "POST", `${account}/${route}/`, { key, json: {} });
      expect(answer.status, route).toBe(422);
      const error = envelope(answer);
      expect(error.code).toBe("empty_account");
      expect(error.message).toMatch(
        /is worth nothing on \d{4}-\d{2}-\d{2} \(NAV, positions \+ cash: 0\.00 USD\)/,
      );
      expect(answer.text).not.toMatch(/optimizePortfolio|cashUsd/);
    }
  });

  it("rebalance runs (extension): run, read and list; a repeated request reports the same run", async () => {
    const body = { when: "always", account_uuids: [seeded.accountUuid], as_of_date: "2025-06-30" };
    const run = shape(
      await send(app, "POST", `${org}/rebalance_runs/`, { key, json: body }),
      200,
      rebalanceRunSchema,
    );
    expect(run.status).toBe("completed");
    expect(run.accounts.map((a) => [a.account_uuid, a.outcome])).toEqual([[seeded.accountUuid, "created"]]);
    const again = shape(
      await send(app, "POST", `${org}/rebalance_runs/`, { key, json: body }),
      200,
      rebalanceRunSchema,
    );
    expect(again).toEqual(run);
    expect(
      shape(
        await send(app, "GET", `${org}/rebalance_runs/${run.run_uuid}/`, { key }),
        200,
        rebalanceRunSchema,
      ),
    ).toEqual(run);
    const list = shape(
      await send(app, "GET", `${org}/rebalance_runs/`, { key }),
      200,
      rebalanceRunListSchema,
    );
    expect(list.map((r) => r.run_uuid)).toContain(run.run_uuid);
    const missing = await send(app, "GET", `${org}/rebalance_runs/00000000-0000-4000-8000-000000000000/`, {
      key,
    });
    expect(missing.status).toBe(404);
    expect(envelope(missing).code).toBe("rebalance_run_not_found");
  });

  it("risk models: import 201 (bodies past the default limit), list, read, delete 204; optimize uses the upload", async () => {
    const models = `${org}/risk_models/`;
    const universe = (await prepareAccountOptimization(t.ctx, t.orgA.uuid, seeded.accountUuid)).input.assets;
    // 9,000 more listings than the market has (never used; they only make the body pass 1 MiB).
    const padding = Array.from({ length: 9000 }, (_, i) => `P${String(i).padStart(4, "0")}:XNYS`);
    const body = vendorModelBody([...universe, ...padding], "2025-06-30", "Vendor over HTTP");
    expect(JSON.stringify(body).length).toBeGreaterThan(1024 * 1024);
    const created = shape(await send(app, "POST", models, { key, json: body }), 201, riskModelSchema);
    expect(created).toEqual(JSON.parse(JSON.stringify(await getRiskModel(t.ctx, t.orgA.uuid, created.uuid))));
    expect([created.name, created.asset_count, created.factor_count]).toEqual([
      "Vendor over HTTP",
      universe.length + 9000,
      2,
    ]);
    // 1.5 %^2 a day -> sqrt(1.5e-4 * 252) annualized.
    expect(created.factors[0]).toEqual({ name: "market", volatility: Math.sqrt(1.5e-4 * 252) });
    const tooBig = await send(app, "POST", `${org}/clients/`, { key, json: { metadata: body } });
    expect(tooBig.status).toBe(413);
    const list = shape(await send(app, "GET", models, { key }), 200, riskModelListSchema);
    expect(list.map((m) => m.uuid)).toContain(created.uuid);
    expect(JSON.stringify(list)).not.toContain("P0001:XNYS");
    const read = shape(await send(app, "GET", `${models}${created.uuid}/`, { key }), 200, riskModelSchema);
    expect(read).toEqual(created);
    const bad = await send(app, "POST", models, {
      key,
      json: { ...vendorModelBody(universe.slice(0, 2), "2025-06-30", "Bad"), specific_risk: [] },
    });
    expect(bad.status).toBe(400);
    expect(envelope(bad)).toMatchObject({
      code: "validation_error",
      details: [
        { path: `specific_risk.${universe[0]}`, message: `no specific risk for ${universe[0]}` },
        { path: `specific_risk.${universe[1]}`, message: `no specific risk for ${universe[1]}` },
      ],
    });
    // The account's configuration names vendor: the optimizer takes the upload.
    const config = `${org}/portfolio_configs/${seeded.configUuid}/`;
    expect(
      (
        await send(app, "PATCH", config, {
          key,
          json: { risk_model_name: "vendor", factor_exposure_bounds: [] },
        })
      ).status,
    ).toBe(200);
    try {
      const account = `${org}/clients/${seeded.clientUuid}/accounts/${seeded.accountUuid}`;
      const o = shape(
        await send(app, "POST", `${account}/optimize/`, { key, json: {} }),
        200,
        accountOptimizationSchema,
      );
      expect(o.risk_model).toBe("vendor");
      expect(o.uploaded_risk_model).toEqual({
        uuid: created.uuid,
        name: "Vendor over HTTP",
        as_of_date: "2025-06-30",
        assets_covered: universe.length,
        assets_imputed: 0,
      });
      const del = await send(app, "DELETE", `${models}${created.uuid}/`, { key });
      expect(del.status).toBe(204);
      expect((await send(app, "GET", `${models}${created.uuid}/`, { key })).status).toBe(404);
      const none = await send(app, "POST", `${account}/optimize/`, { key, json: {} });
      expect(none.status).toBe(422);
      expect(envelope(none).code).toBe("risk_model_inputs_missing");
    } finally {
      // Back to the fixture's values (configCreateBody).
      await send(app, "PATCH", config, {
        key,
        json: {
          risk_model_name: "characteristics",
          factor_exposure_bounds: [{ factor: "momentum", min_active_bound: "-0.1", max_active_bound: "0.1" }],
        },
      });
    }
  });

  it("proposals: create (endpoint 1) from JSON, form and multipart bodies alike, then read it back", async () => {
    const path = `${org}/clients/${seeded.clientUuid}/accounts/${seeded.accountUuid}/proposal/`;
    const [x, y] = [t.usTickers[2]!, t.usTickers[6]!];
    const json = shape(
      await send(app, "POST", path, {
        key,
        json: {
          optimized_weights: [
            { ticker: x, weight: "0.4" },
            { ticker: y, weight: "0.2" },
          ],
        },
      }),
      200,
      proposalResponseSchema,
    );
    const fields: [string, string][] = [
      ["optimized_weights[0][ticker]", x],
      ["optimized_weights[0][weight]", "0.4"],
      ["optimized_weights[1][ticker]", y],
      ["optimized_weights[1][weight]", "0.2"],
    ];
    const form = shape(
      await send(app, "POST", path, {
        key,
        raw: new URLSearchParams(fields).toString(),
        headers: { "Content-Type": "application/x-www-form-urlencoded" },
      }),
      200,
      proposalResponseSchema,
    );
    const fd = new FormData();
    for (const [k, v] of fields) fd.append(k, v);
    const multi = shape(await send(app, "POST", path, { key, raw: fd }), 200, proposalResponseSchema);
    // Same orders whatever the encoding (each proposal has its own uuid and timestamp).
    const strip = (p: typeof json) => ({ ...p, proposal_uuid: "", created: "" });
    expect(strip(form)).toEqual(strip(json));
    expect(strip(multi)).toEqual(strip(json));
    expect(json.orders.map((o) => o.ticker)).toEqual(expect.arrayContaining([x, y]));
    const read = shape(
      await send(
        app,
        "GET",
        `${org}/clients/${seeded.clientUuid}/accounts/${seeded.accountUuid}/proposals/${json.proposal_uuid}/`,
        { key },
      ),
      200,
      proposalResponseSchema,
    );
    expect(read).toEqual(json);
    const bad = await send(app, "POST", path, {
      key,
      json: { optimized_weights: [{ ticker: "NOPE", weight: "0.1" }] },
    });
    expect(bad.status).toBe(400);
    expect(envelope(bad)).toMatchObject({
      code: "invalid_tickers",
      details: [{ path: "optimized_weights[0].ticker", message: "unknown ticker NOPE" }],
    });
  });

  it("securities: resolves symbols and theme_asset_ids in order, saying why others do not resolve", async () => {
    const sym = t.usTickers[0]!.split(":")[0]!;
    const r = shape(
      await send(app, "POST", "/api/v1/securities/resolve", {
        key,
        json: { tickers: [sym.toLowerCase(), t.usTickers[1]!, "NOPE"] },
      }),
      200,
      tickerResolveResponseSchema,
    );
    expect(r.results.map((x) => [x.theme_asset_id, x.error])).toEqual([
      [t.usTickers[0], null],
      [t.usTickers[1], null],
      [null, "unknown"],
    ]);
  });

  it("themes: create 201, list, read, evaluate, constituents (endpoint 7), revise, backtest (endpoint 8)", async () => {
    const created = shape(
      await send(app, "POST", "/api/v1/themes", {
        key,
        json: {
          name: "Cheap quality",
          universe: { preset: "us_all" },
          filters: ["pe > 0"],
          score: "-pe",
          selection: { mode: "top_n", value: 8 },
          weighting: { scheme: "equal" },
          rules: { rebalancing_period: "MONTHLY" },
        },
      }),
      201,
      themeSchema,
    );
    const list = shape(await send(app, "GET", "/api/v1/themes", { key }), 200, themeListSchema);
    expect(list.map((x) => x.uuid)).toContain(created.uuid);
    expect(
      shape(await send(app, "GET", `/api/v1/themes/${created.uuid}`, { key }), 200, themeSchema).name,
    ).toBe("Cheap quality");
    const missing = await send(app, "GET", `/api/v1/themes/${created.uuid}/constituents`, { key });
    expect(missing.status).toBe(404);
    expect(envelope(missing).code).toBe("snapshot_not_found");
    const snap = shape(
      await send(app, "POST", `/api/v1/themes/${created.uuid}/evaluate`, { key, json: {} }),
      200,
      themeConstituentSnapshotSchema,
    );
    expect(snap.total_constituents).toBe(8);
    expect(snap.total_weight).toBeCloseTo(1, 12);
    const weights = snap.constituents.map((c) => c.weight);
    expect([...weights].sort((a, b) => b - a)).toEqual(weights);
    expect(
      shape(
        await send(app, "GET", `/api/v1/themes/${created.uuid}/constituents`, { key }),
        200,
        themeConstituentSnapshotSchema,
      ),
    ).toEqual(snap);
    shape(
      await send(app, "PATCH", `/api/v1/themes/${created.uuid}`, {
        key,
        json: { selection: { mode: "top_n", value: 5 } },
      }),
      200,
      themeSchema,
    );
    expect(
      envelope(await send(app, "GET", `/api/v1/themes/${created.uuid}/constituents`, { key })).code,
    ).toBe("snapshot_not_found");
    const bt = shape(
      await send(app, "GET", `/api/v1/themes/${created.uuid}/backtest?benchmark=SYNTH500`, { key }),
      200,
      themeBacktestResultSchema,
    );
    expect(bt.benchmark?.identifier).toBe("SYNTH500");
    expect(Number.isFinite(bt.summary!.risk_metrics.volatility)).toBe(true);
    const badWindow = await send(
      app,
      "GET",
      `/api/v1/themes/${created.uuid}/backtest?start_date=2025-06-01&end_date=2025-01-01`,
      { key },
    );
    expect(badWindow.status).toBe(400);
    const badBenchmark = await send(app, "GET", `/api/v1/themes/${created.uuid}/backtest?benchmark=NOPE123`, {
      key,
    });
    expect(envelope(badBenchmark).code).toBe("unknown_benchmark");
  });

  it("catalog: industry search (endpoint 9) and universe presets (endpoint 10)", async () => {
    const r = shape(
      await send(app, "POST", "/api/v1/catalog/industry", { key, json: { query: "banks" } }),
      200,
      industrySearchResponseSchema,
    );
    expect(r.success).toBe(true);
    expect(r.matches[0]!.expression).toMatch(/^(sector|industry_group|industry|sub_industry) = \d+$/);
    const presets = shape(
      await send(app, "GET", "/api/v1/catalog/universe_presets", { key }),
      200,
      universePresetsResponseSchema,
    );
    expect(presets.presets.map((p) => p.id)).toEqual(
      expect.arrayContaining(["us_large_cap", "us_all", "canada", "us_canada"]),
    );
    const empty = await send(app, "POST", "/api/v1/catalog/industry", { key, json: { query: "" } });
    expect(empty.status).toBe(400);
  });

  it("backtests: start (endpoint 2) 202 PENDING with resolved_params, list, read, read by id, cancel 202", async () => {
    const btApp = createApp({ ctx: { ...t.ctx, backtestExecutor: fastExecutor } as BacktestServiceContext });
    const account = `${org}/clients/${seeded.clientUuid}/accounts/${seeded.accountUuid}`;
    const job = shape(
      await send(btApp, "POST", `${account}/backtests/`, {
        key,
        json: { tax_gamma: 2.5, ls_tlh_factor: "quality" },
      }),
      202,
      backtestJobSchema,
    );
    expect(job).toMatchObject({
      status: "PENDING",
      params: { tax_gamma: 2.5, ls_tlh_factor: "quality" },
      resolved_params: { ...FAKE_DEFAULTS, tax_gamma: 2.5 },
      progress: {
        planned_periods: 0,
        completed_periods: 0,
        last_completed_period: null,
        last_progress_at: null,
      },
      result: null,
      error_message: null,
      started_at: null,
      finished_at: null,
    });
    const list = shape(
      await send(btApp, "GET", `${account}/backtests/`, { key }),
      200,
      backtestJobListSchema,
    );
    expect(list.map((j) => j.id)).toContain(job.id);
    const read = shape(
      await send(btApp, "GET", `${account}/backtests/${job.id}/`, { key }),
      200,
      backtestJobSchema,
    );
    expect(read).toEqual(job);
    const byId = shape(
      await send(btApp, "GET", `${org}/backtests/${job.id}/`, { key }),
      200,
      backtestJobSchema,
    );
    expect(byId).toEqual(job);
    const cancelled = shape(
      await send(btApp, "POST", `${org}/backtests/${job.id}/cancel/`, { key }),
      202,
      backtestJobSchema,
    );
    expect(cancelled).toMatchObject({ status: "FAILURE", error_message: "Cancelled before it started." });
    const again = await send(btApp, "POST", `${org}/backtests/${job.id}/cancel/`, { key });
    expect(again.status).toBe(409);
    expect(envelope(again).code).toBe("backtest_finished");
  });

  it("account ledger: executes a proposal, records and imports trades, lists them, realized ledger of account and client", async () => {
    const client = shape(await send(app, "POST", `${org}/clients/`, { key, json: {} }), 201, clientSchema);
    const [x, y] = [t.usTickers[0]!, t.usTickers[1]!];
    const account = shape(
      await send(app, "POST", `${org}/clients/${client.uuid}/accounts/`, {
        key,
        json: {
          cash_value_usd: "100000",
          holdings: {
            tax_lots: [{ theme_asset_id: x, quantity: "100", cost_basis: "10", trade_date: "2024-01-02" }],
          },
        },
      }),
      201,
      accountSchema,
    );
    const base = `${org}/clients/${client.uuid}/accounts/${account.uuid}`;
    const proposal = shape(
      await send(app, "POST", `${base}/proposal/`, {
        key,
        json: { optimized_weights: [{ ticker: y, weight: "0.5" }] },
      }),
      200,
      proposalResponseSchema,
    );
    const sell = proposal.orders.find((o) => o.ticker === x)!;
    const lotUuid = (await t.store.accounts.lots(account.uuid))[0]!.uuid;
    expect(sell.tax_lots![0]!.lot_id).toBe(lotUuid);
    const executed = shape(
      await send(app, "POST", `${base}/proposals/${proposal.proposal_uuid}/execution/`, { key, json: {} }),
      200,
      executionResultSchema,
    );
    expect(executed.execution_ids).toEqual(proposal.orders.map((_, i) => `${proposal.proposal_uuid}:${i}:1`));
    expect(executed.realized.map((r) => r.lot_id)).toEqual([lotUuid]);
    const recorded = shape(
      await send(app, "POST", `${base}/executions/`, {
        key,
        json: {
          trades: [
            {
              execution_id: "api-1",
              side: "buy",
              ticker: x,
              trade_date: "2025-06-30",
              quantity: "2",
              price: "5",
            },
          ],
        },
      }),
      200,
      executionResultSchema,
    );
    expect(recorded.cash_delta_usd).toBe("-10");
    const imported = shape(
      await send(app, "POST", `${org}/accounts/${account.uuid}/executions/import/`, {
        key,
        raw: `Trade ID,Side,Symbol,Trade Date,Quantity,Price\nf-1,SELL,${x},2025-06-30,2,6\n`,
        headers: { "Content-Type": "text/csv" },
      }),
      200,
      executionResultSchema,
    );
    expect(imported.realized.map((r) => [r.quantity, r.gain])).toEqual([["2", "2"]]);
    const list = shape(await send(app, "GET", `${base}/executions/`, { key }), 200, executionListSchema);
    expect(list.executions.map((e) => e.source)).toEqual([
      ...proposal.orders.map(() => "proposal"),
      "api",
      "trade_file",
    ]);
    const ledger = shape(
      await send(app, "GET", `${base}/realized/?year=2025`, { key }),
      200,
      realizedLedgerSchema,
    );
    expect(ledger.rows).toHaveLength(2);
    const household = shape(
      await send(app, "GET", `${org}/clients/${client.uuid}/realized/?year=2025`, { key }),
      200,
      realizedLedgerSchema,
    );
    expect(household.totals).toEqual(ledger.totals);
    const bad = await send(app, "GET", `${base}/realized/?year=nope`, { key });
    expect(bad.status).toBe(400);
  });

  it("names a missing or non-numeric realized year as sent, never as NaN", async () => {
    const realized = `${org}/clients/${crypto.randomUUID()}/realized/`;
    const missing = await send(app, "GET", realized, { key });
    expect(missing.status).toBe(400);
    expect(envelope(missing).details).toEqual([{ path: "year", message: "Required" }]);
    const text = await send(app, "GET", `${realized}?year=nope`, { key });
    expect(text.status).toBe(400);
    expect(envelope(text).details).toEqual([
      { path: "year", message: 'expected a year such as 2025, received "nope"' },
    ]);
    for (const answer of [missing, text]) expect(answer.text).not.toMatch(/NaN/);
    // The digits still become the number (the CLI's local mode passes a number).
    expect(realizedQuerySchema.parse({ year: " 2025" })).toEqual({ year: 2025 });
    expect(realizedQuerySchema.parse({ year: 2025 })).toEqual({ year: 2025 });
  });

  it("covers every operation route of the table in this file", () => {
    // Guards against a route added to the table without a success test here.
    expect(API_ROUTES.map((r) => r.operationId).sort()).toEqual(
      [
        "whoAmI",
        "createClient",
        "listClients",
        "getClient",
        "updateClient",
        "deleteClient",
        "createAccount",
        "listAccounts",
        "getAccount",
        "findAccount",
        "importLots",
        "listPortfolioConfigs",
        "createPortfolioConfig",
        "getPortfolioConfig",
        "updatePortfolioConfig",
        "createAssetClass",
        "listAssetClasses",
        "getAssetClass",
        "createProposal",
        "getProposal",
        "optimizeAccount",
        "accountDrift",
        "evaluateAccount",
        "harvestScan",
        "scanAccounts",
        "startScanJob",
        "getScanJob",
        "cancelScanJob",
        "rebalanceAccount",
        "runRebalance",
        "listRebalanceRuns",
        "getRebalanceRun",
        "importRiskModel",
        "listRiskModels",
        "getRiskModel",
        "deleteRiskModel",
        "resolveTickers",
        "createTheme",
        "listThemes",
        "getTheme",
        "reviseTheme",
        "evaluateTheme",
        "getThemeConstituents",
        "backtestTheme",
        "searchIndustries",
        "listUniversePresets",
        "createBacktest",
        "listBacktests",
        "getAccountBacktest",
        "getBacktest",
        "cancelBacktest",
        "listCorporateActions",
        "applyCorporateActions",
        "getAccountHoldings",
        "executeProposal",
        "recordTrades",
        "listExecutions",
        "importTrades",
        "accountRealized",
        "clientRealized",
      ].sort(),
    );
  });
});

describe("CSV file parts of multipart bodies", () => {
  it("answers every route whose body takes file parts with its success status (errors: http-risk-model-upload)", async () => {
    const [x, y] = [t.usTickers[2]!, t.usTickers[6]!];
    const forms: Record<string, { path: string; parts: [string, string, string?][] }> = {
      createProposal: {
        path: `${org}/clients/${seeded.clientUuid}/accounts/${seeded.accountUuid}/proposal/`,
        parts: [["weights", `ticker,weight\n${x},40%\n${y},0.2\n`, "w.csv"]],
      },
      importRiskModel: {
        path: `${org}/risk_models/`,
        parts: [
          ["kind", "vendor"],
          ["name", "Files over HTTP"],
          ["as_of_date", "2025-06-30"],
          ["frequency", "annual"],
          ["exposures", `asset,market\n${x},1\n${y},1.2\n`, "exposures.csv"],
          ["covariance", ",market\nmarket,0.0225\n", "factor_cov.csv"],
          ["specific_risk", `asset,specific_risk\n${x},0.2\n${y},0.3\n`, "srisk.csv"],
        ],
      },
    };
    const withFiles = API_ROUTES.filter((r) => Object.keys(r.body?.files ?? {}).length > 0);
    expect(withFiles.map((r) => r.operationId).sort()).toEqual(Object.keys(forms).sort());
    for (const route of withFiles) {
      const fd = new FormData();
      for (const [name, value, file] of forms[route.operationId]!.parts)
        if (file === undefined) fd.append(name, value);
        else fd.append(name, new Blob([value], { type: "text/csv" }), file);
      const answer = await send(app, route.method, forms[route.operationId]!.path, { key, raw: fd });
      expect(answer.status, `${route.operationId}: ${answer.text.slice(0, 300)}`).toBe(route.response.status);
    }
    const model = riskModelListSchema
      .parse((await send(app, "GET", `${org}/risk_models/`, { key })).body)
      .find((m) => m.name === "Files over HTTP");
    // A 15% annual market volatility, read from the square covariance file.
    expect(
      shape(await send(app, "GET", `${org}/risk_models/${model!.uuid}/`, { key }), 200, riskModelSchema)
        .factors,
    ).toEqual([{ name: "market", volatility: 0.15 }]);
  });
});

describe("response cache of reads", () => {
  it("answers a repeated read from the cache and recomputes it after any write", async () => {
    const reads = vi.spyOn(t.store.portfolioConfigs, "list");
    try {
      const path = `${org}/portfolio_configs/`;
      const first = await send(app, "GET", path, { key });
      const second = await send(app, "GET", path, { key });
      expect(second.text).toBe(first.text);
      expect(second.headers.get("etag")).toBe(first.headers.get("etag"));
      expect(reads).toHaveBeenCalledTimes(1);
      const patched = await send(app, "PATCH", `${org}/portfolio_configs/${seeded.configUuid}/`, {
        key,
        json: { name: "renamed for the cache test" },
      });
      expect(patched.status).toBe(200);
      const third = await send(app, "GET", path, { key });
      expect(reads).toHaveBeenCalledTimes(2);
      expect(third.text).toContain("renamed for the cache test");
      expect(third.headers.get("etag")).not.toBe(first.headers.get("etag"));
    } finally {
      reads.mockRestore();
    }
  });

  it("recomputes reads when the date changes (valuations depend on it)", async () => {
    const reads = vi.spyOn(t.store.portfolioConfigs, "list");
    try {
      const path = `${org}/portfolio_configs/`;
      await send(app, "GET", path, { key });
      reads.mockClear();
      await send(app, "GET", path, { key });
      expect(reads).toHaveBeenCalledTimes(0);
      t.clock.advance(24 * 3600 * 1000);
      await send(app, "GET", path, { key });
      expect(reads).toHaveBeenCalledTimes(1);
    } finally {
      reads.mockRestore();
    }
  });

  it("can be turned off", async () => {
    const uncached = createApp({ ctx: t.ctx, responseCache: false });
    const reads = vi.spyOn(t.store.portfolioConfigs, "list");
    try {
      await send(uncached, "GET", `${org}/portfolio_configs/`, { key });
      await send(uncached, "GET", `${org}/portfolio_configs/`, { key });
      expect(reads).toHaveBeenCalledTimes(2);
    } finally {
      reads.mockRestore();
    }
  });
});

describe("PATCH of a portfolio configuration (endpoint 4)", () => {
  async function readConfig(uuid: string): Promise<PortfolioConfigRead> {
    return shape(
      await send(app, "GET", `${org}/portfolio_configs/${uuid}/`, { key }),
      200,
      portfolioConfigReadSchema,
    );
  }
  async function patch(uuid: string, json: unknown): Promise<Answer> {
    return send(app, "PATCH", `${org}/portfolio_configs/${uuid}/`, { key, json });
  }

  it("replaces a provided list and keeps every absent field", async () => {
    const before = await readConfig(seeded.configUuid);
    expect(before.no_hold_tickers.map((n) => n.ticker.theme_asset_id)).toEqual([t.usTickers[0]]);
    const newTicker = t.usTickers[7]!;
    const after = shape(
      await patch(seeded.configUuid, { no_hold_tickers: [{ theme_asset_id: newTicker }] }),
      200,
      portfolioConfigReadSchema,
    );
    expect(after.no_hold_tickers.map((n) => n.ticker.theme_asset_id)).toEqual([newTicker]);
    // Everything else is as before.
    const { no_hold_tickers: _a, ...restAfter } = after;
    const { no_hold_tickers: _b, ...restBefore } = before;
    expect(restAfter).toEqual(restBefore);
    expect(await readConfig(seeded.configUuid)).toEqual(after);
  });

  it("empties a list given as [] and leaves the other lists alone", async () => {
    const before = await readConfig(seeded.configUuid);
    expect(before.target_ticker_weights).toHaveLength(1);
    expect(before.dynamic_rules).toHaveLength(1);
    const after = shape(
      await patch(seeded.configUuid, { target_ticker_weights: [] }),
      200,
      portfolioConfigReadSchema,
    );
    expect(after.target_ticker_weights).toEqual([]);
    expect(after.dynamic_rules).toEqual(before.dynamic_rules);
    expect(after.asset_allocations).toEqual(before.asset_allocations);
  });

  it("resets a scalar given as null to what an unset field reads", async () => {
    const minimal = shape(
      await send(app, "POST", `${org}/portfolio_configs/`, { key, json: { name: "unset fields" } }),
      201,
      portfolioConfigReadSchema,
    );
    const before = await readConfig(seeded.configUuid);
    expect(before.max_weight).toBe("0.05");
    expect(before.optimization_mode).toBe("LONG_ONLY");
    const after = shape(
      await patch(seeded.configUuid, { max_weight: null, cash_buffer_usd: null }),
      200,
      portfolioConfigReadSchema,
    );
    expect(after.max_weight).toBe(minimal.max_weight);
    expect(after.cash_buffer_usd).toBe(minimal.cash_buffer_usd);
    expect(after.min_weight).toBe(before.min_weight);
  });

  it("merges tax_preferences field by field", async () => {
    const after = shape(
      await patch(seeded.configUuid, { tax_preferences: { long_term_rate: "0.15" } }),
      200,
      portfolioConfigReadSchema,
    );
    expect(after.tax_preferences.long_term_rate).toBe("0.15");
    expect(after.tax_preferences.short_term_rate).toBe("0.37");
  });

  it("rejects an unknown theme_asset_id by name and changes nothing", async () => {
    const before = await readConfig(seeded.configUuid);
    const a = await patch(seeded.configUuid, {
      name: "renamed",
      no_trade_tickers: [{ theme_asset_id: t.usTickers[1]! }, { theme_asset_id: "ZZZZ:XNAS" }],
    });
    expect(a.status).toBe(400);
    const e = envelope(a);
    expect(e.code).toBe("validation_error");
    expect(e.message).toContain("ZZZZ:XNAS");
    expect(e.details).toEqual([
      {
        path: "no_trade_tickers[1].theme_asset_id",
        message: "unknown theme_asset_id ZZZZ:XNAS: not in the security master",
      },
    ]);
    expect(await readConfig(seeded.configUuid)).toEqual(before);
  });

  it("names every offending field of a body that fails the schema", async () => {
    const a = await patch(seeded.configUuid, { max_weight: "0.123", colour: "blue", cash_buffer_usd: "1.5" });
    expect(a.status).toBe(400);
    const paths = envelope(a)
      .details!.map((d) => d.path)
      .sort();
    expect(paths).toEqual(["cash_buffer_usd", "colour", "max_weight"]);
  });
});

describe("PATCH of a client (endpoint 6)", () => {
  async function readClient(uuid: string): Promise<Client> {
    return shape(await send(app, "GET", `${org}/clients/${uuid}/`, { key }), 200, clientSchema);
  }

  it("replaces the tax lots when holdings are given and keeps them when absent", async () => {
    const before = await readClient(seeded.clientUuid);
    expect(before.accounts[0]!.holdings.tax_lots).toHaveLength(3);
    const kept = shape(
      await send(app, "PATCH", `${org}/clients/${seeded.clientUuid}/`, {
        key,
        json: { metadata: { tier: "B" } },
      }),
      200,
      clientSchema,
    );
    expect(kept.metadata).toEqual({ tier: "B" });
    expect(kept.accounts[0]!.holdings.tax_lots).toEqual(before.accounts[0]!.holdings.tax_lots);
    const replaced = shape(
      await send(app, "PATCH", `${org}/clients/${seeded.clientUuid}/`, {
        key,
        json: {
          holdings: {
            tax_lots: [
              { theme_asset_id: t.usTickers[4]!, quantity: "3", cost_basis: "20", trade_date: "2024-01-02" },
            ],
          },
        },
      }),
      200,
      clientSchema,
    );
    expect(replaced.accounts[0]!.holdings.tax_lots.map((l) => [l.theme_asset_id, l.quantity])).toEqual([
      [t.usTickers[4], "3"],
    ]);
    expect(replaced).toEqual(
      JSON.parse(JSON.stringify(await getClient(t.ctx, t.orgA.uuid, seeded.clientUuid))),
    );
  });

  it("clears external_id given as null", async () => {
    const after = shape(
      await send(app, "PATCH", `${org}/clients/${seeded.clientUuid}/`, { key, json: { external_id: null } }),
      200,
      clientSchema,
    );
    expect(after.external_id).toBeNull();
  });

  it("refuses to newly assign an archived asset class but keeps an existing assignment", async () => {
    const [coreUuid, singleUuid] = seeded.assetClassUuids as [string, string];
    const assign = (uuids: string[]) =>
      send(app, "PATCH", `${org}/clients/${seeded.clientUuid}/`, {
        key,
        json: {
          asset_class_settings: uuids.map((u) => ({ asset_class_uuid: u, direct_indexing_enabled: true })),
        },
      });
    shape(await assign([coreUuid]), 200, clientSchema);
    // An operator archives both sleeves; only `core` was assigned to the account.
    await t.store.assetClasses.archive(t.orgA.uuid, coreUuid);
    await t.store.assetClasses.archive(t.orgA.uuid, singleUuid);
    const kept = shape(await assign([coreUuid]), 200, clientSchema);
    const setting = kept.accounts[0]!.asset_class_settings[0]!;
    expect(setting.asset_class.uuid).toBe(coreUuid);
    expect(setting.asset_class.archived_at).not.toBeNull();
    const refused = await assign([coreUuid, singleUuid]);
    expect(refused.status).toBe(400);
    const e = envelope(refused);
    expect(e.details).toHaveLength(1);
    expect(e.details![0]!.path).toBe("asset_class_settings[1].asset_class_uuid");
    expect(e.details![0]!.message).toMatch(/is archived since .* and cannot be newly assigned/);
    // All or nothing: the account still has only the kept assignment.
    const after = await readClient(seeded.clientUuid);
    expect(after.accounts[0]!.asset_class_settings.map((s) => s.asset_class.uuid)).toEqual([coreUuid]);
    // The archived sleeve stays readable (endpoint 5).
    const read = shape(
      await send(app, "GET", `${org}/asset_classes/${singleUuid}/`, { key }),
      200,
      assetClassSchema,
    );
    expect(read.archived_at).not.toBeNull();
  });

  it("reports references that do not exist in the organization as 400 with their field paths", async () => {
    const missing = crypto.randomUUID();
    const a = await send(app, "PATCH", `${org}/clients/${seeded.clientUuid}/`, {
      key,
      json: { portfolio_config_uuid: missing },
    });
    expect(a.status).toBe(400);
    expect(envelope(a).details).toEqual([
      { path: "portfolio_config_uuid", message: `portfolio configuration ${missing} not found` },
    ]);
  });
});
