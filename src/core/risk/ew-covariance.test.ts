import { describe, expect, it } from "vitest";
import { ewCovariance, exponentialWeights } from "./ew-covariance.js";

describe("exponentialWeights", () => {
  it("halves the weight every half-life, newest last, summing to 1", () => {
    // Half-life 1 over 3 periods: 1/4, 1/2, 1 -> normalized 1/7, 2/7, 4/7.
    const w = exponentialWeights(3, 1);
    expect(Array.from(w)).toEqual([
      expect.closeTo(1 / 7, 15),
      expect.closeTo(2 / 7, 15),
      expect.closeTo(4 / 7, 15),
    ]);
    const w84 = exponentialWeights(200, 84);
    expect(w84[199]! / w84[199 - 84]!).toBeCloseTo(2, 12);
  });

  it("gives equal weights for an infinite half-life", () => {
    expect(Array.from(exponentialWeights(4, Number.POSITIVE_INFINITY))).toEqual([0.25, 0.25, 0.25, 0.25]);
  });

  it("rejects a non-positive half-life", () => {
    expect(() => exponentialWeights(3, 0)).toThrow(/halfLife must be > 0/);
  });
});

describe("ewCovariance", () => {
  it("equals the sample covariance (divisor T - 1) with equal weights", () => {
    // x = (1, 2), (3, 2), (5, 8): means 3, 4; deviations (-2, -2), (0, -2), (2, 4);
    // cov_xx = (4 + 0 + 4) / 2 = 4, cov_xy = (4 + 0 + 8) / 2 = 6, cov_yy = (4 + 4 + 16) / 2 = 12.
    const S = ewCovariance(
      Float64Array.of(1, 2, 3, 2, 5, 8),
      3,
      2,
      exponentialWeights(3, Number.POSITIVE_INFINITY),
    );
    expect(Array.from(S)).toEqual([
      expect.closeTo(4, 14),
      expect.closeTo(6, 14),
      expect.closeTo(6, 14),
      expect.closeTo(12, 14),
    ]);
  });

  it("weights recent observations more, with the 1 / (1 - sum w^2) correction", () => {
    // w = (1/7, 2/7, 4/7), x = 0, 0, 7: m = 4, sum w (x - m)^2 = (16 + 32 + 36) / 7 = 12,
    // sum w^2 = 21/49 = 3/7, so S = 12 / (4/7) = 21.
    const S = ewCovariance(Float64Array.of(0, 0, 7), 3, 1, exponentialWeights(3, 1));
    expect(S[0]).toBeCloseTo(21, 13);
  });

  it("skips demeaning when asked (second moment)", () => {
    const S = ewCovariance(Float64Array.of(1, 3), 2, 1, Float64Array.of(0.5, 0.5), { demean: false });
    expect(S[0]).toBeCloseTo(5, 15);
  });

  it("refuses a single weighted observation and mismatched lengths", () => {
    expect(() => ewCovariance(Float64Array.of(1), 1, 1, Float64Array.of(1))).toThrow(
      /at least two observations/,
    );
    expect(() => ewCovariance(Float64Array.of(1, 2), 2, 1, Float64Array.of(1))).toThrow(RangeError);
  });
});
