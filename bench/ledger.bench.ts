/**
 * The account ledger: a 500-order batch (a traded proposal) applied to an account of 10,000 tax lots
 * (500 positions x 20 lots bought over six years, 1 in 10 within the wash-sale window).
 * The batch is a traded proposal (below). Goal: median <= 50 ms. Also times the same batch on lots the engine has
 * not seen before (unfrozen copies), and the same trades naming no lots (picked by the account's lot method).
 * Writes bench/results/ledger.json. Run: `npm run bench:ledger`.
 */

import { addDays } from "../src/core/dates.js";
import { applyExecutions, type Execution, type LedgerBook } from "../src/core/ledger/index.js";
import { createRandom } from "../src/core/random.js";
import { createLot, selectLots, TaxDecimal, type TaxLot } from "../src/core/tax/index.js";
import { line, stats, writeResult } from "./lib/harness.js";

const POSITIONS = 500;
const LOTS_PER_POSITION = 20;
const TRADE_DATE = "2025-06-02";
const gc = (globalThis as { gc?: () => void }).gc;

/**
 * Wall-clock order statistics of `runs` calls after `warmup`, with a full GC before each (outside the clock) when
 * --expose-gc is on; plus the median CPU time of the process per call (user + system, which counts the GC
 * threads too): on a machine shared with other jobs the wall clock also counts the time spent waiting for a core.
 */
function timed(fn: () => unknown, runs = 21, warmup = 3) {
  for (let i = 0; i < warmup; i++) fn();
  const samples: number[] = [];
  const cpu: number[] = [];
  for (let i = 0; i < runs; i++) {
    gc?.();
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    fn();
    samples.push(performance.now() - t0);
    const c = process.cpuUsage(c0);
    cpu.push((c.user + c.system) / 1000);
  }
  return { ...stats(samples), cpuMedianMs: stats(cpu).medianMs };
}

const rng = createRandom(20250602);
const assets = Array.from({ length: POSITIONS }, (_, i) => `S${String(i).padStart(3, "0")}:XNYS`);
const prices = assets.map(() => Math.round((20 + rng.next() * 280) * 100) / 100);
const lots: TaxLot[] = [];
assets.forEach((asset, i) => {
  for (let k = 0; k < LOTS_PER_POSITION; k++) {
    const recent = rng.next() < 0.1;
    const daysAgo = recent ? 1 + Math.floor(rng.next() * 29) : 31 + Math.floor(rng.next() * 6 * 365);
    lots.push(
      createLot({
        id: `L${i}-${k}`,
        accountId: "A",
        themeAssetId: asset,
        quantity: 1 + Math.floor(rng.next() * 100),
        costBasisPerShare: (prices[i]! * (0.6 + rng.next() * 0.8)).toFixed(2),
        tradeDate: addDays(TRADE_DATE, -daysAgo),
      }),
    );
  }
});
const book: LedgerBook = { accountId: "A", cashUsd: new TaxDecimal(1_000_000), lots };

/**
 * The batch of a traded proposal: each of the first 250 positions sells 40% of its shares, naming the lots the
 * proposal builder picked (selectLots, TAX_OPTIMAL: losses first), at the close +-5%; 250 buys (a fifth re-buy an
 * asset sold the same day: wash sales when its sale lost), the rest add to the other 250 positions.
 */
const byAsset = new Map<string, TaxLot[]>();
for (const l of lots) byAsset.set(l.themeAssetId, [...(byAsset.get(l.themeAssetId) ?? []), l]);
const proposal: Execution[] = [];
const byMethod: Execution[] = [];
for (let i = 0; i < 250; i++) {
  const asset = assets[i]!;
  const held = byAsset.get(asset)!;
  const price = (prices[i]! * (0.95 + rng.next() * 0.1)).toFixed(2);
  const total = held.reduce((s, l) => s.plus(l.quantity), new TaxDecimal(0));
  const quantity = total.times(0.4).floor();
  const picks = selectLots(held, quantity, "TAX_OPTIMAL", {
    themeAssetId: asset,
    saleDate: TRADE_DATE,
    price,
  });
  const sell = {
    id: `s${i}`,
    kind: "sell" as const,
    themeAssetId: asset,
    tradeDate: TRADE_DATE,
    price,
    fees: "0.5",
  };
  proposal.push({
    ...sell,
    quantity: quantity.toString(),
    lots: picks.picks.map((p) => ({ lotId: p.lotId, quantity: p.quantity.toString() })),
  });
  byMethod.push({ ...sell, quantity: quantity.toString() });
}
for (let i = 0; i < 250; i++) {
  const a = i % 5 === 0 ? i : 250 + i;
  const buy: Execution = {
    id: `b${i}`,
    kind: "buy",
    themeAssetId: assets[a]!,
    tradeDate: TRADE_DATE,
    quantity: 1 + Math.floor(rng.next() * 50),
    price: prices[a]!,
  };
  proposal.push(buy);
  byMethod.push(buy);
}

const options = { lotMethod: "TAX_OPTIMAL" } as const;
const sample = applyExecutions(book, proposal, options);
const losses = sample.rows.filter((r) => r.gain.isNegative()).length;
const washed = sample.rows.filter((r) => r.adjustmentCode === "W").length;
console.log(
  `${lots.length} lots, ${proposal.length} executions -> ${sample.book.lots.length} lots, ` +
    `${sample.rows.length} realized rows (${losses} losses, ${washed} washed), cash ${sample.book.cashUsd.toFixed(2)}`,
);
const frozen = timed(() => applyExecutions(book, proposal, options));
console.log(
  line("applyExecutions, 500-order proposal on 10,000 lots, median of 21", frozen.medianMs, "ms", {
    max: 50,
  }),
);
console.log(line("  min", frozen.minMs, "ms"));
console.log(line("  CPU time per call (median)", frozen.cpuMedianMs, "ms"));
const copies = Array.from({ length: 24 }, () => lots.map((l) => ({ ...l })));
let k = 0;
const unseen = timed(() => applyExecutions({ ...book, lots: copies[k++]! }, proposal, options));
console.log(line("  on lots not seen before (median)", unseen.medianMs, "ms"));
// The same trades without named lots (a broker file): the ledger picks the lots by the account's method.
const method = timed(() => applyExecutions(book, byMethod, options));
console.log(line("  same trades by lot method, no lots named (median)", method.medianMs, "ms"));
const path = writeResult("ledger", {
  lots: lots.length,
  executions: proposal.length,
  realizedRows: sample.rows.length,
  washedRows: washed,
  goalMs: 50,
  medianMs: frozen.medianMs,
  minMs: frozen.minMs,
  p90Ms: frozen.p90Ms,
  cpuMedianMs: frozen.cpuMedianMs,
  unseenLotsMedianMs: unseen.medianMs,
  byLotMethodMedianMs: method.medianMs,
});
console.log(`wrote ${path}`);
