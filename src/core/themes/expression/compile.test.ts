import { describe, expect, it } from "vitest";
import { compileExpression, referencedFields, safeCompileExpression } from "./compile.js";
import type { ExpressionError } from "./expression-error.js";
import { type FieldType, fieldCatalog } from "./fields.js";
import { parseExpression } from "./parser.js";

const fields = fieldCatalog();

function errorOf(source: string, kind: "filter" | "score" = "filter"): ExpressionError {
  const result = safeCompileExpression(source, { fields, kind });
  if (result.success) throw new Error(`expected ${JSON.stringify(source)} to fail`);
  return result.error;
}

describe("compileExpression", () => {
  it("compiles the issue's example and lists the fields it reads", () => {
    const e = compileExpression("country = 'US' and sector = 45 and dividend_yield > 1%", { fields });
    expect(e.kind).toBe("filter");
    expect(e.fields).toEqual(["country", "dividend_yield", "sector"]);
    expect(e.crossSectional).toBe(false);
    expect(e.source).toBe("country = 'US' and sector = 45 and dividend_yield > 1%");
    expect(e.ast).toEqual(parseExpression(e.source));
  });

  it("matches field names case-insensitively, in the source and in the catalog", () => {
    const e = compileExpression("Market_Cap > 1e9 and PE < 20", {
      fields: { MARKET_CAP: "number", pe: "number" },
    });
    expect(e.fields).toEqual(["market_cap", "pe"]);
  });

  it("accepts a Map or a record as the catalog", () => {
    const map = new Map<string, FieldType>([["pe", "number"]]);
    expect(compileExpression("pe < 20", { fields: map }).fields).toEqual(["pe"]);
    expect(compileExpression("pe < 20", { fields: { pe: "number" } }).fields).toEqual(["pe"]);
  });

  it("defaults to a filter and marks cross-sectional scores", () => {
    expect(compileExpression("true", { fields }).kind).toBe("filter");
    const s = compileExpression("0.5 * zscore(momentum) - 0.5 * rank(pe)", { fields, kind: "score" });
    expect(s.kind).toBe("score");
    expect(s.crossSectional).toBe(true);
    expect(s.fields).toEqual(["momentum", "pe"]);
  });

  it("returns a frozen result", () => {
    const e = compileExpression("pe < 20", { fields });
    expect(Object.isFrozen(e)).toBe(true);
    expect(Object.isFrozen(e.fields)).toBe(true);
    expect(Object.isFrozen(e.ast)).toBe(true);
  });

  it("does not mutate the catalog", () => {
    const catalog = { Pe: "number" as const, country: "string" as const };
    const map = new Map<string, FieldType>([["Pe", "number"]]);
    compileExpression("pe > 1", { fields: catalog });
    compileExpression("pe > 1", { fields: map });
    expect(catalog).toEqual({ Pe: "number", country: "string" });
    expect([...map]).toEqual([["Pe", "number"]]);
  });

  it("accepts every valid form over each field type", () => {
    const ok = [
      "sector = 45",
      "45 = sector",
      "sector != 45",
      "sub_industry = 45103010",
      "sub_industry = 4510",
      "industry_code in (45, 3510, 351020)",
      "industry not in (451020)",
      "sector is null",
      "country = 'us' and exchange in ('XNYS', 'xnas') and symbol != currency",
      "country is not null",
      "pe between 5 and 2 * pe",
      "abs(momentum) < 0.5 and sqrt(volatility) > 0 and log(market_cap) > 20 and exp(beta) > 1",
      "min(pe, pb) < max(pe, pb, 1) and clip(pe, 0, 50) = pe and coalesce(dividend_yield, 0) >= 0",
      "percentile(market_cap) > 0.8 and rank(pe) <= 10 and zscore(momentum) > 1",
      "not (pe > 20) or true",
    ];
    for (const source of ok) expect(() => compileExpression(source, { fields }), source).not.toThrow();
  });

  it("rejects malformed catalogs with a TypeError", () => {
    expect(() => compileExpression("x", { fields: { "market-cap": "number" } })).toThrow(
      "compileExpression: field name 'market-cap' is not an identifier ([A-Za-z_][A-Za-z0-9_]*)",
    );
    expect(() => compileExpression("x", { fields: { and: "number" } })).toThrow(
      "compileExpression: field name 'and' is a reserved word",
    );
    expect(() => compileExpression("x", { fields: { pe: "float" as FieldType } })).toThrow(
      "compileExpression: field 'pe' has type 'float'; expected 'number', 'string' or 'code'",
    );
    expect(() => compileExpression("x", { fields: { pe: "number", PE: "string" } })).toThrow(
      "compileExpression: field 'pe' is declared twice with different types",
    );
    expect(() => compileExpression("x", { fields: null as unknown as Record<string, FieldType> })).toThrow(
      TypeError,
    );
    expect(() =>
      compileExpression("x", undefined as unknown as { fields: Record<string, FieldType> }),
    ).toThrow("compileExpression: options must be an object with a fields catalog");
    expect(() => compileExpression("x", { fields, kind: "rank" as "score" })).toThrow(
      "compileExpression: kind must be 'filter' or 'score', got 'rank'",
    );
  });
});

