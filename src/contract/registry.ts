/**
 * @module contract/registry
 * Metadata of the contract's schemas, kept in private zod registries rather than `z.globalRegistry`: imports
 * then register nothing globally, and two copies of the module (source and build) never collide on ids.
 * - {@link contractRegistry}: the named wire schemas, each `{ id, description }` (ids are OpenAPI component
 *   names);
 * - field descriptions live in a second registry and are written into JSON Schema by
 *   {@link contractJsonSchema} / {@link contractJsonSchemaComponents}.
 */
import * as z from "zod";

/** Metadata of a named wire schema. */
export interface ContractMeta {
  id: string;
  description: string;
  [key: string]: unknown;
}

/** The registry of named wire schemas (every entry has an `id`). */
export const contractRegistry = z.registry<ContractMeta>();

/** Descriptions of field schemas (no ids). */
const fieldRegistry = z.registry<{ description: string }>();

/**
 * Attaches a description to a field schema and returns the same schema.
 * @throws {TypeError} when `schema` is a named schema (its own description would be replaced).
 * @example const name = describe(z.string().max(255), "display name")
 */
export function describe<T extends z.ZodType>(schema: T, description: string): T {
  if (contractRegistry.has(schema))
    throw new TypeError(
      `describe: ${contractRegistry.get(schema)?.id} is a named schema; describe the field instead`,
    );
  // A factory may already have described the format (e.g. decimal digits); keep both, field meaning first.
  const previous = fieldRegistry.get(schema)?.description;
  fieldRegistry.add(schema, {
    description: previous === undefined ? description : `${description}. ${previous}`,
  });
  return schema;
}

/**
 * Registers a wire schema under a stable `id` (PascalCase, used as the OpenAPI component name).
 * @throws {Error} from zod when the id is already taken by another schema.
 */
export function named<T extends z.ZodType>(schema: T, id: string, description: string): T {
  contractRegistry.add(schema, { id, description });
  return schema;
}

/** The description registered for a field schema, if any. */
export function fieldDescription(schema: z.ZodType): string | undefined {
  return fieldRegistry.get(schema)?.description;
}

/** Options of the contract's JSON Schema conversions. */
export interface ContractJsonSchemaOptions {
  /** Request bodies are converted as `"input"` (defaults optional), responses as `"output"`. @default "output" */
  io?: "input" | "output";
  /** JSON Schema dialect. @default "draft-2020-12" */
  target?: "draft-2020-12" | "draft-07" | "openapi-3.0";
}

function addFieldDescription(ctx: {
  zodSchema: z.core.$ZodTypes;
  jsonSchema: z.core.JSONSchema.BaseSchema;
}): void {
  const description = fieldRegistry.get(ctx.zodSchema as unknown as z.ZodType)?.description;
  if (description !== undefined && ctx.jsonSchema.description === undefined)
    ctx.jsonSchema.description = description;
}

/**
 * JSON Schema of one contract schema: named sub-schemas become `$defs` entries referenced by id, fields carry
 * their descriptions.
 * @example contractJsonSchema(proposalRequest, { io: "input" })
 */
export function contractJsonSchema(schema: z.ZodType, options: ContractJsonSchemaOptions = {}) {
  return z.toJSONSchema(schema, {
    target: options.target ?? "draft-2020-12",
    io: options.io ?? "output",
    metadata: contractRegistry,
    override: addFieldDescription,
  });
}

/**
 * JSON Schemas of every named schema at once, cross-referenced through `uri(id)` — for the `components`
 * section of an OpenAPI 3.1 document: `contractJsonSchemaComponents((id) => "#/components/schemas/" + id)`.
 * @returns `{ schemas: { [id]: JSONSchema } }` without per-schema `$schema` / `$id`.
 */
export function contractJsonSchemaComponents(
  uri: (id: string) => string,
  options: ContractJsonSchemaOptions = {},
): { schemas: Record<string, z.core.JSONSchema.BaseSchema> } {
  const { schemas } = z.toJSONSchema(contractRegistry, {
    target: options.target ?? "draft-2020-12",
    io: options.io ?? "output",
    uri,
    override: addFieldDescription,
  });
  // The components live in one document: a per-schema $schema or fragment $id would be invalid there.
  const out: Record<string, z.core.JSONSchema.BaseSchema> = {};
  for (const [id, schema] of Object.entries(schemas)) {
    const { $schema: _dialect, $id: _id, ...rest } = schema;
    out[id] = rest;
  }
  return { schemas: out };
}
