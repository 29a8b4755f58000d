/**
 * @module core/themes/compile-definition
 * Checking a theme definition once, before any evaluation: the universe (a preset resolved to its filter
 * expression, or an expression), every filter and the score are compiled against the field catalog, and the
 * selection and weighting rules are range-checked. Every problem is reported at once, each with its path.
 */
import { type FieldIssue, ValidationError } from "../errors.js";
import {
  DEFAULT_SCORE_EXPRESSION,
  REBALANCING_PERIODS,
  type RebalancingPeriod,
  SELECTION_MODES,
  type ThemeDefinition,
  type ThemeSelectionDefinition,
  type ThemeWeightingDefinition,
  WEIGHTING_SCHEMES,
} from "./definition.js";
import {
  type CompiledExpression,
  type ExpressionError,
  type FieldCatalog,
  safeCompileExpression,
} from "./expression/index.js";

/** Options of {@link compileThemeDefinition}. */
export interface CompileThemeDefinitionOptions {
  /** Fields the expressions may use (see `fieldCatalog`). */
  fields: FieldCatalog;
  /** Universe presets: id -> filter expression. @default no presets */
  presets?: ReadonlyMap<string, string>;
}

/** A checked theme definition, ready for `evaluateThemeDefinition` at any date. */
export interface CompiledThemeDefinition {
  /** The universe filter (the preset's expression when the universe is a preset). */
  readonly universe: CompiledExpression;
  /** The preset id when the universe is a preset. */
  readonly preset: string | undefined;
  readonly filters: readonly CompiledExpression[];
  readonly score: CompiledExpression;
  readonly selection: Readonly<Required<Pick<ThemeSelectionDefinition, "mode">>> & {
    readonly value: number | undefined;
    readonly minCount: number;
  };
  readonly weighting: { readonly scheme: ThemeWeightingDefinition["scheme"]; readonly maxWeight: number };
  /** The rebalancing cadence, when the definition has rules. */
  readonly rebalancingPeriod: RebalancingPeriod | undefined;
  /**
   * Every field the evaluation reads, sorted: the expressions' fields plus `market_cap` for market-cap
   * weighting and `theme_asset_id` for tie-breaking.
   */
  readonly fields: readonly string[];
}

/**
 * Compiles and checks a theme definition.
 *
 * @throws {ExpressionError} (code `invalid_expression`) when exactly one expression is invalid; its issue
 *   path names it (`universe.expression`, `filters[2]`, `score`).
 * @throws {ValidationError} code `invalid_expression` when several expressions are invalid (one issue each),
 *   or code `invalid_methodology` for an unknown preset, a universe with both or neither of preset and
 *   expression, or a selection / weighting / rules value out of range (one issue per problem, with every
 *   expression problem too).
 * @example
 * const compiled = compileThemeDefinition(
 *   { universe: { expression: "sector = 45" }, filters: ["dividend_yield > 1%"], score: "dividend_yield",
 *     selection: { mode: "top_n", value: 20 }, weighting: { scheme: "score", max_weight: 0.1 } },
 *   { fields: fieldCatalog() },
 * );
 */
