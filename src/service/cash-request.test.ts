import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { leastTaxBruteForce, type PlainLot } from "../../test/helpers/least-tax.js";
import { listing } from "../../test/helpers/listing.js";
import { weekdays } from "../../test/helpers/weekdays.js";
import { main } from "../cli/main.js";
import { memoryOutput } from "../cli/output.js";
import { type AccountRebalance, accountRebalanceSchema, type ProposalResponse } from "../contract/index.js";
import { ValidationError } from "../core/errors.js";
import { createApp, serve } from "../server/index.js";
import { openSqliteStore, type SqliteStore } from "../store/index.js";
import {
  createAccount,
  createAssetClass,
  createClient,
  createOrganization,
  createPortfolioConfig,
  type ServiceContext,
} from "./index.js";
import { rebalanceAccount } from "./optimize.js";

/**
 * A hand market of four USD listings priced every weekday from 2025-03-03 to 2025-06-30 (86 closes: enough for the
 * pca risk model), last closes AAA 80, BBB 40, CCC 25, DDD 50; index HAND4 weighs them 25% each from 2025-06-02.
 * Every account holds the same seven lots (worth 5,200 USD), with rates 40% short-term and 15% long-term:
 *
 * | lot | asset | shares | basis/sh | term  | proceeds | gain | tax per $ |
 * |-----|-------|--------|----------|-------|----------|------|-----------|
 * | L1  | AAA   | 10     | 100      | long  | 800      | -200 | -0.0375   |
 * | L2  | AAA   | 10     | 70       | short | 800      | 100  | 0.05      |
 * | L3  | BBB   | 20     | 45       | short | 800      | -100 | -0.05     |
 * | L4  | BBB   | 20     | 20       | long  | 800      | 400  | 0.075     |
 * | L5  | CCC   | 40     | 20       | long  | 1000     | 200  | 0.03      |
 * | L6  | DDD   | 10     | 40       | short | 500      | 100  | 0.08      |
 * | L7  | DDD   | 10     | 10       | long  | 500      | 400  | 0.12      |
 */
const LAST: Record<string, number> = { AAA: 80, BBB: 40, CCC: 25, DDD: 50 };
const ST = "2025-02-03";
const LT = "2024-01-02";
const LOTS: [string, number, number, string][] = [
  ["AAA", 10, 100, LT],
  ["AAA", 10, 70, ST],
  ["BBB", 20, 45, ST],
  ["BBB", 20, 20, LT],
  ["CCC", 40, 20, LT],
  ["DDD", 10, 40, ST],
  ["DDD", 10, 10, LT],
];
const PLAIN: PlainLot[] = LOTS.map(([s, shares, basis, date]) => ({
  price: LAST[s]!,
  shares,
  basis,
  rate: date === LT ? 0.15 : 0.4,
}));

/** Closes from seeded returns (a linear congruential generator), scaled so that the last one is LAST. */
function closes(symbol: string, seed: number, dates: number): number[] {
  let x = seed;
  const path = [1];
  for (let t = 1; t < dates; t++) {
    x = (x * 1103515245 + 12345) % 2147483648;
    path.push(path[t - 1]! * (1 + (x / 2147483648 - 0.5) * 0.04));
  }
  const k = LAST[symbol]! / path[dates - 1]!;
  return path.map((p, t) => (t === dates - 1 ? LAST[symbol]! : p * k));
}

async function writeHandMarket(store: SqliteStore): Promise<void> {
  const m = store.market;
  const dates = weekdays("2025-03-03", "2025-06-30");
  await m.upsertSecurities(Object.keys(LAST).map((s) => listing(`${s}:XNYS`, { sector: 45 })));
  await m.insertPrices(
    Object.keys(LAST).flatMap((s, k) =>
      closes(s, k + 1, dates.length).map((close, t) => ({
        themeAssetId: `${s}:XNYS`,
        date: dates[t]!,
        open: null,
        high: null,
        low: null,
        close,
        adjClose: null,
        volume: 1_000_000,
      })),
    ),
  );
  await m.upsertIndex({ identifier: "HAND4", name: "Hand four", currency: "USD", description: null });
  await m.insertIndexWeights(
    Object.keys(LAST).map((s) => ({
      identifier: "HAND4",
      date: "2025-06-02",
      themeAssetId: `${s}:XNYS`,
      weight: 0.25,
    })),
  );
}

