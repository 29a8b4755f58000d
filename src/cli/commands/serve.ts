/** @module cli/commands/serve `lotwise serve`: the HTTP API over the local store. */
import type { Command } from "commander";
import {
  appRequestWorkers,
  DEFAULT_HOST,
  DEFAULT_PORT,
  defaultRequestWorkers,
  serve,
} from "../../server/index.js";
import type { BacktestServiceContext } from "../../service/index.js";
import { BacktestJobRunner, defaultConcurrency } from "../../service/jobs/index.js";
import { usageError } from "../errors.js";
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
      "--workers <n>",
      `backtest worker threads (0: run no backtest jobs here; default cores - 1 = ${defaultConcurrency()})`,
    )
    .option(
      "--request-workers <n>",
      `worker threads for CPU-heavy requests (optimize, rebalance, proposal, theme evaluate/backtest), so they do not block other requests (0: run them on the event loop; default min(2, cores) = ${defaultRequestWorkers()})`,
    )
    .action(
      action(
        hooks,
        async (ctx, opts: { host: string; port: string; workers?: string; requestWorkers?: string }) => {
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
          const base = ctx.service();
          // Backtest jobs run on worker threads of this process, never on the server's event loop.
          const runner =
            workers > 0 ? new BacktestJobRunner({ store: base.store, concurrency: workers }) : undefined;
          const recovered = await runner?.start();
          const service: BacktestServiceContext = runner ? { ...base, backtestRunner: runner } : base;
          const handle = await serve({
            ctx: service,
            host: opts.host,
            port,
            requestWorkers,
            warmWorkers: true,
          }).catch(async (err: unknown) => {
            await runner?.stop();
            throw err;
          });
          if (ctx.out.json)
            ctx.out.printJson({
              url: handle.url,
              store: service.store.path,
              backtest_workers: workers,
              request_workers: appRequestWorkers(handle.app),
            });
          else {
            ctx.out.line(`lotwise serving ${service.store.path} at ${handle.url}`);
            ctx.out.line(
              `  API docs: ${handle.url}/api/v1/docs   OpenAPI: ${handle.url}/api/v1/openapi.json`,
            );
            ctx.out.line(
              workers > 0
                ? `  Backtest jobs: ${workers} worker thread(s)${recovered && recovered.requeued.length + recovered.failed.length > 0 ? `; recovered ${recovered.requeued.length} re-queued and ${recovered.failed.length} failed job(s) left by a stopped process` : ""}.`
                : "  Backtest jobs: not run here (--workers 0).",
            );
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
              // Running backtests get the same grace; unfinished ones are re-queued for the next start.
              Promise.allSettled([handle.close({ graceMs: 5000 }), runner?.stop({ graceMs: 5000 })]).then(
                () => resolve(),
              );
            };
            process.on("SIGINT", stop);
            process.on("SIGTERM", stop);
          });
        },
      ),
    );
  examples(
    cmd,
    "lotwise serve --store demo.db --port 8000",
    "curl -H 'X-Api-Key: lw_...' http://127.0.0.1:8000/api/v1/custom/org/<org>/portfolio_configs/",
  );
}
