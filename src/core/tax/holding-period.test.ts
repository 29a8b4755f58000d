import { describe, expect, it } from "vitest";
import { holdingDays, holdingTerm, longTermDate } from "./holding-period.js";
import { LONG_TERM_THRESHOLD_DAYS, resolveTaxRules, WASH_SALE_THRESHOLD_DAYS } from "./tax-rules.js";

describe("holding period", () => {
  it("uses 365 and 30 days as the default thresholds", () => {
    expect(LONG_TERM_THRESHOLD_DAYS).toBe(365);
    expect(WASH_SALE_THRESHOLD_DAYS).toBe(30);
    expect(resolveTaxRules()).toEqual({
      longTermThresholdDays: 365,
      washSaleThresholdDays: 30,
      holdingPeriodConvention: "calendar",
    });
  });

  it("counts from the day after acquisition, the sale day included", () => {
    // Bought and sold the same day: 0 days held. Next day: 1.
    expect(holdingDays("2024-05-10", "2024-05-10")).toBe(0);
    expect(holdingDays("2024-05-10", "2024-05-11")).toBe(1);
  });

  it("is short-term after 365 days and long-term after 366 in a year without February 29", () => {
    // 2022-01-05 -> 2023-01-05: 365 days (no Feb 29 in between) = exactly one year -> short-term.
    expect(holdingDays("2022-01-05", "2023-01-05")).toBe(365);
    expect(holdingTerm("2022-01-05", "2023-01-05")).toBe("short_term");
    // One day more: 366 days -> more than one year -> long-term.
    expect(holdingDays("2022-01-05", "2023-01-06")).toBe(366);
    expect(holdingTerm("2022-01-05", "2023-01-06")).toBe("long_term");
    expect(longTermDate("2022-01-05")).toBe("2023-01-06");
  });

  it("follows the calendar year across a leap year (IRS rule) by not counting February 29", () => {
    // 2023-03-01 -> 2024-03-01 spans 2024-02-29: 366 calendar days, but exactly one year -> short-term.
    expect(holdingDays("2023-03-01", "2024-03-01")).toBe(366);
    expect(holdingTerm("2023-03-01", "2024-03-01")).toBe("short_term");
    expect(holdingTerm("2023-03-01", "2024-03-02")).toBe("long_term");
    expect(longTermDate("2023-03-01")).toBe("2024-03-02");
  });

  it("treats 366 calendar days as long-term with the actual_days convention", () => {
    const opts = { holdingPeriodConvention: "actual_days" as const };
    expect(holdingTerm("2023-03-01", "2024-02-29", opts)).toBe("short_term"); // 365 days
    expect(holdingTerm("2023-03-01", "2024-03-01", opts)).toBe("long_term"); // 366 days
    expect(longTermDate("2023-03-01", opts)).toBe("2024-03-01");
  });

  it("handles a February 29 acquisition: long-term from March 1 of the next year", () => {
    // Start 2024-02-29; 2025-02-28 is 365 days later (one year, anniversary clamped) -> short; 03-01 -> long.
    expect(holdingTerm("2024-02-29", "2025-02-28")).toBe("short_term");
    expect(holdingTerm("2024-02-29", "2025-03-01")).toBe("long_term");
    // Start 2024-02-28: 2025-02-28 is 366 calendar days including 2024-02-29 -> exactly one year -> short.
    expect(holdingTerm("2024-02-28", "2025-02-28")).toBe("short_term");
    expect(holdingTerm("2024-02-28", "2025-03-01")).toBe("long_term");
  });

  it("agrees with the anniversary rule for every start date in leap and century years", () => {
    // Independent method: long-term iff sale date > same month-day `years` later (Feb 29 clamped to Feb 28).
    const anniversary = (d: string, years: number): string => {
      const y = Number(d.slice(0, 4)) + years;
      const leap = (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
      const md = d.slice(5) === "02-29" && !leap ? "02-28" : d.slice(5);
      return `${y}-${md}`;
    };
    const nextDay = (d: string): string =>
      new Date(Date.parse(`${d}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
    for (const [from, to] of [
      [2023, 2025],
      [2099, 2100],
    ] as const) {
      for (let t = Date.UTC(from, 0, 1); t <= Date.UTC(to, 11, 31); t += 86_400_000) {
        const start = new Date(t).toISOString().slice(0, 10);
        const a = anniversary(start, 1);
        expect(holdingTerm(start, a), `${start} sold ${a}`).toBe("short_term");
        expect(holdingTerm(start, nextDay(a)), `${start} sold ${nextDay(a)}`).toBe("long_term");
        // Three years = 3 x 365 days, leap days not counted.
        const a3 = anniversary(start, 3);
        expect(holdingTerm(start, a3, { longTermThresholdDays: 1095 })).toBe("short_term");
        expect(holdingTerm(start, nextDay(a3), { longTermThresholdDays: 1095 })).toBe("long_term");
      }
    }
  });

  it("honors a custom long-term threshold", () => {
    expect(holdingTerm("2024-01-01", "2024-01-31", { longTermThresholdDays: 29 })).toBe("long_term");
    expect(holdingTerm("2024-01-01", "2024-01-30", { longTermThresholdDays: 29 })).toBe("short_term");
  });

  it("rejects a sale before the start, bad dates and bad thresholds", () => {
    expect(() => holdingDays("2024-05-10", "2024-05-09")).toThrow(/before the holding-period start/);
    expect(() => holdingDays("2024-02-30", "2024-05-09")).toThrow(RangeError);
    expect(() => holdingTerm("2024-01-01", "2024-02-01", { longTermThresholdDays: -1 })).toThrow(
      /longTermThresholdDays must be a non-negative integer/,
    );
    expect(() => resolveTaxRules({ washSaleThresholdDays: 1.5 })).toThrow(/washSaleThresholdDays/);
  });
});
