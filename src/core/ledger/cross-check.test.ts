/**
 * Cross-check of the ledger against the backtester's account book (core/backtest/account-book.ts): a month of
 * seeded random trades (sells by lot method and by named lots, buys, short sales, covers of named short lots),
 * a split and a dividend, applied to both through their public functions, must end with the same lots
 * (ids, quantities, bases, dates), short lots, realized gains and cash. Trading costs are zero in the book so
 * that its execution price is the close, which the ledger is given as the price.
 */
import { describe, expect, it } from "vitest";
import { AccountBook, handMarket, prepareBacktestMarket, weekdayCalendar } from "../backtest/index.js";
import type { PolicyOrder } from "../backtest/policy.js";
import { createRandom } from "../random.js";
import { createLot, type LotSelectionPolicy, TaxDecimal, type TaxLot } from "../tax/index.js";
import { applyExecutions } from "./apply-executions.js";
import { applyCorporateAction } from "./corporate-actions.js";
import type { Execution, LedgerBook } from "./types.js";

const IDS = ["AAA:XNYS", "BBB:XNYS", "CCC:XNAS", "SSS:XNAS"] as const;
const SHORT = 3;

function runMonth(seed: number, method: LotSelectionPolicy) {
  const rng = createRandom(seed);
  const dates = weekdayCalendar("2025-03-03", "2025-03-31");
  // Random walks in cents around 50..150 (the loss and gain sales of the month come from their moves).
  const paths = IDS.map(() => {
    let p = 50 + rng.next() * 100;
    return dates.map(() => {
      p = Math.max(5, p * (1 + (rng.next() - 0.5) * 0.08));
      return Math.round(p * 100) / 100;
    });
  });
  const splitDay = 10;
  const dividendDay = 5;
  const market = prepareBacktestMarket(
    handMarket({
      dates,
      assets: IDS.map((id, i) => ({ id, close: (t: number) => paths[i]![t]! })),
      weights: { [IDS[0]]: 0.25, [IDS[1]]: 0.25, [IDS[2]]: 0.25, [IDS[3]]: 0.25 },
      splits: [{ themeAssetId: IDS[1], date: dates[splitDay]!, ratio: 2 }],
      dividends: [{ themeAssetId: IDS[0], exDate: dates[dividendDay]!, amount: 0.37 }],
    }),
  );
  // Initial lots of the three long assets, bought from 2024-02 to 2025-02 (long- and short-term, some in the
  // wash-sale window of the month's first days).
  const initial: TaxLot[] = [];
  const buyDates = ["2024-02-12", "2024-07-01", "2024-12-16", "2025-02-14", "2025-02-27"];
  for (let i = 0; i < SHORT; i++)
    for (let k = 0; k < 4; k++)
      initial.push(
        createLot({
          id: `init-${i}-${k}`,
          accountId: "A",
          themeAssetId: IDS[i]!,
          quantity: 10 + Math.floor(rng.next() * 90),
          costBasisPerShare: (40 + rng.next() * 120).toFixed(2),
          tradeDate: buyDates[(i + k) % buyDates.length]!,
        }),
      );
  const book = new AccountBook(
    market,
    { cashUsd: 1_000_000, lots: initial },
    {
      costs: { transactionBps: 0, fxFeeBps: 0 },
      tax: {
        shortTermRate: 0.37,
        longTermRate: 0.2,
        ordinaryIncomeRate: 0.37,
        lossDeductionLimit: 3000,
        lossUsage: "account_only",
        rules: {},
      },
      lotSelection: method,
      idPrefix: "a-",
    },
  );
  let ledger: LedgerBook = { accountId: "A", cashUsd: new TaxDecimal(1_000_000), lots: initial };
  let seq = 0;
  let executions = 0;

  dates.forEach((date, t) => {
    book.applySplits(t);
    book.applyDividends(t);
    if (t === splitDay)
      ledger = applyCorporateAction(ledger, {
        id: `split-${t}`,
        type: "split",
        themeAssetId: IDS[1],
        date,
        ratio: 2,
      }).book;
    if (t === dividendDay)
      ledger = applyCorporateAction(ledger, {
        id: `div-${t}`,
        type: "cash_dividend",
        themeAssetId: IDS[0],
        date,
        amountPerShare: 0.37,
      }).book;

    const orders: PolicyOrder[] = [];
    const sellLots: (Execution["lots"] | undefined)[] = [];
    for (let i = 0; i < SHORT; i++) {
      const lots = book.lots(i).filter((l) => l.tradeDate <= date);
      const u = rng.next();
      if (lots.length > 0 && u < 0.3) {
        // Specific identification: part of one lot.
        const l = lots[Math.floor(rng.next() * lots.length)]!;
        const q = l.quantity.times(0.2 + rng.next() * 0.8).toDecimalPlaces(6, TaxDecimal.ROUND_DOWN);
        if (q.gt(0)) {
          orders.push({ side: "sell", column: i, lots: [{ lotId: l.id, quantity: q }] });
          sellLots.push([{ lotId: l.id, quantity: q.toString() }]);
        }
      } else if (lots.length > 0 && u < 0.55) {
        const held = book.longQuantity(i);
        const q = held.times(0.1 + rng.next() * 0.5).toDecimalPlaces(6, TaxDecimal.ROUND_DOWN);
        if (q.gt(0)) {
          orders.push({ side: "sell", column: i, quantity: q });
          sellLots.push(undefined);
        }
      }
      if (rng.next() < 0.5)
        orders.push({ side: "buy", column: i, amountUsd: 500 + Math.round(rng.next() * 4500) });
    }
    const shorts = book.shortLots(SHORT);
    const cover =
      shorts.length > 0 && rng.next() < 0.35 ? shorts[Math.floor(rng.next() * shorts.length)]!.id : undefined;
    if (rng.next() < 0.3)
      orders.push({ side: "short", column: SHORT, quantity: 1 + Math.floor(rng.next() * 20) });
    if (cover !== undefined) orders.push({ side: "cover", column: SHORT, shortLotIds: [cover] });

    const before = book.fills.length;
    book.execute(t, orders);
    // The book's fills, in execution order, become the ledger's executions of the day.
    const batch: Execution[] = [];
    let sells = 0;
    for (const f of book.fills.slice(before)) {
      const base = {
        themeAssetId: f.themeAssetId,
        tradeDate: f.date,
        quantity: f.quantity.toString(),
        price: f.close,
      };
      if (f.side === "buy" || f.side === "short") {
        seq += 1;
        const id = `a-${String(seq).padStart(6, "0")}`;
        batch.push({ ...base, id, kind: f.side === "buy" ? "buy" : "short_order" });
      } else if (f.side === "sell") {
        const lots = sellLots[sells++];
        batch.push({ ...base, id: `x${t}-${batch.length}`, kind: "sell", ...(lots ? { lots } : {}) });
      } else
        batch.push({ ...base, id: `x${t}-${batch.length}`, kind: "short_cover", lots: [{ lotId: cover! }] });
    }
    executions += batch.length;
    ledger = applyExecutions(ledger, batch, { lotMethod: method }).book;
  });
  return { book, ledger, executions };
}

