/**
 * Cross-check: the vectorized evaluator against a deliberately naive row-by-row interpreter written from
 * the documented semantics (docs/expression-language.md), on random well-typed expressions.
 */
import fc from "fast-check";
import { describe, it } from "vitest";
import type { ComparisonOperator, Expr } from "./ast.js";
import { compileExpression } from "./compile.js";
import { evaluateFilter, evaluateScore } from "./evaluate.js";
import { fieldCatalog } from "./fields.js";
import { formatExpression } from "./format.js";
import { createTable } from "./table.js";

// ---- a deterministic table with missing values, infinities, mixed case and codes at several levels ----

const ROWS = 40;
let seed = 12345;
const next = (): number => {
  seed = (seed * 1103515245 + 12345) % 2147483648;
  return seed / 2147483648;
};
const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
const SMALL = [-2, -1, 0, 0.5, 1, 2, 3, 5, Number.NaN, Number.POSITIVE_INFINITY];
const numbers = {
  pe: Float64Array.from({ length: ROWS }, () => pick(SMALL)),
  pb: Float64Array.from({ length: ROWS }, () => pick(SMALL)),
  momentum: Float64Array.from({ length: ROWS }, () => pick(SMALL)),
  sector: Float64Array.from({ length: ROWS }, () => pick([10, 40, 45, Number.NaN, 451])),
  sub_industry: Float64Array.from({ length: ROWS }, () =>
    pick([45102010, 45103010, 40101010, 10102020, Number.NaN]),
  ),
  industry_code: Float64Array.from({ length: ROWS }, () =>
    pick([45, 4510, 451020, 45102010, 40101010, 10, Number.NaN, 4510201]),
  ),
};
const strings = {
  country: Array.from({ length: ROWS }, () => pick(["US", "us", "CA", "Ca", null, "GB"])),
  currency: Array.from({ length: ROWS }, () => pick(["USD", "usd", "CAD", null])),
};
const table = createTable(ROWS, { ...numbers, ...strings });
const fields = fieldCatalog();

// ---- reference interpreter ----

const present = (v: number): boolean => Number.isFinite(v);
const clean = (v: number): number => (Number.isFinite(v) ? v : Number.NaN);

function num(node: Expr, row: number): number {
  switch (node.type) {
    case "number":
      return node.value;
    case "field":
      return clean(numbers[node.name as keyof typeof numbers][row]!);
    case "negate":
      return clean(-num(node.operand, row));
    case "arithmetic": {
      const a = num(node.left, row);
      const b = num(node.right, row);
      const r = node.op === "+" ? a + b : node.op === "-" ? a - b : node.op === "*" ? a * b : a / b;
      return clean(r);
    }
    case "call": {
      const args = node.args.map((a) => num(a, row));
      const x = args[0]!;
      switch (node.name) {
        case "abs":
          return clean(Math.abs(x));
        case "sqrt":
          return clean(Math.sqrt(x));
        case "log":
          return clean(Math.log(x));
        case "exp":
          return clean(Math.exp(x));
        case "min":
          return args.some((v) => !present(v)) ? Number.NaN : Math.min(...args);
        case "max":
          return args.some((v) => !present(v)) ? Number.NaN : Math.max(...args);
        case "clip":
          return args.some((v) => !present(v)) ? Number.NaN : Math.min(Math.max(x, args[1]!), args[2]!);
        case "coalesce":
          return args.find(present) ?? Number.NaN;
      }
      throw new Error(`no reference for ${node.name}`);
    }
    default:
      throw new Error(`not a number: ${node.type}`);
  }
}

function str(node: Expr, row: number): string | null {
  if (node.type === "string") return node.value.toUpperCase();
  if (node.type === "field") return strings[node.name as keyof typeof strings][row]?.toUpperCase() ?? null;
  throw new Error(`not a string: ${node.type}`);
}

/** Code match by decimal text: a well-formed code (2/4/6/8 digits) starting with the literal's digits. */
function codeMatches(code: number, literal: number): boolean {
  const text = String(code);
  return [2, 4, 6, 8].includes(text.length) && text.startsWith(String(literal));
}
const isCodeField = (node: Expr): node is Expr & { type: "field" } =>
  node.type === "field" && ["sector", "sub_industry", "industry_code"].includes(node.name);
const isStringNode = (node: Expr): boolean =>
  node.type === "string" || (node.type === "field" && node.name in strings);

