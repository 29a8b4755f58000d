/**
 * Loading of the portfolio QP benchmark instances (/work/shared/bench/qp, see its README) and the
 * HiGHS model of the same problem in the lifted form y = F'x used by the reference timings.
 */
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { ModelData } from "highs";
import { denseMatrix } from "../../src/core/numeric/dense-matrix.js";
import type { QpProblem } from "../../src/core/numeric/qp-types.js";
import { SparseMatrixBuilder } from "../../src/core/numeric/sparse-matrix.js";

/** One instance file as stored (see the README of the instance folder). */
export interface QpInstance {
  name: string;
  problem: "A" | "B";
  n: number;
  k: number;
  gamma: number;
  F: number[];
  D: number[];
  mu: number[];
  c: number[] | null;
  lb: number[];
  ub: number[];
  nSectors: number;
  sector: number[] | null;
  secLo: number[];
  secHi: number[];
  sumTarget: number;
}

/**
 * Folder of the shared instances: `../shared/bench/qp` relative to the repository root, or one level
 * further up when the checkout is a git worktree under a sibling folder (`wt/<branch>`).
 */
export function instanceFolder(repoRoot: string): string {
  const direct = resolve(repoRoot, "..", "shared", "bench", "qp");
  const fromWorktree = resolve(repoRoot, "..", "..", "shared", "bench", "qp");
  return existsSync(direct) || !existsSync(fromWorktree) ? direct : fromWorktree;
}

/** Reference objectives from the README table (measured with several solvers, agreeing to 1e-9). */
export const REFERENCE_OBJECTIVES: Record<string, number> = {
  A_n100: -1.5683195261,
  B_n100: -0.1865852405,
  A_n500: -1.6773093761,
  B_n500: -0.7347997908,
  A_n2000: -2.3080209027,
  B_n2000: -1.3497100184,
};

/** Reads `<folder>/<name>.json`, or returns undefined when the file is absent. */
export function loadInstance(folder: string, name: string): QpInstance | undefined {
  const path = join(folder, `${name}.json`);
  if (!existsSync(path)) return undefined;
  return JSON.parse(readFileSync(path, "utf8")) as QpInstance;
}

/**
 * Objective of the instance at `x`: gamma (x-c)'(F F' + diag(D))(x-c) - mu'(x-c).
 */
export function instanceObjective(inst: QpInstance, x: ArrayLike<number>): number {
  const { n, k, F, D, gamma, mu } = inst;
  const c = inst.c;
  const dx = new Float64Array(n);
  for (let i = 0; i < n; i++) dx[i] = x[i]! - (c ? c[i]! : 0);
  const f = new Float64Array(k);
  for (let i = 0; i < n; i++) for (let j = 0; j < k; j++) f[j]! += F[i * k + j]! * dx[i]!;
  let risk = 0;
  for (let j = 0; j < k; j++) risk += f[j]! * f[j]!;
  let lin = 0;
  for (let i = 0; i < n; i++) {
    risk += D[i]! * dx[i]! * dx[i]!;
    lin += mu[i]! * dx[i]!;
  }
  return gamma * risk - lin;
}

/** Largest violation of the instance's constraints (bounds, budget, sector sums) at `x`. */
export function instanceViolation(inst: QpInstance, x: ArrayLike<number>): number {
  let v = 0;
  let sum = 0;
  const sec = new Float64Array(inst.nSectors);
  for (let i = 0; i < inst.n; i++) {
    v = Math.max(v, inst.lb[i]! - x[i]!, x[i]! - inst.ub[i]!);
    sum += x[i]!;
    if (inst.sector) sec[inst.sector[i]!]! += x[i]!;
  }
  v = Math.max(v, Math.abs(sum - inst.sumTarget));
  for (let s = 0; s < inst.nSectors; s++) v = Math.max(v, inst.secLo[s]! - sec[s]!, sec[s]! - inst.secHi[s]!);
  return v;
}

/**
 * HiGHS model in lifted form: variables (x, y) with y = F'x, Hessian diag(2 gamma D, 2 gamma 1),
 * cost -mu - 2 gamma Sigma c in x, offset gamma c'Sigma c + mu'c so objectives compare directly.
 */
