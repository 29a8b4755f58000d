/**
 * Units and dates checked (issue 17, item 4): fraction fields refuse percents with the unit, weights that leave
 * cash uninvested say so, as-of dates after the market data are refused naming its last date, lots dated after the
 * market data are stored and valued at the latest close with a warning, and error paths name request fields.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { main } from "../src/cli/main.js";
import { memoryOutput } from "../src/cli/output.js";
import { createApp, type LotwiseApp } from "../src/server/index.js";
import { getPortfolioConfig } from "../src/service/index.js";
import {
  createTestStore,
  MARKET_END_DATE,
  type SeededOrganization,
  seedOrganization,
  type TestStore,
} from "./helpers/fixture.js";
import { envelope, send } from "./helpers/http.js";

const dir = mkdtempSync(join(tmpdir(), "lotwise-units-"));
const file = join(dir, "units.db");
let t: TestStore;
let seeded: SeededOrganization;
let app: LotwiseApp;
let key: string;
let org: string;

beforeAll(async () => {
  t = await createTestStore({ path: file });
  seeded = await seedOrganization(t, t.orgA);
  app = createApp({ ctx: t.ctx });
  key = t.orgA.apiKey;
  org = `/api/v1/custom/org/${t.orgA.uuid}`;
});
afterAll(() => {
  t.close();
  rmSync(dir, { recursive: true, force: true });
});

function details(a: Awaited<ReturnType<typeof send>>): { path: string; message: string }[] {
  return envelope(a).details!.map((d) => ({ path: d.path!, message: d.message! }));
}

describe("fraction fields refuse values beyond their range with the unit", () => {
  const patch = (json: unknown) =>
    send(app, "PATCH", `${org}/portfolio_configs/${seeded.configUuid}/`, { key, json });

  it("refuses max_weight 5 naming the field and saying 0.05 means 5%", async () => {
    const a = await patch({ max_weight: "5" });
    expect(a.status).toBe(400);
    expect(details(a)).toEqual([
      {
        path: "max_weight",
        message: "max_weight is a fraction of the portfolio, -1 to 1: 0.05 means 5%; got 5",
      },
    ]);
    expect((await getPortfolioConfig(t.ctx, t.orgA.uuid, seeded.configUuid)).max_weight).toBe("0.05");
  });

  it("refuses each fraction field above 1 and accepts 1", async () => {
    const fields = [
      "min_weight",
      "min_active_weight",
      "max_active_weight",
      "drift_warning_threshold",
      "drift_breach_threshold",
      "asset_drift_breach_threshold",
      "linear_tcaf",
    ];
    const a = await patch(Object.fromEntries(fields.map((f) => [f, "2"])));
    expect(a.status).toBe(400);
    const got = details(a);
    expect(got.map((d) => d.path).sort()).toEqual([...fields].sort());
    for (const d of got) expect(d.message).toMatch(new RegExp(`^${d.path} is a .*0\\.05 means 5%; got 2$`));
    const ok = await patch({ max_weight: "1", drift_breach_threshold: "1" });
    expect(ok.status, ok.text).toBe(200);
  });

  it("refuses a weight below -1 and a tax rate above 1 with the unit", async () => {
    const a = await patch({
      min_weight: "-5",
      tax_preferences: { short_term_rate: "37" },
      target_ticker_weights: [{ theme_asset_id: t.usTickers[2]!, upper_bound: "8" }],
    });
    expect(a.status).toBe(400);
    expect(details(a).sort((x, y) => x.path.localeCompare(y.path))).toEqual([
      {
        path: "min_weight",
        message: "min_weight is a fraction of the portfolio, -1 to 1: 0.05 means 5%; got -5",
      },
      {
        path: "target_ticker_weights[0].upper_bound",
        message: "upper_bound is a fraction of the portfolio, -1 to 1: 0.05 means 5%; got 8",
      },
      {
        path: "tax_preferences.short_term_rate",
        message: "short_term_rate is a fraction, 0 to 1: 0.37 means 37%; got 37",
      },
    ]);
  });

  it("keeps percent fields in percent: max_active_risk_pct 5 is stored", async () => {
    const a = await patch({ max_active_risk_pct: "5", max_turnover_pct: "20" });
    expect(a.status, a.text).toBe(200);
    expect((await getPortfolioConfig(t.ctx, t.orgA.uuid, seeded.configUuid)).max_active_risk_pct).toBe("5");
  });

  it("CLI configs update --set max_weight=5 fails with the unit and stores nothing", async () => {
    const before = (await getPortfolioConfig(t.ctx, t.orgA.uuid, seeded.configUuid)).max_weight;
    const out = memoryOutput(false);
    const code = await main(
      [
        "node",
        "lotwise",
        "configs",
        "update",
        seeded.configUuid,
        "--set",
        "max_weight=5",
        "--store",
        file,
        "--org",
        t.orgA.uuid,
      ],
      { output: () => out },
    );
    expect(code).not.toBe(0);
    expect([...out.stderr, ...out.stdout].join("\n")).toContain(
      "max_weight is a fraction of the portfolio, -1 to 1: 0.05 means 5%; got 5",
    );
    expect((await getPortfolioConfig(t.ctx, t.orgA.uuid, seeded.configUuid)).max_weight).toBe(before);
  });
});

describe("proposal weights: sums and paths in request terms", () => {
  const propose = (weights: [number, string][]) =>
    send(app, "POST", `${org}/clients/${seeded.clientUuid}/accounts/${seeded.accountUuid}/proposal/`, {
      key,
      json: { optimized_weights: weights.map(([i, weight]) => ({ ticker: t.usTickers[i]!, weight })) },
    });

  it("warns in LONG_ONLY when weights sum below 1 that the rest stays in cash", async () => {
    const a = await propose([
      [2, "0.25"],
      [3, "0.15"],
    ]);
    expect(a.status, a.text).toBe(200);
    const body = a.body as {
      investable_usd: string;
      warnings: { code: string; ticker: null; message: string }[];
    };
    const w = body.warnings.filter((x) => x.code === "weights_below_one");
    expect(w).toHaveLength(1);
    const rest = (Number(body.investable_usd) * 0.6).toFixed(2);
    expect(w[0]!.message).toBe(
      `The target weights sum to 0.4, not 1: the remaining 0.6 of the investable value (${rest} USD) stays in cash, on top of the cash buffers.`,
    );
  });

  it("does not warn when the weights sum to 1", async () => {
    const a = await propose([
      [2, "0.5"],
      [3, "0.5"],
    ]);
    expect(a.status, a.text).toBe(200);
    expect((a.body as { warnings: { code: string }[] }).warnings.map((x) => x.code)).not.toContain(
      "weights_below_one",
    );
  });

  it("names optimized_weights, not an internal path, when LONG_ONLY weights sum above 1", async () => {
    const a = await propose([
      [2, "0.8"],
      [3, "0.5"],
    ]);
    expect(a.status).toBe(400);
    const d = details(a);
    expect(d).toEqual([
      {
        path: "optimized_weights",
        message:
          "weights sum to 1.3, above 1 (tolerance 0.000001); a long-only proposal cannot invest more than the investable value",
      },
    ]);
    expect(a.text).not.toMatch(/targets|themeAssetId/);
  });
});

describe("as-of dates after the last market date are refused naming that date", () => {
  const account = () => `${org}/clients/${seeded.clientUuid}/accounts/${seeded.accountUuid}`;
  const late = "2026-06-30";
  const expectLate = (a: Awaited<ReturnType<typeof send>>) => {
    expect(a.status, a.text).toBe(400);
    expect(envelope(a).message).toBe(`as_of_date ${late} is after the last market date ${MARKET_END_DATE}.`);
    expect(details(a)).toEqual([
      { path: "as_of_date", message: `the store's prices end on ${MARKET_END_DATE}` },
    ]);
  };

  it("optimize", async () => {
    expectLate(await send(app, "POST", `${account()}/optimize/`, { key, json: { as_of_date: late } }));
  });

  it("rebalance", async () => {
    expectLate(await send(app, "POST", `${account()}/rebalance/`, { key, json: { as_of_date: late } }));
  });

  it("rebalance run", async () => {
    expectLate(await send(app, "POST", `${org}/rebalance_runs/`, { key, json: { as_of_date: late } }));
  });

  it("harvest scan", async () => {
    expectLate(await send(app, "GET", `${account()}/harvest/?as_of_date=${late}`, { key }));
  });

  it("CLI optimize --as-of names the last market date", async () => {
    const out = memoryOutput(false);
    const code = await main(
      [
        "node",
        "lotwise",
        "optimize",
        "--account",
        seeded.accountUuid,
        "--as-of",
        late,
        "--store",
        file,
        "--org",
        t.orgA.uuid,
      ],
      { output: () => out },
    );
    expect(code).not.toBe(0);
    expect([...out.stderr, ...out.stdout].join("\n")).toContain(
      `is after the last market date ${MARKET_END_DATE}`,
    );
  });
});

describe("a lot dated after the last market date", () => {
  it("is stored by endpoint 6 and valued at the latest close with a warning", async () => {
    const lot = {
      theme_asset_id: t.usTickers[4]!,
      quantity: "3",
      cost_basis: "20",
      trade_date: "2030-01-02",
    };
    const a = await send(app, "PATCH", `${org}/clients/${seeded.clientUuid}/`, {
      key,
      json: { holdings: { tax_lots: [lot] } },
    });
    expect(a.status, a.text).toBe(200);
    const account = (a.body as { accounts: Record<string, unknown>[] }).accounts[0] as {
      holdings: { tax_lots: { trade_date: string; quantity: string }[] };
      positions: {
        price: string;
        price_date: string;
        market_value_usd: string;
        unrealized_short_term_gain_usd: string;
      }[];
      as_of_date: string;
      unrealized_long_term_gain_usd: string;
      warnings: string[];
    };
    expect(account.holdings.tax_lots.map((l) => [l.trade_date, l.quantity])).toEqual([["2030-01-02", "3"]]);
    expect(account.as_of_date).toBe(MARKET_END_DATE);
    const close = (await t.store.market.latestPrices([lot.theme_asset_id], MARKET_END_DATE)).get(
      lot.theme_asset_id,
    )!;
    const p = account.positions[0]!;
    expect(p.price_date).toBe(close.date);
    expect(Number(p.market_value_usd)).toBeCloseTo(3 * close.close, 2);
    expect(Number(p.unrealized_short_term_gain_usd)).toBeCloseTo(3 * close.close - 60, 2);
    expect(account.unrealized_long_term_gain_usd).toBe("0");
    expect(account.warnings).toEqual([
      `The lot of 3 ${lot.theme_asset_id} dated 2030-01-02 is after the last market date ${MARKET_END_DATE}: it is valued at the latest close (${close.date}) and counts as short term.`,
    ]);
    const read = await send(app, "GET", `${org}/clients/${seeded.clientUuid}/`, { key });
    expect(read.status).toBe(200);
    expect((read.body as { accounts: { warnings: string[] }[] }).accounts[0]!.warnings).toEqual(
      account.warnings,
    );
  });

  it("is named in request terms by a proposal, which cannot sell it before its date", async () => {
    const a = await send(
      app,
      "POST",
      `${org}/clients/${seeded.clientUuid}/accounts/${seeded.accountUuid}/proposal/`,
      {
        key,
        json: { optimized_weights: [{ ticker: t.usTickers[2]!, weight: "0.5" }] },
      },
    );
    expect(a.status, a.text).toBe(400);
    expect(details(a).map((d) => d.path)).toEqual(["holdings.tax_lots[0].trade_date"]);
    expect(a.text).not.toMatch(/tradeDate|[^_]lots\[0\]|targets/);
  });
});
