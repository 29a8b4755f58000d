/**
 * @module test/helpers/least-tax
 * Brute force of a withdrawal's least tax, independent of the lot engine: the feasible sales form a polytope
 * (0 <= shares_i <= held_i, sum shares_i x price_i = amount) and the tax (sum rate_i x shares_i x (price_i -
 * basis_i)) is linear, so its minimum is at a vertex: every lot sold in full or not at all, except at most one sold
 * in part. Enumerates every set of fully sold lots (2^n), each with every possible partly sold lot (or none).
 */

/** One lot as plain numbers: price and basis per share (USD), shares held, tax rate of its term. */
export interface PlainLot {
  price: number;
  shares: number;
  basis: number;
  rate: number;
}

/** The least tax of raising exactly `amount` from `lots` (Infinity when they cannot). */
export function leastTaxBruteForce(lots: readonly PlainLot[], amount: number): number {
  const n = lots.length;
  let best = Number.POSITIVE_INFINITY;
  for (let mask = 0; mask < 1 << n; mask++) {
    let raised = 0;
    let tax = 0;
    for (let i = 0; i < n; i++)
      if (mask & (1 << i)) {
        const l = lots[i]!;
        raised += l.shares * l.price;
        tax += l.rate * l.shares * (l.price - l.basis);
      }
    if (Math.abs(raised - amount) < 1e-9) best = Math.min(best, tax);
    for (let j = 0; j < n; j++) {
      if (mask & (1 << j)) continue;
      const l = lots[j]!;
      const rest = amount - raised;
      if (rest <= 0 || rest > l.shares * l.price) continue;
      best = Math.min(best, tax + (l.rate * rest * (l.price - l.basis)) / l.price);
    }
  }
  return best;
}
