import { describe, expect, it } from "vitest";
import { sectorCodeForName } from "../../core/catalog/taxonomy.js";
import { DateCache, headerKey, isMissing, parseDate, parseNumber } from "./fields.js";
import { minimalSecurity } from "./minimal-security.js";
import {
  micOfExchangeName,
  parseThemeAssetId,
  resolverForMic,
  resolverFromListings,
  themeAssetIdsOnly,
} from "./symbol-resolver.js";

describe("parseDate", () => {
  it("reads ISO dates, ISO timestamps and US M/D/YYYY dates", () => {
    expect(parseDate("2013-02-08")).toBe("2013-02-08");
    expect(parseDate("2013-02-08 00:00:00")).toBe("2013-02-08");
    expect(parseDate("2013-02-08T16:00:00Z")).toBe("2013-02-08");
    expect(parseDate("1/4/1999")).toBe("1999-01-04");
    expect(parseDate("12/31/2018")).toBe("2018-12-31");
    expect(parseDate(" 2/29/2016 ")).toBe("2016-02-29");
  });

  it("rejects impossible and day-first dates", () => {
    expect(parseDate("2013-02-29")).toBeNull();
    expect(parseDate("13/1/2020")).toBeNull();
    expect(parseDate("2/29/2015")).toBeNull();
    expect(parseDate("20130208")).toBeNull();
    expect(parseDate("")).toBeNull();
  });

  it("memoizes without changing answers", () => {
    const c = new DateCache();
    expect(c.parse("1/4/1999")).toBe("1999-01-04");
    expect(c.parse("1/4/1999")).toBe("1999-01-04");
    expect(c.parse("bad")).toBeNull();
    expect(c.parse("bad")).toBeNull();
  });
});

describe("parseNumber", () => {
  it("reads plain decimals and exponents", () => {
    expect(parseNumber("12")).toBe(12);
    expect(parseNumber("-0.5")).toBe(-0.5);
    expect(parseNumber(".25")).toBe(0.25);
    expect(parseNumber("1.5e-3")).toBe(0.0015);
    expect(parseNumber(" 7 ")).toBe(7);
  });

  it("rejects what Number() would wrongly accept", () => {
    for (const s of ["", "0x10", "Infinity", "1,200", "1_000", "12abc", "-", "e", "0b1"])
      expect(parseNumber(s)).toBeNaN();
  });
});

describe("isMissing and headerKey", () => {
  it("recognizes vendor no-value tokens only", () => {
    for (const s of ["", ".", "null", "NULL", "N/A", "#N/A", "NaN", "na", " none "])
      expect(isMissing(s)).toBe(true);
    for (const s of ["0", "1.5", "-2", "abc"]) expect(isMissing(s)).toBe(false);
  });

  it("normalizes header names", () => {
    expect(headerKey(" Adj Close ")).toBe("adj_close");
    expect(headerKey("Price/Earnings")).toBe("price_earnings");
    expect(headerKey("ratioNew")).toBe("rationew");
  });
});

describe("symbol resolution", () => {
  it("parses theme_asset_ids with dotted symbols", () => {
    expect(parseThemeAssetId("brk.b:xnys")).toEqual({
      symbol: "BRK.B",
      mic: "XNYS",
      themeAssetId: "BRK.B:XNYS",
    });
    expect(parseThemeAssetId("AAPL")).toBeNull();
    expect(parseThemeAssetId("AAPL:NASDAQ")).toBeNull();
  });

  it("gives plain symbols the default MIC and passes theme_asset_ids through", () => {
    const r = resolverForMic("xnas");
    expect(r("aapl")).toEqual({ ok: true, themeAssetId: "AAPL:XNAS" });
    expect(r("RY:XTSE")).toEqual({ ok: true, themeAssetId: "RY:XTSE" });
    expect(r("bad symbol").ok).toBe(false);
    expect(() => resolverForMic("NASDAQ")).toThrowError(RangeError);
  });

  it("resolves through listings: one match, none, several, or a hinted exchange", () => {
    const listings = [minimalSecurity("RY:XTSE"), minimalSecurity("RY:XNYS"), minimalSecurity("T:XNYS")];
    const r = resolverFromListings((s) => listings.filter((l) => l.symbol === s));
    expect(r("t")).toEqual({ ok: true, themeAssetId: "T:XNYS" });
    expect(r("ZZ")).toMatchObject({ ok: false, reason: "unknown" });
    expect(r("RY")).toMatchObject({ ok: false, reason: "ambiguous", candidates: ["RY:XNYS", "RY:XTSE"] });
    expect(r("RY", "XTSE")).toEqual({ ok: true, themeAssetId: "RY:XTSE" });
    expect(r("RY:XTSE")).toEqual({ ok: true, themeAssetId: "RY:XTSE" });
    expect(r("RY:XNAS")).toMatchObject({ ok: false, reason: "unknown" });
  });

  it("accepts only theme_asset_ids by default", () => {
    expect(themeAssetIdsOnly("AAPL:XNAS")).toEqual({ ok: true, themeAssetId: "AAPL:XNAS" });
    expect(themeAssetIdsOnly("AAPL").ok).toBe(false);
  });

  it("maps exchange names and sector names", () => {
    expect(micOfExchangeName("Nasdaq")).toBe("XNAS");
    expect(micOfExchangeName("NYSE")).toBe("XNYS");
    expect(micOfExchangeName("XTSE")).toBe("XTSE");
    expect(micOfExchangeName("Moon")).toBeUndefined();
    expect(sectorCodeForName("Information Technology")).toBe(45);
    expect(sectorCodeForName("telecommunications  services")).toBe(50);
    expect(sectorCodeForName("Real Estate")).toBe(60);
    expect(sectorCodeForName("Widgets")).toBeNull();
  });
});
