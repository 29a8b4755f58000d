import { describe, expect, it } from "vitest";
import { ValidationError } from "../errors.js";
import { compileExpression, fieldCatalog } from "../themes/expression/index.js";
import { industryMatchOf, MAX_INDUSTRY_QUERY_LENGTH, searchIndustryTaxonomy } from "./search.js";
import { INDUSTRY_TAXONOMY } from "./taxonomy-data.js";
import { stem } from "./text.js";

const top = (query: string, n = 1) =>
  searchIndustryTaxonomy(query)
    .matches.slice(0, n)
    .map((m) => `${m.level} ${m.id} ${m.name}`);

describe("searchIndustryTaxonomy ranking", () => {
  it.each([
    // query, best matches in order
    ["tech", ["L1 45 Information Technology"]],
    ["banks", ["L2 4010 Banks", "L3 401010 Banks"]],
    ["pharma", ["L3 352020 Pharmaceuticals"]],
    ["semiconductors", ["L3 453010 Semiconductors", "L2 4530 Semiconductors & Semiconductor Equipment"]],
    ["oil", ["L1 10 Energy", "L2 1020 Oil, Gas & Fuels"]],
    ["reit", ["L1 60 Real Estate", "L2 6010 Equity REITs"]],
    ["software", ["L3 451020 Software", "L2 4510 Software & Services"]],
    ["S&P 500 Information Technology", ["L1 45 Information Technology"]],
    ["Health Care", ["L1 35 Health Care"]],
    ["biotech", ["L3 352010 Biotechnology"]],
    ["insurers", ["L2 4030 Insurance", "L3 403010 Insurance"]],
    ["regional banks", ["L4 40101020 Regional & Community Banks"]],
    ["4510", ["L2 4510 Software & Services"]],
  ])("ranks '%s' as expected", (query, expected) => {
    expect(top(query, expected.length)).toEqual(expected);
  });

  it("ranks an exact name above keyword matches, and those above stem-only matches", () => {
    const r = searchIndustryTaxonomy("software");
    expect(r.scores[0]).toBe(100); // the industry named Software
    expect(r.scores[1]).toBe(80); // Software & Services has the keyword "software"
    expect(r.scores.every((s, i) => i === 0 || s <= r.scores[i - 1]!)).toBe(true);
  });

  it("prefers the broader level among equal matches", () => {
    const r = searchIndustryTaxonomy("banks");
    expect(r.scores[0]).toBe(r.scores[1]);
    expect(r.matches[0]!.level).toBe("L2");
    expect(r.matches[1]!.level).toBe("L3");
  });

  it("finds near matches for a misspelling and says what was probably meant", () => {
    const r = searchIndustryTaxonomy("semicondutors");
    expect(r.quality).toBe("partial");
    expect(r.matches[0]!.name).toBe("Semiconductors");
    expect(r.hint).toContain("Did you mean 'semiconductors'?");
  });

  it("answers nonsense with no match and a hint naming the sectors", () => {
    const r = searchIndustryTaxonomy("xyzzy quux");
    expect(r.quality).toBe("none");
    expect(r.matches).toEqual([]);
    expect(r.hint).toMatch(/^No industry matches 'xyzzy quux'\. Try a sector name \(Energy, Materials/);
  });

  it("explains how to use the best match", () => {
    expect(searchIndustryTaxonomy("tech").hint).toBe(
      'Best match: Information Technology (L1). Use a match\'s expression as a theme universe, e.g. {"universe": {"expression": "sector = 45"}}, or add it to the theme\'s filters; join several with \'or\'.',
    );
  });

  it("returns at most the limit", () => {
    expect(searchIndustryTaxonomy("tech", { limit: 3 }).matches).toHaveLength(3);
    expect(searchIndustryTaxonomy("tech").matches.length).toBeLessThanOrEqual(20);
  });

  it("searches each distinct word once", () => {
    expect(searchIndustryTaxonomy(Array(40).fill("tech").join(" ")).matches).toEqual(
      searchIndustryTaxonomy("tech").matches,
    );
  });

  it("rejects empty, blank, over-long, wordless and too-many-word queries with invalid_query", () => {
    const thirteen = "pharma banks oil reit chips autos telecom insurer media food hotel airline gold";
    for (const q of ["", "   ", "x".repeat(MAX_INDUSTRY_QUERY_LENGTH + 1), "the & of", "123", thirteen]) {
      let error: unknown;
      try {
        searchIndustryTaxonomy(q);
      } catch (e) {
        error = e;
      }
      expect(error, q).toBeInstanceOf(ValidationError);
      expect((error as ValidationError).code).toBe("invalid_query");
      expect((error as ValidationError).issues[0]!.path).toBe("query");
    }
  });
});

describe("industryMatchOf", () => {
  it("describes a sub-industry with its parents, children and siblings", () => {
    const m = industryMatchOf(45301020);
    expect(m).toMatchObject({
      level: "L4",
      id: 45301020,
      name: "Memory Chips",
      expression: "sub_industry = 45301020",
      parent: "Semiconductors",
      parent_l1: "Information Technology",
      parent_l2: "Semiconductors & Semiconductor Equipment",
      children: [],
    });
    expect(m.siblings).toEqual(["Processors & Logic Chips", "Analog & Mixed-Signal Chips", "Foundries"]);
  });

  it("describes a sector with no parents and the other sectors as siblings", () => {
    const m = industryMatchOf(45);
    expect([m.parent, m.parent_l1, m.parent_l2]).toEqual([null, null, null]);
    expect(m.siblings).toHaveLength(10);
    expect(m.children).toEqual([
      "Software & Services",
      "Technology Hardware & Equipment",
      "Semiconductors & Semiconductor Equipment",
    ]);
  });

  it("gives every node an expression the language accepts", () => {
    const fields = fieldCatalog();
    for (const n of INDUSTRY_TAXONOMY) {
      expect(() => compileExpression(industryMatchOf(n.id).expression, { fields })).not.toThrow();
    }
  });
});

describe("stem", () => {
  it("maps variants of a word to one key", () => {
    expect(["banks", "banking", "bankers", "bank"].map(stem)).toEqual(["bank", "bank", "bank", "bank"]);
    expect(["miners", "mining", "mines"].map(stem)).toEqual(["min", "min", "min"]);
    expect(["utilities", "utility"].map(stem)).toEqual(["utility", "utility"]);
    expect(["shipping", "ships", "drilling", "gases"].map(stem)).toEqual(["ship", "ship", "drill", "gas"]);
    expect(["oil", "gas", "business", "semis"].map(stem)).toEqual(["oil", "gas", "business", "semis"]);
  });
});
