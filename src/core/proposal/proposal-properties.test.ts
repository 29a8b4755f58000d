import type { Decimal } from "decimal.js";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { addDays } from "../dates.js";
import { createLot, TaxDecimal, type TaxLot } from "../tax/index.js";
import { buildProposal } from "./build-proposal.js";
import type { ProposalInput, ProposalSecurity, ShortLot, TargetWeight } from "./proposal-input.js";
import type { ProposalResult } from "./proposal-result.js";

const AS_OF = "2025-03-03";
const D = (v: Decimal.Value) => new TaxDecimal(v);
const ZERO = D(0);
/** Identities that go through 64-digit divisions (USD conversions, estimated notional shares). */
const EPS = D("1e-30");

interface AssetSpec {
  cad: boolean;
  whole: boolean;
  priceCents: number;
  lots: { qty: number; basisCents: number; daysAgo: number; lossMarked: boolean }[];
  shortQty: number;
  shortProceedsCents: number;
  weight: number;
  restriction: "none" | "no_trade" | "no_hold";
}

const lotSpec = fc.record({
  qty: fc.integer({ min: 1, max: 2_000_000 }), // ten-thousandths of a share
  basisCents: fc.integer({ min: 0, max: 60_000 }),
  // Some lots within the 30-day wash-sale window, some on the one-year boundary, most older.
  daysAgo: fc.oneof(
    fc.integer({ min: 0, max: 40 }),
    fc.integer({ min: 360, max: 370 }),
    fc.integer({ min: 0, max: 2000 }),
  ),
  lossMarked: fc.boolean(),
});

const assetSpec = (longShort: boolean) =>
  fc.record({
    cad: fc.boolean(),
    whole: fc.boolean(),
    priceCents: fc.integer({ min: 50, max: 50_000 }),
    lots: fc.array(lotSpec, { maxLength: 4 }),
    shortQty: longShort ? fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 300 })) : fc.constant(0),
    shortProceedsCents: fc.integer({ min: 100, max: 60_000 }),
    weight: longShort ? fc.integer({ min: -400, max: 1000 }) : fc.integer({ min: 0, max: 1000 }),
    restriction: fc.constantFrom("none", "none", "none", "none", "no_trade", "no_hold"),
  });

const scenario = fc.boolean().chain((longShort) =>
  fc.record({
    longShort: fc.constant(longShort),
    assets: fc.array(assetSpec(longShort), { minLength: 1, maxLength: 6 }),
    cashCents: fc.oneof(fc.integer({ min: 0, max: 2_000_000 }), fc.integer({ min: 0, max: 5_000 })),
    /** Share of the investable value left in cash, per thousand. */
    slack: fc.integer({ min: 0, max: 300 }),
    buffer: fc.oneof(
      fc.constant<{ kind: "none" }>({ kind: "none" }),
      fc.record({
        kind: fc.constant<"fraction">("fraction"),
        perTenThousand: fc.integer({ min: 0, max: 1000 }),
      }),
      fc.record({ kind: fc.constant<"amount">("amount"), cents: fc.integer({ min: 0, max: 500_000 }) }),
    ),
    cadBufferPerTenThousand: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 300 })),
    fxTenThousandths: fc.integer({ min: 12_000, max: 14_500 }),
    feeHundredths: fc.constantFrom(0, 25, 100),
    preventSale: fc.boolean(),
    preventPurchase: fc.boolean(),
  }),
);

type Scenario = typeof scenario extends fc.Arbitrary<infer T> ? T : never;

