/**
 * @module service/csv-errors
 * What the small CSV readers of the service (risk-model files, weights files) answer for a file csv-parse cannot
 * read: a validation error naming the file and line, never the parser's exception (a 500 over HTTP).
 */
import type { CsvError } from "csv-parse/sync";
import { ValidationError } from "../core/errors.js";

/**
 * A CSV file csv-parse cannot read (an unclosed or stray quote, a row longer than the header...) as a validation
 * error naming the file and, when the parser knows it, the line.
 * @example unreadableCsvError("w.csv", err) // "w.csv is not a readable CSV file: Invalid Closing Quote: ..."
 */
export function unreadableCsvError(file: string, err: CsvError): ValidationError {
  const line = (err as { lines?: number }).lines;
  return new ValidationError(`${file} is not a readable CSV file: ${err.message}.`, [
    { path: line === undefined ? file : `${file}: line ${line}`, message: err.message },
  ]);
}
