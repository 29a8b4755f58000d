import { describe, expect, it } from "vitest";
import { type CrossSection, crossSectionalRegression } from "./cross-sectional-regression.js";

function uniforms(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A cross-section of m assets over S industries and c styles with returns from `truth` plus noise. */
function crossSection(
  m: number,
  S: number,
  c: number,
  truth: Float64Array,
  noise: number,
  seed: number,
): CrossSection {
  const r = uniforms(seed);
  const industry = Int32Array.from({ length: m }, (_, i) => i % S);
  const cap = Float64Array.from({ length: m }, () => 1 + 99 * r());
  const styles = Float64Array.from({ length: m * c }, () => 2 * r() - 1);
  const W = new Float64Array(S);
  let total = 0;
  for (let i = 0; i < m; i++) {
    W[industry[i]!]! += cap[i]!;
    total += cap[i]!;
  }
  for (let s = 0; s < S; s++) W[s]! /= total;
  const returns = new Float64Array(m);
  for (let i = 0; i < m; i++) {
    let x = truth[0]! + truth[1 + industry[i]!]!;
    for (let a = 0; a < c; a++) x += styles[i * c + a]! * truth[1 + S + a]!;
    returns[i] = x + noise * (r() - 0.5);
  }
  return {
    returns,
    weights: cap.map(Math.sqrt),
    industry,
    industryCount: S,
    styles,
    styleCount: c,
    constraintWeights: W,
  };
}

/** Factor returns whose industry part satisfies sum_s W_s f_s = 0 for the given weights. */
function constrained(raw: number[], S: number, W: Float64Array): Float64Array {
  const f = Float64Array.from(raw);
  let mean = 0;
  for (let s = 0; s < S; s++) mean += W[s]! * f[1 + s]!;
  for (let s = 0; s < S; s++) f[1 + s]! -= mean;
  return f;
}

describe("crossSectionalRegression", () => {
  it("recovers known factor returns exactly from noise-free returns", () => {
    const S = 3;
    const probe = crossSection(60, S, 2, new Float64Array(6), 0, 1);
    const truth = constrained([0.01, 0.004, -0.002, 0.003, 0.0015, -0.0008], S, probe.constraintWeights);
    const cs = crossSection(60, S, 2, truth, 0, 1);
    const fit = crossSectionalRegression(cs);
    for (let j = 0; j < 6; j++) expect(fit.factorReturns[j]).toBeCloseTo(truth[j]!, 14);
    for (const e of fit.residuals) expect(Math.abs(e)).toBeLessThan(1e-15);
    expect(fit.rSquared).toBeCloseTo(1, 12);
    expect(fit.singular).toBe(false);
  });

  it("satisfies the constraint and the weighted normal equations with noise", () => {
    const S = 4;
    const c = 3;
    const cs = crossSection(
      200,
      S,
      c,
      Float64Array.of(0.01, 0.01, -0.01, 0.005, 0, 0.002, -0.001, 0.003),
      0.02,
      2,
    );
    const fit = crossSectionalRegression(cs);
    const f = fit.factorReturns;
    let constraint = 0;
    for (let s = 0; s < S; s++) constraint += cs.constraintWeights[s]! * f[1 + s]!;
    expect(constraint).toBeCloseTo(0, 15);
    // Orthogonality of weighted residuals to the market and style columns.
    let market = 0;
    const style = new Float64Array(c);
    const byIndustry = new Float64Array(S);
    for (let i = 0; i < 200; i++) {
      const ve = cs.weights[i]! * fit.residuals[i]!;
      market += ve;
      for (let a = 0; a < c; a++) style[a]! += ve * cs.styles[i * c + a]!;
      byIndustry[cs.industry[i]!]! += ve;
    }
    expect(market).toBeCloseTo(0, 12);
    for (const v of style) expect(v).toBeCloseTo(0, 12);
    // Lagrange condition of the constrained problem: X_s' V e is proportional to W_s, and with the market
    // column orthogonal the multiplier is 0, so each industry's weighted residual sum vanishes.
    for (const v of byIndustry) expect(v).toBeCloseTo(0, 12);
  });

  it("fits the same residuals as dropping one industry (independent parametrization)", () => {
    const S = 3;
    const c = 2;
    const m = 90;
    const cs = crossSection(m, S, c, Float64Array.of(0.02, 0.01, -0.005, 0, 0.004, 0.001), 0.03, 3);
    const fit = crossSectionalRegression(cs);
    // Design [1, D_1, D_2, styles] (industry 0 dropped), weighted normal equations by Gauss-Jordan.
    const p = 1 + (S - 1) + c;
    const A = Array.from({ length: p }, () => new Array<number>(p + 1).fill(0));
    const row = (i: number) => [
      1,
      ...Array.from({ length: S - 1 }, (_, s) => (cs.industry[i] === s + 1 ? 1 : 0)),
      ...Array.from({ length: c }, (_, a) => cs.styles[i * c + a]!),
    ];
    for (let i = 0; i < m; i++) {
      const x = row(i);
      for (let a = 0; a < p; a++) {
        for (let b = 0; b < p; b++) A[a]![b]! += cs.weights[i]! * x[a]! * x[b]!;
        A[a]![p]! += cs.weights[i]! * x[a]! * cs.returns[i]!;
      }
    }
    for (let col = 0; col < p; col++) {
      const piv = A[col]![col]!;
      for (let b = col; b <= p; b++) A[col]![b]! /= piv;
      for (let a = 0; a < p; a++) {
        if (a === col) continue;
        const f = A[a]![col]!;
        for (let b = col; b <= p; b++) A[a]![b]! -= f * A[col]![b]!;
      }
    }
    const beta = A.map((r) => r[p]!);
    for (let i = 0; i < m; i++) {
      const x = row(i);
      const e = cs.returns[i]! - x.reduce((s, v, a) => s + v * beta[a]!, 0);
      expect(fit.residuals[i]).toBeCloseTo(e, 14);
    }
  });

  it("gives an industry with no member a zero return and handles assets without an industry", () => {
    const S = 3;
    const cs = crossSection(30, S, 1, Float64Array.of(0.01, 0.002, -0.002, 0, 0.001), 0.001, 4);
    // Industry 2 absent this period: its members move to "no industry".
    for (let i = 0; i < 30; i++) if (cs.industry[i] === 2) cs.industry[i] = -1;
    const W = new Float64Array(S);
    let total = 0;
    for (let i = 0; i < 30; i++) {
      const cap = cs.weights[i]! ** 2;
      total += cap;
      if (cs.industry[i]! >= 0) W[cs.industry[i]!]! += cap;
    }
    for (let s = 0; s < S; s++) W[s]! /= total;
    const fit = crossSectionalRegression({ ...cs, constraintWeights: W });
    expect(fit.factorReturns[3]).toBe(0);
    expect(W[0]! * fit.factorReturns[1]! + W[1]! * fit.factorReturns[2]!).toBeCloseTo(0, 15);
    expect(Number.isFinite(fit.rSquared)).toBe(true);
  });

  it("falls back to the minimum-norm solution for a rank-deficient design", () => {
    const cs = crossSection(40, 2, 2, Float64Array.of(0.01, 0.001, -0.001, 0.002, 0.002), 0.001, 5);
    // Two identical style columns.
    for (let i = 0; i < 40; i++) cs.styles[i * 2 + 1] = cs.styles[i * 2]!;
    const fit = crossSectionalRegression(cs);
    expect(fit.singular).toBe(true);
    expect(fit.factorReturns[3]).toBeCloseTo(fit.factorReturns[4]!, 14);
    for (const v of fit.factorReturns) expect(Number.isFinite(v)).toBe(true);
  });

  it("checks the lengths", () => {
    const cs = crossSection(10, 2, 1, new Float64Array(4), 0, 6);
    expect(() => crossSectionalRegression({ ...cs, weights: new Float64Array(9) })).toThrow(
      /inconsistent lengths/,
    );
  });
});
