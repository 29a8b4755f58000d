import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { lotImportResultSchema } from "../contract/index.js";
import { NotFoundError, ValidationError } from "../core/errors.js";
import { openSqliteStore, type SqliteStore } from "../store/index.js";
import { buildDemo, type DemoResult } from "./demo.js";
import { createOrganization, getAccount, importLots, type ServiceContext } from "./index.js";

const FIXTURE = resolve(import.meta.dirname, "..", "..", "fixtures", "lots-broker-export.csv");

/** A text as a stream of small chunks (cut inside lines and quoted fields). */
async function* chunked(text: string, size = 7): AsyncIterable<Uint8Array> {
  const bytes = Buffer.from(text, "utf8");
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

describe("importLots (service)", () => {
  let store: SqliteStore;
  let ctx: ServiceContext;
  let demo: DemoResult;
  const lotIds = async () =>
    (
      await getAccount(ctx, demo.organization_uuid, demo.client_uuid, demo.account_uuid)
    ).holdings.tax_lots.map((l) => `${l.theme_asset_id} ${l.quantity} ${l.trade_date}`);

  beforeAll(async () => {
    store = openSqliteStore(":memory:");
    ctx = { store, clock: () => new Date("2026-01-15T15:00:00Z") };
    demo = await buildDemo(ctx);
  });
  afterAll(() => store.close());

  it("reads a broker export streamed in 7-byte chunks and replaces the account's lots in one go", async () => {
    const text = readFileSync(FIXTURE, "utf8");
    const r = lotImportResultSchema.parse(
      await importLots(ctx, demo.organization_uuid, demo.account_uuid, chunked(text), {
        file_name: "lots-broker-export.csv",
      }),
    );
    expect(r.lots_in_file).toBe(6);
    expect(r.lots_after).toBe(6);
    expect(r.skipped_count).toBe(2);
    expect(r.by_ticker).toEqual([
      { theme_asset_id: "DEL:XNYS", lots: 2, quantity: "160", total_cost_basis_usd: "12228.20" },
      { theme_asset_id: "OSM:XNYS", lots: 1, quantity: "1000", total_cost_basis_usd: "15370.00" },
      { theme_asset_id: "SGR:XNYS", lots: 1, quantity: "235", total_cost_basis_usd: "18816.45" },
      { theme_asset_id: "NORL:XNAS", lots: 1, quantity: "300.5", total_cost_basis_usd: "8864.75" },
      // 6,420.00 CAD at 1.3650 CAD per USD
      { theme_asset_id: "VRV:XTSE", lots: 1, quantity: "50", total_cost_basis_usd: "4703.30" },
    ]);
    expect(r.preview).toHaveLength(6);
    expect(r.lots).toBeUndefined();
    expect(await lotIds()).toEqual([
      "DEL:XNYS 120 2022-03-14",
      "DEL:XNYS 40 2025-11-03",
      "OSM:XNYS 1000 2023-06-02",
      "SGR:XNYS 235 2024-10-21",
      "NORL:XNAS 300.5 2025-08-19",
      "VRV:XTSE 50 2024-07-02",
    ]);
  });

  it("appends after the existing lots without rewriting them, and a dry run writes nothing", async () => {
    const before = await lotIds();
    const csv = "Symbol,Quantity,Cost Basis,Open Date\nOSM,5,50,2024-01-02\nSGR,7,70,2024-01-03\n";
    const dry = await importLots(ctx, demo.organization_uuid, demo.account_uuid, csv, {
      mode: "append",
      dry_run: true,
      include_lots: true,
    });
    expect(dry).toMatchObject({ lots_before: 6, lots_after: 8, dry_run: true });
    expect(dry.lots?.map((l) => l.theme_asset_id)).toEqual(["OSM:XNYS", "SGR:XNYS"]);
    expect(await lotIds()).toEqual(before);
    const r = await importLots(ctx, demo.organization_uuid, demo.account_uuid, csv, { mode: "append" });
    expect(r).toMatchObject({ lots_before: 6, lots_after: 8, lots_in_file: 2 });
    expect(await lotIds()).toEqual([...before, "OSM:XNYS 5 2024-01-02", "SGR:XNYS 7 2024-01-03"]);
  });

  it("refuses a file with a bad row anywhere (even after thousands of good ones) and writes nothing", async () => {
    const before = await lotIds();
    const rows = Array.from({ length: 5000 }, (_, i) => `OSM,${i + 1},10,2024-01-02`);
    rows.push("OSM,-3,10,2024-01-02");
    const csv = `Symbol,Quantity,Cost Basis,Open Date\n${rows.join("\n")}\n`;
    const err = await importLots(ctx, demo.organization_uuid, demo.account_uuid, chunked(csv, 4096), {
      file_name: "big.csv",
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).message).toBe("big.csv: 1 problem(s); nothing was imported.");
    expect((err as ValidationError).issues).toEqual([
      {
        path: 'big.csv: line 5002, column "Quantity"',
        message: 'quantity must be a number above 0, got "-3"',
      },
    ]);
    expect(await lotIds()).toEqual(before);
  });

  it("names unknown symbols and foreign lots without FX rate by line, after the rows are valid", async () => {
    const csv =
      "Symbol,Quantity,Cost Basis,Open Date,Currency\nZZZZ,1,1,2024-01-02,USD\nVRV,1,1,2024-01-02,CAD\n";
    const err = (await importLots(ctx, demo.organization_uuid, demo.account_uuid, csv).catch(
      (e: unknown) => e,
    )) as ValidationError;
    expect(err.issues).toEqual([
      { path: 'lots.csv: line 2, column "Symbol"', message: "unknown ticker ZZZZ" },
      {
        path: "lots.csv: line 3",
        message: "a CAD lot needs an fx_rate column (units of CAD per USD at purchase)",
      },
    ]);
  });

  it("lists the first 1000 problems of a file full of bad rows and counts them all", async () => {
    const rows = Array.from({ length: 1500 }, () => "OSM,x,10,2024-01-02");
    const csv = `Symbol,Quantity,Cost Basis,Open Date\n${rows.join("\n")}\n`;
    const err = (await importLots(ctx, demo.organization_uuid, demo.account_uuid, csv).catch(
      (e: unknown) => e,
    )) as ValidationError;
    expect(err.message).toBe("lots.csv: 1500 problem(s); nothing was imported.");
    expect(err.issues).toHaveLength(1001);
    expect(err.issues.at(-1)).toEqual({ path: "lots.csv", message: "500 more problem(s) not listed" });
  });

  it("refuses quantities with more decimals than a lot holds, naming the line and column", async () => {
    const csv = "Symbol,Quantity,Cost Basis,Open Date\nOSM,1.123456789012,10,2024-01-02\n";
    const err = (await importLots(ctx, demo.organization_uuid, demo.account_uuid, csv).catch(
      (e: unknown) => e,
    )) as ValidationError;
    expect(err.issues).toEqual([
      {
        path: 'lots.csv: line 2, column "Quantity"',
        message: '"1.123456789012" has more than 20 integer digits or 10 decimal places',
      },
    ]);
  });

  it("reports an unreadable CSV and another organization's account like the rest of the service", async () => {
    const broken = 'Symbol,Quantity,Cost Basis,Open Date\n"OSM,1,10,2024-01-02\n';
    await expect(importLots(ctx, demo.organization_uuid, demo.account_uuid, broken)).rejects.toThrow(
      /lots\.csv is not a readable CSV file/,
    );
    const other = (await createOrganization(ctx, "Other firm")).organization.uuid;
    await expect(importLots(ctx, other, demo.account_uuid, "Symbol,Quantity\n")).rejects.toBeInstanceOf(
      NotFoundError,
    );
  });
});
