/**
 * @module core/themes/expression/lexer
 * Turns expression source into tokens. Lexical errors (unterminated string, bad escape, bad or
 * out-of-range number, over-long literal) become a terminal `error` token, so the parser reports them
 * in source order, only once it reaches them.
 */

import { KEYWORDS } from "./ast.js";
import { ExpressionError } from "./expression-error.js";
import {
  MAX_IDENTIFIER_LENGTH,
  MAX_NUMBER_LITERAL_LENGTH,
  MAX_SOURCE_LENGTH,
  MAX_STRING_LITERAL_LENGTH,
} from "./limits.js";

/** Punctuation and operators, canonical spelling (`==` lexes as `=`, `<>` as `!=`). */
export type Punctuation = "=" | "!=" | "<" | "<=" | ">" | ">=" | "+" | "-" | "*" | "/" | "(" | ")" | ",";

interface TokenBase {
  /** Offset of the first character. */
  readonly start: number;
  /** Offset after the last character. */
  readonly end: number;
  /** Source text of the token. */
  readonly raw: string;
}

/** One token. `keyword` covers the words of {@link KEYWORDS} and the symbols `&&`, `||`, `!`. */
export type Token =
  | (TokenBase & { readonly kind: "number"; readonly value: number })
  | (TokenBase & { readonly kind: "string"; readonly value: string })
  | (TokenBase & { readonly kind: "identifier"; readonly name: string })
  | (TokenBase & { readonly kind: "keyword"; readonly name: string })
  | (TokenBase & { readonly kind: "punctuation"; readonly text: Punctuation })
  /** An operator from another language (`=<`, `===`...), with the one meant. */
  | (TokenBase & { readonly kind: "bad_operator"; readonly suggestion: string })
  /** A character that starts no token. */
  | (TokenBase & { readonly kind: "invalid"; readonly hint: string | undefined })
  | (TokenBase & { readonly kind: "error"; readonly error: ExpressionError })
  | (TokenBase & { readonly kind: "eof" });

/** Two-character operators, longest match first. */
const TWO_CHAR: ReadonlyMap<
  string,
  { kind: "punctuation"; text: Punctuation } | { kind: "keyword"; name: string }
> = new Map([
  ["!=", { kind: "punctuation", text: "!=" }],
  ["<>", { kind: "punctuation", text: "!=" }],
  ["==", { kind: "punctuation", text: "=" }],
  ["<=", { kind: "punctuation", text: "<=" }],
  [">=", { kind: "punctuation", text: ">=" }],
  ["&&", { kind: "keyword", name: "and" }],
  ["||", { kind: "keyword", name: "or" }],
]);

/** Operators users bring from other languages; never valid here, so we can name the one they meant. */
const BAD_OPERATORS: ReadonlyMap<string, string> = new Map([
  ["===", "="],
  ["!==", "!="],
  ["=<", "<="],
  ["=>", ">="],
  ["=!", "!="],
]);

const ONE_CHAR: ReadonlySet<string> = new Set(["=", "<", ">", "+", "-", "*", "/", "(", ")", ","]);

const INVALID_HINTS: ReadonlyMap<string, string> = new Map([
  ["&", "write 'and' (or '&&')"],
  ["|", "write 'or' (or '||')"],
  ["%", "a '%' must follow the digits of a number directly, as in 1%"],
  ["[", "lists are written in parentheses, as in sector in (45, 50)"],
  ["`", "strings are quoted with ' or \""],
]);

const ESCAPES: ReadonlyMap<string, string> = new Map([
  ["\\", "\\"],
  ["'", "'"],
  ['"', '"'],
  ["n", "\n"],
  ["r", "\r"],
  ["t", "\t"],
  ["0", "\0"],
]);

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}
function isIdentStart(c: number): boolean {
  return (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
}
function isIdentPart(c: number): boolean {
  return isIdentStart(c) || isDigit(c);
}
function isHex(c: number): boolean {
  return isDigit(c) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102);
}

