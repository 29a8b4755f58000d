/**
 * @module contract/ledger-executions
 * The account ledger's operations (extensions, docs/ledger.md): applying a stored proposal as executed (all orders
 * or the broker's fills), recording trades (JSON batch or a trade-confirmation CSV), listing executions, and the
 * realized-gains ledger of an account or a client (rows, year totals, Schedule D, the Form 8949-style CSV).
 */
import * as z from "zod";
import { CURRENCIES } from "../core/data/types.js";
import { expectedMessage, isoDate, numericString, uuid } from "./primitives.js";
import { describe, named } from "./registry.js";

const positive = (what: string) => describe(numericString({ min: "0", exclusiveMin: true }), what);
const nonNegative = (what: string) => describe(numericString({ min: "0" }), what);
const usd = (what: string) => describe(z.string(), what);

/** One broker fill of one order of a proposal. */
export const proposalFillSchema = named(
  z.strictObject({
    order: describe(z.int().min(0), "index of the order in the proposal's `orders`"),
    quantity: positive("shares filled (at most what is left of the order)"),
    price: positive("execution price per share, in the listing currency"),
    fees: nonNegative("commissions and fees of the fill (default 0)").optional(),
    fx_rate: positive("units of the listing currency per USD (default: the market's rate)").optional(),
    trade_date: describe(isoDate(), "trade date of the fill (default: the request's trade_date)").optional(),
    fill_id: describe(
      z
        .string()
        .min(1)
        .max(64)
        .regex(/^[A-Za-z0-9._-]+$/, { error: "fill_id holds letters, digits, '.', '_' and '-' only" }),
      "extension: the broker's id of the fill, unique within its order; the execution id is <proposal>:<order>:<fill_id> (default: the fill's number within its order), so that recording the same fill twice is refused. Needed to record more fills of a proposal that already has some",
    ).optional(),
  }),
  "ProposalFill",
  "One broker fill of one order of a stored proposal.",
);

/** Body of applying a stored proposal as executed. */
export const proposalExecutionRequestSchema = named(
  z.strictObject({
    trade_date: describe(
      isoDate(),
      "trade date of the executions (default: the proposal's as_of_date)",
    ).optional(),
    fills: describe(
      z.array(proposalFillSchema).max(100_000),
      "the fills; absent = every order filled in full at the proposal's prices (the closes of its as_of_date)",
    ).optional(),
  }),
  "ProposalExecutionRequest",
  "Apply a stored proposal as executed: all orders at its prices, or the given fills (partial fills allowed).",
);
export type ProposalExecutionRequest = z.infer<typeof proposalExecutionRequestSchema>;

export const TRADE_SIDES = ["buy", "sell", "short_order", "short_cover"] as const;

/** One trade recorded through the API. */
export const tradeSchema = named(
  z.strictObject({
    execution_id: describe(
      z.string().min(1).max(200),
      "the caller's execution id, unique per account: recording it twice is refused",
    ),
    side: describe(
      z.enum(TRADE_SIDES, { error: expectedMessage(TRADE_SIDES.join(", ")) }),
      "buy, sell, short_order (short sale) or short_cover",
    ),
    ticker: describe(z.string().min(1).max(40), "symbol or theme_asset_id (SYMBOL:MIC)"),
    trade_date: isoDate(),
    quantity: positive("shares, > 0"),
    price: positive("price per share in the listing currency, > 0"),
    fees: nonNegative("commissions and fees (default 0)").optional(),
    currency: z.enum(CURRENCIES, { error: expectedMessage(CURRENCIES.join(", ")) }).optional(),
    fx_rate: positive(
      "units of the currency per USD on the trade date (default: 1 for USD; else the market's rate on the trade date or the latest before it, and the trade is refused when the market data has none)",
    ).optional(),
    lots: describe(
      z
        .array(
          z.strictObject({
            lot_id: z.string().min(1).max(200),
            quantity: positive("shares of that lot").optional(),
          }),
        )
        .max(10_000),
      "sells: the lots to relieve (specific identification); without it the account's lot method picks them",
    ).optional(),
  }),
  "Trade",
  "One execution recorded through the API.",
);
export type Trade = z.infer<typeof tradeSchema>;

