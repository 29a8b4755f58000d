/**
 * @module core/ledger
 * The account ledger (pure): executions applied to an account's lots and cash (wash sales across the household,
 * short lots), corporate actions on held lots, and the realized-gains statement (year totals, Form 8949 lines,
 * Schedule D, CSV). Rules: docs/ledger.md. Every tax computation goes through core/tax.
 */

export { applyExecutions, type ExecutionsResult } from "./apply-executions.js";
export {
  applyCorporateAction,
  applyCorporateActions,
  type CashDividendAction,
  type CashMergerAction,
  type CorporateAction,
  type CorporateActionResult,
  type SpinOffAction,
  type SplitAction,
  type StockMergerAction,
  type SymbolChangeAction,
} from "./corporate-actions.js";
export {
  executionsFromProposal,
  type OrderFill,
  type ProposalExecutionInput,
  type ProposalOrderLike,
} from "./from-proposal.js";
export {
  type BasisReporting,
  FORM_8949_CSV_COLUMNS,
  type Form8949,
  type Form8949Line,
  type Form8949Part,
  form8949,
  form8949Csv,
  form8949Gain,
  type RealizedRow,
  realizedRows,
  type ScheduleDLine,
  scheduleD,
  type TermTotals,
  type YearTotals,
  yearTotals,
} from "./realized.js";
export { type SpinOffTerms, spinOffChildLotId, spinOffLot } from "./spin-off.js";
export type {
  CashMovement,
  CashMovementKind,
  Execution,
  ExecutionKind,
  ExecutionLot,
  HouseholdView,
  LedgerBook,
  LedgerEntry,
  LedgerOptions,
  ShortLot,
} from "./types.js";
