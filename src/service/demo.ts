/**
 * @module service/demo
 * `lotwise init --demo`: an organization with an API key, a seeded synthetic market, a demo client whose taxable
 * account holds realistic tax lots (several purchase dates, gains and losses, short and long term, one Canadian
 * listing), a portfolio configuration and an asset class. Deterministic for a given seed.
 */
import { Decimal } from "decimal.js";
import type { PortfolioConfigCreate, TaxLotWrite } from "../contract/index.js";
import type { Security } from "../core/data/types.js";
import { addDays, daysBetween, indexAtOrBefore } from "../core/dates.js";
import { ValidationError } from "../core/errors.js";
import { createRandom } from "../core/random.js";
import { holdingTerm } from "../core/tax/index.js";
import { StagedMarketWriter } from "../market/staged-writer.js";
import type { SyntheticWriteSummary } from "../market/synthetic/index.js";
import { generateMarket, SYNTH500, writeSyntheticMarket } from "../market/synthetic/index.js";
import { createAssetClass } from "./asset-classes.js";
import { createAccount, createClient, updateClient } from "./clients.js";
import type { ServiceContext } from "./context.js";
import { createOrganization } from "./organizations.js";
import { createPortfolioConfig } from "./portfolio-configs.js";
import { createTheme, evaluateTheme } from "./themes.js";

export interface DemoOptions {
  /** Seed of the market and of the lot choices. @default 7 */
  seed?: number;
  /** Securities in the synthetic market. @default 200 */
  securities?: number;
  /** Years of history. @default 8 */
  years?: number;
  /** Last trading date of the market. @default "2025-12-31" */
  endDate?: string;
  /** @default "Demo Advisors" */
  organizationName?: string;
}

/** Identifiers printed by `lotwise init --demo --json` (PRODUCT.md section 6). */
export interface DemoResult {
  organization_uuid: string;
  api_key: string;
  client_uuid: string;
  account_uuid: string;
  portfolio_config_uuid: string;
  asset_class_uuid: string;
  /** The evaluated demo theme. */
  theme_uuid: string;
  market: SyntheticWriteSummary & { first_date: string; last_date: string };
}

/** The demo theme: US technology and media dividend payers, weighted by yield, rebalanced quarterly. */
const DEMO_THEME = {
  name: "US tech and media dividend payers",
  description:
    "US technology and communication companies paying more than 0.5% dividends, weighted by yield (capped at 25%), rebalanced quarterly.",
  universe: { preset: "us_all" },
  filters: ["sector in (45, 50)", "dividend_yield > 0.5%"],
  score: "dividend_yield",
  selection: { mode: "all" as const, min_count: 3 },
  weighting: { scheme: "score" as const, max_weight: 0.25 },
  rules: { rebalancing_period: "QUARTERLY" as const },
};

/** Calendar days before the as-of date at which demo lots were bought (short and long term). */
const PURCHASE_AGES = [1460, 1100, 760, 420, 250, 120, 45, 15] as const;

interface PlannedLot {
  security: Security;
  tradeDate: string;
  quantity: Decimal;
  costPerShare: Decimal;
  fxRate: Decimal;
}

