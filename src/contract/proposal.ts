/**
 * @module contract/proposal
 * Rebalance proposal (endpoint 1): request (optimized target weights), response, orders, the tax lots a sell
 * consumes and the FX cost breakdown of non-USD orders. Order `amount` is signed: positive buys, negative
 * sells (the shape has no side field); `type` says whether it counts shares (`qty`) or USD (`notional`).
 */
import * as z from "zod";
import { decimalString } from "./decimal.js";
import { expectedMessage, isoDate, isoDatetime, uuid } from "./primitives.js";
import { describe, named } from "./registry.js";

/** One optimized target weight: a ticker (theme_asset_id or plain symbol) and its weight, decimal(1,10). */
export const optimizedWeightSchema = named(
  z.strictObject({
    ticker: describe(
      z.string({ error: expectedMessage("a ticker") }).min(1, { error: "must not be empty" }),
      "theme_asset_id (e.g. AAPL:XNAS) or plain symbol (AAPL) of the asset",
    ),
    weight: describe(decimalString(1, 10), "target weight as a fraction of investable value, decimal(1,10)"),
  }),
  "OptimizedWeight",
  "One target weight of a proposal request.",
);
/** One optimized target weight. */
export type OptimizedWeight = z.infer<typeof optimizedWeightSchema>;

/** Body of proposal creation: at least one weight; a ticker may appear once. */
export const proposalRequestSchema = named(
  z.strictObject({
    optimized_weights: z
      .array(optimizedWeightSchema, { error: expectedMessage("an array of {ticker, weight}") })
      .min(1, { error: "at least one optimized weight is required" })
      .superRefine((items, ctx) => {
        const seen = new Map<string, number>();
        items.forEach((item, i) => {
          const key = item.ticker.toUpperCase();
          const first = seen.get(key);
          if (first === undefined) seen.set(key, i);
          else
            ctx.addIssue({
              code: "custom",
              path: [i, "ticker"],
              message: `${item.ticker} is already given at optimized_weights[${first}]`,
            });
        });
      }),
  }),
  "ProposalRequest",
  "Body of rebalance proposal creation (endpoint 1).",
);
/** Body of proposal creation. */
export type ProposalRequest = z.infer<typeof proposalRequestSchema>;

/** Order types. */
export const ORDER_TYPES = ["qty", "notional"] as const;
/** Order categories (long-short modes). */
export const ORDER_CATEGORIES = ["long", "short_order", "short_cover"] as const;
/** Order reasons (the spec also allows the empty string and null). */
export const ORDER_REASONS = [
  "removed_from_target",
  "added_to_target",
  "weight_decreased",
  "weight_increased",
] as const;
/** Currencies of the FX cost breakdown. */
export const FX_CURRENCIES = ["USD", "EUR", "GBP", "JPY", "CAD"] as const;

/** A lot consumed by a sell: cost basis, quantity, trade date and realized gain (negative = loss). */
export const proposalTaxLotSchema = named(
  z.strictObject({
    cost_basis: describe(decimalString(30, 10), "cost basis of the quantity sold"),
    quantity: describe(decimalString(10, 10), "shares sold from this lot"),
    trade_date: describe(isoDate(), "acquisition date of the lot"),
    gain: describe(decimalString(30, 10), "realized gain of this sale (negative = loss)"),
    lot_id: describe(
      z.string(),
      "extension: id of the lot (the account's tax lot uuid); executing the proposal relieves exactly it",
    ).optional(),
  }),
  "ProposalTaxLot",
  "A tax lot consumed by a sell order.",
);
/** A lot consumed by a sell. */
export type ProposalTaxLot = z.infer<typeof proposalTaxLotSchema>;

/** FX cost breakdown of a non-USD order; fx_rate in units of the currency per USD. */
export const fxCostBreakdownSchema = named(
  z.strictObject({
    base_amount_usd: decimalString(10, 10),
    fx_rate: describe(decimalString(10, 10), "units of currency per 1 USD (FRED H.10 convention)"),
    fx_fee_percentage: describe(decimalString(10, 10), "FX fee in percent of the base amount"),
    fx_fee_amount_usd: decimalString(10, 10),
    net_amount_usd: decimalString(10, 10),
    currency: z.enum(FX_CURRENCIES),
  }),
  "FxCostBreakdown",
  "Cost of converting USD for a non-USD order.",
);
/** FX cost breakdown. */
export type FxCostBreakdown = z.infer<typeof fxCostBreakdownSchema>;

