import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeHandMarket } from "../../test/helpers/hand-market.js";
import { main } from "../cli/main.js";
import { memoryOutput } from "../cli/output.js";
import { ConflictError, ValidationError } from "../core/errors.js";
import {
  applyExecutions,
  type Execution,
  executionsFromProposal,
  type LedgerBook,
} from "../core/ledger/index.js";
import { createRandom } from "../core/random.js";
import { createLot, TaxDecimal, type TaxLot } from "../core/tax/index.js";
import { createApp, serve } from "../server/index.js";
import {
  DecimalTexts,
  entryFromRecord,
  openSqliteStore,
  realizedInput,
  type SqliteStore,
  shortLotFromRecord,
  taxLotFromRecord,
} from "../store/index.js";
import {
  createAccount,
  createClient,
  createOrganization,
  createPortfolioConfig,
  createProposal,
  type ServiceContext,
} from "./index.js";
import {
  accountRealized,
  clientRealized,
  executeProposal,
  listExecutions,
  recordTrades,
  rowToWire,
} from "./ledger.js";
import { importTrades } from "./ledger-trades-csv.js";

const dir = mkdtempSync(join(tmpdir(), "lotwise-ledger-"));
const file = join(dir, "ledger.db");
let store: SqliteStore;
let ctx: ServiceContext;
let org: string;
let key: string;

