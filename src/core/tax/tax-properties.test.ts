import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { addDays } from "../dates.js";
import { applyPurchase } from "./apply-purchase.js";
import { applySale } from "./apply-sale.js";
import { TaxDecimal as Decimal } from "./decimal.js";
import { createLot, type TaxLot } from "./lot.js";
import { type LotSelectionPolicy, selectLots } from "./lot-selection.js";
import { totalCostBasisUsd, unrealizedGain } from "./lot-values.js";
import { applySplit } from "./split.js";

const ASSET = "XYZ:XTSE";
const SALE_DATE = "2024-12-20";
// Tolerance for identities that go through 64-digit divisions (USD conversions, pro-rata basis).
const EPS = new Decimal("1e-30");

interface Scenario {
  lots: TaxLot[];
  price: string;
  saleFx: string;
  /** Fraction (0, 1] of the held shares to sell, in millionths. */
  fraction: number;
}

const lotArb = (currency: "USD" | "CAD") =>
  fc
    .record({
      qtyTenThousandths: fc.integer({ min: 1, max: 5_000_000 }),
      basisCents: fc.integer({ min: 0, max: 50_000 }),
      // Many lots bought within the wash-sale window of the sale, so wash sales happen often.
      tradeOffset: fc.oneof(fc.integer({ min: 0, max: 1800 }), fc.integer({ min: 1780, max: 1815 })),
      fxTenThousandths: fc.integer({ min: 12_000, max: 14_500 }),
      accountId: fc.constantFrom("a", "b"),
    })
    .map((r) => ({ ...r, currency }));

const scenarioArb: fc.Arbitrary<Scenario> = fc.constantFrom<"USD" | "CAD">("USD", "CAD").chain((currency) =>
  fc
    .record({
      raw: fc.array(lotArb(currency), { minLength: 1, maxLength: 8 }),
      priceCents: fc.integer({ min: 1, max: 60_000 }),
      saleFx: fc.integer({ min: 12_000, max: 14_500 }),
      fraction: fc.integer({ min: 1, max: 1_000_000 }),
    })
    .map(({ raw, priceCents, saleFx, fraction }) => ({
      lots: raw.map((r, i) =>
        createLot({
          id: `L${i}`,
          accountId: r.accountId,
          themeAssetId: ASSET,
          quantity: new Decimal(r.qtyTenThousandths).dividedBy(10_000),
          costBasisPerShare: new Decimal(r.basisCents).dividedBy(100),
          currency: r.currency,
          fxRate: r.currency === "USD" ? 1 : new Decimal(r.fxTenThousandths).dividedBy(10_000),
          tradeDate: addDays("2020-01-01", r.tradeOffset),
        }),
      ),
      price: new Decimal(priceCents).dividedBy(100).toString(),
      saleFx: currency === "USD" ? "1" : new Decimal(saleFx).dividedBy(10_000).toString(),
      fraction,
    })),
);

const policyArb = fc.constantFrom<LotSelectionPolicy>("TAX_OPTIMAL", "FIFO", "LIFO", "HIFO");
const held = (lots: readonly TaxLot[]) =>
  lots.filter((l) => l.tradeDate <= SALE_DATE).reduce((s, l) => s.plus(l.quantity), new Decimal(0));
/** Shares to sell: the fraction of the held shares, rounded down to 4 decimals, at least 0.0001. */
const qtyOf = (s: Scenario) =>
  Decimal.max(
    held(s.lots).times(s.fraction).dividedBy(1_000_000).toDecimalPlaces(4, Decimal.ROUND_DOWN),
    "0.0001",
  );
const sumUsd = (lots: readonly TaxLot[]) =>
  lots.reduce((s, l) => s.plus(totalCostBasisUsd(l)), new Decimal(0));
const unrealized = (lots: readonly TaxLot[], s: Scenario) =>
  lots.reduce(
    (acc, l) =>
      acc.plus(
        unrealizedGain(l, s.price, SALE_DATE, { fxRate: l.currency === "USD" ? 1 : s.saleFx }).gainUsd,
      ),
    new Decimal(0),
  );

