/**
 * @module core/random
 * A small, fast, seedable pseudo-random generator for simulations, tests and backtests. The core never reads
 * `Math.random`: a {@link SeededRandom} is created from an integer seed and passed in.
 *
 * Generator: xoshiro128** 1.1 (D. Blackman and S. Vigna, "Scrambled linear pseudorandom number generators",
 * ACM TOMS 47(4), 2021; reference C at https://prng.di.unimi.it/xoshiro128starstar.c). 128-bit state, period
 * 2^128 - 1, 32-bit outputs, only 32-bit integer operations (fast in JavaScript through `Math.imul`).
 * Seeding: the four state words are successive outputs of SplitMix32 (the 32-bit variant of G. Steele, D. Lea and
 * C. Flood, "Fast splittable pseudorandom number generators", OOPSLA 2014, with the finalizer constants of
 * C. Wellons' hash-prospector), so nearby seeds give unrelated streams.
 *
 * Distributions: normal by the Marsaglia polar method (G. Marsaglia and T. Bray, SIAM Review 6(3), 1964);
 * Student t by Bailey's polar method (R. W. Bailey, "Polar generation of random variates with the
 * t-distribution", Math. Comp. 62, 1994); gamma by Marsaglia-Tsang (ACM TOMS 26(3), 2000).
 */

const TWO_POW_32 = 4_294_967_296;
const TWO_POW_53 = 9_007_199_254_740_992;
const GOLDEN_GAMMA_32 = 0x9e3779b9;

/** Rotate a 32-bit word left by `k` bits. */
function rotl(x: number, k: number): number {
  return (x << k) | (x >>> (32 - k));
}

/**
 * One SplitMix32 step: returns `[output, nextState]`, both unsigned 32-bit integers.
 * Used to expand one seed into well-mixed state words, and by {@link deriveSeed}.
 * @example splitMix32(0)[1] // 2654435769 (the state advances by the 32-bit golden gamma 0x9e3779b9)
 */
export function splitMix32(state: number): [output: number, nextState: number] {
  const next = (state + GOLDEN_GAMMA_32) >>> 0;
  let z = next;
  z = Math.imul(z ^ (z >>> 16), 0x21f0aaad);
  z = Math.imul(z ^ (z >>> 15), 0x735a2d97);
  z ^= z >>> 15;
  return [z >>> 0, next];
}

/**
 * A seed for an independent sub-stream: mixes `seed` and a stream number so that, e.g., the FX series and the
 * stock returns of one market draw from unrelated streams, and changing one component leaves the others as they were.
 * @throws {RangeError} when either argument is not a safe integer.
 * @example deriveSeed(42, 1) !== deriveSeed(42, 2) // true
 */
export function deriveSeed(seed: number, stream: number): number {
  if (!Number.isSafeInteger(seed) || !Number.isSafeInteger(stream))
    throw new RangeError(`deriveSeed: seed and stream must be safe integers, got ${seed} and ${stream}`);
  // Chain the words through the SplitMix32 finalizer: each step is a bijection of a well-mixed value, so two
  // (seed, stream) pairs collide only by chance (about 2^-32).
  let h = splitMix32(lowWord(seed))[0];
  h = splitMix32((h ^ highWord(seed)) >>> 0)[0];
  h = splitMix32((h ^ lowWord(stream)) >>> 0)[0];
  return splitMix32((h ^ highWord(stream)) >>> 0)[0];
}

function lowWord(x: number): number {
  return (x % TWO_POW_32) >>> 0;
}

function highWord(x: number): number {
  return Math.floor(x / TWO_POW_32) >>> 0;
}

/**
 * A seeded xoshiro128** generator with the distributions the simulations need. Deterministic: the same seed gives
 * the same sequence on every platform (only 32-bit integer arithmetic and IEEE double operations are used).
 * Mutates only its own state.
 *
 * @example
 * const rng = new SeededRandom(42);
 * const u = rng.next();       // uniform in [0, 1)
 * const z = rng.normal();     // standard normal
 * const t = rng.studentT(5);  // Student t, 5 degrees of freedom
 */
export class SeededRandom {
  private s0: number;
  private s1: number;
  private s2: number;
  private s3: number;
  private spareNormal = 0;
  private hasSpare = false;

  /**
   * A uniform double in [0, 1) with 53 random bits, bound to this generator so it can be injected where a
   * `random: () => number` is expected.
   */
  readonly next: () => number = () => {
    const hi = this.uint32() >>> 5;
    const lo = this.uint32() >>> 6;
    return (hi * 67_108_864 + lo) / TWO_POW_53;
  };