describe("compileExpression type and name errors", () => {
  it("explains each error with its position", () => {
    const filters = [
      "dividend_yeild > 1",
      "dividendyield > 1",
      "zzz > 1",
      "rank > 1",
      "rnak(pe) > 1",
      "foo(pe) > 1",
      "market_cap(1) > 1",
      "log(pe, 2) > 1",
      "min(pe) > 1",
      "clip(pe, 1) > 1",
      "abs(country) > 1",
      "abs(pe > 1) > 1",
      "-country > 1",
      "pe + sector > 1",
      "country * 2 > 1",
      "country = 1",
      "pe = 'abc'",
      "country < 'M'",
      "sector > 'abc'",
      "sector > 40",
      "sector = 'Energy'",
      "sector = pe",
      "sector = industry",
      "sector = 451",
      "sector = 45.5",
      "sector = 4510",
      "industry_group = 45102010",
      "sector in (45, 4510)",
      "sector in (45, 'IT')",
      "pe in (1, 'a')",
      "country in ('US', 2)",
      "(pe > 1) in (1)",
      "(pe > 1) = (pb > 1)",
      "(pe > 1) is null",
      "country between 1 and 2",
      "pe between 'a' and 2",
      "pe and pb > 1",
      "not pe",
      "pe > 1 or country",
      "market_cap",
      "country",
      "sector",
    ];
    expect(filters.map((s) => `${s}  =>  ${errorOf(s).message}`)).toMatchInlineSnapshot(`
      [
        "dividend_yeild > 1  =>  Unknown field 'dividend_yeild' at position 0; did you mean 'dividend_yield'?",
        "dividendyield > 1  =>  Unknown field 'dividendyield' at position 0; did you mean 'dividend_yield'?",
        "zzz > 1  =>  Unknown field 'zzz' at position 0",
        "rank > 1  =>  Unknown field 'rank' at position 0; 'rank' is a function: call it as rank(...)",
        "rnak(pe) > 1  =>  Unknown function 'rnak' at position 0; did you mean 'rank'?",
        "foo(pe) > 1  =>  Unknown function 'foo' at position 0; the functions are abs, clip, coalesce, exp, log, max, min, percentile, rank, sqrt, zscore",
        "market_cap(1) > 1  =>  Unknown function 'market_cap' at position 0; 'market_cap' is a field, not a function",
        "log(pe, 2) > 1  =>  Function 'log' at position 0 takes 1 argument but got 2",
        "min(pe) > 1  =>  Function 'min' at position 0 takes at least 2 arguments but got 1",
        "clip(pe, 1) > 1  =>  Function 'clip' at position 0 takes 3 arguments but got 2",
        "abs(country) > 1  =>  Argument 1 of 'abs' at position 4 must be a number but is 'country' (a string)",
        "abs(pe > 1) > 1  =>  Argument 1 of 'abs' at position 4 must be a number but is a condition (true/false)",
        "-country > 1  =>  Operand of '-' at position 1 must be a number but is 'country' (a string)",
        "pe + sector > 1  =>  Right operand of '+' at position 5 must be a number but is 'sector' (an industry code); industry codes are labels, not quantities",
        "country * 2 > 1  =>  Left operand of '*' at position 0 must be a number but is 'country' (a string)",
        "country = 1  =>  Cannot compare 'country' (a string) with 1 (a number) at position 8",
        "pe = 'abc'  =>  Cannot compare 'pe' (a number) with 'abc' (a string) at position 3",
        "country < 'M'  =>  Strings can only be compared with =, !=, in and not in; '<' at position 8 does not apply to strings",
        "sector > 'abc'  =>  Industry codes can only be tested with =, !=, in and not in; '>' at position 7 does not apply to 'sector'",
        "sector > 40  =>  Industry codes can only be tested with =, !=, in and not in; '>' at position 7 does not apply to 'sector'",
        "sector = 'Energy'  =>  'sector' holds industry codes: compare it with an integer code such as 45, not with 'Energy' (a string), at position 9",
        "sector = pe  =>  'sector' holds industry codes: compare it with an integer code such as 45, not with 'pe' (a number), at position 9",
        "sector = industry  =>  'sector' holds industry codes: compare it with an integer code such as 45, not with 'industry' (an industry code), at position 9",
        "sector = 451  =>  Industry code 451 at position 9 must be an integer of 2, 4, 6 or 8 digits (sector 45, industry group 4510, industry 451020, sub-industry 45102010)",
        "sector = 45.5  =>  Industry code 45.5 at position 9 must be an integer of 2, 4, 6 or 8 digits (sector 45, industry group 4510, industry 451020, sub-industry 45102010)",
        "sector = 4510  =>  'sector' holds 2-digit codes, so 4510 at position 9 can never match; write industry_group = 4510 or industry_code = 4510",
        "industry_group = 45102010  =>  'industry_group' holds 4-digit codes, so 45102010 at position 17 can never match; write sub_industry = 45102010 or industry_code = 45102010",
        "sector in (45, 4510)  =>  'sector' holds 2-digit codes, so 4510 at position 15 can never match; write industry_group = 4510 or industry_code = 4510",
        "sector in (45, 'IT')  =>  Item 2 of the 'in' list at position 15 is 'IT' (a string) but 'sector' (an industry code) needs an industry code",
        "pe in (1, 'a')  =>  Item 2 of the 'in' list at position 10 is 'a' (a string) but 'pe' (a number) needs a number",
        "country in ('US', 2)  =>  Item 2 of the 'in' list at position 18 is 2 (a number) but 'country' (a string) needs a string",
        "(pe > 1) in (1)  =>  Cannot test a condition (true/false) with 'in' at position 9",
        "(pe > 1) = (pb > 1)  =>  Cannot compare a condition (true/false) with '=' at position 9; combine conditions with 'and', 'or' and 'not'",
        "(pe > 1) is null  =>  'is null' at position 9 applies to fields and values, not to conditions",
        "country between 1 and 2  =>  Operand of 'between' at position 0 must be a number but is 'country' (a string)",
        "pe between 'a' and 2  =>  Lower bound of 'between' at position 11 must be a number but is 'a' (a string)",
        "pe and pb > 1  =>  Operand of 'and' at position 0 must be a condition (true/false) but is 'pe' (a number); compare it, as in pe > 0",
        "not pe  =>  Operand of 'not' at position 4 must be a condition (true/false) but is 'pe' (a number); compare it, as in pe > 0",
        "pe > 1 or country  =>  Operand of 'or' at position 10 must be a condition (true/false) but is 'country' (a string); compare it, as in pe > 0",
        "market_cap  =>  A filter must be a condition (true/false) but this expression is a number; compare it, as in market_cap > 0",
        "country  =>  A filter must be a condition (true/false) but this expression is a string; compare it, as in market_cap > 0",
        "sector  =>  A filter must be a condition (true/false) but this expression is an industry code; compare it, as in market_cap > 0",
      ]
    `);
  });

  it("requires a score to be a number", () => {
    const scores = ["pe > 1", "country", "sector", "'abc'"];
    expect(scores.map((s) => `${s}  =>  ${errorOf(s, "score").message}`)).toMatchInlineSnapshot(`
      [
        "pe > 1  =>  A score must be a number but this expression is a condition (true/false)",
        "country  =>  A score must be a number but this expression is a string",
        "sector  =>  A score must be a number but this expression is an industry code",
        "'abc'  =>  A score must be a number but this expression is a string",
      ]
    `);
  });

  it("carries position, expected and found, and the caller's issue path", () => {
    const e = errorOf("dividend_yeild > 1");
    expect(e.position).toBe(0);
    expect(e.found).toBe("'dividend_yeild'");
    expect(e.expected).toContain("dividend_yield");
    expect(e.expected).toEqual([...e.expected].sort());
    const withPath = safeCompileExpression("pe >", { fields, path: "filters[2]" });
    expect(withPath.success).toBe(false);
    if (!withPath.success)
      expect(withPath.error.issues).toEqual([{ path: "filters[2]", message: withPath.error.message }]);
    const typed = safeCompileExpression("country = 1", { fields, path: "universe.expression" });
    if (!typed.success) expect(typed.error.issues[0]!.path).toBe("universe.expression");
  });

  it("points at the leading token of an indented expression", () => {
    expect(errorOf("   market_cap").position).toBe(3);
  });

  it("lets safeCompileExpression rethrow caller misuse", () => {
    expect(() => safeCompileExpression("x", { fields: { "a-b": "number" } })).toThrow(TypeError);
  });
});

describe("referencedFields", () => {
  it("lists each field once, sorted, for compiled expressions and bare trees", () => {
    const source =
      "pe < 20 and (sector = 45 or rank(pe) > 3) and pb between momentum and 2 and country is not null";
    expect(referencedFields(compileExpression(source, { fields }))).toEqual([
      "country",
      "momentum",
      "pb",
      "pe",
      "sector",
    ]);
    expect(referencedFields(parseExpression(source))).toEqual(["country", "momentum", "pb", "pe", "sector"]);
    expect(referencedFields(parseExpression("unknown_field > -x"))).toEqual(["unknown_field", "x"]);
    expect(referencedFields(parseExpression("1 < 2"))).toEqual([]);
  });

  it("returns a fresh array", () => {
    const e = compileExpression("pe < 20", { fields });
    const names = referencedFields(e);
    names.push("x");
    expect(e.fields).toEqual(["pe"]);
  });
});
