/**
 * @module core/optimizer/component
 * The lifecycle shared by the optimizer's constraint and cost components (docs/optimizer.md, "Stages and
 * components"). A component is one module exporting one {@link OptimizerComponent}: it names itself and the
 * configuration fields it reads, and is initialized once per rebalance on that period's data. What it returns is
 * its period state (`null`: nothing to do this period, and then it costs nothing); the stages use that state
 * through the hooks the component offers — for a constraint, {@link ConstraintPeriod}.
 *
 * Most components are initialized while the period model is built (period-model.ts lists the constraint
 * components); the trade rules by the stages. docs/optimizer.md lists them all.
 */

/** One constraint or cost of the optimizer, with an explicit lifecycle. */
export interface OptimizerComponent<Context, Period> {
  /** Short name (snake_case), used in the docs and as the key of its rows. */
  readonly name: string;
  /** The configuration (snake_case, as in the interface spec) and input fields it reads. */
  readonly fields: readonly string[];
  /** Once per rebalance, on the period's data: the component's state for this period, or null when inactive. */
  initialize(context: Context): Period | null;
}

/**
 * A linear row over the engine's segments (a "switch row", docs/optimizer.md "The engine"): on each segment of an
 * asset the row's coefficient is fixed, chosen from a point inside the segment (trade t, post-trade weight w), so
 * a row such as sum_i |t_i| / 2 is linear piece by piece. The row's value on a segment is
 * `coefficient x + constant`, x = w - b the engine variable.
 */
export interface SwitchRow {
  /** Name of the row (in the problem's row names and the binding report). */
  readonly name: string;
  /** Coefficient on a segment whose inner point has trade t and weight w. */
  coefficient(t: number, w: number): number;
  /** Constant of a segment with coefficient c, shift = w0_i - b_i, benchmark weight b_i. */
  constant(c: number, shift: number, benchmark: number): number;
  /** Bounds of the row's value. */
  readonly lower: number;
  readonly upper: number;
}

/** What a constraint component offers the stages for one period (every hook optional). */
export interface ConstraintPeriod {
  /** The component's name. */
  readonly name: string;
  /** Conflicts found without solving (the prepare stage), each naming the fields and numbers. */
  precheck?(): string[];
  /** Rows it adds to every problem of the period (the compile step). */
  readonly rows?: readonly SwitchRow[];
  /** How the diagnosis by solving names it when relaxing its rows makes the problem feasible. */
  readonly relaxation?: { readonly name: string; readonly detail: string };
}
