/**
 * Safe market data (issue 17, item 3): imports and generation into a store that already holds market data need an
 * explicit mode, report what changes (the DEL / CL / AAPL cases on small hand-made files), and a dry run, a
 * refusal or a malformed file leave the store exactly as it was.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { lotInput } from "../../test/helpers/lot-input.js";
import { ConflictError } from "../core/errors.js";
import { CsvFormatError, UnresolvedSymbolError } from "../market/importers/index.js";
import { openSqliteStore, type SqliteStore } from "../store/index.js";
import type { ServiceContext } from "./context.js";
import { generateMarketData, importMarketData, MarketModeRequiredError } from "./market-data.js";

const SECURITIES = `theme_asset_id,name,sector
DEL:XNYS,Delta Synthetic Corp,Industrials
CL:XNYS,Synthetic CL Holdings,Consumer Staples
AAPL:XNAS,Apple Inc.,Information Technology
SAG:XNYS,Saguaro Synthetic,Energy
`;
const PRICES = `date,open,high,low,close,volume,Name
2025-12-29,,,,86.10,100,DEL
2025-12-30,,,,86.50,100,DEL
2025-12-31,,,,86.95,100,DEL
2025-12-30,,,,70.00,100,CL
2025-12-31,,,,71.00,100,CL
2025-12-31,,,,250.00,100,AAPL
2025-12-31,,,,12.00,100,SAG
`;
/** The merge: other DEL prices, real Colgate history into the synthetic CL, AAPL (and SAG) on another MIC. */
const OTHER_PRICES = `date,open,high,low,close,volume,Name
2025-12-30,,,,6.20,100,DEL
2025-12-31,,,,6.26,100,DEL
2013-02-08,,,,52.11,100,CL
2013-02-11,,,,52.40,100,CL
2025-12-31,,,,251.00,100,AAPL
2025-12-31,,,,9.00,100,SAG
`;

