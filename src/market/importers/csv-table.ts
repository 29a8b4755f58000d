/**
 * @module market/importers/csv-table
 * A CSV file read as a table: the first non-blank record is the header, every later record must have as many
 * fields as the header (else a {@link CsvFormatError} naming the first missing or the last column).
 */
import { type CsvInput, tokenizeCsv } from "./csv-input.js";
import { CsvFormatError } from "./errors.js";
import { headerKey, parseDate } from "./fields.js";

/** The header of a CSV file: lookup by case-insensitive aliases, and which columns were used. */
export class CsvHeader {
  /** Names as written (trimmed). */
  readonly names: readonly string[];
  /** Normalized names (see `headerKey`). */
  readonly keys: readonly string[];
  private readonly used: boolean[];

  constructor(
    readonly file: string,
    readonly line: number,
    fields: readonly string[],
  ) {
    this.names = fields.map((f) => f.trim());
    this.keys = this.names.map(headerKey);
    this.used = this.names.map(() => false);
  }

  get width(): number {
    return this.names.length;
  }

  /** Display name of column `i` for messages. */
  name(i: number): string {
    return this.names[i] || `(unnamed column ${i + 1})`;
  }

  /** Index of the first column whose normalized name equals one of `aliases` (tried in order), or -1. Marks it used. */
  find(...aliases: string[]): number {
    for (const a of aliases) {
      const i = this.keys.indexOf(headerKey(a));
      if (i !== -1) {
        this.used[i] = true;
        return i;
      }
    }
    return -1;
  }

  /** True when a column answers to one of `aliases` (does not mark it used). */
  has(...aliases: string[]): boolean {
    return aliases.some((a) => this.keys.includes(headerKey(a)));
  }

  /**
   * Index of a required column.
   * @throws {CsvFormatError} naming the column and the accepted names when it is absent.
   */
  require(aliases: readonly string[], layout: string): number {
    const i = this.find(...aliases);
    if (i !== -1) return i;
    const looksLikeData = this.names.length > 0 && parseDate(this.names[0]!) !== null;
    throw new CsvFormatError(
      { file: this.file, line: this.line, column: aliases[0]! },
      `missing required column "${aliases[0]}" for the ${layout} layout (accepted names: ${aliases.join(", ")}).` +
        (looksLikeData ? " The first line looks like data: the file must start with a header line." : ""),
    );
  }

  /** Marks column `i` as used by the layout. */
  markUsed(i: number): void {
    this.used[i] = true;
  }

  /** Columns no layout rule used, for the summary. */
  ignoredColumns(): string[] {
    const out: string[] = [];
    for (let i = 0; i < this.names.length; i++) if (!this.used[i]) out.push(this.name(i));
    return out;
  }

  /** A {@link CsvFormatError} located at `line`, column `i`. */
  error(line: number, i: number, detail: string): CsvFormatError {
    return new CsvFormatError({ file: this.file, line, column: this.name(i) }, detail);
  }
}

/** Row callback after the header: fields (exactly `header.width` of them) and the physical line. */
export type TableRowHandler = (fields: string[], line: number) => void;

/**
 * Reads `input` as a table. `onHeader` inspects the header (detects the layout, throws on missing columns) and
 * returns the row handler. Records whose fields are all empty are skipped (no data).
 * @param expectedHeader shown when the file is empty, e.g. `date,open,high,low,close,volume,Name`.
 * @returns the header and the number of data rows passed to the handler.
 * @throws {CsvFormatError} empty file, wrong field count, malformed quoting; or what the handlers throw.
 */
export async function readCsvTable(
  input: CsvInput,
  file: string,
  expectedHeader: string,
  onHeader: (header: CsvHeader) => TableRowHandler,
): Promise<{ header: CsvHeader; rowsRead: number }> {
  let header: CsvHeader | null = null;
  let onRow: TableRowHandler | null = null;
  let rowsRead = 0;
  let width = 0;
  await tokenizeCsv(input, file, (fields, line, tokenizer) => {
    if (header === null) {
      header = new CsvHeader(file, line, fields);
      width = header.width;
      tokenizer.columnNames = header.names.map((_, i) => header!.name(i));
      onRow = onHeader(header);
      return;
    }
    if (fields[0] === "" && fields.every((f) => f.trim() === "")) return;
    if (fields.length !== width) fields = fitWidth(header, fields, line);
    rowsRead++;
    onRow!(fields, line);
  });
  if (header === null)
    throw new CsvFormatError(
      { file, line: 1, column: expectedHeader.split(",")[0]! },
      `the file is empty; expected a header line such as "${expectedHeader}".`,
    );
  return { header, rowsRead };
}

/**
 * Tolerates only trailing empty fields that the header does not name (the ECB file ends every line with ",");
 * any other difference in field count is an error naming the first missing column or the last column.
 */
function fitWidth(header: CsvHeader, fields: string[], line: number): string[] {
  const width = header.width;
  if (fields.length > width) {
    if (fields.slice(width).every((f) => f.trim() === "")) return fields.slice(0, width);
    throw header.error(
      line,
      width - 1,
      `found ${fields.length} fields but the header has ${width} (${header.names.join(",")}): extra field(s) after column "${header.name(width - 1)}". Quote fields that contain commas.`,
    );
  }
  let unnamedTail = true;
  for (let i = fields.length; i < width; i++) if (header.names[i] !== "") unnamedTail = false;
  if (unnamedTail) return [...fields, ...new Array<string>(width - fields.length).fill("")];
  throw header.error(
    line,
    fields.length,
    `found ${fields.length} fields but the header has ${width} (${header.names.join(",")}): column "${header.name(fields.length)}" is missing.`,
  );
}
