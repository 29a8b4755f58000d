/**
 * @module core/risk/pca-model
 * `risk_model_name: pca`: a statistical factor model from trailing returns (principal components of the
 * sample covariance). When there are fewer periods than assets the components come from the T x T Gram matrix
 * (Connor & Korajczyk, "Performance measurement with the arbitrage pricing theory", J. Financial Economics 15,
 * 1986), so the cost is O(min(T, n)^2 max(T, n)) for the cross products plus O(min(T, n)^3) for the eigenproblem.
 */

import { DataError } from "../errors.js";
import { symmetricEigen } from "../numeric/eigen.js";
import { periodsPerYear, type ReturnFrequency } from "./annualization.js";
import { assertNoInfinity, assertUnique, listForMessage } from "./checks.js";
import { clipSpectrum, DEFAULT_PSD_RELATIVE_FLOOR } from "./psd-repair.js";
import { solveSymmetricSystem } from "./small-solve.js";
import type { FactorModel } from "./types.js";

/** Returns per period for a set of assets, T x n row-major: `returns[t * n + i]`; NaN marks a missing return. */
export interface ReturnHistory {
  /** The n assets (theme_asset_ids). */
  assets: string[];
  /** T x n simple returns (fractions), period t in row t, oldest first. */
  returns: Float64Array;
}

/** Options of {@link buildPcaRiskModel}. */
export interface PcaRiskModelOptions {
  /**
   * Number of principal components kept as factors. When not given it is min(10, n, T - 2) (a note records a
   * reduction); an explicit value above min(n, T - 2) is an error.
   * @default 10
   */
  numFactors?: number;
  /**
   * Frequency of the returns; variances are multiplied by its periods per year.
   * @default "daily"
   */
  frequency?: ReturnFrequency | number;
  /**
   * Shrinkage of the specific variances toward their cross-sectional mean: a fixed intensity in [0, 1], or
   * "ledoit-wolf" for the data-driven intensity (see {@link buildPcaRiskModel}).
   * @default "ledoit-wolf"
   */
  specificShrinkage?: number | "ledoit-wolf";
  /**
   * Fewest observed returns an asset needs (at least numFactors + 2 in any case).
   * @default min(20, T)
   */
  minObservations?: number;
}

/** Default number of statistical factors. */
export const DEFAULT_PCA_FACTORS = 10;

/**
 * Builds the `pca` risk model from a return history.
 *
 * 1. Demean each asset over its observed periods; a missing return becomes 0 after demeaning (the asset's own
 *    mean), which keeps the cross-product matrix positive semidefinite (pairwise-complete covariances do not).
 *    Z is the T x n matrix of demeaned returns, C = Z'Z / (T - 1).
 * 2. The k leading eigenpairs of C: from C itself when n <= T, else from the Gram matrix G = Z Z' / (T - 1),
 *    which has the same nonzero eigenvalues; loadings u_j = Z' v_j / sqrt((T - 1) lambda_j).
 * 3. Factor returns f_j = Z u_j (mean 0, variance lambda_j, mutually uncorrelated), so F = diag(lambda).
 * 4. Exposures: X_i = u_i for complete assets; for an asset with missing returns, the least-squares
 *    regression of its observed returns on the factor returns over its observed periods (the zero-filled
 *    loading would be biased toward 0 by the missing share).
 * 5. Specific variance s_i^2 = sum of squared residuals / (n_i - 1) over the n_i observed periods (for complete
 *    data this is exactly diag(C - U diag(lambda) U'), so each asset's total variance equals its sample
 *    variance), then shrunk toward the cross-sectional mean m: D_i = (1 - delta) s_i^2 + delta m with
 *    delta = min(1, sum_i Var(s_i^2) / sum_i (s_i^2 - m)^2), Var(s_i^2) estimated by
 *    (1/n_i^2) sum_t (e_ti^2 - mean_t e_ti^2)^2 (the Ledoit & Wolf 2004 intensity, "A well-conditioned
 *    estimator for large-dimensional covariance matrices", applied to the diagonal).
 * 6. F and D are multiplied by the periods per year of `frequency`.
 *
 * Factors are named pc1..pck; each is signed so that the sum of its loadings is positive (pc1 is then the
 * "market" component with positive exposures).
 *
 * @throws {RangeError} on a returns length that is not a multiple of n, fewer than 2 periods, or bad options.
 * @throws {NonFiniteError} on an infinite return. @throws {ValidationError} on duplicate assets.
 * @throws {DataError} (code `insufficient_history`) naming assets with too few observed returns.
 * @example
 * const model = buildPcaRiskModel({ assets, returns }, { numFactors: 5, frequency: "daily" });
 */
