/**
 * The large synthetic account of the proposal benchmarks (bench/proposal.bench.ts) and of the proposal
 * equivalence test: `positions` positions held in `lotsPerPosition` tax lots each (bought over six years at
 * mixed bases, 1 in 10 within the wash-sale window), 10% Canadian listings, 20% whole-share assets, 2% cash
 * and a 1% cash buffer. Seeded, reproducible.
 * - "full": every weight drifts by up to +-30%, 1 position in 25 removed, `newAssets` assets added.
 * - "typical": 1 position in 10 re-weighted, 1 in 50 removed, half of the new assets added.
 */
import { Decimal } from "decimal.js";
import { addDays } from "../../src/core/dates.js";
import type { ProposalInput, ProposalSecurity, TargetWeight } from "../../src/core/proposal/index.js";
import { createLot, type TaxLot } from "../../src/core/tax/index.js";

export const AS_OF = "2025-03-03";

export interface LargeProposalShape {
  positions: number;
  lotsPerPosition: number;
  newAssets: number;
}

/** The benchmark's size: 500 positions, 10,000 lots, 20 new assets. */
export const BENCH_SHAPE: LargeProposalShape = { positions: 500, lotsPerPosition: 20, newAssets: 20 };

/** Park-Miller minimal standard generator (seeded, reproducible). */
function lcg(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 16807) % 2147483647;
    return s / 2147483647;
  };
}

export function makeLargeProposalInput(
  seed: number,
  scenario: "full" | "typical",
  shape: LargeProposalShape = BENCH_SHAPE,
): ProposalInput {
  const { positions: POSITIONS, lotsPerPosition: LOTS_PER_POSITION, newAssets: NEW_ASSETS } = shape;
  const rnd = lcg(seed);
  const securities: Record<string, ProposalSecurity> = {};
  const prices: Record<string, string> = {};
  const lots: TaxLot[] = [];
  const ids: string[] = [];
  const values: number[] = [];
  const cadPerUsd = 1.3712;
  for (let i = 0; i < POSITIONS + NEW_ASSETS; i++) {
    const cad = i % 10 === 7;
    const id = cad ? `C${String(i).padStart(4, "0")}:XTSE` : `U${String(i).padStart(4, "0")}:XNYS`;
    ids.push(id);
    securities[id] = {
      symbol: id.split(":")[0]!,
      currency: cad ? "CAD" : "USD",
      wholeSharesOnly: i % 5 === 3,
    };
    const price = Math.round((10 + rnd() * 490) * 100) / 100;
    prices[id] = price.toFixed(2);
    if (i >= POSITIONS) {
      values.push(0);
      continue;
    }
    let shares = 0;
    for (let k = 0; k < LOTS_PER_POSITION; k++) {
      const qty = 1 + Math.floor(rnd() * 40);
      shares += qty;
      // Basis within -40%..+60% of today's price; 1 lot in 10 bought in the last 30 days.
      const basis = (price * (0.6 + rnd())).toFixed(2);
      const daysAgo = k % 10 === 9 ? Math.floor(rnd() * 30) : 31 + Math.floor(rnd() * 2200);
      lots.push(
        createLot({
          id: `${id}#${k}`,
          themeAssetId: id,
          quantity: qty,
          costBasisPerShare: basis,
          currency: cad ? "CAD" : "USD",
          fxRate: cad ? (1.25 + rnd() * 0.15).toFixed(4) : 1,
          tradeDate: addDays(AS_OF, -daysAgo),
        }),
      );
    }
    values.push((shares * price) / (cad ? cadPerUsd : 1));
  }
  // Targets are fractions of investable = NAV - 1% buffer (as the optimizer sends them).
  // full: every weight drifts by up to +-30%, 20 removed, 20 added (renormalized to sum 1).
  // typical: 1 position in 10 drifts (their total kept), 10 removed and their weight given to 10 added.
  const total = values.reduce((a, b) => a + b, 0);
  // 2% cash: above the 1% buffer, so unchanged positions need no trade.
  const cash = new Decimal(total * 0.02).toDecimalPlaces(2);
  const nav = new Decimal(total).plus(cash);
  const investable = nav.minus(nav.times("0.01").toDecimalPlaces(2, Decimal.ROUND_CEIL)).toNumber();
  const full = scenario === "full";
  let raw: number[];
  if (full) {
    raw = ids.map((_, i) => {
      if (i >= POSITIONS) return total / POSITIONS;
      if (i % 25 === 11) return 0;
      return values[i]! * (0.7 + 0.6 * rnd());
    });
    const rawSum = raw.reduce((a, b) => a + b, 0);
    raw = raw.map((v) => (v / rawSum) * investable);
  } else {
    raw = values.map((v, i) => (i < POSITIONS && i % 50 === 11 ? 0 : v));
    const freed = values.reduce((t, v, i) => t + (i < POSITIONS && i % 50 === 11 ? v : 0), 0);
    const drifting = raw.map((_, i) => i < POSITIONS && i % 10 === 4);
    const before = raw.reduce((t, v, i) => t + (drifting[i] ? v : 0), 0);
    const drifted = raw.map((v, i) => (drifting[i] ? v * (0.7 + 0.6 * rnd()) : v));
    const after = drifted.reduce((t, v, i) => t + (drifting[i] ? v : 0), 0);
    raw = drifted.map((v, i) => (drifting[i] ? (v * before) / after : v));
    for (let i = POSITIONS; i < POSITIONS + NEW_ASSETS / 2; i++) raw[i] = freed / (NEW_ASSETS / 2);
  }
  const targets: TargetWeight[] = [];
  ids.forEach((id, i) => {
    if (raw[i]! > 0)
      targets.push({
        themeAssetId: id,
        weight: new Decimal(raw[i]! / investable).toFixed(10, Decimal.ROUND_DOWN),
      });
  });
  return {
    asOf: AS_OF,
    lots,
    cashUsd: cash.toFixed(2),
    securities,
    prices,
    fxRates: { CAD: String(cadPerUsd) },
    targets,
    config: { cashBufferUsd: "0.01" },
  };
}
