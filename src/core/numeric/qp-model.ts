/**
 * @module core/numeric/qp-model
 * Entry checks of a {@link QpProblem} and its normalized internal form, shared by both solver methods:
 * rows of A with one nonzero become bounds on x (merged with `bounds`, keeping which source is tight so
 * multipliers map back), empty rows are checked once, and the remaining "general" rows keep their CSR
 * form plus its transpose. Cones are normalized to flat arrays.
 */

import type { ConeConstraint, QpProblem } from "./qp-types.js";
import { assertSparseMatrix, type SparseMatrix, sparseTranspose } from "./sparse-matrix.js";

/** A factor-risk ball in flat form: (x - c)'(diag(e) + W W')(x - c) <= r^2, W n x kW row-major. */
export interface BallCone {
  readonly kind: "factor-risk-ball";
  readonly center: Float64Array;
  readonly e: Float64Array;
  readonly kW: number;
  readonly W: Float64Array;
  readonly radius: number;
}

/** A general second-order cone ||G x - g|| <= h'x + t in flat form. */
export interface SocCone {
  readonly kind: "second-order-cone";
  readonly G: SparseMatrix;
  readonly g: Float64Array;
  readonly h: Float64Array;
  readonly t: number;
}

/** Normalized cone. */
export type ModelCone = BallCone | SocCone;

/** Source of a merged bound: `BOUND_NONE`, `BOUND_EXPLICIT`, or the index of a singleton row entry. */
export const BOUND_NONE = -2;
/** The bound comes from `problem.bounds`. */
export const BOUND_EXPLICIT = -1;

/** Normalized problem (internal). Arrays that the solver may update in place are private copies. */
export interface QpModel {
  readonly n: number;
  readonly m: number;
  /** diag(d) of P (copy). */
  readonly d: Float64Array;
  /** Number of factor columns kept (those with a positive scale). */
  readonly k: number;
  /** V, n x k row-major. */
  readonly V: Float64Array;
  /** Factor scales s (k). */
  readonly s: Float64Array;
  q: Float64Array;
  readonly offset: number;
  /** The full A (m x n), empty when absent. */
  readonly A: SparseMatrix;
  l: Float64Array;
  u: Float64Array;
  lowerBound: Float64Array | undefined;
  upperBound: Float64Array | undefined;
  readonly hasExplicitBounds: boolean;
  /** Original indices of the general rows (two or more nonzeros). */
  readonly generalRows: Int32Array;
  readonly Ag: SparseMatrix;
  readonly AgT: SparseMatrix;
  /** Singleton rows: row index, column and coefficient. */
  readonly singletonRow: Int32Array;
  readonly singletonCol: Int32Array;
  readonly singletonCoef: Float64Array;
  /** Rows without nonzeros. */
  readonly emptyRows: Int32Array;
  readonly cones: readonly ModelCone[];
  // Derived from l, u and the bounds by refreshBounds().
  lg: Float64Array;
  ug: Float64Array;
  xl: Float64Array;
  xu: Float64Array;
  lowSource: Int32Array;
  upSource: Int32Array;
  /** Conflicts found in the bounds (crossed bounds, impossible empty rows). */
  diagnosis: string[];
}

function assertVector(
  v: unknown,
  length: number,
  caller: string,
  name: string,
  allowInfinite: boolean,
): Float64Array {
  if (!(v instanceof Float64Array))
    throw new TypeError(`${caller}: ${name} must be a Float64Array of length ${length}.`);
  if (v.length !== length)
    throw new RangeError(`${caller}: ${name} has length ${v.length}, expected ${length}.`);
  for (let i = 0; i < length; i++) {
    const x = v[i]!;
    if (Number.isNaN(x)) throw new TypeError(`${caller}: ${name}[${i}] is NaN.`);
    if (!allowInfinite && !Number.isFinite(x))
      throw new TypeError(`${caller}: ${name}[${i}] is ${x}; it must be finite.`);
  }
  return v;
}

function assertNonNegative(v: Float64Array, caller: string, name: string, what: string): void {
  for (let i = 0; i < v.length; i++)
    if (v[i]! < 0) throw new RangeError(`${caller}: ${name}[${i}] = ${v[i]} < 0; ${what}.`);
}

