import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { listing } from "../../test/helpers/listing.js";
import { weekdays } from "../../test/helpers/weekdays.js";
import { openSqliteStore, type SqliteStore } from "../store/index.js";
import type { ServiceContext } from "./context.js";
import { loadMarketPanel } from "./market-panel.js";

const DATES = weekdays("2025-03-03", "2025-03-14");
const END = "2025-03-10";
const LISTINGS = [
  { themeAssetId: "AAA:XNYS", currency: "USD" },
  { themeAssetId: "BBB:XTSE", currency: "CAD" },
] as const;

let store: SqliteStore;
let ctx: ServiceContext;

beforeEach(async () => {
  store = openSqliteStore(":memory:");
  ctx = { store, clock: () => new Date("2025-03-20T12:00:00Z") };
  await store.market.upsertSecurities([
    listing("AAA:XNYS"),
    listing("BBB:XTSE", { mic: "XTSE", currency: "CAD", country: "CA" }),
  ]);
  await store.market.insertPrices(
    DATES.flatMap((date, t) =>
      LISTINGS.map(({ themeAssetId }, i) => ({
        themeAssetId,
        date,
        open: null,
        high: null,
        low: null,
        close: 100 + 10 * i + t,
        adjClose: null,
        volume: 1000 * (i + 1),
      })),
    ),
  );
  // A CAD rate from before the window, one inside it and one after its end.
  await store.market.insertFx([
    { date: "2025-02-28", currency: "CAD", perUsd: 1.4 },
    { date: "2025-03-06", currency: "CAD", perUsd: 1.5 },
    { date: "2025-03-12", currency: "CAD", perUsd: 9 },
  ]);
  // Events inside the window and after it (2025-03-12): the later ones must not enter a panel ending on END.
  await store.market.insertSplits([
    { themeAssetId: "AAA:XNYS", date: "2025-03-05", ratio: 2 },
    { themeAssetId: "AAA:XNYS", date: "2025-03-12", ratio: 3 },
  ]);
  await store.market.insertDividends([
    { themeAssetId: "BBB:XTSE", exDate: "2025-03-07", amount: 1 },
    { themeAssetId: "BBB:XTSE", exDate: "2025-03-12", amount: 4 },
  ]);
  const spinOff = (id: string, exDate: string) => ({
    id,
    kind: "spin_off" as const,
    themeAssetId: "AAA:XNYS",
    exDate,
    payDate: null,
    params: { childAssetId: "CCC:XNYS", distributionRatio: "1", basisFraction: "0.1", childPrice: "5" },
  });
  await store.ledger.addCorporateActions([spinOff("S1", "2025-03-10"), spinOff("S2", "2025-03-12")]);
});

afterEach(async () => {
  await store.close();
});

describe("loadMarketPanel", () => {
  it("reads closes, FX carried from before the window, splits and dividends, nothing dated after the end", async () => {
    const p = await loadMarketPanel(ctx, { listings: LISTINGS, start: "2025-03-01", end: END });
    expect(p.dates).toEqual(DATES.filter((d) => d <= END));
    expect(p.ids).toEqual(["AAA:XNYS", "BBB:XTSE"]);
    expect(p.close[0]).toBe(100);
    expect([...p.fx.get("CAD")!]).toEqual([1.4, 1.4, 1.4, 1.5, 1.5, 1.5]);
    expect(p.splits).toEqual([{ themeAssetId: "AAA:XNYS", date: "2025-03-05", ratio: 2 }]);
    expect(p.dividends).toEqual([{ themeAssetId: "BBB:XTSE", exDate: "2025-03-07", amount: 1 }]);
    expect(p.volume).toBeNull();
    expect(p.spinOffsAt.size).toBe(0);
    // AAA on the split day: 2 x 102 / 101; BBB on the dividend day: (114 + 1) / 1.5 over 113 / 1.5.
    expect(p.growth[2 * 2]).toBeCloseTo((2 * 102) / 101, 14);
    expect(p.growth[4 * 2 + 1]).toBeCloseTo(115 / 113, 14);
  });

  it("reads volumes and the ledger's spin-offs only when asked, and only those of the window", async () => {
    const p = await loadMarketPanel(ctx, {
      listings: LISTINGS,
      start: "2025-03-01",
      end: END,
      volume: true,
      spinOffs: true,
    });
    expect([...p.volume!.slice(0, 2)]).toEqual([1000, 2000]);
    const t = p.dates.indexOf("2025-03-10");
    expect([...p.spinOffsAt.keys()]).toEqual([t]);
    // The child is not a column: it is valued at its given price, 5 per share.
    expect(p.growth[t * 2]).toBeCloseTo((100 + t + 5) / (100 + t - 1), 14);
  });

  it("gives the same rows for a later end up to the earlier end (point in time)", async () => {
    const early = await loadMarketPanel(ctx, { listings: LISTINGS, start: "2025-03-01", end: END });
    const late = await loadMarketPanel(ctx, { listings: LISTINGS, start: "2025-03-01", end: "2025-03-14" });
    const k = early.dates.length * 2;
    expect([...late.growth.slice(0, k)]).toEqual([...early.growth]);
    expect([...late.fx.get("CAD")!.slice(0, early.dates.length)]).toEqual([...early.fx.get("CAD")!]);
    expect(late.splits.length).toBe(2);
  });
});
