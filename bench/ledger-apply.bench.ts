/**
 * Applying a traded proposal through the service (`executeProposal`) on SQLite and PostgreSQL: a stored 500-order
 * proposal (250 sells naming the lots the builder picked, 250 buys, a fifth of them re-buying an asset sold the
 * same day) on an account of 10,000 tax lots (500 positions x 20 lots over six years, 1 in 10 within the wash-sale
 * window; the same book as bench/ledger.bench.ts). One call = the whole operation: the already-applied check, the
 * book and household reads, the core's applyExecutions, and ledger.applyBatch in one transaction. Every run applies
 * its own proposal to its own account (an applied proposal cannot be applied again), each account read cold (its
 * lots not in the service's memo). Goal: SQLite median <= 50 ms.
 *
 * The engines are timed alternately, round by round (the order rotating), so that load from other jobs on this
 * shared machine falls on all alike. PostgreSQL (LOTWISE_TEST_PG, default postgres://postgres@127.0.0.1:5432/test,
 * a private schema dropped afterwards) is skipped when it does not answer.
 *
 * `--baseline DIR`: also time another checkout of lotwise (its src/, e.g. the commit before a change:
 * `git archive <commit> | tar -x -C DIR && ln -s $PWD/node_modules DIR/`) on its own stores, in the same rounds,
 * and report this checkout's medians as ratios of the baseline's.
 * `--warm`: read each account's lots once (untimed) before its call, as building its proposal in this process just did,
 * so the service's lots memo holds them. `--runs N` (default 11), `--no-pg`. `--cpu-profile FILE`: a V8 CPU profile
 * of this checkout's SQLite calls only (the timed ones), for `node bench/lib/profile-summary.mjs FILE`;
 * `--heap-profile FILE`: a sampling allocation profile of the same calls (objects collected since included), for
 * `node bench/lib/profile-summary.mjs FILE --heap`. Writes bench/results/ledger-apply.json
 * (bench/results/ledger-apply-warm.json with --warm). Run: `npm run bench:ledger-apply`.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import pg from "pg";
import type { ExecutionResult, ProposalResponse } from "../src/contract/index.js";
import { addDays } from "../src/core/dates.js";
import { createRandom } from "../src/core/random.js";
import { createLot, selectLots, TaxDecimal, type TaxLot } from "../src/core/tax/index.js";
import { minimalSecurity } from "../src/market/importers/minimal-security.js";
import type { LedgerLotInput, LotwiseStore } from "../src/store/index.js";
import { ledgerLotInput } from "../src/store/index.js";
import { line, stats, type TimingStats, writeResult } from "./lib/harness.js";

const POSITIONS = 500;
const LOTS_PER_POSITION = 20;
const TRADE_DATE = "2025-06-02";
const PG_URL = process.env.LOTWISE_TEST_PG ?? "postgres://postgres@127.0.0.1:5432/test";
const gc = (globalThis as { gc?: () => void }).gc;

const arg = (name: string): string | undefined => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const RUNS = Number(arg("--runs") ?? 11);
const WARMUP = 2;
const baselineDir = arg("--baseline");
const withPg = !process.argv.includes("--no-pg");
const warm = process.argv.includes("--warm");
const profileFile = arg("--cpu-profile");
const heapProfileFile = arg("--heap-profile");

/** What the bench needs of one checkout of lotwise (this one, or the baseline's). */
interface Api {
  openStore: (location: string) => Promise<LotwiseStore>;
  createOrganization: (ctx: Ctx, name: string) => Promise<{ organization: { uuid: string } }>;
  createClient: (ctx: Ctx, org: string, body: object) => Promise<{ uuid: string }>;
  accountLots: (ctx: Ctx, account: string) => Promise<unknown[]>;
  executeProposal: (
    ctx: Ctx,
    org: string,
    client: string,
    account: string,
    p: string,
  ) => Promise<ExecutionResult>;
}
type Ctx = { store: LotwiseStore; clock: () => Date };

async function loadApi(root: string): Promise<Api> {
  const at = (p: string) => import(pathToFileURL(join(root, p)).href);
  const service = await at("src/service/index.js");
  const ledger = await at("src/service/ledger.js");
  const proposals = await at("src/service/proposals.js");
  const store = await at("src/store/index.js");
  return {
    openStore: store.openStore,
    createOrganization: service.createOrganization,
    createClient: service.createClient,
    executeProposal: ledger.executeProposal,
    accountLots: proposals.accountLots,
  };
}

