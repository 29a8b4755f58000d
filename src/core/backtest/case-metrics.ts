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
 * - Sharpe ratio = mean(r_p - r_f) / sd(r_p - r_f) x sqrt(periods per year) over the pre-tax period returns, r_f the
 *   per-period rate of the annual risk-free rate (core/metrics/sharpe.ts; the configuration's risk_free_rate_pct);
 * - tracking error = sample standard deviation of the period return differences against the benchmark case,
 *   times sqrt(periods per year) (Grinold & Kahn, ch. 5);
 * - realized gains and losses: recognized amounts (wash-sale disallowance applied) of the strategy's sales
 *   and covers, not of the liquidation; harvested losses: recognized losses of harvest sales;
 * - attribution against the reference case (docs/backtests.md section 7): after-tax active return = pre-tax
 *   active return (selection + costs) + tax effect (harvest value + deferral and character + liquidation
 *   recapture), annualized fractions that add up exactly.
 */
import type { Decimal } from "decimal.js";
import { daysBetween } from "../dates.js";
import { sharpeRatio, trackingError } from "../metrics/index.js";
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
  /** Annualized Sharpe ratio of the pre-tax period returns against the risk-free rate; null below 2 periods. */
  readonly sharpeRatio: number | null;
  readonly costs: { readonly transaction: number; readonly fx: number };
  readonly dividends: number;
  readonly trades: number;
  readonly unfilledOrders: number;
  readonly policyMs: number;
  /** Whether the after-tax figures charge the tax of selling every position at the last close. */
  readonly liquidateAtEnd: boolean;
  /** Tax the hypothetical final sale adds to the final year's own, USD (0 when `liquidateAtEnd` is false). */
  readonly liquidationRecaptureTax: number;
  /** Tax the harvested losses saved in the years they were realized, summed, USD. */
  readonly harvestSaving: number;
  /** Year by year: realized gains and losses, harvested losses, taxes and what the harvests saved. */
  readonly taxYears: readonly CaseTaxYear[];
  /** Split of the after-tax active return against the reference case; null without a reference case. */
  readonly attribution: CaseAttribution | null;
}

/** One tax year of a case (the last one is the window's final, partial year, before any liquidation). */
export interface CaseTaxYear {
  readonly year: number;
  readonly shortTermGains: number;
  readonly shortTermLosses: number;
  readonly longTermGains: number;
  readonly longTermLosses: number;
  /** Recognized losses of the harvest sales and covers of the year (positive magnitude). */
  readonly harvestedLosses: number;
  /** Tax of the year (negative = saved), USD. */
  readonly taxes: number;
  /** Tax the year's harvested losses saved that year, USD. */
  readonly harvestSaving: number;
  /** The reference case's tax of the year minus this case's (positive = saved), USD; null without reference. */
  readonly taxSavedVsReference: number | null;
}

/**
 * The after-tax active return against the reference case, split into parts that add up exactly (annualized
 * decimal fractions a year; docs/backtests.md section 7 gives each formula):
 *
 *   after_tax_active_return = pre_tax_active_return + tax_effect
 *   pre_tax_active_return   = selection + costs
 *   tax_effect              = harvest_value + deferral_character + liquidation_recapture
 */
export interface CaseAttribution {
  readonly referenceCase: string;
  readonly benchmarkCase: string | null;
  readonly preTaxActiveReturn: number;
  /** Pre-tax annualized return minus the benchmark case's; null without a benchmark case. */
  readonly preTaxActiveReturnVsBenchmark: number | null;
  /** Pre-tax active return before trading costs. */
  readonly selection: number;
  /** Trading costs' share of the pre-tax active return (negative = the case paid more than the reference). */
  readonly costs: number;
  readonly taxEffect: number;
  /** Value of the tax the harvested losses saved in the years they were realized. */
  readonly harvestValue: number;
  /** The rest of the taxes paid in the window: gains deferred or realized, short- vs long-term, compounding. */
  readonly deferralCharacter: number;
  /** The tax of the final liquidation (it recaptures the basis harvesting lowered); 0 without liquidation. */
  readonly liquidationRecapture: number;
  readonly afterTaxActiveReturn: number;
  /** Taxes saved against the reference over the window, USD (undiscounted, liquidation included). */
  readonly taxEffectUsd: number;
}

/** Which cases the relative figures refer to. */
export interface SummarizeOptions {
  /** Case whose period returns are the tracking-error benchmark; it gets a null tracking error. */
  readonly benchmarkCase?: string;
  /** Case the tax alpha is measured against; it and cases that do not manage taxes get null. */
  readonly referenceCase?: string;
  /**
   * Whether the after-tax figures charge the tax of selling everything at the last close (`liquidate_at_end`);
   * false leaves unrealized gains untaxed (held on, donated or stepped up at death). @default true
   */
  readonly liquidateAtEnd?: boolean;
  /** Annual risk-free rate of the Sharpe ratios, a fraction (0.04 = 4%). @default 0 */
  readonly riskFreeRate?: number;
}

