/**
 * Load figures of the HTTP service (issue 12): the real `lotwise serve` (built binary, dist) over a store file,
 * driven with autocannon over loopback, run twice: heavy requests on the request-worker pool
 * (`--request-workers 2`) and on the event loop (`--request-workers 0`). For each:
 * - `GET portfolio_configs/` (100 configurations, the response cache on): req/s, p50 and p99 at 10 connections;
 * - proposal creation (endpoint 1: 200 positions in 1,000 lots, 220 target weights) at 1, 10 and 100 connections;
 * - another organization's `GET /api/v1/me` sent 50 ms after a heavy optimize starts (account of 200 positions
 *   over a 600-listing market): its latency, beside the optimize's duration.
 * Run: npm run bench:load [-- --seconds 5 --rounds 5]   (builds first; the server runs from dist)
 * Writes bench/results/load.json.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { AccountCreate } from "../src/contract/index.js";
import { addDays } from "../src/core/dates.js";
import { generateMarket, writeSyntheticMarket } from "../src/market/synthetic/index.js";
import {
  createAccount,
  createAssetClass,
  createClient,
  createOrganization,
  createPortfolioConfig,
  type ServiceContext,
} from "../src/service/index.js";
import { openSqliteStore } from "../src/store/index.js";
import { configCreateBody, marketTickers } from "../test/helpers/fixture.js";
import { line, stats, writeResult } from "./lib/harness.js";

const ROOT = resolve(import.meta.dirname, "..");
const BIN = join(ROOT, "bin", "lotwise.js");
const POSITIONS = 200;
const LOTS_PER_POSITION = 5;
const NEW_ASSETS = 20;

interface AutocannonResult {
  requests: { average: number; total: number };
  latency: { average: number; p50: number; p90: number; p99: number; max: number };
  errors: number;
  timeouts: number;
  non2xx: number;
}
type Autocannon = (options: Record<string, unknown>) => Promise<AutocannonResult>;

function option(name: string, fallback: number): number {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}

function lcg(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 16807) % 2147483647;
    return s / 2147483647;
  };
}

interface Setup {
  orgA: string;
  keyA: string;
  orgB: string;
  keyB: string;
  clientA: string;
  accountA: string;
  proposalBody: string;
  weights: number;
  lots: number;
}

/** 600 listings x 2 years; organization A: 100 configurations and an account of 200 positions in 1,000 lots. */
async function buildStore(path: string): Promise<Setup> {
  const store = openSqliteStore(path);
  const clock = () => new Date();
  const ctx: ServiceContext = { store, clock };
  const market = generateMarket({ seed: 11, securities: 600, years: 2, endDate: "2025-06-30" });
  writeSyntheticMarket(market, store.engine.market);
  const a = await createOrganization(ctx, "Bench Advisors A");
  const b = await createOrganization(ctx, "Bench Advisors B");
  const orgA = a.organization.uuid;
  const tickers = marketTickers(market);
  const core = await createAssetClass(ctx, orgA, { name: "US core", benchmark_index_identifier: "SYNTH500" });
  const single = await createAssetClass(ctx, orgA, {
    name: "Single name",
    single_security_theme_asset_id: tickers.usTickers[10]!,
  });
  for (let i = 0; i < 100; i++)
    await createPortfolioConfig(
      ctx,
      orgA,
      configCreateBody(tickers, `Config ${i + 1}`, [core.uuid, single.uuid], i * 3),
    );
  const asOf = (await store.market.latestTradingDate("2025-07-01"))!;
  const usd = market.securities.filter((s) => s.currency === "USD").map((s) => s.themeAssetId);
  const prices = await store.market.latestPrices(usd, asOf);
  const usable = usd.filter((id) => prices.get(id)?.date === asOf).slice(0, POSITIONS + NEW_ASSETS);
  const rnd = lcg(20250630);
  const lots: NonNullable<NonNullable<AccountCreate["holdings"]>["tax_lots"]> = [];
  for (const id of usable.slice(0, POSITIONS)) {
    const price = prices.get(id)!.close;
    for (let k = 0; k < LOTS_PER_POSITION; k++)
      lots.push({
        theme_asset_id: id,
        quantity: String(1 + Math.floor(rnd() * 40)),
        cost_basis: (price * (0.6 + rnd())).toFixed(2),
        trade_date: addDays(asOf, -(31 + Math.floor(rnd() * 1500))),
      });
  }
  const client = await createClient(ctx, orgA, { external_id: "bench-client" });
  const account = await createAccount(ctx, orgA, client.uuid, {
    name: "Direct indexing, 200 x 5 lots",
    cash_value_usd: "20000",
    holdings: { tax_lots: lots },
  });
  // Every weight drifts, 8 positions are sold out, 20 assets are added; the weights sum to 0.97.
  const raw = usable.map((_, i) => (i % 25 === 11 ? 0 : 0.5 + rnd()));
  const sum = raw.reduce((x, y) => x + y, 0);
  const weights = usable
    .map((id, i) => ({ ticker: id, weight: (Math.floor((raw[i]! / sum) * 0.97 * 1e8) / 1e8).toFixed(8) }))
    .filter((w) => Number(w.weight) > 0);
  await store.close();
  return {
    orgA,
    keyA: a.apiKey.key,
    orgB: b.organization.uuid,
    keyB: b.apiKey.key,
    clientA: client.uuid,
    accountA: account.uuid,
    proposalBody: JSON.stringify({ optimized_weights: weights }),
    weights: weights.length,
    lots: lots.length,
  };
}