export function highsModel(inst: QpInstance): ModelData {
  const { n, k, F, D, gamma, mu } = inst;
  const c = inst.c ?? new Array<number>(n).fill(0);
  const numCols = n + k;
  // Cost: gamma (x-c)'S(x-c) - mu'(x-c) = 1/2 x'(2 gamma S)x - (2 gamma S c + mu)'x + const.
  const fc = new Float64Array(k);
  for (let i = 0; i < n; i++) for (let j = 0; j < k; j++) fc[j]! += F[i * k + j]! * c[i]!;
  const colCost = new Float64Array(numCols);
  let offset = 0;
  for (let i = 0; i < n; i++) {
    colCost[i] = -mu[i]! - 2 * gamma * D[i]! * c[i]!;
    offset += gamma * D[i]! * c[i]! * c[i]! + mu[i]! * c[i]!;
  }
  // Lifted: the factor part -2 gamma F fc'x becomes -2 gamma fc'y.
  for (let j = 0; j < k; j++) {
    colCost[n + j] = -2 * gamma * fc[j]!;
    offset += gamma * fc[j]! * fc[j]!;
  }
  const colLower = new Float64Array(numCols).fill(-Infinity);
  const colUpper = new Float64Array(numCols).fill(Infinity);
  for (let i = 0; i < n; i++) {
    colLower[i] = inst.lb[i]!;
    colUpper[i] = inst.ub[i]!;
  }
  // Rows: k rows F'x - y = 0, the budget, then the sector sums (CSR).
  const numRows = k + 1 + inst.nSectors;
  const starts: number[] = [0];
  const indices: number[] = [];
  const values: number[] = [];
  const rowLower: number[] = [];
  const rowUpper: number[] = [];
  for (let j = 0; j < k; j++) {
    for (let i = 0; i < n; i++) {
      const f = F[i * k + j]!;
      if (f !== 0) {
        indices.push(i);
        values.push(f);
      }
    }
    indices.push(n + j);
    values.push(-1);
    starts.push(indices.length);
    rowLower.push(0);
    rowUpper.push(0);
  }
  for (let i = 0; i < n; i++) {
    indices.push(i);
    values.push(1);
  }
  starts.push(indices.length);
  rowLower.push(inst.sumTarget);
  rowUpper.push(inst.sumTarget);
  for (let s = 0; s < inst.nSectors; s++) {
    for (let i = 0; i < n; i++) {
      if (inst.sector![i] === s) {
        indices.push(i);
        values.push(1);
      }
    }
    starts.push(indices.length);
    rowLower.push(inst.secLo[s]!);
    rowUpper.push(inst.secHi[s]!);
  }
  const hStarts = new Int32Array(numCols + 1);
  const hIndices = new Int32Array(numCols);
  const hValues = new Float64Array(numCols);
  for (let i = 0; i < numCols; i++) {
    hStarts[i + 1] = i + 1;
    hIndices[i] = i;
    hValues[i] = 2 * gamma * (i < n ? D[i]! : 1);
  }
  return {
    numCols,
    numRows,
    offset,
    colCost,
    colLower,
    colUpper,
    rowLower: Float64Array.from(rowLower),
    rowUpper: Float64Array.from(rowUpper),
    matrix: {
      format: "csr",
      numRows,
      numCols,
      starts: Int32Array.from(starts),
      indices: Int32Array.from(indices),
      values: Float64Array.from(values),
    },
    hessian: {
      format: "triangular",
      dimension: numCols,
      starts: hStarts,
      indices: hIndices,
      values: hValues,
    },
  };
}

/**
 * The instance as a lotwise {@link QpProblem}: P = 2 gamma (diag(D) + F F') in factor form,
 * q = -mu - 2 gamma Sigma c, offset gamma c'Sigma c + mu'c, rows [budget; sectors], bounds [lb, ub].
 */
export function lotwiseProblem(inst: QpInstance): QpProblem {
  const { n, k, F, D, gamma, mu } = inst;
  const c = inst.c ?? new Array<number>(n).fill(0);
  const fc = new Float64Array(k);
  for (let i = 0; i < n; i++) for (let j = 0; j < k; j++) fc[j]! += F[i * k + j]! * c[i]!;
  const q = new Float64Array(n);
  let offset = 0;
  for (let j = 0; j < k; j++) offset += gamma * fc[j]! * fc[j]!;
  for (let i = 0; i < n; i++) {
    let fi = 0;
    for (let j = 0; j < k; j++) fi += F[i * k + j]! * fc[j]!;
    q[i] = -mu[i]! - 2 * gamma * (D[i]! * c[i]! + fi);
    offset += gamma * D[i]! * c[i]! * c[i]! + mu[i]! * c[i]!;
  }
  const b = new SparseMatrixBuilder(1 + inst.nSectors, n);
  for (let i = 0; i < n; i++) b.add(0, i, 1);
  if (inst.sector) for (let i = 0; i < n; i++) b.add(1 + inst.sector[i]!, i, 1);
  const l = Float64Array.from([inst.sumTarget, ...inst.secLo]);
  const u = Float64Array.from([inst.sumTarget, ...inst.secHi]);
  return {
    P: {
      diagonal: Float64Array.from(D, (v) => 2 * gamma * v),
      factors: denseMatrix(n, k, Float64Array.from(F)),
      factorScales: new Float64Array(k).fill(2 * gamma),
    },
    q,
    A: b.build(),
    l,
    u,
    bounds: { lower: Float64Array.from(inst.lb), upper: Float64Array.from(inst.ub) },
    offset,
  };
}
