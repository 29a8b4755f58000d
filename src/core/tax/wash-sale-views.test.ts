import { describe, expect, it } from "vitest";
import { applySale } from "./apply-sale.js";
import { createLot, type TaxLot } from "./lot.js";
import {
  type AccountTaxState,
  householdWashSaleLots,
  washSaleLots,
  washSaleViews,
} from "./wash-sale-views.js";

const mk = (id: string, asset: string, tradeDate: string, extra: Partial<TaxLot> = {}): TaxLot => ({
  ...createLot({ id, themeAssetId: asset, quantity: 10, costBasisPerShare: 100, tradeDate }),
  ...extra,
});

const AS_OF = "2024-07-01"; // window: 2024-06-01 .. 2024-07-01

// Taxable account: a recent buy, a lot partly sold at a loss 16 days ago, an old lot, a lot bought exactly
// 31 days ago, and a recent buy that already served as a wash-sale replacement.
const taxableLots = [
  mk("T-recent", "XYZ:XNYS", "2024-06-20"),
  mk("T-losssold", "ABC:XNYS", "2023-01-03", { lastSoldForLossDate: "2024-06-15" }),
  mk("T-old", "OLD:XNYS", "2020-01-02"),
  mk("T-31", "EDGE:XNYS", "2024-05-31"),
  mk("T-30", "EDGE:XNYS", "2024-06-01"),
  mk("T-rep", "REP:XNYS", "2024-06-10", { holdingPeriodStart: "2024-01-10", washSaleDate: "2024-06-12" }),
];
// A DEF lot fully sold at a loss on 2024-06-10 (21 days ago): it survives only as a realized record.
const defSale = applySale([mk("T-def", "DEF:XNYS", "2024-01-02")], {
  themeAssetId: "DEF:XNYS",
  quantity: 10,
  price: 90,
  date: "2024-06-10",
});
// A GHI loss sold 2024-05-20 (42 days ago): outside the window.
const ghiSale = applySale([mk("T-ghi", "GHI:XNYS", "2024-01-02")], {
  themeAssetId: "GHI:XNYS",
  quantity: 10,
  price: 90,
  date: "2024-05-20",
});
const taxable: AccountTaxState = {
  accountId: "taxable",
  accountName: "Joint taxable",
  lots: taxableLots,
  realized: [...defSale.realized, ...ghiSale.realized],
};
const ira: AccountTaxState = {
  accountId: "ira",
  accountName: "Rollover IRA",
  lots: [mk("I-recent", "XYZ:XNYS", "2024-06-25"), mk("I-old", "XYZ:XNYS", "2019-03-01")],
};

describe("wash-sale views", () => {
  it("lists the account's lots with an open window, with reasons and window end", () => {
    const own = washSaleLots([taxable, ira], "taxable", AS_OF);
    expect(own.map((e) => [e.lot.id, e.source, e.reasons.join("+"), e.windowEnds])).toEqual([
      ["T-losssold", "held_lot", "recent_loss_sale", "2024-07-15"], // ABC: sold at a loss 2024-06-15 + 30
      ["T-def", "loss_sale", "recent_loss_sale", "2024-07-10"], //      DEF: 2024-06-10 + 30
      ["T-30", "held_lot", "recent_purchase", "2024-07-01"], //         EDGE: bought exactly 30 days ago
      ["T-recent", "held_lot", "recent_purchase", "2024-07-20"], //     XYZ: 2024-06-20 + 30
    ]);
    // The DEF entry shows the unmatched sold shares: 10 at basis 1000, last sold for a loss on 2024-06-10.
    const def = own.find((e) => e.lot.id === "T-def")!;
    expect([
      def.lot.quantity.toString(),
      def.lot.totalCostBasis.toString(),
      def.lot.lastSoldForLossDate,
    ]).toEqual(["10", "1000", "2024-06-10"]);
    expect(def.accountName).toBe("Joint taxable");
  });

  it("lists the other accounts' entries as household wash-sale lots", () => {
    const household = householdWashSaleLots([taxable, ira], "taxable", AS_OF);
    expect(household.map((e) => [e.accountId, e.lot.id, e.reasons.join("+")])).toEqual([
      ["ira", "I-recent", "recent_purchase"],
    ]);
    // Seen from the IRA, the taxable account's entries are the household's.
    const v = washSaleViews([taxable, ira], "ira", AS_OF);
    expect(v.washSaleLots.map((e) => e.lot.id)).toEqual(["I-recent"]);
    expect(v.householdWashSaleLots.map((e) => e.lot.id)).toEqual(["T-losssold", "T-def", "T-30", "T-recent"]);
  });

  it("drops loss sales whose shares were all matched to replacements", () => {
    const washed = applySale([mk("W-old", "XYZ:XNYS", "2024-01-02"), mk("W-new", "XYZ:XNYS", "2024-06-20")], {
      themeAssetId: "XYZ:XNYS",
      quantity: 10,
      price: 90,
      date: "2024-06-25",
      policy: "SPECIFIC",
      specificLots: [{ lotId: "W-old", quantity: 10 }],
    });
    expect(washed.realized[0]!.washedQuantity.toString()).toBe("10");
    const own = washSaleLots([{ accountId: "a", lots: washed.lots, realized: washed.realized }], "a", AS_OF);
    // W-new already served as a replacement: it no longer restricts sales; the sale is fully matched.
    expect(own).toEqual([]);
  });

  it("honors a custom window and rejects unknown or repeated accounts", () => {
    // 11 days: 2024-06-20 .. 2024-07-01 -> only the XYZ buy of 2024-06-20.
    expect(
      washSaleLots([taxable], "taxable", AS_OF, { washSaleThresholdDays: 11 }).map((e) => e.lot.id),
    ).toEqual(["T-recent"]);
    expect(() => washSaleViews([taxable], "nope", AS_OF)).toThrow(
      /account nope is not among the client's accounts/,
    );
    expect(() => washSaleViews([taxable, taxable], "taxable", AS_OF)).toThrow(/listed twice/);
    expect(() => washSaleViews([taxable], "taxable", "July 1")).toThrow(/asOf "July 1" is not YYYY-MM-DD/);
  });
});
