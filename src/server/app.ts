/**
 * @module server/app
 * `createApp({ ctx })` returns the Hono app of the service (no listening socket: tests call `app.request()`,
 * `serve()` in node.ts puts it on a port). Every route comes from one table (routes.ts); this module adds what
 * all routes share: API-key authentication, the organization check, path-parameter, query and body parsing, the
 * error envelope, 404/405 answers and the OpenAPI document and docs page generated from the same table.
 *
 * Order of checks for a request under `/api/`: API key (401) -> route match (404 / 405) -> organization of the
 * path (404 `organization_not_found`, the same answer whether that organization exists or not) -> path parameters
 * (400) -> the key's rate limit on expensive routes (429 `rate_limited`, rate-limit.ts) -> query (400) ->
 * Content-Type (415) -> size (413) -> body syntax (400 `malformed_body`) -> body schema (400 `validation_error`)
 * -> the operation.
 *
 * A store locked by another process (a CLI import on the same file) never blocks the event loop: the app's connection
 * fails at once on the lock, the operation is retried asynchronously for a bounded time (store-busy.ts), then answered
 * 503 `store_busy` with `Retry-After`. Reads do not need the lock (WAL) and keep answering meanwhile.
 */
import { Hono } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { parseOrThrow } from "../contract/index.js";
import { NotFoundError, ValidationError } from "../core/errors.js";
import { clockDate, type ServiceContext } from "../service/index.js";
import { API_KEY_HEADER, ApiKeyAuthenticator, type Principal } from "./auth.js";
import { DEFAULT_MAX_BODY_BYTES, readBody, readUpload } from "./body.js";
import { DOCS_ASSETS_PATH, DOCS_SECURITY_HEADERS, docsAsset, docsPageHtml } from "./docs-ui.js";
import { errorResponse } from "./error-response.js";
import { health, readiness } from "./health.js";
import { HttpError } from "./http-error.js";
import { buildOpenApiDocument, type OpenApiDocument } from "./openapi.js";
import { type RateLimitOptions, TokenBucketLimiter } from "./rate-limit.js";
import { defaultRequestWorkers, type RequestAnswer, RequestWorkerPool } from "./request-pool.js";
import {
  acceptsGzip,
  type CachedBody,
  type CacheScope,
  etagMatches,
  gzipOf,
  MIN_GZIP_BYTES,
  ResponseCache,
} from "./response-cache.js";
import {
  type AnyRoute,
  defineRoute,
  honoPath,
  isOrganizationPath,
  pathParameters,
  templateRegExp,
} from "./route.js";
import { API_ROUTES } from "./routes.js";
import { DEFAULT_STORE_BUSY_WAIT_MS, retryWhileBusy } from "./store-busy.js";
import { storeChangeToken } from "./store-version.js";

/** Options of {@link createApp}. */
export interface AppOptions {
  /** Store and clock of the service. */
  ctx: ServiceContext;
  /** Largest request body accepted, in bytes. @default DEFAULT_MAX_BODY_BYTES (1 MiB) */
  maxBodyBytes?: number;
  /** The operation routes. @default API_ROUTES */
  routes?: readonly AnyRoute[];
  /** Where internal errors (with stacks) and background failures are written. @default a line on stderr */
  log?: (line: string) => void;
  /** Milliseconds between two `last_used_at` writes of one key. @default 60000 */
  touchIntervalMs?: number;
  /**
   * Cache of serialized responses of `cache: true` routes (reads), valid while the store and the date are
   * unchanged; `false` turns it off. @default { maxBytes: DEFAULT_RESPONSE_CACHE_BYTES } (32 MiB)
   */
  responseCache?: false | { maxBytes?: number };
  /**
   * Per-API-key token bucket on the expensive routes (`rateLimited` in the table: proposal, optimize, rebalance,
   * backtest creation); `false` turns it off. @default { perMinute: 600, burst: 100 }
   */
  rateLimit?: false | RateLimitOptions;
  /**
   * Longest time a request waits (asynchronously, retrying with backoff) for a store locked by another process
   * before it is answered 503 `store_busy` with `Retry-After`. The app sets its store connection's busy timeout to 0
   * so that no wait ever blocks the event loop. @default DEFAULT_STORE_BUSY_WAIT_MS (2000)
   */
  storeBusyWaitMs?: number;
  /**
   * Worker threads that run the `heavy: true` routes (optimize, rebalance, proposal, theme evaluate and backtest)
   * off the event loop, each with its own connection to the store file; 0 runs them in-process. A `:memory:` store
   * always runs them in-process (a worker cannot open it). Workers start on the first heavy request (or at
   * {@link warmApp}); stop them with {@link closeApp}. @default defaultRequestWorkers() = min(2, cores)
   */
  requestWorkers?: number;
}

