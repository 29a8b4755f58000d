import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { importCharacteristics, parseCharacteristics } from "./characteristics.js";
import { CsvFormatError } from "./errors.js";
import { InMemoryMarketDataWriter } from "./memory-writer.js";
import { minimalSecurity } from "./minimal-security.js";
import { resolverFromListings } from "./symbol-resolver.js";

const FIXTURES = resolve(import.meta.dirname, "../../../fixtures/market");
const fx = (name: string) => resolve(FIXTURES, name);
const listings = [minimalSecurity("AAPL:XNAS"), minimalSecurity("RY:XTSE")];
const resolver = resolverFromListings((s) => listings.filter((l) => l.symbol === s));

describe("parseCharacteristics", () => {
  it("reads the long layout, normalizing names to snake_case", async () => {
    const { values, summary } = await parseCharacteristics(readFileSync(fx("characteristics-long.csv")), {
      file: "l.csv",
      resolver,
    });
    expect(summary.layout).toBe("long");
    expect(values).toEqual([
      { themeAssetId: "AAPL:XNAS", date: "2018-02-08", name: "pe", value: 16.86 },
      { themeAssetId: "AAPL:XNAS", date: "2018-02-08", name: "dividend_yield", value: 0.015795412 },
      { themeAssetId: "AAPL:XNAS", date: "2018-02-08", name: "market_cap", value: 809508034020 },
      { themeAssetId: "AAPL:XNAS", date: "2013-02-08", name: "pe", value: 10.62 },
    ]);
    expect(summary.flaws.map((f) => [f.kind, f.symbol, f.line])).toEqual([["empty_value", "RY:XTSE", 5]]);
    expect(summary).toMatchObject({
      rowsRead: 5,
      rowsKept: 4,
      rowsSkipped: 1,
      firstDate: "2013-02-08",
      lastDate: "2018-02-08",
    });
  });

  it("reads the wide layout: one value per non-empty cell, each at its row's date", async () => {
    const { values, summary } = await parseCharacteristics(readFileSync(fx("characteristics-wide.csv")), {
      file: "w.csv",
      resolver,
    });
    expect(summary.layout).toBe("wide");
    expect(values.filter((v) => v.date === "2013-02-08")).toEqual([
      { themeAssetId: "AAPL:XNAS", date: "2013-02-08", name: "market_cap", value: 446e9 },
      { themeAssetId: "AAPL:XNAS", date: "2013-02-08", name: "pe", value: 10.62 },
      { themeAssetId: "AAPL:XNAS", date: "2013-02-08", name: "dividend_yield", value: 0.017 },
    ]);
    expect(values).toHaveLength(6);
    // RY's row is all empty: three empty_value flaws, the row is skipped.
    expect(summary.flawCounts.empty_value).toBe(3);
    expect(summary).toMatchObject({ rowsRead: 3, rowsKept: 2, rowsSkipped: 1 });
  });

  it("rejects a non-numeric value with file, line and column", async () => {
    await expect(
      parseCharacteristics(readFileSync(fx("broken/characteristics-bad-value.csv")), { file: "c.csv" }),
    ).rejects.toThrowError(
      new CsvFormatError({ file: "c.csv", line: 3, column: "pe" }, '"n.m." is not a number.'),
    );
  });

  it("rejects two columns that mean the same characteristic", async () => {
    await expect(parseCharacteristics("date,symbol,P/E,p e\n", { file: "c.csv" })).rejects.toThrowError(
      /column "p e": columns "P\/E" and "p e" both mean p_e/,
    );
  });
});

describe("importCharacteristics", () => {
  it("writes every value in one transaction, nothing on a bad file", async () => {
    const w = new InMemoryMarketDataWriter();
    w.upsertSecurities(listings);
    await importCharacteristics(fx("characteristics-long.csv"), w);
    expect(w.tables.characteristics.get("AAPL:XNAS|pe|2013-02-08")!.value).toBe(10.62);
    const before = w.size();
    await expect(importCharacteristics(fx("broken/characteristics-bad-value.csv"), w)).rejects.toBeInstanceOf(
      CsvFormatError,
    );
    expect(w.size()).toBe(before);
  });
});