/** Shows a character in a message: printable ASCII quoted, anything else as its code point. */
export function describeCharacter(ch: string): string {
  const cp = ch.codePointAt(0) ?? 0;
  if (cp >= 0x21 && cp <= 0x7e) return `'${ch}'`;
  return `character U+${cp.toString(16).toUpperCase().padStart(4, "0")}`;
}

/**
 * Tokenizes `source`. The result ends with an `eof` token, or with an `error` token at the first lexical
 * error (nothing after it is tokenized).
 * @throws {ExpressionError} when `source` is longer than {@link MAX_SOURCE_LENGTH}.
 */
export function tokenize(source: string, path?: string): Token[] {
  const opts = path === undefined ? {} : { path };
  if (source.length > MAX_SOURCE_LENGTH) {
    throw new ExpressionError(
      `Expression is too long (${source.length} characters; the limit is ${MAX_SOURCE_LENGTH})`,
      MAX_SOURCE_LENGTH,
      opts,
    );
  }
  const tokens: Token[] = [];
  const n = source.length;
  let i = 0;
  const fail = (start: number, message: string, expected: readonly string[] = []): Token[] => {
    const error = new ExpressionError(message, start, { ...opts, expected });
    tokens.push({ kind: "error", start, end: n, raw: source.slice(start), error });
    return tokens;
  };

  while (i < n) {
    const c = source.charCodeAt(i);
    // Whitespace: space, tab, line feed, carriage return.
    if (c === 32 || c === 9 || c === 10 || c === 13) {
      i++;
      continue;
    }
    const start = i;

    if (isDigit(c) || (c === 46 && i + 1 < n && isDigit(source.charCodeAt(i + 1)))) {
      const scanned = scanNumber(source, i);
      if (typeof scanned === "string") return fail(start, scanned, ["a digit"]);
      const raw = source.slice(start, scanned.end);
      if (raw.length > MAX_NUMBER_LITERAL_LENGTH) {
        return fail(
          start,
          `Number literal at position ${start} is too long (${raw.length} characters; the limit is ${MAX_NUMBER_LITERAL_LENGTH})`,
        );
      }
      if (!Number.isFinite(scanned.value)) {
        return fail(
          start,
          `Number ${raw} at position ${start} is out of range: numbers must be finite (magnitude below 1.8e308)`,
        );
      }
      tokens.push({ kind: "number", start, end: scanned.end, raw, value: scanned.value });
      i = scanned.end;
      continue;
    }

    if (c === 39 || c === 34) {
      const quote = source[i]!;
      let value = "";
      let j = i + 1;
      let closed = false;
      while (j < n) {
        const ch = source[j]!;
        if (ch === quote) {
          // SQL style: a doubled quote inside a string stands for one quote.
          if (source[j + 1] === quote) {
            value += quote;
            j += 2;
          } else {
            closed = true;
            j++;
            break;
          }
        } else if (ch === "\\") {
          const next = source[j + 1];
          if (next === undefined) break;
          const simple = ESCAPES.get(next);
          if (simple !== undefined) {
            value += simple;
            j += 2;
          } else if (
            next === "u" &&
            j + 5 < n &&
            isHex(source.charCodeAt(j + 2)) &&
            isHex(source.charCodeAt(j + 3)) &&
            isHex(source.charCodeAt(j + 4)) &&
            isHex(source.charCodeAt(j + 5))
          ) {
            value += String.fromCharCode(Number.parseInt(source.slice(j + 2, j + 6), 16));
            j += 6;
          } else {
            return fail(
              j,
              `Invalid escape '\\${next}' at position ${j} in a string: use \\\\, \\', \\", \\n, \\r, \\t, \\0 or \\uXXXX`,
              ["\\\\", "\\'", '\\"', "\\n", "\\r", "\\t", "\\0", "\\uXXXX"],
            );
          }
        } else {
          value += ch;
          j++;
        }
        if (value.length > MAX_STRING_LITERAL_LENGTH) {
          return fail(
            start,
            `String literal at position ${start} is too long (more than ${MAX_STRING_LITERAL_LENGTH} characters)`,
          );
        }
      }
      if (!closed) {
        return fail(
          start,
          `Unterminated string starting at position ${start}: expected a closing ${quote} before end of input`,
          [quote],
        );
      }
      tokens.push({ kind: "string", start, end: j, raw: source.slice(start, j), value });
      i = j;
      continue;
    }

    if (isIdentStart(c)) {
      let j = i + 1;
      while (j < n && isIdentPart(source.charCodeAt(j))) j++;
      const raw = source.slice(start, j);
      if (raw.length > MAX_IDENTIFIER_LENGTH) {
        return fail(
          start,
          `Name at position ${start} is too long (${raw.length} characters; the limit is ${MAX_IDENTIFIER_LENGTH})`,
        );
      }
      const name = raw.toLowerCase();
      tokens.push(
        KEYWORDS.has(name)
          ? { kind: "keyword", start, end: j, raw, name }
          : { kind: "identifier", start, end: j, raw, name },
      );
      i = j;
      continue;
    }

    const three = source.slice(i, i + 3);
    const two = source.slice(i, i + 2);
    const badRaw = BAD_OPERATORS.has(three) ? three : BAD_OPERATORS.has(two) ? two : undefined;
    if (badRaw !== undefined) {
      tokens.push({
        kind: "bad_operator",
        start,
        end: i + badRaw.length,
        raw: badRaw,
        suggestion: BAD_OPERATORS.get(badRaw)!,
      });
      i += badRaw.length;
      continue;
    }
    const twoChar = TWO_CHAR.get(two);
    if (twoChar !== undefined) {
      tokens.push({ ...twoChar, start, end: i + 2, raw: two });
      i += 2;
      continue;
    }
    const one = source[i]!;
    if (one === "!") {
      tokens.push({ kind: "keyword", name: "not", start, end: i + 1, raw: one });
      i++;
      continue;
    }
    if (ONE_CHAR.has(one)) {
      tokens.push({ kind: "punctuation", text: one as Punctuation, start, end: i + 1, raw: one });
      i++;
      continue;
    }
    // One code point, so an astral character is reported whole.
    const ch = String.fromCodePoint(source.codePointAt(i)!);
    tokens.push({ kind: "invalid", start, end: i + ch.length, raw: ch, hint: INVALID_HINTS.get(ch) });
    i += ch.length;
  }
  tokens.push({ kind: "eof", start: n, end: n, raw: "" });
  return tokens;
}

