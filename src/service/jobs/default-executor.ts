/**
 * @module service/jobs/default-executor
 * The one place where the job system is wired to the account backtest engine. Worker threads load
 * {@link backtestExecutor} from this module by default; the service resolves request defaults with it.
 */
import { resolveBacktestParams, runAccountBacktest } from "../backtest-run.js";
import type { BacktestExecutor } from "./executor.js";

/**
 * The account backtester (src/service/backtest-run.ts) as a {@link BacktestExecutor}: defaults resolved by
 * `resolveBacktestParams`, runs by `runAccountBacktest` with progress per period and cancellation between periods.
 */
export function defaultBacktestExecutor(): BacktestExecutor {
  return {
    resolveParams: (ctx, org, account, request) => resolveBacktestParams(ctx, org, account, request),
    run: (ctx, org, account, params, hooks) => runAccountBacktest(ctx, org, account, params, hooks ?? {}),
  };
}

/** The default executor, as loaded by worker threads (export name `backtestExecutor`). */
export const backtestExecutor: BacktestExecutor = defaultBacktestExecutor();