function compare(op: ComparisonOperator, a: number | string, b: number | string): boolean {
  switch (op) {
    case "=":
      return a === b;
    case "!=":
      return a !== b;
    case "<":
      return a < b;
    case "<=":
      return a <= b;
    case ">":
      return a > b;
    case ">=":
      return a >= b;
  }
}

function bool(node: Expr, row: number): boolean {
  switch (node.type) {
    case "boolean":
      return node.value;
    case "not":
      return !bool(node.operand, row);
    case "and":
      return node.operands.every((o) => bool(o, row));
    case "or":
      return node.operands.some((o) => bool(o, row));
    case "compare": {
      if (isCodeField(node.left)) {
        const c = numbers[node.left.name as keyof typeof numbers][row]!;
        if (Number.isNaN(c) || ![2, 4, 6, 8].includes(String(c).length)) return false;
        const hit = codeMatches(c, (node.right as { value: number }).value);
        return node.op === "=" ? hit : !hit;
      }
      if (isStringNode(node.left)) {
        const a = str(node.left, row);
        const b = str(node.right, row);
        return a !== null && b !== null && compare(node.op, a, b);
      }
      const a = num(node.left, row);
      const b = num(node.right, row);
      return present(a) && present(b) && compare(node.op, a, b);
    }
    case "in": {
      if (isCodeField(node.operand)) {
        const c = numbers[node.operand.name as keyof typeof numbers][row]!;
        if (Number.isNaN(c) || ![2, 4, 6, 8].includes(String(c).length)) return false;
        return node.values.some((v) => codeMatches(c, v as number)) !== node.negated;
      }
      if (isStringNode(node.operand)) {
        const s = str(node.operand, row);
        return s !== null && node.values.some((v) => String(v).toUpperCase() === s) !== node.negated;
      }
      const x = num(node.operand, row);
      return present(x) && node.values.includes(x) !== node.negated;
    }
    case "between": {
      const x = num(node.operand, row);
      const lo = num(node.low, row);
      const hi = num(node.high, row);
      if (!present(x) || !present(lo) || !present(hi)) return false;
      return (lo <= x && x <= hi) !== node.negated;
    }
    case "is_null": {
      const o = node.operand;
      const missing = isStringNode(o)
        ? str(o, row) === null
        : isCodeField(o)
          ? Number.isNaN(numbers[o.name as keyof typeof numbers][row]!)
          : !present(num(o, row));
      return missing !== node.negated;
    }
    default:
      throw new Error(`not a condition: ${node.type}`);
  }
}

// ---- generators of well-typed expressions ----

const field = (name: string): Expr => ({ type: "field", name });
const numLiteral = fc
  .oneof(fc.integer({ min: -3, max: 6 }), fc.constantFrom(0.5, -1.5, 1e-3, 2.5))
  .map((value): Expr => ({ type: "number", value }));

const numberExpr: fc.Memo<Expr> = fc.memo((depth) => {
  const leaf = fc.oneof(fc.constantFrom("pe", "pb", "momentum").map(field), numLiteral);
  if (depth <= 1) return leaf;
  const sub = numberExpr(depth - 1);
  return fc.oneof(
    { arbitrary: leaf, weight: 3 },
    sub.map((operand): Expr => ({ type: "negate", operand })),
    fc
      .tuple(fc.constantFrom("+" as const, "-" as const, "*" as const, "/" as const), sub, sub)
      .map(([op, left, right]): Expr => ({ type: "arithmetic", op, left, right })),
    fc
      .tuple(fc.constantFrom("abs", "sqrt", "log", "exp"), sub)
      .map(([name, a]): Expr => ({ type: "call", name, args: [a] })),
    fc
      .tuple(fc.constantFrom("min", "max", "coalesce"), fc.array(sub, { minLength: 2, maxLength: 3 }))
      .map(([name, args]): Expr => ({ type: "call", name, args })),
    fc.tuple(sub, sub, sub).map((args): Expr => ({ type: "call", name: "clip", args })),
  );
});

