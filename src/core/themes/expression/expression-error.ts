/**
 * @module core/themes/expression/expression-error
 * The one error the expression language throws for bad input: syntax, type and limit errors alike.
 */
import { ValidationError } from "../../errors.js";

/** Options of {@link ExpressionError}. */
export interface ExpressionErrorOptions {
  /** What would have been valid at `position` (e.g. `"')'"`, `"an operator"`, field names). @default [] */
  expected?: readonly string[];
  /** Description of what was found instead (e.g. `"end of input"`, `"'y'"`). */
  found?: string;
  /** Where the expression sits in the caller's request, used as the issue path. @default "expression" */
  path?: string;
}

/**
 * A filter or score expression could not be compiled. `position` is the 0-based offset in the source
 * where the problem starts, `expected` lists what would have been valid there.
 *
 * @example
 * try { compileExpression("pe >", { fields: { pe: "number" } }) }
 * catch (e) { if (e instanceof ExpressionError) e.position } // 4
 */
export class ExpressionError extends ValidationError {
  /** 0-based offset in the source text (UTF-16 code units). Equal to the length at end of input. */
  readonly position: number;
  /** What would have been valid at `position`; empty when the problem is not about a missing token. */
  readonly expected: readonly string[];
  /** What was found at `position`, when the problem is an unexpected token. */
  readonly found: string | undefined;

  constructor(message: string, position: number, options: ExpressionErrorOptions = {}) {
    super(message, [{ path: options.path ?? "expression", message }], "invalid_expression");
    this.position = position;
    this.expected = Object.freeze([...(options.expected ?? [])]);
    this.found = options.found;
  }
}

/**
 * Joins alternatives for a message: `a`, `a or b`, `a, b or c`.
 * @example joinAlternatives(["')'", "','"]) // "')' or ','"
 */
export function joinAlternatives(items: readonly string[]): string {
  if (items.length <= 1) return items[0] ?? "";
  return `${items.slice(0, -1).join(", ")} or ${items[items.length - 1]}`;
}
