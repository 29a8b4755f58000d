/**
 * @module server/openapi
 * The OpenAPI 3.1 document of the service, generated from the route table and the contract's schemas:
 * request bodies are converted with io "input" (fields with defaults optional), responses with io "output"; a
 * schema whose two forms differ gets a second component named `<Id>Input`. Every operation lists its error
 * responses with the envelope, and examples come from `CONTRACT_EXAMPLES`.
 */
import * as z from "zod";
import {
  CONTRACT_EXAMPLES,
  type ContractExampleId,
  contractJsonSchema,
  contractJsonSchemaComponents,
  contractRegistry,
  errorCodeStatus,
} from "../contract/index.js";
import { VERSION } from "../version.js";
import { DEFAULT_MAX_BODY_BYTES, MEDIA_TYPES } from "./body.js";
import { INTERNAL_ERROR_MESSAGE, STORE_BUSY_MESSAGE, WWW_AUTHENTICATE } from "./error-response.js";
import { type AnyRoute, pathParameters } from "./route.js";

/** An OpenAPI 3.1 document (the parts this module writes are typed loosely: it is served as JSON). */
export interface OpenApiDocument {
  openapi: "3.1.0";
  info: { title: string; version: string; description: string };
  tags: { name: string; description?: string }[];
  paths: Record<string, Record<string, OpenApiOperation>>;
  components: {
    schemas: Record<string, unknown>;
    responses: Record<string, unknown>;
    securitySchemes: Record<string, unknown>;
  };
  security: Record<string, string[]>[];
}

/** One operation of the document. */
export interface OpenApiOperation {
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  parameters?: unknown[];
  requestBody?: unknown;
  responses: Record<string, unknown>;
  security?: Record<string, string[]>[];
  "x-lotwise-spec-endpoint"?: number;
  "x-lotwise-extension"?: boolean;
}

/** Name of the security scheme (the spec's). */
export const SECURITY_SCHEME = "ProAPIToken";

const REF = "#/components/schemas/";

