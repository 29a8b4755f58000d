import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { importDividends, parseDividends } from "./dividends.js";
import { CsvFormatError, UnresolvedSymbolError } from "./errors.js";
import { InMemoryMarketDataWriter } from "./memory-writer.js";
import { minimalSecurity } from "./minimal-security.js";

const FIXTURES = resolve(import.meta.dirname, "../../../fixtures/market");
const fx = (name: string) => resolve(FIXTURES, name);

function storeWith(...ids: string[]): InMemoryMarketDataWriter {
  const w = new InMemoryMarketDataWriter();
  w.upsertSecurities(ids.map((id) => minimalSecurity(id)));
  return w;
}

describe("importDividends", () => {
  it("resolves symbols through the store and reports an empty amount and a duplicate", async () => {
    const w = storeWith("AAPL:XNAS", "RY:XTSE");
    const summary = await importDividends(fx("dividends.csv"), w);
    expect([...w.tables.dividends.values()]).toEqual([
      { themeAssetId: "AAPL:XNAS", exDate: "2024-02-09", amount: 0.24 },
      { themeAssetId: "AAPL:XNAS", exDate: "2024-05-10", amount: 0.25 },
      { themeAssetId: "RY:XTSE", exDate: "2024-02-21", amount: 1.38 },
    ]);
    expect(summary.flaws.map((f) => [f.kind, f.action, f.symbol, f.date, f.line])).toEqual([
      ["empty_value", "skipped", "RY:XTSE", "2024-05-24", 5],
      ["duplicate", "skipped", "AAPL:XNAS", "2024-02-09", 6],
    ]);
    expect(summary).toMatchObject({ rowsRead: 5, rowsKept: 3, rowsSkipped: 2, symbols: 2 });
  });

  it("fails on an ambiguous symbol, naming both listings, and writes nothing", async () => {
    const w = storeWith("AAPL:XNAS", "RY:XTSE", "RY:XNYS");
    const before = w.size();
    const err = (await importDividends(fx("dividends.csv"), w).catch(
      (e: unknown) => e,
    )) as UnresolvedSymbolError;
    expect(err).toBeInstanceOf(UnresolvedSymbolError);
    expect(err.message).toContain(
      'dividends.csv, line 4, column "symbol_or_theme_asset_id": symbol "RY" matches 2 listings (RY:XNYS, RY:XTSE)',
    );
    expect(err.candidates).toEqual(["RY:XNYS", "RY:XTSE"]);
    expect(w.size()).toBe(before);
  });

  it("rejects a negative amount", async () => {
    await expect(
      parseDividends("ex_date,symbol,amount\n2024-02-09,AAPL:XNAS,-0.24\n", { file: "d.csv" }),
    ).rejects.toThrowError(
      new CsvFormatError(
        { file: "d.csv", line: 2, column: "amount" },
        "a cash dividend must be positive, found -0.24.",
      ),
    );
  });
});
