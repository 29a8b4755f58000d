/**
 * @module core/themes/expression/limits
 * Safety limits of the filter-expression language. Expressions come from users (theme methodologies,
 * HTTP bodies), so every size that could make parsing or evaluation expensive is bounded, and inputs
 * over a limit are rejected with an {@link ExpressionError} before any work that depends on their size.
 */

/** Longest accepted expression source, in UTF-16 code units. Checked before tokenizing. */
export const MAX_SOURCE_LENGTH = 4096;

/**
 * Deepest accepted syntactic nesting: parentheses, function calls, `not` and unary `-` chains. Checked by
 * the parser as it descends, so hostile input (`((((...`) fails long before the call stack could overflow.
 */
export const MAX_NESTING_DEPTH = 64;

/**
 * Greatest accepted height of the syntax tree (a leaf has height 1; an `and`/`or` chain counts as one
 * level). Bounds the recursion of the type checker, the evaluator and the printer on long left-nested
 * chains such as `a + a + a + ...`, which need no parentheses.
 */
export const MAX_TREE_HEIGHT = 256;

/** Most items accepted in one `in (...)` / `not in (...)` list. */
export const MAX_IN_LIST_LENGTH = 1000;

/** Longest accepted numeric literal, in characters (digits, `.`, exponent, `_` separators and `%`). */
export const MAX_NUMBER_LITERAL_LENGTH = 40;

/** Longest accepted string literal, in characters after escapes are decoded. */
export const MAX_STRING_LITERAL_LENGTH = 256;

/** Longest accepted identifier (field or function name). */
export const MAX_IDENTIFIER_LENGTH = 64;
