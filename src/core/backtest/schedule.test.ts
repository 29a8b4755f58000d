import { describe, expect, it } from "vitest";
import { weekdayCalendar } from "./hand-market.js";
import { backtestSchedule } from "./schedule.js";

describe("backtestSchedule", () => {
  const dates = weekdayCalendar("2013-01-01", "2018-03-30");

  it("rebalances 60 times over five years of monthly anniversaries of the start", () => {
    const s = backtestSchedule(dates, "2013-02-08", "2018-02-07");
    expect(s.rebalances).toHaveLength(60);
    expect(dates[s.first]).toBe("2013-02-08");
    expect(dates[s.last]).toBe("2018-02-07");
    // 2013-03-08 is a Friday; 2013-06-08 a Saturday, so the first weekday after it.
    expect(dates[s.rebalances[1]!]).toBe("2013-03-08");
    expect(dates[s.rebalances[4]!]).toBe("2013-06-10");
    expect(dates[s.rebalances[59]!]).toBe("2018-01-08");
    expect(s.periodEnds).toEqual([...s.rebalances.slice(1), s.last]);
  });

  it("keeps the start's day of the month after short months (no drift to the 28th)", () => {
    const s = backtestSchedule(dates, "2014-01-31", "2014-06-30");
    // Jan 31, Feb 28 (clamped), Mar 31, Apr 30 (clamped), May 31 is a Saturday -> Jun 2.
    expect(s.rebalances.map((t) => dates[t])).toEqual([
      "2014-01-31",
      "2014-02-28",
      "2014-03-31",
      "2014-04-30",
      "2014-06-02",
    ]);
  });

  it("settles taxes on the last trading date of each year inside the window", () => {
    const s = backtestSchedule(dates, "2013-02-08", "2018-02-07");
    expect(s.yearEnds.map((t) => dates[t])).toEqual([
      "2013-12-31",
      "2014-12-31",
      "2015-12-31",
      "2016-12-30",
      "2017-12-29",
    ]);
  });

  it("refuses a window with fewer than two trading dates", () => {
    expect(() => backtestSchedule(dates, "2013-02-09", "2013-02-10")).toThrow(/fewer than two trading dates/);
    expect(() => backtestSchedule(dates, "2019-01-01", "2019-02-01")).toThrow(RangeError);
  });
});
