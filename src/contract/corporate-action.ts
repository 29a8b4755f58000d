/**
 * @module contract/corporate-action
 * Extension shapes of corporate actions on held lots (docs/ledger.md, sections 8-10): the stored action, the CSV
 * import's query and summary, the apply request and its per-account report, and an account's holdings as of a
 * past date (history from the ledger).
 */
import * as z from "zod";
import { bool, expectedMessage, isoDate, jsonValueSchema, numericString, uuid } from "./primitives.js";
import { describe, named } from "./registry.js";

/** Kinds of corporate actions (the CSV's `kind` column). */
export const CORPORATE_ACTION_KINDS = [
  "split",
  "cash_dividend",
  "spin_off",
  "symbol_change",
  "cash_merger",
  "stock_merger",
] as const;

/** A stored corporate action (market-level: one per id, shared by every organization of the store). */
export const corporateActionSchema = named(
  z.strictObject({
    id: z.string(),
    kind: z.enum(CORPORATE_ACTION_KINDS),
    theme_asset_id: describe(z.string(), "the listing the action is about (parent, target, old listing)"),
    ex_date: describe(isoDate(), "ex-date, distribution date or closing date"),
    pay_date: isoDate().nullable(),
    params: describe(
      z.record(z.string(), jsonValueSchema),
      "the kind's parameters as the ledger takes them (ratio, amountPerShare, childAssetId, basisFraction...)",
    ),
  }),
  "CorporateAction",
  "A corporate action as stored (extension).",
);
/** A stored corporate action. */
export type CorporateActionRead = z.infer<typeof corporateActionSchema>;

/** Query of the corporate-action list. */
export const corporateActionListQuerySchema = named(
  z.strictObject({
    from: describe(isoDate(), "first ex-date listed").optional(),
    to: describe(isoDate(), "last ex-date listed").optional(),
    listing: describe(z.string().min(1).max(40), "only actions about this theme_asset_id").optional(),
  }),
  "CorporateActionListQuery",
  "Query of the corporate-action list; every parameter optional.",
);
/** Query of the corporate-action list. */
export type CorporateActionListQuery = z.infer<typeof corporateActionListQuerySchema>;

/** Stored corporate actions, by ex-date then id. */
export const corporateActionListSchema = named(
  z.array(corporateActionSchema),
  "CorporateActionList",
  "Corporate actions by ex-date then id.",
);
/** Stored corporate actions. */
export type CorporateActionList = z.infer<typeof corporateActionListSchema>;

/** Query of the corporate-action CSV import. */
export const corporateActionImportQuerySchema = named(
  z.strictObject({
    file_name: describe(
      z.string().min(1).max(255, { error: "must be at most 255 characters" }),
      "name of the file, used in messages",
    ).optional(),
    dry_run: describe(
      z.stringbool({ truthy: ["true"], falsy: ["false"], error: expectedMessage("true or false") }),
      "check and list without storing",
    ).optional(),
  }),
  "CorporateActionImportQuery",
  "Query parameters of a corporate-action CSV import.",
);
/** Query of the corporate-action import. */
export type CorporateActionImportQuery = z.infer<typeof corporateActionImportQuerySchema>;

/** Summary of a corporate-action import. */
export const corporateActionImportResultSchema = named(
  z.strictObject({
    file: z.string(),
    dry_run: z.boolean(),
    actions_in_file: z.int().nonnegative(),
    by_kind: describe(z.record(z.string(), z.int().nonnegative()), "actions of the file per kind"),
    actions: z.array(corporateActionSchema),
  }),
  "CorporateActionImportResult",
  "What a corporate-action import read (and stored unless dry_run).",
);
/** Summary of a corporate-action import. */
export type CorporateActionImportResult = z.infer<typeof corporateActionImportResultSchema>;

/** Body of the apply request. */
export const corporateActionApplyRequestSchema = named(
  z.strictObject(
    {
      account_uuid: describe(
        uuid(),
        "apply to this account only; default: every account of the organization",
      ).optional(),
      through: describe(
        isoDate(),
        "apply actions dated on or before this date; default: the market's latest date",
      ).optional(),
      dry_run: describe(bool(), "compute and report without writing").optional(),
    },
    { error: expectedMessage("an object") },
  ),
  "CorporateActionApplyRequest",
  "Which accounts and which dates `POST .../corporate_actions/apply/` covers.",
);
/** Body of the apply request. */
export type CorporateActionApplyRequest = z.infer<typeof corporateActionApplyRequestSchema>;

