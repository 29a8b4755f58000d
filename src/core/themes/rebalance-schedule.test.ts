import { describe, expect, it } from "vitest";
import { rebalanceIndices } from "./rebalance-schedule.js";

// Month ends of 2024 on a weekday calendar (trading dates around each month boundary).
const DATES = [
  "2024-01-02", // 0 inception
  "2024-01-31", // 1 Jan end
  "2024-02-01",
  "2024-02-29", // 3 Feb end
  "2024-03-01",
  "2024-03-28", // 5 Mar end (Q1)
  "2024-04-01",
  "2024-06-28", // 7 Jun end (Q2, H1)
  "2024-07-01",
  "2024-09-30", // 9 Sep end (Q3)
  "2024-10-01",
  "2024-12-31", // 11 Dec end (Q4, H2, year)
  "2025-01-02",
  "2025-01-15", // 13 last date: never a rebalance
];

describe("rebalanceIndices", () => {
  it("rebalances at inception and at the last trading date of each month", () => {
    // 2024-04-01 (6), 2024-07-01 (8) and 2024-10-01 (10) are the last dates of April, July and October here.
    expect(rebalanceIndices(DATES, "MONTHLY")).toEqual([0, 1, 3, 5, 6, 7, 8, 9, 10, 11]);
  });

  it("uses calendar quarters, halves and years", () => {
    expect(rebalanceIndices(DATES, "QUARTERLY")).toEqual([0, 5, 7, 9, 11]);
    expect(rebalanceIndices(DATES, "SEMI_ANNUALLY")).toEqual([0, 7, 11]);
    expect(rebalanceIndices(DATES, "ANNUALLY")).toEqual([0, 11]);
  });

  it("does not repeat inception when the window starts on a period end", () => {
    expect(rebalanceIndices(["2024-03-28", "2024-04-01", "2024-04-02"], "QUARTERLY")).toEqual([0]);
  });

  it("never rebalances on the window's last date, even at a period end", () => {
    expect(rebalanceIndices(["2024-12-02", "2024-12-31"], "MONTHLY")).toEqual([0]);
    expect(rebalanceIndices([], "MONTHLY")).toEqual([]);
  });

  it("rejects dates out of order and an unknown period", () => {
    expect(() => rebalanceIndices(["2024-01-03", "2024-01-02"], "MONTHLY")).toThrow("strictly ascending");
    expect(() => rebalanceIndices(DATES, "WEEKLY" as "MONTHLY")).toThrow("period must be one of MONTHLY");
  });
});
