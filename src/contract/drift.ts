/**
 * @module contract/drift
 * Extension shapes of account drift (`GET .../accounts/{account}/drift/`, `lotwise accounts drift`): how far an
 * account's weights are from its target, and the status its configuration's drift thresholds give. Weights and
 * drifts are fractions of the account's NAV (cash included), as decimal strings rounded to 10 places.
 */
import * as z from "zod";
import { isoDate, numericString, themeAssetId, uuid } from "./primitives.js";
import { describe, named } from "./registry.js";

/** Drift statuses, from the configuration's thresholds. */
export const DRIFT_STATUSES = ["ok", "warning", "breach"] as const;
/** A drift status. */
export type DriftStatus = (typeof DRIFT_STATUSES)[number];

/** Query of the drift extension. */
export const driftQuerySchema = named(
  z.strictObject({
    as_of_date: describe(
      isoDate(),
      "date of the weights and the target (default: the market's latest date on or before today)",
    ).optional(),
  }),
  "DriftQuery",
  "Query of the drift extension; every parameter optional.",
);
/** Query of the drift extension. */
export type DriftQuery = z.infer<typeof driftQuerySchema>;

const fraction = (what: string) => describe(numericString(), what);

/** One asset's drift. */
export const assetDriftSchema = named(
  z.strictObject({
    theme_asset_id: themeAssetId(),
    ticker_symbol: z.string().nullable(),
    current_weight: fraction("value / NAV on the date"),
    target_weight: fraction("weight in the target on the date"),
    drift: fraction("current_weight - target_weight (negative: under target)"),
    breach: describe(
      z.boolean(),
      "|drift| >= asset_drift_breach_threshold (false when that threshold is not set)",
    ),
  }),
  "AssetDrift",
  "One asset of the account or of its target.",
);

/** An account's drift from its target (extension). */
export const accountDriftSchema = named(
  z.strictObject({
    account_uuid: uuid(),
    as_of_date: isoDate(),
    target: describe(z.string(), "where the target weights come from (index, blend of sleeves)"),
    target_weights_date: describe(
      isoDate().nullable(),
      "date of the index weights used (the last on or before as_of_date); null for single-security targets",
    ),
    nav_usd: describe(numericString(), "holdings at the closes of the date plus cash, USD"),
    total_drift: fraction(
      "half the sum of |current - target| over assets and cash: the fraction of NAV to trade (one way) to be back on target",
    ),
    max_asset_drift: fraction("largest |drift| of one asset"),
    status: describe(
      z.enum(DRIFT_STATUSES),
      "breach: total_drift >= drift_breach_threshold or an asset's |drift| >= asset_drift_breach_threshold; warning: total_drift >= drift_warning_threshold; else ok",
    ),
    reasons: describe(z.array(z.string()), "why the status is not ok, one sentence per threshold passed"),
    thresholds: z.strictObject({
      drift_warning_threshold: numericString().nullable(),
      drift_breach_threshold: numericString().nullable(),
      asset_drift_breach_threshold: numericString().nullable(),
    }),
    cash: z.strictObject({
      current_weight: fraction("cash / NAV"),
      target_weight: fraction("1 - the target's weights (0 when the target is fully invested)"),
      drift: fraction("current_weight - target_weight"),
    }),
    assets: describe(z.array(assetDriftSchema), "every asset held or in the target, largest |drift| first"),
    warnings: z.array(z.string()),
  }),
  "AccountDrift",
  "How far an account is from its target, and the status its drift thresholds give (extension).",
);
/** An account's drift from its target (extension). */
export type AccountDrift = z.infer<typeof accountDriftSchema>;
