// biome-ignore lint/style/noRestrictedImports: this test reads the shared benchmark instances from disk.
import { existsSync, readFileSync } from "node:fs";
// biome-ignore lint/style/noRestrictedImports: this test reads the shared benchmark instances from disk.
import { resolve } from "node:path";
import highsImport from "highs";
import { beforeAll, describe, expect, it } from "vitest";
import { InfeasibleError, SolverError, UnboundedError } from "../errors.js";
import { choleskyDecomposition } from "./cholesky.js";
import { denseMatrix } from "./dense-matrix.js";
import { createQpSolver, solveQp, solveQpOrThrow } from "./qp-solver.js";
import type { QpOptions, QpProblem, QpResult } from "./qp-types.js";
import { type SparseMatrix, SparseMatrixBuilder } from "./sparse-matrix.js";

// ---------------------------------------------------------------------------------------------
// Helpers: seeded randomness, an independent KKT check (dense P), and HiGHS as reference solver.
// ---------------------------------------------------------------------------------------------

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

function gaussian(rnd: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - rnd())) * Math.cos(2 * Math.PI * rnd());
}

function denseP(p: QpProblem): Float64Array {
  const n = p.q.length;
  const out = new Float64Array(n * n);
  const f = p.P.factors;
  const k = f?.cols ?? 0;
  for (let i = 0; i < n; i++) {
    out[i * n + i] = p.P.diagonal[i]!;
    for (let j = 0; j < n; j++)
      for (let c = 0; c < k; c++)
        out[i * n + j]! += f!.data[i * k + c]! * (p.P.factorScales?.[c] ?? 1) * f!.data[j * k + c]!;
  }
  return out;
}

function rowProduct(A: SparseMatrix, x: ArrayLike<number>): Float64Array {
  const out = new Float64Array(A.rows);
  for (let r = 0; r < A.rows; r++)
    for (let a = A.rowStart[r]!; a < A.rowStart[r + 1]!; a++) out[r]! += A.values[a]! * x[A.columnIndex[a]!]!;
  return out;
}

function objectiveOf(p: QpProblem, x: ArrayLike<number>): number {
  const n = p.q.length;
  const P = denseP(p);
  let v = p.offset ?? 0;
  for (let i = 0; i < n; i++) {
    v += p.q[i]! * x[i]!;
    for (let j = 0; j < n; j++) v += 0.5 * x[i]! * P[i * n + j]! * x[j]!;
  }
  return v;
}

/**
 * Independent KKT check with dense P: stationarity Px + q + A'y + yBounds + cone terms = 0, primal
 * feasibility, complementary slackness, and multiplier signs consistent with the active side.
 */
function expectKkt(p: QpProblem, r: QpResult, tol = 1e-8): void {
  const n = p.q.length;
  const x = r.x;
  const P = denseP(p);
  const g = new Float64Array(n);
  let scale = 1;
  for (let i = 0; i < n; i++) {
    let s = p.q[i]!;
    for (let j = 0; j < n; j++) s += P[i * n + j]! * x[j]!;
    g[i] = s + r.yBounds[i]!;
    scale = Math.max(scale, Math.abs(s));
  }
  if (p.A) {
    const A = p.A;
    for (let row = 0; row < A.rows; row++)
      for (let a = A.rowStart[row]!; a < A.rowStart[row + 1]!; a++)
        g[A.columnIndex[a]!]! += A.values[a]! * r.y[row]!;
    const ax = rowProduct(A, x);
    for (let row = 0; row < A.rows; row++) {
      const l = p.l![row]!;
      const u = p.u![row]!;
      expect(ax[row]!).toBeGreaterThanOrEqual(l - tol);
      expect(ax[row]!).toBeLessThanOrEqual(u + tol);
      const y = r.y[row]!;
      // Sign consistency: a positive multiplier needs an active upper bound, a negative one a lower.
      if (y > tol) expect(Math.abs(ax[row]! - u) * Math.max(1, y)).toBeLessThanOrEqual(tol * scale);
      if (y < -tol) expect(Math.abs(ax[row]! - l) * Math.max(1, -y)).toBeLessThanOrEqual(tol * scale);
    }
  }
  if (p.bounds) {
    for (let i = 0; i < n; i++) {
      const lo = p.bounds.lower[i]!;
      const hi = p.bounds.upper[i]!;
      expect(x[i]!).toBeGreaterThanOrEqual(lo - tol);
      expect(x[i]!).toBeLessThanOrEqual(hi + tol);
      const z = r.yBounds[i]!;
      if (z > tol) expect(Math.abs(x[i]! - hi)).toBeLessThanOrEqual(tol);
      if (z < -tol) expect(Math.abs(x[i]! - lo)).toBeLessThanOrEqual(tol);
    }
  }
  (p.cones ?? []).forEach((cone, c) => {
    if (cone.kind !== "factor-risk-ball") return;
    const yc = r.coneDuals[c]!;
    const kW = cone.factors?.cols ?? 0;
    const t = new Float64Array(kW);
    let risk = 0;
    for (let i = 0; i < n; i++) {
      const dx = x[i]! - (cone.center?.[i] ?? 0);
      risk += cone.diagonal[i]! * dx * dx;
      for (let j = 0; j < kW; j++) t[j]! += cone.factors!.data[i * kW + j]! * dx;
      g[i]! += Math.sqrt(cone.diagonal[i]!) * yc[i]!;
      for (let j = 0; j < kW; j++) g[i]! += cone.factors!.data[i * kW + j]! * yc[n + j]!;
    }
    for (let j = 0; j < kW; j++) risk += t[j]! * t[j]!;
    expect(Math.sqrt(risk)).toBeLessThanOrEqual(cone.radius + tol);
    let mu = 0;
    for (const v of yc) mu += v * v;
    if (Math.sqrt(mu) > tol) expect(Math.abs(Math.sqrt(risk) - cone.radius)).toBeLessThanOrEqual(tol);
  });
  for (let i = 0; i < n; i++) expect(Math.abs(g[i]!)).toBeLessThanOrEqual(tol * scale);
}

