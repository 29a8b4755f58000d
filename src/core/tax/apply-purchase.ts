/**
 * @module core/tax/apply-purchase
 * Books a purchase: creates its lot and applies the wash-sale rule looking forward from earlier loss sales
 * (a loss sale within the window before the purchase makes the new shares its replacement).
 */

import type { Decimal } from "decimal.js";
import type { Currency } from "../data/types.js";
import { toNonNegativeDecimal, toPositiveDecimal } from "./decimal.js";
import { createLot, type TaxLot } from "./lot.js";
import { isLossSale, normalizeRecord, type RealizedGain } from "./realized-gain.js";
import { resolveTaxRules, type TaxRulesOptions } from "./tax-rules.js";
import { inWashSaleWindow, lazyIdSet, matchWashSales, type WashSaleAdjustment } from "./wash-sale.js";

/** A buy order to book. */
export interface Purchase {
  /** Id of the new lot (carved wash-sale pieces get `${id}.w1`, `${id}.w2`, ...). */
  id: string;
  accountId?: string;
  themeAssetId: string;
  /** Shares bought, > 0. */
  quantity: Decimal.Value;
  /** Price per share in the lot currency (cost basis per share; include commissions in it if you book them). */
  price: Decimal.Value;
  /** Trade date. */
  date: string;
  /** @default "USD" */
  currency?: Currency;
  /** Purchase-date FX, units of the currency per USD. @default 1 */
  fxRate?: Decimal.Value;
  /**
   * Commissions and fees of the purchase in the lot currency, >= 0, added to the cost basis (IRS Publication 550,
   * "Basis of Investment Property": basis is the price plus purchase costs). @default 0
   */
  fees?: Decimal.Value;
}

/** Result of {@link applyPurchase}. */
export interface PurchaseResult {
  /** `lots` plus the new lot (or its carved pieces when only part of it replaces washed shares). */
  lots: TaxLot[];
  /** `realized` with the loss records this purchase washed updated (disallowed loss, matches). */
  realized: RealizedGain[];
  washSales: WashSaleAdjustment[];
}

/**
 * Adds the lot bought by `purchase` to `lots` and applies the wash-sale rule to `realized`: each loss record of
 * the same asset sold within `washSaleThresholdDays` of the purchase date (before it, or after it when events
 * are booked out of order) and not yet fully matched is matched — earliest sale first — to the new shares;
 * the disallowed loss (pro rata to the matched shares) is added to the matched shares' basis, their holding
 * period starts earlier by the days the sold shares were held, and `washSaleDate` is set to the purchase
 * date. Give `realized` the loss sales of the wash-sale scope (the account, or the household). The existing
 * lots are returned as they are, followed by the new lot (or its pieces). Inputs are not mutated.
 * @throws {RangeError} / {TypeError} for invalid lots, purchase fields or a lot id already in use.
 * @example applyPurchase(lots, { id: "L9", themeAssetId: "AAPL:XNAS", quantity: "10", price: "101", date: "2024-07-18" }, realized)
 */
export function applyPurchase(
  lots: readonly TaxLot[],
  purchase: Purchase,
  realized: readonly RealizedGain[] = [],
  options: TaxRulesOptions = {},
): PurchaseResult {
  const where = "applyPurchase";
  if (!Array.isArray(lots)) throw new TypeError(`${where}: lots must be an array`);
  const rules = resolveTaxRules(options, where);
  if (!Array.isArray(realized)) throw new TypeError(`${where}: realized must be an array`);
  if (lots.some((l) => l.id === purchase.id))
    throw new RangeError(`${where}: lot id ${purchase.id} is already in use`);
  const fees =
    purchase.fees === undefined ? null : toNonNegativeDecimal(purchase.fees, `${where}: purchase.fees`);
  const lot = createLot({
    id: purchase.id,
    ...(purchase.accountId === undefined ? {} : { accountId: purchase.accountId }),
    themeAssetId: purchase.themeAssetId,
    quantity: purchase.quantity,
    // With fees the total is built exactly (quantity x price + fees), never through a divided per-share figure.
    ...(fees === null || fees.isZero()
      ? { costBasisPerShare: purchase.price }
      : {
          totalCostBasis: toPositiveDecimal(purchase.quantity, `${where}: purchase.quantity`)
            .times(toNonNegativeDecimal(purchase.price, `${where}: purchase.price`))
            .plus(fees),
        }),
    currency: purchase.currency ?? "USD",
    fxRate: purchase.fxRate ?? 1,
    tradeDate: purchase.date,
  });

  // Records of other assets are passed through as they are; only the asset's are checked and matched.
  const records = realized.map((r) => (r.themeAssetId === lot.themeAssetId ? normalizeRecord(r, where) : r));
  // Loss sales in the window, earliest first (then in the given order).
  const lossOrder = records
    .map((r, i) => ({ r, i }))
    .filter(
      ({ r }) =>
        r.themeAssetId === lot.themeAssetId &&
        isLossSale(r) &&
        r.washedQuantity.lt(r.quantity) &&
        inWashSaleWindow(lot.tradeDate, r.saleDate, rules.washSaleThresholdDays),
    )
    .sort((a, b) => (a.r.saleDate < b.r.saleDate ? -1 : a.r.saleDate > b.r.saleDate ? 1 : a.i - b.i))
    .map(({ i }) => i);

  // Only the new lot can be a replacement here, so matching runs on it alone; the others pass through.
  const matched = matchWashSales({
    lots: [lot],
    records,
    lossOrder,
    candidateIds: [lot.id],
    isReserved: lazyIdSet(lots),
    eligible: () => true,
  });
  return { lots: [...lots, ...matched.lots], realized: matched.records, washSales: matched.adjustments };
}
