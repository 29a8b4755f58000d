/**
 * @module core/numeric/dense-matrix
 * Dense matrices as one flat row-major Float64Array (`data[i * cols + j]`), the layout every numeric
 * kernel of lotwise uses (see docs/architecture.md, "Numbers").
 */

/** A dense `rows x cols` matrix stored row-major in `data` (length `rows * cols`). */
export interface DenseMatrix {
  readonly rows: number;
  readonly cols: number;
  readonly data: Float64Array;
}

/**
 * Creates a dense matrix; `data` is used as is (not copied) when given, else zero-filled.
 *
 * @throws {RangeError} when the dimensions are not non-negative integers or `data` has the wrong length.
 * @example
 * const m = denseMatrix(2, 2, Float64Array.of(1, 2, 3, 4)); // [[1, 2], [3, 4]]
 */
export function denseMatrix(rows: number, cols: number, data?: Float64Array): DenseMatrix {
  if (!Number.isInteger(rows) || rows < 0 || !Number.isInteger(cols) || cols < 0)
    throw new RangeError(`denseMatrix: dimensions must be non-negative integers, got ${rows} x ${cols}.`);
  if (data !== undefined && data.length !== rows * cols)
    throw new RangeError(
      `denseMatrix: data has length ${data.length}, expected rows * cols = ${rows * cols}.`,
    );
  return { rows, cols, data: data ?? new Float64Array(rows * cols) };
}

/**
 * Product `out = M x` of a dense matrix and a vector.
 *
 * @throws {RangeError} when `x` (or `out`) does not match the matrix shape.
 * @example
 * denseMultiply(denseMatrix(1, 2, Float64Array.of(1, 2)), Float64Array.of(3, 4)); // [11]
 */
export function denseMultiply(matrix: DenseMatrix, x: Float64Array, out?: Float64Array): Float64Array {
  const { rows, cols, data } = matrix;
  if (x.length !== cols)
    throw new RangeError(
      `denseMultiply: x has length ${x.length}, expected ${cols} (matrix is ${rows} x ${cols}).`,
    );
  const y = out ?? new Float64Array(rows);
  if (y.length !== rows) throw new RangeError(`denseMultiply: out has length ${y.length}, expected ${rows}.`);
  for (let i = 0; i < rows; i++) {
    let s = 0;
    const o = i * cols;
    for (let j = 0; j < cols; j++) s += data[o + j]! * x[j]!;
    y[i] = s;
  }
  return y;
}

/**
 * Product `out = M' y` of a transposed dense matrix and a vector (walks `data` row by row).
 *
 * @throws {RangeError} when `y` (or `out`) does not match the matrix shape.
 * @example
 * denseTransposeMultiply(denseMatrix(1, 2, Float64Array.of(1, 2)), Float64Array.of(3)); // [3, 6]
 */
export function denseTransposeMultiply(
  matrix: DenseMatrix,
  y: Float64Array,
  out?: Float64Array,
): Float64Array {
  const { rows, cols, data } = matrix;
  if (y.length !== rows)
    throw new RangeError(
      `denseTransposeMultiply: y has length ${y.length}, expected ${rows} (matrix is ${rows} x ${cols}).`,
    );
  const x = out ?? new Float64Array(cols);
  if (x.length !== cols)
    throw new RangeError(`denseTransposeMultiply: out has length ${x.length}, expected ${cols}.`);
  x.fill(0);
  for (let i = 0; i < rows; i++) {
    const yi = y[i]!;
    if (yi === 0) continue;
    const o = i * cols;
    for (let j = 0; j < cols; j++) x[j]! += data[o + j]! * yi;
  }
  return x;
}
