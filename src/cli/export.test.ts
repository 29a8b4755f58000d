/**
 * Exports through the CLI, in-process (`main()` with a memory output): `lots export` read back by `lots import`,
 * `proposal export` checked row by row against the stored proposal, and `--out` on list commands.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Command } from "commander";
import { parse } from "csv-parse/sync";
import { Decimal } from "decimal.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listing } from "../../test/helpers/listing.js";
import {
  createAccount,
  createAssetClass,
  createClient,
  createOrganization,
  createProposal,
  getAccount,
  getProposal,
  listClients,
  type ServiceContext,
} from "../service/index.js";
import { listExecutions } from "../service/ledger.js";
import { openSqliteStore, type SqliteStore } from "../store/index.js";
import { itemsNoun } from "./list-out.js";
import { buildProgram, main } from "./main.js";
import { memoryOutput } from "./output.js";

const security = (id: string) => listing(id, { name: `${id.split(":")[0]}, Inc.`, sector: 45 });

/** AAA, BBB, CCC (USD) and DDD (TSX, CAD at 1.25 per USD); closes on 2025-06-30: 110, 40, 25, 30 CAD. */
async function writeHandMarket(store: SqliteStore): Promise<void> {
  const m = store.market;
  await m.upsertSecurities(["AAA:XNYS", "BBB:XNYS", "CCC:XNYS", "DDD:XTSE"].map(security));
  const closes: Record<string, number> = { "AAA:XNYS": 110, "BBB:XNYS": 40, "CCC:XNYS": 25, "DDD:XTSE": 30 };
  await m.insertPrices(
    Object.entries(closes).map(([id, close]) => ({
      themeAssetId: id,
      date: "2025-06-30",
      open: null,
      high: null,
      low: null,
      close,
      adjClose: null,
      volume: null,
    })),
  );
  await m.insertFx([{ date: "2025-06-30", currency: "CAD", perUsd: 1.25 }]);
}

const dir = mkdtempSync(join(tmpdir(), "lotwise-export-"));
const file = join(dir, "export.db");
let store: SqliteStore;
let ctx: ServiceContext;
let org: string;
let clientUuid: string;
let accountUuid: string;
let emptyAccountUuid: string;
let proposalUuid: string;

async function run(args: string[], json = false) {
  const out = memoryOutput(json);
  const code = await main(["node", "lotwise", ...args, "--store", file, "--org", org], { output: () => out });
  return { code, stdout: out.stdout.join("\n"), stderr: out.stderr.join("\n") };
}

