/**
 * @module core/numeric/eigen
 * Symmetric eigendecomposition A = V diag(lambda) V' on Float64Array.
 *
 * Method (textbook algorithms, written for row-major typed arrays):
 * 1. Householder reduction to tridiagonal form T = Q' A Q (Golub & Van Loan, "Matrix Computations",
 *    4th ed., Algorithm 8.3.1; the same reduction as `tred2` in Numerical Recipes, section 11.2). Only
 *    the lower triangle is updated; the reflectors are kept in the columns they annihilate.
 * 2. Eigenvalues of T by the implicit QL algorithm with Wilkinson-type shifts (Golub & Van Loan 8.3.5;
 *    Numerical Recipes `tqli`, section 11.3).
 * 3. Eigenvectors either
 *    - all of them: the QL plane rotations are accumulated (rows of a transposed buffer, so each rotation
 *      touches two contiguous rows), or
 *    - a few of them (`count` small against n): inverse iteration on T - lambda I with partial pivoting,
 *      perturbation of coincident eigenvalues and Gram-Schmidt inside clusters (the scheme of LAPACK
 *      `dstein`; Golub & Van Loan 8.2.2 and 8.4.2),
 *    then back-transformed by the stored reflectors (O(n^2) per vector).
 *
 * Cost: about (4/3) n^3 flops for the reduction, O(n^2) for the eigenvalues, plus either ~3 n^3 (all
 * vectors) or O(count n^2) (a few vectors). A 1,300 x 1,300 Gram matrix with its top 20 eigenpairs is
 * dominated by the reduction.
 */

import { NonFiniteError, SolverError } from "../errors.js";

/** Which end of the spectrum comes first in a {@link SymmetricEigenResult}. */
export type EigenOrder = "ascending" | "descending";

/** Options of {@link symmetricEigen}. */
export interface SymmetricEigenOptions {
  /**
   * Order of the returned eigenvalues (and of the eigenvector columns).
   * @default "descending"
   */
  order?: EigenOrder;
  /**
   * Number of eigenpairs to return: the `count` largest when `order` is "descending", the `count`
   * smallest when "ascending". Must lie in [0, n].
   * @default n
   */
  count?: number;
  /**
   * Compute eigenvectors. When false only the eigenvalues are returned (O(n^3 * 4/3) work, no vectors).
   * @default true
   */
  vectors?: boolean;
  /**
   * Largest accepted |a_ij - a_ji| relative to max |a_ij|. The decomposition uses (A + A')/2.
   * @default 1e-10
   */
  symmetryTolerance?: number;
  /**
   * How eigenvectors are obtained: "auto" (inverse iteration when 4 * count <= n, else QL accumulation),
   * "ql" (accumulate the QL rotations) or "inverse-iteration".
   * @default "auto"
   */
  vectorMethod?: "auto" | "ql" | "inverse-iteration";
}

/** Result of {@link symmetricEigen}. */
export interface SymmetricEigenResult {
  /** Order of the matrix. */
  n: number;
  /** Number of eigenpairs returned. */
  count: number;
  /** Eigenvalues (length `count`) in the requested order. */
  values: Float64Array;
  /**
   * Eigenvectors as an n x count row-major matrix: column j (entries `vectors[i * count + j]`) is the unit
   * eigenvector of `values[j]`; columns are mutually orthogonal. Signs are normalized so that the entry of
   * largest magnitude of each column is positive (ties: the first one). `null` when `vectors: false`.
   */
  vectors: Float64Array | null;
}

/** Largest number of QL iterations spent on one eigenvalue before giving up. */
const MAX_QL_ITERATIONS = 60;
/** Unit roundoff of float64. */
const EPS = 2 ** -52;

/**
 * Eigenvalues and eigenvectors of a real symmetric matrix, A V = V diag(lambda), V'V = I.
 *
 * @param matrix square symmetric matrix `{ rows, cols, data }`, row-major; not modified.
 * @throws {RangeError} when the matrix is not square, `data` has the wrong length, `count` is out of
 *   range, or the matrix is not symmetric within `symmetryTolerance`.
 * @throws {NonFiniteError} when an entry is NaN or infinite.
 * @throws {SolverError} when the QL iteration does not converge (not observed on finite input).
 * @example
 * // [[2, 1], [1, 2]] has eigenvalues 3 and 1, eigenvectors (1, 1)/sqrt 2 and (1, -1)/sqrt 2.
 * const { values } = symmetricEigen({ rows: 2, cols: 2, data: Float64Array.of(2, 1, 1, 2) });
 * // values = [3, 1]
 */
