/**
 * Authentication and isolation on every route: 401 for a missing, malformed, unknown or revoked key (one message
 * for the three bad-key cases); another organization's paths and resources answer 404 exactly like ones that do
 * not exist, and a key of organization A never reads or changes B's data; `last_used_at` throttling.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type AnyRoute, API_ROUTES, createApp, type LotwiseApp } from "../src/server/index.js";
import {
  type BacktestServiceContext,
  importRiskModel,
  listAssetClasses,
  listClients,
  listPortfolioConfigs,
  listRiskModels,
  runRebalance,
  startScanJob,
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
let a: SeededOrganization;
let b: SeededOrganization;
/** One backtest job per organization (keyed by organization uuid). */
const backtests = new Map<string, string>();
/** One uploaded risk model per organization (keyed by organization uuid). */
const riskModels = new Map<string, string>();
/** One rebalance run per organization (keyed by organization uuid). */
const rebalanceRuns = new Map<string, string>();
/** One finished scan job per organization (keyed by organization uuid). */
const scanJobs = new Map<string, string>();

beforeAll(async () => {
  t = await createTestStore();
  a = await seedOrganization(t, t.orgA);
  b = await seedOrganization(t, t.orgB);
  for (const [org, s] of [
    [t.orgA.uuid, a],
    [t.orgB.uuid, b],
  ] as const) {
    backtests.set(
      org,
      (await t.store.backtestJobs.create(org, s.accountUuid, {}, FAKE_DEFAULTS, NOT_STARTED)).id,
    );
    riskModels.set(
      org,
      (await importRiskModel(t.ctx, org, vendorModelBody(t.usTickers, "2025-01-31", "model"))).uuid,
    );
    // A run over the seeded account (it only rebalances on a drift breach).
    rebalanceRuns.set(
      org,
      (await runRebalance(t.ctx, org, { when: "breached", account_uuids: [s.accountUuid] })).run_uuid,
    );
    // Under the threshold: scanned inside the call, SUCCESS at once.
    scanJobs.set(org, (await startScanJob(t.ctx, org, { accounts: [s.accountUuid] })).id);
  }
  app = createApp({ ctx: { ...t.ctx, backtestExecutor: fastExecutor } as BacktestServiceContext });
});

const NOT_STARTED = {
  planned_periods: 0,
  completed_periods: 0,
  last_completed_period: null,
  last_progress_at: null,
};
afterAll(() => t.close());

/** Path parameter values that address the resources of one organization. */
function valuesOf(orgUuid: string, s: SeededOrganization): Record<string, string> {
  return {
    organization_uuid: orgUuid,
    uuid: s.clientUuid,
    client_uuid: s.clientUuid,
    account_uuid: s.accountUuid,
    config_uuid: s.configUuid,
    asset_class_uuid: s.assetClassUuids[0]!,
    proposal_uuid: s.proposalUuid,
    theme_uuid: s.themeUuid,
    backtest_uuid: backtests.get(s === a ? t.orgA.uuid : t.orgB.uuid)!,
    risk_model_uuid: riskModels.get(s === a ? t.orgA.uuid : t.orgB.uuid)!,
    run_uuid: rebalanceRuns.get(s === a ? t.orgA.uuid : t.orgB.uuid)!,
    job_uuid: scanJobs.get(s === a ? t.orgA.uuid : t.orgB.uuid)!,
  };
}

function concrete(route: AnyRoute, values: Record<string, string>): string {
  return route.path.replace(/\{([a-z_]+)\}/g, (_m, name: string) => values[name]!);
}

