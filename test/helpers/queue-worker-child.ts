/**
 * Child process of the queue tests: `lotwise worker` in miniature. Runs {@link runQueueWorker} on a store file and
 * a queue with the simulated handler of test/helpers/queue-jobs.ts and short lock/stall intervals, reports on
 * stdout (`ready`, `started ID`, `succeeded ID`, `stopped`) and stops on SIGTERM like the real worker. The tests kill
 * it with SIGKILL or SIGTERM mid-job.
 * Usage: node --import tsx queue-worker-child.ts STORE_FILE REDIS_URL PREFIX PERIODS PERIOD_MS GRACE_MS
 */
import { runQueueWorker } from "../../src/service/jobs/queue/index.js";
import { openSqliteStore } from "../../src/store/index.js";
import { simulatedHandler } from "./queue-jobs.js";

const [file, redisUrl, prefix, periods, periodMs, graceMs] = process.argv.slice(2);
const store = openSqliteStore(file!, { create: false });
const say = (line: string) => process.stdout.write(`${line}\n`);
const running = await runQueueWorker({
  store,
  queueUrl: redisUrl!,
  prefix: prefix!,
  concurrency: 1,
  graceMs: Number(graceMs),
  lockDurationMs: 2000,
  stalledIntervalMs: 500,
  cancelPollMs: 50,
  reconcileIntervalMs: 0,
  abandonWaitMs: 200,
  log: (line) => process.stderr.write(`[worker ${process.pid}] ${line}\n`),
  handler: simulatedHandler({
    store,
    periods: Number(periods),
    periodMs: Number(periodMs),
    onStart: (id) => say(`started ${id}`),
    onSuccess: (id) => say(`succeeded ${id}`),
  }),
});
say("ready");
await running.done;
await store.close();
say("stopped");
process.exit(0);
