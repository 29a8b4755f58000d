import { describe, expect, it } from "vitest";
import { ValidationError } from "../errors.js";
import { createLot, TaxDecimal, type TaxLot } from "../tax/index.js";
import { applyExecutions } from "./apply-executions.js";
import type { Execution, LedgerBook } from "./types.js";

const XYZ = "XYZ:XNYS";
const lot = (
  id: string,
  quantity: number | string,
  perShare: number | string,
  tradeDate: string,
  accountId = "A",
) => createLot({ id, accountId, themeAssetId: XYZ, quantity, costBasisPerShare: perShare, tradeDate });

const book = (lots: TaxLot[], extra: Partial<LedgerBook> = {}): LedgerBook => ({
  accountId: "A",
  cashUsd: new TaxDecimal(10_000),
  lots,
  ...extra,
});

const view = (l: TaxLot) => [
  l.id,
  l.accountId,
  l.quantity.toString(),
  l.totalCostBasis.toString(),
  l.tradeDate,
  l.holdingPeriodStart,
  l.washSaleDate,
];

describe("applyExecutions: buys and sells", () => {
  it("creates a lot per buy with fees in the basis and debits the cash", () => {
    const r = applyExecutions(book([]), [
      {
        id: "b1",
        kind: "buy",
        themeAssetId: XYZ,
        tradeDate: "2025-02-03",
        quantity: 10,
        price: "50.5",
        fees: 1,
      },
    ]);
    expect(r.book.lots.map(view)).toEqual([["b1", "A", "10", "506", "2025-02-03", "2025-02-03", null]]);
    // 10 x 50.5 + 1 = 506 out of 10,000.
    expect(r.book.cashUsd.toString()).toBe("9494");
    expect(r.cash.map((c) => [c.sourceId, c.kind, c.amountUsd.toString()])).toEqual([["b1", "buy", "-506"]]);
  });

  it("relieves named lots on a sell (specific identification), splitting a partial lot", () => {
    const lots = [lot("L1", 100, 40, "2023-01-10"), lot("L2", 50, 60, "2024-11-01")];
    const r = applyExecutions(
      book(lots),
      [
        {
          id: "s1",
          kind: "sell",
          themeAssetId: XYZ,
          tradeDate: "2025-02-03",
          quantity: 30,
          price: 55,
          fees: 3,
          lots: [{ lotId: "L2", quantity: 30 }],
        },
      ],
      { lotMethod: "FIFO" },
    );
    // L2 keeps 20 shares with 20/50 of its 3,000 basis; proceeds 30 x 55 - 3 = 1,647, basis 1,800, loss -153.
    expect(r.book.lots.map((l) => [l.id, l.quantity.toString(), l.totalCostBasis.toString()])).toEqual([
      ["L1", "100", "4000"],
      ["L2", "20", "1200"],
    ]);
    expect(
      r.rows.map((x) => [
        x.description,
        x.dateAcquired,
        x.dateSold,
        x.proceeds.toString(),
        x.costBasis.toString(),
        x.gain.toString(),
        x.term,
      ]),
    ).toEqual([["30 XYZ", "2024-11-01", "2025-02-03", "1647", "1800", "-153", "short_term"]]);
    expect(r.book.cashUsd.toString()).toBe("11647");
  });

  it("uses the account's lot method when a sell names no lots", () => {
    const lots = [lot("L1", 10, 40, "2023-01-10"), lot("L2", 10, 60, "2024-11-01")];
    const sell: Execution = {
      id: "s",
      kind: "sell",
      themeAssetId: XYZ,
      tradeDate: "2025-02-03",
      quantity: 5,
      price: 50,
    };
    const fifo = applyExecutions(book(lots), [sell], { lotMethod: "FIFO" });
    const hifo = applyExecutions(book(lots), [sell], { lotMethod: "HIFO" });
    expect(fifo.rows.map((x) => [x.lotId, x.gain.toString(), x.term])).toEqual([["L1", "50", "long_term"]]);
    expect(hifo.rows.map((x) => [x.lotId, x.gain.toString(), x.term])).toEqual([["L2", "-50", "short_term"]]);
  });

  it("applies a batch in trade-date order: a buy dated before a sell in the batch can be sold", () => {
    const r = applyExecutions(book([]), [
      { id: "s", kind: "sell", themeAssetId: XYZ, tradeDate: "2025-03-05", quantity: 4, price: 12 },
      { id: "b", kind: "buy", themeAssetId: XYZ, tradeDate: "2025-03-03", quantity: 10, price: 10 },
    ]);
    expect(r.book.lots.map((l) => [l.id, l.quantity.toString()])).toEqual([["b", "6"]]);
    expect(r.rows.map((x) => x.gain.toString())).toEqual(["8"]);
    expect(r.cash.map((c) => c.sourceId)).toEqual(["b", "s"]);
  });
});

