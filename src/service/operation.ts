/**
 * @module service/operation
 * What one operation of lotwise is, declared once: its HTTP method and path, its path / query / body inputs and
 * their contract schemas, its answer (status and schema), the codes of the errors it can return, how it is served
 * (cached, rate limited, heavy) and the service function that does the work. The table of them
 * (service/operations.ts) is the single source of the HTTP routes and the OpenAPI document (src/server), of both
 * Backends (LocalBackend here, RemoteBackend in src/client) and of the Backend type itself.
 */
import type * as z from "zod";
import type { ErrorCode } from "../contract/index.js";
import type { ServiceContext } from "./context.js";
import type { LotCsvSource } from "./lots-import.js";

/** Methods the service uses. */
export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/** Encodings of a request body. */
export type BodyEncoding = "json" | "form" | "multipart";

/** A route that takes a file (streamed `text/csv`, or one file of a multipart form) instead of a JSON body. */
export interface UploadSpec {
  /** Largest streamed `text/csv` body, in bytes (checked as the bytes arrive). */
  maxBytes: number;
  /** Largest `multipart/form-data` body, in bytes: it is buffered to be parsed. */
  multipartMaxBytes: number;
  /** What the file is, for the OpenAPI document. */
  description: string;
}

/** The upload of an operation: the server's limits plus how the client sends it. */
export interface OperationUpload extends UploadSpec {
  /** Content-Type the client streams the file with. */
  contentType: string;
  /** Time limit of the client's request (an upload takes longer than the client's default). */
  clientTimeoutMs: number;
}

/** The request body of an operation. */
export interface OperationBody<S extends z.ZodType> {
  /** Contract schema of the body (a named one appears in the OpenAPI document by its id). */
  schema: S;
  /** Accepted encodings. @default ["json"] */
  accept?: readonly BodyEncoding[];
  /**
   * Conversion applied to form and multipart bodies before validation (form values are strings), with the file parts
   * of a multipart body (those `files` names; empty otherwise). May be asynchronous (it loads its parser lazily).
   */
  fromForm?: (value: unknown, files: Readonly<Record<string, FormFile>>) => unknown;
  /**
   * File parts a multipart body may carry, by part name, with what each holds (for the OpenAPI document): their
   * texts reach `fromForm`. Any other file part is refused (malformed_body). @default none
   */
  files?: Readonly<Record<string, string>>;
  /** Largest body in bytes when it must differ from the app's limit (an uploaded risk model). */
  maxBytes?: number;
}

/** A file part of a multipart body, read as UTF-8 text. */
export interface FormFile {
  /** The file name the part gives, without folders (the part's name when it gives none): errors name it. */
  name: string;
  text: string;
}

/** The success answer of an operation. */
export interface OperationResponse<S extends z.ZodType | undefined> {
  status: 200 | 201 | 202 | 204;
  /** Contract schema of the JSON body (none for 204). */
  schema?: S;
  /** What the answer is, for the OpenAPI document. */
  description: string;
}

/** Names of the `{parameters}` of a path template. */
export type PathParamNames<P extends string> = P extends `${string}{${infer N}}${infer R}`
  ? N | PathParamNames<R>
  : never;

/** Positional Backend arguments of a path: one string per parameter except the organization (the backend's). */
export type PathArgs<P extends string> = P extends `${string}{${infer N}}${infer R}`
  ? N extends "organization_uuid"
    ? PathArgs<R>
    : [string, ...PathArgs<R>]
  : [];

type Out<S> = S extends z.ZodType ? z.output<S> : undefined;
type OptionalWhenEmpty<T, Name extends string> =
  Record<string, never> extends T
    ? Name extends "body"
      ? [body?: T]
      : [query?: T]
    : Name extends "body"
      ? [body: T]
      : [query: T];

/**
 * Backend arguments of an operation by default: path parameters, then the body (in its input form: fields with
 * defaults may be left out) or the file, then the query (typed values; each is sent as its string); a body or
 * query whose fields are all optional may be left out whole.
 */
export type DefaultArgs<P extends string, BS, QS, US> = [
  ...PathArgs<P>,
  ...(BS extends z.ZodType ? OptionalWhenEmpty<z.input<BS>, "body"> : []),
  ...(US extends OperationUpload ? [csv: LotCsvSource] : []),
  ...(QS extends z.ZodType ? OptionalWhenEmpty<z.output<QS>, "query"> : []),
];

