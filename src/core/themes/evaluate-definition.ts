/**
 * @module core/themes/evaluate-definition
 * Evaluating a compiled theme definition over one point-in-time table of securities:
 *
 *   eligible rows -> universe filter -> filters (ANDed) -> score -> candidates -> selection -> weighting.
 *
 * Pure and deterministic: the same table gives the same constituents in the same order.
 */
import { capWeights } from "./cap-weights.js";
import type { CompiledThemeDefinition } from "./compile-definition.js";
import { type ExpressionTable, evaluateFilter, evaluateScore } from "./expression/index.js";

/** Options of {@link evaluateThemeDefinition}. */
export interface EvaluateThemeDefinitionOptions {
  /**
   * Rows that exist at the evaluation date (listed, priced): 1 = may be selected. Cross-sectional functions
   * of the universe expression compute over these rows. @default every row
   */
  eligible?: Uint8Array;
}

/** Counts along the evaluation pipeline (each is a subset of the one before). */
export interface ThemeEvaluationCounts {
  /** Rows given as eligible. */
  eligible: number;
  /** Rows passing the universe filter. */
  universe: number;
  /** Rows passing the universe and every filter. */
  filtered: number;
  /** Filtered rows with a score and a positive weighting basis: the candidates. */
  candidates: number;
  /** Constituents. */
  selected: number;
}

/** The constituents of one evaluation, ordered by weight descending (ties: score descending, then id). */
export interface ThemeEvaluation {
  /** Table rows of the constituents. */
  rows: Int32Array;
  /** Weights aligned with `rows`; they sum to 1 (0 for an empty result). */
  weights: Float64Array;
  /** Scores aligned with `rows` (all finite). */
  scores: Float64Array;
  counts: ThemeEvaluationCounts;
  /** Number of constituents held at `max_weight`. */
  cappedCount: number;
  /** True when fewer than 1 / max_weight names were selected, so equal weights replaced the cap. */
  capRelaxed: boolean;
}

/**
 * Evaluates a theme over a table (one row per security, as `securityTable` builds it).
 *
 * - **Universe and filters.** The universe filter runs over the eligible rows; each filter then runs over the
 *   universe and the results are ANDed, so the order of filters never matters (cross-sectional functions in a
 *   filter see the whole universe).
 * - **Score.** Computed over the rows passing every filter (cross-sectional functions see those rows).
 * - **Candidates.** A filtered row is a candidate when its score is a finite number and it has a positive
 *   weighting basis: a positive `market_cap` for market-cap weighting, a positive score for score weighting
 *   (equal weighting needs nothing). Other rows are left out: they cannot be ranked or weighted.
 * - **Ranking.** By score descending; ties by `theme_asset_id` ascending (by row when the table has no such
 *   column), so results never depend on input order.
 * - **Selection.** `all`: every candidate. `top_n`: the first min(n, candidates). `top_percent`: the first
 *   ceil(p / 100 x candidates) (with a 1e-9 allowance so 10% of 50 is 5, not 6). Then at least
 *   min(min_count, candidates). A cut inside a tie follows the tie order above.
 * - **Weighting.** Base weight 1, market_cap or score, normalized and capped at max_weight with
 *   proportional redistribution ({@link capWeights}).
 *
 * @throws {TypeError} / {RangeError} when the table lacks a column the definition reads or `eligible` has the
 *   wrong length (see `evaluateFilter`).
 * @example
 * const table = securityTable(securities, characteristics);
 * const result = evaluateThemeDefinition(compiled, table, { eligible });
 * result.rows[0]; // row of the largest weight
 */
