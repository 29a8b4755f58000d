/**
 * @module core/risk/cross-sectional-regression
 * One period of a fundamental factor model: factor returns by weighted least squares of asset returns on
 * [market | industry dummies | style exposures], with the industry/market collinearity removed by the
 * constraint that the cap-weighted industry factor returns sum to zero (Heston & Rouwenhorst, J. Financial
 * Economics 36, 1994; Menchero, Orr & Wang, "The Barra US Equity Model (USE4) Methodology Notes", 2011),
 * imposed by substitution (restricted least squares with a restriction matrix).
 */

import { solveSymmetricSystem } from "./small-solve.js";

/** The cross-section of one period, over the m assets that have a return. */
export interface CrossSection {
  /** m asset returns. */
  returns: Float64Array;
  /** m regression weights v_i > 0 (sqrt of market cap in the characteristics model). */
  weights: Float64Array;
  /** m industry indices in [0, industryCount), or -1 for an asset with no industry. */
  industry: Int32Array;
  /** Number of industry factors S. */
  industryCount: number;
  /** m x c row-major style exposures. */
  styles: Float64Array;
  /** Number of style factors c. */
  styleCount: number;
  /**
   * S constraint weights W_s (the cap share of each industry): the solution satisfies sum_s W_s f_s = 0.
   * An industry with W_s = 0 (no member this period) gets f_s = 0.
   */
  constraintWeights: Float64Array;
}

/** Result of {@link crossSectionalRegression}. */
export interface CrossSectionFit {
  /** 1 + S + c factor returns: market, industries, styles. */
  factorReturns: Float64Array;
  /** m residuals r_i - x_i' f. */
  residuals: Float64Array;
  /** Weighted R^2 = 1 - sum v e^2 / sum v (r - weighted mean r)^2 (0 when the returns have no dispersion). */
  rSquared: number;
  /** True when the normal equations were singular and the minimum-norm solution was used. */
  singular: boolean;
}

/**
 * Constrained weighted least squares of one cross-section:
 *
 *   minimize sum_i v_i (r_i - f_0 - f_{s(i)} - sum_j z_ij g_j)^2   subject to   sum_s W_s f_s = 0.
 *
 * The constraint is imposed by eliminating the industry with the largest W_s (f_ref = -sum_{s != ref} W_s f_s /
 * W_ref, the restriction-matrix method), so the reduced normal equations are nonsingular when the design has
 * full rank. With cap weights W, the market factor is the return of the cap-weighted industry-neutral
 * portfolio. The normal matrix is accumulated from the one-hot industry structure in O(m c^2).
 *
 * @throws {RangeError} on inconsistent lengths.
 * @example
 * const fit = crossSectionalRegression({ returns, weights, industry, industryCount: 11, styles, styleCount: 3, constraintWeights });
 */
export function crossSectionalRegression(cs: CrossSection): CrossSectionFit {
  const m = cs.returns.length;
  const S = cs.industryCount;
  const c = cs.styleCount;
  if (
    cs.weights.length !== m ||
    cs.industry.length !== m ||
    cs.styles.length !== m * c ||
    cs.constraintWeights.length !== S
  ) {
    throw new RangeError(
      `crossSectionalRegression: inconsistent lengths (returns ${m}, weights ${cs.weights.length}, industry ${cs.industry.length}, styles ${cs.styles.length} for ${c} styles, constraintWeights ${cs.constraintWeights.length} for ${S} industries).`,
    );
  }
  const K = 1 + S + c;
  // Full normal matrix M = X'VX and q = X'Vr, exploiting the one-hot industry columns.
  const M = new Float64Array(K * K);
  const q = new Float64Array(K);
  const st = 1 + S; // first style column
  for (let i = 0; i < m; i++) {
    const v = cs.weights[i]!;
    const r = cs.returns[i]!;
    const s = cs.industry[i]!;
    const row = i * c;
    M[0]! += v;
    q[0]! += v * r;
    if (s >= 0) {
      const col = 1 + s;
      M[col * K]! += v;
      M[col * K + col]! += v;
      q[col]! += v * r;
      for (let a = 0; a < c; a++) M[(st + a) * K + col]! += v * cs.styles[row + a]!;
    }
    for (let a = 0; a < c; a++) {
      const za = v * cs.styles[row + a]!;
      q[st + a]! += za * r;
      M[(st + a) * K]! += za;
      for (let b = 0; b <= a; b++) M[(st + a) * K + st + b]! += za * cs.styles[row + b]!;
    }
  }
  for (let a = 0; a < K; a++) for (let b = 0; b < a; b++) M[b * K + a] = M[a * K + b]!;

  // Restriction matrix R (K x Kr): full f = R g.
  let ref = -1;
  for (let s = 0; s < S; s++) {
    if (cs.constraintWeights[s]! > 0 && (ref < 0 || cs.constraintWeights[s]! > cs.constraintWeights[ref]!))
      ref = s;
  }
  const columns: Array<Array<[number, number]>> = [[[0, 1]]];
  for (let s = 0; s < S; s++) {
    if (s === ref || !(cs.constraintWeights[s]! > 0)) continue;
    columns.push([
      [1 + s, 1],
      [1 + ref, -cs.constraintWeights[s]! / cs.constraintWeights[ref]!],
    ]);
  }
  for (let a = 0; a < c; a++) columns.push([[st + a, 1]]);
  const Kr = columns.length;
  const Mr = new Float64Array(Kr * Kr);
  const qr = new Float64Array(Kr);
  for (let a = 0; a < Kr; a++) {
    for (const [ia, va] of columns[a]!) qr[a]! += va * q[ia]!;
    for (let b = 0; b <= a; b++) {
      let s = 0;
      for (const [ia, va] of columns[a]!) for (const [ib, vb] of columns[b]!) s += va * vb * M[ia * K + ib]!;
      Mr[a * Kr + b] = s;
      Mr[b * Kr + a] = s;
    }
  }
  const { x: g, singular } = solveSymmetricSystem(Mr, Kr, qr);
  const f = new Float64Array(K);
  for (let a = 0; a < Kr; a++) for (const [ia, va] of columns[a]!) f[ia]! += va * g[a]!;

  const residuals = new Float64Array(m);
  let sw = 0;
  let swr = 0;
  for (let i = 0; i < m; i++) {
    sw += cs.weights[i]!;
    swr += cs.weights[i]! * cs.returns[i]!;
  }
  const meanR = sw > 0 ? swr / sw : 0;
  let sse = 0;
  let sst = 0;
  for (let i = 0; i < m; i++) {
    let fit = f[0]!;
    const s = cs.industry[i]!;
    if (s >= 0) fit += f[1 + s]!;
    const row = i * c;
    for (let a = 0; a < c; a++) fit += cs.styles[row + a]! * f[st + a]!;
    const e = cs.returns[i]! - fit;
    residuals[i] = e;
    sse += cs.weights[i]! * e * e;
    sst += cs.weights[i]! * (cs.returns[i]! - meanR) ** 2;
  }
  return { factorReturns: f, residuals, rSquared: sst > 0 ? 1 - sse / sst : 0, singular };
}
