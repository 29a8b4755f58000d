/**
 * @module core/themes/expression/parser
 * Recursive-descent parser of the expression language (grammar in docs/expression-language.md):
 *
 *   or < and < not < comparison < additive < multiplicative < unary < primary
 *
 * Errors carry the position and the alternatives that were tried there (collected while parsing, so the
 * `expected` list is exactly what the grammar would have accepted). Nesting is counted on the way down
 * and the tree height on the way up; both are bounded (see limits.ts) so no input can exhaust the stack.
 */
import type { ComparisonOperator, Expr } from "./ast.js";
import { childrenOf } from "./ast.js";
import { ExpressionError, joinAlternatives } from "./expression-error.js";
import { describeCharacter, type Token, tokenize } from "./lexer.js";
import { MAX_IN_LIST_LENGTH, MAX_NESTING_DEPTH, MAX_TREE_HEIGHT } from "./limits.js";

/** Where a node came from: `start` is its first character, `at` its operator (or `start` for leaves). */
export interface NodeSpan {
  readonly start: number;
  readonly at: number;
  /** Positions of the items of an `in` list. */
  readonly items?: readonly number[];
}

/** A syntax tree with the source position of every node (kept aside so the tree stays position-free). */
export interface ParseResult {
  readonly ast: Expr;
  readonly spans: WeakMap<Expr, NodeSpan>;
}

const COMPARISON_OPERATORS: ReadonlySet<string> = new Set(["=", "!=", "<", "<=", ">", ">="]);
const OPERATOR = "an operator";
const EXPRESSION = "an expression";

/**
 * Parses expression source into a syntax tree without checking names or types (see `compileExpression`
 * for that). Field and function names come out in lower case.
 * @throws {ExpressionError} on any syntax error or exceeded limit, with `position` and `expected`.
 * @throws {TypeError} when `source` is not a string.
 * @example parseExpression("not a or b") // { type: "or", operands: [{ type: "not", ... }, { type: "field", name: "b" }] }
 */
export function parseExpression(source: string): Expr {
  return parseWithSpans(source).ast;
}

/**
 * {@link parseExpression} plus the source position of every node, for type-error messages.
 * @param path where the expression sits in the caller's request, for the error's issue path.
 */
export function parseWithSpans(source: string, path?: string): ParseResult {
  if (typeof source !== "string") {
    throw new TypeError(
      `parseExpression: source must be a string, got ${source === null ? "null" : typeof source}`,
    );
  }
  const parser = new Parser(tokenize(source, path), path);
  return { ast: parser.parseAll(), spans: parser.spans };
}

class Parser {
  readonly spans = new WeakMap<Expr, NodeSpan>();
  private readonly heights = new WeakMap<Expr, number>();
  private index = 0;
  private depth = 0;
  private noted: string[] = [];
  private notedAt = -1;

  constructor(
    private readonly tokens: readonly Token[],
    private readonly path: string | undefined,
  ) {}

  parseAll(): Expr {
    const ast = this.parseOr();
    this.note("end of input");
    if (this.peek().kind !== "eof") this.fail();
    return ast;
  }

  // ---- token helpers ----

  private peek(): Token {
    const t = this.tokens[this.index]!;
    if (t.kind === "error") throw t.error;
    return t;
  }

  private advance(): Token {
    const t = this.peek();
    this.index++;
    return t;
  }

  private isKeyword(t: Token, name: string): boolean {
    return t.kind === "keyword" && t.name === name;
  }

  private isPunctuation(t: Token, text: string): boolean {
    return t.kind === "punctuation" && t.text === text;
  }

  /** Records that `label` would have been accepted at the current token. */
  private note(label: string): void {
    if (this.notedAt !== this.index) {
      this.noted = [];
      this.notedAt = this.index;
    }
    if (!this.noted.includes(label)) this.noted.push(label);
  }

  private error(message: string, position: number, expected: readonly string[] = [], found?: string) {
    return new ExpressionError(message, position, {
      expected,
      ...(found === undefined ? {} : { found }),
      ...(this.path === undefined ? {} : { path: this.path }),
    });
  }

  /** Throws "Expected <what was noted here> at position N but found <token>". */
  private fail(): never {
    const t = this.peek();
    const expected = this.notedAt === this.index ? [...this.noted] : [];
    const found = describeToken(t);
    let message = `Expected ${joinAlternatives(expected)} at position ${t.start} but found ${found}`;
    if (t.kind === "bad_operator") message += `; did you mean '${t.suggestion}'?`;
    else if (t.kind === "invalid" && t.hint !== undefined) message += `; ${t.hint}`;
    else if (t.kind === "keyword" && t.name === "null")
      message += "; write 'is null' or 'is not null' to test for a missing value";
    throw this.error(message, t.start, expected, found);
  }

  private enter(position: number): void {
    this.depth++;
    if (this.depth > MAX_NESTING_DEPTH) {
      throw this.error(
        `Expression is nested too deeply at position ${position}: more than ${MAX_NESTING_DEPTH} levels of parentheses, function calls, 'not' or '-'`,
        position,
      );
    }
  }