/** Error responses in `components.responses`, by status. */
const ERROR_RESPONSES: Record<number, { name: string; description: string; example: unknown }> = {
  400: {
    name: "BadRequest",
    description:
      "The request is invalid: a field fails validation (`validation_error`, with `details`), a reference cannot be resolved, a path parameter is not a uuid (`invalid_path_parameter`) or the body cannot be parsed (`malformed_body`).",
    example: CONTRACT_EXAMPLES.ErrorEnvelope,
  },
  401: {
    name: "Unauthorized",
    description: "The X-Api-Key header is missing, malformed, unknown or revoked (`unauthorized`).",
    example: {
      error: {
        code: "unauthorized",
        message:
          "Missing X-Api-Key header. Send an API key of your organization in the X-Api-Key header (issue one with `lotwise keys create`).",
      },
    },
  },
  404: {
    name: "NotFound",
    description:
      "The resource does not exist in the key's organization (`<resource>_not_found`); a path under another organization answers `organization_not_found`, exactly as for one that does not exist.",
    example: {
      error: {
        code: "client_not_found",
        message: "Client 7a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d not found.",
      },
    },
  },
  405: {
    name: "MethodNotAllowed",
    description: "The path exists but not with this method; `Allow` lists the methods it has.",
    example: {
      error: {
        code: "method_not_allowed",
        message: "PUT is not allowed on this path; allowed: GET, HEAD, PATCH.",
      },
    },
  },
  409: {
    name: "Conflict",
    description: "The request conflicts with the stored state (`conflict`).",
    example: { error: { code: "conflict", message: "Composite asset classes nest deeper than 8 levels." } },
  },
  413: {
    name: "PayloadTooLarge",
    description: `The body is larger than the server's limit (default ${DEFAULT_MAX_BODY_BYTES} bytes) (\`payload_too_large\`).`,
    example: {
      error: { code: "payload_too_large", message: "The request body is larger than the limit of 1 MiB." },
    },
  },
  415: {
    name: "UnsupportedMediaType",
    description:
      "The body's Content-Type is missing or not accepted by the route (`unsupported_media_type`).",
    example: {
      error: {
        code: "unsupported_media_type",
        message: "Content-Type text/plain is not accepted here; accepted: application/json.",
      },
    },
  },
  422: {
    name: "Unprocessable",
    description:
      "The request is valid but cannot be carried out: infeasible or failed optimization (`infeasible`, `unbounded`, `solver_error`), missing market data (`missing_price`, `data_error`), impossible lot operations (`insufficient_lots`).",
    example: { error: { code: "missing_price", message: "No price for AAPL:XNAS on or before 2025-01-31." } },
  },
  429: {
    name: "TooManyRequests",
    description:
      "A limit was reached: the API key sent more requests to an expensive route (proposal, optimize, rebalance, backtest creation) than its rate allows (`rate_limited`, with `Retry-After` in seconds), or the organization already has the most queued backtest jobs the server accepts (`too_many_queued_jobs`; retry once some of them have started).",
    example: {
      error: {
        code: "rate_limited",
        message:
          "Too many requests to expensive routes with this API key (limit 600 per minute, bursts of 100); retry in 1 s.",
      },
    },
  },
  503: {
    name: "ServiceUnavailable",
    description:
      "The store is locked by another writer (for example a CLI import on the same file) and stayed locked for the server's bounded wait; nothing was changed, send the request again after `Retry-After` seconds (`store_busy`). Or the store cannot be used by this server version (`store_version`), or the server is shutting down and did not run the request (`service_unavailable`; retry it).",
    example: {
      error: { code: "store_busy", message: STORE_BUSY_MESSAGE },
    },
  },
  500: {
    name: "InternalError",
    description: "An unexpected failure; the message reveals nothing about the internals (`internal_error`).",
    example: { error: { code: "internal_error", message: INTERNAL_ERROR_MESSAGE } },
  },
};

/** Component schemas: output forms under their ids, differing input forms as `<Id>Input`. */
function componentSchemas(): { schemas: Record<string, unknown>; inputRef: (id: string) => string } {
  const output = contractJsonSchemaComponents((id) => REF + id, { io: "output" }).schemas;
  const canon = (v: unknown) => JSON.stringify(v);
  // A schema needs an input component when its input form differs, also only through a reference (fixpoint).
  let renamed = new Set<string>();
  let input: Record<string, unknown> = {};
  for (let round = 0; round < 50; round++) {
    const current = renamed;
    input = contractJsonSchemaComponents((id) => REF + (current.has(id) ? `${id}Input` : id), {
      io: "input",
    }).schemas;
    const next = new Set(Object.keys(input).filter((id) => canon(input[id]) !== canon(output[id])));
    if (next.size === current.size && [...next].every((id) => current.has(id))) break;
    renamed = new Set([...current, ...next]);
  }
  const schemas: Record<string, unknown> = { ...output };
  for (const id of renamed) schemas[`${id}Input`] = input[id];
  return { schemas, inputRef: (id) => REF + (renamed.has(id) ? `${id}Input` : id) };
}

/** JSON Schema of a route's schema: a `$ref` to its component when it is named, else inline. */
function schemaOf(schema: z.ZodType, io: "input" | "output", ref: (id: string) => string): unknown {
  const id = contractRegistry.get(schema)?.id;
  if (id !== undefined) return { $ref: ref(id) };
  const { $schema: _dialect, ...rest } = contractJsonSchema(schema, { io }) as Record<string, unknown>;
  return rest;
}

function exampleOf(schema: z.ZodType): { example: unknown } | Record<string, never> {
  const id = contractRegistry.get(schema)?.id;
  return id !== undefined && id in CONTRACT_EXAMPLES
    ? { example: CONTRACT_EXAMPLES[id as ContractExampleId] }
    : {};
}

