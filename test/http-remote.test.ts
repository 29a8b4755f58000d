/**
 * The client side over a real listening server (serve on port 0): RemoteBackend gives the same results and the
 * same errors as LocalBackend for every operation; connection failures, timeouts and contract mismatches; the
 * response cache stays correct when another connection (a CLI) writes the same store file; ETag and gzip.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ConnectionError,
  errorFromResponse,
  HttpClient,
  InvalidResponseError,
  RemoteBackend,
  RemoteServiceError,
} from "../src/client/index.js";
import { clientListSchema, whoAmISchema } from "../src/contract/index.js";
import {
  AuthenticationError,
  ConflictError,
  NotFoundError,
  type PortfolioError,
  ValidationError,
} from "../src/core/errors.js";
import { type ServerHandle, serve } from "../src/server/index.js";
import { type Backend, LocalBackend } from "../src/service/index.js";
import { openSqliteStore } from "../src/store/index.js";
import {
  configCreateBody,
  createTestStore,
  type SeededOrganization,
  seedOrganization,
  type TestStore,
  vendorModelBody,
} from "./helpers/fixture.js";

let dir: string;
let t: TestStore;
let seeded: SeededOrganization;
let handle: ServerHandle;
let remote: RemoteBackend;
let local: LocalBackend;
let riskModelUuid: string;
const logged: string[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "lotwise-http-remote-"));
  t = await createTestStore({ path: join(dir, "store.db") });
  seeded = await seedOrganization(t, t.orgA);
  await seedOrganization(t, t.orgB);
  handle = await serve({ ctx: t.ctx, port: 0, log: (l) => logged.push(l) });
  remote = await RemoteBackend.connect({ url: handle.url, apiKey: t.orgA.apiKey });
  local = new LocalBackend(t.ctx, t.orgA.uuid);
  riskModelUuid = (await local.importRiskModel(vendorModelBody(t.usTickers, "2025-04-30", "Seeded model")))
    .uuid;
});
afterAll(async () => {
  await handle.close();
  t.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Plain JSON of a value (what goes over the wire). */
const json = (v: unknown) => JSON.parse(JSON.stringify(v)) as unknown;

async function failure(p: Promise<unknown>): Promise<PortfolioError> {
  try {
    await p;
  } catch (err) {
    return err as PortfolioError;
  }
  throw new Error("expected a rejection");
}

describe("serve", () => {
  it("binds loopback on the port it was given (0 = a free one) and reports it", () => {
    expect(handle.host).toBe("127.0.0.1");
    expect(handle.port).toBeGreaterThan(0);
    expect(handle.url).toBe(`http://127.0.0.1:${handle.port}`);
  });

  it("rejects when the port is taken", async () => {
    await expect(serve({ ctx: t.ctx, port: handle.port })).rejects.toMatchObject({ code: "EADDRINUSE" });
  });
});