// highs ships CommonJS typings: under NodeNext the default import types as the module namespace, while the
// ESM build hands over the loader function itself.
type HighsLoader = typeof highsImport.default;
const highsLoader = ((highsImport as unknown as { default?: HighsLoader }).default ??
  highsImport) as unknown as HighsLoader;
type Highs = Awaited<ReturnType<HighsLoader>>;
let highs: Highs;

/** Objective of the problem by HiGHS, in lifted form t = V'x (Hessian diag(d, s)). */
function highsObjective(p: QpProblem): number {
  const n = p.q.length;
  const k = p.P.factors?.cols ?? 0;
  const m = p.A?.rows ?? 0;
  const numCols = n + k;
  const starts: number[] = [0];
  const indices: number[] = [];
  const values: number[] = [];
  const rowLower: number[] = [];
  const rowUpper: number[] = [];
  for (let r = 0; r < m; r++) {
    const A = p.A!;
    for (let a = A.rowStart[r]!; a < A.rowStart[r + 1]!; a++) {
      indices.push(A.columnIndex[a]!);
      values.push(A.values[a]!);
    }
    starts.push(indices.length);
    rowLower.push(p.l![r]!);
    rowUpper.push(p.u![r]!);
  }
  for (let c = 0; c < k; c++) {
    for (let i = 0; i < n; i++) {
      const v = p.P.factors!.data[i * k + c]!;
      if (v !== 0) {
        indices.push(i);
        values.push(v);
      }
    }
    indices.push(n + c);
    values.push(-1);
    starts.push(indices.length);
    rowLower.push(0);
    rowUpper.push(0);
  }
  const hStarts = Int32Array.from({ length: numCols + 1 }, (_, i) => i);
  const hValues = Float64Array.from({ length: numCols }, (_, i) =>
    i < n ? p.P.diagonal[i]! : (p.P.factorScales?.[i - n] ?? 1),
  );
  const model = highs.createModel({
    numCols,
    numRows: m + k,
    offset: p.offset ?? 0,
    colCost: Float64Array.from({ length: numCols }, (_, i) => (i < n ? p.q[i]! : 0)),
    colLower: Float64Array.from({ length: numCols }, (_, i) =>
      i < n && p.bounds ? p.bounds.lower[i]! : -Infinity,
    ),
    colUpper: Float64Array.from({ length: numCols }, (_, i) =>
      i < n && p.bounds ? p.bounds.upper[i]! : Infinity,
    ),
    rowLower: Float64Array.from(rowLower),
    rowUpper: Float64Array.from(rowUpper),
    matrix: {
      format: "csr",
      numRows: m + k,
      numCols,
      starts: Int32Array.from(starts),
      indices: Int32Array.from(indices),
      values: Float64Array.from(values),
    },
    hessian: {
      format: "triangular",
      dimension: numCols,
      starts: hStarts,
      indices: Int32Array.from({ length: numCols }, (_, i) => i),
      values: hValues,
    },
  });
  try {
    model.options.set({
      output_flag: false,
      user_bound_scale: 7,
      primal_feasibility_tolerance: 1e-10,
      dual_feasibility_tolerance: 1e-10,
    });
    model.run();
    return model.getObjectiveValue();
  } finally {
    model.dispose();
  }
}

interface RandomSpec {
  n: number;
  k: number;
  eq: number;
  ineq: number;
  singletons?: number;
  zeroCurvature?: number;
}

/** A random feasible QP: x0 in the box, rows built around A x0, P = diag(d) + V diag(s) V'. */
function randomProblem(seed: number, spec: RandomSpec): QpProblem {
  const rnd = seeded(seed);
  const { n, k, eq, ineq } = spec;
  const singletons = spec.singletons ?? 0;
  const x0 = Float64Array.from({ length: n }, () => rnd() - 0.5);
  const d = Float64Array.from({ length: n }, (_, i) => (i < (spec.zeroCurvature ?? 0) ? 0 : 0.1 + rnd()));
  const V = Float64Array.from({ length: n * k }, () => (rnd() < 0.5 ? gaussian(rnd) : 0));
  const s = Float64Array.from({ length: k }, () => 0.5 + rnd());
  const q = Float64Array.from({ length: n }, () => 2 * gaussian(rnd));
  const m = eq + ineq + singletons;
  const b = new SparseMatrixBuilder(m, n);
  for (let r = 0; r < eq + ineq; r++) {
    for (let j = 0; j < n; j++) if (rnd() < 0.5) b.add(r, j, gaussian(rnd));
    b.add(r, Math.floor(rnd() * n), 1);
  }
  for (let r = 0; r < singletons; r++) b.add(eq + ineq + r, Math.floor(rnd() * n), rnd() < 0.5 ? -2 : 3);
  const A = b.build();
  const ax = rowProduct(A, x0);
  const l = new Float64Array(m);
  const u = new Float64Array(m);
  for (let r = 0; r < m; r++) {
    if (r < eq) {
      l[r] = ax[r]!;
      u[r] = ax[r]!;
    } else {
      l[r] = rnd() < 0.2 ? -Infinity : ax[r]! - 0.3 * rnd();
      u[r] = rnd() < 0.2 ? Infinity : ax[r]! + 0.3 * rnd();
    }
  }
  const lower = Float64Array.from(x0, (v) => (rnd() < 0.1 ? -Infinity : v - 0.5 * rnd()));
  const upper = Float64Array.from(x0, (v) => (rnd() < 0.1 ? Infinity : v + 0.5 * rnd()));
  return {
    P: { diagonal: d, factors: denseMatrix(n, k, V), factorScales: s },
    q,
    A,
    l,
    u,
    bounds: { lower, upper },
  };
}

function relGap(a: number, b: number): number {
  return Math.abs(a - b) / Math.max(1, Math.abs(b));
}

function rows(n: number, entries: [number, number, number][]): SparseMatrix {
  const b = new SparseMatrixBuilder(n, Math.max(...entries.map((e) => e[1])) + 1);
  for (const [r, c, v] of entries) b.add(r, c, v);
  return b.build();
}

beforeAll(async () => {
  highs = await highsLoader();
});

// ---------------------------------------------------------------------------------------------

