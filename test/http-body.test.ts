/**
 * The shared body parser: the bracket notation of form keys, its limits and rejections, and parity of JSON,
 * form-urlencoded and multipart bodies (parser level and through a real route of the app).
 */
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ProposalRequest, proposalRequestSchema } from "../src/contract/index.js";
import { ValidationError } from "../src/core/errors.js";
import {
  API_ROUTES,
  createApp,
  defineRoute,
  formFieldsToObject,
  HttpError,
  jsonDuplicateKey,
  type LotwiseApp,
  MAX_FORM_ARRAY_INDEX,
  parseFormKey,
  readBody,
} from "../src/server/index.js";
import { createTestStore, type TestStore } from "./helpers/fixture.js";
import { envelope, type RequestBody, send } from "./helpers/http.js";

/** Catches the malformed_body error of a form and returns its issues. */
function formIssues(fields: [string, string][]): { path: string; message: string }[] {
  try {
    formFieldsToObject(fields);
  } catch (err) {
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).code).toBe("malformed_body");
    return (err as ValidationError).issues;
  }
  throw new Error("expected a malformed_body error");
}

describe("form keys", () => {
  it("splits names, bracket keys, indexes, dotted keys and a final append", () => {
    expect(parseFormKey("a")).toEqual([{ kind: "key", name: "a" }]);
    expect(parseFormKey("a[0][ticker]")).toEqual([
      { kind: "key", name: "a" },
      { kind: "index", index: 0 },
      { kind: "key", name: "ticker" },
    ]);
    expect(parseFormKey("tax_preferences.short_term_rate")).toEqual([
      { kind: "key", name: "tax_preferences" },
      { kind: "key", name: "short_term_rate" },
    ]);
    // Brackets keep dots: theme_asset_ids such as BRK.B:XNYS are keys.
    expect(parseFormKey("capital_gains_reductions[BRK.B:XNYS]")).toEqual([
      { kind: "key", name: "capital_gains_reductions" },
      { kind: "key", name: "BRK.B:XNYS" },
    ]);
    expect(parseFormKey("filters[]")).toEqual([{ kind: "key", name: "filters" }, { kind: "append" }]);
  });

  it("rejects keys that are not well formed, naming the problem", () => {
    expect(parseFormKey("[0]")).toMatch(/must start with a name/);
    expect(parseFormKey("a[0")).toMatch(/unclosed/);
    expect(parseFormKey("a[]x")).toMatch(/only allowed at the end/);
    expect(parseFormKey("a[][b]")).toMatch(/only allowed at the end/);
    expect(parseFormKey("a..b")).toMatch(/empty segment/);
    expect(parseFormKey("a[01]")).toMatch(/leading zero/);
    expect(parseFormKey(`a[${MAX_FORM_ARRAY_INDEX + 1}]`)).toMatch(/above the limit of 9999/);
    expect(parseFormKey("a]b")).toMatch(/unexpected/);
    expect(parseFormKey(`a${"[x]".repeat(16)}`)).toMatch(/more than 16 segments/);
  });
});

