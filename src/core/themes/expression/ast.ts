/**
 * @module core/themes/expression/ast
 * The syntax tree of the expression language. Nodes are plain, position-free, JSON-compatible values so
 * that two trees compare with deep equality (`parseExpression(formatExpression(ast))` deep-equals `ast`).
 * Field and function names are stored in canonical lower case; `==`, `<>`, `&&`, `||` and `!` are stored
 * as their canonical forms `=`, `!=`, `and`, `or` and `not`.
 */

/** Comparison operators, canonical spelling. */
export type ComparisonOperator = "=" | "!=" | "<" | "<=" | ">" | ">=";

/** Arithmetic operators. */
export type ArithmeticOperator = "+" | "-" | "*" | "/";

/** A finite number literal. `-2` parses as one literal with value -2; `1%` as 0.01. */
export interface NumberLiteral {
  readonly type: "number";
  readonly value: number;
}

/** A string literal (escapes already decoded). */
export interface StringLiteral {
  readonly type: "string";
  readonly value: string;
}

/** `true` or `false`. */
export interface BooleanLiteral {
  readonly type: "boolean";
  readonly value: boolean;
}

/** A reference to a field of the catalog, by canonical (lower-case) name. */
export interface FieldReference {
  readonly type: "field";
  readonly name: string;
}

/** Unary minus of a non-literal operand (`-x`, `-(1)`). */
export interface Negation {
  readonly type: "negate";
  readonly operand: Expr;
}

/** `left op right` with `op` one of `+ - * /` (left-associative). */
export interface Arithmetic {
  readonly type: "arithmetic";
  readonly op: ArithmeticOperator;
  readonly left: Expr;
  readonly right: Expr;
}

/** `left op right` with `op` a comparison operator (non-associative). */
export interface Comparison {
  readonly type: "compare";
  readonly op: ComparisonOperator;
  readonly left: Expr;
  readonly right: Expr;
}

/** `operand in (v1, v2, ...)`, or `not in` when `negated`. Items are literals. */
export interface InList {
  readonly type: "in";
  readonly negated: boolean;
  readonly operand: Expr;
  readonly values: readonly (number | string)[];
}

/** `operand between low and high` (inclusive), or `not between` when `negated`. */
export interface Between {
  readonly type: "between";
  readonly negated: boolean;
  readonly operand: Expr;
  readonly low: Expr;
  readonly high: Expr;
}

/** `operand is null` (missing), or `is not null` when `negated`. */
export interface IsNull {
  readonly type: "is_null";
  readonly negated: boolean;
  readonly operand: Expr;
}

/** `not operand`. */
export interface Not {
  readonly type: "not";
  readonly operand: Expr;
}

/** `a and b and ...` (at least two operands; a chain written without parentheses is one node). */
export interface And {
  readonly type: "and";
  readonly operands: readonly Expr[];
}

/** `a or b or ...` (at least two operands; a chain written without parentheses is one node). */
export interface Or {
  readonly type: "or";
  readonly operands: readonly Expr[];
}

/** A function call `name(arg, ...)`, name in canonical lower case. */
export interface Call {
  readonly type: "call";
  readonly name: string;
  readonly args: readonly Expr[];
}

/** Any node of the expression syntax tree. */
export type Expr =
  | NumberLiteral
  | StringLiteral
  | BooleanLiteral
  | FieldReference
  | Negation
  | Arithmetic
  | Comparison
  | InList
  | Between
  | IsNull
  | Not
  | And
  | Or
  | Call;

/** Reserved words: they can be neither field nor function names. Matched case-insensitively. */
export const KEYWORDS: ReadonlySet<string> = new Set([
  "and",
  "or",
  "not",
  "in",
  "between",
  "is",
  "null",
  "true",
  "false",
]);

/** Identifier syntax: a letter or `_`, then letters, digits or `_` (ASCII). */
export const IDENTIFIER_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Binding strength of each node type, loosest first; used by the parser's grammar and by the printer. */
export const PRECEDENCE = {
  or: 1,
  and: 2,
  not: 3,
  comparison: 4,
  additive: 5,
  multiplicative: 6,
  unary: 7,
  primary: 8,
} as const;

/** Binding strength of a node (see {@link PRECEDENCE}). */
export function precedenceOf(node: Expr): number {
  switch (node.type) {
    case "or":
      return PRECEDENCE.or;
    case "and":
      return PRECEDENCE.and;
    case "not":
      return PRECEDENCE.not;
    case "compare":
    case "in":
    case "between":
    case "is_null":
      return PRECEDENCE.comparison;
    case "arithmetic":
      return node.op === "+" || node.op === "-" ? PRECEDENCE.additive : PRECEDENCE.multiplicative;
    case "negate":
      return PRECEDENCE.unary;
    default:
      return PRECEDENCE.primary;
  }
}

/** Direct children of a node, in source order. */
export function childrenOf(node: Expr): readonly Expr[] {
  switch (node.type) {
    case "negate":
    case "not":
    case "is_null":
    case "in":
      return [node.operand];
    case "arithmetic":
    case "compare":
      return [node.left, node.right];
    case "between":
      return [node.operand, node.low, node.high];
    case "and":
    case "or":
      return node.operands;
    case "call":
      return node.args;
    default:
      return [];
  }
}