const lotView = (l: TaxLot) => [
  l.id,
  l.themeAssetId,
  l.quantity.toString(),
  l.totalCostBasis.toString(),
  l.tradeDate,
  l.holdingPeriodStart,
  l.washSaleDate,
];

describe("ledger cross-check with the backtester's account book", () => {
  for (const [seed, method] of [
    [11, "FIFO"],
    [12, "TAX_OPTIMAL"],
    [13, "HIFO"],
  ] as const) {
    it(`ends a month of random ${method} trades with the same lots, shorts, gains and cash (seed ${seed})`, () => {
      const { book, ledger, executions } = runMonth(seed, method);
      expect(executions).toBeGreaterThan(40);
      expect(book.covers.length).toBeGreaterThan(0);
      const bookLots = IDS.flatMap((_, i) => book.lots(i).map(lotView));
      expect(ledger.lots.map(lotView).sort()).toEqual(bookLots.sort());
      expect(
        ledger.shortLots!.map((s) => [s.id, s.quantity.toString(), s.proceeds.toString(), s.openDate]).sort(),
      ).toEqual(
        book
          .shortLots(SHORT)
          .map((s) => [s.id, s.quantity.toString(), s.proceeds.toString(), s.openDate])
          .sort(),
      );
      const longs = ledger.realized!.filter((e) => e.side === "long").map((e) => e.record);
      const view = (r: (typeof longs)[number]) => [
        r.lotId,
        r.saleDate,
        r.quantity.toString(),
        r.proceedsUsd.toString(),
        r.costBasisUsd.toString(),
        r.recognizedGainUsd.toString(),
        r.term,
      ];
      // The book lists its records column by column, the ledger in time order: compared as sets.
      expect(longs.map(view).sort()).toEqual(
        book
          .realizedRecords()
          .map((x) => view(x.record))
          .sort(),
      );
      expect(longs.some((r) => !r.disallowedLossUsd.isZero())).toBe(true);
      expect(
        ledger
          .realized!.filter((e) => e.side === "short")
          .map((e) => [e.record.lotId, e.record.gainUsd.toString()]),
      ).toEqual(book.covers.map((c) => [c.lotId, c.gainUsd.toString()]));
      expect(ledger.cashUsd.toString()).toBe(book.cash.toString());
    });
  }
});
