import { describe, expect, it } from "vitest";
import {
  addDays,
  addMonths,
  daysBetween,
  fromDayNumber,
  isIsoDate,
  monthEnds,
  toDayNumber,
} from "./dates.js";

describe("calendar arithmetic", () => {
  it("round-trips every day from 1900 to 2100 and agrees with Date.UTC", () => {
    const start = Date.UTC(1900, 0, 1) / 86_400_000;
    const end = Date.UTC(2100, 11, 31) / 86_400_000;
    for (let day = start; day <= end; day++) {
      const iso = new Date(day * 86_400_000).toISOString().slice(0, 10);
      expect(fromDayNumber(day)).toBe(iso);
      expect(toDayNumber(iso)).toBe(day);
    }
  });

  it("knows which dates exist", () => {
    expect(isIsoDate("2024-02-29")).toBe(true);
    expect(isIsoDate("2023-02-29")).toBe(false);
    expect(isIsoDate("1900-02-29")).toBe(false);
    expect(isIsoDate("2000-02-29")).toBe(true);
    expect(isIsoDate("2024-04-31")).toBe(false);
    expect(isIsoDate("2024-4-01")).toBe(false);
    expect(isIsoDate("2024-04-01T00:00")).toBe(false);
    expect(() => toDayNumber("2024-13-01")).toThrow(/not a YYYY-MM-DD date/);
  });

  it("parses exactly the dates isIsoDate accepts", () => {
    const samples = [
      "2024-02-29",
      "2023-02-29",
      "2024-00-10",
      "2024-01-00",
      "2024-04-31",
      "2024-0a-01",
      "abcd-ef-gh",
      "+024-01-01",
      "2024/01/01",
      " 2024-01-1",
      "2024-01-011",
      "0000-01-01",
      "9999-12-31",
      "2024-1:-01",
      "2024-12-3/",
      "",
    ];
    for (const s of samples)
      if (isIsoDate(s)) expect(fromDayNumber(toDayNumber(s))).toBe(s);
      else expect(() => toDayNumber(s)).toThrow(RangeError);
  });

  it("shifts by days and months, clamping month ends", () => {
    expect(addDays("2024-02-28", 2)).toBe("2024-03-01");
    expect(daysBetween("2023-03-01", "2024-03-01")).toBe(366);
    expect(addMonths("2024-01-31", 1)).toBe("2024-02-29");
    expect(addMonths("2024-03-31", -1)).toBe("2024-02-29");
    expect(addMonths("2023-12-15", 14)).toBe("2025-02-15");
  });

  it("finds the last trading day of each month", () => {
    const dates = ["2024-01-30", "2024-01-31", "2024-02-01", "2024-02-28", "2024-03-01"];
    expect(monthEnds(dates)).toEqual(["2024-01-31", "2024-02-28", "2024-03-01"]);
    expect(monthEnds(dates, "2024-02-01", "2024-02-28")).toEqual(["2024-02-28"]);
  });
});