beforeAll(async () => {
  store = openSqliteStore(file);
  writeHandMarket(store.engine);
  ctx = { store, clock: () => new Date("2025-07-01T12:00:00Z") };
  const made = await createOrganization(ctx, "Ledger test");
  org = made.organization.uuid;
  key = made.apiKey.key;
});
afterAll(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

async function newClient(): Promise<string> {
  return (await createClient(ctx, org, {})).uuid;
}

async function newAccount(
  client: string,
  lots: { theme_asset_id: string; quantity: string; cost_basis: string; trade_date: string }[],
  cash = "10000",
): Promise<string> {
  return (await createAccount(ctx, org, client, { cash_value_usd: cash, holdings: { tax_lots: lots } })).uuid;
}

/** The account's ledger book as stored (what the core is given). */
async function bookOf(account: string): Promise<LedgerBook> {
  const a = await store.accounts.getInOrganization(org, account);
  return {
    accountId: account,
    cashUsd: new TaxDecimal(a!.cashValueUsd),
    lots: (await store.accounts.lots(account)).map(taxLotFromRecord),
    shortLots: (await store.ledger.shortLots(account)).map(shortLotFromRecord),
    realized: (
      await store.ledger.realized({ accountUuid: account }, { from: "0000-01-01", to: "9999-12-31" })
    ).map(entryFromRecord),
  };
}

/** Lots as comparable plain values (id, asset, quantity, basis, dates). */
const plainLots = (lots: LedgerBook["lots"]) =>
  lots
    .map((l) => [
      l.id,
      l.themeAssetId,
      l.quantity.toFixed(),
      l.totalCostBasis.toFixed(),
      l.tradeDate,
      l.holdingPeriodStart,
      l.washSaleDate,
    ])
    .sort((a, b) => String(a[0]).localeCompare(String(b[0])));

/** Every read of an account's ledger and of its client's, for before/after comparisons. */
async function snapshot(accounts: string[]) {
  const out: unknown[] = [];
  for (const a of accounts)
    out.push({
      account: await store.accounts.getInOrganization(org, a),
      lots: await store.accounts.lots(a),
      shorts: await store.ledger.shortLots(a),
      executions: await store.ledger.executions(a),
      realized: await store.ledger.realized({ accountUuid: a }, { from: "0000-01-01", to: "9999-12-31" }),
    });
  return JSON.stringify(out);
}

const caught = async (p: Promise<unknown>): Promise<Error> => {
  try {
    await p;
  } catch (err) {
    return err as Error;
  }
  throw new Error("expected a failure");
};

describe("a stored proposal applied as executed", () => {
  it("executes every order at the proposal's prices and ends with the lots the core gives for the same orders", async () => {
    const client = await newClient();
    const account = await newAccount(client, [
      { theme_asset_id: "AAA:XNYS", quantity: "40", cost_basis: "90", trade_date: "2024-01-02" },
      { theme_asset_id: "AAA:XNYS", quantity: "10", cost_basis: "120", trade_date: "2025-01-02" },
      { theme_asset_id: "BBB:XNYS", quantity: "60", cost_basis: "55", trade_date: "2025-01-02" },
    ]);
    // NAV 2025-06-30: AAA 50 x 110 = 5,500; BBB 60 x 40 = 2,400; cash 10,000 = 17,900.
    const p = await createProposal(ctx, org, client, account, {
      optimized_weights: [
        { ticker: "AAA:XNYS", weight: "0.1" },
        { ticker: "CCC:XNYS", weight: "0.5" },
        { ticker: "BBB:XNYS", weight: "0.2" },
      ],
    } as never);
    expect(p.orders.length).toBeGreaterThanOrEqual(2);
    const sell = p.orders.find((o) => o.ticker === "AAA:XNYS")!;
    expect(sell.tax_lots!.every((l) => typeof l.lot_id === "string")).toBe(true);
    const before = await bookOf(account);
    const r = await executeProposal(ctx, org, client, account, p.proposal_uuid);
    expect(r.execution_ids).toEqual(p.orders.map((_, i) => `${p.proposal_uuid}:${i}:1`));

    // The same orders through the core directly.
    const closes: Record<string, string> = { "AAA:XNYS": "110", "BBB:XNYS": "40", "CCC:XNYS": "25" };
    const orders = p.orders.map((o) => ({
      themeAssetId: o.ticker,
      side: (o.amount.startsWith("-") ? "sell" : "buy") as "sell" | "buy",
      category: "long" as const,
      // A notional order's amount is USD: whole millionths of a share at the proposal's close, rounded down.
      quantity:
        o.type === "notional"
          ? new TaxDecimal(o.amount).abs().div(closes[o.ticker]!).toDecimalPlaces(6, TaxDecimal.ROUND_DOWN)
          : o.amount.replace(/^-/, ""),
      taxLots: o.tax_lots?.map((l) => ({ lotId: l.lot_id!, quantity: l.quantity })) ?? null,
    }));
    const executions = executionsFromProposal({
      proposalId: p.proposal_uuid,
      orders,
      tradeDate: "2025-06-30",
      prices: closes,
    });
    const direct = applyExecutions(before, executions);
    const after = await bookOf(account);
    expect(plainLots(after.lots)).toEqual(plainLots(direct.book.lots));
    expect(after.cashUsd.toFixed()).toBe(direct.book.cashUsd.toFixed());
    expect(r.cash_value_usd).toBe(direct.book.cashUsd.toFixed());
    // Sells relieved exactly the lots the proposal named.
    const realizedLots = after.realized!.map((e) => e.record.lotId).sort();
    expect(realizedLots).toEqual(sell.tax_lots!.map((l) => l.lot_id!).sort());
    expect((await listExecutions(ctx, org, client, account)).executions.map((e) => e.order_index)).toEqual(
      p.orders.map((_, i) => i),
    );

    // Applying it again is refused (409) and changes nothing.
    const snap = await snapshot([account]);
    const again = await caught(executeProposal(ctx, org, client, account, p.proposal_uuid));
    expect(again).toBeInstanceOf(ConflictError);
    expect((again as ConflictError).code).toBe("execution_already_applied");
    // In the proposal's terms, not its internal execution ids.
    expect(again.message).toBe(
      `Proposal ${p.proposal_uuid} was already executed in full in account ${account} (${p.orders.length} fills); nothing was applied. Its executions are listed by \`lotwise trades list\` (GET .../executions/).`,
    );
    expect(again.message).not.toContain(`${p.proposal_uuid}:`);
    expect(await snapshot([account])).toBe(snap);
  });

  it("applies partial fills relieving the proposal's lots in order, and refuses bad fills naming index and field", async () => {
    const client = await newClient();
    const account = await newAccount(
      client,
      [
        { theme_asset_id: "AAA:XNYS", quantity: "20", cost_basis: "90", trade_date: "2024-01-02" },
        { theme_asset_id: "AAA:XNYS", quantity: "20", cost_basis: "95", trade_date: "2024-02-02" },
      ],
      "0",
    );
    const p = await createProposal(ctx, org, client, account, {
      optimized_weights: [{ ticker: "AAA:XNYS", weight: "0.25" }],
    } as never);
    const i = p.orders.findIndex((o) => o.ticker === "AAA:XNYS");
    const order = p.orders[i]!;
    expect(order.amount).toBe("-30");
    const snap = await snapshot([account]);
    const bad = await caught(
      executeProposal(ctx, org, client, account, p.proposal_uuid, {
        fills: [
          { order: 7, quantity: "1", price: "100" },
          { order: i, quantity: "31", price: "100" },
          { order: i, quantity: "1", price: "0" },
        ],
      }),
    );
    expect(bad).toBeInstanceOf(ValidationError);
    expect((bad as ValidationError).issues.map((x) => x.path)).toEqual([
      "fills[0].order",
      "fills[1].quantity",
      "fills[2].price",
    ]);
    expect(await snapshot([account])).toBe(snap);

    const r = await executeProposal(ctx, org, client, account, p.proposal_uuid, {
      fills: [
        { order: i, quantity: "15", price: "111", fees: "1" },
        { order: i, quantity: "10", price: "109" },
      ],
    });
    // 25 of 30 shares: lots in the proposal's order; 5 left of its second lot.
    expect(r.realized.map((x) => [x.lot_id, x.quantity])).toEqual([
      [order.tax_lots![0]!.lot_id, "15"],
      [order.tax_lots![0]!.lot_id, "5"],
      [order.tax_lots![1]!.lot_id, "5"],
    ]);
    // proceeds 15 x 111 - 1 + 10 x 109 = 2,754.
    expect(r.cash_delta_usd).toBe("2754");

    // The rest of the order, another day: the same fills again (no ids) are refused, pointing to fill_id.
    const twice = await caught(
      executeProposal(ctx, org, client, account, p.proposal_uuid, {
        fills: [{ order: i, quantity: "5", price: "108" }],
      }),
    );
    expect([twice.constructor, (twice as ConflictError).code]).toEqual([
      ConflictError,
      "execution_already_applied",
    ]);
    expect(twice.message).toContain("give each a fill_id");
    // With the broker's fill ids: at most the 5 shares left, from the lot after the ones already relieved.
    const over = await caught(
      executeProposal(ctx, org, client, account, p.proposal_uuid, {
        fills: [{ order: i, quantity: "6", price: "108", fill_id: "B-77" }],
      }),
    );
    expect((over as ValidationError).issues.map((x) => [x.path, x.message])).toEqual([
      ["fills[0].quantity", "6 shares is above the 5 left of order 0 (AAA:XNYS)"],
    ]);
    const rest = await executeProposal(ctx, org, client, account, p.proposal_uuid, {
      trade_date: "2025-07-01",
      fills: [{ order: i, quantity: "5", price: "108", fill_id: "B-77" }],
    });
    expect(rest.execution_ids).toEqual([`${p.proposal_uuid}:${i}:B-77`]);
    expect(rest.realized.map((x) => [x.lot_id, x.quantity])).toEqual([[order.tax_lots![1]!.lot_id, "5"]]);
    expect((await bookOf(account)).lots.map((l) => l.quantity.toString())).toEqual(["10"]);
    // The same broker fill again (nothing is left of the order), or the whole proposal: refused, nothing changes.
    const done = await snapshot([account]);
    const again = await caught(
      executeProposal(ctx, org, client, account, p.proposal_uuid, {
        fills: [{ order: i, quantity: "5", price: "108", fill_id: "B-77" }],
      }),
    );
    expect((again as ValidationError).issues.map((x) => x.message)).toEqual([
      "5 shares is above the 0 left of order 0 (AAA:XNYS)",
    ]);
    const all = await caught(executeProposal(ctx, org, client, account, p.proposal_uuid));
    expect([all.constructor, (all as ConflictError).code]).toEqual([
      ConflictError,
      "execution_already_applied",
    ]);
    expect(await snapshot([account])).toBe(done);
  });

  it("applies the rest of a partly filled proposal at its prices when no fills are given", async () => {
    const client = await newClient();
    const account = await newAccount(
      client,
      [{ theme_asset_id: "AAA:XNYS", quantity: "40", cost_basis: "90", trade_date: "2024-01-02" }],
      "0",
    );
    const p = await createProposal(ctx, org, client, account, {
      optimized_weights: [{ ticker: "AAA:XNYS", weight: "0.25" }],
    } as never);
    const i = p.orders.findIndex((o) => o.ticker === "AAA:XNYS");
    expect(p.orders[i]!.amount).toBe("-30");
    await executeProposal(ctx, org, client, account, p.proposal_uuid, {
      fills: [{ order: i, quantity: "12", price: "111" }],
    });
    const rest = await executeProposal(ctx, org, client, account, p.proposal_uuid);
    // 18 shares left, at the proposal's close (110): the fill after the first is number 2.
    expect(rest.execution_ids).toEqual([`${p.proposal_uuid}:${i}:2`]);
    expect(rest.realized.map((x) => x.quantity)).toEqual(["18"]);
    expect(rest.cash_delta_usd).toBe("1980");
    expect((await bookOf(account)).lots.map((l) => l.quantity.toString())).toEqual(["10"]);
  });
});

describe("a month of trading", () => {
  it("two executed proposals and a trade file in between end with the book the core gives for the same executions", async () => {
    const client = await newClient();
    const account = await newAccount(client, [
      { theme_asset_id: "AAA:XNYS", quantity: "60", cost_basis: "105", trade_date: "2025-05-01" },
      { theme_asset_id: "BBB:XNYS", quantity: "50", cost_basis: "30", trade_date: "2023-03-01" },
    ]);
    let direct: LedgerBook = await bookOf(account);
    const step = (executions: Execution[]) => {
      direct = applyExecutions(direct, executions, { lotMethod: "TAX_OPTIMAL" }).book;
    };
    const coreOrders = (p: Awaited<ReturnType<typeof createProposal>>, closes: Record<string, string>) =>
      p.orders.map((o) => ({
        themeAssetId: o.ticker,
        side: (o.amount.startsWith("-") ? "sell" : "buy") as "sell" | "buy",
        category: "long" as const,
        quantity:
          o.type === "notional"
            ? new TaxDecimal(o.amount).abs().div(closes[o.ticker]!).toDecimalPlaces(6, TaxDecimal.ROUND_DOWN)
            : o.amount.replace(/^-/, ""),
        taxLots: o.tax_lots?.map((l) => ({ lotId: l.lot_id!, quantity: l.quantity })) ?? null,
      }));

    // 2025-06-02: rebalance toward CCC (AAA 100, BBB 50, CCC 20).
    const june2 = { "AAA:XNYS": "100", "BBB:XNYS": "50", "CCC:XNYS": "20" };
    const p1 = await createProposal(
      ctx,
      org,
      client,
      account,
      {
        optimized_weights: [
          { ticker: "AAA:XNYS", weight: "0.3" },
          { ticker: "CCC:XNYS", weight: "0.4" },
        ],
      } as never,
      { asOf: "2025-06-02" },
    );
    await executeProposal(ctx, org, client, account, p1.proposal_uuid);
    step(
      executionsFromProposal({
        proposalId: p1.proposal_uuid,
        orders: coreOrders(p1, june2),
        tradeDate: "2025-06-02",
        prices: june2,
      }),
    );

    // Trades in between from the broker's file (a loss sale of AAA re-bought within the window: a wash sale).
    const csv = [
      "Trade ID,Action,Symbol,Trade Date,Quantity,Price,Commission",
      "m1,SELL,AAA,2025-06-10,10,92,1",
      "m2,BUY,BBB,2025-06-12,8,45,0",
      "m3,BUY,AAA,2025-06-20,4,97,0.5",
    ].join("\n");
    await importTrades(ctx, org, account, csv, { file_name: "mid-june.csv" });
    step(
      (
        [
          ["m1", "sell", "AAA:XNYS", "2025-06-10", "10", "92", "1"],
          ["m2", "buy", "BBB:XNYS", "2025-06-12", "8", "45", "0"],
          ["m3", "buy", "AAA:XNYS", "2025-06-20", "4", "97", "0.5"],
        ] as const
      ).map(([id, kind, asset, date, q, p, f]) => ({
        id,
        kind,
        themeAssetId: asset,
        tradeDate: date,
        quantity: q,
        price: p,
        fees: f,
        currency: "USD" as const,
        ...(kind === "buy" ? { lotId: `${account}:${id}` } : {}),
      })),
    );

    // 2025-06-30: back toward AAA (AAA 110, BBB 40, CCC 25).
    const june30 = { "AAA:XNYS": "110", "BBB:XNYS": "40", "CCC:XNYS": "25" };
    const p2 = await createProposal(
      ctx,
      org,
      client,
      account,
      {
        optimized_weights: [
          { ticker: "AAA:XNYS", weight: "0.6" },
          { ticker: "CCC:XNYS", weight: "0.2" },
        ],
      } as never,
      { asOf: "2025-06-30" },
    );
    await executeProposal(ctx, org, client, account, p2.proposal_uuid);
    step(
      executionsFromProposal({
        proposalId: p2.proposal_uuid,
        orders: coreOrders(p2, june30),
        tradeDate: "2025-06-30",
        prices: june30,
      }),
    );

    const after = await bookOf(account);
    expect(plainLots(after.lots)).toEqual(plainLots(direct.lots));
    expect(after.cashUsd.toFixed()).toBe(direct.cashUsd.toFixed());
    const realized = (await accountRealized(ctx, org, client, account, { year: 2025 })).rows;
    const directRows = (direct.realized ?? [])
      .map((e) => [e.id, e.record.recognizedGainUsd.toFixed()])
      .sort();
    expect(realized.map((r) => [r.entry_id, r.gain]).sort()).toEqual(directRows);
    expect(realized.some((r) => r.adjustment_code === "W")).toBe(true);
    expect((await listExecutions(ctx, org, client, account)).executions.map((e) => e.source)).toEqual([
      ...p1.orders.map(() => "proposal"),
      "trade_file",
      "trade_file",
      "trade_file",
      ...p2.orders.map(() => "proposal"),
    ]);
  });
});

describe("trades", () => {
  const CSV = [
    "Trade ID,Action,Symbol,Trade Date,Quantity,Price,Commission",
    "t1,BUY,AAA,06/02/2025,10,100,1",
    "t2,Buy,BBB,2025-06-03,20,50,0",
    "t3,SELL,AAA,2025-06-10,15,95,1",
    "t4,Bought,AAA,2025-06-12,5,96,0",
    "t5,Sold,BBB,2025-06-20,20,52,0.5",
    "t6,BUY,CCC,2025-06-27,100,20,0",
  ].join("\n");

  it("a month of trades from a trade CSV ends with the lots, realized rows and cash of the core given the same trades", async () => {
    const client = await newClient();
    const account = await newAccount(client, [
      { theme_asset_id: "AAA:XNYS", quantity: "10", cost_basis: "120", trade_date: "2025-01-02" },
    ]);
    const before = await bookOf(account);
    const r = await importTrades(ctx, org, account, CSV, { file_name: "june.csv" });
    expect(r.execution_ids).toEqual(["t1", "t2", "t3", "t4", "t5", "t6"]);
    const rows: [string, Execution["kind"], string, string, string, string, string][] = [
      ["t1", "buy", "AAA:XNYS", "2025-06-02", "10", "100", "1"],
      ["t2", "buy", "BBB:XNYS", "2025-06-03", "20", "50", "0"],
      ["t3", "sell", "AAA:XNYS", "2025-06-10", "15", "95", "1"],
      ["t4", "buy", "AAA:XNYS", "2025-06-12", "5", "96", "0"],
      ["t5", "sell", "BBB:XNYS", "2025-06-20", "20", "52", "0.5"],
      ["t6", "buy", "CCC:XNYS", "2025-06-27", "100", "20", "0"],
    ];
    const executions: Execution[] = rows.map(([id, kind, asset, date, q, p, f]) => ({
      id,
      kind,
      themeAssetId: asset,
      tradeDate: date,
      quantity: q,
      price: p,
      fees: f,
      currency: "USD",
      ...(kind === "buy" ? { lotId: `${account}:${id}` } : {}),
    }));
    const direct = applyExecutions(before, executions, { lotMethod: "TAX_OPTIMAL" });
    const after = await bookOf(account);
    expect(plainLots(after.lots)).toEqual(plainLots(direct.book.lots));
    expect(after.cashUsd.toFixed()).toBe(direct.book.cashUsd.toFixed());
    const stored = await accountRealized(ctx, org, client, account, { year: 2025 });
    expect(stored.rows.map((x) => [x.lot_id, x.quantity, x.gain, x.adjustment_code])).toEqual(
      direct.rows.map((x) => [x.lotId, x.quantity.toFixed(), x.gain.toFixed(), x.adjustmentCode]),
    );
    // The loss sale of t3 (AAA bought at 100.1 and 120, sold at 95) is washed by t4's purchase 2 days later.
    expect(stored.rows.some((x) => x.adjustment_code === "W")).toBe(true);

    // The same file again: refused whole.
    const snap = await snapshot([account]);
    const again = await caught(importTrades(ctx, org, account, CSV, { file_name: "june.csv" }));
    expect((again as ConflictError).code).toBe("execution_already_applied");
    expect(await snapshot([account])).toBe(snap);
  });

  it("refuses a file with bad rows naming line and column, and applies nothing", async () => {
    const client = await newClient();
    const account = await newAccount(client, []);
    const snap = await snapshot([account]);
    const err = await caught(
      importTrades(
        ctx,
        org,
        account,
        ["id,side,symbol,date,qty,price", "x1,buy,AAA,2025-06-02,10,100", "x2,hold,AAA,2025-13-40,-,0"].join(
          "\n",
        ),
        { file_name: "bad.csv" },
      ),
    );
    expect((err as ValidationError).code).toBe("invalid_trades_file");
    expect((err as ValidationError).issues.map((i) => i.path)).toEqual([
      'bad.csv: line 3, column "side"',
      'bad.csv: line 3, column "date"',
      'bad.csv: line 3, column "qty"',
      'bad.csv: line 3, column "price"',
    ]);
    // An oversell in an otherwise good file: the ledger refuses the whole file, naming the row.
    const over = await caught(
      importTrades(
        ctx,
        org,
        account,
        [
          "id,side,symbol,date,qty,price",
          "y1,buy,AAA,2025-06-02,10,100",
          "y2,sell,AAA,2025-06-03,11,100",
        ].join("\n"),
        { file_name: "over.csv" },
      ),
    );
    expect((over as ValidationError).code).toBe("invalid_trades_file");
    expect((over as ValidationError).issues[0]!.path).toMatch(/^over\.csv: line 3/);
    expect(await snapshot([account])).toBe(snap);
  });

  it("names the file's own header when the ledger refuses a row, as a parse error does", async () => {
    const client = await newClient();
    const account = await newAccount(client, []);
    const snap = await snapshot([account]);
    const over = await caught(
      importTrades(
        ctx,
        org,
        account,
        [
          "Trade ID,Action,Symbol,Trade Date,Qty,Price",
          "y1,buy,AAA,2025-06-02,10,100",
          "y2,sell,AAA,2025-06-03,11,100",
          "y3,sell,ZZZZ,2025-06-03,1,100",
        ].join("\n"),
        { file_name: "over.csv" },
      ),
    );
    expect((over as ValidationError).issues.map((i) => i.path)).toEqual([
      'over.csv: line 4, column "Symbol"',
    ]);
    const oversold = await caught(
      importTrades(
        ctx,
        org,
        account,
        [
          "Trade ID,Action,Symbol,Trade Date,Qty,Price",
          "y1,buy,AAA,2025-06-02,10,100",
          "y2,sell,AAA,2025-06-03,11,100",
        ].join("\n"),
        { file_name: "over.csv" },
      ),
    );
    expect((oversold as ValidationError).issues.map((i) => i.path)).toEqual([
      'over.csv: line 3, column "Qty"',
    ]);
    // Each issue names the file; the message does not repeat it in front.
    expect((oversold as ValidationError).message).toMatch(
      /^The trades cannot be applied \(nothing was applied\): over\.csv: line 3, column "Qty": /,
    );
    expect(await snapshot([account])).toBe(snap);
  });

  it("refuses a row with more values than the header (an unquoted 1,250.00), instead of shifting its columns", async () => {
    const client = await newClient();
    const account = await newAccount(client, []);
    const snap = await snapshot([account]);
    const err = await caught(
      importTrades(
        ctx,
        org,
        account,
        [
          "Trade ID,Action,Symbol,Trade Date,Quantity,Price,Commission",
          "t1,Buy,AAA,2025-06-02,10,100,1,", // a trailing empty field: accepted
          "t2,Buy,AAA,2025-06-02,100,1,250.00,1.00", // price 1,250.00 unquoted: would read price 1, fees 250
        ].join("\n"),
        { file_name: "shifted.csv" },
      ),
    );
    expect((err as ValidationError).code).toBe("invalid_trades_file");
    expect((err as ValidationError).issues).toEqual([
      {
        path: "shifted.csv: line 3",
        message:
          "has 8 fields, the header 7: its columns are shifted (a number with an unquoted thousands separator, such as 1,250.00?)",
      },
    ]);
    expect(await snapshot([account])).toBe(snap);
  });

  it("a failed API batch leaves the store unchanged", async () => {
    const client = await newClient();
    const account = await newAccount(client, [
      { theme_asset_id: "AAA:XNYS", quantity: "10", cost_basis: "100", trade_date: "2025-01-02" },
    ]);
    const lotId = (await store.accounts.lots(account))[0]!.uuid;
    const snap = await snapshot([account]);
    const err = await caught(
      recordTrades(ctx, org, client, account, {
        trades: [
          {
            execution_id: "ok",
            side: "buy",
            ticker: "BBB",
            trade_date: "2025-06-02",
            quantity: "1",
            price: "50",
          },
          {
            execution_id: "bad",
            side: "sell",
            ticker: "AAA",
            trade_date: "2025-06-03",
            quantity: "5",
            price: "90",
            lots: [{ lot_id: "nope", quantity: "5" }],
          },
          {
            execution_id: "early",
            side: "sell",
            ticker: "AAA",
            trade_date: "2024-12-31",
            quantity: "2",
            price: "90",
            lots: [{ lot_id: lotId, quantity: "2" }],
          },
          {
            execution_id: "over",
            side: "sell",
            ticker: "AAA",
            trade_date: "2025-06-04",
            quantity: "11",
            price: "90",
          },
        ],
      }),
    );
    expect(err).toBeInstanceOf(ValidationError);
    const paths = (err as ValidationError).issues.map((i) => i.path);
    expect(paths).toContain("trades[1].lots[0].lot_id"); // unknown lot
    expect(paths).toContain("trades[2].trade_date"); // sold before the lot was bought
    expect(paths.some((p) => p.startsWith("trades[3]"))).toBe(true); // oversell
    expect((err as ValidationError).message).toContain("nothing was applied");
    expect(await snapshot([account])).toBe(snap);
  });
});

describe("a short sale recorded in an account not meant for shorts", () => {
  const short = (id: string) => ({
    execution_id: id,
    side: "short_order" as const,
    ticker: "AAA:XNYS",
    trade_date: "2025-06-30",
    quantity: "3",
    price: "110",
  });

  it("is recorded as executed, with a warning naming the asset and the configuration to change", async () => {
    const client = await newClient();
    const account = await newAccount(client, [], "1000");
    const r = await recordTrades(ctx, org, client, account, { trades: [short("s1")] });
    expect(r.short_lots).toBe(1);
    expect(r.warnings).toEqual([
      `Short sale of AAA:XNYS recorded, but account ${account} has no configuration (so LONG_ONLY): short lots belong in a LONG_SHORT or LONG_BIASED account (lotwise configs update <config> --set optimization_mode=LONG_SHORT).`,
    ]);
    // A buy warns of nothing; a LONG_SHORT account's short sale neither.
    const buy = await recordTrades(ctx, org, client, account, {
      trades: [{ ...short("b1"), side: "buy", ticker: "BBB:XNYS" }],
    });
    expect(buy.warnings).toBeUndefined();
    const config = await createPortfolioConfig(ctx, org, {
      name: "Long-short",
      optimization_mode: "LONG_SHORT",
      long_weight_sum: "1.3",
      short_weight_sum: "-0.3",
    } as never);
    const ls = (
      await createAccount(ctx, org, client, {
        cash_value_usd: "1000",
        portfolio_config_uuid: config.uuid,
        holdings: { tax_lots: [] },
      })
    ).uuid;
    const ok = await recordTrades(ctx, org, client, ls, { trades: [short("s2")] });
    expect([ok.short_lots, ok.warnings]).toEqual([1, undefined]);
  });
});

describe("cash after a foreign-currency trade", () => {
  it("is given as the account read gives it, 10 decimals, while the book keeps the exact USD value", async () => {
    const client = await newClient();
    const account = await newAccount(client, [], "1000");
    // 7 DDD at 31 CAD, 1.37 CAD per USD: 217 / 1.37 = 158.394160583941605839... USD of cost.
    const r = await recordTrades(ctx, org, client, account, {
      trades: [
        {
          execution_id: "cad1",
          side: "buy",
          ticker: "DDD:XTSE",
          trade_date: "2025-06-30",
          quantity: "7",
          price: "31",
          currency: "CAD",
          fx_rate: "1.37",
        },
      ],
    });
    const exact = new TaxDecimal(1000).minus(new TaxDecimal(217).div("1.37"));
    expect((await bookOf(account)).cashUsd.toFixed()).toBe(exact.toFixed());
    expect(r.cash_value_usd).toBe("841.6058394161");
    expect(r.cash_delta_usd).toBe("-158.3941605839");
  });
});

describe("a foreign-currency trade without its FX rate", () => {
  it("takes the market's rate on the trade date: 7 DDD at 31 CAD, 1.25 CAD per USD, cost 173.6 USD", async () => {
    const client = await newClient();
    const account = await newAccount(client, [], "1000");
    const r = await recordTrades(ctx, org, client, account, {
      trades: [
        {
          execution_id: "cadm1",
          side: "buy",
          ticker: "DDD:XTSE",
          trade_date: "2025-06-30",
          quantity: "7",
          price: "31",
        },
      ],
    });
    expect(r.cash_delta_usd).toBe("-173.6");
    const lot = (await bookOf(account)).lots[0]!;
    expect(lot.currency).toBe("CAD");
    expect(lot.fxRate.toFixed()).toBe("1.25");
    const listed = await listExecutions(ctx, org, client, account);
    expect(listed.executions[0]).toMatchObject({ currency: "CAD", fx_rate: "1.25" });
  });

  it("is refused, naming the trade's fx_rate, when the market has no rate on or before its date", async () => {
    const client = await newClient();
    const account = await newAccount(client, [], "1000");
    const snap = await snapshot([account]);
    const err = await caught(
      recordTrades(ctx, org, client, account, {
        trades: [
          {
            execution_id: "cadm2",
            side: "buy",
            ticker: "AAA",
            trade_date: "2025-06-30",
            quantity: "1",
            price: "110",
          },
          {
            execution_id: "cadm3",
            side: "buy",
            ticker: "DDD:XTSE",
            trade_date: "2025-05-01",
            quantity: "7",
            price: "31",
          },
        ],
      }),
    );
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).issues).toEqual([
      {
        path: "trades[1].fx_rate",
        message: "the market data has no CAD per USD rate on or before 2025-05-01: give the trade's fx_rate",
      },
    ]);
    expect(await snapshot([account])).toBe(snap);
  });

  it("names the line of a trade file, and a file row with its rate keeps it", async () => {
    const client = await newClient();
    const account = await newAccount(client, [], "1000");
    const bad = await caught(
      importTrades(
        ctx,
        org,
        account,
        "execution_id,side,symbol,trade_date,quantity,price\nf1,buy,DDD:XTSE,2025-05-01,7,31\n",
        { file_name: "confirms.csv" },
      ),
    );
    expect((bad as ValidationError).issues[0]).toMatchObject({
      path: "confirms.csv: line 2, column fx_rate",
    });
    const ok = await importTrades(
      ctx,
      org,
      account,
      "execution_id,side,symbol,trade_date,quantity,price,fx_rate\nf2,buy,DDD:XTSE,2025-05-01,7,31,1.4\n",
      { file_name: "confirms.csv" },
    );
    expect(ok.cash_delta_usd).toBe("-155");
  });
});

