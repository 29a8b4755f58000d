/**
 * @module core/themes/expression/functions
 * The functions of the expression language. All take and return numbers; elementwise ones propagate
 * missing values (except `coalesce`), cross-sectional ones work over the current universe.
 */
import { percentile, rank, zscore } from "./cross-sectional.js";
import { map1, map2, type NumberVector, toColumn } from "./kernels.js";

/** What a function needs at evaluation time. */
export interface FunctionContext {
  readonly size: number;
  /** Rows of the current universe; undefined = every row. */
  readonly universe: Uint8Array | undefined;
}

/** A function of the language. */
export interface FunctionDefinition {
  readonly name: string;
  readonly minArgs: number;
  /** `Infinity` for variadic functions. */
  readonly maxArgs: number;
  /** True when the result of a row depends on the other rows of the universe. */
  readonly crossSectional: boolean;
  /** One-line description, as in docs/expression-language.md. */
  readonly description: string;
  readonly apply: (args: readonly NumberVector[], context: FunctionContext) => NumberVector;
}

const fold = (
  args: readonly NumberVector[],
  f: (x: number, y: number) => number,
  size: number,
): NumberVector => {
  let acc = args[0]!;
  for (let k = 1; k < args.length; k++) acc = map2(acc, args[k]!, f, size);
  return acc;
};

// Math.min/max already return NaN when an argument is NaN: missing propagates.
const min2 = (x: number, y: number): number => Math.min(x, y);
const max2 = (x: number, y: number): number => Math.max(x, y);

const crossSectional = (
  name: string,
  description: string,
  transform: (x: Float64Array, universe: Uint8Array | undefined) => Float64Array,
): FunctionDefinition => ({
  name,
  minArgs: 1,
  maxArgs: 1,
  crossSectional: true,
  description,
  apply: (args, ctx) => transform(toColumn(args[0]!, ctx.size), ctx.universe),
});

const DEFINITIONS: readonly FunctionDefinition[] = [
  {
    name: "abs",
    minArgs: 1,
    maxArgs: 1,
    crossSectional: false,
    description: "absolute value",
    apply: (args, ctx) => map1(args[0]!, Math.abs, ctx.size),
  },
  {
    name: "sqrt",
    minArgs: 1,
    maxArgs: 1,
    crossSectional: false,
    description: "square root; missing for negative input",
    apply: (args, ctx) => map1(args[0]!, Math.sqrt, ctx.size),
  },
  {
    name: "log",
    minArgs: 1,
    maxArgs: 1,
    crossSectional: false,
    description: "natural logarithm; missing for input <= 0",
    apply: (args, ctx) => map1(args[0]!, Math.log, ctx.size),
  },
  {
    name: "exp",
    minArgs: 1,
    maxArgs: 1,
    crossSectional: false,
    description: "e to the power x; missing when it overflows",
    apply: (args, ctx) => map1(args[0]!, Math.exp, ctx.size),
  },
  {
    name: "min",
    minArgs: 2,
    maxArgs: Number.POSITIVE_INFINITY,
    crossSectional: false,
    description: "smallest argument, row by row; missing if any argument is missing",
    apply: (args, ctx) => fold(args, min2, ctx.size),
  },
  {
    name: "max",
    minArgs: 2,
    maxArgs: Number.POSITIVE_INFINITY,
    crossSectional: false,
    description: "largest argument, row by row; missing if any argument is missing",
    apply: (args, ctx) => fold(args, max2, ctx.size),
  },
  {
    name: "clip",
    minArgs: 3,
    maxArgs: 3,
    crossSectional: false,
    description: "clip(x, lo, hi) = min(max(x, lo), hi); missing if any argument is missing",
    apply: (args, ctx) => map2(map2(args[0]!, args[1]!, max2, ctx.size), args[2]!, min2, ctx.size),
  },
  {
    name: "coalesce",
    minArgs: 2,
    maxArgs: Number.POSITIVE_INFINITY,
    crossSectional: false,
    description: "first argument that is not missing, row by row",
    apply: (args, ctx) => fold(args, (x, y) => (Number.isNaN(x) ? y : x), ctx.size),
  },
  crossSectional("rank", "ascending rank 1..n over the universe's present values, ties averaged", rank),
  crossSectional(
    "percentile",
    "(rank - 1) / (n - 1) in [0, 1] over the universe's present values (0.5 when n = 1)",
    percentile,
  ),
  crossSectional(
    "zscore",
    "(x - mean) / sample standard deviation over the universe's present values (0 when sd = 0 or n < 2)",
    zscore,
  ),
];

/** The functions of the language by (lower-case) name. */
export const FUNCTIONS: ReadonlyMap<string, FunctionDefinition> = new Map(
  DEFINITIONS.map((d) => [d.name, d]),
);
