/**
 * @module core/numeric/sparse-matrix
 * Sparse matrices in compressed sparse row (CSR) form, a builder from (row, column, value) triplets and
 * the products the QP solver needs. CSR is the one sparse format of lotwise: row `i` occupies positions
 * `rowStart[i] .. rowStart[i + 1] - 1` of `columnIndex` and `values`, with column indices increasing and
 * unique within a row. The transpose of a CSR matrix is the CSC form of the same matrix.
 */
import type { DenseMatrix } from "./dense-matrix.js";

/** A `rows x cols` sparse matrix in CSR form (see the module comment for the invariants). */
export interface SparseMatrix {
  readonly rows: number;
  readonly cols: number;
  /** Length `rows + 1`; `rowStart[0] = 0`, `rowStart[rows]` = number of stored entries. */
  readonly rowStart: Int32Array;
  /** Column of each stored entry, increasing within a row. */
  readonly columnIndex: Int32Array;
  /** Value of each stored entry. */
  readonly values: Float64Array;
}

/**
 * Accumulates (row, column, value) triplets and builds a {@link SparseMatrix}: entries are sorted, and
 * duplicates are summed (as in scipy's `coo_matrix.tocsr`). Entries that sum to exactly zero are kept
 * only when `keepZeros` is set.
 *
 * @example
 * const b = new SparseMatrixBuilder(2, 3);
 * b.add(0, 2, 1.5);
 * b.add(1, 0, -1);
 * b.add(0, 2, 0.5);
 * const a = b.build(); // [[0, 0, 2], [-1, 0, 0]]
 */
export class SparseMatrixBuilder {
  readonly rows: number;
  readonly cols: number;
  private rowOf: number[] = [];
  private colOf: number[] = [];
  private valueOf: number[] = [];

  /** @throws {RangeError} when the dimensions are not non-negative integers. */
  constructor(rows: number, cols: number) {
    if (!Number.isInteger(rows) || rows < 0 || !Number.isInteger(cols) || cols < 0)
      throw new RangeError(
        `SparseMatrixBuilder: dimensions must be non-negative integers, got ${rows} x ${cols}.`,
      );
    this.rows = rows;
    this.cols = cols;
  }

  /**
   * Adds `value` at (`row`, `col`); returns the builder for chaining.
   *
   * @throws {RangeError} when the position is outside the matrix.
   * @throws {TypeError} when the value is not finite.
   */
  add(row: number, col: number, value: number): this {
    if (
      !Number.isInteger(row) ||
      row < 0 ||
      row >= this.rows ||
      !Number.isInteger(col) ||
      col < 0 ||
      col >= this.cols
    )
      throw new RangeError(
        `SparseMatrixBuilder.add: (${row}, ${col}) is outside a ${this.rows} x ${this.cols} matrix.`,
      );
    if (!Number.isFinite(value))
      throw new TypeError(
        `SparseMatrixBuilder.add: value at (${row}, ${col}) is ${value}; entries must be finite.`,
      );
    this.rowOf.push(row);
    this.colOf.push(col);
    this.valueOf.push(value);
    return this;
  }

  /** Adds a whole row given as parallel column/value lists. */
  addRow(row: number, cols: ArrayLike<number>, values: ArrayLike<number>): this {
    if (cols.length !== values.length)
      throw new RangeError(
        `SparseMatrixBuilder.addRow: ${cols.length} columns but ${values.length} values for row ${row}.`,
      );
    for (let p = 0; p < cols.length; p++) this.add(row, cols[p]!, values[p]!);
    return this;
  }

  /** Builds the CSR matrix (the builder can keep accumulating afterwards). */
  build(options: { keepZeros?: boolean } = {}): SparseMatrix {
    const count = this.rowOf.length;
    const order = new Int32Array(count);
    for (let p = 0; p < count; p++) order[p] = p;
    const r = this.rowOf;
    const c = this.colOf;
    order.sort((a, b) => r[a]! - r[b]! || c[a]! - c[b]!);
    const rowStart = new Int32Array(this.rows + 1);
    const columnIndex: number[] = [];
    const values: number[] = [];
    let p = 0;
    for (let i = 0; i < this.rows; i++) {
      rowStart[i] = columnIndex.length;
      while (p < count && r[order[p]!]! === i) {
        const col = c[order[p]!]!;
        let v = 0;
        while (p < count && r[order[p]!]! === i && c[order[p]!]! === col) v += this.valueOf[order[p++]!]!;
        if (v !== 0 || options.keepZeros === true) {
          columnIndex.push(col);
          values.push(v);
        }
      }
    }
    rowStart[this.rows] = columnIndex.length;
    return {
      rows: this.rows,
      cols: this.cols,
      rowStart,
      columnIndex: Int32Array.from(columnIndex),
      values: Float64Array.from(values),
    };
  }
}

/**
 * The CSR form of a dense matrix, dropping exact zeros.
 *
 * @example
 * sparseFromDense(denseMatrix(1, 3, Float64Array.of(0, 2, 0))); // one entry (0, 1) = 2
 */
export function sparseFromDense(matrix: DenseMatrix): SparseMatrix {
  const b = new SparseMatrixBuilder(matrix.rows, matrix.cols);
  for (let i = 0; i < matrix.rows; i++)
    for (let j = 0; j < matrix.cols; j++) {
      const v = matrix.data[i * matrix.cols + j]!;
      if (v !== 0) b.add(i, j, v);
    }
  return b.build();
}

