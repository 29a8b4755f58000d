/**
 * Applying a traded proposal through the service on SQLite (`executeProposal`): a stored 500-order proposal (250
 * sells naming the lots the builder picked, 250 buys, a fifth of them re-buying an asset sold the same day) on an
 * account of 10,000 tax lots (500 positions x 20 lots over six years, 1 in 10 within the wash-sale window; the same
 * book as bench/ledger.bench.ts). One call = the whole operation: the already-applied check, the book and household
 * reads, the core's applyExecutions, and ledger.applyBatch in one transaction. Every run applies its own proposal
 * to its own account (an applied proposal cannot be applied again), each account read cold. Goal: median <= 50 ms.
 * Writes bench/results/ledger-apply.json. Run: `npm run bench:ledger-apply`.
 */
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ProposalResponse } from "../src/contract/index.js";
import { addDays } from "../src/core/dates.js";
import { createRandom } from "../src/core/random.js";
import { createLot, selectLots, TaxDecimal, type TaxLot } from "../src/core/tax/index.js";
import { minimalSecurity } from "../src/market/importers/minimal-security.js";
import { createClient, createOrganization, type ServiceContext } from "../src/service/index.js";
import { executeProposal } from "../src/service/ledger.js";
import { ledgerLotInput, openSqliteStore } from "../src/store/index.js";
import { line, stats, writeResult } from "./lib/harness.js";

const POSITIONS = 500;
const LOTS_PER_POSITION = 20;
const TRADE_DATE = "2025-06-02";
const RUNS = 11;
const WARMUP = 2;
const gc = (globalThis as { gc?: () => void }).gc;

const dir = mkdtempSync(join(tmpdir(), "lotwise-ledger-apply-"));
const store = openSqliteStore(join(dir, "bench.db"));
const ctx: ServiceContext = { store, clock: () => new Date("2025-06-03T12:00:00Z") };

const rng = createRandom(20250602);
const assets = Array.from({ length: POSITIONS }, (_, i) => `S${String(i).padStart(3, "0")}:XNYS`);
const prices = assets.map(() => Math.round((20 + rng.next() * 280) * 100) / 100);
store.engine.market.upsertSecurities(assets.map((id) => minimalSecurity(id, { name: id })));
store.engine.market.insertPrices(
  assets.map((id, i) => ({
    themeAssetId: id,
    date: TRADE_DATE,
    open: null,
    high: null,
    low: null,
    close: prices[i]!,
    adjClose: null,
    volume: null,
  })),
);
const org = (await createOrganization(ctx, "Ledger bench")).organization.uuid;

