import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { corporateActionApplyResultSchema, corporateActionImportResultSchema } from "../contract/index.js";
import { NotFoundError, ValidationError } from "../core/errors.js";
import { openSqliteStore, type SqliteStore } from "../store/index.js";
import {
  applyStoredCorporateActions,
  importCorporateActions,
  listCorporateActions,
} from "./corporate-actions.js";
import { parseCorporateActionsCsv } from "./corporate-actions-csv.js";
import { buildDemo, type DemoResult } from "./demo.js";
import { createOrganization, importLots, type ServiceContext } from "./index.js";

const HEADER =
  "id,kind,listing,ex_date,pay_date,ratio,new_listing,basis_fraction,parent_price,new_listing_price,cash_per_share,cash_in_lieu_price,fx_rate";

const LOTS = [
  "Symbol,Quantity,Cost Basis,Open Date",
  "OSM,100,5000,2024-01-02",
  "DEL,10,1000,2024-01-02",
  "DEL,5,600,2025-04-01",
  "SGR,40,2000,2025-12-01",
].join("\n");

const ACTIONS = [
  HEADER,
  "SPLIT-DEL-2025,split,DEL,2025-03-03,,2:1,,,,,,,",
  "SPIN-OSM-2025,spin_off,OSM,2025-06-02,,0.5,SGR,0.2,,,,,",
  "DIV-DEL-2025Q3,cash_dividend,DEL,2025-09-02,2025-09-15,,,,,,0.50,,",
  "SPLIT-DEL-2026,split,DEL,2026-01-05,,3:1,,,,,,,",
].join("\n");