  /**
   * @param seed any safe integer; 0 and negative values are fine.
   * @throws {RangeError} when `seed` is not a safe integer.
   */
  constructor(seed: number) {
    if (!Number.isSafeInteger(seed))
      throw new RangeError(`SeededRandom: seed must be a safe integer, got ${String(seed)}`);
    // Fold both 32-bit halves of the seed through the mixer so every safe integer gives its own stream.
    let state = splitMix32((splitMix32(lowWord(seed))[0] ^ highWord(seed)) >>> 0)[0];
    const words: number[] = [];
    for (let k = 0; k < 4; k++) {
      const [out, next] = splitMix32(state >>> 0);
      words.push(out);
      state = next;
    }
    this.s0 = words[0]!;
    this.s1 = words[1]!;
    this.s2 = words[2]!;
    this.s3 = words[3]!;
    // The all-zero state is the one fixed point of xoshiro; SplitMix32 practically never yields it, but be safe.
    if ((this.s0 | this.s1 | this.s2 | this.s3) === 0) this.s0 = 1;
  }

  /**
   * A generator with the given raw state words (for reference-vector tests and for resuming a saved state).
   * @throws {RangeError} when the words are not four 32-bit integers or are all zero.
   * @example SeededRandom.fromState([1, 2, 3, 4]).uint32() // 11520 (reference output of xoshiro128**)
   */
  static fromState(words: readonly [number, number, number, number]): SeededRandom {
    if (words.some((w) => !Number.isInteger(w) || w < 0 || w >= TWO_POW_32) || words.every((w) => w === 0))
      throw new RangeError("SeededRandom.fromState: need four unsigned 32-bit words, not all zero");
    const r = new SeededRandom(0);
    r.s0 = words[0] >>> 0;
    r.s1 = words[1] >>> 0;
    r.s2 = words[2] >>> 0;
    r.s3 = words[3] >>> 0;
    return r;
  }

  /** The current state words (a copy), e.g. to checkpoint a simulation. */
  state(): [number, number, number, number] {
    return [this.s0 >>> 0, this.s1 >>> 0, this.s2 >>> 0, this.s3 >>> 0];
  }

  /** Next raw output: an unsigned 32-bit integer (xoshiro128** step). */
  uint32(): number {
    const s1 = this.s1;
    const result = Math.imul(rotl(Math.imul(s1, 5), 7), 9);
    const t = s1 << 9;
    this.s2 ^= this.s0;
    this.s3 ^= s1;
    this.s1 = s1 ^ this.s2;
    this.s0 ^= this.s3;
    this.s2 ^= t;
    this.s3 = rotl(this.s3, 11);
    return result >>> 0;
  }

  /** Uniform double in [lo, hi) (53-bit resolution). @throws {RangeError} when lo > hi or either is not finite. */
  uniform(lo: number, hi: number): number {
    if (!(Number.isFinite(lo) && Number.isFinite(hi) && lo <= hi))
      throw new RangeError(`SeededRandom.uniform: need finite lo <= hi, got [${lo}, ${hi})`);
    return lo + (hi - lo) * this.next();
  }

  /**
   * Uniform integer in [lo, hi) (both integers). Uses rejection so every value is equally likely.
   * @throws {RangeError} when the bounds are not integers, hi <= lo, or the range exceeds 2^32.
   * @example new SeededRandom(1).int(0, 6) // one of 0..5
   */
  int(lo: number, hi: number): number {
    const span = hi - lo;
    if (!Number.isSafeInteger(lo) || !Number.isSafeInteger(hi) || span <= 0 || span > TWO_POW_32)
      throw new RangeError(
        `SeededRandom.int: need integers lo < hi with hi - lo <= 2^32, got [${lo}, ${hi})`,
      );
    // Largest multiple of span that fits in 2^32: values above it would bias the modulo.
    const limit = TWO_POW_32 - (TWO_POW_32 % span);
    let x = this.uint32();
    while (x >= limit) x = this.uint32();
    return lo + (x % span);
  }

  /** True with probability `p` (clamped to [0, 1]). */
  bernoulli(p: number): boolean {
    return this.uint32() < p * TWO_POW_32;
  }

  /**
   * Standard normal variate (mean 0, variance 1), then scaled: `mean + sd * z`. Marsaglia polar method; the second
   * variate of each pair is kept for the next call.
   */
  normal(mean = 0, sd = 1): number {
    if (this.hasSpare) {
      this.hasSpare = false;
      return mean + sd * this.spareNormal;
    }
    let u: number;
    let v: number;
    let w: number;
    do {
      u = this.uint32() / 2_147_483_648 - 1;
      v = this.uint32() / 2_147_483_648 - 1;
      w = u * u + v * v;
    } while (w >= 1 || w === 0);
    const f = Math.sqrt((-2 * Math.log(w)) / w);
    this.spareNormal = v * f;
    this.hasSpare = true;
    return mean + sd * u * f;
  }

