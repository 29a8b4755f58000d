/**
 * @module core/themes/expression
 * The filter-expression language of themes, universe presets and industry matches: parse, check against
 * a field catalog, evaluate over columns, print. Reference: docs/expression-language.md.
 */
export {
  type And,
  type Arithmetic,
  type ArithmeticOperator,
  type Between,
  type BooleanLiteral,
  type Call,
  type Comparison,
  type ComparisonOperator,
  type Expr,
  type FieldReference,
  type InList,
  type IsNull,
  KEYWORDS,
  type Negation,
  type Not,
  type NumberLiteral,
  type Or,
  type StringLiteral,
} from "./ast.js";
export {
  type CompiledExpression,
  type CompileOptions,
  compileExpression,
  type ExpressionKind,
  referencedFields,
  type SafeCompileResult,
  safeCompileExpression,
} from "./compile.js";
export { type Column, type ExpressionTable, evaluateFilter, evaluateScore } from "./evaluate.js";
export { ExpressionError, type ExpressionErrorOptions } from "./expression-error.js";
export {
  CHARACTERISTIC_NAMES,
  CODE_FIELD_DIGITS,
  type FieldCatalog,
  type FieldType,
  fieldCatalog,
  SECURITY_FIELDS,
} from "./fields.js";
export { formatExpression } from "./format.js";
export { FUNCTIONS, type FunctionDefinition } from "./functions.js";
export {
  MAX_IDENTIFIER_LENGTH,
  MAX_IN_LIST_LENGTH,
  MAX_NESTING_DEPTH,
  MAX_NUMBER_LITERAL_LENGTH,
  MAX_SOURCE_LENGTH,
  MAX_STRING_LITERAL_LENGTH,
  MAX_TREE_HEIGHT,
} from "./limits.js";
export { parseExpression } from "./parser.js";
export { createTable, securityTable } from "./table.js";
