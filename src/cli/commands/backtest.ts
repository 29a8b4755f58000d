/**
 * @module cli/commands/backtest
 * `lotwise backtest start|status|wait|show|list|cancel|batch` — endpoint 2 and the job extensions. Locally, jobs
 * run in this process's worker threads while the command shows progress (`--no-wait` leaves them PENDING for a
 * `lotwise serve` on the same store); remotely, jobs run on the server and the command polls them.
 *
 * Exit codes: 0 success (start/wait: the job ended SUCCESS; batch: every job succeeded within the thresholds),
 * 1 failure (a job ended FAILURE, could not be created, or breached a threshold; any other error), 2 usage.
 */
import { writeFile } from "node:fs/promises";
import { extname } from "node:path";
import { type Command, Option } from "commander";
import {
  type BacktestJob,
  type BacktestRequest,
  backtestRequestFromForm,
  backtestRequestSchema,
  parseOrThrow,
} from "../../contract/index.js";
import { ValidationError } from "../../core/errors.js";
import {
  type BatchRow,
  type BatchThresholds,
  batchRow,
  rejectedRow,
  rowsToCsv,
  summarize,
} from "../../service/backtest-batch.js";
import type { Backend } from "../../service/index.js";
import { defaultConcurrency, recoverOrphanJobs } from "../../service/jobs/index.js";
import { parseAccountList, parseFraction, parseNumber } from "../backtest-batch.js";
import {
  type FollowCallbacks,
  interruptible,
  type JobFollower,
  POLL_INTERVAL_MS,
  pollingFollower,
  runningFollower,
} from "../backtest-follow.js";
import { renderJob, renderJobList, statusLine } from "../backtest-render.js";
import type { CommandContext } from "../context.js";
import { EXIT_FAILURE, EXIT_OK, usageError } from "../errors.js";
import { OUT_OPTION_HELP, writeListOut } from "../list-out.js";
import { renderTable } from "../output.js";
import { actionWithCode, examples, type ProgramHooks } from "../program.js";
import { createProgressBar } from "../progress-bar.js";
import { percent } from "../render.js";
import { renderBacktestReportHtml } from "../report-html.js";

/** Options that set backtest parameters (start and batch), CLI name -> request field. */
const PARAMETER_OPTIONS = [
  [
    "--start-date <date>",
    "start_date",
    "first day (default: 3 years before the end date, or the first market date when the data are shorter)",
  ],
  ["--end-date <date>", "end_date", "last day (default: the latest market date)"],
  [
    "--tax-gamma <x>",
    "tax_gamma",
    "weight of tax cost in the objective, 0 to 100 (default: the configuration's tax_gamma, else 1)",
  ],
  [
    "--tax-loss-threshold-bps <bps>",
    "tax_loss_threshold_bps",
    "harvest losses beyond this, 0 to 5000 (default 500)",
  ],
  [
    "--starting-nav <usd>",
    "starting_nav",
    "starting value for an empty account, 100 to 1e9 (default 1,000,000; an account with holdings starts at its value)",
  ],
  ["--ls-tlh-factor <factor>", "ls_tlh_factor", "add a long-short TLH case: quality, value or growth"],
  ["--rebalance-period <period>", "rebalance_period", "MONTHLY (the only one)"],
  [
    "--loss-usage <usage>",
    "loss_usage",
    "account_only (default: $3,000 a year against income, the rest carried forward) or outside_gains (losses offset other gains in the year realized)",
  ],
  [
    "--liquidate-at-end <bool>",
    "liquidate_at_end",
    "true (default): after-tax figures charge the tax of selling everything at the end; false: unrealized gains untaxed",
  ],
  [
    "--basis-reset-max-gain <f>",
    "basis_reset_max_gain",
    "tax_managed sells and buys back long-term lots whose gain is 5% to this fraction of value, 0 to 1 (0 = never; default 0.1 with outside_gains and liquidation at the end, else 0)",
  ],
] as const;

type ParameterOptions = Partial<Record<string, string>>;

/** Short spellings of the window options, hidden (`themes backtest` takes them too): `--start`, `--end`. */
const SHORT_WINDOW_OPTIONS = [
  ["start", "startDate", "start_date"],
  ["end", "endDate", "end_date"],
] as const;

