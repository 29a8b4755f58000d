/**
 * @module market/synthetic/types
 * Output shapes of the synthetic market generator. Large series are columnar (`Float64Array`, row-major by date,
 * like {@link PricePanel}); small lists use the model types of `core/data/types.ts`.
 */

import type { CharacteristicPanel, PricePanel } from "../../core/data/panel.js";
import type { Dividend, FxRate, IndexInfo, Security, Split } from "../../core/data/types.js";
import type { ResolvedSyntheticMarketOptions } from "./options.js";

/**
 * Quarterly company fundamentals in the listing currency, company totals (not per share), one column per
 * security. Quarter `q` of security `i` is at `q * N + i`. A quarter's figures become public on
 * `quarterEnds[q] + reportLagDays[i]` calendar days; point-in-time users must not read them earlier.
 */
export interface FundamentalsPanel {
  /** Calendar quarter ends (`YYYY-03-31`, `-06-30`, `-09-30`, `-12-31`), ascending (Q). */
  quarterEnds: string[];
  /** theme_asset_ids (N), the same order as the securities. */
  ids: string[];
  /** Calendar days from quarter end to publication, per security (N). */
  reportLagDays: Int32Array;
  /** Sales (revenue) of the quarter. */
  sales: Float64Array;
  /** Net income of the quarter (negative for a loss). */
  netIncome: Float64Array;
  /** Book equity at the quarter end (clean surplus: previous book + net income - dividends). */
  bookEquity: Float64Array;
}

/** Daily returns of the latent factors that drive the synthetic market (arithmetic, T x K row-major). */
export interface FactorReturns {
  dates: string[];
  /** Factor names: `market`, `sector_<code>` (11), `size`, `value`, `momentum`, `quality`, `cad_market`. */
  names: string[];
  values: Float64Array;
}

/** Constituent weights at rebalance dates, columnar: `values[m * ids.length + j]`; 0 = not a constituent. */
export interface IndexWeightPanel {
  dates: string[];
  ids: string[];
  values: Float64Array;
}

/** A benchmark index of the synthetic market: description, daily levels on the trading calendar, weights. */
export interface SyntheticIndex {
  info: IndexInfo;
  /** The trading dates (same as the price panel's). */
  dates: string[];
  /** Index level per trading date; NaN before the index starts. */
  levels: Float64Array;
  /** Weights chosen at the start and at each month end; they apply from the next trading day on. */
  weights: IndexWeightPanel;
}

/** Everything {@link generateMarket} produces. */
export interface SyntheticMarket {
  /** The options used, defaults filled in. */
  options: ResolvedSyntheticMarketOptions;
  /** The security master: equities listed on XNYS, XNAS (USD) and XTSE (CAD). */
  securities: Security[];
  /** Raw (unadjusted) daily closes in the listing currency, and volumes in shares; NaN before a listing. */
  prices: PricePanel;
  /** Shares outstanding on each security's first trading date (before any split), aligned with `securities`. */
  initialShares: Float64Array;
  /** Forward and reverse splits, by date. */
  splits: Split[];
  /** Quarterly cash dividends per share (listing currency), by ex-date. */
  dividends: Dividend[];
  /** Daily FX rates on the trading calendar: CAD, EUR, GBP, JPY per 1 USD. */
  fxRates: FxRate[];
  /** Quarterly fundamentals (with 8 quarters of history before the first trading date). */
  fundamentals: FundamentalsPanel;
  /** Month-end point-in-time characteristics (empty panel when `options.characteristics` is false). */
  characteristics: CharacteristicPanel;
  /** `SYNTH500` (largest US listings) and `SYNTHTOTAL` (every listing, in USD). */
  indexes: SyntheticIndex[];
  /** The latent factor returns, for risk-model tests. */
  factorReturns: FactorReturns;
}