/** A body each route accepts (so that a 404 comes from isolation, not from validation). */
function validBody(route: AnyRoute): unknown {
  switch (route.operationId) {
    case "createClient":
      return { external_id: "intruder" };
    case "updateClient":
      return { external_id: "changed by intruder", metadata: { hacked: true } };
    case "createAccount":
      return { name: "intruder" };
    case "createPortfolioConfig":
      return { name: "intruder" };
    case "updatePortfolioConfig":
      return { name: "changed by intruder" };
    case "createAssetClass":
      return { name: "intruder", benchmark_index_identifier: "SYNTH500" };
    case "createProposal":
      return { optimized_weights: [{ ticker: t.usTickers[2]!, weight: "0.5" }] };
    case "resolveTickers":
      return { tickers: [t.usTickers[0]!] };
    case "createTheme":
      return { name: "intruder", universe: { preset: "us_all" }, rules: { rebalancing_period: "ANNUALLY" } };
    case "reviseTheme":
      return { name: "changed by intruder" };
    case "evaluateTheme":
      return {};
    case "searchIndustries":
      return { query: "banks" };
    case "createBacktest":
      return { tax_gamma: 2 };
    case "optimizeAccount":
    case "rebalanceAccount":
      return {};
    case "importRiskModel":
      return vendorModelBody(t.usTickers.slice(0, 3), "2025-02-28", "intruder");
    case "scanAccounts":
      return { limit: 5 };
    case "startScanJob":
      return { status: ["breach"] };
    case "runRebalance":
      return { when: "breached", max_accounts: 1 };
    case "applyCorporateActions":
      return { through: "2025-12-31", dry_run: true };
    case "executeProposal":
      return {};
    case "recordTrades":
      return {
        trades: [
          {
            execution_id: "intruder-1",
            side: "buy",
            ticker: t.usTickers[0]!,
            trade_date: "2025-06-02",
            quantity: "1",
            price: "10",
          },
        ],
      };
    default:
      if (route.body) throw new Error(`no valid body for ${route.operationId}: add one to this test`);
      return undefined;
  }
}

function call(route: AnyRoute, path: string, key?: string): Promise<Answer> {
  if (route.upload)
    // A well-formed CSV upload, so that a 404 comes from isolation, not from the upload's checks.
    return send(app, route.method, path, {
      ...(key !== undefined ? { key } : {}),
      raw: `theme_asset_id,quantity,cost_basis,trade_date\n${t.usTickers[0]!},1,10,2024-01-02\n`,
      headers: { "Content-Type": "text/csv" },
    });
  const body = validBody(route);
  // Required query parameters, so that a 404 comes from isolation, not from the query's validation.
  const query = ["accountRealized", "clientRealized"].includes(route.operationId) ? "?year=2025" : "";
  return send(app, route.method, `${path}${query}`, {
    ...(key !== undefined ? { key } : {}),
    ...(body !== undefined ? { json: body } : {}),
  });
}

/** Everything organization B has, as the service reads it. */
async function snapshotB(): Promise<string> {
  return JSON.stringify({
    clients: await listClients(t.ctx, t.orgB.uuid),
    configs: await listPortfolioConfigs(t.ctx, t.orgB.uuid),
    assetClasses: await listAssetClasses(t.ctx, t.orgB.uuid, true),
    proposals: (await t.store.proposals.list(t.orgB.uuid, b.accountUuid)).map((p) => p.uuid),
    themes: (await t.store.themes.list(t.orgB.uuid)).map(async (x) => [
      x.name,
      (await t.store.themes.revisions(x.uuid)).length,
    ]),
    backtests: (await t.store.backtestJobs.list(t.orgB.uuid)).map((j) => [j.id, j.status, j.cancelRequested]),
    riskModels: await listRiskModels(t.ctx, t.orgB.uuid),
    lots: (await t.store.accounts.lots(b.accountUuid)).map((l) => [l.themeAssetId, l.quantity.toString()]),
  });
}

const UUID_RE = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

/** Same status and code, and the same message and details once the uuids they show are blanked. */
function expectSameAnswer(actual: Answer, reference: Answer): void {
  expect(actual.status, `${actual.text} vs ${reference.text}`).toBe(reference.status);
  const x = envelope(actual);
  const y = envelope(reference);
  expect(x.code).toBe(y.code);
  expect(x.message.replace(UUID_RE, "<uuid>")).toBe(y.message.replace(UUID_RE, "<uuid>"));
  expect(JSON.stringify(x.details ?? []).replace(UUID_RE, "<uuid>")).toBe(
    JSON.stringify(y.details ?? []).replace(UUID_RE, "<uuid>"),
  );
}

const protectedRoutes = () => API_ROUTES.filter((r) => !r.public);

