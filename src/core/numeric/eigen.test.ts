import { describe, expect, it } from "vitest";
import { NonFiniteError } from "../errors.js";
import { symmetricEigen } from "./eigen.js";

/** Seeded uniform [0, 1) generator (mulberry32). */
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

function randomSymmetric(n: number, seed: number): Float64Array {
  const r = seeded(seed);
  const a = new Float64Array(n * n);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j <= i; j++) {
      const v = 2 * r() - 1;
      a[i * n + j] = v;
      a[j * n + i] = v;
    }
  }
  return a;
}

/** Q diag(lambda) Q' with Q a product of three random Householder reflections (so Q is exactly known to be orthogonal). */
function withSpectrum(lambda: number[], seed: number): Float64Array {
  const n = lambda.length;
  const r = seeded(seed);
  const q = new Float64Array(n * n);
  for (let i = 0; i < n; i++) q[i * n + i] = 1;
  for (let h = 0; h < 3; h++) {
    const v = Array.from({ length: n }, () => r() - 0.5);
    const vv = v.reduce((s, x) => s + x * x, 0);
    for (let j = 0; j < n; j++) {
      let d = 0;
      for (let i = 0; i < n; i++) d += v[i]! * q[i * n + j]!;
      for (let i = 0; i < n; i++) q[i * n + j]! -= (2 * v[i]! * d) / vv;
    }
  }
  const a = new Float64Array(n * n);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j <= i; j++) {
      let s = 0;
      for (let l = 0; l < n; l++) s += q[i * n + l]! * lambda[l]! * q[j * n + l]!;
      a[i * n + j] = s;
      a[j * n + i] = s;
    }
  }
  return a;
}

/** max |A V - V diag(lambda)| and max |V'V - I|. */
function residuals(
  a: Float64Array,
  n: number,
  values: Float64Array,
  v: Float64Array,
): { av: number; orth: number } {
  const m = values.length;
  let av = 0;
  let orth = 0;
  for (let j = 0; j < m; j++) {
    for (let i = 0; i < n; i++) {
      let s = 0;
      for (let l = 0; l < n; l++) s += a[i * n + l]! * v[l * m + j]!;
      av = Math.max(av, Math.abs(s - values[j]! * v[i * m + j]!));
    }
    for (let q = 0; q <= j; q++) {
      let s = 0;
      for (let i = 0; i < n; i++) s += v[i * m + j]! * v[i * m + q]!;
      orth = Math.max(orth, Math.abs(s - (q === j ? 1 : 0)));
    }
  }
  return { av, orth };
}

