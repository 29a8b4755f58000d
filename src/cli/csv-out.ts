/**
 * @module cli/csv-out
 * Writing CSV (RFC 4180) without a dependency: a field is quoted when it holds a comma, a double quote, a carriage
 * return or a line feed (or starts or ends with a space, which readers that trim would otherwise lose), and quotes
 * inside it are doubled. Records end with CRLF, as the RFC says; every CSV reader we know (csv-parse, Excel,
 * pandas) also reads them.
 */

/** A value a CSV cell can show: null and undefined are empty cells, numbers and booleans are printed as is. */
export type CsvValue = string | number | boolean | null | undefined;

/** One column of a CSV file: its header and how a row gives its cell. */
export interface CsvColumn<Row> {
  readonly header: string;
  readonly value: (row: Row) => CsvValue;
}

/** End of a record (RFC 4180). */
export const CSV_EOL = "\r\n";

/** One field, quoted when it must be. */
export function csvField(value: CsvValue): string {
  if (value === null || value === undefined) return "";
  const text = String(value);
  return /[",\r\n]|^\s|\s$/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** One record (without its line end). */
export function csvRecord(values: readonly CsvValue[]): string {
  return values.map(csvField).join(",");
}

/** A whole CSV document: the header line, then one record per row, each ended by CRLF. */
export function toCsv<Row>(rows: readonly Row[], columns: readonly CsvColumn<Row>[]): string {
  const lines = [csvRecord(columns.map((c) => c.header))];
  for (const r of rows) lines.push(csvRecord(columns.map((c) => c.value(r))));
  return lines.join(CSV_EOL) + CSV_EOL;
}
