/**
 * @module core/tax/apply-sale
 * Books a sale against a lot set: lot selection, realized gains, and the wash-sale rule looking back
 * (replacement shares bought within the window before the sale, still held).
 */

import type { Decimal } from "decimal.js";
import { isIsoDate, toDayNumber } from "../dates.js";
import { proRata, toNonNegativeDecimal, toPositiveDecimal, ZERO } from "./decimal.js";
import { prepareLots, type TaxLot } from "./lot.js";
import {
  DEFAULT_LOT_SELECTION_POLICY,
  type LotSelection,
  type LotSelectionPolicy,
  type SpecificLotRequest,
  selectPreparedLots,
  type WashSaleHandling,
  type WashSalePurchase,
} from "./lot-selection.js";
import { isLossSale, type RealizedGain, realizeLot } from "./realized-gain.js";
import { resolveTaxRules, type TaxRulesOptions } from "./tax-rules.js";
import { inWashSaleWindow, lazyIdSet, matchWashSales, type WashSaleAdjustment } from "./wash-sale.js";

/** A sell order to book. */
export interface Sale {
  themeAssetId: string;
  /** Shares sold, > 0 (fractional allowed). */
  quantity: Decimal.Value;
  /** Price per share in the lot currency. */
  price: Decimal.Value;
  /** Trade date of the sale. */
  date: string;
  /** Sale-date FX, units of the lot currency per USD. @default 1 */
  fxRate?: Decimal.Value;
  /**
   * Commissions and fees of the sale in the lot currency, >= 0: they reduce the proceeds (Publication 550,
   * "Amount realized"), allocated to the consumed lots pro rata to their shares (the last pick takes the
   * remainder, so the parts add up exactly). @default 0
   */
  fees?: Decimal.Value;
  /** Sell only this account's lots. */
  accountId?: string;
  /** @default "TAX_OPTIMAL" */
  policy?: LotSelectionPolicy;
  /** For the SPECIFIC policy. */
  specificLots?: readonly SpecificLotRequest[];
}

/** Options of {@link applySale}: tax rules plus the wash-sale environment of the selection. */
export interface ApplySaleOptions extends TaxRulesOptions {
  /** Purchases outside `lots` that the selection treats as replacements (they are not booked here). */
  purchases?: readonly WashSalePurchase[];
  /** @default "deprioritize" */
  washSaleHandling?: WashSaleHandling;
}

/** Result of {@link applySale}. */
export interface SaleResult {
  /** The new lot set: consumed lots removed or reduced, replacement lots adjusted (carved when partial). */
  lots: TaxLot[];
  /** One record per consumed lot, in consumption order, with wash-sale disallowance applied. */
  realized: RealizedGain[];
  /** Wash-sale adjustments made to replacement lots. */
  washSales: WashSaleAdjustment[];
  /** The lot selection that was booked. */
  selection: LotSelection;
}

/**
 * Books `sale` against `lots` (all lots of the account, or of the household when lots of several accounts are
 * given — every given lot of the asset can be a replacement). Steps:
 * 1. select lots (as selectLots does); 2. realize each pick (basis moves pro rata; a partly sold lot keeps its id,
 * and gets `lastSoldForLossDate` = sale date when sold at a loss); 3. match the loss records, in consumption
 * order, to held lots of the asset acquired within the wash-sale window (first acquired first matched, each lot
 * at most once, not the sold lot's own remainder), disallowing pro rata and adjusting the replacement's basis
 * and holding period. Purchases after the sale are handled when booked, by applyPurchase.
 * Inputs are not mutated.
 * @throws {InsufficientLotsError} when fewer shares are held than sold.
 * @throws {TaxLotError} for an invalid SPECIFIC request.
 * @throws {RangeError} / {TypeError} for invalid lots or sale fields.
 * @example applySale(lots, { themeAssetId: "AAPL:XNAS", quantity: "15", price: "120", date: "2024-06-28" })
 */
