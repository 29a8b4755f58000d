/**
 * @module core/tax/capital-gains-reductions
 * The configuration's `capital_gains_reductions` (theme_asset_id -> amount) with
 * `capital_gains_reductions_units` DOLLARS (default) or PERCENT.
 *
 * Semantics (our decision; the spec only names the fields): within one evaluation — one sale, one proposal,
 * one optimizer rebalance — the recognized gains of an asset are netted (short- and long-term together) and,
 * when that net is positive, reduced:
 * - DOLLARS r: by min(r, net) USD;
 * - PERCENT p: by p% of net (0 <= p <= 100).
 * The reduction never takes the asset's net below zero and never touches losses; it is allocated to the
 * asset's positive short- and long-term parts pro rata to their size, so the character mix is preserved.
 * The optimizer and the proposal apply it to the tax cost of sells; it is not a budget carried across
 * evaluations, and settleTaxYear does not apply it (pass it reduced gains if you want that).
 */

import type { Decimal } from "decimal.js";
import { proRata, toNonNegativeDecimal, toTaxDecimal, ZERO } from "./decimal.js";
import { normalizeRecord, type RealizedGain } from "./realized-gain.js";

/** Units of `capital_gains_reductions`. */
export type CapitalGainsReductionUnits = "DOLLARS" | "PERCENT";

/** Default units (spec: library default DOLLARS). */
export const DEFAULT_CAPITAL_GAINS_REDUCTION_UNITS: CapitalGainsReductionUnits = "DOLLARS";

/**
 * The reduction applicable to an asset whose recognized net gain is `netGain` USD:
 * DOLLARS: `min(amount, max(net, 0))`; PERCENT: `amount / 100 x max(net, 0)`.
 * @throws {RangeError} for a negative amount, a PERCENT amount over 100, or unknown units.
 * @example capitalGainsReduction("1000", "400", "DOLLARS") // 400
 * @example capitalGainsReduction("1000", "25", "PERCENT") // 250
 */
export function capitalGainsReduction(
  netGain: Decimal.Value,
  amount: Decimal.Value,
  units: CapitalGainsReductionUnits = DEFAULT_CAPITAL_GAINS_REDUCTION_UNITS,
): Decimal {
  const net = toTaxDecimal(netGain, "capitalGainsReduction: netGain");
  const a = toNonNegativeDecimal(amount, "capitalGainsReduction: amount");
  const positive = net.gt(0) ? net : ZERO;
  if (units === "DOLLARS") return a.lt(positive) ? a : positive;
  if (units === "PERCENT") {
    if (a.gt(100))
      throw new RangeError(`capitalGainsReduction: a PERCENT reduction is at most 100, got ${a.toString()}`);
    return positive.times(a).dividedBy(100);
  }
  throw new RangeError(`capitalGainsReduction: units must be "DOLLARS" or "PERCENT", got ${String(units)}`);
}

/** Gains of one asset before and after its reduction, USD. */
export interface AssetReducedGains {
  themeAssetId: string;
  /** Recognized net short- and long-term gain before the reduction. */
  shortTermBefore: Decimal;
  longTermBefore: Decimal;
  /** The reduction applied (>= 0). */
  reduction: Decimal;
  /** Taxable short- and long-term gain after it. */
  shortTerm: Decimal;
  longTerm: Decimal;
}

/** Result of {@link applyCapitalGainsReductions}. */
export interface ReducedGains {
  /** One entry per asset with realized records, sorted by theme_asset_id. */
  byAsset: AssetReducedGains[];
  /** Totals after reductions (assets without a reduction count in full). */
  shortTerm: Decimal;
  longTerm: Decimal;
  totalReduction: Decimal;
}

/**
 * Applies `reductions` to the recognized gains of `records`, asset by asset (see the module doc for the rule).
 * @throws {RangeError} as {@link capitalGainsReduction}.
 * @example applyCapitalGainsReductions(sale.realized, { "AAPL:XNAS": "500" }, "DOLLARS").shortTerm
 */
export function applyCapitalGainsReductions(
  records: readonly RealizedGain[],
  reductions: Readonly<Record<string, Decimal.Value>>,
  units: CapitalGainsReductionUnits = DEFAULT_CAPITAL_GAINS_REDUCTION_UNITS,
): ReducedGains {
  const per = new Map<string, { st: Decimal; lt: Decimal }>();
  for (const raw of records) {
    const r = normalizeRecord(raw, "applyCapitalGainsReductions");
    const e = per.get(r.themeAssetId) ?? { st: ZERO, lt: ZERO };
    if (r.term === "short_term") e.st = e.st.plus(r.recognizedGainUsd);
    else e.lt = e.lt.plus(r.recognizedGainUsd);
    per.set(r.themeAssetId, e);
  }
  const byAsset: AssetReducedGains[] = [];
  let st = ZERO;
  let lt = ZERO;
  let total = ZERO;
  for (const id of [...per.keys()].sort()) {
    const { st: s, lt: l } = per.get(id)!;
    const amount = Object.hasOwn(reductions, id) ? reductions[id]! : 0;
    const reduction = capitalGainsReduction(s.plus(l), amount, units);
    // Pro rata over the positive parts; reduction <= net <= positive sum, so no part goes below zero.
    const sp = s.gt(0) ? s : ZERO;
    const lp = l.gt(0) ? l : ZERO;
    const positive = sp.plus(lp);
    const stCut = reduction.isZero() ? ZERO : proRata(reduction, sp, positive);
    const ltCut = reduction.minus(stCut);
    const entry: AssetReducedGains = {
      themeAssetId: id,
      shortTermBefore: s,
      longTermBefore: l,
      reduction,
      shortTerm: s.minus(stCut),
      longTerm: l.minus(ltCut),
    };
    byAsset.push(entry);
    st = st.plus(entry.shortTerm);
    lt = lt.plus(entry.longTerm);
    total = total.plus(reduction);
  }
  return { byAsset, shortTerm: st, longTerm: lt, totalReduction: total };
}
