import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { CsvFormatError } from "./errors.js";
import { importIndexLevels, parseIndexLevels } from "./index-levels.js";
import { importIndexWeights, parseIndexWeights } from "./index-weights.js";
import { InMemoryMarketDataWriter } from "./memory-writer.js";
import { minimalSecurity } from "./minimal-security.js";

const FIXTURES = resolve(import.meta.dirname, "../../../fixtures/market");
const fx = (name: string) => resolve(FIXTURES, name);

describe("parseIndexLevels", () => {
  it("reads the OHLC layout with M/D/YYYY dates, the level being Close", async () => {
    const { index, levels, summary } = await parseIndexLevels(readFileSync(fx("index-ohlc.csv")), {
      identifier: "SP500",
      name: "S&P 500",
    });
    expect(summary.layout).toBe("ohlc");
    expect(index).toEqual({ identifier: "SP500", name: "S&P 500", currency: "USD", description: null });
    expect(levels).toEqual([
      { identifier: "SP500", date: "2013-01-02", level: 1462.420044 },
      { identifier: "SP500", date: "2013-01-03", level: 1459.369995 },
      { identifier: "SP500", date: "2013-01-04", level: 1466.469971 },
      { identifier: "SP500", date: "2013-02-08", level: 1517.930054 },
    ]);
    expect(summary.ignoredColumns).toEqual(["Open", "High", "Low", "Adj Close", "Volume"]);
  });

  it("takes the identifier from a two-column header and reports FRED's empty holidays", async () => {
    const { index, levels, summary } = await parseIndexLevels(readFileSync(fx("index-fred.csv")), {
      file: "f.csv",
    });
    expect(summary.layout).toBe("two_column");
    expect(index.identifier).toBe("SP500");
    expect(levels.map((l) => [l.date, l.level])).toEqual([
      ["2016-02-12", 1864.78],
      ["2016-02-16", 1895.58],
    ]);
    expect(summary.flaws.map((f) => [f.kind, f.action, f.date, f.line])).toEqual([
      ["no_close", "skipped", "2016-02-15", 3],
    ]);
  });

  it("needs the identifier option for the OHLC layout", async () => {
    await expect(
      parseIndexLevels(readFileSync(fx("index-ohlc.csv")), { file: "o.csv" }),
    ).rejects.toThrowError(/o\.csv, line 1, column "Close": the ohlc layout does not name the index/);
  });
});

describe("importIndexLevels", () => {
  it("upserts the index and its levels in one transaction", async () => {
    const w = new InMemoryMarketDataWriter();
    await importIndexLevels(fx("index-ohlc.csv"), w, { identifier: "SP500", name: "S&P 500" });
    expect(w.tables.indexes.get("SP500")!.name).toBe("S&P 500");
    expect(w.tables.indexLevels.get("SP500|2013-02-08")!.level).toBe(1517.930054);
    expect(w.commits).toBe(1);
  });
});

describe("parseIndexWeights", () => {
  it("reads weights and reports a date whose weights do not sum to 1", async () => {
    const { weights, summary } = await parseIndexWeights(readFileSync(fx("index-weights.csv")), {
      file: "w.csv",
      resolver: (t) => ({ ok: true, themeAssetId: t.includes(":") ? t : `${t}:XTSE` }),
    });
    expect(weights).toEqual([
      { identifier: "SP500", date: "2018-01-31", themeAssetId: "AAPL:XNAS", weight: 0.6 },
      { identifier: "SP500", date: "2018-01-31", themeAssetId: "RY:XTSE", weight: 0.4 },
      { identifier: "SP500", date: "2018-02-28", themeAssetId: "AAPL:XNAS", weight: 0.7 },
      { identifier: "SP500", date: "2018-02-28", themeAssetId: "RY:XTSE", weight: 0.2 },
    ]);
    // 2018-01-31: 0.6 + 0.4 = 1 (no flaw); 2018-02-28: 0.7 + 0.2 = 0.9.
    expect(summary.flaws.map((f) => [f.kind, f.action, f.symbol, f.date, f.line])).toEqual([
      ["weight_sum", "kept", "SP500", "2018-02-28", 4],
    ]);
    expect(summary.flaws[0]!.message).toContain("sum to 0.90000000");
  });

  it("rejects a weight written in percent and writes nothing", async () => {
    const w = new InMemoryMarketDataWriter();
    w.upsertSecurities([minimalSecurity("AAPL:XNAS")]);
    const before = w.size();
    const path = fx("broken/index-weights-percent.csv");
    await expect(importIndexWeights(path, w)).rejects.toThrowError(
      new CsvFormatError(
        { file: path, line: 2, column: "weight" },
        "weight 60 is outside [0, 1] (weights are fractions, not percents).",
      ),
    );
    expect(w.size()).toBe(before);
  });
});