function toInput(s: Scenario): ProposalInput {
  const securities: Record<string, ProposalSecurity> = {};
  const prices: Record<string, string> = {};
  const lots: TaxLot[] = [];
  const shortLots: ShortLot[] = [];
  const targets: TargetWeight[] = [];
  const noTrade: string[] = [];
  const noHold: string[] = [];
  const fx = D(s.fxTenThousandths).dividedBy(10_000);
  const spec = s.assets as AssetSpec[];
  const denominator = spec.reduce((t, a) => t + Math.abs(a.weight), 0) + s.slack + 1;
  spec.forEach((a, i) => {
    const id = a.cad ? `C${i}:XTSE` : `U${i}:XNYS`;
    securities[id] = { symbol: id.split(":")[0]!, currency: a.cad ? "CAD" : "USD", wholeSharesOnly: a.whole };
    prices[id] = D(a.priceCents).dividedBy(100).toString();
    const short = a.shortQty > 0 && a.lots.length === 0;
    if (short)
      shortLots.push({
        id: `S${i}`,
        themeAssetId: id,
        quantity: a.shortQty,
        proceeds: D(a.shortProceedsCents).times(a.shortQty).dividedBy(100),
        fxRate: a.cad ? "1.3" : 1,
        openDate: "2024-10-01",
      });
    else
      for (const [k, l] of a.lots.entries())
        lots.push(
          createLot({
            id: `L${i}.${k}`,
            themeAssetId: id,
            quantity: D(l.qty).dividedBy(10_000),
            costBasisPerShare: D(l.basisCents).dividedBy(100),
            currency: a.cad ? "CAD" : "USD",
            fxRate: a.cad ? "1.25" : 1,
            tradeDate: addDays(AS_OF, -l.daysAgo),
            lastSoldForLossDate: l.lossMarked ? addDays(AS_OF, -l.daysAgo % 31) : null,
          }),
        );
    if (a.restriction === "no_trade") noTrade.push(id);
    if (a.restriction === "no_hold") noHold.push(id);
    const weight = a.restriction === "no_hold" ? 0 : a.weight;
    // Weights rounded down (toward zero) to 10 places, as decimal(1,10) strings.
    targets.push({
      themeAssetId: id,
      weight: D(weight).dividedBy(denominator).toDecimalPlaces(10, 1).toString(),
    });
  });
  return {
    asOf: AS_OF,
    lots,
    shortLots,
    cashUsd: D(s.cashCents).dividedBy(100).toString(),
    securities,
    prices,
    fxRates: { CAD: fx.toString() },
    targets,
    config: {
      optimizationMode: s.longShort ? "LONG_SHORT" : "LONG_ONLY",
      noTradeTickers: noTrade,
      noHoldTickers: noHold,
      ...(s.buffer.kind === "fraction"
        ? { cashBufferUsd: D(s.buffer.perTenThousand).dividedBy(10_000).toString() }
        : {}),
      ...(s.buffer.kind === "amount"
        ? { cashBufferUsdAmount: D(s.buffer.cents).dividedBy(100).toString() }
        : {}),
      ...(s.cadBufferPerTenThousand > 0
        ? { cashBufferCad: D(s.cadBufferPerTenThousand).dividedBy(10_000).toString() }
        : {}),
      taxPreferences: {
        preventTlhInvalidatingSale: s.preventSale,
        preventTlhInvalidatingPurchase: s.preventPurchase,
      },
    },
    options: { fxFeePercentage: D(s.feeHundredths).dividedBy(100).toString() },
  };
}