describe("solveQp on textbook problems", () => {
  it("minimizes an unconstrained strictly convex quadratic at x = -P^{-1} q", () => {
    // P = diag(1, 2) + [1; 1][1; 1]' = [[2, 1], [1, 3]], q = [-1, -1]:
    // P^{-1} = (1/5)[[3, -1], [-1, 2]] so x = P^{-1}[1, 1] = [0.4, 0.2], objective -1/2 q'P^{-1}q... = -0.3.
    const p: QpProblem = {
      P: { diagonal: Float64Array.of(1, 2), factors: denseMatrix(2, 1, Float64Array.of(1, 1)) },
      q: Float64Array.of(-1, -1),
    };
    const r = solveQp(p);
    expect(r.status).toBe("optimal");
    expect(r.x[0]).toBeCloseTo(0.4, 12);
    expect(r.x[1]).toBeCloseTo(0.2, 12);
    expect(r.objective).toBeCloseTo(-0.3, 12);
    expectKkt(p, r);
  });

  it("solves min x1^2 + x2^2 - x1 s.t. x1 + x2 = 1 at (3/4, 1/4) with multiplier -1/2", () => {
    // Lagrangian: 2 x1 - 1 + y = 0, 2 x2 + y = 0, x1 + x2 = 1 => x1 - x2 = 1/2, x = (3/4, 1/4), y = -1/2,
    // objective 9/16 + 1/16 - 3/4 = -1/8.
    const p: QpProblem = {
      P: { diagonal: Float64Array.of(2, 2) },
      q: Float64Array.of(-1, 0),
      A: rows(1, [
        [0, 0, 1],
        [0, 1, 1],
      ]),
      l: Float64Array.of(1),
      u: Float64Array.of(1),
    };
    const r = solveQp(p);
    expect(r.status).toBe("optimal");
    expect(r.x[0]).toBeCloseTo(0.75, 12);
    expect(r.x[1]).toBeCloseTo(0.25, 12);
    expect(r.y[0]).toBeCloseTo(-0.5, 12);
    expect(r.objective).toBeCloseTo(-0.125, 12);
    expectKkt(p, r);
  });

  it("finds the solution (1.4, 1.7) of Nocedal & Wright Example 16.4 with multiplier 0.8 on the first constraint", () => {
    // Nocedal & Wright, Numerical Optimization (2nd ed.), Example 16.4: min (x1 - 1)^2 + (x2 - 2.5)^2 s.t.
    // x1 - 2x2 + 2 >= 0, -x1 - 2x2 + 6 >= 0, -x1 + 2x2 + 2 >= 0, x >= 0. Solution (1.4, 1.7), lambda_1 = 0.8.
    // As 1/2 x'(2I)x + (-2, -5)'x + 7.25, the first row is active at its lower bound: y_1 = -0.8.
    const p: QpProblem = {
      P: { diagonal: Float64Array.of(2, 2) },
      q: Float64Array.of(-2, -5),
      offset: 7.25,
      A: rows(3, [
        [0, 0, 1],
        [0, 1, -2],
        [1, 0, -1],
        [1, 1, -2],
        [2, 0, -1],
        [2, 1, 2],
      ]),
      l: Float64Array.of(-2, -6, -2),
      u: Float64Array.of(Infinity, Infinity, Infinity),
      bounds: { lower: Float64Array.of(0, 0), upper: Float64Array.of(Infinity, Infinity) },
    };
    for (const method of ["auto", "admm"] as const) {
      const r = solveQp(p, { method });
      expect(r.status).toBe("optimal");
      expect(r.x[0]).toBeCloseTo(1.4, 10);
      expect(r.x[1]).toBeCloseTo(1.7, 10);
      expect(r.y[0]).toBeCloseTo(-0.8, 9);
      expect(r.y[1]).toBeCloseTo(0, 9);
      expect(r.objective).toBeCloseTo(0.8, 10);
      expect(r.polished).toBe(true);
      expectKkt(p, r);
    }
  });

  it("matches the closed-form solution of an equality-constrained QP", () => {
    // x = -P^{-1}(q + A'y) with (A P^{-1} A') y = -(b + A P^{-1} q), computed densely here.
    const rnd = seeded(11);
    const n = 8;
    const p0 = randomProblem(11, { n, k: 2, eq: 3, ineq: 0 });
    const p: QpProblem = { P: p0.P, q: p0.q, A: p0.A!, l: p0.l!, u: p0.u! };
    void rnd;
    const P = choleskyDecomposition(denseMatrix(n, n, denseP(p)));
    const A = p.A!;
    const m = A.rows;
    const Ad = new Float64Array(m * n);
    for (let r = 0; r < m; r++)
      for (let a = A.rowStart[r]!; a < A.rowStart[r + 1]!; a++) Ad[r * n + A.columnIndex[a]!] = A.values[a]!;
    const pinvAt: Float64Array[] = [];
    for (let r = 0; r < m; r++) pinvAt.push(P.solve(Ad.subarray(r * n, (r + 1) * n).slice()));
    const pinvQ = P.solve(p.q);
    const S = new Float64Array(m * m);
    const rhs = new Float64Array(m);
    for (let r = 0; r < m; r++) {
      let aq = 0;
      for (let j = 0; j < n; j++) aq += Ad[r * n + j]! * pinvQ[j]!;
      rhs[r] = -(p.l![r]! + aq);
      for (let c = 0; c < m; c++) {
        let s = 0;
        for (let j = 0; j < n; j++) s += Ad[r * n + j]! * pinvAt[c]![j]!;
        S[r * m + c] = s;
      }
    }
    const y = choleskyDecomposition(denseMatrix(m, m, S)).solve(rhs);
    const r = solveQp(p);
    expect(r.status).toBe("optimal");
    for (let j = 0; j < n; j++) {
      let xj = -pinvQ[j]!;
      for (let c = 0; c < m; c++) xj -= pinvAt[c]![j]! * y[c]!;
      expect(r.x[j]).toBeCloseTo(xj, 9);
    }
    for (let c = 0; c < m; c++) expect(r.y[c]).toBeCloseTo(y[c]!, 8);
    expectKkt(p, r);
  });

  it("clips the unconstrained minimizer of a separable problem to its box", () => {
    // k = 0: x_i = clip(-q_i / d_i, lower_i, upper_i) exactly.
    const d = Float64Array.of(1, 2, 4, 0.5);
    const q = Float64Array.of(-3, 1, 2, -0.25);
    const lower = Float64Array.of(-1, -1, 0, -Infinity);
    const upper = Float64Array.of(1, Infinity, 1, 1);
    const p: QpProblem = { P: { diagonal: d }, q, bounds: { lower, upper } };
    const r = solveQp(p);
    expect(Array.from(r.x)).toEqual([1, -0.5, 0, 0.5]);
    // Bound multipliers: x0 at its upper bound, z = -(d x + q) = -(1 - 3) = 2; x2 at lower, z = -(0 + 2) = -2.
    expect(r.yBounds[0]).toBeCloseTo(2, 14);
    expect(r.yBounds[2]).toBeCloseTo(-2, 14);
    expectKkt(p, r);
  });
});