export const tradesRequestSchema = named(
  z.strictObject({ trades: z.array(tradeSchema).min(1).max(100_000) }),
  "TradesRequest",
  "A batch of trades: applied whole or not at all.",
);
export type TradesRequest = z.infer<typeof tradesRequestSchema>;

/** Fields a trade-confirmation CSV column can be mapped to (`--map FIELD=HEADER`, query `map_FIELD=HEADER`). */
export const TRADE_CSV_FIELDS = [
  "execution_id",
  "side",
  "symbol",
  "trade_date",
  "quantity",
  "price",
  "fees",
  "currency",
  "fx_rate",
  "mic",
  "lot_id",
] as const;

const mapParams = Object.fromEntries(
  TRADE_CSV_FIELDS.map((f) => [
    `map_${f}`,
    describe(
      z.string().min(1, { error: "must not be empty" }).max(200, { error: "must be at most 200 characters" }),
      `header of the ${f.replace(/_/g, " ")} column (instead of the recognized names)`,
    ).optional(),
  ]),
) as Record<`map_${(typeof TRADE_CSV_FIELDS)[number]}`, z.ZodOptional<z.ZodString>>;

export const tradeImportQuerySchema = named(
  z.strictObject({
    file_name: describe(z.string().min(1).max(255), "name of the file, used in messages").optional(),
    date_order: describe(
      z.enum(["auto", "mdy", "dmy", "ymd"], { error: expectedMessage("auto, mdy, dmy or ymd") }),
      "how to read 03/04/2024: auto (US month first unless impossible), mdy, dmy, ymd",
    ).optional(),
    currency: describe(
      z.enum(CURRENCIES, { error: expectedMessage(CURRENCIES.join(", ")) }),
      "currency of rows without one; default: the listing's currency",
    ).optional(),
    mic: describe(
      z.string().regex(/^[A-Za-z0-9]{4}$/, { error: "a MIC is four letters or digits" }),
      "exchange of symbols without one",
    ).optional(),
    ...mapParams,
  }),
  "TradeImportQuery",
  "Query parameters of a trade-confirmation CSV import.",
);
export type TradeImportQuery = z.infer<typeof tradeImportQuerySchema>;

/** One realized row (Form 8949 columns, USD). */
export const realizedRowSchema = named(
  z.strictObject({
    entry_id: z.string(),
    source_id: describe(z.string(), "the execution or corporate action that realized it"),
    account_uuid: z.string().nullable(),
    lot_id: z.string(),
    ticker: z.string(),
    side: z.enum(["long", "short"]),
    description: describe(z.string(), "(a) quantity and symbol"),
    quantity: z.string(),
    date_acquired: describe(isoDate(), "(b)"),
    date_sold: describe(isoDate(), "(c)"),
    proceeds: usd("(d) USD"),
    cost_basis: usd("(e) USD"),
    adjustment_code: describe(z.enum(["W", ""]), "(f) W when a wash sale disallowed part of the loss"),
    adjustment: usd("(g) disallowed loss, USD"),
    gain: usd("(h) = (d) - (e) + (g), USD, exact"),
    form_8949_gain: describe(
      z.string(),
      "(h) as the Form 8949 line shows it: (d) - (e) + (g) of the columns rounded to cents; the rows of a year add up to Schedule D line 16 exactly (the exact gain may differ by a cent a row)",
    ),
    term: z.enum(["short_term", "long_term"]),
  }),
  "RealizedRow",
  "One realized lot or lot part.",
);
export type RealizedRowWire = z.infer<typeof realizedRowSchema>;

const termTotalsSchema = z.strictObject({
  proceeds: z.string(),
  cost_basis: z.string(),
  adjustments: z.string(),
  gains: z.string(),
  losses: z.string(),
  net: z.string(),
  rows: z.int(),
});

export const realizedTotalsSchema = named(
  z.strictObject({
    year: z.int(),
    short_term: termTotalsSchema,
    long_term: termTotalsSchema,
    disallowed_loss: z.string(),
    net: describe(z.string(), "the year's realized total, USD"),
  }),
  "RealizedTotals",
  "A year's realized totals per term (exact USD decimals).",
);
export type RealizedTotalsWire = z.infer<typeof realizedTotalsSchema>;

