import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { resolverForMic } from "../importers/symbol-resolver.js";
import { parseConstituentsFinancials } from "./constituents.js";

const FIXTURES = resolve(import.meta.dirname, "../../../fixtures/market");
const fx = (name: string) => resolve(FIXTURES, name);
const XNYS = resolverForMic("XNYS");
const value = (values: { themeAssetId: string; name: string; value: number }[], id: string, name: string) =>
  values.find((v) => v.themeAssetId === id && v.name === name)?.value;

describe("parseConstituentsFinancials, 2018 layout", () => {
  it("converts the dividend yield from percent and keeps USD amounts, all stamped at the vintage date", async () => {
    const { rows, values, summary } = await parseConstituentsFinancials(
      readFileSync(fx("constituents-2018-sample.csv")),
      {
        file: "c18.csv",
        date: "2018-02-08",
        resolver: XNYS,
      },
    );
    expect(summary.layout).toBe("okfn_constituents_2018");
    expect(rows.map((r) => [r.symbol, r.sector, r.price, r.marketCap])).toEqual([
      ["MMM", 20, 222.89, 138721055226],
      ["AAPL", 45, 155.15, 809508034020],
      ["T", 50, 35.57, 226713270000], // "Telecommunication Services" -> 50
      ["PRGO", 35, 84.44, 12326379902],
    ]);
    expect(value(values, "MMM:XNYS", "dividend_yield")).toBeCloseTo(0.023328617, 12); // 2.3328617 %
    expect(value(values, "MMM:XNYS", "pe")).toBe(24.31);
    expect(value(values, "MMM:XNYS", "ebitda")).toBe(9048000000);
    expect(value(values, "MMM:XNYS", "book_to_price")).toBeCloseTo(1 / 11.34, 12);
    expect(value(values, "MMM:XNYS", "earnings_yield")).toBeCloseTo(7.92 / 222.89, 12);
    expect(new Set(values.map((v) => v.date))).toEqual(new Set(["2018-02-08"]));
    // Perrigo has no P/E: reported, no pe value; its negative EPS is kept as published.
    expect(value(values, "PRGO:XNYS", "pe")).toBeUndefined();
    expect(value(values, "PRGO:XNYS", "eps")).toBe(-28.01);
    expect(summary.flaws.map((f) => [f.kind, f.symbol, f.line])).toEqual([["empty_value", "PRGO:XNYS", 5]]);
    expect(summary.ignoredColumns).toEqual(["52 Week Low", "52 Week High", "SEC Filings"]);
  });
});

describe("parseConstituentsFinancials, 2013 layout", () => {
  it("reads the other column order and scales billions to USD", async () => {
    const { rows, values, summary } = await parseConstituentsFinancials(
      readFileSync(fx("constituents-2013-sample.csv")),
      {
        file: "c13.csv",
        date: "2013-02-08",
        resolver: XNYS,
      },
    );
    expect(summary.layout).toBe("okfn_constituents_2013");
    expect(value(values, "MMM:XNYS", "market_cap")).toBeCloseTo(70.537e9, 0); // 70.537 bn
    expect(value(values, "MMM:XNYS", "ebitda")).toBeCloseTo(7.758e9, 0);
    expect(value(values, "MMM:XNYS", "dividend_yield")).toBeCloseTo(0.0231, 12);
    expect(value(values, "MMM:XNYS", "pe")).toBe(16.17);
    expect(value(values, "MMM:XNYS", "pb")).toBe(3.89);
    expect(rows.find((r) => r.symbol === "T")!.sector).toBe(50); // "Telecommunications Services"
    expect(value(values, "GOOG:XNYS", "dividend_yield")).toBeUndefined();
    expect(summary.flawCounts.empty_value).toBe(1);
    expect(summary.ignoredColumns).toEqual(["Book Value", "52 week low", "52 week high", "SEC Filings"]);
  });

  it("skips and reports constituents the resolver does not know", async () => {
    const { rows, summary } = await parseConstituentsFinancials(
      readFileSync(fx("constituents-2013-sample.csv")),
      {
        date: "2013-02-08",
        resolver: (t) =>
          t === "ACE"
            ? { ok: false, reason: "unknown", candidates: [], message: "ACE left the index." }
            : XNYS(t),
        onUnresolvedSymbol: "skip",
      },
    );
    expect(rows.map((r) => r.symbol)).toEqual(["MMM", "AAPL", "T", "GOOG"]);
    expect(summary.flaws.find((f) => f.kind === "unresolved_symbol")).toMatchObject({
      symbol: "ACE",
      line: 3,
      action: "skipped",
    });
    expect(summary).toMatchObject({ rowsRead: 5, rowsKept: 4, rowsSkipped: 1 });
  });

  it("rejects an unknown sector name with file, line and column", async () => {
    const text =
      "Symbol,Name,Sector,Price,Price/Earnings,Dividend Yield,Earnings/Share,Market Cap,EBITDA,Price/Sales,Price/Book\nX,X Corp,Widgets,1,1,1,1,1,1,1,1\n";
    await expect(
      parseConstituentsFinancials(text, { file: "c.csv", date: "2018-02-08", resolver: XNYS }),
    ).rejects.toThrowError(/c\.csv, line 2, column "Sector": unknown sector name "Widgets"/);
  });
});
