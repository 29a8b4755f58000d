/**
 * @module core/tax/realized-gain
 * The record of one lot consumption by a sale: proceeds, basis, gain, character and wash-sale disallowance.
 *
 * `gainUsd = proceeds_usd - basis_usd` with `proceeds_usd = quantity x price / fx_sale` and
 * `basis_usd = consumed_basis / fx_purchase` (each amount translated at its own date's rate).
 * `recognizedGainUsd = gainUsd + disallowedLossUsd`: the part of a loss disallowed by the wash-sale rule is
 * not recognized now; it moves into the replacement lot's basis (IRC §1091(a), (d); Publication 550).
 */

import type { Decimal } from "decimal.js";
import type { Currency } from "../data/types.js";
import { divideByRate, proRata, TaxDecimal, ZERO } from "./decimal.js";
import { type HoldingTerm, holdingDays, termOf } from "./holding-period.js";
import type { TaxLot } from "./lot.js";
import type { TaxRules } from "./tax-rules.js";

/** One replacement match of a loss sale: `quantity` loss shares matched to shares of `replacementLotId`. */
export interface WashSaleMatch {
  /** Id of the replacement lot (after any carving) whose basis received the disallowed loss. */
  readonly replacementLotId: string;
  /** Loss shares matched (equal to the replacement shares). */
  readonly quantity: Decimal;
  /** Loss disallowed by this match, USD (> 0). */
  readonly disallowedLossUsd: Decimal;
  /** Date of the adjustment: the later of the sale and the replacement purchase. */
  readonly date: string;
}

/** The realization of `quantity` shares of one lot by one sale. */
export interface RealizedGain {
  readonly lotId: string;
  readonly accountId?: string;
  readonly themeAssetId: string;
  readonly quantity: Decimal;
  readonly saleDate: string;
  readonly tradeDate: string;
  /** Holding-period start of the sold shares (tacked periods included). */
  readonly holdingPeriodStart: string;
  /** Calendar days held (sale date - holding-period start). */
  readonly holdingDays: number;
  readonly term: HoldingTerm;
  readonly currency: Currency;
  /** Sale price per share in the lot currency. */
  readonly price: Decimal;
  /** FX of the lot (purchase) and of the sale, units per USD. */
  readonly lotFxRate: Decimal;
  readonly saleFxRate: Decimal;
  /** Proceeds and consumed basis in the lot currency. */
  readonly proceeds: Decimal;
  readonly costBasis: Decimal;
  /** Proceeds and consumed basis in USD. */
  readonly proceedsUsd: Decimal;
  readonly costBasisUsd: Decimal;
  /** Economic gain, USD: proceedsUsd - costBasisUsd (negative for a loss). */
  readonly gainUsd: Decimal;
  /** Loss disallowed by wash sales so far, USD (>= 0; 0 for gains). */
  readonly disallowedLossUsd: Decimal;
  /** Loss shares already matched to replacement shares (<= quantity). */
  readonly washedQuantity: Decimal;
  readonly washSaleMatches: readonly WashSaleMatch[];
  /** Gain recognized for tax: gainUsd + disallowedLossUsd. */
  readonly recognizedGainUsd: Decimal;
}

/** True when the record is a loss sale (economic loss < 0). */
export function isLossSale(record: RealizedGain): boolean {
  return record.gainUsd.isNegative() && !record.gainUsd.isZero();
}

/**
 * Figures of a consumption that the lot selection already computed, with the values {@link realizeLot} would
 * compute (consumed basis pro rata, its USD value, the term): passed to save the work, never to change a result.
 */
export interface KnownConsumption {
  readonly costBasis: Decimal;
  readonly costBasisUsd: Decimal;
  readonly term: HoldingTerm;
}

