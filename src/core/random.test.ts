import { describe, expect, it } from "vitest";
import { createRandom, deriveSeed, SeededRandom, splitMix32 } from "./random.js";

/** Independent SplitMix32 in BigInt arithmetic (no 32-bit tricks) to cross-check the fast version. */
function splitMix32Big(state: number): [number, number] {
  const M = 0xffffffffn;
  const next = (BigInt(state) + 0x9e3779b9n) & M;
  let z = next;
  z = ((z ^ (z >> 16n)) * 0x21f0aaadn) & M;
  z = ((z ^ (z >> 15n)) * 0x735a2d97n) & M;
  z ^= z >> 15n;
  return [Number(z), Number(next)];
}

function moments(xs: Float64Array): { mean: number; variance: number; excessKurtosis: number } {
  let mean = 0;
  for (const x of xs) mean += x;
  mean /= xs.length;
  let m2 = 0;
  let m4 = 0;
  for (const x of xs) {
    const d = x - mean;
    m2 += d * d;
    m4 += d * d * d * d;
  }
  m2 /= xs.length;
  m4 /= xs.length;
  return { mean, variance: m2, excessKurtosis: m4 / (m2 * m2) - 3 };
}

function sample(n: number, f: () => number): Float64Array {
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) out[i] = f();
  return out;
}

