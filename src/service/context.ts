/**
 * @module service/context
 * What every operation needs: the store and a clock. The service's "as-of" date is the latest trading date in the
 * store that is not after the clock's date, so valuations, holding periods and proposals agree with the prices used.
 */
import { SCAN_JOB_THRESHOLD } from "../contract/index.js";
import { ValidationError } from "../core/errors.js";
import { type LotwiseStore, openStore } from "../store/index.js";
import type { JobQueue } from "./jobs/queue/types.js";

export interface ServiceContext {
  readonly store: LotwiseStore;
  /** Wall clock (timestamps of records). */
  readonly clock: () => Date;
  /** Limits on what one organization may pile up in the store. @default DEFAULT_SERVICE_LIMITS */
  readonly limits?: ServiceLimits;
  /**
   * The distributed job queue (PostgreSQL deployments, `--queue` / `LOTWISE_QUEUE`): job-creating operations put the
   * stored job's id on it, cancel goes through it. Absent: jobs are run by this process's runner or a `lotwise serve`
   * on the same store (docs/backtest-jobs.md).
   */
  readonly jobQueue?: JobQueue;
}

/**
 * Limits that keep one caller from growing the job queue or the store without bound (docs/store.md,
 * docs/backtest-jobs.md). Each is a non-negative integer; 0 turns that limit off.
 */
export interface ServiceLimits {
  /** PENDING backtest jobs one organization may have; endpoint 2 answers 429 `too_many_queued_jobs` beyond. */
  readonly maxQueuedJobsPerOrganization?: number;
  /** Stored proposals kept per account: writing one deletes all but the newest N of that account. */
  readonly proposalsKeptPerAccount?: number;
  /** Writing a proposal deletes the account's proposals older than this many days. */
  readonly proposalMaxAgeDays?: number;
  /**
   * Accounts a scan job (`POST .../scan_jobs/`) scans at once, in the request; a larger selection (or a request
   * with `async`) runs as a job on the job runner's workers. 0: every scan job runs on the workers.
   */
  readonly scanJobThreshold?: number;
}

/**
 * The limits when the context sets none: 100 queued jobs per organization, 1000 proposals per account, no age limit,
 * scans of more than {@link SCAN_JOB_THRESHOLD} (2,000) accounts as jobs.
 */
export const DEFAULT_SERVICE_LIMITS: Required<ServiceLimits> = {
  maxQueuedJobsPerOrganization: 100,
  proposalsKeptPerAccount: 1000,
  proposalMaxAgeDays: 0,
  scanJobThreshold: SCAN_JOB_THRESHOLD,
};

/** One limit of the context, its default when unset. */
export function serviceLimit(ctx: ServiceContext, name: keyof ServiceLimits): number {
  return ctx.limits?.[name] ?? DEFAULT_SERVICE_LIMITS[name];
}

/**
 * A context over an existing store (a file path or a `postgres://` URL: a store's `connectionString`) on a
 * connection of its own, with `clock` for the operations and for the store's record timestamps (a worker thread of
 * the HTTP server runs requests on one). Close it with `await ctx.store.close()`.
 * @throws {StoreVersionError} when the file is missing, not a lotwise store, or from a newer lotwise.
 */
export async function openStoreContext(location: string, clock: () => Date): Promise<ServiceContext> {
  return { store: await openStore(location, { create: false, now: () => clock().toISOString() }), clock };
}

/** ISO 8601 UTC timestamp of now. */
export function nowIso(ctx: ServiceContext): string {
  return ctx.clock().toISOString();
}

/** Calendar date of now (UTC). */
export function clockDate(ctx: ServiceContext): string {
  return nowIso(ctx).slice(0, 10);
}

/**
 * The as-of date of valuations: the last trading date with prices on or before today, or today when the store
 * holds no prices yet.
 */
export async function marketAsOf(ctx: ServiceContext): Promise<string> {
  const today = clockDate(ctx);
  return (await ctx.store.market.latestTradingDate(today)) ?? today;
}

/**
 * The as-of date of an operation given `asOf` (default: {@link marketAsOf}), checked against the market data: a date
 * after the last market date is refused naming that date (valuing at it would silently use older prices), and so
 * is a date before the first one. `field` is the request field reported (`as_of_date`, or the CLI's `--as-of`).
 * @throws {ValidationError} when the store holds no prices, or `asOf` is outside them.
 * @example await checkedAsOf(ctx, "2026-06-30") // rejects: ValidationError: as_of_date 2026-06-30 is after the last market date 2025-12-31.
 */
export async function checkedAsOf(
  ctx: ServiceContext,
  asOf: string | undefined,
  field = "as_of_date",
): Promise<string> {
  const last = await ctx.store.market.latestTradingDate("9999-12-31");
  if (last === null)
    throw new ValidationError("The store holds no market data (lotwise market generate | import).", [
      { path: field, message: "no market data" },
    ]);
  if (asOf === undefined) return marketAsOf(ctx);
  if (asOf > last)
    throw new ValidationError(`${field} ${asOf} is after the last market date ${last}.`, [
      { path: field, message: `the store's prices end on ${last}` },
    ]);
  if ((await ctx.store.market.latestTradingDate(asOf)) === null)
    throw new ValidationError(`The store holds no prices on or before ${asOf}.`, [
      { path: field, message: "before the first market date" },
    ]);
  return asOf;
}
