/**
 * @module core/themes/expression/compile
 * Name resolution and type checking against a field catalog, and translation of the checked tree into
 * vectorized kernels (one closure per node, each processing whole columns), so evaluation never walks
 * the tree row by row.
 */
import { type Expr, IDENTIFIER_PATTERN, KEYWORDS } from "./ast.js";
import { ExpressionError } from "./expression-error.js";
import { CODE_FIELD_DIGITS, type FieldCatalog, type FieldType } from "./fields.js";
import { FUNCTIONS, type FunctionContext } from "./functions.js";
import {
  arithmetic,
  type BoolVector,
  between,
  codeDigits,
  codeInSet,
  compareNumbers,
  compareStrings,
  isMissingNumber,
  isMissingString,
  map1,
  type NumberVector,
  normalizeString,
  numberInSet,
  type StringVector,
  stringInSet,
} from "./kernels.js";
import { MAX_IDENTIFIER_LENGTH } from "./limits.js";
import { type NodeSpan, parseWithSpans } from "./parser.js";
import { closestName } from "./suggest.js";

/** What an expression is for: a `filter` is a condition, a `score` a number. */
export type ExpressionKind = "filter" | "score";

/** Options of {@link compileExpression}. */
export interface CompileOptions {
  /** The fields the expression may use and their types (names matched case-insensitively). */
  fields: FieldCatalog;
  /** @default "filter" */
  kind?: ExpressionKind;
  /** Where the expression sits in the caller's request, used as the error's issue path. @default "expression" */
  path?: string;
}

/** A checked expression, ready for {@link evaluateFilter} / {@link evaluateScore}. Immutable. */
export interface CompiledExpression {
  readonly kind: ExpressionKind;
  readonly source: string;
  readonly ast: Expr;
  /** Fields the expression reads, sorted, canonical (lower-case) names. */
  readonly fields: readonly string[];
  /** True when it uses `rank`, `percentile` or `zscore`, whose values depend on the universe. */
  readonly crossSectional: boolean;
}

/** What the kernels read at evaluation time. */
export interface EvaluationContext extends FunctionContext {
  readonly numbers: ReadonlyMap<string, Float64Array>;
  readonly strings: ReadonlyMap<string, readonly (string | null | undefined)[]>;
}

/** The executable form of a compiled expression. */
export interface Program {
  readonly kind: ExpressionKind;
  /** Type of every referenced field (decides how its column is validated). */
  readonly fieldTypes: ReadonlyMap<string, FieldType>;
  readonly run: (ctx: EvaluationContext) => NumberVector | BoolVector;
}

const programs = new WeakMap<CompiledExpression, Program>();

/**
 * The program behind a compiled expression.
 * @throws {TypeError} when `compiled` did not come from {@link compileExpression}.
 */
export function programOf(compiled: CompiledExpression, caller: string): Program {
  const program = typeof compiled === "object" && compiled !== null ? programs.get(compiled) : undefined;
  if (program === undefined) {
    throw new TypeError(`${caller}: expected an expression returned by compileExpression`);
  }
  return program;
}

/**
 * Parses and type-checks an expression against a field catalog.
 *
 * @throws {ExpressionError} (code `invalid_expression`) on a syntax error, an unknown field or function
 *   (with a "did you mean" suggestion), a type error, an exceeded limit, a filter that is not a condition or
 *   a score that is not a number. `position` and `expected` say where and what.
 * @throws {TypeError} when the catalog is malformed (a name that is not an identifier, a keyword, an unknown type).
 * @example
 * const fields = { country: "string", sector: "code", dividend_yield: "number" } as const;
 * const e = compileExpression("country = 'US' and sector = 45 and dividend_yield > 1%", { fields });
 * e.fields // ["country", "dividend_yield", "sector"]
 */
