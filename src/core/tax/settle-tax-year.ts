/**
 * @module core/tax/settle-tax-year
 * Year-end capital gains settlement with the US netting rules (IRS Schedule D and its instructions;
 * Publication 550 ch. 4 "Capital Losses"; IRC §1211(b), §1212(b)):
 * 1. net short-term = ST gains + ST losses - ST carryover in (Schedule D lines 1-7);
 *    net long-term  = LT gains + LT losses - LT carryover in (lines 8-15);
 * 2. if one net is a gain and the other a loss, they offset; what remains keeps the character of the larger
 *    (line 16);
 * 3. a net capital loss is deductible against ordinary income up to $3,000 ($1,500 married filing
 *    separately) (line 21; §1211(b));
 * 4. the rest carries forward keeping its character (§1212(b); Capital Loss Carryover Worksheet): the
 *    deduction is treated as a short-term gain, so it uses short-term loss first.
 * Tax is flat at the given rates: short-term gain at shortTermRate, long-term gain at longTermRate, and the
 * deduction saves ordinaryIncomeRate. Brackets, the NIIT and the taxable-income limit of §1212(b)(2)(B) are
 * not modeled: pass the marginal rates that apply to the client.
 */

import type { Decimal } from "decimal.js";
import { toNonNegativeDecimal, toTaxDecimal, ZERO } from "./decimal.js";
import { toRate } from "./tax-cost.js";
import { CAPITAL_LOSS_DEDUCTION_LIMIT } from "./tax-rules.js";

/** Input of {@link settleTaxYear}; money in USD (strings, numbers or Decimals). */
export interface TaxYearInput {
  /** Net short-term recognized gain of the year (gains + losses; negative for a net loss). */
  shortTerm: Decimal.Value;
  /** Net long-term recognized gain of the year. */
  longTerm: Decimal.Value;
  /** Loss carried in from the prior year, as positive amounts. @default { shortTerm: 0, longTerm: 0 } */
  carryforward?: { shortTerm: Decimal.Value; longTerm: Decimal.Value };
  shortTermRate: Decimal.Value;
  longTermRate: Decimal.Value;
  /** Marginal rate on ordinary income, for the capital-loss deduction. */
  ordinaryIncomeRate: Decimal.Value;
  /** Net capital loss deductible against ordinary income. @default 3000 */
  lossDeductionLimit?: Decimal.Value;
}

/** Result of {@link settleTaxYear}; money in USD, full precision (round at the edge). */
export interface TaxYearSettlement {
  /** Net short- and long-term after the carryover in, before cross-netting. */
  netShortTerm: Decimal;
  netLongTerm: Decimal;
  /** Gain taxed at each rate after cross-netting (>= 0). */
  taxableShortTerm: Decimal;
  taxableLongTerm: Decimal;
  /** Net capital loss deducted against ordinary income (>= 0, <= the limit). */
  capitalLossDeduction: Decimal;
  shortTermTax: Decimal;
  longTermTax: Decimal;
  /** Tax saved on ordinary income by the deduction (>= 0). */
  ordinaryIncomeTaxSaved: Decimal;
  /** shortTermTax + longTermTax - ordinaryIncomeTaxSaved (negative when the year saves tax). */
  taxOwed: Decimal;
  /** Loss carried to next year, positive amounts, by character. */
  carryforward: { shortTerm: Decimal; longTerm: Decimal };
}

const max0 = (d: Decimal): Decimal => (d.gt(0) ? d : ZERO);

/**
 * Settles a tax year (see the module doc for the rules and citations).
 * @throws {RangeError} for a rate outside [0, 1], a negative carryforward or limit, or non-finite money.
 * @example settleTaxYear({ shortTerm: "-2000", longTerm: "5000", shortTermRate: "0.37", longTermRate: "0.2",
 *   ordinaryIncomeRate: "0.37" }).taxOwed // 600: (5000 - 2000) x 0.20
 */
export function settleTaxYear(input: TaxYearInput): TaxYearSettlement {
  const where = "settleTaxYear";
  const stRate = toRate(input.shortTermRate, `${where}: shortTermRate`);
  const ltRate = toRate(input.longTermRate, `${where}: longTermRate`);
  const ordRate = toRate(input.ordinaryIncomeRate, `${where}: ordinaryIncomeRate`);
  const limit = toNonNegativeDecimal(
    input.lossDeductionLimit ?? CAPITAL_LOSS_DEDUCTION_LIMIT,
    `${where}: lossDeductionLimit`,
  );
  const cfSt = toNonNegativeDecimal(input.carryforward?.shortTerm ?? 0, `${where}: carryforward.shortTerm`);
  const cfLt = toNonNegativeDecimal(input.carryforward?.longTerm ?? 0, `${where}: carryforward.longTerm`);
  const st = toTaxDecimal(input.shortTerm, `${where}: shortTerm`).minus(cfSt);
  const lt = toTaxDecimal(input.longTerm, `${where}: longTerm`).minus(cfLt);
  const combined = st.plus(lt);

  let taxableSt = ZERO;
  let taxableLt = ZERO;
  let deduction = ZERO;
  let carrySt = ZERO;
  let carryLt = ZERO;
  if (combined.gte(0)) {
    // Cross-netting: a loss in one character absorbs gain of the other; the remainder keeps its character.
    if (st.gte(0) && lt.gte(0)) {
      taxableSt = st;
      taxableLt = lt;
    } else if (st.lt(0)) taxableLt = combined;
    else taxableSt = combined;
  } else {
    const netLoss = combined.negated();
    deduction = netLoss.lt(limit) ? netLoss : limit;
    // §1212(b)(2)(A): the deduction counts as a short-term gain when computing the carryovers.
    const stAdj = st.plus(deduction);
    carrySt = max0(stAdj.negated().minus(max0(lt)));
    carryLt = max0(lt.negated().minus(max0(stAdj)));
  }
  const shortTermTax = taxableSt.times(stRate);
  const longTermTax = taxableLt.times(ltRate);
  const saved = deduction.times(ordRate);
  return {
    netShortTerm: st,
    netLongTerm: lt,
    taxableShortTerm: taxableSt,
    taxableLongTerm: taxableLt,
    capitalLossDeduction: deduction,
    shortTermTax,
    longTermTax,
    ordinaryIncomeTaxSaved: saved,
    taxOwed: shortTermTax.plus(longTermTax).minus(saved),
    carryforward: { shortTerm: carrySt, longTerm: carryLt },
  };
}
