/**
 * @module core/backtest/simulator
 * The multi-period simulator. All cases advance day by day in lockstep over the trading dates of the window:
 *
 *   for each trading date t (first .. last), for each case:
 *     1. at the open: splits (lots x ratio, basis kept), spin-offs (basis allocated to the child; a child without
 *        a price that day is sold at its value at the close), then dividends going ex (cash, on the shares held
 *        at the previous close);
 *     2. at the close: the orders decided at the previous rebalance execute (decision at r_k, execution at
 *        the next trading date: one-day lag, so a policy never trades at a price it has seen);
 *     3. on the last trading date of a calendar year (before the window's end): the tax year is settled and
 *        the tax paid from cash;
 *     4. the account is marked to market (daily value, float; exact decimal NAV at period ends);
 *   then, on a rebalance date r_k, each policy decides on the market served at t; on the dates between two
 *   rebalances a policy with `scanEveryTradingDays` = s scans at r_k + s, r_k + 2s, ... (`policy.scan`, e.g.
 *   a harvest-only check), its orders executing on the next trading date too.
 *
 * Progress is reported after each period (all cases); the cancellation check runs before each rebalance.
 */
import type { Decimal } from "decimal.js";
import { type LotSelectionPolicy, resolveTaxRules, TaxDecimal, type TaxLot } from "../tax/index.js";
import {
  AccountBook,
  type BacktestTaxSettings,
  type CoverRecord,
  type SpinOffRecord,
  type TaxYearRecord,
  type TradeFill,
  type TradeTotals,
} from "./account-book.js";
import { resolveTradingCosts, type TradingCosts } from "./costs.js";
import { BacktestCancelledError } from "./errors.js";
import type { BacktestMarket } from "./market-data.js";
import { MarketView } from "./market-view.js";
import type { BacktestPolicy, BacktestShortLot, PolicyOrder } from "./policy.js";
import { type BacktestRebalancePeriod, type BacktestSchedule, backtestSchedule } from "./schedule.js";

/** Default flat tax rates (top US federal brackets; the NIIT and state taxes are not modeled). */
export const DEFAULT_BACKTEST_TAX_RATES = { shortTermRate: 0.37, longTermRate: 0.2 } as const;

/** One case to simulate. */
export interface BacktestCase {
  /** Key of the case in the results (e.g. `tax_managed`). */
  readonly name: string;
  readonly description: string;
  /** Whether the case manages taxes (reported as is). */
  readonly taxManaged: boolean;
  readonly policy: BacktestPolicy;
  /** Holdings at the close of the first date. */
  readonly initial: {
    readonly cashUsd: Decimal.Value;
    readonly lots?: readonly TaxLot[];
    readonly shortLots?: readonly BacktestShortLot[];
  };
  /** Lot selection of sells that name no lots. @default "FIFO" */
  readonly lotSelection?: LotSelectionPolicy;
}

/** Progress after a period. */
export interface BacktestProgressReport {
  readonly plannedPeriods: number;
  readonly completedPeriods: number;
  /** Rebalance date of the last completed period. */
  readonly lastCompletedPeriod: string | null;
}

/** Hooks of a run. */
export interface BacktestHooks {
  onProgress?(progress: BacktestProgressReport): void;
  /** Checked before each period; true stops the run with {@link BacktestCancelledError}. */
  shouldCancel?(): boolean;
  /** A clock in milliseconds, to measure the time spent in policies (core has none of its own). */
  now?(): number;
}

/** Input of {@link simulateBacktest}. */
export interface SimulateBacktestInput {
  readonly market: BacktestMarket;
  readonly startDate: string;
  readonly endDate: string;
  /** @default "MONTHLY" */
  readonly rebalancePeriod?: BacktestRebalancePeriod;
  readonly cases: readonly BacktestCase[];
  readonly costs?: Partial<TradingCosts>;
  readonly tax?: Partial<BacktestTaxSettings>;
  readonly hooks?: BacktestHooks;
}

/** The account at a value date, exact: `nav = cash + positionsValue`. */
export interface LedgerEntry {
  readonly date: string;
  readonly cash: Decimal;
  readonly positionsValue: Decimal;
  readonly nav: Decimal;
  /** Cumulative trade totals and taxes paid up to this date. */
  readonly totals: Readonly<TradeTotals>;
  readonly taxesPaid: Decimal;
}

