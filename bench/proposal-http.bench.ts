/**
 * Rebalance proposal through the HTTP service (endpoint 1, POST .../clients/{client}/accounts/{account}/proposal/):
 * the real server, started in-process on a loopback port over a temporary store holding a synthetic market
 * (540 listings, 12% Canadian, one year) and one account of 500 positions in 10,000 tax lots (20 per position,
 * bought over six years at mixed bases, 1 in 10 within the wash-sale window), 2% cash. The request is the
 * "full drift" of bench/proposal.bench.ts: every weight drifts by up to +-30%, 20 positions removed, 20
 * assets added (about 260 sells through the tax engine and 260 buys).
 * A request covers body parsing and validation, ticker resolution, loading and converting the 10,000 lots,
 * prices and FX from SQLite, the proposal itself, the wire response, storing the proposal and the JSON
 * round trip. Requests are sequential (one connection): the figure is latency, not throughput.
 * Goal: median <= 100 ms. Also times the first request on the account (cold: before the service's memo of the
 * account's converted lots exists) and the service call alone (createProposal, no HTTP) for the split.
 * Run: node --import tsx --expose-gc bench/proposal-http.bench.ts [--requests 30]
 * Writes bench/results/proposal-http.json.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import type { AccountCreate } from "../src/contract/index.js";
import { addDays } from "../src/core/dates.js";
import { generateMarket, writeSyntheticMarket } from "../src/market/synthetic/index.js";
import { serve } from "../src/server/index.js";
import {
  createAccount,
  createClient,
  createOrganization,
  createProposal,
  type ServiceContext,
} from "../src/service/index.js";
import { openSqliteStore } from "../src/store/index.js";
import { line, stats, writeResult } from "./lib/harness.js";

const POSITIONS = 500;
const LOTS_PER_POSITION = 20;
const NEW_ASSETS = 20;
const CLOCK = () => new Date("2025-07-01T12:00:00Z");

function option(name: string, fallback: number): number {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}

/** Park-Miller minimal standard generator (seeded, reproducible). */
function lcg(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 16807) % 2147483647;
    return s / 2147483647;
  };
}

const gc = (globalThis as { gc?: () => void }).gc;

async function main(): Promise<void> {
  const requests = option("--requests", 30);
  const dir = mkdtempSync(join(tmpdir(), "lotwise-proposal-http-bench-"));
  const store = openSqliteStore(join(dir, "bench.db"));
  const ctx: ServiceContext = { store, clock: CLOCK };
  try {
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
    console.log(
      line(
        `store build (${usable.length} listings x 1y, ${lots.length} lots)`,
        (performance.now() - t0) / 1000,
        "s",
      ),
    );

    const handle = await serve({ ctx, port: 0, host: "127.0.0.1" });
    const url = `${handle.url}/api/v1/custom/org/${org}/clients/${client.uuid}/accounts/${account.uuid}/proposal/`;
    const payload = JSON.stringify(body);
    const headers = { "X-Api-Key": apiKey.key, "Content-Type": "application/json" };
    const post = async () => {
      const res = await fetch(url, { method: "POST", headers, body: payload });
      const text = await res.text();
      if (res.status !== 200) throw new Error(`POST proposal answered ${res.status}: ${text.slice(0, 500)}`);
      return text;
    };
    try {
      // The first request on the account: nothing warmed up (code, statements, the service's memo of converted
      // lots), so it pays the conversion of all 10,000 lots that later requests reuse.
      const tFirst = performance.now();
      const sample = JSON.parse(await post()) as { orders: { amount: string; tax_lots: unknown[] | null }[] };
      const firstMs = performance.now() - tFirst;
      const sells = sample.orders.filter((o) => o.amount.startsWith("-"));
      const lotLines = sells.reduce((n, o) => n + (o.tax_lots?.length ?? 0), 0);
      const responseBytes = Buffer.byteLength(await post());
      console.log(
        `account: ${POSITIONS} positions, ${lots.length} lots; request: ${body.optimized_weights.length} weights; ` +
          `${sample.orders.length} orders (${sells.length} sells with ${lotLines} lot lines), response ${(responseBytes / 1024).toFixed(0)} KiB`,
      );
      for (let i = 0; i < 3; i++) await post();
      const samples: number[] = [];
      for (let i = 0; i < requests; i++) {
        gc?.();
        const t = performance.now();
        await post();
        samples.push(performance.now() - t);
      }
      const http = stats(samples);
      console.log(line(`POST proposal over HTTP, median of ${requests}`, http.medianMs, "ms", { max: 100 }));
      console.log(line("  p90", http.p90Ms, "ms"));
      console.log(line("  min", http.minMs, "ms"));
      console.log(line("  first request on the account (cold)", firstMs, "ms"));
      // The same request through the service function alone (no HTTP, no body parsing or serialization).
      const serviceSamples: number[] = [];
      const request = JSON.parse(payload);
      for (let i = 0; i < Math.max(10, Math.floor(requests / 2)); i++) {
        gc?.();
        const t = performance.now();
        await createProposal(ctx, org, client.uuid, account.uuid, request);
        serviceSamples.push(performance.now() - t);
      }
      const service = stats(serviceSamples);
      console.log(line("  of which createProposal (service call alone)", service.medianMs, "ms"));
      const load = loadavg()[0]!;
      console.log(line("load average (1 min) at the end", load, ""));
      console.log(
        `wrote ${writeResult("proposal-http", {
          positions: POSITIONS,
          lots: lots.length,
          weights: body.optimized_weights.length,
          orders: sample.orders.length,
          sells: sells.length,
          lotLines,
          responseBytes,
          requests,
          http: { medianMs: http.medianMs, p90Ms: http.p90Ms, minMs: http.minMs, maxMs: http.maxMs, firstMs },
          serviceCall: { medianMs: service.medianMs, p90Ms: service.p90Ms, minMs: service.minMs },
          loadAverage1m: load,
          goalMedianMs: 100,
        })}`,
      );
    } finally {
      await handle.close({ graceMs: 100 });
    }
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