/** One account with its 10,000 lots (ids unique store-wide) and its stored 500-order proposal. */
async function seedAccount(n: number): Promise<{ client: string; account: string; proposal: string }> {
  // Its own client: the accounts of one client are one household, whose wash sales reach each other's lots.
  const client = (await createClient(ctx, org, {})).uuid;
  const account = (await store.accounts.create(org, client, { cashValueUsd: "1000000" })).uuid;
  const r = createRandom(20250602 + 1);
  const lots: TaxLot[] = [];
  assets.forEach((asset, i) => {
    for (let k = 0; k < LOTS_PER_POSITION; k++) {
      const recent = r.next() < 0.1;
      const daysAgo = recent ? 1 + Math.floor(r.next() * 29) : 31 + Math.floor(r.next() * 6 * 365);
      lots.push(
        createLot({
          id: `A${n}-L${i}-${k}`,
          accountId: account,
          themeAssetId: asset,
          quantity: 1 + Math.floor(r.next() * 100),
          costBasisPerShare: (prices[i]! * (0.6 + r.next() * 0.8)).toFixed(2),
          tradeDate: addDays(TRADE_DATE, -daysAgo),
        }),
      );
    }
  });
  await store.ledger.applyBatch(account, {
    executions: [],
    realized: [],
    lotsAfter: lots.map(ledgerLotInput),
    shortLotsAfter: [],
    cashDelta: "0",
  });
  const byAsset = new Map<string, TaxLot[]>();
  for (const l of lots) byAsset.set(l.themeAssetId, [...(byAsset.get(l.themeAssetId) ?? []), l]);
  const orders: ProposalResponse["orders"] = [];
  for (let i = 0; i < 250; i++) {
    const asset = assets[i]!;
    const held = byAsset.get(asset)!;
    const total = held.reduce((s, l) => s.plus(l.quantity), new TaxDecimal(0));
    const quantity = total.times(0.4).floor();
    const picks = selectLots(held, quantity, "TAX_OPTIMAL", {
      themeAssetId: asset,
      saleDate: TRADE_DATE,
      price: prices[i]!,
    });
    orders.push({
      ticker: asset,
      ticker_symbol: asset.split(":")[0]!,
      currency: "USD",
      amount: `-${quantity.toFixed()}`,
      type: "qty",
      order_category: "long",
      tax_lots: picks.picks.map((p) => ({
        cost_basis: p.costBasisUsd.toFixed(2),
        quantity: p.quantity.toFixed(),
        trade_date: held.find((l) => l.id === p.lotId)!.tradeDate,
        gain: "0",
        lot_id: p.lotId,
      })),
      fx_cost_breakdown: null,
    });
  }
  for (let i = 0; i < 250; i++) {
    const a = i % 5 === 0 ? i : 250 + i;
    orders.push({
      ticker: assets[a]!,
      ticker_symbol: assets[a]!.split(":")[0]!,
      currency: "USD",
      amount: String(1 + Math.floor(r.next() * 50)),
      type: "qty",
      order_category: "long",
      tax_lots: null,
      fx_cost_breakdown: null,
    });
  }
  const uuid = randomUUID();
  const response: ProposalResponse = {
    proposal_uuid: uuid,
    cash_buffer_cad_amount: null,
    cash_buffer_usd_amount: null,
    orders,
    as_of_date: TRADE_DATE,
  };
  await store.proposals.insertSerialized(org, account, uuid, {}, JSON.stringify(response));
  return { client, account, proposal: uuid };
}

const t0 = performance.now();
const seeded: { client: string; account: string; proposal: string }[] = [];
for (let n = 0; n < RUNS + WARMUP; n++) seeded.push(await seedAccount(n));
console.log(
  `seeded ${seeded.length} accounts of ${POSITIONS * LOTS_PER_POSITION} lots with a 500-order proposal each in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
);

const samples: number[] = [];
const cpu: number[] = [];
let last: Awaited<ReturnType<typeof executeProposal>> | undefined;
for (let n = 0; n < seeded.length; n++) {
  const { client, account, proposal } = seeded[n]!;
  gc?.();
  const c0 = process.cpuUsage();
  const s = performance.now();
  last = await executeProposal(ctx, org, client, account, proposal);
  const ms = performance.now() - s;
  const c = process.cpuUsage(c0);
  if (n >= WARMUP) {
    samples.push(ms);
    cpu.push((c.user + c.system) / 1000);
  }
}
const washed = last!.realized.filter((r) => r.adjustment_code === "W").length;
console.log(
  `${last!.execution_ids.length} executions -> ${last!.lots} lots, ${last!.realized.length} realized rows (${washed} washed)`,
);
const wall = stats(samples);
const cpuStats = stats(cpu);
console.log(
  line(
    `executeProposal (service, SQLite), 500 orders on 10,000 lots, median of ${RUNS}`,
    wall.medianMs,
    "ms",
    {
      max: 50,
    },
  ),
);
console.log(line("  min", wall.minMs, "ms"));
console.log(line("  CPU time per call (median)", cpuStats.medianMs, "ms"));
const path = writeResult("ledger-apply", {
  lots: POSITIONS * LOTS_PER_POSITION,
  executions: last!.execution_ids.length,
  realizedRows: last!.realized.length,
  washedRows: washed,
  goalMs: 50,
  runs: RUNS,
  medianMs: wall.medianMs,
  minMs: wall.minMs,
  p90Ms: wall.p90Ms,
  cpuMedianMs: cpuStats.medianMs,
});
console.log(`wrote ${path}`);
await store.close();
rmSync(dir, { recursive: true, force: true });
