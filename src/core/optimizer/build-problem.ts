/**
 * @module core/optimizer/build-problem
 * The engine problem of one solve, in active weights x = w - b (so the risk-cap ball is centred at 0 and a new
 * benchmark only moves bounds): P = 2 lambda Sigma in factor form, per-asset piecewise-linear trade costs (taxes
 * lot by lot on the sell side, linear transaction costs on both sides), switch rows (those of the constraint
 * components, component.ts, and the long/short sums), fixed rows for the budget and factor exposures, the market-impact power cost and the optional
 * risk ball. docs/optimizer.md, "The problem", has the formulas.
 */
import { ValidationError } from "../errors.js";
import { type FactorRiskBall, type SparseMatrix, SparseMatrixBuilder } from "../numeric/index.js";
import { riskModelTimesVector } from "../risk/index.js";
import type { SwitchRow } from "./component.js";
import type { PeriodModel } from "./period-model.js";
import type { PwlQpProblem } from "./pwl-qp-types.js";

/** What varies between the solves of one rebalance. */
export interface SolveState {
  /** tax_gamma of this solve. */
  readonly gamma: number;
  /** Extra weight bounds (substitution zeros, whole-share fixes); NaN = none. */
  readonly extraLower?: Float64Array | undefined;
  readonly extraUpper?: Float64Array | undefined;
  /** Part of the investable value kept for the estimated trading costs (budget row). */
  readonly reserve: number;
  /** Radius of the active-risk ball (annualized tracking error), or null for none. */
  readonly radius: number | null;
  /** "risk-only" minimizes active risk alone (costs, taxes, returns dropped): the smallest achievable TE. */
  readonly objective: "full" | "risk-only";
  /** Surrogate curvature of the impact term; default from the distance to the benchmark. */
  readonly powerCurvature?: Float64Array;
  /**
   * Side of each two-sided asset (see {@link BuiltProblem.twoSided}): +1 trades only up (t >= 0), -1 only down
   * (t <= 0), 0 both.
   */
  readonly side?: Int8Array | undefined;
  /**
   * Replace each concave kink at t = 0 by a convex one (the buy slope raised to the first sell slope: buying then
   * also pays the harvest it forgoes), for the relaxed solve that picks sides.
   */
  readonly convexifyKinks?: boolean | undefined;
  /** Drop groups of constraints (same structure, infinite bounds): the infeasibility diagnosis. */
  readonly relax?: {
    readonly factors?: boolean;
    /** Switch rows to drop, by name (a constraint component's rows, or the long/short sums). */
    readonly rows?: readonly string[];
    readonly budget?: boolean;
    readonly radius?: boolean;
  };
}

/** The engine problem and what the caller needs to read its solution. */
export interface BuiltProblem {
  readonly problem: PwlQpProblem;
  /** Domain of each weight actually used (after extra bounds). */
  readonly lower: Float64Array;
  readonly upper: Float64Array;
  /** Factor index of each factor row (fixed rows after the budget row). */
  readonly factorRows: readonly { factor: string; index: number }[];
  /** Switch rows present, by name: the constraint components' rows, then the long/short sums. */
  readonly switches: readonly string[];
  /** Sigma b (for mean-variance). */
  readonly starting: Float64Array;
  /**
   * Assets whose cost is not convex at t = 0 in this problem's terms: a loss lot's harvest earns more than a
   * round trip costs (selling and buying the same asset is a wash sale, so one side must be chosen), or an
   * unheld asset that may go long or short under the long/short sums.
   */
  readonly twoSided: Uint8Array;
  /** Per asset, the segment that starts at t = 0 (the first buy segment) when the domain reaches both sides; -1 otherwise. */
  readonly kinkSegment: Int32Array;
}

/** Smallest impact surrogate distance (fraction of I): curvature alpha = 1.5 c / sqrt(max(|t|, this)). */
export const IMPACT_CURVATURE_FLOOR = 1e-4;

/** Default surrogate curvature of the impact term around an expected trade |t_i|. */
export function impactCurvature(coefficient: Float64Array, expectedTrade: Float64Array): Float64Array {
  const out = new Float64Array(coefficient.length);
  for (let i = 0; i < out.length; i++)
    if (coefficient[i]! > 0)
      out[i] =
        (1.5 * coefficient[i]!) / Math.sqrt(Math.max(Math.abs(expectedTrade[i]!), IMPACT_CURVATURE_FLOOR));
  return out;
}

