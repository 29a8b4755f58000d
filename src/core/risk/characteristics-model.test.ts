import { describe, expect, it } from "vitest";
import { NonFiniteError, ValidationError } from "../errors.js";
import { buildCharacteristicsRiskModel, type CharacteristicsModelInputs } from "./characteristics-model.js";
import { ewCovariance, exponentialWeights } from "./ew-covariance.js";
import { standardizeCharacteristic } from "./standardize.js";

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

const SECTORS = [10, 20, 45, 55];
const NAMES = ["book_to_price", "momentum"];

interface Simulated {
  inputs: CharacteristicsModelInputs;
  /** T x K true factor returns: market, 4 sectors, 2 styles. */
  truth: Float64Array;
  specificVol: Float64Array;
}

/**
 * Returns from a known fundamental model: r_ti = f_market + f_sector(i) + z_ti' f_style + noise, where z are the
 * characteristics standardized exactly as the model does and the sector returns satisfy sum_s W_s f_s = 0.
 */
function simulate(n: number, T: number, noise: number, seed: number, drift = false): Simulated {
  const z = normals(seed);
  const c = NAMES.length;
  const S = SECTORS.length;
  const K = 1 + S + c;
  const marketCap = Float64Array.from({ length: n }, () => 1e9 * Math.exp(1.5 * z()));
  const sectors = Array.from({ length: n }, (_, i) => SECTORS[i % S]!);
  const base = Float64Array.from({ length: n * c }, () => z());
  const slope = Float64Array.from({ length: n * c }, () => (drift ? 0.01 * z() : 0));
  const history = new Float64Array(T * n * c);
  for (let t = 0; t < T; t++)
    for (let x = 0; x < n * c; x++) history[t * n * c + x] = base[x]! + slope[x]! * t;
  const characteristics = Float64Array.from({ length: n * c }, (_, x) => base[x]! + slope[x]! * T);
  const W = new Float64Array(S);
  let total = 0;
  for (let i = 0; i < n; i++) {
    W[i % S]! += marketCap[i]!;
    total += marketCap[i]!;
  }
  for (let s = 0; s < S; s++) W[s]! /= total;
  const specificVol = Float64Array.from({ length: n }, (_, i) => noise * (1 + (i % 5) / 4));
  const truth = new Float64Array(T * K);
  const returns = new Float64Array(T * n);
  const column = new Float64Array(n);
  for (let t = 0; t < T; t++) {
    const f = truth.subarray(t * K, t * K + K);
    f[0] = 0.01 * z();
    let mean = 0;
    for (let s = 0; s < S; s++) {
      f[1 + s] = 0.005 * z();
      mean += W[s]! * f[1 + s]!;
    }
    for (let s = 0; s < S; s++) f[1 + s]! -= mean;
    f[1 + S] = 0.003 * z() + 0.3 * f[0]!;
    f[2 + S] = 0.004 * z();
    const styles = new Float64Array(n * c);
    for (let j = 0; j < c; j++) {
      for (let i = 0; i < n; i++) column[i] = history[(t * n + i) * c + j]!;
      const std = standardizeCharacteristic(column, marketCap).values;
      for (let i = 0; i < n; i++) styles[i * c + j] = std[i]!;
    }
    for (let i = 0; i < n; i++) {
      let r = f[0]! + f[1 + (i % S)]!;
      for (let j = 0; j < c; j++) r += styles[i * c + j]! * f[1 + S + j]!;
      returns[t * n + i] = r + specificVol[i]! * z();
    }
  }
  return {
    inputs: {
      assets: Array.from({ length: n }, (_, i) => `S${i}:XNYS`),
      returns,
      characteristicNames: NAMES,
      characteristics,
      ...(drift ? { characteristicHistory: history } : {}),
      sectors,
      marketCap,
    },
    truth,
    specificVol,
  };
}