describe("solveQp on degenerate inputs", () => {
  it("solves n = 1 with an active bound (x = 2, multiplier 1) and without constraints (x = 3)", () => {
    // min 1/2 x^2 - 3x s.t. x <= 2: stationarity 2 - 3 + y = 0 => y = 1.
    const p: QpProblem = {
      P: { diagonal: Float64Array.of(1) },
      q: Float64Array.of(-3),
      bounds: { lower: Float64Array.of(-Infinity), upper: Float64Array.of(2) },
    };
    const r = solveQp(p);
    expect(r.x[0]).toBe(2);
    expect(r.yBounds[0]).toBeCloseTo(1, 14);
    expect(r.objective).toBeCloseTo(2 - 6, 14);
    expectKkt(p, r);
    const free = solveQp({ P: { diagonal: Float64Array.of(1) }, q: Float64Array.of(-3) });
    expect(free.x[0]).toBeCloseTo(3, 14);
  });

  it("reports an unbounded linear objective without constraints as dual_infeasible with a certificate", () => {
    const r = solveQp({ P: { diagonal: Float64Array.of(0, 0) }, q: Float64Array.of(1, -2) });
    expect(r.status).toBe("dual_infeasible");
    const dx = r.certificate!;
    const norm = Math.max(Math.abs(dx[0]!), Math.abs(dx[1]!));
    expect(norm).toBeGreaterThan(0);
    // q'dx < 0 and P dx = 0 (P = 0).
    expect(dx[0]! - 2 * dx[1]!).toBeLessThan(-1e-3 * norm);
  });

  it("returns the origin for the zero problem (P = 0, q = 0, no constraints)", () => {
    const r = solveQp({ P: { diagonal: Float64Array.of(0, 0, 0) }, q: new Float64Array(3) });
    expect(r.status).toBe("optimal");
    expect(r.objective).toBe(0);
  });

  it("handles zero-curvature variables (singular P) exactly", () => {
    // min 1/2 (x1 + x2)^2 - x1 + 0.5 x2, 0 <= x <= 1: x2 = 0 (gradient s + 0.5 > 0), x1 = 1 (s = 1),
    // objective 0.5 - 1 = -0.5.
    const p: QpProblem = {
      P: { diagonal: Float64Array.of(0, 0), factors: denseMatrix(2, 1, Float64Array.of(1, 1)) },
      q: Float64Array.of(-1, 0.5),
      bounds: { lower: Float64Array.of(0, 0), upper: Float64Array.of(1, 1) },
    };
    const r = solveQp(p);
    expect(r.status).toBe("optimal");
    expect(r.x[0]).toBeCloseTo(1, 10);
    expect(r.x[1]).toBeCloseTo(0, 10);
    expect(r.objective).toBeCloseTo(-0.5, 10);
    expectKkt(p, r);
  });

  it("solves a linear program (P = 0) at its vertex with the textbook multipliers", () => {
    // min -x1 - 2 x2 s.t. x1 + x2 <= 1, x >= 0: vertex (0, 1), y = 2 on the row, z1 = -1 on x1 >= 0.
    const p: QpProblem = {
      P: { diagonal: Float64Array.of(0, 0) },
      q: Float64Array.of(-1, -2),
      A: rows(1, [
        [0, 0, 1],
        [0, 1, 1],
      ]),
      l: Float64Array.of(-Infinity),
      u: Float64Array.of(1),
      bounds: { lower: Float64Array.of(0, 0), upper: Float64Array.of(Infinity, Infinity) },
    };
    const r = solveQp(p);
    expect(r.status).toBe("optimal");
    expect(r.x[0]).toBeCloseTo(0, 10);
    expect(r.x[1]).toBeCloseTo(1, 10);
    expect(r.y[0]).toBeCloseTo(2, 8);
    expect(r.yBounds[0]).toBeCloseTo(-1, 8);
    expect(r.objective).toBeCloseTo(-2, 10);
    expectKkt(p, r);
  });

  it("tolerates redundant equality rows (duplicated and scaled copies)", () => {
    // Same solution as x1 + x2 = 1 alone: (3/4, 1/4); the multipliers only need to sum correctly.
    const p: QpProblem = {
      P: { diagonal: Float64Array.of(2, 2) },
      q: Float64Array.of(-1, 0),
      A: rows(3, [
        [0, 0, 1],
        [0, 1, 1],
        [1, 0, 1],
        [1, 1, 1],
        [2, 0, 2],
        [2, 1, 2],
      ]),
      l: Float64Array.of(1, 1, 2),
      u: Float64Array.of(1, 1, 2),
    };
    const r = solveQp(p);
    expect(r.status).toBe("optimal");
    expect(r.x[0]).toBeCloseTo(0.75, 9);
    expect(r.x[1]).toBeCloseTo(0.25, 9);
    expectKkt(p, r);
  });

  it("tolerates a budget row that is the sum of sector equality rows", () => {
    // min 1/2||x||^2 - x0 s.t. sum x = 1, x0 + x1 = 0.5, x2 + x3 = 0.5: sector 1 gives x0 - x1 = 1,
    // so x = (0.75, -0.25, 0.25, 0.25).
    const p: QpProblem = {
      P: { diagonal: Float64Array.of(1, 1, 1, 1) },
      q: Float64Array.of(-1, 0, 0, 0),
      A: rows(3, [
        [0, 0, 1],
        [0, 1, 1],
        [0, 2, 1],
        [0, 3, 1],
        [1, 0, 1],
        [1, 1, 1],
        [2, 2, 1],
        [2, 3, 1],
      ]),
      l: Float64Array.of(1, 0.5, 0.5),
      u: Float64Array.of(1, 0.5, 0.5),
    };
    const r = solveQp(p);
    expect(r.status).toBe("optimal");
    expect(Array.from(r.x).map((v) => Number(v.toFixed(9)))).toEqual([0.75, -0.25, 0.25, 0.25]);
    expectKkt(p, r);
  });

  it("treats rows with one entry as bounds and gives them the multiplier", () => {
    // min (x - 3)^2 = x^2 - 6x + 9 s.t. 2x <= 4: x = 2, stationarity 2x - 6 + 2y = 0 => y = 1.
    const p: QpProblem = {
      P: { diagonal: Float64Array.of(2) },
      q: Float64Array.of(-6),
      offset: 9,
      A: rows(1, [[0, 0, 2]]),
      l: Float64Array.of(-Infinity),
      u: Float64Array.of(4),
    };
    const r = solveQp(p);
    expect(r.x[0]).toBeCloseTo(2, 14);
    expect(r.y[0]).toBeCloseTo(1, 12);
    expect(r.objective).toBeCloseTo(1, 12);
    expectKkt(p, r);
  });

  it("gives the same answer with k = 0 as with a factor of zero scale", () => {
    const base = randomProblem(5, { n: 6, k: 0, eq: 1, ineq: 2 });
    const withZero: QpProblem = {
      ...base,
      P: {
        diagonal: base.P.diagonal,
        factors: denseMatrix(6, 1, Float64Array.of(1, 2, 3, 4, 5, 6)),
        factorScales: Float64Array.of(0),
      },
    };
    const a = solveQp(base);
    const b = solveQp(withZero);
    expect(a.status).toBe("optimal");
    for (let i = 0; i < 6; i++) expect(b.x[i]).toBeCloseTo(a.x[i]!, 12);
  });
});

