/**
 * Child process of the crash-recovery test: runs the backtest jobs of a store file with a runner whose executor
 * never finishes, until the test kills this process with SIGKILL (leaving its job RUNNING in the file).
 * Usage: node --import tsx backtest-crash-child.ts STORE_FILE
 */
import { BacktestJobRunner } from "../../src/service/jobs/index.js";
import { openSqliteStore } from "../../src/store/index.js";
import { executorModule } from "./backtest-executors.js";

const store = openSqliteStore(process.argv[2]!, { create: false });
const runner = new BacktestJobRunner({
  store,
  concurrency: 1,
  executor: executorModule("endlessExecutor"),
  pollIntervalMs: 20,
});
runner.onEvent((e) => {
  if (e.type === "started") process.stdout.write(`started ${e.jobId}\n`);
});
await runner.start();
process.stdout.write("ready\n");
