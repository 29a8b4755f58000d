import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { caught } from "../../test/helpers/caught.js";
import { industrySearchResponseSchema, universePresetsResponseSchema } from "../contract/index.js";
import { NotFoundError, ValidationError } from "../core/errors.js";
import { compileExpression, fieldCatalog } from "../core/themes/expression/index.js";
import { openSqliteStore, type SqliteStore } from "../store/index.js";
import { getUniversePreset, listUniversePresets, searchIndustries } from "./catalog.js";
import type { ServiceContext } from "./context.js";

let store: SqliteStore;
let ctx: ServiceContext;
beforeAll(() => {
  store = openSqliteStore(":memory:");
  ctx = { store, clock: () => new Date("2025-01-15T12:00:00Z") };
});
afterAll(() => store.close());

describe("searchIndustries (endpoint 9)", () => {
  it.each([
    ["tech", "sector = 45"],
    ["banks", "industry_group = 4010"],
    ["pharma", "industry = 352020"],
    ["semiconductors", "industry = 453010"],
    ["oil", "sector = 10"],
    ["reit", "sector = 60"],
    ["software", "industry = 451020"],
    ["semicondutors", "industry = 453010"],
  ])("answers '%s' with %s first, in the contract's shape", (query, expression) => {
    const r = searchIndustries(ctx, { query });
    expect(industrySearchResponseSchema.parse(r)).toEqual(r);
    expect(r.success).toBe(true);
    expect(r.query).toBe(query);
    expect(r.matches[0]!.expression).toBe(expression);
  });

  it("returns every match's expression ready for a theme", () => {
    const fields = fieldCatalog();
    for (const m of searchIndustries(ctx, { query: "tech" }).matches)
      expect(() => compileExpression(m.expression, { fields })).not.toThrow();
  });

  it("succeeds without matches for nonsense, with a hint", () => {
    const r = searchIndustries(ctx, { query: "qwxyzzy" });
    expect(r.matches).toEqual([]);
    expect(r.hint).toMatch(/^No industry matches 'qwxyzzy'/);
  });

  it("rejects a missing, blank or wordless query with invalid_query", () => {
    for (const body of [{}, { query: 7 }, { query: "  " }, { query: "and the" }]) {
      const e = caught(() => searchIndustries(ctx, body as never));
      expect(e).toBeInstanceOf(ValidationError);
      expect(e.code).toBe("invalid_query");
    }
  });
});

describe("listUniversePresets (endpoint 10)", () => {
  it("lists presets in the contract's shape, each expression valid in the language", () => {
    const r = listUniversePresets(ctx);
    expect(universePresetsResponseSchema.parse(r)).toEqual(r);
    const ids = r.presets.map((p) => p.id);
    for (const id of [
      "us_large_cap",
      "us_all",
      "canada",
      "us_canada",
      "us_information_technology",
      "us_real_estate",
    ])
      expect(ids).toContain(id);
    for (const p of r.presets) compileExpression(p.filter_expression, { fields: fieldCatalog(), path: p.id });
  });

  it("gives callers their own copies", () => {
    listUniversePresets(ctx).presets[0]!.allowed_exchanges.push("XXXX");
    expect(listUniversePresets(ctx).presets[0]!.allowed_exchanges).toEqual(["XNYS", "XNAS"]);
  });

  it("reads one preset and names the known ones for an unknown id", () => {
    expect(getUniversePreset(ctx, "canada").allowed_currencies).toEqual(["CAD"]);
    const e = caught(() => getUniversePreset(ctx, "mars"));
    expect(e).toBeInstanceOf(NotFoundError);
    expect(e.code).toBe("preset_not_found");
    expect(e.message).toMatch(/^Unknown universe preset 'mars'; known presets: us_large_cap, /);
  });
});