/**
 * Resolve the factor rows of `factor_exposure_bounds` against the model's factor names.
 * @throws {ValidationError} for a factor the model does not have (listing the names it has).
 */
export function resolveFactorRows(
  m: PeriodModel,
): { factor: string; index: number; lo: number; hi: number; activeLo: number; activeHi: number }[] {
  const names = m.riskModel.factors;
  const issues: { path: string; message: string }[] = [];
  const out: { factor: string; index: number; lo: number; hi: number; activeLo: number; activeHi: number }[] =
    [];
  m.config.factorExposureBounds.forEach((b, j) => {
    const index = names.indexOf(b.factor);
    if (index < 0) {
      issues.push({
        path: `config.factorExposureBounds[${j}].factor`,
        message: `the risk model has no factor "${b.factor}"; its factors are ${names.join(", ")}`,
      });
      return;
    }
    out.push({
      factor: b.factor,
      index,
      lo: b.minBound ?? Number.NEGATIVE_INFINITY,
      hi: b.maxBound ?? Number.POSITIVE_INFINITY,
      activeLo: b.minActiveBound ?? Number.NEGATIVE_INFINITY,
      activeHi: b.maxActiveBound ?? Number.POSITIVE_INFINITY,
    });
  });
  if (issues.length > 0)
    throw new ValidationError(
      `factor_exposure_bounds: ${issues.map((x) => x.message).join("; ")}`,
      issues,
      "unknown_factor",
    );
  return out;
}

/** Exposure of a weight vector to factor column f: sum_i X_if w_i. */
export function factorExposure(m: PeriodModel, f: number, w: Float64Array): number {
  const k = m.riskModel.factors.length;
  const X = m.riskModel.exposures;
  let acc = 0;
  for (let i = 0; i < m.n; i++) acc += X[i * k + f]! * w[i]!;
  return acc;
}

/**
 * The full cost curve of every asset in trade space t = w - w0 at one (gamma, kappa): sell segments from the tax
 * schedule (cheapest piece next to t = 0, equal slopes merged), or one short-sale segment, then the buy segment
 * [0, inf). `value` is the cost at `lo` (at `hi` when `lo` is -inf). Cached per period model.
 */
interface CurveTemplate {
  readonly start: Int32Array;
  /** First segment of the buy side (lo = 0) of each asset. */
  readonly buy: Int32Array;
  readonly lo: Float64Array;
  readonly hi: Float64Array;
  readonly slope: Float64Array;
  readonly value: Float64Array;
}

const templates = new WeakMap<PeriodModel, Map<string, CurveTemplate>>();
const fixedRows = new WeakMap<
  PeriodModel,
  { A: SparseMatrix; defs: ReturnType<typeof resolveFactorRows>; exposuresOfB: Float64Array; sumB: number }
>();

