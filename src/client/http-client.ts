/**
 * @module client/http-client
 * A small JSON client of a lotwise service: base URL, API key, timeouts, the error envelope mapped back to
 * {@link PortfolioError} subclasses, and every success body validated with its contract schema.
 */
import type * as z from "zod";
import { summarizeIssues, toFieldIssues } from "../contract/index.js";
import { VERSION } from "../version.js";
import { ConnectionError, errorFromResponse, InvalidResponseError } from "./errors.js";

/** Default time limit of one request: 30 s. */
export const DEFAULT_TIMEOUT_MS = 30_000;

/** Options of {@link HttpClient}. */
export interface HttpClientOptions {
  /** Base URL of the service, e.g. `http://127.0.0.1:8000` (a path prefix is kept: `https://host/lotwise`). */
  url: string;
  /** API key sent as X-Api-Key. */
  apiKey: string;
  /** Time limit of one request in milliseconds. @default DEFAULT_TIMEOUT_MS */
  timeoutMs?: number;
  /** The fetch implementation. @default globalThis.fetch */
  fetch?: typeof fetch;
  /**
   * Times a request refused with 429 `rate_limited` is sent again after the server's `Retry-After` (the server
   * refuses such a request before doing anything, so a retry is safe). 0 turns retrying off.
   * @default DEFAULT_RATE_LIMIT_RETRIES
   */
  rateLimitRetries?: number;
  /** Longest `Retry-After` the client waits; a longer one is reported at once. @default 60000 */
  maxRetryWaitMs?: number;
  /** How the client waits before a retry (tests pass their own). @default setTimeout */
  sleep?: (ms: number) => Promise<void>;
}

/** Default number of retries of a request refused by the server's rate limit. */
export const DEFAULT_RATE_LIMIT_RETRIES = 5;

/** One request. */
export interface RequestOptions<T> {
  /** Name of the operation, for error messages (e.g. `"listClients"`). */
  operation: string;
  /** JSON body. */
  body?: unknown;
  /** Query parameters; undefined values are left out. */
  query?: Record<string, string | undefined>;
  /** Schema of the success body; omitted for answers without body (204). */
  schema?: z.ZodType<T>;
  /** A raw body streamed as it is produced (a CSV file), instead of `body`. */
  upload?: { contentType: string; data: string | Uint8Array | AsyncIterable<Uint8Array | string> };
  /** Time limit of this request, when it must differ from the client's (an upload). */
  timeoutMs?: number;
}

/** Chunks of an upload as bytes. */
async function* uploadBytes(
  data: string | Uint8Array | AsyncIterable<Uint8Array | string>,
): AsyncIterable<Uint8Array> {
  const encoder = new TextEncoder();
  if (typeof data === "string") yield encoder.encode(data);
  else if (data instanceof Uint8Array) yield data;
  else for await (const chunk of data) yield typeof chunk === "string" ? encoder.encode(chunk) : chunk;
}

/** HTTP methods the client sends. */
export type ClientMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/**
 * JSON over HTTP with the service's conventions.
 * @example
 * const http = new HttpClient({ url: "http://127.0.0.1:8000", apiKey });
 * const me = await http.request("GET", "/api/v1/me", { operation: "whoAmI", schema: whoAmISchema });
 */
export class HttpClient {
  readonly baseUrl: string;
  private readonly apiKey: string;
  private readonly timeoutMs: number;
  private readonly fetchFn: typeof fetch;
  private readonly retries: number;
  private readonly maxRetryWaitMs: number;
  private readonly sleep: (ms: number) => Promise<void>;