describe("RemoteBackend", () => {
  it("learns the organization of its key", async () => {
    expect(remote.kind).toBe("remote");
    expect(remote.organizationUuid).toBe(t.orgA.uuid);
    expect(await remote.whoAmI()).toEqual({
      organization_uuid: t.orgA.uuid,
      organization_name: "Org A",
      api_key_id: t.orgA.keyId,
    });
  });

  it("gives the same results as the local backend for every operation", async () => {
    const pairs: [string, (b: Backend) => Promise<unknown>][] = [
      ["listClients", (b) => b.listClients()],
      ["getClient", (b) => b.getClient(seeded.clientUuid)],
      ["listAccounts", (b) => b.listAccounts(seeded.clientUuid)],
      ["getAccount", (b) => b.getAccount(seeded.clientUuid, seeded.accountUuid)],
      ["findAccount", (b) => b.findAccount(seeded.accountUuid)],
      ["listPortfolioConfigs", (b) => b.listPortfolioConfigs()],
      ["getPortfolioConfig", (b) => b.getPortfolioConfig(seeded.configUuid)],
      ["listAssetClasses", (b) => b.listAssetClasses()],
      ["getAssetClass", (b) => b.getAssetClass(seeded.assetClassUuids[0]!)],
      ["optimizeAccount", (b) => b.optimizeAccount(seeded.clientUuid, seeded.accountUuid)],
      [
        "optimizeAccount as of a date",
        (b) => b.optimizeAccount(seeded.clientUuid, seeded.accountUuid, { as_of_date: "2025-03-31" }),
      ],
      ["harvestScan", (b) => b.harvestScan(seeded.clientUuid, seeded.accountUuid)],
      [
        "harvestScan with thresholds",
        (b) =>
          b.harvestScan(seeded.clientUuid, seeded.accountUuid, {
            min_loss_usd: "10",
            min_loss_fraction: "0.01",
          }),
      ],
      ["evaluateAccount", (b) => b.evaluateAccount(seeded.clientUuid, seeded.accountUuid)],
      [
        "evaluateAccount as of a date",
        (b) => b.evaluateAccount(seeded.clientUuid, seeded.accountUuid, { as_of_date: "2025-03-31" }),
      ],
      ["listRiskModels", (b) => b.listRiskModels()],
      ["getRiskModel", (b) => b.getRiskModel(riskModelUuid)],
    ];
    for (const [name, op] of pairs) expect(json(await op(remote)), name).toEqual(json(await op(local)));
  });

  it("creates, updates and deletes through the service, visible to the local backend", async () => {
    const client = await remote.createClient({ external_id: "remote-1" });
    expect(json(await local.getClient(client.uuid))).toEqual(json(client));
    const account = await remote.createAccount(client.uuid, { name: "Remote", cash_value_usd: "10" });
    expect(json(await local.getAccount(client.uuid, account.uuid))).toEqual(json(account));
    const updated = await remote.updateClient(client.uuid, {
      external_id: "remote-2",
      account_uuid: account.uuid,
    });
    expect(updated.external_id).toBe("remote-2");
    expect(json(await local.getClient(client.uuid))).toEqual(json(updated));
    const config = await remote.createPortfolioConfig(
      configCreateBody(t, "Remote config", seeded.assetClassUuids),
    );
    expect(json(await local.getPortfolioConfig(config.uuid))).toEqual(json(config));
    const patched = await remote.updatePortfolioConfig(config.uuid, { no_hold_tickers: [] });
    expect(patched.no_hold_tickers).toEqual([]);
    expect(json(await local.getPortfolioConfig(config.uuid))).toEqual(json(patched));
    const sleeve = await remote.createAssetClass({
      name: "Remote sleeve",
      benchmark_index_identifier: "SYNTH500",
    });
    expect(json(await local.getAssetClass(sleeve.uuid))).toEqual(json(sleeve));
    await expect(remote.deleteClient(client.uuid)).resolves.toBeUndefined();
    await expect(local.getClient(client.uuid)).rejects.toBeInstanceOf(NotFoundError);
    const model = await remote.importRiskModel(vendorModelBody(t.usTickers, "2025-05-30", "Remote model"));
    expect(json(await local.getRiskModel(model.uuid))).toEqual(json(model));
    await expect(remote.deleteRiskModel(model.uuid)).resolves.toBeUndefined();
    await expect(local.getRiskModel(model.uuid)).rejects.toBeInstanceOf(NotFoundError);
  });

  it("throws the same error classes, codes, messages and issues as the local backend", async () => {
    const ghost = crypto.randomUUID();
    const calls: [string, (b: Backend) => Promise<unknown>][] = [
      ["getClient", (b) => b.getClient(ghost)],
      ["getAccount", (b) => b.getAccount(seeded.clientUuid, ghost)],
      ["findAccount", (b) => b.findAccount(ghost)],
      ["getPortfolioConfig", (b) => b.getPortfolioConfig(ghost)],
      ["getAssetClass", (b) => b.getAssetClass(ghost)],
      [
        "updatePortfolioConfig",
        (b) =>
          b.updatePortfolioConfig(seeded.configUuid, { no_hold_tickers: [{ theme_asset_id: "ZZZZ:XNAS" }] }),
      ],
      ["updateClient", (b) => b.updateClient(seeded.clientUuid, { portfolio_config_uuid: ghost })],
      ["optimizeAccount", (b) => b.optimizeAccount(seeded.clientUuid, ghost)],
      ["rebalanceAccount", (b) => b.rebalanceAccount(ghost, seeded.accountUuid)],
      ["harvestScan", (b) => b.harvestScan(seeded.clientUuid, ghost)],
      ["evaluateAccount", (b) => b.evaluateAccount(seeded.clientUuid, ghost)],
      [
        "updatePortfolioConfig with an evaluation rule whose condition does not parse",
        (b) =>
          b.updatePortfolioConfig(seeded.configUuid, {
            evaluation_rules: [{ enabled: true, rules: [{ value: "review", condition: "nav >" }] }],
          }),
      ],
      [
        "harvestScan with a threshold above 1",
        (b) => b.harvestScan(seeded.clientUuid, seeded.accountUuid, { min_loss_fraction: "1.5" }),
      ],
      [
        "optimizeAccount with a bad date",
        (b) => b.optimizeAccount(seeded.clientUuid, seeded.accountUuid, { as_of_date: "31/03/2025" }),
      ],
      ["getRiskModel", (b) => b.getRiskModel(ghost)],
      ["deleteRiskModel", (b) => b.deleteRiskModel(ghost)],
      [
        "importRiskModel with an unknown factor",
        (b) => {
          const body = vendorModelBody(t.usTickers.slice(0, 2), "2025-05-30", "Bad");
          return b.importRiskModel({
            ...body,
            exposures: [...body.exposures, { asset: t.usTickers[0]!, factor: "value", exposure: 1 }],
          });
        },
      ],
      [
        "importRiskModel without its frequency",
        (b) => {
          const { frequency: _, ...body } = vendorModelBody(t.usTickers.slice(0, 2), "2025-05-30", "Bad");
          return b.importRiskModel(body as never);
        },
      ],
      [
        "optimizeAccount before the market data",
        (b) => b.optimizeAccount(seeded.clientUuid, seeded.accountUuid, { as_of_date: "1990-01-02" }),
      ],
    ];
    for (const [name, op] of calls) {
      const r = await failure(op(remote));
      const l = await failure(op(local));
      expect(r.constructor, name).toBe(l.constructor);
      expect([r.code, r.message], name).toEqual([l.code, l.message]);
      if (l instanceof ValidationError) expect((r as ValidationError).issues).toEqual(l.issues);
    }
  });

  it("maps a request the schema refuses to a ValidationError with the server's details", async () => {
    const err = await failure(remote.createClient({ external_id: "" }));
    expect(err).toBeInstanceOf(ValidationError);
    expect(err.code).toBe("validation_error");
    expect((err as ValidationError).issues.map((i) => i.path)).toEqual(["external_id"]);
  });

  it("refuses a bad key at connect with an AuthenticationError carrying the server's message", async () => {
    const err = await failure(RemoteBackend.connect({ url: handle.url, apiKey: "lw_nope" }));
    expect(err).toBeInstanceOf(AuthenticationError);
    expect(err.message).toMatch(/^Invalid API key/);
  });

  it("refuses an organization that is not the key's", async () => {
    const err = await failure(
      RemoteBackend.connect({ url: handle.url, apiKey: t.orgA.apiKey, organizationUuid: t.orgB.uuid }),
    );
    expect(err).toBeInstanceOf(NotFoundError);
    expect(err.code).toBe("organization_not_found");
    const same = await RemoteBackend.connect({
      url: `${handle.url}/`,
      apiKey: t.orgA.apiKey,
      organizationUuid: t.orgA.uuid.toUpperCase(),
    });
    expect(same.organizationUuid).toBe(t.orgA.uuid);
  });
});