describe("household wash sales through the service", () => {
  it("disallows A's loss by B's purchase 9 days before: W 50, B's basis 260 from 2025-01-01 (docs/ledger.md)", async () => {
    const client = await newClient();
    const a = await newAccount(client, []);
    const b = await newAccount(client, []);
    const t = (id: string, side: "buy" | "sell", date: string, q: string, p: string) => ({
      execution_id: id,
      side,
      ticker: "AAA:XNYS",
      trade_date: date,
      quantity: q,
      price: p,
    });
    await recordTrades(ctx, org, client, a, { trades: [t("a1", "buy", "2025-01-10", "100", "50")] });
    await recordTrades(ctx, org, client, b, { trades: [t("b1", "buy", "2025-03-01", "5", "42")] });
    const r = await recordTrades(ctx, org, client, a, {
      trades: [t("a2", "sell", "2025-03-10", "100", "40")],
    });
    expect(r.household_accounts_updated).toEqual([b]);
    expect(
      r.realized.map((x) => [x.proceeds, x.cost_basis, x.adjustment_code, x.adjustment, x.gain]),
    ).toEqual([["4000", "5000", "W", "50", "-950"]]);
    const bLots = await store.accounts.lots(b);
    expect(bLots.map((l) => [l.costBasis, l.holdingPeriodStart, l.washSaleDate])).toEqual([
      ["260", "2025-01-01", "2025-03-10"],
    ]);
    // The household ledger: both accounts' rows; the 8949 lines add up to the realized total.
    const h = await clientRealized(ctx, org, client, { year: 2025 });
    expect(h.rows.map((x) => x.account_uuid)).toEqual([a]);
    expect(h.totals.net).toBe("-950");
    expect(h.schedule_d.find((l) => l.line === "16")!.gain).toBe("-950.00");
  });

  it("carves B's larger replacement lot: 100 of its 250 shares carry the disallowed loss, in B's store lots", async () => {
    const client = await newClient();
    const a = await newAccount(client, []);
    const b = await newAccount(client, []);
    const t = (id: string, side: "buy" | "sell", date: string, q: string, p: string) => ({
      execution_id: id,
      side,
      ticker: "AAA:XNYS",
      trade_date: date,
      quantity: q,
      price: p,
    });
    await recordTrades(ctx, org, client, a, { trades: [t("a1", "buy", "2025-01-10", "100", "50")] });
    await recordTrades(ctx, org, client, b, { trades: [t("b1", "buy", "2025-03-01", "250", "42")] });
    const r = await recordTrades(ctx, org, client, a, {
      trades: [t("a2", "sell", "2025-03-10", "100", "40")],
    });
    // The whole loss (1,000) is disallowed: 100 replacement shares.
    expect(r.realized.map((x) => [x.adjustment, x.gain])).toEqual([["1000", "0"]]);
    const lots = (await store.accounts.lots(b)).map((l) => [
      l.quantity,
      l.costBasis,
      l.holdingPeriodStart ?? l.tradeDate,
    ]);
    expect(lots.sort()).toEqual(
      [
        ["100", "5200", "2025-01-01"], // 100 x 42 + 1,000; held 59 days before
        ["150", "6300", "2025-03-01"],
      ].sort(),
    );
  });
});

