import { Decimal } from "decimal.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { lotInput } from "../../test/helpers/lot-input.js";
import {
  type AccountOptimization,
  accountOptimizationSchema,
  type PortfolioConfigWrite,
  portfolioConfigReadFromWrite,
  proposalResponseSchema,
  type Ticker,
} from "../contract/index.js";
import { DataError, NotFoundError, ValidationError } from "../core/errors.js";
import { resolveOptimizerConfig } from "../core/optimizer/index.js";
import { openSqliteStore, type SqliteStore } from "../store/index.js";
import { buildDemo, type DemoResult } from "./demo.js";
import { createOrganization, type ServiceContext, updatePortfolioConfig } from "./index.js";
import { optimizeAccount, rebalanceAccount } from "./optimize.js";
import { optimizerConfigFromPortfolioConfig } from "./optimizer-inputs.js";
import { getProposal } from "./proposals.js";

const ticker = (id: string): Ticker => ({
  theme_asset_id: id,
  symbol: id.split(":")[0]!,
  exchange: id.split(":")[1]!,
  name: id,
  description: null,
  image_url: null,
  ticker_url: null,
  ticker_type: "equity",
  market_cap: null,
  sic_description: null,
});

function readOf(config: PortfolioConfigWrite) {
  return portfolioConfigReadFromWrite(
    { uuid: "7c1f0a52-3d4e-4f60-8a7b-9c0d1e2f3a4b", config },
    {
      ticker,
      assetClass: () => {
        throw new Error("no asset classes here");
      },
      theme: () => {
        throw new Error("no themes here");
      },
      index: () => {
        throw new Error("no indexes here");
      },
    },
  );
}

