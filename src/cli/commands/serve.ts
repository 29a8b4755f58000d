/** @module cli/commands/serve `lotwise serve`: the HTTP API over the local store. */
import type { Command } from "commander";
import {
  appRequestWorkers,
  DEFAULT_HOST,
  DEFAULT_PORT,
  DEFAULT_RATE_LIMIT_BURST,
  DEFAULT_RATE_LIMIT_PER_MINUTE,
  defaultRequestWorkers,
  serve,
} from "../../server/index.js";
import {
  type BacktestServiceContext,
  DEFAULT_SERVICE_LIMITS,
  type ServiceLimits,
} from "../../service/index.js";
import {
  BacktestJobRunner,
  DEFAULT_SWEEP_INTERVAL_MS,
  defaultConcurrency,
  startOrphanSweep,
} from "../../service/jobs/index.js";
import { usageError } from "../errors.js";
import { LIMIT_ENV, limitsFromEnv, nonNegativeInteger } from "../limits.js";
import { action, examples, type ProgramHooks } from "../program.js";

export function registerServe(program: Command, hooks: ProgramHooks): void {
  const cmd = program
    .command("serve")
    .description(
      "Serve the HTTP API of the interface spec (and lotwise's extensions) over the local store. Every request needs an X-Api-Key issued by `lotwise init` or `lotwise keys create`; the OpenAPI document is at /api/v1/openapi.json and the docs page at /api/v1/docs. Stops cleanly on Ctrl-C (SIGINT) or SIGTERM.",
    )
    .option("--host <host>", "interface to bind", DEFAULT_HOST)
    .option("--port <port>", "port to bind (0 picks a free one)", String(DEFAULT_PORT))
    .option(
      "--queue <url>",
      "job queue redis://[user:password@]host:6379[/db] (rediss:// for TLS; env LOTWISE_QUEUE). With a PostgreSQL store, jobs are enqueued there and `lotwise worker` processes run them (this process runs none, and --workers and --sweep-interval do not apply); needed for several serve instances on one database. Ignored with a SQLite store",
    )
    .option(
      "--workers <n>",
      `backtest worker threads (0: run no backtest jobs here; default cores - 1 = ${defaultConcurrency()})`,
    )
    .option(
      "--max-running-per-org <n>",
      "most backtest jobs of one organization running at once in the store (0, the default: no limit beyond fair scheduling; env LOTWISE_MAX_RUNNING_PER_ORG)",
    )
    .option(
      "--max-queued-jobs <n>",
      `most PENDING backtest jobs per organization; more answer 429 too_many_queued_jobs (0: no cap; default ${DEFAULT_SERVICE_LIMITS.maxQueuedJobsPerOrganization}; env ${LIMIT_ENV.maxQueuedJobsPerOrganization})`,
    )
    .option(
      "--rate-limit <n>",
      `requests per minute per API key on proposal, optimize, rebalance and backtest creation; more answer 429 rate_limited with Retry-After (0: off; default ${DEFAULT_RATE_LIMIT_PER_MINUTE}; env LOTWISE_RATE_LIMIT)`,
    )
    .option(
      "--rate-burst <n>",
      `requests a key may send at once before --rate-limit applies (default ${DEFAULT_RATE_LIMIT_BURST}; env LOTWISE_RATE_BURST)`,
    )
    .option(
      "--keep-proposals <n>",
      `stored proposals kept per account, newest first (0: keep all; default ${DEFAULT_SERVICE_LIMITS.proposalsKeptPerAccount}; env ${LIMIT_ENV.proposalsKeptPerAccount})`,
    )
    .option(
      "--proposal-max-age-days <n>",
      `delete an account's proposals older than this when it gets a new one (0: no age limit, the default; env ${LIMIT_ENV.proposalMaxAgeDays})`,
    )
    .option(
      "--scan-job-threshold <n>",
      `accounts a scan job (POST .../scan_jobs/) scans in its request; larger scans run on the job workers (0: all on the workers; default ${DEFAULT_SERVICE_LIMITS.scanJobThreshold}; env ${LIMIT_ENV.scanJobThreshold})`,
    )
    .option(
      "--request-workers <n>",
      `worker threads for CPU-heavy requests (optimize, rebalance, proposal, theme evaluate/backtest), so they do not block other requests (0: run them on the event loop; default min(2, cores) = ${defaultRequestWorkers()})`,
    )
    .option(
      "--sweep-interval <seconds>",
      `how often jobs left RUNNING by a stopped process are recovered, also with --workers 0 (default ${DEFAULT_SWEEP_INTERVAL_MS / 1000})`,
    )
    .action(
      action(hooks, async (ctx, opts: ServeFlags) => {
        const port = Number(opts.port);
        if (!Number.isInteger(port) || port < 0 || port > 65535)
          throw usageError(`--port must be an integer from 0 to 65535, got ${opts.port}`, "port");
        const workers = opts.workers === undefined ? defaultConcurrency() : Number(opts.workers);
        if (!Number.isInteger(workers) || workers < 0 || workers > 256)
          throw usageError(`--workers must be an integer from 0 to 256, got ${opts.workers}`, "workers");
        const requestWorkers =
          opts.requestWorkers === undefined ? defaultRequestWorkers() : Number(opts.requestWorkers);
        if (!Number.isInteger(requestWorkers) || requestWorkers < 0 || requestWorkers > 64)
          throw usageError(
            `--request-workers must be an integer from 0 to 64, got ${opts.requestWorkers}`,
            "request-workers",
          );
        const settings = serveSettings(opts);
        if (opts.queue) ctx.options.queue = opts.queue;
        if (ctx.options.queue !== undefined && ctx.queueUrl() === undefined && !ctx.remote)
          ctx.out.note(
            "lotwise: --queue / LOTWISE_QUEUE is ignored with a SQLite store: its jobs run on this process's worker threads.",
          );
        const queued = ctx.queueUrl() !== undefined;
        const unused = [
          ...(opts.workers === undefined ? [] : ["--workers"]),
          ...(opts.sweepInterval === undefined ? [] : ["--sweep-interval"]),
        ];
        if (queued && unused.length > 0)
          ctx.out.note(
            `lotwise: ${unused.join(" and ")} ${unused.length > 1 ? "are" : "is"} ignored with a job queue: \`lotwise worker\` processes run the jobs (their --concurrency), and BullMQ's stalled-job check recovers jobs of a stopped worker.`,
          );
        const base = { ...(await ctx.service()), limits: settings.limits };
        // No statement of this process's connection ever blocks the event loop on another process's write lock (a
        // CLI import): requests wait asynchronously (then 503 store_busy), background writers retry with backoff.
        base.store.sqlite?.setBusyTimeout(0);
        // Backtest jobs run on worker threads of this process, never on the server's event loop.
        // With a queue, `lotwise worker` processes run the jobs and BullMQ's stalled-job check replaces the orphan
        // sweep (docs/backtest-jobs.md): this process runs no runner and no sweep.
        const runner =
          workers > 0 && !queued
            ? new BacktestJobRunner({
                store: base.store,
                concurrency: workers,
                sweepIntervalMs: settings.sweepIntervalMs,
                ...(settings.maxRunningPerOrganization > 0
                  ? { maxRunningPerOrganization: settings.maxRunningPerOrganization }
                  : {}),
              })
            : undefined;
        // Without workers this process still recovers jobs a killed process left RUNNING (at start, then every
        // sweep interval): re-queued for whichever process runs jobs, or failed on their last attempt.
        const sweep =
          runner === undefined && !queued
            ? await startOrphanSweep(base.store, {
                intervalMs: settings.sweepIntervalMs,
                onRecovered: (r) =>
                  ctx.out.note(
                    `lotwise: recovered backtest jobs left running by a stopped process: ${r.requeued.length} re-queued, ${r.failed.length} failed.`,
                  ),
              })
            : undefined;
        const recovered = sweep ? sweep.initial : await runner?.start();
        const service: BacktestServiceContext = runner ? { ...base, backtestRunner: runner } : base;
        const handle = await serve({
          ctx: service,
          host: opts.host,
          port,
          rateLimit: settings.rateLimit,
          requestWorkers,
          warmWorkers: true,
        }).catch(async (err: unknown) => {
          sweep?.stop();
          await runner?.stop();
          throw err;
        });
        // Last resort: a failure in a background path is logged, never the end of the server (issue 12, defect 2).
        const background = (err: unknown) =>
          process.stderr.write(
            `lotwise serve: unexpected error in a background task (the server keeps running): ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
          );
        process.on("uncaughtException", background);
        process.on("unhandledRejection", background);
        if (ctx.out.json)
          ctx.out.printJson({
            url: handle.url,
            store: service.store.location,
            backtest_workers: runner ? workers : 0,
            job_queue: queued,
            request_workers: appRequestWorkers(handle.app),
          });
        else {
          ctx.out.line(`lotwise serving ${service.store.location} at ${handle.url}`);
          ctx.out.line(`  API docs: ${handle.url}/api/v1/docs   OpenAPI: ${handle.url}/api/v1/openapi.json`);
          const recoveredNote =
            recovered && recovered.requeued.length + recovered.failed.length > 0
              ? `; recovered ${recovered.requeued.length} re-queued and ${recovered.failed.length} failed job(s) left by a stopped process`
              : "";
          ctx.out.line(
            queued
              ? "  Backtest and scan jobs: enqueued on the job queue; `lotwise worker` processes run them."
              : workers > 0
                ? `  Backtest jobs: ${workers} worker thread(s)${recoveredNote}.`
                : `  Backtest jobs: not run here (--workers 0)${recoveredNote}.`,
          );
          if (!queued && service.store.kind === "postgres")
            ctx.out.line(
              "  PostgreSQL without a job queue: fine for this one instance; several instances need --queue and `lotwise worker`.",
            );
          ctx.out.line(`  Health: ${handle.url}/healthz   Readiness: ${handle.url}/readyz`);
          const pooled = appRequestWorkers(handle.app);
          ctx.out.line(
            pooled > 0
              ? `  Heavy requests (optimize, proposal, themes): ${pooled} worker thread(s).`
              : "  Heavy requests (optimize, proposal, themes): on the event loop.",
          );
          ctx.out.line("  Press Ctrl-C to stop.");
        }
        await new Promise<void>((resolve) => {
          const stop = () => {
            process.off("SIGINT", stop);
            process.off("SIGTERM", stop);
            ctx.out.note("lotwise: shutting down...");
            sweep?.stop();
            // Running backtests get the same grace; unfinished ones are re-queued for the next start.
            Promise.allSettled([handle.close({ graceMs: 5000 }), runner?.stop({ graceMs: 5000 })]).then(
              () => {
                process.off("uncaughtException", background);
                process.off("unhandledRejection", background);
                resolve();
              },
            );
          };
          process.on("SIGINT", stop);
          process.on("SIGTERM", stop);
        });
      }),
    );
  cmd.addHelpText(
    "after",
    `
Health (no API key): GET /healthz answers 200 while the process runs; GET /readyz answers 200 when the store (and
the job queue, if any) answer within 2 s, else 503 naming the failed check. SIGTERM: /readyz answers 503, new
connections are refused, in-flight requests get 5 s, then the process exits 0.

Environment:
  LOTWISE_STORE                the store: a SQLite file or postgres://user:password@host:5432/db (same as --store)
  LOTWISE_QUEUE                the Redis URL of the job queue (same as --queue)
  LOTWISE_QUEUE_PREFIX         Redis key prefix, the same on every serve and worker of a deployment (default lotwise)
  LOTWISE_MAX_QUEUED_JOBS, LOTWISE_MAX_RUNNING_PER_ORG, LOTWISE_RATE_LIMIT, LOTWISE_RATE_BURST,
  LOTWISE_KEEP_PROPOSALS, LOTWISE_PROPOSAL_MAX_AGE_DAYS, LOTWISE_SCAN_JOB_THRESHOLD: as their options above
See docs/deploy.md for several instances on PostgreSQL.
`,
  );
  examples(
    cmd,
    "lotwise serve --store demo.db --port 8000",
    "lotwise serve --store demo.db --max-queued-jobs 20 --rate-limit 120 --keep-proposals 200",
    "lotwise serve --store postgres://lotwise@db:5432/lotwise --queue redis://redis:6379 --host 0.0.0.0  # one of several instances",
    "curl -H 'X-Api-Key: lw_...' http://127.0.0.1:8000/api/v1/custom/org/<org>/portfolio_configs/",
  );
}

/** Options of `lotwise serve`. */
interface ServeFlags {
  host: string;
  queue?: string;
  port: string;
  workers?: string;
  requestWorkers?: string;
  maxRunningPerOrg?: string;
  maxQueuedJobs?: string;
  rateLimit?: string;
  rateBurst?: string;
  keepProposals?: string;
  proposalMaxAgeDays?: string;
  scanJobThreshold?: string;
  sweepInterval?: string;
}

/**
 * The limits of `lotwise serve`: each flag, else its environment variable, else the default.
 * @throws {ValidationError} `usage` naming the flag or variable of a value that is not a non-negative integer
 */
function serveSettings(
  opts: ServeFlags,
  env: NodeJS.ProcessEnv = process.env,
): {
  limits: ServiceLimits;
  maxRunningPerOrganization: number;
  rateLimit: false | { perMinute: number; burst: number };
  sweepIntervalMs: number;
} {
  const pick = (flag: string | undefined, name: string, variable?: string): number | undefined => {
    if (flag !== undefined) return nonNegativeInteger(flag, name);
    const raw = variable ? env[variable] : undefined;
    return raw !== undefined && raw !== "" ? nonNegativeInteger(raw, variable!) : undefined;
  };
  const limits: { -readonly [K in keyof ServiceLimits]: number } = { ...limitsFromEnv(env) };
  const queued = pick(opts.maxQueuedJobs, "--max-queued-jobs");
  if (queued !== undefined) limits.maxQueuedJobsPerOrganization = queued;
  const keep = pick(opts.keepProposals, "--keep-proposals");
  if (keep !== undefined) limits.proposalsKeptPerAccount = keep;
  const age = pick(opts.proposalMaxAgeDays, "--proposal-max-age-days");
  if (age !== undefined) limits.proposalMaxAgeDays = age;
  const scanThreshold = pick(opts.scanJobThreshold, "--scan-job-threshold");
  if (scanThreshold !== undefined) limits.scanJobThreshold = scanThreshold;
  const perMinute =
    pick(opts.rateLimit, "--rate-limit", "LOTWISE_RATE_LIMIT") ?? DEFAULT_RATE_LIMIT_PER_MINUTE;
  const burst = pick(opts.rateBurst, "--rate-burst", "LOTWISE_RATE_BURST") ?? DEFAULT_RATE_LIMIT_BURST;
  if (burst < 1)
    throw usageError("--rate-burst must be at least 1 (use --rate-limit 0 to turn the limit off)");
  const sweepSeconds = pick(opts.sweepInterval, "--sweep-interval") ?? DEFAULT_SWEEP_INTERVAL_MS / 1000;
  if (sweepSeconds < 1) throw usageError("--sweep-interval must be at least 1 second", "--sweep-interval");
  return {
    limits,
    maxRunningPerOrganization:
      pick(opts.maxRunningPerOrg, "--max-running-per-org", "LOTWISE_MAX_RUNNING_PER_ORG") ?? 0,
    rateLimit: perMinute === 0 ? false : { perMinute, burst },
    sweepIntervalMs: sweepSeconds * 1000,
  };
}
