/**
 * The response cache never serves one organization's answer to another (issue 12, defect 1: the theme routes carry
 * no organization in their path, and the cache keyed on the path alone handed organization A's theme list,
 * methodology, constituents and backtest to organization B). Every cached GET route of the table is requested by two
 * organizations in alternation, each with its own identifiers and with the other's, through a caching app, and every
 * answer must equal the uncached app's answer to the same request.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { API_ROUTES, createApp, type LotwiseApp } from "../src/server/index.js";
import { importRiskModel } from "../src/service/index.js";
import {
  createTestStore,
  type SeededOrganization,
  seedOrganization,
  type TestOrganization,
  type TestStore,
  vendorModelBody,
} from "./helpers/fixture.js";
import { send } from "./helpers/http.js";

let t: TestStore;
let cached: LotwiseApp;
let uncached: LotwiseApp;
const seeded = new Map<string, SeededOrganization & { riskModelUuid: string }>();

beforeAll(async () => {
  t = await createTestStore();
  for (const org of [t.orgA, t.orgB]) {
    const s = await seedOrganization(t, org);
    const model = await importRiskModel(
      t.ctx,
      org.uuid,
      vendorModelBody(t.usTickers.slice(0, 4), "2025-06-30", `${org.name} vendor model`),
    );
    seeded.set(org.uuid, { ...s, riskModelUuid: model.uuid });
  }
  cached = createApp({ ctx: t.ctx });
  uncached = createApp({ ctx: t.ctx, responseCache: false });
});
afterAll(() => t.close());

/** The concrete path of a route template for `org`, with the identifiers of `owner`'s seeded objects. */
function pathFor(template: string, org: TestOrganization, owner: TestOrganization): string {
  const s = seeded.get(owner.uuid)!;
  const values: Record<string, string> = {
    organization_uuid: org.uuid,
    uuid: s.clientUuid,
    client_uuid: s.clientUuid,
    account_uuid: s.accountUuid,
    config_uuid: s.configUuid,
    asset_class_uuid: s.assetClassUuids[0]!,
    proposal_uuid: s.proposalUuid,
    risk_model_uuid: s.riskModelUuid,
    theme_uuid: s.themeUuid,
  };
  return template.replace(/\{([A-Za-z_]+)\}/g, (_, name: string) => {
    const v = values[name];
    if (v === undefined) throw new Error(`no test value for path parameter ${name} of ${template}`);
    return v;
  });
}

const cachedRoutes = API_ROUTES.filter((r) => r.cache && r.method === "GET");

/** Required query parameters of a cached route ("" for none). */
const requiredQuery = (operationId: string) =>
  ["accountRealized", "clientRealized"].includes(operationId) ? "?year=2025" : "";

describe("response cache across organizations", () => {
  it("covers the theme routes that leaked and every other cached read", () => {
    const ids = cachedRoutes.map((r) => r.operationId);
    expect(ids).toEqual(
      expect.arrayContaining(["listThemes", "getTheme", "getThemeConstituents", "backtestTheme"]),
    );
    expect(ids.length).toBeGreaterThanOrEqual(17);
  });

  it("gives each organization exactly its uncached answer, requests alternating between the two", async () => {
    const orgs = [t.orgA, t.orgB];
    let compared = 0;
    // Three rounds: the first fills the cache, the next two must be served from it, alternating A, B, A, B.
    for (let round = 0; round < 3; round++) {
      for (const route of cachedRoutes) {
        for (const owner of orgs) {
          for (const org of orgs) {
            const path = `${pathFor(route.path, org, owner)}${requiredQuery(route.operationId)}`;
            const want = await send(uncached, "GET", path, { key: org.apiKey });
            const got = await send(cached, "GET", path, { key: org.apiKey });
            expect(
              `${got.status} ${got.text}`,
              `${route.operationId} as ${org.name} on ${owner.name}'s ids`,
            ).toBe(`${want.status} ${want.text}`);
            // A request with the caller's own identifiers succeeds; an object of the other organization is not
            // found (lists have no identifier but the caller's organization, so both callers get their own list).
            const namesObject = /\{(?!organization_uuid\})/.test(route.path);
            const status = org === owner || !namesObject ? 200 : 404;
            expect(got.status, `${route.operationId} ${got.text.slice(0, 200)}`).toBe(status);
            compared++;
          }
        }
      }
    }
    expect(compared).toBe(cachedRoutes.length * 4 * 3);
  });

  it("lists each organization's own themes after the other organization filled the cache", async () => {
    const a = await send(cached, "GET", "/api/v1/themes", { key: t.orgA.apiKey });
    const b = await send(cached, "GET", "/api/v1/themes", { key: t.orgB.apiKey });
    expect(a.status).toBe(200);
    expect(b.status).toBe(200);
    expect(a.text).toContain(seeded.get(t.orgA.uuid)!.themeUuid);
    expect(a.text).not.toContain(seeded.get(t.orgB.uuid)!.themeUuid);
    expect(b.text).toContain(seeded.get(t.orgB.uuid)!.themeUuid);
    expect(b.text).not.toContain(seeded.get(t.orgA.uuid)!.themeUuid);
    // Not even the validator leaks: B's ETag for the list is not A's.
    expect(b.headers.get("etag")).not.toBe(a.headers.get("etag"));
  });

  it("shows a model uploaded as CSV files to its organization's cached list at once, and never to the other", async () => {
    const list = (org: TestOrganization) => `/api/v1/custom/org/${org.uuid}/risk_models/`;
    const before = {
      a: await send(cached, "GET", list(t.orgA), { key: t.orgA.apiKey }),
      b: await send(cached, "GET", list(t.orgB), { key: t.orgB.apiKey }),
    };
    const [x, y] = t.usTickers;
    const fd = new FormData();
    fd.append("kind", "custom");
    fd.append("name", "cached upload");
    fd.append("as_of_date", "2025-06-30");
    fd.append("covariance", new Blob([`,${x},${y}\n${x},0.04,0.01\n${y},0.01,0.09\n`]), "cov.csv");
    const upload = await send(cached, "POST", list(t.orgA), { key: t.orgA.apiKey, raw: fd });
    expect(upload.status, upload.text).toBe(201);
    const uuid = (upload.body as { uuid: string }).uuid;
    const after = {
      a: await send(cached, "GET", list(t.orgA), { key: t.orgA.apiKey }),
      b: await send(cached, "GET", list(t.orgB), { key: t.orgB.apiKey }),
    };
    expect(before.a.text).not.toContain(uuid);
    expect(after.a.text).toContain(uuid);
    expect(after.a.text).toBe((await send(uncached, "GET", list(t.orgA), { key: t.orgA.apiKey })).text);
    expect(after.b.text).toBe(before.b.text);
    expect(after.b.text).not.toContain(uuid);
  });
});
