/**
 * @module core/tax/tax-cost
 * Summaries of realized gains by character, and their linear tax cost for the optimizer and proposals.
 */

import type { Decimal } from "decimal.js";
import { toNonNegativeDecimal, toTaxDecimal, ZERO } from "./decimal.js";
import { normalizeRecord, type RealizedGain } from "./realized-gain.js";

/** Recognized gains and losses by character, USD. Losses are negative numbers. */
export interface GainSummary {
  /** Sum of positive short-term recognized gains. */
  shortTermGains: Decimal;
  /** Sum of negative short-term recognized gains (<= 0). */
  shortTermLosses: Decimal;
  longTermGains: Decimal;
  longTermLosses: Decimal;
  /** shortTermGains + shortTermLosses. */
  netShortTerm: Decimal;
  /** longTermGains + longTermLosses. */
  netLongTerm: Decimal;
  /** Loss disallowed by wash sales (moved into replacement basis), USD >= 0. */
  disallowedLoss: Decimal;
}

/**
 * Sums recognized gains (after wash-sale disallowance) by character.
 * @throws {TypeError} for a malformed record.
 * @example summarizeGains(result.realized).netShortTerm
 */
export function summarizeGains(records: readonly RealizedGain[]): GainSummary {
  let stg = ZERO;
  let stl = ZERO;
  let ltg = ZERO;
  let ltl = ZERO;
  let dis = ZERO;
  for (const raw of records) {
    const r = normalizeRecord(raw, "summarizeGains");
    const g = r.recognizedGainUsd;
    if (r.term === "short_term") {
      if (g.isNegative()) stl = stl.plus(g);
      else stg = stg.plus(g);
    } else if (g.isNegative()) ltl = ltl.plus(g);
    else ltg = ltg.plus(g);
    dis = dis.plus(r.disallowedLossUsd);
  }
  return {
    shortTermGains: stg,
    shortTermLosses: stl,
    longTermGains: ltg,
    longTermLosses: ltl,
    netShortTerm: stg.plus(stl),
    netLongTerm: ltg.plus(ltl),
    disallowedLoss: dis,
  };
}

/** Tax rates as fractions (0.37 = 37%), as in tax_preferences. */
export interface TaxRates {
  shortTermRate: Decimal.Value;
  longTermRate: Decimal.Value;
}

/**
 * Linear tax cost of realized gains: `short_term x shortTermRate + long_term x longTermRate`. Losses give a
 * negative cost (tax alpha). This is the optimizer's tax term (PRODUCT.md section 4): linear in each lot's
 * gain, with no netting limit; year-end netting is {@link settleTaxYear}'s job.
 * @param gains net short- and long-term gains, USD (e.g. from {@link summarizeGains}).
 * @throws {RangeError} for a rate outside [0, 1] or a non-finite value.
 * @example taxCost({ shortTerm: "1000", longTerm: "-500" }, { shortTermRate: "0.37", longTermRate: "0.2" }) // 270
 */
export function taxCost(
  gains: { shortTerm: Decimal.Value; longTerm: Decimal.Value },
  rates: TaxRates,
): Decimal {
  const st = toRate(rates.shortTermRate, "taxCost: shortTermRate");
  const lt = toRate(rates.longTermRate, "taxCost: longTermRate");
  const g = toTaxDecimal(gains.shortTerm, "taxCost: gains.shortTerm");
  const h = toTaxDecimal(gains.longTerm, "taxCost: gains.longTerm");
  return g.times(st).plus(h.times(lt));
}

/**
 * A tax rate as a fraction in [0, 1].
 * @throws {RangeError} outside [0, 1] (a value like 37 is a percent: pass 0.37).
 */
export function toRate(value: Decimal.Value, where: string): Decimal {
  const r = toNonNegativeDecimal(value, where);
  if (r.gt(1))
    throw new RangeError(`${where}: rates are fractions in [0, 1] (0.37 = 37%), got ${r.toString()}`);
  return r;
}
