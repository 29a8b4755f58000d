import { describe, expect, it } from "vitest";
import { compileExpression } from "./compile.js";
import { evaluateFilter } from "./evaluate.js";
import { ExpressionError } from "./expression-error.js";
import { fieldCatalog } from "./fields.js";
import {
  MAX_IDENTIFIER_LENGTH,
  MAX_IN_LIST_LENGTH,
  MAX_NESTING_DEPTH,
  MAX_NUMBER_LITERAL_LENGTH,
  MAX_SOURCE_LENGTH,
  MAX_STRING_LITERAL_LENGTH,
  MAX_TREE_HEIGHT,
} from "./limits.js";
import { parseExpression } from "./parser.js";
import { createTable } from "./table.js";

const fields = fieldCatalog();

/** Compiles and returns the ExpressionError, failing the test on success or on any other error. */
function rejection(source: string): ExpressionError {
  try {
    compileExpression(source, { fields });
  } catch (e) {
    expect(e).toBeInstanceOf(ExpressionError);
    return e as ExpressionError;
  }
  throw new Error(`expected ${source.slice(0, 40)} to be rejected`);
}

describe("hostile input", () => {
  it("rejects 10,000 nested parentheses with an ExpressionError, not a stack overflow", () => {
    const source = `${"(".repeat(10_000)}pe > 1${")".repeat(10_000)}`;
    const e = rejection(source);
    expect(e.message).toBe(`Expression is too long (20006 characters; the limit is ${MAX_SOURCE_LENGTH})`);
    expect(e.position).toBe(MAX_SOURCE_LENGTH);
  });

  it("accepts a source of exactly the maximum length and rejects one character more", () => {
    const base = "pe > 1";
    const padded = `${" ".repeat(MAX_SOURCE_LENGTH - base.length)}${base}`;
    expect(padded.length).toBe(MAX_SOURCE_LENGTH);
    expect(compileExpression(padded, { fields }).fields).toEqual(["pe"]);
    expect(rejection(` ${padded}`).position).toBe(MAX_SOURCE_LENGTH);
  });

  it("rejects nesting deeper than the limit even within the length limit", () => {
    const depth = MAX_NESTING_DEPTH + 1;
    const e = rejection(`${"(".repeat(depth)}pe > 1${")".repeat(depth)}`);
    expect(e.message).toBe(
      `Expression is nested too deeply at position ${MAX_NESTING_DEPTH}: more than ${MAX_NESTING_DEPTH} levels of parentheses, function calls, 'not' or '-'`,
    );
    // One level less is fine.
    const ok = `${"(".repeat(MAX_NESTING_DEPTH)}pe > 1${")".repeat(MAX_NESTING_DEPTH)}`;
    expect(compileExpression(ok, { fields }).fields).toEqual(["pe"]);
  });

  it("rejects deep chains of not, unary minus and nested calls", () => {
    expect(rejection(`${"not ".repeat(1000)}pe > 1`).message).toMatch(/nested too deeply at position 256/);
    expect(rejection(`${"- ".repeat(1000)}pe > 1`).message).toMatch(/nested too deeply/);
    expect(rejection(`${"abs(".repeat(500)}pe${")".repeat(500)} > 1`).message).toMatch(/nested too deeply/);
  });

  it("bounds the tree height of long unparenthesized arithmetic chains", () => {
    const terms = MAX_TREE_HEIGHT + 10;
    const e = rejection(`${Array.from({ length: terms }, () => "pe").join("+")} > 1`);
    expect(e.message).toMatch(/its syntax tree would be more than 256 levels high/);
    // and/or chains are one level however long, so a long list of alternatives is fine.
    const alternatives = Array.from({ length: 300 }, (_, k) => `pe = ${k}`).join(" or ");
    expect(compileExpression(alternatives, { fields }).ast.type).toBe("or");
  });

  it("rejects a 100 KB literal by the source limit before scanning it", () => {
    expect(rejection(`symbol = '${"x".repeat(100_000)}'`).message).toMatch(
      /^Expression is too long \(100011/,
    );
    expect(rejection(`pe > ${"9".repeat(100_000)}`).message).toMatch(/^Expression is too long/);
  });

  it("rejects literals and names over their own limits", () => {
    expect(rejection(`symbol = '${"x".repeat(MAX_STRING_LITERAL_LENGTH + 1)}'`).message).toBe(
      `String literal at position 9 is too long (more than ${MAX_STRING_LITERAL_LENGTH} characters)`,
    );
    expect(rejection(`pe > ${"1".repeat(MAX_NUMBER_LITERAL_LENGTH + 1)}`).message).toBe(
      `Number literal at position 5 is too long (41 characters; the limit is ${MAX_NUMBER_LITERAL_LENGTH})`,
    );
    expect(rejection(`${"a".repeat(MAX_IDENTIFIER_LENGTH + 1)} > 1`).message).toBe(
      `Name at position 0 is too long (65 characters; the limit is ${MAX_IDENTIFIER_LENGTH})`,
    );
  });

  it("rejects an in-list longer than the limit", () => {
    const items = Array.from({ length: MAX_IN_LIST_LENGTH + 1 }, (_, k) => String(k)).join(",");
    expect(rejection(`pe in (${items})`).message).toBe(
      `List at position 3 has more than ${MAX_IN_LIST_LENGTH} items; split it or use a broader condition`,
    );
    const allowed = Array.from({ length: MAX_IN_LIST_LENGTH }, (_, k) => String(k)).join(",");
    expect(compileExpression(`pe in (${allowed})`, { fields }).kind).toBe("filter");
  });

  it("rejects numbers that are not finite", () => {
    expect(rejection("pe > 1e400").message).toBe(
      "Number 1e400 at position 5 is out of range: numbers must be finite (magnitude below 1.8e308)",
    );
    expect(rejection("pe > -1e309").message).toMatch(/^Number 1e309 at position 6 is out of range/);
    // Finite but too large for exact arithmetic is still a number.
    expect(compileExpression("pe > 1e308", { fields }).kind).toBe("filter");
  });

  it("treats SQL injection attempts as plain text or syntax errors", () => {
    expect(rejection("'); DROP TABLE themes; --").message).toBe(
      "Unterminated string starting at position 0: expected a closing ' before end of input",
    );
    expect(rejection("symbol = 'A'); DROP TABLE themes; --").message).toBe(
      "Expected an operator, 'and', 'or' or end of input at position 12 but found ')'",
    );
    expect(rejection("symbol = 'A' or 1 = 1; --").message).toBe(
      "Expected an operator, 'and', 'or' or end of input at position 21 but found ';'",
    );
    // Inside quotes it is just a value that no symbol equals.
    const e = compileExpression("symbol = '\\'; DROP TABLE themes; --'", { fields });
    const table = createTable(2, { symbol: ["AAPL", "'; DROP TABLE themes; --"] });
    expect([...evaluateFilter(e, table)]).toEqual([0, 1]);
  });

  it("never resolves prototype members as fields or functions", () => {
    for (const name of ["__proto__", "constructor", "toString", "hasOwnProperty", "prototype", "valueOf"]) {
      const e = rejection(`${name} = 1`);
      expect(e.message).toMatch(new RegExp(`^Unknown field '${name.toLowerCase()}' at position 0`));
      expect(rejection(`${name}(pe) > 1`).message).toMatch(/^Unknown function/);
    }
    // A record catalog with a __proto__ key (JSON.parse makes it an own key) is still just a name.
    const catalog = JSON.parse('{"__proto__": "number", "pe": "number"}') as Record<string, "number">;
    expect(compileExpression("__proto__ > 1", { fields: catalog }).fields).toEqual(["__proto__"]);
  });

  it("rejects control characters and non-ASCII letters outside strings", () => {
    expect(rejection("pe\u0000 > 1").message).toBe(
      "Expected an operator, 'and', 'or' or end of input at position 2 but found character U+0000",
    );
    expect(rejection("péx > 1").message).toBe(
      "Expected an operator, 'and', 'or' or end of input at position 1 but found character U+00E9",
    );
    expect(rejection("pe > 1 \u{1F600}").message).toMatch(/found character U\+1F600$/);
  });

  it("does not evaluate code: functions are a fixed table and names are data", () => {
    expect(rejection("constructor.constructor('return process')()").message).toMatch(
      /^Unknown function|^Expected/,
    );
    expect(rejection("eval('1') > 0").message).toMatch(/^Unknown function 'eval'/);
    expect(() => parseExpression(["$", "{pe} > 1"].join(""))).toThrow(ExpressionError);
  });
});
