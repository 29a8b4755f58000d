import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type ArithmeticOperator, type ComparisonOperator, type Expr, KEYWORDS } from "./ast.js";
import { formatExpression } from "./format.js";
import { MAX_SOURCE_LENGTH } from "./limits.js";
import { parseExpression } from "./parser.js";

const canonical = (source: string): string => formatExpression(parseExpression(source));

describe("formatExpression", () => {
  it("prints keywords and names in lower case with canonical operators", () => {
    expect(canonical("NOT (A) OR b && C")).toBe("not a or b and c");
    expect(canonical("x == 1 || y <> 2 && !z")).toBe("x = 1 or y != 2 and not z");
    expect(canonical("Pe IS NOT NULL AND Country NOT IN ('US',\"CA\")")).toBe(
      "pe is not null and country not in ('US', 'CA')",
    );
  });

  it("drops redundant parentheses and keeps the needed ones", () => {
    expect(canonical("((a)) or ((b and c))")).toBe("a or b and c");
    expect(canonical("(a or b) and c")).toBe("(a or b) and c");
    expect(canonical("(a * b) + (c / d)")).toBe("a * b + c / d");
    expect(canonical("a - (b - c)")).toBe("a - (b - c)");
    expect(canonical("a - (b + c)")).toBe("a - (b + c)");
    expect(canonical("(a - b) - c")).toBe("a - b - c");
    expect(canonical("a / (b * c)")).toBe("a / (b * c)");
    expect(canonical("(-x) * y")).toBe("-x * y");
    expect(canonical("-(x * y)")).toBe("-(x * y)");
    expect(canonical("not (a and b)")).toBe("not (a and b)");
    expect(canonical("not (x > 1)")).toBe("not x > 1");
    expect(canonical("(a and b) and c")).toBe("(a and b) and c");
    expect(canonical("(x + 1) between (y) and (z * 2)")).toBe("x + 1 between y and z * 2");
    expect(canonical("(x > 1) = (y > 2)")).toBe("(x > 1) = (y > 2)");
    expect(canonical("(x > 1) is null")).toBe("(x > 1) is null");
    expect(canonical("f((a or b), (c))")).toBe("f(a or b, c)");
  });

  it("prints literals so that they read back identically", () => {
    expect(canonical("1% + 2.50 + 1e21 + 1E-7 + 10_000 + .5")).toBe(
      "0.01 + 2.5 + 1e+21 + 1e-7 + 10000 + 0.5",
    );
    expect(canonical("-0")).toBe("-0");
    expect(canonical("-(1)")).toBe("-(1)");
    expect(canonical("-(-1)")).toBe("-(-1)");
    expect(canonical("- -x")).toBe("- -x");
    expect(canonical("x - -1")).toBe("x - -1");
    expect(canonical(`"it's" = 'a\\\\b' and "\\t\\u0001" = ''`)).toBe(
      `'it\\'s' = 'a\\\\b' and '\\t\\u0001' = ''`,
    );
    expect(canonical("true and false")).toBe("true and false");
  });

  it("does not mutate the tree", () => {
    const ast = parseExpression("a or b and -c > 1");
    const before = JSON.stringify(ast);
    formatExpression(ast);
    expect(JSON.stringify(ast)).toBe(before);
  });

  it("refuses trees too high to print safely", () => {
    let deep: Expr = { type: "field", name: "x" };
    for (let k = 0; k < 300; k++) deep = { type: "not", operand: deep };
    expect(() => formatExpression(deep)).toThrow(RangeError);
  });
});

// ---- round trip on random trees ----

const identifier = fc.stringMatching(/^[a-z_][a-z0-9_]{0,8}$/).filter((s) => !KEYWORDS.has(s));
const numberValue = fc.oneof(
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.integer({ min: -1000, max: 1000 }),
  fc.constantFrom(0, -0, 0.01, 1e21, 5e-324, Number.MAX_VALUE, -Number.MAX_VALUE),
);
const stringValue = fc.string({
  maxLength: 12,
  unit: fc.oneof(
    fc.constantFrom("'", '"', "\\", "\n", "\r", "\t", "\0", "\u007f", "\u0001"),
    fc.string({ unit: "binary", minLength: 1, maxLength: 1 }),
  ),
});
const comparisonOp = fc.constantFrom<ComparisonOperator>("=", "!=", "<", "<=", ">", ">=");
const arithmeticOp = fc.constantFrom<ArithmeticOperator>("+", "-", "*", "/");

const expr: fc.Memo<Expr> = fc.memo((depth) => {
  const leaf: fc.Arbitrary<Expr> = fc.oneof(
    numberValue.map((value) => ({ type: "number" as const, value })),
    stringValue.map((value) => ({ type: "string" as const, value })),
    fc.boolean().map((value) => ({ type: "boolean" as const, value })),
    identifier.map((name) => ({ type: "field" as const, name })),
  );
  if (depth <= 1) return leaf;
  const sub = expr(depth - 1);
  return fc.oneof(
    { arbitrary: leaf, weight: 3 },
    sub.map((operand) => ({ type: "negate" as const, operand })),
    fc.record({ type: fc.constant("arithmetic" as const), op: arithmeticOp, left: sub, right: sub }),
    fc.record({ type: fc.constant("compare" as const), op: comparisonOp, left: sub, right: sub }),
    fc.record({
      type: fc.constant("in" as const),
      negated: fc.boolean(),
      operand: sub,
      values: fc.array(fc.oneof(numberValue, stringValue), { minLength: 1, maxLength: 4 }),
    }),
    fc.record({
      type: fc.constant("between" as const),
      negated: fc.boolean(),
      operand: sub,
      low: sub,
      high: sub,
    }),
    fc.record({ type: fc.constant("is_null" as const), negated: fc.boolean(), operand: sub }),
    sub.map((operand) => ({ type: "not" as const, operand })),
    fc.record({
      type: fc.constantFrom("and" as const, "or" as const),
      operands: fc.array(sub, { minLength: 2, maxLength: 3 }),
    }),
    fc.record({
      type: fc.constant("call" as const),
      name: identifier,
      args: fc.array(sub, { maxLength: 3 }),
    }),
  );
});

describe("formatExpression round trip", () => {
  it("parses what it prints back to the same tree", () => {
    fc.assert(
      fc.property(expr(5), (ast) => {
        const text = formatExpression(ast);
        fc.pre(text.length <= MAX_SOURCE_LENGTH);
        expect(parseExpression(text)).toEqual(ast);
        // Printing is a fixed point.
        expect(formatExpression(parseExpression(text))).toBe(text);
      }),
      { numRuns: 1000, seed: 20240611 },
    );
  });

  it("reads back every finite double exactly, -0 included", () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (value) => {
        const back = parseExpression(formatExpression({ type: "number", value }));
        expect(back).toEqual({ type: "number", value });
        expect(Object.is((back as { value: number }).value, value)).toBe(true);
      }),
      { numRuns: 2000, seed: 7 },
    );
  });
});