export function symmetricEigen(
  matrix: { readonly rows: number; readonly cols: number; readonly data: Float64Array },
  options: SymmetricEigenOptions = {},
): SymmetricEigenResult {
  const n = matrix.rows;
  if (!Number.isInteger(n) || n < 0 || matrix.cols !== n) {
    throw new RangeError(`symmetricEigen: expected a square matrix, got ${matrix.rows} x ${matrix.cols}.`);
  }
  if (matrix.data.length !== n * n) {
    throw new RangeError(`symmetricEigen: data has length ${matrix.data.length}, expected ${n * n}.`);
  }
  const order = options.order ?? "descending";
  const count = options.count ?? n;
  if (!Number.isInteger(count) || count < 0 || count > n) {
    throw new RangeError(`symmetricEigen: count must be an integer in [0, ${n}], got ${count}.`);
  }
  const wantVectors = options.vectors ?? true;
  const tolerance = options.symmetryTolerance ?? 1e-10;

  const a = symmetrizedLowerCopy(matrix.data, n, tolerance);
  const d = new Float64Array(n);
  const e = new Float64Array(n);
  const beta = new Float64Array(n);
  reduceToTridiagonal(a, n, d, e, beta);
  let norm = 0;
  for (let i = 0; i < n; i++)
    norm = Math.max(norm, Math.abs(d[i]!) + Math.abs(e[i]!) + (i > 0 ? Math.abs(e[i - 1]!) : 0));

  const method = options.vectorMethod ?? "auto";
  const useInverseIteration =
    wantVectors && (method === "inverse-iteration" || (method === "auto" && 4 * count <= n));

  if (!wantVectors || useInverseIteration) {
    const blocks = splitBlocks(d, e, n, norm);
    const lambda = new Float64Array(n);
    const blockOf = new Int32Array(n);
    for (const [lo, hi] of blocks) {
      const dd = d.slice(lo, hi + 1);
      const ee = new Float64Array(hi - lo + 1);
      for (let i = lo; i < hi; i++) ee[i - lo] = e[i]!;
      tridiagonalQl(dd, ee, hi - lo + 1, null, norm);
      for (let i = lo; i <= hi; i++) {
        lambda[i] = dd[i - lo]!;
        blockOf[i] = lo;
      }
    }
    const picked = pickOrder(lambda, order, count);
    const values = new Float64Array(count);
    for (let j = 0; j < count; j++) values[j] = lambda[picked[j]!]!;
    if (!wantVectors) return { n, count, values, vectors: null };
    const z = inverseIteration(d, e, n, blocks, lambda, blockOf, picked);
    backTransform(a, n, beta, z, count);
    normalizeSigns(z, n, count);
    return { n, count, values, vectors: z };
  }

  // All vectors of T: rows of zt are the eigenvectors (transposed storage keeps rotations contiguous).
  const zt = new Float64Array(n * n);
  for (let i = 0; i < n; i++) zt[i * n + i] = 1;
  const ee = new Float64Array(n);
  for (let i = 0; i + 1 < n; i++) ee[i] = e[i]!;
  tridiagonalQl(d, ee, n, zt, norm);
  const picked = pickOrder(d, order, count);
  const values = new Float64Array(count);
  const z = new Float64Array(n * count);
  for (let j = 0; j < count; j++) {
    const src = picked[j]! * n;
    values[j] = d[picked[j]!]!;
    for (let i = 0; i < n; i++) z[i * count + j] = zt[src + i]!;
  }
  backTransform(a, n, beta, z, count);
  normalizeSigns(z, n, count);
  return { n, count, values, vectors: z };
}