/** Variables a request carries through the app. */
export interface AppEnv {
  Variables: { principal: Principal; storeToken: string | undefined };
}

/** The app type returned by {@link createApp}. */
export type LotwiseApp = Hono<AppEnv>;

/** Path of the OpenAPI document. */
export const OPENAPI_PATH = "/api/v1/openapi.json";
/** Path of the HTML reference. */
export const DOCS_PATH = "/api/v1/docs";
/** Liveness probe (no API key; outside `/api/`). */
export const HEALTHZ_PATH = "/healthz";
/** Readiness probe: the database and, when the context has one, the job queue (no API key; outside `/api/`). */
export const READYZ_PATH = "/readyz";

const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

/** Echo of client input in messages, bounded. */
function shown(value: string, max = 80): string {
  return value.length > max ? `${value.slice(0, max - 3)}...` : value;
}

/** The two public routes: the OpenAPI document and the docs page, both generated once on first request. */
function documentationRoutes(document: () => OpenApiDocument): AnyRoute[] {
  let json: string | undefined;
  let html: string | undefined;
  return [
    defineRoute({
      method: "GET",
      path: OPENAPI_PATH,
      operationId: "getOpenApiDocument",
      tag: "Documentation",
      public: true,
      summary: "This OpenAPI 3.1 document",
      description: "Generated from the route table and the contract schemas. No API key needed.",
      response: { status: 200, contentType: "application/json", description: "The OpenAPI document." },
      handler: () => {
        json ??= JSON.stringify(document());
        return new Response(json, { headers: { "content-type": "application/json; charset=utf-8" } });
      },
    }),
    defineRoute({
      method: "GET",
      path: DOCS_PATH,
      operationId: "getDocsPage",
      tag: "Documentation",
      public: true,
      summary: "Interactive reference of the API (Swagger UI)",
      description:
        'Swagger UI over this document: every operation with its schemas and request examples, an Authorize box for the X-Api-Key header and "Try it out" against this server. Its assets are served by lotwise under /api/v1/docs/assets/ (no CDN: works offline) and a Content-Security-Policy allows nothing else. No API key needed.',
      response: { status: 200, contentType: "text/html", description: "The reference page." },
      handler: () => {
        const info = document().info;
        html ??= docsPageHtml(info.title, info.version);
        return new Response(html, {
          headers: { "content-type": "text/html; charset=utf-8", ...DOCS_SECURITY_HEADERS },
        });
      },
    }),
  ];
}

/** The error for a request no route takes: 405 when the path exists with other methods, else 404. */
function unmatched(
  method: string,
  path: string,
  table: readonly { route: AnyRoute; re: RegExp }[],
): HttpError {
  const allowed = new Set<string>();
  for (const { route, re } of table) if (re.test(path)) allowed.add(route.method);
  if (allowed.size > 0) {
    if (allowed.has("GET")) allowed.add("HEAD");
    const allow = [...allowed].sort().join(", ");
    return new HttpError(
      "method_not_allowed",
      `${method} is not allowed on ${shown(path, 300)}; allowed: ${allow}.`,
      { Allow: allow },
    );
  }
  const other = path.endsWith("/") ? path.slice(0, -1) : `${path}/`;
  const twin = table.find(({ re }) => re.test(other));
  if (twin)
    return new HttpError(
      "not_found",
      isOrganizationPath(twin.route.path)
        ? `No route ${method} ${shown(path, 300)}. Organization-scoped paths end with a slash: ${shown(other, 300)}`
        : `No route ${method} ${shown(path, 300)}. Design-preview paths have no trailing slash: ${shown(other, 300)}`,
    );
  return new HttpError(
    "not_found",
    `No route ${method} ${shown(path, 300)}. The routes are listed at ${OPENAPI_PATH} and ${DOCS_PATH}.`,
  );
}

/** A response from a cached body: 304 when the client holds it, gzip when the client accepts it. */
function cachedResponse(entry: CachedBody, request: Request, status: number): Response {
  const gzip =
    entry.body.byteLength >= MIN_GZIP_BYTES &&
    acceptsGzip(request.headers.get("accept-encoding") ?? undefined);
  // Each representation has its own strong ETag.
  const etag = gzip ? `${entry.etag.slice(0, -1)}-gz"` : entry.etag;
  // Clients may keep the answer but must revalidate it (cheap: If-None-Match gets a 304).
  const headers: Record<string, string> = {
    etag,
    vary: "Accept-Encoding",
    "cache-control": "private, no-cache",
  };
  if (etagMatches(request.headers.get("if-none-match") ?? undefined, etag))
    return new Response(null, { status: 304, headers });
  headers["content-type"] = "application/json";
  if (gzip) headers["content-encoding"] = "gzip";
  return new Response((gzip ? gzipOf(entry) : entry.body) as Uint8Array<ArrayBuffer>, { status, headers });
}

