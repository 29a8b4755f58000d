import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listing } from "../../test/helpers/listing.js";
import { weekdays } from "../../test/helpers/weekdays.js";
import { main } from "../cli/main.js";
import { memoryOutput } from "../cli/output.js";
import { harvestScanSchema } from "../contract/index.js";
import { createApp, serve } from "../server/index.js";
import { openSqliteStore, type SqliteStore } from "../store/index.js";
import { harvestScan } from "./harvest.js";
import {
  createAccount,
  createClient,
  createOrganization,
  createPortfolioConfig,
  type ServiceContext,
  updatePortfolioConfig,
} from "./index.js";

/**
 * A hand market of USD listings, priced on every weekday from 2025-03-03 to 2025-06-30 (86 days, enough returns
 * for the correlations of the substitutes). Sector 45 (classification sector / group / industry / sub-industry):
 * AAA 45/4510/451010/45101010, BBB same sub-industry as AAA, CCC 45/4520/452010/45201010, DDD 45/4510/451020,
 * FFF, GGG 45/4510/451030, HHH, III, JJJ; EEE is in sector 10. Closes on 2025-06-30 (the only ones the lots'
 * losses depend on): AAA 80, BBB 40, CCC 25, DDD 50, EEE 10, FFF 10, GGG 30, HHH 20, III 10, JJJ 25.
 */
const CLASS: Record<string, [number, number, number, number]> = {
  AAA: [45, 4510, 451010, 45101010],
  BBB: [45, 4510, 451010, 45101010],
  CCC: [45, 4520, 452010, 45201010],
  DDD: [45, 4510, 451020, 45102010],
  EEE: [10, 1010, 101010, 10101010],
  FFF: [45, 4510, 451010, 45101020],
  GGG: [45, 4510, 451030, 45103010],
  HHH: [45, 4510, 451010, 45101010],
  III: [45, 4510, 451010, 45101010],
  JJJ: [45, 4530, 453010, 45301010],
};
const LAST_CLOSE: Record<string, number> = {
  AAA: 80,
  BBB: 40,
  CCC: 25,
  DDD: 50,
  EEE: 10,
  FFF: 10,
  GGG: 30,
  HHH: 20,
  III: 10,
  JJJ: 25,
};

function security(symbol: string) {
  const [sector, industryGroup, industry, subIndustry] = CLASS[symbol]!;
  return listing(`${symbol}:XNYS`, { sector, industryGroup, industry, subIndustry });
}

/** A seeded sequence of small returns (a linear congruential generator: the same numbers on every machine). */
function noise(seed: number, n: number): number[] {
  let x = seed;
  return Array.from({ length: n }, () => {
    x = (x * 1103515245 + 12345) % 2147483648;
    return (x / 2147483648 - 0.5) * 0.04;
  });
}

const DATES = weekdays("2025-03-03", "2025-06-30");
const R = DATES.length - 1;
const base = noise(1, R);
/** Daily returns of each asset: BBB, EEE, FFF and III move exactly like AAA; DDD the opposite way. */
const RETURNS: Record<string, number[]> = {
  AAA: base,
  BBB: base,
  CCC: base.map((r, t) => 0.6 * r + noise(2, R)[t]!),
  DDD: base.map((r) => -r),
  EEE: base,
  FFF: base,
  GGG: base.map((r, t) => 0.3 * r + noise(3, R)[t]!),
  HHH: base,
  III: base,
  JJJ: noise(4, R).map((r, t) => r + 0.5 * base[t]!),
};

/** Closes from the returns, scaled so that the last close is LAST_CLOSE. */
function closes(symbol: string): number[] {
  const path = [1];
  for (const r of RETURNS[symbol]!) path.push(path[path.length - 1]! * (1 + r));
  const k = LAST_CLOSE[symbol]! / path[path.length - 1]!;
  return path.map((p, t) => (t === path.length - 1 ? LAST_CLOSE[symbol]! : p * k));
}