describe("tax engine properties", () => {
  it("selects quantities that sum exactly to the request, each lot once and within its quantity", () => {
    fc.assert(
      fc.property(scenarioArb, policyArb, (s, policy) => {
        const q = qtyOf(s);
        const sel = selectLots(s.lots, q, policy, {
          themeAssetId: ASSET,
          saleDate: SALE_DATE,
          price: s.price,
          fxRate: s.saleFx,
        });
        const total = sel.picks.reduce((a, p) => a.plus(p.quantity), new Decimal(0));
        expect(total.eq(q)).toBe(true);
        const ids = sel.picks.map((p) => p.lotId);
        expect(new Set(ids).size).toBe(ids.length);
        for (const p of sel.picks) {
          const lot = s.lots.find((l) => l.id === p.lotId)!;
          expect(p.quantity.gt(0) && p.quantity.lte(lot.quantity)).toBe(true);
        }
        // Only the last pick may be partial: earlier picks take whole lots.
        for (const p of sel.picks.slice(0, -1))
          expect(p.quantity.eq(s.lots.find((l) => l.id === p.lotId)!.quantity)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it("accepts any SPECIFIC split of a quantity and returns it unchanged", () => {
    fc.assert(
      fc.property(
        scenarioArb,
        fc.array(fc.integer({ min: 0, max: 10_000 }), { minLength: 8, maxLength: 8 }),
        (s, parts) => {
          const lines = s.lots
            .filter((l) => l.tradeDate <= SALE_DATE)
            .map((l, i) => ({
              lotId: l.id,
              quantity: l.quantity.times(parts[i]!).dividedBy(10_000).toDecimalPlaces(4, Decimal.ROUND_DOWN),
            }))
            .filter((x) => x.quantity.gt(0));
          fc.pre(lines.length > 0);
          const q = lines.reduce((a, x) => a.plus(x.quantity), new Decimal(0));
          const sel = selectLots(s.lots, q, "SPECIFIC", {
            themeAssetId: ASSET,
            saleDate: SALE_DATE,
            price: s.price,
            fxRate: s.saleFx,
            specificLots: lines,
          });
          expect(sel.picks.map((p) => [p.lotId, p.quantity.toString()])).toEqual(
            lines.map((x) => [x.lotId, x.quantity.toString()]),
          );
        },
      ),
      { numRuns: 200 },
    );
  });

  it("conserves shares and basis through a sale, wash-sale transfers included, without mutating input", () => {
    fc.assert(
      fc.property(scenarioArb, policyArb, (s, policy) => {
        const snapshot = JSON.stringify(s.lots);
        const q = qtyOf(s);
        const r = applySale(s.lots, {
          themeAssetId: ASSET,
          quantity: q,
          price: s.price,
          fxRate: s.saleFx,
          date: SALE_DATE,
          policy,
        });
        expect(JSON.stringify(s.lots)).toBe(snapshot);
        const qtyBefore = s.lots.reduce((a, l) => a.plus(l.quantity), new Decimal(0));
        const qtyAfter = r.lots.reduce((a, l) => a.plus(l.quantity), new Decimal(0));
        const sold = r.realized.reduce((a, g) => a.plus(g.quantity), new Decimal(0));
        expect(qtyAfter.plus(sold).eq(qtyBefore)).toBe(true);
        expect(sold.eq(q)).toBe(true);
        const ids = r.lots.map((l) => l.id);
        expect(new Set(ids).size).toBe(ids.length);
        // USD: basis before + disallowed losses = basis sold + basis remaining.
        const disallowed = r.realized.reduce((a, g) => a.plus(g.disallowedLossUsd), new Decimal(0));
        const soldBasis = r.realized.reduce((a, g) => a.plus(g.costBasisUsd), new Decimal(0));
        expect(sumUsd(s.lots).plus(disallowed).minus(soldBasis).minus(sumUsd(r.lots)).abs().lt(EPS)).toBe(
          true,
        );
        // Lot currency, no wash sale: exact.
        if (r.washSales.length === 0) {
          const before = s.lots.reduce((a, l) => a.plus(l.totalCostBasis), new Decimal(0));
          const after = r.lots.reduce((a, l) => a.plus(l.totalCostBasis), new Decimal(0));
          const soldLocal = r.realized.reduce((a, g) => a.plus(g.costBasis), new Decimal(0));
          expect(after.plus(soldLocal).eq(before)).toBe(true);
        }
        // Wash-sale bookkeeping stays within the loss.
        for (const g of r.realized) {
          expect(g.washedQuantity.lte(g.quantity)).toBe(true);
          expect(g.disallowedLossUsd.gte(0)).toBe(true);
          if (g.gainUsd.gte(0)) expect(g.disallowedLossUsd.isZero()).toBe(true);
          else expect(g.disallowedLossUsd.lte(g.gainUsd.negated())).toBe(true);
        }
      }),
      { numRuns: 300 },
    );
  });

  it("splits total gain into recognized gain plus remaining unrealized gain", () => {
    fc.assert(
      fc.property(scenarioArb, policyArb, (s, policy) => {
        const r = applySale(s.lots, {
          themeAssetId: ASSET,
          quantity: qtyOf(s),
          price: s.price,
          fxRate: s.saleFx,
          date: SALE_DATE,
          policy,
        });
        const recognized = r.realized.reduce((a, g) => a.plus(g.recognizedGainUsd), new Decimal(0));
        // Lots bought after the sale date are valued too; they are untouched by the sale.
        const before = unrealized(
          s.lots.map((l) =>
            l.tradeDate > SALE_DATE ? { ...l, tradeDate: SALE_DATE, holdingPeriodStart: SALE_DATE } : l,
          ),
          s,
        );
        const after = unrealized(
          r.lots.map((l) =>
            l.holdingPeriodStart > SALE_DATE
              ? { ...l, tradeDate: SALE_DATE, holdingPeriodStart: SALE_DATE }
              : l,
          ),
          s,
        );
        expect(recognized.plus(after).minus(before).abs().lt(EPS)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it("moves exactly the disallowed loss into a later purchase's basis", () => {
    fc.assert(
      fc.property(
        scenarioArb,
        fc.integer({ min: 0, max: 40 }),
        fc.integer({ min: 1, max: 1_000_000 }),
        fc.integer({ min: 1, max: 60_000 }),
        (s, daysAfter, qtyTenThousandths, priceCents) => {
          const sale = applySale(s.lots, {
            themeAssetId: ASSET,
            quantity: qtyOf(s),
            price: s.price,
            fxRate: s.saleFx,
            date: SALE_DATE,
          });
          const cur = s.lots[0]!.currency;
          const p = applyPurchase(
            sale.lots,
            {
              id: "BUY",
              themeAssetId: ASSET,
              quantity: new Decimal(qtyTenThousandths).dividedBy(10_000),
              price: new Decimal(priceCents).dividedBy(100),
              currency: cur,
              fxRate: cur === "USD" ? 1 : "1.3",
              date: addDays(SALE_DATE, daysAfter),
            },
            sale.realized,
          );
          const added = p.realized
            .reduce((a, g) => a.plus(g.disallowedLossUsd), new Decimal(0))
            .minus(sale.realized.reduce((a, g) => a.plus(g.disallowedLossUsd), new Decimal(0)));
          const cost = new Decimal(qtyTenThousandths)
            .dividedBy(10_000)
            .times(new Decimal(priceCents).dividedBy(100))
            .dividedBy(cur === "USD" ? 1 : "1.3");
          expect(sumUsd(p.lots).minus(sumUsd(sale.lots)).minus(cost).minus(added).abs().lt(EPS)).toBe(true);
          if (daysAfter > 30) expect(added.isZero()).toBe(true);
          for (const g of p.realized) {
            expect(g.washedQuantity.lte(g.quantity)).toBe(true);
            expect(g.recognizedGainUsd.lte(0) || g.gainUsd.gte(0)).toBe(true);
          }
        },
      ),
      { numRuns: 200 },
    );
  });

  it("conserves total basis exactly through a split", () => {
    fc.assert(
      fc.property(
        scenarioArb,
        fc.integer({ min: 1, max: 20 }),
        fc.integer({ min: 1, max: 20 }),
        (s, n, d) => {
          const out = applySplit(s.lots, ASSET, { numerator: n, denominator: d });
          for (const [i, l] of out.entries()) {
            expect(l.totalCostBasis.eq(s.lots[i]!.totalCostBasis)).toBe(true);
            // Exact when n/d terminates in decimal; within 64 significant digits otherwise.
            expect(l.quantity.minus(s.lots[i]!.quantity.times(n).dividedBy(d)).abs().lt(EPS)).toBe(true);
          }
          // A split and its reverse give back the lots (quantity x n is divisible by n).
          const exact = applySplit(s.lots, ASSET, n);
          const back = applySplit(exact, ASSET, { numerator: 1, denominator: n });
          for (const [i, l] of back.entries()) expect(l.quantity.eq(s.lots[i]!.quantity)).toBe(true);
        },
      ),
      { numRuns: 200 },
    );
  });
});
