/**
 * Requests that passed validation and then failed as a 500, or were accepted though they should not be, refused at
 * the boundary with the error envelope: numbers that fit their digits but overflow the responses' format, deeply
 * nested JSON, lone UTF-16 surrogates, repeated assets in a substitution group, URLs and headers over Node's limit,
 * risk-model uploads over their (lowered) limit; and store files created private to their owner.
 */
import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp, type LotwiseApp, serve } from "../src/server/index.js";
import { RISK_MODEL_MAX_BODY_BYTES } from "../src/server/routes.js";
import { createOrganization } from "../src/service/index.js";
import { openSqliteStore } from "../src/store/index.js";
import {
  createTestStore,
  type SeededOrganization,
  seedOrganization,
  type TestStore,
} from "./helpers/fixture.js";
import { type Answer, envelope, send } from "./helpers/http.js";

let t: TestStore;
let app: LotwiseApp;
let seeded: SeededOrganization;
const logged: string[] = [];

beforeAll(async () => {
  t = await createTestStore();
  seeded = await seedOrganization(t, t.orgA);
  app = createApp({ ctx: t.ctx, log: (line) => logged.push(line) });
});
afterAll(() => t.close());

const org = () => `/api/v1/custom/org/${t.orgA.uuid}`;
const accountsPath = () => `${org()}/clients/${seeded.clientUuid}/accounts/`;
const post = (path: string, json: unknown) => send(app, "POST", path, { key: t.orgA.apiKey, json });
const postRaw = (path: string, raw: string) =>
  send(app, "POST", path, { key: t.orgA.apiKey, raw, headers: { "Content-Type": "application/json" } });
const lot = (fields: Record<string, string>) => ({
  theme_asset_id: t.usTickers[0]!,
  quantity: "10",
  cost_basis: "50",
  trade_date: "2024-03-01",
  ...fields,
});

/** The 400 envelope's details as path -> message. */
function details(a: Answer): Record<string, string> {
  expect(a.status, a.text.slice(0, 300)).toBe(400);
  return Object.fromEntries((envelope(a).details ?? []).map((d) => [d.path, d.message]));
}

describe("values that fit their digits but would overflow a response", () => {
  it("refuses a 20-digit lot quantity naming the field and its range (was a 500: quantity x price)", async () => {
    const a = await post(accountsPath(), {
      name: "big",
      holdings: { tax_lots: [lot({ quantity: "99999999999999999999" })] },
    });
    const d = details(a);
    expect(Object.keys(d)).toEqual(["holdings.tax_lots[0].quantity"]);
    expect(d["holdings.tax_lots[0].quantity"]).toContain("at most 1000000000000");
  });

  it("refuses a 20-digit cost basis per share naming cost_basis (was a 500: quantity x cost basis)", async () => {
    const a = await post(accountsPath(), {
      name: "big",
      holdings: { tax_lots: [lot({ cost_basis: "99999999999999999999" })] },
    });
    expect(details(a)["holdings.tax_lots[0].cost_basis"]).toContain("at most 1000000000000000");
  });

  it("refuses a total cost basis whose per-share figure passes 10^15 (a tiny quantity)", async () => {
    const a = await post(accountsPath(), {
      name: "big",
      holdings: {
        tax_lots: [lot({ quantity: "0.0000000001", cost_basis: "100000000000", cost_basis_unit: "total" })],
      },
    });
    expect(details(a)["holdings.tax_lots[0].cost_basis"]).toMatch(
      /per-share cost basis .* is 1e\+21; at most 1000000000000000/,
    );
  });

  it("refuses an fx_rate so small that the USD cost basis would overflow", async () => {
    const a = await post(accountsPath(), {
      name: "big",
      holdings: {
        tax_lots: [
          {
            theme_asset_id: t.caTickers[0]!,
            quantity: "1",
            cost_basis: "10000000000",
            cost_basis_currency: "CAD",
            fx_rate: "0.0000000001",
            trade_date: "2024-03-01",
          },
        ],
      },
    });
    expect(details(a)["holdings.tax_lots[0].fx_rate"]).toContain("at least 0.0001 and at most 100000");
  });

  it("refuses a 20-digit cash value naming cash_value_usd (was a 500: cash + positions)", async () => {
    const a = await post(accountsPath(), {
      name: "big",
      cash_value_usd: "99999999999999999999",
      holdings: { tax_lots: [lot({})] },
    });
    expect(details(a)).toEqual({
      cash_value_usd: "must be at least 0 and at most 1000000000000000, got 99999999999999999999",
    });
  });

  it("accepts the largest values and answers them in full: the limits leave room for the derived figures", async () => {
    const a = await post(accountsPath(), {
      name: "largest",
      cash_value_usd: "1000000000000000",
      holdings: {
        non_tradable_assets_value: "1000000000000000",
        tax_lots: [lot({ quantity: "1000000000000", cost_basis: "1000" })],
      },
    });
    expect(a.status, a.text.slice(0, 300)).toBe(201);
    const account = a.body as {
      holdings: { tax_lots: { total_cost_basis: string; current_value: string }[] };
      aum: string;
    };
    expect(account.holdings.tax_lots[0]!.total_cost_basis).toBe("1000000000000000");
    expect(Number(account.holdings.tax_lots[0]!.current_value)).toBeGreaterThan(1e12);
    expect(Number(account.aum)).toBeGreaterThan(1e15);
  });

  it("refuses the same overflow in a client update's holdings", async () => {
    const a = await send(app, "PATCH", `${org()}/clients/${seeded.clientUuid}/`, {
      key: t.orgA.apiKey,
      json: { holdings: { tax_lots: [lot({ quantity: "99999999999999999999" })] } },
    });
    expect(Object.keys(details(a))).toEqual(["holdings.tax_lots[0].quantity"]);
  });
});