/**
 * Consumes `quantity` (0 < quantity <= lot.quantity) of `lot` at `price` / `saleFxRate` on `saleDate`;
 * `fees` (lot currency, this consumption's share of the sale's fees) reduce the proceeds.
 * Returns the realization record (no wash sale applied yet) and the remainder lot (null when fully consumed).
 * Basis moves pro rata; the remainder's basis is `total - consumed`, so basis is conserved exactly.
 * Internal building block of applySale; inputs are assumed validated and normalized.
 */
export function realizeLot(
  lot: TaxLot,
  quantity: Decimal,
  price: Decimal,
  saleFxRate: Decimal,
  saleDate: string,
  rules: TaxRules,
  fees: Decimal = ZERO,
  known?: KnownConsumption,
): { record: RealizedGain; remainder: TaxLot | null } {
  const costBasis = known ? known.costBasis : proRata(lot.totalCostBasis, quantity, lot.quantity);
  const proceeds = fees.isZero() ? quantity.times(price) : quantity.times(price).minus(fees);
  const proceedsUsd = divideByRate(proceeds, saleFxRate);
  const costBasisUsd = known ? known.costBasisUsd : divideByRate(costBasis, lot.fxRate);
  const gainUsd = proceedsUsd.minus(costBasisUsd);
  const days = holdingDays(lot.holdingPeriodStart, saleDate);
  const loss = gainUsd.isNegative() && !gainUsd.isZero();
  const record: RealizedGain = {
    lotId: lot.id,
    ...(lot.accountId === undefined ? {} : { accountId: lot.accountId }),
    themeAssetId: lot.themeAssetId,
    quantity,
    saleDate,
    tradeDate: lot.tradeDate,
    holdingPeriodStart: lot.holdingPeriodStart,
    holdingDays: days,
    term: known ? known.term : termOf(lot.holdingPeriodStart, saleDate, rules),
    currency: lot.currency,
    price,
    lotFxRate: lot.fxRate,
    saleFxRate,
    proceeds,
    costBasis,
    proceedsUsd,
    costBasisUsd,
    gainUsd,
    disallowedLossUsd: ZERO,
    washedQuantity: ZERO,
    washSaleMatches: [],
    recognizedGainUsd: gainUsd,
  };
  const remainder: TaxLot | null = quantity.eq(lot.quantity)
    ? null
    : {
        ...lot,
        quantity: lot.quantity.minus(quantity),
        totalCostBasis: lot.totalCostBasis.minus(costBasis),
        lastSoldForLossDate: loss ? saleDate : lot.lastSoldForLossDate,
      };
  return { record, remainder };
}

/** The decimal fields of a {@link RealizedGain} (what a stored record revives from text). */
export const REALIZED_GAIN_DECIMALS = [
  "quantity",
  "price",
  "lotFxRate",
  "saleFxRate",
  "proceeds",
  "costBasis",
  "proceedsUsd",
  "costBasisUsd",
  "gainUsd",
  "disallowedLossUsd",
  "washedQuantity",
  "recognizedGainUsd",
] as const;

/**
 * Checks a realized record's decimal fields and returns it with {@link TaxDecimal} instances (the record itself
 * when they all are).
 * @throws {TypeError} when a decimal field is missing or not a finite Decimal.
 */
export function normalizeRecord(record: RealizedGain, where: string): RealizedGain {
  let out: Record<string, unknown> | null = null;
  for (const f of REALIZED_GAIN_DECIMALS) {
    const v = record[f] as unknown;
    if (
      v === null ||
      typeof v !== "object" ||
      typeof (v as Decimal).isFinite !== "function" ||
      !(v as Decimal).isFinite()
    )
      throw new TypeError(`${where}: realized record of lot ${record.lotId}: ${f} must be a finite Decimal`);
    // A value already made by TaxDecimal is kept (Decimals are immutable); the record is copied only when one
    // field needs converting.
    if ((v as { constructor: unknown }).constructor === TaxDecimal) continue;
    out ??= { ...record };
    out[f] = new TaxDecimal(v as Decimal);
  }
  return out === null ? record : (out as unknown as RealizedGain);
}
