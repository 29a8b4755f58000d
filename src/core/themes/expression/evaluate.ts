/**
 * @module core/themes/expression/evaluate
 * Evaluation of compiled expressions over a columnar table of securities: one pass per operator over
 * whole columns, no per-row tree walking.
 */
import { type CompiledExpression, type EvaluationContext, type Program, programOf } from "./compile.js";
import type { BoolVector, NumberVector } from "./kernels.js";
import { toMask } from "./kernels.js";

/** A column: numbers (`Float64Array`, NaN = missing) or text (`null`/`undefined` = missing). */
export type Column = Float64Array | readonly (string | null | undefined)[];

/**
 * The rows an expression is evaluated over. `column(name)` is asked for canonical (lower-case) field
 * names only, and only for fields the expression references (see `CompiledExpression.fields`). Number
 * and code fields need a `Float64Array` of length `size`, string fields an array of length `size`.
 * Columns are read, never written.
 */
export interface ExpressionTable {
  readonly size: number;
  column(name: string): Column | undefined;
}

/**
 * Evaluates a filter: 1 for rows where the condition holds, 0 elsewhere (and outside `mask`).
 * A comparison with a missing value is false; `not` is plain negation (two-valued logic), so
 * `not (pe > 20)` holds where `pe` is missing. Cross-sectional functions (`rank`, `percentile`, `zscore`)
 * are computed over the rows of `mask` (every row when absent).
 *
 * @param mask the current universe, 1 = in (any non-zero counts as 1). @default every row
 * @throws {TypeError} when `compiled` is not a filter from `compileExpression`, or the table lacks a
 *   referenced column or has one of the wrong kind or length (the message names the field).
 * @throws {RangeError} when `mask` does not have one entry per row.
 * @example
 * const e = compileExpression("pe < 20", { fields: { pe: "number" } });
 * evaluateFilter(e, createTable(3, { pe: Float64Array.of(10, 30, Number.NaN) })) // Uint8Array [1, 0, 0]
 */
export function evaluateFilter(
  compiled: CompiledExpression,
  table: ExpressionTable,
  mask?: Uint8Array,
): Uint8Array {
  const program = programOf(compiled, "evaluateFilter");
  if (program.kind !== "filter") {
    throw new TypeError("evaluateFilter: the expression was compiled as a score; use evaluateScore");
  }
  const ctx = context(program, table, mask, "evaluateFilter");
  const out = toMask(program.run(ctx) as BoolVector, ctx.size);
  const universe = ctx.universe;
  if (universe !== undefined) for (let i = 0; i < out.length; i++) out[i] = out[i]! & universe[i]!;
  return out;
}

/**
 * Evaluates a score: one number per row, NaN where it is missing (a missing input, a non-finite result
 * such as x/0 or log(0)) and outside `mask`.
 *
 * @param mask the current universe, 1 = in (any non-zero counts as 1). @default every row
 * @throws {TypeError} when `compiled` is not a score from `compileExpression`, or the table lacks a
 *   referenced column or has one of the wrong kind or length.
 * @throws {RangeError} when `mask` does not have one entry per row.
 * @example
 * const e = compileExpression("rank(pe)", { fields: { pe: "number" }, kind: "score" });
 * evaluateScore(e, createTable(3, { pe: Float64Array.of(30, 10, 20) })) // Float64Array [3, 1, 2]
 */
export function evaluateScore(
  compiled: CompiledExpression,
  table: ExpressionTable,
  mask?: Uint8Array,
): Float64Array {
  const program = programOf(compiled, "evaluateScore");
  if (program.kind !== "score") {
    throw new TypeError("evaluateScore: the expression was compiled as a filter; use evaluateFilter");
  }
  const ctx = context(program, table, mask, "evaluateScore");
  const value = program.run(ctx) as NumberVector;
  // Copy: the result may be a table column, which must not be written.
  const out = typeof value === "number" ? new Float64Array(ctx.size).fill(value) : Float64Array.from(value);
  const universe = ctx.universe;
  if (universe !== undefined) for (let i = 0; i < out.length; i++) if (universe[i] !== 1) out[i] = Number.NaN;
  return out;
}

function context(
  program: Program,
  table: ExpressionTable,
  mask: Uint8Array | undefined,
  caller: string,
): EvaluationContext {
  if (typeof table !== "object" || table === null || typeof table.column !== "function") {
    throw new TypeError(`${caller}: table must be an object with size and column(name)`);
  }
  const size = table.size;
  if (!Number.isSafeInteger(size) || size < 0) {
    throw new TypeError(`${caller}: table.size must be a non-negative integer, got ${String(size)}`);
  }
  let universe: Uint8Array | undefined;
  if (mask !== undefined) {
    if (!(mask instanceof Uint8Array)) throw new TypeError(`${caller}: mask must be a Uint8Array`);
    if (mask.length !== size) {
      throw new RangeError(`${caller}: mask has ${mask.length} entries but the table has ${size} rows`);
    }
    universe = new Uint8Array(size);
    for (let i = 0; i < size; i++) universe[i] = mask[i] === 0 ? 0 : 1;
  }
  const numbers = new Map<string, Float64Array>();
  const strings = new Map<string, readonly (string | null | undefined)[]>();
  for (const [name, type] of program.fieldTypes) {
    const column = table.column(name);
    if (column === undefined || column === null) {
      throw new TypeError(
        `${caller}: the table has no column '${name}' (a ${type} field the expression uses)`,
      );
    }
    if (type === "string") {
      if (!Array.isArray(column) || column.length !== size) {
        throw new TypeError(`${caller}: column '${name}' must be an array of ${size} strings or nulls`);
      }
      for (let i = 0; i < size; i++) {
        const v: unknown = column[i];
        if (v != null && typeof v !== "string") {
          throw new TypeError(
            `${caller}: column '${name}' row ${i} is a ${typeof v}, expected a string or null`,
          );
        }
      }
      strings.set(name, column);
    } else {
      if (!(column instanceof Float64Array) || column.length !== size) {
        throw new TypeError(`${caller}: column '${name}' must be a Float64Array of length ${size}`);
      }
      numbers.set(name, withoutInfinities(column));
    }
  }
  return { size, universe, numbers, strings };
}

/** The column itself, or a copy with ±Infinity turned into NaN (missing): only finite numbers get past entry. */
function withoutInfinities(column: Float64Array): Float64Array {
  let copy: Float64Array | undefined;
  for (let i = 0; i < column.length; i++) {
    const v = column[i]!;
    if (v - v !== 0 && !Number.isNaN(v)) {
      copy ??= Float64Array.from(column);
      copy[i] = Number.NaN;
    }
  }
  return copy ?? column;
}