/** Copy of the lower triangle of (A + A')/2 in a full n x n buffer, after finiteness and symmetry checks. */
function symmetrizedLowerCopy(data: Float64Array, n: number, tolerance: number): Float64Array {
  let maxAbs = 0;
  for (let i = 0; i < n * n; i++) {
    const v = data[i]!;
    if (!Number.isFinite(v)) {
      throw new NonFiniteError(
        `symmetricEigen: entry (${Math.floor(i / n)}, ${i % n}) is ${v}; the matrix must be finite.`,
      );
    }
    const m = Math.abs(v);
    if (m > maxAbs) maxAbs = m;
  }
  const a = new Float64Array(n * n);
  let worst = 0;
  let wi = 0;
  let wj = 0;
  for (let i = 0; i < n; i++) {
    for (let j = 0; j <= i; j++) {
      const x = data[i * n + j]!;
      const y = data[j * n + i]!;
      const diff = Math.abs(x - y);
      if (diff > worst) {
        worst = diff;
        wi = i;
        wj = j;
      }
      a[i * n + j] = 0.5 * (x + y);
    }
  }
  if (worst > tolerance * maxAbs) {
    throw new RangeError(
      `symmetricEigen: matrix is not symmetric: |a(${wi},${wj}) - a(${wj},${wi})| = ${worst} exceeds ` +
        `${tolerance} x max|a| = ${tolerance * maxAbs}.`,
    );
  }
  return a;
}

/**
 * Householder tridiagonalization in place on the lower triangle of `a` (Golub & Van Loan Alg. 8.3.1).
 * On return d = diagonal of T, e[k] = T(k+1, k), and the reflector H_k = I - beta[k] v v' that zeroes
 * column k below the subdiagonal is stored as v = a[k+1.., k] (v[k+1] is not normalized to 1).
 *
 * Each step needs p = A v and then the rank-2 update A <- A - v w' - w v'. The update of step k is
 * applied lazily: column k+1 at once (it holds the next reflector), the rest of the trailing block in the
 * same pass that forms the next product (see {@link updateAndMultiply}), so the matrix is read once per step.
 */
function reduceToTridiagonal(
  a: Float64Array,
  n: number,
  d: Float64Array,
  e: Float64Array,
  beta: Float64Array,
): void {
  let pendingV = new Float64Array(n);
  let pendingW = new Float64Array(n);
  let u = new Float64Array(n);
  let p = new Float64Array(n);
  for (let k = 0; k + 2 < n; k++) {
    const s = k + 1; // first row of the trailing block
    d[k] = a[k * n + k]!;
    // Reflector from column k (already up to date). Scale to avoid overflow in the norm.
    let scale = 0;
    for (let i = s; i < n; i++) scale = Math.max(scale, Math.abs(a[i * n + k]!));
    let b = 0;
    if (scale === 0) {
      e[k] = 0;
      u.fill(0);
    } else {
      let sumSq = 0;
      for (let i = s; i < n; i++) {
        const x = a[i * n + k]! / scale;
        sumSq += x * x;
      }
      const norm = scale * Math.sqrt(sumSq);
      const x0 = a[s * n + k]!;
      const alpha = x0 >= 0 ? -norm : norm;
      // v = x - alpha e1; beta = 2 / v'v = 1 / (norm (norm + |x0|)).
      a[s * n + k] = x0 - alpha;
      b = 1 / (norm * (norm + Math.abs(x0)));
      e[k] = alpha;
      for (let i = s; i < n; i++) u[i] = a[i * n + k]!;
    }
    beta[k] = b;
    // Apply the pending update of step k-1 to the block [s, n) and form p = A u there.
    updateAndMultiply(a, n, s, pendingV, pendingW, u, p);
    // w = beta p - (beta^2 p'u / 2) u.
    let pu = 0;
    for (let i = s; i < n; i++) {
      p[i]! *= b;
      pu += p[i]! * u[i]!;
    }
    const half = 0.5 * b * pu;
    for (let i = s; i < n; i++) p[i]! -= half * u[i]!;
    // Column s holds the next reflector: bring it up to date now.
    const us = u[s]!;
    const ws = p[s]!;
    for (let i = s; i < n; i++) a[i * n + s]! -= u[i]! * ws + p[i]! * us;
    [pendingV, u] = [u, pendingV];
    [pendingW, p] = [p, pendingW];
  }
  if (n >= 3) {
    // The last pending update still owes the bottom-right entry.
    a[(n - 1) * n + (n - 1)]! -= 2 * pendingV[n - 1]! * pendingW[n - 1]!;
  }
  if (n >= 2) {
    d[n - 2] = a[(n - 2) * n + (n - 2)]!;
    e[n - 2] = a[(n - 1) * n + (n - 2)]!;
    beta[n - 2] = 0;
  }
  if (n >= 1) {
    d[n - 1] = a[(n - 1) * n + (n - 1)]!;
    e[n - 1] = 0;
    beta[n - 1] = 0;
  }
}