describe("form fields to an object", () => {
  it("builds nested arrays and objects from bracket keys, in any field order", () => {
    const out = formFieldsToObject([
      ["optimized_weights[1][weight]", "0.5"],
      ["optimized_weights[0][ticker]", "AAPL"],
      ["optimized_weights[0][weight]", "0.5"],
      ["optimized_weights[1].ticker", "MSFT"],
      ["filters[]", "pe > 5"],
      ["filters[]", "pb < 3"],
      ["capital_gains_reductions[BRK.B:XNYS]", "1500"],
    ]);
    expect(out).toEqual({
      optimized_weights: [
        { ticker: "AAPL", weight: "0.5" },
        { ticker: "MSFT", weight: "0.5" },
      ],
      filters: ["pe > 5", "pb < 3"],
      capital_gains_reductions: { "BRK.B:XNYS": "1500" },
    });
    // Plain objects, so zod and spreads see ordinary values.
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Array.isArray(out.optimized_weights)).toBe(true);
  });

  it("keeps every value a string, including numbers and empty values", () => {
    expect(
      formFieldsToObject([
        ["n", "12"],
        ["e", ""],
      ]),
    ).toEqual({ n: "12", e: "" });
  });

  it("rejects a key given twice", () => {
    expect(
      formIssues([
        ["a", "1"],
        ["a", "2"],
      ]),
    ).toEqual([{ path: "a", message: "the field is given twice" }]);
    expect(
      formIssues([
        ["w[0][t]", "1"],
        ["w[0].t", "2"],
      ])[0]!.message,
    ).toBe("the field is given twice");
  });

  it("rejects gaps in array indexes and says which index is missing", () => {
    const issues = formIssues([
      ["optimized_weights[0][ticker]", "AAPL"],
      ["optimized_weights[2][ticker]", "MSFT"],
    ]);
    expect(issues).toEqual([
      {
        path: "optimized_weights",
        message: "array indexes must be contiguous from 0: index 1 is missing (highest is 2)",
      },
    ]);
    expect(formIssues([["a[5]", "x"]])[0]!.message).toMatch(/index 0 is missing/);
  });

  it("rejects an index above the cap before allocating anything", () => {
    const issues = formIssues([["optimized_weights[100000][ticker]", "AAPL"]]);
    expect(issues[0]!.message).toMatch(/array index 100000 is above the limit of 9999/);
  });

  it("rejects prototype-pollution segments anywhere in a key", () => {
    for (const key of [
      "__proto__[polluted]",
      "a[__proto__][x]",
      "a.constructor.prototype",
      "prototype",
      "a[constructor]",
    ]) {
      const issues = formIssues([[key, "1"]]);
      expect(issues[0]!.path).toBe(key);
      expect(issues[0]!.message).toMatch(/is not allowed/);
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("rejects a name used both as a value and as a container, and arrays mixed with objects", () => {
    expect(
      formIssues([
        ["a", "1"],
        ["a[b]", "2"],
      ])[0]!.message,
    ).toMatch(/conflicts with a given as a value/);
    expect(
      formIssues([
        ["a[b]", "2"],
        ["a", "1"],
      ])[0]!.message,
    ).toMatch(/conflicts with a given as an object/);
    expect(
      formIssues([
        ["a[0]", "1"],
        ["a[b]", "2"],
      ])[0]!.message,
    ).toMatch(/conflicts with a given as an array/);
    expect(
      formIssues([
        ["a[b]", "1"],
        ["a[0]", "2"],
      ])[0]!.message,
    ).toMatch(/conflicts with a given as an object/);
    expect(
      formIssues([
        ["a[]", "1"],
        ["a[0]", "2"],
      ])[0]!.message,
    ).toMatch(/given as a '\[\]' list/);
  });

  it("reports every malformed key of a form at once", () => {
    const issues = formIssues([
      ["a[", "1"],
      ["b", "1"],
      ["b", "2"],
      ["__proto__", "x"],
    ]);
    expect(issues.map((i) => i.path)).toEqual(["a[", "b", "__proto__"]);
  });
});

const PROPOSAL: ProposalRequest = {
  optimized_weights: [
    { ticker: "AAPL:XNAS", weight: "0.4" },
    { ticker: "BRK.B:XNYS", weight: "0.35" },
    { ticker: "RY", weight: "0.25" },
  ],
};

function proposalForm(): [string, string][] {
  return PROPOSAL.optimized_weights.flatMap((w, i) => [
    [`optimized_weights[${i}][ticker]`, w.ticker],
    [`optimized_weights[${i}][weight]`, w.weight],
  ]);
}

function multipart(fields: [string, string][]): FormData {
  const form = new FormData();
  for (const [k, v] of fields) form.append(k, v);
  return form;
}

function bodyRequest(body: RequestBody, contentType?: string, extra: Record<string, string> = {}): Request {
  const headers: Record<string, string> = { ...extra };
  if (contentType !== undefined) headers["content-type"] = contentType;
  return new Request("http://localhost/x", { method: "POST", body, headers });
}

const ALL = ["json", "form", "multipart"] as const;

describe("readBody", () => {
  it("parses the same proposal from JSON, form-urlencoded and multipart", async () => {
    const json = await readBody(bodyRequest(JSON.stringify(PROPOSAL), "application/json"), { accept: ALL });
    const form = await readBody(
      bodyRequest(new URLSearchParams(proposalForm()).toString(), "application/x-www-form-urlencoded"),
      { accept: ALL },
    );
    const mp = await readBody(
      new Request("http://localhost/x", { method: "POST", body: multipart(proposalForm()) }),
      {
        accept: ALL,
      },
    );
    expect(json.encoding).toBe("json");
    expect(form.encoding).toBe("form");
    expect(mp.encoding).toBe("multipart");
    expect(json.value).toEqual(PROPOSAL);
    expect(form.value).toEqual(PROPOSAL);
    expect(mp.value).toEqual(PROPOSAL);
  });

  it("accepts a charset parameter of UTF-8 and refuses other charsets with 415", async () => {
    const ok = await readBody(bodyRequest("{}", "application/json; charset=UTF-8"), { accept: ["json"] });
    expect(ok.value).toEqual({});
    await expect(
      readBody(bodyRequest("{}", "application/json; charset=latin1"), { accept: ["json"] }),
    ).rejects.toMatchObject({
      status: 415,
      code: "unsupported_media_type",
    });
  });

  it("refuses a compressed body with 415 naming its content coding, and reads identity as sent", async () => {
    const gzip = readBody(bodyRequest(gzipSync("{}"), "application/json", { "content-encoding": "gzip" }), {
      accept: ["json"],
    });
    await expect(gzip).rejects.toMatchObject({
      status: 415,
      code: "unsupported_media_type",
      message: "Content-Encoding gzip is not supported; send the body uncompressed.",
    });
    const plain = await readBody(bodyRequest("{}", "application/json", { "content-encoding": "identity" }), {
      accept: ["json"],
    });
    expect(plain.value).toEqual({});
  });

  it("answers 415 for a missing or unaccepted Content-Type, listing the accepted ones", async () => {
    const missing = readBody(
      new Request("http://localhost/x", { method: "POST", body: new Uint8Array([123, 125]) }),
      {
        accept: ["json"],
      },
    );
    await expect(missing).rejects.toThrow(/Content-Type header is required.*application\/json/);
    const wrong = readBody(bodyRequest("a=1", "application/x-www-form-urlencoded"), {
      accept: ["json"],
    });
    await expect(wrong).rejects.toBeInstanceOf(HttpError);
    await expect(readBody(bodyRequest("a=1", "text/plain"), { accept: ALL })).rejects.toThrow(
      "Content-Type text/plain is not accepted here; accepted: application/json, application/x-www-form-urlencoded, multipart/form-data.",
    );
  });

  it("refuses a body over the limit from its Content-Length without reading it", async () => {
    const req = bodyRequest("x".repeat(20), "application/json", { "content-length": "20" });
    await expect(readBody(req, { accept: ["json"], maxBytes: 10 })).rejects.toMatchObject({
      status: 413,
      code: "payload_too_large",
      message: "The request body has 20 bytes; more than the limit of 10 bytes.",
    });
    expect(req.bodyUsed).toBe(false);
  });

  it("stops reading a streamed body as soon as it passes the limit", async () => {
    let pulled = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled++;
        controller.enqueue(new Uint8Array(1024).fill(32));
        if (pulled > 1000) controller.close();
      },
    });
    const req = new Request("http://localhost/x", {
      method: "POST",
      body: stream,
      headers: { "content-type": "application/json" },
      duplex: "half",
    } as RequestInit);
    await expect(readBody(req, { accept: ["json"], maxBytes: 4096 })).rejects.toMatchObject({ status: 413 });
    // 4 KiB limit, 1 KiB chunks: the fifth chunk crosses it; a few more may be buffered by the stream.
    expect(pulled).toBeLessThan(20);
  });

  it("rejects malformed JSON, empty bodies, invalid UTF-8, __proto__ and repeated keys as malformed_body", async () => {
    const cases: [RequestBody, RegExp][] = [
      ['{"a": 1,', /not valid JSON/],
      ["", /body is empty/],
      [new Uint8Array([0x7b, 0xff, 0x7d]), /not valid UTF-8/],
      ['{"a": {"__proto__": {"x": 1}}}', /"__proto__"/],
      [
        '{"lots": [{"quantity": "1", "quantity": "100"}]}',
        /^The JSON body repeats the key "quantity" in one object \(again at character 28\); JSON parsers disagree/,
      ],
      ['{"a\\u0062": 1, "ab": 2}', /repeats the key "ab"/],
    ];
    for (const [body, message] of cases) {
      const err = await readBody(bodyRequest(body, "application/json"), { accept: ["json"] }).catch((e) => e);
      expect(err).toBeInstanceOf(ValidationError);
      expect(err.code).toBe("malformed_body");
      expect(err.message).toMatch(message);
    }
  });

  it("accepts the same key in different objects, keys that only look alike, and key-like strings in values", () => {
    expect(jsonDuplicateKey('{"a": {"a": 1}, "b": [{"a": 1}, {"a": 2}], "c": "a"}')).toBeUndefined();
    expect(jsonDuplicateKey('{"a": "x\\"", "b": ["a", "a"], "A": 1, "a ": 2}')).toBeUndefined();
    expect(jsonDuplicateKey('[{"k": 1}, {"k": {"k": [1, {"k": 2, "j": 3, "k": 4}]}}]')).toEqual({
      key: "k",
      at: 44,
    });
  });

  it("rejects file parts of a multipart body, naming the field", async () => {
    const form = multipart([["optimized_weights[0][ticker]", "AAPL"]]);
    form.append("optimized_weights[0][weight]", new Blob(["0.5"]), "w.txt");
    const err = await readBody(new Request("http://localhost/x", { method: "POST", body: form }), {
      accept: ALL,
    }).catch((e) => e);
    expect(err.code).toBe("malformed_body");
    expect(err.issues).toEqual([
      {
        path: "optimized_weights[0][weight]",
        message: "file parts are not accepted; send the field as text",
      },
    ]);
  });

  it("rejects a multipart body without a usable boundary", async () => {
    const err = await readBody(bodyRequest("--x\r\nnot a part", "multipart/form-data"), {
      accept: ALL,
    }).catch((e) => e);
    expect(err.code).toBe("malformed_body");
    expect(err.message).toMatch(/multipart\/form-data body cannot be parsed/);
  });
});

