import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateMarket, writeSyntheticMarket } from "../market/synthetic/index.js";
import { openSqliteStore, type SqliteStore } from "../store/index.js";
import { effectiveConfig } from "./effective-config.js";
import {
  createAccount,
  createClient,
  createOrganization,
  createPortfolioConfig,
  type ServiceContext,
} from "./index.js";

describe("effective configuration", () => {
  let store: SqliteStore;
  let ctx: ServiceContext;
  let org: string;
  let ids: string[];

  beforeAll(async () => {
    store = openSqliteStore(":memory:");
    ctx = { store, clock: () => new Date("2026-01-15T12:00:00Z") };
    const m = generateMarket({ seed: 3, securities: 50, years: 2, endDate: "2025-12-31" });
    writeSyntheticMarket(m, store.engine.market);
    ids = m.securities.filter((s) => s.currency === "USD").map((s) => s.themeAssetId);
    org = (await createOrganization(ctx, "Org")).organization.uuid;
  });
  afterAll(() => store.close());

  async function account(config: Parameters<typeof createPortfolioConfig>[2], customization?: object) {
    const cfg = await createPortfolioConfig(ctx, org, config);
    const client = await createClient(ctx, org, {});
    const a = await createAccount(ctx, org, client.uuid, { portfolio_config_uuid: cfg.uuid });
    if (customization)
      await store.accounts.update(org, client.uuid, a.uuid, { customizationConfig: customization });
    return (await store.accounts.getInOrganization(org, a.uuid))!;
  }

  it("merges the account's customization over the configuration", async () => {
    const a = await account(
      { name: "Base", max_weight: "0.1", min_weight: "0.01", no_hold_tickers: [{ theme_asset_id: ids[0]! }] },
      {
        max_weight: "0.05",
        no_hold_tickers: [{ theme_asset_id: ids[1]! }],
      },
    );
    const e = await effectiveConfig(ctx, a, "2025-12-31");
    expect(e.read.max_weight).toBe("0.05");
    expect(e.read.min_weight).toBe("0.01");
    expect(e.noHold).toEqual([ids[1]]);
  });

  it("applies the highest-priority dynamic rule in force on the date, by window and cron", async () => {
    const a = await account({
      name: "Dynamic",
      max_weight: "0.1",
      dynamic_rules: [
        {
          field_name: "max_weight",
          rules: [
            { value: "0.08", starts_from: "2025-01-01", priority: 1 },
            { value: "0.06", starts_from: "2025-06-01", expires_at: "2025-07-01", priority: 5 },
            { value: "0.04", cron: "0 0 1 */3 *", priority: 9 },
          ],
        },
      ],
    });
    expect((await effectiveConfig(ctx, a, "2024-12-31")).read.max_weight).toBe("0.1");
    expect((await effectiveConfig(ctx, a, "2025-03-03")).read.max_weight).toBe("0.08");
    expect((await effectiveConfig(ctx, a, "2025-06-15")).read.max_weight).toBe("0.06");
    expect((await effectiveConfig(ctx, a, "2025-07-01")).read.max_weight).toBe("0.04"); // cron fires on Jul 1
    expect((await effectiveConfig(ctx, a, "2025-07-02")).appliedRules).toEqual([
      { field_name: "max_weight", value: "0.08", priority: 1, rule_index: 0 },
    ]);
  });

  it("keeps a dynamic rule in force through its expires_at day (inclusive), so a one-day rule applies", async () => {
    const a = await account({
      name: "One day",
      max_weight: "0.1",
      dynamic_rules: [
        {
          field_name: "max_weight",
          rules: [{ value: "0.05", starts_from: "2025-06-30", expires_at: "2025-06-30" }],
        },
      ],
    });
    expect((await effectiveConfig(ctx, a, "2025-06-27")).read.max_weight).toBe("0.1");
    expect((await effectiveConfig(ctx, a, "2025-06-30")).read.max_weight).toBe("0.05");
    expect((await effectiveConfig(ctx, a, "2025-07-01")).read.max_weight).toBe("0.1");
  });

  it("evaluates dynamic-rule conditions over the account and keeps free text as a label", async () => {
    const a = await account({
      name: "Conditional",
      max_weight: "0.1",
      dynamic_rules: [
        { field_name: "max_weight", rules: [{ value: "0.03", condition: "nav > 1000000", priority: 2 }] },
      ],
    });
    expect(
      (await effectiveConfig(ctx, a, "2025-12-31", { account: { nav: 500_000, cash_usd: 0, positions: 3 } }))
        .read.max_weight,
    ).toBe("0.1");
    expect(
      (
        await effectiveConfig(ctx, a, "2025-12-31", {
          account: { nav: 2_000_000, cash_usd: 0, positions: 3 },
        })
      ).read.max_weight,
    ).toBe("0.03");
    const b = await account({
      name: "Label",
      dynamic_rules: [
        { field_name: "max_weight", rules: [{ value: "0.02", condition: "advisor approved" }] },
      ],
    });
    const e = await effectiveConfig(ctx, b, "2025-12-31");
    expect(e.read.max_weight).toBe("0.02");
    expect(e.warnings[0]).toMatch(/treated as a label/);
  });

  it("keeps only restrictions active at the instant and whose security condition holds", async () => {
    const s4 = (await store.market.security(ids[4]!))!;
    const s6 = (await store.market.security(ids[6]!))!;
    const a = await account({
      name: "Restrictions",
      no_trade_tickers: [
        { theme_asset_id: ids[2]!, expires_at: "2025-06-30T00:00:00Z" },
        { theme_asset_id: ids[3]!, starts_from: "2025-01-01T00:00:00Z" },
        { theme_asset_id: ids[4]!, condition: `sector = ${s4.sector}` },
        { theme_asset_id: ids[5]!, condition: "esg review" },
        { theme_asset_id: ids[6]!, condition: `sector != ${s6.sector}` },
      ],
    });
    const e = await effectiveConfig(ctx, a, "2025-12-31");
    expect(e.noTrade).toEqual([ids[3], ids[4], ids[5]]);
    expect((await effectiveConfig(ctx, a, "2025-03-31")).noTrade).toContain(ids[2]);
  });
});
