import { describe, expect, it } from "vitest";
import { applyPurchase } from "./apply-purchase.js";
import { applySale } from "./apply-sale.js";
import { createLot, type TaxLot } from "./lot.js";
import { costBasisPerShare } from "./lot-values.js";

const ASSET = "XYZ:XNYS";
const usdLot = (id: string, quantity: number, basis: number, tradeDate: string): TaxLot =>
  createLot({ id, themeAssetId: ASSET, quantity, costBasisPerShare: basis, tradeDate });

/** OLD: 100 @ 50 bought 2024-01-16, all sold at 40 on 2024-06-14: loss -1000, held 150 days. */
function lossSale() {
  return applySale([usdLot("OLD", 100, 50, "2024-01-16")], {
    themeAssetId: ASSET,
    quantity: 100,
    price: 40,
    date: "2024-06-14",
  });
}

describe("applyPurchase", () => {
  it("books a plain purchase as a new lot", () => {
    const r = applyPurchase([], {
      id: "N",
      themeAssetId: ASSET,
      quantity: "2.5",
      price: "101.2",
      date: "2024-07-18",
    });
    expect(
      r.lots.map((l) => [l.id, l.quantity.toString(), l.totalCostBasis.toString(), l.holdingPeriodStart]),
    ).toEqual([
      ["N", "2.5", "253", "2024-07-18"], // 2.5 x 101.2
    ]);
    expect(r.washSales).toEqual([]);
  });

  it("reproduces the IRS VITA wash-sale case study (basis 800 + 250 = 1,050)", () => {
    // IRS VITA "Capital Gain or Loss Workout", Holding Period, Case Study 1: buy 100 shares for $1,000, sell
    // them for $750, buy 100 shares within 30 days for $800: the $250 loss is disallowed, new basis $1,050.
    const sold = applySale([usdLot("X1", 100, 10, "2024-02-01")], {
      themeAssetId: ASSET,
      quantity: 100,
      price: "7.5",
      date: "2024-05-01",
    });
    expect(sold.realized[0]!.gainUsd.toString()).toBe("-250");
    const p = applyPurchase(
      sold.lots,
      { id: "X2", themeAssetId: ASSET, quantity: 100, price: 8, date: "2024-05-15" },
      sold.realized,
    );
    expect(p.lots[0]!.totalCostBasis.toString()).toBe("1050");
    expect(p.realized[0]!.recognizedGainUsd.toString()).toBe("0");
  });

  it("washes a loss sold 20 days before the purchase: basis +1000, holding period tacked", () => {
    const sale = lossSale();
    expect(sale.realized[0]!.gainUsd.toString()).toBe("-1000");
    const r = applyPurchase(
      sale.lots,
      { id: "N1", themeAssetId: ASSET, quantity: 100, price: 45, date: "2024-07-04" },
      sale.realized,
    );
    const n = r.lots[0]!;
    // Basis 100 x 45 + 1000 = 5500 (55.00 per share).
    expect(n.totalCostBasis.toFixed(2)).toBe("5500.00");
    expect(costBasisPerShare(n).toFixed(2)).toBe("55.00");
    // Holding period: 150 days before 2024-07-04 -> 2024-02-05 (Jul 4 -> Jun 4 = 30, -> May 4 = 31, -> Apr 4
    // = 30, -> Mar 4 = 31, -> Feb 5 = 28; total 150).
    expect([n.tradeDate, n.holdingPeriodStart, n.washSaleDate]).toEqual([
      "2024-07-04",
      "2024-02-05",
      "2024-07-04",
    ]);
    const g = r.realized[0]!;
    expect([
      g.disallowedLossUsd.toString(),
      g.recognizedGainUsd.toString(),
      g.washedQuantity.toString(),
    ]).toEqual(["1000", "0", "100"]);
    expect(r.washSales.map((w) => [w.soldLotId, w.replacementLotId, w.tackedDays, w.date])).toEqual([
      ["OLD", "N1", 150, "2024-07-04"],
    ]);
    // The input records are not changed.
    expect(sale.realized[0]!.disallowedLossUsd.toString()).toBe("0");
  });

  it("washes through day 30 after the sale and not on day 31", () => {
    const sale = lossSale();
    const buy = (date: string) =>
      applyPurchase(
        sale.lots,
        { id: "N", themeAssetId: ASSET, quantity: 100, price: 45, date },
        sale.realized,
      );
    expect(buy("2024-07-14").realized[0]!.disallowedLossUsd.toString()).toBe("1000"); // day 30
    expect(buy("2024-07-15").realized[0]!.disallowedLossUsd.toString()).toBe("0"); // day 31
    expect(buy("2024-07-15").lots[0]!.totalCostBasis.toString()).toBe("4500");
    // A custom window of 10 days.
    const ten = applyPurchase(
      sale.lots,
      { id: "N", themeAssetId: ASSET, quantity: 100, price: 45, date: "2024-06-25" },
      sale.realized,
      { washSaleThresholdDays: 10 },
    );
    expect(ten.realized[0]!.disallowedLossUsd.toString()).toBe("0");
  });

  it("washes pro rata with a partial repurchase, then the rest with a later one", () => {
    const sale = lossSale();
    // 40 shares at 45: 1000 x 40/100 = 400 disallowed; basis 40 x 45 + 400 = 2200 (55/share).
    const p1 = applyPurchase(
      sale.lots,
      { id: "N1", themeAssetId: ASSET, quantity: 40, price: 45, date: "2024-07-04" },
      sale.realized,
    );
    expect(p1.realized[0]!.disallowedLossUsd.toString()).toBe("400");
    expect(p1.realized[0]!.recognizedGainUsd.toString()).toBe("-600");
    expect(p1.lots[0]!.totalCostBasis.toString()).toBe("2200");
    // 100 shares at 46 on 2024-07-10: the remaining 60 loss shares match 60 of them -> 600 more (total 1000).
    // N2.w1: 60 x 46 + 600 = 3360 (56/share), holding period from 150 days before 2024-07-10 = 2024-02-11.
    // N2: 40 x 46 = 1840, untouched.
    const p2 = applyPurchase(
      p1.lots,
      { id: "N2", themeAssetId: ASSET, quantity: 100, price: 46, date: "2024-07-10" },
      p1.realized,
    );
    expect(
      p2.lots.map((l) => [
        l.id,
        l.quantity.toString(),
        l.totalCostBasis.toString(),
        l.holdingPeriodStart,
        l.washSaleDate,
      ]),
    ).toEqual([
      ["N1", "40", "2200", "2024-02-05", "2024-07-04"],
      ["N2.w1", "60", "3360", "2024-02-11", "2024-07-10"],
      ["N2", "40", "1840", "2024-07-10", null],
    ]);
    const g = p2.realized[0]!;
    expect([
      g.disallowedLossUsd.toString(),
      g.recognizedGainUsd.toString(),
      g.washedQuantity.toString(),
    ]).toEqual(["1000", "0", "100"]);
    expect(
      g.washSaleMatches.map((m) => [
        m.replacementLotId,
        m.quantity.toString(),
        m.disallowedLossUsd.toString(),
      ]),
    ).toEqual([
      ["N1", "40", "400"],
      ["N2.w1", "60", "600"],
    ]);
    // A third purchase finds no loss shares left to wash.
    const p3 = applyPurchase(
      p2.lots,
      { id: "N3", themeAssetId: ASSET, quantity: 10, price: 47, date: "2024-07-11" },
      p2.realized,
    );
    expect(p3.washSales).toEqual([]);
  });

  it("matches the earliest loss sale first", () => {
    // Two loss sales: A (10 sh, -5/sh = -50) on 2024-06-10, B (10 sh, -8/sh = -80) on 2024-06-12.
    const lots = [usdLot("A", 10, 45, "2024-01-02"), usdLot("B", 10, 48, "2024-01-02")];
    const s1 = applySale(lots, {
      themeAssetId: ASSET,
      quantity: 10,
      price: 40,
      date: "2024-06-10",
      policy: "SPECIFIC",
      specificLots: [{ lotId: "A", quantity: 10 }],
    });
    const s2 = applySale(s1.lots, { themeAssetId: ASSET, quantity: 10, price: 40, date: "2024-06-12" });
    const realized = [...s2.realized, ...s1.realized]; // order given does not matter: by sale date
    // Buy 15: A's 10 shares first (50 disallowed), then 5 of B's (80 x 5/10 = 40).
    const p = applyPurchase(
      s2.lots,
      { id: "N", themeAssetId: ASSET, quantity: 15, price: 41, date: "2024-06-20" },
      realized,
    );
    expect(
      p.washSales.map((w) => [
        w.soldLotId,
        w.quantity.toString(),
        w.disallowedLossUsd.toString(),
        w.replacementLotId,
      ]),
    ).toEqual([
      ["A", "10", "50", "N.w1"],
      ["B", "5", "40", "N"],
    ]);
    // N.w1: 10 x 41 + 50 = 460; N: 5 x 41 + 40 = 245.
    expect(p.lots.map((l) => [l.id, l.quantity.toString(), l.totalCostBasis.toString()])).toEqual([
      ["N.w1", "10", "460"],
      ["N", "5", "245"],
    ]);
  });

  it("ignores gains and other assets' losses", () => {
    const gain = applySale([usdLot("G", 10, 30, "2024-01-02")], {
      themeAssetId: ASSET,
      quantity: 10,
      price: 40,
      date: "2024-06-10",
    });
    const other = applySale(
      [
        createLot({
          id: "O",
          themeAssetId: "ABC:XNYS",
          quantity: 10,
          costBasisPerShare: 50,
          tradeDate: "2024-01-02",
        }),
      ],
      {
        themeAssetId: "ABC:XNYS",
        quantity: 10,
        price: 40,
        date: "2024-06-10",
      },
    );
    const p = applyPurchase(
      [],
      { id: "N", themeAssetId: ASSET, quantity: 10, price: 41, date: "2024-06-20" },
      [...gain.realized, ...other.realized],
    );
    expect(p.washSales).toEqual([]);
    expect(p.lots[0]!.totalCostBasis.toString()).toBe("410");
  });

  it("does not mutate the lots or the records it is given", () => {
    const sale = lossSale();
    const lots = [usdLot("K", 5, 10, "2023-01-03"), ...sale.lots];
    const before = JSON.stringify([lots, sale.realized]);
    const r = applyPurchase(
      lots,
      { id: "N", themeAssetId: ASSET, quantity: 30, price: 45, date: "2024-07-04" },
      sale.realized,
    );
    expect(JSON.stringify([lots, sale.realized])).toBe(before);
    expect(r.lots[0]).toBe(lots[0]);
  });

  it("rejects a lot id already in use", () => {
    const lots = [usdLot("N", 1, 1, "2024-01-02")];
    expect(() =>
      applyPurchase(lots, { id: "N", themeAssetId: ASSET, quantity: 1, price: 1, date: "2024-01-03" }),
    ).toThrow(/lot id N is already in use/);
  });

  it("adds purchase fees to the lot's total basis exactly", () => {
    // 3 shares at 10.10 plus 1.00 fees: basis 30.30 + 1 = 31.30 (no per-share rounding of 1/3).
    const r = applyPurchase([], {
      id: "F",
      themeAssetId: ASSET,
      quantity: 3,
      price: "10.10",
      fees: "1.00",
      date: "2024-07-18",
    });
    expect(r.lots[0]!.totalCostBasis.toString()).toBe("31.3");
  });
});
