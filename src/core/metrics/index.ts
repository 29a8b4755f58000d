/**
 * @module core/metrics
 * Performance statistics shared by the theme backtest and the account backtest: returns, cumulative and
 * annualized return, volatility, Sharpe ratio, beta, maximum drawdown and tracking error, each with its
 * formula and source in its TSDoc. Inputs are plain arrays or Float64Arrays; non-finite input is rejected.
 */
export { beta } from "./beta.js";
export { type Drawdown, drawdownOf, maxDrawdown } from "./drawdown.js";
export {
  type PerformanceSummary,
  type PerformanceSummaryOptions,
  performanceSummary,
} from "./performance-summary.js";
export {
  annualizedReturn,
  cumulativeReturns,
  periodicRate,
  simpleReturns,
  TRADING_DAYS_PER_YEAR,
  totalReturn,
} from "./returns.js";
export { type SharpeRatioOptions, sharpeRatio } from "./sharpe.js";
export {
  compensatedSum,
  mean,
  type Series,
  sampleCovariance,
  sampleVariance,
} from "./statistics.js";
export { trackingError } from "./tracking-error.js";
export { annualizedVolatility } from "./volatility.js";
