/**
 * @module cli/backtest-render
 * Human renderings of backtest jobs: the status line, the job's parameters, the tax section first (the tax effect
 * and its parts against pre_tax, year by year, with the assumptions), then the summary table (one column per
 * case), the terminal chart of the value series, and the job list. Machine output is the job itself (`--json`).
 * The tax alpha is never shown alone: the tax effect and the pre-tax part stand next to it, labelled.
 */
import type { BacktestCaseResult, BacktestJob } from "../contract/index.js";
import { WASH_SALE_GAIN_MARGIN } from "../core/backtest/policies/tax-aware-tracking.js";
import { renderKeyValues, renderTable } from "./output.js";
import { money, percent } from "./render.js";
import { type ChartSeries, renderLineChart } from "./terminal-chart.js";

/** Case names in display order (the contract's, then any others alphabetically). */
export function caseOrder(result: Readonly<Record<string, unknown>>): string[] {
  const known = ["tax_managed", "harvest_baseline", "pre_tax", "long_short_tlh", "benchmark"];
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
      ...(job.account_uuid === undefined ? [] : [["Account", job.account_uuid] as [string, string]]),
      ["Status", statusLine(job)],
      ["Window", `${r.start_date} to ${r.end_date}, ${r.rebalance_period.toLowerCase()} rebalancing`],
      ["Starting NAV (USD)", money(r.starting_nav)],
      ["Tax gamma", r.tax_gamma],
      ["Harvest threshold", `${r.tax_loss_threshold_bps} bps`],
      ["Loss usage", lossUsageText(r.loss_usage ?? "account_only")],
      ["Liquidate at end", (r.liquidate_at_end ?? true) ? "yes" : "no"],
      ["Basis reset (tax_managed)", basisResetText(r.basis_reset_max_gain)],
      ["Long-short TLH factor", job.params.ls_tlh_factor ?? "none"],
      ["Created", job.created_at],
      ["Started", job.started_at ?? ""],
      ["Finished", job.finished_at ?? ""],
    ],
    "Backtest",
  );
}

const bps = (v: number | null) => (v === null ? "n/a" : `${v.toFixed(1)} bps`);
/** An annualized fraction: `0.0123` -> `1.23%/y`. */
const perYear = (v: number | null | undefined) =>
  v === null || v === undefined ? "n/a" : `${(v * 100).toFixed(2)}%/y`;

/** How a loss usage reads. */
export function lossUsageText(usage: "account_only" | "outside_gains"): string {
  return usage === "outside_gains"
    ? "outside gains (losses offset other gains in the year realized, at the marginal rates, reinvested)"
    : "account only ($3,000 a year against ordinary income, the rest carried forward)";
}

/** The tax_managed case's basis-reset band in words (jobs stored before the extension: "not recorded"). */
export function basisResetText(band: number | undefined): string {
  if (band === undefined) return "not recorded";
  if (band === 0) return "off";
  return `long-term lots with a gain of ${percent(WASH_SALE_GAIN_MARGIN, 0)} to ${percent(band, 1)} of value sold and bought back`;
}

/** The assumptions the after-tax figures rest on, in one sentence (empty for results stored without them). */
export function assumptionsText(result: Readonly<Record<string, BacktestCaseResult>>): string {
  const a = Object.values(result).find((c) => c.assumptions !== undefined)?.assumptions;
  if (a === undefined) return "";
  return `Assumptions: ${percent(a.short_term_rate, 1)} short-term / ${percent(a.long_term_rate, 1)} long-term rates; losses: ${lossUsageText(a.loss_usage)}; ${a.liquidate_at_end ? "every position sold and taxed at the end" : "no liquidation at the end (unrealized gains untaxed)"}.`;
}

/** `against SP500` (the index the benchmark case holds), `against benchmark` for older results. */
export function againstBenchmark(result: Readonly<Record<string, BacktestCaseResult>>): string {
  const name = Object.values(result).find((c) => c.benchmark_name !== undefined)?.benchmark_name;
  return `against ${name ?? "benchmark"}`;
}

/** True when the data carried no dividends: every return shown is a price return. */
export function priceReturnOnly(result: Readonly<Record<string, BacktestCaseResult>>): boolean {
  return Object.values(result).some((c) => c.return_basis === "price_return");
}

/** The cases the tax section shows: those that manage taxes and carry an attribution, in display order. */
export function taxCaseNames(result: Readonly<Record<string, BacktestCaseResult>>): string[] {
  return caseOrder(result).filter((n) => result[n]!.tax_managed && result[n]!.attribution !== undefined);
}