export function compileExpression(source: string, options: CompileOptions): CompiledExpression {
  if (typeof options !== "object" || options === null) {
    throw new TypeError("compileExpression: options must be an object with a fields catalog");
  }
  const kind = options.kind ?? "filter";
  if (kind !== "filter" && kind !== "score") {
    throw new TypeError(`compileExpression: kind must be 'filter' or 'score', got '${String(kind)}'`);
  }
  const catalog = normalizeCatalog(options.fields);
  const { ast, spans } = parseWithSpans(source, options.path);
  const checker = new Checker(catalog, spans, options.path);
  const root = checker.check(ast);
  const start = spans.get(ast)!.start;
  let run: Program["run"];
  if (kind === "filter") {
    if (root.type !== "boolean") {
      throw checker.error(
        `A filter must be a condition (true/false) but this expression is ${typeName(root.type)}; compare it, as in market_cap > 0`,
        start,
        ["a condition"],
      );
    }
    run = root.run;
  } else {
    if (root.type !== "number") {
      throw checker.error(`A score must be a number but this expression is ${typeName(root.type)}`, start, [
        "a number",
      ]);
    }
    run = root.run;
  }
  const fieldTypes = new Map(
    [...checker.referenced].sort().map((name) => [name, catalog.get(name)!] as const),
  );
  const compiled: CompiledExpression = Object.freeze({
    kind,
    source,
    ast,
    fields: Object.freeze([...fieldTypes.keys()]),
    crossSectional: checker.crossSectional,
  });
  programs.set(compiled, { kind, fieldTypes, run });
  return compiled;
}

/** Result of {@link safeCompileExpression}. */
export type SafeCompileResult =
  | { readonly success: true; readonly expression: CompiledExpression }
  | { readonly success: false; readonly error: ExpressionError };

/**
 * {@link compileExpression} that returns expression errors as a value instead of throwing them (for
 * validating many user expressions at once).
 * @throws {TypeError} on a malformed catalog (caller misuse, not bad user input).
 */
export function safeCompileExpression(source: string, options: CompileOptions): SafeCompileResult {
  try {
    return { success: true, expression: compileExpression(source, options) };
  } catch (error) {
    if (error instanceof ExpressionError) return { success: false, error };
    throw error;
  }
}

/**
 * The fields an expression reads (sorted, canonical names): for a compiled expression those it was
 * checked against; for a bare syntax tree every field reference in it.
 * @example referencedFields(compileExpression("pe < 20 and sector = 45", { fields })) // ["pe", "sector"]
 */
export function referencedFields(expression: CompiledExpression | Expr): string[] {
  if ("ast" in expression) return [...expression.fields];
  const names = new Set<string>();
  const stack: Expr[] = [expression];
  while (stack.length > 0) {
    const node = stack.pop()!;
    switch (node.type) {
      case "field":
        names.add(node.name);
        break;
      case "negate":
      case "not":
      case "is_null":
      case "in":
        stack.push(node.operand);
        break;
      case "arithmetic":
      case "compare":
        stack.push(node.left, node.right);
        break;
      case "between":
        stack.push(node.operand, node.low, node.high);
        break;
      case "and":
      case "or":
        stack.push(...node.operands);
        break;
      case "call":
        stack.push(...node.args);
        break;
      default:
        break;
    }
  }
  return [...names].sort();
}

// ---- catalog ----

const FIELD_TYPES: ReadonlySet<string> = new Set(["number", "string", "code"]);

function normalizeCatalog(fields: FieldCatalog): Map<string, FieldType> {
  if (typeof fields !== "object" || fields === null) {
    throw new TypeError("compileExpression: options.fields must be a Map or a record of field name -> type");
  }
  const entries: Iterable<readonly [string, FieldType]> =
    fields instanceof Map ? fields.entries() : Object.entries(fields as Record<string, FieldType>);
  const out = new Map<string, FieldType>();
  for (const [raw, type] of entries) {
    if (typeof raw !== "string" || !IDENTIFIER_PATTERN.test(raw) || raw.length > MAX_IDENTIFIER_LENGTH) {
      throw new TypeError(
        `compileExpression: field name '${String(raw)}' is not an identifier ([A-Za-z_][A-Za-z0-9_]*)`,
      );
    }
    const name = raw.toLowerCase();
    if (KEYWORDS.has(name)) throw new TypeError(`compileExpression: field name '${raw}' is a reserved word`);
    if (!FIELD_TYPES.has(type)) {
      throw new TypeError(
        `compileExpression: field '${raw}' has type '${String(type)}'; expected 'number', 'string' or 'code'`,
      );
    }
    const previous = out.get(name);
    if (previous !== undefined && previous !== type) {
      throw new TypeError(`compileExpression: field '${name}' is declared twice with different types`);
    }
    out.set(name, type);
  }
  return out;
}

