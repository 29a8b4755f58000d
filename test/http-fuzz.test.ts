/**
 * Mutated request bodies against every route that takes one: starting from a valid body per route, one value
 * somewhere in it is replaced (null, wrong type, huge or negative numbers, empty or very long strings, deep
 * nesting), removed, or an unknown key added. Whatever the service makes of it, the answer is never a 5xx: bad input
 * is a 4xx with the error envelope, and acceptable input is served.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRandom } from "../src/core/random.js";
import { API_ROUTES, createApp, type LotwiseApp } from "../src/server/index.js";
import {
  configCreateBody,
  createTestStore,
  dividendThemeBody,
  type SeededOrganization,
  seedOrganization,
  type TestStore,
  vendorModelBody,
} from "./helpers/fixture.js";
import { send } from "./helpers/http.js";

let t: TestStore;
let app: LotwiseApp;
let seeded: SeededOrganization;

beforeAll(async () => {
  t = await createTestStore();
  seeded = await seedOrganization(t, t.orgA);
  // No rate limit: hundreds of mutated requests to the expensive routes with one key would meet the burst limit
  // (the limiter has its own tests, test/http-limits.test.ts) and make a valid request answer 429.
  app = createApp({ ctx: t.ctx, log: () => {}, rateLimit: false });
});
afterAll(() => t.close());

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type Rng = ReturnType<typeof createRandom>;

/** A valid body per operation (the route's own tests use the same shapes). */
function validBody(operationId: string): Json {
  const us = t.usTickers;
  switch (operationId) {
    case "createClient":
    case "updateClient":
      return { external_id: "fuzz", metadata: { tier: "B" } };
    case "createAccount":
      return {
        name: "Fuzz",
        cash_value_usd: "1000",
        holdings: {
          tax_lots: [{ theme_asset_id: us[0]!, quantity: "3", cost_basis: "10", trade_date: "2024-01-02" }],
        },
      };
    case "updateAccount":
      return { name: "Renamed", cash_value_usd: "2000" };
    case "createPortfolioConfig":
    case "updatePortfolioConfig":
      return configCreateBody(t, "fuzz config") as unknown as Json;
    case "createAssetClass":
      return { name: "Fuzz class", benchmark_index_identifier: "SYNTH500" };
    case "createProposal":
      return {
        optimized_weights: [
          { ticker: us[2]!, weight: "0.3" },
          { ticker: us[3]!, weight: "0.3" },
        ],
      };
    case "optimizeAccount":
    case "rebalanceAccount":
      return { as_of_date: "2025-06-30" };
    case "importRiskModel":
      return vendorModelBody(us.slice(0, 8), "2025-06-30", "fuzz") as unknown as Json;
    case "resolveTickers":
      return { tickers: [us[0]!, us[1]!.split(":")[0]!, "NOPE"] };
    case "searchIndustries":
      return { query: "software" };
    case "evaluateTheme":
      return { as_of_date: "2025-06-30" };
    case "reviseTheme":
      return { filters: ["dividend_yield > 0.01"], selection: { mode: "top_n", value: 5 } };
    case "createTheme":
      return dividendThemeBody("Fuzz theme") as unknown as Json;
    case "createBacktest":
      return { start_date: "2025-01-02", end_date: "2025-06-30" };
    case "scanAccounts":
      return { client_uuid: seeded.clientUuid, limit: 5, min_loss_usd: "1" };
    case "startScanJob":
      return { client_uuid: seeded.clientUuid, min_loss_usd: "1" };
    case "runRebalance":
      return { when: "breached", client_uuid: seeded.clientUuid, max_accounts: 1 };
    case "applyCorporateActions":
      return { through: "2025-12-31", dry_run: true };
    case "executeProposal":
      return { trade_date: "2025-06-30" };
    case "recordTrades":
      return {
        trades: [
          {
            execution_id: "fuzz-1",
            side: "buy",
            ticker: us[0]!,
            trade_date: "2025-06-02",
            quantity: "1",
            price: "10",
          },
        ],
      };
    default:
      return {};
  }
}

