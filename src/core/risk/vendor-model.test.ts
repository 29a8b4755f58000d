import { describe, expect, it } from "vitest";
import { NonFiniteError, ValidationError } from "../errors.js";
import { riskModelCovariance } from "./dense-covariance.js";
import { buildVendorRiskModel, type VendorRiskModelData } from "./vendor-model.js";

const rows: VendorRiskModelData = {
  exposures: [
    { asset: "AAPL:XNAS", factor: "market", exposure: 1.1 },
    { asset: "AAPL:XNAS", factor: "size", exposure: 1.8 },
    { asset: "XOM:XNYS", factor: "market", exposure: 0.9 },
    { asset: "XOM:XNYS", factor: "size", exposure: 1.2 },
    { asset: "GONE:XNYS", factor: "market", exposure: 1 },
  ],
  factorCovariance: [
    { factor1: "market", factor2: "market", covariance: 0.03 },
    { factor1: "size", factor2: "market", covariance: 0.002 },
    { factor1: "size", factor2: "size", covariance: 0.01 },
  ],
  specificRisk: [
    { asset: "AAPL:XNAS", specificRisk: 0.2 },
    { asset: "XOM:XNYS", specificRisk: 0.15 },
  ],
};

function issuesOf(fn: () => unknown): string[] {
  try {
    fn();
  } catch (e) {
    if (e instanceof ValidationError) return e.issues.map((i) => `${i.path}: ${i.message}`);
    throw e;
  }
  throw new Error("expected a ValidationError");
}

