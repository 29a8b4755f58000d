/**
 * Parsing the real S&P 500 price file (619,040 rows, 29.6 MB once gunzipped) into PriceBar records with all
 * flaw checks: median of 3 runs after one warm-up. Goal: <= 4 s (the whole import, store inserts included,
 * must stay <= 15 s). For reference, also times csv-parse 6 (sync API) on the same text, without and with
 * the line information our error messages need. Writes bench/results/import-parse.json.
 * Data: LOTWISE_DATA_DIR or /work/shared/data; skipped (exit 0) when absent.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { parse } from "csv-parse/sync";
import { parsePrices } from "../src/market/importers/prices.js";
import { resolverForMic } from "../src/market/importers/symbol-resolver.js";
import { line, stats, type TimingStats, writeResult } from "./lib/harness.js";

const dataDir = process.env.LOTWISE_DATA_DIR ?? "/work/shared/data";
const file = join(dataDir, "prices/all_stocks_5yr.csv.gz");
if (!existsSync(file)) {
  console.log(`import-parse: ${file} not found; skipped.`);
  process.exit(0);
}

const gz = readFileSync(file);
const text = gunzipSync(gz).toString("utf8");
const resolver = resolverForMic("XNYS");
let rows = 0;

const gc = (globalThis as { gc?: () => void }).gc;

/**
 * Median of `runs` timed calls after one warm-up, with a full GC before each call (when --expose-gc is on):
 * a real import runs once in a fresh process, so the previous run's 619k records should not be collected
 * inside the timed window.
 */
async function timeFresh(fn: () => unknown, runs = 3, warmup = 1): Promise<TimingStats> {
  for (let i = 0; i < warmup; i++) await fn();
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    gc?.();
    const t0 = process.hrtime.bigint();
    await fn();
    samples.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  return stats(samples);
}

const fromGzip = await timeFresh(async () => {
  const r = await parsePrices(gz, { file, resolver });
  rows = r.bars.length;
});
const fromText = await timeFresh(() => parsePrices(text, { file, resolver }));
const gunzip = await timeFresh(() => gunzipSync(gz).toString("utf8"));
const csvParse = await timeFresh(() => parse(text), 1, 0);
const csvParseInfo = await timeFresh(() => parse(text, { info: true }), 1, 0);

console.log(`rows parsed: ${rows}${gc ? "" : " (run with --expose-gc for stable figures)"}`);
console.log(
  line("parse .csv.gz -> PriceBar[] + summary (median of 3)", fromGzip.medianMs, "ms", { max: 4000 }),
);
console.log(line("  of which gunzip + UTF-8 decode", gunzip.medianMs, "ms"));
console.log(line("parse text -> PriceBar[] + summary (median of 3)", fromText.medianMs, "ms"));
console.log(line("reference: csv-parse sync, fields only", csvParse.medianMs, "ms"));
console.log(line("reference: csv-parse sync, with line info", csvParseInfo.medianMs, "ms"));
console.log(line("throughput (from .csv.gz)", rows / (fromGzip.medianMs / 1000), "rows/s"));

const path = writeResult("import-parse", {
  file,
  rows,
  parseFromGzip: fromGzip,
  parseFromText: fromText,
  gunzipDecode: gunzip,
  csvParseSyncFieldsOnly: csvParse,
  csvParseSyncWithInfo: csvParseInfo,
  goalMs: 4000,
  ok: fromGzip.medianMs <= 4000,
});
console.log(`wrote ${path}`);
