import { describe, expect, it } from "vitest";
import type { Security } from "../data/types.js";
import { characteristicColumns, listedMask } from "./point-in-time.js";

const security = (id: string, listedFrom: string | null, delistedOn: string | null = null): Security => ({
  themeAssetId: id,
  symbol: id.split(":")[0]!,
  mic: "XNYS",
  name: id,
  currency: "USD",
  country: "US",
  assetType: "equity",
  sector: 45,
  industryGroup: null,
  industry: null,
  subIndustry: null,
  sicCode: null,
  sharesOutstanding: null,
  description: null,
  listedFrom,
  delistedOn,
});

const SECURITIES = [
  security("OLD:XNYS", "2010-01-04"),
  security("IPO:XNYS", "2015-07-01"),
  security("GONE:XNYS", "2010-01-04", "2015-03-31"),
  security("UNKNOWN:XNYS", null),
];

describe("listedMask", () => {
  it("admits a security from its listing date to its last date", () => {
    expect([...listedMask(SECURITIES, "2015-06-30")]).toEqual([1, 0, 0, 1]);
    expect([...listedMask(SECURITIES, "2015-07-01")]).toEqual([1, 1, 0, 1]);
    expect([...listedMask(SECURITIES, "2015-03-31")]).toEqual([1, 0, 1, 1]);
  });

  it("ANDs the priced mask, which alone decides for an unknown listing date", () => {
    expect([...listedMask(SECURITIES, "2016-01-04", Uint8Array.of(1, 1, 1, 0))]).toEqual([1, 1, 0, 0]);
    expect(() => listedMask(SECURITIES, "2016-01-04", new Uint8Array(2))).toThrow(
      "listedMask: priced has 2 entries but there are 4 securities",
    );
  });
});

describe("characteristicColumns", () => {
  it("aligns as-of values with the securities, NaN where missing or not finite", () => {
    const cols = characteristicColumns(
      SECURITIES,
      new Map([
        [
          "pe",
          new Map([
            ["IPO:XNYS", 31],
            ["OLD:XNYS", Number.POSITIVE_INFINITY],
            ["X:XNAS", 5],
          ]),
        ],
      ]),
    );
    const pe = cols.get("pe")!;
    expect(Number.isNaN(pe[0]!)).toBe(true);
    expect(pe[1]).toBe(31);
    expect(Number.isNaN(pe[3]!)).toBe(true);
  });
});