describe("solveQp on infeasible and unbounded problems", () => {
  const infeasible: QpProblem = {
    P: { diagonal: Float64Array.of(1, 1) },
    q: Float64Array.of(0, 0),
    A: rows(1, [
      [0, 0, 1],
      [0, 1, 1],
    ]),
    l: Float64Array.of(3),
    u: Float64Array.of(Infinity),
    bounds: { lower: Float64Array.of(0, 0), upper: Float64Array.of(1, 1) },
  };

  it("returns primal_infeasible with a Farkas certificate (A'dy + dyBounds = 0, support < 0)", () => {
    // x1 + x2 >= 3 with 0 <= x <= 1.
    const r = solveQp(infeasible);
    expect(r.status).toBe("primal_infeasible");
    const c = r.certificate!;
    expect(c.length).toBe(1 + 2);
    const dyRow = c[0]!;
    const dyB = [c[1]!, c[2]!];
    const norm = Math.max(Math.abs(dyRow), ...dyB.map(Math.abs));
    // A'dy + dyBounds ~ 0.
    expect(Math.abs(dyRow + dyB[0]!)).toBeLessThanOrEqual(1e-4 * norm);
    expect(Math.abs(dyRow + dyB[1]!)).toBeLessThanOrEqual(1e-4 * norm);
    // support: u'max(dy, 0) + l'min(dy, 0) < 0 (row upper is +inf so dyRow <= 0).
    const support = 3 * Math.min(dyRow, 0) + dyB.reduce((s, v) => s + (v > 0 ? v * 1 : 0), 0);
    expect(support).toBeLessThan(0);
  });

  it("reports crossed bounds as primal_infeasible with a diagnosis, without throwing", () => {
    const r = solveQp({ ...infeasible, l: Float64Array.of(2), u: Float64Array.of(1) });
    expect(r.status).toBe("primal_infeasible");
    expect(r.diagnosis).toEqual(["row 0: lower bound 2 > upper bound 1"]);
  });

  it("returns dual_infeasible with a certificate for an unbounded problem with bounds", () => {
    // min -x1 + 1/2 x2^2 s.t. x1 >= 0: unbounded along dx = (1, 0).
    const p: QpProblem = {
      P: { diagonal: Float64Array.of(0, 1) },
      q: Float64Array.of(-1, 0),
      bounds: { lower: Float64Array.of(0, -Infinity), upper: Float64Array.of(Infinity, Infinity) },
    };
    const r = solveQp(p);
    expect(r.status).toBe("dual_infeasible");
    const dx = r.certificate!;
    const norm = Math.max(Math.abs(dx[0]!), Math.abs(dx[1]!));
    expect(-dx[0]!).toBeLessThan(-1e-3 * norm); // q'dx < 0
    expect(Math.abs(dx[1]!)).toBeLessThanOrEqual(1e-4 * norm); // P dx = (0, dx2) ~ 0
    expect(dx[0]!).toBeGreaterThan(0); // stays feasible for x1 >= 0
  });

  it("solveQpOrThrow maps statuses to InfeasibleError, UnboundedError and SolverError", () => {
    expect(() => solveQpOrThrow(infeasible)).toThrow(InfeasibleError);
    expect(() => solveQpOrThrow({ P: { diagonal: Float64Array.of(0) }, q: Float64Array.of(1) })).toThrow(
      UnboundedError,
    );
    const hard = randomProblem(3, { n: 30, k: 4, eq: 2, ineq: 5 });
    expect(() => solveQpOrThrow(hard, { method: "admm", maxIter: 2, polish: false })).toThrow(SolverError);
    expect(solveQpOrThrow(hard).status).toBe("optimal");
  });

  it("stops at the injected clock's time limit with status time_limit", () => {
    let t = 0;
    const r = solveQp(randomProblem(4, { n: 40, k: 5, eq: 2, ineq: 6 }), {
      method: "admm",
      polish: false,
      epsAbs: 1e-12,
      epsRel: 1e-12,
      timeLimitMs: 10,
      now: () => t++,
    });
    expect(r.status).toBe("time_limit");
  });
});

