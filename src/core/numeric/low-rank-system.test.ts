import { describe, expect, it } from "vitest";
import { choleskyDecomposition } from "./cholesky.js";
import { denseMatrix } from "./dense-matrix.js";
import { LowRankSystemSolver } from "./low-rank-system.js";
import { SparseMatrixBuilder } from "./sparse-matrix.js";

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

describe("LowRankSystemSolver", () => {
  const n = 12;
  const k = 3;
  const rnd = seeded(7);
  const V = Float64Array.from({ length: n * k }, () => rnd() - 0.5);
  const b = new SparseMatrixBuilder(4, n);
  for (let r = 0; r < 4; r++) for (let j = 0; j < n; j++) if (rnd() < 0.4) b.add(r, j, rnd() - 0.5);
  const C = b.build();
  const D = Float64Array.from({ length: n }, () => 0.1 + rnd());
  const wV = Float64Array.of(2, 0.5, 1);
  const wC = Float64Array.of(10, 1e3, 0.1, 1);
  // Dense H = diag(D) + V diag(wV) V' + C' diag(wC) C, solved independently by Cholesky.
  const H = new Float64Array(n * n);
  for (let i = 0; i < n; i++)
    for (let j = 0; j < n; j++) {
      let s = i === j ? D[i]! : 0;
      for (let p = 0; p < k; p++) s += V[i * k + p]! * wV[p]! * V[j * k + p]!;
      H[i * n + j] = s;
    }
  for (let r = 0; r < C.rows; r++)
    for (let a = C.rowStart[r]!; a < C.rowStart[r + 1]!; a++)
      for (let c = C.rowStart[r]!; c < C.rowStart[r + 1]!; c++)
        H[C.columnIndex[a]! * n + C.columnIndex[c]!]! += wC[r]! * C.values[a]! * C.values[c]!;
  const rhs = Float64Array.from({ length: n }, () => rnd() - 0.5);
  const expected = choleskyDecomposition(denseMatrix(n, n, H)).solve(rhs);

  for (const strategy of ["woodbury", "dense", "cg"] as const) {
    it(`solves H x = b with the ${strategy} strategy (checked against a dense Cholesky)`, () => {
      const s = new LowRankSystemSolver(n, k, V, C, strategy);
      expect(s.factor(D, wV, wC)).toBe(true);
      const out = new Float64Array(n);
      s.solve(rhs, out);
      for (let i = 0; i < n; i++) expect(out[i]).toBeCloseTo(expected[i]!, 9);
    });
  }

  it("chooses the Woodbury strategy when k + rows < n", () => {
    expect(new LowRankSystemSolver(n, k, V, C).strategy).toBe("woodbury");
  });
});
