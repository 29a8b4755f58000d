/**
 * @module cli/commands/scan
 * `lotwise scan`: the morning scan of an organization's accounts (docs/scan.md) — drift status, harvestable losses,
 * cash to invest and NAV per account, a summary, CSV/JSON output and exit codes for CI gates. Works the same on a
 * local store and against a server (through the Backend).
 */
import type { Command } from "commander";
import {
  DRIFT_STATUSES,
  type DriftStatus,
  type ScanRequest,
  type ScanRow,
  type ScanSummary,
} from "../../contract/index.js";
import { paintStatus } from "../colour.js";
import type { CsvColumn } from "../csv-out.js";
import { usageError } from "../errors.js";
import { writeListOut } from "../list-out.js";
import { renderTable } from "../output.js";
import { actionWithCode, dateFlag, examples, fractionText, type ProgramHooks, usdFlag } from "../program.js";
import { createProgressBar } from "../progress-bar.js";
import { money } from "../render.js";

/**
 * The columns of `--out scan.csv`, in order: every field of a row, errors as `part: code` joined by "; ". A new
 * field of the row is one more entry here.
 */
export const SCAN_CSV_COLUMNS: readonly CsvColumn<ScanRow>[] = [
  { header: "account_uuid", value: (r) => r.account_uuid },
  { header: "client_uuid", value: (r) => r.client_uuid },
  { header: "account_name", value: (r) => r.account_name },
  { header: "portfolio_config_uuid", value: (r) => r.portfolio_config_uuid },
  { header: "nav_usd", value: (r) => r.nav_usd },
  { header: "cash_usd", value: (r) => r.cash_usd },
  { header: "cash_to_invest_usd", value: (r) => r.cash_to_invest_usd },
  { header: "drift_status", value: (r) => r.drift_status },
  { header: "total_drift", value: (r) => r.total_drift },
  { header: "max_asset_drift", value: (r) => r.max_asset_drift },
  { header: "target", value: (r) => r.target },
  { header: "harvestable_lots", value: (r) => r.harvestable_lots },
  { header: "harvestable_loss_usd", value: (r) => r.harvestable_loss_usd },
  { header: "estimated_tax_value_usd", value: (r) => r.estimated_tax_value_usd },
  { header: "errors", value: (r) => r.errors.map((e) => `${e.part}: ${e.code}`).join("; ") },
  {
    header: "rules_fired",
    value: (r) =>
      (r.rules_fired ?? [])
        .map((f) => (typeof f.value === "string" ? f.value : JSON.stringify(f.value)))
        .join("; "),
  },
];

/** `--fail-on` levels: a drift status at or above, or any row with an error. */
const FAIL_ON = ["warning", "breach", "error"] as const;
const RANK: Record<DriftStatus, number> = { ok: 0, warning: 1, breach: 2 };

/** True when a row trips the `--fail-on` gate. */
export function failsGate(row: ScanRow, level: (typeof FAIL_ON)[number]): boolean {
  if (level === "error") return row.errors.length > 0;
  return row.drift_status !== null && RANK[row.drift_status] >= RANK[level];
}

/** The stderr line of a tripped `--fail-on` gate: which level, how many accounts, the exit code. */
export function gateMessage(level: (typeof FAIL_ON)[number], tripped: number, scanned: number): string {
  const what = level === "error" ? "with an error" : `at ${level}${level === "warning" ? " or breach" : ""}`;
  return `lotwise: --fail-on ${level}: ${tripped} of ${scanned} account${scanned === 1 ? "" : "s"} ${what}; exit code 1.`;
}

const list = (text: string) =>
  text
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");

interface ScanOptions {
  client?: string;
  config?: string;
  accounts?: string;
  status?: string;
  asOf?: string;
  minLossUsd?: string;
  minLossFraction?: string;
  out?: string;
  top: string;
  failOn?: string;
  concurrency: string;
}

