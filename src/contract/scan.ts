/**
 * @module contract/scan
 * Extension shapes of the morning scan (`POST .../scans/`, `lotwise scan`): which accounts of an organization to
 * look at (the account selection, shared with batch operations over many accounts), and one row per account with
 * its drift status, harvestable losses, cash to invest and NAV — or why that part could not be computed
 * (docs/scan.md). Money in USD as decimal strings rounded to cents, fractions rounded to 10 places.
 */
import { Decimal } from "decimal.js";
import * as z from "zod";
import { BACKTEST_STATUSES, refineJobOutcome } from "./backtest.js";
import { formatDecimal } from "./decimal.js";
import { DRIFT_STATUSES } from "./drift.js";
import { harvestQuerySchema } from "./harvest.js";
import {
  bool,
  boundedInt,
  isoDate,
  isoDatetime,
  jsonValueSchema,
  NUMERIC_STRING_WIDTH,
  numericString,
  uuid,
} from "./primitives.js";
import { describe, named } from "./registry.js";

/** Most accounts one scan request computes (one page); larger selections are read page by page (`next_offset`). */
export const SCAN_PAGE_MAX = 2000;
/**
 * Default of the `scanJobThreshold` service limit: `POST .../scan_jobs/` scans a selection of at most this many
 * accounts at once (the job is answered finished) and runs a larger one as a job on the job runner's workers.
 */
export const SCAN_JOB_THRESHOLD = SCAN_PAGE_MAX;
/** Most account uuids a selection may list. */
export const SELECTION_ACCOUNTS_MAX = 100_000;

/** The fields of an account selection (also part of the scan request). */
const selectionShape = {
  accounts: describe(
    z.array(uuid()).min(1).max(SELECTION_ACCOUNTS_MAX),
    "only these accounts of the organization (every uuid must exist)",
  ).optional(),
  client_uuid: describe(uuid(), "only the accounts of this client").optional(),
  portfolio_config_uuid: describe(
    uuid(),
    "only the accounts whose portfolio configuration is this one",
  ).optional(),
  status: describe(
    z.array(z.enum(DRIFT_STATUSES)).min(1),
    "only the accounts whose drift status is one of these (accounts whose status could not be computed are always kept)",
  ).optional(),
};

/**
 * Which accounts of an organization an operation over many accounts looks at: all of them, narrowed by every field
 * given (a list of uuids, a client, a portfolio configuration; the drift status filter applies once the status is
 * known).
 */
export const accountSelectionSchema = named(
  z.strictObject(selectionShape),
  "AccountSelection",
  "Accounts of the organization to look at; every field narrows the selection, none means all accounts.",
);
/** An account selection. */
export type AccountSelection = z.infer<typeof accountSelectionSchema>;

/** Body of the scan extension. */
export const scanRequestSchema = named(
  z.strictObject({
    ...selectionShape,
    ...harvestQuerySchema.shape,
    offset: describe(
      boundedInt(0, 1_000_000_000),
      "skip this many selected accounts (oldest first); the `next_offset` of the previous page",
    ).optional(),
    limit: describe(
      boundedInt(1, SCAN_PAGE_MAX),
      `scan at most this many selected accounts (default and maximum ${SCAN_PAGE_MAX})`,
    ).optional(),
  }),
  "ScanRequest",
  "Body of the scan extension: the account selection, the date and harvest thresholds, and the page.",
);
/** Body of the scan extension. */
export type ScanRequest = z.infer<typeof scanRequestSchema>;

/** Parts of a scan row that can fail on their own. */
export const SCAN_PARTS = ["account", "drift", "harvest", "cash", "rules"] as const;

const usd = (what: string) => describe(numericString().nullable(), what);

/** Why one part of a row could not be computed. */
export const scanErrorSchema = named(
  z.strictObject({
    part: describe(
      z.enum(SCAN_PARTS),
      "account: the holdings or configuration could not be read (every figure is null); drift, harvest, cash: that part only",
    ),
    code: describe(z.string(), "the error code the single-account operation answers (e.g. no_target)"),
    message: z.string(),
  }),
  "ScanError",
  "A part of a scan row that could not be computed, and why.",
);

