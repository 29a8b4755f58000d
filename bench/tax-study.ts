/**
 * `npm run study:tax`: the tax effect of the optimizer-driven case (tax_managed) against the literature's
 * rule-based harvester (harvest_baseline), both measured against pre_tax, with both loss_usage settings:
 * (1) the demo account (the synthetic market of `lotwise init --demo`, its default three-year window);
 * (2) with /work/shared/data present, the S&P 500 study of docs/backtests.md section 10: a $1,000,000 cash account
 *     2013-02-08..2018-02-07, the paper's 35%/15% rates, 5 bps costs, harvest threshold 5%.
 * Prints, per run, the attribution of both cases and the tax saved against pre_tax year by year; for the S&P 500
 * runs also each case's tracking error to the index level series (monthly, at the period ends). Figures as they
 * come: whichever case wins is reported.
 * Run: node --import tsx bench/tax-study.ts [--basis-reset-max-gain F] [--risk-aversion X]
 *   (LOTWISE_DATA_DIR overrides the data folder)
 * `--basis-reset-max-gain` sets the backtests' basis_reset_max_gain (default: the service's, by loss_usage);
 * `--risk-aversion` the S&P 500 account configuration's risk_aversion (default: the configuration default, 2).
 */
import type { BacktestCaseResult } from "../src/contract/index.js";
import { trackingError } from "../src/core/metrics/index.js";
import {
  backtestAssumptions,
  resolveBacktestParams,
  runAccountBacktest,
  runAccountBacktestDetailed,
  toCaseResult,
} from "../src/service/backtest-run.js";
import type { ServiceContext } from "../src/service/context.js";
import { buildDemo } from "../src/service/demo.js";
import { openSqliteStore } from "../src/store/index.js";
import { openSp500Study, sp500DataDir, sp500StudyParams } from "./lib/sp500-study.js";

const LOSS_USAGES = ["account_only", "outside_gains"] as const;
const resetArg = process.argv.indexOf("--basis-reset-max-gain");
const basisReset = resetArg >= 0 ? Number(process.argv[resetArg + 1]) : undefined;
if (basisReset !== undefined && !(basisReset >= 0 && basisReset <= 1))
  throw new Error(`--basis-reset-max-gain must be a fraction in [0, 1], got ${process.argv[resetArg + 1]}`);
const reset = basisReset === undefined ? {} : { basis_reset_max_gain: basisReset };
const raArg = process.argv.indexOf("--risk-aversion");
const riskAversion = raArg >= 0 ? process.argv[raArg + 1] : undefined;
if (riskAversion !== undefined && !(Number(riskAversion) > 0))
  throw new Error(`--risk-aversion must be a number > 0, got ${riskAversion}`);
const CASES = ["tax_managed", "harvest_baseline"] as const;
const pct = (v: number | null | undefined) =>
  v === null || v === undefined ? "n/a" : `${(v * 100).toFixed(2)}%`;
const usd = (v: number | null | undefined) =>
  v === null || v === undefined ? "n/a" : Math.round(v).toLocaleString("en-US");

