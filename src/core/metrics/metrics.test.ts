import { describe, expect, it } from "vitest";
import {
  annualizedReturn,
  annualizedVolatility,
  beta,
  compensatedSum,
  cumulativeReturns,
  drawdownOf,
  maxDrawdown,
  performanceSummary,
  periodicRate,
  sampleVariance,
  sharpeRatio,
  simpleReturns,
  totalReturn,
  trackingError,
} from "./index.js";

// A short quarterly series used throughout (q = 4 periods a year):
//   r = 0.10, -0.05, 0.02, 0.03      mean 0.025, deviations 0.075, -0.075, -0.005, 0.005
//   sum of squared deviations 0.005625 * 2 + 0.000025 * 2 = 0.0113 -> variance 0.0113 / 3
//   b = 0.05, -0.02, 0.01, 0.02      mean 0.015, deviations 0.035, -0.035, -0.005, 0.005
//   sum of squared deviations 0.001225 * 2 + 0.000025 * 2 = 0.0025 -> variance 0.0025 / 3
//   cross products 0.075*0.035 * 2 + 0.005*0.005 * 2 = 0.0053 -> covariance 0.0053 / 3
const r = [0.1, -0.05, 0.02, 0.03];
const b = [0.05, -0.02, 0.01, 0.02];
// Values compounding r from 1: 1.1, 1.1 * 0.95 = 1.045, * 1.02 = 1.0659, * 1.03 = 1.097877.
const values = [1, 1.1, 1.045, 1.0659, 1.097877];

describe("returns", () => {
  it("turns values into simple returns and back", () => {
    const back = simpleReturns(values);
    for (let i = 0; i < r.length; i++) expect(back[i]).toBeCloseTo(r[i]!, 12);
    const cum = cumulativeReturns(r);
    for (let i = 0; i < r.length; i++) expect(cum[i]).toBeCloseTo(values[i + 1]! - 1, 12);
  });

  it("compounds the total return: 1.1 * 0.95 * 1.02 * 1.03 - 1 = 0.097877", () => {
    expect(totalReturn(r)).toBeCloseTo(0.097877, 12);
    expect(totalReturn([])).toBe(0);
  });

  it("annualizes geometrically: four quarters of 1% are 1.01^4 - 1 a year", () => {
    expect(annualizedReturn([0.01, 0.01, 0.01, 0.01], 4)).toBeCloseTo(0.04060401, 12);
    // Eight quarters totalling 0.21 (1.1^2) are 10% a year: 1.21^(4/8) - 1.
    expect(annualizedReturn([0.1, 0, 0, 0, 0.1, 0, 0, 0], 4)).toBeCloseTo(0.1, 12);
    expect(annualizedReturn([], 4)).toBeNull();
  });

  it("derives the per-period rate that compounds to the annual rate", () => {
    expect(periodicRate(0.04060401, 4)).toBeCloseTo(0.01, 12);
    expect(periodicRate(0, 252)).toBe(0);
  });

  it("rejects non-finite values, non-positive values and returns of -100% or worse", () => {
    expect(() => simpleReturns([1, Number.NaN])).toThrow("simpleReturns: values[1] is NaN");
    expect(() => simpleReturns([1, 0])).toThrow("values must be positive");
    expect(() => totalReturn([0.1, -1])).toThrow("totalReturn: returns[1] is -1; a return must be above -1");
    expect(() => cumulativeReturns([Number.POSITIVE_INFINITY])).toThrow("finite");
    expect(() => annualizedReturn([0.1], 0)).toThrow("periodsPerYear must be a positive number");
  });

  it("does not mutate its input", () => {
    const input = Float64Array.from(values);
    simpleReturns(input);
    expect([...input]).toEqual(values);
  });
});

describe("annualizedVolatility", () => {
  it("is the sample standard deviation times sqrt(q)", () => {
    // sqrt(0.0113 / 3) = 0.0613731755 per quarter, x sqrt(4) = 0.1227463510.
    expect(annualizedVolatility(r, 4)).toBeCloseTo(Math.sqrt(0.0113 / 3) * 2, 12);
    expect(annualizedVolatility(r, 4)).toBeCloseTo(0.122746351, 8);
  });

  it("is null with fewer than two returns and zero for a constant series", () => {
    expect(annualizedVolatility([0.01])).toBeNull();
    expect(annualizedVolatility([])).toBeNull();
    expect(annualizedVolatility([0.01, 0.01, 0.01])).toBeCloseTo(0, 15);
  });
});

describe("sharpeRatio", () => {
  it("divides the mean excess return by its standard deviation and annualizes by sqrt(q)", () => {
    // R = 1.01^4 - 1 gives 1% a quarter; excess = 0.09, -0.06, 0.01, 0.02, mean 0.015, sd = sqrt(0.0113 / 3).
    // S = 0.015 / 0.0613731755 * 2 = 0.4888122...
    const s = sharpeRatio(r, { riskFreeRate: 0.04060401, periodsPerYear: 4 });
    expect(s).toBeCloseTo((0.015 / Math.sqrt(0.0113 / 3)) * 2, 10);
    expect(s).toBeCloseTo(0.48881, 5);
  });

  it("uses a zero risk-free rate by default: 0.025 / 0.0613732 * 2 = 0.81469", () => {
    expect(sharpeRatio(r, { periodsPerYear: 4 })).toBeCloseTo((0.025 / Math.sqrt(0.0113 / 3)) * 2, 10);
  });

  it("is null when the returns do not vary or are too few", () => {
    expect(sharpeRatio([0.01, 0.01, 0.01])).toBeNull();
    expect(sharpeRatio([0.02])).toBeNull();
  });

  it("rejects a non-finite risk-free rate", () => {
    expect(() => sharpeRatio(r, { riskFreeRate: Number.NaN })).toThrow("periodicRate: annualRate");
  });
});