/** One account of a scan. New columns go at the end (they are optional for readers of older scans). */
export const scanRowSchema = named(
  z.strictObject({
    account_uuid: uuid(),
    client_uuid: uuid(),
    account_name: z.string().nullable(),
    portfolio_config_uuid: uuid().nullable(),
    nav_usd: usd("holdings at the closes of the date plus cash, USD (as the drift's nav_usd)"),
    cash_usd: usd("the account's cash, USD"),
    cash_to_invest_usd: usd(
      "cash above the configuration's cash buffers (cash_buffer_usd_amount, else cash_buffer_usd x NAV, plus the CAD buffer), rounded down to the cent; 0 when the cash is below them",
    ),
    drift_status: describe(z.enum(DRIFT_STATUSES).nullable(), "the drift status; null when drift failed"),
    total_drift: usd("half the sum of |current - target| (the drift's total_drift)"),
    max_asset_drift: usd("largest |drift| of one asset"),
    target: describe(z.string().nullable(), "where the target weights come from"),
    harvestable_lots: describe(z.int().min(0).nullable(), "lots that can be harvested now"),
    harvestable_loss_usd: usd("their loss, USD (the harvest scan's totals)"),
    estimated_tax_value_usd: usd("the tax value of that loss at the configuration's rates, USD"),
    errors: describe(z.array(scanErrorSchema), "the parts that could not be computed (empty when none)"),
    rules_fired: describe(
      z
        .array(
          z.strictObject({
            rule: describe(z.string(), "path of the rule, e.g. evaluation_rules[0].rules[1]"),
            value: jsonValueSchema,
            priority: z.number().int(),
          }),
        )
        .nullable(),
      "the evaluation rules that fire on the date, highest priority first (docs/evaluation-rules.md); null when they could not be evaluated",
    ).optional(),
  }),
  "ScanRow",
  "One account of a scan: drift, harvest, cash and NAV, with the errors of the parts that failed.",
);
/** One account of a scan. */
export type ScanRow = z.infer<typeof scanRowSchema>;

/** Totals over the rows of a scan. */
export const scanSummarySchema = named(
  z.strictObject({
    accounts: describe(z.int().min(0), "rows of the scan"),
    ok: z.int().min(0),
    warning: z.int().min(0),
    breach: z.int().min(0),
    with_errors: describe(z.int().min(0), "rows with at least one error"),
    with_harvest: describe(z.int().min(0), "rows with at least one harvestable lot"),
    with_cash_to_invest: describe(z.int().min(0), "rows with cash to invest above 0"),
    nav_usd: usd("sum over the rows"),
    harvestable_loss_usd: usd("sum over the rows"),
    estimated_tax_value_usd: usd("sum over the rows"),
    cash_to_invest_usd: usd("sum over the rows"),
  }),
  "ScanSummary",
  "Counts by drift status and sums of the rows of a scan.",
);
/** Totals over the rows of a scan. */
export type ScanSummary = z.infer<typeof scanSummarySchema>;

/** A scan (one page of it over HTTP). */
export const scanResultSchema = named(
  z.strictObject({
    as_of_date: isoDate(),
    selected_accounts: describe(
      z.int().min(0),
      "accounts of the selection before the status filter (every page)",
    ),
    offset: describe(z.int().min(0), "selected accounts skipped before this page"),
    next_offset: describe(
      z.int().min(0).nullable(),
      "offset of the next page; null when this page reaches the end of the selection",
    ),
    rows: describe(
      z.array(scanRowSchema),
      "one per account scanned and kept by the status filter, oldest first",
    ),
    summary: scanSummarySchema,
  }),
  "ScanResult",
  "One row per account of the selection (one page of it), with the totals of these rows.",
);
/** A scan (one page of it over HTTP). */
export type ScanResult = z.infer<typeof scanResultSchema>;

const usdString = (v: Decimal, field: string) =>
  formatDecimal(
    v.toDecimalPlaces(2),
    NUMERIC_STRING_WIDTH.integerDigits,
    NUMERIC_STRING_WIDTH.fractionDigits,
    field,
  );

