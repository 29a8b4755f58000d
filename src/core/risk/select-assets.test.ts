import { describe, expect, it } from "vitest";
import { DataError } from "../errors.js";
import { riskModelCovariance } from "./dense-covariance.js";
import { selectRiskModelAssets } from "./select-assets.js";
import type { FactorModel } from "./types.js";

const base: FactorModel = {
  assets: ["A:XNYS", "B:XNYS", "C:XNAS"],
  factors: ["market", "value"],
  exposures: Float64Array.of(1, 0.5, 1, -0.5, 1, 0),
  factorCovariance: Float64Array.of(0.04, 0.01, 0.01, 0.09),
  specificVariance: Float64Array.of(0.01, 0.02, 0.03),
  annualization: 1,
  diagnostics: {
    model: "vendor",
    periods: 0,
    psdRepair: {
      matrix: "factor_covariance",
      size: 2,
      minEigenvalueBefore: 0.038,
      maxEigenvalue: 0.092,
      clippedCount: 0,
      floor: 0,
      frobeniusChange: 0,
    },
    spectralShift: 0,
    notes: [],
  },
};

describe("selectRiskModelAssets", () => {
  it("reorders and subsets rows so the covariance is the matching block of the full one", () => {
    const full = riskModelCovariance(base);
    const sub = selectRiskModelAssets(base, ["C:XNAS", "A:XNYS"]);
    expect(sub.assets).toEqual(["C:XNAS", "A:XNYS"]);
    expect(Array.from(sub.exposures)).toEqual([1, 0, 1, 0.5]);
    expect(Array.from(sub.specificVariance)).toEqual([0.03, 0.01]);
    const s = riskModelCovariance(sub);
    expect(s[0]).toBeCloseTo(full[2 * 3 + 2]!, 15);
    expect(s[1]).toBeCloseTo(full[2 * 3 + 0]!, 15);
    expect(s[3]).toBeCloseTo(full[0]!, 15);
    expect(Array.from(base.specificVariance)).toEqual([0.01, 0.02, 0.03]);
  });

  it("names uncovered assets in a DataError with code risk_model_coverage", () => {
    const err = (() => {
      try {
        selectRiskModelAssets(base, ["A:XNYS", "ZZZ:XNYS", "YYY:XNAS"]);
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(err).toBeInstanceOf(DataError);
    expect((err as DataError).code).toBe("risk_model_coverage");
    expect((err as DataError).message).toMatch(/does not cover 2 requested asset\(s\): ZZZ:XNYS, YYY:XNAS/);
  });

  it("rejects duplicates in the requested list", () => {
    expect(() => selectRiskModelAssets(base, ["A:XNYS", "A:XNYS"])).toThrow(/duplicate asset A:XNYS/);
  });
});