/**
 * One pass over the lower triangle of rows/columns [s, n) of `a`: a_ij <- a_ij - v_i w_j - w_i v_j,
 * then p = A u with the updated values (symmetric product from the lower triangle). Rows are processed
 * four at a time so that v, w, u and p are loaded once per group (the kernel is load-bound in V8).
 * Columns below s are not touched.
 */
function updateAndMultiply(
  a: Float64Array,
  n: number,
  s: number,
  v: Float64Array,
  w: Float64Array,
  u: Float64Array,
  p: Float64Array,
): void {
  for (let i = s; i < n; i++) p[i] = 0;
  let i = s;
  for (; i + 3 < n; i += 4) {
    const r0 = i * n;
    const r1 = r0 + n;
    const r2 = r1 + n;
    const r3 = r2 + n;
    const v0 = v[i]!;
    const v1 = v[i + 1]!;
    const v2 = v[i + 2]!;
    const v3 = v[i + 3]!;
    const w0 = w[i]!;
    const w1 = w[i + 1]!;
    const w2 = w[i + 2]!;
    const w3 = w[i + 3]!;
    const u0 = u[i]!;
    const u1 = u[i + 1]!;
    const u2 = u[i + 2]!;
    const u3 = u[i + 3]!;
    let acc0 = 0;
    let acc1 = 0;
    let acc2 = 0;
    let acc3 = 0;
    for (let j = s; j < i; j++) {
      const vj = v[j]!;
      const wj = w[j]!;
      const uj = u[j]!;
      const a0 = a[r0 + j]! - v0 * wj - w0 * vj;
      const a1 = a[r1 + j]! - v1 * wj - w1 * vj;
      const a2 = a[r2 + j]! - v2 * wj - w2 * vj;
      const a3 = a[r3 + j]! - v3 * wj - w3 * vj;
      a[r0 + j] = a0;
      a[r1 + j] = a1;
      a[r2 + j] = a2;
      a[r3 + j] = a3;
      acc0 += a0 * uj;
      acc1 += a1 * uj;
      acc2 += a2 * uj;
      acc3 += a3 * uj;
      p[j]! += a0 * u0 + a1 * u1 + a2 * u2 + a3 * u3;
    }
    p[i]! += acc0;
    p[i + 1]! += acc1;
    p[i + 2]! += acc2;
    p[i + 3]! += acc3;
    // The 4 x 4 diagonal block, row by row.
    for (let r = i; r < i + 4; r++) updateRowTail(a, n, r, i, v, w, u, p);
  }
  for (; i < n; i++) updateRowTail(a, n, i, s, v, w, u, p);
}

/** Row r of {@link updateAndMultiply} for columns [from, r], diagonal included. */
function updateRowTail(
  a: Float64Array,
  n: number,
  r: number,
  from: number,
  v: Float64Array,
  w: Float64Array,
  u: Float64Array,
  p: Float64Array,
): void {
  const row = r * n;
  const vr = v[r]!;
  const wr = w[r]!;
  const ur = u[r]!;
  let acc = 0;
  for (let j = from; j < r; j++) {
    const x = a[row + j]! - vr * w[j]! - wr * v[j]!;
    a[row + j] = x;
    acc += x * u[j]!;
    p[j]! += x * ur;
  }
  const x = a[row + r]! - 2 * vr * wr;
  a[row + r] = x;
  p[r]! += acc + x * ur;
}

/**
 * Implicit QL with shifts on the symmetric tridiagonal (d, e) of order m, e[i] = T(i+1, i), e[m-1] unused.
 * Overwrites d with the eigenvalues (unordered). When `zt` is given (m x m, rows = vectors), the plane
 * rotations are applied to its rows so that row i ends as the eigenvector of d[i]. `norm` is max_i |d_i| + |e_i|
 * of the whole tridiagonal (the scale of the absolute deflation test, as in EISPACK `tql2`).
 */