describe("authentication on every route", () => {
  it("answers 401 unauthorized with a challenge when the key is missing", async () => {
    const before = await snapshotB();
    for (const route of protectedRoutes()) {
      const answer = await call(route, concrete(route, valuesOf(t.orgA.uuid, a)));
      expect(answer.status, `${route.method} ${route.path}`).toBe(401);
      expect(envelope(answer)).toEqual({
        code: "unauthorized",
        message:
          "Missing X-Api-Key header. Send an API key of your organization in the X-Api-Key header (issue one with `lotwise keys create`).",
      });
      expect(answer.headers.get("www-authenticate")).toBe('ApiKey realm="lotwise", header="X-Api-Key"');
    }
    expect(await snapshotB()).toBe(before);
    expect((await listClients(t.ctx, t.orgA.uuid)).some((c) => c.external_id === "intruder")).toBe(false);
  });

  it("answers 401 with one message for malformed, unknown and revoked keys on every route", async () => {
    const revoked = await t.store.apiKeys.create(t.orgA.uuid, "to revoke");
    await t.store.apiKeys.revoke(t.orgA.uuid, revoked.record.id);
    // Same format as a real key (lw_<12 hex>_<43 base64url>), never issued.
    const unknown = `lw_${"0".repeat(12)}_${"A".repeat(43)}`;
    // A real key with one character changed: right id, wrong secret.
    const tampered = `${t.orgA.apiKey.slice(0, -1)}${t.orgA.apiKey.endsWith("A") ? "B" : "A"}`;
    for (const route of protectedRoutes()) {
      const messages = new Set<string>();
      for (const key of ["not-a-key", unknown, tampered, revoked.key]) {
        const answer = await call(route, concrete(route, valuesOf(t.orgA.uuid, a)), key);
        expect(answer.status, `${route.method} ${route.path} with ${key}`).toBe(401);
        const e = envelope(answer);
        expect(e.code).toBe("unauthorized");
        messages.add(e.message);
      }
      expect([...messages]).toEqual([
        "Invalid API key: it is malformed, unknown or revoked. Send a current key of your organization in the X-Api-Key header (list keys with `lotwise keys list`).",
      ]);
    }
  });

  it("takes a revocation into account on the very next request, even for a key just used", async () => {
    const issued = await t.store.apiKeys.create(t.orgA.uuid, "short-lived");
    const path = `/api/v1/custom/org/${t.orgA.uuid}/clients/`;
    expect((await send(app, "GET", path, { key: issued.key })).status).toBe(200);
    expect((await send(app, "GET", path, { key: issued.key })).status).toBe(200);
    await t.store.apiKeys.revoke(t.orgA.uuid, issued.record.id);
    expect((await send(app, "GET", path, { key: issued.key })).status).toBe(401);
  });

  it("looks a key up in the store once while the store is unchanged", async () => {
    const lookups = vi.spyOn(t.store.apiKeys, "authenticate");
    try {
      const path = `/api/v1/custom/org/${t.orgA.uuid}/portfolio_configs/`;
      // Warm up: the first use in a minute records last_used_at, which is a write.
      for (let i = 0; i < 2; i++) {
        await send(app, "GET", path, { key: t.orgA.apiKey });
        await new Promise((r) => setImmediate(r));
      }
      lookups.mockClear();
      for (let i = 0; i < 5; i++)
        expect((await send(app, "GET", path, { key: t.orgA.apiKey })).status).toBe(200);
      expect(lookups).not.toHaveBeenCalled();
      // Any write (here an unrelated client) makes the server check the key again.
      await t.store.clients.create(t.orgB.uuid, { externalId: "unrelated" });
      expect((await send(app, "GET", path, { key: t.orgA.apiKey })).status).toBe(200);
      expect(lookups).toHaveBeenCalledTimes(1);
    } finally {
      lookups.mockRestore();
    }
  });

  it("serves the OpenAPI document and the docs page without a key", async () => {
    expect((await send(app, "GET", "/api/v1/openapi.json")).status).toBe(200);
    expect((await send(app, "GET", "/api/v1/docs")).status).toBe(200);
  });

  it("records last_used_at at most once a minute per key, after the response", async () => {
    const issued = await t.store.apiKeys.create(t.orgA.uuid, "usage");
    const lastUsed = async () =>
      (await t.store.apiKeys.list(t.orgA.uuid)).find((k) => k.id === issued.record.id)!.lastUsedAt;
    const tick = () => new Promise((r) => setImmediate(r));
    expect(await lastUsed()).toBeNull();
    const start = t.clock.now().toISOString();
    await send(app, "GET", "/api/v1/me", { key: issued.key });
    await tick();
    expect(await lastUsed()).toBe(start);
    t.clock.advance(59_000);
    await send(app, "GET", "/api/v1/me", { key: issued.key });
    await tick();
    expect(await lastUsed()).toBe(start);
    t.clock.advance(1_000);
    await send(app, "GET", "/api/v1/me", { key: issued.key });
    await tick();
    expect(await lastUsed()).toBe(t.clock.now().toISOString());
  });
});