/** `lotwise serve` from dist on a free port. */
async function startServer(
  store: string,
  requestWorkers: number,
): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(
    process.execPath,
    [
      BIN,
      "serve",
      "--store",
      store,
      "--port",
      "0",
      "--workers",
      "0",
      "--request-workers",
      String(requestWorkers),
      // The per-key rate limit (600 a minute by default) would answer most of the load 429: measure the service.
      "--rate-limit",
      "0",
      "--json",
    ],
    { cwd: ROOT, env: { ...process.env, CI: "true" }, stdio: ["ignore", "pipe", "inherit"] },
  );
  const url = await new Promise<string>((ok, fail) => {
    let out = "";
    child.stdout!.on("data", (d) => {
      out += String(d);
      const m = /"url":\s*"([^"]+)"/.exec(out);
      if (m) ok(m[1]!);
    });
    child.once("exit", (code) => fail(new Error(`lotwise serve exited with ${code}`)));
  });
  return { url, child };
}

async function stopServer(child: ChildProcess): Promise<void> {
  const exited = new Promise((r) => child.once("exit", r));
  child.kill("SIGTERM");
  await exited;
}

async function request(url: string, init: RequestInit): Promise<{ status: number; ms: number }> {
  const t0 = performance.now();
  const res = await fetch(url, init);
  const text = await res.text();
  if (res.status !== 200)
    throw new Error(`${init.method ?? "GET"} ${url} answered ${res.status}: ${text.slice(0, 300)}`);
  return { status: res.status, ms: performance.now() - t0 };
}

const figure = (r: AutocannonResult) => ({
  requestsPerSecond: r.requests.average,
  totalRequests: r.requests.total,
  latencyMs: { p50: r.latency.p50, p90: r.latency.p90, p99: r.latency.p99, max: r.latency.max },
  failures: r.errors + r.timeouts + r.non2xx,
});

