/**
 * @module server/auth
 * API-key authentication: the `X-Api-Key` header is resolved to its organization by the service
 * (`authenticate`: hashed keys, constant-time comparison, revocation). A missing, malformed, unknown or revoked key
 * is a 401 with one message for all three bad-key cases, so the answer never tells which keys exist. The key's
 * `last_used_at` is recorded at most once per interval per key, after the response, never failing a request; when
 * another process holds the store's write lock the touch is retried with backoff (logged once per episode), never
 * blocking or failing anything.
 *
 * Successful lookups are remembered (by the SHA-256 of the key, never the key itself) only for as long as the
 * store's change token is unchanged: a revocation, from this process or a CLI on the same file, is a write that
 * changes the token, so it takes effect on the very next request.
 */
import { createHash } from "node:crypto";
import { AuthenticationError } from "../core/errors.js";
import { authenticate, BusyEpisode, isStoreBusyError, type ServiceContext } from "../service/index.js";

/** Header that carries the key (the spec's `ProAPIToken` scheme). */
export const API_KEY_HEADER = "X-Api-Key";

/** Default interval between two `last_used_at` writes of the same key: one minute. */
export const DEFAULT_TOUCH_INTERVAL_MS = 60_000;

/** Who a request acts for. */
export interface Principal {
  organizationUuid: string;
  keyId: string;
}

const MISSING =
  "Missing X-Api-Key header. Send an API key of your organization in the X-Api-Key header (issue one with `lotwise keys create`).";
const INVALID =
  "Invalid API key: it is malformed, unknown or revoked. Send a current key of your organization in the X-Api-Key header (list keys with `lotwise keys list`).";

/** Options of {@link ApiKeyAuthenticator}. */
export interface AuthenticatorOptions {
  /** Milliseconds between two `last_used_at` writes per key. @default DEFAULT_TOUCH_INTERVAL_MS */
  touchIntervalMs?: number;
  /** Where failures of the best-effort `last_used_at` write are reported. */
  log: (line: string) => void;
}

/** Most remembered keys; the memory is cleared when full (keys per server are few). */
const MAX_REMEMBERED_KEYS = 1024;

/** Resolves keys and keeps the per-key `last_used_at` throttle. One instance per app. */
export class ApiKeyAuthenticator {
  private readonly lastTouch = new Map<string, number>();
  private readonly remembered = new Map<string, { token: string; principal: Principal }>();
  private readonly interval: number;
  private readonly busy: BusyEpisode;

  constructor(
    private readonly ctx: ServiceContext,
    private readonly options: AuthenticatorOptions,
  ) {
    this.interval = options.touchIntervalMs ?? DEFAULT_TOUCH_INTERVAL_MS;
    this.busy = new BusyEpisode("recording API-key use (last_used_at)", options.log);
  }

  /**
   * The principal of a presented header value.
   * @param storeToken the store's change token read for this request (store-version.ts); a lookup is remembered
   * only while the token is the same. Without it, every request looks the key up.
   * @throws {AuthenticationError} for a missing, malformed, unknown or revoked key.
   */
  async authenticate(header: string | null | undefined, storeToken?: string): Promise<Principal> {
    if (header === null || header === undefined || header.trim() === "")
      throw new AuthenticationError(MISSING);
    const key = header.trim();
    const token = storeToken;
    const digest = token === undefined ? "" : createHash("sha256").update(key).digest("base64");
    const hit = token === undefined ? undefined : this.remembered.get(digest);
    if (hit && hit.token === token) {
      this.touchLater(hit.principal.keyId);
      return hit.principal;
    }
    const found = await authenticate(this.ctx, key);
    if (!found) throw new AuthenticationError(INVALID);
    if (token !== undefined) {
      if (this.remembered.size >= MAX_REMEMBERED_KEYS) this.remembered.clear();
      this.remembered.set(digest, { token, principal: found });
    }
    this.touchLater(found.keyId);
    return found;
  }

  /** Records the use of a key after the current request, at most once per interval. */
  private touchLater(keyId: string): void {
    const now = this.ctx.clock().getTime();
    const last = this.lastTouch.get(keyId);
    if (last !== undefined && now - last < this.interval) return;
    this.lastTouch.set(keyId, now);
    // Deferred so the write never adds latency to the request it follows.
    setImmediate(() => void this.touch(keyId));
  }

  /** One attempt at the `last_used_at` write; a locked store schedules another one later (unref'd timer). */
  private async touch(keyId: string): Promise<void> {
    // The store may have been closed since (a server shut down right after its last request).
    if (!this.ctx.store.isOpen) return;
    try {
      await this.ctx.store.apiKeys.touch(keyId);
      this.busy.ok();
    } catch (err) {
      if (!this.ctx.store.isOpen) return;
      if (isStoreBusyError(err)) {
        setTimeout(() => void this.touch(keyId), this.busy.busy()).unref();
        return;
      }
      this.options.log(`lotwise serve: could not record the use of key ${keyId}: ${(err as Error).message}`);
    }
  }
}
