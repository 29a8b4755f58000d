/**
 * QP solver benchmark on the shared portfolio instances (/work/shared/bench/qp, see its README):
 * lotwise's solveQp against HiGHS (npm `highs`, lifted form y = F'x, user_bound_scale 7), both on data
 * already in memory, medians of several solves in one run. Also times warm re-solves after a small change
 * of mu (q) against cold solves. Run: npm run bench:optimizer
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import highsImport from "highs";
import { denseMatrix } from "../src/core/numeric/dense-matrix.js";
import { createQpSolver, solveQp } from "../src/core/numeric/qp-solver.js";
import type { QpOptions, QpResult } from "../src/core/numeric/qp-types.js";
import { line, stats, type TimingStats, time, writeResult } from "./lib/harness.js";
import {
  highsModel,
  instanceFolder,
  instanceObjective,
  instanceViolation,
  loadInstance,
  lotwiseProblem,
  REFERENCE_OBJECTIVES,
} from "./lib/qp-instances.js";

// highs ships CommonJS typings; the ESM build's default export is the loader itself.
type HighsLoader = typeof highsImport.default;
const highsLoader = ((highsImport as unknown as { default?: HighsLoader }).default ??
  highsImport) as unknown as HighsLoader;

const INSTANCES = ["A_n100", "B_n100", "A_n500", "B_n500", "A_n2000", "B_n2000"];
const repoRoot = join(dirname(fileURLToPath(import.meta.url)), "..");
const folder = instanceFolder(repoRoot);
const gc = (globalThis as { gc?: () => void }).gc;

interface InstanceFigures {
  instance: string;
  n: number;
  reference: number;
  objective: number;
  objectiveGap: number;
  violation: number;
  method: string;
  iterations: number;
  oursMs: TimingStats;
  admmMs: TimingStats;
  admmObjectiveGap: number;
  highsMs: TimingStats;
  highsObjective: number;
  highsStatus: string;
  ratio: number;
  ratioGoal: number;
}

interface WarmFigures {
  instance: string;
  coldMs: TimingStats;
  warmMs: TimingStats;
  ratio: number;
  warmIterations: number;
  coldIterations: number;
  maxObjectiveGap: number;
}

interface CapFigures {
  instance: string;
  cap: number;
  trackingErrorOverCap: number;
  iterations: number;
  ms: TimingStats;
  admmObjectiveGap: number;
  violation: number;
}

function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

async function main(): Promise<void> {
  const available = INSTANCES.filter((name) => loadInstance(folder, name) !== undefined);
  if (available.length === 0) {
    process.stdout.write(`optimizer bench skipped: no QP instances under ${folder}\n`);
    writeResult("optimizer", { skipped: true, reason: `no instances under ${folder}` });
    return;
  }
  const highs = await highsLoader();
  const rows: InstanceFigures[] = [];
  const warmRows: WarmFigures[] = [];
  for (const name of available) {
    const inst = loadInstance(folder, name)!;
    const problem = lotwiseProblem(inst);
    const reference = REFERENCE_OBJECTIVES[name]!;
    const large = inst.n >= 2000;
    const runs = large ? 15 : 41;

    let last: QpResult | undefined;
    gc?.();
    const oursMs = await time(
      () => {
        last = solveQp(problem);
      },
      { runs, warmup: large ? 3 : 20 },
    );
    const r = last!;
    const objective = instanceObjective(inst, r.x);
    let admm: QpResult | undefined;
    const admmOptions: QpOptions = { method: "admm" };
    gc?.();
    const admmMs = await time(
      () => {
        admm = solveQp(problem, admmOptions);
      },
      { runs: large ? 5 : 11, warmup: 2 },
    );

    const model = highsModel(inst);
    let highsObjective = Number.NaN;
    let highsStatus = "";
    gc?.();
    const highsMs = await time(
      () => {
        const m = highs.createModel(model);
        try {
          m.options.set({ output_flag: false, user_bound_scale: 7 });
          m.run();
          highsStatus = String(m.getModelStatus());
          const sol = m.getSolution();
          highsObjective = instanceObjective(inst, sol.colValue.subarray(0, inst.n));
        } finally {
          m.dispose();
        }
      },
      { runs: large ? 7 : 15, warmup: 2 },
    );
    const ratioGoal = inst.problem === "B" ? 0.2 : 0.5;
    const fig: InstanceFigures = {
      instance: name,
      n: inst.n,
      reference,
      objective,
      objectiveGap: Math.abs(objective - reference) / Math.abs(reference),
      violation: instanceViolation(inst, r.x),
      method: r.method,
      iterations: r.iterations,
      oursMs,
      admmMs,
      admmObjectiveGap: Math.abs(instanceObjective(inst, admm!.x) - reference) / Math.abs(reference),
      highsMs,
      highsObjective,
      highsStatus,
      ratio: oursMs.medianMs / highsMs.medianMs,
      ratioGoal,
    };
    rows.push(fig);
    process.stdout.write(
      `\n${name} (n ${inst.n}, k ${inst.k}, status ${r.status}, ${r.method}, ${r.iterations} iterations)\n`,
    );
    process.stdout.write(
      `${line("  objective gap vs reference (relative)", fig.objectiveGap, "", { max: 1e-6 })}\n`,
    );
    process.stdout.write(`${line("  max constraint violation", fig.violation, "", { max: 1e-8 })}\n`);
    process.stdout.write(`${line("  ours median", oursMs.medianMs, "ms")}\n`);
    process.stdout.write(`${line("  HiGHS median", highsMs.medianMs, "ms")}\n`);
    process.stdout.write(`${line("  ratio ours / HiGHS", fig.ratio, "", { max: ratioGoal })}\n`);
    process.stdout.write(`${line("  ours with method admm (+ polish) median", admmMs.medianMs, "ms")}\n`);

    // Warm start: perturb mu by a small amount (0.1% of its spread) and re-solve.
    const rnd = seeded(inst.n + (inst.problem === "B" ? 1 : 0));
    const perturbed: Float64Array[] = [];
    for (let t = 0; t < 2; t++) {
      const q = Float64Array.from(problem.q);
      for (let i = 0; i < inst.n; i++) q[i]! -= 1e-3 * (2 * rnd() - 1);
      perturbed.push(q);
    }
    const solver = createQpSolver(problem);
    solver.solve();
    const warmSamples: number[] = [];
    const coldSamples: number[] = [];
    let warmIterations = 0;
    let coldIterations = 0;
    let maxGap = 0;
    const reps = large ? 15 : 31;
    gc?.();
    for (let t = 0; t < reps + 3; t++) {
      const q = perturbed[t % 2]!;
      const t0 = process.hrtime.bigint();
      solver.update({ q });
      const w = solver.solve();
      const t1 = process.hrtime.bigint();
      const c = solveQp({ ...problem, q });
      const t2 = process.hrtime.bigint();
      if (t < 3) continue;
      warmSamples.push(Number(t1 - t0) / 1e6);
      coldSamples.push(Number(t2 - t1) / 1e6);
      warmIterations = w.iterations;
      coldIterations = c.iterations;
      maxGap = Math.max(maxGap, Math.abs(w.objective - c.objective) / Math.abs(c.objective));
    }
    const warm: WarmFigures = {
      instance: name,
      coldMs: stats(coldSamples),
      warmMs: stats(warmSamples),
      ratio: stats(warmSamples).medianMs / stats(coldSamples).medianMs,
      warmIterations,
      coldIterations,
      maxObjectiveGap: maxGap,
    };
    warmRows.push(warm);
    process.stdout.write(
      `${line("  warm re-solve after a mu change, median", warm.warmMs.medianMs, "ms")}\n`,
    );
    process.stdout.write(`${line("  cold solve of the same problem, median", warm.coldMs.medianMs, "ms")}\n`);
    process.stdout.write(`${line("  warm / cold", warm.ratio, "", { max: 1 / 3 })}\n`);
  }

  // Active-risk cap: the B instances with ||G (x - b)|| <= 0.8 x the uncapped tracking error, G from the
  // instance's own risk model (HiGHS has no cone constraints, so ADMM + polish is the cross-check).
  const capRows: CapFigures[] = [];
  for (const name of available.filter((a) => a.startsWith("B_"))) {
    const inst = loadInstance(folder, name)!;
    const problem = lotwiseProblem(inst);
    const bench = Float64Array.from(inst.c!);
    const trackingError = (x: Float64Array): number => {
      const t = new Float64Array(inst.k);
      let r = 0;
      for (let i = 0; i < inst.n; i++) {
        const dx = x[i]! - bench[i]!;
        r += inst.D[i]! * dx * dx;
        for (let j = 0; j < inst.k; j++) t[j]! += inst.F[i * inst.k + j]! * dx;
      }
      for (let j = 0; j < inst.k; j++) r += t[j]! * t[j]!;
      return Math.sqrt(r);
    };
    const cap = 0.8 * trackingError(solveQp(problem).x);
    const capped = {
      ...problem,
      cones: [
        {
          kind: "factor-risk-ball" as const,
          center: bench,
          diagonal: Float64Array.from(inst.D),
          factors: denseMatrix(inst.n, inst.k, Float64Array.from(inst.F)),
          radius: cap,
        },
      ],
    };
    let r: QpResult | undefined;
    gc?.();
    const ms = await time(
      () => {
        r = solveQp(capped);
      },
      { runs: inst.n >= 2000 ? 7 : 15, warmup: 2 },
    );
    const viaAdmm = solveQp(capped, { method: "admm" });
    const fig: CapFigures = {
      instance: name,
      cap,
      trackingErrorOverCap: trackingError(r!.x) / cap,
      iterations: r!.iterations,
      ms,
      admmObjectiveGap: Math.abs(viaAdmm.objective - r!.objective) / Math.abs(r!.objective),
      violation: instanceViolation(inst, r!.x),
    };
    capRows.push(fig);
    process.stdout.write(
      `\n${name} with an active-risk cap (${r!.status}, ${r!.method}, ${r!.iterations} Newton steps)\n`,
    );
    process.stdout.write(`${line("  median", ms.medianMs, "ms")}\n`);
    process.stdout.write(
      `${line("  tracking error / cap", fig.trackingErrorOverCap, "", { max: 1 + 1e-9 })}\n`,
    );
    process.stdout.write(
      `${line("  objective gap ADMM+polish vs active-set", fig.admmObjectiveGap, "", { max: 1e-6 })}\n`,
    );
  }

  process.stdout.write(
    "\n| instance | ours ms | HiGHS ms | ratio (goal) | objective gap | violation | warm ms | cold ms | warm/cold |\n",
  );
  process.stdout.write("|---|---|---|---|---|---|---|---|---|\n");
  rows.forEach((f, i) => {
    const w = warmRows[i]!;
    process.stdout.write(
      `| ${f.instance} | ${f.oursMs.medianMs.toFixed(2)} | ${f.highsMs.medianMs.toFixed(1)} | ${f.ratio.toFixed(3)} (<= ${f.ratioGoal}) | ${f.objectiveGap.toExponential(1)} | ${f.violation.toExponential(1)} | ${w.warmMs.medianMs.toFixed(2)} | ${w.coldMs.medianMs.toFixed(2)} | ${w.ratio.toFixed(2)} |\n`,
    );
  });
  const path = writeResult("optimizer", { instances: rows, warmStart: warmRows, riskCap: capRows });
  process.stdout.write(`\nwrote ${path}\n`);
}

await main();
