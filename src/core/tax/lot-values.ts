/**
 * @module core/tax/lot-values
 * Values derived from a lot: per-share and USD basis, market value, unrealized gain and its character.
 *
 * Foreign-currency lots: basis is translated to USD at the purchase-date rate (`lot.fxRate`) and value at
 * the valuation-date rate, as US tax translates each amount at the spot rate of its own date (IRS,
 * "Foreign currency and currency exchange rates"; IRC §986/§988 practice for amount realized and basis).
 */

import type { Decimal } from "decimal.js";
import { toPositiveDecimal } from "./decimal.js";
import { type HoldingTerm, holdingDays, termOf } from "./holding-period.js";
import { assertValidLot, normalizeLot, type TaxLot } from "./lot.js";
import { resolveTaxRules, type TaxRulesOptions } from "./tax-rules.js";

/** Cost basis per share in the lot currency (`totalCostBasis / quantity`). @example costBasisPerShare(lot) */
export function costBasisPerShare(lot: TaxLot): Decimal {
  const l = normalizeLot(lot);
  return l.totalCostBasis.dividedBy(l.quantity);
}

/** Total cost basis in USD: `totalCostBasis / fxRate`. */
export function totalCostBasisUsd(lot: TaxLot): Decimal {
  const l = normalizeLot(lot);
  // Dividing the (at most 60-digit) basis by 1 would give the same value: skipped for USD lots.
  return l.fxRate.eq(1) ? l.totalCostBasis : l.totalCostBasis.dividedBy(l.fxRate);
}

/** Cost basis per share in USD: `totalCostBasis / fxRate / quantity`. */
export function costBasisPerShareUsd(lot: TaxLot): Decimal {
  const l = normalizeLot(lot);
  return l.totalCostBasis.dividedBy(l.fxRate).dividedBy(l.quantity);
}

/**
 * Checks a price and an FX rate for `lot`'s currency (USD lots need fxRate 1) and returns them as decimals.
 * @throws {RangeError} for a price <= 0, fxRate <= 0, or a USD lot valued at fxRate != 1.
 */
export function checkPriceAndFx(
  lot: TaxLot,
  price: Decimal.Value,
  fxRate: Decimal.Value | undefined,
  where: string,
): { price: Decimal; fxRate: Decimal } {
  const p = toPositiveDecimal(price, `${where}: price`);
  const fx = toPositiveDecimal(fxRate ?? 1, `${where}: fxRate`);
  if (lot.currency === "USD" && !fx.eq(1))
    throw new RangeError(
      `${where}: ${lot.themeAssetId} is a USD asset, its fxRate is 1 (got ${fx.toString()})`,
    );
  return { price: p, fxRate: fx };
}

/** Market value in the lot currency at `price` (per share, lot currency). */
export function marketValue(lot: TaxLot, price: Decimal.Value): Decimal {
  const l = normalizeLot(lot);
  return l.quantity.times(toPositiveDecimal(price, `marketValue(${lot.id}): price`));
}

/**
 * Market value in USD at `price` (lot currency) and the valuation-date `fxRate` (units per USD; default 1).
 * @throws {RangeError} as {@link checkPriceAndFx}.
 */
export function marketValueUsd(lot: TaxLot, price: Decimal.Value, fxRate?: Decimal.Value): Decimal {
  const l = normalizeLot(lot);
  const { price: p, fxRate: fx } = checkPriceAndFx(l, price, fxRate, `marketValueUsd(${lot.id})`);
  return l.quantity.times(p).dividedBy(fx);
}

/** Unrealized gain of a lot as of a date. */
export interface UnrealizedGain {
  lotId: string;
  marketValueUsd: Decimal;
  costBasisUsd: Decimal;
  /** `marketValueUsd - costBasisUsd`; negative for a loss. */
  gainUsd: Decimal;
  /** Character the gain would have if the lot were sold on `asOf`. */
  term: HoldingTerm;
  /** Calendar days held on `asOf` (see {@link holdingDays}). */
  holdingDays: number;
}

/** Options of {@link unrealizedGain}. */
export interface UnrealizedGainOptions extends TaxRulesOptions {
  /** Valuation-date FX rate, units of the lot currency per USD. @default 1 */
  fxRate?: Decimal.Value;
}

/**
 * Unrealized gain in USD of `lot` at `price` on `asOf`, and the term it would have if sold then:
 * `gain = quantity x price / fx_asOf - totalCostBasis / fx_purchase`.
 * @throws {RangeError} for an invalid lot, price or FX, or `asOf` before the holding-period start.
 * @example unrealizedGain(lot, "120", "2024-06-28").gainUsd
 */
export function unrealizedGain(
  lot: TaxLot,
  price: Decimal.Value,
  asOf: string,
  options: UnrealizedGainOptions = {},
): UnrealizedGain {
  assertValidLot(lot, "unrealizedGain");
  const l = normalizeLot(lot);
  const rules = resolveTaxRules(options, "unrealizedGain");
  const { price: p, fxRate: fx } = checkPriceAndFx(l, price, options.fxRate, `unrealizedGain(${lot.id})`);
  const mv = l.quantity.times(p).dividedBy(fx);
  const basis = l.totalCostBasis.dividedBy(l.fxRate);
  const days = holdingDays(l.holdingPeriodStart, asOf);
  return {
    lotId: l.id,
    marketValueUsd: mv,
    costBasisUsd: basis,
    gainUsd: mv.minus(basis),
    term: termOf(l.holdingPeriodStart, asOf, rules),
    holdingDays: days,
  };
}
