import { Decimal } from "decimal.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formatDecimal, proposalResponseSchema } from "../contract/index.js";
import { NotFoundError, ValidationError } from "../core/errors.js";
import type { ProposalResult } from "../core/proposal/index.js";
import { openSqliteStore, type SqliteStore } from "../store/index.js";
import { buildDemo, type DemoResult } from "./demo.js";
import { createOrganization, getAccount, type ServiceContext, updatePortfolioConfig } from "./index.js";
import { createProposal, getProposal, toWire } from "./proposals.js";

describe("proposals over the demo account", () => {
  let store: SqliteStore;
  let ctx: ServiceContext;
  let demo: DemoResult;

  beforeAll(async () => {
    store = openSqliteStore(":memory:");
    ctx = { store, clock: () => new Date("2026-01-15T15:00:00Z") };
    demo = await buildDemo(ctx);
  });
  afterAll(() => store.close());

  const create = (weights: [string, string][]) =>
    createProposal(ctx, demo.organization_uuid, demo.client_uuid, demo.account_uuid, {
      optimized_weights: weights.map(([ticker, weight]) => ({ ticker, weight })),
    });

  it("sells what leaves the target with its lots, buys what enters, and stores the proposal", async () => {
    const account = await getAccount(ctx, demo.organization_uuid, demo.client_uuid, demo.account_uuid);
    const held = account.positions.map((p) => p.theme_asset_id);
    // Keep the first five holdings at 15% each, drop the rest, add two new names at 10%.
    const keep = held.slice(0, 5);
    const fresh = (await store.market.securities({ currency: "USD" }))
      .map((s) => s.themeAssetId)
      .filter((id) => !held.includes(id))
      .slice(0, 2);
    const p = await create([
      ...keep.map((id) => [id, "0.15"] as [string, string]),
      ...fresh.map((id) => [id, "0.1"] as [string, string]),
    ]);
    proposalResponseSchema.parse(p);
    const sells = p.orders.filter((o) => o.amount.startsWith("-"));
    const buys = p.orders.filter((o) => !o.amount.startsWith("-"));
    for (const id of held.slice(5)) {
      const o = sells.find((s) => s.ticker === id)!;
      expect(o.reason).toBe("removed_from_target");
      expect(o.type).toBe("qty");
      // A removed position is sold in full, lot by lot.
      expect(new Decimal(o.amount).negated().toString()).toBe(new Decimal(o.existing_quantity!).toString());
      const lotSum = o.tax_lots!.reduce((s, l) => s.plus(l.quantity), new Decimal(0));
      expect(lotSum.toString()).toBe(new Decimal(o.existing_quantity!).toString());
    }
    for (const id of fresh) expect(buys.find((b) => b.ticker === id)?.reason).toBe("added_to_target");
    // The Canadian listing (sold in full here or kept) carries an FX breakdown when traded.
    for (const o of p.orders.filter((x) => x.currency !== "USD"))
      expect(o.fx_cost_breakdown?.currency).toBe(o.currency);
    expect(p.as_of_date).toBe("2025-12-31");
    expect(
      await getProposal(ctx, demo.organization_uuid, demo.client_uuid, demo.account_uuid, p.proposal_uuid),
    ).toEqual(p);
  });

  it("drops orders below the configured minimum trade (100 USD or 0.05% of NAV), and places them when it is 0", async () => {
    const account = await getAccount(ctx, demo.organization_uuid, demo.client_uuid, demo.account_uuid);
    const nav = new Decimal(account.aum);
    const investable = nav.times("0.99"); // the demo's 1% USD buffer
    const usd = account.positions.filter((p) => p.currency === "USD" && p.market_value_usd !== null);
    const [a, b] = [usd[0]!, usd[1]!];
    const weights = (bumpA: number, bumpB: number): [string, string][] =>
      usd.map((p) => {
        const extra = p === a ? bumpA : p === b ? bumpB : 0;
        const w = new Decimal(p.market_value_usd!).plus(extra).dividedBy(investable);
        return [p.theme_asset_id, w.toDecimalPlaces(10, Decimal.ROUND_DOWN).toFixed()];
      });
    // A buy of about 150 USD of `a` (below the 0.05% x NAV minimum, about 268 USD) and 2,000 USD of `b`.
    const minimum = nav.times("0.0005").toDecimalPlaces(2, Decimal.ROUND_UP);
    expect(minimum.toNumber()).toBeGreaterThan(200);
    const p = await create(weights(150, 2000));
    const dropped = p.dropped_orders!.find((d) => d.ticker === a.theme_asset_id)!;
    expect(dropped.reason).toBe("below_min_notional");
    expect(Number(dropped.wanted_amount_usd)).toBeCloseTo(150, 0);
    expect(dropped.message).toContain(`minimum order of ${minimum.toString()} USD`);
    expect(p.orders.find((o) => o.ticker === a.theme_asset_id)).toBeUndefined();
    expect(Number(p.orders.find((o) => o.ticker === b.theme_asset_id)!.amount)).toBeCloseTo(2000, 0);
    await updatePortfolioConfig(ctx, demo.organization_uuid, demo.portfolio_config_uuid, {
      min_trade_amount_usd: "0",
      min_trade_pct: "0",
    });
    try {
      const free = await create(weights(150, 2000));
      expect(Number(free.orders.find((o) => o.ticker === a.theme_asset_id)!.amount)).toBeCloseTo(150, 0);
    } finally {
      await updatePortfolioConfig(ctx, demo.organization_uuid, demo.portfolio_config_uuid, {
        min_trade_amount_usd: null,
        min_trade_pct: null,
      });
    }
  });

  it("names unknown, ambiguous-free duplicate and invalid tickers and stores nothing", async () => {
    const before = (await store.proposals.list(demo.organization_uuid, demo.account_uuid)).length;
    let err: unknown;
    try {
      await create([
        ["NOPE", "0.1"],
        ["DEL", "0.1"],
        ["DEL:XNYS", "0.1"],
      ]);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).issues).toEqual([
      { path: "optimized_weights[0].ticker", message: "unknown ticker NOPE" },
      {
        path: "optimized_weights[2].ticker",
        message: "DEL:XNYS is DEL:XNYS, already given at optimized_weights[1]",
      },
    ]);
    expect(await store.proposals.list(demo.organization_uuid, demo.account_uuid)).toHaveLength(before);
  });

  it("rejects weights above 1 and a no-hold ticker with a positive weight", async () => {
    await expect(
      (() =>
        create([
          ["DEL", "0.7"],
          ["OSM", "0.6"],
        ]))(),
    ).rejects.toThrow(ValidationError);
    await updatePortfolioConfig(ctx, demo.organization_uuid, demo.portfolio_config_uuid, {
      no_hold_tickers: [{ theme_asset_id: "OSM:XNYS" }],
    });
    try {
      await expect((() => create([["OSM", "0.05"]]))()).rejects.toThrow(/OSM/);
    } finally {
      await updatePortfolioConfig(ctx, demo.organization_uuid, demo.portfolio_config_uuid, {
        no_hold_tickers: [],
      });
    }
  });

  it("answers 404 for an account of another organization or client", async () => {
    const other = (await createOrganization(ctx, "Other")).organization.uuid;
    await expect(
      (() =>
        createProposal(ctx, other, demo.client_uuid, demo.account_uuid, {
          optimized_weights: [{ ticker: "DEL", weight: "0.1" }],
        }))(),
    ).rejects.toThrow(NotFoundError);
  });
});

