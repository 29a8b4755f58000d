import { describe, expect, it } from "vitest";
import { DataError, ValidationError } from "../errors.js";
import { buildRiskModel } from "./build-risk-model.js";

const assets = ["A:XNYS", "B:XNYS", "C:XNAS"];

/** 60 periods of deterministic returns (a market wave plus asset-specific waves). */
function history(names: string[] = assets) {
  const T = 60;
  const n = names.length;
  const returns = new Float64Array(T * n);
  for (let t = 0; t < T; t++)
    for (let i = 0; i < n; i++)
      returns[t * n + i] = 0.01 * Math.sin(t * 0.7) + 0.004 * Math.cos(t * (1.3 + i) + i);
  return { assets: names, returns };
}

function codeOf(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    return (e as DataError).code;
  }
  return "no error";
}

describe("buildRiskModel", () => {
  it("dispatches on risk_model_name to each builder", () => {
    const custom = buildRiskModel("custom", {
      custom: { assets, covariance: Float64Array.of(0.04, 0.01, 0, 0.01, 0.09, 0.02, 0, 0.02, 0.06) },
    });
    expect(custom.diagnostics.model).toBe("custom");
    const pca = buildRiskModel(
      "pca",
      { returns: history() },
      { pca: { numFactors: 1, minObservations: 10 } },
    );
    expect(pca.diagnostics.model).toBe("pca");
    const characteristics = buildRiskModel(
      "characteristics",
      {
        returns: history(["A:XNYS", "B:XNYS", "C:XNAS", "D:XNAS", "E:XNYS", "F:XNYS"]),
        characteristics: {
          characteristicNames: ["book_to_price"],
          characteristics: Float64Array.of(0.2, 0.5, 0.9, 0.4, 0.1, 0.7),
          sectors: [10, 10, 45, 45, 10, 45],
          marketCap: Float64Array.of(3e9, 1e9, 2e9, 5e9, 1e9, 2e9),
        },
      },
      { characteristics: { minObservations: 10 } },
    );
    expect(characteristics.diagnostics.model).toBe("characteristics");
    const vendor = buildRiskModel(
      "vendor",
      {
        vendor: {
          exposures: [{ asset: "A:XNYS", factor: "market", exposure: 1 }],
          factorCovariance: [{ factor1: "market", factor2: "market", covariance: 0.04 }],
          specificRisk: [{ asset: "A:XNYS", specificRisk: 0.3 }],
        },
      },
      { vendor: { frequency: "annual" } },
    );
    expect(vendor.diagnostics.model).toBe("vendor");
  });

  it("applies the spectral shift and restricts the model to the universe", () => {
    const model = buildRiskModel(
      "custom",
      { custom: { assets, covariance: Float64Array.of(0.04, 0.01, 0, 0.01, 0.09, 0.02, 0, 0.02, 0.06) } },
      { spectralShift: 0.001, assets: ["C:XNAS", "A:XNYS"] },
    );
    expect(model.assets).toEqual(["C:XNAS", "A:XNYS"]);
    expect(model.diagnostics.spectralShift).toBe(0.001);
    // Total variance of C: 0.06 + 0.001.
    let v = model.specificVariance[0]!;
    const k = model.factors.length;
    for (let j = 0; j < k; j++) v += model.exposures[j]! ** 2 * model.factorCovariance[j * k + j]!;
    expect(v).toBeCloseTo(0.061, 14);
  });

  it("names the missing input of each model in a DataError", () => {
    expect(codeOf(() => buildRiskModel("pca", {}))).toBe("risk_model_inputs_missing");
    expect(() => buildRiskModel("pca", {})).toThrow(
      /risk_model_name "pca" needs trailing returns \(inputs.returns\)/,
    );
    expect(() => buildRiskModel("custom", {})).toThrow(/needs a user-supplied covariance or factor model/);
    expect(() => buildRiskModel("characteristics", { returns: history() })).toThrow(
      /needs characteristics, sectors and market caps/,
    );
    expect(() => buildRiskModel("vendor", {})).toThrow(/needs the vendor's exposures/);
    expect(() =>
      buildRiskModel("vendor", {
        vendor: { exposures: [], factorCovariance: [], specificRisk: [] },
      }),
    ).toThrow(/needs the frequency of the vendor's numbers/);
    expect(() => buildRiskModel("pca", {})).toThrow(DataError);
  });

  it("rejects an unknown model name with a ValidationError", () => {
    expect(() => buildRiskModel("barra", {})).toThrow(ValidationError);
    expect(codeOf(() => buildRiskModel("barra", {}))).toBe("unknown_risk_model");
    expect(() => buildRiskModel("barra", {})).toThrow(/expected one of custom, pca, characteristics, vendor/);
  });

  it("reports universe assets the model does not cover", () => {
    expect(
      codeOf(() =>
        buildRiskModel(
          "pca",
          { returns: history() },
          { assets: ["A:XNYS", "Z:XNYS"], pca: { numFactors: 1, minObservations: 10 } },
        ),
      ),
    ).toBe("risk_model_coverage");
  });
});
