import { describe, expect, it } from "vitest";
import { denseMatrix } from "./dense-matrix.js";
import { factorModelMultiply, factorModelQuadraticForm } from "./factor-model.js";

describe("factor model P = diag(d) + V diag(s) V'", () => {
  // d = [1, 2, 3], V = [[1, 0], [1, 2], [0, 1]], s = [2, 0.5]
  // V diag(s) V' = [[2, 2, 0], [2, 4, 1], [0, 1, 0.5]] -> P = [[3, 2, 0], [2, 6, 1], [0, 1, 3.5]]
  const model = {
    diagonal: Float64Array.of(1, 2, 3),
    factors: denseMatrix(3, 2, Float64Array.of(1, 0, 1, 2, 0, 1)),
    factorScales: Float64Array.of(2, 0.5),
  };

  it("multiplies without forming P (hand-computed P)", () => {
    // P [1, -1, 2] = [3 - 2, 2 - 6 + 2, -1 + 7] = [1, -2, 6]
    expect(Array.from(factorModelMultiply(model, Float64Array.of(1, -1, 2)))).toEqual([1, -2, 6]);
  });

  it("the quadratic form equals x'(P x)", () => {
    const x = Float64Array.of(1, -1, 2);
    // x'Px = 1*1 + (-1)(-2) + 2*6 = 15
    expect(factorModelQuadraticForm(model, x)).toBeCloseTo(15, 14);
  });

  it("treats a missing V (k = 0) and missing scales (ones)", () => {
    expect(
      Array.from(factorModelMultiply({ diagonal: Float64Array.of(2, 3) }, Float64Array.of(1, 1))),
    ).toEqual([2, 3]);
    const p = { diagonal: Float64Array.of(0, 0), factors: denseMatrix(2, 1, Float64Array.of(1, 1)) };
    expect(Array.from(factorModelMultiply(p, Float64Array.of(1, 2)))).toEqual([3, 3]);
  });

  it("rejects a vector of the wrong length", () => {
    expect(() => factorModelMultiply(model, new Float64Array(2))).toThrow(
      "factorModelMultiply: x has length 2, expected 3.",
    );
  });
});
