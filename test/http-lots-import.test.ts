/**
 * The lots import over HTTP: the upload route (streamed text/csv and multipart), its errors in the envelope, its
 * OpenAPI entry, and the remote backend sending 100,000 lots (far past the 1 MiB JSON limit) as one import.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RemoteBackend } from "../src/client/index.js";
import { lotImportResultSchema } from "../src/contract/index.js";
import { ValidationError } from "../src/core/errors.js";
import { createApp, type ServerHandle, serve } from "../src/server/index.js";
import { createAccount, createClient, LocalBackend } from "../src/service/index.js";
import { createTestStore, type TestStore } from "./helpers/fixture.js";
import { envelope, send } from "./helpers/http.js";

let dir: string;
let t: TestStore;
let app: ReturnType<typeof createApp>;
let accountUuid: string;
let local: LocalBackend;

/** A lots CSV of `n` rows over the first tickers (plain symbols), with a distinct quantity per row. */
function lotsCsv(symbols: readonly string[], n: number, offset = 0): string {
  const lines = ["Symbol,Quantity,Cost Basis,Open Date"];
  for (let i = 0; i < n; i++)
    lines.push(`${symbols[i % symbols.length]},${i + offset + 1},${(i % 97) + 10}.25,2024-01-02`);
  return `${lines.join("\n")}\n`;
}

/** A text as a ReadableStream of 64 KiB chunks (a streamed request body). */
function streamOf(text: string): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  let at = 0;
  return new ReadableStream({
    pull(controller) {
      if (at >= bytes.length) return controller.close();
      controller.enqueue(bytes.subarray(at, at + 65536));
      at += 65536;
    },
  });
}

const path = (account: string, query = "") =>
  `/api/v1/custom/org/${t.orgA.uuid}/accounts/${account}/tax_lots/import/${query}`;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "lotwise-http-lots-"));
  t = await createTestStore({ path: join(dir, "store.db") });
  app = createApp({ ctx: t.ctx });
  const client = await createClient(t.ctx, t.orgA.uuid, {});
  accountUuid = (await createAccount(t.ctx, t.orgA.uuid, client.uuid, { name: "Import target" })).uuid;
  local = new LocalBackend(t.ctx, t.orgA.uuid);
});
afterAll(() => {
  t.close();
  rmSync(dir, { recursive: true, force: true });
});

const symbols = () => t.usTickers.slice(0, 10).map((id) => id.split(":")[0]!);
/** The account's stored lots (read from the store: valuing 100,000 lots would dominate the test's time). */
const storedLots = () => t.store.accounts.lotRows(accountUuid);
const lotCount = async () => (await storedLots()).length;

