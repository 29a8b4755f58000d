/**
 * @module core/backtest/case-metrics
 * The figures of a backtest case (docs/backtests.md, "Metrics"), computed from its raw run:
 *
 * - values: exact NAV at the first date and each period end (after the taxes paid so far);
 * - pre-tax returns: time-weighted, treating each tax payment as a withdrawal at the close of its day,
 *   r_d = (V_d + tax_d) / V_{d-1} - 1, chained daily (so taxes do not count as losses);
 * - after-tax: the after-tax liquidation value L = V_end - tax of the final year including the gains of
 *   selling every position at the last close; after-tax return = L / V_start - 1;
 * - annualized: (1 + R)^(1 / years) - 1 with years = calendar days / 365.25;
 * - tax alpha = (annualized after-tax return - that of the reference case) x 10^4 bps a year;
 * - turnover = min(purchases, sales) / average period value / years (the SEC's portfolio turnover rate,
 *   Form N-1A Item 13, Instruction 4(d), annualized), so funding a cash account is not turnover;
 * - tracking error = sample standard deviation of the period return differences against the benchmark case,
 *   times sqrt(periods per year) (Grinold & Kahn, ch. 5);
 * - realized gains and losses: recognized amounts (wash-sale disallowance applied) of the strategy's sales
 *   and covers, not of the liquidation; harvested losses: recognized losses of harvest sales.
 */
import type { Decimal } from "decimal.js";
import { daysBetween } from "../dates.js";
import { trackingError } from "../metrics/index.js";
import { TaxDecimal } from "../tax/index.js";
import type { CaseRun, SimulatedBacktest } from "./simulator.js";

const ZERO = new TaxDecimal(0);

/** Figures of one case (USD; returns, turnover and tracking error as fractions). */
export interface CaseMetrics {
  readonly name: string;
  readonly description: string;
  readonly taxManaged: boolean;
  readonly startDate: string;
  readonly endDate: string;
  readonly periods: number;
  readonly startingValue: number;
  readonly endingValue: number;
  readonly values: readonly { readonly date: string; readonly value: number }[];
  /** Pre-tax (time-weighted) return of each period. */
  readonly periodReturns: Float64Array;
  readonly preTaxReturn: number;
  readonly preTaxReturnAnnualized: number;
  readonly afterTaxReturn: number;
  readonly afterTaxReturnAnnualized: number;
  readonly afterTaxLiquidationValue: number;
  readonly realizedShortTermGains: number;
  readonly realizedShortTermLosses: number;
  readonly realizedLongTermGains: number;
  readonly realizedLongTermLosses: number;
  readonly harvestedLosses: number;
  /** Losses disallowed by wash sales (moved into replacement lots), USD. */
  readonly disallowedLosses: number;
  /** Loss sales that were (partly) washed. */
  readonly washSales: number;
  readonly taxesPaid: number;
  /** Tax of the final year including the liquidation. */
  readonly liquidationTax: number;
  readonly taxAlphaBps: number | null;
  readonly turnover: number;
  readonly trackingError: number | null;
  readonly costs: { readonly transaction: number; readonly fx: number };
  readonly dividends: number;
  readonly trades: number;
  readonly unfilledOrders: number;
  readonly policyMs: number;
}

/** Which cases the relative figures refer to. */
export interface SummarizeOptions {
  /** Case whose period returns are the tracking-error benchmark; it gets a null tracking error. */
  readonly benchmarkCase?: string;
  /** Case the tax alpha is measured against; it and cases that do not manage taxes get null. */
  readonly referenceCase?: string;
}

function annualize(total: number, years: number): number {
  if (years <= 0) return total;
  return (1 + total) ** (1 / years) - 1;
}

function periodReturnsOf(sim: SimulatedBacktest, run: CaseRun): Float64Array {
  const { first, periodEnds } = sim.schedule;
  const v = run.dailyValues;
  const tax = run.dailyTaxes;
  const out = new Float64Array(periodEnds.length);
  let start = 0;
  for (let k = 0; k < periodEnds.length; k++) {
    const end = periodEnds[k]! - first;
    let growth = 1;
    for (let d = start + 1; d <= end; d++) growth *= (v[d]! + tax[d]!) / v[d - 1]!;
    out[k] = growth - 1;
    start = end;
  }
  return out;
}

function num(d: Decimal): number {
  const x = d.toNumber();
  return Object.is(x, -0) ? 0 : x;
}

/**
 * Figures of every case of a simulation.
 * @throws {RangeError} when a named benchmark or reference case is not in the simulation, or a value is not
 *   positive (a return cannot be computed).
 * @example summarizeBacktest(sim, { benchmarkCase: "benchmark", referenceCase: "pre_tax" }).tax_managed.taxAlphaBps
 */
