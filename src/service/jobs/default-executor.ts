/**
 * @module service/jobs/default-executor
 * The one place where the job system is wired to the account backtest engine. Worker threads load
 * {@link backtestExecutor} from this module by default; the service resolves request defaults with it.
 */
import { PortfolioError } from "../../core/errors.js";
import type { BacktestExecutor } from "./executor.js";

/**
 * The account backtester (src/service/backtest-run.ts) as a {@link BacktestExecutor}.
 *
 * INTEGRATION POINT: this build does not contain the engine yet; both methods throw `engine_unavailable` until
 * `resolveBacktestParams` and `runAccountBacktest` are wired here.
 */
export function defaultBacktestExecutor(): BacktestExecutor {
  const unavailable = (): never => {
    throw new PortfolioError(
      "The account backtest engine is not part of this lotwise build (src/service/backtest-run.ts is missing).",
      { code: "engine_unavailable" },
    );
  };
  return { resolveParams: unavailable, run: unavailable };
}

/** The default executor, as loaded by worker threads (export name `backtestExecutor`). */
export const backtestExecutor: BacktestExecutor = defaultBacktestExecutor();