const REPLACEMENTS: ((r: Rng) => Json)[] = [
  () => null,
  () => -1,
  () => 0,
  () => 1e308,
  () => -1e-308,
  () => "",
  () => "x".repeat(5000),
  () => "1e999",
  () => "NaN",
  () => "-0",
  () => "2025-02-30",
  () => [],
  () => ({}),
  () => true,
  (r) => r.next() * 10 - 5,
  (r) => Array.from({ length: r.int(1, 3) }, () => ({ a: [[[]]] })),
  () => "AAPL:XNAS",
  () => "00000000-0000-0000-0000-000000000000",
];

/** Every path to a value in `v` (objects by key, arrays by index), the root included. */
function paths(v: Json, at: (string | number)[] = []): (string | number)[][] {
  const out = [at];
  if (Array.isArray(v)) for (const [i, x] of v.entries()) out.push(...paths(x, [...at, i]));
  else if (v !== null && typeof v === "object")
    for (const [k, x] of Object.entries(v)) out.push(...paths(x, [...at, k]));
  return out;
}

/** `body` with one random change (`r.int(lo, hi)` draws from lo..hi-1). */
function mutate(body: Json, r: Rng): Json {
  const copy = structuredClone(body);
  const all = paths(copy);
  const path = all[r.int(0, all.length)]!;
  const kind = r.int(0, 10);
  if (path.length === 0)
    return kind < 5
      ? REPLACEMENTS[r.int(0, REPLACEMENTS.length)]!(r)
      : { ...((copy as object) ?? {}), unknown_field: 1 };
  let parent = copy as Record<string | number, Json>;
  for (const k of path.slice(0, -1)) parent = parent[k] as Record<string | number, Json>;
  const last = path[path.length - 1]!;
  if (kind === 0 && !Array.isArray(parent)) delete parent[last];
  else if (
    kind === 1 &&
    parent[last] !== null &&
    typeof parent[last] === "object" &&
    !Array.isArray(parent[last])
  )
    (parent[last] as Record<string, Json>).unexpected = "x";
  else parent[last] = REPLACEMENTS[r.int(0, REPLACEMENTS.length)]!(r);
  return copy;
}

function pathOf(template: string): string {
  const ids: Record<string, string> = {
    organization_uuid: t.orgA.uuid,
    uuid: seeded.clientUuid,
    client_uuid: seeded.clientUuid,
    account_uuid: seeded.accountUuid,
    config_uuid: seeded.configUuid,
    asset_class_uuid: seeded.assetClassUuids[0]!,
    theme_uuid: seeded.themeUuid,
    proposal_uuid: seeded.proposalUuid,
  };
  return template.replace(
    /\{(\w+)\}/g,
    (_m, name: string) => ids[name] ?? "00000000-0000-4000-8000-000000000000",
  );
}

describe("mutated request bodies", () => {
  const withBody = API_ROUTES.filter((r) => r.body !== undefined);

  it("covers every route that takes a body", () => {
    expect(withBody.length).toBeGreaterThanOrEqual(15);
    for (const r of withBody) expect(validBody(r.operationId), r.operationId).not.toEqual({});
  });

  it.each(withBody.map((r) => [r.operationId, r] as const))("%s never answers 5xx", async (_id, route) => {
    const r = createRandom(route.operationId.length * 7919 + 17);
    const base = validBody(route.operationId);
    const path = pathOf(route.path);
    for (let k = 0; k < 40; k++) {
      const body = k === 0 ? base : mutate(base, r);
      const a = await send(app, route.method, path, { key: t.orgA.apiKey, json: body });
      expect(
        a.status,
        `${route.method} ${route.path} ${JSON.stringify(body).slice(0, 300)} -> ${a.text.slice(0, 300)}`,
      ).toBeLessThan(500);
      if (a.status >= 400) expect((a.body as { error?: unknown }).error, a.text.slice(0, 200)).toBeDefined();
    }
  });
});