// ---------------------------------------------------------------------------------------------------------------
// The data: per run n, 10,000 lots (ids unique store-wide) and a 500-order proposal naming them. The same data goes
// to every engine (each engine has its own store).

const rng = createRandom(20250602);
const assets = Array.from({ length: POSITIONS }, (_, i) => `S${String(i).padStart(3, "0")}:XNYS`);
const prices = assets.map(() => Math.round((20 + rng.next() * 280) * 100) / 100);

interface RunData {
  lots: LedgerLotInput[];
  proposal: ProposalResponse;
}

function runData(n: number): RunData {
  const r = createRandom(20250602 + 1);
  const lots: TaxLot[] = [];
  assets.forEach((asset, i) => {
    for (let k = 0; k < LOTS_PER_POSITION; k++) {
      const recent = r.next() < 0.1;
      const daysAgo = recent ? 1 + Math.floor(r.next() * 29) : 31 + Math.floor(r.next() * 6 * 365);
      lots.push(
        createLot({
          id: `A${n}-L${i}-${k}`,
          themeAssetId: asset,
          quantity: 1 + Math.floor(r.next() * 100),
          costBasisPerShare: (prices[i]! * (0.6 + r.next() * 0.8)).toFixed(2),
          tradeDate: addDays(TRADE_DATE, -daysAgo),
        }),
      );
    }
  });
  const byAsset = new Map<string, TaxLot[]>();
  for (const l of lots) byAsset.set(l.themeAssetId, [...(byAsset.get(l.themeAssetId) ?? []), l]);
  const orders: ProposalResponse["orders"] = [];
  for (let i = 0; i < 250; i++) {
    const asset = assets[i]!;
    const held = byAsset.get(asset)!;
    const total = held.reduce((s, l) => s.plus(l.quantity), new TaxDecimal(0));
    const quantity = total.times(0.4).floor();
    const picks = selectLots(held, quantity, "TAX_OPTIMAL", {
      themeAssetId: asset,
      saleDate: TRADE_DATE,
      price: prices[i]!,
    });
    orders.push({
      ticker: asset,
      ticker_symbol: asset.split(":")[0]!,
      currency: "USD",
      amount: `-${quantity.toFixed()}`,
      type: "qty",
      order_category: "long",
      tax_lots: picks.picks.map((p) => ({
        cost_basis: p.costBasisUsd.toFixed(2),
        quantity: p.quantity.toFixed(),
        trade_date: held.find((l) => l.id === p.lotId)!.tradeDate,
        gain: "0",
        lot_id: p.lotId,
      })),
      fx_cost_breakdown: null,
    });
  }
  for (let i = 0; i < 250; i++) {
    const a = i % 5 === 0 ? i : 250 + i;
    orders.push({
      ticker: assets[a]!,
      ticker_symbol: assets[a]!.split(":")[0]!,
      currency: "USD",
      amount: String(1 + Math.floor(r.next() * 50)),
      type: "qty",
      order_category: "long",
      tax_lots: null,
      fx_cost_breakdown: null,
    });
  }
  return {
    lots: lots.map(ledgerLotInput),
    proposal: {
      proposal_uuid: randomUUID(),
      cash_buffer_cad_amount: null,
      cash_buffer_usd_amount: null,
      orders,
      as_of_date: TRADE_DATE,
    },
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Engines

interface Engine {
  name: string;
  api: Api;
  ctx: Ctx;
  org: string;
  accounts: { client: string; account: string; proposal: string }[];
  wall: number[];
  cpu: number[];
  last?: ExecutionResult;
}

async function engine(name: string, api: Api, location: string): Promise<Engine> {
  const store = await api.openStore(location);
  const ctx: Ctx = { store, clock: () => new Date("2025-06-03T12:00:00Z") };
  await store.market.upsertSecurities(assets.map((id) => minimalSecurity(id, { name: id })));
  await store.market.insertPrices(
    assets.map((id, i) => ({
      themeAssetId: id,
      date: TRADE_DATE,
      open: null,
      high: null,
      low: null,
      close: prices[i]!,
      adjClose: null,
      volume: null,
    })),
  );
  const org = (await api.createOrganization(ctx, `Ledger bench ${name}`)).organization.uuid;
  return { name, api, ctx, org, accounts: [], wall: [], cpu: [] };
}

/** One account with its lots and its stored proposal (its own client: a client's accounts are one household). */
async function seed(e: Engine, data: RunData): Promise<void> {
  const { store } = e.ctx;
  const client = (await e.api.createClient(e.ctx, e.org, {})).uuid;
  const account = (await store.accounts.create(e.org, client, { cashValueUsd: "1000000" })).uuid;
  await store.ledger.applyBatch(account, {
    executions: [],
    realized: [],
    lotsAfter: data.lots,
    shortLotsAfter: [],
    cashDelta: "0",
  });
  const uuid = data.proposal.proposal_uuid!;
  await store.proposals.insertSerialized(e.org, account, uuid, {}, JSON.stringify(data.proposal));
  e.accounts.push({ client, account, proposal: uuid });
}

let profiler: Session | undefined;

async function timeOne(e: Engine, n: number): Promise<void> {
  const { client, account, proposal } = e.accounts[n]!;
  if (warm) await e.api.accountLots(e.ctx, account);
  gc?.();
  const profile = profiler !== undefined && e.name === "sqlite" && n >= WARMUP;
  if (profile && profileFile !== undefined) await profiler!.post("Profiler.start");
  if (profile && heapProfileFile !== undefined)
    await profiler!.post("HeapProfiler.startSampling", {
      samplingInterval: 4096,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: true,
    });
  const c0 = process.cpuUsage();
  const s = performance.now();
  e.last = await e.api.executeProposal(e.ctx, e.org, client, account, proposal);
  const ms = performance.now() - s;
  const c = process.cpuUsage(c0);
  if (profile && profileFile !== undefined) profiles.push((await profiler!.post("Profiler.stop")).profile);
  if (profile && heapProfileFile !== undefined)
    heapProfiles.push((await profiler!.post("HeapProfiler.stopSampling")).profile);
  if (n >= WARMUP) {
    e.wall.push(ms);
    e.cpu.push((c.user + c.system) / 1000);
  }
}

async function pgReachable(): Promise<boolean> {
  const c = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 2000 });
  try {
    await c.connect();
    await c.query("SELECT 1");
    return true;
  } catch {
    return false;
  } finally {
    await c.end().catch(() => {});
  }
}

