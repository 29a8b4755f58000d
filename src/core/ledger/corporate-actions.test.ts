import { describe, expect, it } from "vitest";
import { ConflictError, ValidationError } from "../errors.js";
import { createLot, TaxDecimal, type TaxLot } from "../tax/index.js";
import { applyExecutions } from "./apply-executions.js";
import { applyCorporateAction, applyCorporateActions } from "./corporate-actions.js";
import type { LedgerBook } from "./types.js";

const P = "PAR:XNYS";
const C = "KID:XNYS";
const lot = (id: string, quantity: number, total: number | string, tradeDate: string, asset = P): TaxLot =>
  createLot({ id, accountId: "A", themeAssetId: asset, quantity, totalCostBasis: total, tradeDate });
const book = (lots: TaxLot[], extra: Partial<LedgerBook> = {}): LedgerBook => ({
  accountId: "A",
  cashUsd: new TaxDecimal(0),
  lots,
  ...extra,
});
const view = (l: TaxLot) => [
  l.id,
  l.themeAssetId,
  l.quantity.toString(),
  l.totalCostBasis.toString(),
  l.tradeDate,
  l.holdingPeriodStart,
];

describe("splits", () => {
  it("multiplies long and short quantities by the ratio and keeps every basis", () => {
    const shorted = applyExecutions(book([]), [
      { id: "s", kind: "short_order", themeAssetId: C, tradeDate: "2025-01-02", quantity: 4, price: 30 },
    ]).book;
    const start = { ...shorted, lots: [lot("L1", 10, 1000, "2024-01-02"), lot("L2", 3, 330, "2024-06-03")] };
    const two = applyCorporateAction(start, {
      id: "sp",
      type: "split",
      themeAssetId: P,
      date: "2025-02-03",
      ratio: 2,
    });
    expect(two.book.lots.map(view)).toEqual([
      ["L1", P, "20", "1000", "2024-01-02", "2024-01-02"],
      ["L2", P, "6", "330", "2024-06-03", "2024-06-03"],
    ]);
    const kid = applyCorporateAction(two.book, {
      id: "sp2",
      type: "split",
      themeAssetId: C,
      date: "2025-02-03",
      ratio: { numerator: 3, denominator: 2 },
    });
    // 4 shares owed become 6, the proceeds (120) stay the short lot's basis.
    expect(kid.book.shortLots!.map((s) => [s.quantity.toString(), s.proceeds.toString()])).toEqual([
      ["6", "120"],
    ]);
    expect(kid.book.appliedActionIds).toEqual(["sp", "sp2"]);
  });

  it("refuses to apply an action id twice and leaves the book as it was", () => {
    const once = applyCorporateAction(book([lot("L1", 10, 1000, "2024-01-02")]), {
      id: "sp",
      type: "split",
      themeAssetId: P,
      date: "2025-02-03",
      ratio: 2,
    }).book;
    let error: unknown;
    try {
      applyCorporateAction(once, { id: "sp", type: "split", themeAssetId: P, date: "2025-02-03", ratio: 2 });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConflictError);
    expect((error as ConflictError).code).toBe("action_already_applied");
    expect(once.lots[0]!.quantity.toString()).toBe("20");
    // In a list, the second application of an id fails the whole list; the input book is kept.
    const start = book([lot("L1", 10, 1000, "2024-01-02")]);
    expect(() =>
      applyCorporateActions(start, [
        { id: "a", type: "split", themeAssetId: P, date: "2025-02-03", ratio: 2 },
        { id: "a", type: "split", themeAssetId: P, date: "2025-03-03", ratio: 2 },
      ]),
    ).toThrow(ConflictError);
    expect(start.lots[0]!.quantity.toString()).toBe("10");
    expect(start.appliedActionIds).toBeUndefined();
  });
});

describe("cash dividends", () => {
  const lots = [lot("L1", 100, 2500, "2025-01-02"), lot("L2", 10, 250, "2025-03-10")];

  it("credits the shares held before the ex-date (a lot bought on the ex-date is not entitled)", () => {
    const r = applyCorporateAction(book(lots), {
      id: "d1",
      type: "cash_dividend",
      themeAssetId: P,
      date: "2025-03-10",
      payDate: "2025-03-24",
      amountPerShare: "0.5",
    });
    expect(r.cash.map((c) => [c.kind, c.date, c.amountUsd.toString()])).toEqual([
      ["dividend", "2025-03-24", "50"],
    ]);
    expect(r.book.cashUsd.toString()).toBe("50");
    expect(r.book.lots).toHaveLength(2);
  });

  it("reinvests as a new lot at the pay-date price, in whole millionths of a share", () => {
    const r = applyCorporateAction(book(lots), {
      id: "d1",
      type: "cash_dividend",
      themeAssetId: P,
      date: "2025-03-10",
      payDate: "2025-03-24",
      amountPerShare: "0.5",
      reinvest: { price: "24.5" },
    });
    // 50 / 24.5 = 2.0408163...: 2.040816 shares for 49.999992, 0.000008 stays in cash.
    expect(r.book.lots.map(view).at(-1)).toEqual([
      "d1:reinvest",
      P,
      "2.040816",
      "49.999992",
      "2025-03-24",
      "2025-03-24",
    ]);
    expect(r.cash.map((c) => [c.kind, c.amountUsd.toString()])).toEqual([
      ["dividend", "50"],
      ["dividend_reinvested", "-49.999992"],
    ]);
    expect(r.book.cashUsd.toString()).toBe("0.000008");
  });

  it("charges a short position the dividend", () => {
    const shorted = applyExecutions(book([]), [
      { id: "s", kind: "short_order", themeAssetId: P, tradeDate: "2025-01-02", quantity: 10, price: 30 },
    ]).book;
    const r = applyCorporateAction(shorted, {
      id: "d",
      type: "cash_dividend",
      themeAssetId: P,
      date: "2025-03-10",
      amountPerShare: "0.5",
    });
    expect(r.cash.map((c) => c.amountUsd.toString())).toEqual(["-5"]);
  });
});