function tridiagonalQl(
  d: Float64Array,
  e: Float64Array,
  m: number,
  zt: Float64Array | null,
  norm: number,
): void {
  if (m > 0) e[m - 1] = 0;
  // Off-diagonals below eps ||T|| are negligible in absolute terms too: without this, a block of eigenvalues
  // at the rounding level of a larger matrix (a rank-deficient covariance) never meets the relative test.
  const absolute = EPS * norm;
  for (let l = 0; l < m; l++) {
    let iterations = 0;
    for (;;) {
      let end = l;
      while (end < m - 1) {
        const dd = Math.abs(d[end]!) + Math.abs(d[end + 1]!);
        if (Math.abs(e[end]!) <= Math.max(EPS * dd, absolute)) break;
        end++;
      }
      if (end === l) break;
      if (iterations++ === MAX_QL_ITERATIONS) {
        throw new SolverError(
          `symmetricEigen: implicit QL did not converge after ${MAX_QL_ITERATIONS} iterations (eigenvalue ${l}).`,
        );
      }
      // Shift from the leading 2 x 2 block (Wilkinson-type), then chase the bulge from `end` up to l.
      let g = (d[l + 1]! - d[l]!) / (2 * e[l]!);
      let r = Math.hypot(g, 1);
      g = d[end]! - d[l]! + e[l]! / (g + (g >= 0 ? r : -r));
      let s = 1;
      let c = 1;
      let p = 0;
      let i = end - 1;
      let underflow = false;
      for (; i >= l; i--) {
        const f = s * e[i]!;
        const b = c * e[i]!;
        r = Math.hypot(f, g);
        e[i + 1] = r;
        if (r === 0) {
          // Recover from underflow: deflate and restart the sweep.
          d[i + 1]! -= p;
          e[end] = 0;
          underflow = true;
          break;
        }
        s = f / r;
        c = g / r;
        g = d[i + 1]! - p;
        r = (d[i]! - g) * s + 2 * c * b;
        p = s * r;
        d[i + 1] = g + p;
        g = c * r - b;
        if (zt !== null) {
          const r0 = i * m;
          const r1 = (i + 1) * m;
          for (let k = 0; k < m; k++) {
            const zi = zt[r0 + k]!;
            const zi1 = zt[r1 + k]!;
            zt[r1 + k] = s * zi + c * zi1;
            zt[r0 + k] = c * zi - s * zi1;
          }
        }
      }
      if (underflow) continue;
      d[l]! -= p;
      e[l] = g;
      e[end] = 0;
    }
  }
}

/** Unreduced blocks [lo, hi] of the tridiagonal; negligible off-diagonals (same test as the QL) are set to zero. */
function splitBlocks(d: Float64Array, e: Float64Array, n: number, norm: number): Array<[number, number]> {
  const blocks: Array<[number, number]> = [];
  let lo = 0;
  for (let i = 0; i < n; i++) {
    const last = i === n - 1;
    if (!last && Math.abs(e[i]!) <= Math.max(EPS * (Math.abs(d[i]!) + Math.abs(d[i + 1]!)), EPS * norm))
      e[i] = 0;
    if (last || e[i] === 0) {
      blocks.push([lo, i]);
      lo = i + 1;
    }
  }
  return blocks;
}

/** Indices of the `count` eigenvalues to return, in the requested order (stable for ties). */
function pickOrder(lambda: Float64Array, order: EigenOrder, count: number): Int32Array {
  const idx = Array.from({ length: lambda.length }, (_, i) => i);
  idx.sort((x, y) => (order === "ascending" ? lambda[x]! - lambda[y]! : lambda[y]! - lambda[x]!) || x - y);
  return Int32Array.from(idx.slice(0, count));
}

/**
 * Eigenvectors of the tridiagonal (d, e) for the picked eigenvalues by inverse iteration (after LAPACK
 * `dstein`): per unreduced block, eigenvalues processed in ascending order, coincident ones perturbed
 * apart by 10 eps |lambda|, and vectors within 1e-3 ||T_block|| of each other orthogonalized
 * (modified Gram-Schmidt) against the previous members of their cluster. Returns n x count, column j for
 * picked[j].
 */
