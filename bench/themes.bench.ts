/**
 * Themes: evaluating a theme over 5,000 synthetic securities (goal <= 50 ms) and a 5-year monthly theme backtest
 * over 500 names (goal <= 1 s). Each is measured twice: the core with its inputs in memory, and the whole
 * service call over a SQLite store (store reads included), with the store reads timed separately.
 * Run: node --import tsx --expose-gc bench/themes.bench.ts
 */
import type { ThemeMethodologyInput } from "../src/contract/index.js";
import { universePresetExpressions } from "../src/core/catalog/index.js";
import {
  CHARACTERISTIC_NAMES,
  fieldCatalog,
  SECURITY_FIELDS,
  securityTable,
} from "../src/core/themes/expression/index.js";
import {
  characteristicColumns,
  compileThemeDefinition,
  evaluateThemeDefinition,
  listedMask,
  rebalanceIndices,
  simulateTheme,
  totalReturnPanel,
} from "../src/core/themes/index.js";
import { generateMarket, writeSyntheticMarket } from "../src/market/synthetic/index.js";
import type { ServiceContext } from "../src/service/context.js";
import { backtestTheme, createTheme, evaluateTheme } from "../src/service/themes.js";
import { openSqliteStore, type SqliteStore } from "../src/store/index.js";
import { line, time, writeResult } from "./lib/harness.js";

const ms = (t0: number) => performance.now() - t0;

async function context(store: SqliteStore, today: string): Promise<{ ctx: ServiceContext; org: string }> {
  return {
    ctx: { store, clock: () => new Date(`${today}T12:00:00Z`) },
    org: (await store.organizations.create("Bench")).uuid,
  };
}

// ---- 1. Evaluation over 5,000 securities --------------------------------------------------------------------

let t0 = performance.now();
const bigStore = openSqliteStore(":memory:");
writeSyntheticMarket(
  generateMarket({ seed: 42, securities: 5000, years: 2, endDate: "2025-12-31" }),
  bigStore.engine.market,
);
console.log(line("setup: generate + store 5,000 securities x 2 years", ms(t0), "ms"));

const EVALUATED: ThemeMethodologyInput = {
  name: "Quality momentum",
  universe: { preset: "us_all" },
  filters: ["market_cap > 300e6", "pe between 5 and 40", "dividend_yield >= 0"],
  score: "0.5 * zscore(momentum) - 0.5 * zscore(volatility) + 0.2 * percentile(profitability)",
  selection: { mode: "top_n", value: 100, min_count: 20 },
  weighting: { scheme: "market_cap", max_weight: 0.05 },
  rules: { rebalancing_period: "QUARTERLY" },
};
const big = await context(bigStore, "2026-01-15");
const evaluatedUuid = (await createTheme(big.ctx, big.org, EVALUATED)).uuid;

const catalog = fieldCatalog(
  new Set([...CHARACTERISTIC_NAMES, ...(await bigStore.market.characteristicNames())]),
);
const compiled = compileThemeDefinition(EVALUATED, { fields: catalog, presets: universePresetExpressions() });
const asOf = "2025-12-31";
const securities = await bigStore.market.securities();
const names = compiled.fields.filter((f) => !SECURITY_FIELDS.has(f));
const values = new Map<string, ReadonlyMap<string, number>>();
for (const n of names) values.set(n, await bigStore.market.characteristicsAsOf(n, asOf));
const eligible = listedMask(securities, asOf);
const table = securityTable(securities, characteristicColumns(securities, values));
const sample = evaluateThemeDefinition(compiled, table, { eligible });

const coreEvaluate = await time(() => evaluateThemeDefinition(compiled, table, { eligible }), {
  runs: 31,
  warmup: 3,
});
const coreWithTable = await time(
  () =>
    evaluateThemeDefinition(compiled, securityTable(securities, characteristicColumns(securities, values)), {
      eligible: listedMask(securities, asOf),
    }),
  { runs: 31, warmup: 3 },
);
t0 = performance.now();
for (const n of names) await bigStore.market.characteristicsAsOf(n, asOf);
await bigStore.market.securities();
const storeReads = ms(t0);
const serviceEvaluate = await time(
  () => evaluateTheme(big.ctx, big.org, evaluatedUuid, { as_of_date: asOf }),
  {
    runs: 7,
    warmup: 1,
  },
);
await bigStore.close();

console.log(
  `  ${securities.length} securities, ${sample.counts.candidates} candidates, ${sample.rows.length} selected`,
);
console.log(
  line("evaluate 5,000 securities, table prepared (median)", coreEvaluate.medianMs, "ms", { max: 50 }),
);
console.log(line("  + building the table (median)", coreWithTable.medianMs, "ms", { max: 50 }));
console.log(line("  store reads (securities + characteristics, once)", storeReads, "ms"));
console.log(line("evaluateTheme service call incl. store (median)", serviceEvaluate.medianMs, "ms"));

// ---- 2. Five-year monthly backtest over 500 names -------------------------------------------------------------

