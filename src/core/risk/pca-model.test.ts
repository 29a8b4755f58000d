import { describe, expect, it } from "vitest";
import { DataError, NonFiniteError } from "../errors.js";
import { symmetricEigen } from "../numeric/eigen.js";
import { riskModelCovariance } from "./dense-covariance.js";
import { buildPcaRiskModel } from "./pca-model.js";
import { portfolioVariance } from "./portfolio-risk.js";

/** Seeded standard normal generator (mulberry32 + Box-Muller). */
function normals(seed: number): () => number {
  let s = seed >>> 0;
  const uniform = () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (((t ^ (t >>> 14)) >>> 0) + 0.5) / 4294967296;
  };
  return () => Math.sqrt(-2 * Math.log(uniform())) * Math.cos(2 * Math.PI * uniform());
}

interface Planted {
  n: number;
  T: number;
  B: Float64Array; // n x 3 true exposures
  factorVol: number[];
  specificVol: Float64Array;
  returns: Float64Array;
  assets: string[];
}

/** Daily returns from a planted 3-factor model: r_t = B f_t + e_t, f ~ N(0, diag(vol^2)), e ~ N(0, diag(s^2)). */
function plant(n: number, T: number, seed: number, specificVol?: (i: number) => number): Planted {
  const z = normals(seed);
  const k = 3;
  const B = new Float64Array(n * k);
  for (let i = 0; i < n; i++) {
    B[i * k] = 1 + 0.3 * z();
    B[i * k + 1] = z();
    B[i * k + 2] = z();
  }
  const factorVol = [0.01, 0.006, 0.004];
  const sv = Float64Array.from({ length: n }, (_, i) =>
    specificVol ? specificVol(i) : 0.01 + (0.01 * ((i * 7) % 10)) / 10,
  );
  const returns = new Float64Array(T * n);
  for (let t = 0; t < T; t++) {
    const f = factorVol.map((v) => v * z());
    for (let i = 0; i < n; i++) {
      let r = 0.0003;
      for (let j = 0; j < k; j++) r += B[i * k + j]! * f[j]!;
      returns[t * n + i] = r + sv[i]! * z();
    }
  }
  return {
    n,
    T,
    B,
    factorVol,
    specificVol: sv,
    returns,
    assets: Array.from({ length: n }, (_, i) => `S${i}:XNYS`),
  };
}

/** Sample covariance (divisor T - 1) of complete data, computed directly. */
function sampleCovariance(returns: Float64Array, T: number, n: number): Float64Array {
  const mean = new Float64Array(n);
  for (let t = 0; t < T; t++) for (let i = 0; i < n; i++) mean[i]! += returns[t * n + i]! / T;
  const C = new Float64Array(n * n);
  for (let t = 0; t < T; t++)
    for (let i = 0; i < n; i++) {
      const a = returns[t * n + i]! - mean[i]!;
      for (let j = 0; j < n; j++) C[i * n + j]! += (a * (returns[t * n + j]! - mean[j]!)) / (T - 1);
    }
  return C;
}

