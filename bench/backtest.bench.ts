/**
 * Account backtest: (1) a 500-asset monthly tax-managed backtest over 5 years (60 periods) on the synthetic
 * market, core only, with the policy time per period (goal <= 15 s for the run; cvxportfolio publishes 66-150 ms
 * of policy time per period for a 501-asset problem without tax lots); (2) the same as a service call over a
 * SQLite store, every case; (3) with /work/shared/data present, the S&P 500 direct-indexing study of
 * docs/backtests.md (2013-02-08..2018-02-07, $1,000,000 in cash) and its variants.
 * Run: node --import tsx bench/backtest.bench.ts   (LOTWISE_DATA_DIR overrides the data folder)
 */
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import {
  type BacktestMarketInput,
  buyAndHoldPolicy,
  type CaseRun,
  createRiskModelProvider,
  prepareBacktestMarket,
  type StandardBacktestResult,
  simulateBacktest,
  summarizeBacktest,
  taxAwareTrackingPolicy,
} from "../src/core/backtest/index.js";
import type { Currency } from "../src/core/data/types.js";
import { trackingError } from "../src/core/metrics/index.js";
import { loadSp500Dataset } from "../src/market/real-data/index.js";
import {
  generateMarket,
  SYNTH500,
  type SyntheticMarket,
  writeSyntheticMarket,
} from "../src/market/synthetic/index.js";
import { runAccountBacktest, runAccountBacktestDetailed } from "../src/service/backtest-run.js";
import { createAccount, createClient } from "../src/service/clients.js";
import type { ServiceContext } from "../src/service/context.js";
import { createOrganization } from "../src/service/organizations.js";
import { createPortfolioConfig } from "../src/service/portfolio-configs.js";
import { openSqliteStore } from "../src/store/index.js";
import { line, writeResult } from "./lib/harness.js";

const ms = (t0: number) => performance.now() - t0;
const figures: Record<string, unknown> = {};

/** The synthetic market as a backtest input: SYNTH500 month-end weights (drifting), CAD rates, characteristics. */
function syntheticInput(m: SyntheticMarket): BacktestMarketInput {
  const index = m.indexes.find((x) => x.info.identifier === SYNTH500)!;
  const ids = m.prices.ids;
  const column = new Map(ids.map((id, i) => [id, i]));
  const weights = index.weights.dates.map((_, j) => {
    const w = new Float64Array(ids.length);
    index.weights.ids.forEach((id, k) => {
      w[column.get(id)!] = index.weights.values[j * index.weights.ids.length + k]!;
    });
    return w;
  });
  const row = new Map(m.prices.dates.map((d, t) => [d, t]));
  const fx: Partial<Record<Currency, Float64Array>> = {};
  for (const r of m.fxRates) {
    if (fx[r.currency] === undefined)
      fx[r.currency] = new Float64Array(m.prices.dates.length).fill(Number.NaN);
    const series = fx[r.currency]!;
    const t = row.get(r.date);
    if (t !== undefined) series[t] = r.perUsd;
  }
  return {
    dates: m.prices.dates,
    securities: m.securities.map((s) => ({
      themeAssetId: s.themeAssetId,
      currency: s.currency,
      sector: s.sector,
    })),
    close: m.prices.close,
    splits: m.splits,
    dividends: m.dividends,
    fxPerUsd: fx,
    characteristics: { dates: m.characteristics.dates, values: m.characteristics.values },
    benchmark: { name: SYNTH500, drift: true, dates: index.weights.dates, weights },
  };
}

// ---- 1. Core: 500 assets, 60 monthly periods, the tax-managed case ------------------------------------------

let t0 = performance.now();
const synthetic = generateMarket({ seed: 42, securities: 500, years: 6, endDate: "2025-12-31" });
const market = prepareBacktestMarket(syntheticInput(synthetic));
console.log(line("setup: generate 500 x 6 years + prepare", ms(t0), "ms"));

