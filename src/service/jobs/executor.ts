/**
 * @module service/jobs/executor
 * What the job runner needs from a backtest engine: resolve a request's defaults, and run the backtest of one
 * account while reporting progress per period and honouring cancel requests. The runner is built around this
 * interface so the engine can be swapped (the default is the account backtester of src/service/backtest-run.ts,
 * wired in {@link ./default-executor.ts}); worker threads load it from a module by name because functions cannot
 * cross a thread boundary.
 */
import { pathToFileURL } from "node:url";
import type {
  BacktestCaseResult,
  BacktestRequest,
  BacktestResolvedParams,
  LS_TLH_FACTORS,
} from "../../contract/index.js";
import type { ServiceContext } from "../context.js";

/** Progress an engine reports after each rebalance period. */
export interface BacktestPeriodProgress {
  /** Periods the whole run will simulate. */
  planned_periods: number;
  /** Periods finished so far (0..planned_periods). */
  completed_periods: number;
  /** Rebalance date of the last finished period (null before the first one). */
  last_completed_period: string | null;
}

/** Callbacks the runner hands to {@link BacktestExecutor.run}. */
export interface BacktestRunHooks {
  /** Called after every period; the runner records it (the job's heartbeat). */
  onProgress?(progress: BacktestPeriodProgress): void;
  /** Polled between periods; true means stop now (the run may throw or return early — the job fails as cancelled). */
  shouldCancel?(): boolean;
}

/** Parameters of one run: the resolved parameters plus the optional long-short factor of the request. */
export type BacktestRunParams = BacktestResolvedParams & { ls_tlh_factor?: (typeof LS_TLH_FACTORS)[number] };

/**
 * A backtest engine as the job system sees it. Both methods are synchronous: a run occupies its worker thread
 * (never the server's event loop) from start to end.
 */
export interface BacktestExecutor {
  /**
   * The request with every default filled in (the job's `resolved_params`), checked against the account and the
   * market data. Runs on the caller's thread when a job is created, so it must be cheap.
   * @throws {ValidationError} naming the field for values the data cannot support (e.g. dates outside the prices)
   * @throws {NotFoundError} for an account that is not the organization's
   */
  resolveParams(
    ctx: ServiceContext,
    organizationUuid: string,
    accountUuid: string,
    request: BacktestRequest,
  ): BacktestResolvedParams | Promise<BacktestResolvedParams>;
  /**
   * Runs the backtest and returns the result per case name (tax_managed, harvest_baseline, pre_tax, benchmark, long_short_tlh).
   * @throws {PortfolioError} with a message for the user when the backtest cannot be done
   */
  run(
    ctx: ServiceContext,
    organizationUuid: string,
    accountUuid: string,
    params: BacktestRunParams,
    hooks?: BacktestRunHooks,
  ): Record<string, BacktestCaseResult> | Promise<Record<string, BacktestCaseResult>>;
}

/**
 * Where a worker thread finds an executor: an ES module (file URL or absolute path) and the name of its export
 * that implements {@link BacktestExecutor}.
 */
export interface BacktestExecutorModule {
  /** File URL (`file:///...`) or absolute path of the module. */
  module: string;
  /** Name of the export. @default "backtestExecutor" */
  exportName?: string;
}

/** Default export name looked up in an executor module. */
export const DEFAULT_EXECUTOR_EXPORT = "backtestExecutor";

/** True for values that implement {@link BacktestExecutor}. */
export function isBacktestExecutor(value: unknown): value is BacktestExecutor {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as BacktestExecutor).run === "function" &&
    typeof (value as BacktestExecutor).resolveParams === "function"
  );
}

/**
 * Loads the executor a module exports.
 * @throws {TypeError} when the export is missing or is not a {@link BacktestExecutor}
 * @example const executor = await loadExecutor({ module: "file:///srv/engine.js", exportName: "engine" });
 */
export async function loadExecutor(ref: BacktestExecutorModule): Promise<BacktestExecutor> {
  const specifier = ref.module.startsWith("file:") ? ref.module : pathToFileURL(ref.module).href;
  const mod = (await import(specifier)) as Record<string, unknown>;
  const name = ref.exportName ?? DEFAULT_EXECUTOR_EXPORT;
  const value = mod[name];
  if (!isBacktestExecutor(value))
    throw new TypeError(
      `loadExecutor: ${ref.module} has no export "${name}" implementing BacktestExecutor (resolveParams and run)`,
    );
  return value;
}