describe("spin-offs", () => {
  // P1: 100 parent shares, basis 5,000, bought 2020-05-01; P2: 30 shares, basis 1,200, bought 2025-01-15.
  const lots = [lot("P1", 100, 5000, "2020-05-01"), lot("P2", 30, 1200, "2025-01-15")];

  it("allocates basis by the fair-market-value fraction and carries trade date and holding period", () => {
    // 0.5 child per parent share; parent 40, child 20 after the distribution: child value per parent share
    // 0.5 x 20 = 10, fraction 10 / (40 + 10) = 0.2. P1: child 1,000 / parent 4,000; P2: child 240 / parent 960.
    const r = applyCorporateAction(book(lots), {
      id: "so",
      type: "spin_off",
      themeAssetId: P,
      childAssetId: C,
      date: "2025-04-01",
      distributionRatio: "0.5",
      parentPrice: 40,
      childPrice: 20,
    });
    expect(r.book.lots.map(view)).toEqual([
      ["P1", P, "100", "4000", "2020-05-01", "2020-05-01"],
      ["P2", P, "30", "960", "2025-01-15", "2025-01-15"],
      ["P1:so", C, "50", "1000", "2020-05-01", "2020-05-01"],
      ["P2:so", C, "15", "240", "2025-01-15", "2025-01-15"],
    ]);
    expect(r.rows).toEqual([]);
    // A child share sold in 2025 from P1 is long-term, as the parent's holding period carries over.
    const sold = applyExecutions(r.book, [
      {
        id: "x",
        kind: "sell",
        themeAssetId: C,
        tradeDate: "2025-05-01",
        quantity: 10,
        price: 21,
        lots: [{ lotId: "P1:so", quantity: 10 }],
      },
    ]);
    expect(sold.rows.map((x) => [x.costBasis.toString(), x.gain.toString(), x.term])).toEqual([
      ["200", "10", "long_term"],
    ]);
  });

  it("uses an announced basis fraction and pays cash in lieu of the fractional child share", () => {
    // 0.25 child per share: P1 -> 25, P2 -> 7.5 child shares; 0.5 share paid in cash at 19 from P2's child lot
    // (basis 1,200 x 0.2 = 240 for 7.5 shares: 16 for 0.5): proceeds 9.50, loss -6.50, short-term.
    const r = applyCorporateAction(book(lots), {
      id: "so",
      type: "spin_off",
      themeAssetId: P,
      childAssetId: C,
      date: "2025-04-01",
      distributionRatio: "0.25",
      basisFraction: "0.2",
      cashInLieu: { price: 19 },
    });
    expect(r.book.lots.filter((l) => l.themeAssetId === C).map(view)).toEqual([
      ["P1:so", C, "25", "1000", "2020-05-01", "2020-05-01"],
      ["P2:so", C, "7", "224", "2025-01-15", "2025-01-15"],
    ]);
    expect(
      r.rows.map((x) => [
        x.description,
        x.proceeds.toString(),
        x.costBasis.toString(),
        x.gain.toString(),
        x.term,
      ]),
    ).toEqual([["0.5 KID", "9.5", "16", "-6.5", "short_term"]]);
    expect(r.cash.map((c) => [c.kind, c.amountUsd.toString()])).toEqual([["cash_in_lieu", "9.5"]]);
  });

  it("refuses a spin-off without a fraction or prices, naming the fields", () => {
    expect(() =>
      applyCorporateAction(book(lots), {
        id: "so",
        type: "spin_off",
        themeAssetId: P,
        childAssetId: C,
        date: "2025-04-01",
        distributionRatio: "0.25",
      }),
    ).toThrow(ValidationError);
    expect(() =>
      applyCorporateAction(book(lots), {
        id: "so",
        type: "spin_off",
        themeAssetId: P,
        childAssetId: C,
        date: "2025-04-01",
        distributionRatio: "0.25",
        basisFraction: "1.2",
      }),
    ).toThrow(/action.basisFraction: must be strictly between 0 and 1/);
  });
});

