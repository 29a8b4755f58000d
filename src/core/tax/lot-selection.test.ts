import { describe, expect, it } from "vitest";
import { InsufficientLotsError, TaxLotError } from "../errors.js";
import { createLot, type TaxLot } from "./lot.js";
import { type LotSelectionContext, selectLots } from "./lot-selection.js";

const ASSET = "XYZ:XNYS";
const lot = (
  id: string,
  basis: number,
  tradeDate: string,
  quantity = 10,
  extra: Partial<TaxLot> = {},
): TaxLot => ({
  ...createLot({ id, themeAssetId: ASSET, quantity, costBasisPerShare: basis, tradeDate }),
  ...extra,
});

// Sale on 2024-06-28 at 100. Gain per share = 100 - basis. Terms as of 2024-06-28 (long-term if bought
// before 2023-06-28). No lot is in the wash-sale window (2024-05-29 .. 2024-07-28).
const LOTS: TaxLot[] = [
  lot("A", 80, "2020-01-10"), //   LT gain +20
  lot("B", 90, "2021-03-15"), //   LT gain +10
  lot("C", 120, "2022-05-02"), //  LT loss -20
  lot("D", 105, "2024-01-08"), //  ST loss -5
  lot("E", 130, "2023-11-20"), //  ST loss -30
  lot("F", 95, "2024-02-12"), //   ST gain +5
  lot("G", 70, "2023-12-01"), //   ST gain +30
  lot("H", 100, "2023-08-01"), //  ST zero gain
];
const CTX: LotSelectionContext = { themeAssetId: ASSET, saleDate: "2024-06-28", price: 100 };
const order = (policy: Parameters<typeof selectLots>[2], lots = LOTS, ctx = CTX) =>
  selectLots(lots, 80, policy, ctx).picks.map((p) => p.lotId);