function annualize(total: number, years: number): number {
  if (years <= 0) return total;
  return (1 + total) ** (1 / years) - 1;
}

function periodReturnsOf(sim: SimulatedBacktest, run: CaseRun, grossOfCosts = false): Float64Array {
  const { first, periodEnds } = sim.schedule;
  const v = run.dailyValues;
  const tax = run.dailyTaxes;
  const cost = run.dailyCosts;
  const out = new Float64Array(periodEnds.length);
  let start = 0;
  for (let k = 0; k < periodEnds.length; k++) {
    const end = periodEnds[k]! - first;
    let growth = 1;
    for (let d = start + 1; d <= end; d++)
      growth *= (v[d]! + tax[d]! + (grossOfCosts ? cost[d]! : 0)) / v[d - 1]!;
    out[k] = growth - 1;
    start = end;
  }
  return out;
}

function chained(r: Float64Array): number {
  let growth = 1;
  for (let k = 0; k < r.length; k++) growth *= 1 + r[k]!;
  return growth - 1;
}

/** Annualized figures of one case that the attribution compares (see {@link CaseAttribution}). */
interface AttributionInputs {
  /** ann(pre-tax return) and ann(pre-tax return with the trading costs added back). */
  readonly preTax: number;
  readonly preTaxGross: number;
  /** ann(V_end - final year's own tax) / V_0 - 1): after the taxes of the strategy's own sales. */
  readonly kept: number;
  /** ann(after-tax return) (with or without the liquidation). */
  readonly afterTax: number;
  /** ann(after-tax return) if the harvests had saved no tax (the savings taken back out, undiscounted). */
  readonly afterTaxWithoutSavings: number;
  readonly taxesByYear: ReadonlyMap<number, number>;
  readonly liquidationRecaptureTax: number;
}

