import type { Decimal } from "decimal.js";
import { describe, expect, it } from "vitest";
import { leastTaxBruteForce } from "../../../test/helpers/least-tax.js";
import { TaxDecimal } from "./decimal.js";
import { createLot, type TaxLot } from "./lot.js";
import { type RaiseCashAsset, raiseCash } from "./raise-cash.js";

/**
 * A hand account on 2025-06-30 (short-term rate 40%, long-term 15%). Prices AAA 80, BBB 40, CCC 25, DDD 50.
 *
 * | lot | asset | shares | basis/sh | term  | proceeds | gain | tax  | tax per $ |
 * |-----|-------|--------|----------|-------|----------|------|------|-----------|
 * | L1  | AAA   | 10     | 100      | long  | 800      | -200 | -30  | -0.0375   |
 * | L2  | AAA   | 10     | 70       | short | 800      | 100  | 40   | 0.05      |
 * | L3  | BBB   | 20     | 45       | short | 800      | -100 | -40  | -0.05     |
 * | L4  | BBB   | 20     | 20       | long  | 800      | 400  | 60   | 0.075     |
 * | L5  | CCC   | 40     | 20       | long  | 1000     | 200  | 30   | 0.03      |
 * | L6  | DDD   | 10     | 40       | short | 500      | 100  | 40   | 0.08      |
 * | L7  | DDD   | 10     | 10       | long  | 500      | 400  | 60   | 0.12      |
 *
 * The engine's order: L3, L1, L5, L2, L4, L6, L7 (a short-term gain of 5% per dollar, L2, comes before a long-term
 * gain of 50% per dollar, L4: "long-term before short-term" alone would pay more tax).
 */
const ST = "2025-02-03";
const LT = "2024-01-02";
const lot = (id: string, symbol: string, shares: number, basisPerShare: number, date: string) =>
  createLot({
    id,
    themeAssetId: `${symbol}:XNYS`,
    quantity: shares,
    costBasisPerShare: basisPerShare,
    tradeDate: date,
  });
const LOTS: TaxLot[] = [
  lot("L1", "AAA", 10, 100, LT),
  lot("L2", "AAA", 10, 70, ST),
  lot("L3", "BBB", 20, 45, ST),
  lot("L4", "BBB", 20, 20, LT),
  lot("L5", "CCC", 40, 20, LT),
  lot("L6", "DDD", 10, 40, ST),
  lot("L7", "DDD", 10, 10, LT),
];
const PRICE: Record<string, number> = { "AAA:XNYS": 80, "BBB:XNYS": 40, "CCC:XNYS": 25, "DDD:XNYS": 50 };
const RATES = { shortTerm: new TaxDecimal("0.4"), longTerm: new TaxDecimal("0.15") };

function assets(extra: Partial<RaiseCashAsset> = {}): Map<string, RaiseCashAsset> {
  return new Map(
    Object.entries(PRICE).map(([id, p]) => [id, { proceedsPerShareUsd: new TaxDecimal(p), ...extra }]),
  );
}

function run(amount: number | string, options: { minTrade?: number; whole?: boolean } = {}) {
  return raiseCash({
    asOf: "2025-06-30",
    amountUsd: new TaxDecimal(amount),
    lots: LOTS,
    assets: assets({ wholeShares: options.whole === true }),
    rates: RATES,
    ...(options.minTrade === undefined ? {} : { minTradeUsd: new TaxDecimal(options.minTrade) }),
  });
}

/** Each lot as plain numbers: price, shares, basis per share, tax rate. */
const PLAIN = LOTS.map((l) => ({
  price: PRICE[l.themeAssetId]!,
  shares: l.quantity.toNumber(),
  basis: l.totalCostBasis.toNumber() / l.quantity.toNumber(),
  rate: l.tradeDate === LT ? 0.15 : 0.4,
}));

const n = (d: Decimal) => d.toNumber();