/** Query parameters of a route from its object schema. */
function queryParameters(schema: z.ZodType): unknown[] {
  const json = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as {
    properties?: Record<string, unknown>;
    required?: string[];
  };
  return Object.entries(json.properties ?? {}).map(([name, s]) => {
    const { description, ...rest } = s as { description?: string };
    return {
      name,
      in: "query",
      required: (json.required ?? []).includes(name),
      schema: rest,
      ...(description !== undefined ? { description } : {}),
    };
  });
}

/** Error statuses an operation documents: those of every route of its shape, and those of its own error codes. */
function errorStatuses(route: AnyRoute): number[] {
  const s = new Set<number>([500]);
  // Every route that reads the store can meet a store locked by another writer (503 store_busy).
  if (!route.public) {
    s.add(401);
    s.add(503);
  }
  const params = pathParameters(route.path);
  if (params.length > 0) {
    s.add(404);
    if (params.some((p) => p !== "organization_uuid")) s.add(400);
  }
  if (route.body || route.upload) {
    s.add(400);
    s.add(413);
    s.add(415);
  }
  if (route.query) s.add(400);
  if (route.rateLimited) s.add(429);
  for (const e of route.errors ?? []) s.add(e);
  for (const code of route.errorCodes ?? []) s.add(errorCodeStatus(code));
  return [...s].sort((a, b) => a - b);
}

function operation(route: AnyRoute, inputRef: (id: string) => string): OpenApiOperation {
  const op: OpenApiOperation = {
    operationId: route.operationId,
    summary: route.summary,
    tags: [route.tag],
    responses: {},
  };
  if (route.description !== undefined) op.description = route.description;
  if (route.specEndpoint !== undefined) op["x-lotwise-spec-endpoint"] = route.specEndpoint;
  else if (!route.public) op["x-lotwise-extension"] = true;
  if (route.public) op.security = [];
  const parameters: unknown[] = pathParameters(route.path).map((name) => ({
    name,
    in: "path",
    required: true,
    schema: { type: "string", format: "uuid" },
    description:
      name === "organization_uuid" ? "your organization (the one your API key belongs to)" : `uuid (${name})`,
  }));
  if (route.query) parameters.push(...queryParameters(route.query));
  if (parameters.length > 0) op.parameters = parameters;
  if (route.body) {
    const schema = schemaOf(route.body.schema, "input", inputRef);
    const example = exampleOf(route.body.schema);
    const content: Record<string, unknown> = {};
    const accept = route.body.accept ?? ["json"];
    const files = Object.entries(route.body.files ?? {});
    for (const encoding of accept)
      content[MEDIA_TYPES[encoding]] =
        encoding === "json"
          ? { schema, ...example }
          : encoding === "multipart" && files.length > 0
            ? {
                schema: {
                  type: "object",
                  description:
                    "The body's fields as text parts (nested ones in bracket notation), and these file parts in place of the numbers they hold.",
                  properties: Object.fromEntries(
                    files.map(([name, description]) => [
                      name,
                      { type: "string", format: "binary", description },
                    ]),
                  ),
                  additionalProperties: true,
                },
              }
            : { schema };
    const others = accept
      .filter((e) => e !== "json")
      .map((e) => (e === "form" ? "form-urlencoded" : e))
      .join(" or ");
    const description = [
      accept.length > 1
        ? `JSON, or the same fields ${others}; nested fields use brackets: optimized_weights[0][ticker]=AAPL&optimized_weights[0][weight]=0.5.`
        : "",
      files.length > 0
        ? `A multipart body may carry file parts (UTF-8 text): ${files.map(([name, what]) => `${name} (${what})`).join("; ")}.`
        : "",
    ]
      .filter((x) => x !== "")
      .join(" ");
    op.requestBody = { required: true, content, ...(description !== "" ? { description } : {}) };
  }
  if (route.upload)
    op.requestBody = {
      required: true,
      description: `${route.upload.description} Send it as the body (text/csv, streamed; at most ${route.upload.maxBytes} bytes) or as the one file part of a multipart/form-data form (buffered; at most ${route.upload.multipartMaxBytes} bytes).`,
      content: {
        "text/csv": { schema: { type: "string" } },
        "multipart/form-data": {
          schema: {
            type: "object",
            properties: { file: { type: "string", format: "binary", description: "the CSV file" } },
            required: ["file"],
          },
        },
      },
    };
  const ok: Record<string, unknown> = { description: route.response.description };
  if (route.response.schema)
    ok.content = {
      "application/json": {
        schema: schemaOf(route.response.schema, "output", (id) => REF + id),
        ...exampleOf(route.response.schema),
      },
    };
  else if (route.response.contentType)
    ok.content = { [route.response.contentType]: { schema: { type: "string" } } };
  op.responses[String(route.response.status)] = ok;
  for (const status of errorStatuses(route))
    op.responses[String(status)] = { $ref: `#/components/responses/${ERROR_RESPONSES[status]!.name}` };
  return op;
}

