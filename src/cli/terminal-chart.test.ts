import { describe, expect, it } from "vitest";
import { compactNumber, renderLineChart } from "./terminal-chart.js";

describe("renderLineChart", () => {
  it("draws a rising two-point series with axis labels, dates and legend", () => {
    // lo 100, hi 200, 3 rows: 200 on row 0, 100 on row 2, a stroke joins them on row 1 of column 1.
    const chart = renderLineChart(
      [
        {
          name: "a",
          points: [
            { date: "2024-01-31", value: 100 },
            { date: "2024-02-29", value: 200 },
          ],
        },
      ],
      { width: 8, height: 3 },
    );
    expect(chart.split("\n")).toEqual([
      "200 ┤ ●",
      "150 ┤ │",
      "100 ┤● ",
      "    └──",
      "     2024-01-31 2024-02-29",
      "     ● a",
    ]);
  });

  it("keeps the first series on top where series cross and uses ASCII glyphs on request", () => {
    const points = (v: number[]) => v.map((value, i) => ({ date: `2024-0${i + 1}-28`, value }));
    const chart = renderLineChart(
      [
        { name: "first", points: points([1, 2, 3]) },
        { name: "second", points: points([1, 2, 1]) },
      ],
      { width: 8, height: 3, ascii: true },
    );
    // Columns 0 and 1 coincide: the first series' glyph wins there.
    expect(chart.split("\n").slice(0, 3)).toEqual(["3 |  *", "2 | * ", "1 |* o"]);
    expect(chart).toContain("* first   o second");
  });

  it("maps many dates onto the width and draws a flat series in a band", () => {
    const points = Array.from({ length: 200 }, (_, i) => ({
      date: `2024-${String(1 + Math.floor(i / 28)).padStart(2, "0")}-${String(1 + (i % 28)).padStart(2, "0")}`,
      value: 5,
    }));
    const lines = renderLineChart([{ name: "flat", points }], { width: 40, height: 5 }).split("\n");
    const plot = lines.slice(0, 5).map((l) => l.slice(l.indexOf("┤") + 1));
    expect(plot.every((row) => row.length === 40)).toBe(true);
    // Every column of the middle row holds the series; the other rows are empty.
    expect(plot[2]).toBe("●".repeat(40));
    expect(plot.filter((_, r) => r !== 2).every((row) => row.trim() === "")).toBe(true);
  });

  it("says so when there is nothing to chart, and refuses a tiny canvas", () => {
    expect(renderLineChart([])).toBe("(no values to chart)");
    expect(renderLineChart([{ name: "x", points: [{ date: "2024-01-02", value: Number.NaN }] }])).toBe(
      "(no values to chart)",
    );
    expect(() => renderLineChart([], { width: 4 })).toThrow(/width >= 8 and height >= 3 needed, got 4x12/);
  });
});

describe("compactNumber", () => {
  it("abbreviates thousands, millions and billions", () => {
    expect(compactNumber(1_234_567)).toBe("1.23M");
    expect(compactNumber(950_000)).toBe("950k");
    expect(compactNumber(12.5)).toBe("12.5");
    expect(compactNumber(2_000_000_000)).toBe("2B");
    expect(compactNumber(-15_000)).toBe("-15k");
  });
});