/** What applying executions answers. */
export const executionResultSchema = named(
  z.strictObject({
    account_uuid: uuid(),
    execution_ids: z.array(z.string()),
    realized: z.array(realizedRowSchema),
    realized_total_usd: describe(
      z.string(),
      "net gain of the rows this batch realized (washed rows updated included)",
    ),
    wash_sales: describe(
      z.int(),
      "wash-sale adjustments made to replacement lots (this account's or the household's)",
    ),
    household_accounts_updated: z.array(z.string()),
    cash_delta_usd: z.string(),
    cash_value_usd: z.string(),
    lots: describe(z.int(), "long lots of the account after the batch"),
    short_lots: z.int(),
    warnings: describe(
      z.array(z.string()),
      "extension: what was recorded as executed but deserves a look (a short sale in an account whose configuration does not allow shorts); absent when none",
    ).optional(),
  }),
  "ExecutionResult",
  "What one application of executions wrote.",
);
export type ExecutionResult = z.infer<typeof executionResultSchema>;

export const executionRecordSchema = named(
  z.strictObject({
    execution_id: z.string(),
    source: z.enum(["proposal", "trade_file", "api"]),
    proposal_uuid: z.string().nullable(),
    order_index: z.int().nullable(),
    side: z.enum(TRADE_SIDES),
    ticker: z.string(),
    trade_date: isoDate(),
    quantity: z.string(),
    price: z.string(),
    fees: z.string(),
    currency: z.string(),
    fx_rate: z.string(),
    lots: z.array(z.strictObject({ lot_id: z.string(), quantity: z.string().optional() })).nullable(),
    lot_id: z.string().nullable(),
    applied_at: z.string(),
  }),
  "ExecutionRecord",
  "One applied execution.",
);

export const executionListQuerySchema = named(
  z.strictObject({
    from: describe(isoDate(), "first trade date").optional(),
    to: describe(isoDate(), "last trade date").optional(),
  }),
  "ExecutionListQuery",
  "Trade-date window of the executions listed.",
);
export type ExecutionListQuery = z.infer<typeof executionListQuerySchema>;

export const executionListSchema = named(
  z.strictObject({ account_uuid: uuid(), executions: z.array(executionRecordSchema) }),
  "ExecutionList",
  "An account's executions by trade date, then in the order applied.",
);
export type ExecutionList = z.infer<typeof executionListSchema>;

export const BASIS_REPORTING = ["basis_reported", "basis_not_reported", "no_1099b"] as const;

export const realizedQuerySchema = named(
  z.strictObject({
    year: describe(
      // A query value is text: digits become the number, anything else is checked as given, so that a missing
      // year is "Required" and `year=abc` is named as sent (z.coerce made both "received number NaN").
      z.preprocess(
        (v) => (typeof v === "string" && /^\s*\d+\s*$/.test(v) ? Number(v) : v),
        z
          .number({ error: expectedMessage("a year such as 2025") })
          .int()
          .min(1900)
          .max(2999),
      ),
      "tax year",
    ),
    reporting: describe(
      z.enum(BASIS_REPORTING, { error: expectedMessage(BASIS_REPORTING.join(", ")) }),
      "Form 8949 check boxes: basis_reported (A/D, default), basis_not_reported (B/E), no_1099b (C/F)",
    ).optional(),
  }),
  "RealizedQuery",
  "Tax year of the realized-gains ledger.",
);
export type RealizedQuery = z.infer<typeof realizedQuerySchema>;

export const scheduleDLineSchema = z.strictObject({
  line: z.string(),
  label: z.string(),
  proceeds: z.string(),
  cost_basis: z.string(),
  adjustments: z.string(),
  gain: z.string(),
});

export const realizedLedgerSchema = named(
  z.strictObject({
    scope: z.enum(["account", "client"]),
    client_uuid: uuid(),
    account_uuid: uuid().nullable(),
    year: z.int(),
    rows: z.array(realizedRowSchema),
    totals: realizedTotalsSchema,
    schedule_d: describe(z.array(scheduleDLineSchema), "Schedule D lines (amounts rounded to cents)"),
    form_8949_csv: describe(z.string(), "the Form 8949-style CSV (docs/ledger.md, CSV layout)"),
  }),
  "RealizedLedger",
  "The realized-gains ledger of an account or a client for one tax year.",
);
export type RealizedLedger = z.infer<typeof realizedLedgerSchema>;