function addParameterOptions(cmd: Command): Command {
  for (const [flags, , help] of PARAMETER_OPTIONS) cmd.option(flags, help);
  for (const [short] of SHORT_WINDOW_OPTIONS) cmd.addOption(new Option(`--${short} <date>`).hideHelp());
  return cmd;
}

const camel = (flags: string) =>
  flags
    .split(" ")[0]!
    .slice(2)
    .replace(/-([a-z])/g, (_m, c: string) => c.toUpperCase());

/**
 * The request from the parameter options, validated by the contract (numbers converted as in form bodies).
 * @throws {ValidationError} `usage` naming the option
 */
export function requestFromOptions(opts: ParameterOptions): BacktestRequest {
  const fields: Record<string, string> = {};
  const optionOf = new Map<string, string>();
  for (const [flags, field] of PARAMETER_OPTIONS) {
    const v = opts[camel(flags)];
    if (v !== undefined) fields[field] = field === "rebalance_period" ? v.toUpperCase() : v;
    optionOf.set(field, flags.split(" ")[0]!);
  }
  for (const [short, long, field] of SHORT_WINDOW_OPTIONS) {
    const v = opts[short];
    if (v === undefined) continue;
    if (opts[long] !== undefined && opts[long] !== v)
      throw usageError(
        `--${short} ${v} and --${field.replace("_", "-")} ${opts[long]} disagree; give one.`,
        `--${short}`,
      );
    fields[field] = v;
  }
  try {
    return parseOrThrow(backtestRequestSchema, backtestRequestFromForm(fields), "backtest parameters");
  } catch (err) {
    if (!(err instanceof ValidationError)) throw err;
    const issues = err.issues.map((i) => ({ path: optionOf.get(i.path) ?? i.path, message: i.message }));
    throw new ValidationError(
      `Invalid backtest parameters: ${issues.map((i) => `${i.path}: ${i.message}`).join("; ")}`,
      issues,
      "usage",
    );
  }
}

/** A follower for this command: runs jobs here (local, unless `run` is false) or polls (remote). */
async function follower(
  ctx: CommandContext,
  backend: Backend,
  callbacks: FollowCallbacks,
  options: { run: boolean; concurrency: number },
): Promise<JobFollower> {
  // With a job queue (PostgreSQL + LOTWISE_QUEUE) the jobs are enqueued and `lotwise worker` processes run them.
  if (!ctx.remote && options.run && ctx.queueUrl() === undefined)
    return runningFollower(ctx, callbacks, options.concurrency);
  return pollingFollower(backend, callbacks, ctx.remote ? POLL_INTERVAL_MS.remote : POLL_INTERVAL_MS.local);
}

/**
 * Follows one job with a progress bar (interactive terminals only), cancelling it on Ctrl-C. Resolves undefined when
 * `timeoutMs` passes first (a job this process was running is then re-queued by the runner's stop).
 */
async function followOne(
  ctx: CommandContext,
  backend: Backend,
  jobId: string,
  run: boolean,
  timeoutMs?: number,
): Promise<BacktestJob | undefined> {
  const bar = createProgressBar(`backtest ${jobId.slice(0, 8)}`);
  const f = await follower(
    ctx,
    backend,
    {
      onProgress: (_id, p) =>
        bar.update(p.completed_periods, p.planned_periods, p.last_completed_period ?? ""),
    },
    { run, concurrency: 1 },
  );
  const release = interruptible(ctx, async () => {
    await backend.cancelBacktest(jobId).catch(() => undefined);
  });
  let timer: NodeJS.Timeout | undefined;
  try {
    const following = f.follow(jobId);
    if (timeoutMs === undefined) return await following;
    const expired = new Promise<undefined>((resolve) => {
      timer = setTimeout(() => resolve(undefined), timeoutMs);
    });
    const job = await Promise.race([following, expired]);
    // Once the follower is closed the abandoned follow() rejects; nobody needs that rejection.
    if (job === undefined) following.catch(() => undefined);
    return job;
  } finally {
    clearTimeout(timer);
    release();
    bar.done();
    await f.close();
  }
}

/**
 * The backend, after recovering jobs left RUNNING by a stopped process in local mode (as a runner's start would),
 * so that reads never show a dead job as RUNNING.
 */
async function backendFor(ctx: CommandContext): Promise<Backend> {
  const backend = await ctx.backend();
  // With a job queue, the queue's stalled-job check and the workers' reconcile sweep recover jobs instead.
  if (!ctx.remote && ctx.queueUrl() === undefined) {
    const r = await recoverOrphanJobs(await ctx.store());
    if (r.requeued.length + r.failed.length > 0)
      ctx.out.note(
        `lotwise: recovered backtest jobs left running by a stopped process: ${r.requeued.length} re-queued, ${r.failed.length} failed.`,
      );
  }
  return backend;
}