/**
 * Builds the OpenAPI 3.1 document of a route table.
 * @example buildOpenApiDocument(API_ROUTES).paths["/api/v1/me"].get.operationId // "whoAmI"
 */
export function buildOpenApiDocument(routes: readonly AnyRoute[]): OpenApiDocument {
  const { schemas, inputRef } = componentSchemas();
  const paths: OpenApiDocument["paths"] = {};
  const tags: string[] = [];
  for (const route of routes) {
    if (!tags.includes(route.tag)) tags.push(route.tag);
    paths[route.path] ??= {};
    paths[route.path]![route.method.toLowerCase()] = operation(route, inputRef);
  }
  // Every error answer is documented, also 405 which belongs to paths rather than to operations.
  const responses: Record<string, unknown> = {};
  for (const status of Object.keys(ERROR_RESPONSES).map(Number)) {
    const e = ERROR_RESPONSES[status]!;
    const body: Record<string, unknown> = {
      description: e.description,
      content: { "application/json": { schema: { $ref: `${REF}ErrorEnvelope` }, example: e.example } },
    };
    if (status === 401)
      body.headers = {
        "WWW-Authenticate": { description: `Always \`${WWW_AUTHENTICATE}\`.`, schema: { type: "string" } },
      };
    if (status === 503)
      body.headers = {
        "Retry-After": {
          description: "With `store_busy`: seconds to wait before sending the request again.",
          schema: { type: "integer" },
        },
      };
    if (status === 405)
      body.headers = { Allow: { description: "Methods the path accepts.", schema: { type: "string" } } };
    if (status === 429)
      body.headers = {
        "Retry-After": {
          description: "Seconds to wait before the request can succeed (sent with `rate_limited`).",
          schema: { type: "integer" },
        },
      };
    responses[e.name] = body;
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "lotwise",
      version: VERSION,
      description: [
        "Tax-managed portfolios over HTTP: portfolio configurations, clients and accounts with tax lots, asset classes.",
        "Authenticate every request (except this document and /api/v1/docs) with the header X-Api-Key.",
        "Organization-scoped paths end with a slash; design-preview paths (/api/v1/...) do not.",
        'Every error has the body {"error": {"code", "message", "details"?}}; details list the offending fields of a validation error.',
        "Operations marked x-lotwise-extension are lotwise extensions beyond the service interface specification the other operations implement.",
      ].join("\n\n"),
    },
    tags: tags.map((name) => ({ name })),
    paths,
    components: {
      schemas,
      responses,
      securitySchemes: {
        [SECURITY_SCHEME]: {
          type: "apiKey",
          in: "header",
          name: "X-Api-Key",
          description: "An API key of your organization (lotwise keys create).",
        },
      },
    },
    security: [{ [SECURITY_SCHEME]: [] }],
  };
}
