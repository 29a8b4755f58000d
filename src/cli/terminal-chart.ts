/**
 * @module cli/terminal-chart
 * A small line chart for terminals: one or more date-indexed series on a character grid with a value axis, the
 * first and last dates and a legend. Columns are positions in the union of the series' dates (trading dates are
 * evenly spaced in the chart, as in most market charts); each series draws its own glyph and joins consecutive
 * columns with a vertical stroke so that jumps stay visible.
 */

/** One series of the chart. */
export interface ChartSeries {
  name: string;
  points: readonly { date: string; value: number }[];
}

/** Options of {@link renderLineChart}. */
export interface LineChartOptions {
  /** Plot width in characters (without the axis). @default 64 */
  width?: number;
  /** Plot height in rows. @default 12 */
  height?: number;
  /** ASCII glyphs only (for terminals without Unicode). @default false */
  ascii?: boolean;
  /** Format of the axis values. @default compact number (1.2M, 950k) */
  format?: (value: number) => string;
}

const UNICODE_GLYPHS = ["●", "○", "◆", "▲", "■", "×"];
const ASCII_GLYPHS = ["*", "o", "+", "#", "x", "@"];

/** `1234567` -> `1.23M`, `950000` -> `950k`, `12.5` -> `12.5`. */
export function compactNumber(value: number): string {
  const a = Math.abs(value);
  const trim = (s: string) => s.replace(/\.?0+$/, "");
  if (a >= 1e9) return `${trim((value / 1e9).toFixed(2))}B`;
  if (a >= 1e6) return `${trim((value / 1e6).toFixed(2))}M`;
  if (a >= 1e4) return `${trim((value / 1e3).toFixed(1))}k`;
  return trim(value.toFixed(2));
}

/**
 * Renders series as a text chart (lines joined with "\n").
 * @throws {RangeError} for a width below 8 or a height below 3
 * @example renderLineChart([{ name: "tax_managed", points: [{ date: "2024-01-31", value: 100 }, ...] }])
 */
export function renderLineChart(series: readonly ChartSeries[], options: LineChartOptions = {}): string {
  const width = options.width ?? 64;
  const height = options.height ?? 12;
  if (width < 8 || height < 3)
    throw new RangeError(`renderLineChart: width >= 8 and height >= 3 needed, got ${width}x${height}`);
  const format = options.format ?? compactNumber;
  const glyphs = options.ascii ? ASCII_GLYPHS : UNICODE_GLYPHS;
  const stroke = options.ascii ? "|" : "│";
  const usable = series.filter((s) => s.points.some((p) => Number.isFinite(p.value)));
  if (usable.length === 0) return "(no values to chart)";
  const dates = [...new Set(usable.flatMap((s) => s.points.map((p) => p.date)))].sort();
  let lo = Number.POSITIVE_INFINITY;
  let hi = Number.NEGATIVE_INFINITY;
  for (const s of usable)
    for (const p of s.points)
      if (Number.isFinite(p.value)) {
        lo = Math.min(lo, p.value);
        hi = Math.max(hi, p.value);
      }
  // A flat series still gets a visible band.
  if (hi === lo) {
    const pad = Math.abs(hi) * 0.01 || 1;
    lo -= pad;
    hi += pad;
  }
  const cols = Math.min(width, Math.max(dates.length, 2));
  const grid: string[][] = Array.from({ length: height }, () => Array<string>(cols).fill(" "));
  const rowOf = (v: number) => height - 1 - Math.round(((v - lo) / (hi - lo)) * (height - 1));
  const colOf = (dateIndex: number) =>
    dates.length === 1 ? 0 : Math.round((dateIndex / (dates.length - 1)) * (cols - 1));
  const dateIndex = new Map(dates.map((d, i) => [d, i]));
  // Later series are drawn first so that the first series (usually the subject) stays on top.
  for (let si = usable.length - 1; si >= 0; si--) {
    const s = usable[si]!;
    const glyph = glyphs[si % glyphs.length]!;
    const byCol = new Map<number, number>();
    for (const p of s.points) if (Number.isFinite(p.value)) byCol.set(colOf(dateIndex.get(p.date)!), p.value);
    let prev: number | undefined;
    for (let c = 0; c < cols; c++) {
      const v = byCol.get(c);
      if (v === undefined) continue;
      const r = rowOf(v);
      if (prev !== undefined)
        for (let k = Math.min(prev, r) + 1; k < Math.max(prev, r); k++)
          if (grid[k]![c] === " ") grid[k]![c] = stroke;
      grid[r]![c] = glyph;
      prev = r;
    }
  }
  const labels = Array.from({ length: height }, (_, r) =>
    r === 0 || r === height - 1 || r === Math.floor((height - 1) / 2)
      ? format(hi - ((hi - lo) * r) / (height - 1))
      : "",
  );
  const labelWidth = Math.max(...labels.map((l) => l.length));
  const axis = options.ascii ? "|" : "┤";
  const lines = grid.map((row, r) => `${labels[r]!.padStart(labelWidth)} ${axis}${row.join("")}`);
  const first = dates[0]!;
  const last = dates[dates.length - 1]!;
  const base = `${" ".repeat(labelWidth)} ${options.ascii ? "+" : "└"}${(options.ascii ? "-" : "─").repeat(cols)}`;
  const gap = Math.max(1, cols - first.length - last.length);
  lines.push(base, `${" ".repeat(labelWidth + 2)}${first}${dates.length > 1 ? " ".repeat(gap) + last : ""}`);
  lines.push(
    `${" ".repeat(labelWidth + 2)}${usable.map((s, i) => `${glyphs[i % glyphs.length]} ${s.name}`).join("   ")}`,
  );
  return lines.join("\n");
}
