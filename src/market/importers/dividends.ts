/**
 * @module market/importers/dividends
 * Cash dividends from CSV: `ex_date,symbol_or_theme_asset_id,amount` (amount per share in the security's
 * currency; `date` and `dividend` are accepted as column names too).
 */
import type { Dividend } from "../../core/data/types.js";
import type { MarketDataWriter } from "../writer.js";
import type { CsvInput } from "./csv-input.js";
import { readCsvTable } from "./csv-table.js";
import { DateCache, isMissing } from "./fields.js";
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

/** Result of {@link parseDividends}: dividends in file order (skipped rows removed) and the summary. */
export interface DividendParseResult {
  dividends: Dividend[];
  summary: ImportSummary;
}

const EXPECTED = "ex_date,symbol_or_theme_asset_id,amount";

/**
 * Parses a dividends CSV. An empty amount is reported (`empty_value`) and skipped; a zero or negative amount
 * is an error.
 * @throws {CsvFormatError} bad date or amount, missing columns (file, line, column).
 * @throws {UnresolvedSymbolError} unknown or ambiguous symbol (unless `onUnresolvedSymbol: "skip"`).
 * @example
 * const { dividends } = await parseDividends("ex_date,symbol,amount\n2024-02-09,AAPL:XNAS,0.24\n");
 */
export async function parseDividends(
  input: CsvInput,
  options: SymbolParseOptions = {},
): Promise<DividendParseResult> {
  const file = options.file ?? "<input>";
  const flaws = new FlawLog(options.maxFlawsListedPerKind);
  const dates = new DateCache();
  const dividends: Dividend[] = [];
  const seen = new Map<string, number>();
  let skipped = 0;

  const { header, rowsRead } = await readCsvTable(input, file, EXPECTED, (h) => {
    const iDate = h.require(["ex_date", "exdate", "date"], "dividends");
    const symbols = new SymbolColumn(
      h,
      h.require(["symbol_or_theme_asset_id", "theme_asset_id", "symbol", "ticker"], "dividends"),
      flaws,
      options,
    );
    const iAmount = h.require(["amount", "dividend", "cash_amount"], "dividends");
    return (fields, line) => {
      const date = dateField(h, dates, fields, iDate, line);
      const id = symbols.resolve(fields, line, date);
      if (id === null) {
        skipped++;
        return;
      }
      if (isMissing(fields[iAmount]!)) {
        skipped++;
        flaws.add("empty_value", "skipped", id, date, line, "empty dividend amount; row skipped.");
        return;
      }
      const amount = numberField(h, fields, iAmount, line);
      if (!(amount > 0)) throw h.error(line, iAmount, `a cash dividend must be positive, found ${amount}.`);
      const key = `${id}|${date}`;
      const prior = seen.get(key);
      if (prior !== undefined) {
        skipped++;
        flaws.add(
          "duplicate",
          "skipped",
          id,
          date,
          line,
          `second dividend for ${id} going ex on ${date} (first at line ${prior}); first kept, this one skipped.`,
        );
        return;
      }
      seen.set(key, line);
      dividends.push({ themeAssetId: id, exDate: date, amount });
    };
  });

  const summary = flaws.summary({
    file,
    dataset: "dividends",
    layout: "long",
    rowsRead,
    rowsKept: rowsRead - skipped,
    rowsSkipped: skipped,
    records: dividends.length,
    symbols: new Set(dividends.map((d) => d.themeAssetId)).size,
    ...dateRange(dividends.map((d) => d.exDate)),
    ignoredColumns: header.ignoredColumns(),
  });
  return { dividends, summary };
}

/**
 * Parses the whole dividends file, then inserts the dividends in one transaction.
 * @throws {CsvFormatError} / {UnresolvedSymbolError} before anything is written.
 */
export async function importDividends(
  path: string,
  writer: MarketDataWriter,
  options: SymbolImportOptions = {},
): Promise<ImportSummary> {
  const parseOptions = symbolParseOptions(path, chooseResolver(writer, options), options);
  const r = await importFile(
    path,
    writer,
    (bytes) => parseDividends(bytes, parseOptions),
    (res) => writer.insertDividends(res.dividends),
  );
  return r.summary;
}
