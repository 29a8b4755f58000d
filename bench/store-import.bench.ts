/**
 * The foundation issue's two benchmarks, end to end into a SQLite store file:
 *  - importing the real 619,040-row price file (`lotwise market import prices ... --mic XNYS --create-securities`
 *    path: parse + flaw checks + one transaction of inserts) — goal <= 15 s; the whole S&P 500 data set loader is
 *    timed too (prices, constituents, characteristics, index, FX);
 *  - generating a 500-security x 10-year synthetic market — goal <= 5 s (and writing it to a store, for reference).
 * Writes bench/results/store-import.json. The real-data part is skipped when the data folder is absent.
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { importPrices } from "../src/market/importers/index.js";
import { loadSp500Dataset } from "../src/market/real-data/index.js";
import { generateMarket, writeSyntheticMarket } from "../src/market/synthetic/index.js";
import { openSqliteStore } from "../src/store/index.js";
import { line, stats, writeResult } from "./lib/harness.js";

const dataDir = process.env.LOTWISE_DATA_DIR ?? resolve(import.meta.dirname, "..", "..", "shared", "data");
const file = join(dataDir, "prices", "all_stocks_5yr.csv.gz");
const dir = mkdtempSync(join(tmpdir(), "lotwise-bench-"));
const figures: Record<string, unknown> = {};

async function timed<T>(fn: () => Promise<T> | T): Promise<{ ms: number; value: T }> {
  (globalThis as { gc?: () => void }).gc?.();
  const t0 = process.hrtime.bigint();
  const value = await fn();
  return { ms: Number(process.hrtime.bigint() - t0) / 1e6, value };
}

try {
  if (existsSync(file)) {
    const samples: number[] = [];
    let rows = 0;
    for (let i = 0; i < 3; i++) {
      const store = openSqliteStore(join(dir, `prices-${i}.db`));
      const r = await timed(() =>
        importPrices(file, store.engine.market, { defaultMic: "XNYS", createMissingSecurities: true }),
      );
      samples.push(r.ms);
      rows = (await store.market.summary()).priceRows;
      await store.close();
    }
    const s = stats(samples);
    console.log(`price rows stored: ${rows}`);
    console.log(
      line("import 619,040-row price file into SQLite (median of 3)", s.medianMs / 1000, "s", { max: 15 }),
    );
    const store = openSqliteStore(join(dir, "sp500.db"));
    const all = await timed(() => loadSp500Dataset(dataDir, store.engine.market));
    await store.close();
    console.log(
      line("load the whole S&P 500 data set (prices, fundamentals, index, FX)", all.ms / 1000, "s"),
    );
    figures.priceImport = {
      rows,
      seconds: s.medianMs / 1000,
      runs: samples.map((x) => x / 1000),
      goalSeconds: 15,
      ok: s.medianMs <= 15_000,
    };
    figures.sp500Load = { seconds: all.ms / 1000, written: all.value.written };
  } else console.log(`real data not found at ${dataDir}; the price-import benchmark is skipped.`);

  const gen: number[] = [];
  let market = generateMarket({ seed: 1, securities: 500, years: 10 });
  for (let i = 0; i < 3; i++) {
    const r = await timed(() => generateMarket({ seed: 1 + i, securities: 500, years: 10 }));
    gen.push(r.ms);
    market = r.value;
  }
  const g = stats(gen);
  console.log(line("generate 500 securities x 10 years (median of 3)", g.medianMs / 1000, "s", { max: 5 }));
  const store = openSqliteStore(join(dir, "synthetic.db"));
  const w = await timed(() => writeSyntheticMarket(market, store.engine.market));
  await store.close();
  console.log(line("  write it to a SQLite store", w.ms / 1000, "s"));
  figures.generate = {
    securities: 500,
    years: 10,
    seconds: g.medianMs / 1000,
    goalSeconds: 5,
    ok: g.medianMs <= 5000,
    writeSeconds: w.ms / 1000,
    written: w.value,
  };
  console.log(`wrote ${writeResult("store-import", figures)}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