function inverseIteration(
  d: Float64Array,
  e: Float64Array,
  n: number,
  blocks: Array<[number, number]>,
  lambda: Float64Array,
  blockOf: Int32Array,
  picked: Int32Array,
): Float64Array {
  const count = picked.length;
  const z = new Float64Array(n * count);
  // Group the requested columns by block, ascending eigenvalue inside each block.
  const byBlock = new Map<number, number[]>();
  for (let j = 0; j < count; j++) {
    const lo = blockOf[picked[j]!]!;
    const list = byBlock.get(lo);
    if (list) list.push(j);
    else byBlock.set(lo, [j]);
  }
  const blockHi = new Map<number, number>();
  for (const [lo, hi] of blocks) blockHi.set(lo, hi);

  // Deterministic start vectors (a fixed-seed xorshift, like dstein's fixed-seed dlarnv).
  let seed = 0x2545f491;
  const nextUniform = (): number => {
    seed ^= seed << 13;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    return (seed >>> 0) / 4294967296 - 0.5;
  };

  for (const [lo, cols] of byBlock) {
    const hi = blockHi.get(lo)!;
    const m = hi - lo + 1;
    cols.sort((x, y) => lambda[picked[x]!]! - lambda[picked[y]!]! || x - y);
    if (m === 1) {
      for (const j of cols) z[lo * count + j] = 1;
      continue;
    }
    let oneNorm = 0;
    for (let i = lo; i <= hi; i++) {
      const left = i > lo ? Math.abs(e[i - 1]!) : 0;
      const right = i < hi ? Math.abs(e[i]!) : 0;
      oneNorm = Math.max(oneNorm, Math.abs(d[i]!) + left + right);
    }
    const orthoTolerance = 1e-3 * oneNorm;
    const convergedAt = Math.sqrt(0.1 / m);
    const u0 = new Float64Array(m);
    const u1 = new Float64Array(m);
    const u2 = new Float64Array(m);
    const mult = new Float64Array(m);
    const swapped = new Uint8Array(m);
    const x = new Float64Array(m);
    let previous = Number.NaN;
    let clusterStart = 0;
    for (let c = 0; c < cols.length; c++) {
      const j = cols[c]!;
      let shift = lambda[picked[j]!]!;
      if (c > 0) {
        const perturb = 10 * EPS * Math.abs(shift) + EPS * oneNorm;
        if (shift - previous < perturb) shift = previous + perturb;
        if (shift - previous > orthoTolerance) clusterStart = c;
      }
      previous = shift;
      factorShiftedTridiagonal(d, e, lo, m, shift, u0, u1, u2, mult, swapped, oneNorm);
      for (let i = 0; i < m; i++) x[i] = nextUniform();
      // dstein: accept after the solution has shown large growth on three solves (or 8 iterations).
      let hits = 0;
      for (let iter = 0; iter < 8 && hits < 3; iter++) {
        // Scale so the solve cannot overflow, then solve (T - shift I) y = x.
        let norm1 = 0;
        for (let i = 0; i < m; i++) norm1 += Math.abs(x[i]!);
        const scale = (m * oneNorm * Math.max(EPS, Math.abs(u0[m - 1]!))) / norm1;
        for (let i = 0; i < m; i++) x[i]! *= scale;
        solveShiftedTridiagonal(m, u0, u1, u2, mult, swapped, x);
        for (let q = clusterStart; q < c; q++) {
          const jq = cols[q]!;
          let dot = 0;
          for (let i = 0; i < m; i++) dot += x[i]! * z[(lo + i) * count + jq]!;
          for (let i = 0; i < m; i++) x[i]! -= dot * z[(lo + i) * count + jq]!;
        }
        let maxAbs = 0;
        for (let i = 0; i < m; i++) maxAbs = Math.max(maxAbs, Math.abs(x[i]!));
        if (maxAbs >= convergedAt) hits++;
      }
      let norm2 = 0;
      for (let i = 0; i < m; i++) norm2 += x[i]! * x[i]!;
      const inv = 1 / Math.sqrt(norm2);
      for (let i = 0; i < m; i++) z[(lo + i) * count + j] = x[i]! * inv;
    }
  }
  return z;
}

/**
 * LU factorization with partial pivoting of the block T[lo..lo+m-1] - shift I (a tridiagonal):
 * U has diagonals u0, u1, u2; row i+1 was combined with multiplier mult[i] after an optional swap.
 * Zero pivots are replaced by eps ||T|| so the solve stays finite (as `dlagtf`/`dlagts` do).
 */
