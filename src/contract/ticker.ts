/**
 * @module contract/ticker
 * The ticker object of read shapes and the per-ticker lists of a configuration: no_hold_tickers,
 * no_trade_tickers (ticker references), target_ticker_weights and factor_exposure_bounds. A write names an
 * asset by `theme_asset_id`; a read expands it into the `ticker` object.
 */
import * as z from "zod";
import { orderedDecimalStrings } from "./decimal.js";
import { isoDatetime, nonEmptyString, numericString, themeAssetId } from "./primitives.js";
import { describe, named } from "./registry.js";

/** The ticker object of read shapes. */
export const tickerSchema = named(
  z.strictObject({
    theme_asset_id: themeAssetId(),
    symbol: describe(z.string(), "exchange symbol, e.g. AAPL"),
    exchange: describe(z.string(), "ISO 10383 MIC of the listing, e.g. XNAS"),
    name: describe(z.string(), "security name"),
    description: z.string().nullable(),
    image_url: z.string().nullable(),
    ticker_url: z.string().nullable(),
    ticker_type: describe(z.string(), "instrument type: equity, etf, index or fund"),
    market_cap: describe(z.int().nullable(), "latest market capitalization in USD, null when unknown"),
    sic_description: z.string().nullable(),
  }),
  "Ticker",
  "A tradable asset as shown in read shapes.",
);
/** The ticker object of read shapes. */
export type Ticker = z.infer<typeof tickerSchema>;

function validityWindow(r: {
  starts_from?: string | null | undefined;
  expires_at?: string | null | undefined;
}): boolean {
  const start = r.starts_from == null ? Number.NaN : Date.parse(r.starts_from);
  const end = r.expires_at == null ? Number.NaN : Date.parse(r.expires_at);
  // An absent or malformed bound has its own issue (or none); only two real instants can be out of order.
  return !(Number.isFinite(start) && Number.isFinite(end)) || start < end;
}
const WINDOW_ORDER = { error: "expires_at must be after starts_from", path: ["expires_at"] };

/** Item of no_hold_tickers / no_trade_tickers in a write. */
export const tickerReferenceWriteSchema = named(
  z
    .strictObject({
      theme_asset_id: themeAssetId(),
      starts_from: describe(isoDatetime(), "restriction starts at this instant").nullable().optional(),
      expires_at: describe(isoDatetime(), "restriction ends at this instant").nullable().optional(),
      condition: describe(z.string(), "condition expression under which the restriction applies")
        .nullable()
        .optional(),
    })
    .refine(validityWindow, WINDOW_ORDER),
  "TickerReferenceWrite",
  "A restricted asset (no_hold_tickers / no_trade_tickers item) in a configuration write.",
);
/** Item of no_hold_tickers / no_trade_tickers in a write. */
export type TickerReferenceWrite = z.infer<typeof tickerReferenceWriteSchema>;

/** Item of no_hold_tickers / no_trade_tickers in a read. */
export const tickerReferenceReadSchema = named(
  z.strictObject({
    ticker: tickerSchema,
    starts_from: isoDatetime().nullable(),
    expires_at: isoDatetime().nullable(),
    condition: z.string().nullable(),
  }),
  "TickerReferenceRead",
  "A restricted asset (no_hold_tickers / no_trade_tickers item) in a configuration read.",
);
/** Item of no_hold_tickers / no_trade_tickers in a read. */
export type TickerReferenceRead = z.infer<typeof tickerReferenceReadSchema>;

/** A per-asset weight or bound: a fraction of the portfolio from -1 to 1 (0.05 = 5%), refused with the unit beyond. */
function tickerFraction(field: string) {
  return { min: "-1", max: "1", unitHint: `${field} is a fraction of the portfolio, -1 to 1: 0.05 means 5%` };
}

/** Numeric fields of a target_ticker_weights item (weights as fractions; decimal strings). */
export const TARGET_TICKER_WEIGHT_FIELDS = [
  "target_weight",
  "lower_bound",
  "upper_bound",
  "min_active",
  "max_active",
] as const;

