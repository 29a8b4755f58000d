/**
 * @module core/numeric/qp-kkt
 * Objective and KKT residuals of a candidate primal-dual point in the problem's own units, used to
 * report every result and to decide whether an answer qualifies as `optimal`.
 *
 * KKT conditions of  min 1/2 x'Px + q'x  s.t. l <= Ax <= u, lower <= x <= upper, x in cones
 * (Boyd & Vandenberghe, "Convex Optimization", section 5.5.3; sign convention of OSQP):
 *   stationarity      P x + q + A'y + yBounds + sum_c G_c' y_c = 0
 *   primal            l <= Ax <= u, lower <= x <= upper, G_c x in the cone set
 *   dual / compl.     y_i > 0 only where (Ax)_i = u_i, y_i < 0 only where (Ax)_i = l_i (same for bounds);
 *                     y_c in the normal cone of the cone set at G_c x.
 */
import type { QpModel } from "./qp-model.js";

/** Residuals of a primal-dual point (absolute values, and the scales used to make them relative). */
export interface KktReport {
  objective: number;
  /** Largest violation of rows, bounds and cones. */
  primalResidual: number;
  /** Largest entry of the stationarity residual. */
  dualResidual: number;
  /** Largest |multiplier| x |slack| over rows and bounds, plus wrong-sign multiplier magnitudes. */
  complementarity: number;
  /** Scale of the primal quantities (1 + max |Ax|, |x|, finite bounds). */
  primalScale: number;
  /** Scale of the dual quantities (1 + max |Px|, |q|, |A'y|). */
  dualScale: number;
}

/** P x for the model's P = diag(d) + V diag(s) V' (out may be given). Also returns V'x in `t`. */
export function modelPx(model: QpModel, x: Float64Array, out: Float64Array, t?: Float64Array): Float64Array {
  const { n, k, V, s, d } = model;
  const tv = t ?? new Float64Array(k);
  tv.fill(0);
  for (let i = 0; i < n; i++) {
    const xi = x[i]!;
    if (xi === 0) continue;
    const o = i * k;
    for (let j = 0; j < k; j++) tv[j]! += V[o + j]! * xi;
  }
  const st = new Float64Array(k);
  for (let j = 0; j < k; j++) st[j] = s[j]! * tv[j]!;
  for (let i = 0; i < n; i++) {
    const o = i * k;
    let acc = d[i]! * x[i]!;
    for (let j = 0; j < k; j++) acc += V[o + j]! * st[j]!;
    out[i] = acc;
  }
  return out;
}

/** Neumaier-compensated accumulator: call `add` for each term, read `sum()`. */
class CompensatedSum {
  private s = 0;
  private c = 0;
  add(v: number): void {
    const t = this.s + v;
    this.c += Math.abs(this.s) >= Math.abs(v) ? this.s - t + v : v - t + this.s;
    this.s = t;
  }
  sum(): number {
    return this.s + this.c;
  }
}

/** Objective 1/2 x'Px + q'x + offset with compensated sums, given t = V'x. */
function objectiveFromFactors(model: QpModel, x: Float64Array, t: Float64Array): number {
  const acc = new CompensatedSum();
  const { n, k, s, d, q } = model;
  for (let i = 0; i < n; i++) acc.add(0.5 * d[i]! * x[i]! * x[i]! + q[i]! * x[i]!);
  for (let j = 0; j < k; j++) acc.add(0.5 * s[j]! * t[j]! * t[j]!);
  acc.add(model.offset);
  return acc.sum();
}

/** Objective 1/2 x'Px + q'x + offset with compensated sums. */
export function modelObjective(model: QpModel, x: Float64Array): number {
  const t = new Float64Array(model.k);
  modelPx(model, x, new Float64Array(model.n), t);
  return objectiveFromFactors(model, x, t);
}

/** Adds G'y_c of every cone to `out` and returns the largest cone violation at x. */
export function addConeTerms(
  model: QpModel,
  x: Float64Array,
  coneDuals: readonly Float64Array[],
  out: Float64Array,
): number {
  let viol = 0;
  const n = model.n;
  model.cones.forEach((cone, c) => {
    const yc = coneDuals[c];
    if (cone.kind === "factor-risk-ball") {
      const { e, W, kW, center, radius } = cone;
      let sq = 0;
      const t = new Float64Array(kW);
      for (let i = 0; i < n; i++) {
        const dx = x[i]! - center[i]!;
        sq += e[i]! * dx * dx;
        for (let j = 0; j < kW; j++) t[j]! += W[i * kW + j]! * dx;
      }
      for (let j = 0; j < kW; j++) sq += t[j]! * t[j]!;
      viol = Math.max(viol, Math.sqrt(sq) - radius);
      if (yc !== undefined) {
        for (let i = 0; i < n; i++) {
          let acc = Math.sqrt(e[i]!) * yc[i]!;
          for (let j = 0; j < kW; j++) acc += W[i * kW + j]! * yc[n + j]!;
          out[i]! += acc;
        }
      }
    } else {
      const { G, g, h, t } = cone;
      let sq = 0;
      for (let r = 0; r < G.rows; r++) {
        let v = -g[r]!;
        for (let p = G.rowStart[r]!; p < G.rowStart[r + 1]!; p++) v += G.values[p]! * x[G.columnIndex[p]!]!;
        sq += v * v;
      }
      let rhs = t;
      for (let i = 0; i < n; i++) rhs += h[i]! * x[i]!;
      viol = Math.max(viol, Math.sqrt(sq) - rhs);
      if (yc !== undefined) {
        for (let i = 0; i < n; i++) out[i]! += h[i]! * yc[0]!;
        for (let r = 0; r < G.rows; r++) {
          const yr = yc[1 + r]!;
          if (yr === 0) continue;
          for (let p = G.rowStart[r]!; p < G.rowStart[r + 1]!; p++)
            out[G.columnIndex[p]!]! += G.values[p]! * yr;
        }
      }
    }
  });
  return Math.max(0, viol);
}

