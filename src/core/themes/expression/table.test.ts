import { describe, expect, it } from "vitest";
import type { Security } from "../../data/types.js";
import { compileExpression } from "./compile.js";
import { evaluateFilter } from "./evaluate.js";
import { fieldCatalog, SECURITY_FIELDS } from "./fields.js";
import { createTable, securityTable } from "./table.js";

const security = (overrides: Partial<Security>): Security => ({
  themeAssetId: "AAPL:XNAS",
  symbol: "AAPL",
  mic: "XNAS",
  name: "Apple Inc.",
  currency: "USD",
  country: "US",
  assetType: "equity",
  sector: 45,
  industryGroup: 4520,
  industry: 452020,
  subIndustry: 45202030,
  sicCode: 3571,
  sharesOutstanding: 15e9,
  description: null,
  listedFrom: null,
  delistedOn: null,
  ...overrides,
});

const securities: Security[] = [
  security({}),
  security({
    themeAssetId: "RY:XTSE",
    symbol: "RY",
    mic: "XTSE",
    currency: "CAD",
    country: "CA",
    sector: 40,
    industryGroup: 4010,
    industry: 401010,
    subIndustry: null,
    sicCode: null,
  }),
  security({
    themeAssetId: "SPY:ARCX",
    symbol: "SPY",
    mic: "ARCX",
    assetType: "etf",
    sector: null,
    industryGroup: null,
    industry: null,
    subIndustry: null,
    sharesOutstanding: null,
  }),
];

describe("securityTable", () => {
  const table = securityTable(securities, new Map([["dividend_yield", Float64Array.of(0.005, 0.04, 0.013)]]));
  const rows = (source: string) => [
    ...evaluateFilter(compileExpression(source, { fields: fieldCatalog() }), table),
  ];

  it("exposes every security field and the characteristics", () => {
    for (const name of SECURITY_FIELDS.keys()) expect(table.column(name), name).toBeDefined();
    expect(table.size).toBe(3);
    expect(table.column("exchange")).toEqual(["XNAS", "XTSE", "ARCX"]);
    expect([...(table.column("sub_industry") as Float64Array)]).toEqual([45202030, Number.NaN, Number.NaN]);
    // Most specific known code: sub-industry, else industry, else nothing.
    expect([...(table.column("industry_code") as Float64Array)]).toEqual([45202030, 401010, Number.NaN]);
    expect([...(table.column("shares_outstanding") as Float64Array)]).toEqual([15e9, 15e9, Number.NaN]);
  });

  it("supports the filters a theme writes", () => {
    expect(rows("exchange in ('XNAS', 'XNYS') or currency = 'CAD'")).toEqual([1, 1, 0]);
    expect(rows("asset_type = 'etf'")).toEqual([0, 0, 1]);
    expect(rows("industry_code = 4010")).toEqual([0, 1, 0]);
    expect(rows("sector is null")).toEqual([0, 0, 1]);
    expect(rows("dividend_yield > 1%")).toEqual([0, 1, 1]);
    expect(rows("theme_asset_id = 'ry:xtse' and sic_code is null")).toEqual([0, 1, 0]);
  });

  it("rejects characteristic columns of the wrong length or clashing names", () => {
    expect(() => securityTable(securities, { pe: Float64Array.of(1) })).toThrow(
      "securityTable: characteristic 'pe' must be a Float64Array of 3 values",
    );
    expect(() => securityTable(securities, { Sector: Float64Array.of(1, 2, 3) })).toThrow(
      "securityTable: characteristic 'Sector' collides with the security field 'sector'",
    );
  });

  it("builds an empty table from no securities", () => {
    expect(securityTable([]).size).toBe(0);
  });
});

describe("createTable", () => {
  it("looks columns up by lower-cased name and nothing else", () => {
    const t = createTable(2, { PE: Float64Array.of(1, 2) });
    expect(t.column("pe")).toEqual(Float64Array.of(1, 2));
    expect(t.column("constructor")).toBeUndefined();
    expect(t.column("__proto__")).toBeUndefined();
  });

  it("rejects inconsistent columns", () => {
    expect(() => createTable(3, { pe: Float64Array.of(1, 2) })).toThrow(
      "createTable: column 'pe' has 2 rows, expected 3",
    );
    expect(() =>
      createTable(
        2,
        new Map([
          ["pe", Float64Array.of(1, 2)],
          ["PE", Float64Array.of(1, 2)],
        ]),
      ),
    ).toThrow("createTable: column 'PE' is given twice (names ignore case)");
    expect(() => createTable(1.5, {})).toThrow("createTable: size must be a non-negative integer, got 1.5");
  });
});

describe("fieldCatalog", () => {
  it("adds the characteristics as numbers to the security fields", () => {
    const catalog = fieldCatalog(["Custom_Factor"]);
    expect(catalog.get("custom_factor")).toBe("number");
    expect(catalog.get("sector")).toBe("code");
    expect(catalog.get("country")).toBe("string");
    expect(catalog.has("market_cap")).toBe(false);
    expect(fieldCatalog().get("market_cap")).toBe("number");
    expect(() => fieldCatalog(["symbol"])).toThrow(
      "fieldCatalog: characteristic 'symbol' collides with the security field 'symbol'",
    );
  });
});
