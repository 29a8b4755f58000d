/**
 * @module test/helpers/backtest-executors
 * Test executors for the job machinery (runner, service, HTTP, crash recovery). They are not backtests: each one
 * plays a behaviour of an engine — reports progress per month deterministically, fails, never finishes, ignores
 * cancel requests, kills its thread — so the tests can check what the job system does with it. Worker threads load
 * them by module URL and export name ({@link executorModule}).
 */
import type {
  BacktestCaseResult,
  BacktestRequest,
  BacktestResolvedParams,
} from "../../src/contract/index.js";
import { DataError, ValidationError } from "../../src/core/errors.js";
import type { BacktestExecutor, BacktestRunHooks, BacktestRunParams } from "../../src/service/jobs/index.js";

/** First date the fake "market" covers; earlier start dates are refused by resolveParams. */
export const FAKE_FIRST_DATE = "2020-01-02";
/** Defaults the fake resolver fills in. */
export const FAKE_DEFAULTS = {
  start_date: "2024-07-01",
  end_date: "2025-06-30",
  rebalance_period: "MONTHLY",
  starting_nav: 1_000_000,
  tax_gamma: 1,
  tax_loss_threshold_bps: 500,
} as const satisfies BacktestResolvedParams;

/** Module reference of an export of this file, for worker threads. */
export function executorModule(exportName: string): { module: string; exportName: string } {
  return { module: new URL("./backtest-executors.ts", import.meta.url).href, exportName };
}