function normalizeCone(cone: ConeConstraint, n: number, caller: string, index: number): ModelCone {
  const name = `cones[${index}]`;
  if (cone.kind === "factor-risk-ball") {
    const e = assertVector(cone.diagonal, n, caller, `${name}.diagonal`, false);
    assertNonNegative(e, caller, `${name}.diagonal`, "the risk matrix must be positive semidefinite");
    const center =
      cone.center === undefined
        ? new Float64Array(n)
        : assertVector(cone.center, n, caller, `${name}.center`, false);
    let kW = 0;
    let W: Float64Array = new Float64Array(0);
    if (cone.factors !== undefined) {
      const f = cone.factors;
      if (f.rows !== n || f.data.length !== f.rows * f.cols)
        throw new RangeError(
          `${caller}: ${name}.factors is ${f.rows} x ${f.cols} with ${f.data.length} entries; expected ${n} rows (n x kW row-major).`,
        );
      assertVector(f.data, f.data.length, caller, `${name}.factors.data`, false);
      kW = f.cols;
      W = f.data;
    }
    if (!Number.isFinite(cone.radius) || cone.radius < 0)
      throw new RangeError(`${caller}: ${name}.radius is ${cone.radius}; it must be finite and >= 0.`);
    return { kind: "factor-risk-ball", center, e, kW, W, radius: cone.radius };
  }
  if (cone.kind === "second-order-cone") {
    assertSparseMatrix(cone.G, caller, `${name}.G`);
    if (cone.G.cols !== n)
      throw new RangeError(`${caller}: ${name}.G has ${cone.G.cols} columns, expected n = ${n}.`);
    const p = cone.G.rows;
    const g =
      cone.g === undefined ? new Float64Array(p) : assertVector(cone.g, p, caller, `${name}.g`, false);
    const h =
      cone.h === undefined ? new Float64Array(n) : assertVector(cone.h, n, caller, `${name}.h`, false);
    const t = cone.t ?? 0;
    if (!Number.isFinite(t)) throw new TypeError(`${caller}: ${name}.t is ${t}; it must be finite.`);
    return { kind: "second-order-cone", G: cone.G, g, h, t };
  }
  throw new TypeError(
    `${caller}: ${name}.kind is ${String((cone as { kind?: unknown }).kind)}; expected "factor-risk-ball" or "second-order-cone".`,
  );
}

/**
 * Checks a problem and builds its normalized form. Inputs are never mutated; vectors the solver may
 * update (q, l, u, bounds) are copied.
 *
 * @throws {TypeError} on a wrong type, NaN, or an infinite value where only finite ones are allowed.
 * @throws {RangeError} on a shape mismatch, a non-PSD P or risk matrix, l = +Infinity or u = -Infinity.
 */
