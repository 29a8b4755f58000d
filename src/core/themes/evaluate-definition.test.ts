import { describe, expect, it } from "vitest";
import type { Security } from "../data/types.js";
import { compileThemeDefinition } from "./compile-definition.js";
import type { ThemeDefinition } from "./definition.js";
import { evaluateThemeDefinition, selectionCount } from "./evaluate-definition.js";
import { fieldCatalog, securityTable } from "./expression/index.js";

function security(symbol: string, sector: number, country = "US"): Security {
  const mic = country === "US" ? "XNYS" : "XTSE";
  return {
    themeAssetId: `${symbol}:${mic}`,
    symbol,
    mic,
    name: `${symbol} Inc.`,
    currency: country === "US" ? "USD" : "CAD",
    country,
    assetType: "equity",
    sector,
    industryGroup: sector * 100 + 10,
    industry: sector * 10_000 + 1010,
    subIndustry: sector * 1_000_000 + 101010,
    sicCode: null,
    sharesOutstanding: null,
    description: null,
    listedFrom: "2000-01-03",
    delistedOn: null,
  };
}

interface Row {
  symbol: string;
  sector: number;
  country?: string;
  market_cap?: number;
  dividend_yield?: number;
}

function table(rows: readonly Row[]) {
  const securities = rows.map((r) => security(r.symbol, r.sector, r.country));
  const col = (f: (r: Row) => number | undefined) => Float64Array.from(rows, (r) => f(r) ?? Number.NaN);
  return {
    securities,
    table: securityTable(
      securities,
      new Map([
        ["market_cap", col((r) => r.market_cap)],
        ["dividend_yield", col((r) => r.dividend_yield)],
      ]),
    ),
  };
}

const fields = fieldCatalog(["market_cap", "dividend_yield"]);
const presets = new Map([["us_all", "country = 'US'"]]);
const compile = (d: ThemeDefinition) => compileThemeDefinition(d, { fields, presets });
const ids = (securities: Security[], rows: Int32Array) => [...rows].map((i) => securities[i]!.symbol);

// Ten US tech names with caps 10..100 (x 1e9) and yields, two Canadian tech names, two US energy names.
const ROWS: Row[] = [
  { symbol: "A", sector: 45, market_cap: 100e9, dividend_yield: 0.005 },
  { symbol: "B", sector: 45, market_cap: 90e9, dividend_yield: 0.012 },
  { symbol: "C", sector: 45, market_cap: 80e9, dividend_yield: 0.02 },
  { symbol: "D", sector: 45, market_cap: 70e9, dividend_yield: 0.03 },
  { symbol: "E", sector: 45, market_cap: 60e9 },
  { symbol: "F", sector: 45, market_cap: 50e9, dividend_yield: 0.011 },
  { symbol: "G", sector: 45, market_cap: 40e9, dividend_yield: 0 },
  { symbol: "H", sector: 45, market_cap: 30e9, dividend_yield: 0.015 },
  { symbol: "I", sector: 45, dividend_yield: 0.04 },
  { symbol: "J", sector: 45, market_cap: 10e9, dividend_yield: 0.025 },
  { symbol: "K", sector: 45, country: "CA", market_cap: 500e9, dividend_yield: 0.05 },
  { symbol: "L", sector: 45, country: "CA", market_cap: 5e9, dividend_yield: 0.05 },
  { symbol: "X", sector: 10, market_cap: 300e9, dividend_yield: 0.04 },
  { symbol: "Y", sector: 10, market_cap: 20e9, dividend_yield: 0.06 },
];

