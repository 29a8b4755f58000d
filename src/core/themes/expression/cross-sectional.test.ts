import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { percentile, rank, zscore } from "./cross-sectional.js";

/** O(n^2) rank from the definition: 1 + #smaller + (#equal - 1) / 2, over present values in the universe. */
function naiveRank(x: Float64Array, universe: Uint8Array | undefined): number[] {
  const inUniverse = (i: number) => !Number.isNaN(x[i]!) && (universe === undefined || universe[i] === 1);
  return [...x].map((v, i) => {
    if (!inUniverse(i)) return Number.NaN;
    let smaller = 0;
    let equal = 0;
    x.forEach((w, j) => {
      if (!inUniverse(j)) return;
      if (w < v) smaller++;
      else if (w === v) equal++;
    });
    return 1 + smaller + (equal - 1) / 2;
  });
}

const values = fc.array(
  fc.oneof(
    fc.integer({ min: -5, max: 5 }),
    fc.double({ noDefaultInfinity: true, min: -1e6, max: 1e6 }),
    fc.constant(Number.NaN),
  ),
  { maxLength: 60 },
);

describe("rank", () => {
  it("ranks a textbook sample with ties", () => {
    // scipy.stats.rankdata([0, 2, 3, 2]) = [1, 2.5, 4, 2.5].
    expect([...rank(Float64Array.of(0, 2, 3, 2), undefined)]).toEqual([1, 2.5, 4, 2.5]);
  });

  it("agrees with the O(n^2) definition, with and without a universe", () => {
    fc.assert(
      fc.property(values, fc.array(fc.boolean(), { minLength: 60, maxLength: 60 }), (v, bits) => {
        const x = Float64Array.from(v);
        const universe = Uint8Array.from(bits.slice(0, v.length).map(Number));
        expect([...rank(x, undefined)]).toEqual(naiveRank(x, undefined));
        expect([...rank(x, universe)]).toEqual(naiveRank(x, universe));
      }),
      { numRuns: 300, seed: 3 },
    );
  });

  it("sums ranks to n(n+1)/2 and keeps percentiles in [0, 1]", () => {
    fc.assert(
      fc.property(values, (v) => {
        const x = Float64Array.from(v);
        const r = [...rank(x, undefined)].filter((q) => !Number.isNaN(q));
        const n = r.length;
        expect(r.reduce((a, b) => a + b, 0)).toBeCloseTo((n * (n + 1)) / 2, 9);
        for (const p of percentile(x, undefined)) if (!Number.isNaN(p)) expect(p >= 0 && p <= 1).toBe(true);
      }),
      { numRuns: 200, seed: 4 },
    );
  });

  it("treats -0 and 0 as a tie", () => {
    expect([...rank(Float64Array.of(0, -0, 1), undefined)]).toEqual([1.5, 1.5, 3]);
  });

  it("does not mutate its input", () => {
    const x = Float64Array.of(3, 1, 2);
    rank(x, undefined);
    zscore(x, undefined);
    expect([...x]).toEqual([3, 1, 2]);
  });
});

describe("zscore", () => {
  it("has mean 0 and sample standard deviation 1 over the universe", () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ noNaN: true, min: -1e3, max: 1e3 }), { minLength: 2, maxLength: 50 }),
        (v) => {
          const z = [...zscore(Float64Array.from(v), undefined)];
          const n = z.length;
          const mean = z.reduce((a, b) => a + b, 0) / n;
          const spread = Math.max(...v) - Math.min(...v);
          fc.pre(spread > 1e-6);
          const sd = Math.sqrt(z.reduce((a, b) => a + (b - mean) ** 2, 0) / (n - 1));
          expect(mean).toBeCloseTo(0, 9);
          expect(sd).toBeCloseTo(1, 9);
        },
      ),
      { numRuns: 200, seed: 5 },
    );
  });

  it("stays accurate for large values with small spread (compensated sums)", () => {
    // mean 1e9 + 2, sample sd 1: z = -1, 0, 1.
    const z = zscore(Float64Array.of(1e9 + 1, 1e9 + 2, 1e9 + 3), undefined);
    expect(z[0]).toBeCloseTo(-1, 12);
    expect(z[1]).toBeCloseTo(0, 12);
    expect(z[2]).toBeCloseTo(1, 12);
  });
});
