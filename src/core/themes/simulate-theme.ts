/**
 * @module core/themes/simulate-theme
 * The theme backtest engine: a portfolio that starts at 1 on the first date of the window, is set to the
 * theme's target weights at each rebalance date and drifts with the constituents' returns in between
 * (buy and hold). Targets come from a callback evaluated at the rebalance date only, so the caller decides
 * what data it may use (point in time). No transaction costs, no cash yield.
 */
import { compensatedSum } from "../metrics/index.js";

/** Target weights at a rebalance date: panel columns and their weights (sum <= 1; the rest is cash). */
export interface ThemeTargets {
  columns: ArrayLike<number>;
  weights: ArrayLike<number>;
}

/** Inputs of {@link simulateTheme}. */
export interface SimulateThemeInput {
  /** Trading dates of the window, ascending (T >= 1). */
  dates: readonly string[];
  /** Number of securities (columns) of the panel. */
  width: number;
  /** Daily USD growth factors, `growth[t * width + i]` (see `totalReturnPanel`), positive and finite. */
  growth: Float64Array;
  /** Rebalance date indices, strictly ascending, the first one 0 (see `rebalanceIndices`). */
  rebalances: readonly number[];
  /**
   * Targets at rebalance date index t. Called once per rebalance, in date order. Each column must be
   * priced on that date (the engine buys at that close).
   */
  targetsAt: (t: number) => ThemeTargets;
}

/** One rebalance of a simulation. */
export interface SimulatedRebalance {
  /** Date index. */
  index: number;
  /** Columns held after the rebalance, in the order the targets gave them. */
  columns: Int32Array;
  weights: Float64Array;
  /** Columns held after but not before / before but not after, ascending. */
  added: number[];
  removed: number[];
  /** One-way turnover: half the sum of absolute weight changes, cash included (1 at inception). */
  turnover: number;
}

/** Result of {@link simulateTheme}. */
export interface SimulatedTheme {
  /** Portfolio value on each date (T), 1 on the first. */
  values: Float64Array;
  rebalances: SimulatedRebalance[];
  /** Period end indices: every rebalance after inception, then the last date (when T > 1). */
  periodEnds: number[];
  /** Return of each period ending at `periodEnds[k]`, from the previous end (or inception). */
  periodReturns: Float64Array;
}

/** Tolerance on the sum of target weights above 1. */
const WEIGHT_SUM_TOLERANCE = 1e-9;

/**
 * Runs the simulation. Between rebalances each holding h_i grows by its daily factor, h_i <- h_i g_{t,i}, and
 * V_t = sum h_i + cash; at a rebalance date t (after that day's growth) the holdings are reset to
 * h_i = w_i V_t. Period returns are V_end / V_start - 1 between consecutive period ends.
 * @throws {RangeError} on malformed input: lengths, rebalance indices, targets with unknown or repeated
 *   columns, negative or non-finite weights, weights summing above 1.
 * @example
 * simulateTheme({ dates, width: N, growth: panel.growth, rebalances: rebalanceIndices(dates, "QUARTERLY"),
 *   targetsAt: (t) => evaluateAt(t) });
 */
export function simulateTheme(input: SimulateThemeInput): SimulatedTheme {
  const { dates, width: N, growth, rebalances, targetsAt } = input;
  const T = dates.length;
  if (T === 0) throw new RangeError("simulateTheme: the window has no dates");
  if (!Number.isSafeInteger(N) || N < 0 || growth.length !== T * N) {
    throw new RangeError(`simulateTheme: growth has ${growth.length} values, expected ${T} x ${N}`);
  }
  if (rebalances[0] !== 0) throw new RangeError("simulateTheme: the first rebalance must be at index 0");
  for (let k = 1; k < rebalances.length; k++) {
    const t = rebalances[k]!;
    if (!Number.isSafeInteger(t) || t <= rebalances[k - 1]! || t >= T) {
      throw new RangeError(`simulateTheme: rebalances must be strictly ascending indices below ${T}`);
    }
  }
  const values = new Float64Array(T);
  const holdings = new Float64Array(N);
  let held: number[] = [];
  let cash = 1;
  const out: SimulatedRebalance[] = [];
  let next = 0;
  for (let t = 0; t < T; t++) {
    if (t > 0) {
      const row = t * N;
      for (const i of held) {
        const g = growth[row + i]!;
        if (!(g > 0 && Number.isFinite(g))) {
          throw new RangeError(
            `simulateTheme: growth of column ${i} on ${dates[t]} is ${g}; it must be positive`,
          );
        }
        holdings[i] = holdings[i]! * g;
      }
    }
    let value = cash;
    if (held.length > 0) {
      const parts = new Float64Array(held.length + 1);
      held.forEach((i, j) => {
        parts[j] = holdings[i]!;
      });
      parts[held.length] = cash;
      value = compensatedSum(parts);
    }
    values[t] = value;
    if (next < rebalances.length && rebalances[next] === t) {
      const r = rebalance(t, value, targetsAt(t), holdings, held, cash, N, dates[t]!);
      held = r.held;
      cash = r.cash;
      out.push(r.record);
      next++;
    }
  }
  const periodEnds = rebalances.slice(1);
  if (T > 1) periodEnds.push(T - 1);
  const periodReturns = new Float64Array(periodEnds.length);
  let start = 0;
  periodEnds.forEach((end, k) => {
    periodReturns[k] = values[end]! / values[start]! - 1;
    start = end;
  });
  return { values, rebalances: out, periodEnds, periodReturns };
}

function rebalance(
  t: number,
  value: number,
  targets: ThemeTargets,
  holdings: Float64Array,
  held: readonly number[],
  cash: number,
  N: number,
  date: string,
): { held: number[]; cash: number; record: SimulatedRebalance } {
  const { columns, weights } = targets;
  if (columns.length !== weights.length) {
    throw new RangeError(
      `simulateTheme: targets on ${date} have ${columns.length} columns but ${weights.length} weights`,
    );
  }
  const next = new Map<number, number>();
  for (let j = 0; j < columns.length; j++) {
    const i = columns[j]!;
    const w = weights[j]!;
    if (!Number.isSafeInteger(i) || i < 0 || i >= N || next.has(i)) {
      throw new RangeError(`simulateTheme: target column ${i} on ${date} is out of range or repeated`);
    }
    if (!(Number.isFinite(w) && w >= 0)) {
      throw new RangeError(`simulateTheme: target weight ${w} on ${date} must be finite and >= 0`);
    }
    next.set(i, w);
  }
  const total = compensatedSum(weights);
  if (total > 1 + WEIGHT_SUM_TOLERANCE) {
    throw new RangeError(`simulateTheme: target weights on ${date} sum to ${total}, above 1`);
  }
  const before = new Map<number, number>();
  for (const i of held) before.set(i, holdings[i]! / value);
  const newCash = Math.max(0, 1 - total);
  let change = Math.abs(newCash - cash / value);
  for (const [i, w] of next) change += Math.abs(w - (before.get(i) ?? 0));
  for (const [i, w] of before) if (!next.has(i)) change += w;
  const added = [...next.keys()].filter((i) => !before.has(i)).sort((a, b) => a - b);
  const removed = [...before.keys()].filter((i) => !next.has(i)).sort((a, b) => a - b);
  for (const i of held) holdings[i] = 0;
  for (const [i, w] of next) holdings[i] = w * value;
  return {
    held: [...next.keys()].filter((i) => next.get(i)! > 0),
    cash: newCash * value,
    record: {
      index: t,
      columns: Int32Array.from(columns),
      weights: Float64Array.from(weights),
      added,
      removed,
      turnover: change / 2,
    },
  };
}
