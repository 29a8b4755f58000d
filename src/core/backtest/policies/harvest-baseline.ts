/**
 * @module core/backtest/policies/harvest-baseline
 * The `harvest_baseline` case: the rule-based tax-loss harvester of the literature (Chaudhuri, Burnham & Lo
 * 2020; Berkin & Ye 2003), run by the same engine on the same data as the optimizer-driven case, with no
 * optimizer. At each rebalance t, executing on the next trading date e:
 *
 * 1. **Harvest**: every long lot whose loss reaches the threshold (basis - value >= threshold x basis, USD at
 *    t's prices) is sold in full (SPECIFIC lot, flagged `harvest`). Nothing else decides a sale: a recent
 *    purchase of the asset does not stop it (the tax engine disallows the washed part, as a simple harvester
 *    would suffer it).
 * 2. **Park**: an asset sold at a loss within the wash-sale window before e (this decision's harvests included)
 *    is never bought; its target weight goes pro rata to the rest of the target (renormalized).
 * 3. **Reinvest**: the cash above the buffer (harvest proceeds, dividends, a starting cash balance) buys the
 *    assets below that parked target, pro rata to their shortfall.
 * 4. **Return**: once the window of a harvested asset has passed, it is bought back to its target weight, funded
 *    by the cash first and then by sales of the assets above their target, pro rata to their excess (the case's
 *    lot selection, `TAX_OPTIMAL`: losses first). Positions are not otherwise rebalanced (no drift trades).
 *
 * Trades below the minimum trade fraction of NAV are skipped (harvest sales never are).
 */
import { addDays } from "../../dates.js";
import type { TaxRulesOptions } from "../../tax/index.js";
import type { BacktestPolicy, PolicyContext, PolicyOrder } from "../policy.js";
import { DEFAULT_MIN_TRADE_FRACTION, investableTargetWeights } from "./target-weights.js";

/** Options of {@link harvestBaselinePolicy}. */
export interface HarvestBaselineOptions {
  /** Harvest a lot when its loss reaches this many bps of its USD basis (0 = every loss). */
  readonly harvestThresholdBps: number;
  /** Wash-sale window (`washSaleThresholdDays`, default 30). */
  readonly taxRules?: TaxRulesOptions;
  /** Cash kept, fraction of NAV. @default 0 */
  readonly cashBuffer?: number;
  /** Buys and funding sales smaller than this fraction of NAV are skipped. @default 1e-4 */
  readonly minTradeFraction?: number;
}

/** Counters of a baseline run. */
export interface HarvestBaselineStats {
  decisions: number;
  harvestedLots: number;
  /** Assets bought back to their target after their wash-sale window. */
  returns: number;
}

/** The baseline policy with its counters. */
export interface HarvestBaselinePolicy extends BacktestPolicy {
  readonly stats: HarvestBaselineStats;
}

/**
 * The literature's rule-based harvester (module comment).
 * @throws {RangeError} for a negative or non-finite threshold.
 * @example simulateBacktest({ ..., cases: [{ name: "harvest_baseline", policy: harvestBaselinePolicy({
 *   harvestThresholdBps: 500 }), lotSelection: "TAX_OPTIMAL", ... }] })
 */
