/**
 * @module contract/account
 * Accounts: holdings (write and read), per-account asset-class settings, the account read shape (inside the
 * client response and the account read extension) and the account create extension.
 */
import * as z from "zod";
import { assetClassSchema } from "./asset-class.js";
import { shortLotReadSchema } from "./corporate-action.js";
import { portfolioConfigReadSchema } from "./portfolio-config.js";
import {
  bool,
  expectedMessage,
  isoDate,
  isoDatetime,
  jsonValueSchema,
  MAX_MONEY_AMOUNT,
  nonEmptyString,
  numericString,
  uuid,
} from "./primitives.js";
import { describe, named } from "./registry.js";
import { taxLotReadSchema, taxLotWriteSchema } from "./tax-lot.js";

/** Holdings in a write: the lots (replacing the stored lots) and the value of non-tradable assets. */
export const holdingsWriteSchema = named(
  z.strictObject(
    {
      tax_lots: describe(
        z.array(taxLotWriteSchema, { error: expectedMessage("an array of tax lots") }),
        "the account's lots; replaces the stored lots",
      ).optional(),
      non_tradable_assets_value: describe(
        numericString({ min: "0", max: MAX_MONEY_AMOUNT }),
        "value of assets that cannot be traded, USD",
      ).optional(),
    },
    { error: expectedMessage("an object") },
  ),
  "HoldingsWrite",
  "Holdings as written: tax lots and the value of non-tradable assets.",
);
/** Holdings in a write. */
export type HoldingsWrite = z.infer<typeof holdingsWriteSchema>;

/** Holdings in a read. */
export const holdingsReadSchema = named(
  z.strictObject({
    tax_lots: z.array(taxLotReadSchema),
    cash_value_usd: numericString(),
    non_tradable_assets_value: numericString(),
    liabilities_value: numericString(),
  }),
  "HoldingsRead",
  "Holdings of an account: lots, cash, non-tradable assets and liabilities (USD).",
);
/** Holdings in a read. */
export type HoldingsRead = z.infer<typeof holdingsReadSchema>;

/** Per-account asset-class setting, write item. */
export const assetClassSettingWriteSchema = named(
  z.strictObject({
    asset_class_uuid: uuid(),
    direct_indexing_enabled: bool().optional(),
    implementation_sleeve_uuid: describe(uuid(), "sleeve that implements this asset class")
      .nullable()
      .optional(),
  }),
  "AssetClassSettingWrite",
  "How an account implements one asset class, in a write.",
);
/** Per-account asset-class setting, write item. */
export type AssetClassSettingWrite = z.infer<typeof assetClassSettingWriteSchema>;

/** Schema of a list of asset-class settings in a write: each asset class at most once. */
export function assetClassSettingListWriteSchema() {
  return z
    .array(assetClassSettingWriteSchema, { error: expectedMessage("an array of asset-class settings") })
    .superRefine((items, ctx) => {
      const seen = new Map<string, number>();
      items.forEach((item, i) => {
        const key = item.asset_class_uuid.toLowerCase();
        const first = seen.get(key);
        if (first === undefined) seen.set(key, i);
        else
          ctx.addIssue({
            code: "custom",
            path: [i, "asset_class_uuid"],
            message: `asset class ${item.asset_class_uuid} already has a setting at index ${first}`,
          });
      });
    });
}

/** Per-account asset-class setting, read item. */
export const assetClassSettingReadSchema = named(
  z.strictObject({
    asset_class: assetClassSchema,
    direct_indexing_enabled: z.boolean(),
    implementation_sleeve: assetClassSchema.nullable(),
  }),
  "AssetClassSettingRead",
  "How an account implements one asset class, in a read.",
);
/** Per-account asset-class setting, read item. */
export type AssetClassSettingRead = z.infer<typeof assetClassSettingReadSchema>;

/** A lot (of this or another account of the household) that constrains wash sales. */
export const washSaleLotSchema = named(
  z.strictObject({ tax_lot: taxLotReadSchema, account_uuid: uuid(), account_name: z.string().nullable() }),
  "WashSaleLot",
  "A lot relevant to wash-sale rules, with the account holding it.",
);
/** A wash-sale lot item. */
export type WashSaleLot = z.infer<typeof washSaleLotSchema>;