export function buildPcaRiskModel(history: ReturnHistory, options: PcaRiskModelOptions = {}): FactorModel {
  const fn = "buildPcaRiskModel";
  const { assets, returns } = history;
  const n = assets.length;
  assertUnique(fn, "asset", assets);
  if (n === 0) throw new RangeError(`${fn}: the return history has no assets.`);
  if (returns.length % n !== 0) {
    throw new RangeError(`${fn}: returns has length ${returns.length}, not a multiple of ${n} assets.`);
  }
  const T = returns.length / n;
  if (T < 3) throw new RangeError(`${fn}: need at least 3 periods of returns, got ${T}.`);
  assertNoInfinity(fn, "returns", returns, (i) => `period ${Math.floor(i / n)}, ${assets[i % n]}`);
  const annualization = periodsPerYear(options.frequency ?? "daily");
  // Each asset needs at least k + 2 observations (mean, k exposures, one residual degree of freedom).
  const maxFactors = Math.max(Math.min(n, T - 2), 0);
  const notes: string[] = [];
  let k: number;
  if (options.numFactors === undefined) {
    k = Math.min(DEFAULT_PCA_FACTORS, maxFactors);
    if (k < DEFAULT_PCA_FACTORS) {
      notes.push(`Using ${k} factors instead of ${DEFAULT_PCA_FACTORS}: min(n, T - 2) = ${maxFactors}.`);
    }
  } else {
    k = options.numFactors;
    if (!Number.isInteger(k) || k < 1 || k > maxFactors) {
      throw new RangeError(
        `${fn}: numFactors must be an integer in [1, min(n, T - 2) = ${maxFactors}], got ${k}.`,
      );
    }
  }
  const shrinkage = options.specificShrinkage ?? "ledoit-wolf";
  if (shrinkage !== "ledoit-wolf" && !(shrinkage >= 0 && shrinkage <= 1)) {
    throw new RangeError(
      `${fn}: specificShrinkage must be "ledoit-wolf" or a number in [0, 1], got ${shrinkage}.`,
    );
  }
  const minObservations = Math.max(options.minObservations ?? Math.min(20, T), k + 2);
  if (!Number.isFinite(minObservations)) throw new RangeError(`${fn}: minObservations must be finite.`);

  // 1. Means over observed periods, demeaned and zero-filled Z (T x n).
  const count = new Int32Array(n);
  const mean = new Float64Array(n);
  let missing = 0;
  for (let t = 0; t < T; t++) {
    const row = t * n;
    for (let i = 0; i < n; i++) {
      const r = returns[row + i]!;
      if (Number.isNaN(r)) missing++;
      else {
        count[i]!++;
        mean[i]! += r;
      }
    }
  }
  const short: string[] = [];
  for (let i = 0; i < n; i++) {
    if (count[i]! < minObservations) short.push(`${assets[i]} (${count[i]})`);
    else mean[i]! /= count[i]!;
  }
  if (short.length > 0) {
    throw new DataError(
      `${fn}: ${short.length} asset(s) have fewer than ${minObservations} observed returns: ${listForMessage(short)}. ` +
        "Import more price history, lower minObservations, or use the characteristics risk model for them.",
      { code: "insufficient_history" },
    );
  }
  const Z = new Float64Array(T * n);
  for (let t = 0; t < T; t++) {
    const row = t * n;
    for (let i = 0; i < n; i++) {
      const r = returns[row + i]!;
      Z[row + i] = Number.isNaN(r) ? 0 : r - mean[i]!;
    }
  }
  let trace = 0;
  for (let i = 0; i < T * n; i++) trace += Z[i]! * Z[i]!;
  trace /= T - 1;

  // 2-3. Leading eigenpairs, loadings U (n x k) and factor returns Fr (T x k).
  const useGram = T < n;
  let U: Float64Array;
  let Fr: Float64Array;
  let lambda: Float64Array;
  if (!useGram) {
    const Zt = transpose(Z, T, n);
    const C = rowGram(Zt, n, T, 1 / (T - 1));
    const eig = symmetricEigen({ rows: n, cols: n, data: C }, { order: "descending", count: k });
    lambda = eig.values;
    U = eig.vectors!;
    Fr = multiply(Z, T, n, U, k);
  } else {
    const G = rowGram(Z, T, n, 1 / (T - 1));
    const eig = symmetricEigen({ rows: T, cols: T, data: G }, { order: "descending", count: k });
    lambda = eig.values;
    const V = eig.vectors!;
    Fr = new Float64Array(T * k);
    for (let j = 0; j < k; j++) {
      const root = Math.sqrt(Math.max(lambda[j]!, 0) * (T - 1));
      for (let t = 0; t < T; t++) Fr[t * k + j] = root * V[t * k + j]!;
    }
    // U = Z' Fr diag(1 / ((T - 1) lambda)).
    U = new Float64Array(n * k);
    for (let t = 0; t < T; t++) {
      const zRow = t * n;
      const fRow = t * k;
      for (let i = 0; i < n; i++) {
        const z = Z[zRow + i]!;
        if (z === 0) continue;
        const uRow = i * k;
        for (let j = 0; j < k; j++) U[uRow + j]! += z * Fr[fRow + j]!;
      }
    }
    for (let j = 0; j < k; j++) {
      const inv = lambda[j]! > 0 ? 1 / ((T - 1) * lambda[j]!) : 0;
      for (let i = 0; i < n; i++) U[i * k + j]! *= inv;
    }
  }

  // Keep components above the PSD floor (a rank-deficient history has zero eigenvalues).
  const floor = DEFAULT_PSD_RELATIVE_FLOOR * Math.max(lambda[0]!, 0);
  let kept = k;
  while (kept > 0 && !(lambda[kept - 1]! > floor)) kept--;
  if (kept < k) {
    notes.push(`Dropped ${k - kept} component(s) with zero variance: the return history has rank ${kept}.`);
    U = takeColumns(U, n, k, kept);
    Fr = takeColumns(Fr, T, k, kept);
    lambda = lambda.slice(0, kept);
    k = kept;
  }
  if (k === 0) {
    throw new DataError(`${fn}: the return history has no variance (every demeaned return is 0).`, {
      code: "insufficient_history",
    });
  }

  // Sign convention: loadings of each component sum to a positive number.
  for (let j = 0; j < k; j++) {
    let sum = 0;
    for (let i = 0; i < n; i++) sum += U[i * k + j]!;
    if (sum < 0) {
      for (let i = 0; i < n; i++) U[i * k + j] = -U[i * k + j]!;
      for (let t = 0; t < T; t++) Fr[t * k + j] = -Fr[t * k + j]!;
    }
  }

  // 4. Exposures: regression on observed periods for assets with gaps.
  const X = Float64Array.from(U);
  let regressed = 0;
  for (let i = 0; i < n; i++) {
    if (count[i] === T) continue;
    regressed++;
    const A = new Float64Array(k * k);
    const b = new Float64Array(k);
    for (let t = 0; t < T; t++) {
      if (Number.isNaN(returns[t * n + i]!)) continue;
      const z = Z[t * n + i]!;
      const fRow = t * k;
      for (let a = 0; a < k; a++) {
        const fa = Fr[fRow + a]!;
        b[a]! += fa * z;
        for (let c = 0; c <= a; c++) A[a * k + c]! += fa * Fr[fRow + c]!;
      }
    }
    for (let a = 0; a < k; a++) for (let c = 0; c < a; c++) A[c * k + a] = A[a * k + c]!;
    const { x } = solveSymmetricSystem(A, k, b);
    X.set(x, i * k);
  }
  if (regressed > 0) {
    notes.push(
      `${regressed} asset(s) with missing returns got exposures by regression on their observed periods.`,
    );
  }

  // 5. Residual variances and their sampling variances (for the shrinkage intensity).
  const e2Sum = new Float64Array(n);
  const e4Sum = new Float64Array(n);
  for (let t = 0; t < T; t++) {
    const zRow = t * n;
    const fRow = t * k;
    for (let i = 0; i < n; i++) {
      if (Number.isNaN(returns[zRow + i]!)) continue;
      let fit = 0;
      const xRow = i * k;
      for (let j = 0; j < k; j++) fit += Fr[fRow + j]! * X[xRow + j]!;
      const e = Z[zRow + i]! - fit;
      const e2 = e * e;
      e2Sum[i]! += e2;
      e4Sum[i]! += e2 * e2;
    }
  }
  const raw = new Float64Array(n);
  let target = 0;
  for (let i = 0; i < n; i++) {
    raw[i] = e2Sum[i]! / (count[i]! - 1);
    target += raw[i]!;
  }
  target /= n;
  let delta: number;
  if (shrinkage === "ledoit-wolf") {
    let pi = 0;
    let gamma = 0;
    for (let i = 0; i < n; i++) {
      const m = count[i]!;
      const meanE2 = e2Sum[i]! / m;
      // sum_t (e^2 - mean e^2)^2 = sum e^4 - m mean^2.
      const dispersion = Math.max(0, e4Sum[i]! - m * meanE2 * meanE2);
      pi += dispersion / (m * m);
      gamma += (raw[i]! - target) ** 2;
    }
    delta = gamma > 0 ? Math.min(1, pi / gamma) : 1;
  } else delta = shrinkage;

  const specificVariance = new Float64Array(n);
  for (let i = 0; i < n; i++) specificVariance[i] = ((1 - delta) * raw[i]! + delta * target) * annualization;
  const factorCovariance = new Float64Array(k * k);
  let explained = 0;
  for (let j = 0; j < k; j++) {
    factorCovariance[j * k + j] = lambda[j]! * annualization;
    explained += lambda[j]!;
  }
  const { report } = clipSpectrum(lambda, {
    relativeFloor: DEFAULT_PSD_RELATIVE_FLOOR,
    absoluteFloor: 0,
    matrix: "factor_covariance",
  });
  return {
    assets: [...assets],
    factors: Array.from({ length: k }, (_, j) => `pc${j + 1}`),
    exposures: X,
    factorCovariance,
    specificVariance,
    annualization,
    diagnostics: {
      model: "pca",
      periods: T,
      psdRepair: report,
      spectralShift: 0,
      notes,
      explainedVariance: trace > 0 ? explained / trace : 0,
      specificShrinkage: delta,
      missingFraction: missing / (T * n),
    },
  };
}

