import { describe, expect, it } from "vitest";
import type * as z from "zod";
import { backtestRequestFromForm, backtestRequestSchema } from "./backtest.js";
import { PORTFOLIO_CONFIG_DECIMAL_FIELDS, type PortfolioConfigDecimalField } from "./config-fields.js";
import { CONTRACT_EXAMPLES } from "./examples.js";
import { portfolioConfigCreateSchema, portfolioConfigWriteSchema } from "./portfolio-config.js";
import {
  proposalOrderSchema,
  proposalRequestSchema,
  proposalResponseSchema,
  proposalTaxLotSchema,
} from "./proposal.js";
import { taxLotWriteSchema } from "./tax-lot.js";
import { themeBacktestQuerySchema } from "./theme.js";
import { toFieldIssues } from "./validation.js";

/** Issue paths of a parse, [] on success. */
function pathsOf(schema: z.ZodType, value: unknown): string[] {
  const result = schema.safeParse(value);
  return result.success ? [] : toFieldIssues(result.error).map((i) => i.path);
}

const digits = (n: number, d = "9") => d.repeat(n);

describe("Limits table of the spec", () => {
  const weight = (w: unknown) => ({ optimized_weights: [{ ticker: "AAPL:XNAS", weight: w }] });

  it("optimized weight is decimal(1,10)", () => {
    expect(pathsOf(proposalRequestSchema, weight("0.1234567891"))).toEqual([]);
    expect(pathsOf(proposalRequestSchema, weight("-9.9999999999"))).toEqual([]);
    expect(pathsOf(proposalRequestSchema, weight("1"))).toEqual([]);
    expect(pathsOf(proposalRequestSchema, weight("10"))).toEqual(["optimized_weights[0].weight"]);
    expect(pathsOf(proposalRequestSchema, weight("0.12345678901"))).toEqual(["optimized_weights[0].weight"]);
    expect(pathsOf(proposalRequestSchema, weight(0.5))).toEqual(["optimized_weights[0].weight"]);
  });

  it.each([
    ["tax_gamma", [0, 100, 37.5], [-0.001, 100.001]],
    ["tax_loss_threshold_bps", [0, 5000, 250], [-1, 5000.5]],
    ["starting_nav", [100, 1_000_000_000, 250_000.5], [99.99, 1_000_000_001]],
  ])("backtest %s accepts its inclusive range and nothing outside", (field, good, bad) => {
    for (const v of good) expect(pathsOf(backtestRequestSchema, { [field]: v })).toEqual([]);
    for (const v of bad) expect(pathsOf(backtestRequestSchema, { [field]: v })).toEqual([field]);
    for (const v of [Number.NaN, Number.POSITIVE_INFINITY, "50"])
      expect(pathsOf(backtestRequestSchema, { [field]: v })).toEqual([field]);
  });

  it("backtest form fields become numbers only when written as plain decimals", () => {
    const body = backtestRequestFromForm({
      tax_gamma: "1.5",
      starting_nav: "1e6",
      tax_loss_threshold_bps: "",
    });
    expect(body).toEqual({ tax_gamma: 1.5, starting_nav: "1e6", tax_loss_threshold_bps: "" });
    expect(pathsOf(backtestRequestSchema, body)).toEqual(["tax_loss_threshold_bps", "starting_nav"]);
    expect(
      pathsOf(
        backtestRequestSchema,
        backtestRequestFromForm({ starting_nav: "100", end_date: "2024-01-31" }),
      ),
    ).toEqual([]);
  });

  it("backtest enums: rebalance_period MONTHLY only, ls_tlh_factor quality/value/growth", () => {
    expect(pathsOf(backtestRequestSchema, { rebalance_period: "MONTHLY", ls_tlh_factor: "value" })).toEqual(
      [],
    );
    expect(pathsOf(backtestRequestSchema, { rebalance_period: "QUARTERLY" })).toEqual(["rebalance_period"]);
    expect(pathsOf(backtestRequestSchema, { ls_tlh_factor: "momentum" })).toEqual(["ls_tlh_factor"]);
  });

  it("backtest dates are calendar dates with start before end", () => {
    expect(pathsOf(backtestRequestSchema, { start_date: "2024-02-29", end_date: "2024-03-01" })).toEqual([]);
    expect(pathsOf(backtestRequestSchema, { start_date: "2023-02-29" })).toEqual(["start_date"]);
    expect(pathsOf(backtestRequestSchema, { end_date: "2024-13-01" })).toEqual(["end_date"]);
    expect(pathsOf(backtestRequestSchema, { start_date: "2024-03-01", end_date: "2024-03-01" })).toEqual([
      "end_date",
    ]);
    expect(pathsOf(backtestRequestSchema, { start_date: "2024-03-02", end_date: "2024-03-01" })).toEqual([
      "end_date",
    ]);
    expect(pathsOf(backtestRequestSchema, {})).toEqual([]);
  });

  it("configuration name is 1 to 255 characters", () => {
    expect(pathsOf(portfolioConfigWriteSchema, { name: "n".repeat(255) })).toEqual([]);
    expect(pathsOf(portfolioConfigWriteSchema, { name: "n".repeat(256) })).toEqual(["name"]);
    expect(pathsOf(portfolioConfigWriteSchema, { name: "" })).toEqual(["name"]);
    expect(pathsOf(portfolioConfigCreateSchema, {})).toEqual(["name"]);
  });

  it("risk_bound_max_iterations is an integer from 0 to 2147483647", () => {
    for (const v of [0, 10, 2_147_483_647])
      expect(pathsOf(portfolioConfigWriteSchema, { risk_bound_max_iterations: v })).toEqual([]);
    for (const v of [-1, 2_147_483_648, 1.5, "10"])
      expect(pathsOf(portfolioConfigWriteSchema, { risk_bound_max_iterations: v })).toEqual([
        "risk_bound_max_iterations",
      ]);
  });

  it("max_active_risk_pct is from 0 to 100", () => {
    for (const v of ["0", "100", "100.00", "2.5"])
      expect(pathsOf(portfolioConfigWriteSchema, { max_active_risk_pct: v })).toEqual([]);
    for (const v of ["100.01", "-0.01", "101"])
      expect(pathsOf(portfolioConfigWriteSchema, { max_active_risk_pct: v })).toEqual([
        "max_active_risk_pct",
      ]);
  });

  it.each(["cash_buffer_usd", "cash_buffer_cad"])("%s is from 0.0 to 1.0", (field) => {
    for (const v of ["0", "0.0", "0.05", "1", "1.0000"])
      expect(pathsOf(portfolioConfigWriteSchema, { [field]: v })).toEqual([]);
    for (const v of ["1.0001", "-0.0001", "2"])
      expect(pathsOf(portfolioConfigWriteSchema, { [field]: v })).toEqual([field]);
  });

  it("substitution_pairs inner lists hold at least 2 distinct assets, each listed once", () => {
    const pairs = (g: string[]) => ({ substitution_pairs: [["VOO:ARCX", "IVV:ARCX"], g] });
    expect(pathsOf(portfolioConfigWriteSchema, pairs(["GOOGL:XNAS", "GOOG:XNAS"]))).toEqual([]);
    expect(pathsOf(portfolioConfigWriteSchema, pairs(["GOOGL:XNAS", "GOOG:XNAS", "META:XNAS"]))).toEqual([]);
    // A repeated asset is refused at the index of the repeat, even when 2 distinct assets remain.
    expect(pathsOf(portfolioConfigWriteSchema, pairs(["GOOGL:XNAS", "GOOG:XNAS", "GOOGL:XNAS"]))).toEqual([
      "substitution_pairs[1][2]",
    ]);
    expect(pathsOf(portfolioConfigWriteSchema, pairs(["GOOGL:XNAS"]))).toEqual(["substitution_pairs[1]"]);
    expect(pathsOf(portfolioConfigWriteSchema, pairs(["GOOGL:XNAS", "GOOGL:XNAS"]))).toEqual([
      "substitution_pairs[1]",
      "substitution_pairs[1][1]",
    ]);
    expect(pathsOf(portfolioConfigWriteSchema, pairs([]))).toEqual(["substitution_pairs[1]"]);
    expect(pathsOf(portfolioConfigWriteSchema, pairs(["GOOGL", "GOOG:XNAS"]))).toEqual([
      "substitution_pairs[1][0]",
    ]);
  });

  it("theme backtest benchmark has minimum length 1; the window may be left to its defaults", () => {
    expect(pathsOf(themeBacktestQuerySchema, { benchmark: "SPY" })).toEqual([]);
    expect(pathsOf(themeBacktestQuerySchema, {})).toEqual([]);
    expect(pathsOf(themeBacktestQuerySchema, { benchmark: "" })).toEqual(["benchmark"]);
    expect(pathsOf(themeBacktestQuerySchema, { start_date: "2024-06-01", end_date: "2024-01-01" })).toEqual([
      "end_date",
    ]);
  });
});

