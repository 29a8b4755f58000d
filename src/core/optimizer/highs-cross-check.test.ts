/**
 * Cross-checks against an independent solver: HiGHS (npm `highs`, WASM) solves the lifted form of each
 * piecewise-linear QP (one bounded variable per segment, the factor part lifted as t = V'x), and the engine's
 * answers must match its optimal objective to 1e-6 relative (and x to 1e-4, HiGHS's QP being the less accurate of the two).
 */

import highsImport from "highs";
import { beforeAll, describe, expect, it } from "vitest";
import { SparseMatrixBuilder } from "../numeric/index.js";
import { createRandom } from "../random.js";
import { solvePwlQp } from "./pwl-qp.js";
import type { PwlQpProblem } from "./pwl-qp-types.js";

// highs ships CommonJS typings: under NodeNext the default import types as the module namespace, while the ESM build
// hands over the loader function itself.
type HighsLoader = typeof highsImport.default;
const highsLoader = ((highsImport as unknown as { default?: HighsLoader }).default ??
  highsImport) as unknown as HighsLoader;
type Highs = Awaited<ReturnType<HighsLoader>>;

/**
 * Optimal objective and x of a convex piecewise-linear QP by HiGHS: x_i = anchor_i + sum_j delta_ij with one
 * bounded variable per segment (cost slope_j delta_ij), switch rows as sum_j coefficient_j delta_ij (valid for
 * convex switch functions), and the factor part lifted as t = V'x with Hessian diag(d, s). Cones are not supported.
 */
