/**
 * @module market/real-data
 * Loader of the real S&P 500 test data (prices 2013-2018, constituents with fundamentals, index, ECB FX).
 */
export { type CapWeightOptions, type MonthEndCaps, monthEndCapWeights } from "./cap-weights.js";
export {
  type ConstituentRow,
  type ConstituentsParseOptions,
  type ConstituentsParseResult,
  parseConstituentsFinancials,
} from "./constituents.js";
export {
  type LoadSp500Options,
  loadSp500Dataset,
  SP500_2013_TICKER_CHANGES,
  SP500_CORPORATE_ACTIONS_URL,
  SP500_FILES,
  SP500_INDEX_ID,
  SP500_SHARE_CLASS_PAIRS,
  SP500_SPINOFF_CHILDREN_WITHOUT_PRICES,
  SP500_UNADJUSTED_SPLITS,
  SP500_VINTAGE_DATES,
  type Sp500LoadSummary,
  sp500CorporateActionsCsv,
} from "./load-sp500.js";
export { micForSp500Symbol, SP500_2018_NASDAQ_SYMBOLS } from "./nasdaq-listings.js";
