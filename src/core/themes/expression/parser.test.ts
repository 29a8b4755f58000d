import { describe, expect, it } from "vitest";
import type { Expr } from "./ast.js";
import { ExpressionError } from "./expression-error.js";
import { parseExpression } from "./parser.js";

/** Fully parenthesized s-expression of a tree, to read precedence and associativity at a glance. */
function sx(node: Expr): string {
  switch (node.type) {
    case "number":
      return String(node.value);
    case "string":
      return JSON.stringify(node.value);
    case "boolean":
      return String(node.value);
    case "field":
      return node.name;
    case "negate":
      return `(neg ${sx(node.operand)})`;
    case "arithmetic":
    case "compare":
      return `(${node.op} ${sx(node.left)} ${sx(node.right)})`;
    case "in":
      return `(${node.negated ? "not-in" : "in"} ${sx(node.operand)} [${node.values.map((v) => JSON.stringify(v)).join(" ")}])`;
    case "between":
      return `(${node.negated ? "not-between" : "between"} ${sx(node.operand)} ${sx(node.low)} ${sx(node.high)})`;
    case "is_null":
      return `(${node.negated ? "is-not-null" : "is-null"} ${sx(node.operand)})`;
    case "not":
      return `(not ${sx(node.operand)})`;
    case "and":
    case "or":
      return `(${node.type} ${node.operands.map(sx).join(" ")})`;
    case "call":
      return `(${node.name}(${node.args.map(sx).join(" ")}))`;
  }
}

const p = (source: string): string => sx(parseExpression(source));

function errorOf(source: string): ExpressionError {
  try {
    parseExpression(source);
  } catch (e) {
    if (e instanceof ExpressionError) return e;
    throw e;
  }
  throw new Error(`expected ${JSON.stringify(source)} to fail`);
}

describe("parseExpression precedence", () => {
  it("binds 'and' tighter than 'or'", () => {
    expect(p("a or b and c")).toBe("(or a (and b c))");
    expect(p("a and b or c")).toBe("(or (and a b) c)");
  });

  it("binds 'not' tighter than 'and' but looser than comparisons", () => {
    expect(p("not a and b")).toBe("(and (not a) b)");
    expect(p("not x > 1")).toBe("(not (> x 1))");
    expect(p("not not a")).toBe("(not (not a))");
  });

  it("binds unary minus tighter than multiplication", () => {
    expect(p("-x * y")).toBe("(* (neg x) y)");
    expect(p("x * -y")).toBe("(* x (neg y))");
    expect(p("- -x")).toBe("(neg (neg x))");
  });

  it("binds arithmetic tighter than comparisons and multiplication tighter than addition", () => {
    expect(p("a + b * c > d - e / f")).toBe("(> (+ a (* b c)) (- d (/ e f)))");
    expect(p("a * (b + c)")).toBe("(* a (+ b c))");
  });

  it("parses arithmetic left-associatively", () => {
    expect(p("a - b - c")).toBe("(- (- a b) c)");
    expect(p("a / b / c")).toBe("(/ (/ a b) c)");
    expect(p("a - (b - c)")).toBe("(- a (- b c))");
  });

  it("flattens unparenthesized and/or chains into one node but keeps parenthesized groups", () => {
    expect(p("a and b and c")).toBe("(and a b c)");
    expect(p("a or b or c or d")).toBe("(or a b c d)");
    expect(p("(a and b) and c")).toBe("(and (and a b) c)");
  });

  it("lets parentheses override every level", () => {
    expect(p("(a or b) and c")).toBe("(and (or a b) c)");
    expect(p("not (a and b)")).toBe("(not (and a b))");
    expect(p("-(x + y)")).toBe("(neg (+ x y))");
  });

  it("reads a minus directly before a number as a negative literal", () => {
    expect(parseExpression("-2")).toEqual({ type: "number", value: -2 });
    expect(p("x - -2")).toBe("(- x -2)");
    expect(p("-(2)")).toBe("(neg 2)");
    expect(
      Object.is(
        parseExpression("-0").type === "number" && (parseExpression("-0") as { value: number }).value,
        -0,
      ),
    ).toBe(true);
  });
});

