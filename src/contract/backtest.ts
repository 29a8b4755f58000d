/**
 * @module contract/backtest
 * Account backtest (endpoint 2 and the job-read extensions): request parameters, the job with its status,
 * progress and result, and the case-result shape (designed here; the spec leaves it out). Backtest figures
 * are analytics, so they are JSON numbers: money in USD, returns and turnover as fractions.
 */
import * as z from "zod";
import { bool, expectedMessage, finiteNumber, isoDate, isoDatetime, uuid } from "./primitives.js";
import { describe, named } from "./registry.js";

/** Backtest job states. */
export const BACKTEST_STATUSES = ["PENDING", "RUNNING", "SUCCESS", "FAILURE"] as const;
/** Rebalance periods an account backtest accepts. */
export const BACKTEST_REBALANCE_PERIODS = ["MONTHLY"] as const;
/** Factors of the long-short tax-loss-harvesting case. */
export const LS_TLH_FACTORS = ["quality", "value", "growth"] as const;
/**
 * What a net capital loss of a year is worth (extension field `loss_usage`): `account_only` (the default: the
 * account alone, $3,000 a year against ordinary income, the rest carried forward) or `outside_gains` (the
 * investor's other gains absorb it in the year it is realized, valued at the marginal rates and reinvested).
 */
export const BACKTEST_LOSS_USAGES = ["account_only", "outside_gains"] as const;
/** Default of `loss_usage`: the spec's fields alone give the account-only figures they always gave. */
export const DEFAULT_LOSS_USAGE = "account_only" as const;
/** Default of `liquidate_at_end`: the after-tax figures charge the tax of selling everything at end_date. */
export const DEFAULT_LIQUIDATE_AT_END = true;

/** Inclusive ranges of the numeric request parameters (the spec's Limits table). */
export const BACKTEST_LIMITS = {
  tax_gamma: { min: 0, max: 100 },
  tax_loss_threshold_bps: { min: 0, max: 5000 },
  starting_nav: { min: 100, max: 1_000_000_000 },
  basis_reset_max_gain: { min: 0, max: 1 },
} as const;

function rangedNumber(field: keyof typeof BACKTEST_LIMITS, description: string) {
  const { min, max } = BACKTEST_LIMITS[field];
  return describe(
    finiteNumber()
      .min(min, { error: (issue) => `${String(issue.input)} is below the minimum ${min}` })
      .max(max, { error: (issue) => `${String(issue.input)} is above the maximum ${max}` }),
    `${description} (${min} to ${max} inclusive)`,
  );
}

/**
 * Backtest request parameters. Every field is optional (the service resolves defaults and reports them in
 * `resolved_params`); when both dates are given `start_date` must be before `end_date`.
 */
export const backtestRequestSchema = named(
  z
    .strictObject(
      {
        start_date: describe(isoDate(), "first day of the backtest").optional(),
        end_date: describe(isoDate(), "last day of the backtest").optional(),
        rebalance_period: describe(z.enum(BACKTEST_REBALANCE_PERIODS), "rebalancing cadence").optional(),
        tax_gamma: rangedNumber("tax_gamma", "weight of tax cost in the objective").optional(),
        tax_loss_threshold_bps: rangedNumber(
          "tax_loss_threshold_bps",
          "harvest a lot when its loss exceeds this many basis points of its cost",
        ).optional(),
        starting_nav: rangedNumber("starting_nav", "starting portfolio value, USD").optional(),
        ls_tlh_factor: describe(
          z.enum(LS_TLH_FACTORS),
          "adds a long-short TLH case tilted to this factor",
        ).optional(),
        loss_usage: describe(
          z.enum(BACKTEST_LOSS_USAGES),
          "extension: account_only (default; $3,000 a year against ordinary income, the rest carried forward) or outside_gains (losses offset the investor's other gains in the year realized, valued at the marginal rates and reinvested)",
        ).optional(),
        liquidate_at_end: describe(
          bool(),
          "extension: charge the tax of selling every position at end_date in the after-tax figures (default true)",
        ).optional(),
        basis_reset_max_gain: rangedNumber(
          "basis_reset_max_gain",
          "extension: at each rebalance tax_managed sells and buys back every long-term lot whose gain is at most this fraction of its value (and at least 5%), so that its later losses are short-term (0 = never; default 0.1 with loss_usage outside_gains, liquidate_at_end true and a short-term rate above the long-term rate, else 0)",
        ).optional(),
      },
      { error: expectedMessage("an object") },
    )
    .refine((p) => p.start_date === undefined || p.end_date === undefined || p.start_date < p.end_date, {
      error: "end_date must be after start_date",
      path: ["end_date"],
    }),
  "BacktestRequest",
  "Parameters of an account backtest (body of endpoint 2); all optional, defaults resolved by the service.",
);
/** Backtest request parameters. */
export type BacktestRequest = z.infer<typeof backtestRequestSchema>;