const comparisonOp = fc.constantFrom<ComparisonOperator>("=", "!=", "<", "<=", ">", ">=");
const stringOperand = fc.oneof(
  fc.constantFrom("country", "currency").map(field),
  fc.constantFrom("us", "CA", "gb", "usd", "xx").map((value): Expr => ({ type: "string", value })),
);
const codeTest = fc.oneof(
  fc.tuple(fc.constantFrom("=" as const, "!=" as const), fc.constantFrom(10, 40, 45, 50)).map(
    ([op, value]): Expr => ({
      type: "compare",
      op,
      left: field("sector"),
      right: { type: "number", value },
    }),
  ),
  fc
    .tuple(
      fc.constantFrom("sub_industry", "industry_code"),
      fc.constantFrom("=" as const, "!=" as const),
      fc.constantFrom(45, 4510, 451020, 45102010, 40, 4010, 10102020),
    )
    .map(
      ([name, op, value]): Expr => ({
        type: "compare",
        op,
        left: field(name),
        right: { type: "number", value },
      }),
    ),
  fc
    .tuple(
      fc.constantFrom("sub_industry", "industry_code"),
      fc.boolean(),
      fc.uniqueArray(fc.constantFrom(45, 4510, 451020, 45102010, 40, 10102020), {
        minLength: 1,
        maxLength: 4,
      }),
    )
    .map(([name, negated, values]): Expr => ({ type: "in", negated, operand: field(name), values })),
);

const boolExpr: fc.Memo<Expr> = fc.memo((depth) => {
  const num = numberExpr(Math.max(1, depth - 1));
  const leaf = fc.oneof(
    fc.tuple(comparisonOp, num, num).map(([op, left, right]): Expr => ({ type: "compare", op, left, right })),
    fc
      .tuple(fc.constantFrom("=" as const, "!=" as const), stringOperand, stringOperand)
      .map(([op, left, right]): Expr => ({ type: "compare", op, left, right })),
    fc
      .tuple(
        stringOperand,
        fc.boolean(),
        fc.array(fc.constantFrom("us", "CA", "GB", "cad"), { minLength: 1, maxLength: 3 }),
      )
      .map(([operand, negated, values]): Expr => ({ type: "in", negated, operand, values })),
    fc
      .tuple(num, fc.boolean(), fc.array(fc.integer({ min: -2, max: 5 }), { minLength: 1, maxLength: 4 }))
      .map(([operand, negated, values]): Expr => ({ type: "in", negated, operand, values })),
    fc
      .tuple(num, fc.boolean(), num, num)
      .map(([operand, negated, low, high]): Expr => ({ type: "between", negated, operand, low, high })),
    fc
      .tuple(
        fc.oneof(num, stringOperand, fc.constantFrom("sector", "industry_code").map(field)),
        fc.boolean(),
      )
      .map(([operand, negated]): Expr => ({ type: "is_null", negated, operand })),
    codeTest,
    fc.boolean().map((value): Expr => ({ type: "boolean", value })),
  );
  if (depth <= 1) return leaf;
  const sub = boolExpr(depth - 1);
  return fc.oneof(
    { arbitrary: leaf, weight: 3 },
    sub.map((operand): Expr => ({ type: "not", operand })),
    fc
      .tuple(fc.constantFrom("and" as const, "or" as const), fc.array(sub, { minLength: 2, maxLength: 3 }))
      .map(([type, operands]): Expr => ({ type, operands })),
  );
});

const sameNumber = (a: number, b: number): boolean => Object.is(a, b) || (Number.isNaN(a) && Number.isNaN(b));

describe("vectorized evaluation agrees with a row-by-row reference", () => {
  it("on random filters", () => {
    fc.assert(
      fc.property(boolExpr(4), (ast) => {
        const compiled = compileExpression(formatExpression(ast), { fields });
        const got = evaluateFilter(compiled, table);
        for (let row = 0; row < ROWS; row++) {
          if (got[row] !== (bool(ast, row) ? 1 : 0)) {
            throw new Error(`row ${row}: ${formatExpression(ast)} gave ${got[row]}`);
          }
        }
      }),
      { numRuns: 600, seed: 99 },
    );
  });

  it("on random scores", () => {
    fc.assert(
      fc.property(numberExpr(4), (ast) => {
        const compiled = compileExpression(formatExpression(ast), { fields, kind: "score" });
        const got = evaluateScore(compiled, table);
        for (let row = 0; row < ROWS; row++) {
          const want = num(ast, row);
          if (!sameNumber(got[row]!, want) && !(got[row] === 0 && want === 0)) {
            throw new Error(`row ${row}: ${formatExpression(ast)} gave ${got[row]}, want ${want}`);
          }
        }
      }),
      { numRuns: 600, seed: 42 },
    );
  });
});