function highsSolve(highs: Highs, p: PwlQpProblem): { objective: number; x: Float64Array } {
  const n = p.q.length;
  const seg = p.segments;
  const k = p.P.factors?.cols ?? 0;
  const cols: { cost: number; lo: number; hi: number; hess: number }[] = [];
  const xCol = (i: number) => i; // columns 0..n-1 are x
  for (let i = 0; i < n; i++)
    cols.push({ cost: p.q[i]!, lo: -Infinity, hi: Infinity, hess: p.P.diagonal[i]! });
  for (let c = 0; c < k; c++)
    cols.push({ cost: 0, lo: -Infinity, hi: Infinity, hess: p.P.factorScales?.[c] ?? 1 });
  // Segment columns.
  const segCol = new Int32Array(seg.lower.length);
  const anchors = new Float64Array(n);
  let offset = p.offset ?? 0;
  for (let i = 0; i < n; i++) {
    const a = seg.start[i]!;
    const b = seg.start[i + 1]!;
    // Anchor: the first finite breakpoint.
    let anchor = seg.lower[a]!;
    let anchorSeg = a; // segments >= anchorSeg lie right of the anchor
    if (anchor === -Infinity) {
      anchor = seg.upper[a]!;
      anchorSeg = a + 1;
    }
    anchors[i] = anchor;
    offset += seg.value[a]!; // the cost at the anchor
    for (let j = a; j < b; j++) {
      segCol[j] = cols.length;
      const len = seg.upper[j]! - seg.lower[j]!;
      if (j >= anchorSeg) cols.push({ cost: seg.slope[j]!, lo: 0, hi: len, hess: 0 });
      else cols.push({ cost: seg.slope[j]!, lo: -len, hi: 0, hess: 0 });
    }
  }
  const rows: { idx: number[]; val: number[]; lo: number; hi: number }[] = [];
  // x_i - sum_j delta_ij = anchor_i
  for (let i = 0; i < n; i++) {
    const idx = [xCol(i)];
    const val = [1];
    for (let j = seg.start[i]!; j < seg.start[i + 1]!; j++) {
      idx.push(segCol[j]!);
      val.push(-1);
    }
    rows.push({ idx, val, lo: anchors[i]!, hi: anchors[i]! });
  }
  // Factor lifting V'x - t = 0.
  for (let c = 0; c < k; c++) {
    const idx: number[] = [];
    const val: number[] = [];
    for (let i = 0; i < n; i++) {
      const v = p.P.factors!.data[i * k + c]!;
      if (v !== 0) {
        idx.push(i);
        val.push(v);
      }
    }
    idx.push(n + c);
    val.push(-1);
    rows.push({ idx, val, lo: 0, hi: 0 });
  }
  if (p.A !== undefined)
    for (let r = 0; r < p.A.rows; r++) {
      const idx: number[] = [];
      const val: number[] = [];
      for (let q = p.A.rowStart[r]!; q < p.A.rowStart[r + 1]!; q++) {
        idx.push(p.A.columnIndex[q]!);
        val.push(p.A.values[q]!);
      }
      rows.push({ idx, val, lo: p.l![r]!, hi: p.u![r]! });
    }
  const sw = p.switchRows;
  if (sw !== undefined)
    for (let r = 0; r < sw.l.length; r++) {
      // value at the anchors plus the segment contributions
      let base = 0;
      const idx: number[] = [];
      const val: number[] = [];
      for (let i = 0; i < n; i++) {
        const a = seg.start[i]!;
        const anchorSeg = seg.lower[a] === -Infinity ? a + 1 : a;
        const j = Math.min(anchorSeg, seg.start[i + 1]! - 1);
        base += sw.coefficient[r]![j]! * anchors[i]! + sw.constant[r]![j]!;
        for (let jj = a; jj < seg.start[i + 1]!; jj++) {
          idx.push(segCol[jj]!);
          val.push(sw.coefficient[r]![jj]!);
        }
      }
      rows.push({ idx, val, lo: sw.l[r]! - base, hi: sw.u[r]! - base });
    }
  const numCols = cols.length;
  const starts = [0];
  const indices: number[] = [];
  const values: number[] = [];
  for (const row of rows) {
    const order = row.idx.map((_, t) => t).sort((u, v) => row.idx[u]! - row.idx[v]!);
    for (const t of order) {
      indices.push(row.idx[t]!);
      values.push(row.val[t]!);
    }
    starts.push(indices.length);
  }
  const model = highs.createModel({
    numCols,
    numRows: rows.length,
    offset,
    colCost: Float64Array.from(cols.map((c) => c.cost)),
    colLower: Float64Array.from(cols.map((c) => c.lo)),
    colUpper: Float64Array.from(cols.map((c) => c.hi)),
    rowLower: Float64Array.from(rows.map((r) => r.lo)),
    rowUpper: Float64Array.from(rows.map((r) => r.hi)),
    matrix: {
      format: "csr",
      numRows: rows.length,
      numCols,
      starts: Int32Array.from(starts),
      indices: Int32Array.from(indices),
      values: Float64Array.from(values),
    },
    hessian: {
      format: "triangular",
      dimension: numCols,
      starts: Int32Array.from({ length: numCols + 1 }, (_, i) => i),
      indices: Int32Array.from({ length: numCols }, (_, i) => i),
      values: Float64Array.from(cols.map((c) => c.hess)),
    },
  });
  try {
    model.options.set({
      output_flag: false,
      primal_feasibility_tolerance: 1e-10,
      dual_feasibility_tolerance: 1e-10,
      time_limit: 30,
    });
    model.run();
    if (model.getModelStatus() !== 7)
      return {
        objective: Number.NaN,
        x: new Float64Array(n),
        status: String(model.getModelStatus()),
      } as never;
    const sol = model.getSolution();
    const x = Float64Array.from({ length: n }, (_, i) => sol.colValue[i]!);
    return { objective: model.getObjectiveValue(), x };
  } finally {
    model.dispose();
  }
}

