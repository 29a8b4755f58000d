/**
 * @module cli/backtest-render
 * Human renderings of backtest jobs: the status line, the job's parameters, the summary table (one column per
 * case), the terminal chart of the value series, and the job list. Machine output is the job itself (`--json`).
 */
import type { BacktestCaseResult, BacktestJob } from "../contract/index.js";
import { renderKeyValues, renderTable } from "./output.js";
import { money, percent } from "./render.js";
import { type ChartSeries, renderLineChart } from "./terminal-chart.js";

/** Case names in display order (the contract's, then any others alphabetically). */
export function caseOrder(result: Readonly<Record<string, unknown>>): string[] {
  const known = ["tax_managed", "pre_tax", "long_short_tlh", "benchmark"];
  return [
    ...known.filter((k) => k in result),
    ...Object.keys(result)
      .filter((k) => !known.includes(k))
      .sort(),
  ];
}

/** `RUNNING 5/36 periods (last 2020-05-29)`, `SUCCESS`, `FAILURE: message`. */
export function statusLine(job: BacktestJob): string {
  const p = job.progress;
  switch (job.status) {
    case "PENDING":
      return p.completed_periods > 0 ? "PENDING (re-queued after its worker stopped)" : "PENDING";
    case "RUNNING":
      return `RUNNING ${p.completed_periods}/${p.planned_periods || "?"} periods${p.last_completed_period ? ` (last ${p.last_completed_period})` : ""}`;
    case "SUCCESS":
      return `SUCCESS ${p.completed_periods} periods`;
    case "FAILURE":
      return `FAILURE: ${job.error_message ?? ""}`;
    default:
      return job.status;
  }
}

/** The job's identity, status, parameters and timestamps. */
export function renderJobHeader(job: BacktestJob): string {
  const r = job.resolved_params;
  return renderKeyValues(
    [
      ["Backtest job", job.id],
      ["Status", statusLine(job)],
      ["Window", `${r.start_date} to ${r.end_date}, ${r.rebalance_period.toLowerCase()} rebalancing`],
      ["Starting NAV (USD)", money(r.starting_nav)],
      ["Tax gamma", r.tax_gamma],
      ["Harvest threshold", `${r.tax_loss_threshold_bps} bps`],
      ["Long-short TLH factor", job.params.ls_tlh_factor ?? "none"],
      ["Created", job.created_at],
      ["Started", job.started_at ?? ""],
      ["Finished", job.finished_at ?? ""],
    ],
    "Backtest",
  );
}

const bps = (v: number | null) => (v === null ? "n/a" : `${v.toFixed(1)} bps`);

/** Rows of the summary table: label and value of one case. */
export const SUMMARY_ROWS: readonly [string, (c: BacktestCaseResult) => string][] = [
  ["Periods", (c) => String(c.periods)],
  ["Starting value (USD)", (c) => money(c.starting_value)],
  ["Ending value (USD)", (c) => money(c.ending_value)],
  ["Pre-tax return", (c) => percent(c.pre_tax_return)],
  ["Pre-tax return, annualized", (c) => percent(c.pre_tax_return_annualized)],
  ["After-tax return", (c) => percent(c.after_tax_return)],
  ["After-tax return, annualized", (c) => percent(c.after_tax_return_annualized)],
  ["After-tax liquidation value (USD)", (c) => money(c.after_tax_liquidation_value)],
  ["Tax alpha", (c) => bps(c.tax_alpha_bps)],
  ["Tracking error", (c) => (c.tracking_error === null ? "n/a" : percent(c.tracking_error))],
  ["Turnover (annualized)", (c) => percent(c.turnover)],
  ["Realized ST gains (USD)", (c) => money(c.realized_short_term_gains)],
  ["Realized ST losses (USD)", (c) => money(c.realized_short_term_losses)],
  ["Realized LT gains (USD)", (c) => money(c.realized_long_term_gains)],
  ["Realized LT losses (USD)", (c) => money(c.realized_long_term_losses)],
  ["Harvested losses (USD)", (c) => money(c.harvested_losses)],
  ["Taxes paid (USD)", (c) => money(c.taxes_paid)],
  ["Transaction costs (USD)", (c) => money(c.costs.transaction)],
  ["FX costs (USD)", (c) => money(c.costs.fx)],
];

/** One column per case, one row per figure. */
export function renderCaseTable(result: Readonly<Record<string, BacktestCaseResult>>): string {
  const names = caseOrder(result);
  return renderTable(
    SUMMARY_ROWS,
    [
      { header: "", value: ([label]) => label },
      ...names.map((n) => ({
        header: n,
        value: ([, f]: (typeof SUMMARY_ROWS)[number]) => f(result[n]!),
        align: "right" as const,
      })),
    ],
    "Summary by case",
  );
}

/** The value series of every case as chart series. */
export function valueSeries(result: Readonly<Record<string, BacktestCaseResult>>): ChartSeries[] {
  return caseOrder(result).map((n) => ({ name: n, points: result[n]!.values }));
}

/** Header, summary table and value chart of a job (header and status only while it is not SUCCESS). */
export function renderJob(job: BacktestJob, options: { width?: number; ascii?: boolean } = {}): string {
  const parts = [renderJobHeader(job)];
  if (job.status === "SUCCESS" && job.result) {
    parts.push(renderCaseTable(job.result));
    parts.push(
      `Value (USD)\n${renderLineChart(valueSeries(job.result), {
        width: options.width ?? 64,
        ...(options.ascii ? { ascii: true } : {}),
      })}`,
    );
  }
  return parts.join("\n\n");
}

/** The jobs of an account as a table. */
export function renderJobList(jobs: readonly BacktestJob[]): string {
  return renderTable(jobs, [
    { header: "Job", value: (j) => j.id },
    { header: "Status", value: (j) => j.status },
    {
      header: "Progress",
      value: (j) => `${j.progress.completed_periods}/${j.progress.planned_periods}`,
      align: "right",
    },
    { header: "Window", value: (j) => `${j.resolved_params.start_date}..${j.resolved_params.end_date}` },
    { header: "Tax alpha", value: (j) => bps(j.result?.tax_managed?.tax_alpha_bps ?? null), align: "right" },
    { header: "Created", value: (j) => j.created_at },
    { header: "Error", value: (j) => (j.error_message ? j.error_message.slice(0, 60) : "") },
  ]);
}