describe("decimal widths of the configuration table", () => {
  const fields = Object.entries(PORTFOLIO_CONFIG_DECIMAL_FIELDS) as [
    PortfolioConfigDecimalField,
    (typeof PORTFOLIO_CONFIG_DECIMAL_FIELDS)[PortfolioConfigDecimalField],
  ][];

  it.each(fields)("%s accepts its widest value and rejects one digit more on either side", (field, spec) => {
    const { integerDigits: i, fractionDigits: f } = spec;
    const range = "range" in spec ? spec.range : undefined;
    // Widest value within the range: the bound itself for capped fields, else all nines.
    const widest = range && "max" in range ? range.max : `${digits(i)}.${digits(f)}`;
    expect(pathsOf(portfolioConfigWriteSchema, { [field]: widest })).toEqual([]);
    expect(pathsOf(portfolioConfigWriteSchema, { [field]: `1${digits(i, "0")}` })).toEqual([field]);
    expect(pathsOf(portfolioConfigWriteSchema, { [field]: `1.${digits(f, "0")}1` })).toEqual([field]);
    // The last allowed place is accepted (x.00...01 with f places; x = 0 under a cap, else 1).
    const base = range && "max" in range ? "0" : "1";
    expect(pathsOf(portfolioConfigWriteSchema, { [field]: `${base}.${digits(f - 1, "0")}1` })).toEqual([]);
    expect(pathsOf(portfolioConfigWriteSchema, { [field]: 1 })).toEqual([field]);
    expect(pathsOf(portfolioConfigWriteSchema, { [field]: null })).toEqual([]);
  });

  it.each(fields.filter(([, s]) => "range" in s && s.range.min === "0"))(
    "%s rejects a negative value",
    (field) => {
      expect(pathsOf(portfolioConfigWriteSchema, { [field]: "-0.01" })).toEqual([field]);
      expect(pathsOf(portfolioConfigWriteSchema, { [field]: "0" })).toEqual([]);
    },
  );

  it("risk_bound_increase_factor is at least 1", () => {
    expect(pathsOf(portfolioConfigWriteSchema, { risk_bound_increase_factor: "1" })).toEqual([]);
    expect(pathsOf(portfolioConfigWriteSchema, { risk_bound_increase_factor: "0.9999" })).toEqual([
      "risk_bound_increase_factor",
    ]);
  });
});