beforeAll(async () => {
  store = openSqliteStore(file);
  await writeHandMarket(store);
  ctx = { store, clock: () => new Date("2025-07-01T12:00:00Z") };
  org = (await createOrganization(ctx, "Export test")).organization.uuid;
  await createAssetClass(ctx, org, {
    name: 'The "core", sleeve',
    single_security_theme_asset_id: "AAA:XNYS",
  });
  clientUuid = (await createClient(ctx, org, { external_id: "CRM, 42" })).uuid;
  accountUuid = (
    await createAccount(ctx, org, clientUuid, {
      name: "Taxable",
      external_id: "CUST-0001",
      cash_value_usd: "2000",
      holdings: {
        tax_lots: [
          { theme_asset_id: "AAA:XNYS", quantity: "40", cost_basis: "90.125", trade_date: "2024-01-02" },
          {
            theme_asset_id: "BBB:XNYS",
            quantity: "60.5",
            cost_basis: "3327.5",
            cost_basis_unit: "total",
            trade_date: "2025-01-02",
            wash_sale_date: "2025-02-03",
          },
          {
            theme_asset_id: "BBB:XNYS",
            quantity: "10",
            cost_basis: "30",
            trade_date: "2023-05-04",
            last_sold_for_loss_date: "2025-03-03",
          },
          {
            theme_asset_id: "DDD:XTSE",
            quantity: "50",
            cost_basis: "28",
            trade_date: "2024-06-03",
            cost_basis_currency: "CAD",
            fx_rate: "1.3",
          },
        ],
      },
    })
  ).uuid;
  emptyAccountUuid = (await createAccount(ctx, org, clientUuid, { name: "Copy", cash_value_usd: "0" })).uuid;
  // BBB leaves the target (a sell of both its lots), CCC enters it (a notional buy), AAA and DDD move.
  proposalUuid = (
    await createProposal(ctx, org, clientUuid, accountUuid, {
      optimized_weights: [
        { ticker: "AAA:XNYS", weight: "0.4" },
        { ticker: "CCC:XNYS", weight: "0.4" },
        { ticker: "DDD:XTSE", weight: "0.1" },
      ],
    })
  ).proposal_uuid;
});
afterAll(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("lots export", () => {
  it("writes a CSV that lots import reads back to the same lots", async () => {
    const out = join(dir, "lots.csv");
    const exported = await run(["lots", "export", "--account", accountUuid, "--out", out]);
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stdout).toBe(`Wrote 4 lots to ${out} (CSV).`);
    const text = readFileSync(out, "utf8");
    expect(text.split("\r\n")[0]).toBe(
      "Symbol,MIC,Quantity,Cost Per Share,Total Cost,Currency,FX Rate,Trade Date,Wash Sale Date,Last Sold For Loss Date",
    );
    expect(text.split("\r\n")[2]).toBe("BBB,XNYS,60.5,,3327.5,USD,1,2025-01-02,2025-02-03,");

    const dry = await run(["lots", "import", out, "--account", emptyAccountUuid, "--dry-run"], true);
    expect(dry.code, dry.stderr).toBe(0);
    expect(JSON.parse(dry.stdout).lots_in_file).toBe(4);
    const imported = await run(["lots", "import", out, "--account", emptyAccountUuid]);
    expect(imported.code, imported.stderr).toBe(0);
    const original = (await getAccount(ctx, org, clientUuid, accountUuid)).holdings.tax_lots;
    const copy = (await getAccount(ctx, org, clientUuid, emptyAccountUuid)).holdings.tax_lots;
    expect(copy).toEqual(original);
    expect(copy.map((l) => [l.theme_asset_id, l.cost_basis_unit, l.fx_rate])).toEqual([
      ["AAA:XNYS", "per_share", "1"],
      ["BBB:XNYS", "total", "1"],
      ["BBB:XNYS", "per_share", "1"],
      ["DDD:XTSE", "per_share", "1.3"],
    ]);
  });

  it("prints the CSV on stdout without --out", async () => {
    const r = await run(["lots", "export", "--account", accountUuid]);
    expect(r.code, r.stderr).toBe(0);
    const rows = parse(r.stdout, { columns: true }) as Record<string, string>[];
    expect(rows.map((x) => [x.Symbol, x.Quantity, x["Cost Per Share"], x.Currency])).toEqual([
      ["AAA", "40", "90.125", "USD"],
      ["BBB", "60.5", "", "USD"],
      ["BBB", "10", "30", "USD"],
      ["DDD", "50", "28", "CAD"],
    ]);
  });
});

