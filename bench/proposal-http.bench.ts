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
import { serve } from "../src/server/index.js";
import { createProposal, type ServiceContext } from "../src/service/index.js";
import { openSqliteStore } from "../src/store/index.js";
import { line, stats, writeResult } from "./lib/harness.js";
import { buildLargeAccount, CLOCK, POSITIONS } from "./lib/large-account.js";

function option(name: string, fallback: number): number {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}

const gc = (globalThis as { gc?: () => void }).gc;

async function main(): Promise<void> {
  const requests = option("--requests", 30);
  const dir = mkdtempSync(join(tmpdir(), "lotwise-proposal-http-bench-"));
  const store = openSqliteStore(join(dir, "bench.db"));
  const ctx: ServiceContext = { store, clock: CLOCK };
  try {
    const fixture = await buildLargeAccount(store);
    const { org, body } = fixture;
    const client = { uuid: fixture.clientUuid };
    const account = { uuid: fixture.accountUuid };
    const apiKey = { key: fixture.apiKey };
    const lots = { length: fixture.lots };
    console.log(
      line(
        `store build (${fixture.listings} listings x 1y, ${fixture.lots} lots)`,
        fixture.buildSeconds,
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
