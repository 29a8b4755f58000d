/**
 * @module core/numeric
 * Linear algebra on Float64Array and the convex QP solver (see docs/solver.md).
 */
export {
  type CholeskyDecomposition,
  choleskyDecomposition,
  choleskyFactorInPlace,
  choleskySolveInPlace,
} from "./cholesky.js";
export { type DenseMatrix, denseMatrix, denseMultiply, denseTransposeMultiply } from "./dense-matrix.js";
export {
  type EigenOrder,
  type SymmetricEigenOptions,
  type SymmetricEigenResult,
  symmetricEigen,
} from "./eigen.js";
export { type FactorForm, factorModelMultiply, factorModelQuadraticForm } from "./factor-model.js";
export { type LowRankStrategy, LowRankSystemSolver } from "./low-rank-system.js";
export { createQpSolver, type QpSolver, solveQp, solveQpOrThrow } from "./qp-solver.js";
export type {
  ConeConstraint,
  FactorRiskBall,
  QpMethod,
  QpOptions,
  QpProblem,
  QpResult,
  QpStatus,
  SecondOrderCone,
} from "./qp-types.js";
export {
  assertSparseMatrix,
  type SparseMatrix,
  SparseMatrixBuilder,
  sparseFromDense,
  sparseMultiply,
  sparseTranspose,
  sparseTransposeMultiply,
} from "./sparse-matrix.js";
