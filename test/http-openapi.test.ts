/**
 * The OpenAPI 3.1 document generated from the route table and the contract, and the docs page (Swagger UI from
 * swagger-ui-dist, every asset served by the app itself: no network).
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { gunzipSync } from "node:zlib";
import { Validator } from "@seriousme/openapi-schema-validator";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  CONTRACT_EXAMPLES,
  CONTRACT_SCHEMAS,
  type ThemeMethodology,
  themeMethodologySchema,
} from "../src/contract/index.js";
import {
  API_ROUTES,
  buildOpenApiDocument,
  createApp,
  DOCS_ASSET_NAMES,
  defineRoute,
  type LotwiseApp,
  type OpenApiDocument,
  type OpenApiOperation,
  swaggerUiVersion,
} from "../src/server/index.js";
import { createTestStore, type TestStore } from "./helpers/fixture.js";
import { send } from "./helpers/http.js";

let t: TestStore;
let app: LotwiseApp;
let doc: OpenApiDocument;
let html: string;

beforeAll(async () => {
  t = await createTestStore({ withMarket: false });
  app = createApp({ ctx: t.ctx });
  const served = await send(app, "GET", "/api/v1/openapi.json");
  expect(served.status).toBe(200);
  expect(served.headers.get("content-type")).toBe("application/json; charset=utf-8");
  doc = served.body as OpenApiDocument;
  const page = await send(app, "GET", "/api/v1/docs");
  expect(page.status).toBe(200);
  expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8");
  html = page.text;
});
afterAll(() => t.close());

function operations(d: OpenApiDocument): { method: string; path: string; op: OpenApiOperation }[] {
  return Object.entries(d.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, op]) => ({ method, path, op })),
  );
}

/** Every `$ref` string in a value. */
function refs(value: unknown, out: string[] = []): string[] {
  if (Array.isArray(value)) for (const v of value) refs(v, out);
  else if (value && typeof value === "object")
    for (const [k, v] of Object.entries(value)) {
      if (k === "$ref" && typeof v === "string") out.push(v);
      else refs(v, out);
    }
  return out;
}

