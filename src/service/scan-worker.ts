/**
 * @module service/scan-worker
 * A worker thread of a parallel scan (service/scan-parallel.ts): opens its own connection to the store file, scans
 * its contiguous slice of the selection with {@link scanAccounts}, reports progress, and posts the rows back.
 */
import { parentPort, workerData } from "node:worker_threads";
import { openStoreContext } from "./context.js";
import { scanAccounts } from "./scan.js";
import type { ScanWorkerInit, ScanWorkerMessage } from "./scan-parallel.js";

if (!parentPort) throw new Error("scan-worker: this module runs as a worker thread of a parallel scan");
const port = parentPort;
const init = workerData as ScanWorkerInit;
const post = (m: ScanWorkerMessage) => port.postMessage(m);
const ctx = await openStoreContext(init.storePath, () => new Date(init.now));
try {
  let reported = 0;
  const result = await scanAccounts(ctx, init.org, init.selection, {
    asOf: init.asOf,
    minLossUsd: init.minLossUsd,
    minLossFraction: init.minLossFraction,
    offset: init.offset,
    limit: init.limit,
    onProgress: (done, total) => {
      if (done - reported >= 25 || done === total) {
        post({ type: "progress", done: done - reported });
        reported = done;
      }
    },
  });
  post({ type: "rows", rows: result.rows });
} catch (err) {
  post({ type: "error", message: err instanceof Error ? err.message : String(err) });
} finally {
  await ctx.store.close();
}
