/**
 * `npm run study:tax-diagnostics`: where the tax effect of tax_managed is won or lost against harvest_baseline
 * (docs/backtests.md, "Where the tax effect is lost"). Runs the two accounts of `bench/tax-study.ts` (the demo
 * account and, with /work/shared/data, the S&P 500 study) with `outside_gains` and prints, per case and calendar
 * year: harvest sales (count, losses realized, their gross tax value at the rates, losses disallowed by wash
 * sales), the other sales (drift and funding trades: gains and losses realized, by term), the buys, and the
 * tax-managed policy's counters (harvests skipped because a recent purchase would wash them, interim scans).
 * Run: node --import tsx bench/tax-diagnostics.ts   (LOTWISE_DATA_DIR overrides the data folder)
 */
import type { StandardBacktestResult } from "../src/core/backtest/index.js";
import { resolveBacktestParams, runAccountBacktestDetailed } from "../src/service/backtest-run.js";
import type { ServiceContext } from "../src/service/context.js";
import { buildDemo } from "../src/service/demo.js";
import { openSqliteStore } from "../src/store/index.js";
import { openSp500Study, sp500DataDir, sp500StudyParams } from "./lib/sp500-study.js";

const CASES = ["tax_managed", "harvest_baseline", "pre_tax"] as const;
const usd = (v: number) => Math.round(v).toLocaleString("en-US").padStart(10);

interface YearRow {
  harvestSales: number;
  harvestLossSt: number;
  harvestLossLt: number;
  disallowed: number;
  otherGainSt: number;
  otherGainLt: number;
  otherLoss: number;
  otherSales: number;
  buys: number;
  buyUsd: number;
}

const emptyYear = (): YearRow => ({
  harvestSales: 0,
  harvestLossSt: 0,
  harvestLossLt: 0,
  disallowed: 0,
  otherGainSt: 0,
  otherGainLt: 0,
  otherLoss: 0,
  otherSales: 0,
  buys: 0,
  buyUsd: 0,
});

function diagnose(title: string, r: StandardBacktestResult, st: number, lt: number): void {
  console.log(`\n== ${title}`);
  for (const name of CASES) {
    const run = r.simulation.cases.find((c) => c.name === name);
    if (!run) continue;
    const years = new Map<string, YearRow>();
    const row = (date: string) => {
      const y = date.slice(0, 4);
      let v = years.get(y);
      if (!v) {
        v = emptyYear();
        years.set(y, v);
      }
      return v;
    };
    for (const { record, harvest } of run.realized) {
      const v = row(record.saleDate);
      const g = record.gainUsd.toNumber();
      v.disallowed += record.disallowedLossUsd.toNumber();
      if (harvest) {
        v.harvestSales += 1;
        if (record.term === "short_term") v.harvestLossSt += Math.min(g, 0);
        else v.harvestLossLt += Math.min(g, 0);
      } else {
        v.otherSales += 1;
        if (g >= 0) {
          if (record.term === "short_term") v.otherGainSt += g;
          else v.otherGainLt += g;
        } else v.otherLoss += g;
      }
    }
    for (const f of run.fills)
      if (f.side === "buy") {
        const v = row(f.date);
        v.buys += 1;
        v.buyUsd += f.valueUsd.toNumber();
      }
    console.log(`  -- ${name}`);
    console.log(
      `  ${"year".padEnd(6)}${["harv.lots", "harv.loss", "of it LT", "gross val", "washed", "oth.sales", "oth.g ST", "oth.g LT", "oth.loss", "buys", "buy USD"].map((h) => h.padStart(10)).join("")}`,
    );
    const tot: YearRow = emptyYear();
    for (const [y, v] of [...years].sort()) {
      for (const k of Object.keys(tot) as (keyof YearRow)[]) tot[k] += v[k];
      print(y, v);
    }
    print("total", tot);
    function print(y: string, v: YearRow) {
      console.log(
        `  ${y.padEnd(6)}${String(v.harvestSales).padStart(10)}${usd(v.harvestLossSt + v.harvestLossLt)}${usd(v.harvestLossLt)}${usd(-(v.harvestLossSt * st + v.harvestLossLt * lt))}${usd(v.disallowed)}${String(v.otherSales).padStart(10)}${usd(v.otherGainSt)}${usd(v.otherGainLt)}${usd(v.otherLoss)}${String(v.buys).padStart(10)}${usd(v.buyUsd)}`,
      );
    }
  }
  const s = r.policyStats.tax_managed;
  if (s) console.log(`  tax_managed policy counters: ${JSON.stringify({ ...s, held: s.held.length })}`);
  console.log(`  harvest_baseline counters: ${JSON.stringify(r.baselineStats)}`);
}

{
  const store = openSqliteStore(":memory:");
  const ctx: ServiceContext = { store, clock: () => new Date("2026-01-15T15:00:00Z") };
  const demo = await buildDemo(ctx);
  const org = demo.organization_uuid;
  const params = await resolveBacktestParams(ctx, org, demo.account_uuid, { loss_usage: "outside_gains" });
  const r = await runAccountBacktestDetailed(ctx, org, demo.account_uuid, params);
  diagnose(`demo account ${params.start_date}..${params.end_date}, outside_gains, 37%/20%`, r, 0.37, 0.2);
  await store.close();
}

const DATA_DIR = sp500DataDir();
if (DATA_DIR === undefined) {
  console.log("\n(no ../shared/data: the S&P 500 study is skipped)");
} else {
  const study = await openSp500Study(DATA_DIR);
  const r = await runAccountBacktestDetailed(
    study.ctx,
    study.org,
    study.account,
    sp500StudyParams("outside_gains"),
  );
  diagnose("S&P 500 2013-02-08..2018-02-07, outside_gains, 35%/15%, 5 bps, threshold 5%", r, 0.35, 0.15);
  await study.store.close();
}