export function compileThemeDefinition(
  definition: ThemeDefinition,
  options: CompileThemeDefinitionOptions,
): CompiledThemeDefinition {
  if (typeof definition !== "object" || definition === null) {
    throw new TypeError("compileThemeDefinition: definition must be an object");
  }
  const issues: FieldIssue[] = [];
  const expressionErrors: ExpressionError[] = [];
  const compile = (source: string, path: string, kind: "filter" | "score") => {
    const r = safeCompileExpression(source, { fields: options.fields, kind, path });
    if (r.success) return r.expression;
    expressionErrors.push(r.error);
    return undefined;
  };

  // Universe: exactly one of preset and expression.
  const u = definition.universe ?? {};
  let universe: CompiledExpression | undefined;
  const hasPreset = typeof u.preset === "string";
  const hasExpression = typeof u.expression === "string";
  if (hasPreset === hasExpression) {
    issues.push({ path: "universe", message: "give exactly one of preset and expression" });
  } else if (hasPreset) {
    const presets = options.presets ?? new Map<string, string>();
    const source = presets.get(u.preset!);
    if (source === undefined) {
      const known = [...presets.keys()];
      issues.push({
        path: "universe.preset",
        message: `unknown universe preset '${u.preset}'; known presets: ${known.length > 0 ? known.join(", ") : "none"}`,
      });
    } else universe = compile(source, "universe.preset", "filter");
  } else universe = compile(u.expression!, "universe.expression", "filter");

  const filterSources = definition.filters ?? [];
  if (!Array.isArray(filterSources)) issues.push({ path: "filters", message: "filters must be an array" });
  const filters: CompiledExpression[] = [];
  (Array.isArray(filterSources) ? filterSources : []).forEach((source, i) => {
    const c = compile(source, `filters[${i}]`, "filter");
    if (c) filters.push(c);
  });
  const score = compile(definition.score ?? DEFAULT_SCORE_EXPRESSION, "score", "score");

  const selection = checkSelection(definition.selection, issues);
  const weighting = checkWeighting(definition.weighting, issues);
  const period = definition.rules?.rebalancing_period;
  if (definition.rules !== undefined && !REBALANCING_PERIODS.includes(period as RebalancingPeriod)) {
    issues.push({
      path: "rules.rebalancing_period",
      message: `rebalancing_period must be one of ${REBALANCING_PERIODS.join(", ")}`,
    });
  }

  if (issues.length === 0 && expressionErrors.length === 1) throw expressionErrors[0]!;
  if (issues.length > 0 || expressionErrors.length > 0) {
    const all = [...issues, ...expressionErrors.flatMap((e) => e.issues)];
    const code = issues.length === 0 ? "invalid_expression" : "invalid_methodology";
    throw new ValidationError(
      `The theme methodology has ${all.length} problem${all.length === 1 ? "" : "s"}: ${all
        .map((i) => `${i.path}: ${i.message}`)
        .join("; ")}`,
      all,
      code,
    );
  }
  const fields = new Set<string>(["theme_asset_id"]);
  for (const e of [universe!, ...filters, score!]) for (const f of e.fields) fields.add(f);
  if (weighting.scheme === "market_cap") fields.add("market_cap");
  return Object.freeze({
    universe: universe!,
    preset: hasPreset ? u.preset : undefined,
    filters: Object.freeze(filters),
    score: score!,
    selection,
    weighting,
    rebalancingPeriod: period,
    fields: Object.freeze([...fields].sort()),
  });
}

function checkSelection(
  s: ThemeSelectionDefinition | undefined,
  issues: FieldIssue[],
): CompiledThemeDefinition["selection"] {
  if (typeof s !== "object" || s === null || !SELECTION_MODES.includes(s.mode)) {
    issues.push({ path: "selection.mode", message: `mode must be one of ${SELECTION_MODES.join(", ")}` });
    return { mode: "all", value: undefined, minCount: 0 };
  }
  const v = s.value;
  if (s.mode === "all" && v !== undefined) {
    issues.push({ path: "selection.value", message: "mode all takes no value" });
  }
  if (s.mode === "top_n" && (v === undefined || !Number.isSafeInteger(v) || v < 1)) {
    issues.push({ path: "selection.value", message: "mode top_n needs an integer value >= 1" });
  }
  if (s.mode === "top_percent" && (v === undefined || !Number.isFinite(v) || v <= 0 || v > 100)) {
    issues.push({ path: "selection.value", message: "mode top_percent needs a value in (0, 100]" });
  }
  const minCount = s.min_count ?? 0;
  if (!Number.isSafeInteger(minCount) || minCount < 0) {
    issues.push({ path: "selection.min_count", message: "min_count must be an integer >= 0" });
  }
  return { mode: s.mode, value: s.mode === "all" ? undefined : v, minCount };
}

function checkWeighting(
  w: ThemeWeightingDefinition | undefined,
  issues: FieldIssue[],
): CompiledThemeDefinition["weighting"] {
  if (typeof w !== "object" || w === null || !WEIGHTING_SCHEMES.includes(w.scheme)) {
    issues.push({
      path: "weighting.scheme",
      message: `scheme must be one of ${WEIGHTING_SCHEMES.join(", ")}`,
    });
    return { scheme: "equal", maxWeight: 1 };
  }
  const cap = w.max_weight ?? 1;
  if (!Number.isFinite(cap) || cap <= 0 || cap > 1) {
    issues.push({ path: "weighting.max_weight", message: "max_weight must be in (0, 1]" });
  }
  return { scheme: w.scheme, maxWeight: cap };
}