/**
 * Scans a number literal at `i`: digits with optional `_` separators between digits, an optional
 * fraction, an optional exponent and an optional `%` (divide by 100). Returns the end and the value, or
 * an error message. The value is computed from the decimal text (a percent shifts the exponent by -2),
 * so `1.1%` is exactly the double nearest 0.011.
 */
function scanNumber(source: string, i: number): { end: number; value: number } | string {
  const n = source.length;
  const start = i;
  const digits = (): void => {
    while (
      i < n &&
      (isDigit(source.charCodeAt(i)) ||
        (source[i] === "_" &&
          isDigit(source.charCodeAt(i - 1)) &&
          i + 1 < n &&
          isDigit(source.charCodeAt(i + 1))))
    )
      i++;
  };
  digits();
  if (source[i] === "." && i + 1 < n && isDigit(source.charCodeAt(i + 1))) {
    i++;
    digits();
  } else if (source[i] === ".") {
    return `Invalid number '${source.slice(start, i + 1)}' at position ${start}: expected a digit after '.'`;
  }
  const mantissa = source.slice(start, i).replaceAll("_", "");
  let exponent = 0;
  if (source[i] === "e" || source[i] === "E") {
    let j = i + 1;
    if (source[j] === "+" || source[j] === "-") j++;
    if (j >= n || !isDigit(source.charCodeAt(j))) {
      return `Invalid number '${source.slice(start, j)}' at position ${start}: expected a digit in the exponent`;
    }
    const expStart = i + 1;
    while (j < n && isDigit(source.charCodeAt(j))) j++;
    exponent = Number(source.slice(expStart, j));
    i = j;
  }
  let percent = false;
  if (source[i] === "%") {
    percent = true;
    i++;
  }
  const e = percent ? exponent - 2 : exponent;
  const value = Number(e === 0 ? mantissa : `${mantissa}e${e}`);
  return { end: i, value };
}