export function buildModel(problem: QpProblem, caller = "solveQp"): QpModel {
  if (typeof problem !== "object" || problem === null)
    throw new TypeError(`${caller}: problem must be an object.`);
  const P = problem.P;
  if (typeof P !== "object" || P === null || !(P.diagonal instanceof Float64Array))
    throw new TypeError(`${caller}: P.diagonal must be a Float64Array (P = diag(d) + V diag(s) V').`);
  const n = P.diagonal.length;
  if (n < 1)
    throw new RangeError(`${caller}: the problem needs at least one variable (P.diagonal is empty).`);
  const d = Float64Array.from(assertVector(P.diagonal, n, caller, "P.diagonal", false));
  assertNonNegative(d, caller, "P.diagonal", "P must be positive semidefinite");
  let k = 0;
  let V: Float64Array = new Float64Array(0);
  let s = new Float64Array(0);
  if (P.factors !== undefined) {
    const f = P.factors;
    if (f.rows !== n || f.data.length !== f.rows * f.cols)
      throw new RangeError(
        `${caller}: P.factors is ${f.rows} x ${f.cols} with ${f.data.length} entries; expected ${n} rows (n x k row-major).`,
      );
    assertVector(f.data, f.data.length, caller, "P.factors.data", false);
    const kAll = f.cols;
    const scales =
      P.factorScales === undefined
        ? new Float64Array(kAll).fill(1)
        : assertVector(P.factorScales, kAll, caller, "P.factorScales", false);
    assertNonNegative(scales, caller, "P.factorScales", "P must be positive semidefinite");
    const keep: number[] = [];
    for (let j = 0; j < kAll; j++) if (scales[j]! > 0) keep.push(j);
    k = keep.length;
    s = Float64Array.from(keep, (j) => scales[j]!);
    if (k === kAll) V = f.data;
    else {
      V = new Float64Array(n * k);
      for (let i = 0; i < n; i++) for (let c = 0; c < k; c++) V[i * k + c] = f.data[i * kAll + keep[c]!]!;
    }
  } else if (P.factorScales !== undefined && P.factorScales.length !== 0) {
    throw new RangeError(`${caller}: P.factorScales is given without P.factors.`);
  }
  const q = Float64Array.from(assertVector(problem.q, n, caller, "q", false));
  const offset = problem.offset ?? 0;
  if (!Number.isFinite(offset)) throw new TypeError(`${caller}: offset is ${offset}; it must be finite.`);

  let A: SparseMatrix;
  let m = 0;
  if (problem.A !== undefined) {
    assertSparseMatrix(problem.A, caller, "A");
    if (problem.A.cols !== n)
      throw new RangeError(`${caller}: A has ${problem.A.cols} columns, expected n = ${n}.`);
    A = problem.A;
    m = A.rows;
  } else {
    A = {
      rows: 0,
      cols: n,
      rowStart: new Int32Array(1),
      columnIndex: new Int32Array(0),
      values: new Float64Array(0),
    };
    if ((problem.l?.length ?? 0) !== 0 || (problem.u?.length ?? 0) !== 0)
      throw new RangeError(`${caller}: l and u are given without A.`);
  }
  const l =
    m === 0 && problem.l === undefined
      ? new Float64Array(0)
      : Float64Array.from(assertVector(problem.l, m, caller, "l", true));
  const u =
    m === 0 && problem.u === undefined
      ? new Float64Array(0)
      : Float64Array.from(assertVector(problem.u, m, caller, "u", true));
  for (let i = 0; i < m; i++) {
    if (l[i] === Number.POSITIVE_INFINITY) throw new RangeError(`${caller}: l[${i}] is +Infinity.`);
    if (u[i] === Number.NEGATIVE_INFINITY) throw new RangeError(`${caller}: u[${i}] is -Infinity.`);
  }
  let lowerBound: Float64Array | undefined;
  let upperBound: Float64Array | undefined;
  if (problem.bounds !== undefined) {
    lowerBound = Float64Array.from(assertVector(problem.bounds.lower, n, caller, "bounds.lower", true));
    upperBound = Float64Array.from(assertVector(problem.bounds.upper, n, caller, "bounds.upper", true));
    for (let i = 0; i < n; i++) {
      if (lowerBound[i] === Number.POSITIVE_INFINITY)
        throw new RangeError(`${caller}: bounds.lower[${i}] is +Infinity.`);
      if (upperBound[i] === Number.NEGATIVE_INFINITY)
        throw new RangeError(`${caller}: bounds.upper[${i}] is -Infinity.`);
    }
  }
  const cones = (problem.cones ?? []).map((c, i) => normalizeCone(c, n, caller, i));

  // Classify rows by their number of nonzero coefficients.
  const general: number[] = [];
  const sRow: number[] = [];
  const sCol: number[] = [];
  const sCoef: number[] = [];
  const empty: number[] = [];
  for (let i = 0; i < m; i++) {
    let count = 0;
    let col = -1;
    let coef = 0;
    for (let p = A.rowStart[i]!; p < A.rowStart[i + 1]!; p++) {
      if (A.values[p] !== 0) {
        count++;
        col = A.columnIndex[p]!;
        coef = A.values[p]!;
      }
    }
    if (count === 0) empty.push(i);
    else if (count === 1) {
      sRow.push(i);
      sCol.push(col);
      sCoef.push(coef);
    } else general.push(i);
  }
  const generalRows = Int32Array.from(general);
  const Ag = selectRows(A, generalRows);
  const model: QpModel = {
    n,
    m,
    d,
    k,
    V,
    s,
    q,
    offset,
    A,
    l,
    u,
    lowerBound,
    upperBound,
    hasExplicitBounds: problem.bounds !== undefined,
    generalRows,
    Ag,
    AgT: sparseTranspose(Ag),
    singletonRow: Int32Array.from(sRow),
    singletonCol: Int32Array.from(sCol),
    singletonCoef: Float64Array.from(sCoef),
    emptyRows: Int32Array.from(empty),
    cones,
    lg: new Float64Array(generalRows.length),
    ug: new Float64Array(generalRows.length),
    xl: new Float64Array(n),
    xu: new Float64Array(n),
    lowSource: new Int32Array(n),
    upSource: new Int32Array(n),
    diagnosis: [],
  };
  refreshBounds(model);
  return model;
}

