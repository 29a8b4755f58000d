/**
 * @module contract/optimization
 * Extension shapes of the optimizer service (`lotwise optimize` / `lotwise rebalance` and their routes
 * `POST .../accounts/{account}/optimize/` and `.../rebalance/`): the request (an optional as-of date) and the
 * optimizer's answer for an account. Money figures of the optimization are float estimates in USD (the stored
 * proposal built from the weights carries the exact decimal amounts); weights are fractions of the investable
 * value (NAV minus the cash buffers), as in proposals.
 */
import * as z from "zod";
import { decimalString } from "./decimal.js";
import { finiteNumber, isoDate, MAX_MONEY_AMOUNT, themeAssetId, uuid } from "./primitives.js";
import { proposalResponseSchema } from "./proposal.js";
import { describe, named } from "./registry.js";

/** Body of the optimize and rebalance extensions. */
export const optimizeRequestSchema = named(
  z.strictObject({
    as_of_date: describe(
      isoDate(),
      "trade date of the optimization (default: the market's latest date on or before today); prices are the last closes on or before it",
    ).optional(),
  }),
  "OptimizeRequest",
  "Body of the optimize / rebalance extensions; every field optional.",
);
/** Body of the optimize and rebalance extensions. */
export type OptimizeRequest = z.infer<typeof optimizeRequestSchema>;

/** A positive USD amount to the cent. */
const requestedUsd = () =>
  decimalString(16, 2, {
    min: "0",
    exclusiveMin: true,
    max: MAX_MONEY_AMOUNT,
    unitHint: "must be a USD amount greater than 0, at most 2 decimals",
  });

/** A cash request of the rebalance extension: exactly one of a withdrawal or a deposit (docs/cash-requests.md). */
export const cashRequestSchema = named(
  z
    .strictObject({
      withdraw_usd: describe(
        requestedUsd(),
        "cash to raise for a withdrawal, USD: the account must end with cash >= this + its cash buffers; the least-tax sales raise it",
      ).optional(),
      deposit_usd: describe(
        requestedUsd(),
        "new cash to invest, USD: the proposal assumes it was added to the account's cash (the stored cash is not changed)",
      ).optional(),
    })
    .superRefine((r, ctx) => {
      if ((r.withdraw_usd === undefined) === (r.deposit_usd === undefined))
        ctx.addIssue({
          code: "custom",
          path: r.withdraw_usd === undefined ? [] : ["deposit_usd"],
          message:
            r.withdraw_usd === undefined
              ? "give exactly one of withdraw_usd or deposit_usd"
              : "give either withdraw_usd or deposit_usd, not both",
        });
    }),
  "CashRequest",
  "A withdrawal to raise or a deposit to invest, with the rebalance.",
);
/** A cash request. */
export type CashRequest = z.infer<typeof cashRequestSchema>;

/** Body of the rebalance extension: the optimize body and an optional cash request. */
export const rebalanceRequestSchema = named(
  z.strictObject({
    as_of_date: optimizeRequestSchema.shape.as_of_date,
    cash_request: cashRequestSchema.optional(),
  }),
  "RebalanceRequest",
  "Body of the rebalance extension; every field optional.",
);
/** Body of the rebalance extension. */
export type RebalanceRequest = z.infer<typeof rebalanceRequestSchema>;

const usdString = (what: string) => describe(decimalString(30, 10), what);

/** What a cash request did (in the rebalance answer). */
export const cashRequestReportSchema = named(
  z.strictObject({
    kind: z.enum(["withdrawal", "deposit"]),
    amount_usd: usdString("the amount requested"),
    method: describe(
      z.enum(["optimizer", "lot_engine"]),
      "optimizer: the tax-aware optimizer with the cash target; lot_engine: the least-tax lot sales (no target or no risk model)",
    ),
    method_reason: describe(z.string(), "why this method"),
    cash_before_usd: usdString("the account's stored cash"),
    minimum_cash_usd: usdString("the cash buffers the account keeps (cash_buffer_*), USD"),
    cash_needed_usd: usdString(
      "withdrawal: cash the trades had to raise, max(0, amount + minimum cash - cash before); deposit: 0",
    ),
    cash_raised_usd: usdString(
      "net cash of the proposal's orders (sales minus buys, FX fees included): cash after - cash before - deposit",
    ),
    cash_after_usd: usdString("cash after the proposal's orders (the deposit included)"),
    covered: describe(
      z.boolean(),
      "withdrawal: cash after >= amount + minimum cash; deposit: the deposit is in cash or invested",
    ),
    realized_short_term_usd: usdString(
      "short-term gains realized by the sales (negative = loss), after wash-sale disallowance",
    ),
    realized_long_term_usd: usdString(
      "long-term gains realized by the sales (negative = loss), after wash-sale disallowance",
    ),
    estimated_tax_usd: usdString(
      "realized short-term x short_term_rate + long-term x long_term_rate (negative = saving); the configuration's rates",
    ),
  }),
  "CashRequestReport",
  "What a withdrawal or deposit did: the method, the cash raised, the realized gains and the estimated tax.",
);
/** What a cash request did. */
export type CashRequestReport = z.infer<typeof cashRequestReportSchema>;

