import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { referenceOf, taxYearRows } from "../cli/backtest-render.js";
import {
  backtestCaseResultSchema,
  backtestResolvedParamsSchema,
  type PortfolioConfigWrite,
} from "../contract/index.js";
import { BacktestCancelledError, MarketView, type StandardBacktestResult } from "../core/backtest/index.js";
import { addDays, daysBetween } from "../core/dates.js";
import { NotFoundError, ValidationError } from "../core/errors.js";
import { sharpeRatio } from "../core/metrics/index.js";
import { riskModelCovariance } from "../core/risk/index.js";
import { openSqliteStore, type SqliteStore } from "../store/index.js";
import {
  type AccountBacktestParams,
  type AccountBacktestProgress,
  accountConfigProvider,
  characteristicsRiskModelProvider,
  DEFAULT_TAX_LOSS_THRESHOLD_BPS,
  holdingsAt,
  loadAccountBacktestMarket,
  resolveBacktestParams,
  runAccountBacktest,
  runAccountBacktestDetailed,
} from "./backtest-run.js";
import { createAccount, createClient } from "./clients.js";
import type { ServiceContext } from "./context.js";
import { buildDemo, type DemoResult } from "./demo.js";
import { prepareAccountOptimization } from "./optimize.js";
import { characteristicsRiskModel, RISK_LOOKBACK_DAYS } from "./optimizer-inputs.js";
import { updatePortfolioConfig } from "./portfolio-configs.js";
import { getThemeConstituents } from "./themes.js";

