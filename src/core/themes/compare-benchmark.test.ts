import { describe, expect, it } from "vitest";
import { alignSeries } from "./align-series.js";
import { compareWithBenchmark } from "./compare-benchmark.js";

describe("alignSeries", () => {
  it("takes the last observation on or before each date, within the series' span only", () => {
    const dates = ["2024-01-02", "2024-01-03", "2024-01-04", "2024-01-05", "2024-01-08"];
    const a = alignSeries(
      dates,
      ["2023-12-29", "2024-01-03", "2024-01-04", "2024-01-05"],
      [100, 101, -1, 103],
    );
    // 01-02 takes 12-29's level; 01-04's invalid level is skipped (01-03 repeats); nothing after 01-05.
    expect([...a.values].slice(0, 4)).toEqual([100, 101, 101, 103]);
    expect(Number.isNaN(a.values[4]!)).toBe(true);
    expect([a.first, a.last]).toEqual([0, 3]);
  });

  it("reports no coverage for a series entirely outside the dates", () => {
    const a = alignSeries(["2024-01-02", "2024-01-03"], ["2025-01-02"], [5]);
    expect([a.first, a.last]).toEqual([-1, -1]);
    expect(() => alignSeries(["2024-01-02"], ["2024-01-02"], [])).toThrow(
      "1 series dates but 0 series values",
    );
  });
});

describe("compareWithBenchmark", () => {
  // Quarterly values (q = 4) of the metrics tests: theme returns 0.10, -0.05, 0.02, 0.03 and benchmark
  // returns 0.05, -0.02, 0.01, 0.02 (beta 2.12, volatility sqrt(0.0113 / 3) x 2).
  const values = Float64Array.of(1, 1.1, 1.045, 1.0659, 1.097877);
  const bench = [1, 1.05, 1.029, 1.03929, 1.0600758];
  const dates = ["q0", "q1", "q2", "q3", "q4"];

  it("computes the summary over the whole window when the benchmark covers it", () => {
    const c = compareWithBenchmark(values, [2, 4], alignSeries(dates, dates, bench), {
      riskFreeRate: 0.04060401,
      periodsPerYear: 4,
    })!;
    expect(c.coversWindow).toBe(true);
    expect(c.portfolioReturn).toBeCloseTo(0.097877, 12);
    expect(c.benchmarkReturn).toBeCloseTo(0.0600758, 12);
    expect(c.relativeReturn).toBeCloseTo(0.097877 - 0.0600758, 12);
    expect(c.beta).toBeCloseTo(2.12, 10);
    expect(c.volatility).toBeCloseTo(Math.sqrt(0.0113 / 3) * 2, 10);
    expect(c.sharpe).toBeCloseTo((0.015 / Math.sqrt(0.0113 / 3)) * 2, 8);
    expect(c.maxDrawdown).toBeCloseTo(-0.05, 12);
    // Period returns of the benchmark over the theme's periods: 1.029 - 1 and 1.0600758 / 1.029 - 1.
    expect(c.periodReturns.map((p) => p.end)).toEqual([2, 4]);
    expect(c.periodReturns[0]!.value).toBeCloseTo(0.029, 12);
    expect(c.periodReturns[1]!.value).toBeCloseTo(1.0600758 / 1.029 - 1, 12);
  });

  it("restricts everything to the covered span when the benchmark starts late", () => {
    const c = compareWithBenchmark(values, [2, 4], alignSeries(dates, dates.slice(1), bench.slice(1)), {
      periodsPerYear: 4,
    })!;
    expect(c.coversWindow).toBe(false);
    expect([c.first, c.last]).toEqual([1, 4]);
    expect(c.portfolioReturn).toBeCloseTo(1.097877 / 1.1 - 1, 12);
    expect(c.benchmarkReturn).toBeCloseTo(1.0600758 / 1.05 - 1, 12);
    expect(c.periodReturns[0]!.value).toBeCloseTo(1.029 / 1.05 - 1, 12); // from q1, not q0
  });

  it("returns null when the benchmark covers fewer than two dates", () => {
    expect(compareWithBenchmark(values, [4], alignSeries(dates, ["q4"], [1]))).toBeNull();
    expect(compareWithBenchmark(values, [4], alignSeries(dates, [], []))).toBeNull();
  });
});