/** Valid fields and CSV files of a multipart body per route whose body takes file parts. */
function validFiles(operationId: string): { fields: Record<string, string>; files: Record<string, string> } {
  const us = t.usTickers.slice(0, 6);
  switch (operationId) {
    case "createProposal":
      return { fields: {}, files: { weights: `ticker,weight\n${us[2]},30%\n${us[3]},0.3\n` } };
    case "importRiskModel": {
      const body = vendorModelBody(us, "2025-06-30", "fuzz files");
      return {
        fields: {
          kind: "vendor",
          name: "fuzz files",
          as_of_date: "2025-06-30",
          frequency: "daily",
          units: "percent",
        },
        files: {
          exposures: `asset,factor,exposure\n${body.exposures.map((e) => `${e.asset},${e.factor},${e.exposure}`).join("\n")}\n`,
          covariance: `factor1,factor2,covariance\n${body.factor_covariance.map((c) => `${c.factor1},${c.factor2},${c.covariance}`).join("\n")}\n`,
          specific_risk: `asset,specific_risk\n${body.specific_risk.map((s) => `${s.asset},${s.specific_risk}`).join("\n")}\n`,
        },
      };
    }
    default:
      return { fields: {}, files: {} };
  }
}

const CELLS = [
  "",
  "x",
  "NaN",
  "1e999",
  "-1",
  '"',
  '"a""b',
  "1,2",
  "\u0000",
  "é",
  "%",
  "AAPL:XNAS",
  "9".repeat(400),
];

/** A CSV text with one random change: a cell replaced, a line dropped or doubled, a column added, or cut short. */
function mutateCsv(text: string, r: Rng): string {
  const lines = text.split("\n");
  const i = r.int(0, lines.length);
  switch (r.int(0, 6)) {
    case 0: {
      const cells = lines[i]!.split(",");
      cells[r.int(0, cells.length)] = CELLS[r.int(0, CELLS.length)]!;
      lines[i] = cells.join(",");
      return lines.join("\n");
    }
    case 1:
      lines.splice(i, 1);
      return lines.join("\n");
    case 2:
      lines.splice(i, 0, lines[i]!);
      return lines.join("\n");
    case 3:
      lines[i] = `${lines[i]},${CELLS[r.int(0, CELLS.length)]}`;
      return lines.join("\n");
    case 4:
      return text.slice(0, r.int(0, text.length));
    default:
      return "";
  }
}

describe("mutated CSV file parts", () => {
  const withFiles = API_ROUTES.filter((r) => Object.keys(r.body?.files ?? {}).length > 0);

  it("covers every route whose body takes file parts", () => {
    expect(withFiles.map((r) => r.operationId)).toEqual(["createProposal", "importRiskModel"]);
    for (const r of withFiles)
      expect(Object.keys(validFiles(r.operationId).files).sort(), r.operationId).toEqual(
        Object.keys(r.body!.files!).sort(),
      );
  });

  it.each(withFiles.map((r) => [r.operationId, r] as const))("%s never answers 5xx", async (_id, route) => {
    const r = createRandom(route.operationId.length * 104729 + 3);
    const { fields, files } = validFiles(route.operationId);
    const parts = Object.keys(files);
    const path = pathOf(route.path);
    for (let k = 0; k < 40; k++) {
      const fd = new FormData();
      for (const [name, value] of Object.entries(fields)) fd.append(name, value);
      const changed = k === 0 ? undefined : parts[r.int(0, parts.length)];
      for (const part of parts) {
        const text = part === changed ? mutateCsv(files[part]!, r) : files[part]!;
        // Now and then a file of bytes that are not UTF-8.
        const blob =
          part === changed && k % 9 === 0
            ? new Blob([new Uint8Array([0xff, 0xfe, 0x00, 0xc3])])
            : new Blob([text]);
        fd.append(part, blob, `${part}.csv`);
      }
      const a = await send(app, route.method, path, { key: t.orgA.apiKey, raw: fd });
      if (k === 0) expect(a.status, a.text.slice(0, 300)).toBe(route.response.status);
      expect(a.status, `${route.operationId} ${changed}: ${a.text.slice(0, 300)}`).toBeLessThan(500);
      if (a.status >= 400) expect((a.body as { error?: unknown }).error, a.text.slice(0, 200)).toBeDefined();
    }
  });
});
