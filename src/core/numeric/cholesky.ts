/**
 * @module core/numeric/cholesky
 * Dense Cholesky factorization A = L L' of a symmetric positive definite matrix, reporting
 * `positiveDefinite` instead of throwing (as ml-matrix's CholeskyDecomposition does). The in-place
 * kernels work on the lower triangle of a row-major buffer and are what the QP solver calls in its hot
 * loops; {@link choleskyDecomposition} is the convenient, non-mutating entry point.
 *
 * Algorithm: the row-oriented Cholesky-Banachiewicz recurrence
 *   L_jj = sqrt(A_jj - sum_{p<j} L_jp^2),  L_ij = (A_ij - sum_{p<j} L_ip L_jp) / L_jj  (i > j),
 * Golub & Van Loan, "Matrix Computations", 4th ed., Algorithm 4.2.1 (row-wise variant).
 */
import { type DenseMatrix, denseMatrix } from "./dense-matrix.js";

/**
 * Overwrites the lower triangle of the `n x n` row-major matrix in `a` (row stride `stride`) with its
 * Cholesky factor L. Only the lower triangle is read. Returns false (leaving `a` partly overwritten) as
 * soon as a pivot is not positive or not finite, i.e. when the matrix is not numerically positive definite.
 *
 * @example
 * const a = Float64Array.of(4, 0, 2, 5); // [[4, 2], [2, 5]] (lower triangle read)
 * choleskyFactorInPlace(a, 2); // true; a = [2, 0, 1, 2]
 */
export function choleskyFactorInPlace(a: Float64Array, n: number, stride: number = n): boolean {
  for (let i = 0; i < n; i++) {
    const ri = i * stride;
    for (let j = 0; j <= i; j++) {
      const rj = j * stride;
      let s = a[ri + j]!;
      for (let p = 0; p < j; p++) s -= a[ri + p]! * a[rj + p]!;
      if (i === j) {
        // `!(s > 0)` also rejects NaN.
        if (!(s > 0) || !Number.isFinite(s)) return false;
        a[ri + i] = Math.sqrt(s);
      } else {
        a[ri + j] = s / a[rj + j]!;
      }
    }
  }
  return true;
}

/**
 * Solves `L L' x = b` in place (b becomes x), where the lower triangle of `l` (row stride `stride`)
 * holds a Cholesky factor from {@link choleskyFactorInPlace}.
 *
 * @example
 * const l = Float64Array.of(2, 0, 1, 2);
 * const b = Float64Array.of(6, 12);
 * choleskySolveInPlace(l, 2, b); // b = [0.375, 2.25], the solution of [[4, 2], [2, 5]] x = [6, 12]
 */
export function choleskySolveInPlace(l: Float64Array, n: number, b: Float64Array, stride: number = n): void {
  // Forward substitution L z = b.
  for (let i = 0; i < n; i++) {
    const ri = i * stride;
    let s = b[i]!;
    for (let p = 0; p < i; p++) s -= l[ri + p]! * b[p]!;
    b[i] = s / l[ri + i]!;
  }
  // Back substitution L' x = z, walking L by rows (column access of L').
  for (let i = n - 1; i >= 0; i--) {
    const ri = i * stride;
    const xi = b[i]! / l[ri + i]!;
    b[i] = xi;
    for (let p = 0; p < i; p++) b[p]! -= l[ri + p]! * xi;
  }
}

/** Result of {@link choleskyDecomposition}. */
export interface CholeskyDecomposition {
  /** False when a pivot was not positive: the matrix is not (numerically) positive definite. */
  readonly positiveDefinite: boolean;
  /** The lower-triangular factor L (zeros above the diagonal); partial when not positive definite. */
  readonly lower: DenseMatrix;
  /**
   * Solves `A x = b` with the factor.
   *
   * @throws {RangeError} when the matrix is not positive definite or `b` has the wrong length.
   */
  solve(b: Float64Array, out?: Float64Array): Float64Array;
}

/**
 * Cholesky factorization of a symmetric positive definite matrix (only its lower triangle is read; the
 * input is not mutated).
 *
 * @throws {RangeError} when the matrix is not square.
 * @example
 * const chol = choleskyDecomposition(denseMatrix(2, 2, Float64Array.of(4, 2, 2, 5)));
 * chol.positiveDefinite; // true
 * chol.solve(Float64Array.of(6, 12)); // [0.375, 2.25]
 */
export function choleskyDecomposition(matrix: DenseMatrix): CholeskyDecomposition {
  const n = matrix.rows;
  if (matrix.cols !== n)
    throw new RangeError(
      `choleskyDecomposition: matrix must be square, got ${matrix.rows} x ${matrix.cols}.`,
    );
  const l = new Float64Array(n * n);
  for (let i = 0; i < n; i++) for (let j = 0; j <= i; j++) l[i * n + j] = matrix.data[i * n + j]!;
  const positiveDefinite = choleskyFactorInPlace(l, n);
  if (!positiveDefinite) {
    // Zero what the failed factorization left above the diagonal for a clean partial factor.
    for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) l[i * n + j] = 0;
  }
  const lower = denseMatrix(n, n, l);
  return {
    positiveDefinite,
    lower,
    solve(b: Float64Array, out?: Float64Array): Float64Array {
      if (!positiveDefinite)
        throw new RangeError("choleskyDecomposition.solve: the matrix is not positive definite.");
      if (b.length !== n)
        throw new RangeError(`choleskyDecomposition.solve: b has length ${b.length}, expected ${n}.`);
      const x = out ?? new Float64Array(n);
      if (x.length !== n)
        throw new RangeError(`choleskyDecomposition.solve: out has length ${x.length}, expected ${n}.`);
      x.set(b);
      choleskySolveInPlace(l, n, x);
      return x;
    },
  };
}
