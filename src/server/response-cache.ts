/**
 * @module server/response-cache
 * A bounded LRU cache of serialized GET responses. An entry is valid only for the exact version token it was built
 * under (store change token + calendar date, see store-version.ts), so a hit returns byte for byte what the handler
 * would compute now; any write to the store, from this process or another, makes every entry stale. Entries carry
 * an ETag so that clients can revalidate with If-None-Match (304), and a gzip form, compressed once on first
 * demand, for clients that send `Accept-Encoding: gzip` (fetch/undici, curl --compressed, browsers do).
 */
import { createHash } from "node:crypto";
import { gzipSync } from "node:zlib";

/** Default memory budget of the cache: 32 MiB of response bodies. */
export const DEFAULT_RESPONSE_CACHE_BYTES = 32 * 1024 * 1024;

/** Bodies shorter than this are never compressed (the headers would eat the gain). */
export const MIN_GZIP_BYTES = 1024;

/** One cached response body. */
export interface CachedBody {
  readonly token: string;
  readonly body: Uint8Array;
  /** Strong ETag of the body (quoted). */
  readonly etag: string;
  /** The body gzip-compressed, filled on first demand. */
  gzip?: Uint8Array;
}

/** The gzip form of a cached body (compressed once, then kept). */
export function gzipOf(entry: CachedBody): Uint8Array {
  entry.gzip ??= gzipSync(entry.body, { level: 6 });
  return entry.gzip;
}

/** True when an Accept-Encoding header value accepts gzip (`gzip` or `*` with a non-zero q). */
export function acceptsGzip(header: string | undefined): boolean {
  if (!header) return false;
  let star = false;
  for (const part of header.split(",")) {
    const [name = "", ...params] = part.trim().toLowerCase().split(";");
    const q = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
    const accepted = q === undefined || Number(q.slice(2)) > 0;
    if (name.trim() === "gzip") return accepted;
    if (name.trim() === "*") star = accepted;
  }
  return star;
}

/**
 * Whose response a cached body is. Every entry belongs to one organization (the organization of the API key that
 * asked), so a body computed for one organization can never be served to another, whatever the route's path
 * contains: routes such as `/api/v1/themes` carry no organization in the path, and keying on the path alone served
 * one organization's themes to the next caller (a cross-organization leak, issue 12). The organization is a
 * required part of every lookup, not something each route must remember to put in its key.
 */
export interface CacheScope {
  /** Organization uuid of the caller; never empty (public routes are not cached). */
  readonly organization: string;
  /** The operation (route) answered. */
  readonly operation: string;
  /** Everything else the answer depends on besides the store and the date (path parameters, query). */
  readonly request: string;
}

/** The map key of a scope: organization first, with separators no uuid or operation id contains. */
export function cacheKeyOf(scope: CacheScope): string {
  if (scope.organization === "")
    throw new TypeError("ResponseCache: a cached response must belong to an organization");
  return `${scope.organization}\u0000${scope.operation}\u0000${scope.request}`;
}

/** LRU by insertion order of a Map; the total body size stays under `maxBytes`. */
export class ResponseCache {
  private readonly entries = new Map<string, CachedBody>();
  private bytes = 0;

  constructor(readonly maxBytes = DEFAULT_RESPONSE_CACHE_BYTES) {}

  /** The entry for `scope` if it was built under `token`. */
  get(scope: CacheScope, token: string): CachedBody | undefined {
    const key = cacheKeyOf(scope);
    const hit = this.entries.get(key);
    if (!hit) return undefined;
    if (hit.token !== token) {
      this.delete(key, hit);
      return undefined;
    }
    // Refresh recency.
    this.entries.delete(key);
    this.entries.set(key, hit);
    return hit;
  }

  /** Stores a body built under `token`; bodies larger than a quarter of the budget are not kept. */
  set(scope: CacheScope, token: string, body: Uint8Array): CachedBody {
    const key = cacheKeyOf(scope);
    const etag = `"${createHash("sha1").update(body).digest("base64url")}"`;
    const entry: CachedBody = { token, body, etag };
    if (body.byteLength > this.maxBytes / 4) return entry;
    const old = this.entries.get(key);
    if (old) this.delete(key, old);
    this.entries.set(key, entry);
    this.bytes += body.byteLength;
    for (const [k, e] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.delete(k, e);
    }
    return entry;
  }

  /** Number of entries. */
  get size(): number {
    return this.entries.size;
  }

  /** Bytes held. */
  get heldBytes(): number {
    return this.bytes;
  }

  private delete(key: string, entry: CachedBody): void {
    this.entries.delete(key);
    this.bytes -= entry.body.byteLength;
  }
}

/** True when an If-None-Match header value matches `etag` (weak comparison, `*` matches anything). */
export function etagMatches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === "*") return true;
  const bare = etag.replace(/^W\//, "");
  return header.split(",").some((t) => t.trim().replace(/^W\//, "") === bare);
}