/**
 * The transpose A' in CSR form (equivalently, A in CSC form), in O(nnz + rows + cols).
 *
 * @example
 * sparseTranspose(a).rows === a.cols; // true
 */
export function sparseTranspose(a: SparseMatrix): SparseMatrix {
  const nnz = a.rowStart[a.rows]!;
  const rowStart = new Int32Array(a.cols + 1);
  for (let p = 0; p < nnz; p++) rowStart[a.columnIndex[p]! + 1]!++;
  for (let j = 0; j < a.cols; j++) rowStart[j + 1]! += rowStart[j]!;
  const next = rowStart.slice(0, a.cols);
  const columnIndex = new Int32Array(nnz);
  const values = new Float64Array(nnz);
  // Walking A by rows fills each column of A in increasing row order, keeping the CSR invariant.
  for (let i = 0; i < a.rows; i++) {
    for (let p = a.rowStart[i]!; p < a.rowStart[i + 1]!; p++) {
      const q = next[a.columnIndex[p]!]!++;
      columnIndex[q] = i;
      values[q] = a.values[p]!;
    }
  }
  return { rows: a.cols, cols: a.rows, rowStart, columnIndex, values };
}

/**
 * Product `out = A x`.
 *
 * @throws {RangeError} when `x` or `out` does not match the shape of `a`.
 * @example
 * sparseMultiply(a, Float64Array.of(1, 1, 1));
 */
export function sparseMultiply(a: SparseMatrix, x: Float64Array, out?: Float64Array): Float64Array {
  if (x.length !== a.cols)
    throw new RangeError(
      `sparseMultiply: x has length ${x.length}, expected ${a.cols} (matrix is ${a.rows} x ${a.cols}).`,
    );
  const y = out ?? new Float64Array(a.rows);
  if (y.length !== a.rows)
    throw new RangeError(`sparseMultiply: out has length ${y.length}, expected ${a.rows}.`);
  const { rowStart, columnIndex, values } = a;
  for (let i = 0; i < a.rows; i++) {
    let s = 0;
    for (let p = rowStart[i]!; p < rowStart[i + 1]!; p++) s += values[p]! * x[columnIndex[p]!]!;
    y[i] = s;
  }
  return y;
}

/**
 * Product `out = A' y` computed from the CSR form of A (scatter by rows), without building A'.
 *
 * @throws {RangeError} when `y` or `out` does not match the shape of `a`.
 * @example
 * sparseTransposeMultiply(a, Float64Array.of(1, -1));
 */
export function sparseTransposeMultiply(a: SparseMatrix, y: Float64Array, out?: Float64Array): Float64Array {
  if (y.length !== a.rows)
    throw new RangeError(
      `sparseTransposeMultiply: y has length ${y.length}, expected ${a.rows} (matrix is ${a.rows} x ${a.cols}).`,
    );
  const x = out ?? new Float64Array(a.cols);
  if (x.length !== a.cols)
    throw new RangeError(`sparseTransposeMultiply: out has length ${x.length}, expected ${a.cols}.`);
  x.fill(0);
  const { rowStart, columnIndex, values } = a;
  for (let i = 0; i < a.rows; i++) {
    const yi = y[i]!;
    if (yi === 0) continue;
    for (let p = rowStart[i]!; p < rowStart[i + 1]!; p++) x[columnIndex[p]!]! += values[p]! * yi;
  }
  return x;
}

/**
 * Checks the CSR invariants (lengths, monotone `rowStart`, in-range strictly increasing columns, finite
 * values) and throws a message naming `caller` and `name` on the first failure.
 *
 * @throws {RangeError} on a structural problem; {@link TypeError} on a non-finite value.
 */
export function assertSparseMatrix(a: SparseMatrix, caller: string, name: string): void {
  const { rows, cols, rowStart, columnIndex, values } = a;
  if (!Number.isInteger(rows) || rows < 0 || !Number.isInteger(cols) || cols < 0)
    throw new RangeError(`${caller}: ${name} has invalid dimensions ${rows} x ${cols}.`);
  if (!(rowStart instanceof Int32Array) || rowStart.length !== rows + 1)
    throw new RangeError(
      `${caller}: ${name}.rowStart must be an Int32Array of length rows + 1 = ${rows + 1}.`,
    );
  const nnz = rowStart[rows]!;
  if (rowStart[0] !== 0 || columnIndex.length !== nnz || values.length !== nnz)
    throw new RangeError(
      `${caller}: ${name} has rowStart[0] = ${rowStart[0]}, rowStart[rows] = ${nnz}, ${columnIndex.length} column indices and ${values.length} values; they must agree.`,
    );
  for (let i = 0; i < rows; i++) {
    const a0 = rowStart[i]!;
    const a1 = rowStart[i + 1]!;
    if (a1 < a0) throw new RangeError(`${caller}: ${name}.rowStart decreases at row ${i}.`);
    let prev = -1;
    for (let p = a0; p < a1; p++) {
      const j = columnIndex[p]!;
      if (!(j > prev && j < cols))
        throw new RangeError(
          `${caller}: ${name} row ${i} has column index ${j}; columns must increase within a row and lie in [0, ${cols}).`,
        );
      if (!Number.isFinite(values[p]!))
        throw new TypeError(`${caller}: ${name} entry (${i}, ${j}) is ${values[p]}; entries must be finite.`);
      prev = j;
    }
  }
}