describe("parseExpression operators", () => {
  it("parses every comparison operator, with == and <> as aliases", () => {
    expect(p("a = 1")).toBe("(= a 1)");
    expect(p("a == 1")).toBe("(= a 1)");
    expect(p("a != 1")).toBe("(!= a 1)");
    expect(p("a <> 1")).toBe("(!= a 1)");
    expect(p("a < 1")).toBe("(< a 1)");
    expect(p("a <= 1")).toBe("(<= a 1)");
    expect(p("a > 1")).toBe("(> a 1)");
    expect(p("a >= 1")).toBe("(>= a 1)");
  });

  it("parses every arithmetic operator", () => {
    expect(p("a + b")).toBe("(+ a b)");
    expect(p("a - b")).toBe("(- a b)");
    expect(p("a * b")).toBe("(* a b)");
    expect(p("a / b")).toBe("(/ a b)");
  });

  it("accepts &&, || and ! for and, or, not", () => {
    expect(p("!a && b || c")).toBe("(or (and (not a) b) c)");
  });

  it("parses in and not in lists of numbers and strings, including negative numbers", () => {
    expect(p("sector in (45, 50)")).toBe("(in sector [45 50])");
    expect(p("country not in ('US', \"CA\")")).toBe('(not-in country ["US" "CA"])');
    expect(p("x in (-1, 2.5)")).toBe("(in x [-1 2.5])");
    expect(p("not x in (1)")).toBe("(not (in x [1]))");
  });

  it("parses between and not between with arithmetic bounds, then continues the and-chain", () => {
    expect(p("pe between 5 and 2 * 10")).toBe("(between pe 5 (* 2 10))");
    expect(p("pe not between 5 and 30 and x > 1")).toBe("(and (not-between pe 5 30) (> x 1))");
  });

  it("parses is null and is not null", () => {
    expect(p("pe is null")).toBe("(is-null pe)");
    expect(p("pe IS NOT NULL or x")).toBe("(or (is-not-null pe) x)");
  });

  it("parses function calls with zero, one and several arguments", () => {
    expect(p("f()")).toBe("(f())");
    expect(p("abs(x)")).toBe("(abs(x))");
    expect(p("max(a, b + 1, -c)")).toBe("(max(a (+ b 1) (neg c)))");
    expect(p("rank(zscore(x))")).toBe("(rank((zscore(x))))");
  });

  it("parses true and false", () => {
    expect(p("true or FALSE")).toBe("(or true false)");
  });

  it("treats keywords and names case-insensitively and stores names in lower case", () => {
    expect(p("NOT Dividend_Yield > 1 AnD Sector IN (45) OR PE Between 1 AND 2")).toBe(
      "(or (and (not (> dividend_yield 1)) (in sector [45])) (between pe 1 2))",
    );
    expect(p("ABS(X)")).toBe("(abs(x))");
  });
});

describe("parseExpression literals", () => {
  const value = (s: string) => (parseExpression(s) as { value: unknown }).value;

  it("reads integers, decimals, leading-dot decimals, exponents and digit separators", () => {
    expect(value("42")).toBe(42);
    expect(value("2.5")).toBe(2.5);
    expect(value(".5")).toBe(0.5);
    expect(value("1e3")).toBe(1000);
    expect(value("2.5E-3")).toBe(0.0025);
    expect(value("1e+21")).toBe(1e21);
    expect(value("10_000_000")).toBe(10_000_000);
  });

  it("reads a % suffix as hundredths, exactly as the decimal literal would read", () => {
    expect(value("1%")).toBe(0.01);
    expect(value("2.5%")).toBe(0.025);
    // 1.1 / 100 in floating point is 0.011000000000000001; the literal must be the double nearest 0.011.
    expect(value("1.1%")).toBe(0.011);
    expect(value("5e1%")).toBe(0.5);
    expect(value("-1%")).toBe(-0.01);
  });

  it("reads strings in either quote with escapes and doubled quotes", () => {
    expect(value("'it\\'s'")).toBe("it's");
    expect(value('"say \\"hi\\""')).toBe('say "hi"');
    expect(value("'it''s'")).toBe("it's");
    expect(value('"a\'b"')).toBe("a'b");
    expect(value("'tab\\there\\nnew\\\\'")).toBe("tab\there\nnew\\");
    expect(value("'\\u00e9t\\u00C9'")).toBe("étÉ");
    expect(value("'\\0'")).toBe("\0");
    expect(value("''")).toBe("");
    expect(value("'; DROP TABLE themes; --'")).toBe("; DROP TABLE themes; --");
  });
});

