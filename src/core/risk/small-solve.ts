/**
 * @module core/risk/small-solve
 * Solves of small symmetric positive (semi)definite systems (normal equations of regressions with at most a
 * few dozen unknowns). Internal to the risk folder.
 */

import { symmetricEigen } from "../numeric/eigen.js";

/**
 * Solves A x = b for a symmetric m x m matrix A that should be positive definite: Cholesky A = L L'
 * (Golub & Van Loan Alg. 4.2.1) when every pivot exceeds `1e-12 * max diag`, otherwise the minimum-norm
 * least-squares solution through the eigendecomposition (pseudo-inverse, eigenvalues below
 * 1e-12 * lambda_max treated as zero), so rank-deficient designs give finite, well-defined answers.
 * Neither A nor b is modified. `singular` says which path was taken.
 */
export function solveSymmetricSystem(
  A: Float64Array,
  m: number,
  b: Float64Array,
): { x: Float64Array; singular: boolean } {
  const L = new Float64Array(m * m);
  let maxDiag = 0;
  for (let i = 0; i < m; i++) maxDiag = Math.max(maxDiag, A[i * m + i]!);
  const tiny = 1e-12 * maxDiag;
  let ok = maxDiag > 0;
  for (let j = 0; j < m && ok; j++) {
    let d = A[j * m + j]!;
    for (let p = 0; p < j; p++) d -= L[j * m + p]! ** 2;
    if (!(d > tiny)) {
      ok = false;
      break;
    }
    const ljj = Math.sqrt(d);
    L[j * m + j] = ljj;
    for (let i = j + 1; i < m; i++) {
      let s = A[i * m + j]!;
      for (let p = 0; p < j; p++) s -= L[i * m + p]! * L[j * m + p]!;
      L[i * m + j] = s / ljj;
    }
  }
  const x = new Float64Array(m);
  if (ok) {
    // Forward then backward substitution.
    for (let i = 0; i < m; i++) {
      let s = b[i]!;
      for (let p = 0; p < i; p++) s -= L[i * m + p]! * x[p]!;
      x[i] = s / L[i * m + i]!;
    }
    for (let i = m - 1; i >= 0; i--) {
      let s = x[i]!;
      for (let p = i + 1; p < m; p++) s -= L[p * m + i]! * x[p]!;
      x[i] = s / L[i * m + i]!;
    }
    return { x, singular: false };
  }
  if (m === 0) return { x, singular: true };
  const eig = symmetricEigen({ rows: m, cols: m, data: A }, { order: "descending", symmetryTolerance: 1e-8 });
  const cutoff = 1e-12 * Math.max(eig.values[0]!, 0);
  const Q = eig.vectors!;
  for (let j = 0; j < m; j++) {
    const lambda = eig.values[j]!;
    if (!(lambda > cutoff)) continue;
    let c = 0;
    for (let i = 0; i < m; i++) c += Q[i * m + j]! * b[i]!;
    c /= lambda;
    for (let i = 0; i < m; i++) x[i]! += c * Q[i * m + j]!;
  }
  return { x, singular: true };
}
