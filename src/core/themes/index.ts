/**
 * @module core/themes
 * Themes: evaluation of a theme definition over a point-in-time table
 * (universe -> filters -> score -> selection -> capped weights), and the theme backtest engine (rebalance
 * schedule, total-return panel, buy-and-hold simulation, benchmark alignment and comparison).
 * The filter-expression language itself is exported from `./expression/index.js`. Reference: docs/themes.md.
 */

export {
  type TotalReturnPanel,
  type TotalReturnPanelInput,
  totalReturnPanel,
} from "../data/market-panel.js";
export { type AlignedSeries, alignSeries } from "./align-series.js";
export { CAP_TOLERANCE, type CappedWeights, capWeights } from "./cap-weights.js";
export {
  type BenchmarkComparison,
  type CompareWithBenchmarkOptions,
  compareWithBenchmark,
} from "./compare-benchmark.js";
export {
  type CompiledThemeDefinition,
  type CompileThemeDefinitionOptions,
  compileThemeDefinition,
} from "./compile-definition.js";
export {
  DEFAULT_SCORE_EXPRESSION,
  REBALANCING_PERIODS,
  type RebalancingPeriod,
  SELECTION_MODES,
  type SelectionMode,
  type ThemeDefinition,
  type ThemeSelectionDefinition,
  type ThemeUniverseDefinition,
  type ThemeWeightingDefinition,
  WEIGHTING_SCHEMES,
  type WeightingScheme,
} from "./definition.js";
export {
  type EvaluateThemeDefinitionOptions,
  evaluateThemeDefinition,
  selectionCount,
  type ThemeEvaluation,
  type ThemeEvaluationCounts,
} from "./evaluate-definition.js";
export { characteristicColumns, listedMask } from "./point-in-time.js";
export { MONTHS_PER_PERIOD, rebalanceIndices } from "./rebalance-schedule.js";
export {
  type SimulatedRebalance,
  type SimulatedTheme,
  type SimulateThemeInput,
  simulateTheme,
  type ThemeTargets,
} from "./simulate-theme.js";
