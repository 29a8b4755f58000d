/**
 * @module core/proposal/proposal-defaults
 * Defaults of the trading conventions of {@link ProposalOptions}, as named constants (docs/proposals.md
 * explains each choice).
 */

/**
 * FX fee, percent of the USD base amount of a non-USD order (0.25 = 0.25%): in the range retail and
 * wealth-platform brokers charge for USD/CAD conversion (0.1% to 1%); set it to your broker's rate.
 */
export const DEFAULT_FX_FEE_PERCENTAGE = 0.25;

/** Orders worth less than one dollar are dropped (most brokers refuse them); full liquidations excepted. */
export const DEFAULT_MIN_ORDER_NOTIONAL_USD = 1;

/** Share orders below 0.0001 shares are dropped (the finest fractional increment brokers commonly take). */
export const DEFAULT_MIN_ORDER_QUANTITY = 0.0001;

/** Decimal places of fractional share quantities (common broker precision for fractional shares). */
export const DEFAULT_QUANTITY_DECIMALS = 6;

/**
 * Tolerance on weight sums: weights arrive as decimal(1,10) strings, so 1,000 of them rounded to 10 places
 * can drift by 5e-8; 1e-6 leaves room for that and still refuses any real over-allocation (1e-6 of a
 * 1,000,000 USD account is 1 USD).
 */
export const DEFAULT_WEIGHT_SUM_TOLERANCE = 1e-6;
