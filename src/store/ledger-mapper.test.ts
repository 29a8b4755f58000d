/**
 * realizedInput with a batch's DecimalTexts (the service's path) against the straightforward conversion it replaced:
 * every decimal column as `toFixed()`, the lean JSON record with its decimals serialized by JSON.stringify itself. On
 * seeded random entries whose decimals repeat across rows and within a row (as a batch's do), with the values where
 * `toJSON` and `toFixed` differ (exponents past the constructor's limits, negative zero, decimals of another
 * configuration), the stored values are the same text, and the entry read back has every field of the entry written.
 */
import { Decimal } from "decimal.js";
import { describe, expect, it } from "vitest";
import type { LedgerEntry } from "../core/ledger/index.js";
import { realizedRows } from "../core/ledger/realized.js";
import { createRandom } from "../core/random.js";
import { ONE, TaxDecimal, ZERO } from "../core/tax/decimal.js";
import type { RealizedGain } from "../core/tax/index.js";
import { DecimalTexts, entryFromRecord, realizedInput } from "./ledger-mapper.js";
import { realizedValues } from "./repositories/ledger.js";

/** A decimal of another configuration: decimal.js's defaults write an exponent from 1e21 on. */
const PlainDecimal = Decimal.clone({ precision: 30 });

/** The values where the texts of toJSON and toFixed differ, or that a batch shares. */
const EDGES: Decimal[] = [
  ZERO,
  ONE,
  new TaxDecimal("-0"),
  new TaxDecimal("1.5e61"),
  new TaxDecimal("-2.5e-45"),
  new TaxDecimal("1e-40"),
  new TaxDecimal("1e60"),
  new TaxDecimal("9.99e59"),
  new PlainDecimal("123456789012345678901234.5"),
  new PlainDecimal("-0.00000000123"),
];

function randomEntries(seed: number, count: number): LedgerEntry[] {
  const rng = createRandom(seed);
  const int = (n: number) => Math.floor(rng.next() * n);
  const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)]!;
  const fresh = (): Decimal => {
    const digits = String(1 + int(10 ** (1 + int(12))));
    const scale = int(24);
    const text =
      scale === 0
        ? digits
        : digits.length > scale
          ? `${digits.slice(0, digits.length - scale)}.${digits.slice(digits.length - scale)}`
          : `0.${"0".repeat(scale - digits.length)}${digits}`;
    return new TaxDecimal(rng.next() < 0.4 ? `-${text}` : text);
  };
  // A few shared objects per "sale", as a batch's price and FX rates.
  const shared = Array.from({ length: 6 }, fresh);
  const any = (): Decimal => {
    const u = rng.next();
    return u < 0.2 ? pick(EDGES) : u < 0.45 ? pick(shared) : fresh();
  };
  const entries: LedgerEntry[] = [];
  for (let i = 0; i < count; i++) {
    const proceeds = any();
    const costBasis = any();
    const gainUsd = any();
    const washed = rng.next() < 0.3;
    const disallowed = washed ? any() : ZERO;
    const withAccount = rng.next() < 0.5;
    const record: RealizedGain = {
      lotId: `L${i}`,
      ...(withAccount ? { accountId: "acc-1" } : {}),
      themeAssetId: pick(["AAA:XNYS", "BBB:XTSE"]),
      quantity: any(),
      saleDate: "2025-06-02",
      tradeDate: `2024-01-0${1 + int(9)}`,
      holdingPeriodStart: `2023-12-3${int(2)}`,
      holdingDays: int(900),
      term: pick(["short_term", "long_term"] as const),
      currency: pick(["USD", "CAD"] as const),
      price: any(),
      lotFxRate: any(),
      saleFxRate: any(),
      proceeds,
      costBasis,
      // The USD figures are the lot-currency objects themselves at FX 1, or others.
      proceedsUsd: rng.next() < 0.6 ? proceeds : any(),
      costBasisUsd: rng.next() < 0.6 ? costBasis : any(),
      gainUsd,
      disallowedLossUsd: disallowed,
      washedQuantity: washed ? any() : ZERO,
      washSaleMatches: washed
        ? [{ replacementLotId: `R${i}`, quantity: any(), disallowedLossUsd: disallowed, date: "2025-06-02" }]
        : [],
      recognizedGainUsd: washed ? any() : gainUsd,
    };
    const short = rng.next() < 0.15;
    entries.push(
      short
        ? {
            id: `x${i >> 2}:${(i & 3) + 1}`,
            sourceId: `x${i >> 2}`,
            side: "short",
            openDate: "2025-05-01",
            record,
          }
        : { id: `x${i >> 2}:${(i & 3) + 1}`, sourceId: `x${i >> 2}`, side: "long", record },
    );
  }
  return entries;
}