export function summarizeBacktest(
  sim: SimulatedBacktest,
  options: SummarizeOptions = {},
): Record<string, CaseMetrics> {
  const byName = new Map(sim.cases.map((c) => [c.name, c]));
  for (const key of ["benchmarkCase", "referenceCase"] as const) {
    const name = options[key];
    if (name !== undefined && !byName.has(name))
      throw new RangeError(`summarizeBacktest: ${key} ${name} is not a case of the simulation`);
  }
  const { first, last, periodEnds } = sim.schedule;
  const startDate = sim.valueDates[0]!;
  const endDate = sim.valueDates[sim.valueDates.length - 1]!;
  const years = daysBetween(startDate, endDate) / 365.25;
  const periodsPerYear = years > 0 ? periodEnds.length / years : periodEnds.length;
  const returns = new Map(sim.cases.map((c) => [c.name, periodReturnsOf(sim, c)]));
  for (const c of sim.cases)
    for (let d = 0; d <= last - first; d++)
      if (!(c.dailyValues[d]! > 0))
        throw new RangeError(
          `summarizeBacktest: case ${c.name} has a non-positive value on day ${d} of the window`,
        );

  const base = new Map<string, Omit<CaseMetrics, "taxAlphaBps" | "trackingError">>();
  for (const run of sim.cases) {
    let stg = ZERO;
    let stl = ZERO;
    let ltg = ZERO;
    let ltl = ZERO;
    let harvested = ZERO;
    let disallowed = ZERO;
    let washSales = 0;
    for (const { record, harvest } of run.realized) {
      const g = record.recognizedGainUsd;
      const loss = g.isNegative() && !g.isZero();
      if (record.term === "short_term") {
        if (loss) stl = stl.minus(g);
        else stg = stg.plus(g);
      } else if (loss) ltl = ltl.minus(g);
      else ltg = ltg.plus(g);
      if (harvest && loss) harvested = harvested.minus(g);
      if (record.disallowedLossUsd.gt(0)) {
        disallowed = disallowed.plus(record.disallowedLossUsd);
        washSales += 1;
      }
    }
    for (const cover of run.covers) {
      const g = cover.gainUsd;
      const loss = g.isNegative() && !g.isZero();
      if (loss) stl = stl.minus(g);
      else stg = stg.plus(g);
      if (cover.harvest && loss) harvested = harvested.minus(g);
    }
    let taxes = run.finalYear.taxOwed;
    for (const y of run.taxYears) taxes = taxes.plus(y.taxOwed);
    const startValue = run.periodValues[0]!;
    const endValue = run.periodValues[run.periodValues.length - 1]!;
    const liquidationValue = endValue.minus(run.liquidation.taxOwed);
    const r = returns.get(run.name)!;
    let growth = 1;
    for (let k = 0; k < r.length; k++) growth *= 1 + r[k]!;
    const preTax = growth - 1;
    const afterTax = liquidationValue.dividedBy(startValue).minus(1).toNumber();
    let averageValue = ZERO;
    for (const v of run.periodValues) averageValue = averageValue.plus(v);
    averageValue = averageValue.dividedBy(run.periodValues.length);
    const traded = run.totals.purchasesUsd.lt(run.totals.salesUsd)
      ? run.totals.purchasesUsd
      : run.totals.salesUsd;
    base.set(run.name, {
      name: run.name,
      description: run.description,
      taxManaged: run.taxManaged,
      startDate,
      endDate,
      periods: periodEnds.length,
      startingValue: num(startValue),
      endingValue: num(endValue),
      values: sim.valueDates.map((date, k) => ({ date, value: num(run.periodValues[k]!) })),
      periodReturns: r,
      preTaxReturn: preTax,
      preTaxReturnAnnualized: annualize(preTax, years),
      afterTaxReturn: afterTax,
      afterTaxReturnAnnualized: annualize(afterTax, years),
      afterTaxLiquidationValue: num(liquidationValue),
      realizedShortTermGains: num(stg),
      realizedShortTermLosses: num(stl),
      realizedLongTermGains: num(ltg),
      realizedLongTermLosses: num(ltl),
      harvestedLosses: num(harvested),
      disallowedLosses: num(disallowed),
      washSales,
      taxesPaid: num(taxes),
      liquidationTax: num(run.liquidation.taxOwed),
      turnover: years > 0 ? traded.dividedBy(averageValue).toNumber() / years : 0,
      costs: { transaction: num(run.totals.transactionCostUsd), fx: num(run.totals.fxCostUsd) },
      dividends: num(run.totals.dividendsUsd),
      trades: run.totals.trades,
      unfilledOrders: run.totals.unfilledOrders,
      policyMs: run.policyMs,
    });
  }
  const out: Record<string, CaseMetrics> = {};
  const reference = options.referenceCase === undefined ? undefined : base.get(options.referenceCase);
  const benchmarkReturns =
    options.benchmarkCase === undefined ? undefined : returns.get(options.benchmarkCase);
  for (const run of sim.cases) {
    const m = base.get(run.name)!;
    const taxAlphaBps =
      reference !== undefined && run.taxManaged && run.name !== options.referenceCase
        ? (m.afterTaxReturnAnnualized - reference.afterTaxReturnAnnualized) * 1e4
        : null;
    const te =
      benchmarkReturns !== undefined && run.name !== options.benchmarkCase
        ? trackingError(m.periodReturns, benchmarkReturns, periodsPerYear)
        : null;
    out[run.name] = { ...m, taxAlphaBps, trackingError: te };
  }
  return out;
}
