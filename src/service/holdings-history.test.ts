import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { holdingsAsOfSchema } from "../contract/index.js";
import { applyExecutions, type Execution } from "../core/ledger/index.js";
import { TaxDecimal } from "../core/tax/index.js";
import { openSqliteStore, type SqliteStore } from "../store/index.js";
import { executionInput, ledgerLotInput, realizedInput, taxLotFromRecord } from "../store/ledger-mapper.js";
import { holdingsAt } from "./backtest-run.js";
import { applyStoredCorporateActions, importCorporateActions } from "./corporate-actions.js";
import { buildDemo, type DemoResult } from "./demo.js";
import { accountHoldingsAsOf, ledgerHoldingsAsOf } from "./holdings-history.js";
import { importLots, type ServiceContext } from "./index.js";
import { rebalanceAccount } from "./optimize.js";
import { createProposal } from "./proposals.js";

describe("holdings as of a past date (service)", () => {
  let store: SqliteStore;
  let ctx: ServiceContext;
  let demo: DemoResult;
  const AS_OF = "2025-08-29";
  const account = async () =>
    (await store.accounts.getInOrganization(demo.organization_uuid, demo.account_uuid))!;

  beforeAll(async () => {
    store = openSqliteStore(":memory:");
    ctx = { store, clock: () => new Date("2026-01-15T15:00:00Z") };
    demo = await buildDemo(ctx);
    // LNR:XNYS splits 2:1 on 2025-09-09 in the demo market: today's 100 shares were 50 on the as-of date.
    // DEL bought 2025-10-01 was not held on the as-of date.
    const csv = "Symbol,Quantity,Cost Basis,Open Date\nLNR,100,5000,2024-06-03\nDEL,10,700,2025-10-01\n";
    await importLots(ctx, demo.organization_uuid, demo.account_uuid, csv, { mode: "append" });
  });
  afterAll(() => store.close());

  it("a 2:1 market split after the date gives half the shares, and a lot bought after the date is left out", async () => {
    const h = await ledgerHoldingsAsOf(ctx, await account(), AS_OF);
    const lnr = h.lots.filter((l) => l.themeAssetId === "LNR:XNYS");
    expect(lnr.map((l) => [l.quantity.toFixed(), l.totalCostBasis.toFixed()])).toEqual([["50", "5000"]]);
    expect(h.lots.some((l) => l.tradeDate > AS_OF)).toBe(false);
    expect(h.undone.marketSplits).toContain("LNR:XNYS:2025-09-09");
    const del = (await store.accounts.lots(demo.account_uuid)).find(
      (l) => l.themeAssetId === "DEL:XNYS" && l.tradeDate === "2025-10-01",
    )!;
    expect(h.undone.lotsDropped).toContain(del.uuid);
    expect(h.cashUsd.toFixed()).toBe("25000");
    const read = holdingsAsOfSchema.parse(
      await accountHoldingsAsOf(ctx, demo.organization_uuid, demo.account_uuid, AS_OF),
    );
    expect(read.tax_lots.find((l) => l.theme_asset_id === "LNR:XNYS")?.quantity).toBe("50");
  });

  it("rebalance --as-of sells at most the 50 shares held then, at the as-of close, and does not fail on the later lot", async () => {
    const rb = await rebalanceAccount(ctx, demo.organization_uuid, demo.account_uuid, { asOf: AS_OF });
    expect(rb.optimization?.as_of_date).toBe(AS_OF);
    expect(rb.proposal).not.toBeNull();
    const p = rb.proposal!;
    // The proposal's NAV is the optimizer's: both value the positions held on the date at its closes (before, the
    // proposal valued today's 100 shares and the later DEL lot, and the later lot made it fail).
    expect(Number(p.nav_usd)).toBeCloseTo(Number(rb.optimization!.nav_usd), 2);
    // A proposal that drops LNR from the target sells exactly the 50 shares held then.
    const sellAll = await createProposal(
      ctx,
      demo.organization_uuid,
      demo.client_uuid,
      demo.account_uuid,
      { optimized_weights: [{ ticker: "DEL:XNYS", weight: "0.5" }] },
      { asOf: AS_OF, holdingsAsOf: true },
    );
    const lnr = sellAll.orders.find((o) => o.ticker === "LNR:XNYS")!;
    expect([lnr.amount, lnr.existing_quantity]).toEqual(["-50", "50"]);
    expect(lnr.tax_lots?.map((l) => l.quantity)).toEqual(["50"]);
    // The post-trade NAV is built on the positions of the date: it equals the optimizer's NAV of that date.
    const held = await holdingsAt(ctx, await account(), AS_OF);
    const lnrHeld = held.lots
      .filter((l) => l.themeAssetId === "LNR:XNYS")
      .reduce((s, l) => s + l.quantity.toNumber(), 0);
    expect(lnrHeld).toBe(50);
  });

  it("undoes a split applied through the ledger once (not again with the market's split), and a later sale", async () => {
    // The ledger applies a 2:1 LNR split as an action (the lot becomes 200): going back before it, history divides
    // once by the action, and not again by the market's split of the same listing and date.
    const actions = "id,kind,listing,ex_date,ratio\nLNR-SPLIT-2025,split,LNR,2025-09-09,2:1\n";
    await importCorporateActions(ctx, actions);
    await applyStoredCorporateActions(ctx, demo.organization_uuid, {
      account_uuid: demo.account_uuid,
      through: "2025-12-31",
    });
    const lotsNow = await store.accounts.lots(demo.account_uuid);
    const lnrNow = lotsNow.find((l) => l.themeAssetId === "LNR:XNYS")!;
    expect(lnrNow.quantity).toBe("200");

    // Sell 30 of the 200 on 2025-11-03 at 40 through the ledger.
    const acct = await account();
    const book = {
      accountId: acct.uuid,
      cashUsd: new TaxDecimal(acct.cashValueUsd),
      lots: lotsNow.map(taxLotFromRecord),
    };
    const sell: Execution = {
      id: `${acct.uuid}:S1`,
      kind: "sell",
      themeAssetId: "LNR:XNYS",
      tradeDate: "2025-11-03",
      quantity: "30",
      price: "40",
      fees: "1",
      lots: [{ lotId: lnrNow.uuid, quantity: "30" }],
    };
    const r = applyExecutions(book, [sell]);
    await store.ledger.applyBatch(acct.uuid, {
      executions: [executionInput(sell, { source: "api" })],
      realized: r.entries.map((e) => realizedInput(e)),
      lotsAfter: r.book.lots.map(ledgerLotInput),
      shortLotsAfter: [],
      cashDelta: r.book.cashUsd.minus(book.cashUsd).toFixed(),
    });
    expect((await store.accounts.lots(acct.uuid)).find((l) => l.uuid === lnrNow.uuid)!.quantity).toBe("170");
    expect((await account()).cashValueUsd).toBe("26199");

    // On 2025-10-15: the sale is undone (200 shares, cash back to 25,000); on the as-of date: 100 shares.
    const mid = await ledgerHoldingsAsOf(ctx, await account(), "2025-10-15");
    expect(mid.lots.find((l) => l.id === lnrNow.uuid)?.quantity.toFixed()).toBe("200");
    expect(mid.lots.find((l) => l.id === lnrNow.uuid)?.totalCostBasis.toFixed()).toBe("5000");
    expect(mid.cashUsd.toFixed()).toBe("25000");
    expect(mid.undone.executions).toEqual([`${acct.uuid}:S1`]);
    const before = await ledgerHoldingsAsOf(ctx, await account(), AS_OF);
    expect(before.lots.find((l) => l.id === lnrNow.uuid)?.quantity.toFixed()).toBe("100");
    expect(before.undone.corporateActions).toEqual(["LNR-SPLIT-2025"]);
    expect(before.undone.marketSplits).not.toContain("LNR:XNYS:2025-09-09");
  });
});