/** Build the demo in an (empty or not) store. All market and organization writes are transactional per step. */
export async function buildDemo(ctx: ServiceContext, options: DemoOptions = {}): Promise<DemoResult> {
  const seed = options.seed ?? 7;
  const market = generateMarket({
    seed,
    securities: options.securities ?? 200,
    years: options.years ?? 8,
    endDate: options.endDate ?? "2025-12-31",
  });
  // The generator writes synchronously: staged, then replayed onto the store in one transaction.
  const staged = new StagedMarketWriter();
  const written = writeSyntheticMarket(market, staged);
  await ctx.store.transaction((tx) => staged.replayInto(tx.market));
  const { organization, apiKey } = await createOrganization(
    ctx,
    options.organizationName ?? "Demo Advisors",
    "demo",
  );
  const org = organization.uuid;
  const dates = market.prices.dates;
  const asOf = dates[dates.length - 1]!;

  const lots = planLots(market, seed);
  const assetClass = await createAssetClass(ctx, org, {
    name: "US equity (direct index)",
    description: `Direct-indexed ${SYNTH500}, the cap-weighted index of the largest synthetic US listings`,
    benchmark_index_identifier: SYNTH500,
  });
  const config = await createPortfolioConfig(ctx, org, demoConfig(lots));
  const client = await createClient(ctx, org, {
    external_id: "DEMO-001",
    metadata: { segment: "HNW", advisor: "Demo Advisor" },
  });
  const account = await createAccount(ctx, org, client.uuid, {
    name: "Joint taxable",
    external_id: "DEMO-001-TAX",
    cash_value_usd: "25000",
    portfolio_config_uuid: config.uuid,
    holdings: { tax_lots: lots.map(toWire) },
  });
  await updateClient(ctx, org, client.uuid, {
    account_uuid: account.uuid,
    asset_class_settings: [{ asset_class_uuid: assetClass.uuid, direct_indexing_enabled: true }],
  });
  const theme = await createTheme(ctx, org, DEMO_THEME);
  await evaluateTheme(ctx, org, theme.uuid, { as_of_date: asOf });
  return {
    organization_uuid: org,
    api_key: apiKey.key,
    client_uuid: client.uuid,
    account_uuid: account.uuid,
    portfolio_config_uuid: config.uuid,
    asset_class_uuid: assetClass.uuid,
    theme_uuid: theme.uuid,
    market: { ...written, first_date: dates[0]!, last_date: asOf },
  };
}

function toWire(l: PlannedLot): TaxLotWrite {
  return {
    theme_asset_id: l.security.themeAssetId,
    quantity: l.quantity.toFixed(),
    cost_basis: l.costPerShare.toFixed(),
    cost_basis_currency: l.security.currency,
    fx_rate: l.fxRate.toFixed(),
    trade_date: l.tradeDate,
  };
}

/**
 * Choose 12 US listings and 1 Canadian listing with full history and buy them on several dates, at the close of
 * the purchase date (split-adjusted to today), for roughly $15k-$45k a lot. Retries with the next stream until the
 * account shows short- and long-term gains and losses.
 */
function planLots(market: ReturnType<typeof generateMarket>, seed: number): PlannedLot[] {
  const { dates, ids, close } = market.prices;
  const n = ids.length;
  const asOf = dates[dates.length - 1]!;
  // Purchase ages that fit the history (a short market keeps the younger ages; long-term needs > 365 days).
  const span = daysBetween(dates[0]!, asOf);
  const purchaseAges = PURCHASE_AGES.filter((a) => a < span - 30);
  if (!purchaseAges.some((a) => a > 400))
    throw new ValidationError(
      `buildDemo: the market must cover at least 2 years to hold long-term lots (it covers ${span} days).`,
      [{ path: "years", message: "at least 2" }],
    );
  const oldest = addDays(asOf, -purchaseAges[0]! - 10);
  const bySecurity = new Map(market.securities.map((s) => [s.themeAssetId, s]));
  const eligible = market.securities.filter((s) => {
    const i = ids.indexOf(s.themeAssetId);
    const t = indexAtOrBefore(dates, oldest);
    return t >= 0 && Number.isFinite(close[t * n + i]!) && (s.listedFrom ?? "") <= oldest;
  });
  const us = eligible.filter((s) => s.currency === "USD");
  const ca = eligible.filter((s) => s.currency === "CAD");
  for (let attempt = 0; attempt < 50; attempt++) {
    const rng = createRandom(seed * 1009 + attempt);
    const picks = [...pickDistinct(us, 12, rng), ...pickDistinct(ca, 1, rng)];
    const out: PlannedLot[] = [];
    for (const s of picks) {
      const i = ids.indexOf(s.themeAssetId);
      const count = rng.int(1, 4);
      const ages = pickDistinct(purchaseAges, count, rng).sort((a, b) => b - a);
      for (const age of ages) {
        const t = indexAtOrBefore(dates, addDays(asOf, -age));
        const px = close[t * n + i]!;
        const tradeDate = dates[t]!;
        const fx = s.currency === "USD" ? 1 : fxOn(market, s.currency, tradeDate);
        const budgetUsd = rng.uniform(15_000, 45_000);
        let quantity = new Decimal(Math.max(1, Math.floor((budgetUsd * fx) / px)));
        let cost = new Decimal(px.toFixed(4));
        for (const sp of market.splits)
          if (sp.themeAssetId === s.themeAssetId && sp.date > tradeDate) {
            quantity = quantity.times(sp.ratio);
            cost = cost.div(sp.ratio).toDecimalPlaces(6);
          }
        out.push({
          security: bySecurity.get(s.themeAssetId)!,
          tradeDate,
          quantity,
          costPerShare: cost,
          fxRate: new Decimal(fx.toFixed(6)),
        });
      }
    }
    if (hasEveryKind(out, market, asOf)) return out;
  }
  throw new Error(
    "buildDemo: could not find a lot mix with short/long-term gains and losses; try another seed",
  );
}