describe("parseExpression errors", () => {
  const messages = (sources: string[]) => sources.map((s) => `${JSON.stringify(s)}: ${errorOf(s).message}`);

  it("names the position, what was expected and what was found", () => {
    expect(
      messages([
        "",
        "   ",
        "(pe > 1",
        "pe > 1)",
        "pe > 1 y",
        "pe >",
        "pe >> 1",
        "pe =< 1",
        "pe === 1",
        "pe & 1",
        "pe = null",
        "country = 'US",
        'country = "US',
        "name = 'a\\q'",
        "a < b < c",
        "x in 1",
        "x in ()",
        "x in (1, 2",
        "x in (1 2)",
        "x not like 1",
        "x is nothing",
        "pe between 1 or 2",
        "abs(x",
        "abs(,",
        "5. > x",
        "1e > x",
        "1e400 > x",
        "x > #",
        "x > 1 \u00a0",
        "x [1]",
        "'); DROP TABLE themes; --",
      ]),
    ).toMatchInlineSnapshot(`
      [
        """: Expected an expression at position 0 but found end of input",
        ""   ": Expected an expression at position 3 but found end of input",
        ""(pe > 1": Expected an operator, 'and', 'or' or ')' at position 7 but found end of input",
        ""pe > 1)": Expected an operator, 'and', 'or' or end of input at position 6 but found ')'",
        ""pe > 1 y": Expected an operator, 'and', 'or' or end of input at position 7 but found 'y'",
        ""pe >": Expected an expression at position 4 but found end of input",
        ""pe >> 1": Expected an expression at position 4 but found '>'",
        ""pe =< 1": Expected an operator, 'and', 'or' or end of input at position 3 but found '=<'; did you mean '<='?",
        ""pe === 1": Expected an operator, 'and', 'or' or end of input at position 3 but found '==='; did you mean '='?",
        ""pe & 1": Expected an operator, 'and', 'or' or end of input at position 3 but found '&'; write 'and' (or '&&')",
        ""pe = null": Expected an expression at position 5 but found 'null'; write 'is null' or 'is not null' to test for a missing value",
        ""country = 'US": Unterminated string starting at position 10: expected a closing ' before end of input",
        ""country = \\"US": Unterminated string starting at position 10: expected a closing " before end of input",
        ""name = 'a\\\\q'": Invalid escape '\\q' at position 9 in a string: use \\\\, \\', \\", \\n, \\r, \\t, \\0 or \\uXXXX",
        ""a < b < c": Comparisons cannot be chained at position 6: join them with 'and', as in 'a < b and b < c'",
        ""x in 1": Expected '(' at position 5 but found '1'",
        ""x in ()": Expected a number or a string at position 6 but found ')'",
        ""x in (1, 2": Expected ',' or ')' at position 10 but found end of input",
        ""x in (1 2)": Expected ',' or ')' at position 8 but found '2'",
        ""x not like 1": Expected 'in' or 'between' at position 6 but found 'like'",
        ""x is nothing": Expected 'not' or 'null' at position 5 but found 'nothing'",
        ""pe between 1 or 2": Expected an operator or 'and' at position 13 but found 'or'",
        ""abs(x": Expected an operator, 'and', 'or', ',' or ')' at position 5 but found end of input",
        ""abs(,": Expected an expression or ')' at position 4 but found ','",
        ""5. > x": Invalid number '5.' at position 0: expected a digit after '.'",
        ""1e > x": Invalid number '1e' at position 0: expected a digit in the exponent",
        ""1e400 > x": Number 1e400 at position 0 is out of range: numbers must be finite (magnitude below 1.8e308)",
        ""x > #": Expected an expression at position 4 but found '#'",
        ""x > 1 \u00a0": Expected an operator, 'and', 'or' or end of input at position 6 but found character U+00A0",
        ""x [1]": Expected an operator, 'and', 'or' or end of input at position 2 but found '['; lists are written in parentheses, as in sector in (45, 50)",
        ""'); DROP TABLE themes; --": Unterminated string starting at position 0: expected a closing ' before end of input",
      ]
    `);
  });

  it("fills position, expected and found", () => {
    const e = errorOf("(pe > 1");
    expect(e).toBeInstanceOf(ExpressionError);
    expect(e.code).toBe("invalid_expression");
    expect(e.position).toBe(7);
    expect(e.expected).toEqual(["an operator", "'and'", "'or'", "')'"]);
    expect(e.found).toBe("end of input");
    expect(e.issues).toEqual([{ path: "expression", message: e.message }]);
  });

  it("reports the first problem in source order even when a later token is malformed", () => {
    // The syntax error at '>' comes before the unterminated string.
    expect(errorOf("x > > 'abc").position).toBe(4);
  });

  it("rejects a source that is not a string with a TypeError", () => {
    expect(() => parseExpression(42 as unknown as string)).toThrow(TypeError);
    expect(() => parseExpression(null as unknown as string)).toThrow(
      "parseExpression: source must be a string, got null",
    );
  });
});