/** Query parameters as an object; a parameter given twice is an error. */
function queryObject(url: string): Record<string, string> {
  const out: Record<string, string> = {};
  const issues: { path: string; message: string }[] = [];
  for (const [k, v] of new URL(url).searchParams) {
    if (Object.hasOwn(out, k)) issues.push({ path: k, message: "query parameter given more than once" });
    else out[k] = v;
  }
  if (issues.length > 0)
    throw new ValidationError(
      `Invalid query: ${issues.map((i) => i.path).join(", ")} given more than once.`,
      issues,
    );
  return out;
}

/** The request-worker pool of each app that has one. */
const pools = new WeakMap<LotwiseApp, RequestWorkerPool>();
/** Apps that are shutting down: their `/readyz` answers 503 with `"stopping": true`. */
const stoppingApps = new WeakSet<LotwiseApp>();

/**
 * Mark an app as shutting down (the first SIGTERM): `/readyz` answers 503 from now on, so that a load balancer stops
 * sending it traffic while in-flight requests finish. Idempotent.
 */
export function markAppStopping(app: LotwiseApp): void {
  stoppingApps.add(app);
}

/** The pool of an app over a store file, or undefined (in-process: `:memory:` store or `requestWorkers: 0`). */
function requestPool(options: AppOptions): RequestWorkerPool | undefined {
  const size = options.requestWorkers ?? defaultRequestWorkers();
  if (!Number.isInteger(size) || size < 0)
    throw new RangeError(`createApp: requestWorkers must be an integer >= 0, got ${size}`);
  // A store without a connection string (`:memory:`) cannot be opened by a worker: heavy routes run in-process.
  const path = options.ctx.store.connectionString;
  if (size === 0 || path === null) return undefined;
  const limits = options.ctx.limits;
  const queue = options.ctx.jobQueue?.location;
  return new RequestWorkerPool({
    storePath: path,
    size,
    ...(limits ? { limits } : {}),
    ...(queue ? { queue } : {}),
  });
}

/** Number of request workers an app runs heavy routes on (0: in-process). */
export function appRequestWorkers(app: LotwiseApp): number {
  return pools.get(app)?.size ?? 0;
}

/**
 * The state of an app's request workers: pool size, threads started, requests they answered; undefined when the
 * app runs heavy routes in-process.
 */
export function appRequestPoolStats(
  app: LotwiseApp,
): { size: number; started: number; completed: number } | undefined {
  const pool = pools.get(app);
  return pool && { size: pool.size, started: pool.started, completed: pool.completed };
}

/** Starts an app's request workers now rather than on its first heavy request. */
export function warmApp(app: LotwiseApp): void {
  pools.get(app)?.warm();
}

/**
 * Stops an app's request workers (a running request gets `graceMs` to finish). Heavy requests still queued, and
 * those after this, answer 503 `service_unavailable`. Idempotent; a no-op for an app without workers.
 */
export async function closeApp(app: LotwiseApp, options: { graceMs?: number } = {}): Promise<void> {
  await pools.get(app)?.close(options);
}

/** The response of a pooled request that failed: the envelope the worker built, or a 500 for anything else. */
function pooledFailure(answer: Exclude<RequestAnswer, { kind: "ok" }>): Response {
  if (answer.kind === "internal") throw new Error(answer.detail);
  return new Response(JSON.stringify(answer.body), {
    status: answer.status,
    headers: { ...answer.headers, "content-type": "application/json" },
  });
}

/**
 * Builds the Hono app of the service over a store.
 * @throws {TypeError} when two routes share a method and path.
 * @example
 * const app = createApp({ ctx: { store, clock: () => new Date() } });
 * const res = await app.request("/api/v1/me", { headers: { "X-Api-Key": key } });
 */
