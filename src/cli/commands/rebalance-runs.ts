/**
 * @module cli/commands/rebalance-runs
 * `lotwise rebalance --all [--when breached|harvest|always] [--client | --config | --accounts] [--force]` (a
 * rebalance run over many accounts, with a progress bar and a summary table) and `lotwise rebalance runs
 * list|show`. The run is the service's (docs/rebalance-runs.md); local and remote give the same JSON.
 */
import type { Command } from "commander";
import {
  MAX_REBALANCE_RUN_WORKERS,
  REBALANCE_RUN_WHEN,
  type RebalanceRun,
  type RebalanceRunRequest,
  type RebalanceRunSummary,
} from "../../contract/index.js";
import type { CommandContext } from "../context.js";
import { EXIT_FAILURE, EXIT_OK, usageError } from "../errors.js";
import { UUID } from "../flags.js";
import { OUT_OPTION_HELP, writeListOut } from "../list-out.js";
import { renderKeyValues, renderTable } from "../output.js";
import { action, dateFlag, examples, type ProgramHooks } from "../program.js";
import { createProgressBar } from "../progress-bar.js";

/** Options of `lotwise rebalance` that concern runs over many accounts. */
export interface RunOptions {
  all?: boolean;
  when?: string;
  client?: string;
  config?: string;
  accounts?: string;
  force?: boolean;
  asOf?: string;
  concurrency?: string;
}

function checkedUuid(value: string, option: string): string {
  if (!UUID.test(value)) throw usageError(`${option} must be a UUID, got "${value}".`, option);
  return value;
}

/** The request of the options; usage errors name the option. */
export function runRequestOf(opts: RunOptions): RebalanceRunRequest {
  const request: RebalanceRunRequest = {};
  // --as-of is checked by its parser (dateFlag).
  if (opts.asOf !== undefined) request.as_of_date = opts.asOf;
  if (opts.when !== undefined) {
    if (!(REBALANCE_RUN_WHEN as readonly string[]).includes(opts.when))
      throw usageError(
        `--when must be one of ${REBALANCE_RUN_WHEN.join(", ")}, got "${opts.when}".`,
        "--when",
      );
    request.when = opts.when as RebalanceRunRequest["when"];
  }
  const selections = [opts.client, opts.config, opts.accounts].filter((v) => v !== undefined).length;
  if (selections > 1) throw usageError("Give at most one of --client, --config, --accounts.", "--client");
  if (opts.client !== undefined) request.client_uuid = checkedUuid(opts.client, "--client");
  if (opts.config !== undefined) request.portfolio_config_uuid = checkedUuid(opts.config, "--config");
  if (opts.accounts !== undefined) {
    const list = opts.accounts
      .split(",")
      .map((s) => s.trim())
      .filter((s) => s !== "");
    if (list.length === 0) throw usageError("--accounts needs at least one account UUID.", "--accounts");
    request.account_uuids = list.map((u) => checkedUuid(u, "--accounts"));
  }
  if (opts.force) request.force = true;
  return request;
}

function selectionText(r: RebalanceRunSummary): string {
  const s = r.selection;
  if (s.kind === "all") return "all accounts";
  if (s.kind === "client") return `client ${s.client_uuid}`;
  if (s.kind === "portfolio_config") return `configuration ${s.portfolio_config_uuid}`;
  const n = s.account_uuids?.length ?? 0;
  return `${n} listed ${n === 1 ? "account" : "accounts"}`;
}

/** Summary and one row per account of a run, for people. */
export function renderRun(run: RebalanceRun): string {
  const t = run.totals;
  const parts = [
    renderKeyValues(
      [
        ["Run", run.run_uuid],
        ["As of", run.as_of_date],
        ["When", run.when],
        ["Selection", selectionText(run)],
        ["Status", `${run.status}${run.forced ? " (forced)" : ""}`],
        ["Created", run.created],
        ["Finished", run.finished ?? "-"],
        [
          "Accounts",
          `${t.accounts}: ${t.created} created, ${t.skipped} skipped, ${t.failed} failed${t.pending > 0 ? `, ${t.pending} pending` : ""}`,
        ],
        ...(run.queued_jobs === undefined || run.status === "completed"
          ? []
          : [["Queued jobs", `${run.queued_jobs} on the service's workers`] as [string, string]]),
      ],
      "Rebalance run",
    ),
  ];
  if (run.accounts.length > 0)
    parts.push(
      renderTable(
        run.accounts,
        [
          { header: "Account", value: (a) => a.account_name ?? a.account_uuid },
          { header: "Outcome", value: (a) => a.outcome },
          {
            header: "Proposal / reason / error",
            value: (a) =>
              a.proposal_uuid ?? a.reason ?? (a.error === null ? "" : `${a.error.code}: ${a.error.message}`),
          },
        ],
        "Accounts",
      ),
    );
  if (run.status === "running")
    parts.push("The run is not complete: run the same command again to process the pending accounts.");
  return parts.join("\n\n");
}