// The tax-managed case with each step-3 engine (the optimizer is the default); the buy-and-hold benchmark case
// gives the tracking error.
const coreFigures: Record<string, unknown> = {};
for (const engine of ["optimizer", "pwl_tracking"] as const) {
  const policy = taxAwareTrackingPolicy({
    taxGamma: 1,
    harvestThresholdBps: 500,
    shortTermRate: 0.37,
    longTermRate: 0.2,
    transactionBps: 5,
    fxFeeBps: 25,
    riskModel: createRiskModelProvider(),
    rebalanceEngine: engine,
  });
  t0 = performance.now();
  const sim = simulateBacktest({
    market,
    startDate: "2021-01-01",
    endDate: "2025-12-31",
    cases: [
      {
        name: "tax_managed",
        description: "tax-managed SYNTH500",
        taxManaged: true,
        policy,
        initial: { cashUsd: 1_000_000 },
        lotSelection: "TAX_OPTIMAL",
      },
      {
        name: "benchmark",
        description: "SYNTH500 bought and held",
        taxManaged: false,
        policy: buyAndHoldPolicy({}),
        initial: { cashUsd: 1_000_000 },
        lotSelection: "FIFO",
      },
    ],
    hooks: { now: () => performance.now() },
  });
  const coreMs = ms(t0);
  const run = sim.cases[0]!;
  const periods = sim.schedule.rebalances.length;
  const summary = summarizeBacktest(sim, { benchmarkCase: "benchmark" }).tax_managed!;
  console.log(
    line(
      `core [${engine}]: tax-managed + benchmark, ${market.ids.length} assets, ${periods} periods`,
      coreMs,
      "ms",
      { max: 15_000 },
    ),
  );
  console.log(
    line(
      `core [${engine}]: policy time per period (risk model + harvest + QP)`,
      run.policyMs / periods,
      "ms",
    ),
  );
  const st = policy.stats;
  console.log(
    `  trades ${run.totals.trades}, harvested lots ${st.harvestedLots}, harvested ${summary.harvestedLosses.toFixed(0)}, QP rounds ${st.rounds}, optimizer solves ${st.optimizerSolves}, unsolved ${st.unsolved}, fallbacks ${st.fallbacks}, floor relaxed ${st.investedFloorRelaxed}, lots at end ${run.endLots.length}, pre-tax ${(summary.preTaxReturnAnnualized * 100).toFixed(2)}%/y, after-tax ${(summary.afterTaxReturnAnnualized * 100).toFixed(2)}%/y, TE ${((summary.trackingError ?? Number.NaN) * 100).toFixed(2)}%, turnover ${summary.turnover.toFixed(3)}`,
  );
  coreFigures[engine] = {
    assets: market.ids.length,
    periods,
    totalMs: coreMs,
    policyMsPerPeriod: run.policyMs / periods,
    simulatorMsPerPeriod: (coreMs - run.policyMs) / periods,
    trades: run.totals.trades,
    stats: { ...st },
    harvestedLosses: summary.harvestedLosses,
    preTaxAnnualized: summary.preTaxReturnAnnualized,
    afterTaxAnnualized: summary.afterTaxReturnAnnualized,
    trackingError: summary.trackingError,
    turnover: summary.turnover,
    lotsAtEnd: run.endLots.length,
    goalMs: 15_000,
  };
}
figures.core = coreFigures;

// ---- 2. Service: the same market in a store, every case -------------------------------------------------------

t0 = performance.now();
const store = openSqliteStore(":memory:");
writeSyntheticMarket(synthetic, store.engine.market);
const ctx: ServiceContext = { store, clock: () => new Date("2026-01-05T12:00:00Z") };
const org = (await createOrganization(ctx, "Bench")).organization.uuid;
const client = await createClient(ctx, org, {});
const account = await createAccount(ctx, org, client.uuid, { cash_value_usd: "1000000" });
console.log(line("setup: synthetic market into SQLite", ms(t0), "ms"));
t0 = performance.now();
let lastProgress = 0;
const result = await runAccountBacktest(
  ctx,
  org,
  account.uuid,
  {
    start_date: "2021-01-01",
    end_date: "2025-12-31",
    rebalance_period: "MONTHLY",
    starting_nav: 1_000_000,
    tax_gamma: 1,
    tax_loss_threshold_bps: 500,
    ls_tlh_factor: "value",
  },
  { onProgress: (p) => (lastProgress = p.completed_periods) },
);
const serviceMs = ms(t0);
console.log(line("service: four cases incl. store reads (60 periods)", serviceMs, "ms"));
for (const [name, r] of Object.entries(result))
  console.log(
    `  ${name.padEnd(15)} pre-tax ${(r.pre_tax_return_annualized * 100).toFixed(2)}%/y  after-tax ${(r.after_tax_return_annualized * 100).toFixed(2)}%/y  tax alpha ${r.tax_alpha_bps?.toFixed(0) ?? "-"} bps  TE ${r.tracking_error === null ? "-" : (r.tracking_error * 100).toFixed(2)}%  turnover ${(r.turnover * 100).toFixed(1)}%  harvested ${r.harvested_losses.toFixed(0)}`,
  );
figures.service = { totalMs: serviceMs, completedPeriods: lastProgress, cases: result };
await store.close();

