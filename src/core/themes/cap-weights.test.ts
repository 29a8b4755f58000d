import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { capWeights } from "./cap-weights.js";

/** Reference: the textbook loop (cap what exceeds, redistribute the excess pro rata, repeat). */
function iterativeCap(base: readonly number[], cap: number): number[] {
  const n = base.length;
  const capped = new Array<boolean>(n).fill(false);
  let w: number[] = [];
  for (let round = 0; round <= n; round++) {
    const freeBase = base.reduce((s, b, i) => (capped[i] ? s : s + b), 0);
    const remaining = 1 - capped.filter(Boolean).length * cap;
    w = base.map((b, i) => (capped[i] ? cap : (b * remaining) / freeBase));
    const over = w.map((x, i) => !capped[i] && x > cap * (1 + 1e-12));
    if (!over.some(Boolean)) break;
    over.forEach((o, i) => {
      if (o) capped[i] = true;
    });
  }
  return w;
}

const sum = (x: ArrayLike<number>) => Array.from(x).reduce((a, b) => a + b, 0);

describe("capWeights", () => {
  it("normalizes base weights when the cap does not bind", () => {
    const r = capWeights([3, 1], 1);
    expect([...r.weights]).toEqual([0.75, 0.25]);
    expect(r.cappedCount).toBe(0);
    expect(r.capRelaxed).toBe(false);
  });

  it("caps the largest name and redistributes pro rata: [6, 2, 1, 1] at 40%", () => {
    // 6/10 = 0.6 > 0.4 -> capped; the remaining 0.6 goes to 2:1:1 -> 0.3, 0.15, 0.15.
    const r = capWeights([6, 2, 1, 1], 0.4);
    expect(r.weights[0]).toBe(0.4);
    expect(r.weights[1]).toBeCloseTo(0.3, 15);
    expect(r.weights[2]).toBeCloseTo(0.15, 15);
    expect(r.weights[3]).toBeCloseTo(0.15, 15);
    expect(r.cappedCount).toBe(1);
  });

  it("cascades when the redistribution pushes the next name over the cap", () => {
    // [10, 5, 3, 1, 1] at 30%: 10/20 = 0.5 capped; 5 * 0.7 / 10 = 0.35 still over, capped;
    // the remaining 0.4 goes to 3:1:1 -> 0.24, 0.08, 0.08.
    const r = capWeights([10, 5, 3, 1, 1], 0.3);
    const expected = [0.3, 0.3, 0.24, 0.08, 0.08];
    for (const [i, w] of expected.entries()) expect(r.weights[i]).toBeCloseTo(w, 14);
    expect(r.cappedCount).toBe(2);
    expect(sum(r.weights)).toBeCloseTo(1, 14);
  });

  it("gives every name the cap when n x cap is exactly 1", () => {
    const r = capWeights([5, 1, 1, 1], 0.25);
    for (const w of r.weights) expect(w).toBeCloseTo(0.25, 14);
    expect(r.capRelaxed).toBe(false);
  });

  it("falls back to equal weights and says so when fewer than 1 / cap names exist", () => {
    const r = capWeights([5, 1, 1], 0.2);
    for (const w of r.weights) expect(w).toBeCloseTo(1 / 3, 15);
    expect(r.capRelaxed).toBe(true);
  });

  it("gives tied base weights tied weights whatever their positions", () => {
    const r = capWeights([1, 4, 4, 1], 0.3);
    expect(r.weights[1]).toBe(r.weights[2]);
    expect(r.weights[0]).toBe(r.weights[3]);
    expect(r.weights[1]).toBe(0.3);
    expect(r.weights[0]).toBeCloseTo(0.2, 15);
  });

  it("agrees with the iterative redistribution loop on random inputs", () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: 0.01, max: 1000, noNaN: true }), { minLength: 1, maxLength: 40 }),
        fc.double({ min: 0.01, max: 1, noNaN: true }),
        (base, cap) => {
          const r = capWeights(base, cap);
          expect(sum(r.weights)).toBeCloseTo(1, 10);
          if (r.capRelaxed) {
            expect(base.length * cap).toBeLessThan(1);
            return;
          }
          const ref = iterativeCap(base, cap);
          for (const [i, w] of ref.entries()) expect(r.weights[i]).toBeCloseTo(w, 10);
          for (const w of r.weights) expect(w).toBeLessThanOrEqual(cap * (1 + 1e-9));
        },
      ),
      { numRuns: 300 },
    );
  });

  it("returns nothing for no names and leaves its input alone", () => {
    expect(capWeights([], 0.1).weights.length).toBe(0);
    const base = Float64Array.of(6, 2, 1, 1);
    capWeights(base, 0.4);
    expect([...base]).toEqual([6, 2, 1, 1]);
  });

  it("rejects non-positive or non-finite base weights and a cap outside (0, 1]", () => {
    expect(() => capWeights([1, 0])).toThrow(
      "capWeights: base[1] is 0; base weights must be finite and positive",
    );
    expect(() => capWeights([1, Number.NaN])).toThrow("base[1] is NaN");
    expect(() => capWeights([1], 0)).toThrow("capWeights: maxWeight must be in (0, 1], got 0");
    expect(() => capWeights([1], 1.5)).toThrow("got 1.5");
  });
});