/** The inputs of a Backend call, in wire form (path parameters in order, body, query, file). */
export interface CallInput {
  path: readonly string[];
  body?: unknown;
  query?: Readonly<Record<string, unknown>>;
  upload?: LotCsvSource;
}

/** What the service function of an operation receives: validated input of one organization. */
export interface OperationInput<P extends string, B, Q, U> {
  ctx: ServiceContext;
  /** Organization of the caller (the API key's, or the local backend's). */
  org: string;
  /** Id of the caller's API key; `"local"` for the local backend. */
  keyId: string;
  /** Path parameters (uuids, lower case), by name. */
  params: { readonly [K in PathParamNames<P>]: string };
  /** The body parsed by the body schema (undefined when the operation takes none). */
  body: B;
  /** The query parsed by the query schema (an empty object when the operation declares none). */
  query: Q;
  /** The uploaded file on upload operations (undefined elsewhere). */
  upload: U;
}

/**
 * An answer whose JSON text the service function already has (a stored proposal of hundreds of KiB): the server
 * sends `json` as it is, the local backend uses `value`.
 */
export class JsonText<T> {
  constructor(
    readonly value: T,
    readonly json: string,
  ) {}
}

/** One operation as written in the table. */
export interface OperationSpec<
  P extends string,
  BS extends z.ZodType | undefined,
  QS extends z.ZodType | undefined,
  RS extends z.ZodType | undefined,
  US extends OperationUpload | undefined,
  A extends unknown[] | null,
> {
  method: HttpMethod;
  /** OpenAPI path template, e.g. `/api/v1/custom/org/{organization_uuid}/clients/{uuid}/`. */
  path: P;
  /** operationId of the OpenAPI document. @default the operation's name in the table */
  operationId?: string;
  /** OpenAPI tag (group in the docs). */
  tag: string;
  summary: string;
  description?: string;
  /** Number of the endpoint in the interface spec; absent for extensions. */
  specEndpoint?: number;
  body?: OperationBody<NonNullable<BS>>;
  /** Schema of the query parameters (an object schema of strings: each key is one parameter). */
  query?: QS;
  upload?: US;
  response: OperationResponse<RS>;
  /**
   * Codes of the errors the operation itself can answer (docs/http.md lists them). Codes every route of its kind
   * can answer (unauthorized, organization_not_found, invalid_path_parameter, malformed_body, payload_too_large,
   * unsupported_media_type, rate_limited, store_busy, service_unavailable, internal_error) are added from the
   * route's shape; `validation_error` too when it takes a body or a query.
   */
  errors: readonly ErrorCode[];
  /**
   * The answer is a pure function of the store's content and the calendar date (a read), so the server may answer
   * from its response cache (keyed by organization; public routes cannot be cached). @default false
   */
  cache?: boolean;
  /** An expensive operation: each API key may call it at most at the app's rate limit (429). @default false */
  rateLimited?: boolean;
  /**
   * Long on the CPU: a server over a store file runs it on its request workers. `"write"`: it holds the store's
   * write lock while it computes, so such requests run one at a time. @default false
   */
  heavy?: boolean | "write";
  /**
   * The Backend method: `false` for a route-only operation (no method); `{ args }` when the method's arguments
   * are not the default (path parameters, then the body or the file, then the query).
   * @default the default arguments
   */
  backend?:
    | false
    | { args: (...args: NonNullable<A>) => Omit<CallInput, "path"> & { path?: readonly string[] } };
  /** Does the work with the service function(s). */
  run(
    input: OperationInput<
      P,
      Out<BS>,
      QS extends z.ZodType ? z.output<QS> : Record<string, never>,
      US extends OperationUpload ? LotCsvSource : undefined
    >,
  ):
    | Out<RS>
    | JsonText<Out<RS>>
    | Promise<Out<RS> | JsonText<Out<RS>>>
    | (RS extends undefined ? unknown : never);
}

/** An operation of the table with its types erased (what the routes and the backends iterate over). */
export interface AnyOperation {
  name: string;
  operationId: string;
  method: HttpMethod;
  path: string;
  tag: string;
  summary: string;
  description?: string;
  specEndpoint?: number;
  body?: OperationBody<z.ZodType>;
  query?: z.ZodType;
  upload?: OperationUpload;
  response: OperationResponse<z.ZodType>;
  errors: readonly ErrorCode[];
  cache?: boolean;
  rateLimited?: boolean;
  heavy?: boolean | "write";
  backend?: false | { args: (...args: never[]) => Omit<CallInput, "path"> & { path?: readonly string[] } };
  run(input: OperationInput<string, unknown, unknown, unknown>): unknown;
}