// ---- type checking and kernel construction ----

type ValueType = FieldType | "boolean";

type Typed =
  | { readonly type: "number"; readonly run: (ctx: EvaluationContext) => NumberVector }
  | { readonly type: "boolean"; readonly run: (ctx: EvaluationContext) => BoolVector }
  | { readonly type: "string"; readonly run: (ctx: EvaluationContext) => StringVector }
  | { readonly type: "code"; readonly field: string };

function typeName(type: ValueType): string {
  switch (type) {
    case "number":
      return "a number";
    case "string":
      return "a string";
    case "code":
      return "an industry code";
    case "boolean":
      return "a condition (true/false)";
  }
}

function shortText(s: string): string {
  return s.length > 24 ? `${s.slice(0, 24)}…` : s;
}

/** A node as named in a type-error message: `'country' (a string)`, `1 (a number)`, or just its type. */
function describeOperand(node: Expr, type: ValueType): string {
  switch (node.type) {
    case "field":
      return `'${node.name}' (${typeName(type)})`;
    case "number":
      return `${node.value} (a number)`;
    case "string":
      return `'${shortText(node.value)}' (a string)`;
    default:
      return typeName(type);
  }
}

const CODE_LEVEL_FIELD: ReadonlyMap<number, string> = new Map([
  [2, "sector"],
  [4, "industry_group"],
  [6, "industry"],
  [8, "sub_industry"],
]);

class Checker {
  readonly referenced = new Set<string>();
  crossSectional = false;

  constructor(
    private readonly catalog: ReadonlyMap<string, FieldType>,
    private readonly spans: WeakMap<Expr, NodeSpan>,
    private readonly path: string | undefined,
  ) {}

  error(
    message: string,
    position: number,
    expected: readonly string[] = [],
    found?: string,
  ): ExpressionError {
    return new ExpressionError(message, position, {
      expected,
      ...(found === undefined ? {} : { found }),
      ...(this.path === undefined ? {} : { path: this.path }),
    });
  }

  private at(node: Expr): number {
    return this.spans.get(node)!.at;
  }

  private startOf(node: Expr): number {
    return this.spans.get(node)!.start;
  }