describe("corporate actions (service)", () => {
  let store: SqliteStore;
  let ctx: ServiceContext;
  let demo: DemoResult;
  const lots = async () =>
    (await store.accounts.lots(demo.account_uuid)).map(
      (l) =>
        `${l.themeAssetId} ${l.quantity} ${l.costBasis} ${l.tradeDate}${l.holdingPeriodStart ? ` hp ${l.holdingPeriodStart}` : ""}`,
    );
  const cash = async () =>
    (await store.accounts.getInOrganization(demo.organization_uuid, demo.account_uuid))!.cashValueUsd;

  beforeAll(async () => {
    store = openSqliteStore(":memory:");
    ctx = { store, clock: () => new Date("2026-01-15T15:00:00Z") };
    demo = await buildDemo(ctx);
    await importLots(ctx, demo.organization_uuid, demo.account_uuid, LOTS, { mode: "replace" });
  });
  afterAll(() => store.close());

  it("imports the CSV layout with listings resolved and lists the actions by ex-date", async () => {
    const r = corporateActionImportResultSchema.parse(
      await importCorporateActions(ctx, ACTIONS, { file_name: "actions.csv" }),
    );
    expect(r.actions_in_file).toBe(4);
    expect(r.by_kind).toEqual({ split: 2, spin_off: 1, cash_dividend: 1 });
    const spin = r.actions.find((a) => a.id === "SPIN-OSM-2025")!;
    expect(spin).toEqual({
      id: "SPIN-OSM-2025",
      kind: "spin_off",
      theme_asset_id: "OSM:XNYS",
      ex_date: "2025-06-02",
      pay_date: null,
      params: { distributionRatio: "0.5", basisFraction: "0.2", childAssetId: "SGR:XNYS" },
    });
    const listed = await listCorporateActions(ctx, demo.organization_uuid, { to: "2025-12-31" });
    expect(listed.map((a) => a.id)).toEqual(["SPLIT-DEL-2025", "SPIN-OSM-2025", "DIV-DEL-2025Q3"]);
    expect(
      (await listCorporateActions(ctx, demo.organization_uuid, { listing: "del:xnys" })).map((a) => a.id),
    ).toEqual(["SPLIT-DEL-2025", "DIV-DEL-2025Q3", "SPLIT-DEL-2026"]);
  });

  it("applies a split, a spin-off allocation and a dividend by hand, only to lots held before each date", async () => {
    const cashBefore = await cash();
    const r = corporateActionApplyResultSchema.parse(
      await applyStoredCorporateActions(ctx, demo.organization_uuid, {
        account_uuid: demo.account_uuid,
        through: "2025-12-31",
      }),
    );
    expect(r.accounts).toHaveLength(1);
    const report = r.accounts[0]!;
    expect(report.actions.map((a) => a.id)).toEqual(["SPLIT-DEL-2025", "SPIN-OSM-2025", "DIV-DEL-2025Q3"]);
    // Dividend: 20 split shares held before 2025-09-02 plus the 5 bought 2025-04-01 = 25 x 0.50.
    expect(report.cash_delta_usd).toBe("12.5");
    expect(Number(await cash()) - Number(cashBefore)).toBeCloseTo(12.5, 9);
    // Split 2:1 of the 10 DEL bought before 2025-03-03 (basis kept); the 5 bought after it are untouched.
    // Spin-off: 100 OSM with basis 5,000, 0.5 SGR per OSM, 20% of the basis to the child: 50 SGR at 1,000, the
    // parent keeps 4,000; the child keeps the parent's trade date. The SGR lot bought 2025-12-01 is untouched.
    expect((await lots()).sort()).toEqual(
      [
        "DEL:XNYS 20 1000 2024-01-02",
        "DEL:XNYS 5 600 2025-04-01",
        "OSM:XNYS 100 4000 2024-01-02",
        "SGR:XNYS 40 2000 2025-12-01",
        "SGR:XNYS 50 1000 2024-01-02",
      ].sort(),
    );
    const changed = report.lots.map(
      (l) => `${l.change} ${l.theme_asset_id} ${l.quantity_after} ${l.cost_basis_after}`,
    );
    expect(changed.sort()).toEqual(
      ["changed DEL:XNYS 20 1000", "changed OSM:XNYS 100 4000", "added SGR:XNYS 50 1000"].sort(),
    );
    expect((await store.ledger.appliedActions(demo.account_uuid)).map((a) => a.actionId).sort()).toEqual(
      ["DIV-DEL-2025Q3", "SPIN-OSM-2025", "SPLIT-DEL-2025"].sort(),
    );
  });

  it("applying again changes nothing: no account reported, same lots and cash", async () => {
    const before = await lots();
    const cashBefore = await cash();
    const r = await applyStoredCorporateActions(ctx, demo.organization_uuid, { through: "2025-12-31" });
    expect(r.accounts).toEqual([]);
    expect(await lots()).toEqual(before);
    expect(await cash()).toBe(cashBefore);
  });

  it("a dry run reports the next action without writing it", async () => {
    const before = await lots();
    const r = await applyStoredCorporateActions(ctx, demo.organization_uuid, {
      account_uuid: demo.account_uuid,
      through: "2026-01-10",
      dry_run: true,
    });
    expect(r.accounts[0]!.actions.map((a) => a.id)).toEqual(["SPLIT-DEL-2026"]);
    expect(r.accounts[0]!.lots.map((l) => `${l.quantity_before}->${l.quantity_after}`).sort()).toEqual([
      "20->60",
      "5->15",
    ]);
    expect(await lots()).toEqual(before);
  });

  it("refuses a file with bad rows, naming each line and column, and stores nothing", async () => {
    const bad = [
      HEADER,
      "A1,split,DEL,2025-13-01,,2:1,,,,,,,",
      "A2,spin_off,OSM,2025-06-02,,0.5,SGR,1.5,,,,,",
      "A3,dividend,DEL,2025-06-02,,,,,,,0.5,,",
      "A4,cash_dividend,DEL,2025-06-02,2025-06-01,,,,,,,,",
      "A5,symbol_change,NOPE,2025-06-02,,,SGR,,,,,,",
      "A1,split,DEL,2025-01-02,,2,,,,,,,",
    ].join("\n");
    const err = await importCorporateActions(ctx, bad, {
      file_name: "bad.csv",
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ValidationError);
    const v = err as ValidationError;
    expect(v.code).toBe("invalid_actions_file");
    const paths = v.issues.map((d) => `${d.path}: ${d.message}`);
    expect(paths).toEqual([
      'bad.csv: line 2, column "ex_date": "2025-13-01" is not a date (YYYY-MM-DD)',
      'bad.csv: line 3, column "basis_fraction": must be a number strictly between 0 and 1, got "1.5"',
      'bad.csv: line 4, column "kind": "dividend" is not a kind; expected one of split, cash_dividend, spin_off, symbol_change, cash_merger, stock_merger',
      'bad.csv: line 5, column "cash_per_share": a cash_dividend needs cash_per_share',
      'bad.csv: line 5, column "pay_date": 2025-06-01 is before the ex-date 2025-06-02',
      'bad.csv: line 7, column "id": id A1 is already used on line 2',
    ]);
    // Rows that parse but name an unknown listing are refused after resolution, naming the row too.
    const unknown = `${HEADER}\nA5,symbol_change,NOPE,2025-06-02,,,SGR,,,,,,\n`;
    const e2 = (await importCorporateActions(ctx, unknown).catch((e: unknown) => e)) as ValidationError;
    expect(e2.issues).toEqual([
      { path: 'actions.csv: line 2, column "listing"', message: "unknown ticker NOPE" },
    ]);
    expect((await listCorporateActions(ctx, demo.organization_uuid)).map((a) => a.id)).not.toContain("A5");
  });

  it("refuses another organization's account and applies nothing to it", async () => {
    const other = (await createOrganization(ctx, "Other")).organization.uuid;
    const before = await lots();
    const err = await applyStoredCorporateActions(ctx, other, {
      account_uuid: demo.account_uuid,
      through: "2026-01-10",
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NotFoundError);
    expect((err as NotFoundError).code).toBe("account_not_found");
    expect((await applyStoredCorporateActions(ctx, other, { through: "2026-01-10" })).accounts_checked).toBe(
      0,
    );
    expect(await lots()).toEqual(before);
  });

  it("reads ratios as 2, 1.5, 3:2 and 3/2", () => {
    const rows = parseCorporateActionsCsv(
      [
        "id,kind,listing,ex_date,ratio",
        "a,split,X,2025-01-02,2",
        "b,split,X,2025-01-02,3:2",
        "c,split,X,2025-01-02,3/2",
      ].join("\n"),
    );
    expect(rows.map((r) => r.params.ratio)).toEqual([
      "2",
      { numerator: "3", denominator: "2" },
      { numerator: "3", denominator: "2" },
    ]);
  });
});