/** Objective and KKT residuals of (x, y, yBounds, coneDuals) for the model (see the module comment). */
export function kktReport(
  model: QpModel,
  x: Float64Array,
  y: Float64Array,
  yBounds: Float64Array,
  coneDuals: readonly Float64Array[],
): KktReport {
  const { n, m, A, l, u, q } = model;
  const t = new Float64Array(model.k);
  const px = modelPx(model, x, new Float64Array(n), t);
  const r = new Float64Array(n);
  let pxMax = 0;
  let qMax = 0;
  let xMax = 0;
  for (let i = 0; i < n; i++) {
    r[i] = px[i]! + q[i]! + yBounds[i]!;
    pxMax = Math.max(pxMax, Math.abs(px[i]!));
    qMax = Math.max(qMax, Math.abs(q[i]!));
    xMax = Math.max(xMax, Math.abs(x[i]!));
  }
  let primal = 0;
  let compl = 0;
  let boundMax = 0;
  let axMax = 0;
  for (let i = 0; i < m; i++) {
    let ax = 0;
    for (let p = A.rowStart[i]!; p < A.rowStart[i + 1]!; p++) ax += A.values[p]! * x[A.columnIndex[p]!]!;
    axMax = Math.max(axMax, Math.abs(ax));
    const li = l[i]!;
    const ui = u[i]!;
    if (Number.isFinite(li)) boundMax = Math.max(boundMax, Math.abs(li));
    if (Number.isFinite(ui)) boundMax = Math.max(boundMax, Math.abs(ui));
    primal = Math.max(primal, li - ax, ax - ui);
    const yi = y[i]!;
    if (yi > 0) compl = Math.max(compl, Number.isFinite(ui) ? yi * Math.abs(ui - ax) : yi);
    else if (yi < 0) compl = Math.max(compl, Number.isFinite(li) ? -yi * Math.abs(ax - li) : -yi);
    if (yi !== 0)
      for (let p = A.rowStart[i]!; p < A.rowStart[i + 1]!; p++) r[A.columnIndex[p]!]! += A.values[p]! * yi;
  }
  if (model.lowerBound && model.upperBound) {
    for (let j = 0; j < n; j++) {
      const lo = model.lowerBound[j]!;
      const hi = model.upperBound[j]!;
      if (Number.isFinite(lo)) boundMax = Math.max(boundMax, Math.abs(lo));
      if (Number.isFinite(hi)) boundMax = Math.max(boundMax, Math.abs(hi));
      primal = Math.max(primal, lo - x[j]!, x[j]! - hi);
      const z = yBounds[j]!;
      if (z > 0) compl = Math.max(compl, Number.isFinite(hi) ? z * Math.abs(hi - x[j]!) : z);
      else if (z < 0) compl = Math.max(compl, Number.isFinite(lo) ? -z * Math.abs(x[j]! - lo) : -z);
    }
  }
  primal = Math.max(primal, addConeTerms(model, x, coneDuals, r));
  let dual = 0;
  let rMax = 0;
  for (let i = 0; i < n; i++) {
    dual = Math.max(dual, Math.abs(r[i]!));
    rMax = Math.max(rMax, Math.abs(r[i]! - px[i]! - q[i]!));
  }
  return {
    objective: objectiveFromFactors(model, x, t),
    primalResidual: Math.max(0, primal),
    dualResidual: dual,
    complementarity: compl,
    primalScale: 1 + Math.max(axMax, xMax, boundMax),
    dualScale: 1 + Math.max(pxMax, qMax, rMax),
  };
}

/** True when the report meets `tolerance` relative to its scales (primal, stationarity, complementarity). */
export function kktPasses(report: KktReport, tolerance: number): boolean {
  return (
    report.primalResidual <= tolerance * report.primalScale &&
    report.dualResidual <= tolerance * report.dualScale &&
    report.complementarity <= tolerance * report.dualScale * report.primalScale
  );
}
