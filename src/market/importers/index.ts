/**
 * @module market/importers
 * CSV importers of market data: each has a pure parse step (text, bytes, gzip or a stream -> records and an
 * ImportSummary) and an `importX(path, writer, options)` that parses the whole file, then writes it in one
 * transaction.
 */
export {
  CHARACTERISTIC_NAME,
  type CharacteristicParseResult,
  importCharacteristics,
  parseCharacteristics,
} from "./characteristics.js";
export { type CsvInput, fileStem, readCsvFile, tokenizeCsv } from "./csv-input.js";
export { CsvHeader, readCsvTable, type TableRowHandler } from "./csv-table.js";
export { type CsvRowHandler, CsvTokenizer } from "./csv-tokenizer.js";
export { type DividendParseResult, importDividends, parseDividends } from "./dividends.js";
export { CsvFormatError, type CsvLocation, UnresolvedSymbolError } from "./errors.js";
export { DateCache, headerKey, isMissing, parseDate, parseNumber } from "./fields.js";
export {
  FX_CURRENCIES,
  type FxParseOptions,
  type FxParseResult,
  type ImportFxOptions,
  importFx,
  parseFx,
} from "./fx.js";
export {
  chooseResolver,
  type ParseOptions,
  type SymbolImportOptions,
  type SymbolParseOptions,
} from "./import-support.js";
export {
  type IndexLevelParseOptions,
  type IndexLevelParseResult,
  importIndexLevels,
  parseIndexLevels,
} from "./index-levels.js";
export {
  type IndexWeightParseResult,
  importIndexWeights,
  parseIndexWeights,
  WEIGHT_SUM_TOLERANCE,
} from "./index-weights.js";
export { InMemoryMarketDataWriter, type MemoryTables } from "./memory-writer.js";
export { MIC_DEFAULTS } from "./mic-defaults.js";
export { minimalSecurity } from "./minimal-security.js";
export {
  DEFAULT_JUMP_THRESHOLD,
  type ImportPricesOptions,
  importPrices,
  type PriceParseOptions,
  type PriceParseResult,
  parsePrices,
} from "./prices.js";
export {
  type ImportSecuritiesOptions,
  importSecurities,
  parseSecurities,
  type SecurityParseOptions,
  type SecurityParseResult,
} from "./securities.js";
export { importSplits, parseSplitRatio, parseSplits, type SplitParseResult } from "./splits.js";
export {
  DEFAULT_MAX_FLAWS_LISTED_PER_KIND,
  FLAW_KINDS,
  type FlawAction,
  type FlawKind,
  type ImportDataset,
  type ImportFlaw,
  type ImportSummary,
} from "./summary.js";
export {
  micOfExchangeName,
  normalizeSymbol,
  parseThemeAssetId,
  resolverForMic,
  resolverFromListings,
  type SymbolResolution,
  type SymbolResolver,
  themeAssetIdsOnly,
} from "./symbol-resolver.js";
