/**
 * @module core/ledger/spin-off
 * The spin-off rule shared by the account ledger (`applyCorporateAction`) and the backtester's account book
 * (`AccountBook.applySpinOffs`): one parent lot keeps (1 - f) of its basis, and a child lot receives f of it, with
 * quantity = parent quantity x ratio and the parent lot's trade date and holding period (IRC §358, §1223(1);
 * Pub 550, "Nontaxable stock distributions"). The basis is conserved exactly: child = basis x f, parent = basis -
 * child. Rules and worked examples: docs/ledger.md, section 3.
 */
import type { Decimal } from "decimal.js";
import type { TaxLot } from "../tax/index.js";

/** The terms of a spin-off as the lot rule needs them (decimal, checked by the caller). */
export interface SpinOffTerms {
  /** Id of the action: the child lot of lot L is `${L}:${actionId}`. */
  readonly actionId: string;
  readonly childAssetId: string;
  /** Child shares per parent share, > 0. */
  readonly ratio: Decimal;
  /** Fraction of the parent's basis allocated to the child, 0 < f < 1. */
  readonly basisFraction: Decimal;
}

/** The id of the child lot a spin-off gives parent lot `lotId`. */
export function spinOffChildLotId(lotId: string, actionId: string): string {
  return `${lotId}:${actionId}`;
}

/**
 * Splits one parent lot by a spin-off: the parent keeps basis x (1 - f), the child gets basis x f, ratio x the
 * shares, the parent's trade date, holding-period start and fx rate; the child carries no loss-sale mark.
 * @example spinOffLot(lot, { actionId: "S", childAssetId: "C", ratio: d(0.5), basisFraction: d(0.2) })
 *   // 100 shares with basis 5,000 -> parent 100 shares, basis 4,000; child 50 shares, basis 1,000
 */
export function spinOffLot(lot: TaxLot, terms: SpinOffTerms): { parent: TaxLot; child: TaxLot } {
  const childBasis = lot.totalCostBasis.times(terms.basisFraction);
  return {
    parent: { ...lot, totalCostBasis: lot.totalCostBasis.minus(childBasis) },
    child: {
      ...lot,
      id: spinOffChildLotId(lot.id, terms.actionId),
      themeAssetId: terms.childAssetId,
      quantity: lot.quantity.times(terms.ratio),
      totalCostBasis: childBasis,
      lastSoldForLossDate: null,
    },
  };
}