describe("isolation between organizations on every route", () => {
  it("answers A's key on B's organization paths exactly as on an organization that does not exist", async () => {
    const before = await snapshotB();
    const ghost = crypto.randomUUID();
    const orgRoutes = protectedRoutes().filter((r) => r.path.includes("{organization_uuid}"));
    // Every route but these lives under an organization.
    const global = API_ROUTES.filter((r) => !r.path.includes("{organization_uuid}")).map(
      (r) => r.operationId,
    );
    expect(global.sort()).toEqual(
      [
        "resolveTickers",
        "whoAmI",
        "createTheme",
        "listThemes",
        "getTheme",
        "reviseTheme",
        "evaluateTheme",
        "getThemeConstituents",
        "backtestTheme",
        "searchIndustries",
        "listUniversePresets",
      ].sort(),
    );
    for (const route of orgRoutes) {
      const onB = await call(route, concrete(route, valuesOf(t.orgB.uuid, b)), t.orgA.apiKey);
      const onGhost = await call(
        route,
        concrete(route, { ...valuesOf(t.orgB.uuid, b), organization_uuid: ghost }),
        t.orgA.apiKey,
      );
      expect(onB.status, `${route.method} ${route.path}`).toBe(404);
      expect(envelope(onB)).toEqual({
        code: "organization_not_found",
        message: `Organization ${t.orgB.uuid} not found.`,
      });
      expectSameAnswer(onB, onGhost);
    }
    expect(await snapshotB()).toBe(before);
  });

  it("answers B's resource uuids under A's path exactly as uuids that do not exist", async () => {
    const before = await snapshotB();
    const withResource = protectedRoutes().filter((r) =>
      /\{(uuid|client_uuid|account_uuid|config_uuid|asset_class_uuid|proposal_uuid|theme_uuid|backtest_uuid|risk_model_uuid|run_uuid|job_uuid)\}/.test(
        r.path,
      ),
    );
    expect(withResource.map((r) => r.operationId).sort()).toEqual(
      [
        "getClient",
        "updateClient",
        "deleteClient",
        "createAccount",
        "listAccounts",
        "getAccount",
        "findAccount",
        "getPortfolioConfig",
        "updatePortfolioConfig",
        "getAssetClass",
        "createProposal",
        "getProposal",
        "optimizeAccount",
        "accountDrift",
        "evaluateAccount",
        "harvestScan",
        "importLots",
        "rebalanceAccount",
        "getTheme",
        "reviseTheme",
        "evaluateTheme",
        "getThemeConstituents",
        "backtestTheme",
        "createBacktest",
        "listBacktests",
        "getAccountBacktest",
        "getBacktest",
        "cancelBacktest",
        "getRiskModel",
        "deleteRiskModel",
        "getRebalanceRun",
        "getScanJob",
        "cancelScanJob",
        "getAccountHoldings",
        "executeProposal",
        "recordTrades",
        "listExecutions",
        "importTrades",
        "accountRealized",
        "clientRealized",
      ].sort(),
    );
    for (const route of withResource) {
      // Every resource parameter points at B's resource; the organization is A's own.
      const onB = await call(
        route,
        concrete(route, { ...valuesOf(t.orgB.uuid, b), organization_uuid: t.orgA.uuid }),
        t.orgA.apiKey,
      );
      expect(onB.status, `${route.method} ${route.path}`).toBe(404);
      // The same request with fresh uuids everywhere.
      const ghosts: Record<string, string> = { organization_uuid: t.orgA.uuid };
      for (const name of [
        "uuid",
        "client_uuid",
        "account_uuid",
        "config_uuid",
        "asset_class_uuid",
        "proposal_uuid",
        "theme_uuid",
        "backtest_uuid",
        "risk_model_uuid",
        "run_uuid",
        "job_uuid",
      ])
        ghosts[name] = crypto.randomUUID();
      const onGhost = await call(route, concrete(route, ghosts), t.orgA.apiKey);
      expectSameAnswer(onB, onGhost);
    }
    expect(await snapshotB()).toBe(before);
  });

  it("treats B's resources named in a body of A like resources that do not exist", async () => {
    const before = await snapshotB();
    const key = t.orgA.apiKey;
    const org = `/api/v1/custom/org/${t.orgA.uuid}`;
    const ghost = crypto.randomUUID();
    const cases: { method: string; path: string; body: (ref: string) => unknown; ref: string }[] = [
      {
        method: "PATCH",
        path: `${org}/clients/${a.clientUuid}/`,
        body: (r) => ({ portfolio_config_uuid: r }),
        ref: b.configUuid,
      },
      {
        method: "PATCH",
        path: `${org}/clients/${a.clientUuid}/`,
        body: (r) => ({ asset_class_settings: [{ asset_class_uuid: r }] }),
        ref: b.assetClassUuids[0]!,
      },
      {
        method: "PATCH",
        path: `${org}/clients/${a.clientUuid}/`,
        body: (r) => ({ account_uuid: r }),
        ref: b.accountUuid,
      },
      {
        method: "PATCH",
        path: `${org}/portfolio_configs/${a.configUuid}/`,
        body: (r) => ({ asset_allocations: [{ asset_class_uuid: r, target_allocation: "0.5" }] }),
        ref: b.assetClassUuids[0]!,
      },
      {
        method: "POST",
        path: `${org}/clients/${a.clientUuid}/accounts/`,
        body: (r) => ({ portfolio_config_uuid: r }),
        ref: b.configUuid,
      },
      {
        method: "POST",
        path: `${org}/asset_classes/`,
        body: (r) => ({
          name: "composite",
          is_composite: true,
          asset_allocations: [{ asset_class_uuid: r, target_allocation: "1" }],
        }),
        ref: b.assetClassUuids[0]!,
      },
      {
        method: "POST",
        path: `${org}/asset_classes/`,
        body: (r) => ({
          name: "impl",
          benchmark_index_identifier: "SYNTH500",
          permitted_implementation_uuids: [r],
        }),
        ref: b.assetClassUuids[1]!,
      },
    ];
    for (const c of cases) {
      const onB = await send(app, c.method, c.path, { key, json: c.body(c.ref) });
      const onGhost = await send(app, c.method, c.path, { key, json: c.body(ghost) });
      expect(onB.status, `${c.method} ${c.path} ${JSON.stringify(c.body(c.ref))}`).toBeGreaterThanOrEqual(
        400,
      );
      expectSameAnswer(onB, onGhost);
    }
    expect(await snapshotB()).toBe(before);
  });

  it("lists only the key's organization's data", async () => {
    const key = t.orgA.apiKey;
    const org = `/api/v1/custom/org/${t.orgA.uuid}`;
    const bIds = new Set([b.clientUuid, b.configUuid, ...b.assetClassUuids, riskModels.get(t.orgB.uuid)!]);
    for (const path of ["clients/", "portfolio_configs/", "asset_classes/", "risk_models/"]) {
      const answer = await send(app, "GET", `${org}/${path}`, { key });
      expect(answer.status).toBe(200);
      const ids = (answer.body as { uuid: string }[]).map((x) => x.uuid);
      expect(ids.length).toBeGreaterThan(0);
      expect(ids.filter((id) => bIds.has(id))).toEqual([]);
    }
    const jobs = await send(
      app,
      "GET",
      `${org}/clients/${a.clientUuid}/accounts/${a.accountUuid}/backtests/`,
      {
        key,
      },
    );
    expect(jobs.status).toBe(200);
    expect((jobs.body as { id: string }[]).map((j) => j.id)).toEqual([backtests.get(t.orgA.uuid)]);
  });
});

