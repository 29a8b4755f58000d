/**
 * @module contract/harvest
 * Extension shapes of the harvest scan (`GET .../accounts/{account}/harvest/`, `lotwise accounts harvest`): the
 * account's lots at an unrealized loss on a date, which of them can be sold now (loss past the threshold, no wash
 * sale in the account or the household, no no-trade restriction), the estimated tax value of those losses at the
 * configuration's rates, and the replacements that keep the exposure. Money in USD as decimal strings rounded to
 * cents, fractions rounded to 10 places (docs/harvest.md).
 */
import * as z from "zod";
import { boundedInt, isoDate, numericString, themeAssetId, uuid } from "./primitives.js";
import { describe, named } from "./registry.js";

/** Default `min_loss_fraction`: the backtest's default harvesting threshold (500 bps of the basis). */
export const DEFAULT_MIN_LOSS_FRACTION = "0.05";
/** Default `min_loss_usd`. */
export const DEFAULT_MIN_LOSS_USD = "0";

/** Why a lot at a loss is not harvestable now. */
export const HARVEST_BLOCK_REASONS = [
  "below_threshold",
  "wash_sale_account",
  "wash_sale_household",
  "no_trade",
] as const;
/** Why a lot at a loss is not harvestable now. */
export type HarvestBlockReason = (typeof HARVEST_BLOCK_REASONS)[number];

/** Query of the harvest-scan extension. */
export const harvestQuerySchema = named(
  z.strictObject({
    as_of_date: describe(
      isoDate(),
      "date of the scan (default: the market's latest date on or before today)",
    ).optional(),
    min_loss_usd: describe(
      numericString({ min: "0" }),
      `a lot is harvestable only when its loss is at least this many USD (default ${DEFAULT_MIN_LOSS_USD})`,
    ).optional(),
    min_loss_fraction: describe(
      numericString({ min: "0", max: "1" }),
      `a lot is harvestable only when its loss is at least this fraction of its USD cost basis (default ${DEFAULT_MIN_LOSS_FRACTION}, the backtest's 500 bps)`,
    ).optional(),
  }),
  "HarvestQuery",
  "Query of the harvest-scan extension; every parameter optional.",
);
/** Query of the harvest-scan extension. */
export type HarvestQuery = z.infer<typeof harvestQuerySchema>;

const usd = (what: string) => describe(numericString(), what);

/** One lot at an unrealized loss. */
export const harvestLotSchema = named(
  z.strictObject({
    lot_uuid: uuid(),
    theme_asset_id: themeAssetId(),
    ticker_symbol: z.string().nullable(),
    trade_date: isoDate(),
    quantity: describe(numericString(), "shares held on the date (split-adjusted)"),
    cost_basis_usd: usd("total cost basis in USD (at the purchase FX rate)"),
    value_usd: usd("quantity x close of the date / FX of the date"),
    loss_usd: usd("cost_basis_usd - value_usd (positive: the loss a sale would realize)"),
    loss_fraction: describe(numericString(), "loss_usd / cost_basis_usd"),
    term: describe(
      z.enum(["short_term", "long_term"]),
      "character of the loss if sold on the date (IRS holding-period rule)",
    ),
    estimated_tax_value_usd: usd("loss_usd x the rate of its term (short_term_rate or long_term_rate)"),
    harvestable: describe(z.boolean(), "true when reasons is empty: the lot can be sold at a loss now"),
    reasons: describe(
      z.array(z.enum(HARVEST_BLOCK_REASONS)),
      "why not harvestable: below_threshold, wash_sale_account (another lot of the asset bought in this account within the window), wash_sale_household (bought in another account of the client within the window), no_trade (a no-trade restriction in force)",
    ),
    wash_sale_window_ends: describe(
      isoDate().nullable(),
      "last day of the wash-sale window that blocks the lot (it can be harvested the day after); null when no window blocks it",
    ),
  }),
  "HarvestLot",
  "One lot of the account at an unrealized loss on the date.",
);
/** One lot at an unrealized loss. */
export type HarvestLot = z.infer<typeof harvestLotSchema>;

/** A candidate replacement of a harvested asset. */
export const harvestSubstituteSchema = named(
  z.strictObject({
    theme_asset_id: themeAssetId(),
    ticker_symbol: z.string().nullable(),
    correlation: describe(
      numericString(),
      "correlation of daily USD total returns with the harvested asset over the trailing year",
    ),
    shared_classification: describe(
      z.enum(["sub_industry", "industry", "industry_group", "sector"]),
      "finest level of the industry classification the two share",
    ),
  }),
  "HarvestSubstitute",
  "A replacement that keeps the exposure of a harvested asset without being the same security.",
);

/** Replacements of one harvestable asset. */
export const harvestAssetSubstitutesSchema = named(
  z.strictObject({
    theme_asset_id: themeAssetId(),
    ticker_symbol: z.string().nullable(),
    candidates: describe(
      z.array(harvestSubstituteSchema),
      "up to 3, most correlated first; empty when none qualifies",
    ),
  }),
  "HarvestAssetSubstitutes",
  "Candidate replacements of one harvestable asset.",
);

/** The harvest scan of an account (extension). */
export const harvestScanSchema = named(
  z.strictObject({
    account_uuid: uuid(),
    as_of_date: isoDate(),
    thresholds: z.strictObject({
      min_loss_usd: numericString(),
      min_loss_fraction: numericString(),
      wash_sale_threshold: describe(boundedInt(0, 2_147_483_647), "wash-sale window, calendar days"),
      long_term_threshold: describe(
        boundedInt(0, 2_147_483_647),
        "days held after which a loss is long-term",
      ),
    }),
    rates: z.strictObject({
      short_term_rate: describe(numericString(), "tax_preferences.short_term_rate (default 0.37)"),
      long_term_rate: describe(numericString(), "tax_preferences.long_term_rate (default 0.2)"),
    }),
    totals: z.strictObject({
      loss_lots: describe(z.number().int(), "lots at an unrealized loss"),
      harvestable_lots: z.number().int(),
      harvestable_loss_usd: usd("sum of loss_usd over harvestable lots"),
      harvestable_short_term_loss_usd: usd("the short-term part"),
      harvestable_long_term_loss_usd: usd("the long-term part"),
      estimated_tax_value_usd: usd(
        "sum of estimated_tax_value_usd over harvestable lots (no netting against realized gains)",
      ),
    }),
    lots: describe(
      z.array(harvestLotSchema),
      "every lot at a loss: harvestable first, then the largest loss first",
    ),
    substitutes: describe(
      z.array(harvestAssetSubstitutesSchema),
      "one entry per asset with a harvestable lot, largest harvestable loss first",
    ),
    warnings: z.array(z.string()),
  }),
  "HarvestScan",
  "Lots worth harvesting now, their estimated tax value and replacements (extension).",
);
/** The harvest scan of an account (extension). */
export type HarvestScan = z.infer<typeof harvestScanSchema>;
