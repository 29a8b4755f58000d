import { describe, expect, it } from "vitest";
import { buildCustomRiskModel } from "./custom-model.js";
import { imputeBySector } from "./impute-by-sector.js";

describe("imputeBySector", () => {
  // Covered: A, B (sector 10), C (sector 20); two factors. D is in sector 10, E in sector 30 (no covered peer).
  const model = buildCustomRiskModel({
    assets: ["A", "B", "C"],
    factors: ["f1", "f2"],
    exposures: Float64Array.of(1, 0.2, 0.6, -0.4, 1.4, 1),
    factorCovariance: Float64Array.of(0.04, 0, 0, 0.01),
    specificVariance: Float64Array.of(0.01, 0.03, 0.05),
  });
  const sector: Record<string, number> = { A: 10, B: 10, C: 20, D: 10, E: 30 };
  const out = imputeBySector(
    model,
    ["D", "A", "E", "C", "B"],
    (id) => sector[id] ?? null,
    "with fewer than 60 returns",
  );

  it("keeps covered rows and reorders them to the requested assets", () => {
    expect(out.assets).toEqual(["D", "A", "E", "C", "B"]);
    expect([...out.exposures.slice(2, 4)]).toEqual([1, 0.2]); // A
    expect([...out.exposures.slice(6, 8)]).toEqual([1.4, 1]); // C
    expect([out.specificVariance[1], out.specificVariance[3], out.specificVariance[4]]).toEqual([
      0.01, 0.05, 0.03,
    ]);
  });

  it("gives an uncovered asset its sector's average exposures and median specific variance", () => {
    // D (sector 10): mean of A and B = (0.8, -0.1); variances [0.01, 0.03], median index 1 -> 0.03.
    expect(out.exposures[0]).toBeCloseTo(0.8, 15);
    expect(out.exposures[1]).toBeCloseTo(-0.1, 15);
    expect(out.specificVariance[0]).toBe(0.03);
  });

  it("falls back to every covered asset when the sector has none, and says how many were imputed", () => {
    // E (sector 30): mean of A, B, C = (1, 0.2666...); variances [0.01, 0.03, 0.05] -> 0.03.
    expect(out.exposures[4]).toBeCloseTo(1, 15);
    expect(out.exposures[5]).toBeCloseTo(0.8 / 3, 15);
    expect(out.specificVariance[2]).toBe(0.03);
    expect(out.diagnostics.notes.at(-1)).toBe(
      "2 asset(s) with fewer than 60 returns imputed from their sector.",
    );
  });
});