describe("the realized-gains ledger", () => {
  it("8949 lines sum to the year's realized total, and the CSV has one line per row", async () => {
    const client = await newClient();
    const account = await newAccount(client, [
      { theme_asset_id: "AAA:XNYS", quantity: "10", cost_basis: "33.333", trade_date: "2023-01-02" },
      { theme_asset_id: "BBB:XNYS", quantity: "7", cost_basis: "61.777", trade_date: "2025-02-02" },
    ]);
    await recordTrades(ctx, org, client, account, {
      trades: [
        {
          execution_id: "s1",
          side: "sell",
          ticker: "AAA",
          trade_date: "2025-05-01",
          quantity: "3.3",
          price: "101.111",
        },
        {
          execution_id: "s2",
          side: "sell",
          ticker: "BBB",
          trade_date: "2025-05-02",
          quantity: "7",
          price: "44.449",
          fees: "0.333",
        },
        {
          execution_id: "s3",
          side: "sell",
          ticker: "AAA",
          trade_date: "2025-05-03",
          quantity: "6.7",
          price: "99.999",
        },
      ],
    });
    const l = await accountRealized(ctx, org, client, account, { year: 2025 });
    expect(l.rows).toHaveLength(3);
    const exact = l.rows.reduce((s, r) => s.plus(r.gain), new TaxDecimal(0));
    expect(l.totals.net).toBe(exact.toFixed());
    const csvLines = l.form_8949_csv
      .trim()
      .split("\n")
      .filter((x) => x.startsWith("line,") || x.startsWith("summary,"));
    expect(csvLines).toHaveLength(3);
    const linesSum = csvLines.reduce((s, x) => s.plus(x.split(",")[10]!), new TaxDecimal(0));
    expect(linesSum.toFixed(2)).toBe(l.schedule_d.find((x) => x.line === "16")!.gain);
    // Each row carries its form line's gain: the rows' form_8949_gain add up to Schedule D exactly.
    const rowsFormSum = l.rows.reduce((s, r) => s.plus(r.form_8949_gain), new TaxDecimal(0));
    expect(rowsFormSum.toFixed(2)).toBe(l.schedule_d.find((x) => x.line === "16")!.gain);
    expect(l.rows.map((r) => r.form_8949_gain).sort()).toEqual(csvLines.map((x) => x.split(",")[10]!).sort());
    // The 8949 lines are rounded to cents: their sum is the exact total rounded (within one cent per line).
    expect(linesSum.minus(exact).abs().lte("0.015")).toBe(true);
    expect((await accountRealized(ctx, org, client, account, { year: 2024 })).rows).toEqual([]);
  });
});

