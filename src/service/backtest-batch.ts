/**
 * @module service/backtest-batch
 * The gate and the result rows of a batch of account backtests (`lotwise backtest batch`, and any program that runs
 * backtests over many accounts): thresholds on a case's tracking error and tax alpha, one row per account with
 * the case's figures and attribution, totals, and the rows as CSV. Pure: the jobs are run by the caller.
 */
import type { BacktestCaseResult, BacktestJob } from "../contract/index.js";

/** The CI gate of a batch. */
export interface BatchThresholds {
  /** Largest acceptable annualized tracking error, as a fraction. */
  maxTrackingError?: number;
  /** Smallest acceptable tax alpha, in bps. */
  minTaxAlphaBps?: number;
}

/** Why a case breaks the thresholds (empty when it passes). */
export function thresholdBreaches(c: BacktestCaseResult, t: BatchThresholds): string[] {
  const out: string[] = [];
  if (t.maxTrackingError !== undefined) {
    if (c.tracking_error === null) out.push("tracking_error is not available for this case");
    else if (c.tracking_error > t.maxTrackingError)
      out.push(
        `tracking_error ${(c.tracking_error * 100).toFixed(2)}% > max ${(t.maxTrackingError * 100).toFixed(2)}%`,
      );
  }
  if (t.minTaxAlphaBps !== undefined) {
    if (c.tax_alpha_bps === null) out.push("tax_alpha_bps is not available for this case");
    else if (c.tax_alpha_bps < t.minTaxAlphaBps)
      out.push(`tax_alpha ${c.tax_alpha_bps.toFixed(1)} bps < min ${t.minTaxAlphaBps} bps`);
  }
  return out;
}

/** One account of a batch. */
export interface BatchRow {
  account_uuid: string;
  client_uuid: string | null;
  job_id: string | null;
  /** SUCCESS / FAILURE of the job, or REJECTED when the job could not be created. */
  status: "SUCCESS" | "FAILURE" | "REJECTED";
  error: string | null;
  /** Case the figures and thresholds are taken from. */
  case: string;
  start_date: string | null;
  end_date: string | null;
  periods: number | null;
  ending_value: number | null;
  pre_tax_return_annualized: number | null;
  after_tax_return_annualized: number | null;
  tax_alpha_bps: number | null;
  /** The attribution of the tax alpha (annualized fractions; docs/backtests.md section 7), never apart from it. */
  pre_tax_active_return: number | null;
  tax_effect: number | null;
  harvest_value: number | null;
  deferral_character: number | null;
  liquidation_recapture: number | null;
  costs: number | null;
  tax_effect_usd: number | null;
  /** The assumptions of the after-tax figures. */
  short_term_rate: number | null;
  long_term_rate: number | null;
  loss_usage: string | null;
  liquidate_at_end: boolean | null;
  /** tax_managed's basis-reset band of the job (`resolved_params`; null for jobs stored before the field). */
  basis_reset_max_gain: number | null;
  tracking_error: number | null;
  turnover: number | null;
  taxes_paid: number | null;
  harvested_losses: number | null;
  /** Threshold breaches (a missing case counts as one). */
  breaches: string[];
  /** Seconds from creation to the end of the job, as the store recorded them. */
  seconds: number | null;
}

/** The row of a finished job. */
export function batchRow(
  accountUuid: string,
  clientUuid: string | null,
  job: BacktestJob,
  caseName: string,
  thresholds: BatchThresholds,
): BatchRow {
  const c = job.status === "SUCCESS" ? job.result?.[caseName] : undefined;
  const missing = job.status === "SUCCESS" && !c;
  const seconds =
    job.finished_at !== null ? (Date.parse(job.finished_at) - Date.parse(job.created_at)) / 1000 : null;
  return {
    account_uuid: accountUuid,
    client_uuid: clientUuid,
    job_id: job.id,
    status: job.status === "SUCCESS" ? "SUCCESS" : "FAILURE",
    error: job.error_message,
    case: caseName,
    start_date: job.resolved_params.start_date,
    end_date: job.resolved_params.end_date,
    periods: c?.periods ?? null,
    ending_value: c?.ending_value ?? null,
    pre_tax_return_annualized: c?.pre_tax_return_annualized ?? null,
    after_tax_return_annualized: c?.after_tax_return_annualized ?? null,
    tax_alpha_bps: c?.tax_alpha_bps ?? null,
    pre_tax_active_return: c?.attribution?.pre_tax_active_return ?? null,
    tax_effect: c?.attribution?.tax_effect ?? null,
    harvest_value: c?.attribution?.harvest_value ?? null,
    deferral_character: c?.attribution?.deferral_character ?? null,
    liquidation_recapture: c?.attribution?.liquidation_recapture ?? null,
    costs: c?.attribution?.costs ?? null,
    tax_effect_usd: c?.attribution?.tax_effect_usd ?? null,
    short_term_rate: c?.assumptions?.short_term_rate ?? null,
    long_term_rate: c?.assumptions?.long_term_rate ?? null,
    loss_usage: c?.assumptions?.loss_usage ?? null,
    liquidate_at_end: c?.assumptions?.liquidate_at_end ?? null,
    basis_reset_max_gain: job.resolved_params.basis_reset_max_gain ?? null,
    tracking_error: c?.tracking_error ?? null,
    turnover: c?.turnover ?? null,
    taxes_paid: c?.taxes_paid ?? null,
    harvested_losses: c?.harvested_losses ?? null,
    breaches: missing
      ? [`the result has no case "${caseName}" (cases: ${Object.keys(job.result ?? {}).join(", ")})`]
      : c
        ? thresholdBreaches(c, thresholds)
        : [],
    seconds,
  };
}