export function registerScan(program: Command, hooks: ProgramHooks): void {
  examples(
    program
      .command("scan")
      .description(
        "The morning scan: one row per account of the organization (or of a client, a configuration, a list) with its drift status and total drift, harvestable losses and their tax value, cash to invest (cash above the configuration's buffers) and NAV. An account that fails shows why in its row; the scan goes on. See docs/scan.md.",
      )
      .option("--client <uuid>", "only the accounts of this client")
      .option("--config <uuid>", "only the accounts with this portfolio configuration")
      .option("--accounts <uuids>", "only these accounts (comma-separated uuids)")
      .option(
        "--status <list>",
        "only the rows with these drift statuses: ok, warning, breach (comma-separated)",
      )
      .option("--as-of <date>", "date of the scan (default: the latest market date)", dateFlag)
      .option("--min-loss-usd <usd>", "harvest: smallest loss worth harvesting, USD (default 0)", usdFlag)
      .option(
        "--min-loss-fraction <f>",
        "harvest: smallest loss as a fraction of the lot's basis, 0 to 1 (default 0.05)",
        fractionText,
      )
      .option(
        "--out <file>",
        "write the rows to FILE: CSV when FILE ends in .csv, else JSON (what --json prints)",
      )
      .option(
        "--concurrency <n>",
        "worker threads of a local scan (each with its own store connection; same rows); remotely the server decides",
        "1",
      )
      .option("--top <n>", "rows shown in the table, worst first (--json and --out give all)", "30")
      .option(
        "--fail-on <level>",
        "exit 1 when any account is at least this: warning or breach (drift status), or error (a row with an error)",
      )
      .action(
        actionWithCode(hooks, async (ctx, opts: ScanOptions) => {
          if (opts.failOn !== undefined && !(FAIL_ON as readonly string[]).includes(opts.failOn))
            throw usageError(`--fail-on must be warning, breach or error, not "${opts.failOn}"`, "fail-on");
          const top = Number(opts.top);
          if (!Number.isInteger(top) || top < 0) throw usageError("--top must be a whole number", "top");
          const concurrency = Number(opts.concurrency);
          if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 64)
            throw usageError("--concurrency must be a whole number from 1 to 64", "concurrency");
          const statuses = opts.status === undefined ? undefined : list(opts.status);
          for (const s of statuses ?? [])
            if (!(DRIFT_STATUSES as readonly string[]).includes(s))
              throw usageError(
                `--status takes ok, warning or breach (comma-separated), not "${s}"`,
                "status",
              );
          const request: ScanRequest = {
            ...(opts.client !== undefined ? { client_uuid: opts.client } : {}),
            ...(opts.config !== undefined ? { portfolio_config_uuid: opts.config } : {}),
            ...(opts.accounts !== undefined ? { accounts: list(opts.accounts) } : {}),
            ...(statuses !== undefined ? { status: statuses as DriftStatus[] } : {}),
            ...(opts.asOf !== undefined ? { as_of_date: opts.asOf } : {}),
            ...(opts.minLossUsd !== undefined ? { min_loss_usd: opts.minLossUsd } : {}),
            ...(opts.minLossFraction !== undefined ? { min_loss_fraction: opts.minLossFraction } : {}),
          };
          const backend = await ctx.backend();
          const bar = createProgressBar("scan");
          let result: Awaited<ReturnType<typeof backend.scanAccounts>>;
          try {
            result = await backend.scan(request, {
              onProgress: (done, total) => bar.update(done, total, "accounts"),
              concurrency,
            });
          } finally {
            bar.done();
          }
          if (opts.out !== undefined)
            await writeListOut(ctx.out, opts.out, "scan rows", result.rows, SCAN_CSV_COLUMNS, result);
          else if (ctx.out.json) ctx.out.printJson(result);
          else ctx.out.line(renderScan(result.rows, result.summary, result.as_of_date, top));
          const level = opts.failOn as (typeof FAIL_ON)[number] | undefined;
          if (level === undefined) return 0;
          const tripped = result.rows.filter((r) => failsGate(r, level)).length;
          if (tripped === 0) return 0;
          // Say why the exit code is 1: with --out the only other output is the "Wrote ..." line.
          if (!ctx.out.json) ctx.out.note(gateMessage(level, tripped, result.rows.length));
          return 1;
        }),
      ),
    "lotwise scan                                   # every account of the organization",
    "lotwise scan --client 4071d28c-... --status warning,breach",
    "lotwise scan --out scan.csv --fail-on breach   # CSV for the desk; exit 1 when any account is in breach",
    "lotwise scan --as-of 2025-06-30 --json",
    "lotwise scan --concurrency 2                   # two worker threads on a large local store",
  );
}

/** Severity of a row for the table: no status (an error) first, then breach, warning, ok. */
const severity = (r: ScanRow) => (r.drift_status === null ? 3 : RANK[r.drift_status]);

/** The table of the worst `top` rows and the summary. */
export function renderScan(
  rows: readonly ScanRow[],
  summary: ScanSummary,
  asOf: string,
  top: number,
): string {
  const shown = [...rows]
    .sort((a, b) => severity(b) - severity(a) || Number(b.total_drift ?? 0) - Number(a.total_drift ?? 0))
    .slice(0, top);
  const table = renderTable(
    shown,
    [
      { header: "Account", value: (r) => r.account_name ?? r.account_uuid },
      { header: "Status", value: (r) => (r.drift_status === null ? "-" : paintStatus(r.drift_status)) },
      { header: "Drift", value: (r) => pct(r.total_drift), align: "right" },
      {
        header: "Harvestable loss",
        value: (r) => (r.harvestable_loss_usd === null ? "-" : money(r.harvestable_loss_usd)),
        align: "right",
      },
      {
        header: "Tax value",
        value: (r) => (r.estimated_tax_value_usd === null ? "-" : money(r.estimated_tax_value_usd)),
        align: "right",
      },
      {
        header: "Cash to invest",
        value: (r) => (r.cash_to_invest_usd === null ? "-" : money(r.cash_to_invest_usd)),
        align: "right",
      },
      { header: "NAV", value: (r) => (r.nav_usd === null ? "-" : money(r.nav_usd)), align: "right" },
      {
        header: "Rules fired",
        value: (r) =>
          r.rules_fired == null
            ? "-"
            : r.rules_fired
                .map((f) => (typeof f.value === "string" ? f.value : JSON.stringify(f.value)))
                .join(", "),
      },
      {
        header: "Errors",
        value: (r) => r.errors.map((e) => `${e.part}: ${e.code}`).join("; "),
      },
    ],
    `Scan of ${rows.length} account${rows.length === 1 ? "" : "s"} on ${asOf}${shown.length < rows.length ? ` (the ${shown.length} worst shown; --json or --out for all)` : ""}`,
  );
  const s = summary;
  return [
    table,
    "",
    `Status: ${s.breach} breach, ${s.warning} warning, ${s.ok} ok; ${s.with_errors} with errors.`,
    `Harvest: ${s.with_harvest} account${s.with_harvest === 1 ? "" : "s"}, loss ${money(s.harvestable_loss_usd)} USD, tax value ${money(s.estimated_tax_value_usd)} USD.`,
    `Cash to invest: ${money(s.cash_to_invest_usd)} USD in ${s.with_cash_to_invest} account${s.with_cash_to_invest === 1 ? "" : "s"}. NAV ${money(s.nav_usd)} USD.`,
  ].join("\n");
}

function pct(v: string | null): string {
  return v === null ? "-" : `${(Number(v) * 100).toFixed(2)}%`;
}
