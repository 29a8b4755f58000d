/**
 * @module core/proposal/realized-summary
 * Realized gains of an order from its lot lines, with the configuration's capital-gains reduction of the
 * asset (the tax engine's rule, docs/tax.md section 8): the recognized net of the asset (short + long) is
 * reduced by `min(amount, net)` USD (DOLLARS) or `amount% x net` (PERCENT) when positive, and the
 * reduction is split over the positive short- and long-term parts pro rata to their size.
 */

import type { Decimal } from "decimal.js";
import { type CapitalGainsReductionUnits, capitalGainsReduction, TaxDecimal } from "../tax/index.js";
import type { ProposalTaxLot, RealizedSummary } from "./proposal-result.js";

const ZERO = new TaxDecimal(0);

/** A summary with every figure zero. */
export function emptyRealized(): RealizedSummary {
  return {
    shortTermUsd: ZERO,
    longTermUsd: ZERO,
    disallowedLossUsd: ZERO,
    capitalGainsReductionUsd: ZERO,
    taxableShortTermUsd: ZERO,
    taxableLongTermUsd: ZERO,
  };
}

/**
 * Summary of the lot lines of one asset's order; `reduction` is the asset's `capital_gains_reductions`
 * entry (undefined = none).
 * @throws {RangeError} for a PERCENT reduction above 100 or a negative amount (checked at entry before).
 */
export function realizedOfLots(
  lots: readonly ProposalTaxLot[],
  reduction: Decimal.Value | undefined,
  units: CapitalGainsReductionUnits,
): RealizedSummary {
  let st = ZERO;
  let lt = ZERO;
  let disallowed = ZERO;
  for (const l of lots) {
    if (l.term === "short_term") st = st.plus(l.recognizedGainUsd);
    else lt = lt.plus(l.recognizedGainUsd);
    disallowed = disallowed.plus(l.disallowedLossUsd);
  }
  const cut = reduction === undefined ? ZERO : capitalGainsReduction(st.plus(lt), reduction, units);
  let stCut = ZERO;
  if (!cut.isZero()) {
    const sp = st.gt(0) ? st : ZERO;
    const lp = lt.gt(0) ? lt : ZERO;
    stCut = sp.eq(sp.plus(lp)) ? cut : cut.times(sp).dividedBy(sp.plus(lp));
  }
  const ltCut = cut.minus(stCut);
  return {
    shortTermUsd: st,
    longTermUsd: lt,
    disallowedLossUsd: disallowed,
    capitalGainsReductionUsd: cut,
    taxableShortTermUsd: st.minus(stCut),
    taxableLongTermUsd: lt.minus(ltCut),
  };
}

/** Field-by-field sum of two summaries. */
export function addRealized(a: RealizedSummary, b: RealizedSummary): RealizedSummary {
  return {
    shortTermUsd: a.shortTermUsd.plus(b.shortTermUsd),
    longTermUsd: a.longTermUsd.plus(b.longTermUsd),
    disallowedLossUsd: a.disallowedLossUsd.plus(b.disallowedLossUsd),
    capitalGainsReductionUsd: a.capitalGainsReductionUsd.plus(b.capitalGainsReductionUsd),
    taxableShortTermUsd: a.taxableShortTermUsd.plus(b.taxableShortTermUsd),
    taxableLongTermUsd: a.taxableLongTermUsd.plus(b.taxableLongTermUsd),
  };
}