  check(node: Expr): Typed {
    switch (node.type) {
      case "number": {
        const value = node.value;
        return { type: "number", run: () => value };
      }
      case "string": {
        const value = normalizeString(node.value);
        return { type: "string", run: () => value };
      }
      case "boolean": {
        const value = node.value;
        return { type: "boolean", run: () => value };
      }
      case "field":
        return this.field(node.name, this.at(node));
      case "negate": {
        const operand = this.number(node.operand, "Operand of '-'");
        return { type: "number", run: (ctx) => map1(operand(ctx), negate, ctx.size) };
      }
      case "arithmetic": {
        const left = this.number(node.left, `Left operand of '${node.op}'`);
        const right = this.number(node.right, `Right operand of '${node.op}'`);
        const op = node.op;
        return { type: "number", run: (ctx) => arithmetic(op, left(ctx), right(ctx), ctx.size) };
      }
      case "compare":
        return this.comparison(node);
      case "in":
        return this.inList(node);
      case "between": {
        const what = `'${node.negated ? "not between" : "between"}'`;
        const operand = this.number(node.operand, `Operand of ${what}`);
        const low = this.number(node.low, `Lower bound of ${what}`);
        const high = this.number(node.high, `Upper bound of ${what}`);
        const negated = node.negated;
        return {
          type: "boolean",
          run: (ctx) => between(operand(ctx), low(ctx), high(ctx), negated, ctx.size),
        };
      }
      case "is_null": {
        const operand = this.check(node.operand);
        const negated = node.negated;
        switch (operand.type) {
          case "boolean":
            throw this.error(
              `'is ${negated ? "not " : ""}null' at position ${this.at(node)} applies to fields and values, not to conditions`,
              this.at(node),
              ["a number", "a string", "an industry code"],
            );
          case "string": {
            const run = operand.run;
            return { type: "boolean", run: (ctx) => isMissingString(run(ctx), negated, ctx.size) };
          }
          case "code": {
            const field = operand.field;
            return {
              type: "boolean",
              run: (ctx) => isMissingNumber(ctx.numbers.get(field)!, negated, ctx.size),
            };
          }
          case "number": {
            const run = operand.run;
            return { type: "boolean", run: (ctx) => isMissingNumber(run(ctx), negated, ctx.size) };
          }
        }
        break;
      }
      case "not": {
        const operand = this.condition(node.operand, "Operand of 'not'");
        return { type: "boolean", run: (ctx) => not(operand(ctx)) };
      }
      case "and":
      case "or": {
        const operands = node.operands.map((o) => this.condition(o, `Operand of '${node.type}'`));
        const isAnd = node.type === "and";
        return { type: "boolean", run: (ctx) => combine(operands, isAnd, ctx) };
      }
      case "call":
        return this.call(node);
    }
    throw new TypeError(`compileExpression: unknown node type '${(node as { type: string }).type}'`);
  }

  private field(name: string, position: number): Typed {
    const type = this.catalog.get(name);
    if (type === undefined) {
      const suggestion = closestName(name, this.catalog.keys());
      let message = `Unknown field '${name}' at position ${position}`;
      if (suggestion !== undefined) message += `; did you mean '${suggestion}'?`;
      else if (FUNCTIONS.has(name)) message += `; '${name}' is a function: call it as ${name}(...)`;
      throw this.error(message, position, [...this.catalog.keys()].sort(), `'${name}'`);
    }
    this.referenced.add(name);
    switch (type) {
      case "number":
        return { type, run: (ctx) => ctx.numbers.get(name)! };
      case "string":
        return { type, run: (ctx) => ctx.strings.get(name)! };
      case "code":
        return { type, field: name };
    }
  }

  /** Checks that `node` is a number and returns its kernel. */
  private number(node: Expr, role: string): (ctx: EvaluationContext) => NumberVector {
    const typed = this.check(node);
    if (typed.type === "number") return typed.run;
    const hint = typed.type === "code" ? "; industry codes are labels, not quantities" : "";
    throw this.error(
      `${role} at position ${this.startOf(node)} must be a number but is ${describeOperand(node, typed.type)}${hint}`,
      this.startOf(node),
      ["a number"],
    );
  }

  /** Checks that `node` is a condition and returns its kernel. */
  private condition(node: Expr, role: string): (ctx: EvaluationContext) => BoolVector {
    const typed = this.check(node);
    if (typed.type === "boolean") return typed.run;
    throw this.error(
      `${role} at position ${this.startOf(node)} must be a condition (true/false) but is ${describeOperand(node, typed.type)}; compare it, as in pe > 0`,
      this.startOf(node),
      ["a condition"],
    );
  }

  /** Validates an integer code literal against a code field; returns its number of digits. */
  private codeLiteral(value: number, position: number, field: string): number {
    const digits = codeDigits(value);
    if (digits === 0 || digits % 2 !== 0 || digits > 8) {
      throw this.error(
        `Industry code ${value} at position ${position} must be an integer of 2, 4, 6 or 8 digits (sector 45, industry group 4510, industry 451020, sub-industry 45102010)`,
        position,
        ["an industry code"],
      );
    }
    const level = CODE_FIELD_DIGITS.get(field);
    if (level !== undefined && digits > level) {
      const right = CODE_LEVEL_FIELD.get(digits)!;
      throw this.error(
        `'${field}' holds ${level}-digit codes, so ${value} at position ${position} can never match; write ${right} = ${value} or industry_code = ${value}`,
        position,
        [`a ${level}-digit code or shorter`],
      );
    }
    return digits;
  }