describe("raiseCash (withdrawal lot engine)", () => {
  it("raises 3,000 USD from L3, L1, L5 in full and 5 shares of L2, for a tax of -20 USD", () => {
    const r = run(3000);
    expect(r.picks.map((p) => [p.lotId, p.quantity.toString(), p.gainUsd.toString()])).toEqual([
      ["L3", "20", "-100"],
      ["L1", "10", "-200"],
      ["L5", "40", "200"],
      ["L2", "5", "50"],
    ]);
    expect(r.raisedUsd.toString()).toBe("3000");
    // Short-term -100 + 50 = -50 (x 40% = -20); long-term -200 + 200 = 0.
    expect(r.shortTermUsd.toString()).toBe("-50");
    expect(r.longTermUsd.toString()).toBe("0");
    expect(r.taxUsd.toString()).toBe("-20");
    expect(r.shortfallUsd.toString()).toBe("0");
    expect(r.orders.map((o) => [o.themeAssetId, o.quantity.toString(), o.closes])).toEqual([
      ["BBB:XNYS", "20", false],
      ["AAA:XNYS", "15", false],
      ["CCC:XNYS", "40", true],
    ]);
  });

  it.each([300, 800, 1600, 2599.99, 3000, 4321.37, 5150.5, 5200])(
    "raises %s USD to the cent with the least tax of every feasible lot set (brute force)",
    (amount) => {
      const r = run(amount);
      expect(Math.abs(n(r.raisedUsd) - amount)).toBeLessThan(0.01);
      expect(n(r.raisedUsd)).toBeGreaterThanOrEqual(amount);
      // Rounding a partial lot up to 6 decimals of a share costs at most a millionth of a share's tax.
      expect(n(r.taxUsd)).toBeCloseTo(leastTaxBruteForce(PLAIN, amount), 4);
    },
  );

  it("beats the category order (losses, then long-term gains, then short-term gains) when a short-term gain is cheaper per dollar", () => {
    // Category order for 3,000: L3, L1, L5, then 400 USD of L4 (10 shares, gain 200 x 15% = 30): tax 30 - 40 - 30 + 30 = -10.
    expect(n(run(3000).taxUsd)).toBe(-20);
    expect(leastTaxBruteForce(PLAIN, 3000)).toBeCloseTo(-20, 9);
  });

  it("reports a shortfall when the lots are worth less than the amount", () => {
    const r = run(7000); // the lots are worth 5,200
    expect(r.raisedUsd.toString()).toBe("5200");
    expect(r.shortfallUsd.toString()).toBe("1800");
  });

  it("with whole shares sells the fewest whole shares of the last lot that cover the amount", () => {
    // After L3, L1, L5 (2,600), 410 USD more: ceil(410 / 80) = 6 shares of L2 = 480, raising 3,080 >= 3,010.
    const r = run(3010, { whole: true });
    expect(r.picks.map((p) => [p.lotId, p.quantity.toString()])).toEqual([
      ["L3", "20"],
      ["L1", "10"],
      ["L5", "40"],
      ["L2", "6"],
    ]);
    expect(r.raisedUsd.toString()).toBe("3080");
    for (const o of r.orders) expect(o.quantity.isInteger()).toBe(true);
    // Without whole shares: 5.125 shares, 3,010 exactly.
    expect(run(3010).raisedUsd.toString()).toBe("3010");
  });

  it("never starts an order below the minimum trade: the rest comes from an asset already sold, to the cent", () => {
    // Minimum 500: 800 from L3 (BBB); the 50 USD left would start AAA or CCC orders of 50 USD (below 500),
    // so it comes from BBB's next lot, L4: 1.25 shares (gain 1.25 x 20 = 25, long-term).
    const r = run(850, { minTrade: 500 });
    expect(r.picks.map((p) => [p.lotId, p.quantity.toString()])).toEqual([
      ["L3", "20"],
      ["L4", "1.25"],
    ]);
    expect(r.raisedUsd.toString()).toBe("850");
    expect(r.taxUsd.toString()).toBe("-36.25"); // -40 + 25 x 0.15
    for (const o of r.orders) expect(o.closes || n(o.proceedsUsd) >= 500).toBe(true);
  });

  it("raises the minimum trade when the amount alone is below it (over by less than the minimum)", () => {
    // 100 USD with a 500 USD minimum: BBB (best lot, L3) sells 500 USD = 12.5 shares.
    const r = run(100, { minTrade: 500 });
    expect(r.picks.map((p) => [p.lotId, p.quantity.toString()])).toEqual([["L3", "12.5"]]);
    expect(r.raisedUsd.toString()).toBe("500");
    expect(n(r.raisedUsd) - 100).toBeLessThan(500);
  });

  it("skips no-trade assets and, with prevent_tlh_invalidating_sale, the loss lots of washed assets", () => {
    const a = assets();
    a.set("BBB:XNYS", { proceedsPerShareUsd: new TaxDecimal(40), lossWashed: true });
    a.set("CCC:XNYS", { proceedsPerShareUsd: new TaxDecimal(25), frozen: true });
    const r = raiseCash({
      asOf: "2025-06-30",
      amountUsd: new TaxDecimal(1000),
      lots: LOTS,
      assets: a,
      rates: RATES,
      keepWashedLosses: true,
    });
    // L3 (a washed loss) and L5 (no-trade) are not sold: L1 (800), then 200 USD of L2 (2.5 shares).
    expect(r.picks.map((p) => [p.lotId, p.quantity.toString()])).toEqual([
      ["L1", "10"],
      ["L2", "2.5"],
    ]);
    // Without the prevention, the washed loss is ranked as no saving (0 per dollar): after L1, before L5.
    const loose = raiseCash({
      asOf: "2025-06-30",
      amountUsd: new TaxDecimal(1000),
      lots: LOTS,
      assets: a,
      rates: RATES,
    });
    expect(loose.picks.map((p) => p.lotId)).toEqual(["L1", "L3"]);
    expect(loose.taxUsd.toString()).toBe("-30"); // the washed loss saves nothing
  });

  it("refuses a non-positive amount", () => {
    expect(() => run(0)).toThrow(/positive/);
    expect(() => run(-5)).toThrow(/positive/);
  });
});
