/**
 * @module cli/list-out
 * `--out FILE` on the list commands: the list goes to FILE instead of the terminal, as CSV when the name ends in
 * `.csv` (one row per item, the columns the command names) and as JSON otherwise (exactly what `--json` prints).
 * The command then prints one line saying what was written (with `--json`, that line as a JSON object).
 */
import { writeFile } from "node:fs/promises";
import { resolve } from "node:path";
import { CSV_EOL, type CsvColumn, toCsv } from "./csv-out.js";
import type { Output } from "./output.js";

/** Help text of `--out`. */
export const OUT_OPTION_HELP =
  "write the list to FILE instead of printing it: CSV when FILE ends in .csv, else JSON (what --json prints); prints one line saying what was written";

/**
 * The noun for `count` items: the plural `what` as given, or its singular for one item ("1 client", "1 scan row",
 * "1 asset class"), so that the line written after an export reads as English.
 */
export function itemsNoun(count: number, what: string): string {
  return count === 1 ? what.replace(/(ss)es$|s$/, "$1") : what;
}

/** CSV when the file name ends in `.csv` (any case), else JSON. */
export function outFormat(file: string): "csv" | "json" {
  return file.toLowerCase().endsWith(".csv") ? "csv" : "json";
}

/**
 * Write `rows` to `file` (CSV with `columns`, or `json` as pretty JSON) and print what was written: `Wrote 3
 * clients to /abs/clients.csv (CSV).`, or with --json `{"written": path, "format": "csv", "rows": 3}`.
 * @param what the plural noun of the items, e.g. "clients" (its singular is used for one item: {@link itemsNoun})
 * @param json what the JSON file holds (default: the rows, as --json prints them)
 */
export async function writeListOut<Row>(
  out: Output,
  file: string,
  what: string,
  rows: readonly Row[],
  columns: readonly CsvColumn<Row>[],
  json: unknown = rows,
): Promise<void> {
  const format = outFormat(file);
  const path = resolve(file);
  await writeFile(path, format === "csv" ? toCsv(rows, columns) : `${JSON.stringify(json, null, 2)}\n`);
  if (out.json) out.printJson({ written: path, format, rows: rows.length });
  else out.line(`Wrote ${rows.length} ${itemsNoun(rows.length, what)} to ${path} (${format.toUpperCase()}).`);
}

/**
 * An export that is CSV whatever the file is called (`lots export`, `proposal export`): to `file` with one line
 * saying what was written, or, without a file, the CSV on stdout (with --json, the rows as objects keyed by the
 * CSV headers).
 */
export async function writeCsvExport<Row>(
  out: Output,
  file: string | undefined,
  what: string,
  rows: readonly Row[],
  columns: readonly CsvColumn<Row>[],
): Promise<void> {
  if (file !== undefined) {
    const path = resolve(file);
    await writeFile(path, toCsv(rows, columns));
    if (out.json) out.printJson({ written: path, format: "csv", rows: rows.length });
    else out.line(`Wrote ${rows.length} ${itemsNoun(rows.length, what)} to ${path} (CSV).`);
  } else if (out.json)
    out.printJson(rows.map((r) => Object.fromEntries(columns.map((c) => [c.header, c.value(r) ?? null]))));
  else out.line(toCsv(rows, columns).slice(0, -CSV_EOL.length));
}