  /** @throws {TypeError} for a base URL that is not http(s) or an empty key. */
  constructor(options: HttpClientOptions) {
    let url: URL;
    try {
      url = new URL(options.url);
    } catch {
      throw new TypeError(`HttpClient: "${options.url}" is not a URL (expected e.g. http://127.0.0.1:8000)`);
    }
    if (url.protocol !== "http:" && url.protocol !== "https:")
      throw new TypeError(`HttpClient: "${options.url}" must use http or https`);
    if (typeof options.apiKey !== "string" || options.apiKey.trim() === "")
      throw new TypeError("HttpClient: an API key is required");
    this.baseUrl = `${url.origin}${url.pathname.replace(/\/+$/, "")}`;
    this.apiKey = options.apiKey.trim();
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.fetchFn = options.fetch ?? globalThis.fetch;
    this.retries = options.rateLimitRetries ?? DEFAULT_RATE_LIMIT_RETRIES;
    this.maxRetryWaitMs = options.maxRetryWaitMs ?? 60_000;
    this.sleep = options.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms)));
  }

  /** The absolute URL of a service path with a query. */
  url(path: string, query?: Record<string, string | undefined>): string {
    const u = new URL(`${this.baseUrl}${path}`);
    for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) u.searchParams.set(k, v);
    return u.toString();
  }

  /**
   * Sends a request and returns the validated body (undefined for a body-less answer). A 429 `rate_limited` answer
   * is retried after its `Retry-After`, up to `rateLimitRetries` times.
   * @throws {ValidationError|AuthenticationError|NotFoundError|ConflictError|RemoteServiceError} for error answers
   * @throws {ConnectionError} when the service cannot be reached or does not answer within the time limit
   * @throws {InvalidResponseError} when a success body does not match `schema`
   */
  async request<T>(method: ClientMethod, path: string, options: RequestOptions<T>): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.requestOnce(method, path, options);
      } catch (err) {
        const wait = err instanceof RateLimitedAnswer ? err.retryAfterMs : undefined;
        if (wait === undefined || attempt >= this.retries || wait > this.maxRetryWaitMs)
          throw err instanceof RateLimitedAnswer ? err.error : err;
        await this.sleep(wait);
      }
    }
  }

  private async requestOnce<T>(method: ClientMethod, path: string, options: RequestOptions<T>): Promise<T> {
    const url = this.url(path, options.query);
    const headers: Record<string, string> = {
      "X-Api-Key": this.apiKey,
      Accept: "application/json",
      "User-Agent": `lotwise/${VERSION}`,
    };
    let body: string | AsyncIterable<Uint8Array> | undefined;
    if (options.upload !== undefined) {
      headers["Content-Type"] = options.upload.contentType;
      body = uploadBytes(options.upload.data);
    } else if (options.body !== undefined) {
      headers["Content-Type"] = "application/json";
      body = JSON.stringify(options.body);
    }
    const timeoutMs = options.timeoutMs ?? this.timeoutMs;
    let response: Response;
    let text: string;
    try {
      response = await this.fetchFn(url, {
        method,
        headers,
        // A streamed body needs half duplex (Node's fetch sends it as it is produced).
        ...(body !== undefined ? { body: body as NonNullable<RequestInit["body"]> } : {}),
        ...(typeof body === "object" ? { duplex: "half" } : {}),
        signal: AbortSignal.timeout(timeoutMs),
      });
      text = await response.text();
    } catch (err) {
      const name = (err as { name?: string }).name;
      if (name === "TimeoutError" || name === "AbortError")
        throw new ConnectionError(`${method} ${url} got no answer within ${timeoutMs} ms.`, "timeout", err);
      const cause = (err as { cause?: { code?: string; message?: string } }).cause;
      throw new ConnectionError(
        `cannot reach ${this.baseUrl} (${cause?.code ?? cause?.message ?? (err as Error).message}). Is \`lotwise serve\` running there?`,
        "connection_failed",
        err,
      );
    }
    const json = text === "" ? undefined : parseJson(text);
    if (!response.ok) {
      const error = errorFromResponse(response.status, json ?? text, options.operation);
      const retryAfter = Number(response.headers.get("retry-after"));
      if (
        response.status === 429 &&
        error.code === "rate_limited" &&
        Number.isFinite(retryAfter) &&
        retryAfter >= 0
      )
        throw new RateLimitedAnswer(error, retryAfter * 1000);
      throw error;
    }
    if (!options.schema) return undefined as T;
    const parsed = options.schema.safeParse(json);
    if (!parsed.success)
      throw new InvalidResponseError(
        `The response of ${options.operation} (${method} ${path}) does not match the contract: ${summarizeIssues(toFieldIssues(parsed.error))}`,
      );
    return parsed.data;
  }
}

/** A 429 `rate_limited` answer inside {@link HttpClient.request}: retried, or its error thrown. */
class RateLimitedAnswer {
  constructor(
    readonly error: Error,
    readonly retryAfterMs: number,
  ) {}
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
