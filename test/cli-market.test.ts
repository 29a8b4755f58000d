/**
 * `lotwise market generate|import` into a store that already holds market data (issue 17, item 3): without
 * --merge or --replace the command prints what would change and exits 2; --dry-run shows it and writes nothing;
 * --merge and --replace do what they say. On small hand-made files that reproduce the cases (DEL's price
 * overwritten, prices landing in an existing CL, AAPL:XNYS beside AAPL:XNAS). The commands run in-process
 * (test/helpers/cli-inprocess.ts: the same text and exit codes as the binary); nothing here needs a process.
 */
import { copyFileSync, existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { openSqliteStore } from "../src/store/index.js";
import { okJson as json, run } from "./helpers/cli-inprocess.js";

const SECURITIES =
  "theme_asset_id,name\nDEL:XNYS,Delta Synthetic\nAAPL:XNAS,Apple Inc.\nCL:XNYS,Synthetic CL\n";
const PRICES = `date,open,high,low,close,volume,Name
2025-12-30,,,,86.50,100,DEL
2025-12-31,,,,86.95,100,DEL
2025-12-31,,,,250.00,100,AAPL
2025-12-31,,,,70.00,100,CL
`;
const OTHER = `date,open,high,low,close,volume,Name
2025-12-30,,,,6.20,100,DEL
2025-12-31,,,,6.26,100,DEL
2025-12-31,,,,251.00,100,AAPL
2013-02-08,,,,52.11,100,CL
`;

/** A small synthetic market: 50 listings, one year. */
const SMALL_GENERATE = ["market", "generate", "--seed", "3", "--securities", "50", "--years", "1"];

describe("lotwise market: safe imports and generation", () => {
  const dir = mkdtempSync(join(tmpdir(), "lotwise-cli-market-"));
  let n = 0;
  let store: string;
  const path = (name: string, text: string) => {
    const p = join(dir, name);
    writeFileSync(p, text);
    return p;
  };
  const other = path("other.csv", OTHER);
  const mergeArgs = () => [
    "market",
    "import",
    "prices",
    other,
    "--mic",
    "XNYS",
    "--create-securities",
    "--store",
    store,
  ];
  const closeOf = async (id: string) => {
    const s = openSqliteStore(store, { create: false });
    try {
      return (await s.market.latestPrices([id], "2099-12-31")).get(id)?.close;
    } finally {
      await s.close();
    }
  };
  const list = async () => {
    const r = await run(["market", "list", "--json", "--store", store]);
    expect(r.code, r.stderr).toBe(0);
    return r.stdout;
  };

  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  // One store with market data, copied for each test.
  const base = join(dir, "base.db");
  beforeAll(async () => {
    expect((await run(["init", "--store", base])).code).toBe(0);
    // An empty store needs no mode; the second file goes into a store that holds market data.
    const sec = await run(["market", "import", "securities", path("sec.csv", SECURITIES), "--store", base]);
    expect(sec.code, sec.stderr).toBe(0);
    const p = await run(["market", "import", "prices", path("p.csv", PRICES), "--merge", "--store", base]);
    expect(p.code, p.stderr).toBe(0);
  }, 60_000);
  beforeEach(() => {
    store = join(dir, `s${++n}.db`);
    copyFileSync(base, store);
    if (existsSync(`${base}-wal`)) copyFileSync(`${base}-wal`, `${store}-wal`);
  });

  it("without --merge or --replace prints the plan (new listing, overwritten closes, ambiguous symbol) and exits 2", async () => {
    const before = await list();
    const r = await run(mergeArgs());
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/already holds market data \(3 listings, 4 price rows\).*--merge.*--replace/);
    for (const s of [
      "Listings added",
      "AAPL:XNYS",
      "DEL:XNYS",
      "86.95",
      "6.26",
      "AAPL (AAPL:XNAS, AAPL:XNYS)",
      "CL:XNYS (1)",
    ])
      expect(r.stdout).toContain(s);
    const j = await run([...mergeArgs(), "--json"]);
    expect(j.code).toBe(2);
    const body = JSON.parse(j.stdout);
    expect(body.error.code).toBe("market_mode_required");
    expect(body.plan.listingsAdded).toEqual(["AAPL:XNYS"]);
    expect(body.plan.pricesOverwritten.examples).toEqual([
      { themeAssetId: "DEL:XNYS", date: "2025-12-30", old: 86.5, new: 6.2 },
      { themeAssetId: "DEL:XNYS", date: "2025-12-31", old: 86.95, new: 6.26 },
    ]);
    expect(body.plan.ambiguousSymbols).toEqual([{ symbol: "AAPL", listings: ["AAPL:XNAS", "AAPL:XNYS"] }]);
    expect(await list()).toBe(before);
    expect(await closeOf("DEL:XNYS")).toBe(86.95);
  }, 60_000);

  it("--dry-run shows the plan, exits 0 and leaves the store unchanged", async () => {
    const before = await list();
    const body = json(await run([...mergeArgs(), "--replace", "--dry-run", "--json"]));
    expect(body.plan).toMatchObject({ mode: "replace", dryRun: true, applied: false });
    expect(body.plan.removed.listings).toEqual(["AAPL:XNAS"]);
    const text = await run([...mergeArgs(), "--dry-run"]);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain("Would change (dry run, nothing written)");
    expect(await list()).toBe(before);
    expect(await closeOf("DEL:XNYS")).toBe(86.95);
  }, 60_000);

  it("--merge writes what the plan said", async () => {
    const r = json(await run([...mergeArgs(), "--merge", "--json"]));
    expect(r.plan).toMatchObject({ mode: "merge", applied: true });
    expect(await closeOf("DEL:XNYS")).toBe(6.26);
    expect(JSON.parse(await list()).securities).toBe(4);
  }, 60_000);

  it("--replace removes the old listings; --merge with --replace is a usage error", async () => {
    const both = await run([...mergeArgs(), "--merge", "--replace"]);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain("--merge or --replace, not both");
    const r = await run([
      "market",
      "import",
      "securities",
      path("new.csv", "theme_asset_id,name\nNEW:XNYS,New Co\n"),
      "--replace",
      "--store",
      store,
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/Listings gone afterwards\s*│\s*3: AAPL:XNAS, CL:XNYS, DEL:XNYS/);
    const after = JSON.parse(await list());
    expect(after).toMatchObject({ securities: 1, priceRows: 0 });
    expect(await closeOf("DEL:XNYS")).toBeUndefined();
  }, 60_000);

  it("market generate names what it made in words, grouped, not by its field names", async () => {
    const empty = join(dir, "words.db");
    expect((await run(["init", "--store", empty])).code).toBe(0);
    const r = await run([...SMALL_GENERATE, "--dry-run", "--store", empty]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("Synthetic market generated (not written)");
    expect(r.stdout).toMatch(/│ Price rows +│ \d{1,3}(,\d{3})+ +│/);
    for (const label of ["FX rates", "Characteristic values", "Index levels", "Index weights"])
      expect(r.stdout).toContain(`│ ${label} `);
    expect(r.stdout).not.toMatch(/fxRates|indexLevels|indexWeights/);
  }, 60_000);

  it("market generate into a store with market data needs a mode too", async () => {
    const before = await list();
    const args = [...SMALL_GENERATE, "--store", store];
    const refused = await run(args);
    expect(refused.code).toBe(2);
    expect(refused.stdout).toContain("Listings added");
    expect(await list()).toBe(before);
    const replaced = json(await run([...args, "--replace", "--json"]));
    expect(replaced.plan.removed.listings).toEqual(["AAPL:XNAS", "CL:XNYS", "DEL:XNYS"]);
    expect(JSON.parse(await list()).securities).toBe(50);
  }, 60_000);
});
