import type { Decimal } from "decimal.js";
import { describe, expect, it } from "vitest";
import { TaxDecimal } from "../tax/index.js";
import { coverChosenShortLots, coverShortLots, type PreparedShortLot } from "./short-lots.js";

const short = (
  id: string,
  quantity: number,
  proceeds: string,
  openDate: string,
  fxRate = "1",
): PreparedShortLot => {
  const q = new TaxDecimal(quantity);
  const p = new TaxDecimal(proceeds);
  const fx = new TaxDecimal(fxRate);
  return {
    id,
    themeAssetId: "BBB:XNYS",
    quantity: q,
    proceeds: p,
    fxRate: fx,
    openDate,
    proceedsPerShareUsd: p.dividedBy(fx).dividedBy(q),
  };
};
const d = (v: Decimal.Value) => new TaxDecimal(v);

describe("coverShortLots", () => {
  // Cover at 50: S2 (proceeds 45 / share) covers at a loss of 5 / share, S3 (55) gains 5, S1 (60) gains 10.
  const lots = [
    short("S1", 10, "600", "2024-01-02"),
    short("S2", 10, "450", "2024-02-01"),
    short("S3", 10, "550", "2024-03-01"),
  ];

  it("covers the lowest proceeds first: losses, then the smallest gains, all short-term", () => {
    // 15 shares: S2 10 (gain 450 - 500 = -50), S3 5 (proceeds 550 x 5 / 10 = 275, gain 275 - 250 = 25).
    const out = coverShortLots(lots, d(15), d(50), d(1));
    expect(
      out.map((l) => [
        l.lotId,
        l.quantity.toString(),
        l.costBasisUsd.toString(),
        l.gainUsd.toString(),
        l.term,
      ]),
    ).toEqual([
      ["S2", "10", "500", "-50", "short_term"],
      ["S3", "5", "250", "25", "short_term"],
    ]);
    expect(out.map((l) => l.tradeDate)).toEqual(["2024-02-01", "2024-03-01"]);
  });

  it("translates proceeds at the short-sale rate and the cover cost at today's rate", () => {
    // 10 shares shorted for 1,250 CAD at 1.25 CAD/USD -> 1,000 USD; covered at 135 CAD with 1.35 -> 1,000 USD.
    const out = coverShortLots([short("C1", 10, "1250", "2024-05-01", "1.25")], d(10), d(135), d("1.35"));
    expect([
      out[0]?.costBasis.toString(),
      out[0]?.costBasisUsd.toString(),
      out[0]?.gainUsd.toString(),
    ]).toEqual(["1350", "1000", "0"]);
  });

  it("refuses to cover more than is owed", () => {
    expect(() => coverShortLots(lots, d(31), d(50), d(1))).toThrow(/owe 30/);
  });

  it("covers exactly the chosen lots and quantities when given (specific identification), in their order", () => {
    // The optimizer's choice may differ from the rule: S1 4 (proceeds 240, gain 40), then S3 2 (110, gain 10).
    const out = coverChosenShortLots(
      lots,
      [
        { lotId: "S1", quantity: "4" },
        { lotId: "S3", quantity: "2" },
      ],
      d(50),
      d(1),
    );
    expect(out.map((l) => [l.lotId, l.quantity.toString(), l.gainUsd.toString()])).toEqual([
      ["S1", "4", "40"],
      ["S3", "2", "10"],
    ]);
    expect(() => coverChosenShortLots(lots, [{ lotId: "S9", quantity: "1" }], d(50), d(1))).toThrow(
      /S9 is not an open short lot/,
    );
    expect(() => coverChosenShortLots(lots, [{ lotId: "S1", quantity: "11" }], d(50), d(1))).toThrow(
      /owes 10 shares, fewer than 11/,
    );
  });
});
