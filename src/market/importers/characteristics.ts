/**
 * @module market/importers/characteristics
 * Security characteristics over time (market_cap, dividend_yield, pe, ...) from CSV. Layouts:
 * - `long`: `date,theme_asset_id_or_symbol,name,value`;
 * - `wide`: `date,symbol,<name1>,<name2>,...` — every other column is a characteristic.
 * Names are normalized to snake_case (`Market Cap` -> `market_cap`) and must then match `[a-z][a-z0-9_]*`.
 * Values are stored as given: by the shared convention yields and growth rates are fractions, not percents.
 * Each value is stamped with its row's date, so point-in-time readers never see it earlier.
 */
import type { CharacteristicValue } from "../../core/data/types.js";
import type { MarketDataWriter } from "../writer.js";
import type { CsvInput } from "./csv-input.js";
import { readCsvTable } from "./csv-table.js";
import { DateCache, headerKey, isMissing } from "./fields.js";
import {
  chooseResolver,
  dateField,
  importFile,
  numberField,
  SymbolColumn,
  type SymbolImportOptions,
  type SymbolParseOptions,
  symbolParseOptions,
} from "./import-support.js";
import { dateRange, FlawLog, type ImportSummary } from "./summary.js";

/** Result of {@link parseCharacteristics}: values in file order (skipped cells removed) and the summary. */
export interface CharacteristicParseResult {
  values: CharacteristicValue[];
  summary: ImportSummary;
}

/** Valid characteristic name after normalization. */
export const CHARACTERISTIC_NAME = /^[a-z][a-z0-9_]*$/;
const EXPECTED = "date,theme_asset_id_or_symbol,name,value";
const SYMBOL_COLUMNS = [
  "theme_asset_id_or_symbol",
  "symbol_or_theme_asset_id",
  "theme_asset_id",
  "symbol",
  "ticker",
];

/**
 * Parses a characteristics CSV (long or wide).
 * @throws {CsvFormatError} bad date, number or name, missing columns (file, line, column).
 * @throws {UnresolvedSymbolError} unknown or ambiguous symbol (unless `onUnresolvedSymbol: "skip"`).
 * @example
 * const { values } = await parseCharacteristics("date,symbol,pe,dividend_yield\n2018-02-08,MMM:XNYS,24.31,0.0233\n");
 * // two values: pe 24.31 and dividend_yield 0.0233 for MMM:XNYS on 2018-02-08
 */
export async function parseCharacteristics(
  input: CsvInput,
  options: SymbolParseOptions = {},
): Promise<CharacteristicParseResult> {
  const file = options.file ?? "<input>";
  const flaws = new FlawLog(options.maxFlawsListedPerKind);
  const dates = new DateCache();
  const values: CharacteristicValue[] = [];
  const seen = new Map<string, number>();
  let layout = "long";
  let skipped = 0;

  const { header, rowsRead } = await readCsvTable(input, file, EXPECTED, (h) => {
    const long = h.has("name") && h.has("value");
    layout = long ? "long" : "wide";
    const iDate = h.require(["date", "as_of"], layout);
    const symbols = new SymbolColumn(h, h.require(SYMBOL_COLUMNS, layout), flaws, options);

    const add = (id: string, date: string, name: string, value: number, line: number): boolean => {
      const key = `${id}|${name}|${date}`;
      const prior = seen.get(key);
      if (prior !== undefined) {
        flaws.add(
          "duplicate",
          "skipped",
          id,
          date,
          line,
          `second ${name} for ${id} on ${date} (first at line ${prior}); first kept, this one skipped.`,
        );
        return false;
      }
      seen.set(key, line);
      values.push({ themeAssetId: id, date, name, value });
      return true;
    };

    if (long) {
      const iName = h.require(["name"], layout);
      const iValue = h.require(["value"], layout);
      const names = new Map<string, string>();
      return (fields, line) => {
        const date = dateField(h, dates, fields, iDate, line);
        const id = symbols.resolve(fields, line, date);
        if (id === null) {
          skipped++;
          return;
        }
        const raw = fields[iName]!;
        let name = names.get(raw);
        if (name === undefined) {
          name = headerKey(raw);
          if (!CHARACTERISTIC_NAME.test(name))
            throw h.error(
              line,
              iName,
              `${JSON.stringify(raw)} is not a characteristic name (snake_case, e.g. market_cap).`,
            );
          names.set(raw, name);
        }
        if (isMissing(fields[iValue]!)) {
          skipped++;
          flaws.add("empty_value", "skipped", id, date, line, `empty ${name}; no value stored.`);
          return;
        }
        if (!add(id, date, name, numberField(h, fields, iValue, line), line)) skipped++;
      };
    }

    const columns: { index: number; name: string }[] = [];
    const byName = new Map<string, number>();
    h.keys.forEach((k, i) => {
      if (i === iDate || i === symbols.index || h.names[i] === "") return;
      if (!CHARACTERISTIC_NAME.test(k))
        throw h.error(
          h.line,
          i,
          `${JSON.stringify(h.names[i])} is not a usable characteristic name (snake_case, e.g. market_cap).`,
        );
      const prior = byName.get(k);
      if (prior !== undefined)
        throw h.error(
          h.line,
          i,
          `columns ${JSON.stringify(h.names[prior])} and ${JSON.stringify(h.names[i])} both mean ${k}.`,
        );
      byName.set(k, i);
      h.markUsed(i);
      columns.push({ index: i, name: k });
    });
    if (columns.length === 0)
      throw h.error(
        h.line,
        h.width - 1,
        "the wide layout needs at least one characteristic column after date and symbol.",
      );
    return (fields, line) => {
      const date = dateField(h, dates, fields, iDate, line);
      const id = symbols.resolve(fields, line, date);
      if (id === null) {
        skipped++;
        return;
      }
      let made = 0;
      for (const c of columns) {
        if (isMissing(fields[c.index]!)) {
          flaws.add("empty_value", "skipped", id, date, line, `empty ${c.name}; no value stored.`);
          continue;
        }
        if (add(id, date, c.name, numberField(h, fields, c.index, line), line)) made++;
      }
      if (made === 0) skipped++;
    };
  });

  const summary = flaws.summary({
    file,
    dataset: "characteristics",
    layout,
    rowsRead,
    rowsKept: rowsRead - skipped,
    rowsSkipped: skipped,
    records: values.length,
    symbols: new Set(values.map((v) => v.themeAssetId)).size,
    ...dateRange(values.map((v) => v.date)),
    ignoredColumns: header.ignoredColumns(),
  });
  return { values, summary };
}

/**
 * Parses the whole characteristics file, then inserts the values in one transaction.
 * @throws {CsvFormatError} / {UnresolvedSymbolError} before anything is written.
 */
export async function importCharacteristics(
  path: string,
  writer: MarketDataWriter,
  options: SymbolImportOptions = {},
): Promise<ImportSummary> {
  const parseOptions = symbolParseOptions(path, chooseResolver(writer, options), options);
  const r = await importFile(
    path,
    writer,
    (bytes) => parseCharacteristics(bytes, parseOptions),
    (res) => writer.insertCharacteristics(res.values),
  );
  return r.summary;
}