describe("OpenAPI document", () => {
  it("validates as OpenAPI 3.1", async () => {
    const validator = new Validator();
    const result = await validator.validate(doc as unknown as Record<string, unknown>);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe("3.1");
    expect(doc.openapi).toBe("3.1.0");
  });

  it("declares the spec's security scheme and requires it by default", () => {
    expect(doc.components.securitySchemes.ProAPIToken).toMatchObject({
      type: "apiKey",
      in: "header",
      name: "X-Api-Key",
    });
    expect(doc.security).toEqual([{ ProAPIToken: [] }]);
    const publicOps = operations(doc).filter((o) => o.op.security !== undefined);
    expect(publicOps.map((o) => o.path).sort()).toEqual(["/api/v1/docs", "/api/v1/openapi.json"]);
    for (const o of publicOps) expect(o.op.security).toEqual([]);
  });

  it("has every route of the table, with the spec's paths written exactly", () => {
    const listed = operations(doc).map((o) => `${o.method.toUpperCase()} ${o.path}`);
    for (const r of API_ROUTES) expect(listed).toContain(`${r.method} ${r.path}`);
    expect(listed).toHaveLength(API_ROUTES.length + 2);
    const spec: [number, string][] = operations(doc)
      .filter((o) => o.op["x-lotwise-spec-endpoint"] !== undefined)
      .map((o) => [o.op["x-lotwise-spec-endpoint"]!, `${o.method.toUpperCase()} ${o.path}`]);
    expect(spec.sort((x, y) => x[0] - y[0])).toEqual([
      [
        1,
        "POST /api/v1/custom/org/{organization_uuid}/clients/{client_uuid}/accounts/{account_uuid}/proposal/",
      ],
      [
        2,
        "POST /api/v1/custom/org/{organization_uuid}/clients/{client_uuid}/accounts/{account_uuid}/backtests/",
      ],
      [3, "GET /api/v1/custom/org/{organization_uuid}/portfolio_configs/"],
      [4, "PATCH /api/v1/custom/org/{organization_uuid}/portfolio_configs/{config_uuid}/"],
      [5, "GET /api/v1/custom/org/{organization_uuid}/asset_classes/{asset_class_uuid}/"],
      [6, "PATCH /api/v1/custom/org/{organization_uuid}/clients/{uuid}/"],
      [7, "GET /api/v1/themes/{theme_uuid}/constituents"],
      [8, "GET /api/v1/themes/{theme_uuid}/backtest"],
      [9, "POST /api/v1/catalog/industry"],
      [10, "GET /api/v1/catalog/universe_presets"],
    ]);
    for (const o of operations(doc)) {
      if (o.path.startsWith("/api/v1/custom/org/")) expect(o.path.endsWith("/"), o.path).toBe(true);
      else expect(o.path.endsWith("/"), o.path).toBe(false);
    }
    const extensions = operations(doc).filter((o) => o.op["x-lotwise-extension"]);
    expect(extensions).toHaveLength(API_ROUTES.length - 10);
  });

  it("resolves every $ref and names request and response bodies by their contract ids", () => {
    const targets = refs(doc);
    expect(targets.length).toBeGreaterThan(50);
    for (const ref of targets) {
      const [, section, name] = /^#\/components\/(schemas|responses)\/(.+)$/.exec(ref) ?? [];
      expect(section, ref).toBeDefined();
      expect(doc.components[section as "schemas" | "responses"][name!], ref).toBeDefined();
    }
    const patch =
      doc.paths["/api/v1/custom/org/{organization_uuid}/portfolio_configs/{config_uuid}/"]!.patch!;
    expect(patch.requestBody).toMatchObject({
      required: true,
      content: { "application/json": { schema: { $ref: "#/components/schemas/PortfolioConfigWrite" } } },
    });
    expect(patch.responses["200"]).toMatchObject({
      content: { "application/json": { schema: { $ref: "#/components/schemas/PortfolioConfigRead" } } },
    });
    for (const id of Object.keys(CONTRACT_SCHEMAS)) expect(doc.components.schemas[id], id).toBeDefined();
  });

  it("documents the error responses of each operation with the envelope", () => {
    for (const { path, method, op } of operations(doc)) {
      const statuses = Object.keys(op.responses);
      expect(statuses, `${method} ${path}`).toContain("500");
      if (op.security === undefined) expect(statuses).toContain("401");
      if (op.requestBody) for (const s of ["400", "413", "415"]) expect(statuses).toContain(s);
      if (path.includes("{organization_uuid}")) expect(statuses).toContain("404");
    }
    for (const [name, response] of Object.entries(doc.components.responses)) {
      expect(response, name).toMatchObject({
        content: { "application/json": { schema: { $ref: "#/components/schemas/ErrorEnvelope" } } },
      });
      const example = (response as { content: { "application/json": { example: unknown } } }).content[
        "application/json"
      ].example;
      expect(CONTRACT_SCHEMAS.ErrorEnvelope.safeParse(example).success, name).toBe(true);
    }
    expect(doc.components.responses.Unauthorized).toMatchObject({ headers: { "WWW-Authenticate": {} } });
    expect(doc.components.responses.MethodNotAllowed).toMatchObject({ headers: { Allow: {} } });
  });

  it("gives as the 400 example the envelope the server answers to that bad weight", async () => {
    const example = (
      doc.components.responses.BadRequest as { content: { "application/json": { example: unknown } } }
    ).content["application/json"].example;
    const account = `/api/v1/custom/org/${t.orgA.uuid}/clients/${crypto.randomUUID()}/accounts/${crypto.randomUUID()}`;
    const weights = [
      { ticker: "AAPL", weight: "0.2" },
      { ticker: "MSFT", weight: "0.2" },
      { ticker: "NVDA", weight: "12.5" },
    ];
    const answer = await send(app, "POST", `${account}/proposal/`, {
      key: t.orgA.apiKey,
      json: { optimized_weights: weights },
    });
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual(example);
  });

  it("carries the contract's examples, each valid for its schema", () => {
    let count = 0;
    for (const { op } of operations(doc)) {
      const bodies = [
        (
          op.requestBody as
            | { content?: Record<string, { schema?: { $ref?: string }; example?: unknown }> }
            | undefined
        )?.content?.["application/json"],
        ...Object.values(op.responses).map(
          (r) =>
            (r as { content?: Record<string, { schema?: { $ref?: string }; example?: unknown }> }).content?.[
              "application/json"
            ],
        ),
      ];
      for (const media of bodies) {
        if (!media?.schema?.$ref || media.example === undefined) continue;
        const id = media.schema.$ref
          .split("/")
          .pop()!
          .replace(/Input$/, "") as keyof typeof CONTRACT_SCHEMAS;
        expect(media.example).toEqual(CONTRACT_EXAMPLES[id as keyof typeof CONTRACT_EXAMPLES]);
        expect(CONTRACT_SCHEMAS[id].safeParse(media.example).success, id).toBe(true);
        count++;
      }
    }
    expect(count).toBeGreaterThanOrEqual(15);
  });

  it("documents the risk-model extensions with their contract schemas and the larger body limit", () => {
    const base = "/api/v1/custom/org/{organization_uuid}/risk_models/";
    const collection = doc.paths[base]!;
    const item = doc.paths[`${base}{risk_model_uuid}/`]!;
    expect(Object.keys(collection).sort()).toEqual(["get", "post"]);
    expect(Object.keys(item).sort()).toEqual(["delete", "get"]);
    expect(collection.post!.operationId).toBe("importRiskModel");
    expect(
      (collection.post!.requestBody as { content: Record<string, { schema: { $ref: string } }> }).content[
        "application/json"
      ]!.schema.$ref,
    ).toMatch(/^#\/components\/schemas\/RiskModelImport(Input)?$/);
    expect(collection.post!.responses["201"]).toMatchObject({
      content: { "application/json": { schema: { $ref: "#/components/schemas/RiskModel" } } },
    });
    expect(collection.post!.description).toContain("16 MiB");
    expect(collection.get!.responses["200"]).toMatchObject({
      content: { "application/json": { schema: { $ref: "#/components/schemas/RiskModelList" } } },
    });
    expect(Object.keys(item.delete!.responses)).toContain("204");
    expect(Object.keys(item.get!.responses)).toEqual(expect.arrayContaining(["200", "401", "404"]));
    for (const op of [collection.post!, collection.get!, item.get!, item.delete!])
      expect(op["x-lotwise-extension"]).toBe(true);
  });

  it("converts request bodies as input (defaults optional) and responses as output", () => {
    const create = defineRoute<ThemeMethodology>({
      method: "POST",
      path: "/api/v1/themes",
      operationId: "createTheme",
      tag: "Themes",
      summary: "Create a theme",
      body: { schema: themeMethodologySchema, accept: ["json", "form", "multipart"] },
      response: { status: 201, schema: themeMethodologySchema, description: "The methodology." },
      handler: ({ body }) => body,
    });
    const d = buildOpenApiDocument([create]);
    const op = d.paths["/api/v1/themes"]!.post!;
    const content = (op.requestBody as { content: Record<string, { schema: { $ref: string } }> }).content;
    expect(Object.keys(content)).toEqual([
      "application/json",
      "application/x-www-form-urlencoded",
      "multipart/form-data",
    ]);
    expect(content["application/json"]!.schema.$ref).toBe("#/components/schemas/ThemeMethodologyInput");
    const input = d.components.schemas.ThemeMethodologyInput as { required: string[] };
    const output = d.components.schemas.ThemeMethodology as { required: string[] };
    expect(output.required).toContain("filters");
    expect(input.required).not.toContain("filters");
    expect(op.responses["201"]).toMatchObject({
      content: { "application/json": { schema: { $ref: "#/components/schemas/ThemeMethodology" } } },
    });
  });
});

describe("docs page (Swagger UI from swagger-ui-dist, served by the app)", () => {
  /** The src/href attributes of the page. */
  const references = () => [...html.matchAll(/\s(?:src|href)="([^"]*)"/g)].map((m) => m[1]!);
  /** A reference of the page as the browser resolves it against the page's URL. */
  const resolved = (ref: string) => new URL(ref, "http://lotwise.test/api/v1/docs").pathname;

  it("answers with a strict Content-Security-Policy and no-sniff, without an API key", async () => {
    const page = await send(app, "GET", "/api/v1/docs");
    expect(page.status).toBe(200);
    const csp = page.headers.get("content-security-policy")!;
    const directives = new Map(
      csp.split(";").map((d) => {
        const [name, ...values] = d.trim().split(/\s+/);
        return [name!, values] as const;
      }),
    );
    expect(directives.get("default-src")).toEqual(["'none'"]);
    expect(directives.get("script-src")).toEqual(["'self'"]);
    expect(directives.get("style-src")).toEqual(["'self'"]);
    expect(directives.get("connect-src")).toEqual(["'self'"]);
    expect(directives.get("img-src")).toEqual(["'self'", "data:"]);
    expect(directives.get("frame-ancestors")).toEqual(["'none'"]);
    expect(directives.get("base-uri")).toEqual(["'none'"]);
    expect(csp).not.toMatch(/unsafe-inline|unsafe-eval|https?:|\*/);
    expect(page.headers.get("x-content-type-options")).toBe("nosniff");
    expect(page.headers.get("referrer-policy")).toBe("no-referrer");
  });

  it("references only assets of our own origin, each served with its content type", async () => {
    expect(html).toMatch(/^<!doctype html>/);
    expect(html).not.toMatch(/https?:\/\/|\/\/[a-z]/i);
    const refs = references();
    expect(refs.length).toBeGreaterThanOrEqual(6);
    const expected: Record<string, string> = {
      "/api/v1/docs/assets/swagger-ui.css": "text/css; charset=utf-8",
      "/api/v1/docs/assets/lotwise-docs.css": "text/css; charset=utf-8",
      "/api/v1/docs/assets/swagger-ui-bundle.js": "text/javascript; charset=utf-8",
      "/api/v1/docs/assets/lotwise-docs.js": "text/javascript; charset=utf-8",
      "/api/v1/docs/assets/favicon-32x32.png": "image/png",
      "/api/v1/docs/assets/favicon-16x16.png": "image/png",
      "/api/v1/openapi.json": "application/json; charset=utf-8",
    };
    expect(new Set(refs.map(resolved))).toEqual(new Set(Object.keys(expected)));
    for (const path of Object.keys(expected)) {
      const res = await app.request(path);
      expect(res.status, path).toBe(200);
      expect(res.headers.get("content-type"), path).toBe(expected[path]);
      expect((await res.arrayBuffer()).byteLength, path).toBeGreaterThan(50);
    }
  });

  it("runs no inline script or style: every script has a src and is empty", () => {
    const scripts = [...html.matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/g)];
    expect(scripts).toHaveLength(2);
    for (const [, attrs, body] of scripts) {
      expect(attrs).toMatch(/\ssrc="docs\/assets\/[a-z0-9.-]+\.js"/);
      expect(body).toBe("");
    }
    expect(html).not.toMatch(/<style|\sstyle=|\son[a-z]+=/i);
  });

  it("loads the document from the existing route and the Swagger UI of the installed package", async () => {
    const root = /<div id="swagger-ui" data-openapi="([^"]+)">/.exec(html);
    expect(resolved(root![1]!)).toBe("/api/v1/openapi.json");
    const init = await (await app.request("/api/v1/docs/assets/lotwise-docs.js")).text();
    expect(init).toContain('getAttribute("data-openapi")');
    expect(init).toContain("SwaggerUIBundle(");
    // No call to the public validator (nor its badge image): the page stays offline.
    expect(init).toContain("validatorUrl: null");
    const bundle = await (await app.request("/api/v1/docs/assets/swagger-ui-bundle.js")).text();
    const { version } = JSON.parse(
      readFileSync(createRequire(import.meta.url).resolve("swagger-ui-dist/package.json"), "utf8"),
    ) as { version: string };
    expect(swaggerUiVersion()).toBe(version);
    expect(bundle).toBe(
      readFileSync(createRequire(import.meta.url).resolve("swagger-ui-dist/swagger-ui-bundle.js"), "utf8"),
    );
    const png = new Uint8Array(
      await (await app.request("/api/v1/docs/assets/favicon-32x32.png")).arrayBuffer(),
    );
    expect([...png.slice(0, 4)]).toEqual([0x89, 0x50, 0x4e, 0x47]);
  });

  it("sends assets gzip-compressed when accepted, and 304 to a client holding them", async () => {
    const path = "/api/v1/docs/assets/swagger-ui.css";
    const plain = await app.request(path);
    const text = await plain.text();
    const zipped = await app.request(path, { headers: { "accept-encoding": "gzip" } });
    expect(zipped.headers.get("content-encoding")).toBe("gzip");
    const bytes = new Uint8Array(await zipped.arrayBuffer());
    expect(bytes.byteLength).toBeLessThan(text.length / 3);
    expect(gunzipSync(bytes).toString("utf8")).toBe(text);
    const etag = plain.headers.get("etag")!;
    expect(etag).not.toBe(zipped.headers.get("etag"));
    const again = await app.request(path, { headers: { "if-none-match": etag } });
    expect(again.status).toBe(304);
    expect(plain.headers.get("content-security-policy")).toContain("default-src 'none'");
  });

  it("serves nothing but its listed files under the assets path", async () => {
    for (const path of [
      "/api/v1/docs/assets/package.json",
      "/api/v1/docs/assets/index.html",
      "/api/v1/docs/assets/swagger-initializer.js",
      "/api/v1/docs/assets/..%2fpackage.json",
      "/api/v1/docs/assets/..%2f..%2f..%2fpackage.json",
      "/api/v1/docs/assets/constructor",
      "/api/v1/docs/assets/__proto__",
    ]) {
      const res = await send(app, "GET", path);
      expect(res.status, path).toBe(404);
      expect((res.body as { error: { code: string } }).error.code, path).toBe("not_found");
    }
    expect([...DOCS_ASSET_NAMES].sort()).toEqual([
      "favicon-16x16.png",
      "favicon-32x32.png",
      "lotwise-docs.css",
      "lotwise-docs.js",
      "swagger-ui-bundle.js",
      "swagger-ui.css",
    ]);
  });
});

