/**
 * The optimized selectLots against the straightforward implementation it replaced
 * (test/helpers/reference-lot-selection.ts): on random lots, sale contexts and policies, both give the same
 * selection to the last digit (picks, order, quantities, basis, gains, terms, wash-sale estimates) or throw
 * the same error. The random lots hit the edges the fast paths must respect: equal bases and zero gains
 * (ties), holding periods on the long-term boundary around February 29, both holding-period conventions,
 * lots on the wash-sale window's edges, tacked holding periods, already-adjusted lots, other assets and
 * accounts, lots bought after the sale, planned purchases.
 */
import type { Decimal as DecimalType } from "decimal.js";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { referenceSelectLots } from "../../../test/helpers/reference-lot-selection.js";
import { addDays } from "../dates.js";
import { TaxDecimal as Decimal } from "./decimal.js";
import { createLot, prepareLots, type TaxLot } from "./lot.js";
import {
  type LotSelection,
  type LotSelectionContext,
  type LotSelectionPolicy,
  selectLots,
  selectPreparedLots,
} from "./lot-selection.js";

const ASSET = "XYZ:XNYS";
const SALE_DATES = ["2024-03-01", "2024-02-29", "2025-02-28", "2025-03-01", "2028-02-29", "2100-03-01"];

const lotArb = fc.record({
  qtyTenThousandths: fc.oneof(fc.integer({ min: 1, max: 400_000 }), fc.constantFrom(10_000, 50_000)),
  // A few bases only, so equal bases (ties) and bases equal to the price (zero gains) are common.
  basisCents: fc.oneof(fc.integer({ min: 0, max: 20_000 }), fc.constantFrom(0, 5_000, 10_000, 10_001)),
  daysAgo: fc.oneof(
    fc.integer({ min: -5, max: 50 }),
    fc.integer({ min: 360, max: 372 }),
    fc.integer({ min: 725, max: 740 }),
    fc.integer({ min: 0, max: 4000 }),
  ),
  tackedDays: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 400 })),
  adjusted: fc.boolean(),
  otherAsset: fc.boolean(),
  account: fc.constantFrom("a", "b"),
});

const caseArb = fc.record({
  cad: fc.boolean(),
  fxTenThousandths: fc.integer({ min: 12_000, max: 14_500 }),
  lots: fc.array(lotArb, { minLength: 0, maxLength: 14 }),
  saleDate: fc.constantFrom(...SALE_DATES),
  priceCents: fc.oneof(fc.integer({ min: 1, max: 20_000 }), fc.constantFrom(5_000, 10_000)),
  saleFxTenThousandths: fc.integer({ min: 12_000, max: 14_500 }),
  /** Share of the eligible shares to sell, per million (above a million: more than held). */
  fraction: fc.oneof(fc.integer({ min: 0, max: 1_000_000 }), fc.constant(1_000_000), fc.constant(1_200_000)),
  policy: fc.constantFrom<LotSelectionPolicy>(
    "TAX_OPTIMAL",
    "TAX_OPTIMAL",
    "FIFO",
    "LIFO",
    "HIFO",
    "SPECIFIC",
  ),
  handling: fc.constantFrom("deprioritize", "avoid", "flag", undefined),
  longTerm: fc.constantFrom(undefined, 365, 730, 30),
  washWindow: fc.constantFrom(undefined, 30, 45, 0),
  convention: fc.constantFrom<"calendar" | "actual_days" | undefined>(undefined, "calendar", "actual_days"),
  byAccount: fc.boolean(),
  purchases: fc.array(
    fc.record({ daysAgo: fc.integer({ min: -40, max: 40 }), qty: fc.integer({ min: 0, max: 30 }) }),
    { maxLength: 3 },
  ),
});

type Case = typeof caseArb extends fc.Arbitrary<infer T> ? T : never;

function build(c: Case): {
  lots: TaxLot[];
  quantity: DecimalType;
  context: LotSelectionContext;
  policy: LotSelectionPolicy;
} {
  const lots = c.lots.map((l, i) => {
    const tradeDate = addDays(c.saleDate, -l.daysAgo);
    return createLot({
      id: `L${(i * 7) % 10}${i}`,
      accountId: l.account,
      themeAssetId: l.otherAsset ? "OTHER:XNYS" : ASSET,
      quantity: new Decimal(l.qtyTenThousandths).dividedBy(10_000),
      costBasisPerShare: new Decimal(l.basisCents).dividedBy(100),
      currency: c.cad ? "CAD" : "USD",
      fxRate: c.cad ? new Decimal(c.fxTenThousandths).dividedBy(10_000) : 1,
      tradeDate,
      holdingPeriodStart: addDays(tradeDate, -l.tackedDays),
      washSaleDate: l.adjusted ? tradeDate : null,
    });
  });
  const eligible = lots.filter(
    (l) => l.themeAssetId === ASSET && l.tradeDate <= c.saleDate && (!c.byAccount || l.accountId === "a"),
  );
  const held = eligible.reduce((s, l) => s.plus(l.quantity), new Decimal(0));
  const quantity = held.times(c.fraction).dividedBy(1_000_000).toDecimalPlaces(4);
  // SPECIFIC: the eligible lots in reverse id order, until the quantity is reached.
  const specificLots: { lotId: string; quantity: string }[] = [];
  let left = quantity;
  for (const l of [...eligible].sort((a, b) => (a.id < b.id ? 1 : -1))) {
    if (left.lte(0)) break;
    const q = l.quantity.lte(left) ? l.quantity : left;
    specificLots.push({ lotId: l.id, quantity: q.toString() });
    left = left.minus(q);
  }
  const context: LotSelectionContext = {
    themeAssetId: ASSET,
    saleDate: c.saleDate,
    price: new Decimal(c.priceCents).dividedBy(100),
    ...(c.cad ? { fxRate: new Decimal(c.saleFxTenThousandths).dividedBy(10_000) } : {}),
    ...(c.byAccount ? { accountId: "a" } : {}),
    ...(c.handling === undefined
      ? {}
      : { washSaleHandling: c.handling as "deprioritize" | "avoid" | "flag" }),
    ...(c.longTerm === undefined ? {} : { longTermThresholdDays: c.longTerm }),
    ...(c.washWindow === undefined ? {} : { washSaleThresholdDays: c.washWindow }),
    ...(c.convention === undefined ? {} : { holdingPeriodConvention: c.convention }),
    purchases: c.purchases.map((p) => ({
      themeAssetId: ASSET,
      date: addDays(c.saleDate, -p.daysAgo),
      quantity: p.qty,
    })),
    specificLots,
  };
  return { lots, quantity, context, policy: c.policy };
}