describe("buildVendorRiskModel", () => {
  it("assembles X, F and D from rows (one triangle of F suffices, volatilities are squared)", () => {
    const model = buildVendorRiskModel(rows, { frequency: "annual" });
    expect(model.assets).toEqual(["AAPL:XNAS", "XOM:XNYS"]);
    expect(model.factors).toEqual(["market", "size"]);
    expect(Array.from(model.exposures)).toEqual([1.1, 1.8, 0.9, 1.2]);
    expect(Array.from(model.factorCovariance)).toEqual([0.03, 0.002, 0.002, 0.01]);
    expect(model.specificVariance[0]).toBeCloseTo(0.04, 15);
    expect(model.specificVariance[1]).toBeCloseTo(0.0225, 15);
    // Sigma(AAPL, XOM) = [1.1, 1.8] F [0.9, 1.2]' = 0.0297 + 0.00264 + 0.00324 + 0.0216 = 0.05718.
    expect(riskModelCovariance(model)[1]).toBeCloseTo(0.05718, 15);
    expect(model.diagnostics.notes).toContain(
      "Ignored exposures of 1 asset(s) outside the model's assets: GONE:XNYS.",
    );
  });

  it("accepts nested records and gives the same model", () => {
    const records: VendorRiskModelData = {
      exposures: { "AAPL:XNAS": { market: 1.1, size: 1.8 }, "XOM:XNYS": { market: 0.9, size: 1.2 } },
      factorCovariance: { market: { market: 0.03, size: 0.002 }, size: { market: 0.002, size: 0.01 } },
      specificRisk: { "AAPL:XNAS": 0.2, "XOM:XNYS": 0.15 },
    };
    const a = buildVendorRiskModel(rows, { frequency: "annual" });
    const b = buildVendorRiskModel(records, { frequency: "annual" });
    expect(b.exposures).toEqual(a.exposures);
    expect(b.factorCovariance).toEqual(a.factorCovariance);
    expect(b.specificVariance).toEqual(a.specificVariance);
  });

  it("converts percent units and annualizes daily numbers by 252", () => {
    const pct: VendorRiskModelData = {
      exposures: [{ asset: "A:XNYS", factor: "market", exposure: 1 }],
      factorCovariance: [{ factor1: "market", factor2: "market", covariance: 1.5 }], // 1.5 %^2 per day
      specificRisk: [{ asset: "A:XNYS", specificRisk: 2 }], // 2 % per day
    };
    const model = buildVendorRiskModel(pct, { frequency: "daily", units: "percent" });
    expect(model.annualization).toBe(252);
    expect(model.factorCovariance[0]).toBeCloseTo(1.5e-4 * 252, 15);
    expect(model.specificVariance[0]).toBeCloseTo(4e-4 * 252, 15);
    const variance = buildVendorRiskModel(pct, {
      frequency: "annual",
      units: "percent",
      specificRiskKind: "variance",
    });
    expect(variance.specificVariance[0]).toBeCloseTo(2e-4, 15);
  });

  it("follows the requested asset order and factor order", () => {
    const model = buildVendorRiskModel(
      { ...rows, factors: ["size", "market"] },
      { frequency: "annual", assets: ["XOM:XNYS", "AAPL:XNAS"] },
    );
    expect(model.assets).toEqual(["XOM:XNYS", "AAPL:XNAS"]);
    expect(Array.from(model.exposures)).toEqual([1.2, 0.9, 1.8, 1.1]);
    expect(Array.from(model.factorCovariance)).toEqual([0.01, 0.002, 0.002, 0.03]);
  });

  it("repairs an indefinite factor covariance and reports it", () => {
    const bad = {
      ...rows,
      factorCovariance: [
        { factor1: "market", factor2: "market", covariance: 0.01 },
        { factor1: "market", factor2: "size", covariance: 0.02 },
        { factor1: "size", factor2: "size", covariance: 0.01 },
      ],
    };
    const model = buildVendorRiskModel(bad, { frequency: "annual" });
    expect(model.diagnostics.psdRepair.clippedCount).toBe(1);
    expect(model.diagnostics.psdRepair.minEigenvalueBefore).toBeCloseTo(-0.01, 15);
    expect(
      model.diagnostics.notes.some((s) => s.startsWith("Factor covariance was not positive definite")),
    ).toBe(true);
  });

  it("lists every record problem as a validation issue", () => {
    const broken: VendorRiskModelData = {
      exposures: [
        { asset: "AAPL:XNAS", factor: "momentum", exposure: 1 },
        { asset: "XOM:XNYS", factor: "market", exposure: 1 },
        { asset: "XOM:XNYS", factor: "market", exposure: 2 },
      ],
      factorCovariance: rows.factorCovariance,
      specificRisk: rows.specificRisk,
    };
    expect(issuesOf(() => buildVendorRiskModel(broken, { frequency: "annual" }))).toEqual([
      'exposures[0]: unknown factor "momentum" for AAPL:XNAS',
      "exposures[2]: conflicting duplicate for (XOM:XNYS, market)",
    ]);
    const incomplete = {
      ...rows,
      factorCovariance: [
        { factor1: "market", factor2: "market", covariance: 0.03 },
        { factor1: "size", factor2: "size", covariance: 0.01 },
      ],
    };
    expect(issuesOf(() => buildVendorRiskModel(incomplete, { frequency: "annual" }))).toEqual([
      "factorCovariance: missing entry (size, market)",
    ]);
    // The message says what to do: a missing pair is never read as 0 (a truncated file would look the same).
    expect(() => buildVendorRiskModel(incomplete, { frequency: "annual" })).toThrow(
      /Give every pair of factors \(one triangle is enough\), with 0 for uncorrelated ones/,
    );
    const asymmetric = {
      ...rows,
      factorCovariance: [
        ...(rows.factorCovariance as object[]),
        { factor1: "market", factor2: "size", covariance: 0.003 },
      ],
    } as VendorRiskModelData;
    expect(issuesOf(() => buildVendorRiskModel(asymmetric, { frequency: "annual" }))).toEqual([
      "factorCovariance[3]: (market, size) = 0.003 disagrees with (size, market)",
    ]);
    expect(
      issuesOf(() => buildVendorRiskModel(rows, { frequency: "annual", assets: ["AAPL:XNAS", "MSFT:XNAS"] })),
    ).toEqual(["specificRisk.MSFT:XNAS: no specific risk for MSFT:XNAS"]);
    const negative = { ...rows, specificRisk: [{ asset: "AAPL:XNAS", specificRisk: -0.2 }] };
    expect(issuesOf(() => buildVendorRiskModel(negative, { frequency: "annual" }))).toEqual([
      "specificRisk[0]: negative for AAPL:XNAS",
    ]);
  });

  it("rejects NaN with NonFiniteError naming the record", () => {
    const nan = { ...rows, specificRisk: [{ asset: "AAPL:XNAS", specificRisk: Number.NaN }] };
    expect(() => buildVendorRiskModel(nan, { frequency: "annual" })).toThrow(NonFiniteError);
    expect(() => buildVendorRiskModel(nan, { frequency: "annual" })).toThrow(
      /specificRisk\[0\] \(AAPL:XNAS\) is NaN/,
    );
  });

  it("does not mutate the records", () => {
    const copy = structuredClone(rows);
    buildVendorRiskModel(rows, { frequency: "daily" });
    expect(rows).toEqual(copy);
  });
});
