/**
 * HTTP service throughput: requests/s and latency percentiles of GET portfolio_configs (endpoint 3) with 100
 * stored configurations, over loopback with autocannon (10 connections, 10 s after a 2 s warm-up). The server runs
 * in a child process so that the load generator does not share its event loop. Goal >= 2,000 req/s on the 2-core
 * reference machine. Also measures GET /api/v1/me (authentication and routing alone) for comparison.
 * Run: node --import tsx bench/http.bench.ts [--seconds 10] [--connections 10]
 */
import { type ChildProcess, fork } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { generateMarket, writeSyntheticMarket } from "../src/market/synthetic/index.js";
import { serve } from "../src/server/index.js";
import {
  createAssetClass,
  createOrganization,
  createPortfolioConfig,
  type ServiceContext,
} from "../src/service/index.js";
import { openSqliteStore } from "../src/store/index.js";
import { configCreateBody, marketTickers } from "../test/helpers/fixture.js";
import { line, writeResult } from "./lib/harness.js";

const SERVE_FLAG = "--serve-store";
const CLOCK = () => new Date("2025-07-01T12:00:00Z");

interface AutocannonResult {
  requests: { average: number; total: number };
  latency: { average: number; p50: number; p90: number; p99: number; max: number };
  throughput: { average: number };
  errors: number;
  timeouts: number;
  non2xx: number;
}
type Autocannon = (options: Record<string, unknown>) => Promise<AutocannonResult>;

function option(name: string, fallback: number): number {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}

/** Child mode: serve the store given on the command line and report the port to the parent. */
async function serveChild(path: string): Promise<void> {
  const store = openSqliteStore(path, { create: false });
  const handle = await serve({ ctx: { store, clock: CLOCK }, port: 0 });
  process.send!({ port: handle.port });
  // The parent asks for the server's CPU time around each run (a figure the machine's other load does not skew).
  process.on("message", (m) => {
    if (m === "cpu") process.send!({ cpu: process.cpuUsage() });
  });
  process.on("disconnect", async () => {
    void handle.close({ graceMs: 100 }).then(async () => {
      await store.close();
      process.exit(0);
    });
  });
}

/** Builds the benchmark store: 500 securities x 3 years, two asset classes, 100 configurations. */
async function buildStore(
  path: string,
): Promise<{ org: string; apiKey: string; configs: number; responseBytes?: number }> {
  const store = openSqliteStore(path);
  const ctx: ServiceContext = { store, clock: CLOCK };
  const market = generateMarket({ seed: 11, securities: 500, years: 3, endDate: "2025-06-30" });
  writeSyntheticMarket(market, store.engine.market);
  const { organization, apiKey } = await createOrganization(ctx, "Bench Advisors");
  const org = organization.uuid;
  const tickers = marketTickers(market);
  const core = await createAssetClass(ctx, org, { name: "US core", benchmark_index_identifier: "SYNTH500" });
  const single = await createAssetClass(ctx, org, {
    name: "Single name",
    single_security_theme_asset_id: tickers.usTickers[10]!,
  });
  for (let i = 0; i < 100; i++)
    await createPortfolioConfig(
      ctx,
      org,
      configCreateBody(tickers, `Config ${i + 1}`, [core.uuid, single.uuid], i * 3),
    );
  await store.close();
  return { org, apiKey: apiKey.key, configs: 100 };
}

/** CPU time (user + system, microseconds) the server process has used so far. */
function serverCpu(child: ChildProcess): Promise<number> {
  return new Promise((resolve) => {
    const onMessage = (m: unknown) => {
      const cpu = (m as { cpu?: NodeJS.CpuUsage }).cpu;
      if (!cpu) return;
      child.off("message", onMessage);
      resolve(cpu.user + cpu.system);
    };
    child.on("message", onMessage);
    child.send("cpu");
  });
}

