/**
 * SQLite against PostgreSQL behind the same HTTP service, in one run (issue 16's store measures):
 * - `GET .../portfolio_configs/`: requests per second, sequential (1 connection) and 8 at once;
 * - the proposal of bench/proposal-http.bench.ts (500 positions, 10,000 lots, "full drift"): median latency.
 * The store is built once on SQLite and copied to a private schema of PostgreSQL with `copyStore`, so both servers
 * answer from the same data; the two are timed alternately, round by round, so that load on the machine falls on
 * both alike. Goal: PostgreSQL proposal median <= 1.5 x SQLite's.
 * Needs PostgreSQL (LOTWISE_TEST_PG, default postgres://postgres@127.0.0.1:5432/test).
 * Run: node --import tsx --expose-gc bench/store-engines.bench.ts [--requests 20] [--seconds 3]
 * Writes bench/results/store-engines.json.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { type ServerHandle, serve } from "../src/server/index.js";
import { copyStore, type LotwiseStore, openSqliteStore, openStore } from "../src/store/index.js";
import { line, stats, writeResult } from "./lib/harness.js";
import { buildLargeAccount, CLOCK } from "./lib/large-account.js";

const PG_URL = process.env.LOTWISE_TEST_PG ?? "postgres://postgres@127.0.0.1:5432/test";

function option(name: string, fallback: number): number {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}

const gc = (globalThis as { gc?: () => void }).gc;

interface Engine {
  name: "sqlite" | "postgres";
  store: LotwiseStore;
  handle: ServerHandle;
  proposalMs: number[];
  listSequentialRps: number[];
  listConcurrentRps: number[];
}

async function main(): Promise<void> {
  const requests = option("--requests", 20);
  const seconds = option("--seconds", 3);
  const dir = mkdtempSync(join(tmpdir(), "lotwise-engines-bench-"));
  const schema = `bench_engines_${randomBytes(4).toString("hex")}`;
  const sqlite = openSqliteStore(join(dir, "bench.db"), { now: () => CLOCK().toISOString() });
  let postgres: LotwiseStore | undefined;
  const engines: Engine[] = [];
  try {
    const fixture = await buildLargeAccount(sqlite);
    console.log(line(`SQLite store build (${fixture.lots} lots)`, fixture.buildSeconds, "s"));
    const t0 = performance.now();
    postgres = await openStore(
      `${PG_URL}${PG_URL.includes("?") ? "&" : "?"}options=-c%20search_path%3D${schema}`,
    );
    await copyStore(sqlite, postgres);
    console.log(line("copyStore SQLite -> PostgreSQL", (performance.now() - t0) / 1000, "s"));

    for (const [name, store] of [
      ["sqlite", sqlite],
      ["postgres", postgres],
    ] as const) {
      const handle = await serve({ ctx: { store, clock: CLOCK }, port: 0, host: "127.0.0.1" });
      engines.push({ name, store, handle, proposalMs: [], listSequentialRps: [], listConcurrentRps: [] });
    }
    const headers = { "X-Api-Key": fixture.apiKey, "Content-Type": "application/json" };
    const base = (e: Engine) => `${e.handle.url}/api/v1/custom/org/${fixture.org}`;
    const payload = JSON.stringify(fixture.body);
    const post = async (e: Engine) => {
      const res = await fetch(
        `${base(e)}/clients/${fixture.clientUuid}/accounts/${fixture.accountUuid}/proposal/`,
        {
          method: "POST",
          headers,
          body: payload,
        },
      );
      const text = await res.text();
      if (res.status !== 200)
        throw new Error(`${e.name}: POST proposal answered ${res.status}: ${text.slice(0, 300)}`);
    };
    const list = async (e: Engine) => {
      const res = await fetch(`${base(e)}/portfolio_configs/`, { headers });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`${e.name}: GET portfolio_configs answered ${res.status}`);
    };
    /** Requests per second over `seconds`, with `parallel` requests in flight. */
    const rate = async (e: Engine, parallel: number) => {
      let done = 0;
      const end = performance.now() + seconds * 1000;
      await Promise.all(
        Array.from({ length: parallel }, async () => {
          while (performance.now() < end) {
            await list(e);
            done++;
          }
        }),
      );
      return done / seconds;
    };

    for (const e of engines) for (let i = 0; i < 3; i++) await post(e);
    for (const e of engines) await rate(e, 1);
    for (let round = 0; round < requests; round++)
      for (const e of engines) {
        gc?.();
        const t = performance.now();
        await post(e);
        e.proposalMs.push(performance.now() - t);
      }
    for (let round = 0; round < 3; round++)
      for (const e of engines) {
        e.listSequentialRps.push(await rate(e, 1));
        e.listConcurrentRps.push(await rate(e, 8));
      }

    const median = (xs: number[]) => stats(xs).medianMs;
    const figures: Record<string, unknown> = {};
    for (const e of engines) {
      const p = stats(e.proposalMs);
      figures[e.name] = {
        proposal: { medianMs: p.medianMs, p90Ms: p.p90Ms, minMs: p.minMs },
        portfolioConfigsRps: {
          sequential: median(e.listSequentialRps),
          concurrent8: median(e.listConcurrentRps),
        },
      };
      console.log(line(`${e.name}: POST proposal, median of ${requests}`, p.medianMs, "ms"));
      console.log(
        line(`${e.name}: GET portfolio_configs/, 1 connection`, median(e.listSequentialRps), "req/s"),
      );
      console.log(line(`${e.name}: GET portfolio_configs/, 8 at once`, median(e.listConcurrentRps), "req/s"));
    }
    const [s, p] = engines as [Engine, Engine];
    const ratio = median(p.proposalMs) / median(s.proposalMs);
    console.log(line("proposal median, PostgreSQL / SQLite", ratio, "x", { max: 1.5 }));
    const load = loadavg()[0]!;
    console.log(line("load average (1 min) at the end", load, ""));
    console.log(
      `wrote ${writeResult("store-engines", {
        lots: fixture.lots,
        requests,
        seconds,
        ...figures,
        proposalRatioPostgresToSqlite: ratio,
        goalProposalRatio: 1.5,
        listRatioSequential: median(p.listSequentialRps) / median(s.listSequentialRps),
        listRatioConcurrent8: median(p.listConcurrentRps) / median(s.listConcurrentRps),
        loadAverage1m: load,
      })}`,
    );
  } finally {
    for (const e of engines) await e.handle.close({ graceMs: 100 });
    await sqlite.close();
    if (postgres) await postgres.close();
    const admin = new pg.Client({ connectionString: PG_URL });
    await admin.connect();
    await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await admin.end();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
