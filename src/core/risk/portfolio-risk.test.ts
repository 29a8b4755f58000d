import { describe, expect, it } from "vitest";
import { NonFiniteError, ValidationError } from "../errors.js";
import { riskModelCovariance } from "./dense-covariance.js";
import { activeRisk, factorExposures, portfolioVariance, riskModelTimesVector } from "./portfolio-risk.js";
import type { FactorModel } from "./types.js";
import { validateFactorModel } from "./validate-factor-model.js";

/** X = [[1, 0.5], [1, -0.5], [1, 0]], F = [[0.04, 0.01], [0.01, 0.09]], D = [0.01, 0.02, 0.03]. */
function smallModel(): FactorModel {
  return {
    assets: ["A:XNYS", "B:XNYS", "C:XNAS"],
    factors: ["market", "value"],
    exposures: Float64Array.of(1, 0.5, 1, -0.5, 1, 0),
    factorCovariance: Float64Array.of(0.04, 0.01, 0.01, 0.09),
    specificVariance: Float64Array.of(0.01, 0.02, 0.03),
    annualization: 1,
    diagnostics: {
      model: "custom",
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
}

describe("portfolio risk under a factor model", () => {
  it("computes the dense covariance X F X' + D by hand on a 3-asset model", () => {
    const sigma = riskModelCovariance(smallModel());
    // Sigma_00 = [1, .5] F [1, .5]' + D_0 = 0.04 + 2(.5)(.01) + .25(.09) + .01 = 0.0825
    expect(sigma[0]).toBeCloseTo(0.0825, 15);
    // Sigma_01 = [1, .5] F [1, -.5]' = 0.04 - .005 + .005 - .0225 = 0.0175
    expect(sigma[1]).toBeCloseTo(0.0175, 15);
    expect(sigma[3]).toBeCloseTo(0.0175, 15);
    // Sigma_22 = 0.04 + 0.03 = 0.07
    expect(sigma[8]).toBeCloseTo(0.07, 15);
  });

  it("computes w'Sigma w through the factor form (hand-computed)", () => {
    // w = (.5, .3, .2): X'w = (1, .1); g'Fg = .04 + 2(.01)(.1) + .09(.01) = .0429;
    // specific = .25(.01) + .09(.02) + .04(.03) = .0055; total .0484 (volatility 22%).
    const w = Float64Array.of(0.5, 0.3, 0.2);
    expect(portfolioVariance(smallModel(), w)).toBeCloseTo(0.0484, 15);
    const g = factorExposures(smallModel(), w);
    expect(g[0]).toBeCloseTo(1, 15);
    expect(g[1]).toBeCloseTo(0.1, 15);
  });

  it("matches the dense quadratic form and matrix-vector product on a random model", () => {
    let s = 12345;
    const r = () => {
      s = (s * 1103515245 + 12345) % 2147483648;
      return s / 2147483648;
    };
    const n = 25;
    const k = 4;
    const base = smallModel();
    const model: FactorModel = {
      ...base,
      assets: Array.from({ length: n }, (_, i) => `S${i}:XNYS`),
      factors: ["f1", "f2", "f3", "f4"],
      exposures: Float64Array.from({ length: n * k }, () => r() - 0.5),
      // F = L L' with L lower triangular random: PSD.
      factorCovariance: (() => {
        const L = Array.from({ length: k * k }, (_, x) => (x % k <= Math.floor(x / k) ? r() * 0.2 : 0));
        const F = new Float64Array(k * k);
        for (let a = 0; a < k; a++)
          for (let b = 0; b < k; b++)
            for (let c = 0; c < k; c++) F[a * k + b]! += L[a * k + c]! * L[b * k + c]!;
        return F;
      })(),
      specificVariance: Float64Array.from({ length: n }, () => 0.01 + 0.05 * r()),
    };
    const sigma = riskModelCovariance(model);
    const w = Float64Array.from({ length: n }, () => r() - 0.3);
    const b = Float64Array.from({ length: n }, () => 1 / n);
    const sw = new Float64Array(n);
    for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) sw[i]! += sigma[i * n + j]! * w[j]!;
    const y = riskModelTimesVector(model, w);
    for (let i = 0; i < n; i++) expect(y[i]).toBeCloseTo(sw[i]!, 13);
    let dense = 0;
    for (let i = 0; i < n; i++) dense += w[i]! * sw[i]!;
    expect(portfolioVariance(model, w)).toBeCloseTo(dense, 13);
    const d = w.map((x, i) => x - b[i]!);
    let te = 0;
    for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) te += d[i]! * sigma[i * n + j]! * d[j]!;
    expect(activeRisk(model, w, b)).toBeCloseTo(Math.sqrt(te), 13);
  });

  it("gives zero active risk when the portfolio equals the benchmark", () => {
    const w = Float64Array.of(0.2, 0.3, 0.5);
    expect(activeRisk(smallModel(), w, w)).toBe(0);
  });

  it("writes into a caller's output buffer and leaves its inputs alone", () => {
    const model = smallModel();
    const before = structuredClone(model);
    const w = Float64Array.of(0.5, 0.3, 0.2);
    const out = new Float64Array(3);
    const y = riskModelTimesVector(model, w, out);
    expect(y).toBe(out);
    portfolioVariance(model, w);
    activeRisk(model, w, Float64Array.of(1 / 3, 1 / 3, 1 / 3));
    expect(model).toEqual(before);
    expect(Array.from(w)).toEqual([0.5, 0.3, 0.2]);
    expect(() => riskModelTimesVector(model, w, w)).toThrow(/must not alias/);
  });

  it("rejects NaN weights with NonFiniteError naming the asset, and wrong lengths with RangeError", () => {
    expect(() => portfolioVariance(smallModel(), Float64Array.of(0.5, Number.NaN, 0.5))).toThrow(
      NonFiniteError,
    );
    expect(() => portfolioVariance(smallModel(), Float64Array.of(0.5, Number.NaN, 0.5))).toThrow(
      /weights\[1\] \(B:XNYS\) is NaN/,
    );
    expect(() => activeRisk(smallModel(), Float64Array.of(1, 0, 0), Float64Array.of(1, 0))).toThrow(
      /activeRisk: benchmark has length 2, the model has 3 assets/,
    );
    expect(() => factorExposures(smallModel(), Float64Array.of(1, 0))).toThrow(RangeError);
  });
});

describe("validateFactorModel", () => {
  it("accepts a well-formed model", () => {
    expect(() => validateFactorModel(smallModel())).not.toThrow();
  });

  it("names the problem: lengths, NaN, negative specific variance, asymmetric F, duplicates", () => {
    expect(() => validateFactorModel({ ...smallModel(), specificVariance: Float64Array.of(1, 2) })).toThrow(
      /specificVariance has length 2, expected 3/,
    );
    expect(() =>
      validateFactorModel({ ...smallModel(), exposures: Float64Array.of(1, 0.5, 1, Number.NaN, 1, 0) }),
    ).toThrow(/exposures at B:XNYS \/ value is NaN/);
    expect(() =>
      validateFactorModel({ ...smallModel(), specificVariance: Float64Array.of(0.01, -0.02, 0.03) }),
    ).toThrow(ValidationError);
    expect(() =>
      validateFactorModel({ ...smallModel(), factorCovariance: Float64Array.of(0.04, 0.01, 0.02, 0.09) }),
    ).toThrow(/not symmetric at \(value, market\)/);
    expect(() => validateFactorModel({ ...smallModel(), assets: ["A:XNYS", "A:XNYS", "C:XNAS"] })).toThrow(
      /duplicate asset A:XNYS/,
    );
  });
});