describe("symbol changes and mergers", () => {
  it("changes the asset id of the lots and nothing else", () => {
    const start = book([lot("L1", 10, 1000, "2024-01-02")]);
    const r = applyCorporateAction(start, {
      id: "sc",
      type: "symbol_change",
      themeAssetId: P,
      date: "2025-02-03",
      newAssetId: "NEW:XNYS",
    });
    expect(r.book.lots.map(view)).toEqual([["L1", "NEW:XNYS", "10", "1000", "2024-01-02", "2024-01-02"]]);
    expect(r.rows).toEqual([]);
    expect(r.cash).toEqual([]);
  });

  it("closes every lot at the cash price of a cash merger, realizing each lot's gain", () => {
    const r = applyCorporateAction(
      book([lot("L1", 100, 5000, "2020-01-02"), lot("L2", 10, 800, "2025-01-02")]),
      {
        id: "cm",
        type: "cash_merger",
        themeAssetId: P,
        date: "2025-06-02",
        cashPerShare: 60,
      },
    );
    expect(r.book.lots).toEqual([]);
    expect(r.rows.map((x) => [x.lotId, x.proceeds.toString(), x.gain.toString(), x.term])).toEqual([
      ["L1", "6000", "1000", "long_term"],
      ["L2", "600", "-200", "short_term"],
    ]);
    expect(r.book.cashUsd.toString()).toBe("6600");
  });

  it("converts lots by the ratio in a stock merger, recognizing gain up to the cash and no loss", () => {
    // T1: 100 shares, basis 5,000; 0.5 acquirer share + 10 cash each; acquirer at 120: value 6,000 + 1,000 =
    // 7,000, gain 2,000, recognized 1,000 (the cash); new basis 5,000 - 1,000 + 1,000 = 5,000.
    // T2: 10 shares, basis 8,000: value 600 + 100 = 700, a loss: nothing recognized; basis 8,000 - 100 = 7,900.
    const r = applyCorporateAction(
      book([lot("T1", 100, 5000, "2020-01-02"), lot("T2", 10, 8000, "2025-01-02")]),
      {
        id: "sm",
        type: "stock_merger",
        themeAssetId: P,
        date: "2025-06-02",
        acquirerAssetId: "ACQ:XNYS",
        ratio: "0.5",
        cashPerShare: 10,
        acquirerPrice: 120,
      },
    );
    expect(r.book.lots.map(view)).toEqual([
      ["T1", "ACQ:XNYS", "50", "5000", "2020-01-02", "2020-01-02"],
      ["T2", "ACQ:XNYS", "5", "7900", "2025-01-02", "2025-01-02"],
    ]);
    expect(
      r.rows.map((x) => [x.lotId, x.proceeds.toString(), x.costBasis.toString(), x.gain.toString(), x.term]),
    ).toEqual([
      ["T1", "1000", "0", "1000", "long_term"],
      ["T2", "100", "100", "0", "short_term"],
    ]);
    expect(r.book.cashUsd.toString()).toBe("1100");
  });

  it("carries the whole basis in an all-stock merger", () => {
    const r = applyCorporateAction(book([lot("T1", 30, 3000, "2020-01-02")]), {
      id: "sm",
      type: "stock_merger",
      themeAssetId: P,
      date: "2025-06-02",
      acquirerAssetId: "ACQ:XNYS",
      ratio: "1.5",
    });
    expect(r.book.lots.map(view)).toEqual([["T1", "ACQ:XNYS", "45", "3000", "2020-01-02", "2020-01-02"]]);
    expect(r.rows).toEqual([]);
  });

  it("refuses a stock merger with cash but no acquirer price, applying nothing", () => {
    const start = book([lot("T1", 30, 3000, "2020-01-02")]);
    expect(() =>
      applyCorporateAction(start, {
        id: "sm",
        type: "stock_merger",
        themeAssetId: P,
        date: "2025-06-02",
        acquirerAssetId: "ACQ:XNYS",
        ratio: "1.5",
        cashPerShare: 2,
      }),
    ).toThrow(/action.acquirerPrice: is required/);
    expect(start.lots.map(view)).toEqual([["T1", P, "30", "3000", "2020-01-02", "2020-01-02"]]);
    expect(start.appliedActionIds).toBeUndefined();
  });

  it("lets lots renamed by a symbol change be sold under the new id", () => {
    const renamed = applyCorporateAction(book([lot("L1", 10, 1000, "2024-01-02")]), {
      id: "sc",
      type: "symbol_change",
      themeAssetId: P,
      date: "2025-02-03",
      newAssetId: "NEW:XNYS",
    }).book;
    const r = applyExecutions(renamed, [
      { id: "s", kind: "sell", themeAssetId: "NEW:XNYS", tradeDate: "2025-03-03", quantity: 4, price: 120 },
    ]);
    expect(r.rows.map((x) => [x.description, x.gain.toString(), x.term])).toEqual([
      ["4 NEW", "80", "long_term"],
    ]);
  });
});