describe("applyExecutions: wash sales (IRC §1091) across the household", () => {
  // Client C has accounts A and B. A holds 100 XYZ bought 2025-01-10 at 50 (basis 5,000).
  // B bought 5 XYZ on 2025-03-01 at 42 (basis 210).
  const a1 = lot("A1", 100, 50, "2025-01-10");
  const b1 = lot("B1", 5, 42, "2025-03-01", "B");

  it("disallows 5/100 of A's loss when B bought 5 shares 9 days before, into B's lot", () => {
    const r = applyExecutions(book([a1], { household: { lots: [b1], realized: [] } }), [
      { id: "s", kind: "sell", themeAssetId: XYZ, tradeDate: "2025-03-10", quantity: 100, price: 40 },
    ]);
    // Loss 4,000 - 5,000 = -1,000; 5 of the 100 shares replaced: 1,000 x 5/100 = 50 disallowed, -950 recognized.
    expect(
      r.rows.map((x) => [
        x.proceeds.toString(),
        x.costBasis.toString(),
        x.adjustmentCode,
        x.adjustment.toString(),
        x.gain.toString(),
      ]),
    ).toEqual([["4000", "5000", "W", "50", "-950"]]);
    expect(r.book.lots).toEqual([]);
    // B1 basis 210 + 50 = 260; A1 was held 59 days (2025-01-10 -> 2025-03-10): B1's holding period starts
    // 59 days before 2025-03-01, on 2025-01-01.
    expect(r.book.household!.lots.map(view)).toEqual([
      ["B1", "B", "5", "260", "2025-03-01", "2025-01-01", "2025-03-10"],
    ]);
    expect(
      r.washSales.map((w) => [w.replacementLotId, w.disallowedLossUsd.toString(), w.tackedDays]),
    ).toEqual([["B1", "50", 59]]);
  });

  it("washes B's earlier loss sale with A's purchase of 5 shares 10 days later, into A's new lot", () => {
    // B sold 100 shares (bought 2025-01-10 at 50) on 2025-03-10 at 40: a loss of 1,000 in B's ledger.
    const bBook = applyExecutions(
      { accountId: "B", cashUsd: new TaxDecimal(0), lots: [lot("BL", 100, 50, "2025-01-10", "B")] },
      [{ id: "bs", kind: "sell", themeAssetId: XYZ, tradeDate: "2025-03-10", quantity: 100, price: 40 }],
    );
    expect(bBook.rows.map((x) => x.gain.toString())).toEqual(["-1000"]);
    const r = applyExecutions(book([], { household: { lots: [], realized: bBook.book.realized! } }), [
      { id: "ab", kind: "buy", themeAssetId: XYZ, tradeDate: "2025-03-20", quantity: 5, price: 41 },
    ]);
    // A's lot: 5 x 41 = 205 + 50 disallowed = 255; holding period 59 days earlier than 2025-03-20 = 2025-01-20.
    expect(r.book.lots.map(view)).toEqual([
      ["ab", "A", "5", "255", "2025-03-20", "2025-01-20", "2025-03-20"],
    ]);
    // B's row is updated: 50 of the loss disallowed (W), -950 recognized.
    expect(r.householdEntries.map((e) => [e.id, e.record.disallowedLossUsd.toString()])).toEqual([
      ["bs:1", "50"],
    ]);
    expect(r.book.household!.realized![0]!.record.recognizedGainUsd.toString()).toBe("-950");
    expect(r.entries).toEqual([]);
  });

  it("washes the account's own loss sale with a buy later in the same batch", () => {
    const r = applyExecutions(book([a1]), [
      { id: "s", kind: "sell", themeAssetId: XYZ, tradeDate: "2025-03-10", quantity: 100, price: 40 },
      { id: "b", kind: "buy", themeAssetId: XYZ, tradeDate: "2025-03-25", quantity: 5, price: 41 },
    ]);
    // One entry, updated by the buy: 50 disallowed.
    expect(
      r.rows.map((x) => [x.entryId, x.adjustmentCode, x.adjustment.toString(), x.gain.toString()]),
    ).toEqual([["s:1", "W", "50", "-950"]]);
    expect(r.book.lots.map(view)).toEqual([["b", "A", "5", "255", "2025-03-25", "2025-01-25", "2025-03-25"]]);
  });
});