async function measure(
  setup: Setup,
  store: string,
  requestWorkers: number,
  seconds: number,
  rounds: number,
  autocannon: Autocannon,
) {
  const { url: base, child } = await startServer(store, requestWorkers);
  const label = requestWorkers > 0 ? `pool of ${requestWorkers}` : "event loop";
  try {
    const headersA = { "X-Api-Key": setup.keyA };
    const listUrl = `${base}/api/v1/custom/org/${setup.orgA}/portfolio_configs/`;
    const accountUrl = `${base}/api/v1/custom/org/${setup.orgA}/clients/${setup.clientA}/accounts/${setup.accountA}`;
    const post = { ...headersA, "Content-Type": "application/json" };
    // Warm-up: code paths, the workers (two concurrent requests start both), the caches.
    await Promise.all([
      request(`${accountUrl}/proposal/`, { method: "POST", headers: post, body: setup.proposalBody }),
      request(`${accountUrl}/optimize/`, { method: "POST", headers: post, body: "{}" }),
    ]);
    await autocannon({ url: listUrl, headers: headersA, connections: 10, duration: 1 });

    console.log(`\n-- heavy requests on the ${label} --`);
    const list = await autocannon({ url: listUrl, headers: headersA, connections: 10, duration: seconds });
    console.log(line("GET portfolio_configs/ (10 conn.): requests/s", list.requests.average, "req/s"));
    console.log(line("  latency p50 / p99", list.latency.p50, `/ ${list.latency.p99} ms`));
    const proposals: Record<string, ReturnType<typeof figure>> = {};
    for (const connections of [1, 10, 100]) {
      const r = await autocannon({
        url: `${accountUrl}/proposal/`,
        method: "POST",
        headers: post,
        body: setup.proposalBody,
        connections,
        duration: seconds,
        timeout: 60,
      });
      proposals[String(connections)] = figure(r);
      console.log(line(`POST proposal (${connections} conn.): requests/s`, r.requests.average, "req/s"));
      console.log(
        line(
          "  latency p50 / p99",
          r.latency.p50,
          `/ ${r.latency.p99} ms; failures ${r.errors + r.timeouts + r.non2xx}`,
        ),
      );
    }
    // Requests autocannon left in flight are still queued in the server: one more proposal, answered after them,
    // drains the queue so the optimize rounds below start on an idle server.
    await request(`${accountUrl}/proposal/`, { method: "POST", headers: post, body: setup.proposalBody });
    // Another organization's GET while an optimize runs: sent 50 ms after the optimize, timed from its sending.
    const me = `${base}/api/v1/me`;
    const getMs: number[] = [];
    const optimizeMs: number[] = [];
    for (let i = 0; i < rounds; i++) {
      const heavy = request(`${accountUrl}/optimize/`, { method: "POST", headers: post, body: "{}" });
      await new Promise((r) => setTimeout(r, 50));
      getMs.push((await request(me, { headers: { "X-Api-Key": setup.keyB } })).ms);
      optimizeMs.push((await heavy).ms);
    }
    const get = stats(getMs);
    const opt = stats(optimizeMs);
    console.log(line(`optimize (200 positions), median of ${rounds}`, opt.medianMs, "ms"));
    console.log(line("  other org's GET /api/v1/me during it: median", get.medianMs, "ms"));
    console.log(line("  ... max", get.maxMs, "ms"));
    return {
      requestWorkers,
      listPortfolioConfigs: { connections: 10, ...figure(list) },
      proposalByConnections: proposals,
      getDuringOptimize: { rounds, getMs: get, optimizeMs: opt },
    };
  } finally {
    await stopServer(child);
  }
}

async function main(): Promise<void> {
  const seconds = option("--seconds", 5);
  const rounds = option("--rounds", 5);
  execFileSync(process.execPath, [BIN, "--version"]); // fails early when dist is not built
  const dir = mkdtempSync(join(tmpdir(), "lotwise-load-bench-"));
  const store = join(dir, "bench.db");
  try {
    const t0 = performance.now();
    const setup = await buildStore(store);
    console.log(
      line(
        `store build (600 x 2y market, 100 configs, ${setup.lots} lots)`,
        (performance.now() - t0) / 1000,
        "s",
      ),
    );
    console.log(`proposal request: ${setup.weights} weights over an account of ${POSITIONS} positions`);
    const autocannon = createRequire(import.meta.url)("autocannon") as Autocannon;
    const loadBefore = loadavg()[0]!;
    const pooled = await measure(setup, store, 2, seconds, rounds, autocannon);
    const inLoop = await measure(setup, store, 0, seconds, rounds, autocannon);
    const loadAfter = loadavg()[0]!;
    console.log(line("\nload average (1 min) before / after", loadBefore, `/ ${loadAfter.toFixed(2)}`));
    console.log(
      `wrote ${writeResult("load", {
        seconds,
        positions: POSITIONS,
        lots: setup.lots,
        weights: setup.weights,
        pooled,
        eventLoop: inLoop,
        loadAverage1m: { before: loadBefore, after: loadAfter },
      })}`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
