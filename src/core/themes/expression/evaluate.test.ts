import { describe, expect, it } from "vitest";
import { type CompiledExpression, compileExpression } from "./compile.js";
import { type Column, type ExpressionTable, evaluateFilter, evaluateScore } from "./evaluate.js";
import { type FieldType, fieldCatalog } from "./fields.js";
import { createTable } from "./table.js";

const NaN_ = Number.NaN;
const fields = fieldCatalog();

// Five securities; NaN / null mark missing values.
const columns = {
  symbol: ["AAPL", "shop", null, "XOM", "RY"],
  country: ["US", "ca", null, "US", "CA"],
  exchange: ["XNAS", "XTSE", "XNYS", "XNYS", "XTSE"],
  currency: ["USD", "CAD", "USD", "USD", "CAD"],
  pe: Float64Array.of(10, 30, NaN_, 20, 5),
  pb: Float64Array.of(1, 2, 3, NaN_, 0.5),
  dividend_yield: Float64Array.of(0.02, 0.005, NaN_, 0.01, 0.03),
  market_cap: Float64Array.of(3e12, 1e11, 5e9, 4e11, 1.5e11),
  momentum: Float64Array.of(0.1, -0.2, 0.3, NaN_, 0),
  sector: Float64Array.of(45, 45, 10, NaN_, 40),
  industry_group: Float64Array.of(4520, 4510, 1010, NaN_, 4010),
  sub_industry: Float64Array.of(45202030, 45103010, 10102020, NaN_, 40101010),
  // Row 1 only knows its industry, row 2 only its sector: industry_code is the most specific known code.
  industry_code: Float64Array.of(45202030, 451030, 10, NaN_, 40101010),
} satisfies Record<string, Column>;
const table = createTable(5, columns);

const filter = (source: string, mask?: Uint8Array): number[] => {
  const compiled = compileExpression(source, { fields });
  return [...(mask === undefined ? evaluateFilter(compiled, table) : evaluateFilter(compiled, table, mask))];
};
const score = (source: string, mask?: Uint8Array): number[] => {
  const compiled = compileExpression(source, { fields, kind: "score" });
  return [...(mask === undefined ? evaluateScore(compiled, table) : evaluateScore(compiled, table, mask))];
};

describe("evaluateFilter comparisons", () => {
  it("evaluates every comparison operator, false on missing values", () => {
    // pe = [10, 30, NaN, 20, 5]
    expect(filter("pe = 20")).toEqual([0, 0, 0, 1, 0]);
    expect(filter("pe != 20")).toEqual([1, 1, 0, 0, 1]);
    expect(filter("pe < 20")).toEqual([1, 0, 0, 0, 1]);
    expect(filter("pe <= 20")).toEqual([1, 0, 0, 1, 1]);
    expect(filter("pe > 20")).toEqual([0, 1, 0, 0, 0]);
    expect(filter("pe >= 20")).toEqual([0, 1, 0, 1, 0]);
  });

  it("compares a constant on the left as on the right", () => {
    expect(filter("20 > pe")).toEqual(filter("pe < 20"));
    expect(filter("20 <= pe")).toEqual(filter("pe >= 20"));
    expect(filter("20 != pe")).toEqual(filter("pe != 20"));
  });

  it("compares two columns row by row", () => {
    // pe vs pb*10 = [10, 20, 30, NaN, 5]
    expect(filter("pe = pb * 10")).toEqual([1, 0, 0, 0, 1]);
    expect(filter("pe > pb * 10")).toEqual([0, 1, 0, 0, 0]);
    expect(filter("pe != pb * 10")).toEqual([0, 1, 0, 0, 0]);
  });

  it("reads % literals as fractions: dividend_yield > 1% keeps yields above 0.01", () => {
    // dividend_yield = [0.02, 0.005, NaN, 0.01, 0.03]
    expect(filter("dividend_yield > 1%")).toEqual([1, 0, 0, 0, 1]);
    expect(filter("dividend_yield >= 1%")).toEqual([1, 0, 0, 1, 1]);
  });

  it("tests in and not in, false on missing values for both", () => {
    expect(filter("pe in (5, 20, 99)")).toEqual([0, 0, 0, 1, 1]);
    expect(filter("pe not in (5, 20, 99)")).toEqual([1, 1, 0, 0, 0]);
    expect(filter("momentum in (-0.2, 0)")).toEqual([0, 1, 0, 0, 1]);
  });

  it("tests between inclusively, false on missing values for both forms", () => {
    expect(filter("pe between 10 and 20")).toEqual([1, 0, 0, 1, 0]);
    expect(filter("pe not between 10 and 20")).toEqual([0, 1, 0, 0, 1]);
    // Bounds may be columns; a missing bound makes the test false (pb is missing on row 3).
    expect(filter("pe between pb * 10 and 30")).toEqual([1, 1, 0, 0, 1]);
  });

  it("tests missing values with is null / is not null for every field type", () => {
    expect(filter("pe is null")).toEqual([0, 0, 1, 0, 0]);
    expect(filter("pe is not null")).toEqual([1, 1, 0, 1, 1]);
    expect(filter("country is null")).toEqual([0, 0, 1, 0, 0]);
    expect(filter("sector is null")).toEqual([0, 0, 0, 1, 0]);
    expect(filter("pb / (pe - 10) is null")).toEqual([1, 0, 1, 1, 0]);
  });
});

