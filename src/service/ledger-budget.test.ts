import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { accountOptimizationSchema, proposalResponseSchema } from "../contract/index.js";
import { openSqliteStore, type SqliteStore } from "../store/index.js";
import { buildDemo, type DemoResult } from "./demo.js";
import { createAccount, type ServiceContext, updatePortfolioConfig } from "./index.js";
import { recordTrades } from "./ledger.js";
import { optimizeAccount, rebalanceAccount } from "./optimize.js";

let store: SqliteStore;
let ctx: ServiceContext;
let demo: DemoResult;
let account: string;
let asset: string;

beforeAll(async () => {
  store = openSqliteStore(":memory:");
  ctx = { store, clock: () => new Date("2026-01-15T15:00:00Z") };
  demo = await buildDemo(ctx);
  // One concentrated, appreciated short-term position: diversifying it realizes large gains.
  asset = (await store.accounts.lots(demo.account_uuid))[0]!.themeAssetId;
  account = (
    await createAccount(ctx, demo.organization_uuid, demo.client_uuid, {
      cash_value_usd: "20000",
      portfolio_config_uuid: demo.portfolio_config_uuid,
      holdings: {
        tax_lots: [{ theme_asset_id: asset, quantity: "3000", cost_basis: "1", trade_date: "2025-06-02" }],
      },
    })
  ).uuid;
}, 120_000);
afterAll(() => store.close());

describe("year-to-date taxes in the optimizer", () => {
  it("with 9,000 of a 10,000 tax budget realized this year, the optimizer realizes at most 1,000 more", async () => {
    const org = demo.organization_uuid;
    const setBudget = (budget: string) =>
      updatePortfolioConfig(ctx, org, demo.portfolio_config_uuid, {
        // No constraint forces a sale: the tax budget alone bounds what is realized.
        max_weight: "1",
        use_active_risk_bounds: false,
        tax_preferences: {
          short_term_rate: "0.5",
          long_term_rate: "0.2",
          tax_budget_usd: budget,
          tax_gamma: "1",
        },
      } as never);
    // Reference: the same account with a budget of 1,000 and nothing realized yet.
    await setBudget("1000");
    const small = accountOptimizationSchema.parse(await optimizeAccount(ctx, org, account));
    expect(small.year_to_date_realized).toMatchObject({
      realized_before_usd: "0",
      tax_budget_remaining_usd: 1000,
    });
    expect(small.tax_gamma_search!.target).toBe(1000);
    expect(small.tax_cost_usd).toBeLessThanOrEqual(1010);
    // With 10,000 and nothing realized, the optimizer realizes more than 1,000 of tax (so the test can fail).
    await setBudget("10000");
    const free = await optimizeAccount(ctx, org, account);
    expect(free.tax_cost_usd).toBeGreaterThan(1010);

    // 18,000 of short-term gain realized in 2025 at 50%: 9,000 of tax. Bought and sold back-dated, by named lot.
    await recordTrades(ctx, org, demo.client_uuid, account, {
      trades: [
        {
          execution_id: "ytd-b",
          side: "buy",
          ticker: asset,
          trade_date: "2025-02-03",
          quantity: "100",
          price: "10",
        },
        {
          execution_id: "ytd-s",
          side: "sell",
          ticker: asset,
          trade_date: "2025-03-03",
          quantity: "100",
          price: "190",
          lots: [{ lot_id: `${account}:ytd-b`, quantity: "100" }],
        },
      ],
    });
    const r = accountOptimizationSchema.parse(await optimizeAccount(ctx, org, account));
    const ytd = r.year_to_date_realized!;
    expect(ytd).toMatchObject({
      year: 2025,
      realized_before_usd: "18000",
      short_term_before_usd: "18000",
      tax_before_usd: 9000,
      tax_budget_usd: 10000,
      tax_budget_remaining_usd: 1000,
    });
    expect(r.tax_gamma_search!.target).toBe(1000);
    const tolerance = Math.max(1, 0.01 * 1000);
    expect(r.tax_cost_usd).toBeLessThanOrEqual(1000 + tolerance);
    expect(ytd.realized_after_usd).toBeCloseTo(
      18000 + r.realized_short_term_usd + r.realized_long_term_usd,
      6,
    );
    expect(r.warnings.join(" ")).toContain("the optimizer's budget is 1,000");

    // The proposal of a rebalance reports the year's realized total before and after it.
    const rb = await rebalanceAccount(ctx, org, account);
    const p = proposalResponseSchema.parse(rb.proposal);
    expect(p.year_to_date_realized!.realized_before_usd).toBe("18000");
    const trade = Number(p.realized!.short_term_usd) + Number(p.realized!.long_term_usd);
    expect(Number(p.year_to_date_realized!.realized_after_usd)).toBeCloseTo(18000 + trade, 6);
  }, 120_000);
});