function curveTemplate(m: PeriodModel, gamma: number, kappa: number): CurveTemplate {
  let byKey = templates.get(m);
  if (byKey === undefined) {
    byKey = new Map();
    templates.set(m, byKey);
  }
  const key = `${gamma}|${kappa}`;
  const hit = byKey.get(key);
  if (hit !== undefined) return hit;
  const { n } = m;
  const sched = m.schedule;
  const cov = m.covers;
  const cap = sched.lot.length + cov.lot.length + 2 * n;
  const start = new Int32Array(n + 1);
  const buy = new Int32Array(n);
  const lo = new Float64Array(cap);
  const hi = new Float64Array(cap);
  const slope = new Float64Array(cap);
  const value = new Float64Array(cap);
  let q = 0;
  for (let i = 0; i < n; i++) {
    start[i] = q;
    const tau = kappa * m.costRate[i]!;
    if (m.shares[i]! > 0) {
      // Walk from t = 0 leftwards, cheapest piece first, merging equal slopes; written right to left.
      const a = sched.start[i]!;
      const z = sched.start[i + 1]!;
      let count = 0;
      let prev = Number.NaN;
      for (let p = a; p < z; p++) {
        const sl = -(gamma * sched.objectiveCost[p]! + tau);
        if (sched.weight[p]! > 0 && sl !== prev) {
          count++;
          prev = sl;
        }
      }
      let t = 0;
      let cost = 0;
      let w = q + count - 1; // slot of the segment next to t = 0
      prev = Number.NaN;
      for (let p = a; p < z; p++) {
        const width = sched.weight[p]!;
        if (!(width > 0)) continue;
        const sl = -(gamma * sched.objectiveCost[p]! + tau);
        const next = t - width;
        cost += -sl * width;
        if (sl === prev) {
          w++; // undo the advance: extend the same segment
        } else {
          hi[w] = t;
          slope[w] = sl;
          prev = sl;
        }
        lo[w] = next;
        value[w] = cost;
        w--;
        t = next;
      }
      q += count;
    } else {
      lo[q] = Number.NEGATIVE_INFINITY;
      hi[q] = 0;
      slope[q] = -tau;
      value[q] = 0; // at t = 0
      q++;
      if (m.shares[i]! < 0 && cov.start[i + 1]! > cov.start[i]!) {
        // Held short: the buy side covers the short lots in the cover order (cover-schedule.ts), left to right,
        // merging equal slopes; the last piece runs on (the domain ends at the short's size: upper <= 0).
        buy[i] = q;
        let t = 0;
        let cost = 0;
        let prev = Number.NaN;
        for (let p = cov.start[i]!; p < cov.start[i + 1]!; p++) {
          const width = cov.weight[p]!;
          if (!(width > 0)) continue;
          const sl = gamma * cov.objectiveCost[p]! + tau;
          if (sl !== prev) {
            lo[q] = t;
            slope[q] = sl;
            value[q] = cost;
            q++;
            prev = sl;
          }
          t += width;
          cost += sl * width;
          hi[q - 1] = t;
        }
        hi[q - 1] = Number.POSITIVE_INFINITY;
        continue;
      }
    }
    buy[i] = q;
    lo[q] = 0;
    hi[q] = Number.POSITIVE_INFINITY;
    slope[q] = tau;
    value[q] = 0;
    q++;
  }
  start[n] = q;
  const tpl: CurveTemplate = {
    start,
    buy,
    lo: lo.subarray(0, q),
    hi: hi.subarray(0, q),
    slope: slope.subarray(0, q),
    value: value.subarray(0, q),
  };
  if (byKey.size > 16) byKey.clear(); // gamma searches visit a few dozen values at most
  byKey.set(key, tpl);
  return tpl;
}

/** Cost at t >= 0 of the buy side (template segments bs..z-1) with every slope raised to at least `floor`. */
function buyCost(tpl: CurveTemplate, bs: number, z: number, t: number, floor: number): number {
  let cost = 0;
  for (let s = bs; s < z && tpl.lo[s]! < t; s++) {
    const sl = tpl.slope[s]! < floor ? floor : tpl.slope[s]!;
    cost += sl * (Math.min(tpl.hi[s]!, t) - tpl.lo[s]!);
  }
  return cost;
}

/** Cost of template segment s at t. */
function curveValue(tpl: CurveTemplate, s: number, t: number): number {
  return tpl.lo[s] === Number.NEGATIVE_INFINITY
    ? tpl.value[s]! + tpl.slope[s]! * (t - tpl.hi[s]!)
    : tpl.value[s]! + tpl.slope[s]! * (t - tpl.lo[s]!);
}

/**
 * The fixed rows' matrix (budget, then the exposures to the factors of `factorIndex`), a pure function of the
 * (immutable) risk model restricted to the universe and the factor rows: remembered per model object, so that
 * every rebalance with the same model and factor rows shares it.
 */
const fixedMatrices = new WeakMap<PeriodModel["riskModel"], { key: string; A: SparseMatrix }>();

function fixedMatrix(m: PeriodModel, factorIndex: readonly number[]): SparseMatrix {
  const key = factorIndex.join(",");
  const hit = fixedMatrices.get(m.riskModel);
  if (hit !== undefined && hit.key === key) return hit.A;
  const { n } = m;
  const A = new SparseMatrixBuilder(1 + factorIndex.length, n);
  for (let i = 0; i < n; i++) A.add(0, i, 1);
  const k = m.riskModel.factors.length;
  const X = m.riskModel.exposures;
  factorIndex.forEach((f, r) => {
    for (let i = 0; i < n; i++) {
      const v = X[i * k + f]!;
      if (v !== 0) A.add(1 + r, i, v);
    }
  });
  const built = A.build();
  fixedMatrices.set(m.riskModel, { key, A: built });
  return built;
}

