/**
 * Child process of the busy-store recovery test: runs the backtest jobs of a store file with a runner that sweeps for
 * orphans every 100 ms (as `lotwise serve` does every minute), printing "starting" before the runner starts, "ready"
 * once started and "finished <id>
 * <status>" for each job; its log lines go to stderr. The test holds the store's write lock from another connection
 * while this process starts, recovers and claims.
 * Usage: node --import tsx busy-runner-child.ts STORE_FILE
 */
import { BacktestJobRunner } from "../../src/service/jobs/index.js";
import { openSqliteStore } from "../../src/store/index.js";
import { executorModule } from "./backtest-executors.js";

const store = openSqliteStore(process.argv[2]!, { create: false });
const runner = new BacktestJobRunner({
  store,
  concurrency: 1,
  executor: executorModule("fastExecutor"),
  pollIntervalMs: 20,
  sweepIntervalMs: 100,
});
runner.onEvent((e) => {
  if (e.type === "finished") process.stdout.write(`finished ${e.jobId} ${e.job.status}\n`);
});
process.stdout.write("starting\n");
await runner.start();
process.stdout.write("ready\n");