/** The raw record of one simulated case (see case-metrics for the figures derived from it). */
export interface CaseRun {
  readonly name: string;
  readonly description: string;
  readonly taxManaged: boolean;
  /** Float value at every close from `first` to `last` (index 0 = first date). */
  readonly dailyValues: Float64Array;
  /** Tax paid on each day (0 on most days), aligned with `dailyValues`; refunds are negative. */
  readonly dailyTaxes: Float64Array;
  /** Trading costs (transaction + FX) paid on each day, USD, aligned with `dailyValues`. */
  readonly dailyCosts: Float64Array;
  /** Exact NAV at the close of the first date and of each period end. */
  readonly periodValues: readonly Decimal[];
  /** Cash, positions and cumulative flows at the same dates (accounting audit). */
  readonly ledger: readonly LedgerEntry[];
  /** Every realized long sale record (wash sales applied) with its harvest flag. */
  readonly realized: ReturnType<AccountBook["realizedRecords"]>;
  readonly covers: readonly CoverRecord[];
  /** Every spin-off applied to the account. */
  readonly spinOffs: readonly SpinOffRecord[];
  /** Every executed trade. */
  readonly fills: readonly TradeFill[];
  readonly taxYears: readonly TaxYearRecord[];
  /** The final, partial year (strategy sales only) and the liquidation at the last close. */
  readonly finalYear: TaxYearRecord;
  readonly liquidation: {
    readonly shortTerm: Decimal;
    readonly longTerm: Decimal;
    readonly taxOwed: Decimal;
  };
  readonly totals: Readonly<TradeTotals>;
  /** Cash and lots at the end, for inspection. */
  readonly endCash: Decimal;
  readonly endLots: readonly TaxLot[];
  /** Milliseconds spent in the policy's decide (0 without a clock). */
  readonly policyMs: number;
}

/** Result of {@link simulateBacktest}. */
export interface SimulatedBacktest {
  readonly schedule: BacktestSchedule;
  /** Dates of `periodValues`: the first date, then each period end. */
  readonly valueDates: readonly string[];
  readonly cases: readonly CaseRun[];
}

/** Checks and completes tax settings. */
export function resolveBacktestTax(tax: Partial<BacktestTaxSettings> = {}): BacktestTaxSettings {
  const shortTermRate = tax.shortTermRate ?? DEFAULT_BACKTEST_TAX_RATES.shortTermRate;
  const longTermRate = tax.longTermRate ?? DEFAULT_BACKTEST_TAX_RATES.longTermRate;
  const ordinaryIncomeRate = tax.ordinaryIncomeRate ?? shortTermRate;
  const lossDeductionLimit = tax.lossDeductionLimit ?? 3000;
  for (const [name, v] of [
    ["shortTermRate", shortTermRate],
    ["longTermRate", longTermRate],
    ["ordinaryIncomeRate", ordinaryIncomeRate],
  ] as const)
    if (!(v >= 0 && v <= 1))
      throw new RangeError(`simulateBacktest: tax.${name} must be a fraction in [0, 1], got ${v}`);
  if (!(lossDeductionLimit >= 0 && Number.isFinite(lossDeductionLimit)))
    throw new RangeError(
      `simulateBacktest: tax.lossDeductionLimit must be finite and >= 0, got ${lossDeductionLimit}`,
    );
  const rules = resolveTaxRules(tax.rules ?? {}, "simulateBacktest");
  const lossUsage = tax.lossUsage ?? "account_only";
  if (lossUsage !== "account_only" && lossUsage !== "outside_gains")
    throw new RangeError(
      `simulateBacktest: tax.lossUsage must be "account_only" or "outside_gains", got ${String(lossUsage)}`,
    );
  return { shortTermRate, longTermRate, ordinaryIncomeRate, lossDeductionLimit, lossUsage, rules };
}

/**
 * Runs every case over the window (see the module comment for the order of events).
 * @throws {BacktestCancelledError} when `hooks.shouldCancel` returns true.
 * @throws {LookAheadError} when a policy reads data after its decision date.
 * @throws {RangeError} for an empty case list, duplicate case names or a window without two trading dates.
 * @example simulateBacktest({ market, startDate: "2021-01-04", endDate: "2023-12-29", cases: [taxManaged, preTax] })
 */