describe("toWire", () => {
  const D = (v: string) => new Decimal(v);
  const result = (over: { amount?: string; gain?: string; fxRate?: string } = {}) =>
    ({
      orders: [
        {
          themeAssetId: "RY:XTSE",
          symbol: "RY",
          currency: "CAD",
          amount: D(over.amount ?? "-1234.5"),
          amountUsd: D("-900.123456789012"),
          type: "SELL",
          category: "rebalance",
          reason: "overweight",
          existingQuantity: D("10"),
          existingWeight: null,
          existingMarketValueUsd: null,
          targetWeight: D("0.05"),
          taxLots: [
            { costBasisUsd: D("100.5"), quantity: D("1"), tradeDate: "2024-01-02", gainUsd: D("3") },
            {
              costBasisUsd: D("7"),
              quantity: D("2"),
              tradeDate: "2024-01-03",
              gainUsd: D(over.gain ?? "-1.25"),
            },
          ],
          fxCostBreakdown: {
            currency: "CAD",
            baseAmountUsd: D("900"),
            fxRate: D(over.fxRate ?? "1.35"),
            feePercentage: D("0.001"),
            feeAmountUsd: D("0.9"),
            netAmountUsd: D("899.1"),
          },
        },
      ],
      cashBufferCadAmount: null,
      cashBufferUsdAmount: null,
      navUsd: D("1000"),
      investableUsd: D("990"),
      realized: {
        shortTermUsd: D("0"),
        longTermUsd: D("0"),
        disallowedLossUsd: D("0"),
        capitalGainsReductionUsd: D("0"),
        taxableShortTermUsd: D("0"),
        taxableLongTermUsd: D("0"),
      },
      fxFeesUsd: D("0.9"),
      dropped: [],
      warnings: [],
    }) as unknown as ProposalResult;
  const wire = (r: ProposalResult) => toWire("u", r, "2025-06-30", "2025-07-01T00:00:00Z");
  const failure = (fn: () => unknown) => {
    try {
      fn();
    } catch (err) {
      return (err as Error).message;
    }
    return "no error";
  };

  it("prints the decimals of orders and their lots", () => {
    const o = wire(result()).orders[0]!;
    expect(o.amount).toBe("-1234.5");
    expect(o.amount_usd).toBe("-900.123456789");
    expect(o.tax_lots).toEqual([
      { cost_basis: "100.5", quantity: "1", trade_date: "2024-01-02", gain: "3" },
      { cost_basis: "7", quantity: "2", trade_date: "2024-01-03", gain: "-1.25" },
    ]);
    expect(o.fx_cost_breakdown?.fx_rate).toBe("1.35");
  });

  it("names the field of a decimal that does not fit, with formatDecimal's message", () => {
    expect(failure(() => wire(result({ amount: "-12345678901" })))).toBe(
      failure(() => formatDecimal(D("-12345678901"), 10, 10, "orders[0].amount")),
    );
    expect(failure(() => wire(result({ gain: "1e31" })))).toBe(
      failure(() => formatDecimal(D("1e31"), 30, 10, "orders[0].tax_lots[1].gain")),
    );
    expect(failure(() => wire(result({ fxRate: "99999999999" })))).toBe(
      failure(() => formatDecimal(D("99999999999"), 10, 10, "orders[0].fx_cost_breakdown.fx_rate")),
    );
    expect(failure(() => wire(result({ gain: "1e31" })))).toMatch(/^orders\[0\]\.tax_lots\[1\]\.gain: 1000/);
  });
});