describe("request examples for the renderer", () => {
  it("declares the X-Api-Key scheme that Swagger UI's Authorize box fills", () => {
    expect(Object.keys(doc.components.securitySchemes)).toEqual(["ProAPIToken"]);
    expect(doc.components.securitySchemes.ProAPIToken).toEqual({
      type: "apiKey",
      in: "header",
      name: "X-Api-Key",
      description: expect.stringContaining("API key"),
    });
  });

  it("has a valid example for every JSON request body, the main POSTs included", () => {
    const withExample: string[] = [];
    for (const { method, op } of operations(doc)) {
      const json = (
        op.requestBody as
          | { content?: Record<string, { schema: { $ref: string }; example?: unknown }> }
          | undefined
      )?.content?.["application/json"];
      if (!json) continue;
      expect(json.example, `${method} ${op.operationId}`).toBeDefined();
      const id = json.schema.$ref
        .split("/")
        .pop()!
        .replace(/Input$/, "") as keyof typeof CONTRACT_SCHEMAS;
      expect(CONTRACT_SCHEMAS[id].safeParse(json.example).success, id).toBe(true);
      withExample.push(op.operationId);
    }
    for (const main of [
      "createProposal",
      "createBacktest",
      "optimizeAccount",
      "rebalanceAccount",
      "createClient",
      "createAccount",
      "createPortfolioConfig",
      "updatePortfolioConfig",
      "createAssetClass",
      "createTheme",
      "searchIndustries",
      "scanAccounts",
      "runRebalance",
      "importRiskModel",
      "recordTrades",
    ])
      expect(withExample, main).toContain(main);
  });
});
