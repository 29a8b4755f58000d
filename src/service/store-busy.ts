/**
 * @module service/store-busy
 * Background writers (the server's API-key touches, the job runner's recovery sweeps) meet a store whose write lock
 * another process holds — a CLI `lots import` beside `lotwise serve`. They must neither throw out of a timer nor
 * flood the log: a {@link BusyEpisode} logs the first busy failure of an episode and the recovery that ends it, and
 * {@link busyBackoffMs} spaces the retries.
 */
import { isStoreBusyError } from "../store/index.js";

export { isStoreBusyError };

/** First retry delay after a busy failure. */
export const BUSY_BACKOFF_BASE_MS = 50;
/** Longest delay between two retries of a background write. */
export const BUSY_BACKOFF_MAX_MS = 5000;

/**
 * Delay before retry `attempt` (1-based) of a write that met a locked store: doubling from `baseMs`, capped.
 * @example busyBackoffMs(1) // 50; busyBackoffMs(4) // 400; busyBackoffMs(20) // 5000
 */
export function busyBackoffMs(
  attempt: number,
  baseMs = BUSY_BACKOFF_BASE_MS,
  maxMs = BUSY_BACKOFF_MAX_MS,
): number {
  return Math.min(maxMs, baseMs * 2 ** Math.max(0, Math.min(30, attempt - 1)));
}

/**
 * One background writer's view of "the store is locked": logs once when an episode starts and once when a write
 * succeeds again, whatever the number of failed attempts in between.
 * @example
 * const episode = new BusyEpisode("the job recovery sweep", log);
 * try { sweep(); episode.ok(); } catch (err) { if (isStoreBusyError(err)) episode.busy(); else throw err; }
 */
export class BusyEpisode {
  private since: number | undefined;
  private attempts = 0;

  constructor(
    private readonly what: string,
    private readonly log: (line: string) => void,
    private readonly monotonicMs: () => number = () => performance.now(),
  ) {}

  /** True between a busy failure and the next success. */
  get active(): boolean {
    return this.since !== undefined;
  }

  /** Records a busy failure; returns the delay before the next attempt. */
  busy(): number {
    this.attempts += 1;
    if (this.since === undefined) {
      this.since = this.monotonicMs();
      this.log(
        `lotwise: the store is locked by another writer; ${this.what} will be retried with backoff until it is free.`,
      );
    }
    return busyBackoffMs(this.attempts);
  }

  /** Records a success; ends the episode (logged) if one was running. */
  ok(): void {
    if (this.since === undefined) return;
    const seconds = ((this.monotonicMs() - this.since) / 1000).toFixed(1);
    this.log(
      `lotwise: the store is writable again; ${this.what} went through after ${seconds} s and ${this.attempts} busy attempt(s).`,
    );
    this.since = undefined;
    this.attempts = 0;
  }
}