describe("solveQp against HiGHS", () => {
  const cases: [number, RandomSpec][] = [
    [1, { n: 5, k: 1, eq: 1, ineq: 1 }],
    [2, { n: 12, k: 3, eq: 2, ineq: 3, singletons: 2 }],
    [3, { n: 30, k: 4, eq: 2, ineq: 5 }],
    [4, { n: 60, k: 8, eq: 3, ineq: 10, singletons: 3 }],
    [5, { n: 40, k: 0, eq: 1, ineq: 4 }],
    [6, { n: 25, k: 5, eq: 0, ineq: 6, zeroCurvature: 5 }],
    [7, { n: 80, k: 6, eq: 1, ineq: 12 }],
    // More rows than variables: ADMM factors the KKT matrix densely instead of by Woodbury.
    [9, { n: 10, k: 2, eq: 2, ineq: 14 }],
  ];
  for (const [seed, spec] of cases) {
    it(`agrees to 1e-6 on a random problem (seed ${seed}, n ${spec.n}, k ${spec.k}, ${spec.eq} eq, ${spec.ineq} ineq)`, () => {
      const p = randomProblem(seed, spec);
      const ref = highsObjective(p);
      for (const method of ["auto", "admm"] as const) {
        const r = solveQp(p, { method });
        expect(r.status).toBe("optimal");
        expect(r.method).toBe(method === "auto" ? "active-set" : "admm");
        expect(r.polished).toBe(true);
        expect(relGap(r.objective, ref)).toBeLessThan(1e-6);
        expect(r.objective).toBeCloseTo(objectiveOf(p, r.x), 9);
        expect(r.primalResidual).toBeLessThan(1e-9);
        expectKkt(p, r, 1e-7);
      }
    });
  }

  it("solves a degenerate linear program with many vertices to visit (P = 0, n = 150, 30 rows)", () => {
    // The dual Newton method moves like a simplex method here, one breakpoint at a time.
    const base = randomProblem(12, { n: 150, k: 0, eq: 5, ineq: 25, zeroCurvature: 150 });
    const lower = Float64Array.from(base.bounds!.lower, (v) => (Number.isFinite(v) ? v : -1));
    const upper = Float64Array.from(base.bounds!.upper, (v) => (Number.isFinite(v) ? v : 1));
    const p: QpProblem = { ...base, bounds: { lower, upper } };
    const ref = highsObjective(p);
    const r = solveQp(p);
    expect(r.status).toBe("optimal");
    expect(r.method).toBe("active-set");
    expect(relGap(r.objective, ref)).toBeLessThan(1e-6);
    expectKkt(p, r, 1e-7);
  });

  it("ADMM without polish meets its own tolerances (eps 1e-5)", () => {
    const p = randomProblem(8, { n: 40, k: 4, eq: 2, ineq: 5 });
    const r = solveQp(p, { method: "admm", polish: false, epsAbs: 1e-5, epsRel: 1e-5 });
    expect(r.status).toBe("optimal");
    expect(r.polished).toBe(false);
    expect(r.primalResidual).toBeLessThan(1e-3);
    expect(relGap(r.objective, highsObjective(p))).toBeLessThan(1e-3);
  });
});

const instanceDir = (() => {
  const repoRoot = resolve(import.meta.dirname, "..", "..", "..");
  const direct = resolve(repoRoot, "..", "shared", "bench", "qp");
  // A git worktree under <root>/wt/<branch> sees the shared folder one level further up.
  const worktree = resolve(repoRoot, "..", "..", "shared", "bench", "qp");
  return existsSync(direct) ? direct : worktree;
})();

describe.skipIf(!existsSync(instanceDir))("solveQp on the shared portfolio instances", () => {
  const reference: Record<string, number> = { A_n100: -1.5683195261, B_n100: -0.1865852405 };
  for (const name of ["A_n100", "B_n100"]) {
    it(`reaches the reference objective of ${name} to 1e-6`, () => {
      const inst = JSON.parse(readFileSync(resolve(instanceDir, `${name}.json`), "utf8"));
      const { n, k, F, D, gamma, mu } = inst as {
        n: number;
        k: number;
        F: number[];
        D: number[];
        gamma: number;
        mu: number[];
      };
      const c: number[] = inst.c ?? new Array(n).fill(0);
      // gamma (x-c)'(FF' + D)(x-c) - mu'(x-c) = 1/2 x'(2 gamma Sigma)x - (mu + 2 gamma Sigma c)'x + const.
      const fc = new Float64Array(k);
      for (let i = 0; i < n; i++) for (let j = 0; j < k; j++) fc[j]! += F[i * k + j]! * c[i]!;
      const q = new Float64Array(n);
      let offset = 0;
      for (let j = 0; j < k; j++) offset += gamma * fc[j]! ** 2;
      for (let i = 0; i < n; i++) {
        let fi = 0;
        for (let j = 0; j < k; j++) fi += F[i * k + j]! * fc[j]!;
        q[i] = -mu[i]! - 2 * gamma * (D[i]! * c[i]! + fi);
        offset += gamma * D[i]! * c[i]! ** 2 + mu[i]! * c[i]!;
      }
      const b = new SparseMatrixBuilder(1 + inst.nSectors, n);
      for (let i = 0; i < n; i++) {
        b.add(0, i, 1);
        if (inst.sector) b.add(1 + inst.sector[i], i, 1);
      }
      const p: QpProblem = {
        P: {
          diagonal: Float64Array.from(D, (v) => 2 * gamma * v),
          factors: denseMatrix(n, k, Float64Array.from(F)),
          factorScales: new Float64Array(k).fill(2 * gamma),
        },
        q,
        offset,
        A: b.build(),
        l: Float64Array.from([inst.sumTarget, ...inst.secLo]),
        u: Float64Array.from([inst.sumTarget, ...inst.secHi]),
        bounds: { lower: Float64Array.from(inst.lb), upper: Float64Array.from(inst.ub) },
      };
      const r = solveQp(p);
      expect(r.status).toBe("optimal");
      expect(Math.abs(r.objective - reference[name]!) / Math.abs(reference[name]!)).toBeLessThan(1e-6);
      expect(r.primalResidual).toBeLessThan(1e-9);
      expectKkt(p, r, 1e-8);
    });
  }
});

