/**
 * A lot whose cost-basis currency is not its listing's is refused at write time, on every path that writes lots
 * (docs/ledger.md, "Lots and their listing's currency"): account creation and the client update with
 * holdings.tax_lots, the lots CSV import, trades through the API and from a trade file, and a stored proposal applied
 * as executed. Nothing of the batch is written. A lot stored before this check (legacy data) makes a proposal fail
 * with a message naming the lot, its wire field and the fix. The hand market: DDD:XTSE trades in CAD.
 */
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeHandMarket } from "../../test/helpers/hand-market.js";
import type { ProposalResponse } from "../contract/index.js";
import { ValidationError } from "../core/errors.js";
import { createApp } from "../server/index.js";
import { openSqliteStore, type SqliteStore } from "../store/index.js";
import {
  createAccount,
  createClient,
  createOrganization,
  createProposal,
  listAccounts,
  type ServiceContext,
} from "./index.js";
import { executeProposal, recordTrades } from "./ledger.js";
import { importTrades } from "./ledger-trades-csv.js";
import { importLots } from "./lots-import.js";

const dir = mkdtempSync(join(tmpdir(), "lotwise-lot-currency-"));
let store: SqliteStore;
let ctx: ServiceContext;
let org: string;
let key: string;
let app: ReturnType<typeof createApp>;

beforeAll(async () => {
  store = openSqliteStore(join(dir, "store.db"));
  writeHandMarket(store.engine);
  ctx = { store, clock: () => new Date("2025-07-01T12:00:00Z") };
  const made = await createOrganization(ctx, "Lot currency test");
  org = made.organization.uuid;
  key = made.apiKey.key;
  app = createApp({ ctx });
});
afterAll(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const AAA = { theme_asset_id: "AAA:XNYS", quantity: "40", cost_basis: "90", trade_date: "2024-01-02" };
const DDD_CAD = {
  theme_asset_id: "DDD:XTSE",
  quantity: "50",
  cost_basis: "28",
  trade_date: "2024-06-03",
  cost_basis_currency: "CAD" as const,
  fx_rate: "1.25",
};

/** A client with one account holding AAA (USD) and DDD (CAD, correct). */
async function account(): Promise<{ client: string; account: string }> {
  const client = (await createClient(ctx, org, {})).uuid;
  const a = await createAccount(ctx, org, client, {
    cash_value_usd: "10000",
    holdings: { tax_lots: [AAA, DDD_CAD] },
  });
  return { client, account: a.uuid };
}

/** Everything a refused write must leave as it was. */
async function snapshot(accountUuid: string) {
  return {
    lots: await store.accounts.lots(accountUuid),
    account: await store.accounts.getInOrganization(org, accountUuid),
    executions: await store.ledger.executions(accountUuid),
    shortLots: await store.ledger.shortLots(accountUuid),
  };
}

async function refusal(p: Promise<unknown>): Promise<ValidationError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ValidationError);
  return err as ValidationError;
}

/** The message names the ticker, both currencies and the fix. */
function expectMismatch(message: string, given = "USD"): void {
  expect(message).toContain(`${given} does not match DDD:XTSE's listing currency CAD`);
  expect(message).toContain("give ");
  expect(message).toContain(" CAD (with the fx_rate in CAD per USD");
}

