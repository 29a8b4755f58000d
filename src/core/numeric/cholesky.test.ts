import { describe, expect, it } from "vitest";
import { choleskyDecomposition, choleskyFactorInPlace, choleskySolveInPlace } from "./cholesky.js";
import { denseMatrix } from "./dense-matrix.js";

describe("choleskyDecomposition", () => {
  it("factors the textbook 3x3 matrix [[4,12,-16],[12,37,-43],[-16,-43,98]] into integers", () => {
    // Classic example (e.g. Wikipedia "Cholesky decomposition"): L = [[2,0,0],[6,1,0],[-8,5,3]].
    const a = denseMatrix(3, 3, Float64Array.of(4, 12, -16, 12, 37, -43, -16, -43, 98));
    const chol = choleskyDecomposition(a);
    expect(chol.positiveDefinite).toBe(true);
    expect(Array.from(chol.lower.data)).toEqual([2, 0, 0, 6, 1, 0, -8, 5, 3]);
  });

  it("reproduces A = L L' and solves A x = b", () => {
    const a = denseMatrix(3, 3, Float64Array.of(4, 12, -16, 12, 37, -43, -16, -43, 98));
    const chol = choleskyDecomposition(a);
    const l = chol.lower.data;
    for (let i = 0; i < 3; i++)
      for (let j = 0; j < 3; j++) {
        let s = 0;
        for (let p = 0; p < 3; p++) s += l[i * 3 + p]! * l[j * 3 + p]!;
        expect(s).toBeCloseTo(a.data[i * 3 + j]!, 12);
      }
    // b = A [1, 2, 3] = [4 + 24 - 48, 12 + 74 - 129, -16 - 86 + 294] = [-20, -43, 192]
    const x = chol.solve(Float64Array.of(-20, -43, 192));
    expect(x[0]).toBeCloseTo(1, 12);
    expect(x[1]).toBeCloseTo(2, 12);
    expect(x[2]).toBeCloseTo(3, 12);
  });

  it("reports positiveDefinite = false for an indefinite matrix instead of throwing", () => {
    const chol = choleskyDecomposition(denseMatrix(2, 2, Float64Array.of(1, 2, 2, 1)));
    expect(chol.positiveDefinite).toBe(false);
    expect(() => chol.solve(Float64Array.of(1, 1))).toThrow(/not positive definite/);
  });

  it("reports positiveDefinite = false for a singular PSD matrix", () => {
    expect(choleskyDecomposition(denseMatrix(2, 2, Float64Array.of(1, 1, 1, 1))).positiveDefinite).toBe(
      false,
    );
  });

  it("does not mutate its input", () => {
    const data = Float64Array.of(4, 2, 2, 5);
    const copy = Float64Array.from(data);
    choleskyDecomposition(denseMatrix(2, 2, data));
    expect(data).toEqual(copy);
  });

  it("handles the empty matrix", () => {
    const chol = choleskyDecomposition(denseMatrix(0, 0));
    expect(chol.positiveDefinite).toBe(true);
    expect(chol.solve(new Float64Array(0)).length).toBe(0);
  });

  it("rejects non-square matrices and wrong right-hand sides with messages naming the function", () => {
    expect(() => choleskyDecomposition(denseMatrix(2, 3))).toThrow(
      "choleskyDecomposition: matrix must be square, got 2 x 3.",
    );
    const chol = choleskyDecomposition(denseMatrix(2, 2, Float64Array.of(4, 2, 2, 5)));
    expect(() => chol.solve(Float64Array.of(1))).toThrow(
      "choleskyDecomposition.solve: b has length 1, expected 2.",
    );
  });

  it("in-place kernels honour a row stride larger than the order", () => {
    // [[4, 2], [2, 5]] stored in a 2 x 3 buffer; x for b = [6, 12] is [0.375, 2.25] (det 16).
    const a = Float64Array.of(4, 0, 99, 2, 5, 99);
    expect(choleskyFactorInPlace(a, 2, 3)).toBe(true);
    const b = Float64Array.of(6, 12);
    choleskySolveInPlace(a, 2, b, 3);
    expect(b[0]).toBeCloseTo(0.375, 14);
    expect(b[1]).toBeCloseTo(2.25, 14);
    expect(a[2]).toBe(99);
  });
});
