import { describe, expect, it } from "vitest";
import { denseMatrix, SparseMatrixBuilder, solveQp } from "../../numeric/index.js";
import { createRandom } from "../../random.js";
import { type PwlSegments, solvePwlTracking } from "./pwl-tracking-qp.js";

/** Objective 1/2 x'Px + q'x + sum phi_i(x_i), phi_i(x) = sum of slope x length up to x from the first lower end. */
function objective(P: { d: number[]; v: number[] }, q: number[], seg: PwlSegments, x: Float64Array): number {
  const n = q.length;
  let quad = 0;
  let vx = 0;
  for (let i = 0; i < n; i++) {
    quad += 0.5 * P.d[i]! * x[i]! ** 2 + q[i]! * x[i]!;
    vx += P.v[i]! * x[i]!;
  }
  quad += 0.5 * vx * vx;
  for (let i = 0; i < n; i++)
    for (let j = seg.start[i]!; j < seg.start[i + 1]!; j++) {
      const covered = Math.min(Math.max(x[i]! - seg.lower[j]!, 0), seg.upper[j]! - seg.lower[j]!);
      quad += seg.slope[j]! * covered;
    }
  return quad;
}

/** Global optimum by enumerating every combination of segments (each one a QP solved exactly). */
function bruteForce(P: { d: number[]; v: number[] }, q: number[], seg: PwlSegments, budget: number): number {
  const n = q.length;
  const counts = Array.from({ length: n }, (_, i) => seg.start[i + 1]! - seg.start[i]!);
  const A = new SparseMatrixBuilder(1, n);
  for (let i = 0; i < n; i++) A.add(0, i, 1);
  const rowA = A.build();
  let best = Number.POSITIVE_INFINITY;
  const pick = new Array<number>(n).fill(0);
  const visit = (i: number) => {
    if (i === n) {
      const lower = new Float64Array(n);
      const upper = new Float64Array(n);
      const qq = new Float64Array(n);
      for (let k = 0; k < n; k++) {
        const j = seg.start[k]! + pick[k]!;
        lower[k] = seg.lower[j]!;
        upper[k] = seg.upper[j]!;
        qq[k] = q[k]! + seg.slope[j]!;
      }
      const r = solveQp({
        P: { diagonal: Float64Array.from(P.d), factors: denseMatrix(n, 1, Float64Array.from(P.v)) },
        q: qq,
        A: rowA,
        l: Float64Array.of(budget),
        u: Float64Array.of(budget),
        bounds: { lower, upper },
      });
      if (r.status === "optimal") best = Math.min(best, objective(P, q, seg, r.x));
      return;
    }
    for (let c = 0; c < counts[i]!; c++) {
      pick[i] = c;
      visit(i + 1);
    }
  };
  visit(0);
  return best;
}

describe("solvePwlTracking", () => {
  it("matches the enumeration of every segment combination on random convex problems", () => {
    const rng = createRandom(11);
    for (let trial = 0; trial < 25; trial++) {
      const n = 4;
      const P = {
        d: Array.from({ length: n }, () => rng.uniform(0.05, 1)),
        v: Array.from({ length: n }, () => rng.uniform(-1, 1)),
      };
      const q = Array.from({ length: n }, () => rng.uniform(-0.5, 0.5));
      const start = new Int32Array(n + 1);
      const lower: number[] = [];
      const upper: number[] = [];
      const slope: number[] = [];
      const x0 = new Float64Array(n);
      for (let i = 0; i < n; i++) {
        // Sells of 1-3 lots below x0 (slopes increasing to the right means more negative to the left), a buy above.
        x0[i] = rng.uniform(0.1, 0.4);
        const lots = rng.int(1, 3);
        let at = 0;
        const cuts = [
          0,
          ...Array.from({ length: lots - 1 }, () => rng.uniform(0, x0[i]!)).sort((a, b) => a - b),
          x0[i]!,
        ];
        const sellSlopes = Array.from({ length: lots }, () => -rng.uniform(0.001, 0.2)).sort((a, b) => a - b);
        for (let k = 0; k < lots; k++) {
          lower.push(cuts[k]!);
          upper.push(cuts[k + 1]!);
          slope.push(sellSlopes[k]!);
          at++;
        }
        lower.push(x0[i]!);
        upper.push(1);
        slope.push(rng.uniform(0, 0.01));
        at++;
        start[i + 1] = start[i]! + at;
      }
      const seg: PwlSegments = {
        start,
        lower: Float64Array.from(lower),
        upper: Float64Array.from(upper),
        slope: Float64Array.from(slope),
      };
      const budget = x0.reduce((s, v) => s + v, 0) + rng.uniform(-0.1, 0.1);
      const res = solvePwlTracking({
        P: { diagonal: Float64Array.from(P.d), factors: denseMatrix(n, 1, Float64Array.from(P.v)) },
        q: Float64Array.from(q),
        segments: seg,
        budget: { lower: budget, upper: budget },
        start: x0,
      });
      expect(res.status).toBe("optimal");
      expect(res.x.reduce((s, v) => s + v, 0)).toBeCloseTo(budget, 10);
      expect(objective(P, q, seg, res.x)).toBeCloseTo(bruteForce(P, q, seg, budget), 9);
    }
  });

  it("stays at the start when trading costs more than it gains", () => {
    // One variable per asset fixed by the budget: x = (0.5, 0.5) is optimal once costs exceed the pull of q.
    const seg: PwlSegments = {
      start: Int32Array.of(0, 2, 4),
      lower: Float64Array.of(0, 0.5, 0, 0.5),
      upper: Float64Array.of(0.5, 1, 0.5, 1),
      slope: Float64Array.of(-0.1, 0.1, -0.1, 0.1),
    };
    const res = solvePwlTracking({
      P: { diagonal: Float64Array.of(1, 1) },
      q: Float64Array.of(-0.55, -0.45),
      segments: seg,
      budget: { lower: 1, upper: 1 },
      start: Float64Array.of(0.5, 0.5),
    });
    // Moving t from 2 to 1 gains (0.55 - 0.45) t - t^2 but costs 0.2 t: never worth it.
    expect([...res.x]).toEqual([0.5, 0.5]);
  });

  it("refuses non-convex or gapped segments", () => {
    const bad = (slope: number[], upper0 = 0.5) =>
      solvePwlTracking({
        P: { diagonal: Float64Array.of(1) },
        q: Float64Array.of(0),
        segments: {
          start: Int32Array.of(0, 2),
          lower: Float64Array.of(0, 0.5),
          upper: Float64Array.of(upper0, 1),
          slope: Float64Array.from(slope),
        },
        budget: { lower: 0.5, upper: 0.5 },
        start: Float64Array.of(0.5),
      });
    expect(() => bad([0.1, -0.1])).toThrow(/not contiguous and convex/);
    expect(() => bad([0, 0.1], 0.4)).toThrow(/not contiguous and convex/);
  });
});