  private comparison(node: Expr & { type: "compare" }): Typed {
    const left = this.check(node.left);
    const right = this.check(node.right);
    const op = node.op;
    const position = this.at(node);
    if (left.type === "boolean" || right.type === "boolean") {
      throw this.error(
        `Cannot compare a condition (true/false) with '${op}' at position ${position}; combine conditions with 'and', 'or' and 'not'`,
        position,
        ["'and'", "'or'"],
      );
    }
    if (left.type === "code" || right.type === "code") {
      const codeSide = left.type === "code" ? left : (right as Typed & { type: "code" });
      const otherNode = left.type === "code" ? node.right : node.left;
      const otherType = left.type === "code" ? right.type : left.type;
      if (op !== "=" && op !== "!=") {
        throw this.error(
          `Industry codes can only be tested with =, !=, in and not in; '${op}' at position ${position} does not apply to '${codeSide.field}'`,
          position,
          ["'='", "'!='", "'in'", "'not in'"],
        );
      }
      if (otherNode.type !== "number") {
        throw this.error(
          `'${codeSide.field}' holds industry codes: compare it with an integer code such as 45, not with ${describeOperand(otherNode, otherType)}, at position ${this.startOf(otherNode)}`,
          this.startOf(otherNode),
          ["an industry code"],
        );
      }
      const value = otherNode.value;
      const digits = this.codeLiteral(value, this.startOf(otherNode), codeSide.field);
      const field = codeSide.field;
      const byDigits = new Map([[digits, new Set([value])]]);
      const negated = op === "!=";
      return {
        type: "boolean",
        run: (ctx) => codeInSet(ctx.numbers.get(field)!, byDigits, negated, ctx.size),
      };
    }
    if (left.type !== right.type) {
      throw this.error(
        `Cannot compare ${describeOperand(node.left, left.type)} with ${describeOperand(node.right, right.type)} at position ${position}`,
        position,
        [typeName(left.type)],
      );
    }
    if (left.type === "string" && right.type === "string") {
      if (op !== "=" && op !== "!=") {
        throw this.error(
          `Strings can only be compared with =, !=, in and not in; '${op}' at position ${position} does not apply to strings`,
          position,
          ["'='", "'!='", "'in'", "'not in'"],
        );
      }
      const a = left.run;
      const b = right.run;
      return { type: "boolean", run: (ctx) => compareStrings(op, a(ctx), b(ctx), ctx.size) };
    }
    const a = (left as Typed & { type: "number" }).run;
    const b = (right as Typed & { type: "number" }).run;
    return { type: "boolean", run: (ctx) => compareNumbers(op, a(ctx), b(ctx), ctx.size) };
  }