describe("beta", () => {
  it("is the covariance over the benchmark variance: 0.0053 / 0.0025 = 2.12", () => {
    expect(beta(r, b)).toBeCloseTo(2.12, 12);
  });

  it("agrees with the least-squares slope from the normal equations", () => {
    // slope = (n Sxy - Sx Sy) / (n Sxx - Sx^2), a different route to the same number.
    const xs = [0.012, -0.004, 0.007, 0.001, -0.011, 0.009, 0.003];
    const ys = [0.018, -0.002, 0.011, -0.001, -0.016, 0.01, 0.006];
    const n = xs.length;
    let sx = 0;
    let sy = 0;
    let sxy = 0;
    let sxx = 0;
    for (let i = 0; i < n; i++) {
      sx += xs[i]!;
      sy += ys[i]!;
      sxy += xs[i]! * ys[i]!;
      sxx += xs[i]! * xs[i]!;
    }
    expect(beta(ys, xs)).toBeCloseTo((n * sxy - sx * sy) / (n * sxx - sx * sx), 10);
  });

  it("is 1 for the benchmark against itself and null for a flat benchmark", () => {
    expect(beta(b, b)).toBeCloseTo(1, 12);
    expect(beta(r, [0.01, 0.01, 0.01, 0.01])).toBeNull();
    expect(beta([0.01], [0.02])).toBeNull();
  });

  it("rejects series of different lengths", () => {
    expect(() => beta(r, [0.01])).toThrow(
      "beta: returns has 4 values but benchmarkReturns has 1; pass aligned series",
    );
  });
});

describe("trackingError", () => {
  it("is the sd of active returns times sqrt(q)", () => {
    // a = 0.05, -0.03, 0.01, 0.01, mean 0.01, squared deviations 0.0016 + 0.0016 + 0 + 0 -> variance 0.0032 / 3.
    expect(trackingError(r, b, 4)).toBeCloseTo(Math.sqrt(0.0032 / 3) * 2, 12);
    expect(trackingError(r, b, 4)).toBeCloseTo(0.065319726, 8);
  });

  it("is zero against itself and null with one return", () => {
    expect(trackingError(r, r, 4)).toBe(0);
    expect(trackingError([0.1], [0.2])).toBeNull();
  });
});

describe("maxDrawdown", () => {
  it("finds the deepest fall from a running peak: 120 -> 90 is -25%", () => {
    expect(maxDrawdown([100, 120, 90, 130, 117])).toBeCloseTo(-0.25, 12);
    expect(drawdownOf([100, 120, 90, 130, 117])).toEqual({
      maxDrawdown: -0.25,
      peakIndex: 1,
      troughIndex: 2,
    });
  });

  it("measures the short series: 1.1 -> 1.045 is -5%", () => {
    expect(maxDrawdown(values)).toBeCloseTo(-0.05, 12);
  });

  it("is zero for a series that never falls and for a single value", () => {
    expect(maxDrawdown([1, 1, 1.2, 1.3])).toBe(0);
    expect(maxDrawdown([5])).toBe(0);
    expect(maxDrawdown([])).toBe(0);
  });

  it("rejects non-positive values", () => {
    expect(() => maxDrawdown([1, -1])).toThrow("drawdownOf: values[1] is -1; values must be positive");
  });
});

describe("performanceSummary", () => {
  it("gathers every statistic consistently with the single-metric functions", () => {
    const bench = [1, 1.05, 1.029, 1.03929, 1.0600758];
    const s = performanceSummary(values, {
      benchmarkValues: bench,
      riskFreeRate: 0.04060401,
      periodsPerYear: 4,
    });
    expect(s.totalReturn).toBeCloseTo(0.097877, 12);
    expect(s.annualizedReturn).toBeCloseTo(0.097877, 12); // exactly one year of quarters
    expect(s.volatility).toBeCloseTo(Math.sqrt(0.0113 / 3) * 2, 10);
    expect(s.sharpe).toBeCloseTo((0.015 / Math.sqrt(0.0113 / 3)) * 2, 8);
    expect(s.maxDrawdown).toBeCloseTo(-0.05, 12);
    // bench compounds b: 1.05 * 0.98 = 1.029, * 1.01 = 1.03929, * 1.02 = 1.0600758.
    expect(s.benchmark!.totalReturn).toBeCloseTo(0.0600758, 10);
    expect(s.benchmark!.relativeReturn).toBeCloseTo(0.097877 - 0.0600758, 10);
    expect(s.benchmark!.beta).toBeCloseTo(2.12, 8);
    expect(s.benchmark!.trackingError).toBeCloseTo(Math.sqrt(0.0032 / 3) * 2, 8);
  });

  it("leaves the benchmark out without benchmark values and rejects empty input", () => {
    expect(performanceSummary([1, 1.01]).benchmark).toBeUndefined();
    expect(() => performanceSummary([])).toThrow("performanceSummary: values must not be empty");
    expect(() => performanceSummary([1, 2], { benchmarkValues: [1] })).toThrow("benchmarkValues has 1");
  });
});

describe("statistics", () => {
  it("sums with compensation where a plain loop loses the small terms", () => {
    expect(compensatedSum([1e16, 1, -1e16])).toBe(1);
    expect(compensatedSum([])).toBe(0);
  });

  it("computes the sample variance with n - 1", () => {
    expect(sampleVariance([2, 4, 4, 4, 5, 5, 7, 9])).toBeCloseTo(32 / 7, 12);
    expect(Number.isNaN(sampleVariance([1]))).toBe(true);
  });
});
