import { describe, expect, it } from "vitest";
import { type BacktestJob, CONTRACT_EXAMPLES } from "../contract/index.js";
import { batchRow, rejectedRow, rowsToCsv, summarize, thresholdBreaches } from "../service/backtest-batch.js";
import { parseAccountList, parseFraction } from "./backtest-batch.js";
import { requestFromOptions } from "./commands/backtest.js";

const A = "11111111-1111-4111-8111-111111111111";
const B = "22222222-2222-4222-8222-222222222222";
const job = CONTRACT_EXAMPLES.BacktestJob as BacktestJob;

describe("account lists", () => {
  it("reads one uuid per line with comments, blank lines and duplicates", () => {
    expect(parseAccountList(`# accounts\n${A}  taxable\n\n${B},ira\n${A.toUpperCase()}\n`, "f")).toEqual([
      A,
      B,
    ]);
  });

  it("reads the account_uuid column of a CSV and JSON arrays", () => {
    expect(parseAccountList(`client,account_uuid\nx,${A}\ny,${B}\n`, "f")).toEqual([A, B]);
    expect(parseAccountList(JSON.stringify([A, { account_uuid: B }]), "f")).toEqual([A, B]);
  });

  it("names the lines that hold no uuid (a usage error)", () => {
    expect(() => parseAccountList(`${A}\nnot-an-account\n`, "accounts.txt")).toThrow(
      'accounts.txt: line 2 has no account uuid ("not-an-account").',
    );
    expect(() => parseAccountList("# nothing\n", "empty.txt")).toThrow("empty.txt lists no account.");
    try {
      parseAccountList("[1", "bad.json");
    } catch (err) {
      expect((err as { code: string }).code).toBe("usage");
    }
  });
});

