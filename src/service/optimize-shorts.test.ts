import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type AccountOptimization,
  accountOptimizationSchema,
  proposalResponseSchema,
} from "../contract/index.js";
import { openSqliteStore, type SqliteStore } from "../store/index.js";
import { buildDemo, type DemoResult } from "./demo.js";
import { createAccount, getAccount, type ServiceContext, updatePortfolioConfig } from "./index.js";
import { recordTrades } from "./ledger.js";
import { optimizeAccount, rebalanceAccount } from "./optimize.js";

let store: SqliteStore;
let ctx: ServiceContext;
let demo: DemoResult;
let org: string;
let asOf: string;
/** An asset the demo account does not hold (no household wash-sale facts), and its close on the as-of date. */
let S: string;
let close: number;

const RATE = 0.4;

/** The demo configuration as LONG_BIASED with the given tax preferences (no risk cap, shorts allowed). */
const configure = (tax: Record<string, string | null>) =>
  updatePortfolioConfig(ctx, org, demo.portfolio_config_uuid, {
    optimization_mode: "LONG_BIASED",
    min_weight: "-0.1",
    use_active_risk_bounds: false,
    tax_preferences: { short_term_rate: String(RATE), long_term_rate: "0.2", ...tax },
  } as never);

/** A new account of the demo client with `cash` USD and the short lots opened by `shorts` on the as-of date. */
async function accountWithShorts(
  name: string,
  cash: string,
  shorts: { id: string; quantity: number; price: number }[],
): Promise<string> {
  const uuid = (
    await createAccount(ctx, org, demo.client_uuid, {
      name,
      cash_value_usd: cash,
      portfolio_config_uuid: demo.portfolio_config_uuid,
    } as never)
  ).uuid;
  await recordTrades(ctx, org, demo.client_uuid, uuid, {
    trades: shorts.map((s) => ({
      execution_id: s.id,
      side: "short_order" as const,
      ticker: S,
      trade_date: asOf,
      quantity: String(s.quantity),
      price: String(s.price),
    })),
  });
  return uuid;
}

const covers = (o: AccountOptimization) =>
  o.short_lots_to_cover.map((c) => [c.lot_uuid.split(":").pop(), Number(c.quantity)] as const);
const covered = (o: AccountOptimization) => o.short_lots_to_cover.reduce((a, c) => a + Number(c.quantity), 0);

beforeAll(async () => {
  store = openSqliteStore(":memory:");
  ctx = { store, clock: () => new Date("2026-01-15T15:00:00Z") };
  demo = await buildDemo(ctx);
  org = demo.organization_uuid;
  asOf = (await store.market.latestPriceDate())!;
  const held = new Set((await store.accounts.lots(demo.account_uuid)).map((l) => l.themeAssetId));
  S = ["LNR:XNYS", "HLH:XNYS", "CAL:XNYS"].find((id) => !held.has(id))!;
  close = (await store.market.latestPrices([S], asOf)).get(S)!.close;
}, 120_000);
afterAll(() => store.close());

