/**
 * @module core/proposal/fx-cost
 * The FX cost of a non-USD order. All trades settle in USD: a buy converts USD into the listing currency,
 * a sell converts the proceeds back, and the broker keeps `fee% x base` of the converted USD amount.
 *
 * ```
 * fee = base x fee% / 100        net = base - fee
 * notional buy: base = the USD notional (cents)  -> net buys shares worth `net` USD
 * share buy:    net  = shares x price / fx        -> base = net / (1 - fee%/100), fee = base - net
 * sell:         base = shares x price / fx        -> net reaches USD cash
 * ```
 * A share buy grosses the base up so the converted amount pays exactly for the shares.
 */

import type { Decimal } from "decimal.js";
import type { Currency } from "../data/types.js";
import { TaxDecimal } from "../tax/index.js";
import type { FxCostBreakdown } from "./proposal-result.js";

const HUNDRED = new TaxDecimal(100);

/**
 * Breakdown of a notional buy or of a sell whose USD base amount is known: `fee = base x pct / 100`,
 * `net = base - fee`.
 * @example fxCostFromBase("CAD", 1.35, 1500, 0.25).netAmountUsd.toString() // "1496.25"
 */
export function fxCostFromBase(
  currency: Currency,
  fxRate: Decimal.Value,
  baseAmountUsd: Decimal.Value,
  feePercentage: Decimal.Value,
): FxCostBreakdown {
  const base = new TaxDecimal(baseAmountUsd);
  const pct = new TaxDecimal(feePercentage);
  const fee = base.times(pct).dividedBy(HUNDRED);
  return {
    currency,
    fxRate: new TaxDecimal(fxRate),
    baseAmountUsd: base,
    feePercentage: pct,
    feeAmountUsd: fee,
    netAmountUsd: base.minus(fee),
  };
}

/**
 * Breakdown of a buy that must deliver `netAmountUsd` (the USD cost of the shares at today's FX):
 * `base = net / (1 - pct / 100)`, `fee = base - net` (= base x pct / 100 to 64 significant digits).
 * @throws {RangeError} when the fee is 100% or more (nothing would be converted).
 * @example fxCostForNet("CAD", 1.25, 990, 1).baseAmountUsd.toString() // "1000"
 */
export function fxCostForNet(
  currency: Currency,
  fxRate: Decimal.Value,
  netAmountUsd: Decimal.Value,
  feePercentage: Decimal.Value,
): FxCostBreakdown {
  const net = new TaxDecimal(netAmountUsd);
  const pct = new TaxDecimal(feePercentage);
  const keep = HUNDRED.minus(pct).dividedBy(HUNDRED);
  if (keep.lte(0)) throw new RangeError(`fxCostForNet: fee percentage ${pct.toString()} must be below 100`);
  const base = net.dividedBy(keep);
  return {
    currency,
    fxRate: new TaxDecimal(fxRate),
    baseAmountUsd: base,
    feePercentage: pct,
    feeAmountUsd: base.minus(net),
    netAmountUsd: net,
  };
}
