/**
 * @module contract/catalog
 * Catalog lookups: industry classification search (endpoint 9) and universe presets (endpoint 10).
 */
import * as z from "zod";
import { expectedMessage } from "./primitives.js";
import { describe, named } from "./registry.js";

/** Levels of the industry taxonomy: sector, industry group, industry, sub-industry. */
export const INDUSTRY_LEVELS = ["L1", "L2", "L3", "L4"] as const;
/** Longest accepted industry search query. */
export const MAX_INDUSTRY_QUERY_LENGTH = 200;

/** Body of the industry search: the words to look for. */
export const industrySearchRequestSchema = named(
  z.strictObject(
    {
      query: describe(
        z
          .string({ error: expectedMessage("a search string") })
          .min(1, { error: "query must not be empty" })
          .max(MAX_INDUSTRY_QUERY_LENGTH, {
            error: `query must be at most ${MAX_INDUSTRY_QUERY_LENGTH} characters`,
          })
          .refine((q) => q.length === 0 || q.trim().length > 0, { error: "query must not be blank" }),
        "words to search for in industry names, keywords and descriptions",
      ),
    },
    { error: expectedMessage("an object with a query") },
  ),
  "IndustrySearchRequest",
  "Body of the industry classification search (endpoint 9).",
);
/** Body of the industry search. */
export type IndustrySearchRequest = z.infer<typeof industrySearchRequestSchema>;

/** One industry classification match with its ready-to-use filter expression. */
export const industryMatchSchema = named(
  z.strictObject({
    level: describe(z.enum(INDUSTRY_LEVELS), "L1 sector, L2 industry group, L3 industry, L4 sub-industry"),
    id: describe(z.int().min(0), "classification code, e.g. 45 or 45102010"),
    name: z.string(),
    expression: describe(
      z.string(),
      "filter expression selecting this classification, for theme methodologies",
    ),
    parent: describe(z.string().nullable(), "name of the parent classification; null for a sector"),
    parent_l1: describe(z.string().nullable(), "name of the sector above; null for a sector"),
    parent_l2: describe(z.string().nullable(), "name of the industry group above; null above L3"),
    children: z.array(z.string()),
    siblings: z.array(z.string()),
  }),
  "IndustryMatch",
  "An industry classification matching a search.",
);
/** One industry classification match. */
export type IndustryMatch = z.infer<typeof industryMatchSchema>;

/** Response of the industry search. */
export const industrySearchResponseSchema = named(
  z.strictObject({
    success: z.boolean(),
    query: z.string(),
    matches: z.array(industryMatchSchema),
    hint: describe(z.string(), "how to use the matches, or how to broaden a search without matches"),
  }),
  "IndustrySearchResponse",
  "Response of the industry classification search (endpoint 9).",
);
/** Response of the industry search. */
export type IndustrySearchResponse = z.infer<typeof industrySearchResponseSchema>;

/** A universe preset. */
export const universePresetSchema = named(
  z.strictObject({
    id: z.string(),
    name: z.string(),
    description: z.string(),
    filter_expression: describe(z.string(), "filter expression of the preset's candidate universe"),
    allowed_exchange_locations: describe(z.array(z.string()), "ISO 3166-1 alpha-2 countries, e.g. US, CA"),
    allowed_exchanges: describe(z.array(z.string()), "ISO 10383 MICs"),
    allowed_currencies: z.array(z.string()),
  }),
  "UniversePreset",
  "A candidate-universe preset for themes.",
);
/** A universe preset. */
export type UniversePreset = z.infer<typeof universePresetSchema>;

/** Response of the universe preset list (endpoint 10). */
export const universePresetsResponseSchema = named(
  z.strictObject({ success: z.boolean(), presets: z.array(universePresetSchema) }),
  "UniversePresetsResponse",
  "Response of the universe preset list (endpoint 10).",
);
/** Response of the universe preset list. */
export type UniversePresetsResponse = z.infer<typeof universePresetsResponseSchema>;
