import { describe, expect, it } from "vitest";
import { PERIODS_PER_YEAR, periodsPerYear } from "./annualization.js";

describe("periodsPerYear", () => {
  it("maps named frequencies to their periods per year", () => {
    expect(periodsPerYear("daily")).toBe(252);
    expect(periodsPerYear("weekly")).toBe(52);
    expect(periodsPerYear("monthly")).toBe(12);
    expect(periodsPerYear("quarterly")).toBe(4);
    expect(periodsPerYear("annual")).toBe(1);
    expect(Object.keys(PERIODS_PER_YEAR)).toHaveLength(5);
  });

  it("passes a positive number through", () => {
    expect(periodsPerYear(260)).toBe(260);
  });

  it("rejects unknown names and non-positive numbers", () => {
    expect(() => periodsPerYear("hourly" as never)).toThrow(/unknown frequency "hourly"/);
    expect(() => periodsPerYear(0)).toThrow(/positive finite number/);
    expect(() => periodsPerYear(Number.NaN)).toThrow(RangeError);
  });
});
