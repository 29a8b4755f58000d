/**
 * @module core/risk/psd-repair
 * Projection of a symmetric matrix onto the positive-semidefinite cone by eigenvalue clipping
 * (Higham, "Computing a nearest symmetric positive semidefinite matrix", Linear Algebra Appl. 103, 1988:
 * for the Frobenius norm the nearest PSD matrix clips negative eigenvalues; cvxportfolio's
 * `project_on_psd_cone_and_factorize` does the same). Clipping to a small positive floor instead of 0 also
 * bounds the condition number.
 */

import { symmetricEigen } from "../numeric/eigen.js";
import type { PsdRepairReport } from "./types.js";

/** Default floor of the eigenvalues, relative to the largest one. */
export const DEFAULT_PSD_RELATIVE_FLOOR = 1e-10;

/** Options of {@link repairPsd}. */
export interface PsdRepairOptions {
  /**
   * Eigenvalues below `relativeFloor * max(lambda_max, 0)` (or `absoluteFloor`, if larger) are raised to
   * that floor.
   * @default 1e-10
   */
  relativeFloor?: number;
  /**
   * Absolute floor for the eigenvalues.
   * @default 0
   */
  absoluteFloor?: number;
  /**
   * Label put in the report.
   * @default "covariance"
   */
  matrix?: PsdRepairReport["matrix"];
}

/** Result of {@link repairPsd}: the (possibly) repaired matrix and what was done. */
export interface PsdRepairResult {
  /** n x n symmetric matrix with every eigenvalue >= report.floor (a fresh array, never the input). */
  matrix: Float64Array;
  /** The check and what it changed. */
  report: PsdRepairReport;
}

/**
 * Makes a symmetric matrix positive semidefinite by eigenvalue clipping:
 * A = Q diag(lambda) Q'  ->  Q diag(max(lambda, floor)) Q', floor = max(absoluteFloor, relativeFloor * lambda_max).
 * When no eigenvalue is below the floor the input is returned unchanged (copied) and `clippedCount` is 0.
 *
 * @param matrix n x n row-major, symmetric (checked to 1e-10 relative); not modified.
 * @throws {RangeError} on a wrong length, a negative floor, or an asymmetric matrix.
 * @throws {NonFiniteError} on NaN or infinite entries.
 * @example
 * // [[1, 2], [2, 1]] has eigenvalues 3 and -1: the repair clips -1 to 3e-10 and reports it.
 * const { report } = repairPsd(Float64Array.of(1, 2, 2, 1), 2);
 * // report.clippedCount === 1, report.minEigenvalueBefore === -1
 */
export function repairPsd(matrix: Float64Array, n: number, options: PsdRepairOptions = {}): PsdRepairResult {
  if (!Number.isInteger(n) || n < 0 || matrix.length !== n * n) {
    throw new RangeError(
      `repairPsd: expected an ${n} x ${n} matrix (length ${n * n}), got length ${matrix.length}.`,
    );
  }
  const relativeFloor = options.relativeFloor ?? DEFAULT_PSD_RELATIVE_FLOOR;
  const absoluteFloor = options.absoluteFloor ?? 0;
  checkFloors("repairPsd", relativeFloor, absoluteFloor);
  const label = options.matrix ?? "covariance";
  if (n === 0) {
    return {
      matrix: new Float64Array(0),
      report: {
        matrix: label,
        size: 0,
        minEigenvalueBefore: 0,
        maxEigenvalue: 0,
        clippedCount: 0,
        floor: 0,
        frobeniusChange: 0,
      },
    };
  }
  const eig = symmetricEigen({ rows: n, cols: n, data: matrix }, { order: "descending" });
  const { values: repaired, report } = clipSpectrum(eig.values, {
    relativeFloor,
    absoluteFloor,
    matrix: label,
  });
  const clipped = report.clippedCount;
  if (clipped === 0) return { matrix: Float64Array.from(matrix), report };
  // Rebuild Q diag(repaired) Q' and symmetrize away rounding.
  const q = eig.vectors!;
  const out = new Float64Array(n * n);
  const scaled = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) scaled[j] = q[i * n + j]! * repaired[j]!;
    for (let l = 0; l <= i; l++) {
      let s = 0;
      const rowL = l * n;
      for (let j = 0; j < n; j++) s += scaled[j]! * q[rowL + j]!;
      out[i * n + l] = s;
      out[l * n + i] = s;
    }
  }
  return { matrix: out, report };
}

/** Throws RangeError unless both floors are finite and >= 0. */
export function checkFloors(fn: string, relativeFloor: number, absoluteFloor: number): void {
  if (!(relativeFloor >= 0) || !(absoluteFloor >= 0) || !Number.isFinite(relativeFloor + absoluteFloor)) {
    throw new RangeError(
      `${fn}: PSD floors must be finite and >= 0, got relativeFloor ${relativeFloor}, absoluteFloor ${absoluteFloor}.`,
    );
  }
}

/**
 * Clips a spectrum sorted in descending order to the floor of {@link repairPsd} and reports it
 * (shared by {@link repairPsd} and the builders that already hold an eigendecomposition).
 */
export function clipSpectrum(
  descending: Float64Array,
  options: { relativeFloor: number; absoluteFloor: number; matrix: PsdRepairReport["matrix"] },
): { values: Float64Array; report: PsdRepairReport } {
  const n = descending.length;
  const lambdaMax = n > 0 ? descending[0]! : 0;
  const lambdaMin = n > 0 ? descending[n - 1]! : 0;
  const floor = Math.max(options.absoluteFloor, options.relativeFloor * Math.max(lambdaMax, 0));
  let clipped = 0;
  let changeSq = 0;
  const values = new Float64Array(n);
  for (let j = 0; j < n; j++) {
    const v = descending[j]!;
    if (v < floor) {
      clipped++;
      changeSq += (floor - v) ** 2;
      values[j] = floor;
    } else values[j] = v;
  }
  return {
    values,
    report: {
      matrix: options.matrix,
      size: n,
      minEigenvalueBefore: lambdaMin,
      maxEigenvalue: lambdaMax,
      clippedCount: clipped,
      floor,
      frobeniusChange: Math.sqrt(changeSq),
    },
  };
}

/**
 * PSD check and repair of a symmetric k x k factor covariance, with a note when something was clipped
 * (shared by the custom, vendor and characteristics builders).
 */
export function repairFactorCovariance(
  sym: Float64Array,
  k: number,
  relativeFloor: number,
  absoluteFloor: number,
): { matrix: Float64Array; report: PsdRepairReport; notes: string[] } {
  const eig = symmetricEigen({ rows: k, cols: k, data: sym }, { order: "descending" });
  const { values, report } = clipSpectrum(eig.values, {
    relativeFloor,
    absoluteFloor,
    matrix: "factor_covariance",
  });
  const notes: string[] = [];
  if (report.clippedCount === 0) return { matrix: Float64Array.from(sym), report, notes };
  notes.push(
    `Factor covariance was not positive definite (min eigenvalue ${report.minEigenvalueBefore}); ` +
      `${report.clippedCount} eigenvalue(s) clipped to ${report.floor} (Frobenius change ${report.frobeniusChange}).`,
  );
  const Q = eig.vectors!;
  const matrix = new Float64Array(k * k);
  for (let a = 0; a < k; a++) {
    for (let b = 0; b <= a; b++) {
      let s = 0;
      for (let j = 0; j < k; j++) s += Q[a * k + j]! * values[j]! * Q[b * k + j]!;
      matrix[a * k + b] = s;
      matrix[b * k + a] = s;
    }
  }
  return { matrix, report, notes };
}