const profiles: object[] = [];
const heapProfiles: object[] = [];

const p95 = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(0.95 * s.length) - 1)]!;
};

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "lotwise-ledger-apply-"));
  const schemas: string[] = [];
  const pgLocation = () => {
    const schema = `bench_ledger_${randomBytes(4).toString("hex")}`;
    schemas.push(schema);
    return `${PG_URL}${PG_URL.includes("?") ? "&" : "?"}options=-c%20search_path%3D${schema}`;
  };
  const engines: Engine[] = [];
  try {
    const current = await loadApi(resolve(import.meta.dirname, ".."));
    const baseline = baselineDir === undefined ? undefined : await loadApi(resolve(baselineDir));
    const usePg = withPg && (await pgReachable());
    if (withPg && !usePg) console.log(`PostgreSQL does not answer at ${PG_URL}: SQLite only.`);
    engines.push(await engine("sqlite", current, join(dir, "current.db")));
    if (usePg) engines.push(await engine("postgres", current, pgLocation()));
    if (baseline !== undefined) {
      engines.push(await engine("sqlite-baseline", baseline, join(dir, "baseline.db")));
      if (usePg) engines.push(await engine("postgres-baseline", baseline, pgLocation()));
    }
    if (profileFile !== undefined || heapProfileFile !== undefined) {
      profiler = new Session();
      profiler.connect();
      await profiler.post("Profiler.enable");
      await profiler.post("Profiler.setSamplingInterval", { interval: 100 });
      await profiler.post("HeapProfiler.enable");
    }
    const t0 = performance.now();
    for (let n = 0; n < RUNS + WARMUP; n++) {
      const data = runData(n);
      for (const e of engines) await seed(e, data);
    }
    console.log(
      `seeded ${RUNS + WARMUP} accounts of ${POSITIONS * LOTS_PER_POSITION} lots with a 500-order proposal each, per engine (${engines.map((e) => e.name).join(", ")}), in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
    );
    for (let n = 0; n < RUNS + WARMUP; n++)
      for (let k = 0; k < engines.length; k++) await timeOne(engines[(n + k) % engines.length]!, n);

    const last = engines[0]!.last!;
    const washed = last.realized.filter((r) => r.adjustment_code === "W").length;
    console.log(
      `${last.execution_ids.length} executions -> ${last.lots} lots, ${last.realized.length} realized rows (${washed} washed); load average ${loadavg()[0]!.toFixed(1)}`,
    );
    for (const e of engines.slice(1))
      if (e.last!.realized_total_usd !== last.realized_total_usd || e.last!.lots !== last.lots)
        throw new Error(
          `${e.name} realized ${e.last!.realized_total_usd} on ${e.last!.lots} lots, sqlite ${last.realized_total_usd} on ${last.lots}`,
        );
    console.log(`all engines realized ${last.realized_total_usd} USD and kept ${last.lots} lots`);

    const figures: Record<string, TimingStats & { p95Ms: number; cpuMedianMs: number }> = {};
    console.log(
      `${"engine".padEnd(20)} ${"median".padStart(9)} ${"p95".padStart(9)} ${"min".padStart(9)} ${"CPU med".padStart(9)}   (ms, ${RUNS} runs each)`,
    );
    for (const e of engines) {
      const s = stats(e.wall);
      figures[e.name] = { ...s, p95Ms: p95(e.wall), cpuMedianMs: stats(e.cpu).medianMs };
      const f = figures[e.name]!;
      console.log(
        `${e.name.padEnd(20)} ${f.medianMs.toFixed(1).padStart(9)} ${f.p95Ms.toFixed(1).padStart(9)} ${f.minMs.toFixed(1).padStart(9)} ${f.cpuMedianMs.toFixed(1).padStart(9)}`,
      );
    }
    console.log(
      line("executeProposal, SQLite, 500 orders on 10,000 lots (median)", figures.sqlite!.medianMs, "ms", {
        max: 50,
      }),
    );
    const ratios: Record<string, number> = {};
    for (const name of ["sqlite", "postgres"]) {
      const now = figures[name];
      const before = figures[`${name}-baseline`];
      if (now === undefined || before === undefined) continue;
      ratios[`${name}MedianRatio`] = now.medianMs / before.medianMs;
      ratios[`${name}MinRatio`] = now.minMs / before.minMs;
      ratios[`${name}CpuRatio`] = now.cpuMedianMs / before.cpuMedianMs;
      console.log(
        `${name}: this checkout / baseline = ${ratios[`${name}MedianRatio`]!.toFixed(2)} (median), ${ratios[`${name}MinRatio`]!.toFixed(2)} (min), ${ratios[`${name}CpuRatio`]!.toFixed(2)} (CPU)`,
      );
    }
    const path = writeResult(warm ? "ledger-apply-warm" : "ledger-apply", {
      lotsMemo: warm ? "warm" : "cold",
      lots: POSITIONS * LOTS_PER_POSITION,
      executions: last.execution_ids.length,
      realizedRows: last.realized.length,
      washedRows: washed,
      goalMs: 50,
      runs: RUNS,
      baseline: baselineDir ?? null,
      loadAverage1m: loadavg()[0],
      engines: figures,
      ...ratios,
      // The figures of earlier versions of this bench, kept at the top level.
      medianMs: figures.sqlite!.medianMs,
      minMs: figures.sqlite!.minMs,
      p90Ms: figures.sqlite!.p90Ms,
      cpuMedianMs: figures.sqlite!.cpuMedianMs,
    });
    console.log(`wrote ${path}`);
    if (profileFile !== undefined) {
      writeFileSync(profileFile, JSON.stringify(profiles));
      console.log(`wrote ${profiles.length} CPU profiles to ${profileFile}`);
    }
    if (heapProfileFile !== undefined) {
      writeFileSync(heapProfileFile, JSON.stringify(heapProfiles));
      console.log(`wrote ${heapProfiles.length} allocation profiles to ${heapProfileFile}`);
    }
  } finally {
    for (const e of engines) await e.ctx.store.close();
    if (schemas.length > 0) {
      const admin = new pg.Client({ connectionString: PG_URL });
      await admin.connect();
      for (const s of schemas) await admin.query(`DROP SCHEMA IF EXISTS ${s} CASCADE`);
      await admin.end();
    }
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