describe("optimizerConfigFromPortfolioConfig", () => {
  const write: PortfolioConfigWrite = {
    name: "Mapped",
    optimization_mode: "LONG_ONLY",
    min_weight: "0.01",
    max_weight: "0.07",
    max_active_weight: "0.02",
    use_active_risk_bounds: true,
    max_active_risk_pct: "2.5",
    risk_bound_increase_factor: "1.5",
    risk_bound_max_iterations: 4,
    scaling_factor: "3",
    spectral_shift: "0.0001",
    use_turnover_constraint: true,
    max_turnover_pct: "12",
    tcost_bps: "7",
    bid_ask_spread_parameter: "4",
    market_impact_parameter: "0.5",
    linear_tcaf: "0.0002",
    broker_spread_bps: "25",
    min_trading_volume_dollars: "2000000",
    cash_buffer_usd: "0.02",
    cash_buffer_cad_amount: "500",
    use_regula_falsi: false,
    use_cash_benchmark: true,
    require_whole_shares: true,
    whole_share_assets: ["RY:XTSE"],
    substitution_pairs: [["AAA:XNYS", "BBB:XNYS"]],
    capital_gains_reductions: { "AAA:XNYS": "1500" },
    no_hold_tickers: [
      { theme_asset_id: "NOW:XNYS" },
      { theme_asset_id: "OLD:XNYS", expires_at: "2025-01-01T00:00:00Z" },
      { theme_asset_id: "LATER:XNYS", starts_from: "2026-06-01T00:00:00Z" },
    ],
    no_trade_tickers: [{ theme_asset_id: "FRZ:XNYS", starts_from: "2025-06-01T00:00:00Z" }],
    target_ticker_weights: [
      { theme_asset_id: "AAA:XNYS", target_weight: "0.05", lower_bound: "0.01", upper_bound: "0.06" },
      { theme_asset_id: "CND:XNYS", max_active: "0.01", condition: "sector = 45" },
    ],
    factor_exposure_bounds: [{ factor: "momentum", min_active_bound: "-0.1", max_active_bound: "0.2" }],
    tax_preferences: {
      short_term_rate: "0.4",
      long_term_rate: "0.15",
      tax_gamma: "3",
      tax_budget_usd: "10000",
      wash_sale_threshold: 45,
      long_term_threshold: 366,
      n_high_loss_lots: 5,
      tax_use_tax_alpha: false,
      prevent_tlh_invalidating_sale: true,
      tracking_error_threshold: "0.04",
    },
  };

  it("maps every field with a counterpart, decimals to numbers, with the service's risk aversion 2", () => {
    const c = optimizerConfigFromPortfolioConfig(readOf(write), "2025-12-31");
    expect(c).toMatchObject({
      optimizationMode: "LONG_ONLY",
      minWeight: 0.01,
      maxWeight: 0.07,
      minActiveWeight: null,
      maxActiveWeight: 0.02,
      useActiveRiskBounds: true,
      maxActiveRiskPct: 2.5,
      riskBoundIncreaseFactor: 1.5,
      riskBoundMaxIterations: 4,
      riskAversion: 2,
      minTradeUsd: 100,
      minTradePct: 0.05,
      maxTradeCount: null,
      scalingFactor: 3,
      spectralShift: 0.0001,
      useTurnoverConstraint: true,
      maxTurnoverPct: 12,
      tcostBps: 7,
      bidAskSpreadParameter: 4,
      bidAskSpreadRefVolume: null,
      marketImpactParameter: 0.5,
      linearTcaf: 0.0002,
      commissionRate: 0.75,
      brokerSpreadBps: 25,
      minTradingVolumeDollars: 2_000_000,
      cashBufferUsd: 0.02,
      cashBufferCadAmount: 500,
      useRegulaFalsi: false,
      useCashBenchmark: true,
      requireWholeShares: true,
      wholeShareAssets: ["RY:XTSE"],
      substitutionGroups: [["AAA:XNYS", "BBB:XNYS"]],
      capitalGainsReductions: { "AAA:XNYS": 1500 },
      capitalGainsReductionsUnits: "DOLLARS",
      factorExposureBounds: [
        { factor: "momentum", minBound: null, maxBound: null, minActiveBound: -0.1, maxActiveBound: 0.2 },
      ],
      tax: {
        shortTermRate: 0.4,
        longTermRate: 0.15,
        taxGamma: 3,
        taxBudgetUsd: 10_000,
        washSaleThresholdDays: 45,
        longTermThresholdDays: 366,
        nHighLossLots: 5,
        useTaxAlpha: false,
        preventTlhInvalidatingSale: true,
        trackingErrorThreshold: 0.04,
      },
    });
    // Restrictions active at the end of the as-of date only.
    expect(c.noHold).toEqual(["NOW:XNYS"]);
    expect(c.noTrade).toEqual(["FRZ:XNYS"]);
    expect(optimizerConfigFromPortfolioConfig(readOf(write), "2025-05-01").noTrade).toEqual([]);
    expect(c.targetTickerWeights).toEqual([
      {
        themeAssetId: "AAA:XNYS",
        targetWeight: 0.05,
        lowerBound: 0.01,
        upperBound: 0.06,
        minActive: null,
        maxActive: null,
      },
      {
        themeAssetId: "CND:XNYS",
        targetWeight: null,
        lowerBound: null,
        upperBound: null,
        minActive: null,
        maxActive: 0.01,
      },
    ]);
    // Unset tax fields are left to the optimizer's defaults; the result is a valid optimizer configuration.
    expect("taxGammaMin" in c.tax!).toBe(false);
    const resolved = resolveOptimizerConfig(c);
    expect(resolved.tax.taxGammaMax).toBe(100);
    expect(resolved.riskAversion).toBe(2);
    expect(resolved.tax.preventTlhInvalidatingPurchase).toBe(false);
  });

  it("takes resolved restrictions and drops per-ticker targets whose condition does not hold", () => {
    const c = optimizerConfigFromPortfolioConfig(readOf({ ...write, risk_aversion: "0.5" }), "2025-12-31", {
      noHold: ["X:XNYS"],
      noTrade: [],
      conditionHolds: (id) => id !== "CND:XNYS",
    });
    expect(c.riskAversion).toBe(0.5);
    expect(c.noHold).toEqual(["X:XNYS"]);
    expect(c.noTrade).toEqual([]);
    expect(c.targetTickerWeights!.map((t) => t.themeAssetId)).toEqual(["AAA:XNYS"]);
  });
});

