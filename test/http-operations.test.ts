/**
 * The operation table (service/operations.ts) is the one declaration of every operation: the HTTP routes, both
 * Backends and the route and error-code tables of docs/http.md are derived from it. These tests check the
 * derivations and the declared error codes: docs/http.md holds exactly the generated text (`npm run docs:http`
 * rewrites it), each Backend has one method per operation, and an operation asked for resources that do not exist
 * answers only codes it declares.
 */
import { randomUUID } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from "vitest";
import { RemoteBackend } from "../src/client/index.js";
import { ERROR_CODES } from "../src/contract/index.js";
import { renderHttpDocs } from "../src/server/http-docs.js";
import { API_ROUTES, createApp, type LotwiseApp, routeErrorCodes } from "../src/server/index.js";
import {
  type Backend,
  LocalBackend,
  OPERATION_LIST,
  OPERATIONS,
  type OperationErrorCode,
} from "../src/service/index.js";
import { createTestStore, type TestStore } from "./helpers/fixture.js";
import { send } from "./helpers/http.js";

const HTTP_MD = resolve(import.meta.dirname, "..", "docs", "http.md");

let t: TestStore;
let app: LotwiseApp;
beforeAll(async () => {
  t = await createTestStore();
  app = createApp({ ctx: t.ctx });
});
afterAll(() => t.close());

describe("docs/http.md", () => {
  it("holds the routes and error-code tables generated from the operation table", () => {
    const page = readFileSync(HTTP_MD, "utf8");
    const generated = renderHttpDocs(page);
    if (process.env.UPDATE_DOCS === "1" && generated !== page) writeFileSync(HTTP_MD, generated);
    else expect(page).toBe(generated);
  });

  it("lists every operation's path and each of its own error codes", () => {
    const page = readFileSync(HTTP_MD, "utf8");
    const rows = page.split("\n").filter((l) => l.startsWith("| "));
    const createProposal = rows.find((r) => r.includes("/accounts/{account_uuid}/proposal/`"))!;
    expect(createProposal).toContain("**endpoint 1**");
    for (const code of OPERATIONS.createProposal.errors) expect(createProposal).toContain(`\`${code}\``);
    for (const code of Object.keys(ERROR_CODES)) expect(page).toContain(`| \`${code}\``);
  });
});

describe("the operation table", () => {
  it("gives one route per operation and one Backend method per operation that has one", () => {
    expect(API_ROUTES.map((r) => r.operationId)).toEqual(OPERATION_LIST.map((o) => o.operationId));
    const withMethod = OPERATION_LIST.filter((o) => o.backend !== false).map((o) => o.name);
    expect(withMethod).toContain("startBacktest");
    expect(withMethod).not.toContain("getAccountBacktest");
    for (const name of withMethod) {
      expect(typeof (LocalBackend.prototype as unknown as Record<string, unknown>)[name], name).toBe(
        "function",
      );
      expect(typeof (RemoteBackend.prototype as unknown as Record<string, unknown>)[name], name).toBe(
        "function",
      );
    }
    // Every operationId and every path+method is declared once.
    expect(new Set(API_ROUTES.map((r) => r.operationId)).size).toBe(Object.keys(OPERATIONS).length);
    expect(new Set(API_ROUTES.map((r) => `${r.method} ${r.path}`)).size).toBe(API_ROUTES.length);
  });

  it("declares every code an operation answers for identifiers that do not exist", async () => {
    const undeclared: string[] = [];
    for (const route of API_ROUTES) {
      const path = route.path.replace(/\{([A-Za-z_]+)\}/g, (_m, name: string) =>
        name === "organization_uuid" ? t.orgA.uuid : randomUUID(),
      );
      if (route.upload || !/\{(?!organization_uuid)/.test(route.path)) continue;
      const r = await send(app, route.method, path, {
        key: t.orgA.apiKey,
        ...(route.body ? { json: {} } : {}),
      });
      expect(r.status, `${route.method} ${route.path}`).toBeGreaterThanOrEqual(400);
      const code = (r.body as { error: { code: string } }).error.code;
      if (!(routeErrorCodes(route) as string[]).includes(code))
        undeclared.push(`${route.operationId}: ${code}`);
    }
    expect(undeclared).toEqual([]);
  });

  it("answers the same not-found error through both Backends", async () => {
    const local = new LocalBackend(t.ctx, t.orgA.uuid);
    const missing = randomUUID();
    await expect(local.getClient(missing)).rejects.toMatchObject({ code: "client_not_found" });
    await expect(local.getBacktest(missing)).rejects.toMatchObject({ code: "backtest_not_found" });
    expect(OPERATIONS.getClient.errors).toContain("client_not_found");
    expect(OPERATIONS.getBacktest.errors).toContain("backtest_not_found");
  });

  it("types each operation's errors as the union of its declared codes and derives the Backend signatures", () => {
    expectTypeOf<OperationErrorCode<"getClient">>().toEqualTypeOf<"client_not_found">();
    expectTypeOf<OperationErrorCode<"cancelBacktest">>().toEqualTypeOf<
      "backtest_not_found" | "backtest_finished"
    >();
    expectTypeOf<Parameters<Backend["getAccount"]>>().toEqualTypeOf<[string, string]>();
    expectTypeOf<Backend>().not.toHaveProperty("getAccountBacktest");
    expectTypeOf<Parameters<Backend["resolveTickers"]>>().toEqualTypeOf<[queries: readonly string[]]>();
    expect(OPERATIONS.getClient.errors).toEqual(["client_not_found"]);
    expect(OPERATIONS.cancelBacktest.errors).toEqual(["backtest_not_found", "backtest_finished"]);
  });
});
