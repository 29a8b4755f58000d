/**
 * Error answers of the service: the envelope on every error, 404 for unknown routes (with the trailing-slash hint),
 * 405 with Allow, 413, 415, malformed bodies, invalid path parameters and queries, the mapping of every error class
 * to its status, and 500 without internals.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as z from "zod";
import { ERROR_CODES, isoDate } from "../src/contract/index.js";
import {
  AuthenticationError,
  ConflictError,
  DataError,
  InfeasibleError,
  InsufficientLotsError,
  MissingPriceError,
  NotFoundError,
  PortfolioError,
  SolverError,
  StoreVersionError,
  UnboundedError,
  ValidationError,
} from "../src/core/errors.js";
import { ExpressionError } from "../src/core/themes/expression/expression-error.js";
import {
  API_ROUTES,
  createApp,
  defineRoute,
  HttpError,
  INTERNAL_ERROR_MESSAGE,
  type LotwiseApp,
  statusOf,
} from "../src/server/index.js";
import { createTestStore, type TestStore } from "./helpers/fixture.js";
import { envelope, send } from "./helpers/http.js";

let t: TestStore;
let app: LotwiseApp;
let key: string;
let org: string;
const logged: string[] = [];
let toThrow: unknown;

beforeAll(async () => {
  t = await createTestStore({ withMarket: false });
  const thrower = defineRoute({
    method: "GET",
    path: "/api/v1/custom/org/{organization_uuid}/test/throw/",
    operationId: "testThrow",
    tag: "Test",
    summary: "Throws the value the test sets",
    response: { status: 200, description: "never" },
    handler: () => {
      throw toThrow;
    },
  });
  const withQuery = defineRoute<undefined, { start_date?: string | undefined; limit?: string | undefined }>({
    method: "GET",
    path: "/api/v1/test/query",
    operationId: "testQuery",
    tag: "Test",
    summary: "Echoes its query",
    query: z.strictObject({ start_date: isoDate().optional(), limit: z.string().regex(/^\d+$/).optional() }),
    response: { status: 200, description: "The query." },
    handler: ({ query }) => query,
  });
  app = createApp({
    ctx: t.ctx,
    routes: [...API_ROUTES, thrower, withQuery],
    maxBodyBytes: 256,
    log: (line) => logged.push(line),
  });
  key = t.orgA.apiKey;
  org = `/api/v1/custom/org/${t.orgA.uuid}`;
});
afterAll(() => t.close());

describe("unknown routes and methods", () => {
  it("answers 404 not_found for a path no route has, with or without a key outside /api", async () => {
    const outside = await send(app, "GET", "/nowhere");
    expect(outside.status).toBe(404);
    expect(envelope(outside)).toEqual({
      code: "not_found",
      message: "No route GET /nowhere. The routes are listed at /api/v1/openapi.json and /api/v1/docs.",
    });
    const inside = await send(app, "GET", `${org}/widgets/`, { key });
    expect(inside.status).toBe(404);
    expect(envelope(inside).code).toBe("not_found");
  });

  it("asks for a key before saying whether an /api path exists", async () => {
    expect((await send(app, "GET", `${org}/widgets/`)).status).toBe(401);
  });

  it("says which form exists when a path differs only by its trailing slash", async () => {
    const noSlash = await send(app, "GET", `${org}/portfolio_configs`, { key });
    expect(noSlash.status).toBe(404);
    expect(envelope(noSlash)).toEqual({
      code: "not_found",
      message: `No route GET ${org}/portfolio_configs. Organization-scoped paths end with a slash: ${org}/portfolio_configs/`,
    });
    const slash = await send(app, "GET", "/api/v1/me/", { key });
    expect(slash.status).toBe(404);
    expect(envelope(slash).message).toBe(
      "No route GET /api/v1/me/. Design-preview paths have no trailing slash: /api/v1/me",
    );
  });

  it("answers 405 with an Allow header listing the path's methods", async () => {
    const clientPath = `${org}/clients/${crypto.randomUUID()}/`;
    const put = await send(app, "PUT", clientPath, { key, json: {} });
    expect(put.status).toBe(405);
    expect(put.headers.get("allow")).toBe("DELETE, GET, HEAD, PATCH");
    expect(envelope(put)).toEqual({
      code: "method_not_allowed",
      message: `PUT is not allowed on ${clientPath}; allowed: DELETE, GET, HEAD, PATCH.`,
    });
    const post = await send(app, "POST", "/api/v1/me", { key });
    expect(post.status).toBe(405);
    expect(post.headers.get("allow")).toBe("GET, HEAD");
    const options = await send(app, "OPTIONS", `${org}/clients/`, { key });
    expect(options.status).toBe(405);
    expect(options.headers.get("allow")).toBe("GET, HEAD, POST");
  });

  it("answers HEAD on a GET route with the headers and no body", async () => {
    const head = await send(app, "HEAD", "/api/v1/me", { key });
    expect(head.status).toBe(200);
    expect(head.text).toBe("");
  });
});

describe("bodies", () => {
  it("answers 415 for a Content-Type the route does not accept", async () => {
    for (const [type, shown] of [
      ["text/plain", "text/plain"],
      ["application/x-www-form-urlencoded", "application/x-www-form-urlencoded"],
      ["multipart/form-data; boundary=x", "multipart/form-data"],
    ]) {
      const a = await send(app, "POST", `${org}/clients/`, {
        key,
        raw: "external_id=x",
        headers: { "Content-Type": type! },
      });
      expect(a.status).toBe(415);
      expect(envelope(a)).toEqual({
        code: "unsupported_media_type",
        message: `Content-Type ${shown} is not accepted here; accepted: application/json.`,
      });
    }
    const none = await send(app, "POST", `${org}/clients/`, { key, raw: new Uint8Array([123, 125]) });
    expect(none.status).toBe(415);
    expect(envelope(none).message).toBe(
      "A Content-Type header is required for this request body; accepted: application/json.",
    );
  });

  it("answers 413 for a body over the limit", async () => {
    const a = await send(app, "POST", `${org}/clients/`, { key, json: { external_id: "x".repeat(300) } });
    expect(a.status).toBe(413);
    expect(envelope(a)).toEqual({
      code: "payload_too_large",
      message: "The request body is larger than the limit of 256 bytes.",
    });
  });

  it("answers 400 malformed_body for JSON that does not parse", async () => {
    const a = await send(app, "POST", `${org}/clients/`, {
      key,
      raw: '{"external_id": "x",}',
      headers: { "Content-Type": "application/json" },
    });
    expect(a.status).toBe(400);
    const e = envelope(a);
    expect(e.code).toBe("malformed_body");
    expect(e.message).toMatch(/^The request body is not valid JSON: /);
  });

  it("answers 400 validation_error at (root) for JSON that is not an object", async () => {
    const a = await send(app, "POST", `${org}/clients/`, { key, json: ["external_id"] });
    expect(a.status).toBe(400);
    expect(envelope(a)).toMatchObject({
      code: "validation_error",
      details: [{ path: "(root)", message: "expected an object, received an array" }],
    });
  });

  it("leaves nothing behind when a body is refused", async () => {
    const before = (await t.store.clients.list(t.orgA.uuid)).length;
    await send(app, "POST", `${org}/clients/`, { key, json: { external_id: "" } });
    await send(app, "POST", `${org}/clients/`, {
      key,
      raw: "{",
      headers: { "Content-Type": "application/json" },
    });
    expect((await t.store.clients.list(t.orgA.uuid)).length).toBe(before);
  });
});

describe("path and query parameters", () => {
  it("answers 400 invalid_path_parameter naming a parameter that is not a uuid", async () => {
    const a = await send(app, "GET", `${org}/clients/not-a-uuid/accounts/`, { key });
    expect(a.status).toBe(400);
    expect(envelope(a)).toEqual({
      code: "invalid_path_parameter",
      message:
        'Invalid path parameter: client_uuid: expected a uuid (8-4-4-4-12 hexadecimal digits), received "not-a-uuid"',
      details: [
        {
          path: "client_uuid",
          message: 'expected a uuid (8-4-4-4-12 hexadecimal digits), received "not-a-uuid"',
        },
      ],
    });
  });

  it("answers an organization segment that is not a uuid like another organization's: 404, not 400", async () => {
    const a = await send(app, "GET", "/api/v1/custom/org/not-a-uuid/clients/", { key });
    expect(a.status).toBe(404);
    expect(envelope(a)).toEqual({
      code: "organization_not_found",
      message: "Organization not-a-uuid not found.",
    });
  });

  it("accepts the key's organization uuid in upper case", async () => {
    const a = await send(app, "GET", `/api/v1/custom/org/${t.orgA.uuid.toUpperCase()}/clients/`, { key });
    expect(a.status).toBe(200);
  });

  it("validates a route's query with its schema and refuses repeated parameters", async () => {
    const ok = await send(app, "GET", "/api/v1/test/query?start_date=2024-02-29&limit=5", { key });
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ start_date: "2024-02-29", limit: "5" });
    const bad = await send(app, "GET", "/api/v1/test/query?start_date=2023-02-29", { key });
    expect(bad.status).toBe(400);
    expect(envelope(bad).details![0]!.path).toBe("start_date");
    const twice = await send(app, "GET", "/api/v1/test/query?limit=1&limit=2", { key });
    expect(twice.status).toBe(400);
    expect(envelope(twice).details).toEqual([
      { path: "limit", message: "query parameter given more than once" },
    ]);
    const unknown = await send(app, "GET", "/api/v1/test/query?colour=red", { key });
    expect(unknown.status).toBe(400);
    expect(envelope(unknown).details![0]!.path).toBe("colour");
  });
});

describe("codes of the design-preview endpoints, as the error table gives them", () => {
  it("answers validation_error for an empty catalog query and a reversed theme window, their own codes past the schema", async () => {
    const empty = await send(app, "POST", "/api/v1/catalog/industry", { key, json: { query: "" } });
    expect(empty.status).toBe(400);
    expect(envelope(empty).code).toBe("validation_error");
    expect(envelope(empty).details).toEqual([{ path: "query", message: "query must not be empty" }]);
    const wordless = await send(app, "POST", "/api/v1/catalog/industry", { key, json: { query: "!!! ???" } });
    expect(wordless.status).toBe(400);
    expect(envelope(wordless).code).toBe("invalid_query");
    const theme = `/api/v1/themes/${crypto.randomUUID()}/backtest`;
    const reversed = await send(app, "GET", `${theme}?start_date=2025-06-01&end_date=2025-01-01`, { key });
    expect(reversed.status).toBe(400);
    expect(envelope(reversed).code).toBe("validation_error");
    expect(envelope(reversed).details![0]!.path).toBe("end_date");
    // The table (docs/http.md) says so: each code names the case that answers it.
    expect(ERROR_CODES.invalid_query.when).toMatch(
      /no searchable word.*empty, blank or over-long query fails the body schema \(`validation_error`\)/,
    );
    expect(ERROR_CODES.invalid_window.when).toMatch(
      /reversed date pair fails the query schema \(`validation_error`\)/,
    );
  });
});

describe("error classes to statuses", () => {
  it("maps every error class of the hierarchy to its status", () => {
    const cases: [PortfolioError, number][] = [
      [new ValidationError("v", [{ path: "a", message: "b" }]), 400],
      [new ExpressionError("pe > : expected a number", 5, { expected: ["a number"] }), 400],
      [new AuthenticationError(), 401],
      [new NotFoundError("n", "client_not_found"), 404],
      [new ConflictError("c"), 409],
      [new InfeasibleError("i", ["max_weight"]), 422],
      [new UnboundedError("u"), 422],
      [new SolverError("s"), 422],
      [new DataError("d"), 422],
      [new MissingPriceError("AAPL:XNAS", "2025-01-31"), 422],
      [new InsufficientLotsError("AAPL:XNAS", "10", "5"), 422],
      [new StoreVersionError("newer store"), 503],
      [new PortfolioError("base"), 400],
      [new HttpError("payload_too_large", "big"), 413],
    ];
    for (const [error, status] of cases) expect(statusOf(error), error.name).toBe(status);
  });

  it("sends the class's status with the envelope through a route", async () => {
    const path = `${org}/test/throw/`;
    toThrow = new ConflictError("Already there.", "duplicate_name");
    let a = await send(app, "GET", path, { key });
    expect([a.status, envelope(a)]).toEqual([409, { code: "duplicate_name", message: "Already there." }]);
    toThrow = new InfeasibleError("No portfolio satisfies max_weight 0.01 with 50 names.", ["max_weight"]);
    a = await send(app, "GET", path, { key });
    expect([a.status, envelope(a).code]).toEqual([422, "infeasible"]);
    toThrow = new ExpressionError("unexpected end of input", 4, {
      expected: ["a number"],
      path: "filters[0]",
    });
    a = await send(app, "GET", path, { key });
    expect([a.status, envelope(a)]).toEqual([
      400,
      {
        code: "invalid_expression",
        message: "unexpected end of input",
        details: [{ path: "filters[0]", message: "unexpected end of input" }],
      },
    ]);
    toThrow = new StoreVersionError("The store was written by a newer lotwise.");
    a = await send(app, "GET", path, { key });
    expect([a.status, envelope(a).code]).toEqual([503, "store_version"]);
  });

  it("answers an unexpected error with a generic 500 and logs the stack only on the server", async () => {
    logged.length = 0;
    toThrow = new TypeError(
      "secret detail: cannot read 'x' of undefined at /srv/lotwise/src/service/db.ts:12",
    );
    const a = await send(app, "GET", `${org}/test/throw/`, { key });
    expect(a.status).toBe(500);
    expect(envelope(a)).toEqual({ code: "internal_error", message: INTERNAL_ERROR_MESSAGE });
    expect(a.text).not.toMatch(/secret|TypeError|\.ts|at /);
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatch(/TypeError: secret detail/);
    expect(logged[0]).toMatch(/\n\s+at /);
    toThrow = "a thrown string";
    const b = await send(app, "GET", `${org}/test/throw/`, { key });
    expect(b.status).toBe(500);
    expect(b.text).not.toContain("a thrown string");
  });
});

describe("route table", () => {
  it("refuses two routes with the same method and path shape", () => {
    const dup = defineRoute({
      ...API_ROUTES.find((r) => r.operationId === "getClient")!,
      path: "/api/v1/custom/org/{organization_uuid}/clients/{client}/",
    });
    expect(() => createApp({ ctx: t.ctx, routes: [...API_ROUTES, dup] })).toThrow(
      "createApp: two routes for GET /api/v1/custom/org/{organization_uuid}/clients/{client}/",
    );
  });
});
