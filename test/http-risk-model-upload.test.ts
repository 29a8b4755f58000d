/**
 * CSV files over HTTP (issue 17 item 2): a risk model's files as the file parts of a multipart `POST .../risk_models/`
 * and target weights as the `weights` file part of endpoint 1's multipart body, read by the service's parsers (the
 * CLI's), with the same errors; a bad file stores nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { proposalResponseSchema, riskModelListSchema, riskModelSchema } from "../src/contract/index.js";
import { createApp, type LotwiseApp } from "../src/server/index.js";
import { RISK_MODEL_MAX_BODY_BYTES } from "../src/service/index.js";
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
let org: string;
let key: string;

beforeAll(async () => {
  t = await createTestStore();
  seeded = await seedOrganization(t, t.orgA);
  app = createApp({ ctx: t.ctx });
  org = `/api/v1/custom/org/${t.orgA.uuid}`;
  key = t.orgA.apiKey;
});
afterAll(() => t.close());

/** The three CSV files of {@link vendorModelBody}'s numbers: long exposures, long covariance, specific risk. */
function vendorFiles(assets: readonly string[]): Record<string, string> {
  const body = vendorModelBody(assets, "2025-06-30", "files");
  return {
    exposures: `asset,factor,exposure\n${body.exposures.map((e) => `${e.asset},${e.factor},${e.exposure}`).join("\n")}\n`,
    covariance: `factor1,factor2,covariance\n${body.factor_covariance.map((c) => `${c.factor1},${c.factor2},${c.covariance}`).join("\n")}\n`,
    specific_risk: `asset,specific_risk\n${body.specific_risk.map((s) => `${s.asset},${s.specific_risk}`).join("\n")}\n`,
  };
}

/** A multipart form of text fields and CSV file parts (each named `<part>.csv`). */
function form(fields: Record<string, string>, files: Record<string, string>): FormData {
  const fd = new FormData();
  for (const [k, v] of Object.entries(fields)) fd.append(k, v);
  for (const [part, text] of Object.entries(files))
    fd.append(part, new Blob([text], { type: "text/csv" }), `${part}.csv`);
  return fd;
}

const vendorFields = (name: string) => ({
  kind: "vendor",
  name,
  as_of_date: "2025-06-30",
  frequency: "daily",
  units: "percent",
});

/** A stored model without what differs between two uploads of the same numbers. */
const numbers = (a: Answer) => {
  const m = riskModelSchema.parse(a.body);
  return { ...m, uuid: "", name: "", created: "" };
};

const listModels = async () =>
  riskModelListSchema.parse((await send(app, "GET", `${org}/risk_models/`, { key })).body);

