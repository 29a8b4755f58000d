import { Validator } from "@seriousme/openapi-schema-validator";
import { describe, expect, it } from "vitest";
import * as z from "zod";
import { contractJsonSchema, contractJsonSchemaComponents, contractRegistry } from "./registry.js";
import { CONTRACT_SCHEMAS, type ContractSchemaId } from "./schemas.js";

const ids = Object.keys(CONTRACT_SCHEMAS) as ContractSchemaId[];
const COMPONENT = "#/components/schemas/";

/** Every `$ref` value inside a JSON value. */
function refsOf(value: unknown, out: string[] = []): string[] {
  if (Array.isArray(value)) for (const v of value) refsOf(v, out);
  else if (value !== null && typeof value === "object")
    for (const [k, v] of Object.entries(value)) {
      if (k === "$ref" && typeof v === "string") out.push(v);
      else refsOf(v, out);
    }
  return out;
}

describe("JSON Schema conversion", () => {
  it.each(ids)("%s converts with z.toJSONSchema (draft 2020-12, input and output)", (id) => {
    for (const io of ["input", "output"] as const) {
      const json = z.toJSONSchema(CONTRACT_SCHEMAS[id], { target: "draft-2020-12", io });
      expect(json.$schema).toBe("https://json-schema.org/draft/2020-12/schema");
    }
  });

  it.each(ids)("%s is registered under its own id with a description", (id) => {
    const meta = contractRegistry.get(CONTRACT_SCHEMAS[id]);
    expect(meta?.id).toBe(id);
    expect(meta?.description.length).toBeGreaterThan(10);
  });

  it("registers nothing in zod's global registry (imports have no global side effect)", () => {
    for (const id of ids) expect(z.globalRegistry.get(CONTRACT_SCHEMAS[id])).toBeUndefined();
  });

  it("puts named sub-schemas in $defs by id and fields carry descriptions", () => {
    const json = contractJsonSchema(CONTRACT_SCHEMAS.ProposalRequest, { io: "input" }) as {
      $ref: string;
      $defs: Record<string, { properties: Record<string, { pattern?: string; description?: string }> }>;
    };
    expect(json.$ref).toBe("#/$defs/ProposalRequest");
    const weight = json.$defs.OptimizedWeight!.properties.weight!;
    expect(weight.pattern).toBe("^-?\\d{1,1}(\\.\\d{1,10})?$");
    expect(weight.description).toMatch(/^target weight .*decimal\(1,10\)/);
  });

  it("makes request defaults optional on input and present on output", () => {
    const input = contractJsonSchema(CONTRACT_SCHEMAS.ThemeMethodology, { io: "input" }) as {
      $defs: Record<string, { required: string[] }>;
    };
    const output = contractJsonSchema(CONTRACT_SCHEMAS.ThemeMethodology, { io: "output" }) as typeof input;
    expect(input.$defs.ThemeMethodology!.required).not.toContain("filters");
    expect(output.$defs.ThemeMethodology!.required).toContain("filters");
  });

  it("builds one component per named schema, every $ref resolving to a component", () => {
    const { schemas } = contractJsonSchemaComponents((id) => `${COMPONENT}${id}`);
    expect(Object.keys(schemas).sort()).toEqual([...ids].sort());
    for (const [id, schema] of Object.entries(schemas)) {
      expect(schema.$id, id).toBeUndefined();
      expect(schema.$schema, id).toBeUndefined();
      for (const ref of refsOf(schema)) {
        expect(ref.startsWith(COMPONENT), `${id}: ${ref}`).toBe(true);
        expect(ids, `${id}: ${ref}`).toContain(ref.slice(COMPONENT.length));
      }
    }
    expect(refsOf(schemas.AssetAllocationRead)).toContain(`${COMPONENT}AssetAllocationRead`);
  });

  it("marks every request object closed (additionalProperties false)", () => {
    const { schemas } = contractJsonSchemaComponents((id) => `${COMPONENT}${id}`, { io: "input" });
    for (const id of [
      "ProposalRequest",
      "BacktestRequest",
      "PortfolioConfigWrite",
      "ClientUpdate",
      "IndustrySearchRequest",
    ])
      expect(schemas[id]!.additionalProperties, id).toBe(false);
  });

  it("yields components that a 3.1 OpenAPI document validates with", async () => {
    const { schemas } = contractJsonSchemaComponents((id) => `${COMPONENT}${id}`);
    const document = {
      openapi: "3.1.0",
      info: { title: "lotwise contract check", version: "0.0.0" },
      paths: {
        "/proposal": {
          post: {
            requestBody: {
              required: true,
              content: { "application/json": { schema: { $ref: `${COMPONENT}ProposalRequest` } } },
            },
            responses: {
              "200": {
                description: "proposal",
                content: { "application/json": { schema: { $ref: `${COMPONENT}ProposalResponse` } } },
              },
            },
          },
        },
      },
      components: { schemas },
    };
    const result = await new Validator().validate(document);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    // Negative control: the same document with one malformed $ref is refused.
    const broken = structuredClone(document) as { components: { schemas: Record<string, unknown> } };
    broken.components.schemas.Broken = { properties: { x: { $ref: 5 } } };
    expect((await new Validator().validate(broken)).valid).toBe(false);
  });

  it("uses only JSON types and regular expressions valid in JSON Schema (ECMA-262, unicode)", () => {
    const { schemas } = contractJsonSchemaComponents((id) => `${COMPONENT}${id}`);
    const TYPES = new Set(["string", "number", "integer", "boolean", "object", "array", "null"]);
    const walk = (value: unknown): void => {
      if (Array.isArray(value)) value.forEach(walk);
      else if (value !== null && typeof value === "object")
        for (const [k, v] of Object.entries(value)) {
          if (k === "type") for (const t of [v].flat()) expect(TYPES.has(t as string), String(t)).toBe(true);
          else if (k === "pattern") expect(() => new RegExp(v as string, "u")).not.toThrow();
          else if (k !== "properties" || typeof v !== "object") walk(v);
          else Object.values(v as object).forEach(walk);
        }
    };
    walk(schemas);
  });
});