/** The row as realizedInput built it before DecimalTexts: toFixed per column, Decimals in the lean record. */
function referenceValues(entry: LedgerEntry): unknown[] {
  const g = entry.record;
  const input = realizedInput(entry, undefined, new DecimalTexts());
  const lean = {
    ...(g.accountId === undefined ? {} : { accountId: g.accountId }),
    holdingPeriodStart: g.holdingPeriodStart,
    holdingDays: g.holdingDays,
    currency: g.currency,
    price: g.price,
    lotFxRate: g.lotFxRate,
    saleFxRate: g.saleFxRate,
    proceeds: g.proceeds,
    costBasis: g.costBasis,
    gainUsd: g.gainUsd,
    washedQuantity: g.washedQuantity,
    washSaleMatches: g.washSaleMatches,
  };
  return realizedValues(
    "account",
    "client",
    {
      ...input,
      quantity: g.quantity.toFixed(),
      proceeds: g.proceedsUsd.toFixed(),
      costBasis: g.costBasisUsd.toFixed(),
      adjustment: g.disallowedLossUsd.toFixed(),
      gain: g.recognizedGainUsd.toFixed(),
      record: { record: lean },
    },
    (v) => v,
  );
}

/** Every field equal: decimals by value (`eq`) and by their plain text (`toFixed`), the rest strictly. */
function expectSame(actual: unknown, expected: unknown, path: string): void {
  if (
    expected instanceof Decimal ||
    (expected !== null && typeof expected === "object" && "toFixed" in expected)
  ) {
    const a = actual as Decimal;
    const b = expected as Decimal;
    expect(a.eq(b), path).toBe(true);
    expect(a.toFixed(), path).toBe(b.toFixed());
  } else if (Array.isArray(expected)) {
    expect((actual as unknown[]).length, path).toBe(expected.length);
    for (let i = 0; i < expected.length; i++)
      expectSame((actual as unknown[])[i], expected[i], `${path}[${i}]`);
  } else if (expected !== null && typeof expected === "object") {
    expect(Object.keys(actual as object), path).toEqual(Object.keys(expected));
    for (const k of Object.keys(expected))
      expectSame(
        (actual as Record<string, unknown>)[k],
        (expected as Record<string, unknown>)[k],
        `${path}.${k}`,
      );
  } else expect(actual, path).toBe(expected);
}

describe("DecimalTexts", () => {
  it("gives toFixed's and toJSON's texts, for the edge values and random ones, however often asked", () => {
    const texts = new DecimalTexts();
    const values = [...EDGES, ...randomEntries(7, 200).flatMap((e) => [e.record.quantity, e.record.price])];
    for (let round = 0; round < 2; round++)
      for (const d of values) {
        expect(texts.fixed(d)).toBe(d.toFixed());
        expect(texts.json(d)).toBe(d.toJSON());
        expect(JSON.stringify(texts.json(d))).toBe(JSON.stringify(d));
      }
  });
});

describe("realizedInput with a batch's DecimalTexts", () => {
  it("stores the same text as converting each decimal on its own, and reads back every field (seeded cases)", () => {
    for (const seed of [1, 2, 3, 20250602]) {
      const entries = randomEntries(seed, 400);
      const rows = realizedRows(entries);
      const texts = new DecimalTexts();
      entries.forEach((entry, i) => {
        const input = realizedInput(entry, rows[i], texts);
        const values = realizedValues("account", "client", input, (v) => v);
        expect(values).toEqual(referenceValues(entry));
        const back = entryFromRecord({
          ...input,
          accountUuid: "account",
          clientUuid: "client",
          record: JSON.parse(values[values.length - 1] as string),
        });
        expectSame(back, entry, `${entry.id}`);
      });
    }
  });
});