function pearson(x: number[], y: number[]): number {
  const mx = x.reduce((a, b) => a + b, 0) / x.length;
  const my = y.reduce((a, b) => a + b, 0) / y.length;
  let c = 0;
  let vx = 0;
  let vy = 0;
  for (let i = 0; i < x.length; i++) {
    c += (x[i]! - mx) * (y[i]! - my);
    vx += (x[i]! - mx) ** 2;
    vy += (y[i]! - my) ** 2;
  }
  return c / Math.sqrt(vx * vy);
}

/** Close-to-close returns of the stored closes (what the service sees). */
function storedReturns(symbol: string): number[] {
  const c = closes(symbol);
  return c.slice(1).map((v, t) => v / c[t]! - 1);
}

async function writeHandMarket(store: SqliteStore): Promise<void> {
  const m = store.market;
  await m.upsertSecurities(Object.keys(CLASS).map(security));
  await m.insertPrices(
    Object.keys(CLASS).flatMap((symbol) =>
      closes(symbol).map((close, t) => ({
        themeAssetId: `${symbol}:XNYS`,
        date: DATES[t]!,
        open: null,
        high: null,
        low: null,
        close,
        adjClose: null,
        volume: null,
      })),
    ),
  );
}

const dir = mkdtempSync(join(tmpdir(), "lotwise-harvest-"));
const file = join(dir, "harvest.db");
let store: SqliteStore;
let ctx: ServiceContext;
let org: string;
let clientUuid: string;
let accountUuid: string;
let configUuid: string;
let key: string;

const lot = (symbol: string, quantity: string, costBasis: string, tradeDate: string, extra = {}) => ({
  theme_asset_id: `${symbol}:XNYS`,
  quantity,
  cost_basis: costBasis,
  trade_date: tradeDate,
  ...extra,
});