const num = finiteNumber;

const optimizedAssetSchema = z.strictObject({
  ticker: themeAssetId(),
  symbol: z.string(),
  current_weight: describe(num(), "weight before the trades, fraction of the investable value"),
  target_weight: describe(num(), "optimized weight, fraction of the investable value"),
  benchmark_weight: describe(num(), "benchmark weight after per-ticker targets"),
});

const optimizedTradeSchema = z.strictObject({
  ticker: themeAssetId(),
  symbol: z.string(),
  side: z.enum(["buy", "sell"]),
  shares: describe(num(), "shares traded (positive)"),
  amount_usd: describe(num(), "value traded at the price, USD (positive)"),
  price_usd: describe(num(), "price used, USD per share"),
  from_weight: num(),
  to_weight: num(),
});

const lotToSellSchema = z.strictObject({
  lot_uuid: z.string(),
  ticker: themeAssetId(),
  symbol: z.string(),
  quantity: describe(z.string(), "shares of the lot sold, decimal"),
  proceeds_usd: num(),
  cost_basis_usd: num(),
  gain_usd: describe(num(), "realized gain (negative = loss) before capital-gains reductions"),
  term: z.enum(["short_term", "long_term"]),
  tax_alpha_ignored: describe(
    z.boolean(),
    "the loss earns no tax alpha (wholly washed, outside n_high_loss_lots, tax alpha off)",
  ),
  disallowed_loss_usd: describe(
    num(),
    "part of the loss disallowed by the wash-sale rule (replacement shares bought within the window, this account's or the household's), USD >= 0",
  ),
});

const shortLotToCoverSchema = z.strictObject({
  lot_uuid: describe(z.string(), "the short lot (its id in the account's short_lots)"),
  ticker: themeAssetId(),
  symbol: z.string(),
  quantity: describe(z.string(), "shares of the short lot bought back, decimal"),
  proceeds_usd: describe(num(), "the lot's short-sale proceeds for these shares (its basis), USD"),
  cost_usd: describe(num(), "cost of buying the shares back at the price, USD"),
  gain_usd: describe(num(), "realized gain = proceeds_usd - cost_usd (negative = loss), always short-term"),
  term: z.literal("short_term"),
  tax_alpha_ignored: describe(z.boolean(), "the loss earns no tax alpha (tax alpha off)"),
});

/** The tax year so far (extension): the ledger's realized gains before the trade and after it, the budget left. */
export const yearToDateRealizedSchema = named(
  z.strictObject({
    year: z.int(),
    through: describe(isoDate(), "realized rows sold on or before this date count"),
    realized_before_usd: describe(
      z.string(),
      "net gain the ledger realized in the year before the trade, USD",
    ),
    short_term_before_usd: z.string(),
    long_term_before_usd: z.string(),
    tax_before_usd: describe(
      num(),
      "tax of those gains at the configured rates (net per term, may be negative)",
    ),
    realized_after_usd: describe(num(), "realized_before_usd + the gains this trade realizes"),
    tax_budget_usd: describe(num().nullable(), "the configuration's tax_budget_usd"),
    tax_budget_remaining_usd: describe(
      num().nullable(),
      "what the optimizer was given: budget - tax_before_usd, at least 0",
    ),
    tax_gain_target: describe(num().nullable(), "the configuration's tax_gain_target"),
    tax_gain_target_remaining: describe(
      num().nullable(),
      "what the optimizer aimed for: target - realized_before_usd",
    ),
  }),
  "YearToDateRealized",
  "Gains realized this tax year (from the account ledger) before and after the trade, and the tax budget left.",
);
export type YearToDateRealized = z.infer<typeof yearToDateRealizedSchema>;

