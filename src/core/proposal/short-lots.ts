/**
 * @module core/proposal/short-lots
 * Open short positions and the lots a cover closes. The tax engine knows long lots only, so shorts are
 * carried here as {@link ShortLot}s (positive quantities of shares owed, with the short-sale proceeds).
 *
 * Tax treatment (IRC §1233; IRS Publication 550, "Short Sales"): a short sale closes when shares are
 * delivered; shares bought to cover today have a holding period of zero days, so the gain or loss is
 * short-term. Gain of a cover slice = short-sale proceeds in USD (translated at the short-sale FX) - cost
 * of the covering shares in USD (today's FX). Covers close the lots with the lowest proceeds per USD share
 * first: the covering cost per share is the same for every lot, so this realizes losses first and the
 * smallest gains next (ties: earlier short first, then lot id). Not modeled: the §1233(d) rule that turns
 * some losses long-term when substantially identical shares were held long-term, and wash sales of shorts.
 */

import type { Decimal } from "decimal.js";
import { ValidationError } from "../errors.js";
import { type SpecificLotRequest, TaxDecimal } from "../tax/index.js";
import type { ProposalTaxLot } from "./proposal-result.js";

/** A validated short lot with decimal fields. */
export interface PreparedShortLot {
  id: string;
  themeAssetId: string;
  quantity: Decimal;
  proceeds: Decimal;
  fxRate: Decimal;
  openDate: string;
  /** proceeds / fxRate / quantity. */
  proceedsPerShareUsd: Decimal;
}

const ZERO = new TaxDecimal(0);

/**
 * Lot lines of a cover that closes exactly the `chosen` short lots and quantities (specific identification, e.g.
 * the optimizer's choice), in the given order, at `price` (security currency) and today's `fxRate`.
 * @throws {ValidationError} for a lot that is not an open short lot of the asset, or a quantity above what it owes.
 */
export function coverChosenShortLots(
  lots: readonly PreparedShortLot[],
  chosen: readonly SpecificLotRequest[],
  price: Decimal,
  fxRate: Decimal,
): ProposalTaxLot[] {
  const byId = new Map(lots.map((l) => [l.id, l]));
  const out: ProposalTaxLot[] = [];
  chosen.forEach((c, i) => {
    const lot = byId.get(c.lotId);
    const q = new TaxDecimal(c.quantity);
    if (lot === undefined || q.gt(lot.quantity))
      throw new ValidationError(
        `lotChoices: ${c.lotId} ${lot === undefined ? "is not an open short lot of the asset" : `owes ${lot.quantity.toString()} shares, fewer than ${q.toString()}`}.`,
        [{ path: `lotChoices[${i}]`, message: `cannot cover ${q.toString()} of short lot ${c.lotId}` }],
      );
    out.push(...coverShortLots([lot], q, price, fxRate));
  });
  return out;
}

/**
 * Lot lines of a cover of `quantity` shares (0 < quantity <= shares owed) at `price` (security currency)
 * and today's `fxRate`; quantities sum exactly to `quantity`.
 * @throws {RangeError} when the lots owe fewer shares than `quantity`.
 */
export function coverShortLots(
  lots: readonly PreparedShortLot[],
  quantity: Decimal,
  price: Decimal,
  fxRate: Decimal,
): ProposalTaxLot[] {
  const order = [...lots].sort(
    (a, b) =>
      a.proceedsPerShareUsd.comparedTo(b.proceedsPerShareUsd) ||
      (a.openDate < b.openDate ? -1 : a.openDate > b.openDate ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
  );
  const out: ProposalTaxLot[] = [];
  let left = quantity;
  for (const lot of order) {
    if (left.lte(0)) break;
    const q = lot.quantity.lte(left) ? lot.quantity : left;
    left = left.minus(q);
    const cost = q.times(price);
    const costUsd = cost.dividedBy(fxRate);
    // Whole lot: exactly its proceeds; part of it: pro rata.
    const proceeds = q.eq(lot.quantity) ? lot.proceeds : lot.proceeds.times(q).dividedBy(lot.quantity);
    const gain = proceeds.dividedBy(lot.fxRate).minus(costUsd);
    out.push({
      lotId: lot.id,
      quantity: q,
      tradeDate: lot.openDate,
      costBasis: cost,
      costBasisUsd: costUsd,
      gainUsd: gain,
      term: "short_term",
      disallowedLossUsd: ZERO,
      recognizedGainUsd: gain,
    });
  }
  if (left.gt(0))
    throw new RangeError(
      `coverShortLots: cannot cover ${quantity.toString()} shares, the short lots owe ${quantity.minus(left).toString()}`,
    );
  return out;
}