/** `lotwise rebalance --all ...`: exit 1 when an account failed (or accounts are still pending). */
export async function rebalanceAll(ctx: CommandContext, opts: RunOptions): Promise<number> {
  const request = runRequestOf(opts);
  let concurrency = 1;
  if (opts.concurrency !== undefined) {
    concurrency = Number(opts.concurrency);
    if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > MAX_REBALANCE_RUN_WORKERS)
      throw usageError(
        `--concurrency must be an integer from 1 to ${MAX_REBALANCE_RUN_WORKERS}, got "${opts.concurrency}".`,
        "--concurrency",
      );
  }
  const backend = await ctx.backend();
  const bar = createProgressBar("rebalance run");
  let run: RebalanceRun;
  try {
    run = await backend.rebalanceAll(request, {
      onProgress: (completed, total) => bar.update(completed, total, "accounts"),
      concurrency,
    });
  } finally {
    bar.done();
  }
  if (ctx.out.json) ctx.out.printJson(run);
  else ctx.out.line(renderRun(run));
  return run.totals.failed > 0 || run.status !== "completed" ? EXIT_FAILURE : EXIT_OK;
}

/** Registers `lotwise rebalance runs list|show` under the `rebalance` command. */
export function registerRebalanceRuns(rebalance: Command, hooks: ProgramHooks): void {
  const runs = rebalance
    .command("runs")
    .description("Stored rebalance runs (lotwise rebalance --all): list them, show one with its outcomes.");
  examples(
    runs
      .command("list")
      .description("The organization's rebalance runs, newest first, with their totals.")
      .option("--as-of <date>", "only the runs of this as-of date (YYYY-MM-DD)", dateFlag)
      .option("--out <file>", OUT_OPTION_HELP)
      .action(
        action(hooks, async (ctx, opts: { asOf?: string; out?: string }) => {
          const backend = await ctx.backend();
          const list = await backend.listRebalanceRuns(
            opts.asOf === undefined ? {} : { as_of_date: opts.asOf },
          );
          if (opts.out)
            await writeListOut(ctx.out, opts.out, "rebalance runs", list, [
              { header: "run_uuid", value: (r) => r.run_uuid },
              { header: "as_of_date", value: (r) => r.as_of_date },
              { header: "when", value: (r) => r.when },
              { header: "selection", value: (r) => selectionText(r) },
              { header: "status", value: (r) => r.status },
              { header: "accounts", value: (r) => r.totals.accounts },
              { header: "created", value: (r) => r.totals.created },
              { header: "skipped", value: (r) => r.totals.skipped },
              { header: "failed", value: (r) => r.totals.failed },
            ]);
          else if (ctx.out.json) ctx.out.printJson(list);
          else
            ctx.out.line(
              renderTable(
                list,
                [
                  { header: "Run", value: (r) => r.run_uuid },
                  { header: "As of", value: (r) => r.as_of_date },
                  { header: "When", value: (r) => r.when },
                  { header: "Selection", value: (r) => selectionText(r) },
                  { header: "Status", value: (r) => r.status },
                  { header: "Accounts", value: (r) => r.totals.accounts, align: "right" },
                  {
                    header: "Outcomes",
                    value: (r) =>
                      `${r.totals.created} created, ${r.totals.skipped} skipped, ${r.totals.failed} failed`,
                  },
                ],
                `Rebalance runs (${list.length})`,
              ),
            );
        }),
      ),
    "lotwise rebalance runs list",
    "lotwise rebalance runs list --as-of 2025-12-31 --json",
    "lotwise rebalance runs list --out runs.csv",
  );
  examples(
    runs
      .command("show")
      .description("One rebalance run with the outcome of every account.")
      .argument("<run_uuid>", "the run")
      .action(
        action(hooks, async (ctx, runUuid: string) => {
          const backend = await ctx.backend();
          const run = await backend.getRebalanceRun(checkedUuid(runUuid, "run_uuid"));
          if (ctx.out.json) ctx.out.printJson(run);
          else ctx.out.line(renderRun(run));
        }),
      ),
    "lotwise rebalance runs show 5f0c2e1a-...",
  );
}