export function applySale(lots: readonly TaxLot[], sale: Sale, options: ApplySaleOptions = {}): SaleResult {
  const where = "applySale";
  if (!Array.isArray(lots)) throw new TypeError(`${where}: lots must be an array`);
  if (typeof sale.themeAssetId !== "string" || sale.themeAssetId.length === 0)
    throw new TypeError(`${where}: sale.themeAssetId must be a non-empty string`);
  // Only the asset's lots take part (and are validated); the others pass through untouched.
  const all = prepareLots(
    lots.filter((l) => l.themeAssetId === sale.themeAssetId),
    where,
  );
  const rules = resolveTaxRules(options, where);
  if (!isIsoDate(sale.date)) throw new RangeError(`${where}: sale.date "${sale.date}" is not YYYY-MM-DD`);
  const quantity = toPositiveDecimal(sale.quantity, `${where}: sale.quantity`);
  const price = toPositiveDecimal(sale.price, `${where}: sale.price`);
  const fxRate = toPositiveDecimal(sale.fxRate ?? 1, `${where}: sale.fxRate`);
  const fees = toNonNegativeDecimal(sale.fees ?? 0, `${where}: sale.fees`);

  // `all` is prepared (checked and normalized) above: the selection does not check the same lots again.
  const selection = selectPreparedLots(all, quantity, sale.policy ?? DEFAULT_LOT_SELECTION_POLICY, {
    themeAssetId: sale.themeAssetId,
    saleDate: sale.date,
    price,
    fxRate,
    ...rules,
    ...(sale.accountId === undefined ? {} : { accountId: sale.accountId }),
    ...(sale.specificLots === undefined ? {} : { specificLots: sale.specificLots }),
    ...(options.purchases === undefined ? {} : { purchases: options.purchases }),
    ...(options.washSaleHandling === undefined ? {} : { washSaleHandling: options.washSaleHandling }),
  });

  const picked = new Map(selection.picks.map((p) => [p.lotId, p]));
  // Fee share of each pick, in pick order: pro rata to shares, the last pick takes what is left.
  const feeOf = new Map<string, typeof fees>();
  if (!fees.isZero()) {
    let left = fees;
    selection.picks.forEach((p, i) => {
      const part = i === selection.picks.length - 1 ? left : proRata(fees, p.quantity, quantity);
      feeOf.set(p.lotId, part);
      left = left.minus(part);
    });
  }
  const records: RealizedGain[] = [];
  const after: TaxLot[] = [];
  for (const lot of all) {
    const pick = picked.get(lot.id);
    if (pick === undefined) {
      after.push(lot);
      continue;
    }
    // The selection computed the consumed basis, its USD value and the term: realizeLot reuses them.
    const { record, remainder } = realizeLot(
      lot,
      pick.quantity,
      price,
      fxRate,
      sale.date,
      rules,
      feeOf.get(lot.id) ?? ZERO,
      pick,
    );
    records.push(record);
    if (remainder !== null) after.push(remainder);
  }
  // Records in consumption (pick) order.
  const rank = new Map(selection.picks.map((p, i) => [p.lotId, i]));
  records.sort((a, b) => rank.get(a.lotId)! - rank.get(b.lotId)!);

  // Replacement candidates: never-adjusted lots of the asset acquired within the window, first acquired first.
  const saleDay = toDayNumber(sale.date);
  const candidateIds = after
    .filter(
      (l) =>
        l.washSaleDate === null &&
        Math.abs(toDayNumber(l.tradeDate) - saleDay) <= rules.washSaleThresholdDays,
    )
    .sort((a, b) =>
      a.tradeDate < b.tradeDate ? -1 : a.tradeDate > b.tradeDate ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0,
    )
    .map((l) => l.id);
  // No candidate or no loss: nothing to match (the common case; matching would copy every lot and record).
  const matched =
    candidateIds.length === 0 || !records.some(isLossSale)
      ? { lots: after, records, adjustments: [] as WashSaleAdjustment[] }
      : matchWashSales({
          lots: after,
          // Carved lots need ids unused in the whole lot set; built only when a carve happens.
          isReserved: lazyIdSet(lots),
          records,
          lossOrder: records.map((_, i) => i),
          candidateIds,
          eligible: (rec, lot) =>
            lot.id !== rec.lotId &&
            inWashSaleWindow(lot.tradeDate, rec.saleDate, rules.washSaleThresholdDays),
        });
  // The asset's new lots take the place of its first lot; other lots keep their order.
  const out: TaxLot[] = [];
  let placed = false;
  for (const l of lots) {
    if (l.themeAssetId !== sale.themeAssetId) out.push(l);
    else if (!placed) {
      out.push(...matched.lots);
      placed = true;
    }
  }
  return { lots: out, realized: matched.records, washSales: matched.adjustments, selection };
}
