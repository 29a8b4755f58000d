import { describe, expect, it } from "vitest";
import { cronMatchesDate, parseCron } from "./cron.js";

describe("cron schedules at day level", () => {
  it("fires quarterly on the 1st with a month step", () => {
    const s = parseCron("0 0 1 */3 *");
    expect(["2026-01-01", "2026-04-01", "2026-07-01", "2026-10-01"].every((d) => cronMatchesDate(s, d))).toBe(
      true,
    );
    expect(cronMatchesDate(s, "2026-02-01")).toBe(false);
    expect(cronMatchesDate(s, "2026-04-02")).toBe(false);
  });

  it("matches weekdays by name and treats 7 as Sunday", () => {
    const fridays = parseCron("30 16 * * FRI");
    expect(cronMatchesDate(fridays, "2026-11-20")).toBe(true); // a Friday
    expect(cronMatchesDate(fridays, "2026-11-21")).toBe(false);
    expect(cronMatchesDate(parseCron("0 0 * * 7"), "2026-11-22")).toBe(true); // a Sunday
  });

  it("matches either restricted day field, as Vixie cron does", () => {
    const s = parseCron("0 0 15 * MON");
    expect(cronMatchesDate(s, "2026-11-15")).toBe(true); // the 15th (a Sunday)
    expect(cronMatchesDate(s, "2026-11-16")).toBe(true); // a Monday
    expect(cronMatchesDate(s, "2026-11-17")).toBe(false);
  });

  it("accepts ranges, lists and month names", () => {
    const s = parseCron("0 9 1-7,15 JAN-MAR,DEC *");
    expect(cronMatchesDate(s, "2026-02-03")).toBe(true);
    expect(cronMatchesDate(s, "2026-02-15")).toBe(true);
    expect(cronMatchesDate(s, "2026-05-03")).toBe(false);
  });

  it("rejects malformed expressions naming the field", () => {
    expect(() => parseCron("0 0 1 *")).toThrow(/must have 5 fields/);
    expect(() => parseCron("0 0 32 * *")).toThrow(/day-of-month "32" is outside 1-31/);
    expect(() => parseCron("0 25 * * *")).toThrow(/hour "25" is outside 0-23/);
    expect(() => parseCron("0 0 * FOO *")).toThrow(/"FOO" is not a number/);
    expect(() => parseCron("0 0 */0 * *")).toThrow(/bad step/);
    expect(() => parseCron("0 0 32 * *")).toThrow(
      /day-of-month "32" is outside 1-31 \(field 3 at position 4\)/,
    );
    expect(() => parseCron("  5 9 * * MON-XYZ")).toThrow(/"XYZ" is not a number \(field 5 at position 10\)/);
    expect(() => parseCron("0 0 1 *")).toThrow(/found 4/);
  });
});
