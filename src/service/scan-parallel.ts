/**
 * @module service/scan-parallel
 * The morning scan on several worker threads (`lotwise scan --concurrency N`): the selection is cut into N contiguous
 * slices (oldest first), each scanned by {@link scanAccounts} on a worker thread with its own connection to the store
 * file, and the rows are put back in selection order. The rows are those of a single-thread scan; only the wall
 * time changes (on a machine with idle cores). A store in memory, or a concurrency of 1, scans on the caller's
 * thread.
 */
import type { AccountSelection, ScanResult, ScanRow } from "../contract/index.js";
import { summarizeScan } from "../contract/index.js";
import { selectAccounts } from "./account-selection.js";
import { checkedAsOf, nowIso, type ServiceContext } from "./context.js";
import { spawnModuleWorker } from "./jobs/spawn-worker.js";
import { type ScanOptions, scanAccounts } from "./scan.js";

/** `workerData` of a scan worker. */
export interface ScanWorkerInit {
  storePath: string;
  org: string;
  selection: AccountSelection;
  asOf: string;
  minLossUsd: string | undefined;
  minLossFraction: string | undefined;
  offset: number;
  limit: number;
  /** The caller's clock, frozen (ISO timestamp). */
  now: string;
}

/** What a scan worker posts: progress (accounts done since the last message), its rows, or its failure. */
export type ScanWorkerMessage =
  | { type: "progress"; done: number }
  | { type: "rows"; rows: ScanRow[] }
  | { type: "error"; message: string };

const EXTENSION = import.meta.url.endsWith(".ts") ? ".ts" : ".js";

/**
 * {@link scanAccounts} on `concurrency` worker threads (at most one per `minAccountsPerThread` accounts). Same
 * arguments and result.
 * @throws what scanAccounts throws for the selection or the date; an Error when a worker fails.
 * @example await scanAccountsParallel(ctx, org, {}, { concurrency: 2 })
 */
export async function scanAccountsParallel(
  ctx: ServiceContext,
  org: string,
  selection: AccountSelection = {},
  options: ScanOptions & {
    concurrency?: number | undefined;
    /** Fewest accounts worth a thread of their own (a thread costs its start-up). @default 100 */
    minAccountsPerThread?: number;
  } = {},
): Promise<ScanResult> {
  const asOf = await checkedAsOf(ctx, options.asOf);
  const selected = await selectAccounts(ctx, org, selection);
  const offset = options.offset ?? 0;
  const end =
    options.limit === undefined ? selected.length : Math.min(selected.length, offset + options.limit);
  const count = Math.max(0, end - offset);
  const threads = Math.min(
    options.concurrency ?? 1,
    Math.ceil(count / (options.minAccountsPerThread ?? 100)),
  );
  // A store without a connection string (`:memory:`) cannot be opened by a worker: scanned here.
  const connection = ctx.store.connectionString;
  if (threads <= 1 || connection === null) return scanAccounts(ctx, org, selection, { ...options, asOf });
  const slices = Array.from({ length: threads }, (_, i) => {
    const from = offset + Math.floor((count * i) / threads);
    const to = offset + Math.floor((count * (i + 1)) / threads);
    return { from, length: to - from };
  });
  let done = 0;
  const parts = await Promise.all(
    slices.map(
      (slice) =>
        new Promise<ScanRow[]>((resolve, reject) => {
          const init: ScanWorkerInit = {
            storePath: connection,
            org,
            selection,
            asOf,
            minLossUsd: options.minLossUsd,
            minLossFraction: options.minLossFraction,
            offset: slice.from,
            limit: slice.length,
            now: nowIso(ctx),
          };
          const worker = spawnModuleWorker(new URL(`./scan-worker${EXTENSION}`, import.meta.url), init);
          let rows: ScanRow[] | undefined;
          worker.on("message", (m: ScanWorkerMessage) => {
            if (m.type === "progress") {
              done += m.done;
              options.onProgress?.(done, count);
            } else if (m.type === "rows") rows = m.rows;
            else reject(new Error(m.message));
          });
          worker.on("error", reject);
          worker.on("exit", () =>
            rows ? resolve(rows) : reject(new Error("a scan worker stopped without its rows")),
          );
        }),
    ),
  );
  const rows = parts.flat();
  for (const row of rows) options.onRow?.(row);
  return {
    as_of_date: asOf,
    selected_accounts: selected.length,
    offset,
    next_offset: end < selected.length ? end : null,
    rows,
    summary: summarizeScan(rows),
  };
}
