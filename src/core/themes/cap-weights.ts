/**
 * @module core/themes/cap-weights
 * Normalizing base weights (1, market caps or scores) to weights that sum to 1 with no weight above a cap,
 * the excess of capped names redistributed over the others in proportion to their base weights.
 */

/** Result of {@link capWeights}. */
export interface CappedWeights {
  /** Weights aligned with the base weights; they sum to 1 (empty input: empty). */
  weights: Float64Array;
  /** Number of names held at the cap. */
  cappedCount: number;
  /**
   * True when the cap cannot be met because n x maxWeight < 1; the weights are then equal (1/n each), the
   * smallest possible largest weight.
   */
  capRelaxed: boolean;
}

/** Relative tolerance when comparing a weight with the cap (rounding of the redistribution). */
export const CAP_TOLERANCE = 1e-12;

/**
 * Capped proportional weights. Without a binding cap w_i = b_i / sum b. With a cap c, the result is the fixed
 * point of iterative redistribution (cap every weight above c, spread the excess over the uncapped names in
 * proportion to b, repeat until none exceeds c), computed in one pass: with b sorted descending, the k
 * largest names are capped for the smallest k such that
 *
 *   b_(k+1) (1 - k c) / sum_{j > k} b_(j) <= c,
 *
 * and the others get w_i = b_i (1 - k c) / sum_{j > k} b_(j). When n c < 1 no weights can satisfy the cap;
 * every name then gets 1/n and `capRelaxed` is true. O(n log n).
 *
 * @param base positive finite base weights (not mutated).
 * @param maxWeight the cap c in (0, 1]. @default 1 (no cap)
 * @throws {RangeError} when a base weight is not finite and positive, or `maxWeight` is outside (0, 1].
 * @example capWeights([6, 2, 1, 1], 0.4).weights // [0.4, 0.3, 0.15, 0.15]
 */
export function capWeights(base: ArrayLike<number>, maxWeight = 1): CappedWeights {
  const n = base.length;
  if (!(Number.isFinite(maxWeight) && maxWeight > 0 && maxWeight <= 1)) {
    throw new RangeError(`capWeights: maxWeight must be in (0, 1], got ${maxWeight}`);
  }
  for (let i = 0; i < n; i++) {
    const b = base[i]!;
    if (!(Number.isFinite(b) && b > 0)) {
      throw new RangeError(`capWeights: base[${i}] is ${b}; base weights must be finite and positive`);
    }
  }
  const weights = new Float64Array(n);
  if (n === 0) return { weights, cappedCount: 0, capRelaxed: false };
  if (n * maxWeight < 1 - CAP_TOLERANCE) {
    weights.fill(1 / n);
    return { weights, cappedCount: 0, capRelaxed: true };
  }
  // Order by base weight descending (index order among equals keeps the result deterministic).
  const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => base[b]! - base[a]! || a - b);
  // tail[k] = sum of the base weights from sorted position k on.
  const tail = new Float64Array(n + 1);
  for (let k = n - 1; k >= 0; k--) tail[k] = tail[k + 1]! + base[order[k]!]!;
  let k = 0;
  while (k < n) {
    const remaining = 1 - k * maxWeight;
    if ((base[order[k]!]! * remaining) / tail[k]! <= maxWeight * (1 + CAP_TOLERANCE)) break;
    k++;
  }
  const remaining = Math.max(0, 1 - k * maxWeight);
  for (let j = 0; j < n; j++) {
    const i = order[j]!;
    weights[i] = j < k ? maxWeight : (base[i]! * remaining) / tail[k]!;
  }
  return { weights, cappedCount: k, capRelaxed: false };
}