beforeAll(async () => {
  store = openSqliteStore(file);
  await writeHandMarket(store);
  ctx = { store, clock: () => new Date("2025-07-01T12:00:00Z") };
  const made = await createOrganization(ctx, "Harvest test");
  org = made.organization.uuid;
  key = made.apiKey.key;
  configUuid = (
    await createPortfolioConfig(ctx, org, {
      name: "Harvest",
      tax_preferences: { short_term_rate: "0.4", long_term_rate: "0.15" },
      no_hold_tickers: [{ theme_asset_id: "FFF:XNYS" }],
      no_trade_tickers: [{ theme_asset_id: "HHH:XNYS" }],
    })
  ).uuid;
  clientUuid = (await createClient(ctx, org, { external_id: "harvest-client" })).uuid;
  accountUuid = (
    await createAccount(ctx, org, clientUuid, {
      name: "Taxable",
      cash_value_usd: "1000",
      portfolio_config_uuid: configUuid,
      holdings: {
        tax_lots: [
          lot("AAA", "100", "100", "2024-01-02"), // long-term loss 2,000
          lot("BBB", "50", "50", "2025-02-03"), // short-term loss 500
          lot("CCC", "10", "26", "2025-01-02"), // loss 10 = 3.85% of basis: below the threshold
          lot("DDD", "20", "60", "2025-01-02"), // loss 200, but...
          lot("DDD", "1", "49", "2025-06-16"), // ... DDD bought again in this account 14 days ago (a gain itself)
          lot("GGG", "10", "40", "2025-01-02"), // loss 100, but GGG bought in the client's IRA 10 days ago
          lot("HHH", "10", "30", "2025-01-02"), // loss 100, but HHH is on the no-trade list
          lot("JJJ", "10", "30", "2025-06-20"), // loss 50 on a lot bought 10 days ago: its own purchase, no wash sale
        ],
      },
    })
  ).uuid;
  await createAccount(ctx, org, clientUuid, {
    name: "IRA",
    cash_value_usd: "0",
    holdings: {
      tax_lots: [
        lot("GGG", "5", "31", "2025-06-20"),
        lot("III", "10", "30", "2024-01-02", { last_sold_for_loss_date: "2025-06-25" }),
      ],
    },
  });
  // Another client's recent purchase of AAA does not touch this household.
  const stranger = (await createClient(ctx, org, { external_id: "someone-else" })).uuid;
  await createAccount(ctx, org, stranger, {
    name: "Stranger",
    cash_value_usd: "0",
    holdings: { tax_lots: [lot("AAA", "1", "81", "2025-06-25")] },
  });
});
afterAll(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("harvest scan", () => {
  it("computes each lot's loss, term and tax value by hand, and totals the harvestable ones", async () => {
    const h = await harvestScan(ctx, org, accountUuid, { clientUuid });
    expect(harvestScanSchema.parse(h)).toEqual(h);
    expect(h.as_of_date).toBe("2025-06-30");
    expect(h.thresholds).toEqual({
      min_loss_usd: "0",
      min_loss_fraction: "0.05",
      wash_sale_threshold: 30,
      long_term_threshold: 365,
    });
    expect(h.rates).toEqual({ short_term_rate: "0.4", long_term_rate: "0.15" });
    const rows = h.lots.map((l) => [
      l.ticker_symbol,
      l.trade_date,
      l.cost_basis_usd,
      l.value_usd,
      l.loss_usd,
      l.loss_fraction,
      l.term,
      l.estimated_tax_value_usd,
      l.harvestable,
      l.reasons,
      l.wash_sale_window_ends,
    ]);
    expect(rows).toEqual([
      // AAA: 100 x (100 - 80) = 2,000 long-term x 15% = 300. BBB: 50 x 10 = 500 short-term x 40% = 200.
      ["AAA", "2024-01-02", "10000", "8000", "2000", "0.2", "long_term", "300", true, [], null],
      ["BBB", "2025-02-03", "2500", "2000", "500", "0.2", "short_term", "200", true, [], null],
      // JJJ: 10 x 5 = 50 (1/6 of basis) x 40% = 20; bought 10 days ago, but no OTHER lot of JJJ was.
      ["JJJ", "2025-06-20", "300", "250", "50", "0.1666666667", "short_term", "20", true, [], null],
      [
        "DDD",
        "2025-01-02",
        "1200",
        "1000",
        "200",
        "0.1666666667",
        "short_term",
        "80",
        false,
        ["wash_sale_account"],
        "2025-07-16",
      ],
      [
        "GGG",
        "2025-01-02",
        "400",
        "300",
        "100",
        "0.25",
        "short_term",
        "40",
        false,
        ["wash_sale_household"],
        "2025-07-20",
      ],
      [
        "HHH",
        "2025-01-02",
        "300",
        "200",
        "100",
        "0.3333333333",
        "short_term",
        "40",
        false,
        ["no_trade"],
        null,
      ],
      [
        "CCC",
        "2025-01-02",
        "260",
        "250",
        "10",
        "0.0384615385",
        "short_term",
        "4",
        false,
        ["below_threshold"],
        null,
      ],
    ]);
    expect(h.totals).toEqual({
      loss_lots: 7,
      harvestable_lots: 3,
      harvestable_loss_usd: "2550",
      harvestable_short_term_loss_usd: "550",
      harvestable_long_term_loss_usd: "2000",
      estimated_tax_value_usd: "520",
    });
  });

  it("matches the worked example of docs/harvest.md row by row", async () => {
    const doc = readFileSync(new URL("../../docs/harvest.md", import.meta.url), "utf8");
    const section = doc.slice(doc.indexOf("## Worked example"));
    const rows = section
      .split("\n")
      .filter((l) => /^\| [A-Z]{3} \|/.test(l))
      .map((l) =>
        l
          .split("|")
          .slice(1, -1)
          .map((c) => c.trim()),
      );
    const h = await harvestScan(ctx, org, accountUuid, { clientUuid });
    const num = (s: string) => Number(s.replace(/,/g, "").replace("%", ""));
    expect(rows.map((r) => r[0])).toEqual(h.lots.map((l) => l.ticker_symbol));
    rows.forEach(([symbol, bought, basis, value, loss, fraction, term, tax, verdict], i) => {
      const l = h.lots[i]!;
      expect([symbol, bought, num(basis!), num(value!), num(loss!), num(tax!)]).toEqual([
        l.ticker_symbol,
        l.trade_date,
        Number(l.cost_basis_usd),
        Number(l.value_usd),
        Number(l.loss_usd),
        Number(l.estimated_tax_value_usd),
      ]);
      expect(num(fraction!)).toBeCloseTo(Number(l.loss_fraction) * 100, 2);
      expect(`${term}_term`).toBe(l.term);
      expect(verdict).toBe(
        l.harvestable
          ? "yes"
          : `no: ${l.reasons.join(", ")}${l.wash_sale_window_ends ? ` until ${l.wash_sale_window_ends}` : ""}`,
      );
    });
    expect(section).toContain(`loss 2,550 (short-term 550, long-term 2,000), estimated tax value`);
    expect(h.totals.harvestable_loss_usd).toBe("2550");
    expect(h.totals.estimated_tax_value_usd).toBe("520");
  });

  it("excludes a lot exposed to a purchase of the asset in the same account within the window", async () => {
    const h = await harvestScan(ctx, org, accountUuid, { clientUuid });
    const ddd = h.lots.filter((l) => l.theme_asset_id === "DDD:XNYS");
    // Only the old lot is at a loss; the lot bought on 2025-06-16 (a gain) blocks it until 2025-06-16 + 30 days.
    expect(ddd.map((l) => [l.trade_date, l.harvestable, l.reasons, l.wash_sale_window_ends])).toEqual([
      ["2025-01-02", false, ["wash_sale_account"], "2025-07-16"],
    ]);
  });

  it("excludes a lot exposed to a household purchase (another account of the same client), not another client's", async () => {
    const h = await harvestScan(ctx, org, accountUuid, { clientUuid });
    const ggg = h.lots.find((l) => l.theme_asset_id === "GGG:XNYS")!;
    expect(ggg.harvestable).toBe(false);
    expect(ggg.reasons).toEqual(["wash_sale_household"]);
    expect(ggg.wash_sale_window_ends).toBe("2025-07-20");
    // Another client bought AAA on 2025-06-25: AAA stays harvestable.
    expect(h.lots.find((l) => l.theme_asset_id === "AAA:XNYS")!.harvestable).toBe(true);
  });

  it("reads the wash-sale window from tax_preferences.wash_sale_threshold", async () => {
    await updatePortfolioConfig(ctx, org, configUuid, {
      tax_preferences: { short_term_rate: "0.4", long_term_rate: "0.15", wash_sale_threshold: 10 },
    });
    try {
      const h = await harvestScan(ctx, org, accountUuid, { clientUuid });
      expect(h.thresholds.wash_sale_threshold).toBe(10);
      // DDD was bought again 14 days ago (outside 10 days); GGG 10 days ago (the window is inclusive).
      const by = (id: string) => h.lots.find((l) => l.theme_asset_id === id)!;
      expect([by("DDD:XNYS").harvestable, by("DDD:XNYS").reasons]).toEqual([true, []]);
      expect([by("GGG:XNYS").reasons, by("GGG:XNYS").wash_sale_window_ends]).toEqual([
        ["wash_sale_household"],
        "2025-06-30",
      ]);
    } finally {
      await updatePortfolioConfig(ctx, org, configUuid, {
        tax_preferences: { short_term_rate: "0.4", long_term_rate: "0.15", wash_sale_threshold: null },
      });
    }
  });

  it("applies the loss threshold in USD and as a fraction of basis", async () => {
    const usd = await harvestScan(ctx, org, accountUuid, { clientUuid, minLossUsd: "500" });
    expect(usd.lots.filter((l) => l.harvestable).map((l) => l.ticker_symbol)).toEqual(["AAA", "BBB"]);
    expect(usd.lots.find((l) => l.ticker_symbol === "JJJ")!.reasons).toEqual(["below_threshold"]);
    expect(usd.totals.harvestable_loss_usd).toBe("2500");
    expect(usd.totals.estimated_tax_value_usd).toBe("500");
    const frac = await harvestScan(ctx, org, accountUuid, { clientUuid, minLossFraction: "0.03" });
    expect(frac.lots.find((l) => l.ticker_symbol === "CCC")!.harvestable).toBe(true);
    const strict = await harvestScan(ctx, org, accountUuid, { clientUuid, minLossFraction: "0.2" });
    expect(strict.lots.filter((l) => l.harvestable).map((l) => l.ticker_symbol)).toEqual(["AAA", "BBB"]);
  });

  it("proposes as substitutes the most correlated same-sector assets that can be bought", async () => {
    const h = await harvestScan(ctx, org, accountUuid, { clientUuid });
    expect(h.substitutes.map((s) => s.ticker_symbol)).toEqual(["AAA", "BBB", "JJJ"]);
    // Excluded whatever their correlation: BBB and JJJ (harvested too), EEE (sector 10), FFF (no-hold),
    // HHH (no-trade), III (sold at a loss in the IRA on 2025-06-25), DDD (moves opposite: correlation -1).
    // Left: CCC and GGG, ranked by the correlation of their daily returns with the harvested asset.
    const expected = (symbol: string) =>
      ["CCC", "GGG"]
        .map((c) => ({ c, rho: pearson(storedReturns(symbol), storedReturns(c)) }))
        .filter((x) => x.rho > 0)
        .sort((a, b) => b.rho - a.rho);
    for (const s of h.substitutes) {
      const want = expected(s.ticker_symbol!);
      expect(s.candidates.map((c) => c.ticker_symbol)).toEqual(want.map((w) => w.c));
      s.candidates.forEach((c, i) => {
        expect(Number(c.correlation)).toBeCloseTo(want[i]!.rho, 8);
      });
    }
    const aaa = h.substitutes[0]!.candidates;
    expect(aaa.map((c) => [c.ticker_symbol, c.shared_classification])).toEqual([
      ["CCC", "sector"],
      ["GGG", "industry_group"],
    ]);
  });

  it("proposes the other member of a perfectly correlated pair once it is no longer harvested", async () => {
    // With a threshold that leaves BBB out, BBB (same sub-industry, the same returns) is AAA's best replacement.
    const h = await harvestScan(ctx, org, accountUuid, { clientUuid, minLossUsd: "1000" });
    expect(h.substitutes.map((s) => s.ticker_symbol)).toEqual(["AAA"]);
    expect(h.substitutes[0]!.candidates[0]).toEqual({
      theme_asset_id: "BBB:XNYS",
      ticker_symbol: "BBB",
      correlation: "1",
      shared_classification: "sub_industry",
    });
    expect(h.substitutes[0]!.candidates).toHaveLength(3);
  });

  it("values a Toronto listing at the date's FX rate, whatever the currency of the lot's basis", async () => {
    // KKK on the TSX (sector 20, alone): 30 CAD on 2025-06-30 at 1.25 CAD per USD = 24 USD a share.
    await store.market.upsertSecurities([
      {
        ...security("AAA"),
        symbol: "KKK",
        themeAssetId: "KKK:XTSE",
        mic: "XTSE",
        currency: "CAD",
        country: "CA",
        sector: 20,
      },
    ]);
    await store.market.insertPrices(
      DATES.map((date) => ({
        themeAssetId: "KKK:XTSE",
        date,
        open: null,
        high: null,
        low: null,
        close: 30,
        adjClose: null,
        volume: null,
      })),
    );
    await store.market.insertFx(DATES.map((date) => ({ date, currency: "CAD" as const, perUsd: 1.25 })));
    const canadian = (await createClient(ctx, org, { external_id: "cad-client" })).uuid;
    const account = (
      await createAccount(ctx, org, canadian, {
        name: "CAD",
        cash_value_usd: "0",
        holdings: {
          tax_lots: [
            {
              theme_asset_id: "KKK:XTSE",
              quantity: "10",
              cost_basis: "40",
              trade_date: "2025-01-02",
              cost_basis_currency: "CAD",
              fx_rate: "1.25",
            },
          ],
        },
      })
    ).uuid;
    // A basis recorded in USD (a broker export in the account's currency). Such a lot is refused at write time now
    // (service/lot-currency.ts); one stored before that check is still valued.
    await store.accounts.appendLots(account, [
      {
        themeAssetId: "KKK:XTSE",
        quantity: "10",
        costBasis: "30",
        costBasisUnit: "per_share",
        costBasisCurrency: "USD",
        fxRate: "1",
        tradeDate: "2025-01-03",
        holdingPeriodStart: null,
        washSaleDate: null,
        lastSoldForLossDate: null,
      },
    ]);
    const h = await harvestScan(ctx, org, account);
    expect(
      h.lots.map((l) => [l.trade_date, l.cost_basis_usd, l.value_usd, l.loss_usd, l.loss_fraction]),
    ).toEqual([
      ["2025-01-02", "320", "240", "80", "0.25"], // 400 CAD / 1.25 at purchase; 10 x 30 / 1.25 now
      ["2025-01-03", "300", "240", "60", "0.2"],
    ]);
    // The account has no configuration: the default short-term rate, 37%.
    expect(h.rates.short_term_rate).toBe("0.37");
    expect(h.totals.estimated_tax_value_usd).toBe("51.8"); // 140 x 0.37
    expect(h.substitutes).toEqual([{ theme_asset_id: "KKK:XTSE", ticker_symbol: "KKK", candidates: [] }]);
  });

  it("answers the same through HTTP and the CLI as through the service", async () => {
    const other = (await createOrganization(ctx, "Other")).apiKey.key;
    const app = createApp({ ctx });
    const path = `/api/v1/custom/org/${org}/clients/${clientUuid}/accounts/${accountUuid}/harvest/`;
    const res = await app.request(`${path}?as_of_date=2025-06-30&min_loss_usd=100`, {
      headers: { "X-Api-Key": key },
    });
    expect(res.status).toBe(200);
    const service = await harvestScan(ctx, org, accountUuid, { clientUuid, minLossUsd: "100" });
    expect(await res.json()).toEqual(service);
    expect((await app.request(path, { headers: { "X-Api-Key": other } })).status).toBe(404);
    const bad = await app.request(`${path}?min_loss_fraction=5`, { headers: { "X-Api-Key": key } });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(await bad.json())).toMatch(/min_loss_fraction/);

    const out = memoryOutput(true);
    const code = await main(
      [
        "node",
        "lotwise",
        "accounts",
        "harvest",
        accountUuid,
        "--store",
        file,
        "--org",
        org,
        "--min-loss-usd",
        "100",
        "--json",
      ],
      { output: () => out },
    );
    expect(code, out.stderr.join("\n")).toBe(0);
    expect(JSON.parse(out.stdout.join("\n"))).toEqual(service);

    // The remote CLI (over a listening server) prints exactly what the local one does.
    const handle = await serve({ ctx, port: 0, log: () => {} });
    try {
      const remote = memoryOutput(true);
      const remoteCode = await main(
        [
          "node",
          "lotwise",
          "accounts",
          "harvest",
          accountUuid,
          "--url",
          handle.url,
          "--api-key",
          key,
          "--min-loss-usd",
          "100",
          "--json",
        ],
        { output: () => remote },
      );
      expect(remoteCode, remote.stderr.join("\n")).toBe(0);
      expect(remote.stdout).toEqual(out.stdout);
    } finally {
      await handle.close();
    }

    const human = memoryOutput(false);
    const shown = await main(
      ["node", "lotwise", "accounts", "harvest", accountUuid, "--store", file, "--org", org, "--top", "2"],
      { output: () => human },
    );
    expect(shown, human.stderr.join("\n")).toBe(0);
    const text = human.stdout.join("\n");
    expect(text).toContain("Estimated tax value (USD)");
    expect(text).toContain("520.00");
    expect(text).toContain("Lots at a loss (2 of 7");
    expect(text).toContain("... and 5 more lots at a loss (1 harvestable, 50.00 USD of loss)");
  });
});
