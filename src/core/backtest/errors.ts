/**
 * @module core/backtest/errors
 * Errors of the backtest engine: a policy that reads market data after its decision date, and a run stopped
 * by its cancellation check.
 */
import { DataError, PortfolioError } from "../errors.js";

/**
 * A policy asked the served market view for data dated after the view's date (cvxportfolio's rule: a policy
 * sees the market only through `serve(t)`). The backtest stops: its results would use information an advisor
 * could not have had.
 */
export class LookAheadError extends DataError {
  /** Date of the view (the decision date). */
  readonly viewDate: string;
  /** Date that was asked for. */
  readonly requestedDate: string;
  constructor(viewDate: string, requestedDate: string, what: string) {
    super(
      `Look-ahead: a policy deciding on ${viewDate} asked for ${what} of ${requestedDate}. A policy may only read data dated on or before its decision date; use MarketView methods without a date, or dates <= ${viewDate}.`,
      { code: "look_ahead" },
    );
    this.viewDate = viewDate;
    this.requestedDate = requestedDate;
  }
}

/** The run's `shouldCancel` hook returned true; no result is produced. */
export class BacktestCancelledError extends PortfolioError {
  /** Periods completed before the stop. */
  readonly completedPeriods: number;
  constructor(completedPeriods: number) {
    super(`The backtest was cancelled after ${completedPeriods} completed period(s).`, {
      code: "backtest_cancelled",
    });
    this.completedPeriods = completedPeriods;
  }
}
