import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { CsvFormatError } from "./errors.js";
import { InMemoryMarketDataWriter } from "./memory-writer.js";
import { importSecurities, parseSecurities } from "./securities.js";

const FIXTURES = resolve(import.meta.dirname, "../../../fixtures/market");
const fx = (name: string) => resolve(FIXTURES, name);

describe("parseSecurities", () => {
  it("reads the layout with MIC defaults, sector names and codes", async () => {
    const { securities } = await parseSecurities(readFileSync(fx("securities.csv")), {
      file: "securities.csv",
    });
    expect(securities.map((s) => s.themeAssetId)).toEqual([
      "AAPL:XNAS",
      "RY:XTSE",
      "SPY:ARCX",
      "T:XNYS",
      "BRK.B:XNYS",
    ]);
    expect(securities[0]).toEqual({
      themeAssetId: "AAPL:XNAS",
      symbol: "AAPL",
      mic: "XNAS",
      name: "Apple Inc.",
      currency: "USD",
      country: "US",
      assetType: "equity",
      sector: 45,
      industryGroup: null,
      industry: null,
      subIndustry: null,
      sicCode: 3571,
      sharesOutstanding: 15_000_000_000,
      description: null,
      listedFrom: "1980-12-12",
      delistedOn: null,
    });
  });

  it("derives the upper industry levels from a sub-industry code, and CAD/CA from XTSE", async () => {
    const { securities } = await parseSecurities(readFileSync(fx("securities.csv")));
    const ry = securities.find((s) => s.symbol === "RY")!;
    expect([ry.sector, ry.industryGroup, ry.industry, ry.subIndustry]).toEqual([40, 4010, 401010, 40101010]);
    expect([ry.currency, ry.country, ry.description]).toEqual(["CAD", "CA", "Canada's largest bank"]);
  });

  it("maps exchange names to MICs, old telecom sector names to 50, and reads the type case-insensitively", async () => {
    const { securities } = await parseSecurities(readFileSync(fx("securities.csv")));
    const t = securities.find((s) => s.symbol === "T")!;
    expect([t.themeAssetId, t.name, t.sector]).toEqual(["T:XNYS", "AT&T Inc.", 50]);
    expect(securities.find((s) => s.symbol === "SPY")!.assetType).toBe("etf");
  });

  it("reports an empty name (set to the symbol) and a duplicate listing", async () => {
    const { securities, summary } = await parseSecurities(readFileSync(fx("securities.csv")), {
      file: "securities.csv",
    });
    expect(securities.find((s) => s.symbol === "BRK.B")!.name).toBe("BRK.B");
    expect(summary.flawCounts.duplicate).toBe(1);
    expect(summary.flaws.find((f) => f.kind === "duplicate")).toMatchObject({
      symbol: "AAPL:XNAS",
      line: 7,
      action: "skipped",
    });
    expect(
      summary.flaws.find((f) => f.kind === "empty_field" && f.symbol === "BRK.B:XNYS")!.message,
    ).toContain("name set to the symbol");
    expect(summary).toMatchObject({ rowsRead: 6, rowsKept: 5, rowsSkipped: 1, records: 5 });
  });

  it("uses defaultMic for rows without a MIC and rejects such rows without it", async () => {
    const text = "symbol,name\nMSFT,Microsoft\n";
    const { securities } = await parseSecurities(text, { defaultMic: "XNAS" });
    expect(securities[0]!.themeAssetId).toBe("MSFT:XNAS");
    await expect(parseSecurities(text, { file: "s.csv" })).rejects.toThrowError(
      /s\.csv, line 2, column "symbol": no MIC for MSFT/,
    );
  });

  it("rejects an unknown sector name, naming file, line and column", async () => {
    await expect(
      parseSecurities(readFileSync(fx("broken/securities-bad-sector.csv")), { file: "b.csv" }),
    ).rejects.toThrowError(/b\.csv, line 2, column "sector": unknown sector name "Technology Hardware"/);
  });

  it("rejects industry codes that do not nest under the sector", async () => {
    await expect(
      parseSecurities(readFileSync(fx("broken/securities-bad-nesting.csv")), { file: "n.csv" }),
    ).rejects.toThrowError(
      'n.csv, line 2, column "industry_group": industry group 3510 does not belong to sector 45 (codes nest by prefix).',
    );
  });

  it("rejects a file with neither theme_asset_id nor symbol", async () => {
    await expect(parseSecurities("name,sector\nApple,45\n", { file: "x.csv" })).rejects.toThrowError(
      /x\.csv, line 1, column "theme_asset_id": missing required column/,
    );
  });
});

describe("importSecurities", () => {
  it("upserts the securities in one transaction, and nothing when the file is bad", async () => {
    const w = new InMemoryMarketDataWriter();
    await importSecurities(fx("securities.csv"), w);
    expect(w.tables.securities.size).toBe(5);
    expect(w.findSecuritiesBySymbol("ry").map((s) => s.themeAssetId)).toEqual(["RY:XTSE"]);
    const before = w.size();
    await expect(importSecurities(fx("broken/securities-bad-sector.csv"), w)).rejects.toBeInstanceOf(
      CsvFormatError,
    );
    expect(w.size()).toBe(before);
    expect(w.commits).toBe(1);
  });
});
