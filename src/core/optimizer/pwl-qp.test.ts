import { describe, expect, it } from "vitest";
import { SparseMatrixBuilder } from "../numeric/index.js";
import { createPwlQpSolver, predictVariable, segmentOf, solvePwlQp } from "./pwl-qp.js";
import type { PwlQpProblem, PwlSegments } from "./pwl-qp-types.js";

/** One variable with breakpoints `edges` (length m+1) and slopes; cost 0 at the first finite edge. */
function segments1(edges: number[], slopes: number[]): PwlSegments {
  const value: number[] = [];
  let v = 0;
  for (let j = 0; j < slopes.length; j++) {
    value.push(v);
    if (Number.isFinite(edges[j]!) && Number.isFinite(edges[j + 1]!))
      v += slopes[j]! * (edges[j + 1]! - edges[j]!);
  }
  return {
    start: Int32Array.of(0, slopes.length),
    lower: Float64Array.from(edges.slice(0, -1)),
    upper: Float64Array.from(edges.slice(1)),
    slope: Float64Array.from(slopes),
    value: Float64Array.from(value),
  };
}

/** Brute-force minimum of a one-dimensional function on [a, b] by a fine grid then golden-section refinement. */
function minimize1d(f: (x: number) => number, a: number, b: number): number {
  let best = a;
  for (let k = 0; k <= 20_000; k++) {
    const x = a + ((b - a) * k) / 20_000;
    if (f(x) < f(best)) best = x;
  }
  let lo = Math.max(a, best - (b - a) / 20_000);
  let hi = Math.min(b, best + (b - a) / 20_000);
  const g = (Math.sqrt(5) - 1) / 2;
  for (let it = 0; it < 200; it++) {
    const c = hi - g * (hi - lo);
    const d = lo + g * (hi - lo);
    if (f(c) < f(d)) hi = d;
    else lo = c;
  }
  return 0.5 * (lo + hi);
}