describe("decimal widths of the proposal shapes", () => {
  const response = CONTRACT_EXAMPLES.ProposalResponse;
  const order = response.orders[0];
  const lot = order.tax_lots![0]!;

  it("cash buffer amounts are decimal(12,8)", () => {
    const set = (v: string) => ({ ...response, cash_buffer_usd_amount: v });
    expect(pathsOf(proposalResponseSchema, set(`${digits(12)}.${digits(8)}`))).toEqual([]);
    expect(pathsOf(proposalResponseSchema, set(digits(13)))).toEqual(["cash_buffer_usd_amount"]);
    expect(pathsOf(proposalResponseSchema, set(`1.${digits(9)}`))).toEqual(["cash_buffer_usd_amount"]);
    expect(pathsOf(proposalResponseSchema, { ...response, cash_buffer_cad_amount: null })).toEqual([]);
  });

  it.each([
    "amount",
    "amount_usd",
    "existing_quantity",
    "existing_weight",
    "existing_market_value",
    "target_weight",
  ])("order %s is decimal(10,10)", (field) => {
    expect(pathsOf(proposalOrderSchema, { ...order, [field]: `-${digits(10)}.${digits(10)}` })).toEqual([]);
    expect(pathsOf(proposalOrderSchema, { ...order, [field]: digits(11) })).toEqual([field]);
    expect(pathsOf(proposalOrderSchema, { ...order, [field]: `0.${digits(11)}` })).toEqual([field]);
  });

  it.each([
    ["cost_basis", 30, 10],
    ["gain", 30, 10],
    ["quantity", 10, 10],
  ])("proposal tax lot %s is decimal(%i,%i)", (field, i, f) => {
    expect(pathsOf(proposalTaxLotSchema, { ...lot, [field]: `-${digits(i)}.${digits(f)}` })).toEqual([]);
    expect(pathsOf(proposalTaxLotSchema, { ...lot, [field]: digits(i + 1) })).toEqual([field]);
    expect(pathsOf(proposalTaxLotSchema, { ...lot, [field]: `0.${digits(f + 1)}` })).toEqual([field]);
  });

  it.each(["base_amount_usd", "fx_rate", "fx_fee_percentage", "fx_fee_amount_usd", "net_amount_usd"])(
    "FX breakdown %s is decimal(10,10)",
    (field) => {
      const fx = response.orders[1].fx_cost_breakdown;
      const withFx = (v: string) => ({ ...response.orders[1], fx_cost_breakdown: { ...fx, [field]: v } });
      expect(pathsOf(proposalOrderSchema, withFx(`${digits(10)}.${digits(10)}`))).toEqual([]);
      expect(pathsOf(proposalOrderSchema, withFx(digits(11)))).toEqual([`fx_cost_breakdown.${field}`]);
    },
  );
});