/** One order of a proposal. */
export const proposalOrderSchema = named(
  z.strictObject({
    ticker: describe(z.string(), "theme_asset_id of the asset"),
    ticker_symbol: z.string().nullable(),
    currency: describe(z.string(), "trading currency of the asset (read-only)"),
    amount: describe(
      decimalString(10, 10),
      "signed: positive buys, negative sells; shares (qty) or USD (notional)",
    ),
    amount_usd: describe(decimalString(10, 10), "USD value of the order (non-USD assets)")
      .nullable()
      .optional(),
    type: z.enum(ORDER_TYPES),
    order_category: z.enum(ORDER_CATEGORIES).optional(),
    reason: z
      .enum([...ORDER_REASONS, ""])
      .nullable()
      .optional(),
    existing_quantity: decimalString(10, 10).nullable().optional(),
    existing_weight: decimalString(10, 10).nullable().optional(),
    existing_market_value: decimalString(10, 10).nullable().optional(),
    target_weight: decimalString(10, 10).nullable().optional(),
    tax_lots: z.array(proposalTaxLotSchema).nullable(),
    fx_cost_breakdown: fxCostBreakdownSchema.nullable(),
  }),
  "ProposalOrder",
  "One order of a rebalance proposal.",
);
/** One order of a proposal. */
export type ProposalOrder = z.infer<typeof proposalOrderSchema>;

/** Response of proposal creation (and of the proposal read extension). */
/** A wanted order that was not placed (extension of the proposal response). */
export const droppedOrderSchema = named(
  z.strictObject({
    ticker: z.string(),
    side: z.enum(["buy", "sell"]),
    order_category: z.enum(ORDER_CATEGORIES),
    reason: describe(
      z.enum([
        "no_trade",
        "below_min_notional",
        "below_min_quantity",
        "rounded_to_zero",
        "scaled_to_zero",
        "wash_sale_prevented",
      ]),
      "why the order was not placed",
    ),
    wanted_amount_usd: decimalString(10, 10),
    message: z.string(),
  }),
  "DroppedOrder",
  "An order the targets called for that the proposal does not place, and why.",
);
/** A dropped order. */
export type DroppedOrder = z.infer<typeof droppedOrderSchema>;

/** Realized gains a proposal would book (extension). */
export const proposalRealizedSchema = named(
  z.strictObject({
    short_term_usd: decimalString(30, 10),
    long_term_usd: decimalString(30, 10),
    disallowed_loss_usd: decimalString(30, 10),
    capital_gains_reduction_usd: decimalString(30, 10),
    taxable_short_term_usd: decimalString(30, 10),
    taxable_long_term_usd: decimalString(30, 10),
  }),
  "ProposalRealized",
  "Gains and losses the sells would realize (USD), after wash-sale disallowance and capital-gains reductions.",
);
/** Realized gains of a proposal. */
export type ProposalRealized = z.infer<typeof proposalRealizedSchema>;

/** Response of proposal creation (endpoint 1) and of the proposal read extension. */
export const proposalResponseSchema = named(
  z.strictObject({
    proposal_uuid: uuid(),
    cash_buffer_cad_amount: decimalString(12, 8).nullable(),
    cash_buffer_usd_amount: decimalString(12, 8).nullable(),
    orders: z.array(proposalOrderSchema),
    as_of_date: describe(isoDate(), "extension: date of the prices used").optional(),
    nav_usd: describe(
      decimalString(12, 8),
      "extension: positions at market + cash before trading",
    ).optional(),
    investable_usd: describe(decimalString(12, 8), "extension: NAV minus the cash buffers").optional(),
    realized: proposalRealizedSchema.optional(),
    year_to_date_realized: describe(
      z.strictObject({
        year: z.int(),
        realized_before_usd: decimalString(30, 10),
        realized_after_usd: decimalString(30, 10),
      }),
      "extension: net gain the account's ledger realized in the as-of year (sold on or before as_of_date) before this proposal, and after it (+ short_term_usd + long_term_usd of `realized`)",
    ).optional(),
    fx_fees_usd: describe(decimalString(10, 10), "extension: FX fees of all orders").optional(),
    dropped_orders: describe(z.array(droppedOrderSchema), "extension: orders not placed and why").optional(),
    warnings: describe(
      z.array(z.strictObject({ code: z.string(), ticker: z.string().nullable(), message: z.string() })),
      "extension: things the advisor should know",
    ).optional(),
    created: describe(isoDatetime(), "extension: when the proposal was created").optional(),
  }),
  "ProposalResponse",
  "A rebalance proposal: orders plus cash-buffer amounts (and lotwise's extensions: realized gains, dropped orders, warnings).",
);
/** Response of proposal creation. */
export type ProposalResponse = z.infer<typeof proposalResponseSchema>;
