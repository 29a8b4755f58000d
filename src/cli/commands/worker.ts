/**
 * @module cli/commands/worker
 * `lotwise worker`: consume the BullMQ job queue of a PostgreSQL deployment and run its backtest and scan jobs on
 * worker threads of this process (docs/deploy.md, docs/backtest-jobs.md "Jobs on BullMQ").
 */
import type { Command } from "commander";
import { isPostgresLocation } from "../../store/index.js";
import { usageError } from "../errors.js";
import { nonNegativeInteger } from "../limits.js";
import { action, examples, type ProgramHooks } from "../program.js";

interface WorkerFlags {
  queue?: string;
  concurrency?: string;
  grace?: string;
}

/** Default seconds running jobs get to finish after SIGTERM. */
const DEFAULT_GRACE_SECONDS = 30;

export function registerWorker(program: Command, hooks: ProgramHooks): void {
  const cmd = program
    .command("worker")
    .description(
      "Run backtest and scan jobs of a PostgreSQL store from its job queue (BullMQ on Redis); start any number, on any machines. Each job runs on a worker thread; progress, cancel and results go to the store, so every `lotwise serve` answers for them. Stops on SIGTERM: no new jobs, running ones get --grace seconds, the rest go back to the queue. A SQLite store needs no worker: `lotwise serve` runs its jobs.",
    )
    .option(
      "--queue <url>",
      "the job queue, redis://[user:password@]host:6379[/db] (required; env LOTWISE_QUEUE; the same as the serve instances')",
    )
    .option(
      "--concurrency <n>",
      "jobs this process runs at once, one worker thread each (env LOTWISE_WORKER_CONCURRENCY; default 1: run one process per core)",
    )
    .option(
      "--grace <seconds>",
      `after SIGTERM, how long running jobs may finish before they go back to the queue (env LOTWISE_WORKER_GRACE; default ${DEFAULT_GRACE_SECONDS})`,
    )
    .action(
      action(hooks, async (ctx, opts: WorkerFlags) => {
        const env = process.env;
        if (ctx.remote)
          throw usageError(
            "lotwise worker runs next to the store: use --store postgres://..., not --url.",
            "url",
          );
        const location = ctx.storePath();
        if (!isPostgresLocation(location))
          throw usageError(
            `lotwise worker runs the jobs of a PostgreSQL store (--store postgres://...). ${location} is a SQLite store: its jobs run inside \`lotwise serve --store ${location}\` (worker threads), no worker process needed.`,
            "store",
          );
        if (opts.queue) ctx.options.queue = opts.queue;
        const queueUrl = ctx.queueUrl();
        if (queueUrl === undefined)
          throw usageError(
            "lotwise worker needs the job queue: pass --queue redis://host:6379 or set LOTWISE_QUEUE (the same queue as the serve instances).",
            "queue",
          );
        const concurrency =
          opts.concurrency !== undefined
            ? nonNegativeInteger(opts.concurrency, "--concurrency")
            : env.LOTWISE_WORKER_CONCURRENCY
              ? nonNegativeInteger(env.LOTWISE_WORKER_CONCURRENCY, "LOTWISE_WORKER_CONCURRENCY")
              : 1;
        if (concurrency < 1 || concurrency > 256)
          throw usageError(
            `--concurrency must be an integer from 1 to 256, got ${concurrency}`,
            "concurrency",
          );
        const grace =
          opts.grace !== undefined
            ? nonNegativeInteger(opts.grace, "--grace")
            : env.LOTWISE_WORKER_GRACE
              ? nonNegativeInteger(env.LOTWISE_WORKER_GRACE, "LOTWISE_WORKER_GRACE")
              : DEFAULT_GRACE_SECONDS;
        const store = await ctx.store();
        const { runQueueWorker, threadJobHandler } = await import("../../service/jobs/queue/index.js");
        const threads = threadJobHandler({
          connectionString: store.connectionString!,
          // Live progress for endpoint 2: recorded from this thread, whose event loop the engine does not block.
          recordProgress: (jobId, owner, progress) => store.backtestJobs.progress(jobId, owner, progress),
          keepThreads: concurrency,
        });
        const log = (line: string) => ctx.out.note(`lotwise worker: ${line}`);
        try {
          const running = await runQueueWorker({
            store,
            queueUrl,
            concurrency,
            handler: threads.handler,
            graceMs: grace * 1000,
            log,
            ...(env.LOTWISE_QUEUE_PREFIX ? { prefix: env.LOTWISE_QUEUE_PREFIX } : {}),
          });
          // Not started: a signal came while Redis had not answered yet; the worker is stopping.
          if (running.started && ctx.out.json)
            ctx.out.printJson({ store: store.location, concurrency, grace_seconds: grace, status: "ready" });
          else if (running.started)
            ctx.out.line(
              `lotwise worker on ${store.location}: ${concurrency} job(s) at a time. Stop with SIGTERM or Ctrl-C.`,
            );
          await running.done;
        } finally {
          await threads.close();
        }
      }),
    );
  cmd.addHelpText(
    "after",
    `
How it works:
  serve instances store each job in PostgreSQL and put its id on the queue; a worker takes ids, claims the job
  under a lease, runs it on a thread and writes progress and the result to PostgreSQL. A worker killed mid-job is
  detected by the queue within about 45 s and the job runs once more on another worker, then fails with a message.
  Every minute a worker also queues PENDING jobs the queue lost (Redis restarted, an enqueue that failed).

Environment:
  LOTWISE_STORE               the PostgreSQL URL (same as --store)
  LOTWISE_QUEUE               the Redis URL (same as --queue)
  LOTWISE_QUEUE_PREFIX        Redis key prefix, the same on every process of a deployment (default lotwise)
  LOTWISE_WORKER_CONCURRENCY  same as --concurrency
  LOTWISE_WORKER_GRACE        same as --grace
See docs/deploy.md.
`,
  );
  examples(
    cmd,
    "lotwise worker --store postgres://lotwise@db.internal:5432/lotwise --queue redis://redis.internal:6379",
    "LOTWISE_STORE=postgres://... LOTWISE_QUEUE=redis://... lotwise worker --concurrency 2 --grace 60",
  );
}
