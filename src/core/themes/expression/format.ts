/**
 * @module core/themes/expression/format
 * Canonical printer: lower-case keywords and names, single-quoted strings, one space around binary
 * operators and the fewest parentheses that keep the tree, so `parseExpression(formatExpression(ast))`
 * deep-equals `ast` for every tree the parser can produce.
 */
import { type Expr, PRECEDENCE, precedenceOf } from "./ast.js";
import { MAX_TREE_HEIGHT } from "./limits.js";

/**
 * Prints a syntax tree as canonical source.
 * @throws {RangeError} when the tree is higher than MAX_TREE_HEIGHT (the parser never builds one).
 * @example formatExpression(parseExpression("NOT (A) OR b && c")) // "not a or b and c"
 */
export function formatExpression(ast: Expr): string {
  return print(ast, 1);
}

function print(node: Expr, height: number): string {
  if (height > MAX_TREE_HEIGHT) {
    throw new RangeError(`formatExpression: the tree is more than ${MAX_TREE_HEIGHT} levels high`);
  }
  const sub = (child: Expr, parenthesize: boolean): string => {
    const text = print(child, height + 1);
    return parenthesize ? `(${text})` : text;
  };
  const own = precedenceOf(node);
  switch (node.type) {
    case "number":
      return formatNumber(node.value);
    case "string":
      return formatString(node.value);
    case "boolean":
      return node.value ? "true" : "false";
    case "field":
      return node.name;
    case "call":
      return `${node.name}(${node.args.map((a) => sub(a, false)).join(", ")})`;
    case "negate": {
      // A literal operand keeps its parentheses: `-1` would read back as the literal -1.
      const text = sub(node.operand, node.operand.type === "number" || precedenceOf(node.operand) < own);
      return text.startsWith("-") ? `- ${text}` : `-${text}`;
    }
    case "arithmetic":
      // Left-associative: the right operand needs parentheses at equal precedence.
      return `${sub(node.left, precedenceOf(node.left) < own)} ${node.op} ${sub(node.right, precedenceOf(node.right) <= own)}`;
    case "compare":
      return `${sub(node.left, precedenceOf(node.left) <= own)} ${node.op} ${sub(node.right, precedenceOf(node.right) <= own)}`;
    case "in": {
      const items = node.values.map((v) => (typeof v === "number" ? formatNumber(v) : formatString(v)));
      return `${sub(node.operand, precedenceOf(node.operand) <= own)} ${node.negated ? "not in" : "in"} (${items.join(", ")})`;
    }
    case "between":
      return `${sub(node.operand, precedenceOf(node.operand) <= own)} ${node.negated ? "not between" : "between"} ${sub(node.low, precedenceOf(node.low) <= own)} and ${sub(node.high, precedenceOf(node.high) <= own)}`;
    case "is_null":
      return `${sub(node.operand, precedenceOf(node.operand) <= own)} is ${node.negated ? "not null" : "null"}`;
    case "not":
      return `not ${sub(node.operand, precedenceOf(node.operand) < PRECEDENCE.not)}`;
    case "and":
    case "or":
      // A nested chain of the same operator keeps its parentheses (the parser flattens only unparenthesized chains).
      return node.operands.map((o) => sub(o, precedenceOf(o) <= own)).join(` ${node.type} `);
  }
}

/** Shortest text that reads back as the same double (`-0` keeps its sign). */
function formatNumber(value: number): string {
  return Object.is(value, -0) ? "-0" : String(value);
}

/** Single-quoted, escaping the quote, the backslash and control characters. */
function formatString(value: string): string {
  let out = "'";
  for (const ch of value) {
    switch (ch) {
      case "'":
        out += "\\'";
        break;
      case "\\":
        out += "\\\\";
        break;
      case "\n":
        out += "\\n";
        break;
      case "\r":
        out += "\\r";
        break;
      case "\t":
        out += "\\t";
        break;
      default: {
        const code = ch.charCodeAt(0);
        out += code < 0x20 || code === 0x7f ? `\\u${code.toString(16).padStart(4, "0")}` : ch;
      }
    }
  }
  return `${out}'`;
}