  /**
   * Student t variate with `nu` degrees of freedom (variance nu / (nu - 2) when nu > 2). Bailey's polar method:
   * draw (u, v) uniform in the unit disc, w = u^2 + v^2, then t = u * sqrt(nu * (w^(-2/nu) - 1) / w).
   * @throws {RangeError} when nu is not a positive finite number.
   */
  studentT(nu: number): number {
    if (!(nu > 0 && Number.isFinite(nu)))
      throw new RangeError(`SeededRandom.studentT: nu must be positive and finite, got ${nu}`);
    let u: number;
    let w: number;
    do {
      u = this.uint32() / 2_147_483_648 - 1;
      const v = this.uint32() / 2_147_483_648 - 1;
      w = u * u + v * v;
    } while (w >= 1 || w === 0);
    // exp(log) rather than ** : V8's Math.pow is about twice as slow on this hot path.
    return u * Math.sqrt((nu * (Math.exp((-2 / nu) * Math.log(w)) - 1)) / w);
  }

  /**
   * Student t variate rescaled to unit variance: t * sqrt((nu - 2) / nu). Fat-tailed shocks that can replace a
   * standard normal without changing the volatility (excess kurtosis 6 / (nu - 4) for nu > 4).
   * @throws {RangeError} when nu <= 2 (the variance does not exist).
   */
  standardT(nu: number): number {
    if (!(nu > 2)) throw new RangeError(`SeededRandom.standardT: nu must exceed 2, got ${nu}`);
    return this.studentT(nu) * Math.sqrt((nu - 2) / nu);
  }

  /**
   * Gamma variate with the given shape k > 0 and scale theta > 0 (mean k * theta). Marsaglia-Tsang squeeze method;
   * for k < 1 uses the boost Gamma(k) = Gamma(k + 1) * U^(1/k).
   * @throws {RangeError} when shape or scale is not positive and finite.
   */
  gamma(shape: number, scale = 1): number {
    if (!(shape > 0 && Number.isFinite(shape) && scale > 0 && Number.isFinite(scale)))
      throw new RangeError(`SeededRandom.gamma: shape and scale must be positive, got ${shape} and ${scale}`);
    if (shape < 1) {
      const u = 1 - this.next(); // in (0, 1]
      return this.gamma(shape + 1, scale) * u ** (1 / shape);
    }
    const d = shape - 1 / 3;
    const c = 1 / Math.sqrt(9 * d);
    for (;;) {
      let x: number;
      let v: number;
      do {
        x = this.normal();
        v = 1 + c * x;
      } while (v <= 0);
      v = v * v * v;
      const u = 1 - this.next();
      const x2 = x * x;
      if (u < 1 - 0.0331 * x2 * x2) return d * v * scale;
      if (Math.log(u) < 0.5 * x2 + d * (1 - v + Math.log(v))) return d * v * scale;
    }
  }

  /** Chi-square variate with k > 0 degrees of freedom (= Gamma(k / 2, 2)). @throws {RangeError} when k <= 0. */
  chiSquare(k: number): number {
    if (!(k > 0)) throw new RangeError(`SeededRandom.chiSquare: k must be positive, got ${k}`);
    return this.gamma(k / 2, 2);
  }

  /** An element of a non-empty array, uniformly. @throws {RangeError} when the array is empty. */
  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new RangeError("SeededRandom.pick: the array is empty");
    return items[this.int(0, items.length)]!;
  }

  /**
   * Index drawn with probability proportional to `weights[i]` (non-negative, not all zero).
   * @throws {RangeError} when a weight is negative or not finite, or all are zero.
   */
  weightedIndex(weights: ArrayLike<number>): number {
    let total = 0;
    for (let i = 0; i < weights.length; i++) {
      const w = weights[i]!;
      if (!(w >= 0 && Number.isFinite(w)))
        throw new RangeError(
          `SeededRandom.weightedIndex: weight ${i} is ${w}; weights must be finite and >= 0`,
        );
      total += w;
    }
    if (total <= 0) throw new RangeError("SeededRandom.weightedIndex: all weights are zero");
    let target = this.next() * total;
    for (let i = 0; i < weights.length; i++) {
      target -= weights[i]!;
      if (target < 0) return i;
    }
    // Rounding can leave a tiny remainder: return the last positive weight.
    for (let i = weights.length - 1; i >= 0; i--) if (weights[i]! > 0) return i;
    return 0;
  }

  /** Fisher-Yates shuffle of `items`, in place; returns the same array. */
  shuffleInPlace<T>(items: T[]): T[] {
    for (let i = items.length - 1; i > 0; i--) {
      const j = this.int(0, i + 1);
      const tmp = items[i]!;
      items[i] = items[j]!;
      items[j] = tmp;
    }
    return items;
  }
}

/**
 * A seeded generator; shorthand for `new SeededRandom(seed)`.
 * @throws {RangeError} when `seed` is not a safe integer.
 * @example const rng = createRandom(7); rng.normal();
 */
export function createRandom(seed: number): SeededRandom {
  return new SeededRandom(seed);
}
