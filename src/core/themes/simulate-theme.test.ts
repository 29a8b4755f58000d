import { describe, expect, it } from "vitest";
import { simulateTheme, type ThemeTargets } from "./simulate-theme.js";

const DATES = ["d0", "d1", "d2", "d3", "d4"];
// Two securities, growth[t * 2 + i]: A 1.1, 1.0, 0.5, 1.2 and B 0.9, 1.2, 1.0, 1.1 from t1 on.
const GROWTH = Float64Array.from([1, 1, 1.1, 0.9, 1.0, 1.2, 0.5, 1.0, 1.2, 1.1]);

describe("simulateTheme", () => {
  it("drifts between rebalances and resets to targets at each rebalance (hand-computed)", () => {
    const calls: number[] = [];
    const targets = new Map<number, ThemeTargets>([
      [0, { columns: [0, 1], weights: [0.5, 0.5] }],
      [2, { columns: [0], weights: [1] }],
    ]);
    const run = simulateTheme({
      dates: DATES,
      width: 2,
      growth: GROWTH,
      rebalances: [0, 2],
      targetsAt: (t) => {
        calls.push(t);
        return targets.get(t)!;
      },
    });
    // t1: A 0.5 x 1.1 = 0.55, B 0.5 x 0.9 = 0.45 -> 1.00; t2: 0.55 + 0.45 x 1.2 = 1.09, all into A;
    // t3: 1.09 x 0.5 = 0.545; t4: 0.545 x 1.2 = 0.654.
    const expected = [1, 1, 1.09, 0.545, 0.654];
    for (const [t, v] of expected.entries()) expect(run.values[t]).toBeCloseTo(v, 14);
    expect(calls).toEqual([0, 2]); // targets are asked for at rebalance dates only
    expect(run.periodEnds).toEqual([2, 4]);
    expect(run.periodReturns[0]).toBeCloseTo(0.09, 14);
    expect(run.periodReturns[1]).toBeCloseTo(0.654 / 1.09 - 1, 14); // -0.4
    expect(run.rebalances.map((r) => [r.index, r.added, r.removed])).toEqual([
      [0, [0, 1], []],
      [2, [], [1]],
    ]);
    expect(run.rebalances[0]!.turnover).toBeCloseTo(1, 14); // all cash into stocks
    // Before: A 0.55 / 1.09, B 0.54 / 1.09; after: A 1 -> half of (0.54 + 0.54) / 1.09.
    expect(run.rebalances[1]!.turnover).toBeCloseTo(0.54 / 1.09, 14);
  });

  it("holds cash (flat value) while no constituent qualifies, and the unweighted rest as cash", () => {
    const run = simulateTheme({
      dates: DATES,
      width: 2,
      growth: GROWTH,
      rebalances: [0, 2],
      targetsAt: (t) => (t === 0 ? { columns: [], weights: [] } : { columns: [1], weights: [0.5] }),
    });
    // Flat at 1 until t2, then half in B: t3 0.5 + 0.5 x 1.0 = 1, t4 0.5 + 0.5 x 1.1 = 1.05.
    for (const [t, v] of [1, 1, 1, 1, 1.05].entries()) expect(run.values[t]).toBeCloseTo(v, 14);
    expect(run.rebalances[0]!.turnover).toBe(0);
    expect(run.rebalances[1]!.turnover).toBeCloseTo(0.5, 14);
  });

  it("runs a one-day window without periods", () => {
    const run = simulateTheme({
      dates: ["d0"],
      width: 1,
      growth: Float64Array.of(1),
      rebalances: [0],
      targetsAt: () => ({ columns: [0], weights: [1] }),
    });
    expect([...run.values]).toEqual([1]);
    expect(run.periodEnds).toEqual([]);
  });

  it("rejects malformed schedules and targets", () => {
    const base = { dates: DATES, width: 2, growth: GROWTH };
    const ok = () => ({ columns: [0], weights: [1] });
    expect(() => simulateTheme({ ...base, rebalances: [1], targetsAt: ok })).toThrow(
      "the first rebalance must be at index 0",
    );
    expect(() => simulateTheme({ ...base, rebalances: [0, 5], targetsAt: ok })).toThrow("strictly ascending");
    expect(() =>
      simulateTheme({
        ...base,
        rebalances: [0],
        targetsAt: () => ({ columns: [0, 0], weights: [0.5, 0.5] }),
      }),
    ).toThrow("target column 0 on d0 is out of range or repeated");
    expect(() =>
      simulateTheme({
        ...base,
        rebalances: [0],
        targetsAt: () => ({ columns: [0, 1], weights: [0.7, 0.7] }),
      }),
    ).toThrow("sum to 1.4, above 1");
    expect(() =>
      simulateTheme({ ...base, rebalances: [0], targetsAt: () => ({ columns: [0], weights: [-1] }) }),
    ).toThrow("must be finite and >= 0");
    expect(() =>
      simulateTheme({ ...base, growth: new Float64Array(3), rebalances: [0], targetsAt: ok }),
    ).toThrow("growth has 3 values, expected 5 x 2");
    const bad = Float64Array.from(GROWTH);
    bad[2] = 0;
    expect(() => simulateTheme({ ...base, growth: bad, rebalances: [0], targetsAt: ok })).toThrow(
      "growth of column 0 on d1 is 0",
    );
  });
});