describe("thresholds", () => {
  it("reads fractions and percents", () => {
    expect(parseFraction("0.02", "--max-tracking-error")).toBe(0.02);
    expect(parseFraction("2%", "--max-tracking-error")).toBeCloseTo(0.02, 15);
    expect(parseFraction(" 1.5 % ", "--max-tracking-error")).toBeCloseTo(0.015, 15);
    expect(() => parseFraction("two", "--max-tracking-error")).toThrow(
      '--max-tracking-error expects a fraction (0.02) or a percent (2%), got "two".',
    );
  });

  it("reports each breach with the figure and the limit", () => {
    const c = job.result!.tax_managed!; // tracking_error 0.0061, tax_alpha_bps 412.5
    expect(thresholdBreaches(c, { maxTrackingError: 0.01, minTaxAlphaBps: 400 })).toEqual([]);
    expect(thresholdBreaches(c, { maxTrackingError: 0.005, minTaxAlphaBps: 500 })).toEqual([
      "tracking_error 0.61% > max 0.50%",
      "tax_alpha 412.5 bps < min 500 bps",
    ]);
    expect(thresholdBreaches(job.result!.pre_tax!, { minTaxAlphaBps: 0 })).toEqual([
      "tax_alpha_bps is not available for this case",
    ]);
  });

  it("turns jobs into rows, a missing case into a breach, and sums them up", () => {
    const ok = batchRow(A, null, job, "tax_managed", { minTaxAlphaBps: 100 });
    expect(ok).toMatchObject({
      status: "SUCCESS",
      tax_alpha_bps: 412.5,
      tracking_error: 0.0061,
      breaches: [],
    });
    // created 10:00:00, finished 10:00:03.120
    expect(ok.seconds).toBeCloseTo(3.12, 9);
    const missing = batchRow(B, null, job, "long_short_tlh", {});
    expect(missing.breaches).toEqual([
      'the result has no case "long_short_tlh" (cases: tax_managed, pre_tax)',
    ]);
    const failed = batchRow(
      B,
      null,
      { ...job, status: "FAILURE", result: null, error_message: "boom" },
      "tax_managed",
      {
        minTaxAlphaBps: 100,
      },
    );
    expect(failed).toMatchObject({ status: "FAILURE", error: "boom", breaches: [], tax_alpha_bps: null });
    const rejected = rejectedRow(B, null, "tax_managed", "Account not found.");
    const s = summarize([ok, missing, failed, rejected], 30, 2, { minTaxAlphaBps: 100 }, "tax_managed");
    expect(s).toMatchObject({
      accounts: 4,
      succeeded: 2,
      failed: 1,
      rejected: 1,
      breached: 1,
      passed: false,
      accounts_per_minute: 8,
      thresholds: { max_tracking_error: null, min_tax_alpha_bps: 100, case: "tax_managed" },
    });
    expect(summarize([ok], 1, 1, {}, "tax_managed").passed).toBe(true);
  });

  it("writes CSV with a header and quotes cells that need it", () => {
    const row = rejectedRow(A, null, "tax_managed", 'bad "date", see docs');
    const csv = rowsToCsv([row]).split("\n");
    expect(csv[0]).toBe(
      "account_uuid,client_uuid,job_id,status,case,start_date,end_date,periods,ending_value,pre_tax_return_annualized,after_tax_return_annualized,tax_alpha_bps,pre_tax_active_return,tax_effect,harvest_value,deferral_character,liquidation_recapture,costs,tax_effect_usd,short_term_rate,long_term_rate,loss_usage,liquidate_at_end,basis_reset_max_gain,tracking_error,turnover,taxes_paid,harvested_losses,seconds,breaches,error",
    );
    expect(csv[1]).toBe(`${A},,,REJECTED,tax_managed,,,,,,,,,,,,,,,,,,,,,,,,,,"bad ""date"", see docs"`);
  });

  it("puts the tax effect, the pre-tax part and the assumptions next to the tax alpha", () => {
    const job = CONTRACT_EXAMPLES.BacktestJob as BacktestJob;
    const row = batchRow(A, null, job, "tax_managed", {});
    expect(row).toMatchObject({
      tax_alpha_bps: 412.5,
      pre_tax_active_return: 0,
      tax_effect: 0.04125,
      harvest_value: 0.0512,
      deferral_character: 0.0023,
      liquidation_recapture: -0.01225,
      costs: -0.0003,
      short_term_rate: 0.37,
      long_term_rate: 0.2,
      loss_usage: "account_only",
      liquidate_at_end: true,
      // The example job's resolved band (the reset is off with account_only).
      basis_reset_max_gain: 0,
    });
    const [header, line] = rowsToCsv([row]).split("\n");
    const cells = Object.fromEntries(header!.split(",").map((h, i) => [h, line!.split(",")[i]]));
    expect(cells).toMatchObject({
      tax_alpha_bps: "412.5",
      tax_effect: "0.04125",
      loss_usage: "account_only",
      basis_reset_max_gain: "0",
    });
  });

  it("reads loss_usage and liquidate_at_end from their options", () => {
    expect(requestFromOptions({ lossUsage: "outside_gains", liquidateAtEnd: "false" })).toEqual({
      loss_usage: "outside_gains",
      liquidate_at_end: false,
    });
    expect(() => requestFromOptions({ lossUsage: "carry" })).toThrow(/--loss-usage/);
  });

  it("reads the basis-reset band as a fraction and names its option when it is out of range", () => {
    expect(requestFromOptions({ basisResetMaxGain: "0.15" })).toEqual({ basis_reset_max_gain: 0.15 });
    expect(() => requestFromOptions({ basisResetMaxGain: "1.5" })).toThrow(
      /--basis-reset-max-gain: 1.5 is above the maximum 1/,
    );
    expect(() => requestFromOptions({ basisResetMaxGain: "ten" })).toThrow(/--basis-reset-max-gain/);
  });
});

describe("backtest parameters from options", () => {
  it("takes --start / --end as --start-date / --end-date, and refuses the two spellings when they disagree", () => {
    expect(requestFromOptions({ start: "2024-01-02", end: "2024-06-28" })).toMatchObject({
      start_date: "2024-01-02",
      end_date: "2024-06-28",
    });
    expect(requestFromOptions({ start: "2024-01-02", startDate: "2024-01-02" })).toMatchObject({
      start_date: "2024-01-02",
    });
    expect(() => requestFromOptions({ start: "2024-01-02", startDate: "2024-02-01" })).toThrow(
      /--start 2024-01-02 and --start-date 2024-02-01 disagree/,
    );
  });

  it("converts numbers and upper-cases the period", () => {
    expect(
      requestFromOptions({
        startDate: "2022-01-03",
        taxGamma: "2.5",
        startingNav: "1000000",
        rebalancePeriod: "monthly",
      }),
    ).toEqual({
      start_date: "2022-01-03",
      tax_gamma: 2.5,
      starting_nav: 1_000_000,
      rebalance_period: "MONTHLY",
    });
  });

  it("names the option of a bad value in a usage error", () => {
    try {
      requestFromOptions({ taxGamma: "lots", taxLossThresholdBps: "6000" });
      throw new Error("expected a failure");
    } catch (err) {
      const e = err as { code: string; issues: { path: string }[]; message: string };
      expect(e.code).toBe("usage");
      expect(e.issues.map((i) => i.path).sort()).toEqual(["--tax-gamma", "--tax-loss-threshold-bps"]);
      expect(e.message).toContain("--tax-loss-threshold-bps: 6000 is above the maximum 5000");
    }
  });
});
