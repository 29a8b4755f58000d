import { describe, expect, it } from "vitest";
import { NonFiniteError } from "../errors.js";
import { symmetricEigen } from "../numeric/eigen.js";
import { repairPsd } from "./psd-repair.js";

function minEigenvalue(m: Float64Array, n: number): number {
  const { values } = symmetricEigen({ rows: n, cols: n, data: m }, { vectors: false, order: "ascending" });
  return values[0]!;
}

describe("repairPsd", () => {
  it("clips the negative eigenvalue of an indefinite 2 x 2 and reports it", () => {
    // [[1, 2], [2, 1]] = Q diag(3, -1) Q' with Q = [[1, 1], [1, -1]] / sqrt 2. Clipping -1 to the floor
    // 3e-10 gives (3 + 3e-10)/2 on the diagonal and (3 - 3e-10)/2 off it.
    const { matrix, report } = repairPsd(Float64Array.of(1, 2, 2, 1), 2);
    expect(report).toEqual({
      matrix: "covariance",
      size: 2,
      minEigenvalueBefore: expect.closeTo(-1, 14),
      maxEigenvalue: expect.closeTo(3, 14),
      clippedCount: 1,
      floor: expect.closeTo(3e-10, 20),
      frobeniusChange: expect.closeTo(1 + 3e-10, 12),
    });
    expect(matrix[0]).toBeCloseTo((3 + 3e-10) / 2, 14);
    expect(matrix[1]).toBeCloseTo((3 - 3e-10) / 2, 14);
    expect(minEigenvalue(matrix, 2)).toBeGreaterThan(0);
  });

  it("makes a random indefinite matrix positive semidefinite and changes it as little as clipping allows", () => {
    const n = 8;
    let s = 99;
    const r = () => {
      s = (s * 69069 + 1) % 4294967296;
      return s / 4294967296;
    };
    const a = new Float64Array(n * n);
    for (let i = 0; i < n; i++)
      for (let j = 0; j <= i; j++) {
        const v = r() - 0.5;
        a[i * n + j] = v;
        a[j * n + i] = v;
      }
    const before = minEigenvalue(a, n);
    expect(before).toBeLessThan(0);
    const { matrix, report } = repairPsd(a, n);
    expect(report.clippedCount).toBeGreaterThan(0);
    expect(report.minEigenvalueBefore).toBeCloseTo(before, 12);
    expect(minEigenvalue(matrix, n)).toBeGreaterThanOrEqual(report.floor * (1 - 1e-6) - 1e-15);
    // The Frobenius change equals the clipped eigenvalue distance (Higham 1988).
    let diff = 0;
    for (let x = 0; x < n * n; x++) diff += (matrix[x]! - a[x]!) ** 2;
    expect(Math.sqrt(diff)).toBeCloseTo(report.frobeniusChange, 10);
  });

  it("leaves a positive definite matrix unchanged and says so", () => {
    const a = Float64Array.of(0.04, 0.01, 0.01, 0.09);
    const { matrix, report } = repairPsd(a, 2, { matrix: "factor_covariance" });
    expect(report.clippedCount).toBe(0);
    expect(report.frobeniusChange).toBe(0);
    expect(report.matrix).toBe("factor_covariance");
    expect(matrix).toEqual(a);
    expect(matrix).not.toBe(a);
  });

  it("honours an absolute floor", () => {
    const { matrix, report } = repairPsd(Float64Array.of(1, 0, 0, 0), 2, { absoluteFloor: 0.01 });
    expect(report.clippedCount).toBe(1);
    expect(report.floor).toBe(0.01);
    expect(matrix[3]).toBeCloseTo(0.01, 15);
  });

  it("does not mutate its input", () => {
    const a = Float64Array.of(1, 2, 2, 1);
    repairPsd(a, 2);
    expect(Array.from(a)).toEqual([1, 2, 2, 1]);
  });

  it("rejects NaN with NonFiniteError and bad shapes or floors with RangeError", () => {
    expect(() => repairPsd(Float64Array.of(1, Number.NaN, Number.NaN, 1), 2)).toThrow(NonFiniteError);
    expect(() => repairPsd(Float64Array.of(1, 0, 0), 2)).toThrow(RangeError);
    expect(() => repairPsd(Float64Array.of(1, 0, 0, 1), 2, { relativeFloor: -1 })).toThrow(
      /floors must be finite and >= 0/,
    );
  });

  it("returns an empty report for an empty matrix", () => {
    expect(repairPsd(new Float64Array(0), 0).report.clippedCount).toBe(0);
  });
});
