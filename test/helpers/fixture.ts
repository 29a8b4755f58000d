/**
 * @module test/helpers/fixture
 * Shared test fixtures: one small synthetic market per test process (60 securities x 2 years), written into a fresh
 * in-memory store with two organizations (A and B), each with an API key. Tests of the HTTP layer, the client and the
 * CLI build on it.
 */

import type { PortfolioConfigCreate } from "../../src/contract/index.js";
import { generateMarket, writeSyntheticMarket } from "../../src/market/synthetic/index.js";
import type { SyntheticMarket } from "../../src/market/synthetic/types.js";
import {
  createAccount,
  createAssetClass,
  createClient,
  createOrganization,
  createPortfolioConfig,
  createProposal,
  createTheme,
  evaluateTheme,
  type ServiceContext,
} from "../../src/service/index.js";
import { openSqliteStore, type SqliteStore } from "../../src/store/index.js";

/** Last calendar date of the shared market; the test clock stands one day later. */
export const MARKET_END_DATE = "2025-06-30";

let market: SyntheticMarket | undefined;

/** The shared synthetic market (generated once per process: seed 7, 60 securities, 2 years). */
export function sharedMarket(): SyntheticMarket {
  market ??= generateMarket({
    seed: 7,
    securities: 60,
    years: 2,
    endDate: MARKET_END_DATE,
    indexSize: 40,
  });
  return market;
}

/** US and Canadian theme asset ids of a market, in security-master order. */
export function marketTickers(m: SyntheticMarket): { usTickers: string[]; caTickers: string[] } {
  return {
    usTickers: m.securities.filter((s) => s.currency === "USD").map((s) => s.themeAssetId),
    caTickers: m.securities.filter((s) => s.currency === "CAD").map((s) => s.themeAssetId),
  };
}

/** A settable clock: `now()` returns the current value, `advance(ms)` moves it forward. */
export interface TestClock {
  now(): Date;
  set(iso: string): void;
  advance(ms: number): void;
}

/** A clock that starts at `iso` and moves only when told to. */
export function testClock(iso = "2025-07-01T12:00:00.000Z"): TestClock {
  let t = Date.parse(iso);
  return {
    now: () => new Date(t),
    set: (v) => {
      t = Date.parse(v);
    },
    advance: (ms) => {
      t += ms;
    },
  };
}

/** An organization of the fixture with its first API key. */
export interface TestOrganization {
  uuid: string;
  name: string;
  apiKey: string;
  keyId: string;
}

/** What {@link createTestStore} returns. */
export interface TestStore {
  store: SqliteStore;
  ctx: ServiceContext;
  clock: TestClock;
  orgA: TestOrganization;
  orgB: TestOrganization;
  /** Theme asset ids of the market's US listings, in security-master order. */
  usTickers: string[];
  /** Theme asset ids of the market's Canadian listings. */
  caTickers: string[];
  close(): void;
}

/**
 * A fresh store (`:memory:` unless `path` is given) holding the shared market and two organizations.
 * @example const t = createTestStore(); const app = createApp({ ctx: t.ctx });
 */
export async function createTestStore(
  options: { path?: string; withMarket?: boolean } = {},
): Promise<TestStore> {
  const clock = testClock();
  const store = openSqliteStore(options.path ?? ":memory:", { now: () => clock.now().toISOString() });
  const m = sharedMarket();
  if (options.withMarket !== false) writeSyntheticMarket(m, store.engine.market);
  const ctx: ServiceContext = { store, clock: () => clock.now() };
  const make = async (name: string): Promise<TestOrganization> => {
    const { organization, apiKey } = await createOrganization(ctx, name);
    return { uuid: organization.uuid, name, apiKey: apiKey.key, keyId: apiKey.record.id };
  };
  const orgA = await make("Org A");
  const orgB = await make("Org B");
  const { usTickers, caTickers } = marketTickers(m);
  return { store, ctx, clock, orgA, orgB, usTickers, caTickers, close: () => store.close() };
}

/**
 * A configuration create body that touches every list and most scalar fields (the contract's example, with tickers
 * of the synthetic market and the given asset classes).
 */
export function configCreateBody(
  t: { usTickers: readonly string[]; caTickers: readonly string[] },
  name: string,
  assetClassUuids: readonly string[] = [],
  offset = 0,
): PortfolioConfigCreate {
  const us = t.usTickers.slice(offset % Math.max(1, t.usTickers.length - 6));
  const ca = t.caTickers[0]!;
  return {
    name,
    status: "deployed",
    optimization_mode: "LONG_ONLY",
    risk_model_name: "characteristics",
    no_hold_tickers: [{ theme_asset_id: us[0]!, condition: "esg_exclusion" }],
    no_trade_tickers: [
      { theme_asset_id: us[1]!, starts_from: "2025-01-02T00:00:00Z", expires_at: "2025-03-31T00:00:00Z" },
    ],
    target_ticker_weights: [{ theme_asset_id: us[2]!, lower_bound: "0.02", upper_bound: "0.08" }],
    min_weight: "0",
    max_weight: "0.05",
    use_active_risk_bounds: true,
    max_active_risk_pct: "2.5",
    factor_exposure_bounds: [{ factor: "momentum", min_active_bound: "-0.1", max_active_bound: "0.1" }],
    tax_preferences: {
      short_term_rate: "0.37",
      long_term_rate: "0.2",
      tax_gamma: "1",
      wash_sale_threshold: 30,
    },
    asset_allocations: assetClassUuids.map((uuid, i) => ({
      asset_class_uuid: uuid,
      target_allocation: i === 0 ? "0.8" : "0.2",
      direct_indexing_enabled: i === 0,
    })),
    cash_buffer_usd: "0.02",
    cash_buffer_cad_amount: "500",
    drift_breach_threshold: "0.05",
    asset_drift_breach_threshold: "0.01",
    dynamic_rules: [
      { field_name: "max_weight", rules: [{ value: "0.04", starts_from: "2025-06-01", priority: 1 }] },
    ],
    evaluation_rules: [{ rules: [{ value: 0.03, cron: "0 9 * * 1" }], enabled: true }],
    risk_aversion: "2",
    require_whole_shares: true,
    whole_share_assets: [ca],
    substitution_pairs: [[us[3]!, us[4]!]],
    capital_gains_reductions: { [us[1]!]: "1500" },
  };
}