export function createApp(options: AppOptions): LotwiseApp {
  const { ctx } = options;
  const log = options.log ?? ((line: string) => void process.stderr.write(`${line}\n`));
  const maxBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  let document: OpenApiDocument | undefined;
  const routes: AnyRoute[] = [...(options.routes ?? API_ROUTES)];
  routes.push(...documentationRoutes(() => (document ??= buildOpenApiDocument(routes))));
  const seen = new Set<string>();
  for (const r of routes) {
    // A cached answer belongs to the caller's organization; a public route has none, so it cannot be cached.
    if (r.cache && r.public) throw new TypeError(`createApp: public route ${r.path} cannot be cached`);
    const key = `${r.method} ${honoPath(r.path).replace(/:[A-Za-z0-9_]+/g, ":")}`;
    if (seen.has(key)) throw new TypeError(`createApp: two routes for ${r.method} ${r.path}`);
    seen.add(key);
  }
  const table = routes.map((route) => ({ route, re: templateRegExp(route.path) }));
  const publicPaths = new Set(routes.filter((r) => r.public).map((r) => r.path));
  const busyWaitMs = options.storeBusyWaitMs ?? DEFAULT_STORE_BUSY_WAIT_MS;
  // A blocked write fails at once instead of freezing every request for the busy timeout; see retryWhileBusy.
  ctx.store.sqlite?.setBusyTimeout(0);
  const changeToken = storeChangeToken(ctx.store);
  // Rows written by the store's connection (SQLite): what tells retryWhileBusy a failed operation wrote nothing.
  const writeCounter = { writeCount: () => ctx.store.sqlite?.writeCount() ?? 0 };
  const authenticator = new ApiKeyAuthenticator(ctx, {
    log,
    ...(options.touchIntervalMs !== undefined ? { touchIntervalMs: options.touchIntervalMs } : {}),
  });
  const cache =
    options.responseCache !== false
      ? new ResponseCache(options.responseCache ? options.responseCache.maxBytes : undefined)
      : undefined;

  const limiter = options.rateLimit === false ? undefined : new TokenBucketLimiter(options.rateLimit ?? {});
  const pool = requestPool(options);
  // The worker finds a heavy route by operationId in API_ROUTES; a route of another table runs in-process.
  const pooled = (route: AnyRoute) =>
    pool !== undefined && route.heavy !== undefined && route.heavy !== false && API_ROUTES.includes(route);

  const app: LotwiseApp = new Hono<AppEnv>();
  if (pool) pools.set(app, pool);
  app.onError((err, c) => {
    const r = errorResponse(err, log);
    return c.json(r.body, r.status as ContentfulStatusCode, r.headers);
  });
  app.notFound((c) => {
    const r = errorResponse(unmatched(c.req.method, c.req.path, table), log);
    return c.json(r.body, r.status as ContentfulStatusCode, r.headers);
  });
  // Probes for load balancers and orchestrators (docs/deploy.md): no API key, no organization, never cached.
  app.get(HEALTHZ_PATH, (c) => c.json(health(), 200, { "cache-control": "no-store" }));
  app.get(READYZ_PATH, async (c) => {
    const answer = await readiness({
      store: ctx.store,
      ...(ctx.jobQueue ? { queue: ctx.jobQueue } : {}),
      stopping: stoppingApps.has(app),
      onError: (component, err) =>
        log(
          `lotwise: readiness check of the ${component === "database" ? "database" : "job queue"} failed: ${err instanceof Error ? err.message : String(err)}`,
        ),
    });
    return c.json(answer, answer.ready ? 200 : 503, { "cache-control": "no-store" });
  });
  // The docs page's scripts, stylesheets and icons (swagger-ui-dist, served by us): public like the page, outside the
  // route table and the OpenAPI document.
  app.get(`${DOCS_ASSETS_PATH}:file`, (c) => {
    const asset = docsAsset(c.req.param("file"));
    if (!asset) throw new HttpError("not_found", `No docs asset ${shown(c.req.path, 300)}.`);
    const gzip = acceptsGzip(c.req.header("accept-encoding"));
    const etag = gzip ? `${asset.etag.slice(0, -1)}-gz"` : asset.etag;
    const headers: Record<string, string> = {
      ...DOCS_SECURITY_HEADERS,
      etag,
      vary: "Accept-Encoding",
      "cache-control": "public, max-age=3600",
    };
    if (etagMatches(c.req.header("if-none-match"), etag)) return new Response(null, { status: 304, headers });
    headers["content-type"] = asset.type;
    if (gzip) headers["content-encoding"] = "gzip";
    return new Response((gzip ? asset.gzip : asset.body) as Uint8Array<ArrayBuffer>, { headers });
  });
  app.use("*", async (c, next) => {
    const path = c.req.path;
    if (path.startsWith("/api/") && !publicPaths.has(path) && !path.startsWith(DOCS_ASSETS_PATH)) {
      // One read of the change token per request serves the key memory and the response cache.
      const storeToken = await changeToken?.();
      c.set("storeToken", storeToken);
      c.set("principal", await authenticator.authenticate(c.req.header(API_KEY_HEADER), storeToken));
    }
    await next();
  });

  for (const route of routes) {
    const names = pathParameters(route.path);
    const accept = route.body?.accept ?? ["json"];
    const fileParts = Object.keys(route.body?.files ?? {});
    app.on(route.method, honoPath(route.path), async (c) => {
      const principal = route.public ? undefined : c.get("principal");
      const org = principal?.organizationUuid ?? "";
      const params: Record<string, string> = {};
      const issues: { path: string; message: string }[] = [];
      for (const name of names) {
        const value = c.req.param(name) ?? "";
        if (name === "organization_uuid") {
          // Another organization's path answers exactly like one that does not exist.
          if (value.toLowerCase() !== org)
            throw new NotFoundError(`Organization ${shown(value)} not found.`, "organization_not_found");
        } else if (!UUID.test(value))
          issues.push({
            path: name,
            message: `expected a uuid (8-4-4-4-12 hexadecimal digits), received "${shown(value)}"`,
          });
        params[name] = value.toLowerCase();
      }
      if (issues.length > 0)
        throw new ValidationError(
          `Invalid path parameter: ${issues.map((i) => `${i.path}: ${i.message}`).join("; ")}`,
          issues,
          "invalid_path_parameter",
        );
      // Before the body is read: a flood of expensive requests costs one map lookup each.
      if (limiter && route.rateLimited && principal) limiter.take(principal.keyId);
      const query = route.query ? parseOrThrow(route.query, queryObject(c.req.url), "query") : {};
      let body: unknown;
      if (route.body) {
        const parsed = await readBody(c.req.raw, {
          accept,
          maxBytes: route.body.maxBytes ?? maxBytes,
          files: fileParts,
        });
        const value =
          parsed.encoding !== "json" && route.body.fromForm
            ? await route.body.fromForm(parsed.value, parsed.files)
            : parsed.value;
        body = parseOrThrow(route.body.schema, value, "request body");
      }
      const upload = route.upload ? await readUpload(c.req.raw, route.upload) : undefined;
      let cacheScope: CacheScope | undefined;
      let token = "";
      if (cache && changeToken && route.cache && org !== "") {
        token = `${c.get("storeToken") ?? (await changeToken())}|${clockDate(ctx)}`;
        cacheScope = {
          organization: org,
          operation: route.operationId,
          request: `${JSON.stringify(params)} ${JSON.stringify(query)}`,
        };
        const hit = cache.get(cacheScope, token);
        if (hit) return cachedResponse(hit, c.req.raw, route.response.status);
      }
      if (pooled(route)) {
        const answer = await pool!.run({
          operationId: route.operationId,
          org,
          keyId: principal?.keyId ?? "",
          params,
          body,
          query,
          exclusive: route.heavy === "write",
          method: c.req.method,
          url: c.req.url,
          nowMs: ctx.clock().getTime(),
        });
        if (answer.kind !== "ok") return pooledFailure(answer);
        const bytes = answer.bytes as Uint8Array<ArrayBuffer>;
        if (answer.contentType !== undefined)
          return new Response(bytes, {
            status: answer.status ?? 200,
            headers: { "content-type": answer.contentType },
          });
        if (route.response.status === 204) return c.body(null, 204);
        if (cache && cacheScope !== undefined) {
          const entry = cache.set(
            cacheScope,
            token,
            Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength),
          );
          return cachedResponse(entry, c.req.raw, route.response.status);
        }
        return new Response(bytes, {
          status: route.response.status,
          headers: { "content-type": "application/json" },
        });
      }
      let result: unknown;
      try {
        result = await retryWhileBusy(
          writeCounter,
          () =>
            route.handler({
              ctx,
              org,
              keyId: principal?.keyId ?? "",
              params,
              body,
              query,
              request: c.req.raw,
              upload,
            }),
          // An upload's stream is read once: it cannot be run again after a busy store, so it answers 503 at once.
          route.upload ? 0 : busyWaitMs,
        );
      } catch (err) {
        // Hono's error handler only sees Error instances; anything else thrown still becomes a 500.
        throw err instanceof Error
          ? err
          : new Error(`non-Error value thrown by ${route.operationId}: ${String(err)}`);
      }
      if (result instanceof Response) return result;
      if (route.response.status === 204) return c.body(null, 204);
      if (cache && cacheScope !== undefined) {
        const entry = cache.set(cacheScope, token, Buffer.from(JSON.stringify(result), "utf8"));
        return cachedResponse(entry, c.req.raw, route.response.status);
      }
      return c.json(result as object, route.response.status);
    });
  }
  return app;
}
