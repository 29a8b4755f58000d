import { describe, expect, it } from "vitest";
import { type GammaSearchOptions, searchTaxGamma } from "./tax-gamma-search.js";

// Tax realized at gamma: 1000 / (1 + gamma), decreasing; it equals 200 at gamma = 4.
const tax = (g: number) => 1000 / (1 + g);
const options = (over: Partial<GammaSearchOptions>): GammaSearchOptions => ({
  min: 0,
  max: 100,
  goal: "budget",
  target: 200,
  tolerance: 1,
  method: "regula_falsi",
  ...over,
});

describe("the tax_gamma search", () => {
  it("lands within tolerance of the budget by regula falsi and by bisection, on the budget's side", () => {
    for (const method of ["regula_falsi", "bisection"] as const) {
      const calls: number[] = [];
      const r = searchTaxGamma(
        (g) => {
          calls.push(g);
          return tax(g);
        },
        options({ tolerance: 0.5, method }),
      );
      expect(r.withinTolerance).toBe(true);
      expect(r.value).toBeLessThanOrEqual(200);
      expect(r.value).toBeGreaterThanOrEqual(199.5);
      expect(r.gamma).toBeGreaterThan(4); // 1000 / (1 + g) <= 200 needs g >= 4
      expect(r.gamma).toBeLessThan(4.02);
      expect(calls.at(-1)).toBe(r.gamma); // the caller's solver is left at the answer
      expect(r.evaluations).toBe(calls.length);
    }
  });

  it("meets a gain target from either side within tolerance", () => {
    const r = searchTaxGamma(tax, options({ goal: "target", target: 500 }));
    expect(Math.abs(r.value - 500)).toBeLessThanOrEqual(1);
    expect(r.gamma).toBeCloseTo(1, 1);
  });

  it("stops at tax_gamma_min when the budget does not bind, and says when even tax_gamma_max is over it", () => {
    const slack = searchTaxGamma(tax, options({ target: 5000 }));
    expect(slack).toMatchObject({ gamma: 0, value: 1000, withinTolerance: true });
    expect(slack.note).toBe("the budget does not bind at tax_gamma_min");
    const over = searchTaxGamma(tax, options({ max: 3 }));
    expect(over).toMatchObject({ gamma: 3, value: 250, withinTolerance: false });
    expect(over.note).toContain("even tax_gamma_max = 3 realizes 250 USD");
  });

  it("stops at the first failed evaluation instead of searching on", () => {
    const calls: number[] = [];
    const r = searchTaxGamma(
      (g) => {
        calls.push(g);
        return calls.length === 3 ? Number.NaN : tax(g);
      },
      options({ tolerance: 0.001, method: "bisection" }),
    );
    expect(calls).toHaveLength(3);
    expect(r.evaluations).toBe(3);
    expect(r.gamma).toBe(calls[2]);
    expect(r.value).toBeNaN();
    expect(r.withinTolerance).toBe(false);
    expect(r.note).toBe(`the evaluation at tax_gamma ${calls[2]} failed`);
  });
});
