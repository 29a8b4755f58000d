import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { accountSchema } from "../contract/index.js";
import { applyExecutions, type Execution } from "../core/ledger/index.js";
import { TaxDecimal } from "../core/tax/index.js";
import { openSqliteStore, type SqliteStore } from "../store/index.js";
import {
  executionInput,
  ledgerLotInput,
  realizedInput,
  shortLotFromRecord,
  shortLotInput,
  taxLotFromRecord,
} from "../store/ledger-mapper.js";
import { buildDemo, type DemoResult } from "./demo.js";
import { getAccount, type ServiceContext, updatePortfolioConfig } from "./index.js";
import { createProposal } from "./proposals.js";

/** Applies executions to the account through the core ledger and the store, as a traded proposal would be. */
async function trade(store: SqliteStore, accountUuid: string, executions: Execution[]) {
  const acct = (await store.accounts.listByOrganization((await store.organizations.list())[0]!.uuid)).find(
    (a) => a.uuid === accountUuid,
  )!;
  const book = {
    accountId: accountUuid,
    cashUsd: new TaxDecimal(acct.cashValueUsd),
    lots: (await store.accounts.lots(accountUuid)).map(taxLotFromRecord),
    shortLots: (await store.ledger.shortLots(accountUuid)).map(shortLotFromRecord),
  };
  const r = applyExecutions(book, executions);
  await store.ledger.applyBatch(accountUuid, {
    executions: executions.map((e) => executionInput(e, { source: "api" })),
    realized: r.entries.map((e) => realizedInput(e)),
    lotsAfter: r.book.lots.map(ledgerLotInput),
    shortLotsAfter: (r.book.shortLots ?? []).map(shortLotInput),
    cashDelta: r.book.cashUsd.minus(book.cashUsd).toFixed(),
  });
  return r;
}

describe("short lots in the account read shape and in proposals", () => {
  let store: SqliteStore;
  let ctx: ServiceContext;
  let demo: DemoResult;

  beforeAll(async () => {
    store = openSqliteStore(":memory:");
    ctx = { store, clock: () => new Date("2026-01-15T15:00:00Z") };
    demo = await buildDemo(ctx);
    await updatePortfolioConfig(ctx, demo.organization_uuid, demo.portfolio_config_uuid, {
      optimization_mode: "LONG_SHORT",
      long_weight_sum: "1.3",
      short_weight_sum: "-0.3",
    });
  });
  afterAll(() => store.close());

  it("opens a short with short_order, shows it on the account, and covers it with short_cover at its gain", async () => {
    const org = demo.organization_uuid;
    const asOf = (await store.market.latestPriceDate())!;
    const holdings = (await getAccount(ctx, org, demo.client_uuid, demo.account_uuid)).positions;
    // An asset the account does not hold long (an asset is held long or short, never both).
    const S = ["LNR:XNYS", "HLH:XNYS", "CAL:XNYS"].find(
      (id) => !holdings.some((p) => p.theme_asset_id === id),
    )!;
    const price = (await store.market.latestPrices([S], asOf)).get(S)!.close;
    const keep = holdings;
    const w = (1 / keep.length).toFixed(4);
    const longs = keep.map((p) => ({ ticker: p.theme_asset_id, weight: String(Number(w) * 0.9) }));

    // 1. A target of -5% S (not held long) opens a short.
    const open = await createProposal(ctx, org, demo.client_uuid, demo.account_uuid, {
      optimized_weights: [...longs, { ticker: S, weight: "-0.05" }],
    });
    const shortOrder = open.orders.find((o) => o.ticker === S)!;
    expect(shortOrder.order_category).toBe("short_order");
    const owed = -Number(shortOrder.amount);
    expect(owed).toBeGreaterThan(0);
    await trade(store, demo.account_uuid, [
      {
        id: `${demo.account_uuid}:short-1`,
        kind: "short_order",
        themeAssetId: S,
        tradeDate: asOf,
        quantity: String(owed),
        price: String(price),
      },
    ]);

    // 2. The account read shape lists it: side, shares owed, proceeds as basis.
    const account = accountSchema.parse(await getAccount(ctx, org, demo.client_uuid, demo.account_uuid));
    expect(account.short_lots).toEqual([
      {
        lot_uuid: `${demo.account_uuid}:short-1`,
        side: "short",
        theme_asset_id: S,
        quantity: String(owed),
        proceeds: new TaxDecimal(owed).times(price).toFixed(),
        proceeds_usd: new TaxDecimal(owed).times(price).toFixed(),
        currency: "USD",
        fx_rate: "1",
        open_date: asOf,
      },
    ]);

    // 3. A target without S brings the short back to zero: short_cover of every share owed, naming the lot.
    const close = await createProposal(ctx, org, demo.client_uuid, demo.account_uuid, {
      optimized_weights: longs,
    });
    const cover = close.orders.find((o) => o.ticker === S)!;
    expect(cover.order_category).toBe("short_cover");
    expect(Number(cover.amount)).toBe(owed);
    expect(cover.tax_lots).toHaveLength(1);
    // Covered at the price it was shorted at: no gain.
    expect(Number(cover.tax_lots![0]!.gain)).toBeCloseTo(0, 6);

    // 4. Covering at 5 below the short price realizes 5 a share, short-term.
    const covered = await trade(store, demo.account_uuid, [
      {
        id: `${demo.account_uuid}:cover-1`,
        kind: "short_cover",
        themeAssetId: S,
        tradeDate: asOf,
        quantity: String(owed),
        price: String(price - 5),
        lots: [{ lotId: `${demo.account_uuid}:short-1` }],
      },
    ]);
    expect(covered.rows.map((r) => [r.term, Number(r.gain.toFixed(6))])).toEqual([["short_term", owed * 5]]);
    expect(
      accountSchema.parse(await getAccount(ctx, org, demo.client_uuid, demo.account_uuid)).short_lots,
    ).toEqual([]);
  });
});
