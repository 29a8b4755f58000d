/**
 * @module core/backtest/policies/characteristic-overlay
 * The long-short overlay of the `long_short_tlh` case: long the benchmark members that score highest on a
 * characteristic, short those that score lowest, equal weights within each leg, with the same gross exposure
 * on each side (so the overlay is dollar-neutral: a 130/30 account at the default 30%). Its two legs move
 * apart, which creates more lots with losses to harvest than the index alone.
 */
import { DataError } from "../../errors.js";
import type { MarketView } from "../market-view.js";

/** Factors of the long-short case (the contract's `ls_tlh_factor`). */
export type LongShortFactor = "quality" | "value" | "growth";

/**
 * Characteristics that measure each factor, in order of preference (shared-decisions.md names): quality =
 * profitability (ROE), value = book-to-price (else earnings yield), growth = sales growth.
 */
export const LONG_SHORT_FACTOR_CHARACTERISTICS: Readonly<Record<LongShortFactor, readonly string[]>> = {
  quality: ["profitability"],
  value: ["book_to_price", "earnings_yield"],
  growth: ["growth"],
};

/** Default gross exposure of each leg, fraction of NAV (130/30). */
export const DEFAULT_OVERLAY_GROSS = 0.3;
/** Default share of the scored benchmark members in each leg (top and bottom quintiles). */
export const DEFAULT_OVERLAY_QUANTILE = 0.2;

/** Options of {@link characteristicOverlay}. */
export interface CharacteristicOverlayOptions {
  readonly factor: LongShortFactor;
  /** @default 0.3 */
  readonly grossExposure?: number;
  /** @default 0.2 */
  readonly quantile?: number;
}

/**
 * Overlay weights on the view date (sum 0): +gross / m on the m highest-scoring benchmark members with a
 * price, -gross / m on the m lowest, m = floor(quantile x members scored); ties broken by theme_asset_id.
 * @throws {DataError} (code `missing_characteristic`) when no member has a value of the factor's
 *   characteristics on or before the view date.
 * @throws {RangeError} for a gross exposure outside [0, 1] or a quantile outside (0, 0.5].
 */
export function characteristicOverlay(
  view: MarketView,
  benchmark: Float64Array,
  options: CharacteristicOverlayOptions,
): Float64Array {
  const gross = options.grossExposure ?? DEFAULT_OVERLAY_GROSS;
  const quantile = options.quantile ?? DEFAULT_OVERLAY_QUANTILE;
  if (!(gross >= 0 && gross <= 1))
    throw new RangeError(`characteristicOverlay: grossExposure must be in [0, 1], got ${gross}`);
  if (!(quantile > 0 && quantile <= 0.5))
    throw new RangeError(`characteristicOverlay: quantile must be in (0, 0.5], got ${quantile}`);
  const names = LONG_SHORT_FACTOR_CHARACTERISTICS[options.factor];
  if (names === undefined)
    throw new RangeError(`characteristicOverlay: unknown factor ${String(options.factor)}`);
  const n = view.size;
  let values: Float64Array | null = null;
  for (const name of names) {
    const v = view.characteristic(name);
    if (v?.some((x, i) => benchmark[i]! > 0 && Number.isFinite(x))) {
      values = v;
      break;
    }
  }
  if (values === null)
    throw new DataError(
      `The ${options.factor} overlay needs ${names.join(" or ")} of the benchmark members on or before ${view.date}; import or generate that characteristic.`,
      { code: "missing_characteristic" },
    );
  const scored: number[] = [];
  for (let i = 0; i < n; i++)
    if (benchmark[i]! > 0 && Number.isFinite(values[i]!) && !Number.isNaN(view.price(i))) scored.push(i);
  const v = values;
  scored.sort((a, b) => v[b]! - v[a]! || (view.ids[a]! < view.ids[b]! ? -1 : 1));
  const m = Math.floor(quantile * scored.length);
  const out = new Float64Array(n);
  if (m === 0 || gross === 0) return out;
  for (let k = 0; k < m; k++) {
    out[scored[k]!]! += gross / m;
    out[scored[scored.length - 1 - k]!]! -= gross / m;
  }
  return out;
}