describe("evaluateFilter missing-value logic", () => {
  it("is two-valued: a comparison with a missing value is false and not negates it", () => {
    expect(filter("pe > 15")).toEqual([0, 1, 0, 1, 0]);
    expect(filter("not (pe > 15)")).toEqual([1, 0, 1, 0, 1]);
    expect(filter("not (pe = 20)")).toEqual([1, 1, 1, 0, 1]);
  });

  it("treats ±Infinity in a column as missing", () => {
    const t = createTable(3, { pe: Float64Array.of(Number.POSITIVE_INFINITY, 5, Number.NEGATIVE_INFINITY) });
    const c = compileExpression("pe > 1 or pe < 1 or pe is null", { fields });
    expect([...evaluateFilter(c, t)]).toEqual([1, 1, 1]);
    expect([...evaluateFilter(compileExpression("pe is null", { fields }), t)]).toEqual([1, 0, 1]);
  });
});

describe("evaluateFilter boolean operators", () => {
  it("combines with and, or, not and constants", () => {
    // pe < 25: [1,0,0,1,1]; pb < 2: [1,0,0,0,1]
    expect(filter("pe < 25 and pb < 2")).toEqual([1, 0, 0, 0, 1]);
    expect(filter("pe < 25 or pb < 2")).toEqual([1, 0, 0, 1, 1]);
    expect(filter("pe > 25 or pb > 2 or pe = 20")).toEqual([0, 1, 1, 1, 0]);
    expect(filter("not pe < 25 and not pb < 2")).toEqual([0, 1, 1, 0, 0]);
    expect(filter("true")).toEqual([1, 1, 1, 1, 1]);
    expect(filter("false or pe = 5")).toEqual([0, 0, 0, 0, 1]);
    expect(filter("true and pe = 5")).toEqual([0, 0, 0, 0, 1]);
    expect(filter("false and pe = 5")).toEqual([0, 0, 0, 0, 0]);
    expect(filter("true or pe = 5")).toEqual([1, 1, 1, 1, 1]);
    expect(filter("not true")).toEqual([0, 0, 0, 0, 0]);
    expect(filter("1 < 2")).toEqual([1, 1, 1, 1, 1]);
  });

  it("honours precedence: a or b and c is a or (b and c)", () => {
    // a = pe = 30: [0,1,0,0,0]; b = pb < 2: [1,0,0,0,1]; c = country = 'US': [1,0,0,1,0]
    expect(filter("pe = 30 or pb < 2 and country = 'US'")).toEqual([1, 1, 0, 0, 0]);
    expect(filter("(pe = 30 or pb < 2) and country = 'US'")).toEqual([1, 0, 0, 0, 0]);
  });
});