function sleep(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** Month ends (calendar) from start to end, the last one capped at end. */
export function monthEnds(start: string, end: string): string[] {
  const out: string[] = [];
  let y = Number(start.slice(0, 4));
  let m = Number(start.slice(5, 7));
  for (;;) {
    const last = new Date(Date.UTC(y, m, 0)).toISOString().slice(0, 10);
    if (last >= end) {
      out.push(end);
      return out;
    }
    out.push(last);
    m += 1;
    if (m > 12) {
      m = 1;
      y += 1;
    }
  }
}

function resolveParams(
  _ctx: unknown,
  _org: string,
  _account: string,
  request: BacktestRequest,
): BacktestResolvedParams {
  if (request.start_date !== undefined && request.start_date < FAKE_FIRST_DATE)
    throw new ValidationError(
      `start_date ${request.start_date} is before the first price (${FAKE_FIRST_DATE}).`,
      [{ path: "start_date", message: `before the first price date ${FAKE_FIRST_DATE}` }],
    );
  return {
    start_date: request.start_date ?? FAKE_DEFAULTS.start_date,
    end_date: request.end_date ?? FAKE_DEFAULTS.end_date,
    rebalance_period: request.rebalance_period ?? FAKE_DEFAULTS.rebalance_period,
    starting_nav: request.starting_nav ?? FAKE_DEFAULTS.starting_nav,
    tax_gamma: request.tax_gamma ?? FAKE_DEFAULTS.tax_gamma,
    tax_loss_threshold_bps: request.tax_loss_threshold_bps ?? FAKE_DEFAULTS.tax_loss_threshold_bps,
  };
}

/**
 * A case whose value grows by `growth` per period from starting_nav: value_k = nav x (1 + growth)^k.
 * The figures are arithmetic on those values, so tests can recompute them.
 */
export function fakeCase(
  params: BacktestRunParams,
  dates: readonly string[],
  growth: number,
  taxManaged: boolean,
): BacktestCaseResult {
  const nav = params.starting_nav;
  const values = [params.start_date, ...dates].map((date, k) => ({ date, value: nav * (1 + growth) ** k }));
  const ending = values[values.length - 1]!.value;
  const ret = ending / nav - 1;
  return {
    description: `fake ${taxManaged ? "tax-managed" : "reference"} case growing ${growth * 100}% a period`,
    tax_managed: taxManaged,
    start_date: params.start_date,
    end_date: params.end_date,
    periods: dates.length,
    starting_value: nav,
    ending_value: ending,
    values,
    pre_tax_return: ret,
    pre_tax_return_annualized: ret,
    after_tax_return: ret,
    after_tax_return_annualized: ret,
    after_tax_liquidation_value: ending,
    realized_short_term_gains: 0,
    realized_short_term_losses: 0,
    realized_long_term_gains: 0,
    realized_long_term_losses: 0,
    harvested_losses: 0,
    taxes_paid: 0,
    tax_alpha_bps: taxManaged ? params.tax_gamma * 10 : null,
    turnover: 0.1,
    tracking_error: taxManaged ? params.tax_loss_threshold_bps / 100_000 : null,
    costs: { transaction: 0, fx: 0 },
  };
}

/** Periods one by one: progress after each, stop when asked. Returns the dates completed. */
function walk(params: BacktestRunParams, hooks: BacktestRunHooks | undefined, periodMs: number): string[] {
  const dates = monthEnds(params.start_date, params.end_date);
  const done: string[] = [];
  for (const d of dates) {
    if (hooks?.shouldCancel?.()) throw new Error("stopped on cancel request");
    if (periodMs > 0) sleep(periodMs);
    done.push(d);
    hooks?.onProgress?.({
      planned_periods: dates.length,
      completed_periods: done.length,
      last_completed_period: d,
    });
  }
  return done;
}

function result(params: BacktestRunParams, dates: string[]): Record<string, BacktestCaseResult> {
  const out: Record<string, BacktestCaseResult> = {
    tax_managed: fakeCase(params, dates, 0.01, true),
    pre_tax: fakeCase(params, dates, 0.009, false),
    benchmark: fakeCase(params, dates, 0.008, false),
  };
  if (params.ls_tlh_factor) out.long_short_tlh = fakeCase(params, dates, 0.011, true);
  return out;
}

function periodic(periodMs: number): BacktestExecutor {
  return {
    resolveParams,
    run: (_ctx, _org, _account, params, hooks) => result(params, walk(params, hooks, periodMs)),
  };
}

/** Deterministic: one period per month, no delay. */
export const fastExecutor: BacktestExecutor = periodic(0);

/** Deterministic, 15 ms per period (long enough to observe RUNNING and overlap). */
export const slowExecutor: BacktestExecutor = periodic(15);

/** Fails with a DataError after two periods. */
export const failingExecutor: BacktestExecutor = {
  resolveParams,
  run: (_ctx, _org, _account, params, hooks) => {
    walk(
      { ...params, end_date: monthEnds(params.start_date, params.end_date).slice(0, 2).at(-1)! },
      hooks,
      0,
    );
    throw new DataError("No price for FAKE:XNAS on or before 2024-08-30. Import prices for it.", {
      code: "missing_price",
    });
  },
};

/** Throws something that is not a lotwise error (an engine bug). */
export const buggyExecutor: BacktestExecutor = {
  resolveParams,
  run: () => {
    const rows: number[][] = [];
    return { tax_managed: rows[3]![0] } as never;
  },
};

/** Returns a result that does not match the contract (NaN value). */
export const badResultExecutor: BacktestExecutor = {
  resolveParams,
  run: (_ctx, _org, _account, params) => {
    const r = result(params, monthEnds(params.start_date, params.end_date));
    r.tax_managed!.ending_value = Number.NaN;
    return r;
  },
};

/** Reports a period every 10 ms forever; stops (throws) only when asked to cancel. */
export const endlessExecutor: BacktestExecutor = {
  resolveParams,
  run: (_ctx, _org, _account, _params, hooks) => {
    for (let k = 1; ; k++) {
      if (hooks?.shouldCancel?.()) throw new Error("stopped on cancel request");
      sleep(10);
      hooks?.onProgress?.({
        planned_periods: 1_000_000,
        completed_periods: k,
        last_completed_period: "2024-07-31",
      });
    }
  },
};

/** Reports progress forever and never looks at cancel requests (a hung engine). */
export const stubbornExecutor: BacktestExecutor = {
  resolveParams,
  run: (_ctx, _org, _account, _params, hooks) => {
    for (let k = 1; ; k++) {
      sleep(10);
      hooks?.onProgress?.({
        planned_periods: 1_000_000,
        completed_periods: k,
        last_completed_period: "2024-07-31",
      });
    }
  },
};

/** Ends its worker thread (process.exit in a worker ends the thread) after two periods. */
export const exitingExecutor: BacktestExecutor = {
  resolveParams,
  run: (_ctx, _org, _account, params, hooks) => {
    walk({ ...params, end_date: monthEnds(params.start_date, params.end_date)[1]! }, hooks, 5);
    process.exit(7);
  },
};