function report(title: string, result: Record<string, BacktestCaseResult>): void {
  const a = result.tax_managed?.assumptions;
  console.log(`\n== ${title}`);
  if (a)
    console.log(
      `   rates ${a.short_term_rate}/${a.long_term_rate}, loss_usage ${a.loss_usage}, liquidate_at_end ${a.liquidate_at_end}, ${result.tax_managed?.return_basis ?? ""}, against ${result.tax_managed?.benchmark_name ?? "benchmark"}`,
    );
  const rows: [string, (c: BacktestCaseResult) => string][] = [
    ["tax effect /y", (c) => pct(c.attribution?.tax_effect)],
    ["  harvest value", (c) => pct(c.attribution?.harvest_value)],
    ["  deferral & character", (c) => pct(c.attribution?.deferral_character)],
    ["  liquidation recapture", (c) => pct(c.attribution?.liquidation_recapture)],
    ["tax effect USD", (c) => usd(c.attribution?.tax_effect_usd)],
    ["pre-tax active vs pre_tax /y", (c) => pct(c.attribution?.pre_tax_active_return)],
    ["  of which costs", (c) => pct(c.attribution?.costs)],
    ["after-tax active (tax alpha) /y", (c) => pct(c.attribution?.after_tax_active_return)],
    ["pre-tax active vs benchmark /y", (c) => pct(c.attribution?.pre_tax_active_return_vs_benchmark)],
    ["tracking error vs benchmark", (c) => pct(c.tracking_error)],
    ["turnover /y", (c) => pct(c.turnover)],
    ["harvested losses USD", (c) => usd(c.harvested_losses)],
  ];
  console.log(`   ${"".padEnd(32)}${CASES.map((n) => n.padStart(18)).join("")}`);
  for (const [label, f] of rows)
    console.log(
      `   ${label.padEnd(32)}${CASES.map((n) => (result[n] ? f(result[n]) : "-").padStart(18)).join("")}`,
    );
  const years = [...new Set(CASES.flatMap((n) => (result[n]?.tax_years ?? []).map((y) => y.year)))].sort();
  console.log(`   tax saved vs pre_tax by year (USD):`);
  for (const y of years)
    console.log(
      `   ${String(y).padEnd(32)}${CASES.map((n) => usd(result[n]?.tax_years?.find((t) => t.year === y)?.tax_saved_vs_reference).padStart(18)).join("")}`,
    );
  console.log(
    `   ${"liquidation (tax added)".padEnd(32)}${CASES.map((n) => usd(result[n]?.liquidation_tax).padStart(18)).join("")}`,
  );
}

// ---- 1. The demo account ----------------------------------------------------------------------------------------
{
  const store = openSqliteStore(":memory:");
  const ctx: ServiceContext = { store, clock: () => new Date("2026-01-15T15:00:00Z") };
  const demo = await buildDemo(ctx);
  const org = demo.organization_uuid;
  for (const loss_usage of LOSS_USAGES) {
    const t0 = performance.now();
    const params = await resolveBacktestParams(ctx, org, demo.account_uuid, { loss_usage, ...reset });
    const result = await runAccountBacktest(ctx, org, demo.account_uuid, params);
    report(
      `demo account ${params.start_date}..${params.end_date}, ${loss_usage} (${((performance.now() - t0) / 1000).toFixed(1)} s)`,
      result,
    );
  }
  await store.close();
}

// ---- 2. The S&P 500 study (docs/backtests.md section 10) --------------------------------------------------------
const DATA_DIR = sp500DataDir();
if (DATA_DIR === undefined) {
  console.log("\n(no ../shared/data: the S&P 500 study is skipped)");
} else {
  // The data set's spin-offs as basis allocations (bench/spinoff-study.ts compares with the data as the files have it).
  const study = await openSp500Study(DATA_DIR, riskAversion === undefined ? {} : { riskAversion });
  // The measure is tracking error to the S&P 500 series: the index level at each period end.
  const levels = new Map(
    (await study.store.market.indexLevels("SP500", "2013-01-01", "2018-12-31")).map((l) => [l.date, l.level]),
  );
  for (const loss_usage of LOSS_USAGES) {
    const t0 = performance.now();
    const params = { ...sp500StudyParams(loss_usage), ...reset };
    const detailed = await runAccountBacktestDetailed(study.ctx, study.org, study.account, params);
    const assumptions = await backtestAssumptions(study.ctx, study.org, study.account, params);
    const run = { benchmark_name: detailed.benchmarkName, return_basis: detailed.returnBasis };
    const result = Object.fromEntries(
      Object.entries(detailed.metrics).map(([name, m]) => [name, toCaseResult(m, assumptions, run)]),
    );
    report(
      `S&P 500 2013-02-08..2018-02-07, 35%/15%, 5 bps, threshold 5%, ${loss_usage} (${((performance.now() - t0) / 1000).toFixed(1)} s)`,
      result,
    );
    const dates = detailed.simulation.valueDates;
    const index = dates.slice(1).map((d, k) => levels.get(d)! / levels.get(dates[k]!)! - 1);
    console.log(
      `   ${"tracking error vs S&P 500 series".padEnd(32)}${CASES.map((n) => pct(trackingError(detailed.metrics[n]!.periodReturns, index, 12)).padStart(18)).join("")}`,
    );
  }
  await study.store.close();
}
