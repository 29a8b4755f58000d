import { describe, expect, it } from "vitest";
import {
  assertPricePanel,
  type CharacteristicPanel,
  characteristicPanelToValues,
  closeSeries,
  createPricePanel,
  lastCloseAtOrBefore,
  type PricePanel,
  panelColumnIndex,
  panelFromBars,
  panelToBars,
  selectPanelIds,
  slicePanelDates,
} from "./panel.js";
import type { PriceBar } from "./types.js";

const NaN_ = Number.NaN;

/** 3 dates x 2 ids; BBB is not listed on the first date. */
function small(): PricePanel {
  return {
    dates: ["2024-01-02", "2024-01-03", "2024-01-04"],
    ids: ["AAA:XNYS", "BBB:XNAS"],
    close: Float64Array.from([10, NaN_, 11, 20, 12, 21]),
    volume: Float64Array.from([100, NaN_, 110, 200, 120, 210]),
  };
}

function bar(id: string, date: string, close: number, volume: number | null = null): PriceBar {
  return { themeAssetId: id, date, open: null, high: null, low: null, close, adjClose: null, volume };
}

describe("createPricePanel", () => {
  it("allocates a T x N panel filled with NaN", () => {
    const p = createPricePanel(["2024-01-02", "2024-01-03"], ["A:XNYS", "B:XNYS", "C:XNYS"]);
    expect(p.close.length).toBe(6);
    expect(p.volume.length).toBe(6);
    expect([...p.close].every(Number.isNaN)).toBe(true);
  });

  it("does not keep references to the caller's arrays", () => {
    const dates = ["2024-01-02"];
    const p = createPricePanel(dates, ["A:XNYS"]);
    dates.push("2024-01-03");
    expect(p.dates).toEqual(["2024-01-02"]);
  });
});

describe("assertPricePanel", () => {
  it("accepts a well-formed panel with NaN gaps", () => {
    expect(() => assertPricePanel(small())).not.toThrow();
  });

  it("names every shape problem", () => {
    const p = small();
    expect(() => assertPricePanel({ ...p, close: new Float64Array(5) })).toThrow(
      /close has 5 cells, expected dates x ids = 3 x 2 = 6/,
    );
    expect(() => assertPricePanel({ ...p, volume: new Float64Array(7) })).toThrow(/volume has 7 cells/);
    expect(() => assertPricePanel({ ...p, dates: ["2024-01-02", "2024-01-02", "2024-01-04"] })).toThrow(
      /strictly ascending; 2024-01-02 is followed by 2024-01-02/,
    );
    expect(() => assertPricePanel({ ...p, ids: ["AAA:XNYS", "AAA:XNYS"] })).toThrow(/AAA:XNYS appears twice/);
    const bad = small();
    bad.close[3] = -1;
    expect(() => assertPricePanel(bad)).toThrow(/close of BBB:XNAS on 2024-01-03 is -1/);
    bad.close[3] = Number.POSITIVE_INFINITY;
    expect(() => assertPricePanel(bad)).toThrow(/is Infinity/);
  });
});

describe("panel access", () => {
  it("indexes columns and extracts one close series", () => {
    const p = small();
    expect(panelColumnIndex(p).get("BBB:XNAS")).toBe(1);
    expect([...closeSeries(p, "BBB:XNAS")]).toEqual([NaN_, 20, 21]);
    expect(() => closeSeries(p, "ZZZ:XNYS")).toThrow(/ZZZ:XNYS is not in the panel/);
  });

  it("finds the last close on or before a row, within the staleness limit", () => {
    const p = small();
    p.close[2 * 2 + 1] = NaN_; // BBB has no price on the last date
    expect(lastCloseAtOrBefore(p, 1, 2)).toEqual({ close: 20, row: 1 });
    expect(lastCloseAtOrBefore(p, 1, 2, 0)).toBeNull();
    expect(lastCloseAtOrBefore(p, 1, 0)).toBeNull();
  });
});

describe("slicePanelDates and selectPanelIds", () => {
  it("keeps only the rows inside the date bounds", () => {
    const s = slicePanelDates(small(), "2024-01-03");
    expect(s.dates).toEqual(["2024-01-03", "2024-01-04"]);
    expect([...s.close]).toEqual([11, 20, 12, 21]);
    const s2 = slicePanelDates(small(), undefined, "2024-01-03");
    expect(s2.dates).toEqual(["2024-01-02", "2024-01-03"]);
    expect(slicePanelDates(small(), "2025-01-01").close.length).toBe(0);
  });

  it("reorders and subsets columns without mutating the source", () => {
    const p = small();
    const before = [...p.close];
    const s = selectPanelIds(p, ["BBB:XNAS"]);
    expect([...s.close]).toEqual([NaN_, 20, 21]);
    expect([...s.volume]).toEqual([NaN_, 200, 210]);
    s.close[1] = 99;
    expect([...p.close]).toEqual(before);
    expect(() => selectPanelIds(p, ["X:XNYS"])).toThrow(/X:XNYS is not in the panel/);
  });
});

describe("panelFromBars and panelToBars", () => {
  it("round-trips bars through a panel", () => {
    const bars = [
      bar("B:XNAS", "2024-01-03", 20, 200),
      bar("A:XNYS", "2024-01-02", 10, 100),
      bar("A:XNYS", "2024-01-03", 11, null),
    ];
    const p = panelFromBars(bars);
    expect(p.dates).toEqual(["2024-01-02", "2024-01-03"]);
    expect(p.ids).toEqual(["A:XNYS", "B:XNAS"]);
    expect([...p.close]).toEqual([10, NaN_, 11, 20]);
    const back = panelToBars(p);
    expect(back).toEqual([bars[1], bars[2], bars[0]]);
  });

  it("rejects duplicate bars and bad closes", () => {
    expect(() => panelFromBars([bar("A:XNYS", "2024-01-02", 1), bar("A:XNYS", "2024-01-02", 2)])).toThrow(
      /two bars for A:XNYS on 2024-01-02/,
    );
    expect(() => panelFromBars([bar("A:XNYS", "2024-01-02", 0)])).toThrow(
      /close of A:XNYS on 2024-01-02 is 0/,
    );
  });

  it("handles an empty list", () => {
    const p = panelFromBars([]);
    expect(p.dates).toEqual([]);
    expect(panelToBars(p)).toEqual([]);
  });
});

describe("characteristicPanelToValues", () => {
  it("emits one row per available value and skips NaN", () => {
    const panel: CharacteristicPanel = {
      dates: ["2024-01-31"],
      ids: ["A:XNYS", "B:XNYS"],
      values: { market_cap: Float64Array.from([1e9, NaN_]), pe: Float64Array.from([15, 22]) },
    };
    expect(characteristicPanelToValues(panel)).toEqual([
      { themeAssetId: "A:XNYS", date: "2024-01-31", name: "market_cap", value: 1e9 },
      { themeAssetId: "A:XNYS", date: "2024-01-31", name: "pe", value: 15 },
      { themeAssetId: "B:XNYS", date: "2024-01-31", name: "pe", value: 22 },
    ]);
  });
});
