import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { Decimal } from "decimal.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  accountSchema,
  assetClassSchema,
  clientSchema,
  type PortfolioConfigCreate,
  portfolioConfigCreateSchema,
  portfolioConfigReadSchema,
} from "../contract/index.js";
import { NotFoundError, ValidationError } from "../core/errors.js";
import { openSqliteStore, type SqliteStore } from "../store/index.js";
import { buildDemo, type DemoResult } from "./demo.js";
import {
  createAssetClass,
  createClient,
  createOrganization,
  createPortfolioConfig,
  getAccount,
  getClient,
  LocalBackend,
  listPortfolioConfigs,
  readAssetClass,
  type ServiceContext,
  updateClient,
  updatePortfolioConfig,
} from "./index.js";

const FIXTURES = resolve(import.meta.dirname, "..", "..", "fixtures");

describe("service over a demo store", () => {
  let store: SqliteStore;
  let ctx: ServiceContext;
  let demo: DemoResult;
  let orgB: string;

  beforeAll(async () => {
    store = openSqliteStore(":memory:");
    ctx = { store, clock: () => new Date("2026-01-15T15:00:00Z") };
    demo = await buildDemo(ctx);
    orgB = (await createOrganization(ctx, "Other firm")).organization.uuid;
  });
  afterAll(() => store.close());

  it("builds a demo account with short- and long-term gains and losses and a Canadian listing", async () => {
    const a = await getAccount(ctx, demo.organization_uuid, demo.client_uuid, demo.account_uuid);
    accountSchema.parse(a);
    expect(a.as_of_date).toBe("2025-12-31");
    expect(a.positions.some((p) => p.currency === "CAD")).toBe(true);
    const st = a.positions.map((p) => Number(p.unrealized_short_term_gain_usd));
    const lt = a.positions.map((p) => Number(p.unrealized_long_term_gain_usd));
    expect(st.some((g) => g > 0) && st.some((g) => g < 0)).toBe(true);
    expect(lt.some((g) => g > 0) && lt.some((g) => g < 0)).toBe(true);
    expect(new Set(a.holdings.tax_lots.map((l) => l.trade_date)).size).toBeGreaterThan(4);
  });

  it("values the account so that cash + positions = NAV to the cent", async () => {
    const a = await getAccount(ctx, demo.organization_uuid, demo.client_uuid, demo.account_uuid);
    const positions = a.positions.reduce((s, p) => s.plus(p.market_value_usd ?? 0), new Decimal(0));
    expect(positions.plus(a.holdings.cash_value_usd).minus(a.aum).abs().toNumber()).toBeLessThanOrEqual(
      0.01 * a.positions.length,
    );
    // Unrealized gains are value minus cost, position by position.
    for (const p of a.positions) {
      const g = new Decimal(p.unrealized_short_term_gain_usd ?? 0).plus(p.unrealized_long_term_gain_usd ?? 0);
      expect(
        g
          .minus(new Decimal(p.market_value_usd ?? 0).minus(p.cost_basis_usd))
          .abs()
          .toNumber(),
      ).toBeLessThan(0.02);
    }
    // Lot current values add up to the position value.
    for (const p of a.positions) {
      const lots = a.holdings.tax_lots.filter((l) => l.theme_asset_id === p.theme_asset_id);
      const v = lots.reduce((s, l) => s.plus(l.current_value ?? 0), new Decimal(0));
      expect(
        v
          .minus(p.market_value_usd ?? 0)
          .abs()
          .toNumber(),
      ).toBeLessThan(0.01);
    }
    expect(Number(a.holdings_risk_annualized_percentage)).toBeGreaterThan(5);
    expect(Number(a.holdings_risk_annualized_percentage)).toBeLessThan(80);
  });

  it("creates the sample configuration of fixtures/ and lists it in the read shape", async () => {
    const body = portfolioConfigCreateSchema.parse(
      JSON.parse(readFileSync(resolve(FIXTURES, "portfolio-config.json"), "utf8")),
    );
    const c = await createPortfolioConfig(ctx, demo.organization_uuid, body);
    portfolioConfigReadSchema.parse(c);
    expect(c.no_hold_tickers[0]!.ticker).toMatchObject({
      theme_asset_id: "SLW:XNYS",
      symbol: "SLW",
      exchange: "XNYS",
    });
    expect(c.no_hold_tickers[0]!.ticker.market_cap).toBeGreaterThan(0);
    expect((await listPortfolioConfigs(ctx, demo.organization_uuid)).map((x) => x.uuid)).toContain(c.uuid);
    expect(await listPortfolioConfigs(ctx, orgB)).toEqual([]);
  });

  it("replaces provided lists on PATCH, keeps absent fields and resets null ones", async () => {
    const base: PortfolioConfigCreate = {
      name: "Patch target",
      max_weight: "0.05",
      no_hold_tickers: [{ theme_asset_id: "SLW:XNYS" }, { theme_asset_id: "OSM:XNYS" }],
      no_trade_tickers: [{ theme_asset_id: "DEL:XNYS" }],
    };
    const c = await createPortfolioConfig(ctx, demo.organization_uuid, base);
    const fresh = await createPortfolioConfig(ctx, demo.organization_uuid, { name: "Defaults" });
    const u = await updatePortfolioConfig(ctx, demo.organization_uuid, c.uuid, {
      no_hold_tickers: [{ theme_asset_id: "SGR:XNYS" }],
      min_weight: "0.01",
      no_trade_tickers: [],
    });
    expect(u.no_hold_tickers.map((t) => t.ticker.theme_asset_id)).toEqual(["SGR:XNYS"]);
    expect(u.no_trade_tickers).toEqual([]);
    expect(u.max_weight).toBe("0.05");
    expect(u.min_weight).toBe("0.01");
    expect(u.name).toBe("Patch target");
    const reset = await updatePortfolioConfig(ctx, demo.organization_uuid, c.uuid, { max_weight: null });
    expect(reset.max_weight).toBe(fresh.max_weight);
    expect(reset.min_weight).toBe("0.01");
  });

  it("rejects an unknown theme_asset_id in a configuration by name and changes nothing", async () => {
    const c = await createPortfolioConfig(ctx, demo.organization_uuid, { name: "Strict", max_weight: "0.1" });
    let err: unknown;
    try {
      await updatePortfolioConfig(ctx, demo.organization_uuid, c.uuid, {
        max_weight: "0.2",
        no_hold_tickers: [{ theme_asset_id: "NOPE:XNYS" }],
      });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).issues).toEqual([
      {
        path: "no_hold_tickers[0].theme_asset_id",
        message: "unknown theme_asset_id NOPE:XNYS: not in the security master",
      },
    ]);
    expect(
      (await listPortfolioConfigs(ctx, demo.organization_uuid)).find((x) => x.uuid === c.uuid)?.max_weight,
    ).toBe("0.1");
  });

  it("keeps an archived asset class readable and assigned where it was, but refuses new assignments", async () => {
    const org = demo.organization_uuid;
    const ac = await createAssetClass(ctx, org, {
      name: "Old sleeve",
      benchmark_index_identifier: "SYNTH500",
    });
    assetClassSchema.parse(ac);
    await updateClient(ctx, org, demo.client_uuid, {
      account_uuid: demo.account_uuid,
      asset_class_settings: [{ asset_class_uuid: ac.uuid, direct_indexing_enabled: true }],
    });
    await store.assetClasses.archive(org, ac.uuid);
    expect((await readAssetClass(ctx, org, ac.uuid)).archived_at).not.toBeNull();
    // Re-sending the existing assignment is fine.
    await updateClient(ctx, org, demo.client_uuid, {
      account_uuid: demo.account_uuid,
      asset_class_settings: [{ asset_class_uuid: ac.uuid, direct_indexing_enabled: false }],
    });
    const other = await createClient(ctx, org, {});
    await expect(
      (() =>
        updateClient(ctx, org, other.uuid, {
          asset_class_settings: [{ asset_class_uuid: ac.uuid, direct_indexing_enabled: true }],
        }))(),
    ).rejects.toThrow(/is archived since .* and cannot be newly assigned/);
    // The failed update created nothing: the new client still has no account.
    expect((await getClient(ctx, org, other.uuid)).accounts).toEqual([]);
  });

  it("replaces the tax lots of the addressed account on a client update", async () => {
    const org = demo.organization_uuid;
    const c = await createClient(ctx, org, { external_id: "LOTS-1" });
    const after = await updateClient(ctx, org, c.uuid, {
      holdings: {
        tax_lots: [
          { theme_asset_id: "DEL:XNYS", quantity: "10", cost_basis: "50", trade_date: "2024-05-01" },
        ],
      },
    });
    clientSchema.parse(after);
    expect(after.accounts).toHaveLength(1);
    expect(after.accounts[0]!.name).toBe("Primary");
    const again = await updateClient(ctx, org, c.uuid, {
      holdings: {
        tax_lots: [
          {
            theme_asset_id: "OSM:XNYS",
            quantity: "3",
            cost_basis: "30",
            cost_basis_unit: "total",
            trade_date: "2024-06-01",
          },
          { theme_asset_id: "OSM:XNYS", quantity: "2", cost_basis: "11", trade_date: "2025-06-01" },
        ],
      },
    });
    const lots = again.accounts[0]!.holdings.tax_lots;
    expect(
      lots.map((l) => [l.theme_asset_id, l.quantity, l.total_cost_basis, l.cost_basis_per_share]),
    ).toEqual([
      ["OSM:XNYS", "3", "30", "10"],
      ["OSM:XNYS", "2", "22", "11"],
    ]);
  });

  it("refuses an account of another client and lots of unknown assets, naming them", async () => {
    const org = demo.organization_uuid;
    const c = await createClient(ctx, org, {});
    await expect(
      (() =>
        updateClient(ctx, org, c.uuid, { account_uuid: demo.account_uuid, portfolio_config_uuid: null }))(),
    ).rejects.toThrow(/is not an account of client/);
    await expect(
      (() =>
        updateClient(ctx, org, demo.client_uuid, {
          holdings: {
            tax_lots: [
              { theme_asset_id: "ZZZ:XNAS", quantity: "1", cost_basis: "1", trade_date: "2024-01-02" },
            ],
          },
        }))(),
    ).rejects.toThrow(/holdings\.tax_lots\[0\]\.theme_asset_id|1 invalid reference/);
  });

  it("hides one organization's data from another", async () => {
    await expect((() => getClient(ctx, orgB, demo.client_uuid))()).rejects.toThrow(NotFoundError);
    await expect((() => getAccount(ctx, orgB, demo.client_uuid, demo.account_uuid))()).rejects.toThrow(
      NotFoundError,
    );
    await expect((() => readAssetClass(ctx, orgB, demo.asset_class_uuid))()).rejects.toThrow(NotFoundError);
    const b = new LocalBackend(ctx, orgB);
    await expect(b.findAccount(demo.account_uuid)).rejects.toBeInstanceOf(NotFoundError);
    await expect(b.getPortfolioConfig(demo.portfolio_config_uuid)).rejects.toBeInstanceOf(NotFoundError);
  });

  it("validates bodies in the local backend with the contract schemas", async () => {
    const b = new LocalBackend(ctx, demo.organization_uuid);
    await expect(b.createPortfolioConfig({ name: "x".repeat(256) } as never)).rejects.toBeInstanceOf(
      ValidationError,
    );
    await expect(b.updateClient(demo.client_uuid, { unknown_field: 1 } as never)).rejects.toThrow(
      /unknown field/,
    );
  });

  it("resolves symbols, theme_asset_ids and reports unknown ones", async () => {
    const b = new LocalBackend(ctx, demo.organization_uuid);
    const r = await b.resolveTickers(["del", "VRV:XTSE", "NOPE"]);
    expect(r.results.map((x) => [x.query, x.theme_asset_id, x.error])).toEqual([
      ["del", "DEL:XNYS", null],
      ["VRV:XTSE", "VRV:XTSE", null],
      ["NOPE", null, "unknown"],
    ]);
  });
});