describe("evaluateFilter strings", () => {
  it("compares text case-insensitively, false on missing values", () => {
    // country = ["US", "ca", null, "US", "CA"]
    expect(filter("country = 'CA'")).toEqual([0, 1, 0, 0, 1]);
    expect(filter("country = 'ca'")).toEqual([0, 1, 0, 0, 1]);
    expect(filter("'Ca' = country")).toEqual([0, 1, 0, 0, 1]);
    expect(filter("country != 'us'")).toEqual([0, 1, 0, 0, 1]);
    expect(filter("country in ('us', 'Ca')")).toEqual([1, 1, 0, 1, 1]);
    expect(filter("country not in ('US')")).toEqual([0, 1, 0, 0, 1]);
    expect(filter("symbol = 'SHOP'")).toEqual([0, 1, 0, 0, 0]);
  });

  it("compares two text columns", () => {
    // exchange XTSE with currency CAD; compare country to itself and to currency.
    expect(filter("country = country")).toEqual([1, 1, 0, 1, 1]);
    expect(filter("symbol != country")).toEqual([1, 1, 0, 1, 1]);
  });

  it("folds case beyond ASCII", () => {
    const t = createTable(3, { symbol: ["été", "ÉTÉ", "ete"] });
    expect([...evaluateFilter(compileExpression("symbol = 'Été'", { fields }), t)]).toEqual([1, 1, 0]);
    expect([...evaluateFilter(compileExpression("symbol in ('éTé')", { fields }), t)]).toEqual([1, 1, 0]);
    // Case mappings that change length or land in ASCII: ß -> SS, dotless ı -> I.
    const u = createTable(4, { symbol: ["straße", "STRASSE", "ıd", "id"] });
    expect([...evaluateFilter(compileExpression("symbol = 'strasse'", { fields }), u)]).toEqual([1, 1, 0, 0]);
    expect([...evaluateFilter(compileExpression("symbol = 'ID'", { fields }), u)]).toEqual([0, 0, 1, 1]);
    expect([...evaluateFilter(compileExpression("symbol != 'Straße'", { fields }), u)]).toEqual([0, 0, 1, 1]);
  });

  it("compares string literals with each other", () => {
    expect(filter("'a' = 'a'")).toEqual([1, 1, 1, 1, 1]);
    expect(filter("'a' != 'A'")).toEqual([0, 0, 0, 0, 0]);
  });
});

describe("evaluateFilter industry codes", () => {
  it("matches a code at its own level", () => {
    // sector = [45, 45, 10, NaN, 40]
    expect(filter("sector = 45")).toEqual([1, 1, 0, 0, 0]);
    expect(filter("sector != 45")).toEqual([0, 0, 1, 0, 1]);
    expect(filter("industry_group = 4510")).toEqual([0, 1, 0, 0, 0]);
  });

  it("matches shorter codes by prefix: a sector matches every sub-industry in it", () => {
    // sub_industry = [45202030, 45103010, 10102020, NaN, 40101010]
    expect(filter("sub_industry = 45")).toEqual([1, 1, 0, 0, 0]);
    expect(filter("sub_industry = 4510")).toEqual([0, 1, 0, 0, 0]);
    expect(filter("sub_industry = 451030")).toEqual([0, 1, 0, 0, 0]);
    expect(filter("sub_industry = 45103010")).toEqual([0, 1, 0, 0, 0]);
    expect(filter("sub_industry = 45103020")).toEqual([0, 0, 0, 0, 0]);
    expect(filter("sub_industry in (4520, 40)")).toEqual([1, 0, 0, 0, 1]);
    expect(filter("sub_industry not in (4520, 40)")).toEqual([0, 1, 1, 0, 0]);
  });

  it("matches industry_code at any level but never below the most specific known code", () => {
    // industry_code = [45202030, 451030, 10, NaN, 40101010]
    expect(filter("industry_code = 45")).toEqual([1, 1, 0, 0, 0]);
    expect(filter("industry_code = 451030")).toEqual([0, 1, 0, 0, 0]);
    // Row 1 knows only its industry, so a sub-industry code cannot be confirmed there.
    expect(filter("industry_code = 45103010")).toEqual([0, 0, 0, 0, 0]);
    expect(filter("industry_code in (10, 4520, 40101010)")).toEqual([1, 0, 1, 0, 1]);
    expect(filter("industry_code in (4510, 4520)")).toEqual([1, 1, 0, 0, 0]);
  });

  it("never matches malformed stored codes", () => {
    const t = createTable(4, { sector: Float64Array.of(451, 45.5, -45, 0) });
    expect([...evaluateFilter(compileExpression("sector = 45 or sector != 45", { fields }), t)]).toEqual([
      0, 0, 0, 0,
    ]);
  });
});