/** Builds the proposal, or null when the buffers exceed NAV (a documented ValidationError, not a property). */
function run(s: Scenario): { input: ProposalInput; r: ProposalResult } | null {
  const input = toInput(s);
  try {
    return { input, r: buildProposal(input) };
  } catch (e) {
    if (e instanceof Error && /exceed the account's NAV|NAV .* is not positive/.test(e.message)) return null;
    throw e;
  }
}

const priceUsd = (input: ProposalInput, id: string) => {
  const price = D(input.prices[id]!);
  return input.securities[id]!.currency === "USD" ? price : price.dividedBy(D(input.fxRates!.CAD!));
};

/** USD reaching cash from a sell, leaving cash for a buy. */
const cashFlow = (o: ProposalResult["orders"][number]) => {
  if (o.side === "sell") return o.fxCostBreakdown?.netAmountUsd ?? o.amountUsd.negated();
  return o.amountUsd.negated();
};

const RUNS = { numRuns: 300, seed: 20250303 };

describe("buildProposal properties", () => {
  it("a sell's lot quantities sum exactly to its quantity, and no lot is sold twice or beyond its size", () => {
    fc.assert(
      fc.property(scenario, (s) => {
        const out = run(s);
        if (out === null) return;
        const held = new Map<string, Decimal>();
        for (const l of out.input.lots) held.set(l.id, l.quantity);
        for (const l of out.input.shortLots ?? []) held.set(l.id, D(l.quantity));
        const seen = new Set<string>();
        for (const o of out.r.orders) {
          if (o.taxLots === null) continue;
          const sum = o.taxLots.reduce((t, l) => t.plus(l.quantity), ZERO);
          expect(sum.eq(o.quantity)).toBe(true);
          expect(o.amount.abs().eq(o.quantity)).toBe(true);
          for (const l of o.taxLots) {
            expect(seen.has(l.lotId)).toBe(false);
            seen.add(l.lotId);
            expect(l.quantity.gt(0) && l.quantity.lte(held.get(l.lotId)!)).toBe(true);
          }
        }
      }),
      RUNS,
    );
  });

  it("buys never take cash below the buffers: post-trade cash >= buffers whenever the sells leave it there", () => {
    fc.assert(
      fc.property(scenario, (s) => {
        const out = run(s);
        if (out === null) return;
        const { r } = out;
        const afterSells = r.orders
          .filter((o) => o.side === "sell")
          .reduce((c, o) => c.plus(cashFlow(o)), r.cashUsd);
        if (afterSells.gte(r.reservedCashUsd)) expect(r.postTrade.cashUsd.gte(r.reservedCashUsd)).toBe(true);
        else {
          expect(r.orders.some((o) => o.side === "buy")).toBe(false);
          expect(r.postTrade.cashShortfallUsd.eq(r.reservedCashUsd.minus(r.postTrade.cashUsd))).toBe(true);
        }
        if (r.cashUsd.gte(r.reservedCashUsd)) expect(r.postTrade.cashUsd.gte(r.reservedCashUsd)).toBe(true);
      }),
      RUNS,
    );
  });

  it("conserves NAV up to the FX fees: cash + positions before = cash + positions after + fees", () => {
    fc.assert(
      fc.property(scenario, (s) => {
        const out = run(s);
        if (out === null) return;
        const { input, r } = out;
        // Cash recomputed from the orders, fees from the breakdowns.
        const cash = r.orders.reduce((c, o) => c.plus(cashFlow(o)), r.cashUsd);
        expect(cash.eq(r.postTrade.cashUsd)).toBe(true);
        const fees = r.orders.reduce((f, o) => f.plus(o.fxCostBreakdown?.feeAmountUsd ?? ZERO), ZERO);
        expect(fees.eq(r.fxFeesUsd)).toBe(true);
        // Positions revalued independently: post-trade quantity x price / fx.
        const positions = r.postTrade.positions.reduce(
          (t, p) => t.plus(p.quantity.times(priceUsd(input, p.themeAssetId))),
          ZERO,
        );
        const before = r.navUsd;
        expect(cash.plus(positions).plus(fees).minus(before).abs().lte(EPS)).toBe(true);
        expect(r.postTrade.navUsd.plus(fees).minus(before).abs().lte(EPS)).toBe(true);
      }),
      RUNS,
    );
  });

  it("lands within one share (share orders) or one cent (notional orders) of each target", () => {
    fc.assert(
      fc.property(scenario, (s) => {
        const out = run(s);
        if (out === null) return;
        const { input, r } = out;
        const blocked = new Set(
          r.dropped.filter((d) => d.reason !== "rounded_to_zero").map((d) => d.themeAssetId),
        );
        for (const p of r.postTrade.positions) {
          if (blocked.has(p.themeAssetId)) continue;
          const orders = r.orders.filter((o) => o.themeAssetId === p.themeAssetId);
          const shares =
            input.securities[p.themeAssetId]!.wholeSharesOnly === true ||
            p.targetValueUsd.lt(0) ||
            (input.shortLots ?? []).some((l) => l.themeAssetId === p.themeAssetId);
          const tolerance = shares ? priceUsd(input, p.themeAssetId) : D("0.01");
          const gap = p.marketValueUsd.minus(p.targetValueUsd);
          if (r.buyScale.lt(1) && orders.some((o) => o.side === "buy")) {
            // Scaled buys stay below their target.
            expect(gap.lte(tolerance)).toBe(true);
            continue;
          }
          expect(gap.abs().lte(tolerance)).toBe(true);
        }
      }),
      RUNS,
    );
  });

  it("orders sells before buys, each by theme_asset_id, and is deterministic", () => {
    fc.assert(
      fc.property(scenario, (s) => {
        const out = run(s);
        if (out === null) return;
        const keys = out.r.orders.map((o) => `${o.side === "sell" ? 0 : 1} ${o.themeAssetId}`);
        expect(keys).toEqual([...keys].sort());
        expect(JSON.stringify(buildProposal(out.input))).toBe(JSON.stringify(out.r));
      }),
      { ...RUNS, numRuns: 100 },
    );
  });
});