/** The optimizer's answer for an account (extension). */
export const accountOptimizationSchema = named(
  z.strictObject({
    account_uuid: uuid(),
    status: describe(
      z.enum(["optimal", "suboptimal", "infeasible"]),
      "infeasible: no portfolio meets the constraints (see diagnosis); nothing else is meaningful then",
    ),
    as_of_date: isoDate(),
    benchmark: describe(z.string(), "where the target weights come from (index, blend, or the holdings)"),
    risk_model: describe(z.string(), "risk model used (risk_model_name, default pca)"),
    uploaded_risk_model: describe(
      z
        .strictObject({
          uuid: uuid(),
          name: z.string(),
          as_of_date: isoDate(),
          assets_covered: describe(z.int(), "assets of the universe the model covers"),
          assets_imputed: describe(
            z.int(),
            "assets of the universe it does not cover: sector-average exposures, sector-median specific variance",
          ),
        })
        .nullable(),
      "for risk_model_name custom or vendor: the uploaded model used, the newest of that kind dated on or before as_of_date; null for models estimated from the store",
    ),
    universe_size: describe(
      z.int(),
      "assets optimized over: benchmark, holdings and assets the config names",
    ),
    nav_usd: num(),
    investable_usd: describe(num(), "NAV minus the cash buffers"),
    cash_usd: describe(num(), "cash before the trades"),
    cash_buffer_usd: describe(num(), "cash reserved by the buffers, USD"),
    cash_after_usd: describe(num(), "cash after the trades and their costs"),
    weights: describe(
      z.array(optimizedAssetSchema),
      "assets held before or after, or in the benchmark, by target weight descending",
    ),
    trades: z.array(optimizedTradeSchema),
    lots_to_sell: z.array(lotToSellSchema),
    short_lots_to_cover: describe(
      z.array(shortLotToCoverSchema),
      "short lots the covers close, lowest proceeds per share first (LONG_SHORT / LONG_BIASED accounts; a LONG_ONLY account's short is covered in full); their gains count in the realized and tax figures",
    ),
    tracking_error: describe(
      num().nullable(),
      "ex-ante annualized tracking error vs the benchmark (fraction); null when infeasible",
    ),
    total_risk: describe(num().nullable(), "ex-ante annualized volatility (fraction); null when infeasible"),
    tax_cost_usd: describe(num(), "net tax of the sales at the configured rates (negative = saving)"),
    realized_short_term_usd: num(),
    realized_long_term_usd: num(),
    capital_gains_reduction_usd: num(),
    year_to_date_realized: yearToDateRealizedSchema.optional(),
    harvested_losses_usd: describe(num(), "losses realized (positive magnitude)"),
    transaction_cost_usd: num(),
    market_impact_usd: num(),
    turnover: describe(num(), "one-way turnover, fraction of the investable value"),
    tax_gamma: describe(num(), "weight of the tax term used (after a tax budget / gain target search)"),
    tax_gamma_search: z
      .strictObject({
        method: z.string(),
        goal: z.string(),
        target: num(),
        achieved: num(),
        evaluations: z.int(),
        within_tolerance: z.boolean(),
      })
      .nullable(),
    risk_cap: describe(
      z
        .strictObject({
          requested: num(),
          used: num(),
          relaxations: z.int(),
          minimum_achievable: num().nullable(),
          binding: z.boolean(),
        })
        .nullable(),
      "active-risk cap (annualized tracking error, fraction) and its relaxations; null without a cap",
    ),
    solver: z.strictObject({
      status: z.string(),
      rounds: z.int(),
      solves: z.int(),
      rebuilds: z.int(),
      qp_iterations: z.int(),
    }),
    binding: describe(z.array(z.string()), "constraints holding with a non-zero multiplier"),
    diagnosis: describe(z.array(z.string()), "when infeasible: the conflicting constraints, with numbers"),
    warnings: z.array(z.string()),
  }),
  "AccountOptimization",
  "The tax-aware optimizer's result for an account: target weights, trades, lots to sell, risk, tax and costs.",
);
/** The optimizer's answer for an account. */
export type AccountOptimization = z.infer<typeof accountOptimizationSchema>;

/** Answer of the rebalance extension. */
export const accountRebalanceSchema = named(
  z.strictObject({
    optimization: describe(
      accountOptimizationSchema.nullable(),
      "the optimization; null when a withdrawal was raised by the lot engine (no target or no risk model)",
    ),
    proposal: describe(
      proposalResponseSchema.nullable(),
      "the stored proposal built from the optimized weights (endpoint 1); null when the optimization is infeasible",
    ),
    message: describe(z.string().nullable(), "why no proposal was stored, when none was"),
    cash_request: describe(
      cashRequestReportSchema.nullable(),
      "what the cash request did; null without one (or without a proposal)",
    ),
  }),
  "AccountRebalance",
  "An optimization and the rebalance proposal built (and stored) from its weights.",
);
/** Answer of the rebalance extension. */
export type AccountRebalance = z.infer<typeof accountRebalanceSchema>;
