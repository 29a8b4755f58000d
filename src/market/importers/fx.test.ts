import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import type { FxRate } from "../../core/data/types.js";
import { CsvFormatError } from "./errors.js";
import { importFx, parseFx } from "./fx.js";
import { InMemoryMarketDataWriter } from "./memory-writer.js";

const FIXTURES = resolve(import.meta.dirname, "../../../fixtures/market");
const fx = (name: string) => resolve(FIXTURES, name);
const rate = (rates: FxRate[], date: string, currency: string) =>
  rates.find((r) => r.date === date && r.currency === currency)?.perUsd;

describe("parseFx, ECB layout", () => {
  it("converts per-EUR rates to per-USD cross rates", async () => {
    const { rates, summary } = await parseFx(readFileSync(fx("fx-ecb.csv")), { file: "fx-ecb.csv" });
    expect(summary.layout).toBe("ecb");
    // 2013-02-08: USD 1.3374, CAD 1.3361, JPY 123.52, GBP 0.84635 per EUR.
    expect(rate(rates, "2013-02-08", "CAD")).toBeCloseTo(0.9990279647, 9); // 1.3361 / 1.3374
    expect(rate(rates, "2013-02-08", "JPY")).toBeCloseTo(92.3583071632, 9); // 123.52 / 1.3374
    expect(rate(rates, "2013-02-08", "GBP")).toBeCloseTo(0.6328323613, 9); // 0.84635 / 1.3374
    expect(rate(rates, "2013-02-08", "EUR")).toBeCloseTo(0.7477194557, 9); // 1 / 1.3374
    // 2013-02-04: 1.34 / 1.35 = 0.992592..., 125 / 1.35 = 92.592592...
    expect(rate(rates, "2013-02-04", "CAD")).toBeCloseTo(0.9925925926, 9);
    expect(rate(rates, "2013-02-04", "JPY")).toBeCloseTo(92.5925925926, 9);
  });

  it("sorts newest-first input ascending and ignores other currencies and the trailing empty column", async () => {
    const { rates, summary } = await parseFx(readFileSync(fx("fx-ecb.csv")), { file: "fx-ecb.csv" });
    expect(rates[0]!.date).toBe("2013-02-04");
    expect(rates[rates.length - 1]!.date).toBe("2013-02-08");
    expect(new Set(rates.map((r) => r.currency))).toEqual(new Set(["CAD", "EUR", "GBP", "JPY"]));
    expect(summary.ignoredColumns).toEqual(["CYP", "(unnamed column 7)"]);
  });

  it("skips a row without USD and an empty CAD cell, reporting both", async () => {
    const { rates, summary } = await parseFx(readFileSync(fx("fx-ecb.csv")), { file: "fx-ecb.csv" });
    // 4 usable rows x 4 currencies, minus CAD on 2013-02-05.
    expect(rates).toHaveLength(15);
    expect(rate(rates, "2013-02-06", "JPY")).toBeUndefined();
    expect(summary.flaws.map((f) => [f.kind, f.action, f.symbol, f.date, f.line])).toEqual([
      ["empty_value", "skipped", "USD", "2013-02-06", 4],
      ["empty_value", "skipped", "CAD", "2013-02-05", 5],
    ]);
    expect(summary).toMatchObject({ rowsRead: 5, rowsKept: 4, rowsSkipped: 1, records: 15, symbols: 4 });
  });

  it("reads the gzip file to the same rates", async () => {
    const plain = await parseFx(readFileSync(fx("fx-ecb.csv")));
    const gz = await parseFx(readFileSync(fx("fx-ecb.csv.gz")));
    expect(gz.rates).toEqual(plain.rates);
  });

  it("keeps only the requested currencies", async () => {
    const { rates } = await parseFx(readFileSync(fx("fx-ecb.csv")), { currencies: ["CAD"] });
    expect(new Set(rates.map((r) => r.currency))).toEqual(new Set(["CAD"]));
  });
});

