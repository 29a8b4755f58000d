import { describe, expect, it } from "vitest";
import { InMemoryMarketDataWriter } from "./memory-writer.js";
import { minimalSecurity } from "./minimal-security.js";

const bar = (date: string, close: number) => ({
  themeAssetId: "AAA:XNYS",
  date,
  open: null,
  high: null,
  low: null,
  close,
  adjClose: null,
  volume: null,
});

describe("InMemoryMarketDataWriter", () => {
  it("restores every table when the transaction function throws", () => {
    const w = new InMemoryMarketDataWriter();
    w.transaction(() => w.insertPrices([bar("2020-01-02", 1)]));
    expect(() =>
      w.transaction(() => {
        w.insertPrices([bar("2020-01-03", 2)]);
        w.upsertSecurities([minimalSecurity("AAA:XNYS")]);
        throw new Error("boom");
      }),
    ).toThrowError("boom");
    expect([...w.tables.prices.keys()]).toEqual(["AAA:XNYS|2020-01-02"]);
    expect(w.tables.securities.size).toBe(0);
    expect(w.calls).toBe(1);
    expect(w.commits).toBe(1);
  });

  it("undoes only an inner transaction whose failure the outer one catches", () => {
    const w = new InMemoryMarketDataWriter();
    w.transaction(() => {
      w.insertPrices([bar("2020-01-02", 1)]);
      try {
        w.transaction(() => {
          w.insertPrices([bar("2020-01-03", 2)]);
          throw new Error("inner");
        });
      } catch {
        // expected
      }
    });
    expect([...w.tables.prices.keys()]).toEqual(["AAA:XNYS|2020-01-02"]);
    expect(w.commits).toBe(1);
  });

  it("replaces rows with the same natural key, so a second import is idempotent", () => {
    const w = new InMemoryMarketDataWriter();
    w.insertPrices([bar("2020-01-02", 1)]);
    w.insertPrices([bar("2020-01-02", 1.5)]);
    expect(w.tables.prices.size).toBe(1);
    expect(w.tables.prices.get("AAA:XNYS|2020-01-02")!.close).toBe(1.5);
  });

  it("does not keep references to the caller's records", () => {
    const w = new InMemoryMarketDataWriter();
    const b = bar("2020-01-02", 1);
    w.insertPrices([b]);
    b.close = 99;
    expect(w.tables.prices.get("AAA:XNYS|2020-01-02")!.close).toBe(1);
  });

  it("finds every listing of a symbol, case-insensitively", () => {
    const w = new InMemoryMarketDataWriter();
    w.upsertSecurities([minimalSecurity("RY:XTSE"), minimalSecurity("RY:XNYS"), minimalSecurity("T:XNYS")]);
    expect(
      w
        .findSecuritiesBySymbol("ry")
        .map((s) => s.themeAssetId)
        .sort(),
    ).toEqual(["RY:XNYS", "RY:XTSE"]);
    expect(w.findSecuritiesBySymbol("X")).toEqual([]);
  });
});