describe("buildCharacteristicsRiskModel", () => {
  it("recovers the factor covariance of known factor returns from noise-free data", () => {
    const T = 300;
    const sim = simulate(80, T, 0, 1);
    const model = buildCharacteristicsRiskModel(sim.inputs);
    expect(model.factors).toEqual(["market", "sector:10", "sector:20", "sector:45", "sector:55", ...NAMES]);
    const expected = ewCovariance(sim.truth, T, 7, exponentialWeights(T, 84));
    for (let x = 0; x < 49; x++) expect(model.factorCovariance[x]! / 252).toBeCloseTo(expected[x]!, 13);
    expect(model.diagnostics.averageRSquared).toBeCloseTo(1, 10);
    expect(model.diagnostics.halfLives).toEqual({ factor: 84, specific: 84 });
    expect(model.annualization).toBe(252);
  });

  it("lays out exposures as [market | sector dummies | standardized characteristics]", () => {
    const sim = simulate(40, 60, 0.01, 2);
    const model = buildCharacteristicsRiskModel(sim.inputs);
    const K = 7;
    const bp = standardizeCharacteristic(
      Float64Array.from({ length: 40 }, (_, i) => sim.inputs.characteristics[i * 2]!),
      sim.inputs.marketCap,
    ).values;
    for (let i = 0; i < 40; i++) {
      expect(model.exposures[i * K]).toBe(1);
      for (let s = 0; s < 4; s++) expect(model.exposures[i * K + 1 + s]).toBe(s === i % 4 ? 1 : 0);
      expect(model.exposures[i * K + 5]).toBeCloseTo(bp[i]!, 15);
    }
  });

  it("estimates specific variances from the regression residuals", () => {
    const sim = simulate(200, 400, 0.012, 3);
    const model = buildCharacteristicsRiskModel(sim.inputs);
    let ratio = 0;
    for (let i = 0; i < 200; i++) ratio += model.specificVariance[i]! / 252 / sim.specificVol[i]! ** 2;
    // Residuals lose about K / n = 3.5% of the variance to the fit; the EW estimate has ~9% noise per asset.
    expect(ratio / 200).toBeGreaterThan(0.9);
    expect(ratio / 200).toBeLessThan(1.03);
    // With static caps the industry constraint holds with the same weights every period, so F is singular
    // along them: one eigenvalue at rounding level is clipped, and said so.
    const report = model.diagnostics.psdRepair;
    expect(report.clippedCount).toBe(1);
    expect(Math.abs(report.minEigenvalueBefore)).toBeLessThan(1e-12 * report.maxEigenvalue);
    expect(model.diagnostics.notes.some((s) => s.includes("industry constraint"))).toBe(true);
  });

  it("regresses each period on that period's characteristics when a history is given", () => {
    const T = 200;
    const sim = simulate(60, T, 0, 4, true);
    const model = buildCharacteristicsRiskModel(sim.inputs);
    const expected = ewCovariance(sim.truth, T, 7, exponentialWeights(T, 84));
    for (let x = 0; x < 49; x++) expect(model.factorCovariance[x]! / 252).toBeCloseTo(expected[x]!, 13);
    // Without the history the drifting exposures are misspecified and the fit is no longer exact.
    const { characteristicHistory: _, ...staticInputs } = sim.inputs;
    const stale = buildCharacteristicsRiskModel(staticInputs);
    expect(stale.diagnostics.averageRSquared!).toBeLessThan(0.9999);
  });

  it("handles missing returns and imputes the specific variance of an asset with too little history", () => {
    const sim = simulate(50, 120, 0.01, 5);
    const returns = Float64Array.from(sim.inputs.returns);
    for (let t = 0; t < 115; t++) returns[t * 50 + 7] = Number.NaN; // S7 has 5 returns
    for (let t = 0; t < 120; t += 3) returns[t * 50 + 8] = Number.NaN; // S8 misses a third
    const model = buildCharacteristicsRiskModel({ ...sim.inputs, returns });
    expect(model.diagnostics.imputedSpecificVariance).toEqual(["S7:XNYS"]);
    expect(model.diagnostics.missingFraction).toBeCloseTo((115 + 40) / (120 * 50), 15);
    const others = Array.from(model.specificVariance)
      .filter((_, i) => i !== 7)
      .sort((a, b) => a - b);
    const median = others[24]!; // 49 others: the 25th smallest
    expect(model.specificVariance[7]).toBeCloseTo(median, 15);
    expect(
      model.diagnostics.notes.some((s) => s.includes("imputed (cross-sectional median) for 1 asset(s)")),
    ).toBe(true);
  });

  it("annualizes by the stated frequency and uses the given half-lives", () => {
    const sim = simulate(30, 80, 0.01, 6);
    const daily = buildCharacteristicsRiskModel(sim.inputs, { factorHalfLife: 20, specificHalfLife: 30 });
    const monthly = buildCharacteristicsRiskModel(sim.inputs, {
      frequency: "monthly",
      factorHalfLife: 20,
      specificHalfLife: 30,
    });
    expect(daily.factorCovariance[0]! / monthly.factorCovariance[0]!).toBeCloseTo(21, 12);
    expect(daily.specificVariance[0]! / monthly.specificVariance[0]!).toBeCloseTo(21, 12);
    expect(monthly.diagnostics.halfLives).toEqual({ factor: 20, specific: 30 });
  });

  it("drops sector factors when there is a single sector, with a note", () => {
    const sim = simulate(30, 60, 0.01, 7);
    const model = buildCharacteristicsRiskModel({ ...sim.inputs, sectors: sim.inputs.sectors.map(() => 45) });
    expect(model.factors).toEqual(["market", ...NAMES]);
    expect(model.diagnostics.notes[0]).toMatch(/Only one sector \(45\)/);
  });

  it("does not mutate its inputs", () => {
    const sim = simulate(20, 40, 0.01, 8);
    const copy = structuredClone(sim.inputs);
    buildCharacteristicsRiskModel(sim.inputs);
    expect(sim.inputs).toEqual(copy);
  });

  it("rejects infinite returns, bad market caps, clashing names and wrong lengths", () => {
    const sim = simulate(20, 40, 0.01, 9);
    const inf = Float64Array.from(sim.inputs.returns);
    inf[3] = Number.NEGATIVE_INFINITY;
    expect(() => buildCharacteristicsRiskModel({ ...sim.inputs, returns: inf })).toThrow(NonFiniteError);
    const nanCap = Float64Array.from(sim.inputs.marketCap);
    nanCap[2] = Number.NaN;
    expect(() => buildCharacteristicsRiskModel({ ...sim.inputs, marketCap: nanCap })).toThrow(
      /marketCap at S2:XNYS is NaN/,
    );
    const zeroCap = Float64Array.from(sim.inputs.marketCap);
    zeroCap[4] = 0;
    expect(() => buildCharacteristicsRiskModel({ ...sim.inputs, marketCap: zeroCap })).toThrow(
      ValidationError,
    );
    expect(() =>
      buildCharacteristicsRiskModel({ ...sim.inputs, characteristicNames: ["market", "momentum"] }),
    ).toThrow(/duplicate factor market/);
    expect(() =>
      buildCharacteristicsRiskModel({ ...sim.inputs, sectors: sim.inputs.sectors.slice(1) }),
    ).toThrow(/sectors has length 19, expected 20/);
  });
});
