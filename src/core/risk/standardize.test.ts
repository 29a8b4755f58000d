import { describe, expect, it } from "vitest";
import { standardizeCharacteristic } from "./standardize.js";

describe("standardizeCharacteristic", () => {
  it("uses the cap-weighted mean and the equal-weighted deviation (hand-computed)", () => {
    // m = (1 + 2 + 2*3) / 4 = 2.25; s^2 = (1.25^2 + 0.25^2 + 0.75^2) / 2 = 1.09375.
    const s = Math.sqrt(1.09375);
    const { values, degenerate, observed } = standardizeCharacteristic(
      Float64Array.of(1, 2, 3),
      Float64Array.of(1, 1, 2),
    );
    expect(degenerate).toBe(false);
    expect(observed).toBe(3);
    expect(values[0]).toBeCloseTo(-1.25 / s, 14);
    expect(values[1]).toBeCloseTo(-0.25 / s, 14);
    expect(values[2]).toBeCloseTo(0.75 / s, 14);
    // Cap-weighted mean 0.
    expect(values[0]! + values[1]! + 2 * values[2]!).toBeCloseTo(0, 14);
  });

  it("winsorizes an outlier at 3 and re-centres so the cap-weighted mean stays 0", () => {
    // 19 zeros and one 100, equal caps: m = 5, s = sqrt((19 * 25 + 95^2) / 19) = sqrt(500);
    // z = -5/sqrt 500 = -0.2236 (x19) and 95/sqrt 500 = 4.25 -> clipped to 3; mean of clipped = -0.06243.
    const x = new Float64Array(20);
    x[19] = 100;
    const { values } = standardizeCharacteristic(x, new Float64Array(20).fill(1));
    const shift = (19 * (-5 / Math.sqrt(500)) + 3) / 20;
    expect(values[19]).toBeCloseTo(3 - shift, 14);
    expect(values[0]).toBeCloseTo(-5 / Math.sqrt(500) - shift, 14);
    expect(values.reduce((a, b) => a + b, 0)).toBeCloseTo(0, 13);
  });

  it("gives missing values exposure 0 and leaves them out of the moments", () => {
    const { values, observed } = standardizeCharacteristic(
      Float64Array.of(1, Number.NaN, 3),
      Float64Array.of(1, 5, 1),
    );
    expect(observed).toBe(2);
    // m = 2, s = sqrt(2): z = -1/sqrt 2, +1/sqrt 2.
    expect(Array.from(values)).toEqual([
      expect.closeTo(-Math.SQRT1_2, 14),
      0,
      expect.closeTo(Math.SQRT1_2, 14),
    ]);
  });

  it("flags a characteristic without dispersion and returns zeros", () => {
    const res = standardizeCharacteristic(Float64Array.of(2, 2, 2), Float64Array.of(1, 2, 3));
    expect(res.degenerate).toBe(true);
    expect(Array.from(res.values)).toEqual([0, 0, 0]);
    expect(standardizeCharacteristic(Float64Array.of(2, Number.NaN), Float64Array.of(1, 1)).degenerate).toBe(
      true,
    );
  });

  it("does not mutate its inputs and checks lengths and the bound", () => {
    const x = Float64Array.of(1, 2, 3);
    const c = Float64Array.of(1, 1, 2);
    standardizeCharacteristic(x, c);
    expect(Array.from(x)).toEqual([1, 2, 3]);
    expect(Array.from(c)).toEqual([1, 1, 2]);
    expect(() => standardizeCharacteristic(x, Float64Array.of(1))).toThrow(
      /capWeights has length 1, expected 3/,
    );
    expect(() => standardizeCharacteristic(x, c, { winsorize: 0 })).toThrow(/winsorize must be > 0/);
  });
});