describe("the optimizer service sees short lots (LONG_SHORT / LONG_BIASED)", () => {
  it("counts the short as a negative current weight: longs - shorts + cash = NAV", async () => {
    await configure({ tax_gamma: "0" });
    const acct = await accountWithShorts("short-nav", "50000", [{ id: "n1", quantity: 100, price: close }]);
    const o = accountOptimizationSchema.parse(await optimizeAccount(ctx, org, acct));
    // Cash 50,000 + the short-sale proceeds 100 x close; owed 100 x close: NAV 50,000.
    expect(o.cash_usd).toBeCloseTo(50_000 + 100 * close, 6);
    expect(o.nav_usd).toBeCloseTo(50_000, 6);
    const s = o.weights.find((w) => w.ticker === S)!;
    expect(s.current_weight).toBeCloseTo((-100 * close) / o.investable_usd, 12);
    const positions = o.weights.reduce((a, w) => a + w.current_weight, 0) * o.investable_usd;
    expect(positions + o.cash_usd).toBeCloseTo(o.nav_usd, 6);
  }, 120_000);

  it("a short whose price fell: covering realizes its gain, and a tax penalty covers less than none", async () => {
    // Shorted at close + 5: covering at the close realizes 5 a share, short-term.
    await configure({ tax_gamma: "0" });
    const acct = await accountWithShorts("short-gain", "50000", [
      { id: "g1", quantity: 100, price: close + 5 },
    ]);
    const free = accountOptimizationSchema.parse(await optimizeAccount(ctx, org, acct));
    expect(covers(free)).toEqual([["g1", 100]]);
    expect(free.short_lots_to_cover[0]!.gain_usd).toBeCloseTo(500, 6);
    expect(free.short_lots_to_cover[0]!.term).toBe("short_term");
    expect(free.realized_short_term_usd).toBeCloseTo(500, 6);
    await configure({ tax_gamma: "50" });
    const taxed = accountOptimizationSchema.parse(await optimizeAccount(ctx, org, acct));
    expect(covered(taxed)).toBeLessThan(100);
    expect(taxed.realized_short_term_usd).toBeCloseTo(covered(taxed) * 5, 6);
  }, 120_000);

  it("a short whose price rose: covering realizes a loss, so even a large tax penalty covers it in full", async () => {
    await configure({ tax_gamma: "50" });
    const acct = await accountWithShorts("short-loss", "50000", [
      { id: "l1", quantity: 100, price: close - 5 },
    ]);
    const o = accountOptimizationSchema.parse(await optimizeAccount(ctx, org, acct));
    expect(covers(o)).toEqual([["l1", 100]]);
    expect(o.short_lots_to_cover[0]!.gain_usd).toBeCloseTo(-500, 6);
    expect(o.harvested_losses_usd).toBeCloseTo(500, 6);
    expect(o.tax_cost_usd).toBeCloseTo(-500 * RATE, 6);
  }, 120_000);

  it("under a tax budget covers the lower-proceeds lot first, the proposal's short_cover names exactly those lots, and the year's short gains count", async () => {
    // Two lots: 10 shorted at close + 3 (gain 3 a share) and 10 at close + 8 (gain 8). A budget of 4 shares of
    // the first lot's tax (4 x 3 x 0.4 = 4.8) covers only from the first lot.
    const budget = 4 * 3 * RATE;
    await configure({
      tax_gamma: "1",
      tax_gamma_min: "0",
      tax_gamma_max: "100",
      tax_budget_usd: String(budget),
    });
    const acct = await accountWithShorts("short-budget", "50000", [
      { id: "p8", quantity: 10, price: close + 8 },
      { id: "p3", quantity: 10, price: close + 3 },
    ]);
    const o = accountOptimizationSchema.parse(await optimizeAccount(ctx, org, acct));
    expect(o.tax_gamma_search?.goal).toBe("tax_budget");
    const q = covered(o);
    expect(q).toBeGreaterThan(0);
    expect(Number.isInteger(q)).toBe(true);
    expect(covers(o)).toEqual([["p3", q]]);
    expect(o.tax_cost_usd).toBeCloseTo(q * 3 * RATE, 6);
    expect(o.tax_cost_usd).toBeLessThanOrEqual(budget + 1e-6);

    // The stored proposal covers exactly those shares of that lot.
    const rb = await rebalanceAccount(ctx, org, acct);
    const p = proposalResponseSchema.parse(rb.proposal);
    const cover = p.orders.find((x) => x.ticker === S)!;
    expect(cover.order_category).toBe("short_cover");
    expect(Number(cover.amount)).toBe(q);
    expect(cover.tax_lots!.map((l) => [l.lot_id?.split(":").pop(), Number(l.quantity)])).toEqual([["p3", q]]);
    expect(Number(cover.tax_lots![0]!.gain)).toBeCloseTo(q * 3, 6);

    // 5 shares of the close + 8 lot covered this year (40 of short-term gain, 16 of tax): with the budget raised
    // by that tax, the optimizer has the same 4.8 left and covers the same shares.
    await recordTrades(ctx, org, demo.client_uuid, acct, {
      trades: [
        {
          execution_id: "c8",
          side: "short_cover",
          ticker: S,
          trade_date: asOf,
          quantity: "5",
          price: String(close),
          lots: [{ lot_id: `${acct}:p8`, quantity: "5" }],
        },
      ],
    });
    await configure({
      tax_gamma: "1",
      tax_gamma_min: "0",
      tax_gamma_max: "100",
      tax_budget_usd: String(budget + 40 * RATE),
    });
    const after = accountOptimizationSchema.parse(await optimizeAccount(ctx, org, acct));
    expect(after.year_to_date_realized).toMatchObject({ short_term_before_usd: "40" });
    expect(after.year_to_date_realized!.tax_budget_remaining_usd).toBeCloseTo(budget, 9);
    expect(covers(after)).toEqual([["p3", q]]);
    const account = await getAccount(ctx, org, demo.client_uuid, acct);
    expect(account.short_lots.map((l) => [l.lot_uuid.split(":").pop(), l.quantity])).toEqual([
      ["p8", "5"],
      ["p3", "10"],
    ]);
  }, 240_000);

  it("a LONG_ONLY account holding a short: the rebalance covers it in full, with a warning", async () => {
    await configure({ tax_gamma: "50" });
    const acct = await accountWithShorts("short-long-only", "50000", [
      { id: "o1", quantity: 30, price: close + 2 },
    ]);
    await updatePortfolioConfig(ctx, org, demo.portfolio_config_uuid, {
      optimization_mode: "LONG_ONLY",
      min_weight: "0",
    } as never);
    const rb = await rebalanceAccount(ctx, org, acct);
    const o = rb.optimization!;
    // Covered although the cover realizes a gain (30 x 2) and tax_gamma is large: weights >= 0 in LONG_ONLY.
    expect(covers(o)).toEqual([["o1", 30]]);
    expect(o.short_lots_to_cover[0]!.gain_usd).toBeCloseTo(60, 6);
    expect(o.warnings.join(" ")).toContain(
      "the account is LONG_ONLY: the rebalance covers the short in full",
    );
    const cover = proposalResponseSchema.parse(rb.proposal).orders.find((x) => x.ticker === S)!;
    expect([cover.order_category, Number(cover.amount)]).toEqual(["short_cover", 30]);
  }, 120_000);
});