/** Prints a finished (or pending) job and returns the exit code it deserves. */
function report(ctx: CommandContext, job: BacktestJob): number {
  if (ctx.out.json) ctx.out.printJson(job);
  else ctx.out.line(renderJob(job));
  if (job.status === "FAILURE") {
    if (!ctx.out.json) ctx.out.note(`lotwise: backtest job ${job.id} failed: ${job.error_message}`);
    return EXIT_FAILURE;
  }
  return EXIT_OK;
}

export function registerBacktest(program: Command, hooks: ProgramHooks): void {
  const backtest = program
    .command("backtest")
    .description(
      "Account backtests (endpoint 2): monthly rebalancing over a window, with tax-managed, pre-tax, benchmark and long-short cases. Jobs are durable (see docs/backtest-jobs.md).",
    );

  examples(
    addParameterOptions(
      backtest
        .command("start")
        .description(
          "Start a backtest of an account and wait for it with a progress bar. Locally the job runs in this process (worker threads), or on a `lotwise worker` when the store is PostgreSQL with a job queue (--queue or LOTWISE_QUEUE); with --no-wait it stays PENDING for a `lotwise serve` on the same store (or `lotwise backtest wait ID`). Remotely it runs on the server. Exit code 1 when the job fails.",
        )
        .requiredOption("--account <uuid>", "the account to backtest"),
    )
      .option("--no-wait", "return the PENDING job at once")
      .action(
        actionWithCode(hooks, async (ctx, opts: ParameterOptions & { account: string; wait: boolean }) => {
          const request = requestFromOptions(opts);
          const backend = await ctx.backend();
          const found = await backend.findAccount(opts.account);
          const job = await backend.startBacktest(found.client_uuid, found.account.uuid, request);
          if (!opts.wait) {
            if (ctx.out.json) ctx.out.printJson(job);
            else
              ctx.out.line(
                `Backtest job ${job.id} is PENDING (${job.resolved_params.start_date} to ${job.resolved_params.end_date}).\n${ctx.remote ? "The server runs it." : ctx.queueUrl() !== undefined ? "It is on the job queue: a `lotwise worker` runs it; follow it with" : "A `lotwise serve` on this store runs it, or run it here with"} \`lotwise backtest wait ${job.id}\`.`,
              );
            return EXIT_OK;
          }
          return report(ctx, (await followOne(ctx, backend, job.id, true))!);
        }),
      ),
    "lotwise backtest start --account 5d0c... --start-date 2022-01-03 --tax-gamma 2",
    "lotwise backtest start --account 5d0c... --ls-tlh-factor value --no-wait --json",
  );

  examples(
    backtest
      .command("status <job>")
      .description("Status and progress of a job.")
      .action(
        actionWithCode(hooks, async (ctx, id: string) => {
          const job = await (await backendFor(ctx)).getBacktest(id);
          if (ctx.out.json) ctx.out.printJson(job);
          else ctx.out.line(`${job.id}  ${statusLine(job)}`);
          return EXIT_OK;
        }),
      ),
    "lotwise backtest status 9f8e7d6c-...",
  );

  examples(
    backtest
      .command("wait <job>")
      .description(
        "Wait for a job to end, with a progress bar on stderr when interactive; prints it like `show`. Locally a PENDING job is run here (unless --no-run: wait for a `lotwise serve` to run it). Exit code 1 when the job fails or the timeout passes.",
      )
      .option("--no-run", "local mode: never run the job here, only wait")
      .option("--timeout <seconds>", "give up after this long (exit code 1)")
      .action(
        actionWithCode(hooks, async (ctx, id: string, opts: { run: boolean; timeout?: string }) => {
          const timeout = opts.timeout === undefined ? undefined : parseNumber(opts.timeout, "--timeout");
          const backend = await ctx.backend();
          const job = await followOne(
            ctx,
            backend,
            id,
            opts.run,
            timeout === undefined ? undefined : timeout * 1000,
          );
          if (job) return report(ctx, job);
          const now = await backend.getBacktest(id);
          if (ctx.out.json) ctx.out.printJson(now);
          ctx.out.note(`lotwise: backtest job ${id} is still ${statusLine(now)} after ${timeout} s.`);
          return EXIT_FAILURE;
        }),
      ),
    "lotwise backtest wait 9f8e7d6c-...",
    "lotwise backtest wait 9f8e7d6c-... --timeout 600 --json > job.json",
  );

  examples(
    backtest
      .command("show <job>")
      .description(
        "The job with its summary table by case and a terminal chart of the value series; --html writes a self-contained report (inline SVG charts, no external resources).",
      )
      .option("--html <file>", "write an HTML report to this file")
      .option("--ascii", "chart with ASCII characters only")
      .action(
        actionWithCode(hooks, async (ctx, id: string, opts: { html?: string; ascii?: boolean }) => {
          const backend = await backendFor(ctx);
          const job = await backend.getBacktest(id);
          if (opts.html) {
            // Titled by the account's name (else its uuid); a lookup that fails leaves the job id as the title.
            let account: string | undefined;
            if (job.account_uuid !== undefined)
              account = await backend
                .findAccount(job.account_uuid)
                .then((f) => f.account.name ?? f.account.uuid)
                .catch(() => undefined);
            await writeFile(
              opts.html,
              renderBacktestReportHtml(job, {
                generatedAt: new Date().toISOString(),
                ...(account === undefined ? {} : { account }),
              }),
            );
            ctx.out.note(`lotwise: wrote ${opts.html}`);
          }
          if (ctx.out.json) ctx.out.printJson(job);
          else ctx.out.line(renderJob(job, opts.ascii ? { ascii: true } : {}));
          return EXIT_OK;
        }),
      ),
    "lotwise backtest show 9f8e7d6c-...",
    "lotwise backtest show 9f8e7d6c-... --html report.html",
  );

  examples(
    backtest
      .command("list")
      .description("The backtest jobs of an account, oldest first.")
      .requiredOption("--account <uuid>", "the account")
      .option("--out <file>", OUT_OPTION_HELP)
      .action(
        actionWithCode(hooks, async (ctx, opts: { account: string; out?: string }) => {
          const backend = await backendFor(ctx);
          const found = await backend.findAccount(opts.account);
          const jobs = await backend.listBacktests(found.client_uuid, found.account.uuid);
          if (opts.out)
            await writeListOut(ctx.out, opts.out, "backtest jobs", jobs, [
              { header: "job_id", value: (j) => j.id },
              { header: "account_uuid", value: () => found.account.uuid },
              { header: "status", value: (j) => j.status },
              { header: "completed_periods", value: (j) => j.progress.completed_periods },
              { header: "planned_periods", value: (j) => j.progress.planned_periods },
              { header: "start_date", value: (j) => j.resolved_params.start_date },
              { header: "end_date", value: (j) => j.resolved_params.end_date },
              { header: "tax_alpha_bps", value: (j) => j.result?.tax_managed?.tax_alpha_bps },
              // tax_alpha_bps is never alone (docs/backtests.md section 7): its parts and assumptions beside it.
              { header: "tax_effect", value: (j) => j.result?.tax_managed?.attribution?.tax_effect },
              {
                header: "pre_tax_active_return",
                value: (j) => j.result?.tax_managed?.attribution?.pre_tax_active_return,
              },
              { header: "loss_usage", value: (j) => j.result?.tax_managed?.assumptions?.loss_usage },
              {
                header: "liquidate_at_end",
                value: (j) => j.result?.tax_managed?.assumptions?.liquidate_at_end,
              },
              {
                header: "short_term_rate",
                value: (j) => j.result?.tax_managed?.assumptions?.short_term_rate,
              },
              { header: "long_term_rate", value: (j) => j.result?.tax_managed?.assumptions?.long_term_rate },
              { header: "created_at", value: (j) => j.created_at },
              { header: "finished_at", value: (j) => j.finished_at },
              { header: "error_message", value: (j) => j.error_message },
            ]);
          else if (ctx.out.json) ctx.out.printJson(jobs);
          else
            ctx.out.line(
              jobs.length
                ? renderJobList(jobs)
                : `No backtests yet: lotwise backtest start --account ${opts.account}`,
            );
          return EXIT_OK;
        }),
      ),
    "lotwise backtest list --account 5d0c...",
    "lotwise backtest list --account 5d0c... --out backtests.csv",
  );

  examples(
    backtest
      .command("cancel <job>")
      .description(
        "Cancel a job: a PENDING job fails at once, a RUNNING one stops at its next period. Exit code 1 when it already ended.",
      )
      .action(
        actionWithCode(hooks, async (ctx, id: string) => {
          const job = await (await ctx.backend()).cancelBacktest(id);
          if (ctx.out.json) ctx.out.printJson(job);
          else
            ctx.out.line(
              job.status === "RUNNING"
                ? `${job.id}  cancel requested; it stops at its next period.`
                : `${job.id}  ${statusLine(job)}`,
            );
          return EXIT_OK;
        }),
      ),
    "lotwise backtest cancel 9f8e7d6c-...",
  );

  examples(
    addParameterOptions(
      backtest
        .command("batch")
        .description(
          "Backtest many accounts with the same parameters and gate on the results (for CI). Exit code 0 when every job succeeded within the thresholds, 1 when a job failed or could not start or a threshold was breached, 2 for a usage error. Figures and thresholds use the tax_managed case unless --case says otherwise.",
        )
        .option(
          "--accounts <file>",
          "account uuids: one per line, a CSV with an account_uuid column, or JSON",
        )
        .option("--all", "every account of the organization")
        .option(
          "--concurrency <n>",
          "jobs at once (local: worker threads, default cores - 1; remote: jobs in flight, default 4)",
        )
        .option("--out <file>", "write the results: .json (summary + rows) or .csv (one row per account)")
        .option("--max-tracking-error <x>", "fail when tracking error exceeds this (0.02 or 2%)")
        .option("--min-tax-alpha <bps>", "fail when tax alpha is below this many bps")
        .option("--case <name>", "case the figures and thresholds come from", "tax_managed"),
    ).action(
      actionWithCode(
        hooks,
        async (
          ctx,
          opts: ParameterOptions & {
            accounts?: string;
            all?: boolean;
            concurrency?: string;
            out?: string;
            maxTrackingError?: string;
            minTaxAlpha?: string;
            case: string;
          },
        ) => runBatch(ctx, opts),
      ),
    ),
    "lotwise backtest batch --all --concurrency 2 --out results.csv --max-tracking-error 2% --min-tax-alpha 25",
    "lotwise backtest batch --accounts accounts.txt --start-date 2021-01-04 --out results.json --json",
  );
}