describe("symmetricEigen", () => {
  it("finds the eigenpairs of the 3 x 3 second-difference matrix", () => {
    // tridiag(-1, 2, -1) of order 3: lambda_k = 2 - 2 cos(k pi / 4) = 2 - sqrt 2, 2, 2 + sqrt 2 and
    // eigenvector k has entries sin(j k pi / 4) (Strang, Introduction to Linear Algebra, sec. 6.4).
    const a = Float64Array.of(2, -1, 0, -1, 2, -1, 0, -1, 2);
    const { values, vectors } = symmetricEigen({ rows: 3, cols: 3, data: a }, { order: "ascending" });
    expect(values[0]).toBeCloseTo(2 - Math.SQRT2, 14);
    expect(values[1]).toBeCloseTo(2, 14);
    expect(values[2]).toBeCloseTo(2 + Math.SQRT2, 14);
    // k = 1: (sin pi/4, sin pi/2, sin 3pi/4) normalized = (1/2, 1/sqrt 2, 1/2); largest entry positive.
    expect(vectors![0 * 3 + 0]).toBeCloseTo(0.5, 14);
    expect(vectors![1 * 3 + 0]).toBeCloseTo(Math.SQRT1_2, 14);
    expect(vectors![2 * 3 + 0]).toBeCloseTo(0.5, 14);
    // k = 2: (1, 0, -1)/sqrt 2, first entry positive (tie broken by the first index).
    expect(vectors![0 * 3 + 1]).toBeCloseTo(Math.SQRT1_2, 14);
    expect(vectors![1 * 3 + 1]).toBeCloseTo(0, 14);
    expect(vectors![2 * 3 + 1]).toBeCloseTo(-Math.SQRT1_2, 14);
  });

  it("returns eigenvalues in descending order by default", () => {
    // [[2, 1], [1, 2]]: eigenvalues 3 and 1 with eigenvectors (1, 1)/sqrt 2 and (1, -1)/sqrt 2.
    const { values, vectors } = symmetricEigen({ rows: 2, cols: 2, data: Float64Array.of(2, 1, 1, 2) });
    expect(Array.from(values)).toEqual([expect.closeTo(3, 14), expect.closeTo(1, 14)]);
    expect(vectors![0]).toBeCloseTo(Math.SQRT1_2, 14);
    expect(vectors![2]).toBeCloseTo(Math.SQRT1_2, 14);
  });

  it("satisfies A V = V diag(lambda) and V'V = I on a random symmetric matrix, with both vector methods", () => {
    const n = 40;
    const a = randomSymmetric(n, 7);
    let trace = 0;
    for (let i = 0; i < n; i++) trace += a[i * n + i]!;
    const ql = symmetricEigen({ rows: n, cols: n, data: a }, { vectorMethod: "ql" });
    const inv = symmetricEigen({ rows: n, cols: n, data: a }, { vectorMethod: "inverse-iteration" });
    for (const res of [ql, inv]) {
      const { av, orth } = residuals(a, n, res.values, res.vectors!);
      expect(av).toBeLessThan(1e-10);
      expect(orth).toBeLessThan(1e-10);
      expect(res.values.reduce((s, x) => s + x, 0)).toBeCloseTo(trace, 10);
    }
    for (let j = 0; j < n; j++) expect(inv.values[j]).toBeCloseTo(ql.values[j]!, 12);
    for (let j = 1; j < n; j++) expect(ql.values[j]!).toBeLessThanOrEqual(ql.values[j - 1]!);
  });

  it("keeps eigenvectors of repeated eigenvalues orthonormal", () => {
    // Eigenvalue 1 eight times, 2 four times, 5 twice, 5 + 1e-12 once: clusters for inverse iteration.
    const lambda = [1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 5, 5, 5 + 1e-12];
    const n = lambda.length;
    const a = withSpectrum(lambda, 3);
    for (const method of ["ql", "inverse-iteration"] as const) {
      const res = symmetricEigen({ rows: n, cols: n, data: a }, { order: "ascending", vectorMethod: method });
      for (let j = 0; j < n; j++) expect(res.values[j]).toBeCloseTo(lambda[j]!, 12);
      const { av, orth } = residuals(a, n, res.values, res.vectors!);
      expect(av).toBeLessThan(1e-12);
      expect(orth).toBeLessThan(1e-12);
    }
  });

  it("returns only the requested leading eigenpairs, equal to those of the full decomposition", () => {
    const n = 60;
    const a = randomSymmetric(n, 11);
    const full = symmetricEigen({ rows: n, cols: n, data: a });
    const top = symmetricEigen({ rows: n, cols: n, data: a }, { count: 3 });
    const bottom = symmetricEigen({ rows: n, cols: n, data: a }, { count: 2, order: "ascending" });
    expect(top.count).toBe(3);
    expect(top.vectors!.length).toBe(n * 3);
    for (let j = 0; j < 3; j++) {
      expect(top.values[j]).toBeCloseTo(full.values[j]!, 12);
      // Same sign convention, so the vectors agree entrywise.
      for (let i = 0; i < n; i++) expect(top.vectors![i * 3 + j]).toBeCloseTo(full.vectors![i * n + j]!, 9);
    }
    expect(bottom.values[0]).toBeCloseTo(full.values[n - 1]!, 12);
    expect(bottom.values[1]).toBeCloseTo(full.values[n - 2]!, 12);
    const { av, orth } = residuals(a, n, top.values, top.vectors!);
    expect(av).toBeLessThan(1e-10);
    expect(orth).toBeLessThan(1e-10);
  });

  it("finds the rank of a low-rank positive semidefinite matrix (a Gram matrix)", () => {
    // G = B B' with B 30 x 3: three positive eigenvalues, the rest zero up to rounding.
    const n = 30;
    const r = seeded(5);
    const b = Array.from({ length: n * 3 }, () => r() - 0.5);
    const g = new Float64Array(n * n);
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < n; j++) {
        let s = 0;
        for (let l = 0; l < 3; l++) s += b[i * 3 + l]! * b[j * 3 + l]!;
        g[i * n + j] = s;
      }
    }
    const { values } = symmetricEigen({ rows: n, cols: n, data: g }, { vectors: false });
    expect(values[2]!).toBeGreaterThan(1e-3);
    for (let j = 3; j < n; j++) expect(Math.abs(values[j]!)).toBeLessThan(1e-13 * values[0]!);
  });

  it("converges on a rank-deficient sample covariance whose null block sits at the rounding level (fixed bug)", () => {
    // 120 assets, 25 periods: rank 25, so 95 eigenvalues are zero up to rounding. The QL deflation test was
    // purely relative and looped forever on that block; it now also deflates below eps ||T||.
    const n = 120;
    const T = 25;
    const r = seeded(17);
    const x = Array.from({ length: T * n }, () => r() - 0.5);
    const c = new Float64Array(n * n);
    for (let t = 0; t < T; t++)
      for (let i = 0; i < n; i++)
        for (let j = 0; j < n; j++) c[i * n + j]! += (x[t * n + i]! * x[t * n + j]!) / T;
    for (const method of ["ql", "inverse-iteration"] as const) {
      const res = symmetricEigen(
        { rows: n, cols: n, data: c },
        { vectorMethod: method, count: method === "ql" ? n : 5 },
      );
      const { av, orth } = residuals(c, n, res.values, res.vectors!);
      expect(av).toBeLessThan(1e-12);
      expect(orth).toBeLessThan(1e-10);
    }
    const values = symmetricEigen({ rows: n, cols: n, data: c }, { vectors: false }).values;
    expect(values[T - 1]!).toBeGreaterThan(1e-3);
    expect(Math.abs(values[T]!)).toBeLessThan(1e-14);
  });

  it("handles diagonal, zero, 1 x 1 and empty matrices", () => {
    const diag = symmetricEigen({ rows: 3, cols: 3, data: Float64Array.of(1, 0, 0, 0, 3, 0, 0, 0, 2) });
    expect(Array.from(diag.values)).toEqual([3, 2, 1]);
    expect(Array.from(diag.vectors!)).toEqual([0, 0, 1, 1, 0, 0, 0, 1, 0]);
    const zero = symmetricEigen(
      { rows: 2, cols: 2, data: new Float64Array(4) },
      { vectorMethod: "inverse-iteration" },
    );
    expect(Array.from(zero.values)).toEqual([0, 0]);
    expect(Math.abs(zero.vectors![0]! * zero.vectors![1]! + zero.vectors![2]! * zero.vectors![3]!)).toBe(0);
    const one = symmetricEigen({ rows: 1, cols: 1, data: Float64Array.of(-4) });
    expect(Array.from(one.values)).toEqual([-4]);
    expect(Array.from(one.vectors!)).toEqual([1]);
    const empty = symmetricEigen({ rows: 0, cols: 0, data: new Float64Array(0) });
    expect(empty.values.length).toBe(0);
    expect(empty.vectors!.length).toBe(0);
  });

  it("omits eigenvectors when asked", () => {
    const res = symmetricEigen({ rows: 2, cols: 2, data: Float64Array.of(2, 1, 1, 2) }, { vectors: false });
    expect(res.vectors).toBeNull();
    expect(res.values[0]).toBeCloseTo(3, 14);
  });

  it("does not modify its input", () => {
    const a = randomSymmetric(12, 2);
    const copy = Float64Array.from(a);
    symmetricEigen({ rows: 12, cols: 12, data: a });
    symmetricEigen({ rows: 12, cols: 12, data: a }, { count: 2 });
    expect(a).toEqual(copy);
  });

  it("rejects non-square, mis-sized, asymmetric and non-finite input and a bad count", () => {
    expect(() => symmetricEigen({ rows: 2, cols: 3, data: new Float64Array(6) })).toThrow(
      /symmetricEigen: expected a square matrix, got 2 x 3/,
    );
    expect(() => symmetricEigen({ rows: 2, cols: 2, data: new Float64Array(3) })).toThrow(
      /data has length 3, expected 4/,
    );
    expect(() => symmetricEigen({ rows: 2, cols: 2, data: Float64Array.of(1, 2, 2.5, 1) })).toThrow(
      /not symmetric: \|a\(1,0\) - a\(0,1\)\| = 0.5/,
    );
    expect(() =>
      symmetricEigen({ rows: 2, cols: 2, data: Float64Array.of(1, Number.NaN, Number.NaN, 1) }),
    ).toThrow(NonFiniteError);
    expect(() => symmetricEigen({ rows: 2, cols: 2, data: Float64Array.of(1, 0, 0, Infinity) })).toThrow(
      /entry \(1, 1\) is Infinity/,
    );
    expect(() =>
      symmetricEigen({ rows: 2, cols: 2, data: Float64Array.of(1, 0, 0, 1) }, { count: 3 }),
    ).toThrow(/count must be an integer in \[0, 2\], got 3/);
  });

  it("accepts rounding-level asymmetry and uses (A + A') / 2", () => {
    const res = symmetricEigen({ rows: 2, cols: 2, data: Float64Array.of(2, 1 + 1e-13, 1 - 1e-13, 2) });
    expect(res.values[0]).toBeCloseTo(3, 12);
  });
});