function rowsOf(m: PeriodModel) {
  let hit = fixedRows.get(m);
  if (hit !== undefined) return hit;
  const { n } = m;
  const defs = resolveFactorRows(m);
  let sumB = 0;
  for (let i = 0; i < n; i++) sumB += m.benchmark[i]!;
  const exposuresOfB = new Float64Array(defs.length);
  defs.forEach((f, r) => {
    exposuresOfB[r] = factorExposure(m, f.index, m.benchmark);
  });
  const A = fixedMatrix(
    m,
    defs.map((f) => f.index),
  );
  hit = { A, defs, exposuresOfB, sumB };
  fixedRows.set(m, hit);
  return hit;
}

/**
 * The build of the same state with `convexifyKinks` (see {@link SolveState.convexifyKinks}), derived from `built`
 * (built without it and without side locks): the same arrays except the buy slopes of each two-sided asset whose
 * kink at t = 0 is concave, raised to at least the first sell slope (and the buy side's values with them). A
 * two-sided asset's domain reaches both sides of the kink: its buy side starts at `kinkSegment` (cost 0 at t = 0),
 * the segment before it is the first sell piece.
 */
export function convexifyKinks(built: BuiltProblem): BuiltProblem {
  const seg = built.problem.segments;
  const slope = Float64Array.from(seg.slope);
  const value = Float64Array.from(seg.value);
  for (let i = 0; i < built.twoSided.length; i++) {
    if (built.twoSided[i] !== 1) continue;
    // The buy side: one segment for a long or unheld asset, the cover pieces for a held short.
    const first = built.kinkSegment[i]!;
    if (first <= seg.start[i]!) continue;
    const floor = slope[first - 1]!;
    if (!(floor > slope[first]! + 1e-15)) continue;
    const end = seg.start[i + 1]!;
    for (let j = first; j < end; j++) {
      if (slope[j]! < floor) slope[j] = floor;
      // Continuous cost: each segment starts where the previous one ends.
      if (j > first) value[j] = value[j - 1]! + slope[j - 1]! * (seg.lower[j]! - seg.lower[j - 1]!);
    }
  }
  return { ...built, problem: { ...built.problem, segments: { ...seg, slope, value } } };
}

