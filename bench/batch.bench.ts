/**
 * Throughput of `lotwise backtest batch` over 100 demo-size accounts (the benchmark): the built CLI as a
 * child process, local mode (worker threads over the store file), at concurrency 1 and at one worker per core.
 * For reference, the engine alone on the main thread (no job system) for a few of the same accounts, so the
 * overhead of the job machinery (claims, heartbeats, result checks, threads) is visible.
 *
 * Setup: `lotwise init --demo` (synthetic market, one demo account), then 99 more accounts with the demo
 * account's lots, cash and configuration. Writes bench/results/batch.json.
 * Env: BENCH_ACCOUNTS (default 100), BENCH_CONCURRENCY (comma list, default "1,<cores>").
 * Needs `npm run build` first (the CLI runs from dist/).
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { BacktestRequest } from "../src/contract/index.js";
import { type BacktestServiceContext, createAccount } from "../src/service/index.js";
import type { BacktestExecutor } from "../src/service/jobs/index.js";
import { openSqliteStore } from "../src/store/index.js";
import { line, stats, writeResult } from "./lib/harness.js";

const ROOT = resolve(import.meta.dirname, "..");
const BIN = join(ROOT, "bin", "lotwise.js");
if (!existsSync(join(ROOT, "dist", "cli", "main.js")))
  throw new Error("batch.bench: run `npm run build` first");
const accounts = Number(process.env.BENCH_ACCOUNTS ?? 100);
const levels = (process.env.BENCH_CONCURRENCY ?? `1,${availableParallelism()}`)
  .split(",")
  .map(Number)
  .filter((n, i, all) => n >= 1 && all.indexOf(n) === i);
const dir = mkdtempSync(join(tmpdir(), "lotwise-bench-batch-"));
const figures: Record<string, unknown> = { accounts, cores: availableParallelism() };

const cli = (args: string[]) =>
  execFileSync(process.execPath, [BIN, ...args], {
    cwd: ROOT,
    env: { ...process.env, CI: "true", LOTWISE_URL: "", LOTWISE_API_KEY: "" },
    maxBuffer: 256 << 20,
    stdio: ["ignore", "pipe", "ignore"],
  }).toString();

try {
  const storePath = join(dir, "bench.db");
  const demo = JSON.parse(cli(["init", "--demo", "--store", storePath, "--json"])) as {
    organization_uuid: string;
    client_uuid: string;
    account_uuid: string;
  };
  // 99 more accounts like the demo one: same lots, cash and configuration.
  const store = openSqliteStore(storePath, { create: false });
  const ctx: BacktestServiceContext = { store, clock: () => new Date() };
  const org = demo.organization_uuid;
  const template = await store.accounts.require(org, demo.client_uuid, demo.account_uuid);
  const lots = (await store.accounts.lots(template.uuid)).map(({ uuid: _u, accountUuid: _a, ...lot }) => lot);
  const ids = [template.uuid];
  await store.transaction(async () => {
    for (let i = 1; i < accounts; i++) {
      const a = await createAccount(ctx, org, demo.client_uuid, {
        name: `Bench ${i}`,
        cash_value_usd: template.cashValueUsd,
        ...(template.portfolioConfigUuid ? { portfolio_config_uuid: template.portfolioConfigUuid } : {}),
      });
      await store.accounts.replaceLots(a.uuid, lots);
      ids.push(a.uuid);
    }
  });
  figures.lots_per_account = lots.length;

  // The engine alone, on this thread, for a few accounts (reference for the job system's overhead); from dist/ like
  // the CLI's workers, so that both run the same compiled code.
  const jobs = (await import(pathToFileURL(join(ROOT, "dist", "service", "jobs", "index.js")).href)) as {
    defaultBacktestExecutor(): BacktestExecutor;
  };
  const executor = jobs.defaultBacktestExecutor();
  const request: BacktestRequest = {};
  const direct: number[] = [];
  let periods = 0;
  for (const id of ids.slice(0, 4)) {
    const params = await executor.resolveParams(ctx, org, id, request);
    const t0 = performance.now();
    const result = await executor.run(ctx, org, id, params);
    direct.push(performance.now() - t0);
    periods = result.tax_managed?.periods ?? 0;
  }
  await store.close();
  const engine = stats(direct);
  figures.engine_only = { ...engine, periods };
  console.log(line("engine alone, one account (median of 4)", engine.medianMs / 1000, "s"));
  console.log(`  ${periods} monthly periods, ${lots.length} lots, cases tax_managed/pre_tax/benchmark`);

  const runs: Record<string, unknown>[] = [];
  for (const concurrency of levels) {
    const out = join(dir, `results-${concurrency}.json`);
    const t0 = performance.now();
    cli([
      "backtest",
      "batch",
      "--all",
      "--concurrency",
      String(concurrency),
      "--out",
      out,
      "--store",
      storePath,
    ]);
    const wall = (performance.now() - t0) / 1000;
    const doc = JSON.parse(readFileSync(out, "utf8")) as {
      summary: { accounts: number; succeeded: number; wall_seconds: number; accounts_per_minute: number };
      results: { seconds: number | null }[];
    };
    if (doc.summary.succeeded !== accounts)
      throw new Error(`batch at concurrency ${concurrency}: ${doc.summary.succeeded}/${accounts} succeeded`);
    const jobSeconds = stats(doc.results.map((r) => (r.seconds ?? 0) * 1000));
    const run = {
      concurrency,
      accounts_per_minute: doc.summary.accounts_per_minute,
      batch_wall_seconds: doc.summary.wall_seconds,
      process_wall_seconds: Number(wall.toFixed(2)),
      job_seconds_median: jobSeconds.medianMs / 1000,
      job_seconds_p90: jobSeconds.p90Ms / 1000,
      speedup_vs_engine_alone: Number(
        ((accounts * engine.medianMs) / 1000 / doc.summary.wall_seconds).toFixed(2),
      ),
    };
    runs.push(run);
    console.log(
      line(
        `batch of ${accounts} accounts, concurrency ${concurrency}`,
        run.accounts_per_minute,
        "accounts/min",
      ),
    );
    console.log(
      `  batch ${run.batch_wall_seconds.toFixed(1)} s (process ${run.process_wall_seconds} s), job median ${run.job_seconds_median.toFixed(2)} s, p90 ${run.job_seconds_p90.toFixed(2)} s, ${run.speedup_vs_engine_alone}x the engine alone`,
    );
  }
  figures.batch = runs;
  console.log(`wrote ${writeResult("batch", figures)}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