/** Item of target_ticker_weights in a write; every bound optional (null = no bound). */
export const targetTickerWeightWriteSchema = named(
  z
    .strictObject({
      theme_asset_id: themeAssetId(),
      target_weight: describe(numericString(tickerFraction("target_weight")), "target weight, fraction")
        .nullable()
        .optional(),
      lower_bound: describe(numericString(tickerFraction("lower_bound")), "lower bound of the weight")
        .nullable()
        .optional(),
      upper_bound: describe(numericString(tickerFraction("upper_bound")), "upper bound of the weight")
        .nullable()
        .optional(),
      min_active: describe(numericString(tickerFraction("min_active")), "lower bound of the active weight")
        .nullable()
        .optional(),
      max_active: describe(numericString(tickerFraction("max_active")), "upper bound of the active weight")
        .nullable()
        .optional(),
      condition: z.string().nullable().optional(),
    })
    .refine((t) => orderedDecimalStrings(t.lower_bound, t.upper_bound), {
      error: "upper_bound is below lower_bound",
      path: ["upper_bound"],
    })
    .refine((t) => orderedDecimalStrings(t.min_active, t.max_active), {
      error: "max_active is below min_active",
      path: ["max_active"],
    }),
  "TargetTickerWeightWrite",
  "Per-asset target and bounds in a configuration write.",
);
/** Item of target_ticker_weights in a write. */
export type TargetTickerWeightWrite = z.infer<typeof targetTickerWeightWriteSchema>;

/** Item of target_ticker_weights in a read. */
export const targetTickerWeightReadSchema = named(
  z.strictObject({
    ticker: tickerSchema,
    target_weight: numericString().nullable(),
    lower_bound: numericString().nullable(),
    upper_bound: numericString().nullable(),
    min_active: numericString().nullable(),
    max_active: numericString().nullable(),
    condition: z.string().nullable(),
  }),
  "TargetTickerWeightRead",
  "Per-asset target and bounds in a configuration read.",
);
/** Item of target_ticker_weights in a read. */
export type TargetTickerWeightRead = z.infer<typeof targetTickerWeightReadSchema>;

/** Item of factor_exposure_bounds in a write: a factor name and optional bounds (null = no bound). */
export const factorExposureBoundWriteSchema = named(
  z
    .strictObject({
      factor: describe(nonEmptyString(), "factor name, e.g. momentum or a characteristic name"),
      min_bound: numericString().nullable().optional(),
      max_bound: numericString().nullable().optional(),
      min_active_bound: numericString().nullable().optional(),
      max_active_bound: numericString().nullable().optional(),
    })
    .refine((b) => orderedDecimalStrings(b.min_bound, b.max_bound), {
      error: "max_bound is below min_bound",
      path: ["max_bound"],
    })
    .refine((b) => orderedDecimalStrings(b.min_active_bound, b.max_active_bound), {
      error: "max_active_bound is below min_active_bound",
      path: ["max_active_bound"],
    }),
  "FactorExposureBoundWrite",
  "Bounds on the portfolio's exposure to one factor, in a configuration write.",
);
/** Item of factor_exposure_bounds in a write. */
export type FactorExposureBoundWrite = z.infer<typeof factorExposureBoundWriteSchema>;

/** Item of factor_exposure_bounds in a read: every bound present, null when unset. */
export const factorExposureBoundReadSchema = named(
  z.strictObject({
    factor: z.string(),
    min_bound: numericString().nullable(),
    max_bound: numericString().nullable(),
    min_active_bound: numericString().nullable(),
    max_active_bound: numericString().nullable(),
  }),
  "FactorExposureBoundRead",
  "Bounds on the portfolio's exposure to one factor, in a configuration read.",
);
/** Item of factor_exposure_bounds in a read. */
export type FactorExposureBoundRead = z.infer<typeof factorExposureBoundReadSchema>;

/** Body of the ticker resolution extension: symbols or theme_asset_ids to look up in the security master. */
export const tickerResolveRequestSchema = named(
  z.strictObject({
    tickers: z.array(z.string().min(1).max(64)).min(1).max(5000),
  }),
  "TickerResolveRequest",
  "Symbols (AAPL) or theme_asset_ids (AAPL:XNAS) to resolve against the security master.",
);
/** Body of the ticker resolution extension. */
export type TickerResolveRequest = z.infer<typeof tickerResolveRequestSchema>;

/** One answer of the ticker resolution extension. */
export const tickerResolutionSchema = named(
  z.strictObject({
    query: z.string(),
    theme_asset_id: z.string().nullable(),
    ticker: tickerSchema.nullable(),
    error: describe(z.enum(["unknown", "ambiguous"]), "why the query did not resolve").nullable(),
    message: z.string().nullable(),
    matches: describe(z.array(z.string()), "listings sharing an ambiguous symbol"),
  }),
  "TickerResolution",
  "How one query resolved: a listing, or why not.",
);
/** One answer of the ticker resolution extension. */
export type TickerResolution = z.infer<typeof tickerResolutionSchema>;

/** Response of the ticker resolution extension, in the order of the request. */
export const tickerResolveResponseSchema = named(
  z.strictObject({ results: z.array(tickerResolutionSchema) }),
  "TickerResolveResponse",
  "Resolutions in request order.",
);
/** Response of the ticker resolution extension. */
export type TickerResolveResponse = z.infer<typeof tickerResolveResponseSchema>;
