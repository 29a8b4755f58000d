import { describe, expect, it } from "vitest";
import { openSqliteStore } from "../store/index.js";
import { fxColumns } from "./fx-columns.js";

describe("FX columns of a panel", () => {
  it("carries the last rate on or before each date, counts a weekend rate from the next date, and leaves USD out", async () => {
    const store = openSqliteStore(":memory:");
    try {
      await store.market.insertFx([
        { date: "2025-01-02", currency: "CAD", perUsd: 1.4 }, // before the panel: the starting rate
        { date: "2025-01-07", currency: "CAD", perUsd: 1.42 },
        { date: "2025-01-11", currency: "CAD", perUsd: 1.45 }, // a Saturday
        { date: "2025-01-08", currency: "EUR", perUsd: 0.95 },
      ]);
      const dates = ["2025-01-06", "2025-01-07", "2025-01-08", "2025-01-10", "2025-01-13"];
      const columns = await fxColumns(store.market, ["USD", "CAD", "EUR", "CAD"], dates);
      expect([...columns.keys()]).toEqual(["CAD", "EUR"]);
      expect([...columns.get("CAD")!]).toEqual([1.4, 1.42, 1.42, 1.42, 1.45]);
      expect([...columns.get("EUR")!]).toEqual([Number.NaN, Number.NaN, 0.95, 0.95, 0.95]);
      expect((await fxColumns(store.market, ["CAD"], [])).size).toBe(0);
    } finally {
      await store.close();
    }
  });
});