/** The selection as exact strings (Decimal#toJSON), or the error's class and message. */
function outcome(run: () => unknown): string {
  try {
    return JSON.stringify(run());
  } catch (e) {
    return `${(e as Error).name}: ${(e as Error).message}`;
  }
}

describe("selectLots matches the reference implementation", () => {
  it("on random lots, contexts and policies", () => {
    fc.assert(
      fc.property(caseArb, (c) => {
        const { lots, quantity, context, policy } = build(c);
        const expected = outcome(() => referenceSelectLots(lots, quantity, policy, context));
        expect(outcome(() => selectLots(lots, quantity, policy, context))).toBe(expected);
      }),
      { numRuns: 3000 },
    );
  });

  it("on equal bases across the long-term boundary, with a lot id shared by another asset", () => {
    const context: LotSelectionContext = {
      themeAssetId: ASSET,
      saleDate: "2024-03-01",
      price: "100",
      fxRate: "1.35",
    };
    const mk = (id: string, asset: string, days: number, basis: string) =>
      createLot({
        id,
        themeAssetId: asset,
        quantity: "3",
        costBasisPerShare: basis,
        currency: "CAD",
        fxRate: "1.3",
        tradeDate: addDays("2024-03-01", -days),
      });
    const set = [mk("B", ASSET, 366, "99.99"), mk("A", ASSET, 365, "99.99"), mk("A", "OTHER:XNYS", 3, "1")];
    for (const policy of ["TAX_OPTIMAL", "FIFO", "LIFO", "HIFO"] as const)
      expect(outcome(() => selectLots(set, "4", policy, context))).toBe(
        outcome(() => referenceSelectLots(set, "4", policy, context)),
      );
  });
});

/** Every field of two selections equal: decimals by value (`eq`) and by their text (`toFixed`), the rest strictly. */
function expectSameSelection(actual: LotSelection, expected: LotSelection): void {
  const same = (a: unknown, b: unknown, path: string): void => {
    if (a !== null && typeof a === "object" && typeof (a as DecimalType).toFixed === "function") {
      expect((a as DecimalType).eq(b as DecimalType), path).toBe(true);
      expect((a as DecimalType).toFixed(), path).toBe((b as DecimalType).toFixed());
    } else if (Array.isArray(a)) {
      expect(Array.isArray(b), path).toBe(true);
      expect(a.length, path).toBe((b as unknown[]).length);
      for (let i = 0; i < a.length; i++) same(a[i], (b as unknown[])[i], `${path}[${i}]`);
    } else if (a !== null && typeof a === "object") {
      expect(Object.keys(a), path).toEqual(Object.keys(b as object));
      for (const k of Object.keys(a))
        same((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], `${path}.${k}`);
    } else expect(a, path).toBe(b);
  };
  same(actual, expected, "selection");
}

describe("selectPreparedLots (applySale's path: lots already checked) selects what selectLots selects", () => {
  it("on random lots, contexts and policies, frozen or not: every field, or the same error", () => {
    fc.assert(
      fc.property(caseArb, fc.boolean(), (c, copies) => {
        const built = build(c);
        // Lots read from a store are not frozen: nothing of them is cached across calls.
        const lots = copies ? built.lots.map((l) => ({ ...l })) : built.lots;
        const { quantity, context, policy } = built;
        let expected: LotSelection | Error;
        try {
          expected = selectLots(lots, quantity, policy, context);
        } catch (e) {
          expected = e as Error;
        }
        const prepared = prepareLots(
          lots.filter((l) => l.themeAssetId === ASSET),
          "test",
        );
        if (expected instanceof Error) {
          const err = (() => {
            try {
              selectPreparedLots(prepared, quantity, policy, context);
            } catch (e) {
              return e as Error;
            }
            return null;
          })();
          expect(err?.constructor).toBe(expected.constructor);
          expect(err?.message).toBe(expected.message);
          return;
        }
        expectSameSelection(selectPreparedLots(prepared, quantity, policy, context), expected);
      }),
      { numRuns: 2000, seed: 20250602 },
    );
  });
});
