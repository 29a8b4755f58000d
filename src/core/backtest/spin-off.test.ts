/**
 * Spin-offs in the backtester's account book (docs/backtests.md, "Spin-offs"), by hand: the basis split between
 * parent and child, the holding period the child carries, a child without a price sold at its value with its
 * gain, a child with a price held, a short parent paying the child's value, and the parent's daily return.
 */
import { describe, expect, it } from "vitest";
import { applyCorporateAction } from "../ledger/corporate-actions.js";
import { createLot, TaxDecimal, type TaxLot } from "../tax/index.js";
import { AccountBook, type AccountBookOptions } from "./account-book.js";
import { handMarket, weekdayCalendar } from "./hand-market.js";
import { type BacktestSpinOff, prepareBacktestMarket } from "./market-data.js";

const dates = weekdayCalendar("2025-06-02", "2025-06-13");
const SPIN = 3; // 2025-06-05
const PAR = "PAR:XNYS";
const KID = "KID:XNYS";
const d = (v: number | string) => new TaxDecimal(v);

function market(kidPriced: boolean, spin: Partial<BacktestSpinOff> = {}) {
  return prepareBacktestMarket({
    ...handMarket({
      dates,
      assets: [
        { id: PAR, close: (t) => (t < SPIN ? 100 : 60) },
        { id: KID, close: (t) => (kidPriced && t >= SPIN ? 80 : Number.NaN) },
      ],
      weights: { [PAR]: 1 },
    }),
    spinOffs: [
      {
        id: "SPIN-PAR",
        themeAssetId: PAR,
        childAssetId: KID,
        date: dates[SPIN]!,
        distributionRatio: 0.5,
        basisFraction: 0.4,
        ...spin,
      },
    ],
  });
}

const lots = (): TaxLot[] => [
  createLot({ id: "L1", themeAssetId: PAR, quantity: 100, totalCostBasis: 5000, tradeDate: "2024-01-10" }),
  createLot({ id: "L2", themeAssetId: PAR, quantity: 10, totalCostBasis: 1200, tradeDate: "2025-03-03" }),
];

const options = (bps: number): AccountBookOptions => ({
  costs: { transactionBps: bps, fxFeeBps: 0 },
  tax: {
    shortTermRate: 0.37,
    longTermRate: 0.2,
    ordinaryIncomeRate: 0.37,
    lossDeductionLimit: 3000,
    lossUsage: "account_only",
    rules: {},
  },
  lotSelection: "FIFO",
  idPrefix: "t-",
});