describe("evaluateFilter issue example", () => {
  it("selects US technology companies paying more than 1% dividends", () => {
    const e = compileExpression("country = 'US' and sector = 45 and dividend_yield > 1%", { fields });
    // Row 0: US, 45, 2% -> in. Row 1: CA. Row 3: sector missing. Row 4: CA, 40.
    expect([...evaluateFilter(e, table)]).toEqual([1, 0, 0, 0, 0]);
  });
});

describe("evaluateScore arithmetic and functions", () => {
  it("evaluates every arithmetic operator and propagates missing values", () => {
    // pe = [10, 30, NaN, 20, 5]; pb = [1, 2, 3, NaN, 0.5]
    expect(score("pe + pb")).toEqual([11, 32, NaN_, NaN_, 5.5]);
    expect(score("pe - pb")).toEqual([9, 28, NaN_, NaN_, 4.5]);
    expect(score("pe * pb")).toEqual([10, 60, NaN_, NaN_, 2.5]);
    expect(score("pe / pb")).toEqual([10, 15, NaN_, NaN_, 10]);
    expect(score("-pe")).toEqual([-10, -30, NaN_, -20, -5]);
    expect(score("2 * pe + 1")).toEqual([21, 61, NaN_, 41, 11]);
    expect(score("10 - pe - 1")).toEqual([-1, -21, NaN_, -11, 4]);
    expect(score("1 + 2 * 3")).toEqual([7, 7, 7, 7, 7]);
  });

  it("turns non-finite results into missing values", () => {
    // momentum = [0.1, -0.2, 0.3, NaN, 0]
    expect(score("1 / momentum")).toEqual([10, -5, 1 / 0.3, NaN_, NaN_]);
    expect(score("1 / 0")).toEqual([NaN_, NaN_, NaN_, NaN_, NaN_]);
    expect(score("market_cap * market_cap * market_cap * 1e280")).toEqual([NaN_, NaN_, NaN_, NaN_, NaN_]);
  });

  it("applies the elementwise functions", () => {
    expect(score("abs(momentum)")).toEqual([0.1, 0.2, 0.3, NaN_, 0]);
    expect(score("sqrt(momentum)")[1]).toBeNaN();
    expect(score("sqrt(pe)")[3]).toBeCloseTo(Math.sqrt(20), 14);
    // log(0) = -Infinity and log(-0.2) = NaN are both missing.
    const logs = score("log(momentum)");
    expect(logs[0]).toBeCloseTo(Math.log(0.1), 14);
    expect([logs[1], logs[3], logs[4]]).toEqual([NaN_, NaN_, NaN_]);
    expect(score("exp(pe)")[1]).toBeCloseTo(Math.exp(30), 0);
    expect(score("exp(pe * 1000)")).toEqual([NaN_, NaN_, NaN_, NaN_, NaN_]);
    expect(score("min(pe, pb * 10)")).toEqual([10, 20, NaN_, NaN_, 5]);
    expect(score("max(pe, pb * 10, 12)")).toEqual([12, 30, NaN_, NaN_, 12]);
    expect(score("clip(pe, 8, 25)")).toEqual([10, 25, NaN_, 20, 8]);
    expect(score("coalesce(pb, pe, -1)")).toEqual([1, 2, 3, 20, 0.5]);
    expect(score("coalesce(pe, pb, -1)")).toEqual([10, 30, 3, 20, 5]);
    expect(score("coalesce(dividend_yield, 0)")).toEqual([0.02, 0.005, 0, 0.01, 0.03]);
  });
});