/** Rows `rows` of `a` (in that order), dropping stored zeros. */
function selectRows(a: SparseMatrix, rows: Int32Array): SparseMatrix {
  const rowStart = new Int32Array(rows.length + 1);
  const cols: number[] = [];
  const vals: number[] = [];
  for (let r = 0; r < rows.length; r++) {
    const i = rows[r]!;
    for (let p = a.rowStart[i]!; p < a.rowStart[i + 1]!; p++) {
      if (a.values[p] === 0) continue;
      cols.push(a.columnIndex[p]!);
      vals.push(a.values[p]!);
    }
    rowStart[r + 1] = cols.length;
  }
  return {
    rows: rows.length,
    cols: a.cols,
    rowStart,
    columnIndex: Int32Array.from(cols),
    values: Float64Array.from(vals),
  };
}

/**
 * Recomputes the merged bounds on x (explicit bounds and singleton rows, the tightest winning), the
 * general rows' bounds, and the diagnosis of crossed bounds, from the current l, u and bounds.
 */
export function refreshBounds(model: QpModel): void {
  const { n, l, u, xl, xu, lowSource, upSource } = model;
  const diagnosis: string[] = [];
  for (let i = 0; i < model.m; i++)
    if (l[i]! > u[i]!) diagnosis.push(`row ${i}: lower bound ${l[i]} > upper bound ${u[i]}`);
  for (let j = 0; j < n; j++) {
    xl[j] = model.lowerBound ? model.lowerBound[j]! : Number.NEGATIVE_INFINITY;
    xu[j] = model.upperBound ? model.upperBound[j]! : Number.POSITIVE_INFINITY;
    lowSource[j] = model.lowerBound && xl[j] !== Number.NEGATIVE_INFINITY ? BOUND_EXPLICIT : BOUND_NONE;
    upSource[j] = model.upperBound && xu[j] !== Number.POSITIVE_INFINITY ? BOUND_EXPLICIT : BOUND_NONE;
    if (xl[j]! > xu[j]!) diagnosis.push(`bounds[${j}]: lower bound ${xl[j]} > upper bound ${xu[j]}`);
  }
  const { singletonRow, singletonCol, singletonCoef } = model;
  for (let t = 0; t < singletonRow.length; t++) {
    const r = singletonRow[t]!;
    const j = singletonCol[t]!;
    const a = singletonCoef[t]!;
    const lo = a > 0 ? l[r]! / a : u[r]! / a;
    const hi = a > 0 ? u[r]! / a : l[r]! / a;
    if (lo > xl[j]!) {
      xl[j] = lo;
      lowSource[j] = t;
    }
    if (hi < xu[j]!) {
      xu[j] = hi;
      upSource[j] = t;
    }
  }
  for (let j = 0; j < n; j++) {
    if (xl[j]! > xu[j]! && (lowSource[j]! >= 0 || upSource[j]! >= 0))
      diagnosis.push(
        `x[${j}]: its bounds (from ${sourceName(model, lowSource[j]!)} and ${sourceName(model, upSource[j]!)}) cross: ${xl[j]} > ${xu[j]}`,
      );
  }
  for (const r of model.emptyRows)
    if (l[r]! > 0 || u[r]! < 0)
      diagnosis.push(`row ${r} has no nonzero coefficient but requires ${l[r]} <= 0 <= ${u[r]}`);
  const { generalRows, lg, ug } = model;
  for (let g = 0; g < generalRows.length; g++) {
    lg[g] = l[generalRows[g]!]!;
    ug[g] = u[generalRows[g]!]!;
  }
  model.diagnosis = diagnosis;
}

function sourceName(model: QpModel, source: number): string {
  if (source === BOUND_EXPLICIT) return "bounds";
  if (source === BOUND_NONE) return "none";
  return `row ${model.singletonRow[source]}`;
}

/**
 * Distributes bound multipliers z (z_j > 0 at an active upper bound, < 0 at a lower one) back to the
 * explicit bounds and the singleton rows they came from: y[row] += z_j / a, yBounds[j] += z_j.
 */
export function mapBoundMultipliers(
  model: QpModel,
  z: Float64Array,
  y: Float64Array,
  yBounds: Float64Array,
): void {
  for (let j = 0; j < model.n; j++) {
    const zj = z[j]!;
    if (zj === 0) continue;
    const src = zj > 0 ? model.upSource[j]! : model.lowSource[j]!;
    if (src === BOUND_EXPLICIT) yBounds[j]! += zj;
    else if (src >= 0) y[model.singletonRow[src]!]! += zj / model.singletonCoef[src]!;
    else if (model.hasExplicitBounds) yBounds[j]! += zj;
  }
}