const dir = mkdtempSync(join(tmpdir(), "lotwise-cash-"));
const file = join(dir, "cash.db");
let store: SqliteStore;
let ctx: ServiceContext;
let org: string;
let key: string;
let clientUuid: string;
/** No target, no minimum trade: the lot engine. */
let plain: string;
/** No target, whole shares and a 500 USD minimum trade. */
let strict: string;
/** Indexed to HAND4 with a 2% USD cash buffer: the optimizer. */
let indexed: string;

const RATES = { short_term_rate: "0.4", long_term_rate: "0.15" };

beforeAll(async () => {
  store = openSqliteStore(file);
  await writeHandMarket(store);
  ctx = { store, clock: () => new Date("2025-07-01T12:00:00Z") };
  const made = await createOrganization(ctx, "Cash test");
  org = made.organization.uuid;
  key = made.apiKey.key;
  clientUuid = (await createClient(ctx, org, { external_id: "cash-client" })).uuid;
  const holdings = {
    tax_lots: LOTS.map(([s, shares, basis, date]) => ({
      theme_asset_id: `${s}:XNYS`,
      quantity: String(shares),
      cost_basis: String(basis),
      trade_date: date,
    })),
  };
  const account = async (name: string, config: Parameters<typeof createPortfolioConfig>[2]) =>
    (
      await createAccount(ctx, org, clientUuid, {
        name,
        cash_value_usd: "0",
        portfolio_config_uuid: (await createPortfolioConfig(ctx, org, config)).uuid,
        holdings,
      })
    ).uuid;
  plain = await account("Plain", {
    name: "No target",
    min_trade_amount_usd: "0",
    min_trade_pct: "0",
    tax_preferences: RATES,
  });
  strict = await account("Strict", {
    name: "Whole shares, 500 USD minimum",
    require_whole_shares: true,
    min_trade_amount_usd: "500",
    min_trade_pct: "0",
    tax_preferences: RATES,
  });
  const sleeve = await createAssetClass(ctx, org, { name: "Hand four", benchmark_index_identifier: "HAND4" });
  indexed = await account("Indexed", {
    name: "Indexed",
    asset_allocations: [{ asset_class_uuid: sleeve.uuid, target_allocation: "1" }],
    cash_buffer_usd: "0.02",
    // At the default risk aversion (2) this noise-only hand market leaves part of new cash uninvested (the optimizer
    // weighs its small tracking error against costs); 10 makes tracking the index dominate.
    risk_aversion: "10",
    tax_preferences: RATES,
  });
});
afterAll(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const withdraw = (account: string, usd: string) =>
  rebalanceAccount(ctx, org, account, { clientUuid, cashRequest: { withdraw_usd: usd } });

/** Sells of a proposal: ticker, quantity, lots (quantity, trade date, gain). */
function sells(p: ProposalResponse | null) {
  return (p?.orders ?? [])
    .filter((o) => o.amount.startsWith("-"))
    .map((o) => ({
      ticker: o.ticker,
      quantity: o.amount.slice(1),
      lots: (o.tax_lots ?? []).map((l) => [l.quantity, l.trade_date, l.gain]),
    }));
}

describe("withdrawal by the lot engine (no target)", () => {
  it("raises 3,000 USD exactly with the least-tax lots: L3, L1, L5 in full and 5 shares of L2", async () => {
    const r = await withdraw(plain, "3000");
    expect(accountRebalanceSchema.parse(r)).toEqual(r);
    expect(r.optimization).toBeNull();
    expect(r.cash_request).toMatchObject({
      kind: "withdrawal",
      amount_usd: "3000",
      method: "lot_engine",
      cash_before_usd: "0",
      minimum_cash_usd: "0",
      cash_needed_usd: "3000",
      cash_raised_usd: "3000",
      cash_after_usd: "3000",
      covered: true,
      // Short-term -100 (L3) + 50 (5 shares of L2) = -50; long-term -200 (L1) + 200 (L5) = 0.
      realized_short_term_usd: "-50",
      realized_long_term_usd: "0",
      estimated_tax_usd: "-20",
    });
    expect(r.cash_request!.method_reason).toMatch(/no target/);
    expect(sells(r.proposal)).toEqual([
      {
        ticker: "AAA:XNYS",
        quantity: "15",
        lots: [
          ["10", LT, "-200"],
          ["5", ST, "50"],
        ],
      },
      { ticker: "BBB:XNYS", quantity: "20", lots: [["20", ST, "-100"]] },
      { ticker: "CCC:XNYS", quantity: "40", lots: [["40", LT, "200"]] },
    ]);
    expect(r.proposal!.orders.filter((o) => !o.amount.startsWith("-"))).toEqual([]);
    // The least tax of every feasible lot set, by brute force.
    expect(leastTaxBruteForce(PLAIN, 3000)).toBeCloseTo(-20, 9);
  });

  it.each(["450", "1234.56", "2599.99", "4321.37", "5100"])(
    "raises %s USD to the cent with the brute force's least tax among the feasible lot sets",
    async (amount) => {
      const c = (await withdraw(plain, amount)).cash_request!;
      expect(Math.abs(Number(c.cash_raised_usd) - Number(amount))).toBeLessThan(0.01);
      expect(Number(c.cash_raised_usd)).toBeGreaterThanOrEqual(Number(amount));
      expect(Number(c.estimated_tax_usd)).toBeCloseTo(leastTaxBruteForce(PLAIN, Number(amount)), 3);
    },
  );

  it("with whole shares and a 500 USD minimum: no order below the minimum, whole shares, the smallest amount >= X", async () => {
    // 3,010: L3 (BBB 800), L1 (AAA 800), L5 (CCC 1,000), then 410 more from AAA (already sold): 6 shares = 480.
    const r = await withdraw(strict, "3010");
    expect(r.cash_request!.cash_raised_usd).toBe("3080");
    for (const o of r.proposal!.orders) {
      expect(o.type).toBe("qty");
      expect(Number.isInteger(Number(o.amount))).toBe(true);
      expect(-Number(o.amount) * LAST[o.ticker.split(":")[0]!]!).toBeGreaterThanOrEqual(500);
    }
    // 100 USD alone is below the minimum: BBB's best lot sells the minimum, 13 whole shares (520 >= 500).
    const small = await withdraw(strict, "100");
    expect(sells(small.proposal)).toEqual([
      { ticker: "BBB:XNYS", quantity: "13", lots: [["13", ST, "-65"]] },
    ]);
    expect(small.cash_request).toMatchObject({ cash_raised_usd: "520", covered: true });
  });
});

describe("cash requests with the optimizer (indexed account)", () => {
  it("invests a deposit: cash after is about the 2% buffer, and the stored cash is unchanged", async () => {
    const r = await rebalanceAccount(ctx, org, indexed, {
      clientUuid,
      cashRequest: { deposit_usd: "10000" },
    });
    expect(r.optimization).not.toBeNull();
    expect(r.optimization!.cash_usd).toBe(10000);
    // NAV 5,200 + 10,000 = 15,200; the buffer keeps 2% = 304 USD in cash, the rest is invested.
    expect(r.cash_request).toMatchObject({ kind: "deposit", method: "optimizer", minimum_cash_usd: "304" });
    const after = Number(r.cash_request!.cash_after_usd);
    expect(after).toBeGreaterThanOrEqual(304);
    expect(after).toBeLessThan(304 + 100);
    expect(r.proposal!.nav_usd).toBe("15200");
    const buys = r.proposal!.orders.filter((o) => !o.amount.startsWith("-"));
    expect(buys.length).toBeGreaterThan(0);
    expect((await store.accounts.require(org, clientUuid, indexed)).cashValueUsd).toBe("0");
    // Without the deposit the account has no cash to invest.
    const none = await rebalanceAccount(ctx, org, indexed, { clientUuid });
    expect(none.cash_request).toBeNull();
    expect(none.optimization!.cash_usd).toBe(0);
  });

  it("withdraws 2,000 USD: the account ends with cash >= the withdrawal + its buffer, with the taxes reported", async () => {
    const r = await withdraw(indexed, "2000");
    expect(r.cash_request!.method).toBe("optimizer");
    // Buffer 2% x 5,200 = 104: at least 2,104 USD in cash after the orders.
    expect(r.optimization!.cash_after_usd).toBeGreaterThanOrEqual(2104 - 1e-6);
    expect(Number(r.cash_request!.cash_after_usd)).toBeGreaterThanOrEqual(2104);
    expect(r.cash_request!.covered).toBe(true);
    // The optimizer reserved it: investable = 5,200 - 104 - 2,000 = 3,096, and no order is below the default
    // minimum trade (100 USD) unless it closes a position.
    expect(r.optimization!.investable_usd).toBeCloseTo(3096, 6);
    expect(r.proposal!.investable_usd).toBe("3096");
    for (const o of r.proposal!.orders) {
      const usd =
        o.type === "qty" ? Math.abs(Number(o.amount)) * LAST[o.ticker.split(":")[0]!]! : Number(o.amount);
      const closes = o.type === "qty" && Number(o.amount) === -Number(o.existing_quantity);
      expect(usd >= 100 || closes, `${o.ticker} ${o.amount}`).toBe(true);
    }
    // The reported gains are the proposal's, and the tax is theirs at 40% / 15%.
    const realized = r.proposal!.realized!;
    expect(r.cash_request!.realized_short_term_usd).toBe(realized.taxable_short_term_usd);
    expect(Number(r.cash_request!.estimated_tax_usd)).toBeCloseTo(
      0.4 * Number(realized.taxable_short_term_usd) + 0.15 * Number(realized.taxable_long_term_usd),
      8,
    );
  });
});

describe("withdrawal by the lot engine (no risk model)", () => {
  it("falls back to the lot engine when the indexed account has too little history for its risk model", async () => {
    // On 2025-04-15 the store holds 30 daily returns, below the 60 the pca model needs.
    const r = await rebalanceAccount(ctx, org, indexed, {
      clientUuid,
      asOf: "2025-04-15",
      cashRequest: { withdraw_usd: "1000" },
    });
    expect(r.optimization).toBeNull();
    expect(r.cash_request!.method).toBe("lot_engine");
    expect(r.cash_request!.method_reason).toMatch(
      /No risk model applies \(risk_model_name "pca" needs at least 60/,
    );
    // The 2% buffer of the NAV on that date stays on top of the 1,000 USD.
    const c = r.cash_request!;
    expect(Number(c.cash_needed_usd)).toBeCloseTo(1000 + Number(c.minimum_cash_usd), 9);
    expect(Number(c.cash_raised_usd) - Number(c.cash_needed_usd)).toBeGreaterThanOrEqual(0);
    expect(Number(c.cash_raised_usd) - Number(c.cash_needed_usd)).toBeLessThan(0.01);
    expect(c.covered).toBe(true);
    // Without a cash request the same date is the optimizer's error, as before.
    await expect(
      (() => rebalanceAccount(ctx, org, indexed, { clientUuid, asOf: "2025-04-15" }))(),
    ).rejects.toThrow(/needs at least 60/);
  });
});

describe("bad cash requests", () => {
  it("refuses a withdrawal above the account's value, or above it less the buffers, naming the field", async () => {
    const over = () => withdraw(plain, "5200.01");
    await expect(over()).rejects.toThrow(ValidationError);
    await expect(over()).rejects.toThrow(
      "withdraw_usd 5200.01 is more than the account's value of 5200.00 USD on 2025-06-30.",
    );
    try {
      await over();
    } catch (e) {
      expect((e as ValidationError).issues[0]!.path).toBe("cash_request.withdraw_usd");
    }
    // 2% of 5,200 = 104 stays in cash: at most 5,096 can be withdrawn.
    await expect((() => withdraw(indexed, "5100"))()).rejects.toThrow(/at most 5096.00 USD can be withdrawn/);
  });

  it("over HTTP: zero, negative, malformed and double amounts are 400s naming the field", async () => {
    const app = createApp({ ctx });
    const path = `/api/v1/custom/org/${org}/clients/${clientUuid}/accounts/${plain}/rebalance/`;
    const post = async (cash_request: unknown) => {
      const res = await app.request(path, {
        method: "POST",
        headers: { "X-Api-Key": key, "Content-Type": "application/json" },
        body: JSON.stringify({ cash_request }),
      });
      return { status: res.status, body: JSON.stringify(await res.json()) };
    };
    for (const bad of [{ withdraw_usd: "0" }, { withdraw_usd: "-5" }, { withdraw_usd: "12.345" }]) {
      const r = await post(bad);
      expect(r.status).toBe(400);
      expect(r.body).toContain("cash_request.withdraw_usd");
    }
    const both = await post({ withdraw_usd: "10", deposit_usd: "10" });
    expect(both.status).toBe(400);
    expect(both.body).toContain("not both");
    const neither = await post({});
    expect(neither.status).toBe(400);
    expect(neither.body).toContain("exactly one of withdraw_usd or deposit_usd");
    const tooMuch = await post({ withdraw_usd: "9000" });
    expect(tooMuch.status).toBe(400);
    expect(tooMuch.body).toContain("more than the account's value");
  });
});

/** Runs the CLI on this store (or with `remote`: the given arguments only); its exit code and output. */
async function cli(args: string[], json: boolean, remote = false) {
  const out = memoryOutput(json);
  const local = remote ? [] : ["--store", file, "--org", org];
  const code = await main(["node", "lotwise", ...args, ...local], { output: () => out });
  return { code, stdout: out.stdout.join("\n"), stderr: out.stderr.join("\n") };
}

describe("HTTP and CLI", () => {
  /** The answer without what differs between two stored proposals (uuid, creation time). */
  const stable = (r: AccountRebalance) => ({
    ...r,
    proposal: r.proposal === null ? null : { ...r.proposal, proposal_uuid: "-", created: "-" },
  });

  it("answers the service's withdrawal over HTTP, and the CLI prints the same locally and remotely", async () => {
    const service = await withdraw(plain, "3000");
    const app = createApp({ ctx });
    const res = await app.request(
      `/api/v1/custom/org/${org}/clients/${clientUuid}/accounts/${plain}/rebalance/`,
      {
        method: "POST",
        headers: { "X-Api-Key": key, "Content-Type": "application/json" },
        body: JSON.stringify({ cash_request: { withdraw_usd: "3000" } }),
      },
    );
    expect(res.status).toBe(200);
    expect(stable((await res.json()) as AccountRebalance)).toEqual(stable(service));

    const args = ["rebalance", "--account", plain, "--withdraw", "3000"];
    const local = await cli([...args, "--json"], true);
    expect(local.code, local.stderr).toBe(0);
    const localAnswer = JSON.parse(local.stdout) as AccountRebalance;
    expect(stable(localAnswer)).toEqual(stable(service));

    const handle = await serve({ ctx, port: 0, log: () => {} });
    try {
      const remote = await cli([...args, "--json", "--url", handle.url, "--api-key", key], true, true);
      expect(remote.code, remote.stderr).toBe(0);
      expect(stable(JSON.parse(remote.stdout) as AccountRebalance)).toEqual(stable(localAnswer));
    } finally {
      await handle.close();
    }

    const human = await cli(args, false);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toContain("lot engine (least-tax sales)");
    expect(human.stdout).toMatch(/Estimated tax \(USD\)\s+│ -20\.00/);
  });

  it("refuses --withdraw with --deposit, and a zero amount, in the CLI", async () => {
    const both = await cli(["rebalance", "--account", plain, "--withdraw", "10", "--deposit", "10"], false);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain("either --withdraw or --deposit, not both");
    const zero = await cli(["rebalance", "--account", plain, "--withdraw", "0"], false);
    expect(zero.code).not.toBe(0);
    expect(zero.stderr).toContain("cash_request.withdraw_usd");
  });
});
