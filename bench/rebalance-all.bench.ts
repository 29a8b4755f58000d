/**
 * `lotwise rebalance --all` over 1,000 accounts (issue 14): accounts per second of a rebalance run with the
 * tax-aware optimizer (`when: always`, so every account is optimized and gets a stored proposal), at concurrency 1
 * (one thread) and 2 (`runRebalanceInWorkers`, what `--concurrency 2` runs: two worker threads, each on its own
 * store connection, working on disjoint shards of the same run). Goal: >= 50 accounts/s.
 *
 * Setup (not timed in the figures): the demo's synthetic market (seeded, 200 securities, 3 years, SYNTH500 as the
 * benchmark), its configuration (characteristics risk model, tax_gamma 1, 3% active-risk cap, 10% max weight) and
 * 1,000 accounts in 100 clients, each holding 13 of the demo's positions (its lots with quantities scaled by a
 * seeded factor 0.5-1.5) plus cash; all written in one transaction. Each measured run is a new store file copy, so
 * both concurrencies start from the same state.
 *
 * Writes bench/results/rebalance-all.json. Run: npm run bench:rebalance-all [-- --accounts N]
 */
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { createRandom } from "../src/core/random.js";
import type { ServiceContext } from "../src/service/context.js";
import { buildDemo } from "../src/service/demo.js";
import { runRebalanceInWorkers } from "../src/service/rebalance-run-workers.js";
import { runRebalance } from "../src/service/rebalance-runs.js";
import { openSqliteStore } from "../src/store/index.js";
import { line, writeResult } from "./lib/harness.js";

const CLOCK = () => new Date("2026-01-15T15:00:00Z");
const GOAL = 50;

function contextOf(file: string): ServiceContext {
  return { store: openSqliteStore(file, { create: false, now: () => CLOCK().toISOString() }), clock: CLOCK };
}

async function setup(dir: string, accounts: number): Promise<{ file: string; org: string }> {
  const file = join(dir, "base.db");
  const store = openSqliteStore(file, { now: () => CLOCK().toISOString() });
  const ctx: ServiceContext = { store, clock: CLOCK };
  const demo = await buildDemo(ctx, { years: 3 });
  const org = demo.organization_uuid;
  const template = await store.accounts.lots(demo.account_uuid);
  const rng = createRandom(11);
  const t0 = performance.now();
  await store.transaction(async () => {
    let client = demo.client_uuid;
    for (let a = 1; a < accounts; a++) {
      if (a % 10 === 0) client = (await store.clients.create(org, { externalId: `bench-${a / 10}` })).uuid;
      const account = await store.accounts.create(org, client, {
        name: `Bench ${a}`,
        cashValueUsd: (5_000 + Math.floor(rng.next() * 50_000)).toString(),
        portfolioConfigUuid: demo.portfolio_config_uuid,
      });
      const scale = 0.5 + rng.next();
      await store.accounts.replaceLots(
        account.uuid,
        template.map(({ uuid: _u, accountUuid: _a, ...lot }) => ({
          ...lot,
          quantity: Math.max(1, Math.round(Number(lot.quantity) * scale)).toString(),
        })),
      );
    }
  });
  const setupMs = performance.now() - t0;
  await store.close();
  console.log(
    `setup: ${accounts} accounts (${template.length} lots each) written in ${setupMs.toFixed(0)} ms`,
  );
  return { file, org };
}

async function measure(base: string, org: string, dir: string, concurrency: number, accounts: number) {
  const file = join(dir, `run-${concurrency}.db`);
  copyFileSync(base, file);
  const t0 = performance.now();
  // process.cpuUsage() counts every thread of the process: measured here, it covers the workers too.
  const cpu0 = process.cpuUsage();
  if (concurrency === 1) {
    const ctx = contextOf(file);
    await runRebalance(ctx, org, { when: "always" });
    await ctx.store.close();
  } else {
    // What `lotwise rebalance --all --concurrency 2` runs: worker threads on the shards of one run.
    const ctx = contextOf(file);
    await runRebalanceInWorkers(ctx, org, { when: "always" }, { workers: concurrency });
    await ctx.store.close();
  }
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  const cpuMs = (cpu.user + cpu.system) / 1000;
  const check = contextOf(file);
  const run = await runRebalance(check, org, { when: "always" });
  await check.store.close();
  if (run.status !== "completed" || run.totals.accounts !== accounts)
    throw new Error(`run not completed: ${JSON.stringify(run.totals)}`);
  const perSecond = accounts / (ms / 1000);
  // What `concurrency` cores of their own would give: the machine is shared, so wall time includes waiting for a core.
  const perSecondOfCpu = accounts / (cpuMs / 1000 / concurrency);
  return {
    concurrency,
    accounts,
    wallMs: Math.round(ms),
    cpuMs: Math.round(cpuMs),
    accountsPerSecond: Number(perSecond.toFixed(1)),
    accountsPerSecondOnIdleCores: Number(perSecondOfCpu.toFixed(1)),
    loadAverage: loadavg()[0],
    created: run.totals.created,
    skipped: run.totals.skipped,
    failed: run.totals.failed,
    failures: [...new Set(run.accounts.filter((a) => a.error).map((a) => a.error!.code))],
  };
}

async function main(): Promise<void> {
  const at = process.argv.indexOf("--accounts");
  const accounts = at >= 0 ? Number(process.argv[at + 1]) : 1000;
  const dir = mkdtempSync(join(tmpdir(), "lotwise-rebalance-all-"));
  try {
    const { file, org } = await setup(dir, accounts);
    const figures = [];
    for (const concurrency of [1, 2]) {
      const r = await measure(file, org, dir, concurrency, accounts);
      figures.push(r);
      console.log(
        line(`concurrency ${concurrency}`, r.accountsPerSecond, "accounts/s", { min: GOAL }),
        `(${r.wallMs} ms wall, ${r.cpuMs} ms CPU = ${r.accountsPerSecondOnIdleCores} accounts/s on ${concurrency} idle core(s); load ${r.loadAverage.toFixed(1)}; ${r.created} created, ${r.skipped} skipped, ${r.failed} failed)`,
      );
    }
    console.log(`wrote ${writeResult("rebalance-all", { goalAccountsPerSecond: GOAL, runs: figures })}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
