/** @module cli/commands/serve `lotwise serve`: the HTTP API over the local store. */
import type { Command } from "commander";
import { DEFAULT_HOST, DEFAULT_PORT, serve } from "../../server/index.js";
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
    .action(
      action(hooks, async (ctx, opts: { host: string; port: string }) => {
        const port = Number(opts.port);
        if (!Number.isInteger(port) || port < 0 || port > 65535)
          throw usageError(`--port must be an integer from 0 to 65535, got ${opts.port}`, "port");
        const service = ctx.service();
        const handle = await serve({ ctx: service, host: opts.host, port });
        if (ctx.out.json) ctx.out.printJson({ url: handle.url, store: service.store.path });
        else {
          ctx.out.line(`lotwise serving ${service.store.path} at ${handle.url}`);
          ctx.out.line(`  API docs: ${handle.url}/api/v1/docs   OpenAPI: ${handle.url}/api/v1/openapi.json`);
          ctx.out.line("  Press Ctrl-C to stop.");
        }
        await new Promise<void>((resolve) => {
          const stop = () => {
            process.off("SIGINT", stop);
            process.off("SIGTERM", stop);
            ctx.out.note("lotwise: shutting down...");
            handle.close({ graceMs: 5000 }).then(resolve, resolve);
          };
          process.on("SIGINT", stop);
          process.on("SIGTERM", stop);
        });
      }),
    );
  examples(
    cmd,
    "lotwise serve --store demo.db --port 8000",
    "curl -H 'X-Api-Key: lw_...' http://127.0.0.1:8000/api/v1/custom/org/<org>/portfolio_configs/",
  );
}