export function harvestBaselinePolicy(options: HarvestBaselineOptions): HarvestBaselinePolicy {
  if (!(Number.isFinite(options.harvestThresholdBps) && options.harvestThresholdBps >= 0))
    throw new RangeError(
      `harvestBaselinePolicy: harvestThresholdBps must be finite and >= 0, got ${options.harvestThresholdBps}`,
    );
  const threshold = options.harvestThresholdBps / 1e4;
  const washDays = options.taxRules?.washSaleThresholdDays ?? 30;
  const buffer = options.cashBuffer ?? 0;
  const minTradeFraction = options.minTradeFraction ?? DEFAULT_MIN_TRADE_FRACTION;
  /** Assets harvested and not yet returned to their target. */
  const parked = new Set<number>();
  const stats: HarvestBaselineStats = { decisions: 0, harvestedLots: 0, returns: 0 };
  return {
    stats,
    decide({ view, portfolio }: PolicyContext): PolicyOrder[] {
      stats.decisions += 1;
      const n = view.size;
      const nav = portfolio.navUsd;
      const minTrade = minTradeFraction * nav;
      const windowStart = addDays(view.executionDate ?? view.date, -washDays);
      const orders: PolicyOrder[] = [];
      const values = Float64Array.from(portfolio.valuesUsd);
      let cash = portfolio.cashUsd;
      const blocked = new Uint8Array(n);

      // 1. Harvest every lot past the threshold.
      for (let i = 0; i < n; i++) {
        if ((portfolio.lastLossSale(i) ?? "") >= windowStart) blocked[i] = 1;
        const lots = portfolio.lots(i);
        if (lots.length === 0 || Number.isNaN(view.price(i))) continue;
        const price = view.priceUsd(i);
        const picked: { lotId: string; quantity: (typeof lots)[number]["quantity"] }[] = [];
        for (const lot of lots) {
          const value = lot.quantity.toNumber() * price;
          const basis = lot.totalCostBasis.toNumber() / lot.fxRate.toNumber();
          if (value > 0 && basis > value && basis - value >= threshold * basis) {
            picked.push({ lotId: lot.id, quantity: lot.quantity });
            values[i]! -= value;
            cash += value;
          }
        }
        if (picked.length === 0) continue;
        orders.push({ side: "sell", column: i, lots: picked, harvest: true });
        stats.harvestedLots += picked.length;
        blocked[i] = 1;
        parked.add(i);
      }

      // 2. The target without the parked (blocked) assets, renormalized to the investable share.
      const target = investableTargetWeights(view, buffer);
      let kept = 0;
      let all = 0;
      for (let i = 0; i < n; i++) {
        all += target[i]!;
        if (blocked[i] === 1 || Number.isNaN(view.price(i))) target[i] = 0;
        kept += target[i]!;
      }
      if (!(kept > 0)) return orders;
      for (let i = 0; i < n; i++) target[i]! *= all / kept;

      // 4. Assets whose window has passed go back to their target, funded by cash then by the overweights.
      let spare = cash - buffer * nav;
      let returning = 0;
      const buys = new Float64Array(n);
      for (const i of [...parked].sort((a, b) => a - b)) {
        if (blocked[i] === 1) continue;
        parked.delete(i);
        const short = target[i]! * nav - values[i]!;
        if (short < minTrade) continue;
        buys[i] = short;
        returning += short;
        stats.returns += 1;
      }
      const needed = returning - Math.max(spare, 0);
      if (needed > 0) {
        let excess = 0;
        const over = new Float64Array(n);
        for (let i = 0; i < n; i++) {
          if (blocked[i] === 1 || buys[i]! > 0 || !view.pricedToday(i)) continue;
          over[i] = Math.max(values[i]! - target[i]! * nav, 0);
          excess += over[i]!;
        }
        const scale = excess > needed ? needed / excess : 1;
        for (let i = 0; i < n; i++) {
          const amount = over[i]! * scale;
          if (amount < minTrade || !(portfolio.shares[i]! > 0)) continue;
          orders.push({
            side: "sell",
            column: i,
            quantity: Math.min(portfolio.shares[i]!, amount / view.priceUsd(i)),
          });
          values[i]! -= amount;
          spare += amount;
        }
      }
      spare -= returning;

      // 3. The rest of the spare cash buys the shortfalls of the parked target, pro rata.
      if (spare >= minTrade) {
        let short = 0;
        const gap = new Float64Array(n);
        for (let i = 0; i < n; i++) {
          if (target[i] === 0 || buys[i]! > 0) continue;
          gap[i] = Math.max(target[i]! * nav - values[i]!, 0);
          short += gap[i]!;
        }
        const scale = short > spare ? spare / short : 1;
        for (let i = 0; i < n; i++) if (gap[i]! > 0) buys[i] = gap[i]! * scale;
      }
      for (let i = 0; i < n; i++)
        if (buys[i]! >= minTrade && blocked[i] === 0)
          orders.push({ side: "buy", column: i, amountUsd: buys[i]! });
      return orders;
    },
  };
}
