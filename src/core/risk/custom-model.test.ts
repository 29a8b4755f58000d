import { describe, expect, it } from "vitest";
import { NonFiniteError, ValidationError } from "../errors.js";
import { symmetricEigen } from "../numeric/eigen.js";
import { buildCustomRiskModel } from "./custom-model.js";
import { riskModelCovariance } from "./dense-covariance.js";

const assets = ["A:XNYS", "B:XNYS", "C:XNAS"];
// A positive definite covariance (annual): vols 20%, 30%, 25%, correlations .5, .2, .4.
const sigma = Float64Array.of(0.04, 0.03, 0.01, 0.03, 0.09, 0.03, 0.01, 0.03, 0.0625);

describe("buildCustomRiskModel from a dense covariance", () => {
  it("reproduces the covariance exactly with all components kept", () => {
    const model = buildCustomRiskModel({ assets, covariance: sigma });
    expect(model.factors).toEqual(["pc1", "pc2", "pc3"]);
    expect(model.annualization).toBe(1);
    const back = riskModelCovariance(model);
    for (let x = 0; x < 9; x++) expect(back[x]).toBeCloseTo(sigma[x]!, 15);
    expect(model.diagnostics.psdRepair.clippedCount).toBe(0);
    expect(model.diagnostics.explainedVariance).toBeCloseTo(1, 15);
    for (const d of model.specificVariance) expect(d).toBeCloseTo(0, 15);
  });

  it("keeps the exact diagonal when components are truncated", () => {
    const model = buildCustomRiskModel({ assets, covariance: sigma }, { maxFactors: 1 });
    expect(model.factors).toEqual(["pc1"]);
    const back = riskModelCovariance(model);
    for (let i = 0; i < 3; i++) expect(back[i * 3 + i]).toBeCloseTo(sigma[i * 3 + i]!, 15);
    const top = symmetricEigen({ rows: 3, cols: 3, data: sigma }, { vectors: false }).values;
    expect(model.factorCovariance[0]).toBeCloseTo(top[0]!, 15);
    expect(model.diagnostics.explainedVariance).toBeCloseTo(top[0]! / (0.04 + 0.09 + 0.0625), 14);
    expect(model.diagnostics.notes).toContain(
      "Kept 1 of 3 components; the rest of each variance is specific.",
    );
  });

  it("picks the fewest components that explain the requested share", () => {
    const top = symmetricEigen({ rows: 3, cols: 3, data: sigma }, { vectors: false }).values;
    const share1 = top[0]! / (top[0]! + top[1]! + top[2]!);
    expect(
      buildCustomRiskModel({ assets, covariance: sigma }, { explainedVariance: share1 }).factors,
    ).toHaveLength(1);
    expect(
      buildCustomRiskModel({ assets, covariance: sigma }, { explainedVariance: share1 + 1e-6 }).factors,
    ).toHaveLength(2);
  });

  it("annualizes a monthly covariance by 12", () => {
    const model = buildCustomRiskModel({ assets, covariance: sigma }, { frequency: "monthly" });
    expect(model.annualization).toBe(12);
    const back = riskModelCovariance(model);
    expect(back[4]).toBeCloseTo(0.09 * 12, 13);
  });

  it("repairs an indefinite covariance, reports it, and returns a PSD model", () => {
    // Correlations .9, .9, -.9 are inconsistent: eigenvalues of the correlation matrix are 1.9, 1.9, -0.8.
    const bad = Float64Array.of(1, 0.9, 0.9, 0.9, 1, -0.9, 0.9, -0.9, 1);
    const model = buildCustomRiskModel({ assets, covariance: bad });
    const report = model.diagnostics.psdRepair;
    expect(report.matrix).toBe("covariance");
    expect(report.clippedCount).toBe(1);
    expect(report.minEigenvalueBefore).toBeCloseTo(-0.8, 13);
    expect(model.diagnostics.notes[0]).toMatch(/not positive definite \(min eigenvalue -0.8/);
    const min = symmetricEigen(
      { rows: 3, cols: 3, data: riskModelCovariance(model) },
      { vectors: false, order: "ascending" },
    );
    expect(min.values[0]!).toBeGreaterThan(0);
  });

  it("rejects NaN, asymmetry beyond the tolerance and wrong sizes, and does not mutate its input", () => {
    const copy = Float64Array.from(sigma);
    buildCustomRiskModel({ assets, covariance: sigma });
    expect(sigma).toEqual(copy);
    const nan = Float64Array.from(sigma);
    nan[4] = Number.NaN;
    expect(() => buildCustomRiskModel({ assets, covariance: nan })).toThrow(NonFiniteError);
    expect(() => buildCustomRiskModel({ assets, covariance: nan })).toThrow(
      /covariance at \(B:XNYS, B:XNYS\) is NaN/,
    );
    const asym = Float64Array.from(sigma);
    asym[1] = 0.031;
    expect(() => buildCustomRiskModel({ assets, covariance: asym })).toThrow(ValidationError);
    expect(() => buildCustomRiskModel({ assets, covariance: sigma.subarray(0, 8) })).toThrow(RangeError);
    expect(() => buildCustomRiskModel({ assets, covariance: sigma }, { explainedVariance: 0 })).toThrow(
      /explainedVariance/,
    );
  });
});

/** A two-factor model over the three assets (daily numbers). */
const factorModel = {
  assets,
  factors: ["market", "size"],
  exposures: Float64Array.of(1, 0.2, 1.1, -0.4, 0.9, 0),
  factorCovariance: Float64Array.of(0.0004, 0.0001, 0.0001, 0.0002),
  specificVariance: Float64Array.of(0.0001, 0.0002, 0.00015),
};

describe("buildCustomRiskModel from a factor model", () => {
  const input = factorModel;

  it("keeps the given factor model and annualizes it per the stated frequency", () => {
    const model = buildCustomRiskModel(input, { frequency: "daily" });
    expect(model.factors).toEqual(["market", "size"]);
    expect(model.annualization).toBe(252);
    expect(model.factorCovariance[0]).toBeCloseTo(0.0004 * 252, 15);
    expect(model.specificVariance[2]).toBeCloseTo(0.00015 * 252, 15);
    expect(Array.from(model.exposures)).toEqual(Array.from(input.exposures));
    expect(model.exposures).not.toBe(input.exposures);
    expect(model.diagnostics.psdRepair.clippedCount).toBe(0);
  });

  it("repairs an indefinite factor covariance and reports it", () => {
    const model = buildCustomRiskModel({ ...input, factorCovariance: Float64Array.of(1, 2, 2, 1) });
    expect(model.diagnostics.psdRepair.clippedCount).toBe(1);
    expect(model.diagnostics.psdRepair.matrix).toBe("factor_covariance");
    expect(model.diagnostics.notes[0]).toMatch(/Factor covariance was not positive definite/);
  });

  it("validates dimensions, names, finiteness and the sign of specific variances", () => {
    expect(() => buildCustomRiskModel({ ...input, exposures: Float64Array.of(1, 2, 3) })).toThrow(
      /exposures has length 3, expected 6/,
    );
    expect(() => buildCustomRiskModel({ ...input, factors: ["market", "market"] })).toThrow(
      /duplicate factor market/,
    );
    expect(() =>
      buildCustomRiskModel({ ...input, specificVariance: Float64Array.of(0.0001, -0.0002, 0.00015) }),
    ).toThrow(/specific variance is negative for B:XNYS/);
    expect(() =>
      buildCustomRiskModel({
        ...input,
        factorCovariance: Float64Array.of(0.0004, Infinity, Infinity, 0.0002),
      }),
    ).toThrow(NonFiniteError);
    expect(() =>
      buildCustomRiskModel({ ...input, factorCovariance: Float64Array.of(0.0004, 0.0001, 0.0003, 0.0002) }),
    ).toThrow(/factorCovariance is not symmetric/);
  });
});

describe("buildCustomRiskModel from a factor model given as records", () => {
  // factorModel as a user writes it in files: rows and nested records, one triangle.
  const records = {
    exposures: [
      { asset: "A:XNYS", factor: "market", exposure: 1 },
      { asset: "A:XNYS", factor: "size", exposure: 0.2 },
      { asset: "B:XNYS", factor: "market", exposure: 1.1 },
      { asset: "B:XNYS", factor: "size", exposure: -0.4 },
      { asset: "C:XNAS", factor: "market", exposure: 0.9 },
    ],
    factorCovariance: { market: { market: 0.0004, size: 0.0001 }, size: { size: 0.0002 } },
    specificVariance: { "A:XNYS": 0.0001, "B:XNYS": 0.0002, "C:XNAS": 0.00015 },
  };

  it("builds exactly the model of the same numbers given as arrays, annualized per the frequency", () => {
    const fromRecords = buildCustomRiskModel(records, { frequency: "monthly" });
    const fromArrays = buildCustomRiskModel(factorModel, { frequency: "monthly" });
    expect(fromRecords.assets).toEqual(assets);
    expect(fromRecords.factors).toEqual(["market", "size"]);
    expect(fromRecords.annualization).toBe(12);
    expect(Array.from(fromRecords.exposures)).toEqual(Array.from(fromArrays.exposures));
    expect(Array.from(fromRecords.factorCovariance)).toEqual(Array.from(fromArrays.factorCovariance));
    expect(Array.from(fromRecords.specificVariance)).toEqual(Array.from(fromArrays.specificVariance));
    // 0.0001 a month is 0.0012 a year; C's missing size exposure is 0.
    expect(fromRecords.specificVariance[0]).toBeCloseTo(0.0012, 15);
    expect(fromRecords.exposures[5]).toBe(0);
    expect(fromRecords.diagnostics.model).toBe("custom");
  });

  it("takes specific variances as rows and names each bad record", () => {
    const rows = [
      { asset: "A:XNYS", specificVariance: 0.0001 },
      { asset: "B:XNYS", specificVariance: -0.0002 },
    ];
    let error: unknown;
    try {
      buildCustomRiskModel({ ...records, specificVariance: rows });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as Error).message).toBe(
      "buildCustomRiskModel: specific variance problems: negative for B:XNYS.",
    );
    expect((error as ValidationError).issues).toEqual([
      { path: "specificVariance[1]", message: "negative for B:XNYS" },
    ]);
    expect(() =>
      buildCustomRiskModel({
        ...records,
        exposures: [...records.exposures, { asset: "A:XNYS", factor: "value", exposure: 1 }],
      }),
    ).toThrow(/unknown factor "value" for A:XNYS/);
    expect(() =>
      buildCustomRiskModel({ ...records, factorCovariance: { market: { market: 0.0004 } } }),
    ).toThrow(/unknown factor "size"/);
  });
});
