/**
 * @module core/optimizer/wash-sale-pricing
 * The washed fraction of each loss lot, as the optimizer prices it (docs/optimizer.md, "Wash sales and sides"):
 * the replacement shares of an asset (held lots bought within the window that have not served as replacements,
 * and `input.recentPurchases` — other accounts of the household, planned buys — with their quantities) are matched
 * to its loss lots the way the tax engine books a sale (Reg. §1.1091-1(b)-(d), `core/tax/lot-selection`
 * `estimateWash`): loss lots in consumption order, replacement shares first acquired first, a lot never replacing
 * itself. A loss lot with `washed` of its `qty` shares matched has the fraction `f = washed / qty` of its loss
 * disallowed: its tax alpha, real tax and recognized gain per unit are scaled by `1 - f`.
 *
 * The disallowed amount is exact when the lot is sold in full (5 replacement shares against a 100-share loss lot:
 * 5/100 of the loss, the proposal's figure); a partial sale is priced pro rata (the chord of the true, concave
 * cost — the tax engine matches the first shares sold — which keeps the schedule convex). A purchase without a
 * quantity washes every loss lot of the asset (the all-or-nothing rule, kept for callers that do not know it).
 *
 * A component (component.ts) with this lifecycle: {@link washedFractionPricing}`.initialize` once per rebalance,
 * on the wash-sale window (household-wash-sales.ts), builds the replacement pools ({@link replacementPools}; null
 * when no asset has replacement shares: nothing to price); then, while the tax schedule is built, its `price`
 * gives the washed fraction of each loss lot of an asset that has a pool ({@link washedShares}).
 */
import type { OptimizerComponent } from "./component.js";
import type { WashSaleEnvironment } from "./household-wash-sales.js";
import type { LotTable } from "./lot-table.js";

/** One source of replacement shares: acquisition day, held lot (or -1 for an outside purchase), shares. */
export interface Replacement {
  readonly day: number;
  readonly lot: number;
  readonly shares: number;
}

/**
 * Replacement shares per asset, in matching order (day, held lots before outside purchases, then lot index).
 * `null` for an asset without any.
 */
export function replacementPools(
  n: number,
  lotAsset: Int32Array,
  lotTradeDay: Int32Array,
  lotQuantity: Float64Array,
  inWindowLot: Uint8Array,
  purchases: readonly { asset: number; day: number; shares: number }[],
): (Replacement[] | null)[] {
  const pools: (Replacement[] | null)[] = new Array(n).fill(null);
  const add = (i: number, r: Replacement) => {
    let p = pools[i];
    if (p === null || p === undefined) {
      p = [];
      pools[i] = p;
    }
    p.push(r);
  };
  for (let k = 0; k < lotAsset.length; k++)
    if (inWindowLot[k] === 1) add(lotAsset[k]!, { day: lotTradeDay[k]!, lot: k, shares: lotQuantity[k]! });
  for (const p of purchases) add(p.asset, { day: p.day, lot: -1, shares: p.shares });
  for (const p of pools)
    p?.sort(
      (a, b) =>
        a.day - b.day || (a.lot < 0 ? 1 : 0) - (b.lot < 0 ? 1 : 0) || a.lot - b.lot || a.shares - b.shares,
    );
  return pools;
}

/**
 * Washed shares of each of one asset's loss lots, given in consumption order (`lots`, with their share
 * quantities): the pool's shares matched first acquired first, skipping a lot's own shares. Returns the washed
 * shares per entry of `lots` (0 when the pool is empty or used up).
 */
export function washedShares(
  pool: readonly Replacement[],
  lots: readonly number[],
  quantity: Float64Array,
): Float64Array {
  const out = new Float64Array(lots.length);
  const left = Float64Array.from(pool, (r) => r.shares);
  let head = 0;
  for (let j = 0; j < lots.length; j++) {
    const k = lots[j]!;
    let need = quantity[k]!;
    let washed = 0;
    while (head < pool.length && !(left[head]! > 0)) head++;
    for (let r = head; r < pool.length && need > 0; r++) {
      if (pool[r]!.lot === k || !(left[r]! > 0)) continue;
      const m = Math.min(left[r]!, need);
      left[r]! -= m;
      need -= m;
      washed += m;
    }
    out[j] = washed;
  }
  return out;
}

/** What the pricing is initialized on. */
export interface PricingContext {
  readonly n: number;
  readonly lotTable: LotTable;
  readonly window: WashSaleEnvironment;
}

/** The pricing of one rebalance. */
export interface WashedFractionPricing {
  /** Does asset i have replacement shares (so its loss lots may be partly washed)? */
  covers(i: number): boolean;
  /**
   * The washed fraction `washed / qty` (at most 1) of each of asset i's loss lots, given in consumption order,
   * written into `fraction` (indexed by lot).
   */
  price(i: number, lossLots: readonly number[], fraction: Float64Array): void;
}

/** The washed-fraction pricing component (see the module comment). */
export const washedFractionPricing: OptimizerComponent<PricingContext, WashedFractionPricing> = {
  name: "washed_fraction_pricing",
  fields: ["wash_sale_threshold", "recentPurchases[].quantity"],
  initialize({ n, lotTable: t, window }) {
    const pools = replacementPools(n, t.asset, t.tradeDay, t.quantity, window.inWindowLot, window.purchases);
    if (pools.every((p) => p === null)) return null;
    const qty = t.quantity;
    return {
      covers: (i) => pools[i] !== null && pools[i] !== undefined,
      price(i, lossLots, fraction) {
        const washed = washedShares(pools[i]!, lossLots, qty);
        lossLots.forEach((k, j) => {
          fraction[k] = Math.min(1, washed[j]! / qty[k]!);
        });
      },
    };
  },
};
