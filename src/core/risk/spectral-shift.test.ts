import { describe, expect, it } from "vitest";
import { symmetricEigen } from "../numeric/eigen.js";
import { riskModelCovariance } from "./dense-covariance.js";
import { applySpectralShift } from "./spectral-shift.js";
import type { FactorModel } from "./types.js";

const base: FactorModel = {
  assets: ["A:XNYS", "B:XNYS", "C:XNAS"],
  factors: ["market"],
  exposures: Float64Array.of(1, 1.2, 0.8),
  factorCovariance: Float64Array.of(0.04),
  specificVariance: Float64Array.of(0.01, 0, 0.02),
  annualization: 1,
  diagnostics: {
    model: "custom",
    periods: 0,
    psdRepair: {
      matrix: "factor_covariance",
      size: 1,
      minEigenvalueBefore: 0.04,
      maxEigenvalue: 0.04,
      clippedCount: 0,
      floor: 4e-12,
      frobeniusChange: 0,
    },
    spectralShift: 0,
    notes: [],
  },
};

describe("applySpectralShift", () => {
  it("adds the shift to every specific variance (Sigma + shift I)", () => {
    const shifted = applySpectralShift(base, 0.0001);
    expect(Array.from(shifted.specificVariance)).toEqual([0.0101, 0.0001, 0.0201]);
    expect(shifted.diagnostics.spectralShift).toBe(0.0001);
    expect(shifted.diagnostics.notes.at(-1)).toMatch(/Spectral shift 0.0001 added/);
  });

  it("moves every eigenvalue of Sigma up by exactly the shift", () => {
    const before = symmetricEigen({ rows: 3, cols: 3, data: riskModelCovariance(base) }, { vectors: false });
    const after = symmetricEigen(
      { rows: 3, cols: 3, data: riskModelCovariance(applySpectralShift(base, 0.005)) },
      { vectors: false },
    );
    for (let j = 0; j < 3; j++) expect(after.values[j]! - before.values[j]!).toBeCloseTo(0.005, 14);
  });

  it("accumulates shifts and leaves the input untouched", () => {
    const twice = applySpectralShift(applySpectralShift(base, 0.001), 0.002);
    expect(twice.diagnostics.spectralShift).toBeCloseTo(0.003, 15);
    expect(twice.specificVariance[1]).toBeCloseTo(0.003, 15);
    expect(Array.from(base.specificVariance)).toEqual([0.01, 0, 0.02]);
    expect(base.diagnostics.notes).toEqual([]);
  });

  it("rejects a negative or non-finite shift", () => {
    expect(() => applySpectralShift(base, -1e-6)).toThrow(/shift must be finite and >= 0, got -0.000001/);
    expect(() => applySpectralShift(base, Number.POSITIVE_INFINITY)).toThrow(RangeError);
  });
});