/** One lot whose shares or basis an action changed. */
export const appliedLotChangeSchema = named(
  z.strictObject({
    lot_uuid: z.string(),
    change: z.enum(["added", "changed", "removed"]),
    theme_asset_id: z.string(),
    quantity_before: numericString().nullable(),
    quantity_after: numericString().nullable(),
    cost_basis_before: describe(numericString(), "total, listing currency").nullable(),
    cost_basis_after: numericString().nullable(),
  }),
  "AppliedLotChange",
  "A lot an application added, changed or removed.",
);

/** What applying corporate actions did to one account. */
export const accountActionReportSchema = named(
  z.strictObject({
    account_uuid: uuid(),
    actions: z.array(
      z.strictObject({
        id: z.string(),
        kind: z.enum(CORPORATE_ACTION_KINDS),
        theme_asset_id: z.string(),
        ex_date: isoDate(),
      }),
    ),
    lots: z.array(appliedLotChangeSchema),
    cash_delta_usd: describe(numericString(), "dividends, cash in lieu and merger cash credited, USD"),
    realized_gain_usd: describe(
      numericString(),
      "gain recognized by the applied actions (cash mergers, cash in lieu, boot)",
    ),
    realized_rows: z.int().nonnegative(),
    notes: z.array(z.string()),
  }),
  "AccountActionReport",
  "The corporate actions applied to one account and what they changed.",
);
/** One account's report. */
export type AccountActionReport = z.infer<typeof accountActionReportSchema>;

/** Answer of the apply request. */
export const corporateActionApplyResultSchema = named(
  z.strictObject({
    through: isoDate(),
    dry_run: z.boolean(),
    accounts_checked: z.int().nonnegative(),
    accounts: describe(z.array(accountActionReportSchema), "accounts that had an action to apply"),
  }),
  "CorporateActionApplyResult",
  "Per account, the corporate actions applied and what changed. Applying again applies nothing new.",
);
/** Answer of the apply request. */
export type CorporateActionApplyResult = z.infer<typeof corporateActionApplyResultSchema>;

/** Query of the holdings-as-of extension. */
export const holdingsAsOfQuerySchema = named(
  z.strictObject({
    as_of: describe(isoDate(), "the date; default: today's holdings (the market's latest date)").optional(),
  }),
  "HoldingsAsOfQuery",
  "Query of an account's holdings as of a date.",
);
/** Query of the holdings-as-of extension. */
export type HoldingsAsOfQuery = z.infer<typeof holdingsAsOfQuerySchema>;

/** A long lot as held on a past date. */
export const historyLotSchema = named(
  z.strictObject({
    lot_uuid: z.string(),
    theme_asset_id: z.string(),
    quantity: numericString(),
    total_cost_basis: describe(numericString(), "listing currency"),
    cost_basis_currency: z.string(),
    fx_rate: numericString(),
    trade_date: isoDate(),
    holding_period_start: isoDate(),
  }),
  "HistoryLot",
  "A long lot as the account held it on the date.",
);

/** A short lot (read shape). */
export const shortLotReadSchema = named(
  z.strictObject({
    lot_uuid: z.string(),
    side: z.literal("short"),
    theme_asset_id: z.string(),
    quantity: describe(numericString(), "shares owed, > 0"),
    proceeds: describe(numericString(), "net short-sale proceeds, listing currency: the lot's basis"),
    proceeds_usd: numericString(),
    currency: z.string(),
    fx_rate: numericString(),
    open_date: isoDate(),
  }),
  "ShortLotRead",
  "An open short lot: shares owed and the short-sale proceeds as its basis.",
);
/** A short lot (read shape). */
export type ShortLotRead = z.infer<typeof shortLotReadSchema>;

/** An account's holdings as of a date. */
export const holdingsAsOfSchema = named(
  z.strictObject({
    account_uuid: uuid(),
    as_of: isoDate(),
    cash_value_usd: describe(
      numericString(),
      "cash on the date: today's cash less the cash movements of the executions and actions undone",
    ),
    tax_lots: z.array(historyLotSchema),
    short_lots: z.array(shortLotReadSchema),
    undone: describe(
      z.strictObject({
        executions: z.array(z.string()),
        corporate_actions: z.array(z.string()),
        market_splits: z.array(z.string()),
        lots_dropped: z.array(z.string()),
      }),
      "what was undone to go back to the date: executions after it, actions applied after it, market splits after it (lots not from the ledger), lots with a later trade date",
    ),
    warnings: z.array(z.string()),
  }),
  "HoldingsAsOf",
  "An account's long and short lots and cash as held on a past date, rebuilt from the ledger.",
);
/** An account's holdings as of a date. */
export type HoldingsAsOf = z.infer<typeof holdingsAsOfSchema>;