describe("buildPcaRiskModel", () => {
  it("recovers a planted 3-factor structure: top eigenvalues, factor span and specific variances", () => {
    const p = plant(80, 1500, 1);
    const model = buildPcaRiskModel(
      { assets: p.assets, returns: p.returns },
      { numFactors: 3, specificShrinkage: 0 },
    );
    expect(model.factors).toEqual(["pc1", "pc2", "pc3"]);
    expect(model.annualization).toBe(252);
    // Population covariance B diag(vol^2) B' + diag(s^2): its top 3 eigenvalues vs the model's (daily).
    const n = p.n;
    const pop = new Float64Array(n * n);
    for (let i = 0; i < n; i++)
      for (let j = 0; j < n; j++) {
        let s = i === j ? p.specificVol[i]! ** 2 : 0;
        for (let f = 0; f < 3; f++) s += p.B[i * 3 + f]! * p.factorVol[f]! ** 2 * p.B[j * 3 + f]!;
        pop[i * n + j] = s;
      }
    const truth = symmetricEigen({ rows: n, cols: n, data: pop }, { count: 4, vectors: false }).values;
    for (let j = 0; j < 3; j++) {
      // Sampling error of an eigenvalue is about sqrt(2 / T) = 3.7% here.
      expect(model.factorCovariance[j * 3 + j]! / 252 / truth[j]!).toBeGreaterThan(0.88);
      expect(model.factorCovariance[j * 3 + j]! / 252 / truth[j]!).toBeLessThan(1.12);
    }
    // The model's factor space spans the planted exposures: projection of each B column on span(X) keeps > 98%.
    const X = model.exposures; // orthonormal columns (complete data)
    for (let f = 0; f < 3; f++) {
      let norm2 = 0;
      let kept = 0;
      for (let i = 0; i < n; i++) norm2 += p.B[i * 3 + f]! ** 2;
      for (let j = 0; j < 3; j++) {
        let dot = 0;
        for (let i = 0; i < n; i++) dot += X[i * 3 + j]! * p.B[i * 3 + f]!;
        kept += dot * dot;
      }
      expect(kept / norm2).toBeGreaterThan(0.98);
    }
    // Specific variances within 10% on average of the planted ones.
    let rel = 0;
    for (let i = 0; i < n; i++)
      rel += Math.abs(model.specificVariance[i]! / 252 / p.specificVol[i]! ** 2 - 1);
    expect(rel / n).toBeLessThan(0.1);
    // The first component is the market: positive loadings on average.
    let sum = 0;
    for (let i = 0; i < n; i++) sum += X[i * 3]!;
    expect(sum).toBeGreaterThan(0);
  });

  it("matches the eigenvalues of the sample covariance when there are fewer periods than assets (Gram path)", () => {
    const p = plant(150, 60, 2);
    const model = buildPcaRiskModel(
      { assets: p.assets, returns: p.returns },
      { numFactors: 4, minObservations: 10 },
    );
    const C = sampleCovariance(p.returns, p.T, p.n);
    const eig = symmetricEigen({ rows: p.n, cols: p.n, data: C }, { count: 4 });
    for (let j = 0; j < 4; j++)
      expect(model.factorCovariance[j * 4 + j]! / 252).toBeCloseTo(eig.values[j]!, 14);
    // Loadings equal the covariance eigenvectors up to sign.
    for (let j = 0; j < 4; j++) {
      let dot = 0;
      for (let i = 0; i < p.n; i++) dot += model.exposures[i * 4 + j]! * eig.vectors![i * 4 + j]!;
      expect(Math.abs(dot)).toBeCloseTo(1, 10);
    }
    let trace = 0;
    for (let i = 0; i < p.n; i++) trace += C[i * p.n + i]!;
    const top = eig.values.reduce((s, x) => s + x, 0);
    expect(model.diagnostics.explainedVariance).toBeCloseTo(top / trace, 12);
  });

  it("reproduces each asset's sample variance exactly without shrinkage (complete data)", () => {
    const p = plant(30, 200, 3);
    const model = buildPcaRiskModel(
      { assets: p.assets, returns: p.returns },
      { numFactors: 3, specificShrinkage: 0 },
    );
    const C = sampleCovariance(p.returns, p.T, p.n);
    const dense = riskModelCovariance(model);
    for (let i = 0; i < p.n; i++) expect(dense[i * p.n + i]! / 252).toBeCloseTo(C[i * p.n + i]!, 15);
  });

  it("shrinks specific variances hard when they are truly equal and barely when they truly differ", () => {
    const equal = plant(100, 250, 4, () => 0.015);
    const spread = plant(100, 250, 4, (i) => 0.005 + 0.0005 * i);
    const mEqual = buildPcaRiskModel({ assets: equal.assets, returns: equal.returns }, { numFactors: 3 });
    const mSpread = buildPcaRiskModel({ assets: spread.assets, returns: spread.returns }, { numFactors: 3 });
    expect(mEqual.diagnostics.specificShrinkage!).toBeGreaterThan(0.5);
    expect(mSpread.diagnostics.specificShrinkage!).toBeLessThan(0.05);
    // Shrinkage is toward the mean: the mean specific variance is unchanged.
    const raw = buildPcaRiskModel(
      { assets: equal.assets, returns: equal.returns },
      { numFactors: 3, specificShrinkage: 0 },
    );
    const mean = (v: Float64Array) => v.reduce((s, x) => s + x, 0) / v.length;
    expect(mean(mEqual.specificVariance)).toBeCloseTo(mean(raw.specificVariance), 12);
  });

  it("handles missing returns: demeaned zero fill, regression exposures, reported missing share", () => {
    const p = plant(60, 600, 5);
    const full = buildPcaRiskModel({ assets: p.assets, returns: p.returns }, { numFactors: 3 });
    const gappy = Float64Array.from(p.returns);
    // Asset 0 misses its first 200 periods (a late listing); asset 1 misses every 5th period.
    for (let t = 0; t < 200; t++) gappy[t * p.n] = Number.NaN;
    for (let t = 0; t < p.T; t += 5) gappy[t * p.n + 1] = Number.NaN;
    const model = buildPcaRiskModel({ assets: p.assets, returns: gappy }, { numFactors: 3 });
    expect(model.diagnostics.missingFraction).toBeCloseTo((200 + 120) / (600 * 60), 15);
    expect(model.diagnostics.notes.some((s) => s.includes("2 asset(s) with missing returns"))).toBe(true);
    // The market exposure of the gappy assets stays close to the complete-data one (not shrunk by 1/3).
    for (const i of [0, 1]) expect(model.exposures[i * 3]! / full.exposures[i * 3]!).toBeGreaterThan(0.9);
    for (const i of [0, 1]) expect(model.exposures[i * 3]! / full.exposures[i * 3]!).toBeLessThan(1.1);
    for (const v of model.specificVariance) expect(Number.isFinite(v) && v > 0).toBe(true);
  });

  it("computes portfolio variance through the factor form equal to the dense model", () => {
    const p = plant(40, 300, 6);
    const model = buildPcaRiskModel({ assets: p.assets, returns: p.returns }, { numFactors: 5 });
    const dense = riskModelCovariance(model);
    const w = Float64Array.from({ length: p.n }, (_, i) => ((i % 5) + 1) / 120);
    let v = 0;
    for (let i = 0; i < p.n; i++) for (let j = 0; j < p.n; j++) v += w[i]! * dense[i * p.n + j]! * w[j]!;
    expect(portfolioVariance(model, w)).toBeCloseTo(v, 15);
  });

  it("annualizes by the periods per year of the stated frequency", () => {
    const p = plant(20, 100, 7);
    const daily = buildPcaRiskModel({ assets: p.assets, returns: p.returns }, { numFactors: 2 });
    const monthly = buildPcaRiskModel(
      { assets: p.assets, returns: p.returns },
      { numFactors: 2, frequency: "monthly" },
    );
    expect(monthly.annualization).toBe(12);
    expect(daily.factorCovariance[0]! / monthly.factorCovariance[0]!).toBeCloseTo(21, 12);
    expect(daily.specificVariance[3]! / monthly.specificVariance[3]!).toBeCloseTo(21, 12);
  });

  it("defaults to 10 factors, fewer (with a note) when the history is short", () => {
    const p = plant(30, 300, 8);
    expect(buildPcaRiskModel({ assets: p.assets, returns: p.returns }).factors).toHaveLength(10);
    const short = plant(30, 8, 8);
    const m = buildPcaRiskModel({ assets: short.assets, returns: short.returns }, { minObservations: 2 });
    expect(m.factors).toHaveLength(6);
    expect(m.diagnostics.notes[0]).toMatch(/Using 6 factors instead of 10: min\(n, T - 2\) = 6/);
  });

  it("does not mutate the returns", () => {
    const p = plant(10, 40, 9);
    p.returns[3] = Number.NaN;
    const copy = Float64Array.from(p.returns);
    buildPcaRiskModel({ assets: p.assets, returns: p.returns }, { numFactors: 2 });
    expect(p.returns).toEqual(copy);
  });

  it("rejects infinite returns, too-short assets and impossible factor counts", () => {
    const p = plant(10, 40, 10);
    const inf = Float64Array.from(p.returns);
    inf[5] = Number.POSITIVE_INFINITY;
    expect(() => buildPcaRiskModel({ assets: p.assets, returns: inf })).toThrow(NonFiniteError);
    expect(() => buildPcaRiskModel({ assets: p.assets, returns: inf })).toThrow(
      /period 0, S5:XNYS is Infinity/,
    );
    const sparse = Float64Array.from(p.returns);
    for (let t = 0; t < 30; t++) sparse[t * 10 + 4] = Number.NaN;
    expect(() => buildPcaRiskModel({ assets: p.assets, returns: sparse }, { numFactors: 2 })).toThrow(
      DataError,
    );
    expect(() => buildPcaRiskModel({ assets: p.assets, returns: sparse }, { numFactors: 2 })).toThrow(
      /fewer than 20 observed returns: S4:XNYS \(10\)/,
    );
    expect(() => buildPcaRiskModel({ assets: p.assets, returns: p.returns }, { numFactors: 11 })).toThrow(
      /numFactors must be an integer in \[1, min\(n, T - 2\) = 10\]/,
    );
    expect(() => buildPcaRiskModel({ assets: p.assets, returns: p.returns.subarray(0, 15) })).toThrow(
      /not a multiple of 10 assets/,
    );
  });
});
