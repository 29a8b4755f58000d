import { Decimal } from "decimal.js";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { assertValidLot, createLot, lotFromTrusted, normalizeLot, type TaxLot } from "./lot.js";
import {
  costBasisPerShare,
  costBasisPerShareUsd,
  marketValue,
  marketValueUsd,
  totalCostBasisUsd,
  unrealizedGain,
} from "./lot-values.js";

describe("tax lot", () => {
  it("multiplies a per-share basis out exactly and derives per-share values", () => {
    const lot = createLot({
      id: "L1",
      themeAssetId: "AAPL:XNAS",
      quantity: "12.5",
      costBasisPerShare: "150.2",
      tradeDate: "2024-01-02",
    });
    // 12.5 x 150.2 = 1877.5
    expect(lot.totalCostBasis.toString()).toBe("1877.5");
    expect(costBasisPerShare(lot).toString()).toBe("150.2");
    expect(totalCostBasisUsd(lot).toString()).toBe("1877.5");
    expect(lot.holdingPeriodStart).toBe("2024-01-02");
    expect(lot.washSaleDate).toBeNull();
    expect(lot.lastSoldForLossDate).toBeNull();
    // Market value at 160: 12.5 x 160 = 2000
    expect(marketValue(lot, "160").toString()).toBe("2000");
  });

  it("converts a CAD lot's basis to USD at its purchase FX rate", () => {
    // 100 RY @ CAD 130 = CAD 13,000; fx 1.35 CAD per USD -> USD 13000 / 1.35 = 9,629.63
    const lot = createLot({
      id: "RY1",
      themeAssetId: "RY:XTSE",
      quantity: 100,
      totalCostBasis: "13000",
      currency: "CAD",
      fxRate: "1.35",
      tradeDate: "2023-01-10",
    });
    expect(totalCostBasisUsd(lot).toFixed(2)).toBe("9629.63");
    expect(costBasisPerShareUsd(lot).toFixed(4)).toBe("96.2963");
    // Value at CAD 135 with 1.36 CAD/USD: 13,500 / 1.36 = 9,926.47
    expect(marketValueUsd(lot, 135, "1.36").toFixed(2)).toBe("9926.47");
  });

  it("reports unrealized gain and the term it would have on a date", () => {
    const lot = createLot({
      id: "L",
      themeAssetId: "X:XNYS",
      quantity: 10,
      costBasisPerShare: 90,
      tradeDate: "2023-06-01",
    });
    // 10 x (100 - 90) = 100; 2023-06-01 -> 2024-06-01 spans 2024-02-29: 366 days, exactly one year -> short
    const u = unrealizedGain(lot, 100, "2024-06-01");
    expect(u.gainUsd.toString()).toBe("100");
    expect(u.term).toBe("short_term");
    expect(u.holdingDays).toBe(366);
    expect(unrealizedGain(lot, 100, "2024-06-02").term).toBe("long_term");
    // Loss: 10 x (80 - 90) = -100
    expect(unrealizedGain(lot, 80, "2024-06-02").gainUsd.toString()).toBe("-100");
  });

  it("keeps full precision when the caller's Decimal is the low-precision default", () => {
    // 1/3-like divisions at 20 digits would lose cents on large totals; the engine works at 64 digits.
    const lot = createLot({
      id: "L",
      themeAssetId: "X:XNYS",
      quantity: new Decimal("3"),
      totalCostBasis: new Decimal("1000000000000.01"),
      tradeDate: "2024-01-02",
    });
    expect(costBasisPerShare(lot).times(3).toDecimalPlaces(10).toString()).toBe("1000000000000.01");
  });

  it("rejects invalid lots with messages that name the lot and the field", () => {
    const base = { id: "B", themeAssetId: "X:XNYS", tradeDate: "2024-01-02" };
    expect(() => createLot({ ...base, quantity: 0, costBasisPerShare: 1 })).toThrow(
      /createLot\(B\): quantity: must be > 0, got 0/,
    );
    expect(() => createLot({ ...base, quantity: 1, costBasisPerShare: -1 })).toThrow(
      /costBasisPerShare: must be >= 0/,
    );
    expect(() => createLot({ ...base, quantity: 1 })).toThrow(
      /exactly one of costBasisPerShare and totalCostBasis/,
    );
    expect(() => createLot({ ...base, quantity: 1, costBasisPerShare: 1, totalCostBasis: 1 })).toThrow(
      TypeError,
    );
    expect(() => createLot({ ...base, quantity: "abc", costBasisPerShare: 1 })).toThrow(
      /is not a decimal number/,
    );
    expect(() => createLot({ ...base, quantity: Number.NaN, costBasisPerShare: 1 })).toThrow(/not finite/);
    expect(() => createLot({ ...base, quantity: 1, costBasisPerShare: 1, fxRate: "1.3" })).toThrow(
      /a USD lot has fxRate 1/,
    );
    expect(() =>
      createLot({ ...base, quantity: 1, costBasisPerShare: 1, currency: "CAD", fxRate: 0 }),
    ).toThrow(/fxRate: must be > 0/);
    expect(() => createLot({ ...base, quantity: 1, costBasisPerShare: 1, tradeDate: "2024-13-01" })).toThrow(
      /tradeDate: "2024-13-01" is not a YYYY-MM-DD date/,
    );
    expect(() =>
      createLot({ ...base, quantity: 1, costBasisPerShare: 1, holdingPeriodStart: "2024-02-01" }),
    ).toThrow(/holdingPeriodStart 2024-02-01 is after tradeDate 2024-01-02/);
    expect(() => createLot({ ...base, quantity: 1, costBasisPerShare: 1, currency: "XYZ" as "USD" })).toThrow(
      /unknown currency "XYZ"/,
    );
  });

  it("names the caller, the lot and the field in every failed check of an unfrozen lot", () => {
    const good = {
      ...createLot({
        id: "U1",
        themeAssetId: "X:XNYS",
        quantity: 2,
        costBasisPerShare: 3,
        tradeDate: "2024-01-02",
      }),
    };
    const bad = (patch: Record<string, unknown>) => ({ ...good, ...patch }) as unknown as TaxLot;
    const cases: [Record<string, unknown>, string][] = [
      [{ quantity: 2 }, "where: lot U1: quantity must be a Decimal"],
      [{ totalCostBasis: new Decimal(Number.NaN) }, "where: lot U1: totalCostBasis is not finite"],
      [{ fxRate: null }, "where: lot U1: fxRate must be a Decimal"],
      [{ themeAssetId: "" }, "where: lot U1: themeAssetId must be a non-empty string"],
      [{ quantity: new Decimal(-1) }, "where: lot U1: quantity must be > 0, got -1"],
      [{ washSaleDate: "2024-02-30" }, 'where: lot U1: washSaleDate: "2024-02-30" is not a YYYY-MM-DD date'],
      [{ lastSoldForLossDate: "x" }, 'where: lot U1: lastSoldForLossDate: "x" is not a YYYY-MM-DD date'],
      [{ currency: "CAD", fxRate: new Decimal(0) }, "where: lot U1: fxRate must be > 0, got 0"],
    ];
    expect(() => assertValidLot(good, "where")).not.toThrow();
    for (const [patch, message] of cases) expect(() => assertValidLot(bad(patch), "where")).toThrow(message);
    expect(() => assertValidLot(bad({ id: "" }), "where")).toThrow("where: a lot has no id");
  });

  it("rejects valuing a USD lot at an FX rate other than 1", () => {
    const lot = createLot({
      id: "L",
      themeAssetId: "X:XNYS",
      quantity: 1,
      costBasisPerShare: 1,
      tradeDate: "2024-01-02",
    });
    expect(() => marketValueUsd(lot, 1, "1.2")).toThrow(/USD asset, its fxRate is 1/);
  });
});