describe("evaluateThemeDefinition", () => {
  it("runs universe, filters, score, selection and weighting in order", () => {
    const { securities, table: t } = table(ROWS);
    const r = evaluateThemeDefinition(
      compile({
        universe: { preset: "us_all" },
        filters: ["sector = 45", "dividend_yield > 1%"],
        score: "dividend_yield",
        selection: { mode: "top_n", value: 3 },
        weighting: { scheme: "score" },
      }),
      t,
    );
    // US tech with yield > 1%: B 1.2%, C 2%, D 3%, F 1.1%, H 1.5%, I 4%, J 2.5%; top 3 by yield: I, D, J.
    expect(r.counts).toEqual({ eligible: 14, universe: 12, filtered: 7, candidates: 7, selected: 3 });
    expect(ids(securities, r.rows)).toEqual(["I", "D", "J"]);
    // Score weights 0.04 : 0.03 : 0.025 over 0.095.
    expect(r.weights[0]).toBeCloseTo(0.04 / 0.095, 14);
    expect(r.weights[1]).toBeCloseTo(0.03 / 0.095, 14);
    expect(r.weights[2]).toBeCloseTo(0.025 / 0.095, 14);
    expect([...r.scores]).toEqual([0.04, 0.03, 0.025]);
  });

  it("keeps every candidate when fewer exist than top_n asks for", () => {
    const { securities, table: t } = table(ROWS);
    const r = evaluateThemeDefinition(
      compile({
        universe: { expression: "sector = 10" },
        selection: { mode: "top_n", value: 25 },
        weighting: { scheme: "equal" },
      }),
      t,
    );
    expect(ids(securities, r.rows).sort()).toEqual(["X", "Y"]);
    expect([...r.weights]).toEqual([0.5, 0.5]);
  });

  it("breaks score ties by theme_asset_id whatever the row order, also at the selection cut", () => {
    const tied: Row[] = ["Q", "M", "P", "N", "O"].map((symbol) => ({ symbol, sector: 45, market_cap: 1e9 }));
    for (const rows of [tied, [...tied].reverse()]) {
      const { securities, table: t } = table(rows);
      const r = evaluateThemeDefinition(
        compile({
          universe: { expression: "sector = 45" },
          selection: { mode: "top_n", value: 3 },
          weighting: { scheme: "equal" },
        }),
        t,
      );
      expect(ids(securities, r.rows)).toEqual(["M", "N", "O"]);
    }
  });

  it("rounds top_percent up to whole names and honors min_count", () => {
    const s = (value: number, minCount = 0) => ({ mode: "top_percent" as const, value, minCount });
    expect(selectionCount(s(10), 50)).toBe(5); // 10% of 50 is exactly 5, not 6
    expect(selectionCount(s(25), 10)).toBe(3); // 2.5 rounds up
    expect(selectionCount(s(1), 10)).toBe(1); // 0.1 rounds up to one name
    expect(selectionCount(s(10, 4), 10)).toBe(4); // min_count raises 1 to 4
    expect(selectionCount(s(10, 40), 10)).toBe(10); // but never above the candidates
    expect(selectionCount({ mode: "top_n", value: 3, minCount: 5 }, 4)).toBe(4);
    expect(selectionCount({ mode: "all", value: undefined, minCount: 2 }, 0)).toBe(0);
  });

  it("leaves out names without a score or without a positive weighting basis", () => {
    const { securities, table: t } = table(ROWS);
    const capWeighted = evaluateThemeDefinition(
      compile({
        universe: { expression: "country = 'US' and sector = 45" },
        score: "dividend_yield",
        selection: { mode: "all" },
        weighting: { scheme: "market_cap" },
      }),
      t,
    );
    // E has no yield (no score), I has no market cap: both out; G (yield 0) has a score and a cap: in.
    expect(ids(securities, capWeighted.rows).sort()).toEqual(["A", "B", "C", "D", "F", "G", "H", "J"]);
    const scoreWeighted = evaluateThemeDefinition(
      compile({
        universe: { expression: "country = 'US' and sector = 45" },
        score: "dividend_yield",
        selection: { mode: "all" },
        weighting: { scheme: "score" },
      }),
      t,
    );
    // Score weighting needs a positive score: G (0) and E (missing) are out, I (no cap) is in.
    expect(ids(securities, scoreWeighted.rows).sort()).toEqual(["A", "B", "C", "D", "F", "H", "I", "J"]);
    expect(scoreWeighted.counts.filtered).toBe(10);
    expect(scoreWeighted.counts.candidates).toBe(8);
  });

  it("caps market-cap weights and orders constituents by weight descending", () => {
    const { securities, table: t } = table(ROWS);
    const r = evaluateThemeDefinition(
      compile({
        universe: { expression: "sector = 45 and country = 'US'" },
        filters: ["market_cap >= 70e9"],
        selection: { mode: "all" },
        weighting: { scheme: "market_cap", max_weight: 0.3 },
      }),
      t,
    );
    // Caps 100, 90, 80, 70 (sum 340): 100/340 = 0.294 <= 0.3, so the cap does not bind here.
    expect(ids(securities, r.rows)).toEqual(["A", "B", "C", "D"]);
    expect(r.weights[0]).toBeCloseTo(100 / 340, 14);
    const capped = evaluateThemeDefinition(
      compile({
        universe: { expression: "sector = 45 and country = 'US'" },
        filters: ["market_cap >= 70e9"],
        selection: { mode: "all" },
        weighting: { scheme: "market_cap", max_weight: 0.26 },
      }),
      t,
    );
    // 100/340 and 90/340 (0.265) exceed 0.26 -> capped; 0.48 left for 80:70 -> 0.256, 0.224.
    expect([...capped.weights].map((w) => Number(w.toFixed(12)))).toEqual([0.26, 0.26, 0.256, 0.224]);
    expect(capped.cappedCount).toBe(2);
    for (let k = 1; k < capped.weights.length; k++)
      expect(capped.weights[k]).toBeLessThanOrEqual(capped.weights[k - 1]!);
  });

  it("evaluates filters independently (ANDed), so their order does not change cross-sectional results", () => {
    const { table: t } = table(ROWS);
    const run = (filters: string[]) =>
      evaluateThemeDefinition(
        compile({
          universe: { preset: "us_all" },
          filters,
          selection: { mode: "all" },
          weighting: { scheme: "equal" },
        }),
        t,
      );
    const a = run(["percentile(market_cap) >= 0.5", "sector = 45"]);
    const b = run(["sector = 45", "percentile(market_cap) >= 0.5"]);
    expect([...a.rows]).toEqual([...b.rows]);
    // Percentile over the 11 US names with a cap (I has none): the top half by cap, then tech only.
    expect(a.counts.filtered).toBe(5);
  });

  it("only considers eligible rows, and cross-sectional universes compute over them", () => {
    const { securities, table: t } = table(ROWS);
    const eligible = Uint8Array.from(ROWS, (r) => (r.symbol === "X" ? 0 : 1));
    const r = evaluateThemeDefinition(
      compile({
        universe: { expression: "rank(market_cap) >= 12" },
        selection: { mode: "all" },
        weighting: { scheme: "equal" },
      }),
      t,
      { eligible },
    );
    // Without X the largest caps are K (500e9) and A (100e9): ranks 12 and 11 of 12 priced caps.
    expect(ids(securities, r.rows)).toEqual(["K"]);
    expect(r.counts.eligible).toBe(13);
  });

  it("returns an empty result when nothing qualifies", () => {
    const { table: t } = table(ROWS);
    const r = evaluateThemeDefinition(
      compile({
        universe: { expression: "sector = 55" },
        selection: { mode: "all" },
        weighting: { scheme: "equal" },
      }),
      t,
    );
    expect(r.rows.length).toBe(0);
    expect(r.weights.length).toBe(0);
    expect(r.counts.selected).toBe(0);
  });

  it("rejects an eligible mask of the wrong length", () => {
    const { table: t } = table(ROWS);
    const c = compile({
      universe: { preset: "us_all" },
      selection: { mode: "all" },
      weighting: { scheme: "equal" },
    });
    expect(() => evaluateThemeDefinition(c, t, { eligible: new Uint8Array(3) })).toThrow(
      "evaluateThemeDefinition: eligible must be a Uint8Array of 14 entries",
    );
  });
});