/** A valid multipart body with CSV file parts for a route whose body takes files. */
function filesForm(route: AnyRoute): FormData {
  const fd = new FormData();
  const file = (part: string, text: string) => fd.append(part, new Blob([text]), `${part}.csv`);
  const [x, y] = [t.usTickers[0]!, t.usTickers[1]!];
  switch (route.operationId) {
    case "createProposal":
      file("weights", `ticker,weight\n${t.usTickers[2]!},0.5\n`);
      break;
    case "importRiskModel":
      for (const [k, v] of Object.entries({
        kind: "vendor",
        name: "intruder",
        as_of_date: "2025-02-28",
        frequency: "annual",
      }))
        fd.append(k, v);
      file("exposures", `asset,market\n${x},1\n${y},1\n`);
      file("covariance", "factor1,factor2,covariance\nmarket,market,0.04\n");
      file("specific_risk", `asset,specific_risk\n${x},0.2\n${y},0.2\n`);
      break;
    default:
      throw new Error(`no files form for ${route.operationId}: add one to this test`);
  }
  return fd;
}

describe("multipart bodies with CSV file parts", () => {
  const withFiles = () => API_ROUTES.filter((r) => Object.keys(r.body?.files ?? {}).length > 0);

  it("covers every route whose body takes file parts", () => {
    expect(withFiles().map((r) => r.operationId)).toEqual(["createProposal", "importRiskModel"]);
  });

  it("answers 401 without a key and 404 across organizations exactly as for a missing one, storing nothing", async () => {
    const before = await snapshotB();
    const modelsOfA = JSON.stringify(await listRiskModels(t.ctx, t.orgA.uuid));
    const ghost = { ...valuesOf(t.orgB.uuid, b), organization_uuid: "00000000-0000-4000-8000-000000000000" };
    for (const route of withFiles()) {
      const noKey = await send(app, route.method, concrete(route, valuesOf(t.orgA.uuid, a)), {
        raw: filesForm(route),
      });
      expect(noKey.status, route.operationId).toBe(401);
      expect(envelope(noKey).code).toBe("unauthorized");
      const onB = await send(app, route.method, concrete(route, valuesOf(t.orgB.uuid, b)), {
        key: t.orgA.apiKey,
        raw: filesForm(route),
      });
      const onGhost = await send(app, route.method, concrete(route, ghost), {
        key: t.orgA.apiKey,
        raw: filesForm(route),
      });
      expect(onB.status, route.operationId).toBe(404);
      expectSameAnswer(onB, onGhost);
    }
    // B's account under A's organization path answers as an account that does not exist.
    const proposal = withFiles().find((r) => r.operationId === "createProposal")!;
    const bUnderA = await send(
      app,
      "POST",
      concrete(proposal, { ...valuesOf(t.orgB.uuid, b), organization_uuid: t.orgA.uuid }),
      { key: t.orgA.apiKey, raw: filesForm(proposal) },
    );
    const missing = await send(
      app,
      "POST",
      concrete(proposal, {
        organization_uuid: t.orgA.uuid,
        client_uuid: "00000000-0000-4000-8000-000000000001",
        account_uuid: "00000000-0000-4000-8000-000000000002",
      }),
      { key: t.orgA.apiKey, raw: filesForm(proposal) },
    );
    expect(bUnderA.status).toBe(404);
    expectSameAnswer(bUnderA, missing);
    expect(await snapshotB()).toBe(before);
    expect(JSON.stringify(await listRiskModels(t.ctx, t.orgA.uuid))).toBe(modelsOfA);
    // The forms are valid: with the right key on the right paths they succeed.
    for (const route of withFiles()) {
      const ok = await send(app, route.method, concrete(route, valuesOf(t.orgA.uuid, a)), {
        key: t.orgA.apiKey,
        raw: filesForm(route),
      });
      expect(ok.status, ok.text).toBe(route.response.status);
    }
  });
});