/** `lotwise backtest batch`. */
async function runBatch(
  ctx: CommandContext,
  opts: ParameterOptions & {
    accounts?: string;
    all?: boolean;
    concurrency?: string;
    out?: string;
    maxTrackingError?: string;
    minTaxAlpha?: string;
    case: string;
  },
): Promise<number> {
  if (Boolean(opts.accounts) === Boolean(opts.all))
    throw usageError("Give either --accounts FILE or --all.", "accounts");
  const outKind = opts.out === undefined ? undefined : extname(opts.out).toLowerCase();
  if (outKind !== undefined && outKind !== ".json" && outKind !== ".csv")
    throw usageError(`--out must end in .json or .csv, got ${opts.out}.`, "out");
  const concurrency =
    opts.concurrency === undefined
      ? ctx.remote
        ? 4
        : defaultConcurrency()
      : parseNumber(opts.concurrency, "--concurrency");
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 256)
    throw usageError(
      `--concurrency must be an integer from 1 to 256, got ${opts.concurrency}.`,
      "concurrency",
    );
  const thresholds: BatchThresholds = {};
  if (opts.maxTrackingError !== undefined)
    thresholds.maxTrackingError = parseFraction(opts.maxTrackingError, "--max-tracking-error");
  if (opts.minTaxAlpha !== undefined)
    thresholds.minTaxAlphaBps = parseNumber(opts.minTaxAlpha, "--min-tax-alpha");
  const request = requestFromOptions(opts);
  const backend = await ctx.backend();

  // The accounts, each with its client.
  let targets: { account: string; client: string | null; error?: string }[];
  if (opts.all) {
    targets = (await backend.listClients()).flatMap((c) =>
      c.accounts.map((a) => ({ account: a.uuid, client: c.uuid })),
    );
    if (targets.length === 0) throw usageError("The organization has no account to backtest.", "all");
  } else {
    const { readFile } = await import("node:fs/promises");
    const ids = parseAccountList(await readFile(opts.accounts!, "utf8"), opts.accounts!);
    targets = await Promise.all(
      ids.map(async (account) => {
        try {
          return { account, client: (await backend.findAccount(account)).client_uuid };
        } catch (err) {
          return { account, client: null, error: (err as Error).message };
        }
      }),
    );
  }

  const started = performance.now();
  const rows: BatchRow[] = new Array(targets.length);
  let finished = 0;
  const bar = createProgressBar("backtest batch");
  const redraw = () => bar.update(finished, targets.length, `accounts, ${inFlight.size} running`);
  const inFlight = new Map<string, number>();
  const f = await follower(ctx, backend, {}, { run: true, concurrency });
  let interrupted = false;
  const release = interruptible(ctx, async () => {
    interrupted = true;
    await Promise.all([...inFlight.keys()].map((id) => backend.cancelBacktest(id).catch(() => undefined)));
  });
  // Logs (CI) get one line per account; terminals get the bar.
  const interactive = Boolean(process.stderr.isTTY) && !ctx.out.json && process.env.CI !== "true";
  const record = (i: number, row: BatchRow) => {
    rows[i] = row;
    finished += 1;
    if (!interactive)
      ctx.out.note(
        `[${finished}/${targets.length}] ${row.account_uuid} ${row.status}${row.error ? `: ${row.error}` : ""}${row.breaches.length ? ` (${row.breaches.join("; ")})` : ""}`,
      );
    redraw();
  };
  try {
    let next = 0;
    const lane = async () => {
      for (;;) {
        const i = next++;
        if (i >= targets.length) return;
        const t = targets[i]!;
        if (interrupted || t.error !== undefined || t.client === null) {
          record(i, rejectedRow(t.account, t.client, opts.case, t.error ?? "Interrupted before it started."));
          continue;
        }
        let job: BacktestJob;
        try {
          job = await backend.startBacktest(t.client, t.account, request);
        } catch (err) {
          record(i, rejectedRow(t.account, t.client, opts.case, (err as Error).message));
          continue;
        }
        inFlight.set(job.id, i);
        redraw();
        const done = await f.follow(job.id);
        inFlight.delete(job.id);
        record(i, batchRow(t.account, t.client, done, opts.case, thresholds));
      }
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, targets.length) }, lane));
  } finally {
    release();
    bar.done();
    await f.close();
  }
  const summary = summarize(rows, (performance.now() - started) / 1000, concurrency, thresholds, opts.case);
  if (opts.out)
    await writeFile(
      opts.out,
      outKind === ".csv" ? rowsToCsv(rows) : `${JSON.stringify({ summary, results: rows }, null, 2)}\n`,
    );
  if (ctx.out.json) ctx.out.printJson({ summary, results: rows });
  else {
    ctx.out.line(
      renderTable(
        rows,
        [
          { header: "Account", value: (r) => r.account_uuid },
          { header: "Status", value: (r) => r.status },
          {
            header: "After-tax (ann.)",
            value: (r) => percent(r.after_tax_return_annualized),
            align: "right",
          },
          {
            header: "Tax alpha",
            value: (r) => (r.tax_alpha_bps === null ? "" : `${r.tax_alpha_bps.toFixed(1)} bps`),
            align: "right",
          },
          { header: "of which tax", value: (r) => percent(r.tax_effect), align: "right" },
          { header: "of which pre-tax", value: (r) => percent(r.pre_tax_active_return), align: "right" },
          { header: "Losses", value: (r) => r.loss_usage ?? "" },
          { header: "Tracking error", value: (r) => percent(r.tracking_error), align: "right" },
          { header: "Turnover", value: (r) => percent(r.turnover), align: "right" },
          {
            header: "Problems",
            value: (r) => [r.error ?? "", ...r.breaches].filter(Boolean).join("; ").slice(0, 80),
          },
        ],
        `Backtest batch (${opts.case}; tax alpha = after-tax active return vs pre_tax, a year)`,
      ),
    );
    ctx.out.line(
      `${summary.accounts} account${summary.accounts === 1 ? "" : "s"} in ${summary.wall_seconds.toFixed(1)} s (${summary.accounts_per_minute} per minute, concurrency ${concurrency}): ${summary.succeeded} succeeded, ${summary.failed} failed, ${summary.rejected} rejected, ${summary.breached} over thresholds. ${summary.passed ? "PASS" : "FAIL"}`,
    );
  }
  if (opts.out) ctx.out.note(`lotwise: wrote ${opts.out}`);
  return summary.passed ? EXIT_OK : EXIT_FAILURE;
}