describe("SeededRandom", () => {
  it("reproduces the xoshiro128** reference outputs from state {1, 2, 3, 4}", () => {
    // Reference values of Blackman & Vigna's xoshiro128starstar.c (also the rand_xoshiro test vector).
    // First by hand: rotl(2 * 5, 7) * 9 = 1280 * 9 = 11520.
    const r = SeededRandom.fromState([1, 2, 3, 4]);
    const got = Array.from({ length: 10 }, () => r.uint32());
    expect(got).toEqual([
      11520, 0, 5927040, 70819200, 2031721883, 1637235492, 1287239034, 3734860849, 3729100597, 4258142804,
    ]);
  });

  it("matches an independent BigInt SplitMix32 on many states", () => {
    for (const s of [0, 1, 42, 0x7fffffff, 0x80000000, 0xffffffff, 123456789]) {
      expect(splitMix32(s)).toEqual(splitMix32Big(s));
    }
  });

  it("gives the same sequence for the same seed and different sequences for different seeds", () => {
    const a = createRandom(2024);
    const b = createRandom(2024);
    const c = createRandom(2025);
    const sa = Array.from({ length: 20 }, () => a.uint32());
    const sb = Array.from({ length: 20 }, () => b.uint32());
    const sc = Array.from({ length: 20 }, () => c.uint32());
    expect(sa).toEqual(sb);
    expect(sa).not.toEqual(sc);
  });

  it("accepts negative and large safe-integer seeds and keeps them distinct", () => {
    const firsts = [0, -1, 1, 2 ** 32, 2 ** 32 + 1, Number.MAX_SAFE_INTEGER].map((s) =>
      new SeededRandom(s).uint32(),
    );
    expect(new Set(firsts).size).toBe(firsts.length);
  });

  it("resumes exactly from a saved state", () => {
    const r = createRandom(9);
    for (let i = 0; i < 5; i++) r.uint32();
    const copy = SeededRandom.fromState(r.state());
    expect(Array.from({ length: 5 }, () => copy.uint32())).toEqual(
      Array.from({ length: 5 }, () => r.uint32()),
    );
  });

  it("draws uniforms in [0, 1) with mean 1/2 and variance 1/12", () => {
    const r = createRandom(1);
    const xs = sample(200_000, r.next);
    let lo = 1;
    let hi = 0;
    for (const x of xs) {
      lo = Math.min(lo, x);
      hi = Math.max(hi, x);
    }
    expect(lo).toBeGreaterThanOrEqual(0);
    expect(hi).toBeLessThan(1);
    const m = moments(xs);
    // Standard error of the mean: sqrt(1/12 / 2e5) ~ 6.5e-4; allow ~5 se.
    expect(m.mean).toBeCloseTo(0.5, 2);
    expect(Math.abs(m.variance - 1 / 12)).toBeLessThan(0.002);
  });

  it("draws standard normals with mean 0, variance 1 and no excess kurtosis", () => {
    const r = createRandom(2);
    const m = moments(sample(200_000, () => r.normal()));
    expect(Math.abs(m.mean)).toBeLessThan(0.012);
    expect(Math.abs(m.variance - 1)).toBeLessThan(0.015);
    expect(Math.abs(m.excessKurtosis)).toBeLessThan(0.06);
  });

  it("scales normals by mean and standard deviation", () => {
    const r = createRandom(3);
    const m = moments(sample(100_000, () => r.normal(5, 2)));
    expect(Math.abs(m.mean - 5)).toBeLessThan(0.03);
    expect(Math.abs(m.variance - 4)).toBeLessThan(0.08);
  });

  it("draws Student t with variance nu/(nu-2) and fat tails", () => {
    const r = createRandom(4);
    // nu = 8: variance 8/6 = 1.333, excess kurtosis 6/(8-4) = 1.5 (sample kurtosis converges slowly).
    const m = moments(sample(300_000, () => r.studentT(8)));
    expect(Math.abs(m.mean)).toBeLessThan(0.01);
    expect(Math.abs(m.variance - 8 / 6)).toBeLessThan(0.03);
    expect(m.excessKurtosis).toBeGreaterThan(0.9);
    expect(m.excessKurtosis).toBeLessThan(2.5);
  });

  it("matches the t(1) (Cauchy) quartiles", () => {
    // Cauchy: P(|X| < 1) = 1/2 exactly.
    const r = createRandom(5);
    let inside = 0;
    const n = 100_000;
    for (let i = 0; i < n; i++) if (Math.abs(r.studentT(1)) < 1) inside++;
    expect(Math.abs(inside / n - 0.5)).toBeLessThan(0.008);
  });

  it("rescales standardT to unit variance", () => {
    const r = createRandom(6);
    const m = moments(sample(300_000, () => r.standardT(6)));
    expect(Math.abs(m.variance - 1)).toBeLessThan(0.03);
    expect(m.excessKurtosis).toBeGreaterThan(1.5); // theory: 6/(6-4) = 3
  });

  it("draws gamma with mean k*theta and variance k*theta^2, also for shape < 1", () => {
    const r = createRandom(7);
    for (const [k, theta] of [
      [3, 2],
      [0.5, 1],
    ] as const) {
      const m = moments(sample(200_000, () => r.gamma(k, theta)));
      expect(Math.abs(m.mean - k * theta) / (k * theta)).toBeLessThan(0.01);
      expect(Math.abs(m.variance - k * theta * theta) / (k * theta * theta)).toBeLessThan(0.03);
    }
  });

  it("draws chi-square with mean k and variance 2k", () => {
    const r = createRandom(8);
    const m = moments(sample(200_000, () => r.chiSquare(5)));
    expect(Math.abs(m.mean - 5)).toBeLessThan(0.04);
    expect(Math.abs(m.variance - 10)).toBeLessThan(0.3);
  });

  it("draws integers uniformly over [lo, hi)", () => {
    const r = createRandom(10);
    const counts = new Array(6).fill(0);
    for (let i = 0; i < 60_000; i++) counts[r.int(0, 6)]++;
    // Each count ~ Binomial(60000, 1/6): mean 10000, sd 91.
    for (const c of counts) expect(Math.abs(c - 10_000)).toBeLessThan(500);
    for (let i = 0; i < 1000; i++) {
      const x = r.int(-3, 2);
      expect(x).toBeGreaterThanOrEqual(-3);
      expect(x).toBeLessThan(2);
    }
  });

  it("picks weighted indexes in proportion to the weights and never a zero weight", () => {
    const r = createRandom(11);
    const counts = [0, 0, 0];
    for (let i = 0; i < 40_000; i++) counts[r.weightedIndex([1, 0, 3])]++;
    expect(counts[1]).toBe(0);
    expect(counts[0]! / 40_000).toBeCloseTo(0.25, 1);
  });

  it("shuffles into a permutation", () => {
    const r = createRandom(12);
    const xs = Array.from({ length: 50 }, (_, i) => i);
    const shuffled = r.shuffleInPlace([...xs]);
    expect([...shuffled].sort((a, b) => a - b)).toEqual(xs);
    expect(shuffled).not.toEqual(xs);
  });

  it("returns bernoulli outcomes with the given probability", () => {
    const r = createRandom(13);
    let hits = 0;
    for (let i = 0; i < 50_000; i++) if (r.bernoulli(0.3)) hits++;
    expect(Math.abs(hits / 50_000 - 0.3)).toBeLessThan(0.01);
    expect(r.bernoulli(0)).toBe(false);
    expect(r.bernoulli(1)).toBe(true);
  });

  it("rejects bad arguments with messages that name the function", () => {
    expect(() => new SeededRandom(1.5)).toThrow(/SeededRandom: seed must be a safe integer/);
    expect(() => new SeededRandom(Number.NaN)).toThrow(RangeError);
    const r = createRandom(1);
    expect(() => r.int(3, 3)).toThrow(/SeededRandom.int/);
    expect(() => r.int(0, 1.5)).toThrow(/SeededRandom.int/);
    expect(() => r.uniform(2, 1)).toThrow(/SeededRandom.uniform/);
    expect(() => r.studentT(0)).toThrow(/SeededRandom.studentT/);
    expect(() => r.standardT(2)).toThrow(/SeededRandom.standardT/);
    expect(() => r.gamma(-1)).toThrow(/SeededRandom.gamma/);
    expect(() => r.chiSquare(0)).toThrow(/SeededRandom.chiSquare/);
    expect(() => r.pick([])).toThrow(/SeededRandom.pick/);
    expect(() => r.weightedIndex([0, 0])).toThrow(/all weights are zero/);
    expect(() => r.weightedIndex([1, -1])).toThrow(/weight 1 is -1/);
    expect(() => SeededRandom.fromState([0, 0, 0, 0])).toThrow(/not all zero/);
  });
});

describe("deriveSeed", () => {
  it("is deterministic and separates streams and seeds", () => {
    expect(deriveSeed(42, 1)).toBe(deriveSeed(42, 1));
    const seeds = new Set<number>();
    for (let seed = 0; seed < 20; seed++) for (let s = 0; s < 20; s++) seeds.add(deriveSeed(seed, s));
    expect(seeds.size).toBe(400);
  });

  it("rejects non-integers", () => {
    expect(() => deriveSeed(1.5, 0)).toThrow(/deriveSeed/);
  });
});
