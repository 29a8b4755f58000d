import { describe, expect, it } from "vitest";
import {
  findIndustryNode,
  getIndustryNode,
  INDUSTRY_LEVEL_NAMES,
  industryChildren,
  industryCodesOf,
  industryDescendants,
  industryLevelOfCode,
  industryNodesAtLevel,
  industryParentChain,
  industrySiblings,
  SECTOR_CODES,
  sectorCodeForName,
  sectorCodeOf,
} from "./taxonomy.js";
import { INDUSTRY_TAXONOMY } from "./taxonomy-data.js";

const DIGITS = { 1: 2, 2: 4, 3: 6, 4: 8 } as const;

describe("industry taxonomy data", () => {
  it("has unique codes", () => {
    const ids = INDUSTRY_TAXONOMY.map((n) => n.id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("gives each level its digit count and nests every code under its parent's prefix", () => {
    for (const n of INDUSTRY_TAXONOMY) {
      expect(String(n.id).length, `${n.id}`).toBe(DIGITS[n.level]);
      if (n.level === 1) expect(n.parentId).toBeNull();
      else expect(n.parentId, `${n.id}`).toBe(Math.floor(n.id / 100));
    }
  });

  it("has an existing parent one level up for every non-sector node", () => {
    for (const n of INDUSTRY_TAXONOMY.filter((m) => m.level > 1)) {
      const parent = findIndustryNode(n.parentId!);
      expect(parent, `parent of ${n.id}`).toBeDefined();
      expect(parent!.level).toBe(n.level - 1);
    }
  });

  it("has exactly the eleven fixed sectors with their names", () => {
    expect(industryNodesAtLevel(1).map((n) => [n.id, n.name])).toEqual([
      [10, "Energy"],
      [15, "Materials"],
      [20, "Industrials"],
      [25, "Consumer Discretionary"],
      [30, "Consumer Staples"],
      [35, "Health Care"],
      [40, "Financials"],
      [45, "Information Technology"],
      [50, "Communication Services"],
      [55, "Utilities"],
      [60, "Real Estate"],
    ]);
  });

  it("gives every sector groups, every group industries and every industry sub-industries", () => {
    for (const level of [1, 2, 3] as const)
      for (const n of industryNodesAtLevel(level))
        expect(industryChildren(n.id).length, `children of ${n.id}`).toBeGreaterThan(0);
  });

  it("covers the market at the documented size", () => {
    const counts = [1, 2, 3, 4].map((l) => industryNodesAtLevel(l as 1 | 2 | 3 | 4).length);
    expect(counts).toEqual([11, 28, 76, 178]);
  });

  it("has lower-case, trimmed, non-empty, unique keywords and a description on every node", () => {
    for (const n of INDUSTRY_TAXONOMY) {
      expect(n.keywords.length, `${n.id}`).toBeGreaterThan(0);
      expect(new Set(n.keywords).size, `${n.id} duplicate keyword`).toBe(n.keywords.length);
      for (const k of n.keywords) {
        expect(k, `${n.id}`).toBe(k.toLowerCase().trim());
        expect(k.length).toBeGreaterThan(0);
      }
      expect(n.description.length, `${n.id}`).toBeGreaterThan(20);
      expect(n.description.endsWith("."), `${n.id}`).toBe(true);
      expect(n.name.trim()).toBe(n.name);
    }
  });

  it("has unique names among siblings", () => {
    for (const n of INDUSTRY_TAXONOMY) {
      const names = industryChildren(n.id).map((c) => c.name);
      expect(new Set(names).size, `children of ${n.id}`).toBe(names.length);
    }
  });

  it("finds the common search words users type", () => {
    const words = new Set(INDUSTRY_TAXONOMY.flatMap((n) => n.keywords));
    for (const w of [
      "tech",
      "software",
      "saas",
      "chips",
      "semis",
      "banks",
      "pharma",
      "biotech",
      "reit",
      "oil",
      "utilities",
      "telecom",
      "insurance",
      "autos",
      "airlines",
      "defense",
      "retail",
      "restaurants",
      "media",
      "gaming",
    ])
      expect(words.has(w), w).toBe(true);
  });

  it("is frozen", () => {
    expect(Object.isFrozen(INDUSTRY_TAXONOMY)).toBe(true);
    expect(Object.isFrozen(INDUSTRY_TAXONOMY[0]!.keywords)).toBe(true);
  });
});

describe("taxonomy lookups", () => {
  it("finds a node by code and reports unknown codes", () => {
    expect(getIndustryNode(45102010).name).toBe("Application Software");
    expect(findIndustryNode(99)).toBeUndefined();
    expect(() => getIndustryNode(99)).toThrow(/getIndustryNode: 99 is not a code of the industry taxonomy/);
  });

  it("lists children in code order", () => {
    expect(industryChildren(4530).map((n) => n.id)).toEqual([453010, 453020]);
    expect(industryChildren(45301010)).toEqual([]);
    expect(industryChildren(12345)).toEqual([]);
  });

  it("lists all descendants depth-first, which all share the code prefix", () => {
    expect(industryDescendants(4530).map((n) => n.id)).toEqual([
      453010, 45301010, 45301020, 45301030, 45301040, 453020, 45302010,
    ]);
    const underEnergy = industryDescendants(10);
    expect(underEnergy.every((n) => String(n.id).startsWith("10"))).toBe(true);
    expect(underEnergy.length).toBe(
      INDUSTRY_TAXONOMY.filter((n) => n.id !== 10 && sectorCodeOf(n.id) === 10).length,
    );
    expect(industryDescendants(45301010)).toEqual([]);
  });

  it("returns the parent chain nearest first", () => {
    expect(industryParentChain(45102010).map((n) => n.id)).toEqual([451020, 4510, 45]);
    expect(industryParentChain(45)).toEqual([]);
  });

  it("returns siblings without the node itself", () => {
    expect(industrySiblings(45301020).map((n) => n.id)).toEqual([45301010, 45301030, 45301040]);
    expect(industrySiblings(10).map((n) => n.id)).toEqual(SECTOR_CODES.filter((c) => c !== 10));
    expect(industrySiblings(20104010)).toEqual([]); // the only sub-industry of its industry
  });

  it("derives the sector of any level's code", () => {
    expect(sectorCodeOf(45)).toBe(45);
    expect(sectorCodeOf(4510)).toBe(45);
    expect(sectorCodeOf(451020)).toBe(45);
    expect(sectorCodeOf(45102010)).toBe(45);
    expect(sectorCodeOf(60105030)).toBe(60);
    expect(() => sectorCodeOf(451)).toThrow(/not a 2-, 4-, 6- or 8-digit industry code/);
    expect(() => sectorCodeOf(1234)).toThrow(/starts with 12, which is not a sector/);
  });

  it("reads the level from the digit count", () => {
    expect(
      [10, 1010, 101010, 10101010, 5, 101, 10101, 1010101, 101010101, 10.5].map(industryLevelOfCode),
    ).toEqual([1, 2, 3, 4, null, null, null, null, null, null]);
    expect(INDUSTRY_LEVEL_NAMES[4]).toBe("sub_industry");
  });

  it("splits a sub-industry into the four codes of a security", () => {
    expect(industryCodesOf(40101020)).toEqual({
      sector: 40,
      industryGroup: 4010,
      industry: 401010,
      subIndustry: 40101020,
    });
    expect(() => industryCodesOf(401010)).toThrow(/not a sub-industry code/);
  });
});

describe("sectorCodeForName", () => {
  it("maps current, older and vendor sector labels case-insensitively", () => {
    const cases: [string, number][] = [
      ["Energy", 10],
      ["Materials", 15],
      ["Basic Materials", 15],
      ["Industrials", 20],
      ["Consumer Discretionary", 25],
      ["consumer cyclical", 25],
      ["Consumer Staples", 30],
      ["Consumer Defensive", 30],
      ["Health Care", 35],
      ["Healthcare", 35],
      ["HEALTH CARE", 35],
      ["Financials", 40],
      ["Financial Services", 40],
      ["Information Technology", 45],
      ["Technology", 45],
      ["Communication Services", 50],
      ["Telecommunication Services", 50],
      ["Telecommunications Services", 50],
      ["Utilities", 55],
      ["Real Estate", 60],
      ["  real   estate ", 60],
      ["Real-Estate", 60],
      ["45", 45],
    ];
    for (const [label, code] of cases) expect(sectorCodeForName(label), label).toBe(code);
  });

  it("returns null for unknown labels", () => {
    expect(sectorCodeForName("Crypto")).toBeNull();
    expect(sectorCodeForName("")).toBeNull();
    expect(sectorCodeForName("99")).toBeNull();
  });

  it("agrees with the taxonomy's own sector names", () => {
    for (const n of industryNodesAtLevel(1)) expect(sectorCodeForName(n.name)).toBe(n.id);
  });
});
