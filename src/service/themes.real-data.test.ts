/**
 * The real-data case: "S&P 500 Information Technology with dividend yield above 1%, score-weighted,
 * quarterly", evaluated and backtested 2014-01-01..2018-02-07 against the S&P 500 index, on the data set of
 * /work/shared/data (skipped when it is absent).
 */
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type ThemeBacktestResult,
  type ThemeConstituentSnapshot,
  themeBacktestResultSchema,
  themeConstituentSnapshotSchema,
} from "../contract/index.js";
import { loadSp500Dataset } from "../market/real-data/index.js";
import { openSqliteStore, type SqliteStore } from "../store/index.js";
import type { ServiceContext } from "./context.js";
import { backtestTheme, createTheme, evaluateTheme, getThemeConstituents } from "./themes.js";

const ROOT = resolve(import.meta.dirname, "..", "..");
/** LOTWISE_DATA_DIR, else ../shared/data beside the checkout, else /work/shared/data. */
const DATA_DIR =
  process.env.LOTWISE_DATA_DIR ??
  [resolve(ROOT, "..", "shared", "data"), "/work/shared/data"].find((d) => existsSync(d)) ??
  "/work/shared/data";
const HAVE_DATA = existsSync(join(DATA_DIR, "prices/all_stocks_5yr.csv.gz"));

describe.skipIf(!HAVE_DATA)(`S&P 500 IT dividend theme on ${DATA_DIR}`, () => {
  let store: SqliteStore;
  let ctx: ServiceContext;
  let snapshot: ThemeConstituentSnapshot;
  let result: ThemeBacktestResult;

  beforeAll(async () => {
    store = openSqliteStore(":memory:");
    await loadSp500Dataset(DATA_DIR, store.engine.market);
    ctx = { store, clock: () => new Date("2018-02-08T12:00:00Z") };
    const org = (await store.organizations.create("Real data")).uuid;
    const theme = await createTheme(ctx, org, {
      name: "S&P 500 Information Technology with dividend yield above 1%",
      universe: { expression: "sector = 45" },
      filters: ["dividend_yield > 1%"],
      score: "dividend_yield",
      selection: { mode: "all" },
      weighting: { scheme: "score" },
      rules: { rebalancing_period: "QUARTERLY" },
    });
    snapshot = await evaluateTheme(ctx, org, theme.uuid, { as_of_date: "2014-01-02" });
    expect(await getThemeConstituents(ctx, org, theme.uuid)).toEqual(snapshot);
    result = await backtestTheme(ctx, org, theme.uuid, {
      start_date: "2014-01-01",
      end_date: "2018-02-07",
      benchmark: "SP500",
    });
  }, 120_000);
  afterAll(() => store?.close());

  it("evaluates to IT names yielding above 1% (2013 vintage), weighted by yield", async () => {
    expect(themeConstituentSnapshotSchema.parse(snapshot)).toEqual(snapshot);
    expect(snapshot.total_constituents).toBeGreaterThanOrEqual(20);
    expect(snapshot.total_constituents).toBeLessThanOrEqual(45);
    expect(snapshot.total_weight).toBeCloseTo(1, 12);
    const yields = await store.market.characteristicsAsOf("dividend_yield", "2014-01-02");
    const ratio = snapshot.constituents[0]!.weight / snapshot.constituents[0]!.score;
    for (const c of snapshot.constituents) {
      expect((await store.market.security(c.theme_asset_id))!.sector).toBe(45);
      expect(yields.get(c.theme_asset_id)).toBe(c.score);
      expect(c.score).toBeGreaterThan(0.01);
      expect(c.weight / c.score).toBeCloseTo(ratio, 12); // score-weighted
    }
    const symbols = snapshot.constituents.map((c) => c.symbol);
    for (const s of ["MSFT", "INTC", "CSCO"]) expect(symbols).toContain(s);
    expect(symbols).not.toContain("GOOGL"); // no dividend in 2013
  });

  it("backtests quarterly over the window with finite figures and sane risk against the S&P 500", async () => {
    expect(themeBacktestResultSchema.parse(result)).toEqual(result);
    const dates = Object.keys(result.theme.backtest_values);
    expect(dates[0]).toBe("2014-01-02");
    expect(dates.at(-1)).toBe("2018-02-07");
    expect(result.rebalance_events).toHaveLength(17); // inception + 16 quarter ends
    for (const v of Object.values(result.theme.backtest_values))
      expect(Number.isFinite(v) && v > 0).toBe(true);
    for (const r of Object.values(result.theme.backtest_returns)) expect(Math.abs(r)).toBeLessThan(0.5);
    const s = result.summary!;
    expect(s.benchmark_coverage_note).toBeNull();
    // S&P 500 price index: 1831.98 on 2014-01-02 and 2681.66 on 2018-02-07.
    const levels = await store.market.indexLevels("SP500", "2014-01-02", "2018-02-07");
    expect(s.benchmark_return).toBeCloseTo(levels.at(-1)!.level / levels[0]!.level - 1, 12);
    expect(s.benchmark_return).toBeCloseTo(0.4638, 3);
    expect(s.portfolio_return).toBeGreaterThan(0);
    expect(s.risk_metrics.beta!).toBeGreaterThan(0.8);
    expect(s.risk_metrics.beta!).toBeLessThan(1.4);
    expect(s.risk_metrics.volatility!).toBeGreaterThan(0.08);
    expect(s.risk_metrics.volatility!).toBeLessThan(0.35);
    expect(s.risk_metrics.max_drawdown!).toBeLessThan(0);
    expect(s.risk_metrics.max_drawdown!).toBeGreaterThan(-0.5);
  });

  it("adds a late listing only after its first price", async () => {
    for (const e of result.rebalance_events)
      for (const a of e.added)
        expect((await store.market.security(a.theme_asset_id))!.listedFrom! <= e.date).toBe(true);
  });
});
