/**
 * @module core/optimizer/diagnose
 * Infeasibility diagnoses that name the conflicting constraints with their numbers. Checked before any solve:
 * per-asset bound conflicts (collected by the period model), lower bounds against the budget, the long/short
 * sums against the bounds and the investable value, factor-exposure bounds against what the weight bounds and the
 * budget can reach, and the checks of the constraint components (component.ts). The risk cap is diagnosed
 * from the smallest achievable tracking error (see optimize-portfolio), and anything left is found by relaxing
 * one group of constraints at a time.
 */

import { breakdown, fmt } from "./breakdown.js";
import { factorExposure, resolveFactorRows } from "./build-problem.js";
import type { PeriodModel } from "./period-model.js";

/** Conflicts found without solving (empty when none). */
export function precheck(m: PeriodModel): string[] {
  const out = [...m.conflicts];
  const { n, config, lower, upper } = m;
  const mode = config.optimizationMode;
  let sumLower = 0;
  for (let i = 0; i < n; i++) sumLower += lower[i]!;
  if (mode !== "LONG_SHORT" && sumLower > 1 + 1e-9)
    out.push(
      `The weight lower bounds add up to ${fmt(sumLower)}, above the budget 1 (weights are fractions of the investable value, NAV minus cash buffers): ${breakdown(lower, m.lowerSource, (i) => lower[i]! > 0)}.`,
    );
  if (mode !== "LONG_ONLY") {
    const L = config.longWeightSum;
    const S = config.shortWeightSum;
    if (L !== null && L < 0) out.push(`long_weight_sum ${L} is negative; it is the sum of the long weights.`);
    if (S !== null && S > 0)
      out.push(`short_weight_sum ${S} is positive; short weights are negative (e.g. -0.3).`);
    if (L !== null && S !== null && L + S > 1 + 1e-9)
      out.push(
        `long_weight_sum ${L} + short_weight_sum ${S} = ${fmt(L + S)} exceeds the investable value 1 (the account does not borrow).`,
      );
    if (mode === "LONG_BIASED" && L !== null && S !== null && L + S < -1e-9)
      out.push(
        `LONG_BIASED needs a net long exposure, but long_weight_sum ${L} + short_weight_sum ${S} = ${fmt(L + S)}.`,
      );
    if (mode === "LONG_SHORT") {
      let maxLong = 0;
      let minShort = 0;
      let shortable = 0;
      for (let i = 0; i < n; i++) {
        if (upper[i]! > 0) maxLong += upper[i]!;
        if (lower[i]! < 0) {
          minShort += lower[i]!;
          shortable++;
        }
      }
      if (L !== null && maxLong < L - 1e-9)
        out.push(
          `long_weight_sum ${L} is more than the weight upper bounds allow long, ${fmt(maxLong)}: ${breakdown(upper, m.upperSource, (i) => upper[i]! > 0)}.`,
        );
      if (S !== null && S < 0 && shortable === 0)
        out.push(
          `short_weight_sum ${S} but no asset may be short (positions held long stay long within a rebalance; no_hold and long-only bounds exclude the rest).`,
        );
      else if (S !== null && minShort > S + 1e-9)
        out.push(`short_weight_sum ${S} is more short than the weight lower bounds allow, ${fmt(minShort)}.`);
      let longFloor = 0;
      for (let i = 0; i < n; i++) if (lower[i]! > 0) longFloor += lower[i]!;
      if (L !== null && longFloor > L + 1e-9)
        out.push(
          `The weight lower bounds put ${fmt(longFloor)} long, above long_weight_sum ${L}: ${breakdown(lower, m.lowerSource, (i) => lower[i]! > 0)}.`,
        );
    }
  }
  // Factor exposures: the range the box (and, long-only, the budget) can reach.
  for (const f of resolveFactorRows(m)) {
    const xb = factorExposure(m, f.index, m.benchmark);
    const lo = Math.max(f.lo, f.activeLo + xb);
    const hi = Math.min(f.hi, f.activeHi + xb);
    if (lo > hi + 1e-12) {
      out.push(
        `factor ${f.factor}: the absolute bounds [${fmt(f.lo)}, ${fmt(f.hi)}] and the active bounds around the benchmark's ${fmt(xb)} do not overlap.`,
      );
      continue;
    }
    const [reachLo, reachHi] = reachable(m, f.index);
    if (reachHi < lo - 1e-9)
      out.push(
        `factor ${f.factor}: exposure must be >= ${fmt(lo)} but the weight bounds${mode === "LONG_SHORT" ? "" : " and the budget"} reach at most ${fmt(reachHi)}.`,
      );
    if (reachLo > hi + 1e-9)
      out.push(
        `factor ${f.factor}: exposure must be <= ${fmt(hi)} but the weight bounds force at least ${fmt(reachLo)}.`,
      );
  }
  // The constraint components' own checks (component.ts).
  for (const c of m.constraints) if (c.precheck !== undefined) out.push(...c.precheck());
  return out;
}

/** Smallest and largest exposure to factor f over lower <= w <= upper (and sum w <= 1 unless LONG_SHORT). */
function reachable(m: PeriodModel, f: number): [number, number] {
  const { n, lower, upper } = m;
  const k = m.riskModel.factors.length;
  const X = m.riskModel.exposures;
  const budget = m.config.optimizationMode === "LONG_SHORT" ? Number.POSITIVE_INFINITY : 1;
  const run = (sign: 1 | -1): number => {
    let value = 0;
    let room = budget;
    const order: number[] = [];
    for (let i = 0; i < n; i++) {
      const lo = Number.isFinite(lower[i]!) ? lower[i]! : -1e6;
      value += sign * X[i * k + f]! * lo;
      room -= lo;
      order.push(i);
    }
    order.sort((a, b) => sign * (X[b * k + f]! - X[a * k + f]!));
    for (const i of order) {
      const x = sign * X[i * k + f]!;
      if (x <= 0 || room <= 0) break;
      const lo = Number.isFinite(lower[i]!) ? lower[i]! : -1e6;
      const span = Math.min((Number.isFinite(upper[i]!) ? upper[i]! : 1e6) - lo, room);
      value += x * span;
      room -= span;
    }
    return sign * value;
  };
  return [run(-1), run(1)];
}