describe("applyExecutions: short lots", () => {
  it("opens a short lot with its proceeds as basis and covers it with a short-term gain", () => {
    const opened = applyExecutions(book([]), [
      {
        id: "so",
        kind: "short_order",
        themeAssetId: XYZ,
        tradeDate: "2024-02-01",
        quantity: 10,
        price: 100,
        fees: 2,
      },
    ]);
    expect(
      opened.book.shortLots!.map((s) => [
        s.side,
        s.id,
        s.quantity.toString(),
        s.proceeds.toString(),
        s.openDate,
      ]),
    ).toEqual([["short", "so", "10", "998", "2024-02-01"]]);
    expect(opened.book.cashUsd.toString()).toBe("10998");
    // Covered 14 months later: still short-term (IRC §1233). Proceeds 998, cost 10 x 80 + 1 = 801, gain 197.
    const covered = applyExecutions(opened.book, [
      {
        id: "sc",
        kind: "short_cover",
        themeAssetId: XYZ,
        tradeDate: "2025-04-01",
        quantity: 10,
        price: 80,
        fees: 1,
      },
    ]);
    expect(covered.book.shortLots).toEqual([]);
    expect(
      covered.rows.map((x) => [
        x.side,
        x.dateAcquired,
        x.dateSold,
        x.proceeds.toString(),
        x.costBasis.toString(),
        x.gain.toString(),
        x.term,
      ]),
    ).toEqual([["short", "2025-04-01", "2025-04-01", "998", "801", "197", "short_term"]]);
    expect(covered.entries[0]!.openDate).toBe("2024-02-01");
    expect(covered.book.cashUsd.toString()).toBe("10197");
  });

  it("covers first-opened short lots first unless lots are named", () => {
    const opened = applyExecutions(book([]), [
      { id: "s1", kind: "short_order", themeAssetId: XYZ, tradeDate: "2025-01-02", quantity: 10, price: 100 },
      { id: "s2", kind: "short_order", themeAssetId: XYZ, tradeDate: "2025-01-03", quantity: 10, price: 90 },
    ]).book;
    const fifo = applyExecutions(opened, [
      { id: "c", kind: "short_cover", themeAssetId: XYZ, tradeDate: "2025-02-03", quantity: 15, price: 95 },
    ]);
    // s1 fully (1,000 - 950 = 50), s2 5 shares (450 - 475 = -25); s2 keeps 5 owed with 450 proceeds.
    expect(fifo.rows.map((x) => [x.lotId, x.quantity.toString(), x.gain.toString()])).toEqual([
      ["s1", "10", "50"],
      ["s2", "5", "-25"],
    ]);
    expect(fifo.book.shortLots!.map((s) => [s.id, s.quantity.toString(), s.proceeds.toString()])).toEqual([
      ["s2", "5", "450"],
    ]);
    const named = applyExecutions(opened, [
      {
        id: "c",
        kind: "short_cover",
        themeAssetId: XYZ,
        tradeDate: "2025-02-03",
        quantity: 10,
        price: 95,
        lots: [{ lotId: "s2" }],
      },
    ]);
    expect(named.rows.map((x) => [x.lotId, x.gain.toString()])).toEqual([["s2", "-50"]]);
  });
});

