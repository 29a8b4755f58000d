/**
 * @module service/rebalance-run-workers
 * A rebalance run on several worker threads of this process (`lotwise rebalance --all --concurrency N`): the run is
 * created (or found) here, each worker opens its own connection to the store file and processes one shard of the
 * run's accounts (positions `p % N === i`, service/rebalance-runs.ts), and the run is read back here when they are
 * done. Outcomes, idempotence and resuming are those of {@link runRebalance}: the workers add parallelism only.
 */
import { MAX_REBALANCE_RUN_WORKERS, type RebalanceRun, type RebalanceRunRequest } from "../contract/index.js";
import type { ServiceContext } from "./context.js";
import { spawnModuleWorker } from "./jobs/index.js";
import { runRebalance } from "./rebalance-runs.js";

/** What the parent gives a worker (workerData). */
export interface RebalanceRunWorkerInit {
  storePath: string;
  /** The parent's clock minus the wall clock at the start, in ms: the worker's clock follows the parent's. */
  clockOffsetMs: number;
  org: string;
  request: RebalanceRunRequest;
  shard: { index: number; count: number };
}

/** What a worker posts: one message per account, then `done` (or `error`). */
export type RebalanceRunWorkerMessage =
  | { kind: "account" }
  | { kind: "done" }
  | { kind: "error"; code: string; message: string };

const EXTENSION = import.meta.url.endsWith(".ts") ? ".ts" : ".js";

/**
 * {@link runRebalance} with `workers` threads. With one worker, or a store that is not a file (`:memory:`), the
 * run is processed on this thread. `onProgress(completed, total)` follows the whole run.
 * @throws as {@link runRebalance}; a worker that fails (not an account: the accounts' errors are outcomes) fails
 *   the call, and the run stays resumable.
 */
export async function runRebalanceInWorkers(
  ctx: ServiceContext,
  org: string,
  request: RebalanceRunRequest,
  options: { workers: number; onProgress?: ((completed: number, total: number) => void) | undefined },
): Promise<RebalanceRun> {
  const workers = Math.min(MAX_REBALANCE_RUN_WORKERS, Math.max(1, Math.floor(options.workers)));
  const progress = options.onProgress;
  // A store without a connection string (`:memory:`) cannot be opened by a worker: run here.
  const connection = ctx.store.connectionString;
  if (workers === 1 || connection === null || request.max_accounts !== undefined)
    return runRebalance(ctx, org, request, {
      onProgress: progress && ((p) => progress(p.completed, p.total)),
    });
  // Create (or find) the run without processing an account; the workers then continue it (without force, so that
  // they find this run as the newest of its key) on the resolved date.
  const started = await runRebalance(ctx, org, { ...request, max_accounts: 0 });
  if (started.status === "completed") return started;
  const { force: _force, ...rest } = request;
  const continued: RebalanceRunRequest = { ...rest, as_of_date: started.as_of_date };
  let completed = started.totals.accounts - started.totals.pending;
  const entry = new URL(`./rebalance-run-worker${EXTENSION}`, import.meta.url);
  const threads = Array.from({ length: workers }, (_, index) =>
    spawnModuleWorker(entry, {
      storePath: connection,
      clockOffsetMs: ctx.clock().getTime() - Date.now(),
      org,
      request: continued,
      shard: { index, count: workers },
    } satisfies RebalanceRunWorkerInit),
  );
  try {
    await Promise.all(
      threads.map(
        (w) =>
          new Promise<void>((resolve, reject) => {
            w.on("message", (m: RebalanceRunWorkerMessage) => {
              if (m.kind === "account") progress?.(++completed, started.totals.accounts);
              else if (m.kind === "done") resolve();
              else reject(Object.assign(new Error(m.message), { code: m.code }));
            });
            w.once("error", reject);
            w.once("exit", (code) =>
              reject(new Error(`A rebalance-run worker stopped (exit code ${code}).`)),
            );
          }),
      ),
    );
  } finally {
    await Promise.all(threads.map((w) => w.terminate()));
  }
  // Completes the run (every account has an outcome) and reads it.
  return runRebalance(ctx, org, continued);
}