describe("account backtest service over the demo store", () => {
  let store: SqliteStore;
  let ctx: ServiceContext;
  let demo: DemoResult;
  let org: string;

  beforeAll(async () => {
    store = openSqliteStore(":memory:");
    ctx = { store, clock: () => new Date("2026-01-15T15:00:00Z") };
    demo = await buildDemo(ctx, { securities: 120, years: 5 });
    org = demo.organization_uuid;
  });
  afterAll(() => store.close());

  const oneYear = (extra: Partial<AccountBacktestParams> = {}): AccountBacktestParams => ({
    start_date: "2024-12-31",
    end_date: "2025-12-31",
    rebalance_period: "MONTHLY",
    starting_nav: 500_000,
    tax_gamma: 1,
    tax_loss_threshold_bps: 500,
    ...extra,
  });

  it("resolves defaults: three years to the last market date, the configuration's tax_gamma, the account's value", async () => {
    const p = await resolveBacktestParams(ctx, org, demo.account_uuid, {});
    expect(backtestResolvedParamsSchema.parse(p)).toEqual(p);
    expect(p.end_date).toBe("2025-12-31");
    expect(p.start_date).toBe("2022-12-31");
    expect(p.rebalance_period).toBe("MONTHLY");
    // The demo configuration says tax_gamma 1.
    expect(p.tax_gamma).toBe(1);
    expect(p.tax_loss_threshold_bps).toBe(DEFAULT_TAX_LOSS_THRESHOLD_BPS);
    expect(p.loss_usage).toBe("account_only");
    expect(p.liquidate_at_end).toBe(true);
    // The demo account held lots bought 1,460 and 1,100 days before 2025-12-31 on the start date, plus cash.
    expect(p.starting_nav).toBeGreaterThan(25_000);
    const given = await resolveBacktestParams(ctx, org, demo.account_uuid, {
      tax_gamma: 3,
      starting_nav: 2e6,
    });
    expect(given.tax_gamma).toBe(3);
    expect(given.starting_nav).toBe(2e6);
  });

  it("resolves the basis-reset band from the loss usage and liquidation, and keeps a given one", async () => {
    const band = async (request: Parameters<typeof resolveBacktestParams>[3]) =>
      (await resolveBacktestParams(ctx, org, demo.account_uuid, request)).basis_reset_max_gain;
    // The demo configuration's rates are 37% / 20%.
    expect(await band({})).toBe(0);
    expect(await band({ loss_usage: "outside_gains" })).toBe(0.1);
    expect(await band({ loss_usage: "outside_gains", liquidate_at_end: false })).toBe(0);
    expect(await band({ loss_usage: "account_only", basis_reset_max_gain: 0.25 })).toBe(0.25);
    expect(await band({ loss_usage: "outside_gains", basis_reset_max_gain: 0 })).toBe(0);
  });

  it("starts an account without holdings from 1,000,000 in cash", async () => {
    const client = await createClient(ctx, org, {});
    const empty = await createAccount(ctx, org, client.uuid, { cash_value_usd: "0" });
    expect((await resolveBacktestParams(ctx, org, empty.uuid, {})).starting_nav).toBe(1_000_000);
  });

  it("names the field of a window outside the market data", async () => {
    const fail = async (request: Parameters<typeof resolveBacktestParams>[3]) => {
      try {
        await resolveBacktestParams(ctx, org, demo.account_uuid, request);
      } catch (e) {
        expect(e).toBeInstanceOf(ValidationError);
        return (e as ValidationError).issues.map((i) => i.path);
      }
      throw new Error("expected a ValidationError");
    };
    expect(await fail({ end_date: "2026-06-30" })).toEqual(["end_date"]);
    expect(await fail({ start_date: "1999-01-04" })).toEqual(["start_date"]);
    expect(await fail({ start_date: "2025-12-30", end_date: "2025-12-31" })).toEqual(["end_date"]);
  });

  it("answers an account of another organization as not found", async () => {
    await expect(
      (() => resolveBacktestParams(ctx, "00000000-0000-0000-0000-000000000000", demo.account_uuid, {}))(),
    ).rejects.toThrow(NotFoundError);
  });

  it("runs the five cases and returns contract-valid results", async () => {
    const progress: AccountBacktestProgress[] = [];
    const result = await runAccountBacktest(
      ctx,
      org,
      demo.account_uuid,
      oneYear({ ls_tlh_factor: "value" }),
      {
        onProgress: (p) => progress.push(p),
      },
    );
    expect(Object.keys(result).sort()).toEqual([
      "benchmark",
      "harvest_baseline",
      "long_short_tlh",
      "pre_tax",
      "tax_managed",
    ]);
    for (const [name, r] of Object.entries(result)) {
      expect(backtestCaseResultSchema.parse(r), name).toEqual(r);
      expect(r.periods).toBe(12);
      expect(r.values).toHaveLength(13);
      expect(r.values[0]!.value).toBeCloseTo(500_000, 6);
      expect(r.start_date).toBe("2024-12-31");
    }
    expect(result.tax_managed!.tax_managed).toBe(true);
    expect(result.pre_tax!.tax_alpha_bps).toBeNull();
    expect(result.benchmark!.tracking_error).toBeNull();
    expect(typeof result.tax_managed!.tax_alpha_bps).toBe("number");
    expect(progress[0]).toEqual({ planned_periods: 12, completed_periods: 0, last_completed_period: null });
    expect(progress.at(-1)).toMatchObject({ planned_periods: 12, completed_periods: 12 });
    expect(progress.map((p) => p.completed_periods)).toEqual([...Array(13).keys()]);
  });

  it("states the assumptions and attributes the tax alpha in every case; loss_usage and liquidate_at_end change them", async () => {
    const base = await runAccountBacktest(ctx, org, demo.account_uuid, oneYear());
    const other = await runAccountBacktest(
      ctx,
      org,
      demo.account_uuid,
      oneYear({ loss_usage: "outside_gains", liquidate_at_end: false }),
    );
    for (const [name, r] of Object.entries(base)) {
      // Defaults: the spec's fields alone give the account-only figures with a final liquidation.
      expect(r.assumptions, name).toEqual({
        short_term_rate: 0.37,
        long_term_rate: 0.2,
        loss_usage: "account_only",
        liquidate_at_end: true,
      });
      const a = r.attribution!;
      expect(a.reference_case).toBe("pre_tax");
      expect(Math.abs(a.pre_tax_active_return + a.tax_effect - a.after_tax_active_return)).toBeLessThan(
        1e-12,
      );
      expect(r.tax_years!.length).toBeGreaterThan(0);
      expect(other[name]!.assumptions).toMatchObject({
        loss_usage: "outside_gains",
        liquidate_at_end: false,
      });
      expect(other[name]!.attribution!.liquidation_recapture).toBe(0);
      expect(other[name]!.liquidation_tax).toBe(0);
    }
    // The CLI's year table: the years' and the liquidation's savings against pre_tax add up to the total shown.
    for (const result of [base, other])
      for (const name of ["tax_managed", "harvest_baseline"]) {
        const rows = taxYearRows(result[name]!, referenceOf(result, name));
        const cents = (v: string) => Math.round(Number(v.replaceAll(",", "")) * 100);
        const total = rows.at(-1)!;
        expect(total.year).toBe("total");
        const parts = rows.slice(0, -1).reduce((sum, r) => sum + (r.saved === "" ? 0 : cents(r.saved)), 0);
        expect(Math.abs(parts - cents(total.saved)), name).toBeLessThanOrEqual(rows.length);
        expect(cents(total.saved)).toBe(Math.round(result[name]!.attribution!.tax_effect_usd * 100));
      }
    const tm = base.tax_managed!;
    expect(tm.attribution!.after_tax_active_return * 1e4).toBeCloseTo(tm.tax_alpha_bps!, 9);
    // Outside gains credit every harvested loss at its rate in its year: more tax saved along the way.
    expect(other.tax_managed!.harvested_losses).toBeGreaterThan(0);
    expect(other.tax_managed!.taxes_paid).toBeLessThan(base.tax_managed!.taxes_paid);
  });

  it("resets long-term lots with a small gain in tax_managed when the band is on, and none when it is 0", async () => {
    const run = (band: number) =>
      runAccountBacktestDetailed(
        ctx,
        org,
        demo.account_uuid,
        oneYear({ loss_usage: "outside_gains", liquidate_at_end: true, basis_reset_max_gain: band }),
      );
    const on = await run(0.5);
    const off = await run(0);
    expect(on.policyStats.tax_managed!.basisResetLots).toBeGreaterThan(0);
    expect(on.policyStats.tax_managed!.basisResetUsd).toBeGreaterThan(0);
    expect(off.policyStats.tax_managed!.basisResetLots).toBe(0);
    // The resets realize long-term gains: more of them than without.
    const lt = (r: typeof on) =>
      (r.metrics.tax_managed!.taxYears ?? []).reduce((s, y) => s + y.longTermGains, 0);
    expect(lt(on)).toBeGreaterThan(lt(off));
    // The other cases do not reset.
    expect(on.metrics.harvest_baseline!.endingValue).toBe(off.metrics.harvest_baseline!.endingValue);
  });

  it("starts the managed cases from the account's lots and the benchmark from cash", async () => {
    const result = await runAccountBacktest(ctx, org, demo.account_uuid, oneYear());
    // The pre-tax case sells the concentrated demo holdings into the index at once: large realized gains.
    const realized = (r: (typeof result)["pre_tax"]) =>
      r!.realized_long_term_gains + r!.realized_short_term_gains;
    expect(realized(result.pre_tax)).toBeGreaterThan(1000);
    expect(realized(result.tax_managed)).toBeLessThan(realized(result.pre_tax));
    expect(result.benchmark!.realized_long_term_gains).toBe(0);
  });

  it("is deterministic: the same parameters give the same bytes", async () => {
    const a = JSON.stringify(await runAccountBacktest(ctx, org, demo.account_uuid, oneYear()));
    const b = JSON.stringify(await runAccountBacktest(ctx, org, demo.account_uuid, oneYear()));
    expect(a).toBe(b);
  });

  it("stops when the job asks to cancel", async () => {
    let calls = 0;
    await expect(
      (() =>
        runAccountBacktest(ctx, org, demo.account_uuid, oneYear(), { shouldCancel: () => ++calls > 2 }))(),
    ).rejects.toThrow(BacktestCancelledError);
  });

  it("refuses parameters outside the contract's limits, naming them", async () => {
    await expect(
      (() => runAccountBacktest(ctx, org, demo.account_uuid, oneYear({ tax_gamma: 101 })))(),
    ).rejects.toThrow(/tax_gamma: 101 is outside 0..100/);
  });

  /** The backtest runs the account's configuration in force at each decision date (docs/backtests.md, section 8). */
  describe("with the account's configuration", () => {
    const params = oneYear();
    /** The demo configuration's lists, restored after each change. */
    const reset: PortfolioConfigWrite = {
      no_hold_tickers: [],
      no_trade_tickers: [],
      target_ticker_weights: [],
      dynamic_rules: [],
      asset_allocations: [],
      risk_model_name: "characteristics",
    };

    async function withConfig<T>(patch: PortfolioConfigWrite, run: () => T | Promise<T>): Promise<T> {
      await updatePortfolioConfig(ctx, org, demo.portfolio_config_uuid, { ...reset, ...patch });
      try {
        return await run();
      } finally {
        await updatePortfolioConfig(ctx, org, demo.portfolio_config_uuid, reset);
      }
    }
    const detailed = () => runAccountBacktestDetailed(ctx, org, demo.account_uuid, params);

    it("keeps its own dust rule unless the configuration sets a minimum trade (the service default is not applied)", async () => {
      const account = (await store.accounts.getInOrganization(org, demo.account_uuid))!;
      const view = { date: "2025-06-30" } as Parameters<Awaited<ReturnType<typeof accountConfigProvider>>>[0];
      const facts = { navUsd: 500_000, cashUsd: 10_000, positions: 10 };
      const implicit = (await accountConfigProvider(ctx, account, [view.date]))(view, facts);
      expect([implicit.minTradeUsd, implicit.minTradePct]).toEqual([0, 0]);
      await withConfig({ min_trade_amount_usd: "250" }, async () => {
        const explicit = (await accountConfigProvider(ctx, account, [view.date]))(view, facts);
        expect([explicit.minTradeUsd, explicit.minTradePct]).toEqual([250, 0.05]);
      });
    });
    it("computes every case's Sharpe ratio against the configuration's risk_free_rate_pct", async () => {
      const at = (pct: string) =>
        withConfig({ risk_free_rate_pct: pct }, () =>
          runAccountBacktest(ctx, org, demo.account_uuid, params),
        );
      const r0 = await at("0");
      const r4 = await at("4");
      for (const name of ["benchmark", "pre_tax", "tax_managed"]) {
        const values = r0[name]!.values.map((v) => v.value);
        expect(r4[name]!.values, name).toEqual(r0[name]!.values);
        // Without taxes paid inside the window the period returns are the value ratios; q = periods a year.
        const years = daysBetween(r0[name]!.start_date, r0[name]!.end_date) / 365.25;
        const q = r0[name]!.periods / years;
        const returns = values.slice(1).map((v, i) => v / values[i]! - 1);
        if (name === "benchmark") {
          expect(r0[name]!.sharpe_ratio).toBeCloseTo(sharpeRatio(returns, { periodsPerYear: q })!, 12);
          expect(r4[name]!.sharpe_ratio).toBeCloseTo(
            sharpeRatio(returns, { periodsPerYear: q, riskFreeRate: 0.04 })!,
            12,
          );
        }
        expect(r4[name]!.sharpe_ratio!, name).toBeLessThan(r0[name]!.sharpe_ratio!);
      }
    });
    it("optimizes and backtests against the tilted target: 0.9 x SYNTH500 + 0.1 x the demo theme's snapshot", async () => {
      const date = "2025-06-30";
      const snapshot = (await getThemeConstituents(ctx, org, demo.theme_uuid)).constituents;
      const theme = new Map(snapshot.map((c) => [c.theme_asset_id, c.weight]));
      const sleeve = (tilts: { weight_adjustment: string; theme_uuid: string }[]): PortfolioConfigWrite => ({
        asset_allocations: [{ asset_class_uuid: demo.asset_class_uuid, target_allocation: "1", tilts }],
      });
      const targets = async () => {
        const o = await prepareAccountOptimization(ctx, org, demo.account_uuid, { asOf: date });
        const { market } = await loadAccountBacktestMarket(ctx, org, demo.account_uuid, params);
        const byId = (ids: readonly string[], w: Float64Array) => new Map(ids.map((id, i) => [id, w[i]!]));
        return {
          optimizer: { name: o.benchmarkName, weights: byId(o.input.assets, o.input.benchmark) },
          backtest: {
            ...market.benchmark,
            weights: market.benchmark.weights.map((w) => byId(market.ids, w)),
          },
        };
      };
      const plain = await withConfig(sleeve([]), targets);
      const tilted = await withConfig(
        sleeve([{ weight_adjustment: "0.1", theme_uuid: demo.theme_uuid }]),
        targets,
      );
      const name = 'SYNTH500 tilted 10% toward theme "US tech and media dividend payers"';
      expect([plain.optimizer.name, plain.backtest.name]).toEqual(["SYNTH500", "SYNTH500"]);
      expect([tilted.optimizer.name, tilted.backtest.name]).toEqual([name, name]);
      expect(tilted.backtest.dates).toEqual(plain.backtest.dates);
      expect(tilted.backtest.drift).toBe(true);
      const expectTilted = (before: Map<string, number>, after: Map<string, number>) => {
        for (const id of new Set([...before.keys(), ...after.keys(), ...theme.keys()]))
          expect(after.get(id) ?? 0, id).toBeCloseTo(
            0.9 * (before.get(id) ?? 0) + 0.1 * (theme.get(id) ?? 0),
            12,
          );
      };
      expectTilted(plain.optimizer.weights, tilted.optimizer.weights);
      for (const [j, w] of plain.backtest.weights.entries()) expectTilted(w, tilted.backtest.weights[j]!);
      // The theme's largest name gains 10% of its theme weight less 10% of its index weight.
      const top = snapshot[0]!.theme_asset_id;
      expect(tilted.optimizer.weights.get(top)! - plain.optimizer.weights.get(top)!).toBeGreaterThan(0.01);
    });

    const managed = (r: StandardBacktestResult) => r.simulation.cases.find((c) => c.name === "tax_managed")!;
    /** The largest starting position of the account (a concentrated, long-held demo lot). */
    const largestHolding = async (): Promise<string> => {
      const at = await holdingsAt(
        ctx,
        (await store.accounts.getInOrganization(org, demo.account_uuid))!,
        params.start_date,
      );
      const byId = new Map<string, number>();
      for (const l of at.lots)
        byId.set(l.themeAssetId, (byId.get(l.themeAssetId) ?? 0) + l.quantity.toNumber());
      const prices = await store.market.latestPrices([...byId.keys()], params.start_date);
      return [...byId].sort((a, b) => b[1] * prices.get(b[0])!.close - a[1] * prices.get(a[0])!.close)[0]![0];
    };

    /**
     * Long quantities after each execution date of the tax_managed case (start + splits + fills), valued at that
     * date's closes: weights of the invested value (an upper bound of the
     * weights of NAV, as cash is left out).
     */
    async function weightsAfterFills(
      r: StandardBacktestResult,
    ): Promise<{ date: string; weights: Map<string, number> }[]> {
      const at = await holdingsAt(
        ctx,
        (await store.accounts.getInOrganization(org, demo.account_uuid))!,
        params.start_date,
      );
      const scale = params.starting_nav / at.valueUsd.toNumber();
      const qty = new Map<string, number>();
      for (const l of at.lots)
        qty.set(l.themeAssetId, (qty.get(l.themeAssetId) ?? 0) + l.quantity.toNumber() * scale);
      const fills = managed(r).fills;
      const dates = [...new Set(fills.map((f) => f.date))].sort();
      const out: { date: string; weights: Map<string, number> }[] = [];
      const splits = await store.market.splits(addDays(params.start_date, 1), params.end_date);
      let applied = 0;
      for (const date of dates) {
        for (; applied < splits.length && splits[applied]!.date <= date; applied++) {
          const sp = splits[applied]!;
          if (qty.has(sp.themeAssetId)) qty.set(sp.themeAssetId, qty.get(sp.themeAssetId)! * sp.ratio);
        }
        for (const f of fills.filter((x) => x.date === date)) {
          const q = f.quantity.toNumber();
          qty.set(f.themeAssetId, (qty.get(f.themeAssetId) ?? 0) + (f.side === "buy" ? q : -q));
        }
        const ids = [...qty.keys()].filter((id) => qty.get(id)! > 1e-9);
        const prices = await store.market.latestPrices(ids, date);
        const value = new Map<string, number>();
        let total = 0;
        for (const id of ids) {
          const currency = (await store.market.security(id))!.currency;
          const fx = currency === "USD" ? 1 : (await store.market.fxRateAsOf(currency, date))!.perUsd;
          const v = (qty.get(id)! * prices.get(id)!.close) / fx;
          value.set(id, v);
          total += v;
        }
        out.push({ date, weights: new Map([...value].map(([id, v]) => [id, v / total])) });
      }
      return out;
    }

    it("sells a no_hold ticker held at the start at the first rebalance and never buys it again", async () => {
      const ticker = await largestHolding();
      const base = managed(await detailed()).fills.filter((f) => f.themeAssetId === ticker);
      const r = await withConfig({ no_hold_tickers: [{ theme_asset_id: ticker }] }, detailed);
      const fills = managed(r).fills.filter((f) => f.themeAssetId === ticker);
      const first = managed(r).fills.reduce((d, f) => (f.date < d ? f.date : d), "9999-12-31");
      // Without the restriction the demo's concentrated position is only trimmed.
      expect(base.some((f) => f.side === "buy" || f.date > first)).toBe(true);
      expect(fills.length).toBeGreaterThan(0);
      expect(fills.every((f) => f.side === "sell" && f.date === first)).toBe(true);
      const weights = await weightsAfterFills(r);
      expect(weights[0]!.date).toBe(first);
      for (const w of weights) expect(w.weights.get(ticker) ?? 0, w.date).toBe(0);
      for (const h of r.policyStats.tax_managed!.held) expect(h.reasons.join(" ")).not.toMatch(ticker);
    });

    it("keeps max_weight and a tighter per-ticker upper bound at every rebalance of the tax_managed case", async () => {
      const ticker = await largestHolding();
      const r = await withConfig(
        {
          max_weight: "0.05",
          target_ticker_weights: [{ theme_asset_id: ticker, upper_bound: "0.01" }],
        },
        detailed,
      );
      const held = new Set(r.policyStats.tax_managed!.held.map((h) => h.date));
      expect(r.simulation.schedule.rebalances.length).toBe(12);
      const weights = await weightsAfterFills(r);
      expect(weights.length).toBeGreaterThan(6);
      // The optimizer decides at the decision close; the fills execute at the next close (a day's drift).
      for (const { date, weights: w } of weights) {
        if (held.size > 0 && [...held].some((d) => d < date && date <= fiveDaysAfter(d))) continue;
        for (const [id, v] of w) expect(v, `${id} on ${date}`).toBeLessThan(0.05 * 1.06 + 1e-4);
        expect(w.get(ticker) ?? 0, `${ticker} on ${date}`).toBeLessThan(0.01 * 1.06 + 1e-4);
      }
      // Before: the demo's max_weight 0.1 and no per-ticker bound let the largest position stay above 5%.
      const before = await weightsAfterFills(await detailed());
      expect(Math.max(...before.map((b) => b.weights.get(ticker) ?? 0))).toBeGreaterThan(0.05);
    });

    it("applies a restriction from its starts_from on and not before", async () => {
      const ticker = await largestHolding();
      // Mid-July: the June 30 decision (executed July 1) is before it, the July 31 one after.
      const from = "2025-07-15";
      const base = await detailed();
      const r = await withConfig(
        { no_hold_tickers: [{ theme_asset_id: ticker, starts_from: `${from}T00:00:00Z` }] },
        detailed,
      );
      const fillsBefore = (x: StandardBacktestResult) =>
        JSON.stringify(managed(x).fills.filter((f) => f.date < from));
      // Identical decisions before the date...
      expect(fillsBefore(r)).toBe(fillsBefore(base));
      // ...and the position closed at the first rebalance on or after it, never bought again.
      const after = managed(r).fills.filter((f) => f.themeAssetId === ticker && f.date >= from);
      expect(after.length).toBeGreaterThan(0);
      expect(after.every((f) => f.side === "sell")).toBe(true);
      const weights = (await weightsAfterFills(r)).filter((w) => w.date >= from);
      for (const w of weights) expect(w.weights.get(ticker) ?? 0, w.date).toBe(0);
      expect(
        (await weightsAfterFills(base))
          .filter((w) => w.date >= from)
          .some((w) => (w.weights.get(ticker) ?? 0) > 0),
      ).toBe(true);
    });

    it("reports the rebalances an infeasible configuration held, from a dynamic rule's date on", async () => {
      const from = "2025-06-01";
      const rule: PortfolioConfigWrite = {
        // 120 assets at 5% each cannot fit in 100%: infeasible from June on.
        dynamic_rules: [{ field_name: "min_weight", rules: [{ value: "0.05", starts_from: from }] }],
      };
      const r = await withConfig(rule, detailed);
      const stats = r.policyStats.tax_managed!;
      expect(stats.held.length).toBe(stats.fallbacks);
      expect(stats.held.filter((h) => h.status === "infeasible").length).toBe(stats.infeasible);
      // The demo configuration itself is infeasible once before June (a recent loss lot above max_weight 0.1).
      const base = (await detailed()).policyStats.tax_managed!.held.map((h) => h.date);
      expect(base.every((d) => d < from)).toBe(true);
      const infeasible = stats.held.filter((h) => h.date >= from);
      expect(stats.held.filter((h) => h.date < from).map((h) => h.date)).toEqual(base);
      // Every decision from June on held, each with the optimizer's diagnosis naming min_weight.
      expect(infeasible.length).toBe(7);
      for (const h of infeasible) {
        expect(h.status).toBe("infeasible");
        expect(h.reasons.join(" ")).toMatch(/min_weight/);
      }
      // No optimizer trade after the rule's date: harvests only.
      for (const f of managed(r).fills)
        if (f.date > infeasible[0]!.date) expect(f.harvest, f.date).toBe(true);
      // The contract's result names them in the case's description.
      const result = await withConfig(rule, () => runAccountBacktest(ctx, org, demo.account_uuid, params));
      expect(result.tax_managed!.description).toMatch(
        new RegExp(
          `${stats.held.length} of 12 rebalances held .*infeasible on ${stats.held[0]!.date}, .* \\(`,
        ),
      );
      expect(result.pre_tax!.description).not.toMatch(/held/);
    });

    it("uses the characteristics model the optimize service builds, not pca", async () => {
      const date = "2025-03-31";
      const { market, securities } = await loadAccountBacktestMarket(ctx, org, demo.account_uuid, params);
      const view = new MarketView(market, market.dates.indexOf(date));
      // The model the optimizer-inputs service builds from per-date reads (characteristicsAsOf) of this view.
      const served = await characteristicsRiskModel(
        ctx,
        view.ids,
        (id) => securities.get(id),
        Float64Array.from(view.ids, (_, i) => view.priceUsd(i)),
        view.returns(RISK_LOOKBACK_DAYS).returns,
        date,
        [],
      );
      const built = (await prepareAccountOptimization(ctx, org, demo.account_uuid, { asOf: date })).input
        .riskModel;
      expect(served.diagnostics.model).toBe("characteristics");
      expect([...served.factors]).toEqual([...built.factors]);
      const common = built.assets.filter((id) => served.assets.includes(id));
      expect(common.length).toBe(built.assets.length);
      const a = riskModelCovariance(served);
      const b = riskModelCovariance(built);
      const ia = common.map((id) => served.assets.indexOf(id));
      const ib = common.map((id) => built.assets.indexOf(id));
      let worst = 0;
      for (let x = 0; x < common.length; x++)
        for (let y = 0; y < common.length; y++) {
          const u = a[ia[x]! * served.assets.length + ia[y]!]!;
          const v = b[ib[x]! * built.assets.length + ib[y]!]!;
          worst = Math.max(worst, Math.abs(u - v) / Math.max(1e-12, Math.abs(v)));
        }
      expect(worst).toBeLessThan(1e-9);
      // The backtest's provider reads every characteristic at all the decision dates in one pass (before the run, as
      // the engine asks synchronously) and serves the same model, bit for bit.
      const batched = (
        await characteristicsRiskModelProvider(ctx, securities, ["2025-01-31", date, "2025-06-30"])
      )(view);
      expect(Array.from(batched.exposures)).toEqual(Array.from(served.exposures));
      expect(Array.from(batched.factorCovariance)).toEqual(Array.from(served.factorCovariance));
      expect(Array.from(batched.specificVariance)).toEqual(Array.from(served.specificVariance));

      const characteristics = (await runAccountBacktest(ctx, org, demo.account_uuid, params)).tax_managed!;
      const pca = (
        await withConfig({ risk_model_name: "pca" }, () =>
          runAccountBacktest(ctx, org, demo.account_uuid, params),
        )
      ).tax_managed!;
      expect(characteristics.ending_value).not.toBe(pca.ending_value);
      expect(characteristics.turnover).not.toBe(pca.turnover);
    });
  });
});

function fiveDaysAfter(date: string): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + 5);
  return d.toISOString().slice(0, 10);
}