describe("AccountBook.applySpinOffs", () => {
  it("keeps (1 - f) of each parent lot's basis and sells a child without a price at its FMV value, realizing the gain by the carried term", () => {
    const m = market(false);
    const book = new AccountBook(m, { cashUsd: 1000, lots: lots() }, options(10));
    expect(book.nav(SPIN - 1).toNumber()).toBe(1000 + 110 * 100);
    book.applySpinOffs(SPIN);
    // Parent lots: 5,000 x 0.6 = 3,000 and 1,200 x 0.6 = 720; same shares, dates and holding periods.
    const parents = book.lots(0);
    expect(
      parents.map((l) => [l.id, l.quantity.toNumber(), l.totalCostBasis.toNumber(), l.tradeDate]),
    ).toEqual([
      ["L1", 100, 3000, "2024-01-10"],
      ["L2", 10, 720, "2025-03-03"],
    ]);
    expect(book.lots(1)).toEqual([]);
    // Child value: FMV relation 60 x 0.4 / (0.6 x 0.5) = 80 a share, sold at 80 x (1 - 10 bps) = 79.92.
    // L1's child: 50 shares, basis 2,000, proceeds 3,996, +1,996 long-term (held since 2024-01-10).
    // L2's child: 5 shares, basis 480, proceeds 399.60, -80.40 short-term (held since 2025-03-03).
    const sales = book.realizedRecords();
    expect(
      sales.map(({ record: r, harvest }) => [
        r.lotId,
        r.themeAssetId,
        r.quantity.toNumber(),
        r.costBasisUsd.toNumber(),
        r.proceedsUsd.toNumber(),
        r.recognizedGainUsd.toNumber(),
        r.term,
        r.holdingPeriodStart,
        harvest,
      ]),
    ).toEqual([
      ["L1:SPIN-PAR", KID, 50, 2000, 3996, 1996, "long_term", "2024-01-10", false],
      ["L2:SPIN-PAR", KID, 5, 480, 399.6, -80.4, "short_term", "2025-03-03", false],
    ]);
    expect(book.openYear.longTerm.toNumber()).toBe(1996);
    expect(book.openYear.shortTerm.toNumber()).toBe(-80.4);
    expect(book.cash.toNumber()).toBe(1000 + 4395.6);
    expect(book.totals.salesUsd.toNumber()).toBe(4400);
    expect(book.totals.transactionCostUsd.toNumber()).toBe(4.4);
    // NAV over the date: 12,000 before; 5,395.60 + 110 x 60 = 11,995.60 after (only the cost of the sale lost).
    expect(book.nav(SPIN).toNumber()).toBe(11_995.6);
    expect(book.spinOffs).toHaveLength(1);
    expect(book.spinOffs[0]!.disposition).toBe("sold");
    expect(book.spinOffs[0]!.basisToChildUsd.toNumber()).toBe(2480);
    expect(book.spinOffs[0]!.childQuantity.toNumber()).toBe(55);
  });

  it("sells the child at the given child price when the spin-off names one", () => {
    const book = new AccountBook(market(false, { childPrice: 70 }), { cashUsd: 0, lots: lots() }, options(0));
    book.applySpinOffs(SPIN);
    // 55 child shares at 70 = 3,850; gains 50 x 70 - 2,000 = 1,500 and 5 x 70 - 480 = -130.
    expect(book.cash.toNumber()).toBe(3850);
    expect(book.realizedRecords().map((r) => r.record.recognizedGainUsd.toNumber())).toEqual([1500, -130]);
  });

  it("adds the child lots to a priced child's column with the parent's dates, as the ledger does, and a later sale is long-term", () => {
    const m = market(true);
    const book = new AccountBook(m, { cashUsd: 1000, lots: lots() }, options(0));
    book.applySpinOffs(SPIN);
    const kids = book.lots(1);
    expect(
      kids.map((l) => [l.id, l.quantity.toNumber(), l.totalCostBasis.toNumber(), l.holdingPeriodStart]),
    ).toEqual([
      ["L1:SPIN-PAR", 50, 2000, "2024-01-10"],
      ["L2:SPIN-PAR", 5, 480, "2025-03-03"],
    ]);
    expect(book.realizedRecords()).toEqual([]);
    expect(book.cash.toNumber()).toBe(1000);
    // NAV continuous: 110 x 60 + 55 x 80 = 11,000.
    expect(book.nav(SPIN).toNumber()).toBe(12_000);
    // The live ledger's rule gives the same lots (same code: core/ledger spinOffLot).
    const ledger = applyCorporateAction(
      { accountId: "A", cashUsd: d(1000), lots: lots() },
      {
        id: "SPIN-PAR",
        type: "spin_off",
        themeAssetId: PAR,
        date: dates[SPIN]!,
        childAssetId: KID,
        distributionRatio: "0.5",
        basisFraction: "0.4",
      },
    );
    const sameLots = (l: readonly TaxLot[]) =>
      [...l]
        .sort((a, b) => (a.id < b.id ? -1 : 1))
        .map((x) => [x.id, x.themeAssetId, x.quantity.toFixed(), x.totalCostBasis.toFixed(), x.tradeDate]);
    expect(sameLots([...book.lots(0), ...book.lots(1)])).toEqual(sameLots(ledger.book.lots));
    // A sale of the child a day later: long-term through the parent's holding period.
    book.execute(SPIN + 1, [{ side: "sell", column: 1, lots: [{ lotId: "L1:SPIN-PAR", quantity: 50 }] }]);
    const [sale] = book.realizedRecords();
    expect(sale!.record.term).toBe("long_term");
    expect(sale!.record.recognizedGainUsd.toNumber()).toBe(50 * 80 - 2000);
  });

  it("makes a short parent pay the child's value from cash, as it pays a dividend", () => {
    const m = market(false);
    const book = new AccountBook(
      m,
      {
        cashUsd: 5000,
        shortLots: [
          {
            id: "S1",
            themeAssetId: PAR,
            quantity: d(10),
            proceeds: d(1000),
            fxRate: d(1),
            openDate: "2025-05-01",
          },
        ],
      },
      options(0),
    );
    const before = book.nav(SPIN - 1).toNumber();
    book.applySpinOffs(SPIN);
    // Owes 10 x 0.5 = 5 child shares worth 80: 400 paid. NAV: 5,000 - 1,000 before; 4,600 - 600 after.
    expect(book.cash.toNumber()).toBe(4600);
    expect(book.nav(SPIN).toNumber()).toBe(before);
    expect(book.totals.dividendsUsd.toNumber()).toBe(-400);
    expect(book.spinOffs[0]!.shortPaymentUsd.toNumber()).toBe(400);
  });

  it("leaves an account without the parent alone", () => {
    const m = market(false);
    const book = new AccountBook(m, { cashUsd: 1000 }, options(0));
    book.applySpinOffs(SPIN);
    expect(book.spinOffs).toEqual([]);
    expect(book.cash.toNumber()).toBe(1000);
  });
});

describe("prepareBacktestMarket with spin-offs", () => {
  it("counts the child's value in the parent's return on the distribution date", () => {
    const m = market(false);
    // (60 + 0.5 x 80) / 100 - 1 = 0, where the price alone fell 40%.
    expect(m.usdReturn[SPIN * 2]).toBeCloseTo(0, 12);
    expect(m.usdReturn[(SPIN + 1) * 2]).toBe(0);
    const priced = market(true, { basisFraction: 0.2 });
    // The child's close (80), not the fraction, values it when the child is priced.
    expect(priced.usdReturn[SPIN * 2]).toBeCloseTo(0, 12);
    expect(priced.spinOffsAt.get(SPIN)![0]!.childColumn).toBe(1);
  });

  it("refuses a basis fraction outside (0, 1)", () => {
    expect(() => market(false, { basisFraction: 1 })).toThrow(/basis fraction/);
  });
});