describe("evaluateScore cross-sectional functions", () => {
  it("ranks ascending with average ranks for ties, skipping missing values", () => {
    const t = createTable(5, { pe: Float64Array.of(10, 30, NaN_, 20, 20) });
    const rank = compileExpression("rank(pe)", { fields, kind: "score" });
    // Present values 10, 20, 20, 30: ranks 1, (2+3)/2 = 2.5, 2.5, 4.
    expect([...evaluateScore(rank, t)]).toEqual([1, 4, NaN_, 2.5, 2.5]);
    const pct = compileExpression("percentile(pe)", { fields, kind: "score" });
    // (rank - 1) / (n - 1) with n = 4: 0, 1, -, 0.5, 0.5.
    expect([...evaluateScore(pct, t)]).toEqual([0, 1, NaN_, 0.5, 0.5]);
  });

  it("standardizes with the sample standard deviation", () => {
    // Classic data 2,4,4,4,5,5,7,9: mean 5, sum of squared deviations 32, sample sd = sqrt(32/7) = 2.1380899...
    const t = createTable(8, { x: Float64Array.of(2, 4, 4, 4, 5, 5, 7, 9) });
    const z = evaluateScore(compileExpression("zscore(x)", { fields: { x: "number" }, kind: "score" }), t);
    const sd = Math.sqrt(32 / 7);
    const expected = [2, 4, 4, 4, 5, 5, 7, 9].map((v) => (v - 5) / sd);
    for (let i = 0; i < 8; i++) expect(z[i]).toBeCloseTo(expected[i]!, 14);
    expect(z[0]).toBeCloseTo(-1.4031215, 6);
  });

  it("computes the cross-section over the mask only", () => {
    const t = createTable(4, { x: Float64Array.of(1, 2, 3, 100) });
    const mask = Uint8Array.of(1, 1, 1, 0);
    const opts = { fields: { x: "number" as FieldType }, kind: "score" as const };
    // Over {1, 2, 3}: mean 2, sample sd 1.
    expect([...evaluateScore(compileExpression("zscore(x)", opts), t, mask)]).toEqual([-1, 0, 1, NaN_]);
    expect([...evaluateScore(compileExpression("rank(x)", opts), t, mask)]).toEqual([1, 2, 3, NaN_]);
    expect([...evaluateScore(compileExpression("percentile(x)", opts), t, mask)]).toEqual([0, 0.5, 1, NaN_]);
    // A filter on the cross-section: the top third of the masked rows.
    const top = compileExpression("percentile(x) > 0.6", { fields: { x: "number" } });
    expect([...evaluateFilter(top, t, mask)]).toEqual([0, 0, 1, 0]);
    expect([...evaluateFilter(top, t)]).toEqual([0, 0, 1, 1]);
  });

  it("handles degenerate cross-sections: one value, all equal, none", () => {
    const opts = { fields: { x: "number" as FieldType }, kind: "score" as const };
    const one = createTable(3, { x: Float64Array.of(NaN_, 7, NaN_) });
    expect([...evaluateScore(compileExpression("percentile(x)", opts), one)]).toEqual([NaN_, 0.5, NaN_]);
    expect([...evaluateScore(compileExpression("zscore(x)", opts), one)]).toEqual([NaN_, 0, NaN_]);
    const flat = createTable(3, { x: Float64Array.of(4, 4, 4) });
    expect([...evaluateScore(compileExpression("zscore(x)", opts), flat)]).toEqual([0, 0, 0]);
    expect([...evaluateScore(compileExpression("rank(x)", opts), flat)]).toEqual([2, 2, 2]);
    const none = createTable(2, { x: Float64Array.of(NaN_, NaN_) });
    expect([...evaluateScore(compileExpression("rank(x) + zscore(x)", opts), none)]).toEqual([NaN_, NaN_]);
    // A constant argument is one value per row: every row ties.
    expect([...evaluateScore(compileExpression("rank(1)", opts), flat)]).toEqual([2, 2, 2]);
  });

  it("leaves ranks unchanged under a monotone transform (rank of zscore = rank)", () => {
    expect(score("rank(zscore(market_cap))")).toEqual(score("rank(market_cap)"));
    expect(score("rank(log(market_cap))")).toEqual(score("rank(market_cap)"));
  });
});

