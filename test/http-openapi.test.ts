/**
 * The OpenAPI 3.1 document generated from the route table and the contract, and the offline docs page.
 */
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
  defineRoute,
  type LotwiseApp,
  type OpenApiDocument,
  type OpenApiOperation,
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

describe("docs page", () => {
  it("lists every operation and schema of the document", () => {
    for (const { path, op } of operations(doc)) {
      expect(html).toContain(`id="op-${op.operationId}"`);
      expect(html).toContain(path.replace(/&/g, "&amp;"));
    }
    for (const name of Object.keys(doc.components.schemas)) expect(html).toContain(`id="schema-${name}"`);
  });

  it("works offline: no script, stylesheet, font or image from anywhere, and no absolute URL", () => {
    expect(html).not.toMatch(/https?:\/\//i);
    expect(html).not.toMatch(/<script|<link|<img|<iframe|@import|url\(/i);
    expect(html).toMatch(/^<!doctype html>/);
  });

  it("escapes text taken from the document", () => {
    expect(html).not.toMatch(
      /<\/?(?!html|head|meta|title|style|body|h[1-4]|p|ul|li|a|span|code|small|section|table|tr|th|td|pre|details|summary)[a-z]+[\s>]/i,
    );
  });
});