/** Uuids of what {@link seedOrganization} creates. */
export interface SeededOrganization {
  assetClassUuids: string[];
  configUuid: string;
  clientUuid: string;
  accountUuid: string;
  proposalUuid: string;
  themeUuid: string;
}

/** A theme of the top 10 dividend payers of the US listings, score-weighted, capped at 20%, rebalanced quarterly. */
export function dividendThemeBody(name: string) {
  return {
    name,
    universe: { preset: "us_all" as const },
    filters: ["dividend_yield > 0"],
    score: "dividend_yield",
    selection: { mode: "top_n" as const, value: 10 },
    weighting: { scheme: "score" as const, max_weight: 0.2 },
    rules: { rebalancing_period: "QUARTERLY" as const },
  };
}

/**
 * Fills an organization of the fixture through the service layer: two asset classes (SYNTH500 and a single
 * security), one configuration, one client with one account holding three tax lots.
 */
export async function seedOrganization(
  t: TestStore,
  org: TestOrganization,
  label = org.name,
): Promise<SeededOrganization> {
  const us = t.usTickers;
  const core = await createAssetClass(t.ctx, org.uuid, {
    name: `${label} US core`,
    description: "SYNTH500 direct index",
    benchmark_index_identifier: "SYNTH500",
  });
  const single = await createAssetClass(t.ctx, org.uuid, {
    name: `${label} single`,
    single_security_theme_asset_id: us[5]!,
  });
  const config = await createPortfolioConfig(
    t.ctx,
    org.uuid,
    configCreateBody(t, `${label} config`, [core.uuid, single.uuid]),
  );
  const client = await createClient(t.ctx, org.uuid, {
    external_id: `${label}-client`,
    metadata: { tier: "A" },
  });
  const account = await createAccount(t.ctx, org.uuid, client.uuid, {
    name: "Taxable",
    cash_value_usd: "2500",
    portfolio_config_uuid: config.uuid,
    holdings: {
      tax_lots: [
        { theme_asset_id: us[0]!, quantity: "10", cost_basis: "50", trade_date: "2024-03-01" },
        { theme_asset_id: us[1]!, quantity: "5", cost_basis: "120", trade_date: "2025-02-03" },
        { theme_asset_id: us[2]!, quantity: "7.5", cost_basis: "80.25", trade_date: "2024-11-15" },
      ],
    },
  });
  const proposal = await createProposal(t.ctx, org.uuid, client.uuid, account.uuid, {
    optimized_weights: [
      { ticker: us[2]!, weight: "0.3" },
      { ticker: us[3]!, weight: "0.3" },
    ],
  });
  const theme = await createTheme(t.ctx, org.uuid, dividendThemeBody(`${label} dividend payers`));
  await evaluateTheme(t.ctx, org.uuid, theme.uuid);
  return {
    themeUuid: theme.uuid,
    assetClassUuids: [core.uuid, single.uuid],
    configUuid: config.uuid,
    clientUuid: client.uuid,
    accountUuid: account.uuid,
    proposalUuid: proposal.proposal_uuid,
  };
}

/**
 * A two-factor vendor model import body over `assets`, in percent units of daily numbers: market exposure 1, a size
 * exposure spread evenly over [-1, 1], specific volatility 1.5%, 2% or 2.5% a day; `scale` multiplies the factor
 * covariance (1.5, 0.3, 0.5 %^2 a day).
 */
export function vendorModelBody(assets: readonly string[], asOf: string, name: string, scale = 1) {
  const n = assets.length;
  return {
    kind: "vendor" as const,
    name,
    as_of_date: asOf,
    frequency: "daily" as const,
    units: "percent" as const,
    exposures: assets.flatMap((asset, i) => [
      { asset, factor: "market", exposure: 1 },
      { asset, factor: "size", exposure: n > 1 ? -1 + (2 * i) / (n - 1) : 0 },
    ]),
    factor_covariance: [
      { factor1: "market", factor2: "market", covariance: 1.5 * scale },
      { factor1: "market", factor2: "size", covariance: 0.3 * scale },
      { factor1: "size", factor2: "size", covariance: 0.5 * scale },
    ],
    specific_risk: assets.map((asset, i) => ({ asset, specific_risk: 1.5 + (i % 3) * 0.5 })),
  };
}