describe("market data writes through the service", () => {
  let dir: string;
  let store: SqliteStore;
  let ctx: ServiceContext;
  const file = (name: string, text: string) => {
    const p = join(dir, name);
    writeFileSync(p, text);
    return p;
  };
  const close = async (id: string) => (await store.market.latestPrices([id], "2099-12-31")).get(id)?.close;
  /** Everything a user could see of the market data, to compare before and after. */
  const snapshot = async () => {
    const m = await store.market.priceMatrix("2000-01-01", "2099-12-31");
    return JSON.stringify({
      summary: await store.market.summary(),
      securities: await store.market.securities(),
      prices: { ...m, close: [...m.close], volume: [...m.volume] },
      imports: (await store.market.imports()).length,
    });
  };

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "lotwise-market-data-"));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  beforeEach(async () => {
    store = openSqliteStore(":memory:");
    ctx = { store, clock: () => new Date("2026-01-02T00:00:00Z") };
    const s = await importMarketData(ctx, "securities", file("securities.csv", SECURITIES));
    expect(s.plan).toMatchObject({ storeHadMarketData: false, mode: null, applied: true });
    expect(s.plan.listingsAdded).toEqual(["AAPL:XNAS", "CL:XNYS", "DEL:XNYS", "SAG:XNYS"]);
    await importMarketData(ctx, "prices", file("prices.csv", PRICES), { mode: "merge" });
  });

  it("refuses to merge silently into a store with market data: the plan names new listings, overwritten closes and ambiguous symbols", async () => {
    const before = await snapshot();
    const attempt = importMarketData(ctx, "prices", file("other.csv", OTHER_PRICES), {
      mic: "XNYS",
      createSecurities: true,
    });
    await expect(attempt).rejects.toBeInstanceOf(MarketModeRequiredError);
    const err = (await attempt.catch((e: unknown) => e)) as MarketModeRequiredError;
    expect(err.code).toBe("market_mode_required");
    expect(err.held).toEqual({ listings: 4, priceRows: 7 });
    const p = err.plan;
    expect(p).toMatchObject({ storeHadMarketData: true, mode: null, dryRun: false, applied: false });
    expect(p.listingsAdded).toEqual(["AAPL:XNYS"]);
    expect(p.pricesOverwritten.count).toBe(3);
    expect(p.pricesOverwritten.byListing).toEqual([
      { themeAssetId: "DEL:XNYS", count: 2 },
      { themeAssetId: "SAG:XNYS", count: 1 },
    ]);
    expect(p.pricesOverwritten.examples).toEqual([
      { themeAssetId: "DEL:XNYS", date: "2025-12-30", old: 86.5, new: 6.2 },
      { themeAssetId: "DEL:XNYS", date: "2025-12-31", old: 86.95, new: 6.26 },
      { themeAssetId: "SAG:XNYS", date: "2025-12-31", old: 12, new: 9 },
    ]);
    // The real Colgate history lands beside the synthetic CL's: new dates of an existing listing.
    expect(p.pricesAddedToExistingListings).toEqual([{ themeAssetId: "CL:XNYS", count: 2 }]);
    expect(p.ambiguousSymbols).toEqual([{ symbol: "AAPL", listings: ["AAPL:XNAS", "AAPL:XNYS"] }]);
    expect(p.removed).toBeNull();
    expect(await snapshot()).toBe(before);
    expect(await close("DEL:XNYS")).toBe(86.95);
  });

  it("dry run computes the same plan and leaves the store unchanged", async () => {
    const before = await snapshot();
    const r = await importMarketData(ctx, "prices", file("other.csv", OTHER_PRICES), {
      mic: "XNYS",
      createSecurities: true,
      mode: "merge",
      dryRun: true,
    });
    expect(r.plan).toMatchObject({ mode: "merge", dryRun: true, applied: false });
    expect(r.plan.pricesOverwritten.count).toBe(3);
    expect(r.plan.listingsAdded).toEqual(["AAPL:XNYS"]);
    expect(r.summary).toMatchObject({ records: 6 });
    expect(await snapshot()).toBe(before);
    expect(await store.market.findSecuritiesBySymbol("AAPL")).toHaveLength(1);
    // The rolled-back run leaves no watcher behind: the real merge that follows reports the same changes.
    const merged = await importMarketData(ctx, "prices", file("other.csv", OTHER_PRICES), {
      mic: "XNYS",
      createSecurities: true,
      mode: "merge",
    });
    expect(merged.plan).toMatchObject({ applied: true, listingsAdded: ["AAPL:XNYS"] });
    expect(merged.plan.pricesOverwritten.count).toBe(3);
  });

  it("merges when asked: overwrites the closes it reported and records the import", async () => {
    const r = await importMarketData(ctx, "prices", file("other.csv", OTHER_PRICES), {
      mic: "XNYS",
      createSecurities: true,
      mode: "merge",
    });
    expect(r.plan).toMatchObject({ mode: "merge", applied: true });
    expect(await close("DEL:XNYS")).toBe(6.26);
    expect((await store.market.findSecuritiesBySymbol("AAPL")).map((s) => s.themeAssetId)).toEqual([
      "AAPL:XNAS",
      "AAPL:XNYS",
    ]);
    const last = (await store.market.imports()).at(-1)!;
    expect(last).toMatchObject({ kind: "prices", rows: 6 });
    expect(last.summary).toMatchObject({ mode: "merge" });
  });

  it("a second import of the same file overwrites nothing and adds nothing", async () => {
    const r = await importMarketData(ctx, "prices", file("prices.csv", PRICES), { mode: "merge" });
    expect(r.plan.pricesOverwritten).toEqual({ count: 0, byListing: [], examples: [] });
    expect(r.plan.listingsAdded).toEqual([]);
    expect(r.plan.pricesAddedToExistingListings).toEqual([]);
    expect(r.plan.ambiguousSymbols).toEqual([]);
  });

  it("reports existing listings whose security-master record changes", async () => {
    const r = await importMarketData(
      ctx,
      "securities",
      file(
        "renamed.csv",
        "theme_asset_id,name,sector\nDEL:XNYS,Delta Renamed,Industrials\nCL:XNYS,Synthetic CL Holdings,Consumer Staples\n",
      ),
      { mode: "merge" },
    );
    expect(r.plan.listingsChanged).toEqual(["DEL:XNYS"]);
    expect(r.plan.listingsAdded).toEqual([]);
    expect((await store.market.security("DEL:XNYS"))?.name).toBe("Delta Renamed");
  });

  it("replace removes the old listings and their prices, and reports them", async () => {
    const r = await importMarketData(
      ctx,
      "securities",
      file("new-securities.csv", "theme_asset_id,name\nNEW:XNYS,New Co\nDEL:XNYS,Delta Again\n"),
      { mode: "replace" },
    );
    expect(r.plan.mode).toBe("replace");
    expect(r.plan.removed).toMatchObject({
      securities: 4,
      prices: 7,
      listings: ["AAPL:XNAS", "CL:XNYS", "SAG:XNYS"],
    });
    expect(r.plan.listingsAdded).toEqual(["NEW:XNYS"]);
    expect(await store.market.listingIds()).toEqual(["DEL:XNYS", "NEW:XNYS"]);
    expect(await store.market.summary()).toMatchObject({ priceRows: 0, firstDate: null });
    expect(await store.market.tradingDates()).toEqual([]);
  });

  it("replace resolves plain symbols against the new data only, not the listings it removes", async () => {
    const before = await snapshot();
    await expect(
      importMarketData(ctx, "prices", file("other.csv", OTHER_PRICES), { mode: "replace" }),
    ).rejects.toBeInstanceOf(UnresolvedSymbolError);
    expect(await snapshot()).toBe(before);
  });

  it("replace is refused, naming them, when tax lots hold listings the new data lacks", async () => {
    const org = await store.organizations.create("Holder");
    const client = await store.clients.create(org.uuid);
    const account = (await store.accounts.create(org.uuid, client.uuid)).uuid;
    await store.accounts.replaceLots(account, [
      lotInput({ themeAssetId: "DEL:XNYS" }),
      lotInput({ themeAssetId: "DEL:XNYS", tradeDate: "2024-05-01" }),
    ]);
    const before = await snapshot();
    const lacking = file("lacking.csv", "theme_asset_id,name\nNEW:XNYS,New Co\n");
    for (const dryRun of [false, true]) {
      const err = await importMarketData(ctx, "securities", lacking, { mode: "replace", dryRun }).catch(
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(ConflictError);
      expect((err as ConflictError).code).toBe("listings_held");
      expect((err as Error).message).toContain("DEL:XNYS (2 lots in 1 account)");
    }
    expect(await snapshot()).toBe(before);
    // Data that lists the held listing may replace the rest.
    const r = await importMarketData(
      ctx,
      "securities",
      file("keeps.csv", "theme_asset_id,name\nNEW:XNYS,New Co\nDEL:XNYS,Delta\n"),
      { mode: "replace" },
    );
    expect(r.plan.applied).toBe(true);
    expect(await store.market.listingIds()).toEqual(["DEL:XNYS", "NEW:XNYS"]);
  });

  it("a malformed row leaves the store unchanged, whatever the mode", async () => {
    const before = await snapshot();
    const bad = file(
      "bad.csv",
      "date,open,high,low,close,volume,Name\n2025-12-31,,,,6.26,100,DEL\n2026-01-02,,,,7.x,100,DEL\n",
    );
    for (const mode of ["merge", "replace"] as const) {
      const err = await importMarketData(ctx, "prices", bad, { mode, mic: "XNYS" }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(CsvFormatError);
      expect((err as Error).message).toContain("line 3");
    }
    expect(await snapshot()).toBe(before);
    expect(await close("DEL:XNYS")).toBe(86.95);
  });

  it("generation into an empty store needs no mode; into a store with market data it needs one", async () => {
    const empty: ServiceContext = { store: openSqliteStore(":memory:"), clock: ctx.clock };
    const options = { seed: 3, securities: 50, years: 1, characteristics: false };
    const first = await generateMarketData(empty, options);
    expect(first.plan).toMatchObject({ storeHadMarketData: false, applied: true });
    expect(first.plan.listingsAdded).toHaveLength(50);
    const rows = (await empty.store.market.summary()).priceRows;
    expect(rows).toBe(first.written.prices);
    await expect((() => generateMarketData(empty, { ...options, seed: 4 }))()).rejects.toThrow(
      MarketModeRequiredError,
    );
    expect((await empty.store.market.summary()).priceRows).toBe(rows);
    // The same market again overwrites nothing; another seed on the same calendar overwrites closes it reports.
    const again = await generateMarketData(empty, options, { mode: "merge" });
    expect(again.plan.pricesOverwritten.count).toBe(0);
    expect(again.plan.listingsAdded).toEqual([]);
    const other = await generateMarketData(empty, { ...options, seed: 4 }, { mode: "merge", dryRun: true });
    const shared = other.plan.pricesOverwritten.byListing.map((b) => b.themeAssetId);
    for (const id of shared) expect(first.plan.listingsAdded).toContain(id);
    expect(other.plan.pricesOverwritten.count).toBeGreaterThan(0);
    expect((await empty.store.market.summary()).priceRows).toBe(rows);
    const replaced = await generateMarketData(empty, { ...options, seed: 4 }, { mode: "replace" });
    expect(replaced.plan.removed?.prices).toBe(rows);
    expect((await empty.store.market.summary()).priceRows).toBe(replaced.written.prices);
    await empty.store.close();
  });
});
