/**
 * Child of bench/startup.bench.ts: in a fresh process, times the first solve of B_n2000 and then the steady state,
 * and prints the figures as JSON. Prints nothing and exits 1 when the instances are absent.
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { solveQp } from "../../src/core/numeric/qp-solver.js";
import { stats } from "./harness.js";
import { instanceFolder, loadInstance, lotwiseProblem } from "./qp-instances.js";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const inst = loadInstance(instanceFolder(root), "B_n2000");
if (!inst) process.exit(1);
const problem = lotwiseProblem(inst);
const t0 = process.hrtime.bigint();
solveQp(problem);
const firstMs = Number(process.hrtime.bigint() - t0) / 1e6;
const steady: number[] = [];
for (let i = 0; i < 9; i++) {
  const t = process.hrtime.bigint();
  solveQp(problem);
  steady.push(Number(process.hrtime.bigint() - t) / 1e6);
}
const steadyMs = stats(steady);
process.stdout.write(JSON.stringify({ firstMs, steadyMs, ratio: firstMs / steadyMs.medianMs }));