describe("risk model upload as CSV files", () => {
  it("stores the same model from multipart files as from the JSON body of the same numbers", async () => {
    const assets = t.usTickers.slice(0, 12);
    const json = await send(app, "POST", `${org}/risk_models/`, {
      key,
      json: vendorModelBody(assets, "2025-06-30", "as JSON"),
    });
    expect(json.status, json.text).toBe(201);
    const multi = await send(app, "POST", `${org}/risk_models/`, {
      key,
      raw: form(vendorFields("as files"), vendorFiles(assets)),
    });
    expect(multi.status, multi.text).toBe(201);
    expect(numbers(multi)).toEqual(numbers(json));
    expect(numbers(multi)).toMatchObject({ asset_count: 12, factor_count: 2, kind: "vendor" });
    // Daily 1.5 %^2 annualized: sqrt(1.5e-4 * 252) = 19.4%.
    expect(riskModelSchema.parse(multi.body).factors[0]!.volatility).toBeCloseTo(Math.sqrt(1.5e-4 * 252), 6);
    const stored = await send(app, "GET", `${org}/risk_models/${riskModelSchema.parse(multi.body).uuid}/`, {
      key,
    });
    expect(stored.body).toEqual(multi.body);
  });

  it("reads a custom model's covariance part alone as a square asset covariance", async () => {
    const [a, b] = t.usTickers;
    const multi = await send(app, "POST", `${org}/risk_models/`, {
      key,
      raw: form(
        { kind: "custom", name: "House", as_of_date: "2025-06-30" },
        { covariance: `,${a},${b}\n${a},0.04,0.01\n${b},0.01,0.09\n` },
      ),
    });
    expect(multi.status, multi.text).toBe(201);
    expect(riskModelSchema.parse(multi.body)).toMatchObject({
      kind: "custom",
      asset_count: 2,
      source: { form: "covariance", frequency: "annual" },
    });
  });

  it("answers 400 naming the file, line and column of a bad row, and stores nothing", async () => {
    const before = await listModels();
    const files = vendorFiles(t.usTickers.slice(0, 6));
    files.exposures = files.exposures.replace(/\n([^,\n]+),size,[^\n]+\n/, "\n$1,size,12%\n");
    const bad = await send(app, "POST", `${org}/risk_models/`, {
      key,
      raw: form(vendorFields("Bad"), files),
    });
    expect(bad.status).toBe(400);
    expect(envelope(bad)).toMatchObject({
      code: "validation_error",
      message: "exposures.csv: 1 problem(s); nothing was imported.",
      details: [{ path: "exposures.csv: line 3, exposure", message: 'expected a number, got "12%"' }],
    });
    // A file name with folders is named by its base name.
    const fd = form(vendorFields("Bad"), { covariance: vendorFiles(t.usTickers.slice(0, 6)).covariance });
    fd.append("exposures", new Blob(["asset,factor,exposure\nX:XNYS,market,\n"]), "C:\\models\\exp.csv");
    fd.append("specific_risk", new Blob(["asset,specific_risk\nX:XNYS,0.2\n"]), "srisk.csv");
    const named = await send(app, "POST", `${org}/risk_models/`, { key, raw: fd });
    expect(envelope(named).details).toEqual([
      { path: "exp.csv: line 2, exposure", message: 'expected a number, got ""' },
    ]);
    expect(await listModels()).toEqual(before);
  });

  it("names missing and unknown files, and refuses numbers sent both as fields and as a file", async () => {
    const before = await listModels();
    const files = vendorFiles(t.usTickers.slice(0, 4));
    const missing = await send(app, "POST", `${org}/risk_models/`, {
      key,
      raw: form(vendorFields("Half"), { exposures: files.exposures }),
    });
    expect(missing.status).toBe(400);
    expect(envelope(missing)).toMatchObject({
      code: "validation_error",
      message: "A factor model needs the exposures file, the covariance file and the specific_risk file.",
      details: [
        { path: "covariance", message: "file missing" },
        { path: "specific_risk", message: "file missing" },
      ],
    });
    const unknown = await send(app, "POST", `${org}/risk_models/`, {
      key,
      raw: form(vendorFields("Odd"), { ...files, factor_cov: files.covariance }),
    });
    expect(unknown.status).toBe(400);
    expect(envelope(unknown)).toMatchObject({
      code: "malformed_body",
      details: [
        {
          path: "factor_cov",
          message: "unknown file part; expected one of exposures, covariance, specific_risk",
        },
      ],
    });
    const twice = await send(app, "POST", `${org}/risk_models/`, {
      key,
      raw: form(
        { ...vendorFields("Twice"), "factors[0]": "market", "exposures[X:XNYS][market]": "1" },
        files,
      ),
    });
    expect(envelope(twice).details).toEqual([
      { path: "exposures", message: "given as a field besides the files" },
    ]);
    const noKind = await send(app, "POST", `${org}/risk_models/`, {
      key,
      raw: form({ name: "No kind", as_of_date: "2025-06-30" }, files),
    });
    expect(envelope(noKind)).toMatchObject({ code: "validation_error", details: [{ path: "kind" }] });
    // The fields are validated as a JSON body's are.
    const noDate = await send(app, "POST", `${org}/risk_models/`, {
      key,
      raw: form({ kind: "vendor", name: "No date", frequency: "daily" }, files),
    });
    expect(envelope(noDate)).toMatchObject({ code: "validation_error", details: [{ path: "as_of_date" }] });
    expect(await listModels()).toEqual(before);
  });

  it("refuses a file part given twice or not in UTF-8 as a malformed body", async () => {
    const files = vendorFiles(t.usTickers.slice(0, 4));
    const twice = form(vendorFields("Twice"), files);
    twice.append("exposures", new Blob([files.exposures!]), "again.csv");
    const dup = await send(app, "POST", `${org}/risk_models/`, { key, raw: twice });
    expect(dup.status).toBe(400);
    expect(envelope(dup)).toMatchObject({
      code: "malformed_body",
      message: "The form has two files named exposures; send one.",
    });
    const latin1 = form(vendorFields("Latin-1"), {
      covariance: files.covariance!,
      specific_risk: files.specific_risk!,
    });
    latin1.append(
      "exposures",
      new Blob([new Uint8Array([0x61, 0x73, 0x73, 0x65, 0x74, 0xe9, 0x0a])]),
      "exp.csv",
    );
    const bad = await send(app, "POST", `${org}/risk_models/`, { key, raw: latin1 });
    expect(bad.status).toBe(400);
    expect(envelope(bad)).toMatchObject({
      code: "malformed_body",
      details: [{ path: "exposures", message: "not UTF-8" }],
    });
  });

  it("describes the file parts in the OpenAPI document", async () => {
    const doc = (await send(app, "GET", "/api/v1/openapi.json")).body as {
      paths: Record<
        string,
        Record<string, { requestBody: { content: Record<string, { schema: { properties?: object } }> } }>
      >;
    };
    const parts = (path: string) =>
      Object.keys(doc.paths[path]!.post!.requestBody.content["multipart/form-data"]!.schema.properties ?? {});
    expect(parts("/api/v1/custom/org/{organization_uuid}/risk_models/")).toEqual([
      "exposures",
      "covariance",
      "specific_risk",
    ]);
    expect(
      parts("/api/v1/custom/org/{organization_uuid}/clients/{client_uuid}/accounts/{account_uuid}/proposal/"),
    ).toEqual(["weights"]);
  });

  it("applies the JSON route's body limit to the form", async () => {
    const big = "x".repeat(RISK_MODEL_MAX_BODY_BYTES);
    const answer = await send(app, "POST", `${org}/risk_models/`, {
      key,
      raw: form(vendorFields("Big"), { exposures: big }),
    });
    expect(answer.status).toBe(413);
    expect(envelope(answer).code).toBe("payload_too_large");
  });
});

