/**
 * @module server/rate-limit
 * A per-API-key token bucket in memory, for the expensive routes (proposal, optimize, rebalance, backtest creation;
 * the routes flagged `rateLimited` in the table). Each key has a bucket of `burst` tokens refilled at `perMinute`
 * tokens a minute; a request takes one token, and a request that finds the bucket empty is answered 429
 * `rate_limited` with `Retry-After` (seconds until a token is back). The buckets live in this process only: several
 * server processes each apply the limit (documented in docs/http.md).
 */
import { TooManyRequestsError } from "../core/errors.js";

/** Default sustained rate per key: 600 requests a minute (10 a second). */
export const DEFAULT_RATE_LIMIT_PER_MINUTE = 600;
/** Default bucket size per key: 100 requests at once after a quiet period. */
export const DEFAULT_RATE_LIMIT_BURST = 100;
/** Buckets kept before full (idle) ones are dropped. */
const PRUNE_AT = 10_000;

/** Options of {@link TokenBucketLimiter} (the `rateLimit` option of createApp). */
export interface RateLimitOptions {
  /** Sustained requests per minute per API key (> 0). @default DEFAULT_RATE_LIMIT_PER_MINUTE */
  perMinute?: number;
  /** Requests a key may send at once (integer >= 1). @default DEFAULT_RATE_LIMIT_BURST */
  burst?: number;
  /** Monotonic clock in milliseconds (tests pass their own). @default performance.now */
  now?: () => number;
}

interface Bucket {
  tokens: number;
  at: number;
}

/**
 * Token buckets by key.
 * @example const limiter = new TokenBucketLimiter({ perMinute: 60, burst: 10 }); limiter.take(keyId);
 */
export class TokenBucketLimiter {
  readonly perMinute: number;
  readonly burst: number;
  private readonly perMs: number;
  private readonly now: () => number;
  private readonly buckets = new Map<string, Bucket>();

  /** @throws {TypeError} for a rate that is not a positive number or a burst that is not an integer >= 1 */
  constructor(options: RateLimitOptions = {}) {
    this.perMinute = options.perMinute ?? DEFAULT_RATE_LIMIT_PER_MINUTE;
    this.burst = options.burst ?? DEFAULT_RATE_LIMIT_BURST;
    if (!(Number.isFinite(this.perMinute) && this.perMinute > 0))
      throw new TypeError(`rate limit: perMinute must be a positive number, got ${this.perMinute}`);
    if (!Number.isInteger(this.burst) || this.burst < 1)
      throw new TypeError(`rate limit: burst must be an integer >= 1, got ${this.burst}`);
    this.perMs = this.perMinute / 60_000;
    this.now = options.now ?? (() => performance.now());
  }

  /**
   * Takes one token of `key`'s bucket.
   * @throws {TooManyRequestsError} `rate_limited` with the seconds until a token is back, when the bucket is empty
   */
  take(key: string): void {
    const now = this.now();
    let b = this.buckets.get(key);
    if (b) {
      b.tokens = Math.min(this.burst, b.tokens + (now - b.at) * this.perMs);
      b.at = now;
    } else {
      if (this.buckets.size >= PRUNE_AT) this.prune(now);
      b = { tokens: this.burst, at: now };
      this.buckets.set(key, b);
    }
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return;
    }
    const seconds = Math.max(1, Math.ceil((1 - b.tokens) / this.perMs / 1000));
    throw new TooManyRequestsError(
      `Too many requests to the expensive routes (proposal, optimize, rebalance, backtest creation) with this API key: the limit is ${this.perMinute} per minute, in bursts of up to ${this.burst}. Retry in ${seconds} s.`,
      "rate_limited",
      seconds,
    );
  }

  /** Drops the buckets that are full again (their keys have been quiet long enough to lose nothing). */
  private prune(now: number): void {
    for (const [key, b] of this.buckets)
      if (b.tokens + (now - b.at) * this.perMs >= this.burst) this.buckets.delete(key);
  }
}