export function evaluateThemeDefinition(
  compiled: CompiledThemeDefinition,
  table: ExpressionTable,
  options: EvaluateThemeDefinitionOptions = {},
): ThemeEvaluation {
  const n = table.size;
  const eligible = options.eligible;
  if (eligible !== undefined && (!(eligible instanceof Uint8Array) || eligible.length !== n)) {
    throw new RangeError(`evaluateThemeDefinition: eligible must be a Uint8Array of ${n} entries`);
  }
  const universe = evaluateFilter(compiled.universe, table, eligible);
  const mask = Uint8Array.from(universe);
  for (const filter of compiled.filters) {
    const passed = evaluateFilter(filter, table, universe);
    for (let i = 0; i < n; i++) mask[i] = mask[i]! & passed[i]!;
  }
  const scores = evaluateScore(compiled.score, table, mask);
  const scheme = compiled.weighting.scheme;
  let basis: Float64Array | undefined;
  if (scheme === "market_cap") basis = numberColumn(table, "market_cap");
  else if (scheme === "score") basis = scores;

  const candidates: number[] = [];
  let universeCount = 0;
  let filteredCount = 0;
  for (let i = 0; i < n; i++) {
    universeCount += universe[i]!;
    if (mask[i] !== 1) continue;
    filteredCount++;
    if (!Number.isFinite(scores[i]!)) continue;
    if (basis !== undefined && !(Number.isFinite(basis[i]!) && basis[i]! > 0)) continue;
    candidates.push(i);
  }
  const ids = idColumn(table);
  candidates.sort((a, b) => scores[b]! - scores[a]! || compareIds(ids, a, b));

  const count = selectionCount(compiled.selection, candidates.length);
  const chosen = candidates.slice(0, count);
  const base = new Float64Array(count);
  for (let j = 0; j < count; j++) base[j] = basis === undefined ? 1 : basis[chosen[j]!]!;
  const capped = capWeights(base, compiled.weighting.maxWeight);

  // Final order: weight descending, then the ranking order (score descending, id ascending).
  const order = Array.from({ length: count }, (_, j) => j).sort(
    (a, b) => capped.weights[b]! - capped.weights[a]! || a - b,
  );
  const rows = new Int32Array(count);
  const weights = new Float64Array(count);
  const outScores = new Float64Array(count);
  order.forEach((j, k) => {
    rows[k] = chosen[j]!;
    weights[k] = capped.weights[j]!;
    outScores[k] = scores[chosen[j]!]!;
  });
  let eligibleCount = n;
  if (eligible !== undefined) {
    eligibleCount = 0;
    for (let i = 0; i < n; i++) if (eligible[i] !== 0) eligibleCount++;
  }
  return {
    rows,
    weights,
    scores: outScores,
    counts: {
      eligible: eligibleCount,
      universe: universeCount,
      filtered: filteredCount,
      candidates: candidates.length,
      selected: count,
    },
    cappedCount: capped.cappedCount,
    capRelaxed: capped.capRelaxed,
  };
}

/**
 * Number of constituents a selection rule keeps out of `candidates` ranked candidates (see
 * {@link evaluateThemeDefinition}).
 * @example selectionCount({ mode: "top_percent", value: 10, minCount: 0 }, 50) // 5
 */
export function selectionCount(selection: CompiledThemeDefinition["selection"], candidates: number): number {
  let k = candidates;
  if (selection.mode === "top_n") k = Math.min(selection.value!, candidates);
  else if (selection.mode === "top_percent")
    k = Math.min(candidates, Math.ceil((selection.value! * candidates) / 100 - 1e-9));
  return Math.max(k, Math.min(selection.minCount, candidates));
}

function numberColumn(table: ExpressionTable, name: string): Float64Array {
  const column = table.column(name);
  if (!(column instanceof Float64Array) || column.length !== table.size) {
    throw new TypeError(`evaluateThemeDefinition: the table needs a '${name}' Float64Array column`);
  }
  return column;
}

function idColumn(table: ExpressionTable): readonly (string | null | undefined)[] | undefined {
  const column = table.column("theme_asset_id");
  return Array.isArray(column) && column.length === table.size ? column : undefined;
}

function compareIds(ids: readonly (string | null | undefined)[] | undefined, a: number, b: number): number {
  if (ids === undefined) return a - b;
  const x = ids[a] ?? "";
  const y = ids[b] ?? "";
  return x < y ? -1 : x > y ? 1 : a - b;
}
