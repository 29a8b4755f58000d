/**
 * The morning scan (issue 14, item 6): `scanAccounts` over 10,000 accounts of 100 tax lots each on a 500-name
 * synthetic market (2 years), generated into a temporary store file in one transaction. Goal: <= 30 s, memory
 * bounded (peak RSS reported, from process.resourceUsage().maxRSS).
 *
 * Accounts: 2 per client (the harvest part reads the household's lots), 100 lots on random listings (US and
 * Canadian) bought at the close of a random date of the two years (so gains and losses, short and long term, and
 * recent purchases that block harvests), cash 0 to 50,000 USD; one portfolio configuration with drift thresholds
 * 0.05 / 0.10 and a 1% cash buffer; target SYNTH500.
 * Timed on one thread, then on two worker threads (scanAccountsParallel; same rows).
 * Env: BENCH_ACCOUNTS (default 10000), BENCH_LOTS (default 100), BENCH_CONCURRENCY (default "1,2"). Writes bench/results/scan.json.
 * Runs the compiled code (dist/, as the CLI does; worker threads load plain JavaScript).
 * Run: npm run bench:scan (builds first)   profile: node --import tsx --cpu-prof bench/scan.bench.ts
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type * as Random from "../src/core/random.js";
import type * as Synthetic from "../src/market/synthetic/index.js";
import type * as Service from "../src/service/index.js";
import type * as Parallel from "../src/service/scan-parallel.js";
import type * as StoreModule from "../src/store/index.js";
import type { TaxLotInput } from "../src/store/index.js";
import { line, writeResult } from "./lib/harness.js";

// The compiled code the CLI runs (dist/): worker threads then load plain JavaScript, as in production.
const ROOT = resolve(import.meta.dirname, "..");
if (!existsSync(join(ROOT, "dist", "service", "scan-parallel.js")))
  throw new Error("scan.bench: run `npm run build` first (npm run bench:scan does)");
const load = async <T>(path: string) => (await import(pathToFileURL(join(ROOT, "dist", path)).href)) as T;
const { generateMarket, writeSyntheticMarket } = await load<typeof Synthetic>("market/synthetic/index.js");
const { createRandom } = await load<typeof Random>("core/random.js");
const { createClient, createOrganization, createPortfolioConfig } =
  await load<typeof Service>("service/index.js");
const { scanAccountsParallel } = await load<typeof Parallel>("service/scan-parallel.js");
const { openSqliteStore } = await load<typeof StoreModule>("store/index.js");

const ACCOUNTS = Number(process.env.BENCH_ACCOUNTS ?? 10_000);
const LOTS = Number(process.env.BENCH_LOTS ?? 100);
const GOAL_SECONDS = 30;
const LEVELS = (process.env.BENCH_CONCURRENCY ?? "1,2").split(",").map(Number);
const dir = mkdtempSync(join(tmpdir(), "lotwise-bench-scan-"));
const figures: Record<string, unknown> = { accounts: ACCOUNTS, lots_per_account: LOTS, securities: 500 };

try {
  const path = join(dir, "scan.db");
  const store = openSqliteStore(path);
  const ctx = { store, clock: () => new Date("2026-01-02T12:00:00Z") };
  const t0 = performance.now();
  const market = generateMarket({ seed: 42, securities: 500, years: 2, endDate: "2025-12-31" });
  writeSyntheticMarket(market, store.engine.market);
  const tMarket = performance.now();

  const rng = createRandom(7);
  const { dates, ids, close } = market.prices;
  const n = ids.length;
  const currency = new Map(market.securities.map((s) => [s.themeAssetId, s.currency]));
  const cadRate = new Map(market.fxRates.filter((r) => r.currency === "CAD").map((r) => [r.date, r.perUsd]));
  const { organization } = await createOrganization(ctx, "Scan bench", "bench");
  const org = organization.uuid;
  await store.transaction(async () => {
    const config = await createPortfolioConfig(ctx, org, {
      name: "Bench core",
      status: "deployed",
      cash_buffer_usd: "0.01",
      drift_warning_threshold: "0.05",
      drift_breach_threshold: "0.1",
    });
    let clientUuid = "";
    for (let a = 0; a < ACCOUNTS; a++) {
      if (a % 2 === 0) clientUuid = (await createClient(ctx, org, {})).uuid;
      const account = await store.accounts.create(org, clientUuid, {
        name: `Bench ${a}`,
        cashValueUsd: (rng.next() * 50_000).toFixed(2),
        portfolioConfigUuid: config.uuid,
      });
      const lots: TaxLotInput[] = [];
      while (lots.length < LOTS) {
        const i = Math.floor(rng.next() * n);
        const t = Math.floor(rng.next() * dates.length);
        const px = close[t * n + i]!;
        if (!(px > 0)) continue;
        const id = ids[i]!;
        const cur = currency.get(id) ?? "USD";
        lots.push({
          themeAssetId: id,
          quantity: String(Math.max(1, Math.round((1000 + rng.next() * 9000) / px))),
          costBasis: px.toFixed(4),
          costBasisUnit: "per_share",
          costBasisCurrency: cur,
          fxRate: cur === "USD" ? "1" : String(cadRate.get(dates[t]!) ?? 1.35),
          tradeDate: dates[t]!,
          holdingPeriodStart: null,
          washSaleDate: null,
          lastSoldForLossDate: null,
        });
      }
      await store.accounts.appendLots(account.uuid, lots);
    }
  });
  const tAccounts = performance.now();
  figures.generate_market_seconds = Number(((tMarket - t0) / 1000).toFixed(2));
  figures.generate_accounts_seconds = Number(((tAccounts - tMarket) / 1000).toFixed(2));
  console.log(
    `generated: market ${figures.generate_market_seconds} s, ${ACCOUNTS} accounts x ${LOTS} lots ${figures.generate_accounts_seconds} s`,
  );

  figures.peak_rss_before_scan_mib = Math.round(process.resourceUsage().maxRSS / 1024);
  const runs: Record<string, unknown>[] = [];
  for (const concurrency of LEVELS) {
    const cpu0 = process.cpuUsage();
    const s0 = performance.now();
    let lastPrint = s0;
    const result = await scanAccountsParallel(
      ctx,
      org,
      {},
      {
        concurrency,
        onProgress: (done, total) => {
          const now = performance.now();
          if (now - lastPrint > 5000) {
            lastPrint = now;
            console.log(`  ${done}/${total} accounts, ${((now - s0) / 1000).toFixed(1)} s`);
          }
        },
      },
    );
    const seconds = (performance.now() - s0) / 1000;
    const cpu = process.cpuUsage(cpu0);
    const run = {
      concurrency,
      scan_seconds: Number(seconds.toFixed(2)),
      // CPU of every thread of the process (a busy machine stretches the wall time, not this).
      scan_cpu_seconds: Number(((cpu.user + cpu.system) / 1e6).toFixed(2)),
      accounts_per_second: Math.round(ACCOUNTS / seconds),
      peak_rss_mib: Math.round(process.resourceUsage().maxRSS / 1024),
      load_average_1min: Number(loadavg()[0]!.toFixed(1)),
    };
    runs.push(run);
    console.log(
      line(`scan of ${ACCOUNTS} accounts x ${LOTS} lots, ${concurrency} thread(s)`, seconds, "s", {
        max: GOAL_SECONDS,
      }),
    );
    console.log(
      `  ${run.accounts_per_second} accounts/s, CPU ${run.scan_cpu_seconds} s, peak RSS ${run.peak_rss_mib} MiB, load ${run.load_average_1min}`,
    );
    console.log(
      `  ok ${result.summary.ok}, warning ${result.summary.warning}, breach ${result.summary.breach}, with errors ${result.summary.with_errors}, with harvest ${result.summary.with_harvest}`,
    );
    figures.summary = result.summary;
  }
  figures.runs = runs;
  figures.goal_seconds = GOAL_SECONDS;
  await store.close();
  console.log(`wrote ${writeResult("scan", figures)}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