/**
 * Rows of the tax section (one column per tax-managed case): the tax effect and its parts, the pre-tax part and
 * the after-tax active return (the tax alpha) they add up to, the figures against the benchmark.
 */
export function taxRows(
  result: Readonly<Record<string, BacktestCaseResult>>,
): [string, (c: BacktestCaseResult) => string][] {
  const against = againstBenchmark(result);
  const a = (c: BacktestCaseResult) => c.attribution!;
  return [
    ["Tax effect vs pre_tax, annualized", (c) => perYear(a(c).tax_effect)],
    ["  harvest value", (c) => perYear(a(c).harvest_value)],
    ["  deferral and character", (c) => perYear(a(c).deferral_character)],
    ["  liquidation recapture", (c) => perYear(a(c).liquidation_recapture)],
    ["Tax effect vs pre_tax, USD (taxes saved)", (c) => money(a(c).tax_effect_usd)],
    ["Pre-tax active return vs pre_tax", (c) => perYear(a(c).pre_tax_active_return)],
    ["  selection", (c) => perYear(a(c).selection)],
    ["  trading costs", (c) => perYear(a(c).costs)],
    [
      "= After-tax active return vs pre_tax (tax alpha)",
      (c) => `${perYear(a(c).after_tax_active_return)} (${bps(c.tax_alpha_bps)})`,
    ],
    [`Pre-tax active return ${against}`, (c) => perYear(a(c).pre_tax_active_return_vs_benchmark)],
    [`Tracking error ${against}`, (c) => (c.tracking_error === null ? "n/a" : percent(c.tracking_error))],
    ["Harvested losses (USD)", (c) => money(c.harvested_losses)],
  ];
}

/** One row of a case's year table. */
export interface TaxYearRow {
  year: string;
  stGains: string;
  stLosses: string;
  ltGains: string;
  ltLosses: string;
  harvested: string;
  taxes: string;
  saved: string;
}

/**
 * A case's years, then the liquidation (when charged) and the total. With the reference case (`reference`, pre_tax),
 * the liquidation row shows what the liquidation saved against it, so that the "Saved vs pre_tax" column adds up
 * to its total (the attribution's tax_effect_usd).
 */
export function taxYearRows(c: BacktestCaseResult, reference?: BacktestCaseResult): TaxYearRow[] {
  const years = c.tax_years ?? [];
  const rows: TaxYearRow[] = years.map((y) => ({
    year: String(y.year),
    stGains: money(y.realized_short_term_gains),
    stLosses: money(y.realized_short_term_losses),
    ltGains: money(y.realized_long_term_gains),
    ltLosses: money(y.realized_long_term_losses),
    harvested: money(y.harvested_losses),
    taxes: money(y.taxes_paid),
    saved: y.tax_saved_vs_reference === null ? "n/a" : money(y.tax_saved_vs_reference),
  }));
  const sum = (f: (y: (typeof years)[number]) => number) => years.reduce((s, y) => s + f(y), 0);
  const liquidation = c.assumptions?.liquidate_at_end === false ? 0 : (c.liquidation_tax ?? 0);
  if (c.assumptions?.liquidate_at_end !== false && c.liquidation_tax !== undefined)
    rows.push({
      year: "liquidation",
      stGains: "",
      stLosses: "",
      ltGains: "",
      ltLosses: "",
      harvested: "",
      taxes: money(liquidation),
      saved:
        reference?.liquidation_tax === undefined || c.attribution === undefined
          ? ""
          : money(reference.liquidation_tax - liquidation),
    });
  rows.push({
    year: "total",
    stGains: money(sum((y) => y.realized_short_term_gains)),
    stLosses: money(sum((y) => y.realized_short_term_losses)),
    ltGains: money(sum((y) => y.realized_long_term_gains)),
    ltLosses: money(sum((y) => y.realized_long_term_losses)),
    harvested: money(sum((y) => y.harvested_losses)),
    taxes: money(sum((y) => y.taxes_paid) + liquidation),
    saved: c.attribution === undefined ? "" : money(c.attribution.tax_effect_usd),
  });
  return rows;
}

/** The case `name`'s attribution reference (pre_tax) in `result`, if it is there. */
export function referenceOf(
  result: Readonly<Record<string, BacktestCaseResult>>,
  name: string,
): BacktestCaseResult | undefined {
  const ref = result[name]?.attribution?.reference_case;
  return ref === undefined ? undefined : result[ref];
}

/** Headers of the year table, in {@link TaxYearRow} order. */
export const TAX_YEAR_HEADERS: readonly [keyof TaxYearRow, string][] = [
  ["year", "Year"],
  ["stGains", "ST gains"],
  ["stLosses", "ST losses"],
  ["ltGains", "LT gains"],
  ["ltLosses", "LT losses"],
  ["harvested", "Harvested"],
  ["taxes", "Taxes (- saved)"],
  ["saved", "Saved vs pre_tax"],
];