/** Request fields that are JSON numbers (they arrive as strings in form-urlencoded and multipart bodies). */
export const BACKTEST_NUMERIC_FIELDS = [
  "tax_gamma",
  "tax_loss_threshold_bps",
  "starting_nav",
  "basis_reset_max_gain",
] as const;
/** Request fields that are JSON booleans (`true` / `false` in form bodies). */
export const BACKTEST_BOOLEAN_FIELDS = ["liquidate_at_end"] as const;

/**
 * Turns the string fields of a form-urlencoded or multipart backtest body into the JSON shape: a numeric
 * field written as a plain decimal ("37.5", "-1", "1000000") becomes a number; anything else is left as is,
 * so that {@link backtestRequestSchema} reports it with its field name. Other fields pass through unchanged.
 * @example backtestRequestFromForm({ tax_gamma: "1.5", start_date: "2020-01-02" })
 *   // { tax_gamma: 1.5, start_date: "2020-01-02" }
 */
export function backtestRequestFromForm(fields: Readonly<Record<string, string>>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...fields };
  for (const name of BACKTEST_NUMERIC_FIELDS) {
    const value = fields[name];
    if (value !== undefined && /^-?\d+(\.\d+)?$/.test(value)) out[name] = Number(value);
  }
  for (const name of BACKTEST_BOOLEAN_FIELDS) {
    const value = fields[name];
    if (value === "true" || value === "false") out[name] = value === "true";
  }
  return out;
}

/** Parameters after defaults were applied. */
export const backtestResolvedParamsSchema = named(
  z.strictObject({
    start_date: isoDate(),
    end_date: isoDate(),
    rebalance_period: z.enum(BACKTEST_REBALANCE_PERIODS),
    starting_nav: finiteNumber(),
    tax_gamma: finiteNumber(),
    tax_loss_threshold_bps: finiteNumber(),
    // Optional so that jobs stored before these extensions still read; the service always fills them.
    loss_usage: z.enum(BACKTEST_LOSS_USAGES).optional(),
    liquidate_at_end: z.boolean().optional(),
    basis_reset_max_gain: finiteNumber().optional(),
  }),
  "BacktestResolvedParams",
  "Backtest parameters after the service applied its defaults.",
);
/** Parameters after defaults were applied. */
export type BacktestResolvedParams = z.infer<typeof backtestResolvedParamsSchema>;

/** Progress of a job: periods planned and done, last period done and when progress was last recorded. */
export const backtestProgressSchema = named(
  z
    .strictObject({
      planned_periods: z.int().min(0),
      completed_periods: z.int().min(0),
      last_completed_period: describe(isoDate(), "rebalance date of the last completed period").nullable(),
      last_progress_at: describe(isoDatetime(), "when progress was last recorded").nullable(),
    })
    .refine((p) => p.completed_periods <= p.planned_periods, {
      error: "completed_periods exceeds planned_periods",
      path: ["completed_periods"],
    }),
  "BacktestProgress",
  "Progress record of a backtest job.",
);
/** Progress of a backtest job. */
export type BacktestProgress = z.infer<typeof backtestProgressSchema>;

/** Case names the service uses in `result` (the long-short case only when ls_tlh_factor was requested). */
export const BACKTEST_CASE_NAMES = [
  "tax_managed",
  "harvest_baseline",
  "pre_tax",
  "benchmark",
  "long_short_tlh",
] as const;

const nonNegative = () => finiteNumber().min(0);

/** One point of a value series. */
export const backtestValuePointSchema = named(
  z.strictObject({ date: isoDate(), value: describe(finiteNumber(), "portfolio value, USD") }),
  "BacktestValuePoint",
  "Portfolio value on one date.",
);
/** One point of a value series. */
export type BacktestValuePoint = z.infer<typeof backtestValuePointSchema>;

const annual = (what: string) => describe(finiteNumber(), `${what}; annualized decimal fraction a year`);

/**
 * The after-tax active return of a case against the reference case (pre_tax), split into parts that add up
 * exactly: after = pre_tax_active + tax_effect; pre_tax_active = selection + costs; tax_effect = harvest_value +
 * deferral_character + liquidation_recapture (docs/backtests.md section 7 gives each formula).
 */