/** One position of an account, valued at the as-of date (extension of the account read shape). */
export const positionSchema = named(
  z.strictObject({
    theme_asset_id: z.string(),
    symbol: z.string().nullable(),
    name: z.string().nullable(),
    currency: z.string(),
    quantity: numericString(),
    lots: z.int().nonnegative(),
    price: describe(numericString(), "latest close in the listing currency; null when unknown").nullable(),
    price_date: isoDate().nullable(),
    market_value_usd: numericString().nullable(),
    cost_basis_usd: numericString(),
    unrealized_short_term_gain_usd: numericString().nullable(),
    unrealized_long_term_gain_usd: numericString().nullable(),
    weight: describe(numericString(), "market value / aum").nullable(),
  }),
  "Position",
  "A position (all lots of one asset) of an account, valued at the as-of date.",
);
/** A valued position. */
export type Position = z.infer<typeof positionSchema>;

/** Account, read shape. `name` and `portfolio_config_uuid` are extensions. */
export const accountSchema = named(
  z.strictObject({
    uuid: uuid(),
    external_id: z.string().nullable(),
    name: z.string().nullable(),
    holdings: holdingsReadSchema,
    created: isoDatetime(),
    modified: isoDatetime(),
    asset_class_settings: z.array(assetClassSettingReadSchema),
    wash_sale_lots: z.array(washSaleLotSchema),
    household_wash_sale_lots: z.array(washSaleLotSchema),
    short_lots: describe(
      z.array(shortLotReadSchema),
      "extension: open short lots (LONG_SHORT / LONG_BIASED accounts): shares owed and the short-sale proceeds as basis",
    ),
    aum: describe(numericString(), "assets under management: positions at market + cash, USD"),
    net_worth: describe(numericString(), "aum + non-tradable assets - liabilities, USD"),
    holdings_risk_annualized_percentage: describe(
      numericString(),
      "annualized volatility of the holdings in percent; null when it cannot be estimated",
    ).nullable(),
    is_read_only: z.boolean(),
    is_brokerage_backed: z.boolean(),
    is_externally_owned: z.boolean(),
    source_brokerage_connection_account_uuid: uuid().nullable(),
    source_brokerage_is_paper: z.boolean().nullable(),
    source_brokerage_account_type: z.string().nullable(),
    metadata: jsonValueSchema,
    customization_config: describe(
      portfolioConfigReadSchema.nullable(),
      "the account's overrides of its portfolio configuration, null when none",
    ),
    portfolio_config_uuid: describe(uuid(), "portfolio configuration the account follows").nullable(),
    as_of_date: describe(isoDate(), "extension: date of the prices used for values").nullable(),
    positions: describe(z.array(positionSchema), "extension: lots aggregated by asset and valued"),
    unrealized_short_term_gain_usd: describe(numericString(), "extension: sum over positions"),
    unrealized_long_term_gain_usd: describe(numericString(), "extension: sum over positions"),
    warnings: describe(
      z.array(z.string()),
      "extension: what the values above rest on that the advisor should know (e.g. a lot dated after the last market date, valued at the latest close)",
    ),
  }),
  "Account",
  "An account of a client.",
);
/** Account, read shape. */
export type Account = z.infer<typeof accountSchema>;

/** Response of the account list extension. */
export const accountListSchema = named(z.array(accountSchema), "AccountList", "Accounts of a client.");
/** Response of the account list extension. */
export type AccountList = z.infer<typeof accountListSchema>;

/** Body of account creation (extension). */
export const accountCreateSchema = named(
  z.strictObject(
    {
      external_id: describe(nonEmptyString(255), "your identifier of the account").optional(),
      name: describe(nonEmptyString(255), "display name").optional(),
      cash_value_usd: describe(
        numericString({ min: "0", max: MAX_MONEY_AMOUNT }),
        "cash held, USD; default 0",
      ).optional(),
      holdings: holdingsWriteSchema.optional(),
      metadata: jsonValueSchema.optional(),
      portfolio_config_uuid: uuid().optional(),
    },
    { error: expectedMessage("an object") },
  ),
  "AccountCreate",
  "Body of account creation (extension).",
);
/** Body of account creation. */
export type AccountCreate = z.infer<typeof accountCreateSchema>;

/** Response of the account lookup extension (`GET .../accounts/{account}/` without the client in the path). */
export const accountLookupSchema = named(
  z.strictObject({ client_uuid: uuid(), account: accountSchema }),
  "AccountLookup",
  "An account found by its uuid alone, with the client it belongs to.",
);
/** Response of the account lookup extension. */
export type AccountLookup = z.infer<typeof accountLookupSchema>;

/** Response of `GET /api/v1/me` (extension): who the presented API key is. */
export const whoAmISchema = named(
  z.strictObject({ organization_uuid: uuid(), organization_name: z.string(), api_key_id: z.string() }),
  "WhoAmI",
  "The organization and key behind the presented X-Api-Key.",
);
/** Response of `GET /api/v1/me`. */
export type WhoAmI = z.infer<typeof whoAmISchema>;