describe("HTTP and the CLI", () => {
  const cli = async (args: string[], json = true) => {
    const out = memoryOutput(json);
    const code = await main(["node", "lotwise", ...args], { output: () => out });
    return { code, stdout: out.stdout.join("\n"), stderr: out.stderr.join("\n") };
  };

  it("records, lists and reports the same locally, over HTTP and with --url; refuses bad fills (400) and re-application (409)", async () => {
    const client = await newClient();
    const account = await newAccount(client, [
      { theme_asset_id: "AAA:XNYS", quantity: "20", cost_basis: "90", trade_date: "2024-01-02" },
    ]);
    const csv = join(dir, "confirms.csv");
    writeFileSync(
      csv,
      [
        "Conf #,Side,Symbol,Date,Shares,Price,Fees",
        "c1,SELL,AAA,2025-06-02,5,100,1",
        "c2,BUY,BBB,2025-06-03,10,50,0",
      ].join("\n"),
    );
    const local = ["--store", file, "--org", org];
    const imported = await cli([
      "trades",
      "import",
      csv,
      "--account",
      account,
      "--map",
      "execution_id=Conf #",
      ...local,
    ]);
    expect(imported.code, imported.stderr).toBe(0);
    expect(JSON.parse(imported.stdout).execution_ids).toEqual(["c1", "c2"]);

    const app = createApp({ ctx });
    const base = `/api/v1/custom/org/${org}/clients/${client}/accounts/${account}`;
    const headers = { "X-Api-Key": key, "Content-Type": "application/json" };
    const posted = await app.request(`${base}/executions/`, {
      method: "POST",
      headers,
      body: JSON.stringify({
        trades: [
          {
            execution_id: "h1",
            side: "sell",
            ticker: "AAA:XNYS",
            trade_date: "2025-06-04",
            quantity: "5",
            price: "104",
          },
        ],
      }),
    });
    expect(posted.status).toBe(200);
    expect(((await posted.json()) as { realized: { gain: string }[] }).realized[0]!.gain).toBe("70"); // 5 x (104 - 90)
    const again = await app.request(`${base}/executions/`, {
      method: "POST",
      headers,
      body: JSON.stringify({
        trades: [
          {
            execution_id: "h1",
            side: "sell",
            ticker: "AAA:XNYS",
            trade_date: "2025-06-04",
            quantity: "5",
            price: "104",
          },
        ],
      }),
    });
    expect(again.status).toBe(409);
    expect(((await again.json()) as { error: { code: string } }).error.code).toBe(
      "execution_already_applied",
    );

    const p = await createProposal(ctx, org, client, account, {
      optimized_weights: [{ ticker: "AAA:XNYS", weight: "0.01" }],
    } as never);
    const badFill = await app.request(`${base}/proposals/${p.proposal_uuid}/execution/`, {
      method: "POST",
      headers,
      body: JSON.stringify({ fills: [{ order: 0, quantity: "1", price: "0" }] }),
    });
    expect(badFill.status).toBe(400);
    const envelope = (await badFill.json()) as { error: { details: { path?: string; field?: string }[] } };
    expect(JSON.stringify(envelope.error.details)).toContain("fills[0].price");

    const realized = await app.request(`${base}/realized/?year=2025`, { headers: { "X-Api-Key": key } });
    expect(realized.status).toBe(200);
    expect(await realized.json()).toEqual(await accountRealized(ctx, org, client, account, { year: 2025 }));
    const household = await app.request(`/api/v1/custom/org/${org}/clients/${client}/realized/?year=2025`, {
      headers: { "X-Api-Key": key },
    });
    expect(((await household.json()) as { totals: { net: string } }).totals.net).toBe("119"); // c1: 5 x (100 - 90) - 1 fee = 49; h1: 70

    const handle = await serve({ ctx, port: 0, log: () => {} });
    try {
      const remote = ["--url", handle.url, "--api-key", key];
      for (const args of [
        ["ledger", "show", "--account", account, "--year", "2025", "--json"],
        ["ledger", "show", "--client", client, "--year", "2025", "--json"],
        ["trades", "list", "--account", account, "--json"],
        ["ledger", "show", "--account", account, "--year", "2025"],
      ]) {
        const l = await cli([...args, ...local], args.includes("--json"));
        const r = await cli([...args, ...remote], args.includes("--json"));
        expect(l.code, l.stderr).toBe(0);
        expect(r.code, r.stderr).toBe(0);
        expect(r.stdout).toBe(l.stdout);
      }
      const second = join(dir, "confirms-2.csv");
      writeFileSync(
        second,
        ["id,side,symbol,trade_date,quantity,price", "r1,buy,CCC,2025-06-05,4,25"].join("\n"),
      );
      const up = await cli(["trades", "import", second, "--account", account, ...remote]);
      expect(up.code, up.stderr).toBe(0);
      expect(JSON.parse(up.stdout).execution_ids).toEqual(["r1"]);
    } finally {
      await handle.close();
    }

    const out = join(dir, "8949.csv");
    const exported = await cli([
      "ledger",
      "export",
      "--account",
      account,
      "--year",
      "2025",
      "--out",
      out,
      ...local,
    ]);
    expect(exported.code, exported.stderr).toBe(0);
    expect(readFileSync(out, "utf8")).toBe(
      (await accountRealized(ctx, org, client, account, { year: 2025 })).form_8949_csv,
    );
    const shown = await cli(["ledger", "show", "--account", account, "--year", "2025", ...local], false);
    expect(shown.stdout).toContain("Schedule D");
    // Its three tables are apart: a blank line before the year's totals and before Schedule D.
    expect(shown.stdout).toMatch(/┘\n\nYear 2025 totals/);
    expect(shown.stdout).toMatch(/┘\n\nSchedule D\n/);
    // Each row's gain is proceeds - basis + adjustment in cents (Form 8949 column h), and the rows of a term add up
    // to Schedule D's line for that term.
    const num = (cell: string) => Math.round(Number(cell.replaceAll(",", "")) * 100);
    const cells = (line: string) => line.split("│").map((c) => c.trim());
    const termSums = { short: 0, long: 0 };
    let rowsSeen = 0;
    for (const line of shown.stdout.split("\n")) {
      const c = cells(line);
      if (c.length !== 11 || !/^\d{4}-\d{2}-\d{2}$/.test(c[2]!)) continue;
      const [proceeds, basis, adj, gain] = [num(c[4]!), num(c[5]!), c[7] === "" ? 0 : num(c[7]!), num(c[8]!)];
      expect(gain, line).toBe(proceeds - basis + adj);
      termSums[c[9] as "short" | "long"] += gain;
      rowsSeen++;
    }
    expect(rowsSeen).toBeGreaterThan(0);
    const scheduleLine = (n: string) =>
      shown.stdout
        .split("\n")
        .map(cells)
        .find((c) => c[1] === n);
    expect(num(scheduleLine("7")!.at(-2)!)).toBe(termSums.short);
    expect(num(scheduleLine("15")!.at(-2)!)).toBe(termSums.long);
  });

  it("ledger export reports the net of the file it wrote (Schedule D line 16, cents), not the exact total", async () => {
    const client = await newClient();
    const account = await newAccount(client, []);
    // CAD trades: the USD amounts are divisions by the FX rate, with up to 64 significant digits.
    await recordTrades(ctx, org, client, account, {
      trades: [
        {
          execution_id: "b",
          side: "buy",
          ticker: "DDD:XTSE",
          trade_date: "2025-05-01",
          quantity: "7",
          price: "31",
          fx_rate: "1.27",
        },
        {
          execution_id: "s",
          side: "sell",
          ticker: "DDD:XTSE",
          trade_date: "2025-05-02",
          quantity: "7",
          price: "33",
          fx_rate: "1.3",
        },
      ],
    });
    const l = await accountRealized(ctx, org, client, account, { year: 2025 });
    const line16 = l.schedule_d.find((x) => x.line === "16")!.gain;
    expect(l.totals.net.length).toBeGreaterThan(20);
    const out = join(dir, "net-8949.csv");
    const args = [
      "ledger",
      "export",
      "--account",
      account,
      "--year",
      "2025",
      "--out",
      out,
      "--store",
      file,
      "--org",
      org,
    ];
    const json = await cli(args);
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ lines: 0, summarized: 1, net: line16 });
    expect(readFileSync(out, "utf8")).toContain(
      `schedule_d,,16,Net capital gain or (loss): line 7 + line 15,,,`,
    );
    expect(readFileSync(out, "utf8")).toMatch(new RegExp(`,${line16.replace(".", "\\.")},,\n$`));
    const text = await cli(args, false);
    expect(text.stdout).toBe(
      `Wrote 1 sale of 2025 to ${out} (CSV: 0 Form 8949 lines, 1 in summary on Schedule D lines 1a/8a; net ${line16}).`,
    );
  });

  it("names the line and column of a fills file the service refuses, locally and with --url", async () => {
    const client = await newClient();
    const account = await newAccount(client, [
      { theme_asset_id: "AAA:XNYS", quantity: "20", cost_basis: "90", trade_date: "2024-01-02" },
    ]);
    const p = await createProposal(ctx, org, client, account, {
      optimized_weights: [{ ticker: "AAA:XNYS", weight: "0.01" }],
    } as never);
    const fills = join(dir, "fills-bad.csv");
    // Line 3 is blank: the line numbers are the file's, not the fill indexes.
    writeFileSync(
      fills,
      ["order,quantity,price,trade_date", "0,1,5,2025-06-02", "", "7,1,5,", "0,1,0,"].join("\n"),
    );
    const snap = await snapshot([account]);
    const handle = await serve({ ctx, port: 0, log: () => {} });
    try {
      for (const where of [
        ["--store", file, "--org", org],
        ["--url", handle.url, "--api-key", key],
      ]) {
        const r = await cli([
          "trades",
          "apply-proposal",
          p.proposal_uuid,
          "--account",
          account,
          "--fills",
          fills,
          ...where,
        ]);
        expect(r.code).not.toBe(0);
        const details = JSON.parse(r.stdout).error.details as { path: string }[];
        expect(details.map((d) => d.path)).toEqual([`${fills}: line 5, column price`]);
        // The price <= 0 is refused by the request's schema first; without it, the unknown order on line 4.
        writeFileSync(fills, ["order,quantity,price", "0,1,5", "", "7,1,5"].join("\n"));
        const again = await cli([
          "trades",
          "apply-proposal",
          p.proposal_uuid,
          "--account",
          account,
          "--fills",
          fills,
          ...where,
        ]);
        const err = JSON.parse(again.stdout).error as { message: string; details: { path: string }[] };
        expect(err.details.map((d) => d.path)).toEqual([`${fills}: line 4, column order`]);
        expect(err.message).toContain(`${fills}: line 4, column order: 7 is not an order of the proposal`);
        writeFileSync(
          fills,
          ["order,quantity,price,trade_date", "0,1,5,2025-06-02", "", "7,1,5,", "0,1,0,"].join("\n"),
        );
      }
    } finally {
      await handle.close();
    }
    expect(await snapshot([account])).toBe(snap);
  });
});