/** Build the engine problem for `state` (see the module comment). */
export function buildProblem(m: PeriodModel, state: SolveState): BuiltProblem {
  const { n, config } = m;
  const riskOnly = state.objective === "risk-only";
  const lambda = riskOnly ? 1 : config.riskAversion;
  const kappa = riskOnly ? 0 : config.scalingFactor;
  const gamma = riskOnly ? 0 : state.gamma;
  const b = m.benchmark;
  const w0 = m.w0;
  const relax = state.relax ?? {};

  // Domain of each weight.
  const lower = Float64Array.from(m.lower);
  const upper = Float64Array.from(m.upper);
  if (state.extraLower !== undefined)
    for (let i = 0; i < n; i++)
      if (!Number.isNaN(state.extraLower[i]!)) lower[i] = Math.max(lower[i]!, state.extraLower[i]!);
  if (state.extraUpper !== undefined)
    for (let i = 0; i < n; i++)
      if (!Number.isNaN(state.extraUpper[i]!)) upper[i] = Math.min(upper[i]!, state.extraUpper[i]!);

  const longShort = config.optimizationMode !== "LONG_ONLY";
  const sums = longShort && (config.longWeightSum !== null || config.shortWeightSum !== null);
  const switchRows: SwitchRow[] = [];
  for (const c of m.constraints) if (c.rows !== undefined) switchRows.push(...c.rows);
  if (sums) switchRows.push(...weightSumRows(m));
  const switches = switchRows.map((r) => r.name);
  const nSw = switchRows.length;

  const tpl = curveTemplate(m, gamma, kappa);
  const cap = tpl.lo.length + n;
  const start = new Int32Array(n + 1);
  const sLo = new Float64Array(cap);
  const sHi = new Float64Array(cap);
  const sSlope = new Float64Array(cap);
  const sValue = new Float64Array(cap);
  const swCoef = switches.map(() => new Float64Array(cap));
  const swConst = switches.map(() => new Float64Array(cap));
  const twoSided = new Uint8Array(n);
  const kinkSegment = new Int32Array(n).fill(-1);
  let q = 0;
  const tLoA = tpl.lo;
  const tHiA = tpl.hi;
  const tSlope = tpl.slope;
  for (let i = 0; i < n; i++) {
    start[i] = q;
    const a = tpl.start[i]!;
    const z = tpl.start[i + 1]!;
    const wi = w0[i]!;
    const shift = wi - b[i]!;
    let loT = lower[i]! - wi;
    let hiT = upper[i]! - wi;
    // Rounding: the sell side ends exactly at the sellable amount.
    if (tLoA[a]! > Number.NEGATIVE_INFINITY && loT < tLoA[a]!) loT = tLoA[a]!;
    if (hiT < loT) hiT = loT; // conflicts are diagnosed before; keep a valid single point
    // The buy side starts at template segment bs (t = 0); a held short's covers are several segments.
    const bs = tpl.buy[i]!;
    let buyFloor = Number.NEGATIVE_INFINITY;
    if (loT < 0 && hiT > 0) {
      const concave = tSlope[bs - 1]! > tSlope[bs]! + 1e-15;
      if (concave || (sums && wi === 0)) {
        twoSided[i] = 1;
        const side = state.side?.[i] ?? 0;
        if (side > 0) loT = 0;
        else if (side < 0) hiT = 0;
        else if (concave && state.convexifyKinks) buyFloor = tSlope[bs - 1]!;
      }
    }
    const first = q;
    if (loT === hiT) {
      let s = a;
      while (s < z - 1 && tHiA[s]! < loT) s++;
      sLo[q] = loT + shift;
      sHi[q] = loT + shift;
      sSlope[q] = 0;
      sValue[q] = curveValue(tpl, s, loT);
      q++;
    } else
      for (let s = a; s < z; s++) {
        const lo = tLoA[s]! > loT ? tLoA[s]! : loT;
        const hi = tHiA[s]! < hiT ? tHiA[s]! : hiT;
        if (!(lo < hi)) continue;
        const slope = s >= bs && tSlope[s]! < buyFloor ? buyFloor : tSlope[s]!;
        sLo[q] = lo + shift;
        sHi[q] = hi + shift;
        sSlope[q] = slope;
        if (s === bs && lo === 0) kinkSegment[i] = q;
        // The buy side starts at t = 0 with cost 0 (convexified slopes: the cost integrated from 0).
        sValue[q] =
          s >= bs && buyFloor > Number.NEGATIVE_INFINITY
            ? buyCost(tpl, bs, z, lo, buyFloor)
            : lo === Number.NEGATIVE_INFINITY
              ? curveValue(tpl, s, hi)
              : curveValue(tpl, s, lo);
        q++;
      }
    if (nSw > 0)
      for (let j = first; j < q; j++) {
        // Coefficients from a point inside the segment (component.ts, SwitchRow).
        const tLo = sLo[j]! - shift;
        const tHi = sHi[j]! - shift;
        const tMid =
          tLo === Number.NEGATIVE_INFINITY
            ? tHi - 1
            : tHi === Number.POSITIVE_INFINITY
              ? tLo + 1
              : 0.5 * (tLo + tHi);
        const wMid = tMid + wi;
        for (let r = 0; r < nSw; r++) {
          const row = switchRows[r]!;
          const c = row.coefficient(tMid, wMid);
          swCoef[r]![j] = c;
          swConst[r]![j] = row.constant(c, shift, b[i]!);
        }
      }
  }
  start[n] = q;

  // Fixed rows: budget, then factor exposures (pattern cached; bounds per state).
  const rows = rowsOf(m);
  const mRows = 1 + rows.defs.length;
  const l = new Float64Array(mRows);
  const u = new Float64Array(mRows);
  const mode = config.optimizationMode;
  const sumB = rows.sumB;
  l[0] = mode === "LONG_BIASED" && !relax.budget ? -sumB : Number.NEGATIVE_INFINITY;
  u[0] = relax.budget ? Number.POSITIVE_INFINITY : 1 - state.reserve - sumB;
  rows.defs.forEach((f, r) => {
    const xb = rows.exposuresOfB[r]!;
    l[1 + r] = relax.factors ? Number.NEGATIVE_INFINITY : Math.max(f.lo - xb, f.activeLo);
    u[1 + r] = relax.factors ? Number.POSITIVE_INFINITY : Math.min(f.hi - xb, f.activeHi);
  });

  // Switch rows.
  const swL = new Float64Array(nSw);
  const swU = new Float64Array(nSw);
  switchRows.forEach((row, r) => {
    const relaxed = relax.rows?.includes(row.name) === true;
    swL[r] = relaxed ? Number.NEGATIVE_INFINITY : row.lower;
    swU[r] = relaxed ? Number.POSITIVE_INFINITY : row.upper;
  });

  // Quadratic part and linear term.
  const D = m.specificVariance;
  const V = m.loadings;
  const scale = 2 * lambda;
  const diagonal = new Float64Array(n);
  for (let i = 0; i < n; i++) diagonal[i] = scale * D[i]!;
  const q0 = new Float64Array(n);
  const starting = new Float64Array(n);
  let offset = 0;
  if (config.useMeanVariance && !riskOnly) {
    // lambda w'Sigma w - mu'w with w = x + b: q = 2 lambda Sigma b - mu; constant lambda b'Sigma b - mu'b.
    riskModelTimesVector(m.riskModel, b, starting);
    for (let i = 0; i < n; i++) {
      q0[i] = scale * starting[i]! - m.expectedReturns[i]!;
      offset += lambda * b[i]! * starting[i]! - m.expectedReturns[i]! * b[i]!;
    }
  }
  let power: PwlQpProblem["power"];
  if (kappa > 0 && m.impact.some((c) => c > 0)) {
    const coefficient = m.impact.map((c) => kappa * c);
    const reference = new Float64Array(n);
    const expected = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      reference[i] = w0[i]! - b[i]!;
      expected[i] = b[i]! - w0[i]!;
    }
    power = {
      coefficient,
      reference,
      curvature: state.powerCurvature ?? impactCurvature(coefficient, expected),
    };
  }
  const radius = state.radius !== null && relax.radius ? 1e6 : state.radius;
  const cones: FactorRiskBall[] =
    radius === null ? [] : [{ kind: "factor-risk-ball", diagonal: D, factors: V, radius }];
  const problem: PwlQpProblem = {
    P: { diagonal, factors: V, factorScales: new Float64Array(V.cols).fill(scale) },
    q: q0,
    A: rows.A,
    l,
    u,
    rowNames: ["budget", ...rows.defs.map((f) => `factor ${f.factor}`)],
    segments: {
      start,
      lower: sLo.subarray(0, q),
      upper: sHi.subarray(0, q),
      slope: sSlope.subarray(0, q),
      value: sValue.subarray(0, q),
    },
    ...(nSw > 0
      ? {
          switchRows: {
            coefficient: swCoef.map((c) => c.subarray(0, q)),
            constant: swConst.map((c) => c.subarray(0, q)),
            l: swL,
            u: swU,
            names: switches,
          },
        }
      : {}),
    ...(cones.length > 0 ? { cones } : {}),
    ...(power === undefined ? {} : { power }),
    offset,
  };
  return {
    problem,
    lower,
    upper,
    factorRows: rows.defs.map((f) => ({ factor: f.factor, index: f.index })),
    switches,
    starting,
    twoSided,
    kinkSegment,
  };
}

