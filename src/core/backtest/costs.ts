/**
 * @module core/backtest/costs
 * Trading costs of the simulator: one proportional transaction cost (commission, half spread and impact
 * folded into basis points of the traded value) and an FX conversion fee on trades of non-USD listings.
 *
 * Costs are folded into the trade price, as the tax rules want (commissions and fees increase the basis of a
 * purchase and reduce the amount realized on a sale; IRS Publication 550, "Basis of Investment Property"):
 *   buy:  price_paid = close x (1 + c + f)       sell: price_received = close x (1 - c - f)
 * with c = transactionBps / 10^4 and f = fxFeeBps / 10^4 (0 for USD listings). The USD cash of a trade of q
 * shares is q x price / fx; its transaction cost is q x close x c / fx and its FX cost q x close x f / fx.
 */

/** Cost settings of a backtest. */
export interface TradingCosts {
  /**
   * One-way cost of a trade in basis points of its value (the configuration's `tcost_bps`).
   * @default 5 ({@link DEFAULT_TRANSACTION_COST_BPS})
   */
  readonly transactionBps: number;
  /**
   * Fee of converting USD to or from a listing's currency, basis points of the amount converted.
   * @default 25 ({@link DEFAULT_FX_FEE_BPS}, the proposal builder's 0.25%)
   */
  readonly fxFeeBps: number;
}

/**
 * Default one-way transaction cost, 5 bps: commission-free brokerage plus about half the quoted spread of a
 * large-cap US stock (a few bps) and a little impact for the small orders of a single account.
 */
export const DEFAULT_TRANSACTION_COST_BPS = 5;

/** Default FX conversion fee, 25 bps (docs/proposals.md, `DEFAULT_FX_FEE_PERCENTAGE` 0.25%). */
export const DEFAULT_FX_FEE_BPS = 25;

/**
 * Fills the defaults and checks the values.
 * @throws {RangeError} when a value is negative, not finite, or the two sum to 10,000 bps or more.
 * @example resolveTradingCosts({ transactionBps: 0 }) // { transactionBps: 0, fxFeeBps: 25 }
 */
export function resolveTradingCosts(costs: Partial<TradingCosts> = {}): TradingCosts {
  const transactionBps = costs.transactionBps ?? DEFAULT_TRANSACTION_COST_BPS;
  const fxFeeBps = costs.fxFeeBps ?? DEFAULT_FX_FEE_BPS;
  for (const [name, v] of [
    ["transactionBps", transactionBps],
    ["fxFeeBps", fxFeeBps],
  ] as const)
    if (!Number.isFinite(v) || v < 0)
      throw new RangeError(`resolveTradingCosts: ${name} must be finite and >= 0, got ${v}`);
  if (transactionBps + fxFeeBps >= 10_000)
    throw new RangeError("resolveTradingCosts: transactionBps + fxFeeBps must be below 10,000 (100%)");
  return { transactionBps, fxFeeBps };
}