describe("realized rows on the wire", () => {
  it("are the same with the texts converted for the store as converted on their own (seeded batches)", () => {
    let washed = 0;
    for (const seed of [11, 12, 13, 14]) {
      const rng = createRandom(seed);
      const int = (n: number) => Math.floor(rng.next() * n);
      const decimal = (max: number, scale: number) => (rng.next() * max).toFixed(scale);
      const assets = ["AAA:XNYS", "BBB:XNYS", "CCC:XTSE"];
      const lots: TaxLot[] = [];
      for (let i = 0; i < 60; i++) {
        const asset = assets[i % 3]!;
        const cad = asset.endsWith("XTSE");
        lots.push(
          createLot({
            id: `L${i}`,
            accountId: "acc",
            themeAssetId: asset,
            quantity: `${1 + int(40)}.${int(1000)}`,
            costBasisPerShare: decimal(200, 1 + int(6)),
            currency: cad ? "CAD" : "USD",
            fxRate: cad ? `1.${3000 + int(500)}` : 1,
            tradeDate: `2024-${String(1 + int(12)).padStart(2, "0")}-1${int(10)}`,
          }),
        );
      }
      const executions: Execution[] = [];
      for (let k = 0; k < 24; k++) {
        const asset = assets[k % 3]!;
        const cad = asset.endsWith("XTSE");
        const fx = cad ? { currency: "CAD" as const, fxRate: `1.${3000 + int(500)}` } : {};
        const date = `2025-03-${String(1 + k).padStart(2, "0")}`;
        if (k % 4 === 3)
          executions.push({
            id: `b${k}`,
            kind: "buy",
            themeAssetId: asset,
            tradeDate: date,
            quantity: 5,
            price: decimal(150, 2),
            ...fx,
          });
        else
          executions.push({
            id: `s${k}`,
            kind: "sell",
            themeAssetId: asset,
            tradeDate: date,
            quantity: `${1 + int(15)}.${int(100)}`,
            price: decimal(200, 1 + int(4)),
            ...(int(2) === 0 ? { fees: decimal(5, 2) } : {}),
            ...fx,
          });
      }
      const result = applyExecutions({ accountId: "acc", cashUsd: new TaxDecimal(0), lots }, executions, {
        lotMethod: "FIFO",
      });
      expect(result.rows.length).toBeGreaterThan(10);
      const texts = new DecimalTexts();
      result.rows.forEach((r, i) => {
        const input = realizedInput(result.entries[i]!, r, texts);
        expect(rowToWire(r, "acc", input)).toEqual(rowToWire(r, "acc"));
        if (r.adjustmentCode === "W") washed++;
      });
    }
    expect(washed).toBeGreaterThan(0);
  });
});
