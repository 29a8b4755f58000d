import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { CsvFormatError, UnresolvedSymbolError } from "./errors.js";
import { InMemoryMarketDataWriter } from "./memory-writer.js";
import { minimalSecurity } from "./minimal-security.js";
import { importSplits, parseSplitRatio, parseSplits } from "./splits.js";
import { resolverForMic, resolverFromListings } from "./symbol-resolver.js";

const FIXTURES = resolve(import.meta.dirname, "../../../fixtures/market");
const fx = (name: string) => resolve(FIXTURES, name);

describe("parseSplitRatio", () => {
  it("reads plain, colon, slash and 'for' forms as new shares per old share", () => {
    expect(parseSplitRatio("2")).toBe(2);
    expect(parseSplitRatio("7:1")).toBe(7);
    expect(parseSplitRatio("1:10")).toBeCloseTo(0.1, 15);
    expect(parseSplitRatio("3/2")).toBe(1.5);
    expect(parseSplitRatio("3-for-2")).toBe(1.5);
    expect(parseSplitRatio("1 for 8")).toBe(0.125);
    expect(parseSplitRatio("seven")).toBeNaN();
  });
});

describe("parseSplits", () => {
  it("reads the simple layout and reports a duplicate split", async () => {
    const { splits, summary } = await parseSplits(readFileSync(fx("splits-simple.csv")), {
      file: "s.csv",
      resolver: resolverForMic("XNAS"),
    });
    expect(summary.layout).toBe("simple");
    expect(splits).toEqual([
      { themeAssetId: "AAPL:XNAS", date: "2014-06-09", ratio: 7 },
      { themeAssetId: "AAPL:XNAS", date: "2020-08-31", ratio: 4 },
      { themeAssetId: "XYZ:XNYS", date: "2019-05-01", ratio: 0.1 },
      { themeAssetId: "XYZ:XNYS", date: "2021-03-01", ratio: 1.5 },
    ]);
    expect(summary.flaws.map((f) => [f.kind, f.action, f.symbol, f.line])).toEqual([
      ["duplicate", "skipped", "AAPL:XNAS", 6],
    ]);
  });

  it("reads the community layout (quoted notes with commas), ratio = ratioNew / ratioOld", async () => {
    const { splits, summary } = await parseSplits(readFileSync(fx("splits-community.csv")), {
      resolver: resolverForMic("XNYS"),
    });
    expect(summary.layout).toBe("community");
    expect(splits.map((s) => [s.themeAssetId, s.date, s.ratio])).toEqual([
      ["SMBC:XNYS", "2015-01-30", 2],
      ["HBI:XNYS", "2015-03-03", 4],
      ["NJR:XNYS", "2015-03-03", 2],
      ["V:XNYS", "2015-03-19", 4],
    ]);
    expect(summary.ignoredColumns).toEqual(["name", "isin", "source", "notes"]);
  });

  it("uses the exchange column to choose among listings of one symbol", async () => {
    const listings = [
      minimalSecurity("SMBC:XNAS"),
      minimalSecurity("SMBC:XNYS"),
      minimalSecurity("HBI:XNYS"),
      minimalSecurity("NJR:XNYS"),
      minimalSecurity("V:XNYS"),
    ];
    const resolver = resolverFromListings((s) => listings.filter((l) => l.symbol === s));
    const { splits } = await parseSplits(readFileSync(fx("splits-community.csv")), { resolver });
    expect(splits[0]!.themeAssetId).toBe("SMBC:XNAS"); // exchange NASDAQ
  });

  it("fails on a symbol the store does not know, or skips and reports it when asked", async () => {
    const w = new InMemoryMarketDataWriter();
    w.upsertSecurities([
      minimalSecurity("SMBC:XNAS"),
      minimalSecurity("HBI:XNYS"),
      minimalSecurity("V:XNYS"),
    ]);
    const err = (await importSplits(fx("splits-community.csv"), w).catch(
      (e: unknown) => e,
    )) as UnresolvedSymbolError;
    expect(err).toBeInstanceOf(UnresolvedSymbolError);
    expect(err.message).toMatch(
      /splits-community\.csv, line 4, column "symbol": symbol "NJR" matches no listing/,
    );
    expect(w.tables.splits.size).toBe(0);
    const summary = await importSplits(fx("splits-community.csv"), w, { onUnresolvedSymbol: "skip" });
    expect(summary.flaws.map((f) => [f.kind, f.symbol, f.line])).toEqual([["unresolved_symbol", "NJR", 4]]);
    expect([...w.tables.splits.keys()].sort()).toEqual([
      "HBI:XNYS|2015-03-03",
      "SMBC:XNAS|2015-01-30",
      "V:XNYS|2015-03-19",
    ]);
  });

  it("rejects an unreadable ratio and writes nothing", async () => {
    const w = new InMemoryMarketDataWriter();
    const path = fx("broken/splits-bad-ratio.csv");
    const err = await importSplits(path, w, { defaultMic: "XNAS" }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CsvFormatError);
    expect((err as Error).message).toBe(
      `${path}, line 2, column "ratio": "seven" is not a positive split ratio.`,
    );
    expect(w.size()).toBe(0);
  });
});
