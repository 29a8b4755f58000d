import { describe, expect, it } from "vitest";
import { InsufficientLotsError } from "../errors.js";
import { applySale } from "./apply-sale.js";
import { holdingTerm } from "./holding-period.js";
import { createLot, type TaxLot } from "./lot.js";
import { costBasisPerShare, totalCostBasisUsd } from "./lot-values.js";

const ASSET = "XYZ:XNYS";
const usdLot = (id: string, quantity: number | string, basis: number | string, tradeDate: string): TaxLot =>
  createLot({ id, themeAssetId: ASSET, quantity, costBasisPerShare: basis, tradeDate });

describe("applySale", () => {
  it("sells a loss lot then a gain lot and books each gain with its character", () => {
    // L1: 10 @ 120 bought 2024-01-02 (short-term on 2024-06-28); L2: 10 @ 80 bought 2022-02-01 (long-term).
    const lots = [usdLot("L1", 10, 120, "2024-01-02"), usdLot("L2", 10, 80, "2022-02-01")];
    const r = applySale(lots, { themeAssetId: ASSET, quantity: 15, price: 100, date: "2024-06-28" });
    // L1: proceeds 10 x 100 = 1000, basis 1200, gain -200 short-term.
    // L2: proceeds 5 x 100 = 500, basis 5 x 80 = 400, gain +100 long-term.
    expect(
      r.realized.map((g) => [
        g.lotId,
        g.quantity.toString(),
        g.proceedsUsd.toString(),
        g.costBasisUsd.toString(),
        g.gainUsd.toString(),
        g.term,
      ]),
    ).toEqual([
      ["L1", "10", "1000", "1200", "-200", "short_term"],
      ["L2", "5", "500", "400", "100", "long_term"],
    ]);
    expect(r.realized.map((g) => g.recognizedGainUsd.toString())).toEqual(["-200", "100"]);
    // L1 gone; L2 keeps its id with 5 shares and basis 800 - 400 = 400.
    expect(r.lots.map((l) => [l.id, l.quantity.toString(), l.totalCostBasis.toString()])).toEqual([
      ["L2", "5", "400"],
    ]);
    expect(r.washSales).toEqual([]);
  });

  it("marks the remainder of a lot sold at a loss with lastSoldForLossDate", () => {
    const lots = [usdLot("L1", 10, 120, "2023-01-03")];
    const r = applySale(lots, { themeAssetId: ASSET, quantity: 4, price: 100, date: "2024-06-28" });
    expect(r.lots[0]!.lastSoldForLossDate).toBe("2024-06-28");
    expect(r.lots[0]!.totalCostBasis.toString()).toBe("720"); // 1200 - 4 x 120
    const g = applySale(lots, { themeAssetId: ASSET, quantity: 4, price: 130, date: "2024-06-28" });
    expect(g.lots[0]!.lastSoldForLossDate).toBeNull();
  });

  it("puts the long-term boundary at more than 365 days held", () => {
    const lots = [usdLot("L", 2, 10, "2023-01-05")];
    const on365 = applySale(lots, { themeAssetId: ASSET, quantity: 1, price: 11, date: "2024-01-05" });
    expect([on365.realized[0]!.holdingDays, on365.realized[0]!.term]).toEqual([365, "short_term"]);
    const on366 = applySale(lots, { themeAssetId: ASSET, quantity: 1, price: 11, date: "2024-01-06" });
    expect([on366.realized[0]!.holdingDays, on366.realized[0]!.term]).toEqual([366, "long_term"]);
  });

  it("computes a CAD lot's USD gain with the purchase FX for basis and the sale FX for proceeds", () => {
    // 100 RY bought at CAD 130 with 1.35 CAD/USD: basis USD 13000 / 1.35 = 9629.6296296...
    // Sold at CAD 135 with 1.36 CAD/USD: proceeds USD 13500 / 1.36 = 9926.4705882...
    // Gain USD 296.8409586... -> 296.84: a CAD 500 gain, smaller in USD as the CAD fell from 1.35 to 1.36 per USD.
    const lot = createLot({
      id: "RY1",
      themeAssetId: "RY:XTSE",
      quantity: 100,
      costBasisPerShare: 130,
      currency: "CAD",
      fxRate: "1.35",
      tradeDate: "2023-01-10",
    });
    const r = applySale([lot], {
      themeAssetId: "RY:XTSE",
      quantity: 100,
      price: 135,
      fxRate: "1.36",
      date: "2024-03-15",
    });
    const g = r.realized[0]!;
    expect(g.proceeds.toString()).toBe("13500");
    expect(g.costBasis.toString()).toBe("13000");
    expect(g.costBasisUsd.toFixed(2)).toBe("9629.63");
    expect(g.proceedsUsd.toFixed(2)).toBe("9926.47");
    expect(g.gainUsd.toFixed(10)).toBe("296.8409586057");
    expect(g.term).toBe("long_term"); // 2023-01-10 -> 2024-03-15: 430 days
    // A weaker USD at sale (1.25 CAD/USD): proceeds 13500 / 1.25 = 10800; gain 10800 - 9629.63 = 1170.37
    const w = applySale([lot], {
      themeAssetId: "RY:XTSE",
      quantity: 100,
      price: 135,
      fxRate: "1.25",
      date: "2024-03-15",
    });
    expect(w.realized[0]!.gainUsd.toFixed(2)).toBe("1170.37");
  });

  it("washes a loss with shares bought 10 days before the sale: basis +loss, holding period tacked", () => {
    // OLD: 100 @ 50 bought 2024-01-16. NEW: 100 @ 42 bought 2024-06-04. OLD sold at 40 on 2024-06-14.
    const lots = [usdLot("OLD", 100, 50, "2024-01-16"), usdLot("NEW", 100, 42, "2024-06-04")];
    const r = applySale(lots, {
      themeAssetId: ASSET,
      quantity: 100,
      price: 40,
      date: "2024-06-14",
      policy: "SPECIFIC",
      specificLots: [{ lotId: "OLD", quantity: 100 }],
    });
    // Loss 100 x (40 - 50) = -1000, all 100 shares replaced by NEW -> 1000 disallowed, 0 recognized.
    const g = r.realized[0]!;
    expect([g.gainUsd.toString(), g.disallowedLossUsd.toString(), g.recognizedGainUsd.toString()]).toEqual([
      "-1000",
      "1000",
      "0",
    ]);
    expect(g.washedQuantity.toString()).toBe("100");
    expect(
      g.washSaleMatches.map((m) => [
        m.replacementLotId,
        m.quantity.toString(),
        m.disallowedLossUsd.toString(),
        m.date,
      ]),
    ).toEqual([["NEW", "100", "1000", "2024-06-14"]]);
    // NEW basis 4200 + 1000 = 5200 (52.00 per share).
    const n = r.lots.find((l) => l.id === "NEW")!;
    expect(n.totalCostBasis.toFixed(2)).toBe("5200.00");
    expect(costBasisPerShare(n).toFixed(2)).toBe("52.00");
    // OLD held 2024-01-16 -> 2024-06-14 = 15 + 29 + 31 + 30 + 31 + 14 = 150 days; NEW's holding period
    // starts 150 days before 2024-06-04 = 2024-01-06; trade date unchanged.
    expect(r.washSales[0]!.tackedDays).toBe(150);
    expect([n.tradeDate, n.holdingPeriodStart, n.washSaleDate]).toEqual([
      "2024-06-04",
      "2024-01-06",
      "2024-06-14",
    ]);
    // Long-term from 2025-01-07 (2024-01-06 + one year, sold after the anniversary).
    expect(holdingTerm(n.holdingPeriodStart, "2025-01-06")).toBe("short_term");
    expect(holdingTerm(n.holdingPeriodStart, "2025-01-07")).toBe("long_term");
  });

  it("washes pro rata when fewer replacement shares than loss shares were bought", () => {
    // OLD: 100 @ 50; NEW: 30 @ 42 bought 10 days before; sell OLD at 40: loss -1000.
    const lots = [usdLot("OLD", 100, 50, "2024-01-16"), usdLot("NEW", 30, 42, "2024-06-04")];
    const r = applySale(lots, {
      themeAssetId: ASSET,
      quantity: 100,
      price: 40,
      date: "2024-06-14",
      policy: "SPECIFIC",
      specificLots: [{ lotId: "OLD", quantity: 100 }],
    });
    // 30 of 100 shares washed: 1000 x 30/100 = 300 disallowed; recognized -700.
    const g = r.realized[0]!;
    expect([
      g.disallowedLossUsd.toString(),
      g.recognizedGainUsd.toString(),
      g.washedQuantity.toString(),
    ]).toEqual(["300", "-700", "30"]);
    // NEW: 30 x 42 + 300 = 1560 (52 per share).
    expect(r.lots.map((l) => [l.id, l.quantity.toString(), l.totalCostBasis.toString()])).toEqual([
      ["NEW", "30", "1560"],
    ]);
  });

  it("carves only the matched shares out of a larger replacement lot", () => {
    // OLD: 30 @ 50 sold at 40 -> loss -300; NEW: 100 @ 42 bought 10 days before.
    const lots = [usdLot("OLD", 30, 50, "2024-01-16"), usdLot("NEW", 100, 42, "2024-06-04")];
    const r = applySale(lots, {
      themeAssetId: ASSET,
      quantity: 30,
      price: 40,
      date: "2024-06-14",
      policy: "SPECIFIC",
      specificLots: [{ lotId: "OLD", quantity: 30 }],
    });
    // NEW.w1: 30 shares, 30 x 42 + 300 = 1560, tacked; NEW: 70 shares, 70 x 42 = 2940, untouched.
    expect(
      r.lots.map((l) => [
        l.id,
        l.quantity.toString(),
        l.totalCostBasis.toString(),
        l.holdingPeriodStart,
        l.washSaleDate,
      ]),
    ).toEqual([
      ["NEW.w1", "30", "1560", "2024-01-06", "2024-06-14"],
      ["NEW", "70", "2940", "2024-06-04", null],
    ]);
  });

  it("leaves other assets' lots untouched and in place, and never reuses their ids", () => {
    const other = createLot({
      id: "NEW.w1",
      themeAssetId: "ABC:XNYS",
      quantity: 1,
      costBasisPerShare: 1,
      tradeDate: "2020-01-02",
    });
    const lots = [other, usdLot("OLD", 30, 50, "2024-01-16"), usdLot("NEW", 100, 42, "2024-06-04")];
    const r = applySale(lots, {
      themeAssetId: ASSET,
      quantity: 30,
      price: 40,
      date: "2024-06-14",
      policy: "SPECIFIC",
      specificLots: [{ lotId: "OLD", quantity: 30 }],
    });
    expect(r.lots[0]).toBe(other);
    // "NEW.w1" is taken by the other asset's lot: the carved piece is "NEW.w2".
    expect(r.lots.map((l) => l.id)).toEqual(["NEW.w1", "NEW.w2", "NEW"]);
  });

  it("matches replacement lots first acquired first, each share once", () => {
    // Loss sale of 100 shares; R1 50 shares bought 2024-06-01, R2 80 shares bought 2024-06-10.
    const lots = [
      usdLot("OLD", 100, 50, "2024-01-16"),
      usdLot("R2", 80, 41, "2024-06-10"),
      usdLot("R1", 50, 43, "2024-06-01"),
    ];
    const sell = (l: TaxLot[], q: number, date: string) =>
      applySale(l, {
        themeAssetId: ASSET,
        quantity: q,
        price: 40,
        date,
        policy: "SPECIFIC",
        specificLots: [{ lotId: "OLD", quantity: q }],
      });
    const r = sell(lots, 100, "2024-06-14");
    // R1: all 50 -> 1000 x 50/100 = 500; R2: 50 of 80 -> 500 more (cumulative 1000).
    expect(
      r.realized[0]!.washSaleMatches.map((m) => [
        m.replacementLotId,
        m.quantity.toString(),
        m.disallowedLossUsd.toString(),
      ]),
    ).toEqual([
      ["R1", "50", "500"],
      ["R2.w1", "50", "500"],
    ]);
    expect(
      r.lots.map((l) => [l.id, l.quantity.toString(), l.totalCostBasis.toString(), l.washSaleDate]),
    ).toEqual([
      ["R2.w1", "50", "2550", "2024-06-14"], // 50 x 41 + 500
      ["R2", "30", "1230", null], // 30 x 41
      ["R1", "50", "2650", "2024-06-14"], // 50 x 43 + 500
    ]);

    // A second loss sale 2 days later: R1 and R2.w1 already served; only R2's 30 clean shares can replace.
    const more = [...lots, usdLot("OLD2", 40, 50, "2024-01-16")];
    const first = sell(more, 100, "2024-06-14");
    const second = applySale(first.lots, {
      themeAssetId: ASSET,
      quantity: 40,
      price: 40,
      date: "2024-06-16",
      policy: "SPECIFIC",
      specificLots: [{ lotId: "OLD2", quantity: 40 }],
    });
    // Loss 40 x -10 = -400; 30 of 40 washed -> 300 disallowed, -100 recognized.
    expect(second.realized[0]!.disallowedLossUsd.toString()).toBe("300");
    expect(second.realized[0]!.recognizedGainUsd.toString()).toBe("-100");
    expect(second.realized[0]!.washSaleMatches.map((m) => m.replacementLotId)).toEqual(["R2"]);
  });

  it("does not treat the unsold rest of the sold lot, or shares bought 31 days before, as replacements", () => {
    const lots = [usdLot("REC", 100, 50, "2024-06-04"), usdLot("OLDER", 10, 50, "2024-05-14")];
    // REC partly sold at a loss 10 days after purchase; its own remaining 60 shares do not replace it.
    // OLDER was bought 31 days before the sale: outside the window.
    const r = applySale(lots, {
      themeAssetId: ASSET,
      quantity: 40,
      price: 40,
      date: "2024-06-14",
      policy: "SPECIFIC",
      specificLots: [{ lotId: "REC", quantity: 40 }],
    });
    expect(r.realized[0]!.disallowedLossUsd.toString()).toBe("0");
    expect(r.washSales).toEqual([]);
    // 30 days before is inside the window.
    const inside = [usdLot("REC", 100, 50, "2024-06-04"), usdLot("EDGE", 10, 50, "2024-05-15")];
    const s = applySale(inside, {
      themeAssetId: ASSET,
      quantity: 40,
      price: 40,
      date: "2024-06-14",
      policy: "SPECIFIC",
      specificLots: [{ lotId: "REC", quantity: 40 }],
    });
    expect(s.realized[0]!.washSaleMatches.map((m) => [m.replacementLotId, m.quantity.toString()])).toEqual([
      ["EDGE", "10"],
    ]);
  });

  it("washes against another account's lot when the household's lots are given", () => {
    const lots = [
      { ...usdLot("T1", 10, 50, "2023-06-01"), accountId: "taxable" },
      { ...usdLot("I1", 10, 41, "2024-06-10"), accountId: "ira" },
    ];
    const r = applySale(lots, {
      themeAssetId: ASSET,
      quantity: 10,
      price: 40,
      date: "2024-06-14",
      accountId: "taxable",
    });
    expect(r.realized[0]!.lotId).toBe("T1");
    expect(r.realized[0]!.disallowedLossUsd.toString()).toBe("100");
    expect(r.lots[0]!.accountId).toBe("ira");
    expect(r.lots[0]!.totalCostBasis.toString()).toBe("510"); // 410 + 100
  });

  it("keeps the basis of a CAD replacement lot right in USD", () => {
    // Loss USD 100 disallowed into a CAD lot bought at 1.30 CAD/USD: CAD basis +130, USD basis +100.
    const loss = createLot({
      id: "L",
      themeAssetId: "RY:XTSE",
      quantity: 10,
      costBasisPerShare: 130,
      currency: "CAD",
      fxRate: "1.3",
      tradeDate: "2024-01-02",
    });
    const rep = createLot({
      id: "R",
      themeAssetId: "RY:XTSE",
      quantity: 10,
      costBasisPerShare: 117,
      currency: "CAD",
      fxRate: "1.3",
      tradeDate: "2024-06-10",
    });
    const r = applySale([loss, rep], {
      themeAssetId: "RY:XTSE",
      quantity: 10,
      price: 117,
      fxRate: "1.3",
      date: "2024-06-14",
      policy: "SPECIFIC",
      specificLots: [{ lotId: "L", quantity: 10 }],
    });
    // Loss: 10 x 117 / 1.3 - 1300 / 1.3 = 900 - 1000 = -100 USD.
    expect(r.realized[0]!.gainUsd.toString()).toBe("-100");
    const R = r.lots[0]!;
    expect(R.totalCostBasis.toString()).toBe("1300"); // 1170 + 100 x 1.3
    expect(totalCostBasisUsd(R).toString()).toBe("1000"); // 900 + 100
  });

  it("rejects overselling and bad sale fields, without mutating the lots", () => {
    const lots = [usdLot("L1", 10, 120, "2024-01-02")];
    const snapshot = JSON.stringify(lots);
    expect(() =>
      applySale(lots, { themeAssetId: ASSET, quantity: 11, price: 100, date: "2024-06-28" }),
    ).toThrow(InsufficientLotsError);
    expect(() =>
      applySale(lots, { themeAssetId: ASSET, quantity: 0, price: 100, date: "2024-06-28" }),
    ).toThrow(/sale.quantity: must be > 0/);
    expect(() => applySale(lots, { themeAssetId: ASSET, quantity: 1, price: 0, date: "2024-06-28" })).toThrow(
      /sale.price: must be > 0/,
    );
    expect(() => applySale(lots, { themeAssetId: ASSET, quantity: 1, price: 1, date: "28/06/2024" })).toThrow(
      /sale.date "28\/06\/2024" is not YYYY-MM-DD/,
    );
    applySale(lots, { themeAssetId: ASSET, quantity: 5, price: 100, date: "2024-06-28" });
    expect(JSON.stringify(lots)).toBe(snapshot);
  });

  it("takes sale fees off the proceeds, split over the consumed lots by shares", () => {
    // 30 shares at 100 over L1 (10) and L2 (20, FIFO), fees 3: L1 gets 1, L2 gets the remaining 2.
    const lots = [usdLot("L1", 10, 90, "2024-01-02"), usdLot("L2", 20, 90, "2024-02-01")];
    const r = applySale(lots, {
      themeAssetId: ASSET,
      quantity: 30,
      price: 100,
      fees: 3,
      date: "2024-06-28",
      policy: "FIFO",
    });
    expect(r.realized.map((g) => [g.lotId, g.proceeds.toString(), g.gainUsd.toString()])).toEqual([
      ["L1", "999", "99"],
      ["L2", "1998", "198"],
    ]);
  });
});