  private leave(): void {
    this.depth--;
  }

  /** Registers a new node: height check, span, freeze. */
  private make<T extends Expr>(node: T, start: number, at: number, items?: readonly number[]): T {
    let height = 1;
    for (const child of childrenOf(node)) height = Math.max(height, 1 + (this.heights.get(child) ?? 1));
    if (height > MAX_TREE_HEIGHT) {
      throw this.error(
        `Expression is nested too deeply at position ${at}: its syntax tree would be more than ${MAX_TREE_HEIGHT} levels high`,
        at,
      );
    }
    this.heights.set(node, height);
    this.spans.set(node, items === undefined ? { start, at } : { start, at, items });
    return Object.freeze(node);
  }

  private startOf(node: Expr): number {
    return this.spans.get(node)!.start;
  }

  // ---- grammar ----

  private parseOr(): Expr {
    const first = this.parseAnd();
    const operands = [first];
    let at = -1;
    for (;;) {
      this.note("'or'");
      const t = this.peek();
      if (!this.isKeyword(t, "or")) break;
      if (at < 0) at = t.start;
      this.advance();
      operands.push(this.parseAnd());
    }
    if (operands.length === 1) return first;
    Object.freeze(operands);
    return this.make({ type: "or", operands }, this.startOf(first), at);
  }

  private parseAnd(): Expr {
    const first = this.parseNot();
    const operands = [first];
    let at = -1;
    for (;;) {
      this.note("'and'");
      const t = this.peek();
      if (!this.isKeyword(t, "and")) break;
      if (at < 0) at = t.start;
      this.advance();
      operands.push(this.parseNot());
    }
    if (operands.length === 1) return first;
    Object.freeze(operands);
    return this.make({ type: "and", operands }, this.startOf(first), at);
  }

  private parseNot(): Expr {
    const t = this.peek();
    if (!this.isKeyword(t, "not")) return this.parseComparison();
    this.advance();
    this.enter(t.start);
    const operand = this.parseNot();
    this.leave();
    return this.make({ type: "not", operand }, t.start, t.start);
  }

  private parseComparison(): Expr {
    const left = this.parseAdditive();
    const start = this.startOf(left);
    this.note(OPERATOR);
    const t = this.peek();
    let result: Expr;
    if (t.kind === "punctuation" && COMPARISON_OPERATORS.has(t.text)) {
      this.advance();
      const right = this.parseAdditive();
      result = this.make({ type: "compare", op: t.text as ComparisonOperator, left, right }, start, t.start);
    } else if (this.isKeyword(t, "in")) {
      this.advance();
      result = this.parseInList(left, false, start, t.start);
    } else if (this.isKeyword(t, "between")) {
      this.advance();
      result = this.parseBetween(left, false, start, t.start);
    } else if (this.isKeyword(t, "is")) {
      this.advance();
      result = this.parseIsNull(left, start, t.start);
    } else if (this.isKeyword(t, "not")) {
      this.advance();
      const u = this.peek();
      if (this.isKeyword(u, "in")) {
        this.advance();
        result = this.parseInList(left, true, start, t.start);
      } else if (this.isKeyword(u, "between")) {
        this.advance();
        result = this.parseBetween(left, true, start, t.start);
      } else {
        this.note("'in'");
        this.note("'between'");
        this.fail();
      }
    } else {
      return left;
    }
    // Comparisons do not chain: `a < b < c` would compare a condition with a number.
    const u = this.peek();
    if (
      (u.kind === "punctuation" && COMPARISON_OPERATORS.has(u.text)) ||
      this.isKeyword(u, "in") ||
      this.isKeyword(u, "between") ||
      this.isKeyword(u, "is")
    ) {
      throw this.error(
        `Comparisons cannot be chained at position ${u.start}: join them with 'and', as in 'a < b and b < c'`,
        u.start,
        ["'and'", "'or'"],
        describeToken(u),
      );
    }
    return result;
  }

  private parseInList(operand: Expr, negated: boolean, start: number, at: number): Expr {
    this.note("'('");
    if (!this.isPunctuation(this.peek(), "(")) this.fail();
    this.advance();
    const values: (number | string)[] = [];
    const items: number[] = [];
    for (;;) {
      const t = this.peek();
      let value: number | string;
      if (t.kind === "number" || t.kind === "string") {
        this.advance();
        value = t.value;
      } else if (this.isPunctuation(t, "-") && this.tokens[this.index + 1]?.kind === "number") {
        this.advance();
        const u = this.advance();
        value = -(u as Token & { kind: "number" }).value;
      } else {
        this.note("a number");
        this.note("a string");
        this.fail();
      }
      if (values.length === MAX_IN_LIST_LENGTH) {
        throw this.error(
          `List at position ${at} has more than ${MAX_IN_LIST_LENGTH} items; split it or use a broader condition`,
          t.start,
        );
      }
      values.push(value);
      items.push(t.start);
      this.note("','");
      this.note("')'");
      const sep = this.peek();
      if (this.isPunctuation(sep, ",")) {
        this.advance();
      } else if (this.isPunctuation(sep, ")")) {
        this.advance();
        break;
      } else {
        this.fail();
      }
    }
    Object.freeze(values);
    return this.make({ type: "in", negated, operand, values }, start, at, Object.freeze(items));
  }

