/**
 * The ledger operations on PostgreSQL (the same service code over the other engine): household wash sale with
 * carried basis, idempotent re-application, a refused trade file leaving the store unchanged. Needs PostgreSQL
 * (LOTWISE_TEST_PG, default postgres://postgres@127.0.0.1:5432/test); each run uses a private schema, dropped after.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConflictError, ValidationError } from "../src/core/errors.js";
import {
  createAccount,
  createClient,
  createOrganization,
  type ServiceContext,
} from "../src/service/index.js";
import { clientRealized, recordTrades } from "../src/service/ledger.js";
import { importTrades } from "../src/service/ledger-trades-csv.js";
import type { LotwiseStore } from "../src/store/index.js";
import { openPgStore } from "../src/store/pg/pg-store.js";
import { listing } from "./helpers/listing.js";
import { dropSchemas, PG_URL, probePostgres } from "./helpers/pg.js";

const problem = await probePostgres();
if (problem !== null)
  console.warn(
    `ledger on PostgreSQL: skipped, PostgreSQL does not answer at ${PG_URL} (${problem}); set LOTWISE_TEST_PG.`,
  );

describe.skipIf(problem !== null)("ledger operations on PostgreSQL", () => {
  const schema = `lw_ledger_exec_${randomBytes(6).toString("hex")}`;
  let store: LotwiseStore;
  let ctx: ServiceContext;
  let org: string;

  beforeAll(async () => {
    store = await openPgStore(PG_URL, { schema, maxConnections: 4 });
    ctx = { store, clock: () => new Date("2025-07-01T12:00:00Z") };
    await store.market.upsertSecurities([listing("AAA:XNYS"), listing("BBB:XNYS")]);
    org = (await createOrganization(ctx, "Ledger PG")).organization.uuid;
  });
  afterAll(async () => {
    await store?.close();
    await dropSchemas([schema]);
  });

  const trade = (id: string, side: "buy" | "sell", date: string, q: string, p: string) => ({
    execution_id: id,
    side,
    ticker: "AAA:XNYS",
    trade_date: date,
    quantity: q,
    price: p,
  });

  it("writes a household wash sale into the other account (W 50, basis 260 from 2025-01-01) and refuses a replay", async () => {
    const client = (await createClient(ctx, org, {})).uuid;
    const a = (await createAccount(ctx, org, client, { cash_value_usd: "10000" })).uuid;
    const b = (await createAccount(ctx, org, client, { cash_value_usd: "10000" })).uuid;
    await recordTrades(ctx, org, client, a, { trades: [trade("a1", "buy", "2025-01-10", "100", "50")] });
    await recordTrades(ctx, org, client, b, { trades: [trade("b1", "buy", "2025-03-01", "5", "42")] });
    const sale = { trades: [trade("a2", "sell", "2025-03-10", "100", "40")] };
    const r = await recordTrades(ctx, org, client, a, sale);
    expect(r.realized.map((x) => [x.adjustment_code, x.adjustment, x.gain])).toEqual([["W", "50", "-950"]]);
    const lots = await store.accounts.lots(b);
    expect(lots.map((l) => [l.costBasis, l.holdingPeriodStart, l.washSaleDate])).toEqual([
      ["260", "2025-01-01", "2025-03-10"],
    ]);
    expect((await clientRealized(ctx, org, client, { year: 2025 })).totals.net).toBe("-950");
    const again = await recordTrades(ctx, org, client, a, sale).catch((e: unknown) => e);
    expect(again).toBeInstanceOf(ConflictError);
    expect((again as ConflictError).code).toBe("execution_already_applied");
  });

  it("refuses a trade file with an oversell whole, leaving lots, cash and executions unchanged", async () => {
    const client = (await createClient(ctx, org, {})).uuid;
    const a = (await createAccount(ctx, org, client, { cash_value_usd: "1000" })).uuid;
    await recordTrades(ctx, org, client, a, { trades: [trade("k1", "buy", "2025-02-03", "10", "20")] });
    const read = async () =>
      JSON.stringify([
        await store.accounts.getInOrganization(org, a),
        await store.accounts.lots(a),
        await store.ledger.executions(a),
        await store.ledger.realized({ accountUuid: a }, { year: 2025 }),
      ]);
    const before = await read();
    const err = await importTrades(
      ctx,
      org,
      a,
      ["id,side,symbol,date,qty,price", "k2,buy,BBB,2025-03-03,1,10", "k3,sell,AAA,2025-03-04,11,25"].join(
        "\n",
      ),
      { file_name: "t.csv" },
    ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).code).toBe("invalid_trades_file");
    expect((err as ValidationError).issues[0]!.path).toMatch(/^t\.csv: line 3/);
    expect(await read()).toBe(before);
  });
});