t0 = performance.now();
const store = openSqliteStore(":memory:");
writeSyntheticMarket(
  generateMarket({ seed: 3, securities: 500, years: 6, endDate: "2025-12-31" }),
  store.engine.market,
);
console.log(line("setup: generate + store 500 securities x 6 years", ms(t0), "ms"));
const BACKTESTED: ThemeMethodologyInput = {
  name: "Momentum 50",
  universe: { preset: "us_all" },
  filters: ["market_cap > 500e6"],
  score: "zscore(momentum) - 0.5 * zscore(volatility)",
  selection: { mode: "top_n", value: 50 },
  weighting: { scheme: "market_cap", max_weight: 0.05 },
  rules: { rebalancing_period: "MONTHLY" },
};
const small = await context(store, "2026-01-15");
const backtestedUuid = (await createTheme(small.ctx, small.org, BACKTESTED)).uuid;
const window = { start_date: "2021-01-01", end_date: "2025-12-31", benchmark: "SYNTH500" };
const result = await backtestTheme(small.ctx, small.org, backtestedUuid, window);
const serviceBacktest = await time(() => backtestTheme(small.ctx, small.org, backtestedUuid, window), {
  runs: 3,
  warmup: 0,
});

// The same work split into the service's store reads and the engine with everything in memory.
t0 = performance.now();
const dates = await store.market.tradingDates(window.start_date, window.end_date);
const matrix = await store.market.closeMatrix(dates[0]!, dates[dates.length - 1]!);
const priceRead = ms(t0);
const secs = await store.market.securities();
const rebalances = rebalanceIndices(matrix.dates, "MONTHLY");
const compiledBt = compileThemeDefinition(BACKTESTED, {
  fields: fieldCatalog(new Set([...CHARACTERISTIC_NAMES, ...(await store.market.characteristicNames())])),
  presets: universePresetExpressions(),
});
const btNames = compiledBt.fields.filter((f) => !SECURITY_FIELDS.has(f));
t0 = performance.now();
const rebalanceDates = rebalances.map((t) => matrix.dates[t]!);
const panels: (readonly [string, Float64Array])[] = [];
for (const n of btNames)
  panels.push([n, await store.market.characteristicsAsOfDates(n, matrix.ids, rebalanceDates)] as const);
const characteristicRead = ms(t0);
const asOfByDate = new Map(
  rebalances.map((t, k) => [
    t,
    new Map(panels.map(([n, v]) => [n, v.slice(k * matrix.ids.length, (k + 1) * matrix.ids.length)])),
  ]),
);
const splits = await store.market.splits(dates[0]!, dates[dates.length - 1]!);
const dividends = await store.market.dividends(dates[0]!, dates[dates.length - 1]!);
const cad = await store.market.fxSeries("CAD", dates[0]!, dates[dates.length - 1]!);
const cadByDate = new Map(cad.map((r) => [r.date, r.perUsd]));
let lastCad = (await store.market.fxRateAsOf("CAD", dates[0]!))?.perUsd ?? Number.NaN;
const cadColumn = Float64Array.from(matrix.dates, (d) => {
  lastCad = cadByDate.get(d) ?? lastCad;
  return lastCad;
});
const fx = secs.map((s) => (s.currency === "CAD" ? cadColumn : undefined));
await store.close();

const N = secs.length;
const engine = await time(
  () => {
    const panel = totalReturnPanel({
      dates: matrix.dates,
      ids: matrix.ids,
      close: matrix.close,
      splits,
      dividends,
      fxPerUsd: fx,
    });
    return simulateTheme({
      dates: matrix.dates,
      width: N,
      growth: panel.growth,
      rebalances,
      targetsAt: (t) => {
        const el = listedMask(secs, matrix.dates[t]!, panel.priced.subarray(t * N, (t + 1) * N));
        const tb = securityTable(secs, asOfByDate.get(t)!);
        const r = evaluateThemeDefinition(compiledBt, tb, { eligible: el });
        return { columns: r.rows, weights: r.weights };
      },
    });
  },
  { runs: 7, warmup: 1 },
);

console.log(
  `  ${matrix.dates.length} trading days x ${N} securities, ${rebalances.length} rebalances, since inception ${result.theme.since_inception_returns}`,
);
console.log(line("backtest engine, data in memory (median)", engine.medianMs, "ms", { max: 1000 }));
console.log(line("  store read: closeMatrix (once)", priceRead, "ms"));
console.log(line("  store read: characteristicsAsOfDates per name (once)", characteristicRead, "ms"));
console.log(
  line("backtestTheme service call incl. store (median)", serviceBacktest.medianMs, "ms", { max: 1000 }),
);

const path = writeResult("themes", {
  evaluate: {
    securities: securities.length,
    candidates: sample.counts.candidates,
    selected: sample.rows.length,
    coreTablePrepared: { ...coreEvaluate, goalMaxMs: 50 },
    coreIncludingTable: coreWithTable,
    storeReadsMs: storeReads,
    serviceCall: serviceEvaluate,
  },
  backtest: {
    securities: N,
    tradingDays: matrix.dates.length,
    rebalances: rebalances.length,
    engineDataInMemory: { ...engine, goalMaxMs: 1000 },
    closeMatrixReadMs: priceRead,
    characteristicReadsMs: characteristicRead,
    serviceCall: { ...serviceBacktest, goalMaxMs: 1000 },
  },
});
console.log(`wrote ${path}`);