describe("tax lot write limits", () => {
  const lot = CONTRACT_EXAMPLES.TaxLotWrite;

  it("quantity is positive and cost basis non-negative (generic decimal(20,10))", () => {
    expect(pathsOf(taxLotWriteSchema, { ...lot, quantity: "0.0000000001" })).toEqual([]);
    expect(pathsOf(taxLotWriteSchema, { ...lot, quantity: "0" })).toEqual(["quantity"]);
    expect(pathsOf(taxLotWriteSchema, { ...lot, quantity: "-5" })).toEqual(["quantity"]);
    expect(pathsOf(taxLotWriteSchema, { ...lot, cost_basis: "0" })).toEqual([]);
    expect(pathsOf(taxLotWriteSchema, { ...lot, cost_basis: "-1" })).toEqual(["cost_basis"]);
    expect(pathsOf(taxLotWriteSchema, { ...lot, cost_basis: `${digits(21)}` })).toEqual(["cost_basis"]);
  });

  it("a USD lot has fx_rate 1; a CAD lot any positive rate", () => {
    const usd = { ...lot, cost_basis_currency: "USD" };
    expect(pathsOf(taxLotWriteSchema, { ...usd, fx_rate: "1.0" })).toEqual([]);
    expect(pathsOf(taxLotWriteSchema, { ...usd, fx_rate: "1.35" })).toEqual(["fx_rate"]);
    const { fx_rate: _f, cost_basis_currency: _c, ...noCurrency } = lot;
    expect(pathsOf(taxLotWriteSchema, { ...noCurrency, fx_rate: "1.35" })).toEqual(["fx_rate"]);
    expect(pathsOf(taxLotWriteSchema, { ...lot, fx_rate: "0" })).toEqual(["fx_rate"]);
  });

  it("cost_basis_unit is per_share or total", () => {
    expect(pathsOf(taxLotWriteSchema, { ...lot, cost_basis_unit: "total" })).toEqual([]);
    expect(pathsOf(taxLotWriteSchema, { ...lot, cost_basis_unit: "per_lot" })).toEqual(["cost_basis_unit"]);
  });
});

describe("backtest extension fields loss_usage and liquidate_at_end", () => {
  it("accepts both loss usages and booleans, from JSON and from form bodies", () => {
    expect(pathsOf(backtestRequestSchema, { loss_usage: "outside_gains", liquidate_at_end: false })).toEqual(
      [],
    );
    expect(pathsOf(backtestRequestSchema, { loss_usage: "account_only", liquidate_at_end: true })).toEqual(
      [],
    );
    const form = backtestRequestFromForm({ loss_usage: "outside_gains", liquidate_at_end: "false" });
    expect(backtestRequestSchema.parse(form)).toEqual({
      loss_usage: "outside_gains",
      liquidate_at_end: false,
    });
  });

  it("names the field of a value outside the choices", () => {
    expect(pathsOf(backtestRequestSchema, { loss_usage: "carryforward" })).toEqual(["loss_usage"]);
    expect(pathsOf(backtestRequestSchema, { liquidate_at_end: "yes" })).toEqual(["liquidate_at_end"]);
    expect(pathsOf(backtestRequestSchema, backtestRequestFromForm({ liquidate_at_end: "1" }))).toEqual([
      "liquidate_at_end",
    ]);
  });
});
