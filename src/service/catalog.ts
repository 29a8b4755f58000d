/**
 * @module service/catalog
 * Catalog lookups: industry classification search (endpoint 9) and universe presets (endpoint 10). Both
 * read built-in data (the taxonomy and the presets of src/core/catalog); the store is not involved.
 * Reference: docs/catalog.md.
 */
import type {
  IndustrySearchRequest,
  IndustrySearchResponse,
  UniversePreset,
  UniversePresetsResponse,
} from "../contract/index.js";
import { findUniversePreset, UNIVERSE_PRESETS } from "../core/catalog/presets.js";
import { searchIndustryTaxonomy } from "../core/catalog/search.js";
import { NotFoundError, ValidationError } from "../core/errors.js";
import type { ServiceContext } from "./context.js";

/**
 * Endpoint 9: searches the industry taxonomy by words (stems, synonyms such as tech, banks, pharma), best
 * match first; each match has its filter expression, parents, children and siblings. A search without
 * matches succeeds with an empty list and a hint on how to rephrase.
 * @throws {ValidationError} code `invalid_query` (issue path `query`) when the body has no string query, or
 *   the query is empty, blank, longer than 200 characters, has more than 12 distinct words or has no
 *   searchable word.
 * @example searchIndustries(ctx, { query: "banks" }).matches[0].expression // "industry_group = 4010"
 */
export function searchIndustries(_ctx: ServiceContext, body: IndustrySearchRequest): IndustrySearchResponse {
  const query = (body as { query?: unknown } | null | undefined)?.query;
  if (typeof query !== "string") {
    const message = "query must be a string of words, e.g. 'semiconductors'";
    throw new ValidationError(
      `Invalid industry search: ${message}`,
      [{ path: "query", message }],
      "invalid_query",
    );
  }
  const result = searchIndustryTaxonomy(query);
  return { success: true, query: result.query, matches: result.matches, hint: result.hint };
}

/**
 * Endpoint 10: every universe preset (US size buckets, US all, Canada, US and Canada, one US preset per
 * sector) with its filter expression, exchange locations, exchanges and currencies.
 * @example listUniversePresets(ctx).presets.find((p) => p.id === "us_large_cap")?.filter_expression
 */
export function listUniversePresets(_ctx: ServiceContext): UniversePresetsResponse {
  return { success: true, presets: UNIVERSE_PRESETS.map(copyPreset) };
}

/**
 * One universe preset by id (extension, for `lotwise catalog presets ID`).
 * @throws {NotFoundError} code `preset_not_found`, naming the known ids.
 */
export function getUniversePreset(_ctx: ServiceContext, id: string): UniversePreset {
  const preset = findUniversePreset(id);
  if (preset === undefined) {
    throw new NotFoundError(
      `Unknown universe preset '${id}'; known presets: ${UNIVERSE_PRESETS.map((p) => p.id).join(", ")}.`,
      "preset_not_found",
    );
  }
  return copyPreset(preset);
}

// Presets are frozen module data; callers get their own arrays.
function copyPreset(p: UniversePreset): UniversePreset {
  return {
    ...p,
    allowed_exchange_locations: [...p.allowed_exchange_locations],
    allowed_exchanges: [...p.allowed_exchanges],
    allowed_currencies: [...p.allowed_currencies],
  };
}
