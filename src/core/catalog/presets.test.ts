import { describe, expect, it } from "vitest";
import type { Security } from "../data/types.js";
import {
  compileExpression,
  evaluateFilter,
  fieldCatalog,
  securityTable,
} from "../themes/expression/index.js";
import { findUniversePreset, UNIVERSE_PRESETS, universePresetExpressions } from "./presets.js";
import { SECTOR_CODES } from "./taxonomy.js";

const listing = (
  id: string,
  mic: string,
  currency: "USD" | "CAD",
  sector: number,
  assetType: "equity" | "etf" = "equity",
): Security => ({
  themeAssetId: id,
  symbol: id.split(":")[0]!,
  mic,
  name: id,
  currency,
  country: currency === "USD" ? "US" : "CA",
  assetType,
  sector,
  industryGroup: null,
  industry: null,
  subIndustry: null,
  sicCode: null,
  sharesOutstanding: null,
  description: null,
  listedFrom: null,
  delistedOn: null,
});

// A large US tech name, a mid US bank, a small US utility, a micro cap, a Canadian bank and a US ETF.
const SECURITIES = [
  listing("BIG:XNAS", "XNAS", "USD", 45),
  listing("MID:XNYS", "XNYS", "USD", 40),
  listing("SML:XNYS", "XNYS", "USD", 55),
  listing("TINY:XNAS", "XNAS", "USD", 45),
  listing("RY:XTSE", "XTSE", "CAD", 40),
  listing("SPY:ARCX", "ARCX", "USD", 40, "etf"),
];
const CAPS = Float64Array.of(500e9, 5e9, 1e9, 100e6, 150e9, 400e9);
const table = securityTable(SECURITIES, new Map([["market_cap", CAPS]]));
const fields = fieldCatalog();

function members(id: string): string[] {
  const preset = findUniversePreset(id)!;
  const mask = evaluateFilter(compileExpression(preset.filter_expression, { fields }), table);
  return SECURITIES.filter((_, i) => mask[i] === 1).map((s) => s.symbol);
}

describe("UNIVERSE_PRESETS", () => {
  it("compiles every preset expression against the standard field catalog", () => {
    for (const p of UNIVERSE_PRESETS) {
      expect(() => compileExpression(p.filter_expression, { fields, path: p.id }), p.id).not.toThrow();
    }
  });

  it("has the required presets and one US preset per sector, with unique ids", () => {
    const ids = UNIVERSE_PRESETS.map((p) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ["us_large_cap", "us_all", "canada", "us_canada"]) expect(ids).toContain(id);
    const sectorPresets = UNIVERSE_PRESETS.filter((p) => / and sector = \d+$/.test(p.filter_expression));
    expect(sectorPresets.map((p) => Number(p.filter_expression.split("sector = ")[1]))).toEqual([
      ...SECTOR_CODES,
    ]);
    expect(findUniversePreset("us_information_technology")!.filter_expression).toMatch(/sector = 45$/);
  });

  it("names in each expression exactly the exchanges and currencies the preset allows", () => {
    for (const p of UNIVERSE_PRESETS) {
      const quoted = [...p.filter_expression.matchAll(/'([A-Z]+)'/g)].map((m) => m[1]!);
      const mics = quoted.filter((s) => s.length === 4);
      const currencies = quoted.filter((s) => s.length === 3);
      expect(new Set(mics), p.id).toEqual(new Set(p.allowed_exchanges));
      expect(new Set(currencies), p.id).toEqual(new Set(p.allowed_currencies));
    }
  });

  it("selects the right listings", () => {
    expect(members("us_all")).toEqual(["BIG", "MID", "SML", "TINY"]); // the ETF is not an equity
    expect(members("us_large_cap")).toEqual(["BIG"]);
    expect(members("us_mid_cap")).toEqual(["MID"]);
    expect(members("us_small_cap")).toEqual(["SML"]);
    expect(members("canada")).toEqual(["RY"]);
    expect(members("us_canada")).toEqual(["BIG", "MID", "SML", "TINY", "RY"]);
    expect(members("us_financials")).toEqual(["MID"]);
  });

  it("exposes the expressions as a map for theme compilation", () => {
    const m = universePresetExpressions();
    expect(m.size).toBe(UNIVERSE_PRESETS.length);
    expect(m.get("canada")).toBe("exchange = 'XTSE' and currency = 'CAD' and asset_type = 'equity'");
    expect(findUniversePreset("nope")).toBeUndefined();
  });
});