describe("HttpClient", () => {
  it("reports an unreachable service as connection_failed", async () => {
    const closed = await serve({ ctx: t.ctx, port: 0 });
    const url = closed.url;
    await closed.close();
    const err = await failure(RemoteBackend.connect({ url, apiKey: t.orgA.apiKey }));
    expect(err).toBeInstanceOf(ConnectionError);
    expect(err.code).toBe("connection_failed");
    expect(err.message).toContain(url);
  });

  it("gives up after the time limit with a timeout error", async () => {
    // A socket that accepts and never answers.
    const sockets: Socket[] = [];
    const silent: Server = createServer((socket) => void sockets.push(socket));
    await new Promise<void>((r) => silent.listen(0, "127.0.0.1", () => r()));
    const port = (silent.address() as { port: number }).port;
    try {
      const http = new HttpClient({ url: `http://127.0.0.1:${port}`, apiKey: "k", timeoutMs: 150 });
      const err = await failure(
        http.request("GET", "/api/v1/me", { operation: "whoAmI", schema: whoAmISchema }),
      );
      expect(err).toBeInstanceOf(ConnectionError);
      expect(err.code).toBe("timeout");
      expect(err.message).toBe(`GET http://127.0.0.1:${port}/api/v1/me got no answer within 150 ms.`);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((r) => silent.close(r));
    }
  });

  it("names the operation when a success body does not match the contract", async () => {
    const fake = (async () =>
      new Response(JSON.stringify([{ uuid: "x" }]), {
        status: 200,
        headers: { "content-type": "application/json" },
      })) as typeof fetch;
    const http = new HttpClient({ url: "http://service.invalid", apiKey: "k", fetch: fake });
    const err = await failure(
      http.request("GET", "/x", { operation: "listClients", schema: clientListSchema }),
    );
    expect(err).toBeInstanceOf(InvalidResponseError);
    expect(err.code).toBe("invalid_response");
    expect(err.message).toMatch(
      /^The response of listClients \(GET \/x\) does not match the contract: \[0\]\.uuid: /,
    );
  });

  it("maps envelopes by status and keeps bodies that are not envelopes readable", () => {
    const conflict = errorFromResponse(409, { error: { code: "duplicate", message: "Twice." } }, "op");
    expect(conflict).toBeInstanceOf(ConflictError);
    expect([conflict.code, conflict.message]).toEqual(["duplicate", "Twice."]);
    const tooBig = errorFromResponse(413, { error: { code: "payload_too_large", message: "Big." } }, "op");
    expect(tooBig).toBeInstanceOf(RemoteServiceError);
    expect([(tooBig as RemoteServiceError).status, tooBig.code]).toEqual([413, "payload_too_large"]);
    const proxy = errorFromResponse(502, "<html>Bad gateway</html>", "listClients");
    expect(proxy.code).toBe("http_502");
    expect(proxy.message).toBe(
      "The server answered 502 to listClients without an error envelope: <html>Bad gateway</html>",
    );
  });

  it("refuses a base URL that is not http(s) and an empty key", () => {
    expect(() => new HttpClient({ url: "ftp://x", apiKey: "k" })).toThrow(TypeError);
    expect(() => new HttpClient({ url: "not a url", apiKey: "k" })).toThrow(/is not a URL/);
    expect(() => new HttpClient({ url: "http://x", apiKey: " " })).toThrow(/API key is required/);
    expect(
      new HttpClient({ url: "https://host/prefix/", apiKey: "k" }).url("/api/v1/me", {
        a: "1",
        b: undefined,
      }),
    ).toBe("https://host/prefix/api/v1/me?a=1");
  });
});

