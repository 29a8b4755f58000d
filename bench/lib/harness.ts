/**
 * Shared benchmark helpers: timing with warm-up and medians, and the JSON report every bench writes to
 * bench/results/<name>.json. Benchmarks run outside the test suite (`npm run bench`).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus, totalmem } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const RESULTS_DIR = join(dirname(fileURLToPath(import.meta.url)), "..", "results");

export interface TimingStats {
  runs: number;
  medianMs: number;
  minMs: number;
  maxMs: number;
  p90Ms: number;
}

/** Time `fn` `runs` times after `warmup` untimed calls; returns order statistics in milliseconds. */
export async function time(
  fn: () => unknown | Promise<unknown>,
  options: { runs?: number; warmup?: number } = {},
): Promise<TimingStats> {
  const runs = options.runs ?? 7;
  const warmup = options.warmup ?? 1;
  for (let i = 0; i < warmup; i++) await fn();
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = process.hrtime.bigint();
    await fn();
    samples.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  return stats(samples);
}

export function stats(samples: number[]): TimingStats {
  const s = [...samples].sort((a, b) => a - b);
  const q = (p: number) => s[Math.min(s.length - 1, Math.floor(p * (s.length - 1) + 0.5))]!;
  return { runs: s.length, medianMs: q(0.5), minMs: s[0]!, maxMs: s[s.length - 1]!, p90Ms: q(0.9) };
}

/** Write `bench/results/<name>.json` with the figures plus machine facts, and return its path. */
export function writeResult(name: string, figures: unknown): string {
  mkdirSync(RESULTS_DIR, { recursive: true });
  const path = join(RESULTS_DIR, `${name}.json`);
  const doc = {
    name,
    at: new Date().toISOString(),
    node: process.version,
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model ?? "unknown",
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    figures,
  };
  writeFileSync(path, `${JSON.stringify(doc, null, 2)}\n`);
  return path;
}

/** Format a figure line: `label  value unit  (goal)  OK|MISS`. */
export function line(
  label: string,
  value: number,
  unit: string,
  goal?: { max?: number; min?: number },
): string {
  let verdict = "";
  if (goal?.max !== undefined)
    verdict = `  (goal <= ${goal.max} ${unit}) ${value <= goal.max ? "OK" : "MISS"}`;
  if (goal?.min !== undefined)
    verdict = `  (goal >= ${goal.min} ${unit}) ${value >= goal.min ? "OK" : "MISS"}`;
  return `${label.padEnd(48)} ${value.toFixed(value < 10 ? 3 : 1).padStart(10)} ${unit}${verdict}`;
}
