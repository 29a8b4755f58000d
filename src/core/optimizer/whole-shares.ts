/**
 * @module core/optimizer/whole-shares
 * Whole shares: round each whole-share asset's trade to whole shares (a full liquidation sells the fraction
 * too), inside the asset's weight bounds; the caller then fixes those weights and re-solves the continuous rest,
 * so every row (budget with costs, factors, switch rows, risk cap) holds again. When the continuous assets
 * cannot absorb the rounding (or there are none), {@link repairWholeShares} moves whole-share assets one share
 * at a time, always the move that most reduces the total constraint violation, until none is left.
 */

import type { BuiltProblem } from "./build-problem.js";
import { type PeriodModel, WEIGHT_EPSILON } from "./period-model.js";
import { segmentOf } from "./pwl-qp.js";
import { impactOf } from "./solution-report.js";

/**
 * Which assets trade in whole shares (require_whole_shares with whole_share_assets; null or [] = all), and every
 * asset held short by a whole number of shares.
 */
export function wholeShareMask(m: PeriodModel): Uint8Array {
  const out = new Uint8Array(m.n);
  // A short held in whole shares is covered in whole shares (brokers lend and return whole shares, and the
  // proposal builder covers so); a fractional short is covered in full or continuously.
  for (let i = 0; i < m.n; i++) if (m.shares[i]! < 0 && Number.isInteger(m.shares[i]!)) out[i] = 1;
  const c = m.config;
  if (!c.requireWholeShares) return out;
  const list = c.wholeShareAssets;
  if (list === null || list.length === 0) return out.fill(1);
  for (const id of list) {
    const i = m.index.get(id);
    if (i !== undefined) out[i] = 1;
  }
  return out;
}

/** Rounded weights of the whole-share assets (NaN elsewhere) and the assets whose bounds hold no whole trade. */
export function roundWholeShares(
  m: PeriodModel,
  w: Float64Array,
  whole: Uint8Array,
  lower: Float64Array,
  upper: Float64Array,
  /** Smallest order, USD (trade-rules.ts): a rounding to a non-zero order below it is skipped. @default 0 */
  minTradeUsd = 0,
): { fixed: Float64Array; conflicts: string[] } {
  const fixed = new Float64Array(m.n).fill(Number.NaN);
  const conflicts: string[] = [];
  const I = m.investableUsd;
  for (let i = 0; i < m.n; i++) {
    if (whole[i] !== 1) continue;
    const p = m.prices[i]!;
    const s0 = m.shares[i]!;
    const t = w[i]! - m.w0[i]!;
    if (Math.abs(t) <= WEIGHT_EPSILON) {
      fixed[i] = m.w0[i]!;
      continue;
    }
    if (Math.abs(w[i]!) <= WEIGHT_EPSILON) {
      fixed[i] = 0; // close the position, fraction included
      continue;
    }
    const delta = (t * I) / p;
    const cands = [Math.round(delta), Math.floor(delta), Math.ceil(delta), 0];
    let chosen: number | null = null;
    for (const d of cands) {
      if (d !== 0 && Math.abs(d) * p < minTradeUsd - 1e-8) continue;
      const wi = ((s0 + d) * p) / I;
      if (wi >= lower[i]! - 1e-12 && wi <= upper[i]! + 1e-12) {
        chosen = wi;
        break;
      }
    }
    if (chosen === null)
      conflicts.push(
        `${m.assets[i]}: no whole number of shares (price ${p.toFixed(2)} USD) lands in its weight bounds [${lower[i]}, ${upper[i]}] (${m.lowerSource[i]}; ${m.upperSource[i]}).`,
      );
    else fixed[i] = chosen;
  }
  return { fixed, conflicts };
}

/** Total violation of every row, switch row, the cash budget with costs and the risk ball at weights w. */
export function violation(m: PeriodModel, built: BuiltProblem, w: Float64Array): number {
  const p = built.problem;
  const n = m.n;
  const x = new Float64Array(n);
  for (let i = 0; i < n; i++) x[i] = w[i]! - m.benchmark[i]!;
  let v = 0;
  const A = p.A!;
  let costs = 0;
  for (let i = 0; i < n; i++) {
    const a = Math.abs(w[i]! - m.w0[i]!);
    costs += m.costRate[i]! * a + impactOf(m.impact[i]!, a);
  }
  for (let r = 0; r < A.rows; r++) {
    let s = 0;
    for (let k = A.rowStart[r]!; k < A.rowStart[r + 1]!; k++) s += A.values[k]! * x[A.columnIndex[k]!]!;
    let u = p.u![r]!;
    // The budget row: cash after the trades and their costs must cover the buffers.
    if (r === 0 && m.config.optimizationMode !== "LONG_SHORT") {
      let sumB = 0;
      for (let i = 0; i < n; i++) sumB += m.benchmark[i]!;
      u = 1 - costs - sumB;
    }
    v += Math.max(0, p.l![r]! - s, s - u);
  }
  const sw = p.switchRows;
  if (sw !== undefined)
    for (let r = 0; r < sw.l.length; r++) {
      let s = 0;
      for (let i = 0; i < n; i++) {
        const j = segmentOf(p.segments, i, x[i]!);
        s += sw.coefficient[r]![j]! * x[i]! + sw.constant[r]![j]!;
      }
      v += Math.max(0, sw.l[r]! - s, s - sw.u[r]!);
    }
  for (const cone of p.cones ?? []) {
    if (cone.kind !== "factor-risk-ball") continue;
    let risk = 0;
    for (let i = 0; i < n; i++) risk += cone.diagonal[i]! * x[i]! * x[i]!;
    const f = cone.factors;
    if (f !== undefined)
      for (let c = 0; c < f.cols; c++) {
        let g = 0;
        for (let i = 0; i < n; i++) g += f.data[i * f.cols + c]! * x[i]!;
        risk += g * g;
      }
    v += Math.max(0, Math.sqrt(risk) - cone.radius);
  }
  return v;
}

/**
 * Move whole-share assets one share at a time (within their bounds) until no constraint is violated, each step
 * the move that most reduces the violation (ties: toward the continuous target). Returns the repaired weights,
 * or null when no move helps any more.
 */
export function repairWholeShares(
  m: PeriodModel,
  built: BuiltProblem,
  w: Float64Array,
  target: Float64Array,
  whole: Uint8Array,
  maxSteps = 10_000,
): Float64Array | null {
  const cur = Float64Array.from(w);
  const I = m.investableUsd;
  let v = violation(m, built, cur);
  for (let step = 0; step < maxSteps && v > 1e-12; step++) {
    let best: { i: number; value: number; v: number; toward: number } | null = null;
    for (let i = 0; i < m.n; i++) {
      if (whole[i] !== 1 || built.lower[i] === built.upper[i]) continue;
      const share = m.prices[i]! / I;
      for (const d of [-1, 1]) {
        const wi = cur[i]! + d * share;
        if (wi < built.lower[i]! - 1e-12 || wi > built.upper[i]! + 1e-12) continue;
        const old = cur[i]!;
        cur[i] = wi;
        const vv = violation(m, built, cur);
        cur[i] = old;
        const toward = Math.abs(wi - target[i]!);
        if (
          vv < v - 1e-15 &&
          (best === null || vv < best.v - 1e-15 || (Math.abs(vv - best.v) <= 1e-15 && toward < best.toward))
        )
          best = { i, value: wi, v: vv, toward };
      }
    }
    if (best === null) return null;
    cur[best.i] = best.value;
    v = best.v;
  }
  return v <= 1e-12 ? cur : null;
}
