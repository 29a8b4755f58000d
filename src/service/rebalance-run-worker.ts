/**
 * @module service/rebalance-run-worker
 * Worker-thread entry of {@link runRebalanceInWorkers}: processes one shard of a rebalance run on its own store
 * connection, posting a message per account.
 */
import { parentPort, workerData } from "node:worker_threads";
import { PortfolioError } from "../core/errors.js";
import { openStoreContext } from "./context.js";
import type { RebalanceRunWorkerInit, RebalanceRunWorkerMessage } from "./rebalance-run-workers.js";
import { runRebalance } from "./rebalance-runs.js";

const init = workerData as RebalanceRunWorkerInit;
const post = (m: RebalanceRunWorkerMessage) => parentPort!.postMessage(m);
const ctx = await openStoreContext(init.storePath, () => new Date(Date.now() + init.clockOffsetMs));
try {
  await runRebalance(ctx, init.org, init.request, {
    shard: init.shard,
    onProgress: () => post({ kind: "account" }),
  });
  post({ kind: "done" });
} catch (error) {
  post(
    error instanceof PortfolioError
      ? { kind: "error", code: error.code, message: error.message }
      : { kind: "error", code: "internal_error", message: "A rebalance-run worker failed." },
  );
} finally {
  await ctx.store.close();
}
