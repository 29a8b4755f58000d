/**
 * @module core/themes/definition
 * What a theme evaluation needs from a saved methodology (the wire shape of shared-decisions.md, snake_case,
 * so a parsed request is passed as is): the universe, filters, score, selection, weighting and rules.
 */

/** Selection modes: every candidate, the top N by score, or the top percent by score. */
export const SELECTION_MODES = ["all", "top_n", "top_percent"] as const;
/** A selection mode. */
export type SelectionMode = (typeof SELECTION_MODES)[number];

/** Weighting schemes: equal weights, weights proportional to market cap, or to the score. */
export const WEIGHTING_SCHEMES = ["equal", "market_cap", "score"] as const;
/** A weighting scheme. */
export type WeightingScheme = (typeof WEIGHTING_SCHEMES)[number];

/** Rebalancing cadences of a theme backtest. */
export const REBALANCING_PERIODS = ["MONTHLY", "QUARTERLY", "SEMI_ANNUALLY", "ANNUALLY"] as const;
/** A rebalancing cadence. */
export type RebalancingPeriod = (typeof REBALANCING_PERIODS)[number];

/** Score of a methodology that gives none. */
export const DEFAULT_SCORE_EXPRESSION = "market_cap";

/** Candidate universe: a preset id (see the catalog) or a filter expression; exactly one. */
export interface ThemeUniverseDefinition {
  preset?: string | undefined;
  expression?: string | undefined;
}

/**
 * Selection rule. `top_n` keeps the `value` best-scored candidates (an integer >= 1), `top_percent` the best
 * `value` percent (in (0, 100], rounded up to whole names), `all` every candidate. `min_count` raises the
 * count to at least that many when enough candidates exist.
 */
export interface ThemeSelectionDefinition {
  mode: SelectionMode;
  value?: number | undefined;
  min_count?: number | undefined;
}

/** Weighting rule: the scheme and an optional cap on any single weight, a fraction in (0, 1]. */
export interface ThemeWeightingDefinition {
  scheme: WeightingScheme;
  max_weight?: number | undefined;
}

/** The evaluation-relevant fields of a theme methodology. */
export interface ThemeDefinition {
  universe: ThemeUniverseDefinition;
  /** Filter expressions, ANDed. @default [] */
  filters?: readonly string[] | undefined;
  /** Numeric expression ranking candidates (higher is better). @default DEFAULT_SCORE_EXPRESSION */
  score?: string | undefined;
  selection: ThemeSelectionDefinition;
  weighting: ThemeWeightingDefinition;
  rules?: { rebalancing_period: RebalancingPeriod } | undefined;
}
