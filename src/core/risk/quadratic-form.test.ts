import { describe, expect, it } from "vitest";
import { riskModelCovariance } from "./dense-covariance.js";
import { toQuadraticForm } from "./quadratic-form.js";
import type { FactorModel } from "./types.js";

function model(F: number[], X: number[], D: number[]): FactorModel {
  const k = Math.round(Math.sqrt(F.length));
  const n = D.length;
  return {
    assets: Array.from({ length: n }, (_, i) => `S${i}:XNYS`),
    factors: Array.from({ length: k }, (_, j) => `f${j}`),
    exposures: Float64Array.from(X),
    factorCovariance: Float64Array.from(F),
    specificVariance: Float64Array.from(D),
    annualization: 1,
    diagnostics: {
      model: "custom",
      periods: 0,
      psdRepair: {
        matrix: "factor_covariance",
        size: k,
        minEigenvalueBefore: 0,
        maxEigenvalue: 0,
        clippedCount: 0,
        floor: 0,
        frobeniusChange: 0,
      },
      spectralShift: 0,
      notes: [],
    },
  };
}

/** diag(d) + V diag(s) V' as a dense n x n matrix. */
function dense(p: ReturnType<typeof toQuadraticForm>): Float64Array {
  const n = p.diagonal.length;
  const k = p.factors!.cols;
  const V = p.factors!.data;
  const S = p.factorScales!;
  const out = new Float64Array(n * n);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) {
      let s = i === j ? p.diagonal[i]! : 0;
      for (let c = 0; c < k; c++) s += V[i * k + c]! * S[c]! * V[j * k + c]!;
      out[i * n + j] = s;
    }
  }
  return out;
}

describe("toQuadraticForm", () => {
  const m = model([0.04, 0.01, 0.01, 0.09], [1, 0.5, 1, -0.5, 1, 0, 0.8, 0.2], [0.01, 0.02, 0.03, 0.04]);

  it("reproduces scale * Sigma as diag(d) + V diag(s) V'", () => {
    const sigma = riskModelCovariance(m);
    const p = toQuadraticForm(m, { scale: 2 * 1.5 });
    expect(p.diagonal.length).toBe(4);
    expect(p.factors!.cols).toBe(2);
    const P = dense(p);
    for (let x = 0; x < 16; x++) expect(P[x]).toBeCloseTo(3 * sigma[x]!, 14);
    expect(Array.from(p.factorScales!)).toEqual([3, 3]);
    expect(p.diagonal[0]).toBeCloseTo(0.03, 15);
  });

  it("uses V = X L with L L' = F, independent of the scale", () => {
    const a = toQuadraticForm(m, { scale: 1 });
    const b = toQuadraticForm(m, { scale: 10 });
    expect(b.factors!.data).toEqual(a.factors!.data);
    // V V' = X F X' at scale 1.
    const sigma = riskModelCovariance(m);
    const P = dense(a);
    for (let i = 0; i < 4; i++)
      for (let j = 0; j < 4; j++) if (i !== j) expect(P[i * 4 + j]).toBeCloseTo(sigma[i * 4 + j]!, 15);
  });

  it("accepts a singular factor covariance and drops its null direction", () => {
    // F = [[1, 1], [1, 1]] has eigenvalues 2 and 0: one column of V is enough.
    const singular = model([1, 1, 1, 1], [1, 0, 0, 1], [0.1, 0.1]);
    const p = toQuadraticForm(singular);
    expect(p.factors!.cols).toBe(1);
    const P = dense(p);
    // Sigma = X F X' + D = [[1.1, 1], [1, 1.1]].
    expect(Array.from(P).map((x) => Number(x.toFixed(12)))).toEqual([1.1, 1, 1, 1.1]);
  });

  it("refuses an indefinite factor covariance", () => {
    const bad = model([1, 2, 2, 1], [1, 0, 0, 1], [0.1, 0.1]);
    expect(() => toQuadraticForm(bad)).toThrow(/eigenvalue -0.99.* < 0; repair it with repairPsd/);
  });

  it("rejects a negative or non-finite scale", () => {
    expect(() => toQuadraticForm(m, { scale: -1 })).toThrow(/scale must be finite and >= 0/);
    expect(() => toQuadraticForm(m, { scale: Number.NaN })).toThrow(RangeError);
  });
});