describe("proposal weights as a CSV file part", () => {
  const path = () => `${org}/clients/${seeded.clientUuid}/accounts/${seeded.accountUuid}/proposal/`;

  it("gives the proposal of the same weights sent as JSON", async () => {
    const [x, y] = [t.usTickers[2]!, t.usTickers[6]!];
    const json = await send(app, "POST", path(), {
      key,
      json: {
        optimized_weights: [
          { ticker: x, weight: "0.4" },
          { ticker: y, weight: "0.2" },
        ],
      },
    });
    expect(json.status, json.text).toBe(200);
    const fd = new FormData();
    fd.append("weights", new Blob([`ticker,weight\n${x},40%\n${y},0.2\n`], { type: "text/csv" }), "w.csv");
    const file = await send(app, "POST", path(), { key, raw: fd });
    expect(file.status, file.text).toBe(200);
    const strip = (a: Answer) => ({
      ...proposalResponseSchema.parse(a.body),
      proposal_uuid: "",
      created: "",
    });
    expect(strip(file)).toEqual(strip(json));
    expect(strip(file).orders.map((o) => o.ticker)).toEqual(expect.arrayContaining([x, y]));
    // A .json file is read as JSON, like --weights-file.
    const fj = new FormData();
    fj.append(
      "weights",
      new Blob([
        JSON.stringify([
          { ticker: x, weight: "0.4" },
          { ticker: y, weight: "0.2" },
        ]),
      ]),
      "w.json",
    );
    const fromJson = await send(app, "POST", path(), { key, raw: fj });
    expect(strip(fromJson)).toEqual(strip(json));
  });

  it("answers 400 naming the file and line of a row without a ticker, and weights given twice", async () => {
    const fd = new FormData();
    fd.append("weights", new Blob([`ticker,weight\n${t.usTickers[2]},0.5\n,0.1\n`]), "targets.csv");
    const bad = await send(app, "POST", path(), { key, raw: fd });
    expect(bad.status).toBe(400);
    expect(envelope(bad)).toMatchObject({
      code: "validation_error",
      message: "targets.csv: 1 problem(s).",
      details: [{ path: "targets.csv: line 3", message: "no ticker (columns: ticker,weight)" }],
    });
    const twice = new FormData();
    twice.append("optimized_weights[0][ticker]", t.usTickers[2]!);
    twice.append("optimized_weights[0][weight]", "0.5");
    twice.append("weights", new Blob([`ticker,weight\n${t.usTickers[2]},0.5\n`]), "w.csv");
    const both = await send(app, "POST", path(), { key, raw: twice });
    expect(both.status).toBe(400);
    expect(envelope(both).details).toEqual([
      { path: "optimized_weights", message: "given as fields besides the weights file" },
    ]);
    // Other routes still refuse file parts.
    const backtest = new FormData();
    backtest.append("weights", new Blob(["x"]), "w.csv");
    const refused = await send(
      app,
      "POST",
      `${org}/clients/${seeded.clientUuid}/accounts/${seeded.accountUuid}/backtests/`,
      { key, raw: backtest },
    );
    expect(refused.status).toBe(400);
    expect(envelope(refused).code).toBe("malformed_body");
  });
});