/** A random convex piecewise-linear QP: factor P, budget-like rows, convex segments, optional turnover row. */
function randomProblem(
  seed: number,
  n: number,
  options: { turnover?: boolean; rows?: boolean } = {},
): PwlQpProblem {
  const rng = createRandom(seed);
  const k = 2;
  const diagonal = Float64Array.from({ length: n }, () => rng.uniform(0.01, 0.2));
  const V = Float64Array.from({ length: n * k }, () => rng.normal(0, 0.3));
  const q = Float64Array.from({ length: n }, () => rng.normal(0, 0.05));
  const start = new Int32Array(n + 1);
  const lower: number[] = [];
  const upper: number[] = [];
  const slope: number[] = [];
  const value: number[] = [];
  const tCoef: number[] = [];
  const tConst: number[] = [];
  const x0 = Float64Array.from({ length: n }, () => rng.uniform(-0.2, 0.2));
  for (let i = 0; i < n; i++) {
    start[i] = lower.length;
    // Breakpoints around x0 (the "no trade" point): some to the left, x0, one or two to the right.
    const left = rng.int(0, 4);
    const right = rng.int(1, 3);
    const bps: number[] = [];
    let b = x0[i]!;
    for (let t = 0; t < left; t++) {
      b -= rng.uniform(0.01, 0.1);
      bps.unshift(b);
    }
    bps.push(x0[i]!);
    b = x0[i]!;
    for (let t = 1; t < right; t++) {
      b += rng.uniform(0.01, 0.1);
      bps.push(b);
    }
    const lo = rng.bernoulli(0.5) ? -Infinity : bps[0]! - rng.uniform(0.01, 0.1);
    const hi = rng.bernoulli(0.5) ? Infinity : bps[bps.length - 1]! + rng.uniform(0.01, 0.1);
    const edges = [lo, ...bps, hi];
    const segs = edges.length - 1;
    // Increasing slopes (convex).
    let s0 = rng.uniform(-0.05, 0);
    let val = 0;
    for (let j = 0; j < segs; j++) {
      lower.push(edges[j]!);
      upper.push(edges[j + 1]!);
      slope.push(s0);
      value.push(val);
      if (edges[j + 1] !== Infinity) {
        if (edges[j] !== -Infinity) val += s0 * (edges[j + 1]! - edges[j]!);
      }
      const sign = edges[j + 1]! <= x0[i]! ? -0.5 : 0.5;
      tCoef.push(sign);
      tConst.push(-sign * x0[i]!);
      s0 += rng.uniform(0.001, 0.03);
    }
  }
  start[n] = lower.length;
  // Rows around the start x0 (sometimes violated there, so that trades are forced).
  const b = new SparseMatrixBuilder(options.rows ? 2 : 0, n);
  let sum0 = 0;
  let f0 = 0;
  if (options.rows)
    for (let i = 0; i < n; i++) {
      const a = rng.normal(0, 1);
      b.add(0, i, 1);
      b.add(1, i, a);
      sum0 += x0[i]!;
      f0 += a * x0[i]!;
    }
  const shift = rng.uniform(-0.04, 0.02);
  return {
    P: { diagonal, factors: { rows: n, cols: k, data: V } },
    q,
    ...(options.rows
      ? {
          A: b.build(),
          l: Float64Array.of(-Infinity, f0 - 0.05),
          u: Float64Array.of(sum0 + shift, f0 + 0.05),
        }
      : {}),
    segments: {
      start,
      lower: Float64Array.from(lower),
      upper: Float64Array.from(upper),
      slope: Float64Array.from(slope),
      value: Float64Array.from(value),
    },
    ...(options.turnover
      ? {
          switchRows: {
            coefficient: [Float64Array.from(tCoef)],
            constant: [Float64Array.from(tConst)],
            l: Float64Array.of(-Infinity),
            u: Float64Array.of(0.1),
          },
        }
      : {}),
  };
}

let highs: Highs;
beforeAll(async () => {
  highs = await highsLoader();
});

describe("piecewise-linear QP engine against HiGHS", () => {
  const cases: { name: string; n: number; opts: { turnover?: boolean; rows?: boolean } }[] = [
    { name: "bounds and segments only", n: 6, opts: {} },
    { name: "with a budget and a factor row", n: 8, opts: { rows: true } },
    { name: "with a turnover switch row", n: 8, opts: { rows: true, turnover: true } },
    { name: "larger, all features", n: 20, opts: { rows: true, turnover: true } },
  ];
  for (const c of cases)
    it(`matches HiGHS's optimal objective (${c.name})`, () => {
      let compared = 0;
      for (let seed = 1; seed <= 12; seed++) {
        const p = randomProblem(seed * 7 + c.n, c.n, c.opts);
        const ref = highsSolve(highs, p);
        const r = solvePwlQp(p);
        if (Number.isNaN(ref.objective)) {
          expect(r.status).toBe("infeasible");
          continue;
        }
        expect(r.status).toBe("optimal");
        compared++;
        const scale = Math.max(1e-3, Math.abs(ref.objective));
        // Same optimum to 1e-6 relative; ours is never worse (HiGHS's QP stops at its own tolerances).
        expect(Math.abs(r.objective - ref.objective) / scale).toBeLessThan(1e-6);
        expect(r.objective).toBeLessThanOrEqual(ref.objective + 1e-12 * scale);
        for (let i = 0; i < c.n; i++) expect(Math.abs(r.x[i]! - ref.x[i]!)).toBeLessThan(1e-4);
        expect(r.kkt.stationarity).toBeLessThan(1e-8);
        expect(r.kkt.primal).toBeLessThan(1e-9);
      }
      expect(compared).toBeGreaterThanOrEqual(8); // most random instances are feasible
    });
});