describe("cached reads over a shared store file", () => {
  it("shows writes made by another connection (a CLI on the same file) on the next request", async () => {
    const before = await remote.listClients();
    const cli = openSqliteStore(t.store.connectionString!, { create: false });
    try {
      await cli.clients.create(t.orgA.uuid, { externalId: "written-by-cli" });
      const after = await remote.listClients();
      expect(after).toHaveLength(before.length + 1);
      expect(after.map((c) => c.external_id)).toContain("written-by-cli");
    } finally {
      await cli.close();
    }
  });

  it("honours a revocation made by another connection on the next request", async () => {
    const issued = await t.store.apiKeys.create(t.orgA.uuid, "revoked elsewhere");
    const backend = await RemoteBackend.connect({ url: handle.url, apiKey: issued.key });
    await backend.listClients();
    const cli = openSqliteStore(t.store.connectionString!, { create: false });
    try {
      await cli.apiKeys.revoke(t.orgA.uuid, issued.record.id);
    } finally {
      await cli.close();
    }
    await expect(backend.listClients()).rejects.toBeInstanceOf(AuthenticationError);
  });

  it("revalidates with ETag (304) and serves gzip to clients that accept it", async () => {
    const url = `${handle.url}/api/v1/custom/org/${t.orgA.uuid}/portfolio_configs/`;
    const headers = { "X-Api-Key": t.orgA.apiKey };
    const plain = await fetch(url, { headers: { ...headers, "Accept-Encoding": "identity" } });
    const plainBody = await plain.text();
    const etag = plain.headers.get("etag")!;
    expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    expect(plain.headers.get("content-encoding")).toBeNull();
    const again = await fetch(url, {
      headers: { ...headers, "If-None-Match": etag, "Accept-Encoding": "identity" },
    });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe("");
    // fetch asks for gzip by default and decompresses.
    const zipped = await fetch(url, { headers });
    expect(zipped.headers.get("content-encoding")).toBe("gzip");
    expect(zipped.headers.get("vary")).toBe("Accept-Encoding");
    expect(await zipped.text()).toBe(plainBody);
    // A write changes the answer and its ETag.
    await remote.createPortfolioConfig({ name: "changes the list" });
    const changed = await fetch(url, {
      headers: { ...headers, "If-None-Match": etag, "Accept-Encoding": "identity" },
    });
    expect(changed.status).toBe(200);
    expect(changed.headers.get("etag")).not.toBe(etag);
    expect((JSON.parse(await changed.text()) as unknown[]).length).toBe(
      (JSON.parse(plainBody) as unknown[]).length + 1,
    );
  });

  it("logged nothing unexpected while serving", () => {
    expect(logged).toEqual([]);
  });
});
