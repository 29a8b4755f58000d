/**
 * @module market/importers/errors
 * Errors of the CSV importers. Every message names the file, the line and the column, so a user can open the
 * file at the right place; nothing of a file is written when one of these is thrown.
 */
import { DataError, ValidationError } from "../../core/errors.js";

/** Where in a CSV file a problem sits. `line` is the 1-based physical line (the header is line 1). */
export interface CsvLocation {
  file: string;
  line: number;
  /** Header name of the column, or a description such as `(end of line)` when no column applies. */
  column: string;
}

function where(loc: CsvLocation): string {
  return `${loc.file}, line ${loc.line}, column "${loc.column}"`;
}

/**
 * Malformed CSV: wrong number of fields, an unparseable number or date in a field that must hold one, a
 * missing required header, a broken quote. The whole file is rejected.
 * @example
 * // CsvFormatError: prices.csv, line 7, column "close": "12.5x" is not a number.
 */
export class CsvFormatError extends ValidationError {
  readonly file: string;
  readonly line: number;
  readonly column: string;
  /** The problem without the location prefix. */
  readonly detail: string;
  constructor(loc: CsvLocation, detail: string) {
    super(
      `${where(loc)}: ${detail}`,
      [{ path: `${loc.file}:${loc.line}:${loc.column}`, message: detail }],
      "csv_format",
    );
    this.file = loc.file;
    this.line = loc.line;
    this.column = loc.column;
    this.detail = detail;
  }
}

/**
 * A symbol in a file that matches no listing (`unknown_symbol`) or several (`ambiguous_symbol`).
 * `candidates` lists the matching theme_asset_ids for an ambiguous symbol.
 * @example
 * // UnresolvedSymbolError: splits.csv, line 3, column "symbol": "GOOG" matches 2 listings (GOOG:XNAS, GOOG:XNYS). ...
 */
export class UnresolvedSymbolError extends DataError {
  readonly file: string;
  readonly line: number;
  readonly column: string;
  readonly symbol: string;
  readonly candidates: readonly string[];
  constructor(
    loc: CsvLocation,
    symbol: string,
    reason: "unknown" | "ambiguous",
    detail: string,
    candidates: readonly string[],
  ) {
    super(`${where(loc)}: ${detail}`, { code: reason === "unknown" ? "unknown_symbol" : "ambiguous_symbol" });
    this.file = loc.file;
    this.line = loc.line;
    this.column = loc.column;
    this.symbol = symbol;
    this.candidates = candidates;
  }
}