export const backtestAttributionSchema = named(
  z.strictObject({
    reference_case: describe(z.string(), "case the active returns are measured against (pre_tax)"),
    benchmark_case: describe(z.string(), "case of pre_tax_active_return_vs_benchmark").nullable(),
    pre_tax_active_return: annual("annualized pre-tax return minus the reference case's"),
    pre_tax_active_return_vs_benchmark: annual(
      "annualized pre-tax return minus the benchmark case's",
    ).nullable(),
    selection: annual("pre-tax active return before trading costs (pre_tax_active_return - costs)"),
    costs: annual("trading costs against the reference (negative = paid more)"),
    tax_effect: annual("after_tax_active_return - pre_tax_active_return"),
    harvest_value: annual("tax saved by the harvested losses in the years they were realized"),
    deferral_character: annual(
      "the rest of the in-window taxes: gains deferred or realized, short- vs long-term, compounding",
    ),
    liquidation_recapture: annual(
      "tax of the final liquidation against the reference's (0 when liquidate_at_end is false)",
    ),
    after_tax_active_return: annual(
      "annualized after-tax return minus the reference case's (tax_alpha_bps / 10^4)",
    ),
    tax_effect_usd: describe(
      finiteNumber(),
      "taxes saved against the reference over the window, liquidation included, USD (undiscounted)",
    ),
  }),
  "BacktestAttribution",
  "Split of a case's after-tax active return (extension).",
);
/** Split of a case's after-tax active return. */
export type BacktestAttribution = z.infer<typeof backtestAttributionSchema>;

/** The tax assumptions every after-tax figure of a case rests on. */
export const backtestAssumptionsSchema = named(
  z.strictObject({
    short_term_rate: describe(finiteNumber(), "marginal short-term rate, fraction"),
    long_term_rate: describe(finiteNumber(), "marginal long-term rate, fraction"),
    loss_usage: z.enum(BACKTEST_LOSS_USAGES),
    liquidate_at_end: z.boolean(),
  }),
  "BacktestAssumptions",
  "Tax assumptions of the after-tax figures (extension).",
);
/** The tax assumptions of a case's after-tax figures. */
export type BacktestAssumptions = z.infer<typeof backtestAssumptionsSchema>;

/** One tax year of a case (the last is the window's final, partial year, before any liquidation). */
export const backtestTaxYearSchema = named(
  z.strictObject({
    year: z.int(),
    realized_short_term_gains: describe(nonNegative(), "USD"),
    realized_short_term_losses: describe(nonNegative(), "USD, positive magnitude"),
    realized_long_term_gains: describe(nonNegative(), "USD"),
    realized_long_term_losses: describe(nonNegative(), "USD, positive magnitude"),
    harvested_losses: describe(nonNegative(), "USD"),
    taxes_paid: describe(finiteNumber(), "tax of the year, USD (negative = saved)"),
    harvest_tax_saving: describe(finiteNumber(), "tax the year's harvested losses saved that year, USD"),
    tax_saved_vs_reference: describe(
      finiteNumber(),
      "the reference case's tax of the year minus this case's, USD",
    ).nullable(),
  }),
  "BacktestTaxYear",
  "One tax year of a backtest case (extension).",
);
/** One tax year of a case. */
export type BacktestTaxYear = z.infer<typeof backtestTaxYearSchema>;

/**
 * Result of one backtest case (designed by lotwise). Money in USD; returns, turnover and tracking error as
 * fractions; realized losses as non-negative magnitudes. `tax_alpha_bps` compares with the not-tax-managed
 * case; it and `tracking_error` are null where they have no meaning (reference cases).
 */