/** Phantom type of an operation's Backend method (null: no method). */
declare const METHOD: unique symbol;

/** An operation as stored in the table: its spec, typed by its Backend method. */
export type Operation<
  A extends unknown[] | null,
  R,
  E extends readonly ErrorCode[] = readonly ErrorCode[],
> = Omit<AnyOperation, "name" | "operationId" | "errors"> & {
  /** The codes of the operation's own errors, as the literal tuple of the table. */
  readonly errors: E;
  readonly [METHOD]?: A extends unknown[] ? (...args: A) => Promise<R> : null;
};

/**
 * Declares an operation: the body, query and answer types come from the schemas, the Backend method's signature
 * from the path (one string per path parameter), the body, the file and the query.
 */
export function defineOperation<
  const P extends string,
  BS extends z.ZodType | undefined = undefined,
  QS extends z.ZodType | undefined = undefined,
  RS extends z.ZodType | undefined = undefined,
  US extends OperationUpload | undefined = undefined,
  const E extends readonly ErrorCode[] = readonly [],
  A extends unknown[] | null = DefaultArgs<P, BS, QS, US>,
>(
  spec: OperationSpec<P, BS, QS, RS, US, A> & {
    errors: E;
    backend?: { args: (...args: NonNullable<A>) => unknown };
  },
): Operation<A, RS extends z.ZodType ? z.output<RS> : void, E>;
export function defineOperation<
  const P extends string,
  BS extends z.ZodType | undefined = undefined,
  QS extends z.ZodType | undefined = undefined,
  RS extends z.ZodType | undefined = undefined,
  US extends OperationUpload | undefined = undefined,
  const E extends readonly ErrorCode[] = readonly [],
>(spec: OperationSpec<P, BS, QS, RS, US, null> & { errors: E; backend: false }): Operation<null, never, E>;
export function defineOperation(spec: unknown): unknown {
  return spec;
}

/** The Backend methods of a table: one per operation that has one, named as in the table. */
export type OperationMethods<T> = {
  [K in keyof T as T[K] extends { readonly [METHOD]?: null } ? never : K]: NonNullable<
    T[K] extends { readonly [METHOD]?: infer M } ? M : never
  >;
};

/** Names of the `{parameters}` of a path template, in order. */
export function pathParameters(template: string): string[] {
  return [...template.matchAll(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g)].map((m) => m[1]!);
}

/** The query of a call as the strings a URL carries (undefined values left out). */
export function queryStrings(query: Readonly<Record<string, unknown>> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) out[k] = String(v);
  return out;
}

/**
 * The wire inputs of a Backend call: the operation's `backend.args` when it has one, else path parameters in
 * order, then the body (`{}` when omitted and the body is optional) or the file, then the query.
 */
export function callInput(op: AnyOperation, args: readonly unknown[]): CallInput {
  const params = pathParameters(op.path).filter((p) => p !== "organization_uuid");
  if (op.backend) {
    const mapped = (op.backend.args as (...a: unknown[]) => Omit<CallInput, "path"> & { path?: string[] })(
      ...args,
    );
    return { ...mapped, path: mapped.path ?? [] };
  }
  const path = args.slice(0, params.length) as string[];
  let i = params.length;
  const input: CallInput = { path };
  if (op.body) input.body = args[i++] ?? {};
  if (op.upload) input.upload = args[i++] as LotCsvSource;
  if (op.query) input.query = (args[i++] as Record<string, unknown> | undefined) ?? {};
  return input;
}

/**
 * Gives a Backend class one method per operation of a list that has one, each calling `call(op, args)` on the
 * instance (LocalBackend and RemoteBackend declare the methods' types by merging an interface of BackendMethods).
 */
export function installOperationMethods<T>(
  target: { prototype: T },
  operations: readonly AnyOperation[],
  call: (self: T, op: AnyOperation, args: unknown[]) => Promise<unknown>,
): void {
  for (const op of operations)
    if (op.backend !== false)
      Object.defineProperty(target.prototype, op.name, {
        value(this: T, ...args: unknown[]) {
          return call(this, op, args);
        },
        writable: true,
        configurable: true,
      });
}