describe("selectLots", () => {
  it("ranks a frozen lot the same on every call and re-ranks an unfrozen lot that was changed", () => {
    const frozen = createLot({
      id: "F1",
      themeAssetId: ASSET,
      quantity: 10,
      costBasisPerShare: 120,
      tradeDate: "2022-05-02",
    });
    expect(Object.isFrozen(frozen)).toBe(true);
    const other = lot("O", 110, "2022-05-03");
    for (let i = 0; i < 2; i++)
      expect(selectLots([other, frozen], 5, "HIFO", CTX).picks.map((p) => p.lotId)).toEqual(["F1"]);
    // A caller's own (unfrozen) lot object may change between calls: its basis is not remembered.
    const mutable = { ...frozen, id: "M" } as { -readonly [K in keyof TaxLot]: TaxLot[K] };
    expect(selectLots([other, mutable], 5, "HIFO", CTX).picks.map((p) => p.lotId)).toEqual(["M"]);
    mutable.totalCostBasis = mutable.totalCostBasis.dividedBy(2); // 60 per share now
    expect(selectLots([other, mutable], 5, "HIFO", CTX).picks.map((p) => p.lotId)).toEqual(["O"]);
    mutable.quantity = mutable.quantity.negated();
    expect(() => selectLots([other, mutable], 5, "HIFO", CTX)).toThrow(/quantity must be > 0/);
  });

  it("sells ST losses (largest first), LT losses, zero-gain, LT gains then ST gains (highest basis first) under TAX_OPTIMAL", () => {
    expect(order("TAX_OPTIMAL")).toEqual(["E", "D", "C", "H", "B", "A", "F", "G"]);
  });

  it("sells the oldest first under FIFO and the newest first under LIFO", () => {
    expect(order("FIFO")).toEqual(["A", "B", "C", "H", "E", "G", "D", "F"]);
    expect(order("LIFO")).toEqual(["F", "D", "G", "E", "H", "C", "B", "A"]);
  });

  it("sells the highest basis first under HIFO", () => {
    expect(order("HIFO")).toEqual(["E", "C", "D", "H", "F", "B", "A", "G"]);
  });

  it("takes part of the last lot so quantities add up exactly", () => {
    const s = selectLots(LOTS, "25.5", "TAX_OPTIMAL", CTX);
    expect(s.picks.map((p) => [p.lotId, p.quantity.toString()])).toEqual([
      ["E", "10"],
      ["D", "10"],
      ["C", "5.5"],
    ]);
    // Gains: E 10 x (100 - 130) = -300 ST; D 10 x (100 - 105) = -50 ST; C 5.5 x (100 - 120) = -110 LT.
    expect(s.picks.map((p) => [p.gainUsd.toString(), p.term])).toEqual([
      ["-300", "short_term"],
      ["-50", "short_term"],
      ["-110", "long_term"],
    ]);
    expect(s.picks[2]!.costBasis.toString()).toBe("660"); // 5.5 x 120
    expect(s.available.toString()).toBe("80");
  });

  it("sells the requested SPECIFIC lots in the order given", () => {
    const s = selectLots(LOTS, 12, "SPECIFIC", {
      ...CTX,
      specificLots: [
        { lotId: "G", quantity: 2 },
        { lotId: "A", quantity: "10" },
      ],
    });
    expect(s.picks.map((p) => [p.lotId, p.quantity.toString(), p.gainUsd.toString()])).toEqual([
      ["G", "2", "60"], //   2 x (100 - 70)
      ["A", "10", "200"], // 10 x (100 - 80)
    ]);
  });

  it("rejects SPECIFIC requests that do not match the holdings", () => {
    const spec = (specificLots: { lotId: string; quantity: number }[], q = 5) =>
      selectLots(LOTS, q, "SPECIFIC", { ...CTX, specificLots });
    expect(() => spec([{ lotId: "Z", quantity: 5 }])).toThrow(
      /Lot Z \(specificLots\[0\]\) is not a lot of XYZ:XNYS/,
    );
    expect(() => spec([{ lotId: "A", quantity: 11 }], 11)).toThrow(
      /asks for 11 shares of lot A, which holds 10/,
    );
    expect(() => spec([{ lotId: "A", quantity: 4 }])).toThrow(
      /add up to 4 shares of XYZ:XNYS, the sale is for 5/,
    );
    expect(() =>
      spec([
        { lotId: "A", quantity: 2 },
        { lotId: "A", quantity: 3 },
      ]),
    ).toThrow(/Lot A appears twice/);
    expect(() => spec([{ lotId: "A", quantity: 4 }])).toThrow(TaxLotError);
    expect(() => selectLots(LOTS, 5, "SPECIFIC", CTX)).toThrow(/needs context.specificLots/);
  });

  it("refuses to sell more than is held", () => {
    expect(() => selectLots(LOTS, "80.0001", "FIFO", CTX)).toThrow(InsufficientLotsError);
    expect(() => selectLots(LOTS, "80.0001", "FIFO", CTX)).toThrow(
      "Cannot sell 80.0001 shares of XYZ:XNYS: the account holds 80.",
    );
  });

  it("only sells the given account's lots already acquired on the sale date", () => {
    const lots = [
      lot("A1", 50, "2024-01-02", 10, { accountId: "acct-1" }),
      lot("B1", 50, "2024-01-02", 10, { accountId: "acct-2" }),
      lot("A2", 50, "2024-07-01", 10, { accountId: "acct-1" }), // bought after the sale date
    ];
    const s = selectLots(lots, 10, "FIFO", { ...CTX, accountId: "acct-1" });
    expect(s.picks.map((p) => p.lotId)).toEqual(["A1"]);
    expect(s.available.toString()).toBe("10");
    expect(() => selectLots(lots, 11, "FIFO", { ...CTX, accountId: "acct-1" })).toThrow(
      InsufficientLotsError,
    );
  });

  it("returns no picks for a zero quantity", () => {
    expect(selectLots(LOTS, 0, "TAX_OPTIMAL", CTX).picks).toEqual([]);
  });

  it("puts a loss lot that would wash behind clean losses, and flags it", () => {
    // OLD (ST loss -10/share) would be washed by RECENT, bought 10 days before the sale.
    // RECENT (ST loss -2/share) has no other share bought in the window: selling it is clean.
    const lots = [lot("OLD", 110, "2024-01-16", 100), lot("RECENT", 102, "2024-06-18", 100)];
    const s = selectLots(lots, 150, "TAX_OPTIMAL", CTX);
    expect(s.picks.map((p) => [p.lotId, p.quantity.toString()])).toEqual([
      ["RECENT", "100"],
      ["OLD", "50"],
    ]);
    // After the sale RECENT is gone, so OLD has no replacement left: nothing expected to wash.
    expect(s.picks.map((p) => p.washSaleQuantity.toString())).toEqual(["0", "0"]);

    // Selling 50 only: RECENT 50 first (clean: OLD is not a recent purchase).
    const t = selectLots(lots, 50, "TAX_OPTIMAL", CTX);
    expect(t.picks.map((p) => p.lotId)).toEqual(["RECENT"]);
    expect(t.picks[0]!.washSaleQuantity.toString()).toBe("0");

    // "flag": no reordering; OLD's 100 loss shares are matched to RECENT's 100 remaining shares.
    const f = selectLots(lots, 100, "TAX_OPTIMAL", { ...CTX, washSaleHandling: "flag" });
    expect(f.picks.map((p) => p.lotId)).toEqual(["OLD"]);
    expect(f.picks[0]!.washSaleQuantity.toString()).toBe("100");
    // Expected disallowed loss: 100 x (110 - 100) = 1000
    expect(f.picks[0]!.expectedDisallowedLossUsd.toString()).toBe("1000");
  });

  it("counts planned purchases as replacements and can push exposed losses after gains", () => {
    const lots = [lot("LOSS", 120, "2023-01-03", 10), lot("GAIN", 90, "2020-01-03", 10)];
    const planned = { ...CTX, purchases: [{ themeAssetId: ASSET, date: "2024-07-10", quantity: 4 }] };
    // deprioritize: the exposed loss still goes before a gain (a washed loss realizes nothing now).
    const d = selectLots(lots, 10, "TAX_OPTIMAL", planned);
    expect(d.picks.map((p) => p.lotId)).toEqual(["LOSS"]);
    // 4 of the 10 loss shares match the planned purchase: 10 x (120 - 100) x 4/10 = 80 disallowed.
    expect(d.picks[0]!.washSaleQuantity.toString()).toBe("4");
    expect(d.picks[0]!.expectedDisallowedLossUsd.toString()).toBe("80");
    // avoid: exposed losses go last.
    const a = selectLots(lots, 10, "TAX_OPTIMAL", { ...planned, washSaleHandling: "avoid" });
    expect(a.picks.map((p) => p.lotId)).toEqual(["GAIN"]);
    // A purchase of another asset, or 31 days after the sale, is not a replacement.
    const other = {
      ...CTX,
      purchases: [
        { themeAssetId: "ABC:XNYS", date: "2024-07-10", quantity: 4 },
        { themeAssetId: ASSET, date: "2024-07-29", quantity: 4 },
      ],
    };
    expect(selectLots(lots, 10, "TAX_OPTIMAL", other).picks[0]!.washSaleQuantity.toString()).toBe("0");
  });

  it("ranks a CAD asset's lots by USD basis (purchase FX) and values the sale at the sale FX", () => {
    const cad = (id: string, basis: number, fx: string) =>
      createLot({
        id,
        themeAssetId: "RY:XTSE",
        quantity: 10,
        costBasisPerShare: basis,
        currency: "CAD",
        fxRate: fx,
        tradeDate: "2022-01-04",
      });
    // P: CAD 130 / 1.25 = USD 104 per share; Q: CAD 135 / 1.35 = USD 100 per share. HIFO picks P first
    // although Q has the higher CAD basis.
    const lots = [cad("Q", 135, "1.35"), cad("P", 130, "1.25")];
    const s = selectLots(lots, 20, "HIFO", {
      themeAssetId: "RY:XTSE",
      saleDate: "2024-06-28",
      price: 136,
      fxRate: "1.36",
    });
    expect(s.picks.map((p) => p.lotId)).toEqual(["P", "Q"]);
    // P: proceeds 10 x 136 / 1.36 = 1000; basis 1300 / 1.25 = 1040; gain -40.
    expect(s.picks[0]!.gainUsd.toString()).toBe("-40");
    // Q: proceeds 1000; basis 1350 / 1.35 = 1000; gain 0.
    expect(s.picks[1]!.gainUsd.toString()).toBe("0");
  });

  it("rejects mixed currencies, a USD sale at FX != 1 and unknown policies", () => {
    const usd = lot("U", 10, "2022-01-04");
    const cad = { ...lot("C", 10, "2022-01-04"), currency: "CAD" as const };
    expect(() => selectLots([usd, cad], 1, "FIFO", CTX)).toThrow(/several currencies \(USD, CAD\)/);
    expect(() => selectLots([usd], 1, "FIFO", { ...CTX, fxRate: 1.3 })).toThrow(/USD asset, its fxRate is 1/);
    expect(() => selectLots([usd], 1, "NEWEST" as "FIFO", CTX)).toThrow(/unknown policy NEWEST/);
    expect(() => selectLots([usd], -1, "FIFO", CTX)).toThrow(/quantity: must be >= 0/);
    expect(() => selectLots([usd, usd], 1, "FIFO", CTX)).toThrow(/duplicate lot id U/);
  });

  it("does not mutate its inputs", () => {
    const snapshot = JSON.stringify(LOTS);
    selectLots(LOTS, 33, "TAX_OPTIMAL", CTX);
    selectLots(LOTS, 33, "HIFO", CTX);
    expect(JSON.stringify(LOTS)).toBe(snapshot);
  });
});
