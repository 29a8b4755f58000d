/**
 * @module core/themes/align-series
 * Putting a benchmark series (index levels or a ticker's total-return index, on its own calendar) on the
 * backtest's trading dates, and saying which part of the window it covers.
 */

/** A series aligned with a set of dates. */
export interface AlignedSeries {
  /** Value on each date: the last observation on or before it, NaN outside the covered span. */
  values: Float64Array;
  /** First and last covered date indices; -1 when no date is covered. */
  first: number;
  last: number;
}

/**
 * Aligns `(seriesDates, seriesValues)` to `dates`: each date takes the last observation dated on or before it
 * (so a holiday of the benchmark's calendar repeats the previous level), but only between the series' first
 * observation and its last one: no value is extended past the end of the series. Observations that are not
 * finite and positive are skipped. Both date lists ascending.
 * @throws {RangeError} when `seriesDates` and `seriesValues` differ in length.
 * @example alignSeries(["2024-01-02", "2024-01-03"], ["2023-12-29", "2024-01-03"], [100, 101]).values // [100, 101]
 */
export function alignSeries(
  dates: readonly string[],
  seriesDates: readonly string[],
  seriesValues: ArrayLike<number>,
): AlignedSeries {
  if (seriesDates.length !== seriesValues.length) {
    throw new RangeError(
      `alignSeries: ${seriesDates.length} series dates but ${seriesValues.length} series values`,
    );
  }
  const values = new Float64Array(dates.length).fill(Number.NaN);
  let lastObserved = "";
  for (let k = seriesDates.length - 1; k >= 0; k--) {
    const v = seriesValues[k]!;
    if (v > 0 && Number.isFinite(v)) {
      lastObserved = seriesDates[k]!;
      break;
    }
  }
  let first = -1;
  let last = -1;
  let k = 0;
  let current = Number.NaN;
  for (let t = 0; t < dates.length; t++) {
    const d = dates[t]!;
    while (k < seriesDates.length && seriesDates[k]! <= d) {
      const v = seriesValues[k]!;
      if (v > 0 && Number.isFinite(v)) current = v;
      k++;
    }
    if (Number.isNaN(current) || d > lastObserved) continue;
    values[t] = current;
    if (first < 0) first = t;
    last = t;
  }
  return { values, first, last };
}