describe("evaluate masks and outputs", () => {
  it("zeroes filter rows and blanks score rows outside the mask (any non-zero mask entry counts)", () => {
    const mask = Uint8Array.of(1, 0, 1, 7, 0);
    expect(filter("pe > 0 or pe is null", mask)).toEqual([1, 0, 1, 1, 0]);
    expect(score("pe", mask)).toEqual([10, NaN_, NaN_, 20, NaN_]);
    expect(score("3", mask)).toEqual([3, NaN_, 3, 3, NaN_]);
  });

  it("returns fresh arrays, never a table column", () => {
    const s = evaluateScore(compileExpression("pe", { fields, kind: "score" }), table);
    s[0] = 999;
    expect(columns.pe[0]).toBe(10);
  });

  it("does not mutate the table or the mask", () => {
    const copy = Object.fromEntries(
      Object.entries(columns).map(([k, v]) => [k, v instanceof Float64Array ? Float64Array.from(v) : [...v]]),
    );
    const mask = Uint8Array.of(1, 1, 0, 1, 1);
    for (const source of ["not (pe > 1) and country = 'us'", "sector in (45) or pe between 1 and 2"]) {
      evaluateFilter(compileExpression(source, { fields }), table, mask);
    }
    evaluateScore(
      compileExpression("rank(pe) + zscore(-pb) + coalesce(pe, 0)", { fields, kind: "score" }),
      table,
      mask,
    );
    expect(columns).toEqual(copy);
    expect([...mask]).toEqual([1, 1, 0, 1, 1]);
  });

  it("evaluates over an empty table", () => {
    const empty = createTable(0, { pe: new Float64Array(0) });
    expect(evaluateFilter(compileExpression("pe > 1", { fields }), empty)).toEqual(new Uint8Array(0));
    expect(evaluateScore(compileExpression("rank(pe)", { fields, kind: "score" }), empty)).toEqual(
      new Float64Array(0),
    );
  });
});

describe("evaluate caller errors", () => {
  const pe = compileExpression("pe > 1", { fields });
  const country = compileExpression("country = 'US'", { fields });
  const peScore = compileExpression("pe", { fields, kind: "score" });

  it("rejects expressions of the wrong kind or not from compileExpression", () => {
    expect(() => evaluateScore(pe, table)).toThrow(
      "evaluateScore: the expression was compiled as a filter; use evaluateFilter",
    );
    expect(() => evaluateFilter(peScore, table)).toThrow(
      "evaluateFilter: the expression was compiled as a score; use evaluateScore",
    );
    const forged = { ...pe } as CompiledExpression;
    expect(() => evaluateFilter(forged, table)).toThrow(
      "evaluateFilter: expected an expression returned by compileExpression",
    );
  });

  it("names the missing or malformed column", () => {
    const t = (size: number, cols: Record<string, unknown>): ExpressionTable => ({
      size,
      column: (name) => cols[name] as Column | undefined,
    });
    expect(() => evaluateFilter(pe, t(2, {}))).toThrow(
      "evaluateFilter: the table has no column 'pe' (a number field the expression uses)",
    );
    expect(() => evaluateFilter(pe, t(2, { pe: [1, 2] }))).toThrow(
      "evaluateFilter: column 'pe' must be a Float64Array of length 2",
    );
    expect(() => evaluateFilter(pe, t(3, { pe: Float64Array.of(1, 2) }))).toThrow(
      "evaluateFilter: column 'pe' must be a Float64Array of length 3",
    );
    expect(() => evaluateFilter(country, t(2, { country: Float64Array.of(1, 2) }))).toThrow(
      "evaluateFilter: column 'country' must be an array of 2 strings or nulls",
    );
    expect(() => evaluateFilter(country, t(2, { country: ["US", 3] }))).toThrow(
      "evaluateFilter: column 'country' row 1 is a number, expected a string or null",
    );
    expect(() => evaluateFilter(pe, { size: -1, column: () => undefined })).toThrow(
      "evaluateFilter: table.size must be a non-negative integer, got -1",
    );
    expect(() => evaluateFilter(pe, null as unknown as ExpressionTable)).toThrow(TypeError);
  });

  it("rejects a mask of the wrong length or type", () => {
    expect(() => evaluateFilter(pe, table, new Uint8Array(4))).toThrow(
      "evaluateFilter: mask has 4 entries but the table has 5 rows",
    );
    expect(() => evaluateScore(peScore, table, [1, 1, 1, 1, 1] as unknown as Uint8Array)).toThrow(
      "evaluateScore: mask must be a Uint8Array",
    );
  });
});