/** Names of the long/short sum rows (relaxed together by the diagnosis). */
export const WEIGHT_SUM_ROWS: readonly string[] = ["long_weight_sum", "short_weight_sum"];

/**
 * The long and short sum rows (LONG_BIASED / LONG_SHORT with a sum set): sum of the positive weights and of the
 * negative weights, coefficient 1 on the segments of that sign; the row's value c w = c (x + b). Both sums set
 * in LONG_SHORT fix them (equality); otherwise each is a bound on its side.
 */
function weightSumRows(m: PeriodModel): SwitchRow[] {
  const config = m.config;
  const mode = config.optimizationMode;
  const L = config.longWeightSum ?? Number.POSITIVE_INFINITY;
  const S = config.shortWeightSum ?? Number.NEGATIVE_INFINITY;
  return [
    {
      name: WEIGHT_SUM_ROWS[0]!,
      coefficient: (_t, w) => (w > 0 ? 1 : 0),
      constant: (c, _shift, b) => c * b,
      lower: mode === "LONG_SHORT" && config.longWeightSum !== null ? L : Number.NEGATIVE_INFINITY,
      upper: L,
    },
    {
      name: WEIGHT_SUM_ROWS[1]!,
      coefficient: (_t, w) => (w < 0 ? 1 : 0),
      constant: (c, _shift, b) => c * b,
      lower: S,
      upper: mode === "LONG_SHORT" && config.shortWeightSum !== null ? S : Number.POSITIVE_INFINITY,
    },
  ];
}
