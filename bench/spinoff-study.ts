/**
 * `npm run study:spinoffs`: the S&P 500 data set's spin-offs (data/sp500/corporate-actions.csv) in the backtests,
 * before (the data as the files have it: the parent's price drop is a loss the harvesters sell) and after (the
 * spin-offs applied as basis allocations, docs/backtests.md "Spin-offs"). Three runs each: the real-data test's
 * defaults (37%/20%, account_only) and the tax study's S&P 500 runs (35%/15%, 5 bps, threshold 5%, both loss_usage
 * settings, liquidation at the end). Prints, per run and case, the phantom harvested losses (harvest sales at a loss
 * of parent lots bought before a distribution date and sold within 45 days after it), the figures of the tax study
 * and, after, the spin-offs each case received.
 * Run: node --import tsx bench/spinoff-study.ts   (LOTWISE_DATA_DIR overrides the data folder)
 */
import type { SimulatedBacktest } from "../src/core/backtest/index.js";
import { addDays } from "../src/core/dates.js";
import {
  type AccountBacktestParams,
  resolveBacktestParams,
  runAccountBacktestDetailed,
} from "../src/service/backtest-run.js";
import { createAccount } from "../src/service/clients.js";
import { openSp500Study, sp500DataDir, sp500StudyParams } from "./lib/sp500-study.js";

/** Parents (and DISCK, whose 2:1 split the data does not adjust) and their distribution dates. */
export const SPIN_EVENTS = [
  { id: "DISCA", asset: "DISCA:XNAS", date: "2014-08-07" },
  { id: "DISCK", asset: "DISCK:XNAS", date: "2014-08-07" },
  { id: "NI", asset: "NI:XNYS", date: "2015-07-02" },
  { id: "EBAY", asset: "EBAY:XNAS", date: "2015-07-20" },
  { id: "ARNC", asset: "ARNC:XNYS", date: "2016-11-01" },
  { id: "YUM", asset: "YUM:XNYS", date: "2016-11-01" },
] as const;

/** Harvest sales at a loss of lots bought before the distribution date, sold within 45 days after it, per event. */
export function phantomHarvests(sim: SimulatedBacktest, caseName: string): Record<string, number> {
  const run = sim.cases.find((c) => c.name === caseName)!;
  const out: Record<string, number> = {};
  for (const e of SPIN_EVENTS) {
    let sum = 0;
    for (const { record: r, harvest } of run.realized)
      if (
        harvest &&
        r.themeAssetId === e.asset &&
        r.tradeDate < e.date &&
        r.saleDate >= e.date &&
        r.saleDate <= addDays(e.date, 45) &&
        r.recognizedGainUsd.isNegative()
      )
        sum += r.recognizedGainUsd.toNumber();
    out[e.id] = sum;
  }
  return out;
}

const DATA_DIR = sp500DataDir();
if (DATA_DIR === undefined) {
  console.log("no ../shared/data: nothing to study");
  process.exit(0);
}

const usd = (v: number) => Math.round(v).toLocaleString("en-US");
const pct = (v: number | null | undefined) =>
  v === null || v === undefined ? "n/a" : `${(v * 100).toFixed(2)}%`;

for (const applied of [false, true]) {
  const {
    store,
    ctx,
    org,
    client,
    account: paper,
  } = await openSp500Study(DATA_DIR, {
    corporateActions: applied,
    organizationName: "Spin-off study",
  });
  const plain = await createAccount(ctx, org, client, { cash_value_usd: "0" });
  const runs: { title: string; account: string; params: AccountBacktestParams }[] = [
    {
      title: "defaults (37%/20%, account_only; the real-data test)",
      account: plain.uuid,
      params: await resolveBacktestParams(ctx, org, plain.uuid, {
        start_date: "2013-02-08",
        end_date: "2018-02-07",
        starting_nav: 1_000_000,
      }),
    },
    ...(["account_only", "outside_gains"] as const).map((loss_usage) => ({
      title: `tax study: 35%/15%, 5 bps, threshold 5%, ${loss_usage}`,
      account: paper,
      params: sp500StudyParams(loss_usage),
    })),
  ];
  for (const r of runs) {
    const t0 = performance.now();
    const res = await runAccountBacktestDetailed(ctx, org, r.account, r.params);
    console.log(
      `\n== ${applied ? "AFTER (spin-offs applied)" : "BEFORE (no corporate actions)"}: ${r.title} (${((performance.now() - t0) / 1000).toFixed(1)} s)`,
    );
    for (const name of ["tax_managed", "harvest_baseline", "pre_tax"]) {
      const m = res.metrics[name];
      if (!m) continue;
      const phantom = phantomHarvests(res.simulation, name);
      const total = Object.values(phantom).reduce((a, b) => a + b, 0);
      const a = m.attribution;
      console.log(
        `  ${name.padEnd(17)} phantom harvested ${usd(total).padStart(8)} (${Object.entries(phantom)
          .filter(([, v]) => v !== 0)
          .map(([k, v]) => `${k} ${usd(v)}`)
          .join(
            ", ",
          )}) | harvested ${usd(m.harvestedLosses)} | tax alpha ${m.taxAlphaBps?.toFixed(0)} bps | pre-tax ${pct(m.preTaxReturnAnnualized)} after-tax ${pct(m.afterTaxReturnAnnualized)} | tax effect ${pct(a?.taxEffect)} harvest value ${pct(a?.harvestValue)} deferral ${pct(a?.deferralCharacter)} recapture ${pct(a?.liquidationRecapture)} pre-tax active ${pct(a?.preTaxActiveReturn)} after-tax active ${pct(a?.afterTaxActiveReturn)} | TE ${pct(m.trackingError)} turnover ${pct(m.turnover)}`,
      );
      const run = res.simulation.cases.find((c) => c.name === name)!;
      for (const s of run.spinOffs)
        console.log(
          `      ${s.actionId} ${s.date}: ${s.parentQuantity.toFixed(2)} ${s.parentAssetId} -> ${s.childQuantity.toFixed(2)} ${s.childAssetId} ${s.disposition} at ${s.childPrice.toFixed(2)}, basis to child ${usd(s.basisToChildUsd.toNumber())}${s.shortPaymentUsd.isZero() ? "" : `, short paid ${usd(s.shortPaymentUsd.toNumber())}`}`,
        );
      const childSales = run.realized.filter(({ record }) => record.lotId.includes(":SP500-SPIN-"));
      if (childSales.length > 0) {
        const sold = childSales.filter(
          ({ record }) => !record.themeAssetId.startsWith("DISCK") && !record.themeAssetId.startsWith("PYPL"),
        );
        const g = sold.reduce((s, { record }) => s + record.recognizedGainUsd.toNumber(), 0);
        console.log(
          `      sales of spun-off children: ${childSales.length} record(s), of unpriced children ${sold.length} with gain ${usd(g)}`,
        );
      }
    }
  }
  await store.close();
}