describe("lotFromTrusted", () => {
  // Decimal strings as the contract accepts and the store keeps them: integers, fractions, trailing zeros,
  // long fractions (decimal(10,10) quantities, decimal(30,10) bases), zero bases.
  const decimalString = (intDigits: number, fracDigits: number, allowZero: boolean) =>
    fc
      .tuple(
        fc.bigInt({ min: allowZero ? 0n : 1n, max: 10n ** BigInt(intDigits + fracDigits) - 1n }),
        fc.integer({ min: 0, max: fracDigits }),
        fc.boolean(),
      )
      .map(([n, scale, pad]) => {
        const s = n.toString().padStart(scale + 1, "0");
        const text = scale === 0 ? s : `${s.slice(0, s.length - scale)}.${s.slice(s.length - scale)}`;
        return pad && scale > 0 ? `${text}00` : text;
      });
  const date = fc
    .integer({ min: 0, max: 20_000 })
    .map((n) => new Date(Date.UTC(1990, 0, 1) + n * 86_400_000).toISOString().slice(0, 10));
  const fields = fc
    .record({
      id: fc.uuid(),
      accountId: fc.option(fc.uuid(), { nil: undefined }),
      themeAssetId: fc.constantFrom("AAPL:XNAS", "RY:XTSE", "SHOP:XTSE", "VOD:XLON"),
      // Short digit strings take the double-product path of a per-share basis, long ones the Decimal product.
      quantity: fc.oneof(decimalString(10, 10, false), decimalString(3, 2, false)),
      costBasis: fc.oneof(decimalString(20, 10, true), decimalString(5, 4, true), fc.constant("0")),
      costBasisIsTotal: fc.boolean(),
      currency: fc.constantFrom("USD", "CAD", "EUR", "GBP", "JPY") as fc.Arbitrary<
        "USD" | "CAD" | "EUR" | "GBP" | "JPY"
      >,
      fxRate: decimalString(4, 10, false),
      tradeDate: date,
      holdingDays: fc.option(fc.integer({ min: 0, max: 400 }), { nil: null }),
      washSaleDate: fc.option(date, { nil: null }),
      lastSoldForLossDate: fc.option(date, { nil: null }),
    })
    .map(({ holdingDays, ...f }) => ({
      ...f,
      fxRate: f.currency === "USD" ? "1" : f.fxRate,
      holdingPeriodStart:
        holdingDays === null
          ? null
          : new Date(Date.parse(`${f.tradeDate}T00:00:00Z`) - holdingDays * 86_400_000)
              .toISOString()
              .slice(0, 10),
    }));

  it("builds the lot createLot builds from the same fields: same values, same keys in the same order", () => {
    // One map of shared quantities and FX rates across all runs, as across the lots of one read.
    const shared = new Map<string, Decimal>();
    fc.assert(
      fc.property(fields, (f) => {
        const viaCreate = createLot({
          id: f.id,
          ...(f.accountId === undefined ? {} : { accountId: f.accountId }),
          themeAssetId: f.themeAssetId,
          quantity: f.quantity,
          ...(f.costBasisIsTotal ? { totalCostBasis: f.costBasis } : { costBasisPerShare: f.costBasis }),
          currency: f.currency,
          fxRate: f.fxRate,
          tradeDate: f.tradeDate,
          ...(f.holdingPeriodStart ? { holdingPeriodStart: f.holdingPeriodStart } : {}),
          washSaleDate: f.washSaleDate,
          lastSoldForLossDate: f.lastSoldForLossDate,
        });
        const { accountId, ...rest } = f;
        const trusted = lotFromTrusted(accountId === undefined ? rest : { ...rest, accountId });
        expect(trusted).toStrictEqual(viaCreate);
        expect(Object.keys(trusted)).toEqual(Object.keys(viaCreate));
        for (const k of ["quantity", "totalCostBasis", "fxRate"] as const) {
          expect(trusted[k].toString()).toBe(viaCreate[k].toString());
          expect(trusted[k].constructor).toBe(viaCreate[k].constructor);
        }
        // Already in the engine's decimal configuration: normalizing keeps the object itself.
        expect(normalizeLot(trusted)).toBe(trusted);
        const sharing = lotFromTrusted(accountId === undefined ? rest : { ...rest, accountId }, shared);
        expect(sharing).toStrictEqual(viaCreate);
        expect(Object.keys(sharing)).toEqual(Object.keys(viaCreate));
        expect(sharing.quantity).toBe(shared.get(f.quantity));
      }),
      { numRuns: 3000 },
    );
  });
});