  private inList(node: Expr & { type: "in" }): Typed {
    const operand = this.check(node.operand);
    const span = this.spans.get(node)!;
    const items = span.items ?? [];
    const negated = node.negated;
    const keyword = negated ? "not in" : "in";
    const wrongItem = (k: number, want: string): never => {
      const v = node.values[k]!;
      const shown = typeof v === "string" ? `'${shortText(v)}' (a string)` : `${v} (a number)`;
      throw this.error(
        `Item ${k + 1} of the '${keyword}' list at position ${items[k] ?? span.at} is ${shown} but ${describeOperand(node.operand, operand.type)} needs ${want}`,
        items[k] ?? span.at,
        [want],
      );
    };
    switch (operand.type) {
      case "boolean":
        throw this.error(
          `Cannot test a condition (true/false) with '${keyword}' at position ${span.at}`,
          span.at,
          ["a number", "a string", "an industry code"],
        );
      case "code": {
        const byDigits = new Map<number, Set<number>>();
        node.values.forEach((v, k) => {
          if (typeof v !== "number") wrongItem(k, "an industry code");
          const digits = this.codeLiteral(v as number, items[k] ?? span.at, operand.field);
          const set = byDigits.get(digits) ?? new Set<number>();
          set.add(v as number);
          byDigits.set(digits, set);
        });
        const field = operand.field;
        return {
          type: "boolean",
          run: (ctx) => codeInSet(ctx.numbers.get(field)!, byDigits, negated, ctx.size),
        };
      }
      case "string": {
        const set = new Set<string>();
        node.values.forEach((v, k) => {
          if (typeof v !== "string") wrongItem(k, "a string");
          set.add(normalizeString(v as string));
        });
        const run = operand.run;
        return { type: "boolean", run: (ctx) => stringInSet(run(ctx), set, negated, ctx.size) };
      }
      case "number": {
        const set = new Set<number>();
        node.values.forEach((v, k) => {
          if (typeof v !== "number") wrongItem(k, "a number");
          set.add(v as number);
        });
        const run = operand.run;
        return { type: "boolean", run: (ctx) => numberInSet(run(ctx), set, negated, ctx.size) };
      }
    }
  }

  private call(node: Expr & { type: "call" }): Typed {
    const position = this.at(node);
    const definition = FUNCTIONS.get(node.name);
    if (definition === undefined) {
      const names = [...FUNCTIONS.keys()].sort();
      const suggestion = closestName(node.name, names);
      let message = `Unknown function '${node.name}' at position ${position}`;
      if (suggestion !== undefined) message += `; did you mean '${suggestion}'?`;
      else if (this.catalog.has(node.name)) message += `; '${node.name}' is a field, not a function`;
      else message += `; the functions are ${names.join(", ")}`;
      throw this.error(message, position, names, `'${node.name}'`);
    }
    const count = node.args.length;
    if (count < definition.minArgs || count > definition.maxArgs) {
      const { minArgs, maxArgs } = definition;
      const plural = (n: number) => `${n} argument${n === 1 ? "" : "s"}`;
      const wanted =
        minArgs === maxArgs
          ? plural(minArgs)
          : maxArgs === Number.POSITIVE_INFINITY
            ? `at least ${plural(minArgs)}`
            : `${minArgs} to ${maxArgs} arguments`;
      throw this.error(
        `Function '${node.name}' at position ${position} takes ${wanted} but got ${count}`,
        position,
        [wanted],
      );
    }
    const args = node.args.map((a, k) => this.number(a, `Argument ${k + 1} of '${node.name}'`));
    if (definition.crossSectional) this.crossSectional = true;
    const apply = definition.apply;
    return {
      type: "number",
      run: (ctx) =>
        apply(
          args.map((a) => a(ctx)),
          ctx,
        ),
    };
  }
}

function negate(x: number): number {
  return -x;
}

function not(x: BoolVector): BoolVector {
  if (typeof x === "boolean") return !x;
  for (let i = 0; i < x.length; i++) x[i] = x[i]! ^ 1;
  return x;
}

/** `and` / `or` of conditions; the first array operand is reused as the accumulator (kernel outputs are fresh). */
function combine(
  operands: readonly ((ctx: EvaluationContext) => BoolVector)[],
  isAnd: boolean,
  ctx: EvaluationContext,
): BoolVector {
  let acc: BoolVector = isAnd;
  for (const operand of operands) {
    const v = operand(ctx);
    if (typeof v === "boolean") {
      // true and x = x; false and x = false (and dually for or).
      if (v !== isAnd) acc = v;
      continue;
    }
    if (typeof acc === "boolean") {
      acc = acc === isAnd ? v : acc;
      continue;
    }
    if (isAnd) for (let i = 0; i < acc.length; i++) acc[i] = acc[i]! & v[i]!;
    else for (let i = 0; i < acc.length; i++) acc[i] = acc[i]! | v[i]!;
  }
  return acc;
}