function attributionOf(
  c: AttributionInputs,
  ref: AttributionInputs,
  referenceCase: string,
  benchmark: { name: string; preTax: number } | null,
): CaseAttribution {
  const afterTaxActiveReturn = c.afterTax - ref.afterTax;
  const preTaxActiveReturn = c.preTax - ref.preTax;
  const costs = c.preTax - c.preTaxGross - (ref.preTax - ref.preTaxGross);
  const taxEffect = afterTaxActiveReturn - preTaxActiveReturn;
  const harvestValue = c.afterTax - c.afterTaxWithoutSavings - (ref.afterTax - ref.afterTaxWithoutSavings);
  const liquidationRecapture = c.afterTax - c.kept - (ref.afterTax - ref.kept);
  let saved = ref.liquidationRecaptureTax - c.liquidationRecaptureTax;
  const years = new Set([...c.taxesByYear.keys(), ...ref.taxesByYear.keys()]);
  for (const y of years) saved += (ref.taxesByYear.get(y) ?? 0) - (c.taxesByYear.get(y) ?? 0);
  return {
    referenceCase,
    benchmarkCase: benchmark?.name ?? null,
    preTaxActiveReturn,
    preTaxActiveReturnVsBenchmark: benchmark === null ? null : c.preTax - benchmark.preTax,
    selection: preTaxActiveReturn - costs,
    costs,
    taxEffect,
    harvestValue,
    deferralCharacter: taxEffect - harvestValue - liquidationRecapture,
    liquidationRecapture,
    afterTaxActiveReturn,
    taxEffectUsd: saved,
  };
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

  const liquidate = options.liquidateAtEnd ?? true;
  const inputs = new Map<string, AttributionInputs>();
  const yearsOf = new Map<string, Omit<CaseTaxYear, "taxSavedVsReference">[]>();
  const base = new Map<
    string,
    Omit<CaseMetrics, "taxAlphaBps" | "trackingError" | "sharpeRatio" | "taxYears" | "attribution">
  >();
  for (const run of sim.cases) {
    let stg = ZERO;
    let stl = ZERO;
    let ltg = ZERO;
    let ltl = ZERO;
    let harvested = ZERO;
    let disallowed = ZERO;
    let washSales = 0;
    // By calendar year of the sale: ST gains, ST losses, LT gains, LT losses, harvested losses.
    const byYear = new Map<number, Decimal[]>();
    const yearRow = (date: string) => {
      const y = Number(date.slice(0, 4));
      let row = byYear.get(y);
      if (row === undefined) {
        row = [ZERO, ZERO, ZERO, ZERO, ZERO];
        byYear.set(y, row);
      }
      return row;
    };
    for (const { record, harvest } of run.realized) {
      const g = record.recognizedGainUsd;
      const loss = g.isNegative() && !g.isZero();
      const row = yearRow(record.saleDate);
      if (record.term === "short_term") {
        if (loss) stl = stl.minus(g);
        else stg = stg.plus(g);
        row[loss ? 1 : 0] = row[loss ? 1 : 0]!.plus(g.abs());
      } else {
        if (loss) ltl = ltl.minus(g);
        else ltg = ltg.plus(g);
        row[loss ? 3 : 2] = row[loss ? 3 : 2]!.plus(g.abs());
      }
      if (harvest && loss) {
        harvested = harvested.minus(g);
        row[4] = row[4]!.minus(g);
      }
      if (record.disallowedLossUsd.gt(0)) {
        disallowed = disallowed.plus(record.disallowedLossUsd);
        washSales += 1;
      }
    }
    for (const cover of run.covers) {
      const g = cover.gainUsd;
      const loss = g.isNegative() && !g.isZero();
      const row = yearRow(cover.coverDate);
      if (loss) stl = stl.minus(g);
      else stg = stg.plus(g);
      row[loss ? 1 : 0] = row[loss ? 1 : 0]!.plus(g.abs());
      if (cover.harvest && loss) {
        harvested = harvested.minus(g);
        row[4] = row[4]!.minus(g);
      }
    }
    let taxes = run.finalYear.taxOwed;
    let saving = run.finalYear.harvestSaving;
    for (const y of run.taxYears) {
      taxes = taxes.plus(y.taxOwed);
      saving = saving.plus(y.harvestSaving);
    }
    const settled = [...run.taxYears, run.finalYear];
    const taxYears: Omit<CaseTaxYear, "taxSavedVsReference">[] = [];
    const taxesByYear = new Map<number, number>();
    for (const y of settled) {
      const row = byYear.get(y.year) ?? [ZERO, ZERO, ZERO, ZERO, ZERO];
      taxesByYear.set(y.year, (taxesByYear.get(y.year) ?? 0) + num(y.taxOwed));
      taxYears.push({
        year: y.year,
        shortTermGains: num(row[0]!),
        shortTermLosses: num(row[1]!),
        longTermGains: num(row[2]!),
        longTermLosses: num(row[3]!),
        harvestedLosses: num(row[4]!),
        taxes: num(y.taxOwed),
        harvestSaving: num(y.harvestSaving),
      });
    }
    yearsOf.set(run.name, taxYears);
    const startValue = run.periodValues[0]!;
    const endValue = run.periodValues[run.periodValues.length - 1]!;
    const keptValue = endValue.minus(run.finalYear.taxOwed);
    const liquidationValue = liquidate ? endValue.minus(run.liquidation.taxOwed) : keptValue;
    const r = returns.get(run.name)!;
    const preTax = chained(r);
    const afterTax = liquidationValue.dividedBy(startValue).minus(1).toNumber();
    const fraction = (v: Decimal) => annualize(v.dividedBy(startValue).minus(1).toNumber(), years);
    const withoutSavings = liquidationValue.minus(saving);
    inputs.set(run.name, {
      preTax: annualize(preTax, years),
      preTaxGross: annualize(chained(periodReturnsOf(sim, run, true)), years),
      kept: fraction(keptValue),
      afterTax: annualize(afterTax, years),
      // Savings larger than the whole after-tax value cannot be taken out: the value floors at 0 (-100%).
      afterTaxWithoutSavings: withoutSavings.gt(0) ? fraction(withoutSavings) : -1,
      taxesByYear,
      liquidationRecaptureTax: liquidate ? num(run.liquidation.taxOwed.minus(run.finalYear.taxOwed)) : 0,
    });
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
      liquidateAtEnd: liquidate,
      liquidationRecaptureTax: inputs.get(run.name)!.liquidationRecaptureTax,
      harvestSaving: num(saving),
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
    const ref = options.referenceCase === undefined ? undefined : inputs.get(options.referenceCase);
    const refYears = ref?.taxesByYear;
    const taxYears = yearsOf.get(run.name)!.map((y) => ({
      ...y,
      taxSavedVsReference: refYears === undefined ? null : (refYears.get(y.year) ?? 0) - y.taxes,
    }));
    const attribution =
      ref === undefined
        ? null
        : attributionOf(
            inputs.get(run.name)!,
            ref,
            options.referenceCase!,
            options.benchmarkCase === undefined
              ? null
              : { name: options.benchmarkCase, preTax: inputs.get(options.benchmarkCase)!.preTax },
          );
    const sharpe = sharpeRatio(m.periodReturns, {
      periodsPerYear,
      riskFreeRate: options.riskFreeRate ?? 0,
    });
    out[run.name] = { ...m, taxAlphaBps, trackingError: te, sharpeRatio: sharpe, taxYears, attribution };
  }
  return out;
}