/** The tax section of `backtest show`: parts of the tax effect by case, each case's years, the assumptions. */
export function renderTaxSection(result: Readonly<Record<string, BacktestCaseResult>>): string {
  const names = taxCaseNames(result);
  if (names.length === 0) return "";
  const rows = taxRows(result);
  const parts = [
    renderTable(
      rows,
      [
        { header: "", value: ([label]) => label },
        ...names.map((n) => ({
          header: n,
          value: ([, f]: (typeof rows)[number]) => f(result[n]!),
          align: "right" as const,
        })),
      ],
      "Tax effect (annualized, in percent a year; parts add up to the after-tax active return)",
    ),
  ];
  for (const n of names)
    parts.push(
      renderTable(
        taxYearRows(result[n]!, referenceOf(result, n)),
        TAX_YEAR_HEADERS.map(([key, header]) => ({
          header,
          value: (r: TaxYearRow) => r[key],
          ...(key === "year" ? {} : { align: "right" as const }),
        })),
        `${n} by year (USD)`,
      ),
    );
  parts.push(assumptionsText(result));
  if (priceReturnOnly(result))
    parts.push("Price return: the market data carry no dividends, so every return here excludes them.");
  return parts.filter((p) => p !== "").join("\n\n");
}

/** Rows of the summary table: label and value of one case ("price return" in the labels for price-only data). */
export function summaryRows(
  priceOnly = false,
  against = "against benchmark",
): readonly [string, (c: BacktestCaseResult) => string][] {
  const kind = priceOnly ? " (price return)" : "";
  return [
    ["Periods", (c) => String(c.periods)],
    ["Starting value (USD)", (c) => money(c.starting_value)],
    ["Ending value (USD)", (c) => money(c.ending_value)],
    [`Pre-tax return${kind}`, (c) => percent(c.pre_tax_return)],
    [`Pre-tax return${kind}, annualized`, (c) => percent(c.pre_tax_return_annualized)],
    [`After-tax return${kind}`, (c) => percent(c.after_tax_return)],
    [`After-tax return${kind}, annualized`, (c) => percent(c.after_tax_return_annualized)],
    ["After-tax liquidation value (USD)", (c) => money(c.after_tax_liquidation_value)],
    ["Tax alpha vs pre_tax (after-tax active)", (c) => bps(c.tax_alpha_bps)],
    ["  of which tax effect", (c) => (c.tax_alpha_bps === null ? "n/a" : perYear(c.attribution?.tax_effect))],
    [
      "  of which pre-tax active",
      (c) => (c.tax_alpha_bps === null ? "n/a" : perYear(c.attribution?.pre_tax_active_return)),
    ],
    [`Tracking error ${against}`, (c) => (c.tracking_error === null ? "n/a" : percent(c.tracking_error))],
    [
      "Sharpe ratio (pre-tax, vs risk-free)",
      (c) => (c.sharpe_ratio === undefined || c.sharpe_ratio === null ? "n/a" : c.sharpe_ratio.toFixed(2)),
    ],
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
}

/** The summary rows for total-return data. */
export const SUMMARY_ROWS = summaryRows(false);

/** One column per case, one row per figure. */
export function renderCaseTable(result: Readonly<Record<string, BacktestCaseResult>>): string {
  const names = caseOrder(result);
  const rows = summaryRows(priceReturnOnly(result), againstBenchmark(result));
  return renderTable(
    rows,
    [
      { header: "", value: ([label]) => label },
      ...names.map((n) => ({
        header: n,
        value: ([, f]: (typeof rows)[number]) => f(result[n]!),
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
    const tax = renderTaxSection(job.result);
    if (tax !== "") parts.push(tax);
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
    {
      header: "of which tax effect",
      value: (j) => perYear(j.result?.tax_managed?.attribution?.tax_effect),
      align: "right",
    },
    {
      header: "of which pre-tax",
      value: (j) => perYear(j.result?.tax_managed?.attribution?.pre_tax_active_return),
      align: "right",
    },
    {
      header: "Losses",
      value: (j) => j.result?.tax_managed?.assumptions?.loss_usage ?? "",
    },
    // To the minute, UTC (the JSON and --out keep the full timestamp).
    { header: "Created (UTC)", value: (j) => j.created_at.slice(0, 16).replace("T", " ") },
    { header: "Error", value: (j) => (j.error_message ? j.error_message.slice(0, 60) : "") },
  ]);
}
