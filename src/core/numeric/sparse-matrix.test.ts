import { describe, expect, it } from "vitest";
import { denseMatrix, denseMultiply, denseTransposeMultiply } from "./dense-matrix.js";
import {
  assertSparseMatrix,
  SparseMatrixBuilder,
  sparseFromDense,
  sparseMultiply,
  sparseTranspose,
  sparseTransposeMultiply,
} from "./sparse-matrix.js";

describe("SparseMatrixBuilder", () => {
  it("sorts entries, sums duplicates and drops entries that cancel", () => {
    const a = new SparseMatrixBuilder(2, 3)
      .add(1, 2, 4)
      .add(0, 2, 1.5)
      .add(1, 0, -1)
      .add(0, 2, 0.5)
      .add(0, 1, 3)
      .add(0, 1, -3)
      .build();
    expect(Array.from(a.rowStart)).toEqual([0, 1, 3]);
    expect(Array.from(a.columnIndex)).toEqual([2, 0, 2]);
    expect(Array.from(a.values)).toEqual([2, -1, 4]);
    assertSparseMatrix(a, "test", "a");
  });

  it("keeps explicit zeros on request", () => {
    const a = new SparseMatrixBuilder(1, 2).add(0, 1, 0).build({ keepZeros: true });
    expect(Array.from(a.columnIndex)).toEqual([1]);
  });

  it("rejects out-of-range positions and non-finite values", () => {
    const b = new SparseMatrixBuilder(2, 2);
    expect(() => b.add(2, 0, 1)).toThrow("SparseMatrixBuilder.add: (2, 0) is outside a 2 x 2 matrix.");
    expect(() => b.add(0, 0, Number.NaN)).toThrow(TypeError);
  });
});

describe("sparse products", () => {
  const dense = denseMatrix(3, 4, Float64Array.of(1, 0, 2, 0, 0, 0, 0, -3, 4, 5, 0, 6));
  const a = sparseFromDense(dense);

  it("A x and A'y agree with the dense products", () => {
    const x = Float64Array.of(1, -2, 3, 0.5);
    expect(Array.from(sparseMultiply(a, x))).toEqual(Array.from(denseMultiply(dense, x)));
    const y = Float64Array.of(2, -1, 0.25);
    expect(Array.from(sparseTransposeMultiply(a, y))).toEqual(Array.from(denseTransposeMultiply(dense, y)));
  });

  it("the transpose is the CSC form: (A')' = A and A' x matches", () => {
    const at = sparseTranspose(a);
    assertSparseMatrix(at, "test", "at");
    expect(at.rows).toBe(4);
    const back = sparseTranspose(at);
    expect(Array.from(back.rowStart)).toEqual(Array.from(a.rowStart));
    expect(Array.from(back.columnIndex)).toEqual(Array.from(a.columnIndex));
    expect(Array.from(back.values)).toEqual(Array.from(a.values));
    const y = Float64Array.of(1, 2, 3);
    expect(Array.from(sparseMultiply(at, y))).toEqual(Array.from(sparseTransposeMultiply(a, y)));
  });

  it("rejects vectors of the wrong length, naming the function and shapes", () => {
    expect(() => sparseMultiply(a, new Float64Array(3))).toThrow(
      "sparseMultiply: x has length 3, expected 4 (matrix is 3 x 4).",
    );
  });

  it("assertSparseMatrix reports unsorted columns", () => {
    const bad = {
      rows: 1,
      cols: 3,
      rowStart: Int32Array.of(0, 2),
      columnIndex: Int32Array.of(2, 1),
      values: Float64Array.of(1, 1),
    };
    expect(() => assertSparseMatrix(bad, "solveQp", "A")).toThrow(/solveQp: A row 0 has column index 1/);
  });

  it("handles an empty matrix", () => {
    const e = new SparseMatrixBuilder(0, 2).build();
    expect(sparseTransposeMultiply(e, new Float64Array(0))).toEqual(new Float64Array(2));
  });
});