/** The row of an account whose job could not be created. */
export function rejectedRow(
  accountUuid: string,
  clientUuid: string | null,
  caseName: string,
  error: string,
): BatchRow {
  return {
    account_uuid: accountUuid,
    client_uuid: clientUuid,
    job_id: null,
    status: "REJECTED",
    error,
    case: caseName,
    start_date: null,
    end_date: null,
    periods: null,
    ending_value: null,
    pre_tax_return_annualized: null,
    after_tax_return_annualized: null,
    tax_alpha_bps: null,
    pre_tax_active_return: null,
    tax_effect: null,
    harvest_value: null,
    deferral_character: null,
    liquidation_recapture: null,
    costs: null,
    tax_effect_usd: null,
    short_term_rate: null,
    long_term_rate: null,
    loss_usage: null,
    liquidate_at_end: null,
    basis_reset_max_gain: null,
    tracking_error: null,
    turnover: null,
    taxes_paid: null,
    harvested_losses: null,
    breaches: [],
    seconds: null,
  };
}

/** Totals of a batch. */
export interface BatchSummary {
  accounts: number;
  succeeded: number;
  failed: number;
  rejected: number;
  breached: number;
  /** True when every job succeeded within the thresholds (exit code 0). */
  passed: boolean;
  wall_seconds: number;
  accounts_per_minute: number;
  concurrency: number;
  thresholds: { max_tracking_error: number | null; min_tax_alpha_bps: number | null; case: string };
}

/** Totals over the rows. */
export function summarize(
  rows: readonly BatchRow[],
  wallSeconds: number,
  concurrency: number,
  thresholds: BatchThresholds,
  caseName: string,
): BatchSummary {
  const succeeded = rows.filter((r) => r.status === "SUCCESS").length;
  const failed = rows.filter((r) => r.status === "FAILURE").length;
  const rejected = rows.filter((r) => r.status === "REJECTED").length;
  const breached = rows.filter((r) => r.breaches.length > 0).length;
  return {
    accounts: rows.length,
    succeeded,
    failed,
    rejected,
    breached,
    passed: failed === 0 && rejected === 0 && breached === 0,
    wall_seconds: Number(wallSeconds.toFixed(3)),
    accounts_per_minute: wallSeconds > 0 ? Number(((rows.length / wallSeconds) * 60).toFixed(2)) : 0,
    concurrency,
    thresholds: {
      max_tracking_error: thresholds.maxTrackingError ?? null,
      min_tax_alpha_bps: thresholds.minTaxAlphaBps ?? null,
      case: caseName,
    },
  };
}

/** Columns of the CSV file, in order. */
export const CSV_COLUMNS: readonly (keyof BatchRow)[] = [
  "account_uuid",
  "client_uuid",
  "job_id",
  "status",
  "case",
  "start_date",
  "end_date",
  "periods",
  "ending_value",
  "pre_tax_return_annualized",
  "after_tax_return_annualized",
  "tax_alpha_bps",
  "pre_tax_active_return",
  "tax_effect",
  "harvest_value",
  "deferral_character",
  "liquidation_recapture",
  "costs",
  "tax_effect_usd",
  "short_term_rate",
  "long_term_rate",
  "loss_usage",
  "liquidate_at_end",
  "basis_reset_max_gain",
  "tracking_error",
  "turnover",
  "taxes_paid",
  "harvested_losses",
  "seconds",
  "breaches",
  "error",
];

function csvCell(v: unknown): string {
  const s = v === null || v === undefined ? "" : Array.isArray(v) ? v.join("; ") : String(v);
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** The rows as CSV (RFC 4180: quoted where needed, CRLF-free LF lines, header first). */
export function rowsToCsv(rows: readonly BatchRow[]): string {
  const lines = [CSV_COLUMNS.join(",")];
  for (const r of rows) lines.push(CSV_COLUMNS.map((c) => csvCell(r[c])).join(","));
  return `${lines.join("\n")}\n`;
}