describe("a lot in another currency than its listing's is refused at write time", () => {
  it("account creation: names holdings.tax_lots[i].cost_basis_currency, creates no account", async () => {
    const client = (await createClient(ctx, org, {})).uuid;
    const err = await refusal(
      createAccount(ctx, org, client, {
        holdings: {
          tax_lots: [AAA, { ...DDD_CAD, cost_basis_currency: undefined, fx_rate: undefined }, DDD_CAD],
        },
      } as never),
    );
    expect(err.issues).toEqual([
      { path: "holdings.tax_lots[1].cost_basis_currency", message: expect.stringMatching(/^lot 1: /) },
    ]);
    expectMismatch(err.issues[0]!.message);
    expect(err.message).toContain("nothing was written");
    expect(await listAccounts(ctx, org, client)).toEqual([]);
    // Over HTTP: 400 naming the same field, no account.
    const res = await app.request(`/api/v1/custom/org/${org}/clients/${client}/accounts/`, {
      method: "POST",
      headers: { "X-Api-Key": key, "Content-Type": "application/json" },
      body: JSON.stringify({
        holdings: { tax_lots: [{ ...DDD_CAD, cost_basis_currency: "USD", fx_rate: "1" }] },
      }),
    });
    expect(res.status).toBe(400);
    const { error } = (await res.json()) as { error: { details: { path: string; message: string }[] } };
    expect(error.details.map((d) => d.path)).toEqual(["holdings.tax_lots[0].cost_basis_currency"]);
    expectMismatch(error.details[0]!.message);
    expect(await listAccounts(ctx, org, client)).toEqual([]);
    // The same lot in CAD is accepted.
    await expect(
      createAccount(ctx, org, client, { holdings: { tax_lots: [DDD_CAD] } }),
    ).resolves.toBeDefined();
  });

  it("client update over HTTP (endpoint 6): 400 naming the lot's field, the stored lots unchanged", async () => {
    const { client, account: a } = await account();
    const before = await snapshot(a);
    const res = await app.request(`/api/v1/custom/org/${org}/clients/${client}/`, {
      method: "PATCH",
      headers: { "X-Api-Key": key, "Content-Type": "application/json" },
      body: JSON.stringify({
        account_uuid: a,
        holdings: { tax_lots: [AAA, { ...DDD_CAD, cost_basis_currency: "EUR", fx_rate: "0.9" }] },
      }),
    });
    expect(res.status).toBe(400);
    const { error } = (await res.json()) as {
      error: { code: string; details: { path: string; message: string }[] };
    };
    expect(error.code).toBe("validation_error");
    expect(error.details.map((d) => d.path)).toEqual(["holdings.tax_lots[1].cost_basis_currency"]);
    expectMismatch(error.details[0]!.message, "EUR");
    expect(await snapshot(a)).toEqual(before);
  });

  it("lots CSV import: names the line and the currency column (or the missing one), imports nothing", async () => {
    const { account: a } = await account();
    const before = await snapshot(a);
    const withColumn =
      "Symbol,Quantity,Cost Basis,Open Date,Currency,FX Rate\nAAA,1,10,2024-01-02,USD,\nDDD,5,100,2024-02-01,USD,\n";
    const err = await refusal(importLots(ctx, org, a, withColumn, { file_name: "pos.csv" }));
    expect(err.code).toBe("invalid_lots_file");
    expect(err.issues.map((i) => i.path)).toEqual(['pos.csv: line 3, column "Currency"']);
    expectMismatch(err.issues[0]!.message);
    expect(err.issues[0]!.message).toMatch(/^line 3: cost_basis_currency USD/);
    // No currency column: the rows take the file's default (USD), and the message says how to give CAD.
    const without = "Symbol,Quantity,Cost Basis,Open Date\nDDD,5,100,2024-02-01\n";
    const err2 = await refusal(importLots(ctx, org, a, without, { file_name: "pos.csv", mode: "append" }));
    expect(err2.issues[0]!.path).toBe('pos.csv: line 2, column "currency"');
    expect(err2.issues[0]!.message).toContain("the file has no currency column");
    expect(err2.issues[0]!.message).toContain("--currency CAD");
    expect(await snapshot(a)).toEqual(before);
    // Over HTTP too (the same operation): 400, nothing imported.
    const res = await app.request(`/api/v1/custom/org/${org}/accounts/${a}/tax_lots/import/?mode=append`, {
      method: "POST",
      headers: { "X-Api-Key": key, "Content-Type": "text/csv; charset=utf-8" },
      body: without,
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("invalid_lots_file");
    expect(await snapshot(a)).toEqual(before);
    // With --currency CAD (query `currency`) and an FX rate column, the file imports.
    const cad = "Symbol,Quantity,Cost Basis,Open Date,FX Rate\nDDD,5,100,2024-02-01,1.25\n";
    const ok = await importLots(ctx, org, a, cad, { mode: "append", currency: "CAD" });
    expect(ok.lots_after).toBe(3);
  });

  it("trades through the API: a buy or short sale in another currency names trades[i].currency, applies nothing", async () => {
    const { client, account: a } = await account();
    const before = await snapshot(a);
    const trade = (id: string, side: "buy" | "short_order", currency?: "USD" | "CAD") => ({
      execution_id: id,
      side,
      ticker: "DDD:XTSE",
      trade_date: "2025-06-30",
      quantity: "10",
      price: "30",
      ...(currency === undefined ? {} : { currency }),
      fx_rate: "1.25",
    });
    const err = await refusal(
      recordTrades(ctx, org, client, a, {
        trades: [trade("t1", "buy", "CAD"), trade("t2", "buy", "USD"), trade("t3", "short_order", "USD")],
      }),
    );
    expect(err.issues.map((i) => i.path)).toEqual(["trades[1].currency", "trades[2].currency"]);
    expect(err.issues[0]!.message).toMatch(/^the buy of DDD:XTSE: currency USD does not match/);
    expect(err.issues[1]!.message).toMatch(/^the short sale of DDD:XTSE: currency USD/);
    expectMismatch(err.issues[0]!.message);
    expect(await snapshot(a)).toEqual(before);
    // Over HTTP: 400 with the same paths.
    const res = await app.request(`/api/v1/custom/org/${org}/clients/${client}/accounts/${a}/executions/`, {
      method: "POST",
      headers: { "X-Api-Key": key, "Content-Type": "application/json" },
      body: JSON.stringify({ trades: [trade("t2", "buy", "USD")] }),
    });
    expect(res.status).toBe(400);
    const { error } = (await res.json()) as { error: { details: { path: string }[] } };
    expect(error.details.map((d) => d.path)).toEqual(["trades[0].currency"]);
    expect(await snapshot(a)).toEqual(before);
    // Without a currency the trade takes its listing's: accepted.
    const done = await recordTrades(ctx, org, client, a, { trades: [trade("t4", "buy")] });
    expect(done.lots).toBe(3);
  });

  it("trade CSV import: names the line and column, applies nothing", async () => {
    const { account: a } = await account();
    const before = await snapshot(a);
    const csv =
      "execution_id,side,symbol,trade_date,quantity,price,currency,fx_rate\nc1,buy,AAA,2025-06-30,1,110,USD,\nc2,buy,DDD,2025-06-30,2,30,USD,\n";
    const err = await refusal(importTrades(ctx, org, a, csv, { file_name: "confirms.csv" }));
    expect(err.code).toBe("invalid_trades_file");
    expect(err.issues.map((i) => i.path)).toEqual(['confirms.csv: line 3, column "currency"']);
    expectMismatch(err.issues[0]!.message);
    expect(await snapshot(a)).toEqual(before);
    // Over HTTP (a text/csv upload): 400 with the same line and column.
    const res = await app.request(
      `/api/v1/custom/org/${org}/accounts/${a}/executions/import/?file_name=confirms.csv`,
      { method: "POST", headers: { "X-Api-Key": key, "Content-Type": "text/csv; charset=utf-8" }, body: csv },
    );
    expect(res.status).toBe(400);
    const { error } = (await res.json()) as { error: { code: string; details: { path: string }[] } };
    expect(error.code).toBe("invalid_trades_file");
    expect(error.details.map((d) => d.path)).toEqual(['confirms.csv: line 3, column "currency"']);
    expect(await snapshot(a)).toEqual(before);
  });

  it("a stored proposal applied as executed: a buy order in another currency names orders[i].currency", async () => {
    const { client, account: a } = await account();
    const uuid = randomUUID();
    const response: ProposalResponse = {
      proposal_uuid: uuid,
      cash_buffer_cad_amount: null,
      cash_buffer_usd_amount: null,
      as_of_date: "2025-06-30",
      orders: [
        {
          ticker: "DDD:XTSE",
          ticker_symbol: "DDD",
          currency: "USD",
          amount: "10",
          type: "qty",
          order_category: "long",
          tax_lots: null,
          fx_cost_breakdown: null,
        },
      ],
    };
    await store.proposals.insertSerialized(org, a, uuid, {}, JSON.stringify(response));
    const before = await snapshot(a);
    const err = await refusal(executeProposal(ctx, org, client, a, uuid));
    expect(err.issues.map((i) => i.path)).toEqual(["orders[0].currency"]);
    expectMismatch(err.issues[0]!.message);
    expect(await snapshot(a)).toEqual(before);
    // Over HTTP: 400, the proposal still unapplied.
    const res = await app.request(
      `/api/v1/custom/org/${org}/clients/${client}/accounts/${a}/proposals/${uuid}/execution/`,
      { method: "POST", headers: { "X-Api-Key": key, "Content-Type": "application/json" }, body: "{}" },
    );
    expect(res.status).toBe(400);
    const { error } = (await res.json()) as { error: { details: { path: string }[] } };
    expect(error.details.map((d) => d.path)).toEqual(["orders[0].currency"]);
    expect(await snapshot(a)).toEqual(before);
  });

  it("a lot stored before the check (legacy data): a proposal names the lot, its wire field and the fix", async () => {
    const { client, account: a } = await account();
    await store.accounts.appendLots(a, [
      {
        themeAssetId: "DDD:XTSE",
        quantity: "5",
        costBasis: "28",
        costBasisUnit: "per_share",
        costBasisCurrency: "USD",
        fxRate: "1",
        tradeDate: "2024-06-03",
        holdingPeriodStart: null,
        washSaleDate: null,
        lastSoldForLossDate: null,
      },
    ]);
    const legacy = (await store.accounts.lots(a))[2]!;
    const err = await refusal(
      createProposal(ctx, org, client, a, {
        optimized_weights: [{ ticker: "AAA:XNYS", weight: "0.5" }],
      } as never),
    );
    expect(err.issues).toEqual([
      {
        path: "holdings.tax_lots[2].cost_basis_currency",
        message: `lot ${legacy.uuid} of DDD:XTSE has cost_basis_currency USD, but DDD:XTSE trades in CAD: correct the lot (cost_basis_currency CAD with its fx_rate in CAD per USD), by importing the account's lots again or updating its holdings.tax_lots`,
      },
    ]);
  });
});