describe("deeply nested JSON", () => {
  const nested = (levels: number) => `${'{"a":'.repeat(levels)}1${"}".repeat(levels)}`;

  it("answers 5,000 levels (10 KB) with a 400 malformed_body envelope, not a 500", async () => {
    const raw = `{"external_id":"deep","metadata":${nested(5000)}}`;
    const a = await postRaw(`${org()}/clients/`, raw);
    expect(a.status, a.text.slice(0, 300)).toBe(400);
    expect(envelope(a).code).toBe("malformed_body");
    expect(envelope(a).message).toContain("more than 64 levels");
    expect(logged.filter((l) => l.includes("internal error"))).toEqual([]);
  });

  it("accepts 64 levels, and brackets inside strings do not count", async () => {
    const raw = `{"external_id":"[[[[{{{{\\"[[","metadata":{"deep":${nested(62)},"text":"${"[".repeat(5000)}"}}`;
    const a = await postRaw(`${org()}/clients/`, raw);
    expect(a.status, a.text.slice(0, 300)).toBe(201);
    expect((a.body as { external_id: string }).external_id).toBe('[[[[{{{{"[[');
  });
});

describe("lone UTF-16 surrogates", () => {
  it("refuses a lone surrogate in any string field, naming the field", async () => {
    // JSON.stringify escapes a lone surrogate as \ud800, which JSON.parse turns back into one.
    const a = await post(`${org()}/clients/`, { external_id: "a\ud800b", metadata: { note: "ok" } });
    const d = details(a);
    expect(envelope(a).code).toBe("validation_error");
    expect(d).toEqual({
      external_id:
        "the text contains a lone UTF-16 surrogate (\\ud800 at character 1); send well-formed Unicode text",
    });
  });

  it("refuses one in a nested value or a key, wherever it is", async () => {
    const a = await post(accountsPath(), {
      name: "ok",
      metadata: { tags: ["fine", "x\udc00"], "k\udbff": 1 },
    });
    expect(Object.keys(details(a))).toEqual(["metadata.tags[1]", 'metadata["k\\udbff"]']);
  });

  it("keeps a well-formed surrogate pair (an emoji sent as \\ud83d\\ude00) intact", async () => {
    const a = await postRaw(`${org()}/clients/`, '{"external_id":"smile \\ud83d\\ude00"}');
    expect(a.status, a.text.slice(0, 300)).toBe(201);
    expect((a.body as { external_id: string }).external_id).toBe("smile 😀");
  });
});

describe("substitution groups", () => {
  it("refuses a group with a repeated asset at the index of the repeat", async () => {
    const [a1, a2] = [t.usTickers[3]!, t.usTickers[4]!];
    const a = await post(`${org()}/portfolio_configs/`, {
      name: "subst",
      substitution_pairs: [[a1, a2, a1]],
    });
    expect(details(a)).toEqual({
      "substitution_pairs[0][2]": `${a1} is already in this substitution group at index 0; list each asset once`,
    });
  });
});

describe("risk-model upload limit", () => {
  it(`refuses a body over ${RISK_MODEL_MAX_BODY_BYTES / 1024 / 1024} MiB with 413 before parsing it`, async () => {
    expect(RISK_MODEL_MAX_BODY_BYTES).toBe(16 * 1024 * 1024);
    const body = new Uint8Array(RISK_MODEL_MAX_BODY_BYTES + 1).fill(0x20);
    const a = await send(app, "POST", `${org()}/risk_models/`, {
      key: t.orgA.apiKey,
      raw: body,
      headers: { "Content-Type": "application/json" },
    });
    expect(a.status).toBe(413);
    expect(envelope(a)).toMatchObject({ code: "payload_too_large" });
    expect(envelope(a).message).toContain("16 MiB");
  });
});

describe("the node server", () => {
  it("answers a URL over 16 KiB with 431 and the error envelope; a shorter one reaches the app", async () => {
    const handle = await serve({ ctx: t.ctx, port: 0, log: () => {} });
    try {
      const long = await fetch(`${handle.url}/api/v1/me?q=${"x".repeat(17 * 1024)}`);
      expect(long.status).toBe(431);
      expect(long.headers.get("content-type")).toBe("application/json");
      const body = (await long.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe("request_header_fields_too_large");
      expect(body.error.message).toContain("16 KiB");
      const bigHeader = await fetch(`${handle.url}/api/v1/me`, {
        headers: { "X-Big": "y".repeat(17 * 1024) },
      });
      expect(bigHeader.status).toBe(431);
      expect(((await bigHeader.json()) as { error: { code: string } }).error.code).toBe(
        "request_header_fields_too_large",
      );
      const ok = await fetch(`${handle.url}/api/v1/me?q=${"x".repeat(8 * 1024)}`, {
        headers: { "X-Api-Key": t.orgA.apiKey },
      });
      expect(ok.status).toBe(200);
    } finally {
      await handle.close();
    }
  });
});

describe("store files", () => {
  it("creates the store file and its -wal and -shm files readable by the owner only (0600)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "lotwise-mode-"));
    try {
      const path = join(dir, "private.db");
      const store = openSqliteStore(path);
      try {
        await createOrganization({ store, clock: () => new Date("2025-07-01T00:00:00Z") }, "Private");
        for (const file of [path, `${path}-wal`, `${path}-shm`]) {
          expect(existsSync(file), file).toBe(true);
          expect((statSync(file).mode & 0o777).toString(8), file).toBe("600");
        }
      } finally {
        await store.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