  private parseBetween(operand: Expr, negated: boolean, start: number, at: number): Expr {
    const low = this.parseAdditive();
    this.note("'and'");
    if (!this.isKeyword(this.peek(), "and")) this.fail();
    this.advance();
    const high = this.parseAdditive();
    return this.make({ type: "between", negated, operand, low, high }, start, at);
  }

  private parseIsNull(operand: Expr, start: number, at: number): Expr {
    let negated = false;
    if (this.isKeyword(this.peek(), "not")) {
      this.advance();
      negated = true;
    } else {
      this.note("'not'");
    }
    this.note("'null'");
    if (!this.isKeyword(this.peek(), "null")) this.fail();
    this.advance();
    return this.make({ type: "is_null", negated, operand }, start, at);
  }

  private parseAdditive(): Expr {
    let left = this.parseMultiplicative();
    for (;;) {
      this.note(OPERATOR);
      const t = this.peek();
      if (!(this.isPunctuation(t, "+") || this.isPunctuation(t, "-"))) return left;
      this.advance();
      const right = this.parseMultiplicative();
      const op = t.kind === "punctuation" && t.text === "+" ? "+" : "-";
      left = this.make({ type: "arithmetic", op, left, right }, this.startOf(left), t.start);
    }
  }

  private parseMultiplicative(): Expr {
    let left = this.parseUnary();
    for (;;) {
      this.note(OPERATOR);
      const t = this.peek();
      if (!(this.isPunctuation(t, "*") || this.isPunctuation(t, "/"))) return left;
      this.advance();
      const right = this.parseUnary();
      const op = t.kind === "punctuation" && t.text === "*" ? "*" : "/";
      left = this.make({ type: "arithmetic", op, left, right }, this.startOf(left), t.start);
    }
  }

  private parseUnary(): Expr {
    const t = this.peek();
    if (!this.isPunctuation(t, "-")) return this.parsePrimary();
    this.advance();
    const u = this.peek();
    // A minus directly before a number is part of the literal: `-2` is the number -2.
    if (u.kind === "number") {
      this.advance();
      return this.make({ type: "number", value: -u.value }, t.start, t.start);
    }
    this.enter(t.start);
    const operand = this.parseUnary();
    this.leave();
    return this.make({ type: "negate", operand }, t.start, t.start);
  }

  private parsePrimary(): Expr {
    const t = this.peek();
    switch (t.kind) {
      case "number":
        this.advance();
        return this.make({ type: "number", value: t.value }, t.start, t.start);
      case "string":
        this.advance();
        return this.make({ type: "string", value: t.value }, t.start, t.start);
      case "keyword":
        if (t.name === "true" || t.name === "false") {
          this.advance();
          return this.make({ type: "boolean", value: t.name === "true" }, t.start, t.start);
        }
        break;
      case "identifier": {
        this.advance();
        if (!this.isPunctuation(this.peek(), "(")) {
          return this.make({ type: "field", name: t.name }, t.start, t.start);
        }
        this.advance();
        this.enter(t.start);
        const args: Expr[] = [];
        this.note(EXPRESSION);
        this.note("')'");
        if (this.isPunctuation(this.peek(), ")")) {
          this.advance();
        } else {
          for (;;) {
            args.push(this.parseOr());
            this.note("','");
            this.note("')'");
            const sep = this.peek();
            if (this.isPunctuation(sep, ",")) {
              this.advance();
            } else if (this.isPunctuation(sep, ")")) {
              this.advance();
              break;
            } else {
              this.fail();
            }
          }
        }
        this.leave();
        Object.freeze(args);
        return this.make({ type: "call", name: t.name, args }, t.start, t.start);
      }
      case "punctuation":
        if (t.text === "(") {
          this.advance();
          this.enter(t.start);
          const inner = this.parseOr();
          this.note("')'");
          if (!this.isPunctuation(this.peek(), ")")) this.fail();
          this.advance();
          this.leave();
          return inner;
        }
        break;
      default:
        break;
    }
    this.note(EXPRESSION);
    return this.fail();
  }
}

/** How a token is named in "but found ..." (long tokens are shortened). */
function describeToken(t: Token): string {
  const short = (s: string) => (s.length > 24 ? `${s.slice(0, 24)}…` : s);
  switch (t.kind) {
    case "eof":
      return "end of input";
    case "string":
      return `string ${short(t.raw)}`;
    case "invalid":
      return describeCharacter(t.raw);
    default:
      return `'${short(t.raw)}'`;
  }
}