describe("optimizeAccount and rebalanceAccount over the demo account", () => {
  let store: SqliteStore;
  let ctx: ServiceContext;
  let demo: DemoResult;
  let result: AccountOptimization;

  beforeAll(async () => {
    store = openSqliteStore(":memory:");
    ctx = { store, clock: () => new Date("2026-01-15T15:00:00Z") };
    demo = await buildDemo(ctx);
    result = await optimizeAccount(ctx, demo.organization_uuid, demo.account_uuid);
  }, 60_000);
  afterAll(() => store.close());

  const setConfig = (patch: PortfolioConfigWrite) =>
    updatePortfolioConfig(ctx, demo.organization_uuid, demo.portfolio_config_uuid, patch);

  it("reaches an optimal, fully invested portfolio that keeps the cash buffer", () => {
    const r = accountOptimizationSchema.parse(result);
    expect(r.status).toBe("optimal");
    expect(r.as_of_date).toBe("2025-12-31");
    expect(r.benchmark).toBe("SYNTH500");
    expect(r.risk_model).toBe("characteristics");
    expect(r.diagnosis).toEqual([]);
    // The demo holds $25,000 cash and a 1% USD buffer.
    expect(r.cash_usd).toBe(25_000);
    expect(r.cash_buffer_usd).toBeCloseTo(0.01 * r.nav_usd, 6);
    expect(r.investable_usd).toBeCloseTo(r.nav_usd - r.cash_buffer_usd, 6);
    const sum = r.weights.reduce((s, w) => s + w.target_weight, 0);
    expect(sum).toBeLessThanOrEqual(1 + 1e-9);
    expect(sum).toBeGreaterThan(0.98);
    expect(r.cash_after_usd).toBeGreaterThanOrEqual(r.cash_buffer_usd - 1e-6);
    // Cash after = NAV - invested - costs.
    expect(r.cash_after_usd).toBeCloseTo(r.nav_usd - sum * r.investable_usd - r.transaction_cost_usd, 2);
    // max_weight 0.1 and long-only hold for every asset.
    for (const w of r.weights) {
      expect(w.target_weight).toBeLessThanOrEqual(0.1 + 1e-9);
      expect(w.target_weight).toBeGreaterThanOrEqual(-1e-12);
    }
    // The active-risk cap of 3% holds.
    expect(r.tracking_error).toBeLessThanOrEqual(0.03 + 1e-6);
    expect(r.risk_cap?.requested).toBeCloseTo(0.03, 12);
  });

  it("prices each trade at weights x investable value / price", () => {
    expect(result.trades.length).toBeGreaterThan(10);
    const byTicker = new Map(result.weights.map((w) => [w.ticker, w]));
    for (const t of result.trades) {
      const w = byTicker.get(t.ticker)!;
      expect(t.from_weight).toBeCloseTo(w.current_weight, 12);
      expect(t.to_weight).toBeCloseTo(w.target_weight, 12);
      expect(t.side).toBe(t.to_weight > t.from_weight ? "buy" : "sell");
      const usd = Math.abs(t.to_weight - t.from_weight) * result.investable_usd;
      expect(Math.abs(t.amount_usd - usd)).toBeLessThan(0.01);
      expect(Math.abs(t.shares * t.price_usd - t.amount_usd)).toBeLessThan(0.01);
    }
    const turnover = result.trades.reduce((s, t) => s + t.amount_usd, 0) / result.investable_usd / 2;
    expect(result.turnover).toBeCloseTo(turnover, 6);
  });

  it("harvests loss lots: tax alpha at the configured rates, no tax paid on net", () => {
    const losses = result.lots_to_sell.filter((l) => l.gain_usd < 0);
    expect(losses.length).toBeGreaterThan(0);
    expect(result.tax_gamma).toBeGreaterThan(0);
    expect(result.harvested_losses_usd).toBeCloseTo(-losses.reduce((s, l) => s + l.gain_usd, 0), 6);
    for (const l of result.lots_to_sell) expect(l.gain_usd).toBeCloseTo(l.proceeds_usd - l.cost_basis_usd, 6);
    // Demo rates: 37% short term, 20% long term; no capital-gains reductions.
    expect(result.tax_cost_usd).toBeCloseTo(
      0.37 * result.realized_short_term_usd + 0.2 * result.realized_long_term_usd,
      4,
    );
    expect(result.tax_cost_usd).toBeLessThan(0);
    // Each lot sold belongs to a sell trade, and a sell's shares are its lots' shares.
    const sells = new Map(result.trades.filter((t) => t.side === "sell").map((t) => [t.ticker, t]));
    const sold = new Map<string, number>();
    for (const l of result.lots_to_sell) sold.set(l.ticker, (sold.get(l.ticker) ?? 0) + Number(l.quantity));
    for (const [id, q] of sold) expect(q).toBeCloseTo(sells.get(id)!.shares, 5);
  });

  it("leaves no dust on the demo account: 100 orders without a minimum trade, 90 with the default 100 USD / 0.05% of NAV", async () => {
    const minimum = Math.max(100, 0.0005 * result.nav_usd);
    const dust = (r: AccountOptimization) =>
      r.trades.filter((t) => Math.abs(t.to_weight) > 1e-12 && t.amount_usd < minimum - 1e-6);
    expect(result.status).toBe("optimal");
    expect(dust(result)).toEqual([]);
    expect(result.trades).toHaveLength(90);
    await setConfig({ min_trade_amount_usd: "0", min_trade_pct: "0" });
    try {
      const before = await optimizeAccount(ctx, demo.organization_uuid, demo.account_uuid);
      expect(before.trades).toHaveLength(100);
      expect(dust(before)).toHaveLength(10);
      expect(Math.min(...before.trades.map((t) => t.amount_usd))).toBeCloseTo(23.3, 1);
      // The residual is absorbed: the same tracking-error cap, turnover within 0.1% of it.
      expect(result.tracking_error).toBeLessThanOrEqual(0.03 + 1e-6);
      expect(Math.abs(result.turnover - before.turnover)).toBeLessThan(0.001);
    } finally {
      await setConfig({ min_trade_amount_usd: null, min_trade_pct: null });
    }
    await setConfig({ max_trade_count: 40 });
    try {
      const counted = await optimizeAccount(ctx, demo.organization_uuid, demo.account_uuid);
      expect(counted.status).toBe("optimal");
      expect(counted.trades.length).toBeLessThanOrEqual(40);
      expect(counted.trades.length).toBeGreaterThan(20);
      expect(dust(counted)).toEqual([]);
      expect(counted.tracking_error).toBeLessThanOrEqual(0.03 + 1e-6);
    } finally {
      await setConfig({ max_trade_count: null });
    }
  });

  it("sees a household purchase in the wash-sale window: avoided under prevent_tlh_invalidating_sale, else priced and warned", async () => {
    // The asset whose loss lots the demo optimization sells for the most loss.
    const byTicker = new Map<string, number>();
    for (const l of result.lots_to_sell)
      if (l.gain_usd < 0) byTicker.set(l.ticker, (byTicker.get(l.ticker) ?? 0) + l.gain_usd);
    const [ticker] = [...byTicker].sort((a, b) => a[1] - b[1])[0]!;
    const soldShares = result.lots_to_sell
      .filter((l) => l.ticker === ticker && l.gain_usd < 0)
      .reduce((s, l) => s + Number(l.quantity), 0);
    expect(result.lots_to_sell.every((l) => l.disallowed_loss_usd === 0)).toBe(true);
    // Another account of the same client bought a tenth of those shares five days before the as-of date.
    const bought = Math.max(1, Math.floor(soldShares / 10));
    const other = await store.accounts.create(demo.organization_uuid, demo.client_uuid, {
      cashValueUsd: "0",
    });
    await store.accounts.replaceLots(other.uuid, [
      lotInput({ themeAssetId: ticker, quantity: String(bought), costBasis: "10", tradeDate: "2025-12-26" }),
    ]);
    const tax = {
      short_term_rate: "0.37",
      long_term_rate: "0.2",
      tax_gamma: "1",
      wash_sale_threshold: 30,
      long_term_threshold: 365,
      prevent_tlh_invalidating_purchase: true,
    };
    try {
      // The demo configuration prevents wash sales: the loss lots of the asset are kept now.
      const avoided = await optimizeAccount(ctx, demo.organization_uuid, demo.account_uuid);
      expect(avoided.status).toBe("optimal");
      expect(avoided.lots_to_sell.filter((l) => l.ticker === ticker && l.gain_usd < 0)).toEqual([]);
      // Without the flag the losses are sold, the washed fraction priced and reported.
      await setConfig({ tax_preferences: { ...tax, prevent_tlh_invalidating_sale: false } });
      const priced = await optimizeAccount(ctx, demo.organization_uuid, demo.account_uuid);
      const lines = priced.lots_to_sell.filter((l) => l.ticker === ticker && l.gain_usd < 0);
      const disallowed = lines.reduce((s, l) => s + l.disallowed_loss_usd, 0);
      const loss = -lines.reduce((s, l) => s + l.gain_usd, 0);
      expect(disallowed).toBeGreaterThan(0);
      // At most the household's shares are matched: no more than their share of the loss sold.
      const lossPerShare = lines.map((l) => -l.gain_usd / Number(l.quantity));
      expect(disallowed).toBeLessThanOrEqual(bought * Math.max(...lossPerShare) + 1e-6);
      expect(disallowed).toBeLessThan(loss);
      // The proposal of the rebalance warns of the washed loss.
      const rb = await rebalanceAccount(ctx, demo.organization_uuid, demo.account_uuid);
      const warning = rb.proposal!.warnings!.find(
        (w) => w.code === "sale_loss_washed" && w.ticker === ticker,
      );
      expect(warning?.message).toMatch(/disallowed by the wash-sale rule/);
      expect(Number(rb.proposal!.realized!.disallowed_loss_usd)).toBeGreaterThan(0);
    } finally {
      await setConfig({ tax_preferences: { ...tax, prevent_tlh_invalidating_sale: true } });
      await store.accounts.replaceLots(other.uuid, []);
    }
  });

  it("answers infeasible with a diagnosis when min_weight x the universe exceeds the budget, and stores no proposal", async () => {
    await setConfig({ min_weight: "0.05" });
    try {
      const r = await optimizeAccount(ctx, demo.organization_uuid, demo.account_uuid);
      expect(r.status).toBe("infeasible");
      expect(r.diagnosis.length).toBeGreaterThan(0);
      expect(r.diagnosis.join(" ")).toMatch(/min_weight/);
      expect(r.trades).toEqual([]);
      expect(r.weights.every((w) => w.target_weight === 0)).toBe(true);
      const before = (await store.proposals.list(demo.organization_uuid, demo.account_uuid)).length;
      const rb = await rebalanceAccount(ctx, demo.organization_uuid, demo.account_uuid);
      expect(rb.proposal).toBeNull();
      expect(rb.message).toContain("infeasible");
      expect(rb.message).toContain(r.diagnosis[0]!);
      expect(await store.proposals.list(demo.organization_uuid, demo.account_uuid)).toHaveLength(before);
    } finally {
      await setConfig({ min_weight: "0" });
    }
  });

  it("rebalances: stores the proposal of the optimized weights, orders in the trades' directions", async () => {
    const rb = await rebalanceAccount(ctx, demo.organization_uuid, demo.account_uuid);
    expect(rb.message).toBeNull();
    expect(rb.optimization).toEqual(result);
    const p = proposalResponseSchema.parse(rb.proposal);
    expect(p.as_of_date).toBe(result.as_of_date);
    expect(
      await getProposal(ctx, demo.organization_uuid, demo.client_uuid, demo.account_uuid, p.proposal_uuid),
    ).toEqual(p);
    const trades = new Map(result.trades.map((t) => [t.ticker, t]));
    expect(p.orders.length).toBeGreaterThan(10);
    for (const o of p.orders) {
      const t = trades.get(o.ticker);
      expect(t, o.ticker).toBeDefined();
      expect(new Decimal(o.amount).isNegative() ? "sell" : "buy", o.ticker).toBe(t!.side);
      if (o.target_weight !== null)
        expect(Number(o.target_weight)).toBeCloseTo(
          result.weights.find((w) => w.ticker === o.ticker)!.target_weight,
          8,
        );
    }
    // Each sell names exactly the lots the optimizer chose, with their quantities (its tax decisions, not the
    // default lot policy's), and realizes the gains it planned.
    let sells = 0;
    let planned = new Decimal(0);
    let realized = new Decimal(0);
    for (const o of p.orders) {
      if (!new Decimal(o.amount).isNegative()) continue;
      sells++;
      const lots = result.lots_to_sell.filter((l) => l.ticker === o.ticker);
      expect(o.tax_lots!.length, o.ticker).toBe(lots.length);
      const total = lots.reduce((s, l) => s.plus(l.quantity), new Decimal(0));
      expect(new Decimal(o.amount).negated().eq(total), o.ticker).toBe(true);
      expect(o.tax_lots!.map((t) => t.quantity).sort()).toEqual(lots.map((l) => l.quantity).sort());
      for (const l of lots) planned = planned.plus(l.gain_usd);
      for (const t of o.tax_lots!) realized = realized.plus(t.gain);
    }
    expect(sells).toBeGreaterThan(3);
    // Gains in USD at the same prices: equal to the cent per lot (rounding of the wire's decimals aside).
    expect(realized.minus(planned).abs().toNumber()).toBeLessThan(0.01 * result.lots_to_sell.length);
    // Every trade worth a dollar became an order or a dropped order with its reason.
    const placed = new Set([...p.orders.map((o) => o.ticker), ...p.dropped_orders!.map((d) => d.ticker)]);
    for (const t of result.trades) if (t.amount_usd >= 1) expect(placed.has(t.ticker), t.ticker).toBe(true);
  });

  it("uses the pca model when configured, and refuses custom without an uploaded model", async () => {
    await setConfig({ risk_model_name: "pca" });
    try {
      const r = await optimizeAccount(ctx, demo.organization_uuid, demo.account_uuid);
      expect(r.risk_model).toBe("pca");
      expect(r.status).not.toBe("infeasible");
      expect(r.total_risk).toBeGreaterThan(0.02);
      await setConfig({ risk_model_name: "custom" });
      await expect((() => optimizeAccount(ctx, demo.organization_uuid, demo.account_uuid))()).rejects.toThrow(
        /risk_model_name is "custom"/,
      );
      await expect((() => optimizeAccount(ctx, demo.organization_uuid, demo.account_uuid))()).rejects.toThrow(
        DataError,
      );
    } finally {
      await setConfig({ risk_model_name: "characteristics" });
    }
  });

  it("optimizes as of an earlier date with the lots held then", async () => {
    const r = await optimizeAccount(ctx, demo.organization_uuid, demo.account_uuid, { asOf: "2025-11-28" });
    expect(r.as_of_date).toBe("2025-11-28");
    expect(r.nav_usd).not.toBeCloseTo(result.nav_usd, 0);
    // Lots bought in December (15 days before the demo's as-of date) were not held yet.
    const december = (await store.accounts.lots(demo.account_uuid))
      .filter((l) => l.tradeDate > "2025-11-28")
      .map((l) => l.uuid);
    expect(december.length).toBeGreaterThan(0);
    for (const l of r.lots_to_sell) expect(december).not.toContain(l.lot_uuid);
  });

  it("refuses a date without market data and an account of another organization", async () => {
    await expect(
      (() => optimizeAccount(ctx, demo.organization_uuid, demo.account_uuid, { asOf: "1990-01-02" }))(),
    ).rejects.toThrow(ValidationError);
    const other = (await createOrganization(ctx, "Other")).organization.uuid;
    await expect((() => optimizeAccount(ctx, other, demo.account_uuid))()).rejects.toThrow(NotFoundError);
    await expect((() => rebalanceAccount(ctx, other, demo.account_uuid))()).rejects.toThrow(NotFoundError);
  });
});