describe("solvePwlQp", () => {
  it("stops on a kink: min x^2/2 - 2x + |x - 1| has its minimum at the breakpoint x = 1", () => {
    // Right of 1 the derivative is x - 2 + 1 >= 0 at x = 1; left of 1 it is x - 2 - 1 < 0: x* = 1 (the subgradient
    // [-1, 1] of |x - 1| contains -(x - 2) = 1).
    const r = solvePwlQp({
      P: { diagonal: Float64Array.of(1) },
      q: Float64Array.of(-2),
      segments: segments1([-Infinity, 1, Infinity], [-1, 1]),
    });
    expect(r.status).toBe("optimal");
    expect(r.x[0]).toBeCloseTo(1, 12);
    expect(r.objective).toBeCloseTo(0.5 - 2, 12); // 1/2 - 2 + 0 (value 0 at x = 1)
    expect(r.kkt.stationarity).toBeLessThan(1e-12);
  });

  it("walks several segments: the minimum of a convex piecewise-linear plus quadratic cost matches a 1-D search", () => {
    const edges = [-1, -0.6, -0.3, 0, 0.2, 0.5, 1];
    const slopes = [-0.9, -0.5, -0.2, 0.05, 0.3, 0.8];
    const seg = segments1(edges, slopes);
    for (const q of [-1.2, -0.4, 0, 0.3, 0.9]) {
      const r = solvePwlQp({ P: { diagonal: Float64Array.of(0.7) }, q: Float64Array.of(q), segments: seg });
      const f = (x: number) =>
        0.35 * x * x +
        q * x +
        (() => {
          const j = segmentOf(seg, 0, x);
          return seg.value[j]! + seg.slope[j]! * (x - seg.lower[j]!);
        })();
      const ref = minimize1d(f, -1, 1);
      expect(r.status).toBe("optimal");
      expect(r.x[0]).toBeCloseTo(ref, 6);
      expect(r.objective).toBeLessThanOrEqual(f(ref) + 1e-12);
    }
  });

  it("solves the 3/2-power cost exactly: min a x^2/2 + g x + c |x - r|^1.5 matches a 1-D search", () => {
    for (const [a, g, c, rr] of [
      [0.1, -0.02, 0.05, 0],
      [1, 0.3, 0.5, 0.2],
      [0.02, -0.001, 0.2, 0.01],
    ] as const) {
      const r = solvePwlQp(
        {
          P: { diagonal: Float64Array.of(a) },
          q: Float64Array.of(g),
          segments: segments1([-Infinity, Infinity], [0]),
          power: {
            coefficient: Float64Array.of(c),
            reference: Float64Array.of(rr),
            curvature: Float64Array.of((1.5 * c) / Math.sqrt(0.01)),
          },
        },
        { maxRounds: 200 },
      );
      const f = (x: number) => 0.5 * a * x * x + g * x + c * Math.abs(x - rr) ** 1.5;
      const ref = minimize1d(f, -2, 2);
      expect(r.status).toBe("optimal");
      expect(r.x[0]).toBeCloseTo(ref, 6);
      expect(r.kkt.powerGradientGap).toBeLessThan(1e-8);
    }
  });

  it("adapts a too-steep 3/2-power surrogate: converges in few rounds to the exact optimum", () => {
    // The surrogate curvature given for a tiny expected trade (1.5 c / sqrt(1e-4)) is far steeper than the cost's
    // at the optimum; a fixed curvature would crawl (linear rate near 1). The secant curvature converges fast.
    for (const [a, g, c, rr] of [
      [0.1, -0.02, 0.05, 0],
      [0.3, 0.004, 0.01, -0.001],
    ] as const) {
      const r = solvePwlQp({
        P: { diagonal: Float64Array.of(a) },
        q: Float64Array.of(g),
        segments: segments1([-Infinity, Infinity], [0]),
        power: {
          coefficient: Float64Array.of(c),
          reference: Float64Array.of(rr),
          curvature: Float64Array.of((1.5 * c) / Math.sqrt(1e-4)),
        },
      });
      const f = (x: number) => 0.5 * a * x * x + g * x + c * Math.abs(x - rr) ** 1.5;
      const ref = minimize1d(f, -2, 2);
      expect(r.status).toBe("optimal");
      expect(r.rounds).toBeLessThanOrEqual(15);
      expect(r.x[0]).toBeCloseTo(ref, 7);
      expect(r.kkt.stationarity).toBeLessThan(1e-9);
    }
  });

  it("satisfies fixed rows and switch rows with the right multiplier signs", () => {
    // min sum (x_i - 1)^2 / 2 s.t. x_1 + x_2 <= 1 and |x_1| + |x_2| <= 0.8 (switch row): x = (0.4, 0.4).
    const seg: PwlSegments = {
      start: Int32Array.of(0, 2, 4),
      lower: Float64Array.of(-Infinity, 0, -Infinity, 0),
      upper: Float64Array.of(0, Infinity, 0, Infinity),
      slope: new Float64Array(4),
      value: new Float64Array(4),
    };
    const A = new SparseMatrixBuilder(1, 2).add(0, 0, 1).add(0, 1, 1).build();
    const r = solvePwlQp({
      P: { diagonal: Float64Array.of(1, 1) },
      q: Float64Array.of(-1, -1),
      A,
      l: Float64Array.of(-Infinity),
      u: Float64Array.of(1),
      segments: seg,
      switchRows: {
        coefficient: [Float64Array.of(-1, 1, -1, 1)],
        constant: [new Float64Array(4)],
        l: Float64Array.of(-Infinity),
        u: Float64Array.of(0.8),
      },
    });
    expect(r.status).toBe("optimal");
    expect(r.x[0]).toBeCloseTo(0.4, 12);
    expect(r.x[1]).toBeCloseTo(0.4, 12);
    expect(r.ySwitch[0]).toBeCloseTo(0.6, 10); // stationarity: x - 1 + y = 0
    expect(r.y[0]).toBeCloseTo(0, 12); // the budget row is slack
  });

  it("reports an infeasible problem with the QP solver's status", () => {
    const A = new SparseMatrixBuilder(1, 1).add(0, 0, 1).build();
    const r = solvePwlQp({
      P: { diagonal: Float64Array.of(1) },
      q: Float64Array.of(0),
      A,
      l: Float64Array.of(2),
      u: Float64Array.of(3),
      segments: segments1([0, 1], [0]),
    });
    expect(r.status).toBe("infeasible");
    expect(Number.isNaN(r.objective)).toBe(true);
  });

  it("re-solves warm after update and honours extra bounds without rebuilding", () => {
    const p: PwlQpProblem = {
      P: { diagonal: Float64Array.of(1, 2), factors: { rows: 2, cols: 1, data: Float64Array.of(1, 1) } },
      q: Float64Array.of(-1, -1),
      segments: {
        start: Int32Array.of(0, 2, 4),
        lower: Float64Array.of(-5, 0, -5, 0),
        upper: Float64Array.of(0, 5, 0, 5),
        slope: Float64Array.of(-0.1, 0.1, -0.1, 0.1),
        value: Float64Array.of(0.5, 0, 0.5, 0),
      },
    };
    const solver = createPwlQpSolver(p);
    const first = solver.solve();
    expect(first.status).toBe("optimal");
    expect(first.rebuilds).toBe(1);
    solver.update({ q: Float64Array.of(-1.1, -0.9) });
    const second = solver.solve();
    expect(second.rebuilds).toBe(0);
    expect(second.rounds).toBeLessThanOrEqual(first.rounds);
    const third = solver.solve({
      bounds: { lower: Float64Array.of(-5, -5), upper: Float64Array.of(0.1, 5) },
    });
    expect(third.rebuilds).toBe(0);
    expect(third.x[0]).toBeCloseTo(0.1, 12);
    expect(third.domainUpper[0]).toBe(0.1);
  });

  it("takes bounds that cross the segments' domain by rounding as a point domain, and refuses a real crossing", () => {
    // Segments on [-0.3, 0.2]; a caller's bound computed by another route lands 1 ulp above the top, 0.2.
    const p: PwlQpProblem = {
      P: { diagonal: Float64Array.of(1) },
      q: Float64Array.of(1),
      segments: segments1([-0.3, 0, 0.2], [-0.1, 0.1]),
    };
    const above = 0.2 + 2 ** -55; // the next double above 0.2
    expect(above).toBeGreaterThan(0.2);
    const r = solvePwlQp(p, { bounds: { lower: Float64Array.of(above), upper: Float64Array.of(1) } });
    expect(r.status).toBe("optimal");
    expect(r.x[0]).toBe(0.2); // the point, inside the segments
    expect(r.domainLower[0]).toBe(0.2);
    expect(r.domainUpper[0]).toBe(0.2);
    expect(() =>
      solvePwlQp(p, { bounds: { lower: Float64Array.of(0.2 + 1e-6), upper: Float64Array.of(1) } }),
    ).toThrow(/empty domain/);
  });

  it("takes bounds that cross a segment end by rounding as that point, and still refuses an empty domain", () => {
    // A full sale: the lowest segment starts at w0 - b summed one way, the caller's bound is -b summed another.
    const start = 0.1 + 0.2 - 0.4; // -0.09999999999999998
    const seg = segments1([start, 0, 1], [-0.5, 0.5]);
    const p = { P: { diagonal: Float64Array.of(1) }, q: Float64Array.of(1), segments: seg };
    const r = solvePwlQp(p, { bounds: { lower: Float64Array.of(-1), upper: Float64Array.of(-0.1) } });
    expect(r.status).toBe("optimal");
    expect(r.x[0]).toBe(start);
    expect([r.domainLower[0], r.domainUpper[0]]).toEqual([start, start]);
    expect(() =>
      solvePwlQp(p, { bounds: { lower: Float64Array.of(-1), upper: Float64Array.of(-0.2) } }),
    ).toThrow(/options.bounds leave variable 0 an empty domain \[-0.09999999999999998, -0.2\]/);
  });

  it("rejects malformed problems naming the field", () => {
    const base = { P: { diagonal: Float64Array.of(1) }, q: Float64Array.of(0) };
    expect(() =>
      solvePwlQp({ ...base, segments: { ...segments1([0, 1, 2], [0, 1]), upper: Float64Array.of(1.5, 2) } }),
    ).toThrow(/segments 0 and 1 of variable 0 are not contiguous/);
    expect(() => solvePwlQp({ ...base, q: Float64Array.of(0, 0), segments: segments1([0, 1], [0]) })).toThrow(
      /q has length 2, expected 1/,
    );
    expect(() =>
      solvePwlQp({ ...base, segments: { ...segments1([0, 1], [0]), slope: Float64Array.of(Number.NaN) } }),
    ).toThrow(/non-finite slope/);
  });

  it("does not mutate the problem", () => {
    const seg = segments1([-1, 0, 1], [-0.5, 0.5]);
    const copy = Array.from(seg.lower);
    solvePwlQp({ P: { diagonal: Float64Array.of(1) }, q: Float64Array.of(-3), segments: seg });
    expect(Array.from(seg.lower)).toEqual(copy);
  });
});

describe("predictVariable", () => {
  it("finds the better side of a concave kink", () => {
    // Slopes 0.2 then 0.01 (concave at 0): from x = 0.5 with gradient -0.01 (the buy side's optimum), the left
    // side's point -1 (end of the segment) lowers the model by more.
    const seg = segments1([-1, 0, 2], [0.2, 0.01]);
    const p = predictVariable(seg, undefined, new Float64Array(0), 0.01, 0, 0.5, -0.01, 0, 1);
    expect(p.segment).toBe(0);
    expect(p.x).toBe(-1);
    expect(p.decrease).toBeGreaterThan(0);
  });
});
