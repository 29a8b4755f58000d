import { describe, expect, it } from "vitest";
import { ValidationError } from "../errors.js";
import { createLot, TaxDecimal } from "../tax/index.js";
import { applyExecutions } from "./apply-executions.js";
import { executionsFromProposal, type ProposalOrderLike } from "./from-proposal.js";

const XYZ = "XYZ:XNYS";
const ABC = "ABC:XNAS";
const RY = "RY:XTSE";
// Sell 30 XYZ from L1 (20) then L2 (10); buy 12 ABC; buy 5 RY (CAD).
const orders: ProposalOrderLike[] = [
  {
    themeAssetId: XYZ,
    side: "sell",
    category: "long",
    quantity: "30",
    taxLots: [
      { lotId: "L1", quantity: "20" },
      { lotId: "L2", quantity: "10" },
    ],
  },
  { themeAssetId: ABC, side: "buy", category: "long", quantity: "12" },
  { themeAssetId: RY, currency: "CAD", side: "buy", category: "long", quantity: "5" },
];

describe("executionsFromProposal", () => {
  it("executes every order in full at the given prices, sells naming the proposal's lots", () => {
    const ex = executionsFromProposal({
      proposalId: "P1",
      orders,
      tradeDate: "2025-06-02",
      prices: { [XYZ]: "50", [ABC]: "20", [RY]: "130" },
      fxRates: { CAD: "1.37" },
    });
    expect(
      ex.map((e) => [e.id, e.kind, e.themeAssetId, e.quantity, e.price, e.fxRate, e.lots ?? null]),
    ).toEqual([
      [
        "P1:0:1",
        "sell",
        XYZ,
        "30",
        "50",
        "1",
        [
          { lotId: "L1", quantity: "20" },
          { lotId: "L2", quantity: "10" },
        ],
      ],
      ["P1:1:1", "buy", ABC, "12", "20", "1", null],
      ["P1:2:1", "buy", RY, "5", "130", "1.37", null],
    ]);
  });

  it("relieves the lots in the proposal's order across partial fills", () => {
    const ex = executionsFromProposal({
      proposalId: "P1",
      orders,
      tradeDate: "2025-06-02",
      fills: [
        { order: 0, quantity: 15, price: "50.10" },
        { order: 0, quantity: 10, price: "50.05", fees: 1 },
        { order: 1, quantity: 12, price: "19.99" },
      ],
    });
    expect(ex.map((e) => [e.id, e.quantity, e.lots ?? null])).toEqual([
      ["P1:0:1", "15", [{ lotId: "L1", quantity: "15" }]],
      [
        "P1:0:2",
        "10",
        [
          { lotId: "L1", quantity: "5" },
          { lotId: "L2", quantity: "5" },
        ],
      ],
      ["P1:1:1", "12", null],
    ]);
    // Applied to the account: L1 fully sold, L2 keeps 5 shares, ABC bought.
    const book = {
      accountId: "A",
      cashUsd: new TaxDecimal(0),
      lots: [
        createLot({
          id: "L1",
          themeAssetId: XYZ,
          quantity: 20,
          costBasisPerShare: 40,
          tradeDate: "2024-01-02",
        }),
        createLot({
          id: "L2",
          themeAssetId: XYZ,
          quantity: 10,
          costBasisPerShare: 45,
          tradeDate: "2024-02-01",
        }),
      ],
    };
    const r = applyExecutions(book, ex);
    expect(r.book.lots.map((l) => [l.id, l.quantity.toString()])).toEqual([
      ["L2", "5"],
      ["P1:1:1", "12"],
    ]);
    // 15 x 50.10 + 10 x 50.05 - 1 - 12 x 19.99 = 751.5 + 499.5 - 239.88 = 1,011.12.
    expect(r.book.cashUsd.toString()).toBe("1011.12");
  });

  it("lists every bad fill: unknown order, above the order, price <= 0, and a missing FX rate", () => {
    let error: unknown;
    try {
      executionsFromProposal({
        proposalId: "P1",
        orders,
        tradeDate: "2025-06-02",
        fills: [
          { order: 7, quantity: 1, price: 1 },
          { order: 0, quantity: 20, price: 50 },
          { order: 0, quantity: 11, price: 50 },
          { order: 1, quantity: 1, price: 0 },
          { order: 2, quantity: 1, price: 130 },
        ],
      });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).issues.map((x) => x.path)).toEqual([
      "fills[0].order",
      "fills[2].quantity",
      "fills[3].price",
      "fxRates.CAD",
    ]);
    expect((error as Error).message).toMatch(/11 shares is above the 10 left of order 0 \(XYZ:XNYS\)/);
  });

  it("names the asset whose price is missing when every order executes in full", () => {
    expect(() =>
      executionsFromProposal({
        proposalId: "P1",
        orders: orders.slice(0, 2),
        tradeDate: "2025-06-02",
        prices: { [XYZ]: 50 },
      }),
    ).toThrow(/prices.ABC:XNAS: is required/);
  });
});