export function simulateBacktest(input: SimulateBacktestInput): SimulatedBacktest {
  const { market, cases } = input;
  if (cases.length === 0) throw new RangeError("simulateBacktest: give at least one case");
  const names = new Set<string>();
  for (const c of cases) {
    if (names.has(c.name)) throw new RangeError(`simulateBacktest: case ${c.name} appears twice`);
    names.add(c.name);
  }
  const schedule = backtestSchedule(
    market.dates,
    input.startDate,
    input.endDate,
    input.rebalancePeriod ?? "MONTHLY",
  );
  const costs = resolveTradingCosts(input.costs);
  const tax = resolveBacktestTax(input.tax);
  const hooks = input.hooks ?? {};
  const { first, last, rebalances, periodEnds, yearEnds } = schedule;
  const K = rebalances.length;

  const books = cases.map(
    (c, k) =>
      new AccountBook(market, c.initial, {
        costs,
        tax,
        lotSelection: c.lotSelection ?? "FIFO",
        idPrefix: `bt${k}-`,
      }),
  );
  for (const c of cases) c.policy.initialize?.(market.securities);
  const days = last - first + 1;
  const dailyValues = cases.map(() => new Float64Array(days));
  const dailyTaxes = cases.map(() => new Float64Array(days));
  const dailyCosts = cases.map(() => new Float64Array(days));
  const periodValues: Decimal[][] = cases.map(() => []);
  const ledgers: LedgerEntry[][] = cases.map(() => []);
  const policyMs = cases.map(() => 0);
  const pending: (readonly PolicyOrder[] | null)[] = cases.map(() => null);
  const isRebalance = new Map(rebalances.map((t, k) => [t, k]));
  const isPeriodEnd = new Map(periodEnds.map((t, k) => [t, k]));
  const isYearEnd = new Set(yearEnds);
  const valueDates = [market.dates[first]!];
  let lastRebalance = -1;
  let lastPeriod = 0;
  hooks.onProgress?.({ plannedPeriods: K, completedPeriods: 0, lastCompletedPeriod: null });

  for (let t = first; t <= last; t++) {
    const k = isRebalance.get(t);
    for (let c = 0; c < cases.length; c++) {
      const book = books[c]!;
      if (t > first) {
        book.applySplits(t);
        book.applySpinOffs(t);
        book.applyDividends(t);
      }
      const orders = pending[c];
      if (orders !== null && t > first) {
        const before = book.totals.transactionCostUsd.plus(book.totals.fxCostUsd);
        book.execute(t, orders);
        dailyCosts[c]![t - first] = book.totals.transactionCostUsd
          .plus(book.totals.fxCostUsd)
          .minus(before)
          .toNumber();
        pending[c] = null;
      }
      if (isYearEnd.has(t)) dailyTaxes[c]![t - first] = book.settleYear(t).taxOwed.toNumber();
      dailyValues[c]![t - first] = book.navFloat(t);
      if (t === first || isPeriodEnd.has(t)) {
        const positionsValue = book.positionsValue(t);
        const nav = book.cash.plus(positionsValue);
        periodValues[c]!.push(nav);
        ledgers[c]!.push({
          date: market.dates[t]!,
          cash: book.cash,
          positionsValue,
          nav,
          totals: { ...book.totals },
          taxesPaid: book.taxesPaid,
        });
      }
    }
    if (isPeriodEnd.has(t)) valueDates.push(market.dates[t]!);
    const done = isPeriodEnd.get(t);
    if (done !== undefined)
      hooks.onProgress?.({
        plannedPeriods: K,
        completedPeriods: done + 1,
        lastCompletedPeriod: market.dates[rebalances[done]!]!,
      });
    if (k === undefined && lastRebalance >= 0 && t < last) {
      const view = new MarketView(market, t);
      for (let c = 0; c < cases.length; c++) {
        const policy = cases[c]!.policy;
        const every = policy.scanEveryTradingDays ?? 0;
        if (policy.scan === undefined || !(every > 0) || (t - lastRebalance) % every !== 0) continue;
        const start = hooks.now?.() ?? 0;
        pending[c] = policy.scan({ view, portfolio: books[c]!.snapshot(t), period: lastPeriod });
        policyMs[c]! += (hooks.now?.() ?? 0) - start;
      }
    }
    if (k !== undefined) {
      lastRebalance = t;
      lastPeriod = k;
      // Checked once the previous period is complete, before the next decisions.
      if (hooks.shouldCancel?.()) throw new BacktestCancelledError(k);
      const view = new MarketView(market, t);
      for (let c = 0; c < cases.length; c++) {
        const start = hooks.now?.() ?? 0;
        pending[c] = cases[c]!.policy.decide({ view, portfolio: books[c]!.snapshot(t), period: k });
        policyMs[c]! += (hooks.now?.() ?? 0) - start;
      }
    }
  }

  const runs: CaseRun[] = cases.map((c, i) => {
    const book = books[i]!;
    const final = book.finalSettlement(last);
    const endLots: TaxLot[] = [];
    for (let j = 0; j < market.ids.length; j++) endLots.push(...book.lots(j));
    return {
      name: c.name,
      description: c.description,
      taxManaged: c.taxManaged,
      dailyValues: dailyValues[i]!,
      dailyTaxes: dailyTaxes[i]!,
      dailyCosts: dailyCosts[i]!,
      periodValues: periodValues[i]!,
      ledger: ledgers[i]!,
      realized: book.realizedRecords(),
      covers: book.covers,
      spinOffs: book.spinOffs,
      fills: book.fills,
      taxYears: book.taxYears,
      finalYear: final.year,
      liquidation: final.liquidation,
      totals: book.totals,
      endCash: new TaxDecimal(book.cash),
      endLots,
      policyMs: policyMs[i]!,
    };
  });
  return { schedule, valueDates, cases: runs };
}
