/**
 * Start-up benchmark (issue 17): wall time of whole processes, each command run alternately with a bare `node -e 0`
 * in the same loop so that both see the same machine load; figures are medians and the ratio to bare node.
 * - `lotwise --version`, `lotwise --help` (goal <= 0.3 s), a store command's fixed overhead (`lotwise clients list`
 *   on a fresh store; goal <= 0.5 s), importing the solver subpath (`lotwise/solver`, goal <= 60 ms above bare
 *   node) and the package root.
 * - The first solve in a fresh process against the steady state (B_n2000 of /work/shared/bench/qp when present).
 * Needs `npm run build` (the CLI and the subpaths run from dist/). Run: npm run bench:startup
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { line, stats, type TimingStats, writeResult } from "./lib/harness.js";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const bin = join(root, "bin", "lotwise.js");
const runs = Number(process.env.RUNS ?? 9);
const dir = mkdtempSync(join(tmpdir(), "lotwise-startup-bench-"));
const store = join(dir, "s.db");
execFileSync(process.execPath, [bin, "init", "--store", store, "--json"], { stdio: "pipe" });

function wall(args: string[]): number {
  const t0 = process.hrtime.bigint();
  execFileSync(process.execPath, args, { cwd: root, stdio: "pipe", env: { ...process.env, CI: "true" } });
  return Number(process.hrtime.bigint() - t0) / 1e6;
}

const cases: Record<string, string[]> = {
  "lotwise --version": [bin, "--version"],
  "lotwise --help": [bin, "--help"],
  "lotwise clients list (store command)": [bin, "clients", "list", "--store", store],
  "import lotwise/solver": ["--input-type=module", "-e", 'await import("lotwise/solver")'],
  "import lotwise (package root)": ["--input-type=module", "-e", 'await import("lotwise")'],
};
const bare: number[] = [];
const samples: Record<string, number[]> = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
for (let i = 0; i < runs; i++) {
  for (const [name, args] of Object.entries(cases)) {
    bare.push(wall(["-e", "0"]));
    samples[name]!.push(wall(args));
  }
}
const bareStats = stats(bare);
const figures: Record<string, { ms: TimingStats; ratioToNode: number; overNodeMs: number }> = {};
console.log(line("node -e 0 (bare)", bareStats.medianMs, "ms"));
const goals: Record<string, number> = {
  "lotwise --version": 300,
  "lotwise --help": 300,
  "lotwise clients list (store command)": 500,
};
for (const [name, s] of Object.entries(samples)) {
  const st = stats(s);
  figures[name] = {
    ms: st,
    ratioToNode: st.medianMs / bareStats.medianMs,
    overNodeMs: st.medianMs - bareStats.medianMs,
  };
  const goal = goals[name];
  console.log(line(name, st.medianMs, "ms", goal !== undefined ? { max: goal } : undefined));
  console.log(`${"".padEnd(48)} x${(st.medianMs / bareStats.medianMs).toFixed(2)} of bare node`);
}
console.log(
  line("import lotwise/solver above bare node", figures["import lotwise/solver"]!.overNodeMs, "ms", {
    max: 60,
  }),
);

// The first solve in a fresh process against the steady state.
let firstSolve: { firstMs: number; steadyMs: TimingStats; ratio: number } | undefined;
try {
  const out = execFileSync(
    process.execPath,
    ["--import", "tsx", join(root, "bench", "lib", "first-solve.ts")],
    {
      cwd: root,
      stdio: ["ignore", "pipe", "pipe"],
    },
  ).toString();
  firstSolve = JSON.parse(out);
  if (firstSolve) {
    console.log(line("B_n2000 first solve in a fresh process", firstSolve.firstMs, "ms"));
    console.log(line("B_n2000 steady-state solve (median)", firstSolve.steadyMs.medianMs, "ms"));
    console.log(`${"".padEnd(48)} first / steady x${firstSolve.ratio.toFixed(1)}`);
  }
} catch (err) {
  console.log(`first solve: skipped (${(err as Error).message.split("\n")[0]})`);
}
rmSync(dir, { recursive: true, force: true });
const path = writeResult("startup", { runs, bareNodeMs: bareStats, commands: figures, firstSolve });
console.log(`wrote ${path}`);