/** r x c row-major -> c x r row-major. */
function transpose(M: Float64Array, r: number, c: number): Float64Array {
  const out = new Float64Array(r * c);
  for (let i = 0; i < r; i++) {
    const row = i * c;
    for (let j = 0; j < c; j++) out[j * r + i] = M[row + j]!;
  }
  return out;
}

/** M (r x c) times B (c x k), row-major. */
function multiply(M: Float64Array, r: number, c: number, B: Float64Array, k: number): Float64Array {
  const out = new Float64Array(r * k);
  for (let i = 0; i < r; i++) {
    const mRow = i * c;
    const oRow = i * k;
    for (let l = 0; l < c; l++) {
      const m = M[mRow + l]!;
      if (m === 0) continue;
      const bRow = l * k;
      for (let j = 0; j < k; j++) out[oRow + j]! += m * B[bRow + j]!;
    }
  }
  return out;
}

/** The first `keep` columns of an r x k row-major matrix. */
function takeColumns(M: Float64Array, r: number, k: number, keep: number): Float64Array {
  const out = new Float64Array(r * keep);
  for (let i = 0; i < r; i++) for (let j = 0; j < keep; j++) out[i * keep + j] = M[i * k + j]!;
  return out;
}

/**
 * scale * M M' for M r x c row-major: r x r symmetric, each entry a dot product of two contiguous rows.
 * Blocks of 2 x 4 rows share their loads (8 products per 6 loads), which is what bounds this kernel in V8.
 */