function startChild(path: string): Promise<{ child: ChildProcess; port: number }> {
  const child = fork(fileURLToPath(import.meta.url), [SERVE_FLAG, path], {
    execArgv: ["--import", "tsx"],
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  return new Promise((resolve, reject) => {
    child.once("message", (m) => resolve({ child, port: (m as { port: number }).port }));
    child.once("exit", (code) => reject(new Error(`server process exited with ${code}`)));
  });
}

async function main(): Promise<void> {
  const seconds = option("--seconds", 10);
  const connections = option("--connections", 10);
  const dir = mkdtempSync(join(tmpdir(), "lotwise-http-bench-"));
  const path = join(dir, "bench.db");
  const t0 = performance.now();
  const { org, apiKey } = await buildStore(path);
  console.log(
    line("store build (500 x 3y market, 100 configurations)", (performance.now() - t0) / 1000, "s"),
  );
  const { child, port } = await startChild(path);
  const autocannon = createRequire(import.meta.url)("autocannon") as Autocannon;
  const base = `http://127.0.0.1:${port}`;
  const headers = { "X-Api-Key": apiKey };
  try {
    const listUrl = `${base}/api/v1/custom/org/${org}/portfolio_configs/`;
    const probe = await fetch(listUrl, { headers });
    const body = await probe.text();
    if (probe.status !== 200) throw new Error(`GET portfolio_configs answered ${probe.status}: ${body}`);
    const count = (JSON.parse(body) as unknown[]).length;
    console.log(line("response size (100 configurations)", body.length / 1024, "KiB"));
    const gzHeaders = { ...headers, "Accept-Encoding": "gzip" };
    const gzProbe = await fetch(listUrl, { headers: gzHeaders });
    const gzBytes = Number(gzProbe.headers.get("content-length") ?? "0");
    await gzProbe.arrayBuffer();
    console.log(line("  gzip-encoded size", gzBytes / 1024, "KiB"));
    await autocannon({ url: listUrl, headers, connections, duration: 2 });
    const run = async (url: string, h: Record<string, string>, duration: number) => {
      const before = await serverCpu(child);
      const result = await autocannon({ url, headers: h, connections, duration });
      const cpuUs = (await serverCpu(child)) - before;
      return { result, cpuPerRequestUs: cpuUs / Math.max(1, result.requests.total) };
    };
    const listRun = await run(listUrl, headers, seconds);
    const list = listRun.result;
    console.log(
      line("GET portfolio_configs/, identity: requests/s", list.requests.average, "req/s", { min: 2000 }),
    );
    console.log(line("  latency p50", list.latency.p50, "ms"));
    console.log(line("  latency p99", list.latency.p99, "ms"));
    console.log(line("  errors + timeouts + non-2xx", list.errors + list.timeouts + list.non2xx, ""));
    console.log(line("  server CPU per request", listRun.cpuPerRequestUs, "us"));
    const gzRun = await run(listUrl, gzHeaders, seconds);
    const gz = gzRun.result;
    console.log(
      line("GET portfolio_configs/, gzip: requests/s", gz.requests.average, "req/s", { min: 2000 }),
    );
    console.log(line("  latency p50", gz.latency.p50, "ms"));
    console.log(line("  latency p99", gz.latency.p99, "ms"));
    console.log(line("  errors + timeouts + non-2xx", gz.errors + gz.timeouts + gz.non2xx, ""));
    console.log(line("  server CPU per request", gzRun.cpuPerRequestUs, "us"));
    const meRun = await run(`${base}/api/v1/me`, headers, Math.min(5, seconds));
    const me = meRun.result;
    console.log(line("GET /api/v1/me: requests/s", me.requests.average, "req/s"));
    console.log(line("  latency p99", me.latency.p99, "ms"));
    console.log(line("  server CPU per request", meRun.cpuPerRequestUs, "us"));
    const load = loadavg()[0]!;
    console.log(line("load average (1 min) at the end", load, ""));
    const out = writeResult("http", {
      configurations: count,
      responseBytes: body.length,
      connections,
      seconds,
      listPortfolioConfigs: {
        requestsPerSecond: list.requests.average,
        totalRequests: list.requests.total,
        latencyMs: list.latency,
        throughputBytesPerSecond: list.throughput.average,
        failures: list.errors + list.timeouts + list.non2xx,
        serverCpuPerRequestUs: listRun.cpuPerRequestUs,
      },
      listPortfolioConfigsGzip: {
        responseBytes: gzBytes,
        requestsPerSecond: gz.requests.average,
        totalRequests: gz.requests.total,
        latencyMs: gz.latency,
        failures: gz.errors + gz.timeouts + gz.non2xx,
        serverCpuPerRequestUs: gzRun.cpuPerRequestUs,
      },
      whoAmI: {
        requestsPerSecond: me.requests.average,
        latencyMs: me.latency,
        serverCpuPerRequestUs: meRun.cpuPerRequestUs,
      },
      loadAverage1m: load,
      goal: { requestsPerSecond: 2000 },
    });
    console.log(`wrote ${out}`);
  } finally {
    child.disconnect();
    await new Promise((r) => child.once("exit", r));
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[2] === SERVE_FLAG) await serveChild(process.argv[3]!);
else await main();
