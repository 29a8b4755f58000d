/**
 * @module market/synthetic
 * The seeded synthetic market generator and the pure helpers it is built from.
 */

export {
  easterSunday,
  isSyntheticHoliday,
  SYNTHETIC_HOLIDAY_NAMES,
  syntheticHolidays,
  syntheticTradingDates,
} from "./calendar.js";
export { buildCapWeightedIndex, type CapWeightedIndexInput } from "./cap-weighted-index.js";
export {
  alignFx,
  type CharacteristicsInput,
  computeCharacteristics,
  RISK_MIN_OBSERVATIONS,
  RISK_WINDOW_DAYS,
} from "./characteristics.js";
export { CAD_EQUITY_CORRELATION, FX_PROCESSES, type FxProcess } from "./fx.js";
export { generateMarket, SYNTH500, SYNTHTOTAL } from "./generate-market.js";
export {
  type ResolvedSyntheticMarketOptions,
  resolveSyntheticMarketOptions,
  SYNTHETIC_MARKET_DEFAULTS,
  SYNTHETIC_MARKET_LIMITS,
  type SyntheticMarketOptions,
} from "./options.js";
export { fundamentalsReportDate, indexLevelRows, indexWeightRows } from "./rows.js";
export { SECTOR_PROFILES, type SectorProfile } from "./sector-profiles.js";
export { DAYS_PER_YEAR, MODEL, STYLE_FACTORS } from "./simulate.js";
export type {
  FactorReturns,
  FundamentalsPanel,
  IndexWeightPanel,
  SyntheticIndex,
  SyntheticMarket,
} from "./types.js";
export { type PanelWriter, type SyntheticWriteSummary, writeSyntheticMarket } from "./write.js";
