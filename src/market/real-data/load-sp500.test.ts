import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { DataError } from "../../core/errors.js";
import { readCsvFile } from "../importers/csv-input.js";
import { parseFx } from "../importers/fx.js";
import { InMemoryMarketDataWriter } from "../importers/memory-writer.js";
import { parseSplits } from "../importers/splits.js";
import { resolverFromListings } from "../importers/symbol-resolver.js";
import { loadSp500Dataset, type Sp500LoadSummary } from "./load-sp500.js";
import { SP500_2018_NASDAQ_SYMBOLS } from "./nasdaq-listings.js";

const ROOT = resolve(import.meta.dirname, "../../..");
/** LOTWISE_DATA_DIR, else ../shared/data beside the checkout, else /work/shared/data. */
const DATA_DIR =
  process.env.LOTWISE_DATA_DIR ??
  [resolve(ROOT, "../shared/data"), "/work/shared/data"].find((d) => existsSync(d)) ??
  "/work/shared/data";
const HAVE_DATA = existsSync(join(DATA_DIR, "prices/all_stocks_5yr.csv.gz"));

describe("loadSp500Dataset without the data", () => {
  it("names every missing file and writes nothing", async () => {
    const dir = mkdtempSync(join(tmpdir(), "lotwise-sp500-"));
    try {
      const w = new InMemoryMarketDataWriter();
      const err = (await loadSp500Dataset(dir, w).catch((e: unknown) => e)) as DataError;
      expect(err).toBeInstanceOf(DataError);
      expect(err.message).toContain("prices/all_stocks_5yr.csv.gz");
      expect(err.message).toContain("fx/ecb_eurofxref_hist_1999-2026.csv.gz");
      expect(w.size()).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe.skipIf(!HAVE_DATA)(`loadSp500Dataset on ${DATA_DIR}`, () => {
  const w = new InMemoryMarketDataWriter();
  let s: Sp500LoadSummary;
  beforeAll(async () => {
    s = await loadSp500Dataset(DATA_DIR, w);
  }, 120_000);

  it("writes the 505 constituents, the 3 spun-off children without prices and all 619,040 bars in one transaction", () => {
    expect(w.commits).toBe(1);
    expect(s.written.securities).toBe(508);
    expect(w.tables.securities.size).toBe(508);
    for (const id of ["CPGX:XNYS", "AA:XNYS", "YUMC:XNYS"]) expect(w.tables.securities.has(id)).toBe(true);
    // The DISCK 2:1 split of the Discovery Series C dividend, which the prices are not adjusted for.
    expect(s.written.splits).toBe(1);
    expect(w.tables.prices.size).toBe(619_040);
    expect(s.files.prices).toMatchObject({
      rowsRead: 619_040,
      rowsKept: 619_040,
      rowsSkipped: 0,
      symbols: 505,
    });
    expect(s.files.prices.firstDate).toBe("2013-02-08");
    expect(s.files.prices.lastDate).toBe("2018-02-07");
  });

  it("counts exactly the known flaws of MANIFEST section 1", () => {
    expect(s.knownFlaws).toEqual({
      emptyFieldRows: 11,
      zeroVolumeRows: 4,
      ohlcInconsistentRows: 9,
      lateStarts: 29,
      tickersWithGaps: 6,
      jumps: 17,
      duplicates: 0,
      noCloseRows: 0,
    });
  });

  it("lists the flawed rows and tickers MANIFEST names", () => {
    const of = (kind: string) => s.files.prices.flaws.filter((f) => f.kind === kind);
    const sym = (id: string | null) => id!.split(":")[0];
    expect(
      of("empty_field")
        .map((f) => `${sym(f.symbol)} ${f.date}`)
        .sort(),
    ).toEqual(
      [
        "BHF 2017-07-26",
        "DHR 2015-07-17",
        "DHR 2016-01-12",
        "ES 2015-07-17",
        "FTV 2016-07-01",
        "O 2015-07-17",
        "O 2016-01-12",
        "REGN 2015-06-09",
        "UA 2016-04-07",
        "VRTX 2015-05-12",
        "WRK 2015-06-26",
      ].sort(),
    );
    expect(
      of("late_start")
        .map((f) => sym(f.symbol))
        .sort(),
    ).toEqual(
      "ALLE APTV BHF BHGE CFG COTY CSRA DWDP DXC EVHC FOX FOXA FTV GOOG HLT HPE HPQ INFO IQV KHC NAVI NWS NWSA PYPL QRVO SYF UA WLTW WRK".split(
        " ",
      ),
    );
    expect(of("late_start").find((f) => sym(f.symbol) === "APTV")!.date).toBe("2017-12-05");
    // Missing days per ticker with gaps: DHR 16, O 16, ES 10, ICE 5, BMY 2, ORCL 2.
    expect(
      of("gap")
        .map((f) => `${sym(f.symbol)} ${/^(\d+) trading day/.exec(f.message)![1]}`)
        .sort(),
    ).toEqual(["BMY 2", "DHR 16", "ES 10", "ICE 5", "O 16", "ORCL 2"]);
    const jumps = of("jump").map((f) => `${sym(f.symbol)} ${f.date}`);
    for (const j of [
      "EBAY 2015-07-20",
      "BAX 2015-07-01",
      "NI 2015-07-02",
      "DISCA 2014-08-07",
      "DISCK 2014-08-07",
      "ARNC 2016-11-01",
      "YUM 2016-11-01",
      "BHGE 2017-07-05",
      "AMD 2016-04-22",
      "VRTX 2013-04-19",
      "CHK 2016-02-08",
    ])
      expect(jumps).toContain(j);
    expect(of("ohlc_inconsistent").map((f) => `${sym(f.symbol)} ${f.date}`)).toEqual(
      expect.arrayContaining(["LNT 2016-05-19", "SPG 2014-05-28", "AOS 2014-05-19"]),
    );
    expect(of("zero_volume").every((f) => f.action === "kept")).toBe(true);
  });

  it("assigns sectors from the 2018 names and XNAS to the authored Nasdaq list only", () => {
    const sec = (id: string) => w.tables.securities.get(id)!;
    expect(sec("AAPL:XNAS")).toMatchObject({
      name: "Apple Inc.",
      sector: 45,
      currency: "USD",
      country: "US",
      listedFrom: "2013-02-08",
    });
    expect(sec("T:XNYS").sector).toBe(50); // Telecommunication Services
    expect(sec("APTV:XNYS").listedFrom).toBe("2017-12-05");
    expect(sec("BRK.B:XNYS").sector).toBe(40);
    // Shares = Market Cap / Price: MMM 138,721,055,226 / 222.89 = 622,374,513.1 -> 622,374,513.
    expect(sec("MMM:XNYS").sharesOutstanding).toBe(622_374_513);
    // Share classes split the company cap: GOOGL 733,823,966,137 / 1007.71 / 2 = 364,104,735.6.
    expect(sec("GOOGL:XNAS").sharesOutstanding).toBe(364_104_736);
    expect(s.listings).toEqual({
      XNAS: SP500_2018_NASDAQ_SYMBOLS.size,
      // + CPGX, AA and YUMC, the spun-off children without prices (NYSE).
      XNYS: 505 - SP500_2018_NASDAQ_SYMBOLS.size + 3,
    });
    for (const symbol of SP500_2018_NASDAQ_SYMBOLS)
      expect(w.tables.securities.has(`${symbol}:XNAS`)).toBe(true);
    const sectors = new Map<number | null, number>();
    const children = new Set(["CPGX:XNYS", "AA:XNYS", "YUMC:XNYS"]);
    for (const x of w.tables.securities.values())
      if (!children.has(x.themeAssetId)) sectors.set(x.sector, (sectors.get(x.sector) ?? 0) + 1);
    // The 2018 file's sector counts (Industrials 67, Health Care 61, IT 70, ...); the spun-off children aside.
    expect(Object.fromEntries(sectors)).toEqual({
      10: 32,
      15: 25,
      20: 67,
      25: 84,
      30: 34,
      35: 61,
      40: 68,
      45: 70,
      50: 3,
      55: 28,
      60: 33,
    });
  });

  it("stamps fundamentals at their vintage, so no 2018 value is visible in 2013", () => {
    const ch = (id: string, name: string, date: string) =>
      w.tables.characteristics.get(`${id}|${name}|${date}`)?.value;
    expect(ch("MMM:XNYS", "market_cap", "2013-02-08")).toBeCloseTo(70.537e9, 0);
    expect(ch("MMM:XNYS", "market_cap", "2018-02-08")).toBe(138721055226);
    expect(ch("MMM:XNYS", "dividend_yield", "2013-02-08")).toBeCloseTo(0.0231, 12);
    expect(ch("MMM:XNYS", "dividend_yield", "2018-02-08")).toBeCloseTo(0.023328617, 12);
    expect(ch("GOOGL:XNAS", "pe", "2013-02-08")).toBe(24.03); // 2013 "GOOG" is today's class A
    const fundamentals = [
      "dividend_yield",
      "pe",
      "pb",
      "ps",
      "eps",
      "ebitda",
      "book_to_price",
      "earnings_yield",
    ];
    const early = [...w.tables.characteristics.values()].filter(
      (v) => v.date < "2018-02-08" && fundamentals.includes(v.name),
    );
    expect(early.length).toBeGreaterThan(0);
    expect(new Set(early.map((v) => v.date))).toEqual(new Set(["2013-02-08"]));
    expect(s.files.constituents2013).toMatchObject({ rowsRead: 500, rowsKept: 377, rowsSkipped: 123 });
    expect(s.files.constituents2013.flawCounts.unresolved_symbol).toBe(123);
  });

  it("stores the S&P 500 levels and month-end cap weights that sum to 1", () => {
    expect(w.tables.indexes.get("SP500")).toMatchObject({ name: "S&P 500", currency: "USD" });
    expect(w.tables.indexLevels.size).toBe(5031);
    expect(w.tables.indexLevels.get("SP500|1999-01-04")!.level).toBe(1228.099976); // M/D/YYYY source
    expect(w.tables.indexLevels.get("SP500|2013-02-08")!.level).toBe(1517.930054);
    const byDate = new Map<string, number[]>();
    for (const x of w.tables.indexWeights.values())
      byDate.set(x.date, [...(byDate.get(x.date) ?? []), x.weight]);
    // Feb 2013 .. Jan 2018 month ends plus the last (partial) day 2018-02-07.
    expect(byDate.size).toBe(61);
    for (const ws of byDate.values()) expect(ws.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 12);
    expect(byDate.get("2018-01-31")!.length).toBe(505);
    expect(byDate.get("2013-02-28")!.length).toBe(476); // 505 minus the 29 late starters
    const mc = w.tables.characteristics.get("AAPL:XNAS|market_cap|2018-01-31")!.value;
    expect(mc).toBeCloseTo(
      w.tables.prices.get("AAPL:XNAS|2018-01-31")!.close *
        w.tables.securities.get("AAPL:XNAS")!.sharesOutstanding!,
      0,
    );
  });

  it("converts the ECB rates to per-USD cross rates", () => {
    // ECB 2013-02-08: USD 1.3374, CAD 1.3361, JPY 123.52, GBP 0.84635 per EUR.
    expect(w.tables.fx.get("CAD|2013-02-08")!.perUsd).toBeCloseTo(1.3361 / 1.3374, 12);
    expect(w.tables.fx.get("JPY|2013-02-08")!.perUsd).toBeCloseTo(123.52 / 1.3374, 10);
    expect(w.tables.fx.get("GBP|2013-02-08")!.perUsd).toBeCloseTo(0.84635 / 1.3374, 12);
    expect(w.tables.fx.get("EUR|2013-02-08")!.perUsd).toBeCloseTo(1 / 1.3374, 12);
    expect(s.files.fx).toMatchObject({ layout: "ecb", rowsRead: 6983, records: 6983 * 4 });
  });

  it("finds the 49 US-holiday gaps per currency of the FRED daily file inside the window", async () => {
    const { summary } = await parseFx(
      await readCsvFile(join(DATA_DIR, "fx/fred_fx_daily_wide_1971-2017.csv.gz")),
    );
    expect(summary.layout).toBe("fred_wide");
    const inWindow = summary.flaws.filter(
      (f) => f.kind === "empty_value" && f.date! >= "2013-02-08" && f.date! <= "2018-02-07",
    );
    const per: Record<string, number> = {};
    for (const f of inWindow) per[f.symbol!] = (per[f.symbol!] ?? 0) + 1;
    expect(per).toEqual({ CAD: 49, EUR: 49, GBP: 49, JPY: 49 });
    expect(summary.flaws.find((f) => f.kind === "late_start")).toMatchObject({
      symbol: "EUR",
      date: "1999-01-04",
    });
  });

  it("resolves the community split list against the loaded listings: 14 events in the window", async () => {
    const resolver = resolverFromListings((symbol) => w.findSecuritiesBySymbol(symbol));
    const { splits, summary } = await parseSplits(
      await readCsvFile(
        join(DATA_DIR, "corporate_actions/stock_splits_community/stock_splits_2015-2026.csv"),
      ),
      { resolver, onUnresolvedSymbol: "skip" },
    );
    expect(summary.rowsRead).toBe(136);
    const inWindow = splits
      .filter((x) => x.date >= "2013-02-08" && x.date <= "2018-02-07")
      .map((x) => x.themeAssetId.split(":")[0]);
    expect(inWindow.sort()).toEqual([
      "CF",
      "EW",
      "GPN",
      "HBI",
      "HRL",
      "HSIC",
      "ISRG",
      "KR",
      "MNST",
      "NKE",
      "PPG",
      "SBUX",
      "UAA",
      "V",
    ]);
  });
});