describe("QpSolver reuse and warm start", () => {
  function portfolio(seed: number, n: number, k: number): QpProblem {
    const rnd = seeded(seed);
    const F = Float64Array.from({ length: n * k }, () => (rnd() < 0.5 ? gaussian(rnd) : 0));
    const budget = new SparseMatrixBuilder(1, n);
    for (let i = 0; i < n; i++) budget.add(0, i, 1);
    return {
      P: {
        diagonal: Float64Array.from({ length: n }, () => 0.2 + rnd()),
        factors: denseMatrix(n, k, F),
        factorScales: new Float64Array(k).fill(2),
      },
      q: Float64Array.from({ length: n }, () => -gaussian(rnd)),
      A: budget.build(),
      l: Float64Array.of(1),
      u: Float64Array.of(1),
      bounds: { lower: new Float64Array(n), upper: new Float64Array(n).fill(0.05) },
    };
  }

  it("re-solves after a small change of q in fewer iterations than a cold solve, with the same answer", () => {
    const p = portfolio(21, 300, 10);
    const solver = createQpSolver(p);
    expect(solver.solve().status).toBe("optimal");
    const rnd = seeded(22);
    const q2 = Float64Array.from(p.q, (v) => v + 1e-3 * gaussian(rnd));
    solver.update({ q: q2 });
    const warm = solver.solve();
    const cold = solveQp({ ...p, q: q2 });
    expect(warm.status).toBe("optimal");
    expect(warm.iterations).toBeLessThan(cold.iterations);
    expect(relGap(warm.objective, cold.objective)).toBeLessThan(1e-10);
    expectKkt({ ...p, q: q2 }, warm);
  });

  it("warm-starts ADMM too (fewer iterations after a small change)", () => {
    const p = portfolio(23, 120, 6);
    const options: QpOptions = { method: "admm", polish: false, epsAbs: 1e-6, epsRel: 1e-6 };
    const solver = createQpSolver(p, options);
    solver.solve();
    const q2 = Float64Array.from(p.q, (v, i) => v + 1e-4 * Math.sin(i));
    solver.update({ q: q2 });
    const warm = solver.solve();
    const cold = solver.solve({ warmStart: false });
    expect(warm.iterations).toBeLessThan(cold.iterations);
  });

  it("accepts new bounds and rows through update and still matches a fresh solve", () => {
    const p = portfolio(24, 50, 4);
    const solver = createQpSolver(p);
    solver.solve();
    const upper = new Float64Array(50).fill(0.04);
    solver.update({
      bounds: { lower: new Float64Array(50), upper },
      l: Float64Array.of(0.9),
      u: Float64Array.of(0.9),
    });
    const r = solver.solve();
    const fresh = solveQp({
      ...p,
      bounds: { lower: new Float64Array(50), upper },
      l: Float64Array.of(0.9),
      u: Float64Array.of(0.9),
    });
    expect(relGap(r.objective, fresh.objective)).toBeLessThan(1e-10);
    expect(() => solver.update({ q: new Float64Array(3) })).toThrow(
      "QpSolver.update: q has length 3, expected 50.",
    );
  });

  it("does not mutate the problem's arrays", () => {
    const p = randomProblem(9, { n: 20, k: 3, eq: 1, ineq: 3, singletons: 2 });
    const snapshot = JSON.stringify(p, (_, v) =>
      v instanceof Float64Array || v instanceof Int32Array ? Array.from(v) : v,
    );
    solveQp(p);
    solveQp(p, { method: "admm" });
    const s = createQpSolver(p);
    s.solve();
    s.update({ q: new Float64Array(20) });
    s.solve();
    expect(
      JSON.stringify(p, (_, v) => (v instanceof Float64Array || v instanceof Int32Array ? Array.from(v) : v)),
    ).toBe(snapshot);
  });
});