describe("proposal export", () => {
  it("writes one row per order in the generic layout, matching the stored proposal", async () => {
    const out = join(dir, "orders.csv");
    const r = await run(["proposal", "export", proposalUuid, "--account", accountUuid, "--out", out]);
    expect(r.code, r.stderr).toBe(0);
    const p = await createdProposal();
    expect(r.stdout).toBe(`Wrote ${p.orders.length} orders to ${out} (CSV).`);
    const rows = parse(readFileSync(out, "utf8"), { columns: true }) as Record<string, string>[];
    expect(rows).toHaveLength(p.orders.length);
    expect(p.orders.some((o) => o.type === "notional")).toBe(true);
    expect(p.orders.some((o) => (o.tax_lots?.length ?? 0) > 1)).toBe(true);
    p.orders.forEach((o, i) => {
      const row = rows[i]!;
      const sell = o.amount.startsWith("-");
      const size = new Decimal(o.amount).abs().toFixed();
      expect(row.Account).toBe("CUST-0001");
      expect(`${row.Symbol}:${row.Exchange}`).toBe(o.ticker);
      expect(row.Side).toBe(sell ? "SELL" : "BUY");
      expect(row.Quantity).toBe(o.type === "qty" ? size : "");
      expect(row.Notional).toBe(o.type === "notional" ? size : "");
      expect(row["Notional Currency"]).toBe(o.type === "notional" ? "USD" : "");
      expect(row.Currency).toBe(o.currency);
      expect(row["Order Type"]).toBe("MKT");
      expect(row["Time In Force"]).toBe("DAY");
      expect(row["Lot Method"]).toBe(o.tax_lots?.length ? "SPECIFIC_ID" : "");
      expect(row.Lots).toBe((o.tax_lots ?? []).map((l) => `${l.trade_date} x ${l.quantity}`).join("; "));
      // A share order of a held USD asset is valued at the holding's price (market value / shares), to the cent.
      const held = o.existing_quantity ? new Decimal(o.existing_quantity) : null;
      const usd = o.amount_usd
        ? new Decimal(o.amount_usd).abs().toFixed()
        : o.type === "notional"
          ? size
          : o.currency === "USD" && held !== null && held.gt(0) && o.existing_market_value
            ? new Decimal(size).times(o.existing_market_value).div(held).toFixed(2)
            : "";
      expect(row["Est. Value USD"]).toBe(usd);
      // Independently: a USD sell naming its lots is worth their proceeds (basis + gain), to the cent.
      if (o.currency === "USD" && sell && o.tax_lots?.length && usd !== "") {
        const proceeds = o.tax_lots.reduce((t, l) => t.plus(l.cost_basis).plus(l.gain), new Decimal(0));
        expect(new Decimal(usd).minus(proceeds).abs().toNumber()).toBeLessThanOrEqual(0.01);
      }
      expect(row.Reason).toBe(o.reason ?? "");
      expect(row.Reference).toBe(proposalUuid);
    });
    // BBB is removed: sold in full, its two lots (70.5 shares) named on the row.
    const bbb = rows.find((x) => x.Symbol === "BBB")!;
    expect([bbb.Side, bbb.Quantity, bbb.Reason]).toEqual(["SELL", "70.5", "removed_from_target"]);
  });

  it("writes one row per lot sold in the lots layout", async () => {
    const r = await run(["proposal", "export", proposalUuid, "--account", accountUuid, "--layout", "lots"]);
    expect(r.code, r.stderr).toBe(0);
    const rows = parse(r.stdout, { columns: true }) as Record<string, string>[];
    const lots = (await createdProposal()).orders.flatMap((o) => (o.tax_lots ?? []).map((l) => ({ o, l })));
    expect(rows.length).toBe(lots.length);
    expect(rows.length).toBeGreaterThanOrEqual(2);
    lots.forEach(({ o, l }, i) => {
      const row = rows[i]!;
      expect([row.Account, `${row.Symbol}:${row.Exchange}`, row.Side, row["Lot Method"]]).toEqual([
        "CUST-0001",
        o.ticker,
        "SELL",
        "SPECIFIC_ID",
      ]);
      expect(row["Order Quantity"]).toBe(new Decimal(o.amount).abs().toFixed());
      expect([
        row["Lot Trade Date"],
        row["Lot Quantity"],
        row["Lot Cost Basis USD"],
        row["Lot Gain USD"],
      ]).toEqual([l.trade_date, l.quantity, l.cost_basis, l.gain]);
    });
  });

  it("refuses an unknown layout as a usage error", async () => {
    const r = await run(["proposal", "export", proposalUuid, "--account", accountUuid, "--layout", "fix"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--layout must be generic or lots, not "fix"');
  });
});

describe("--out on list commands", () => {
  it("clients list --out FILE.csv writes one CSV row per client and says so (one client: singular)", async () => {
    const out = join(dir, "clients.csv");
    const r = await run(["clients", "list", "--out", out]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(`Wrote 1 client to ${out} (CSV).`);
    const rows = parse(readFileSync(out, "utf8"), { columns: true }) as Record<string, string>[];
    const [client] = await listClients(ctx, org);
    expect(rows).toEqual([
      {
        client_uuid: clientUuid,
        external_id: "CRM, 42",
        accounts: "2",
        aum_usd: client!.accounts.reduce((s, a) => s.plus(a.aum), new Decimal(0)).toFixed(),
        created: client!.created,
      },
    ]);
  });

  it("names one item in the singular and other counts in the plural", () => {
    expect(itemsNoun(1, "scan rows")).toBe("scan row");
    expect(itemsNoun(1, "asset classes")).toBe("asset class");
    expect(itemsNoun(1, "API keys")).toBe("API key");
    expect(itemsNoun(0, "clients")).toBe("clients");
    expect(itemsNoun(2, "asset classes")).toBe("asset classes");
  });

  it("asset-classes list --out FILE.json writes what --json prints", async () => {
    const out = join(dir, "asset-classes.json");
    const r = await run(["asset-classes", "list", "--out", out], true);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ written: out, format: "json", rows: 1 });
    const printed = await run(["asset-classes", "list"], true);
    const written = JSON.parse(readFileSync(out, "utf8"));
    expect(written).toEqual(JSON.parse(printed.stdout));
    expect(written[0].name).toBe('The "core", sleeve');
  });

  it("--out into a folder that does not exist is a usage error that names the path", async () => {
    const out = join(dir, "no-such-folder", "themes.csv");
    const r = await run(["themes", "list", "--out", out]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`lotwise: cannot open ${out}: no such file or folder`);
  });

  it("keys list --out FILE.csv lists every key with its documented columns", async () => {
    const out = join(dir, "keys.csv");
    const r = await run(["keys", "list", "--out", out]);
    expect(r.code, r.stderr).toBe(0);
    const rows = parse(readFileSync(out, "utf8"), { columns: true }) as Record<string, string>[];
    expect(rows.map((k) => k.key_id)).toEqual((await store.apiKeys.list(org)).map((k) => k.id));
    expect(Object.keys(rows[0]!)).toEqual([
      "key_id",
      "prefix",
      "label",
      "created",
      "last_used_at",
      "revoked_at",
    ]);
  });

  it("every list command takes --out", async () => {
    const program = await buildProgram();
    const lists: string[] = [];
    const walk = (c: Command, path: string[]) => {
      for (const sub of c.commands) {
        const here = [...path, sub.name()];
        if (sub.name() === "list") lists.push(here.join(" "));
        if (sub.name() === "list")
          expect(
            sub.options.some((o) => o.long === "--out"),
            here.join(" "),
          ).toBe(true);
        walk(sub, here);
      }
    };
    walk(program, []);
    expect(lists).toEqual(expect.arrayContaining(["trades list", "actions list", "rebalance runs list"]));
  });

  it("trades list --out FILE.csv writes one row per execution applied", async () => {
    const applied = await run(["trades", "apply-proposal", proposalUuid, "--account", accountUuid], true);
    expect(applied.code, applied.stderr).toBe(0);
    const out = join(dir, "executions.csv");
    const r = await run(["trades", "list", "--account", accountUuid, "--out", out]);
    expect(r.code, r.stderr).toBe(0);
    const rows = parse(readFileSync(out, "utf8"), { columns: true }) as Record<string, string>[];
    const listed = await listExecutions(ctx, org, clientUuid, accountUuid);
    expect(r.stdout).toBe(`Wrote ${listed.executions.length} executions to ${out} (CSV).`);
    expect(rows.map((x) => [x.execution_id, x.side, x.ticker, x.quantity])).toEqual(
      listed.executions.map((e) => [e.execution_id, e.side, e.ticker, e.quantity]),
    );
    expect(rows.length).toBeGreaterThan(0);
  });
});

/** The stored proposal, read as the CLI reads it through the Backend. */
function createdProposal() {
  return getProposal(ctx, org, clientUuid, accountUuid, proposalUuid);
}