describe("applyExecutions: a bad batch is refused whole", () => {
  const lots = [lot("L1", 10, 40, "2025-01-10"), lot("L2", 5, 60, "2025-02-10")];

  it("lists every bad execution by index and field and leaves the input book unchanged", () => {
    const make = () =>
      book(lots, { household: { lots: [lot("H1", 3, 50, "2025-02-01", "B")], realized: [] } });
    const input = make();
    const snapshot = JSON.stringify(input);
    const lotObjects = [...input.lots];
    const executions: Execution[] = [
      { id: "ok", kind: "buy", themeAssetId: XYZ, tradeDate: "2025-03-03", quantity: 1, price: 10 },
      { id: "over", kind: "sell", themeAssetId: XYZ, tradeDate: "2025-03-03", quantity: 100, price: 10 },
      {
        id: "ghost",
        kind: "sell",
        themeAssetId: XYZ,
        tradeDate: "2025-03-03",
        quantity: 1,
        price: 10,
        lots: [{ lotId: "NOPE", quantity: 1 }],
      },
      { id: "free", kind: "buy", themeAssetId: XYZ, tradeDate: "2025-03-03", quantity: 1, price: 0 },
      { id: "none", kind: "buy", themeAssetId: XYZ, tradeDate: "2025-03-03", quantity: -2, price: 5 },
      {
        id: "early",
        kind: "sell",
        themeAssetId: XYZ,
        tradeDate: "2025-02-01",
        quantity: 5,
        price: 10,
        lots: [{ lotId: "L2", quantity: 5 }],
      },
      { id: "ok2", kind: "sell", themeAssetId: XYZ, tradeDate: "2025-03-04", quantity: 5, price: 10 },
    ];
    let error: unknown;
    try {
      applyExecutions(input, executions);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ValidationError);
    const issues = (error as ValidationError).issues.map((x) => x.path);
    expect(issues.sort()).toEqual(
      [
        "executions[1].quantity",
        "executions[2].lots[0].lotId",
        "executions[3].price",
        "executions[4].quantity",
        "executions[5].tradeDate",
      ].sort(),
    );
    expect((error as Error).message).toMatch(/^5 of 7 executions are invalid; nothing was applied/);
    // The valid buy of the batch counts: 10 + 5 + 1 shares held when the oversell is checked.
    expect((error as Error).message).toMatch(
      /oversell: 100 shares of XYZ:XNYS, the account holds 16 on 2025-03-03/,
    );
    expect((error as Error).message).toMatch(/2025-02-01 is before the trade date 2025-02-10 of lot L2/);
    // Deep equal to a fresh copy, same JSON, and the very same lot objects in the same array.
    expect(input).toEqual(make());
    expect(JSON.stringify(input)).toBe(snapshot);
    expect(input.lots).toHaveLength(2);
    input.lots.forEach((l, i) => {
      expect(l).toBe(lotObjects[i]);
    });
  });

  it("refuses a lot id already in use, a buy of a shorted asset and a sell over a named lot's shares", () => {
    expect(() =>
      applyExecutions(book(lots), [
        { id: "L1", kind: "buy", themeAssetId: XYZ, tradeDate: "2025-03-03", quantity: 1, price: 10 },
        {
          id: "x",
          kind: "sell",
          themeAssetId: XYZ,
          tradeDate: "2025-03-03",
          quantity: 11,
          price: 10,
          lots: [{ lotId: "L1", quantity: 11 }],
        },
      ]),
    ).toThrow(
      /executions\[0\]\.id: lot id L1 is already in use; executions\[1\]\.lots\[0\]\.quantity: oversell: 11 shares of lot L1/,
    );
    const short = applyExecutions(book([]), [
      { id: "s", kind: "short_order", themeAssetId: XYZ, tradeDate: "2025-03-03", quantity: 1, price: 10 },
    ]).book;
    expect(() =>
      applyExecutions(short, [
        { id: "b", kind: "buy", themeAssetId: XYZ, tradeDate: "2025-03-04", quantity: 1, price: 10 },
      ]),
    ).toThrow(/executions\[0\]\.kind: XYZ:XNYS is held short: cover the short lots before buying/);
  });

  it("refuses a book holding another account's lot among its own", () => {
    expect(() => applyExecutions(book([lot("L1", 10, 40, "2025-01-10", "B")]), [])).toThrow(
      /lot L1 belongs to account B, not A; other accounts' lots go in book.household/,
    );
  });
});
