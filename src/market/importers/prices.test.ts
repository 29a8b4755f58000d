import { createReadStream, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { CsvFormatError, UnresolvedSymbolError } from "./errors.js";
import { InMemoryMarketDataWriter } from "./memory-writer.js";
import { minimalSecurity } from "./minimal-security.js";
import { importPrices, parsePrices } from "./prices.js";
import { resolverForMic } from "./symbol-resolver.js";

const FIXTURES = resolve(import.meta.dirname, "../../../fixtures/market");
const fx = (name: string) => resolve(FIXTURES, name);
const XNYS = resolverForMic("XNYS");

const security = (id: string) => minimalSecurity(id);

describe("parsePrices, long layout", () => {
  it("reads the bars with their values and nulls for empty optional fields", async () => {
    const { bars, summary } = await parsePrices(readFileSync(fx("prices-long.csv")), {
      file: "prices-long.csv",
      resolver: XNYS,
    });
    expect(summary.layout).toBe("long");
    // 13 data rows: the no-close BBB row and the second BBB 2020-01-07 row are skipped.
    expect(bars).toHaveLength(11);
    expect(bars[0]).toEqual({
      themeAssetId: "AAA:XNYS",
      date: "2020-01-02",
      open: 10,
      high: 10.5,
      low: 9.8,
      close: 10.2,
      adjClose: null,
      volume: 1000,
    });
    expect(bars[2]).toEqual({
      themeAssetId: "AAA:XNYS",
      date: "2020-01-06",
      open: null,
      high: null,
      low: null,
      close: 10.4,
      adjClose: null,
      volume: 0,
    });
    expect(bars.find((b) => b.themeAssetId === "CCC:XNYS" && b.date === "2020-01-07")!.volume).toBeNull();
    expect(summary).toMatchObject({
      rowsRead: 13,
      rowsKept: 11,
      rowsSkipped: 2,
      records: 11,
      symbols: 3,
      firstDate: "2020-01-02",
      lastDate: "2020-01-08",
      ignoredColumns: [],
      flawsNotListed: 0,
    });
  });

  it("counts and lists every known flaw with what happened to the row", async () => {
    const { summary } = await parsePrices(readFileSync(fx("prices-long.csv")), {
      file: "prices-long.csv",
      resolver: XNYS,
    });
    expect(summary.flawCounts).toEqual({
      empty_field: 2, // AAA 01-06 (open, high, low), CCC 01-07 (volume)
      zero_volume: 1, // AAA 01-06
      ohlc_inconsistent: 2, // AAA 01-07 close 15 > high 10.6; BBB 01-03 high 19.9 < low 20.3
      no_close: 1, // BBB 01-08
      duplicate: 1, // BBB 01-07 twice
      late_start: 1, // CCC from 01-06
      early_end: 1, // BBB's last usable close is 01-07 (01-08 has none)
      gap: 1, // BBB misses 01-06
      jump: 1, // AAA 01-07: ln(15.0 / 10.4) = 0.3662 > 0.35
      empty_value: 0,
      unresolved_symbol: 0,
      other_currency: 0,
      weight_sum: 0,
    });
    const brief = summary.flaws.map((f) => [f.kind, f.action, f.symbol, f.date, f.line]);
    expect(brief).toEqual([
      ["empty_field", "kept", "AAA:XNYS", "2020-01-06", 4],
      ["zero_volume", "kept", "AAA:XNYS", "2020-01-06", 4],
      ["ohlc_inconsistent", "kept", "AAA:XNYS", "2020-01-07", 5],
      ["jump", "kept", "AAA:XNYS", "2020-01-07", 5],
      ["ohlc_inconsistent", "kept", "BBB:XNYS", "2020-01-03", 8],
      ["early_end", "noted", "BBB:XNYS", "2020-01-07", 9],
      ["gap", "noted", "BBB:XNYS", "2020-01-06", 9],
      ["duplicate", "skipped", "BBB:XNYS", "2020-01-07", 10],
      ["no_close", "skipped", "BBB:XNYS", "2020-01-08", 11],
      ["late_start", "noted", "CCC:XNYS", "2020-01-06", 12],
      ["empty_field", "kept", "CCC:XNYS", "2020-01-07", 13],
    ]);
    const jump = summary.flaws.find((f) => f.kind === "jump")!;
    expect(jump.message).toContain("+0.366");
    expect(summary.flaws.find((f) => f.kind === "gap")!.message).toContain(
      "1 trading day of the calendar missing",
    );
    expect(summary.flaws.find((f) => f.kind === "duplicate")!.message).toContain(
      "first at line 9, identical values",
    );
    expect(summary.flaws.find((f) => f.kind === "late_start")!.message).toContain("2 trading days after");
  });

  it("reads gzip input to the same result as plain text", async () => {
    const plain = await parsePrices(readFileSync(fx("prices-long.csv"), "utf8"), { resolver: XNYS });
    const gz = await parsePrices(readFileSync(fx("prices-long.csv.gz")), { resolver: XNYS });
    expect(gz.bars).toEqual(plain.bars);
    expect(gz.summary.flawCounts).toEqual(plain.summary.flawCounts);
  });

  it("reads a (gzip) stream in small chunks to the same result", async () => {
    const plain = await parsePrices(readFileSync(fx("prices-long.csv"), "utf8"), { resolver: XNYS });
    const stream = await parsePrices(createReadStream(fx("prices-long.csv.gz"), { highWaterMark: 16 }), {
      resolver: XNYS,
    });
    expect(stream.bars).toEqual(plain.bars);
    const chunks = Readable.from(["date,close,Na", "me\n2020-01-02,1", "0.5,AAA\n"]);
    const small = await parsePrices(chunks, { resolver: XNYS });
    expect(small.bars.map((b) => [b.themeAssetId, b.close])).toEqual([["AAA:XNYS", 10.5]]);
  });

  it("reads quoted fields, CRLF line ends and dotted symbols", async () => {
    const { bars, summary } = await parsePrices(readFileSync(fx("prices-quoted-crlf.csv")), {
      file: "q.csv",
      resolver: XNYS,
    });
    expect(bars.map((b) => [b.themeAssetId, b.date, b.close, b.volume])).toEqual([
      ["BRK.B:XNYS", "2020-01-02", 10.2, 1000],
      ["BRK.B:XNYS", "2020-01-03", 10.3, 1100],
      ["BRK.B:XNYS", "2020-01-06", 10.4, 1200],
    ]);
    expect(summary.rowsRead).toBe(3);
    // A quoted "1,200" is one field, but thousands separators are not numbers.
    await expect(
      parsePrices('date,close,volume,Name\n2020-01-02,1,"1,200",A:XNYS\n', { file: "t.csv" }),
    ).rejects.toThrowError('line 2, column "volume": "1,200" is not a number (remove thousands separators).');
  });
});

describe("parsePrices, Yahoo layout", () => {
  it("takes the symbol from the file name and reads M/D/YYYY dates and Adj Close", async () => {
    const { bars, summary } = await parsePrices(readFileSync(fx("ACME.csv")), {
      file: fx("ACME.csv"),
      resolver: resolverForMic("XNAS"),
    });
    expect(summary.layout).toBe("yahoo");
    expect(bars.map((b) => [b.themeAssetId, b.date, b.close, b.adjClose])).toEqual([
      ["ACME:XNAS", "2020-01-02", 50.5, 48.1],
      ["ACME:XNAS", "2020-01-03", 50.1, 47.72],
      ["ACME:XNAS", "2020-01-07", 50.7, 48.29],
      ["ACME:XNAS", "2020-12-31", 60.25, 58],
    ]);
    // Yahoo writes "null" on days without data: the row has no usable close and is skipped.
    expect(summary.flaws.map((f) => [f.kind, f.action, f.date, f.line])).toEqual([
      ["no_close", "skipped", "2020-01-06", 4],
    ]);
    expect(summary).toMatchObject({ rowsRead: 5, rowsKept: 4, rowsSkipped: 1, symbols: 1 });
  });

  it("uses the symbol option over the file name", async () => {
    const { bars } = await parsePrices(readFileSync(fx("ACME.csv")), {
      file: "whatever.csv",
      symbol: "acme.a",
      resolver: XNYS,
    });
    expect(bars[0]!.themeAssetId).toBe("ACME.A:XNYS");
  });

  it("checks late starts and gaps against a calendar when one is given", async () => {
    const calendar = ["2019-12-31", "2020-01-02", "2020-01-03", "2020-01-06", "2020-01-07", "2020-12-31"];
    const { summary } = await parsePrices(readFileSync(fx("ACME.csv")), {
      file: "ACME.csv",
      resolver: XNYS,
      calendar,
    });
    expect(summary.flawCounts.late_start).toBe(1);
    expect(summary.flawCounts.gap).toBe(1); // 2020-01-06 had "null"
    expect(summary.flaws.find((f) => f.kind === "gap")!.message).toContain("2020-01-06");
  });
});

describe("parsePrices, malformed input", () => {
  it("names the file, line and missing column for a row with too few fields", async () => {
    const file = fx("broken/prices-wrong-column-count.csv");
    const err = await parsePrices(readFileSync(file), { file, resolver: XNYS }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CsvFormatError);
    const e = err as CsvFormatError;
    expect([e.line, e.column]).toEqual([3, "Name"]);
    expect(e.message).toContain("prices-wrong-column-count.csv");
    expect(e.message).toContain("line 3");
    expect(e.message).toContain('column "Name"');
    expect(e.message).toContain("found 6 fields but the header has 7");
    expect(e.code).toBe("csv_format");
  });

  it("names the last column for a row with an extra field", async () => {
    await expect(
      parsePrices(readFileSync(fx("broken/prices-extra-field.csv")), { file: "x.csv", resolver: XNYS }),
    ).rejects.toThrowError(/x\.csv, line 3, column "Name": found 8 fields but the header has 7/);
  });

  it("rejects an unparseable number in the close column", async () => {
    await expect(
      parsePrices(readFileSync(fx("broken/prices-bad-number.csv")), { file: "n.csv", resolver: XNYS }),
    ).rejects.toThrowError('n.csv, line 3, column "close": "10.3x" is not a number.');
  });

  it("rejects an impossible date", async () => {
    await expect(
      parsePrices(readFileSync(fx("broken/prices-bad-date.csv")), { file: "d.csv", resolver: XNYS }),
    ).rejects.toThrowError(/d\.csv, line 3, column "date": "2020-02-30" is not a date/);
  });

  it("rejects a file whose first line is data, not a header", async () => {
    const err = (await parsePrices(readFileSync(fx("broken/prices-no-header.csv")), {
      file: "h.csv",
      resolver: XNYS,
    }).catch((e: unknown) => e)) as CsvFormatError;
    expect(err).toBeInstanceOf(CsvFormatError);
    expect(err.message).toMatch(/h\.csv, line 1, column "date": missing required column "date"/);
    expect(err.message).toContain("The first line looks like data");
  });

  it("rejects an empty file and an unterminated quote", async () => {
    await expect(parsePrices("", { file: "e.csv" })).rejects.toThrowError(
      /e\.csv, line 1, column "date": the file is empty/,
    );
    await expect(
      parsePrices(readFileSync(fx("broken/prices-unterminated-quote.csv")), {
        file: "u.csv",
        resolver: XNYS,
      }),
    ).rejects.toThrowError(/u\.csv, line 3, column "Name": a quoted field is never closed/);
  });

  it("rejects a negative volume and a plain symbol without a resolver", async () => {
    await expect(
      parsePrices("date,close,volume,Name\n2020-01-02,1,-5,A:XNYS\n", { file: "v.csv" }),
    ).rejects.toThrowError('v.csv, line 2, column "volume": volume -5 is negative.');
    await expect(parsePrices("date,close,Name\n2020-01-02,1,AAA\n", { file: "s.csv" })).rejects.toThrowError(
      /s\.csv, line 2, column "Name": "AAA" is not a theme_asset_id/,
    );
  });
});

describe("importPrices", () => {
  it("writes all bars in one transaction", async () => {
    const w = new InMemoryMarketDataWriter();
    const summary = await importPrices(fx("prices-long.csv"), w, { defaultMic: "XNYS" });
    expect(w.commits).toBe(1);
    expect(w.tables.prices.size).toBe(11);
    expect(w.tables.prices.get("AAA:XNYS|2020-01-08")!.close).toBe(15.1);
    expect(summary.file).toBe(fx("prices-long.csv"));
  });

  it("writes nothing when a line is malformed", async () => {
    const w = new InMemoryMarketDataWriter();
    w.upsertSecurities([security("AAA:XNYS")]);
    const before = { size: w.size(), calls: w.calls, commits: w.commits };
    await expect(
      importPrices(fx("broken/prices-bad-number.csv"), w, { defaultMic: "XNYS" }),
    ).rejects.toThrowError(CsvFormatError);
    expect({ size: w.size(), calls: w.calls, commits: w.commits }).toEqual(before);
  });

  it.each([
    "prices-wrong-column-count.csv",
    "prices-extra-field.csv",
    "prices-bad-number.csv",
    "prices-bad-date.csv",
    "prices-no-header.csv",
    "prices-unterminated-quote.csv",
    "prices-empty.csv",
  ])("leaves the writer untouched when %s is rejected", async (name) => {
    const w = new InMemoryMarketDataWriter();
    w.transaction(() => w.upsertSecurities([security("AAA:XNYS")]));
    const before = { tables: structuredClone(w.tables), calls: w.calls, commits: w.commits };
    const path = fx(`broken/${name}`);
    const err = (await importPrices(path, w, { defaultMic: "XNYS" }).catch(
      (e: unknown) => e,
    )) as CsvFormatError;
    expect(err).toBeInstanceOf(CsvFormatError);
    expect(err.message.startsWith(`${path}, line `)).toBe(true);
    expect({ tables: w.tables, calls: w.calls, commits: w.commits }).toEqual(before);
  });

  it("fails on an unknown symbol, naming it with file, line and column, and writes nothing", async () => {
    const w = new InMemoryMarketDataWriter();
    w.upsertSecurities([security("AAA:XNYS"), security("BBB:XNYS")]);
    const before = w.size();
    const err = (await importPrices(fx("prices-long.csv"), w).catch(
      (e: unknown) => e,
    )) as UnresolvedSymbolError;
    expect(err).toBeInstanceOf(UnresolvedSymbolError);
    expect(err.code).toBe("unknown_symbol");
    expect(err.message).toContain('prices-long.csv, line 12, column "Name": symbol "CCC" matches no listing');
    expect(w.size()).toBe(before);
  });

  it("fails on an ambiguous symbol, naming the listings", async () => {
    const w = new InMemoryMarketDataWriter();
    w.upsertSecurities([
      security("AAA:XNYS"),
      security("AAA:XNAS"),
      security("BBB:XNYS"),
      security("CCC:XNYS"),
    ]);
    const err = (await importPrices(fx("prices-long.csv"), w).catch(
      (e: unknown) => e,
    )) as UnresolvedSymbolError;
    expect(err).toBeInstanceOf(UnresolvedSymbolError);
    expect(err.code).toBe("ambiguous_symbol");
    expect(err.candidates).toEqual(["AAA:XNAS", "AAA:XNYS"]);
    expect(err.message).toContain(
      'line 2, column "Name": symbol "AAA" matches 2 listings (AAA:XNAS, AAA:XNYS)',
    );
    expect(w.tables.prices.size).toBe(0);
  });

  it("skips and reports unresolved symbols when asked to", async () => {
    const w = new InMemoryMarketDataWriter();
    w.upsertSecurities([security("AAA:XNYS"), security("BBB:XNYS")]);
    const summary = await importPrices(fx("prices-long.csv"), w, { onUnresolvedSymbol: "skip" });
    expect(summary.flawCounts.unresolved_symbol).toBe(3); // CCC's three rows
    expect(summary.rowsSkipped).toBe(5); // + BBB no-close + duplicate
    expect(w.tables.prices.size).toBe(8);
  });

  it("creates minimal securities for new symbols when asked to", async () => {
    const w = new InMemoryMarketDataWriter();
    w.upsertSecurities([{ ...security("AAA:XNAS"), name: "Keep me" }]);
    await importPrices(fx("prices-long.csv"), w, { defaultMic: "XNAS", createMissingSecurities: true });
    expect([...w.tables.securities.keys()].sort()).toEqual(["AAA:XNAS", "BBB:XNAS", "CCC:XNAS"]);
    expect(w.tables.securities.get("AAA:XNAS")!.name).toBe("Keep me");
    expect(w.tables.securities.get("CCC:XNAS")).toMatchObject({
      currency: "USD",
      country: "US",
      listedFrom: "2020-01-06",
    });
  });
});