describe("solveQp with cone constraints", () => {
  // Tracking portfolio: min 1/2 x'Px - mu'x, sum x = 1, 0 <= x <= 0.2, with the active-risk cap
  // (x - b)'(diag(e) + W W')(x - b) <= r^2.
  const n = 40;
  const kW = 4;
  const rnd = seeded(31);
  const W = Float64Array.from({ length: n * kW }, () => 0.3 * gaussian(rnd));
  const e = Float64Array.from({ length: n }, () => 0.01 + 0.05 * rnd());
  const bench = new Float64Array(n).fill(1 / n);
  const mu = Float64Array.from({ length: n }, () => 0.1 * gaussian(rnd));
  const budget = new SparseMatrixBuilder(1, n);
  for (let i = 0; i < n; i++) budget.add(0, i, 1);
  const base: QpProblem = {
    P: { diagonal: new Float64Array(n).fill(1e-3) },
    q: Float64Array.from(mu, (v) => -v),
    A: budget.build(),
    l: Float64Array.of(1),
    u: Float64Array.of(1),
    bounds: { lower: new Float64Array(n), upper: new Float64Array(n).fill(0.2) },
  };
  function risk(x: Float64Array): number {
    let r = 0;
    const t = new Float64Array(kW);
    for (let i = 0; i < n; i++) {
      const dx = x[i]! - bench[i]!;
      r += e[i]! * dx * dx;
      for (let j = 0; j < kW; j++) t[j]! += W[i * kW + j]! * dx;
    }
    for (let j = 0; j < kW; j++) r += t[j]! * t[j]!;
    return r;
  }
  /** The Lagrangian problem with risk aversion eta: P + 2 eta Sigma, q - 2 eta Sigma b. */
  function lagrangian(eta: number): QpProblem {
    const sb = new Float64Array(n);
    const t = new Float64Array(kW);
    for (let i = 0; i < n; i++) for (let j = 0; j < kW; j++) t[j]! += W[i * kW + j]! * bench[i]!;
    for (let i = 0; i < n; i++) {
      sb[i] = e[i]! * bench[i]!;
      for (let j = 0; j < kW; j++) sb[i]! += W[i * kW + j]! * t[j]!;
    }
    return {
      ...base,
      P: {
        diagonal: Float64Array.from(e, (v) => 1e-3 + 2 * eta * v),
        factors: denseMatrix(n, kW, W),
        factorScales: new Float64Array(kW).fill(2 * eta),
      },
      q: Float64Array.from(base.q, (v, i) => v - 2 * eta * sb[i]!),
    };
  }
  const free = solveQp(base);
  const cap = 0.5 * Math.sqrt(risk(free.x));
  const capped: QpProblem = {
    ...base,
    cones: [
      { kind: "factor-risk-ball", center: bench, diagonal: e, factors: denseMatrix(n, kW, W), radius: cap },
    ],
  };

  it("keeps the active risk within the cap and matches a bisection on the risk aversion", () => {
    const r = solveQp(capped);
    expect(r.status).toBe("optimal");
    expect(r.method).toBe("active-set");
    expect(Math.sqrt(risk(r.x))).toBeLessThanOrEqual(cap * (1 + 1e-10));
    expect(Math.sqrt(risk(r.x))).toBeGreaterThan(cap * (1 - 1e-8));
    expectKkt(capped, r, 1e-8);
    // Bisection on eta until the Lagrangian solution's risk equals the cap.
    let lo = 0;
    let hi = 1;
    while (risk(solveQp(lagrangian(hi)).x) > cap * cap) hi *= 2;
    for (let it = 0; it < 60; it++) {
      const mid = 0.5 * (lo + hi);
      if (risk(solveQp(lagrangian(mid)).x) > cap * cap) lo = mid;
      else hi = mid;
    }
    const xb = solveQp(lagrangian(hi)).x;
    const objective = (x: Float64Array) => objectiveOf(base, x);
    expect(relGap(r.objective, objective(xb))).toBeLessThan(1e-6);
    for (let i = 0; i < n; i++) expect(r.x[i]).toBeCloseTo(xb[i]!, 6);
    // The ball's multiplier mu = ||y_c|| relates to eta: mu = 2 eta r.
    let mu2 = 0;
    for (const v of r.coneDuals[0]!) mu2 += v * v;
    expect(Math.sqrt(mu2) / (2 * cap)).toBeCloseTo(hi, 4);
  });

  it("ignores a cap that is not binding (zero cone multiplier, same solution as without it)", () => {
    const loose: QpProblem = {
      ...capped,
      cones: [{ ...capped.cones![0]!, radius: 2 * Math.sqrt(risk(free.x)) } as never],
    };
    const r = solveQp(loose);
    expect(r.status).toBe("optimal");
    expect(r.coneDuals[0]!.every((v) => v === 0)).toBe(true);
    for (let i = 0; i < n; i++) expect(r.x[i]).toBeCloseTo(free.x[i]!, 10);
  });

  it("gives the same capped solution through ADMM and its polish", () => {
    const a = solveQp(capped);
    const b = solveQp(capped, { method: "admm" });
    expect(b.status).toBe("optimal");
    expect(b.polished).toBe(true);
    expect(relGap(b.objective, a.objective)).toBeLessThan(1e-9);
    expectKkt(capped, b, 1e-8);
  });

  it("solves a general second-order cone by ADMM: min -x1 - x2 s.t. ||x|| <= 1 at (1/sqrt 2, 1/sqrt 2)", () => {
    const G = rows(2, [
      [0, 0, 1],
      [1, 1, 1],
    ]);
    const r = solveQp(
      {
        P: { diagonal: Float64Array.of(0, 0) },
        q: Float64Array.of(-1, -1),
        cones: [{ kind: "second-order-cone", G, t: 1 }],
      },
      { epsAbs: 1e-7, epsRel: 1e-7 },
    );
    expect(r.status).toBe("optimal");
    expect(r.method).toBe("admm");
    expect(r.x[0]).toBeCloseTo(Math.SQRT1_2, 4);
    expect(r.x[1]).toBeCloseTo(Math.SQRT1_2, 4);
    expect(r.objective).toBeCloseTo(-Math.SQRT2, 4);
  });
});

describe("solveQp input checks", () => {
  const ok: QpProblem = { P: { diagonal: Float64Array.of(1, 1, 1) }, q: Float64Array.of(1, 2, 3) };
  it("names solveQp and the shape in its messages", () => {
    expect(() => solveQp({ ...ok, q: Float64Array.of(1, 2) })).toThrow(
      new RangeError("solveQp: q has length 2, expected 3."),
    );
    expect(() => solveQp({ ...ok, q: Float64Array.of(1, Number.NaN, 3) })).toThrow(
      new TypeError("solveQp: q[1] is NaN."),
    );
    expect(() => solveQp({ ...ok, P: { diagonal: Float64Array.of(1, -1, 1) } })).toThrow(
      "solveQp: P.diagonal[1] = -1 < 0; P must be positive semidefinite.",
    );
    expect(() =>
      solveQp({ ...ok, A: rows(1, [[0, 1, 1]]), l: Float64Array.of(0), u: Float64Array.of(1) }),
    ).toThrow("solveQp: A has 2 columns, expected n = 3.");
    expect(() => solveQp({ ...ok, l: Float64Array.of(0) })).toThrow("solveQp: l and u are given without A.");
    expect(() =>
      solveQp({ ...ok, P: { diagonal: Float64Array.of(1, 1, 1), factors: denseMatrix(2, 1) } }),
    ).toThrow(/solveQp: P.factors is 2 x 1/);
    expect(() => solveQp(ok, { alpha: 2 })).toThrow("solveQp: options.alpha is 2; it must lie in (0, 2).");
    expect(() => createQpSolver({ ...ok, q: [1, 2, 3] as unknown as Float64Array })).toThrow(
      new TypeError("createQpSolver: q must be a Float64Array of length 3."),
    );
  });
});