function rowGram(M: Float64Array, r: number, c: number, scale: number): Float64Array {
  const out = new Float64Array(r * r);
  const dot = (x: number, y: number): number => {
    let s = 0;
    for (let l = 0; l < c; l++) s += M[x + l]! * M[y + l]!;
    return s;
  };
  let a = 0;
  for (; a + 1 < r; a += 2) {
    const ra = a * c;
    const ra1 = ra + c;
    let b = 0;
    for (; b + 3 <= a; b += 4) {
      const r0 = b * c;
      const r1 = r0 + c;
      const r2 = r1 + c;
      const r3 = r2 + c;
      let s0 = 0;
      let s1 = 0;
      let s2 = 0;
      let s3 = 0;
      let t0 = 0;
      let t1 = 0;
      let t2 = 0;
      let t3 = 0;
      for (let l = 0; l < c; l++) {
        const x = M[ra + l]!;
        const y = M[ra1 + l]!;
        const m0 = M[r0 + l]!;
        const m1 = M[r1 + l]!;
        const m2 = M[r2 + l]!;
        const m3 = M[r3 + l]!;
        s0 += x * m0;
        s1 += x * m1;
        s2 += x * m2;
        s3 += x * m3;
        t0 += y * m0;
        t1 += y * m1;
        t2 += y * m2;
        t3 += y * m3;
      }
      const o = a * r + b;
      const o1 = o + r;
      out[o] = s0 * scale;
      out[o + 1] = s1 * scale;
      out[o + 2] = s2 * scale;
      out[o + 3] = s3 * scale;
      out[o1] = t0 * scale;
      out[o1 + 1] = t1 * scale;
      out[o1 + 2] = t2 * scale;
      out[o1 + 3] = t3 * scale;
    }
    for (let row = a; row <= a + 1; row++) {
      for (let col = b; col <= row; col++) out[row * r + col] = dot(row * c, col * c) * scale;
    }
  }
  for (; a < r; a++) for (let col = 0; col <= a; col++) out[a * r + col] = dot(a * c, col * c) * scale;
  for (let x = 0; x < r; x++) for (let y = 0; y < x; y++) out[y * r + x] = out[x * r + y]!;
  return out;
}