describe("body parity through a route of the app", () => {
  let t: TestStore;
  let app: LotwiseApp;
  let path: string;
  const seen: unknown[] = [];

  beforeAll(async () => {
    t = await createTestStore();
    // A test-only route shaped like endpoint 1: a ProposalRequest body in all three encodings.
    const echo = defineRoute<ProposalRequest>({
      method: "POST",
      path: "/api/v1/custom/org/{organization_uuid}/clients/{client_uuid}/accounts/{account_uuid}/echo/",
      operationId: "echoProposalRequest",
      tag: "Test",
      summary: "Echo the parsed proposal request",
      body: { schema: proposalRequestSchema, accept: ["json", "form", "multipart"] },
      response: { status: 200, schema: proposalRequestSchema, description: "The parsed body." },
      handler: ({ body }) => {
        seen.push(body);
        return body;
      },
    });
    app = createApp({ ctx: t.ctx, routes: [...API_ROUTES, echo], maxBodyBytes: 64 * 1024 });
    path = `/api/v1/custom/org/${t.orgA.uuid}/clients/${crypto.randomUUID()}/accounts/${crypto.randomUUID()}/echo/`;
  });
  afterAll(() => t.close());

  it("validates the same object whether the body is JSON, form-urlencoded or multipart", async () => {
    const key = t.orgA.apiKey;
    const json = await send(app, "POST", path, { key, json: PROPOSAL });
    const form = await send(app, "POST", path, {
      key,
      raw: new URLSearchParams(proposalForm()).toString(),
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
    });
    const mp = await send(app, "POST", path, { key, raw: multipart(proposalForm()) });
    expect([json.status, form.status, mp.status]).toEqual([200, 200, 200]);
    expect(json.body).toEqual(PROPOSAL);
    expect(form.body).toEqual(PROPOSAL);
    expect(mp.body).toEqual(PROPOSAL);
    expect(seen.slice(-3)).toEqual([PROPOSAL, PROPOSAL, PROPOSAL]);
  });

  it("gives the same validation error for the same bad field in every encoding", async () => {
    const key = t.orgA.apiKey;
    const bad = [
      ["optimized_weights[0][ticker]", "AAPL"],
      ["optimized_weights[0][weight]", "12.5"],
    ] as [string, string][];
    const answers = [
      await send(app, "POST", path, {
        key,
        json: { optimized_weights: [{ ticker: "AAPL", weight: "12.5" }] },
      }),
      await send(app, "POST", path, {
        key,
        raw: new URLSearchParams(bad).toString(),
        headers: { "Content-Type": "application/x-www-form-urlencoded" },
      }),
      await send(app, "POST", path, { key, raw: multipart(bad) }),
    ];
    const errors = answers.map((a) => {
      expect(a.status).toBe(400);
      return envelope(a);
    });
    expect(errors[0]!.code).toBe("validation_error");
    expect(errors[0]!.details).toEqual([
      {
        path: "optimized_weights[0].weight",
        message: '"12.5" has 2 integer digits; decimal(1,10) allows at most 1',
      },
    ]);
    expect(errors[1]).toEqual(errors[0]);
    expect(errors[2]).toEqual(errors[0]);
  });

  it("answers malformed form keys with 400 malformed_body naming the key", async () => {
    const a = await send(app, "POST", path, {
      key: t.orgA.apiKey,
      raw: "optimized_weights[0][ticker]=A&optimized_weights[3][ticker]=B&__proto__[x]=1",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
    });
    expect(a.status).toBe(400);
    const e = envelope(a);
    expect(e.code).toBe("malformed_body");
    expect(e.details!.map((d) => d.path)).toEqual(["__proto__[x]"]);
  });

  it("answers 413 for a form body over the app's limit", async () => {
    const big = new URLSearchParams([["optimized_weights[0][ticker]", "A".repeat(70 * 1024)]]).toString();
    const a = await send(app, "POST", path, {
      key: t.orgA.apiKey,
      raw: big,
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
    });
    expect(a.status).toBe(413);
    // app.request streams the body without Content-Length, so the limit is found while reading.
    expect(envelope(a)).toEqual({
      code: "payload_too_large",
      message: "The request body is larger than the limit of 64 KiB.",
    });
  });
});
