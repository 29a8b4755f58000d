/**
 * @module server/store-busy
 * Waiting for a locked store without freezing the server. The app's connection has a busy timeout of 0, so a write
 * that meets another process's write lock (a CLI import on the same file) fails at once instead of blocking the
 * event loop; {@link retryWhileBusy} then waits asynchronously (other requests keep flowing) and runs the operation
 * again, for at most a bounded time, after which the request is answered 503 `store_busy` with `Retry-After`.
 */
import { busyBackoffMs, isStoreBusyError } from "../service/index.js";
import { storeBusyError } from "./error-response.js";

/** Default time a request waits for a locked store before its 503: 2 s. */
export const DEFAULT_STORE_BUSY_WAIT_MS = 2000;
/** First and longest delay between two attempts of a request that met a locked store. */
export const REQUEST_BACKOFF_BASE_MS = 10;
export const REQUEST_BACKOFF_MAX_MS = 250;

/** What {@link retryWhileBusy} needs of the store: its count of rows written by this connection. */
export interface WriteCounter {
  writeCount(): number;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Runs `operation`; when it fails because the store is locked and provably wrote nothing (the connection's write
 * count is unchanged), waits with backoff and runs it again until `waitMs` has passed, then throws a
 * {@link StoreBusyError}. A busy failure after some rows were written is not retried (it would repeat them): it is
 * answered as busy at once.
 * @throws {StoreBusyError} when the store stayed locked; any other error of `operation` as is.
 * @example const result = await retryWhileBusy(ctx.store, () => route.handler(input), 2000);
 */
export async function retryWhileBusy<T>(
  store: WriteCounter,
  operation: () => T | Promise<T>,
  waitMs: number = DEFAULT_STORE_BUSY_WAIT_MS,
): Promise<T> {
  const deadline = performance.now() + waitMs;
  for (let attempt = 1; ; attempt++) {
    const before = store.writeCount();
    try {
      return await operation();
    } catch (err) {
      if (!isStoreBusyError(err)) throw err;
      if (store.writeCount() !== before) throw storeBusyError();
      const delay = Math.min(
        busyBackoffMs(attempt, REQUEST_BACKOFF_BASE_MS, REQUEST_BACKOFF_MAX_MS),
        deadline - performance.now(),
      );
      if (delay <= 0) throw storeBusyError();
      await sleep(delay);
    }
  }
}