function pickDistinct<T>(items: readonly T[], k: number, rng: ReturnType<typeof createRandom>): T[] {
  const pool = [...items];
  rng.shuffleInPlace(pool);
  return pool.slice(0, Math.min(k, pool.length));
}

function fxOn(market: ReturnType<typeof generateMarket>, currency: string, date: string): number {
  let best: number | undefined;
  for (const r of market.fxRates) if (r.currency === currency && r.date <= date) best = r.perUsd;
  if (best === undefined) throw new Error(`buildDemo: no ${currency} rate on or before ${date}`);
  return best;
}

/** True when the lots include a short-term gain, a short-term loss, a long-term gain and a long-term loss. */
function hasEveryKind(
  lots: readonly PlannedLot[],
  market: ReturnType<typeof generateMarket>,
  asOf: string,
): boolean {
  const { ids, close, dates } = market.prices;
  const n = ids.length;
  const t = dates.length - 1;
  const kinds = new Set<string>();
  for (const l of lots) {
    const px = close[t * n + ids.indexOf(l.security.themeAssetId)]!;
    const gain = px - l.costPerShare.toNumber();
    kinds.add(`${holdingTerm(l.tradeDate, asOf)}:${gain >= 0 ? "gain" : "loss"}`);
  }
  return kinds.size === 4;
}

/** A realistic tax-managed configuration over the demo holdings. */
function demoConfig(lots: readonly PlannedLot[]): PortfolioConfigCreate {
  const ca = lots.find((l) => l.security.currency === "CAD");
  return {
    name: "Demo core (tax-managed)",
    status: "deployed",
    optimization_mode: "LONG_ONLY",
    risk_model_name: "characteristics",
    min_weight: "0",
    max_weight: "0.1",
    risk_aversion: "1",
    use_active_risk_bounds: true,
    max_active_risk_pct: "3",
    cash_buffer_usd: "0.01",
    cash_buffer_cad: "0",
    drift_warning_threshold: "0.02",
    drift_breach_threshold: "0.05",
    asset_drift_breach_threshold: "0.01",
    // When the account needs attention (docs/evaluation-rules.md): shown by `accounts evaluate` and `scan`.
    evaluation_rules: [
      {
        enabled: true,
        rules: [
          { value: "rebalance", condition: "drift_status = 'breach'", priority: 10 },
          { value: "harvest", condition: "harvest_value_usd > 1000", cron: "0 9 * * 1-5", priority: 5 },
        ],
      },
    ],
    tcost_bps: "5",
    tax_preferences: {
      short_term_rate: "0.37",
      long_term_rate: "0.2",
      tax_gamma: "1",
      wash_sale_threshold: 30,
      long_term_threshold: 365,
      prevent_tlh_invalidating_purchase: true,
      prevent_tlh_invalidating_sale: true,
    },
    ...(ca ? { whole_share_assets: [ca.security.themeAssetId], require_whole_shares: true } : {}),
  };
}
