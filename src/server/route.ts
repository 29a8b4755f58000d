/**
 * @module server/route
 * A route of the HTTP service as one table entry: method, path template, request/query/response schemas, status,
 * documentation and handler. The Hono app and the OpenAPI document are both generated from the same table. The
 * operation routes (API_ROUTES) are derived from the operation table (service/operations.ts); the documentation
 * routes and tests declare routes of their own with `defineRoute`.
 */
import type * as z from "zod";
import type { ErrorCode } from "../contract/index.js";
import type { BodyEncoding, FormFile, HttpMethod, ServiceContext, UploadSpec } from "../service/index.js";
import { pathParameters } from "../service/index.js";

export type { HttpMethod };
export { pathParameters };

/** What a handler receives. `org` is the organization of the presented key (equal to the path's on org paths). */
export interface RouteInput<TBody, TQuery> {
  ctx: ServiceContext;
  /** Organization of the API key; "" on public routes. */
  org: string;
  /** Id of the API key (its public part); "" on public routes. */
  keyId: string;
  /** Path parameters, validated as uuids and lower-cased. */
  params: Readonly<Record<string, string>>;
  /** The body, parsed by the route's body schema (undefined when the route takes none). */
  body: TBody;
  /** The query, parsed by the route's query schema (an empty object when the route declares none). */
  query: TQuery;
  /** The raw request (for routes that need headers). */
  request: Request;
  /** The uploaded file's bytes as they arrive, on routes that declare `upload` (undefined elsewhere). */
  upload: AsyncIterable<Uint8Array> | undefined;
}

/** The request body of a route. */
export interface RouteBody<TBody> {
  /** Contract schema of the body (a named one appears in the OpenAPI document by its id). */
  schema: z.ZodType<TBody>;
  /** Accepted encodings. @default ["json"] */
  accept?: readonly BodyEncoding[];
  /**
   * Conversion applied to form and multipart bodies before validation (form values are strings; e.g. the
   * contract's `backtestRequestFromForm` turns numeric fields into numbers).
   */
  fromForm?: (value: unknown, files: Readonly<Record<string, FormFile>>) => unknown;
  /** File parts a multipart body may carry, by part name, with what each holds (see OperationBody.files). */
  files?: Readonly<Record<string, string>>;
  /**
   * Largest body of this route, in bytes, when it must differ from the app's `maxBodyBytes` (an uploaded risk
   * model's matrices). @default the app's limit
   */
  maxBytes?: number;
}

/** Success response of a route. */
export interface RouteResponse {
  status: 200 | 201 | 202 | 204;
  /** Contract schema of the JSON body (none for 204 or non-JSON routes). */
  schema?: z.ZodType;
  /** Media type of a non-JSON response (the docs page). @default "application/json" */
  contentType?: string;
  /** What the response is, for the OpenAPI document. */
  description: string;
}

/** One route of the table. */
export interface RouteSpec<TBody = unknown, TQuery = unknown> {
  method: HttpMethod;
  /** OpenAPI path template, e.g. `/api/v1/custom/org/{organization_uuid}/clients/{uuid}/`. */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  /** OpenAPI tag (group in the docs). */
  tag: string;
  /** Number of the endpoint in the interface spec; absent for extensions. */
  specEndpoint?: number;
  /** No API key needed (the OpenAPI document and the docs page). @default false */
  public?: boolean;
  body?: RouteBody<TBody>;
  /**
   * The route takes a file (`text/csv` streamed, or one file of a `multipart/form-data` form) that its handler
   * reads as a stream (`upload`), instead of a JSON `body`.
   */
  upload?: UploadSpec;
  /** Schema of the query parameters (an object schema; each key is one parameter). */
  query?: z.ZodType<TQuery>;
  response: RouteResponse;
  /**
   * The JSON response is a pure function of the store's content and the calendar date (a read), so the server may
   * answer from its response cache, which any write to the store invalidates. @default false
   */
  cache?: boolean;
  /**
   * An expensive operation (it optimizes, builds a proposal or queues a job): each API key may call such routes at
   * most at the app's rate limit (429 `rate_limited` with `Retry-After` beyond). @default false
   */
  rateLimited?: boolean;
  /**
   * The operation can take long on the CPU (optimize, proposal, theme evaluate/backtest): an app over a store file
   * runs it on its pool of request workers (server/request-pool.ts) instead of the event loop. The handler then runs
   * in a worker thread with its own store connection: it must use only `ctx`, `org`, `keyId`, `params`, `body` and
   * `query` (`request` carries the method and URL only), and the route must be one of API_ROUTES (the worker finds
   * it there by operationId). `"write"`: the operation holds the store's write lock while it computes (proposal
   * creation, rebalance), so the pool runs such requests one at a time (others run beside them). @default false
   */
  heavy?: boolean | "write";
  /**
   * Codes of the errors the operation itself answers (from the operation table); the OpenAPI document lists their
   * statuses, and docs/http.md the codes.
   */
  errorCodes?: readonly ErrorCode[];
  /** Error statuses beyond the ones every route of its kind documents and those of `errorCodes` (e.g. 409, 422). */
  errors?: readonly number[];
  /** Does the work. A returned `Response` is sent as is; anything else is the JSON body. */
  handler(input: RouteInput<TBody, TQuery>): unknown;
}

/** A route whose body and query types are erased, as stored in a table. */
export type AnyRoute = RouteSpec<unknown, unknown>;

/**
 * Declares a route with typed body and query (types come from the schemas) and erases them for the table.
 * @example defineRoute({ method: "GET", path: "/api/v1/me", ..., handler: ({ org }) => ... })
 */
export function defineRoute<TBody = undefined, TQuery = Record<string, never>>(
  spec: RouteSpec<TBody, TQuery>,
): AnyRoute {
  return spec as unknown as AnyRoute;
}

/** The Hono form of a template: `{name}` becomes `:name`. */
export function honoPath(template: string): string {
  return template.replace(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g, ":$1");
}

/** A regular expression matching concrete paths of a template (one segment per parameter). */
export function templateRegExp(template: string): RegExp {
  const parts = template
    .split(/\{[A-Za-z_][A-Za-z0-9_]*\}/g)
    .map((s) => s.replace(/[.*+?^$()|[\]\\]/g, "\\$&"));
  return new RegExp(`^${parts.join("([^/]+)")}$`);
}

/** True for paths of the organization-scoped family (they end with a slash). */
export function isOrganizationPath(template: string): boolean {
  return template.startsWith("/api/v1/custom/org/");
}