function factorShiftedTridiagonal(
  d: Float64Array,
  e: Float64Array,
  lo: number,
  m: number,
  shift: number,
  u0: Float64Array,
  u1: Float64Array,
  u2: Float64Array,
  mult: Float64Array,
  swapped: Uint8Array,
  oneNorm: number,
): void {
  let p = d[lo]! - shift;
  let q = m > 1 ? e[lo]! : 0;
  let r = 0;
  for (let i = 0; i < m - 1; i++) {
    const sub = e[lo + i]!;
    const nextDiag = d[lo + i + 1]! - shift;
    const nextSuper = i + 1 < m - 1 ? e[lo + i + 1]! : 0;
    if (Math.abs(p) >= Math.abs(sub)) {
      const l = p === 0 ? 0 : sub / p;
      u0[i] = p;
      u1[i] = q;
      u2[i] = r;
      mult[i] = l;
      swapped[i] = 0;
      p = nextDiag - l * q;
      q = nextSuper - l * r;
    } else {
      const l = p / sub;
      u0[i] = sub;
      u1[i] = nextDiag;
      u2[i] = nextSuper;
      mult[i] = l;
      swapped[i] = 1;
      p = q - l * nextDiag;
      q = r - l * nextSuper;
    }
    r = 0;
  }
  u0[m - 1] = p;
  if (m >= 1 && Math.abs(u0[m - 1]!) < EPS * oneNorm) u0[m - 1] = EPS * oneNorm;
  for (let i = 0; i < m - 1; i++) if (Math.abs(u0[i]!) < EPS * oneNorm) u0[i] = EPS * oneNorm;
}

/** Solves (T - shift I) x = b in place with the factors of {@link factorShiftedTridiagonal}. */
function solveShiftedTridiagonal(
  m: number,
  u0: Float64Array,
  u1: Float64Array,
  u2: Float64Array,
  mult: Float64Array,
  swapped: Uint8Array,
  x: Float64Array,
): void {
  for (let i = 0; i < m - 1; i++) {
    if (swapped[i] === 1) {
      const t = x[i]!;
      x[i] = x[i + 1]!;
      x[i + 1] = t;
    }
    x[i + 1]! -= mult[i]! * x[i]!;
  }
  const big = 1 / (EPS * EPS);
  for (let i = m - 1; i >= 0; i--) {
    let v = x[i]!;
    if (i + 1 < m) v -= u1[i]! * x[i + 1]!;
    if (i + 2 < m) v -= u2[i]! * x[i + 2]!;
    x[i] = v / u0[i]!;
    // Rescale on growth so the back substitution never overflows.
    if (Math.abs(x[i]!) > big) {
      const s = 1 / Math.abs(x[i]!);
      for (let k = 0; k < m; k++) x[k]! *= s;
    }
  }
}

/** z (n x count) <- Q z with Q = H_0 H_1 ... H_{n-3}: apply the reflectors last to first. */
function backTransform(a: Float64Array, n: number, beta: Float64Array, z: Float64Array, count: number): void {
  const sums = new Float64Array(count);
  for (let k = n - 3; k >= 0; k--) {
    const b = beta[k]!;
    if (b === 0) continue;
    sums.fill(0);
    for (let i = k + 1; i < n; i++) {
      const vi = a[i * n + k]!;
      if (vi === 0) continue;
      const row = i * count;
      for (let j = 0; j < count; j++) sums[j]! += vi * z[row + j]!;
    }
    for (let i = k + 1; i < n; i++) {
      const f = b * a[i * n + k]!;
      if (f === 0) continue;
      const row = i * count;
      for (let j = 0; j < count; j++) z[row + j]! -= f * sums[j]!;
    }
  }
}

/** Flips each column so that its entry of largest magnitude (first on ties) is positive. */
function normalizeSigns(z: Float64Array, n: number, count: number): void {
  for (let j = 0; j < count; j++) {
    let best = 0;
    let at = -1;
    for (let i = 0; i < n; i++) {
      const v = Math.abs(z[i * count + j]!);
      // Ties within rounding pick the first index, so the sign is reproducible.
      if (v > best * (1 + 1e-12)) {
        best = v;
        at = i;
      }
    }
    if (at >= 0 && z[at * count + j]! < 0) for (let i = 0; i < n; i++) z[i * count + j] = -z[i * count + j]!;
  }
}
