/**
 * @module core/optimizer/household-wash-sales
 * The wash-sale window of one rebalance as a component (component.ts; docs/optimizer.md "Wash sales and sides"):
 * which purchases fall within T days before or after the as-of date (both ends inclusive) — the account's own
 * lots bought in the window that have not served as replacements, and `input.recentPurchases`: the client's
 * other accounts (the household, passed by the optimize service) and planned buys — and which assets had a sale
 * at a loss in the window (`input.recentLossSales`, a lot's last_sold_for_loss_date). Lifecycle:
 * 1. `initialize` once per rebalance, while the period model is built (always active: the window also decides
 *    prevent_tlh_invalidating_purchase);
 * 2. {@link isExposedLoss} while the tax schedule is built: a loss lot with another purchase in the window;
 *    under prevent_tlh_invalidating_sale it is kept out of the sale order (its weight becomes a lower bound);
 * 3. the washed-fraction pricing (wash-sale-pricing.ts) matches these purchases' shares to the loss lots.
 */
import { toDayNumber } from "../dates.js";
import type { OptimizerComponent } from "./component.js";
import { type LotTable, NO_DAY } from "./lot-table.js";
import type { OptimizationInput } from "./optimization-types.js";

/** What the window is computed from. */
export interface WashSaleContext {
  readonly input: OptimizationInput;
  readonly lotTable: LotTable;
  readonly index: ReadonlyMap<string, number>;
  readonly n: number;
  readonly asOfDay: number;
  /** wash_sale_threshold, days. */
  readonly thresholdDays: number;
}

/** Wash-sale facts per asset and per lot. */
export interface WashSaleEnvironment {
  /** A purchase outside the lots within the window (input.recentPurchases). */
  readonly recentPurchase: Uint8Array;
  /** A sale at a loss within the window (input.recentLossSales or a lot's last_sold_for_loss_date). */
  readonly recentLossSale: Uint8Array;
  readonly lossSaleDate: (string | null)[];
  /** Held lots bought within the window that have not served as replacements, per asset. */
  readonly windowLots: Int32Array;
  /** Per lot: bought within the window and not yet a replacement. */
  readonly inWindowLot: Uint8Array;
  /** Purchases outside the lots within the window, with their shares (Infinity when unknown). */
  readonly purchases: readonly { readonly asset: number; readonly day: number; readonly shares: number }[];
}

/** The wash-sale window component (see the module comment). */
export const householdWashSales: OptimizerComponent<WashSaleContext, WashSaleEnvironment> = {
  name: "household_wash_sales",
  fields: ["wash_sale_threshold", "recentPurchases", "recentLossSales"],
  initialize(x) {
    const { input, index, n } = x;
    const table = x.lotTable;
    const recentPurchase = new Uint8Array(n);
    const recentLossSale = new Uint8Array(n);
    const lossSaleDate: (string | null)[] = new Array(n).fill(null);
    const lo = x.asOfDay - x.thresholdDays;
    const hi = x.asOfDay + x.thresholdDays;
    const purchases: { asset: number; day: number; shares: number }[] = [];
    for (const e of input.recentPurchases ?? []) {
      const i = index.get(e.themeAssetId);
      const d = toDayNumber(e.date);
      if (i !== undefined && d >= lo && d <= hi) {
        const shares = e.quantity ?? Number.POSITIVE_INFINITY;
        if (!(shares > 0)) continue;
        recentPurchase[i] = 1;
        purchases.push({ asset: i, day: d, shares });
      }
    }
    for (const e of input.recentLossSales ?? []) {
      const i = index.get(e.themeAssetId);
      const d = toDayNumber(e.date);
      if (i !== undefined && d >= lo && d <= hi) {
        recentLossSale[i] = 1;
        lossSaleDate[i] = e.date;
      }
    }
    const L = table.asset.length;
    const windowLots = new Int32Array(n);
    const inWindowLot = new Uint8Array(L);
    const asset = table.asset;
    const tradeDay = table.tradeDay;
    const washDay = table.washSaleDay;
    const soldDay = table.lastSoldForLossDay;
    for (let k = 0; k < L; k++) {
      const i = asset[k]!;
      const td = tradeDay[k]!;
      if (td >= lo && td <= hi && washDay[k] === NO_DAY) {
        inWindowLot[k] = 1;
        windowLots[i]!++;
      }
      const sd = soldDay[k]!;
      if (sd !== NO_DAY && sd >= lo && sd <= hi) {
        recentLossSale[i] = 1;
        lossSaleDate[i] ??= table.lots[k]!.lastSoldForLossDate;
      }
    }
    return { recentPurchase, recentLossSale, lossSaleDate, windowLots, inWindowLot, purchases };
  },
};

/**
 * Is loss lot k of asset i exposed to a wash sale: another purchase within the window (a held window lot other
 * than k itself, or an outside purchase)?
 */
export function isExposedLoss(env: WashSaleEnvironment, i: number, k: number): boolean {
  return env.windowLots[i]! - env.inWindowLot[k]! > 0 || env.recentPurchase[i] === 1;
}
