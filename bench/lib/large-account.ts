/**
 * The large account of the proposal benchmarks, written into a store: a synthetic market (540 listings, 12%
 * Canadian, one year to 2025-06-30) and one account of 500 positions in 10,000 tax lots (20 per position, bought
 * over six years at mixed bases, 1 in 10 within the wash-sale window), 2% cash; plus the "full drift" request of
 * bench/proposal.bench.ts (every weight drifts by up to +-30%, 20 positions removed, 20 assets added).
 */
import type { AccountCreate } from "../../src/contract/index.js";
import { addDays } from "../../src/core/dates.js";
import { generateMarket, writeSyntheticMarket } from "../../src/market/synthetic/index.js";
import {
  createAccount,
  createClient,
  createOrganization,
  type ServiceContext,
} from "../../src/service/index.js";
import type { SqliteStore } from "../../src/store/index.js";

export const POSITIONS = 500;
export const LOTS_PER_POSITION = 20;
export const NEW_ASSETS = 20;
export const CLOCK = () => new Date("2025-07-01T12:00:00Z");

/** Park-Miller minimal standard generator (seeded, reproducible). */
function lcg(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 16807) % 2147483647;
    return s / 2147483647;
  };
}

/** What the benchmarks need of the built store. */
export interface LargeAccountFixture {
  org: string;
  apiKey: string;
  clientUuid: string;
  accountUuid: string;
  listings: number;
  lots: number;
  /** The full-drift proposal request (endpoint 1 body). */
  body: { optimized_weights: { ticker: string; weight: string }[] };
  buildSeconds: number;
}

/** Writes the market and the account into `store` (a SQLite store: the market is written through its engine). */
export async function buildLargeAccount(store: SqliteStore): Promise<LargeAccountFixture> {
  const ctx: ServiceContext = { store, clock: CLOCK };
  const t0 = performance.now();
  const market = generateMarket({
    seed: 7,
    securities: POSITIONS + NEW_ASSETS + 20,
    years: 1,
    endDate: "2025-06-30",
  });
  writeSyntheticMarket(market, store.engine.market);
  const asOf = (await store.market.latestTradingDate("2025-07-01"))!;
  const ids = market.securities.map((s) => s.themeAssetId).sort();
  const prices = await store.market.latestPrices(ids, asOf);
  const cadPerUsd = (await store.market.fxRateAsOf("CAD", asOf))!.perUsd;
  const currencyOf = new Map(market.securities.map((s) => [s.themeAssetId, s.currency]));
  // Listed on asOf with a price: the held and added assets.
  const usable = ids.filter((id) => prices.get(id)?.date === asOf).slice(0, POSITIONS + NEW_ASSETS);

  const rnd = lcg(20250630);
  const lots: NonNullable<NonNullable<AccountCreate["holdings"]>["tax_lots"]> = [];
  const values: number[] = [];
  for (const [i, id] of usable.entries()) {
    if (i >= POSITIONS) {
      values.push(0);
      continue;
    }
    const price = prices.get(id)!.close;
    const cad = currencyOf.get(id) === "CAD";
    let shares = 0;
    for (let k = 0; k < LOTS_PER_POSITION; k++) {
      const qty = 1 + Math.floor(rnd() * 40);
      shares += qty;
      const daysAgo = k % 10 === 9 ? Math.floor(rnd() * 30) : 31 + Math.floor(rnd() * 2200);
      lots.push({
        theme_asset_id: id,
        quantity: String(qty),
        cost_basis: (price * (0.6 + rnd())).toFixed(2),
        cost_basis_unit: "per_share",
        cost_basis_currency: cad ? "CAD" : "USD",
        fx_rate: cad ? (1.25 + rnd() * 0.15).toFixed(4) : "1",
        trade_date: addDays(asOf, -daysAgo),
      });
    }
    values.push((shares * price) / (cad ? cadPerUsd : 1));
  }
  const total = values.reduce((a, b) => a + b, 0);
  const cash = (total * 0.02).toFixed(2);
  const { organization, apiKey } = await createOrganization(ctx, "Bench Advisors");
  const org = organization.uuid;
  const client = await createClient(ctx, org, { external_id: "bench-client" });
  const account = await createAccount(ctx, org, client.uuid, {
    name: "Direct indexing, 500 x 20 lots",
    cash_value_usd: cash,
    holdings: { tax_lots: lots },
  });
  // Full drift, as fractions of NAV less a 1% margin (the default buffers are smaller).
  const investable = (total + Number(cash)) * 0.99;
  let raw = usable.map((_, i) => {
    if (i >= POSITIONS) return total / POSITIONS;
    if (i % 25 === 11) return 0;
    return values[i]! * (0.7 + 0.6 * rnd());
  });
  const rawSum = raw.reduce((a, b) => a + b, 0);
  raw = raw.map((v) => (v / rawSum) * investable);
  const body = {
    optimized_weights: usable
      .map((id, i) => ({
        ticker: id,
        weight: (Math.floor((raw[i]! / investable) * 1e10) / 1e10).toFixed(10),
      }))
      .filter((w) => Number(w.weight) > 0),
  };
  return {
    org,
    apiKey: apiKey.key,
    clientUuid: client.uuid,
    accountUuid: account.uuid,
    listings: usable.length,
    lots: lots.length,
    body,
    buildSeconds: (performance.now() - t0) / 1000,
  };
}
