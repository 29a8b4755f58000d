/**
 * @module core/catalog
 * Catalog lookups: the built-in four-level industry taxonomy and its search (endpoint 9), and the universe
 * presets of themes (endpoint 10). Reference: docs/catalog.md.
 */
export {
  findUniversePreset,
  MARKET_CAP_BOUNDS,
  UNIVERSE_PRESETS,
  type UniversePreset,
  universePresetExpressions,
} from "./presets.js";
export {
  DEFAULT_INDUSTRY_MATCH_LIMIT,
  type IndustryMatch,
  type IndustrySearchOptions,
  type IndustrySearchResult,
  industryMatchOf,
  MATCH_SCORES,
  MAX_INDUSTRY_QUERY_LENGTH,
  MAX_INDUSTRY_QUERY_WORDS,
  SYNONYM_PENALTY,
  searchIndustryTaxonomy,
} from "./search.js";
export { INDUSTRY_SYNONYMS } from "./synonyms.js";
export {
  findIndustryNode,
  getIndustryNode,
  INDUSTRY_LEVEL_NAMES,
  type IndustryLevel,
  industryChildren,
  industryCodesOf,
  industryDescendants,
  industryLevelOfCode,
  industryNodesAtLevel,
  industryParentChain,
  industrySiblings,
  SECTOR_CODES,
  sectorCodeForName,
  sectorCodeOf,
} from "./taxonomy.js";
export { INDUSTRY_TAXONOMY } from "./taxonomy-data.js";
export { normalizeText, STOP_WORDS, searchWords, stem } from "./text.js";
