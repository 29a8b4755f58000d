/**
 * One answer for the daily USD total return, wherever lotwise computes it (issue 17 item 2): the optimizer's risk
 * history (service/optimize.ts `priceHistory`, read from the store), the account backtester's market
 * (core/backtest/market-data.ts `usdReturn`) and the theme backtest's panel (core/themes/return-panel.ts) agree on
 * a day with a split and a dividend of the same listing, and on a dividend dated on a Saturday.
 */
import { describe, expect, it } from "vitest";
import { listing } from "../../test/helpers/listing.js";
import { weekdays } from "../../test/helpers/weekdays.js";
import { prepareBacktestMarket } from "../core/backtest/market-data.js";
import { totalReturnPanel } from "../core/data/market-panel.js";
import type { Dividend, Split } from "../core/data/types.js";
import { openSqliteStore } from "../store/index.js";
import { priceHistory } from "./optimize.js";

const DATES = weekdays("2025-01-02", "2025-02-12");
const T = DATES.length;
const IDS = ["AAA:XNYS", "BBB:XTSE"] as const;
/** The split and the dividend of AAA go ex on this date; BBB's dividend is dated on the Saturday before MONDAY. */
const EVENT = DATES.indexOf("2025-01-16");
const MONDAY = DATES.indexOf("2025-01-20");

// AAA: 100 until the event, then 49 (2:1, after a 0.50 dividend per new share). BBB: a flat 50 CAD.
const close = new Float64Array(T * 2);
for (let t = 0; t < T; t++) {
  close[t * 2] = t < EVENT ? 100 : 49;
  close[t * 2 + 1] = 50;
}
// CAD per USD: 1.25, then 1.30 from the Monday on.
const cad = Float64Array.from(DATES, (_d, t) => (t < MONDAY ? 1.25 : 1.3));
const splits: Split[] = [{ themeAssetId: "AAA:XNYS", date: DATES[EVENT]!, ratio: 2 }];
const dividends: Dividend[] = [
  { themeAssetId: "AAA:XNYS", exDate: DATES[EVENT]!, amount: 0.5 },
  { themeAssetId: "BBB:XTSE", exDate: "2025-01-18", amount: 0.3 },
];

describe("daily USD total returns", () => {
  it("are the same in the optimizer's history, the account backtester and the theme panel on a split-and-dividend day and a weekend dividend", async () => {
    // By hand: one AAA share of 100 becomes 2 shares of 49 with 0.50 each: 99 / 100 - 1.
    const aaa = (2 * 49 + 2 * 0.5) / 100 - 1;
    // BBB: 50 CAD at 1.25 on Friday; the Saturday dividend counts on Monday, at 1.30.
    const bbb = (50 + 0.3) / 1.3 / (50 / 1.25) - 1;
    expect(aaa).toBeCloseTo(-0.01, 15);

    const panel = totalReturnPanel({
      dates: DATES,
      ids: IDS,
      close,
      splits,
      dividends,
      fxPerUsd: [undefined, cad],
    });
    const market = prepareBacktestMarket({
      dates: DATES,
      securities: [
        { themeAssetId: IDS[0], currency: "USD", sector: null },
        { themeAssetId: IDS[1], currency: "CAD", sector: null },
      ],
      close,
      splits,
      dividends,
      fxPerUsd: { CAD: cad },
      benchmark: { name: "equal", dates: [DATES[0]!], weights: [Float64Array.of(0.5, 0.5)] },
    });
    const store = openSqliteStore(":memory:");
    try {
      await store.market.upsertSecurities([
        listing(IDS[0]),
        listing(IDS[1], { mic: "XTSE", currency: "CAD", country: "CA" }),
      ]);
      await store.market.insertPrices(
        DATES.flatMap((date, t) =>
          IDS.map((themeAssetId, i) => ({
            themeAssetId,
            date,
            open: null,
            high: null,
            low: null,
            close: close[t * 2 + i]!,
            adjClose: null,
            volume: 1000,
          })),
        ),
      );
      await store.market.insertSplits(splits);
      await store.market.insertDividends(dividends);
      await store.market.insertFx(DATES.map((date, t) => ({ date, currency: "CAD", perUsd: cad[t]! })));
      const history = await priceHistory(
        { store, clock: () => new Date() },
        IDS,
        ["USD", "CAD"],
        DATES.at(-1)!,
      );
      expect(history.periods).toBe(T - 1);
      // Period s of the history is the return of date s + 1.
      const optimizer = (t: number, i: number) => history.returns[(t - 1) * 2 + i]!;
      for (const [t, i, want] of [
        [EVENT, 0, aaa],
        [MONDAY, 1, bbb],
      ] as const) {
        expect(panel.growth[t * 2 + i]! - 1, `theme panel ${IDS[i]}`).toBeCloseTo(want, 14);
        expect(market.usdReturn[t * 2 + i]!, `backtester ${IDS[i]}`).toBeCloseTo(want, 14);
        expect(optimizer(t, i), `optimizer ${IDS[i]}`).toBeCloseTo(want, 14);
      }
      // Every other day: the three agree too (0 for AAA, the FX move for BBB).
      for (let t = 1; t < T; t++)
        for (let i = 0; i < 2; i++) {
          expect(market.usdReturn[t * 2 + i]!).toBeCloseTo(panel.growth[t * 2 + i]! - 1, 14);
          expect(optimizer(t, i)).toBeCloseTo(panel.growth[t * 2 + i]! - 1, 14);
        }
    } finally {
      await store.close();
    }
  });
});