// ---- 3. Real data: the S&P 500 study (docs/backtests.md) -------------------------------------------------------

const DATA_DIR =
  process.env.LOTWISE_DATA_DIR ??
  [resolve(import.meta.dirname, "..", "..", "shared", "data"), "/work/shared/data"].find((d) =>
    existsSync(d),
  );
if (DATA_DIR !== undefined && existsSync(join(DATA_DIR, "prices/all_stocks_5yr.csv.gz"))) {
  t0 = performance.now();
  const real = openSqliteStore(":memory:");
  await loadSp500Dataset(DATA_DIR, real.engine.market);
  const rctx: ServiceContext = { store: real, clock: () => new Date("2018-02-08T12:00:00Z") };
  const rorg = (await createOrganization(rctx, "Study")).organization.uuid;
  const rclient = await createClient(rctx, rorg, {});
  console.log(line("setup: S&P 500 data set into SQLite", ms(t0), "ms"));
  const levels = new Map(
    (await real.market.indexLevels("SP500", "2013-01-01", "2018-12-31")).map((l) => [l.date, l.level]),
  );

  interface Variant {
    name: string;
    what: string;
    config: {
      tcost_bps: string;
      short_term_rate: string;
      long_term_rate: string;
      wash_sale_threshold?: number;
    };
    thresholdBps: number;
    taxGamma?: number;
    lossUsage: "account_only" | "outside_gains";
    ls?: "value";
  }
  const variants: Variant[] = [
    {
      name: "default",
      what: "defaults: 37%/20%, losses carried forward, 5 bps, harvest at 5%",
      config: { tcost_bps: "5", short_term_rate: "0.37", long_term_rate: "0.2" },
      thresholdBps: 500,
      lossUsage: "account_only",
    },
    {
      name: "paper",
      what: "as the paper: 35%/15%, losses offset outside gains, no costs, every loss harvested",
      config: { tcost_bps: "0", short_term_rate: "0.35", long_term_rate: "0.15" },
      thresholdBps: 0,
      lossUsage: "outside_gains",
    },
    {
      name: "paper_5bps",
      what: "paper settings with 5 bps costs",
      config: { tcost_bps: "5", short_term_rate: "0.35", long_term_rate: "0.15" },
      thresholdBps: 0,
      lossUsage: "outside_gains",
    },
    {
      name: "paper_threshold",
      what: "paper settings, harvest at 5%",
      config: { tcost_bps: "0", short_term_rate: "0.35", long_term_rate: "0.15" },
      thresholdBps: 500,
      lossUsage: "outside_gains",
    },
    {
      name: "paper_no_wash",
      what: "paper settings without the wash-sale window (0 days)",
      config: { tcost_bps: "0", short_term_rate: "0.35", long_term_rate: "0.15", wash_sale_threshold: 0 },
      thresholdBps: 0,
      lossUsage: "outside_gains",
    },
    {
      name: "long_short_value",
      what: "defaults plus the 130/30 value overlay (book-to-price of 2013)",
      config: { tcost_bps: "5", short_term_rate: "0.37", long_term_rate: "0.2" },
      thresholdBps: 500,
      lossUsage: "account_only",
      ls: "value",
    },
  ];

  const study: Record<string, unknown> = {};
  // Each variant with the default step-3 engine (the core optimizer) and with the PWL tracking QP ("/pwl").
  for (const v of variants)
    for (const engine of ["optimizer", "pwl_tracking"] as const) {
      const key = engine === "optimizer" ? v.name : `${v.name}/pwl`;
      const { wash_sale_threshold, ...rest } = v.config;
      const cfg = await createPortfolioConfig(rctx, rorg, {
        name: key,
        tcost_bps: rest.tcost_bps,
        tax_preferences: {
          short_term_rate: rest.short_term_rate,
          long_term_rate: rest.long_term_rate,
          ...(wash_sale_threshold === undefined ? {} : { wash_sale_threshold }),
        },
      });
      const acct = await createAccount(rctx, rorg, rclient.uuid, {
        cash_value_usd: "0",
        portfolio_config_uuid: cfg.uuid,
      });
      t0 = performance.now();
      const detailed: StandardBacktestResult = await runAccountBacktestDetailed(
        rctx,
        rorg,
        acct.uuid,
        {
          start_date: "2013-02-08",
          end_date: "2018-02-07",
          rebalance_period: "MONTHLY",
          starting_nav: 1_000_000,
          tax_gamma: v.taxGamma ?? 1,
          tax_loss_threshold_bps: v.thresholdBps,
          loss_usage: v.lossUsage,
          ...(v.ls === undefined ? {} : { ls_tlh_factor: v.ls }),
        },
        {},
        { rebalanceEngine: engine },
      );
      const runMs = ms(t0);
      const sim2 = detailed.simulation;
      const dates = sim2.valueDates;
      const years = (Date.parse(dates.at(-1)!) - Date.parse(dates[0]!)) / 86_400_000 / 365.25;
      const indexMonthly = dates.slice(1).map((d, k) => levels.get(d)! / levels.get(dates[k]!)! - 1);
      const windowDates = await real.market.tradingDates("2013-02-08", "2018-02-07");
      const indexDaily = windowDates
        .slice(1)
        .map((d, k) => levels.get(d)! / levels.get(windowDates[k]!)! - 1);
      const rates = { st: Number(rest.short_term_rate), lt: Number(rest.long_term_rate) };
      const caseFigures = (name: string) => {
        const m = detailed.metrics[name]!;
        const c: CaseRun = sim2.cases.find((x) => x.name === name)!;
        const daily = Array.from(
          c.dailyValues.slice(1),
          (value, d) => (value + c.dailyTaxes[d + 1]!) / c.dailyValues[d]! - 1,
        );
        let harvestedSt = 0;
        let harvestedLt = 0;
        for (const { record, harvest } of c.realized)
          if (harvest && record.recognizedGainUsd.isNegative()) {
            if (record.term === "short_term") harvestedSt -= record.recognizedGainUsd.toNumber();
            else harvestedLt -= record.recognizedGainUsd.toNumber();
          }
        const averageValue = m.values.reduce((s, x) => s + x.value, 0) / m.values.length;
        return {
          preTaxAnnualized: m.preTaxReturnAnnualized,
          afterTaxAnnualized: m.afterTaxReturnAnnualized,
          taxAlphaBps: m.taxAlphaBps,
          trackingErrorVsBenchmarkCase: m.trackingError,
          trackingErrorVsSp500Monthly: trackingError(m.periodReturns, indexMonthly, 12),
          trackingErrorVsSp500Daily: trackingError(daily, indexDaily, 252),
          turnover: m.turnover,
          harvestedLosses: m.harvestedLosses,
          harvestedShortTerm: harvestedSt,
          harvestedLongTerm: harvestedLt,
          // Gross tax value of the harvested losses per year, as a share of the average value (before recapture).
          harvestYield: (harvestedSt * rates.st + harvestedLt * rates.lt) / averageValue / years,
          realized: {
            stGains: m.realizedShortTermGains,
            stLosses: m.realizedShortTermLosses,
            ltGains: m.realizedLongTermGains,
            ltLosses: m.realizedLongTermLosses,
          },
          taxesPaid: m.taxesPaid,
          liquidationTax: m.liquidationTax,
          washSales: m.washSales,
          costs: m.costs,
          trades: m.trades,
        };
      };
      const cases = Object.fromEntries(Object.keys(detailed.metrics).map((n) => [n, caseFigures(n)]));
      const tm = cases.tax_managed!;
      const pt = cases.pre_tax!;
      study[key] = { what: v.what, engine, runMs, cases, policyStats: detailed.policyStats };
      console.log(
        `  ${key.padEnd(21)} tax alpha ${tm.taxAlphaBps!.toFixed(0)} bps (pre-tax ${((tm.preTaxAnnualized - pt.preTaxAnnualized) * 1e4).toFixed(0)} bps)  harvest yield ${(tm.harvestYield * 1e4).toFixed(0)} bps/y  harvested ${tm.harvestedLosses.toFixed(0)}  TE bench ${(tm.trackingErrorVsBenchmarkCase! * 100).toFixed(2)}%  TE S&P ${(tm.trackingErrorVsSp500Monthly! * 100).toFixed(2)}% (daily ${(tm.trackingErrorVsSp500Daily! * 100).toFixed(2)}%)  turnover ${(tm.turnover * 100).toFixed(1)}%  ${runMs.toFixed(0)} ms`,
      );
      if (cases.long_short_tlh) {
        const ls = cases.long_short_tlh;
        console.log(
          `  ${"  long_short_tlh".padEnd(21)} tax alpha ${ls.taxAlphaBps!.toFixed(0)} bps  harvested ${ls.harvestedLosses.toFixed(0)}  TE bench ${(ls.trackingErrorVsBenchmarkCase! * 100).toFixed(2)}%  turnover ${(ls.turnover * 100).toFixed(1)}%`,
        );
      }
    }
  figures.sp500Study = study;
  await real.close();
} else console.log("S&P 500 study skipped: no data set (set LOTWISE_DATA_DIR)");

console.log(`wrote ${writeResult("backtest", figures)}`);