describe("POST .../accounts/{account}/tax_lots/import/", () => {
  it("imports a streamed text/csv body of 40,000 lots (past the 1 MiB JSON limit) in one go", async () => {
    const csv = lotsCsv(symbols(), 40_000);
    expect(csv.length).toBeGreaterThan(1024 * 1024);
    const res = await app.request(path(accountUuid, "?file_name=big.csv"), {
      method: "POST",
      headers: { "X-Api-Key": t.orgA.apiKey, "Content-Type": "text/csv; charset=utf-8" },
      body: streamOf(csv),
      duplex: "half",
    } as RequestInit);
    expect(res.status).toBe(200);
    const r = lotImportResultSchema.parse(await res.json());
    expect(r).toMatchObject({ file: "big.csv", mode: "replace", lots_in_file: 40_000, lots_after: 40_000 });
    expect(r.preview).toHaveLength(20);
    expect(r.lots).toBeUndefined();
    expect(r.by_ticker).toHaveLength(10);
    expect(r.by_ticker.reduce((s, x) => s + x.lots, 0)).toBe(40_000);
    // 4,000 lots per ticker: quantities 1, 11, 21, ... for the first one.
    expect(r.by_ticker[0]!.quantity).toBe(String((4000 * (1 + 39_991)) / 2));
    expect(await lotCount()).toBe(40_000);
  });

  it("appends the file part of a multipart form after the existing lots", async () => {
    const form = new FormData();
    form.append("file", new Blob([lotsCsv(symbols(), 3)], { type: "text/csv" }), "more.csv");
    const a = await send(app, "POST", path(accountUuid, "?mode=append&include_lots=true"), {
      key: t.orgA.apiKey,
      raw: form,
    });
    expect(a.status).toBe(200);
    const r = lotImportResultSchema.parse(a.body);
    expect(r).toMatchObject({ lots_before: 40_000, lots_after: 40_003, lots_in_file: 3 });
    expect(r.lots?.map((l) => l.quantity)).toEqual(["1", "2", "3"]);
    expect((await storedLots()).slice(-3).map((l) => l[2])).toEqual(["1", "2", "3"]);
  });

  it("answers 400 naming the line and column of a bad row, and changes nothing", async () => {
    const a = await send(app, "POST", path(accountUuid, "?file_name=bad.csv"), {
      key: t.orgA.apiKey,
      raw: `${lotsCsv(symbols(), 5)}${symbols()[0]},1,10,31/31/2024\n`,
      headers: { "Content-Type": "text/csv" },
    });
    expect(a.status).toBe(400);
    const e = envelope(a);
    expect(e.code).toBe("invalid_lots_file");
    expect(e.details).toEqual([
      {
        path: 'bad.csv: line 7, column "Open Date"',
        message: '"31/31/2024" is not a date (use YYYY-MM-DD, MM/DD/YYYY, DD-Mon-YYYY...)',
      },
    ]);
    expect(await lotCount()).toBe(40_003);
  });

  it("tells an HTTP client the map_FIELD query parameters when the header lacks columns", async () => {
    const post = (raw: string) =>
      send(app, "POST", path(accountUuid, "?dry_run=true"), {
        key: t.orgA.apiKey,
        raw,
        headers: { "Content-Type": "text/csv" },
      });
    const noHeader = await post("Name,Amount\nA,1\n");
    expect(noHeader.status).toBe(400);
    expect(envelope(noHeader).code).toBe("invalid_lots_file");
    expect(envelope(noHeader).message).toMatch(/map_symbol=Ticker&map_quantity=Shares/);
    const noDate = await post(`Symbol,Quantity,Cost Basis\n${symbols()[0]},1,10\n`);
    expect(noDate.status).toBe(400);
    expect(envelope(noDate).details).toEqual([
      { path: "lots.csv: header", message: expect.stringMatching(/over HTTP: map_trade_date=HEADER\)$/) },
    ]);
    expect(await lotCount()).toBe(40_003);
  });

  it("refuses other media types (415), bad options (400) and another organization's account (404)", async () => {
    const json = await send(app, "POST", path(accountUuid), { key: t.orgA.apiKey, json: { lots: [] } });
    expect(json.status).toBe(415);
    expect(envelope(json).message).toContain("accepted: text/csv, multipart/form-data");
    const mode = await send(app, "POST", path(accountUuid, "?mode=merge"), {
      key: t.orgA.apiKey,
      raw: "x",
      headers: { "Content-Type": "text/csv" },
    });
    expect(mode.status).toBe(400);
    expect(envelope(mode).details?.[0]?.path).toBe("mode");
    const other = await send(
      app,
      "POST",
      `/api/v1/custom/org/${t.orgB.uuid}/accounts/${accountUuid}/tax_lots/import/`,
      { key: t.orgB.apiKey, raw: lotsCsv(symbols(), 1), headers: { "Content-Type": "text/csv" } },
    );
    expect(other.status).toBe(404);
    expect(envelope(other).code).toBe("account_not_found");
  });

  it("is in the OpenAPI document with both upload media types and the query parameters", async () => {
    const doc = (await send(app, "GET", "/api/v1/openapi.json")).body as {
      paths: Record<
        string,
        Record<string, { requestBody: { content: object }; parameters: { name: string }[] }>
      >;
    };
    const op =
      doc.paths["/api/v1/custom/org/{organization_uuid}/accounts/{account_uuid}/tax_lots/import/"]!.post!;
    expect(Object.keys(op.requestBody.content)).toEqual(["text/csv", "multipart/form-data"]);
    expect(op.parameters.map((p) => p.name)).toEqual(
      expect.arrayContaining(["mode", "dry_run", "include_lots", "map_trade_date", "date_order"]),
    );
  });
});

describe("RemoteBackend.importLots", () => {
  let handle: ServerHandle;
  let remote: RemoteBackend;
  beforeAll(async () => {
    handle = await serve({ ctx: t.ctx, port: 0, log: () => undefined });
    remote = await RemoteBackend.connect({ url: handle.url, apiKey: t.orgA.apiKey });
  });
  afterAll(() => handle.close());

  it("streams 100,000 lots to the server as one all-or-nothing import", async () => {
    async function* chunks(): AsyncIterable<string> {
      const text = lotsCsv(symbols(), 100_000);
      for (let i = 0; i < text.length; i += 100_000) yield text.slice(i, i + 100_000);
    }
    const r = await remote.importLots(accountUuid, chunks(), { file_name: "100k.csv" });
    expect(r).toMatchObject({ lots_before: 40_003, lots_in_file: 100_000, lots_after: 100_000 });
    expect(await lotCount()).toBe(100_000);
  });

  it("gets the same validation error as the local backend", async () => {
    const csv = "Symbol,Quantity,Cost Basis,Open Date\nZZZZ,1,1,2024-01-02\n";
    const [l, r] = await Promise.all(
      [local, remote].map(async (b) => b.importLots(accountUuid, csv).catch((e: unknown) => e)),
    );
    expect(r).toBeInstanceOf(ValidationError);
    expect((r as ValidationError).issues).toEqual((l as ValidationError).issues);
    expect((r as ValidationError).issues).toEqual([
      { path: 'lots.csv: line 2, column "Symbol"', message: "unknown ticker ZZZZ" },
    ]);
    expect(await lotCount()).toBe(100_000);
  });
});
