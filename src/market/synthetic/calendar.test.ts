import { describe, expect, it } from "vitest";
import { fromDayNumber } from "../../core/dates.js";
import { easterSunday, isSyntheticHoliday, syntheticHolidays, syntheticTradingDates } from "./calendar.js";

describe("easterSunday", () => {
  it("matches published Easter dates", () => {
    // Known Western Easter Sundays.
    expect(easterSunday(1990)).toEqual([4, 15]);
    expect(easterSunday(2000)).toEqual([4, 23]);
    expect(easterSunday(2008)).toEqual([3, 23]);
    expect(easterSunday(2024)).toEqual([3, 31]);
    expect(easterSunday(2025)).toEqual([4, 20]);
    expect(easterSunday(2038)).toEqual([4, 25]);
  });
});

describe("synthetic holidays", () => {
  it("lists the six holidays of 2024 (all on weekdays)", () => {
    expect(syntheticHolidays(2024).map(fromDayNumber)).toEqual([
      "2024-01-01",
      "2024-03-29",
      "2024-07-04",
      "2024-09-02",
      "2024-11-28",
      "2024-12-25",
    ]);
  });

  it("applies the weekend rules: Saturday New Year is dropped, Sunday Christmas moves to Monday", () => {
    // 2022-01-01 is a Saturday, 2022-12-25 a Sunday; 2021-07-04 is a Sunday, 2020-07-04 a Saturday.
    expect(syntheticHolidays(2022).map(fromDayNumber)).toEqual([
      "2022-04-15",
      "2022-07-04",
      "2022-09-05",
      "2022-11-24",
      "2022-12-26",
    ]);
    expect(isSyntheticHoliday("2021-07-05")).toBe(true);
    expect(isSyntheticHoliday("2020-07-03")).toBe(true);
    expect(isSyntheticHoliday("2023-01-02")).toBe(true); // 2023-01-01 is a Sunday
    expect(isSyntheticHoliday("2024-07-05")).toBe(false);
  });
});

describe("syntheticTradingDates", () => {
  it("skips weekends and holidays", () => {
    expect(syntheticTradingDates("2024-12-23", "2024-12-27")).toEqual([
      "2024-12-23",
      "2024-12-24",
      "2024-12-26",
      "2024-12-27",
    ]);
  });

  it("has 256 trading days in 2024", () => {
    // 366 days - 104 weekend days (the year starts on a Monday: 52 weeks + Mon, Tue) - 6 weekday holidays.
    expect(syntheticTradingDates("2024-01-01", "2024-12-31")).toHaveLength(256);
  });

  it("returns ascending unique dates and an empty list over a weekend", () => {
    const d = syntheticTradingDates("2015-01-01", "2016-12-31");
    for (let k = 1; k < d.length; k++) expect(d[k - 1]! < d[k]!).toBe(true);
    expect(syntheticTradingDates("2024-06-01", "2024-06-02")).toEqual([]);
  });

  it("rejects reversed bounds", () => {
    expect(() => syntheticTradingDates("2024-02-01", "2024-01-01")).toThrow(
      /syntheticTradingDates: from 2024-02-01 is after to 2024-01-01/,
    );
  });
});