describe("parseFx, FRED wide layout", () => {
  it("reads country columns as per-USD rates and the misspelt Data date column", async () => {
    const { rates, summary } = await parseFx(readFileSync(fx("fx-fred-wide.csv")), { file: "fred.csv" });
    expect(summary.layout).toBe("fred_wide");
    expect(rate(rates, "2013-02-04", "CAD")).toBe(0.9976);
    expect(rate(rates, "2013-02-04", "EUR")).toBe(0.7393);
    expect(rate(rates, "2013-02-04", "JPY")).toBe(92.57);
    expect(rate(rates, "2013-02-04", "GBP")).toBe(0.6354);
    expect(summary.ignoredColumns).toEqual(["Australia"]);
  });

  it("reports holidays cell by cell and a late-starting series once", async () => {
    const { rates, summary } = await parseFx(readFileSync(fx("fx-fred-wide.csv")), { file: "fred.csv" });
    // 1998-12-31: 3 rates (no Euro yet); 2013-02-04, -05, -19: 4 each; 2013-02-18: none.
    expect(rates).toHaveLength(15);
    expect(summary.flawCounts.late_start).toBe(1);
    expect(summary.flawCounts.empty_value).toBe(4);
    expect(summary.flaws.find((f) => f.kind === "late_start")).toMatchObject({
      symbol: "EUR",
      date: "2013-02-04",
      line: 2,
    });
    expect(
      summary.flaws.filter((f) => f.kind === "empty_value").map((f) => [f.symbol, f.date, f.line]),
    ).toEqual([
      ["CAD", "2013-02-18", 5],
      ["EUR", "2013-02-18", 5],
      ["JPY", "2013-02-18", 5],
      ["GBP", "2013-02-18", 5],
    ]);
    expect(summary).toMatchObject({ rowsRead: 5, rowsKept: 4, rowsSkipped: 1 });
  });

  it("inverts FRED series quoted as USD per unit (DEXUSEU, DEXUSUK)", async () => {
    const { rates } = await parseFx("DATE,DEXCAUS,DEXUSEU,DEXUSUK\n2013-02-08,1.0021,1.3365,1.5813\n");
    expect(rate(rates, "2013-02-08", "CAD")).toBe(1.0021);
    expect(rate(rates, "2013-02-08", "EUR")).toBeCloseTo(0.7482229705, 9); // 1 / 1.3365
    expect(rate(rates, "2013-02-08", "GBP")).toBeCloseTo(0.6323910706, 9); // 1 / 1.5813
  });
});

describe("parseFx, long layout", () => {
  it("reads date,currency,per_usd rows and reports other currencies, empties and duplicates", async () => {
    const { rates, summary } = await parseFx(readFileSync(fx("fx-long.csv")), { file: "fx-long.csv" });
    expect(summary.layout).toBe("long");
    expect(rates).toEqual([
      { date: "2020-01-02", currency: "CAD", perUsd: 1.2964 },
      { date: "2020-01-02", currency: "EUR", perUsd: 0.8933 },
      { date: "2020-01-03", currency: "EUR", perUsd: 0.8972 },
      { date: "2020-01-03", currency: "USD", perUsd: 1 },
    ]);
    expect(summary.flaws.map((f) => [f.kind, f.action, f.symbol, f.line])).toEqual([
      ["other_currency", "skipped", "AUD", 4],
      ["empty_value", "skipped", "CAD", 5],
      ["duplicate", "skipped", "CAD", 9],
    ]);
    expect(summary.flaws[0]!.message).toContain("2 rows");
    expect(summary).toMatchObject({ rowsRead: 8, rowsKept: 4, rowsSkipped: 4 });
  });

  it("maps FRED monthly country names to currencies", async () => {
    const { rates } = await parseFx(readFileSync(fx("fx-monthly-long.csv")));
    expect(rates.map((r) => [r.currency, r.perUsd])).toEqual([
      ["CAD", 1.0018],
      ["EUR", 0.7492],
      ["GBP", 0.6452],
      ["JPY", 93.1],
    ]);
  });

  it("rejects a negative rate and writes nothing", async () => {
    const w = new InMemoryMarketDataWriter();
    const err = (await importFx(fx("broken/fx-negative-rate.csv"), w).catch(
      (e: unknown) => e,
    )) as CsvFormatError;
    expect(err).toBeInstanceOf(CsvFormatError);
    expect(err.message).toMatch(
      /fx-negative-rate\.csv, line 3, column "per_usd": an exchange rate must be positive, found -1\.3/,
    );
    expect(w.size()).toBe(0);
    expect(w.calls).toBe(0);
  });

  it("rejects a header with no FX column", async () => {
    await expect(parseFx("date,foo\n2020-01-02,1\n", { file: "f.csv" })).rejects.toThrowError(
      /f\.csv, line 1, column "foo": no FX column found/,
    );
  });
});

describe("importFx", () => {
  it("writes the ECB rates in one transaction", async () => {
    const w = new InMemoryMarketDataWriter();
    const summary = await importFx(fx("fx-ecb.csv.gz"), w);
    expect(w.commits).toBe(1);
    expect(w.tables.fx.size).toBe(15);
    expect(w.tables.fx.get("CAD|2013-02-08")!.perUsd).toBeCloseTo(0.9990279647, 9);
    expect(summary.records).toBe(15);
  });
});