export const backtestCaseResultSchema = named(
  z.strictObject({
    description: describe(z.string(), "what the case simulates"),
    tax_managed: describe(
      z.boolean(),
      "whether the case manages taxes (harvesting, lot selection, tax_gamma)",
    ),
    start_date: isoDate(),
    end_date: isoDate(),
    periods: describe(z.int().min(0), "rebalance periods simulated"),
    starting_value: describe(finiteNumber(), "value at start_date, USD"),
    ending_value: describe(finiteNumber(), "pre-liquidation value at end_date, USD"),
    values: describe(
      z.array(backtestValuePointSchema),
      "value at start_date and at each period end, ascending dates",
    ),
    pre_tax_return: describe(finiteNumber(), "cumulative return before taxes, fraction"),
    pre_tax_return_annualized: describe(finiteNumber(), "annualized return before taxes, fraction"),
    after_tax_return: describe(
      finiteNumber(),
      "after_tax_liquidation_value / starting_value - 1 (taxes paid along the way and on liquidation)",
    ),
    after_tax_return_annualized: describe(finiteNumber(), "annualized after-tax return, fraction"),
    after_tax_liquidation_value: describe(
      finiteNumber(),
      "value after selling everything at end_date and paying the tax, USD",
    ),
    realized_short_term_gains: describe(nonNegative(), "USD"),
    realized_short_term_losses: describe(nonNegative(), "USD, as a positive magnitude"),
    realized_long_term_gains: describe(nonNegative(), "USD"),
    realized_long_term_losses: describe(nonNegative(), "USD, as a positive magnitude"),
    harvested_losses: describe(nonNegative(), "losses realized by tax-loss harvesting sales, USD"),
    taxes_paid: describe(
      finiteNumber(),
      "tax on net realized gains over the period (negative = tax saved), USD",
    ),
    tax_alpha_bps: describe(
      finiteNumber(),
      "annualized after-tax return minus that of pre_tax, bps",
    ).nullable(),
    turnover: describe(nonNegative(), "annualized one-way turnover, fraction of average value"),
    tracking_error: describe(
      nonNegative(),
      "annualized tracking error against the benchmark, fraction",
    ).nullable(),
    costs: z.strictObject({
      transaction: describe(nonNegative(), "commissions, spread and market impact, USD"),
      fx: describe(nonNegative(), "currency conversion costs, USD"),
    }),
    // Extensions (issue 13). Optional so that results stored before them still read; new runs always fill them.
    benchmark_name: describe(z.string(), "the target index the benchmark case holds").optional(),
    return_basis: describe(
      z.enum(["total_return", "price_return"]),
      "price_return when the market data carry no dividends in the window: every return is a price return",
    ).optional(),
    sharpe_ratio: describe(
      finiteNumber(),
      "annualized Sharpe ratio of the pre-tax period returns against the configuration's risk_free_rate_pct (default 4)",
    )
      .nullable()
      .optional(),
    liquidation_tax: describe(
      finiteNumber(),
      "tax the final liquidation adds to the final year's own, USD (0 when liquidate_at_end is false)",
    ).optional(),
    assumptions: backtestAssumptionsSchema.optional(),
    attribution: backtestAttributionSchema.optional(),
    tax_years: describe(z.array(backtestTaxYearSchema), "year by year, ascending").optional(),
  }),
  "BacktestCaseResult",
  "Result of one backtest case.",
);
/** Result of one backtest case. */
export type BacktestCaseResult = z.infer<typeof backtestCaseResultSchema>;

/** A backtest job. `result` is set on SUCCESS, `error_message` on FAILURE. */
/** The rule of every job of the job table (backtests, scans): SUCCESS carries a result, FAILURE an error_message. */
export function refineJobOutcome(
  job: { status: (typeof BACKTEST_STATUSES)[number]; result: unknown; error_message: string | null },
  ctx: z.RefinementCtx,
): void {
  if (job.status === "SUCCESS" && job.result === null)
    ctx.addIssue({ code: "custom", path: ["result"], message: "a SUCCESS job carries a result" });
  if (job.status === "FAILURE" && job.error_message === null)
    ctx.addIssue({
      code: "custom",
      path: ["error_message"],
      message: "a FAILURE job carries an error_message",
    });
}

export const backtestJobSchema = named(
  z
    .strictObject({
      id: uuid(),
      account_uuid: describe(uuid(), "extension: the account backtested").optional(),
      status: z.enum(BACKTEST_STATUSES),
      params: backtestRequestSchema,
      resolved_params: backtestResolvedParamsSchema,
      progress: backtestProgressSchema,
      result: describe(
        z.record(z.string().min(1), backtestCaseResultSchema),
        "case name -> case result (tax_managed, harvest_baseline, pre_tax, benchmark, long_short_tlh)",
      ).nullable(),
      error_message: z.string().nullable(),
      created_at: isoDatetime(),
      started_at: isoDatetime().nullable(),
      finished_at: isoDatetime().nullable(),
    })
    .superRefine(refineJobOutcome),
  "BacktestJob",
  "An account backtest job with status, progress and, when done, results or an error message.",
);
/** A backtest job. */
export type BacktestJob = z.infer<typeof backtestJobSchema>;

/** Response of the job-list extension. */
export const backtestJobListSchema = named(
  z.array(backtestJobSchema),
  "BacktestJobList",
  "Backtest jobs of an account.",
);
/** Response of the job-list extension. */
export type BacktestJobList = z.infer<typeof backtestJobListSchema>;