/**
 * Counts by drift status and sums of scan rows (the summary of a scan, or of the pages of one put together).
 * @example summarizeScan(rows).breach // accounts in breach
 */
export function summarizeScan(rows: readonly ScanRow[]): ScanSummary {
  const zero = new Decimal(0);
  const sums = { nav: zero, loss: zero, tax: zero, cash: zero };
  const counts = { ok: 0, warning: 0, breach: 0 };
  let withErrors = 0;
  let withHarvest = 0;
  let withCash = 0;
  for (const r of rows) {
    if (r.drift_status !== null) counts[r.drift_status]++;
    if (r.errors.length > 0) withErrors++;
    if ((r.harvestable_lots ?? 0) > 0) withHarvest++;
    if (r.cash_to_invest_usd !== null && new Decimal(r.cash_to_invest_usd).gt(0)) withCash++;
    if (r.nav_usd !== null) sums.nav = sums.nav.plus(r.nav_usd);
    if (r.harvestable_loss_usd !== null) sums.loss = sums.loss.plus(r.harvestable_loss_usd);
    if (r.estimated_tax_value_usd !== null) sums.tax = sums.tax.plus(r.estimated_tax_value_usd);
    if (r.cash_to_invest_usd !== null) sums.cash = sums.cash.plus(r.cash_to_invest_usd);
  }
  return {
    accounts: rows.length,
    ...counts,
    with_errors: withErrors,
    with_harvest: withHarvest,
    with_cash_to_invest: withCash,
    nav_usd: usdString(sums.nav, "summary.nav_usd"),
    harvestable_loss_usd: usdString(sums.loss, "summary.harvestable_loss_usd"),
    estimated_tax_value_usd: usdString(sums.tax, "summary.estimated_tax_value_usd"),
    cash_to_invest_usd: usdString(sums.cash, "summary.cash_to_invest_usd"),
  };
}

/** Body of the scan-job extension: the scan request without the page (a job scans the whole selection). */
export const scanJobRequestSchema = named(
  z.strictObject({
    ...selectionShape,
    ...harvestQuerySchema.shape,
    async: describe(
      bool(),
      "run as a job on the workers even when the selection is at most the server's scan job threshold",
    ).optional(),
  }),
  "ScanJobRequest",
  "Body of the scan-job extension: the account selection, the date and harvest thresholds, and async.",
);
/** Body of the scan-job extension. */
export type ScanJobRequest = z.infer<typeof scanJobRequestSchema>;

/** Progress of a scan job: accounts scanned of the accounts selected. */
export const scanJobProgressSchema = named(
  z.strictObject({
    total_accounts: describe(z.int().min(0), "accounts the job scans (the selection)"),
    completed_accounts: describe(z.int().min(0), "accounts scanned so far"),
    last_progress_at: describe(isoDatetime().nullable(), "when progress was last recorded (the heartbeat)"),
  }),
  "ScanJobProgress",
  "Accounts scanned so far of the accounts a scan job scans.",
);
/** Progress of a scan job. */
export type ScanJobProgress = z.infer<typeof scanJobProgressSchema>;

/** A scan job (extension, docs/scan.md). */
export const scanJobSchema = named(
  z
    .strictObject({
      id: uuid(),
      status: z.enum(BACKTEST_STATUSES),
      params: scanJobRequestSchema,
      as_of_date: describe(isoDate(), "the date of the scan, fixed when the job was created"),
      progress: scanJobProgressSchema,
      result: describe(scanResultSchema.nullable(), "the whole scan (SUCCESS only)"),
      error_message: z.string().nullable(),
      created_at: isoDatetime(),
      started_at: isoDatetime().nullable(),
      finished_at: isoDatetime().nullable(),
    })
    .superRefine(refineJobOutcome),
  "ScanJob",
  "A scan of many accounts run as a job: status, progress in accounts and, when done, the scan or an error message.",
);
/** A scan job. */
export type ScanJob = z.infer<typeof scanJobSchema>;
