/**
 * @module market/importers/splits
 * Stock splits from CSV. Layouts (detected from the header):
 * - `community`: `date,symbol,name,exchange,isin,ratioNew,ratioOld,source,notes` (coffee-cpu/stock-splits-data);
 *   ratio = ratioNew / ratioOld; `exchange` (NASDAQ, NYSE...) picks the listing when a symbol has several;
 * - `simple`: `date,symbol_or_theme_asset_id,ratio` where ratio is new shares per old share: `2`, `0.1`,
 *   `2:1`, `3/2` or `2-for-1`.
 */
import type { Split } from "../../core/data/types.js";
import type { MarketDataWriter } from "../writer.js";
import type { CsvInput } from "./csv-input.js";
import { readCsvTable } from "./csv-table.js";
import { DateCache, isMissing, parseNumber } from "./fields.js";
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
import { micOfExchangeName } from "./symbol-resolver.js";

/** Result of {@link parseSplits}: splits in file order (skipped rows removed) and the summary. */
export interface SplitParseResult {
  splits: Split[];
  summary: ImportSummary;
}

const EXPECTED = "date,symbol_or_theme_asset_id,ratio";
const SYMBOL_COLUMNS = ["symbol_or_theme_asset_id", "theme_asset_id", "symbol", "ticker"];

/**
 * New shares per old share from `2`, `0.5`, `2:1`, `3/2` or `2-for-1`; NaN when unreadable.
 * @example parseSplitRatio("3-for-2") // 1.5
 */
export function parseSplitRatio(raw: string): number {
  const m = /^\s*([0-9.]+)\s*(?::|\/|-for-|\s+for\s+)\s*([0-9.]+)\s*$/i.exec(raw);
  if (m) return parseNumber(m[1]!) / parseNumber(m[2]!);
  return parseNumber(raw);
}

/**
 * Parses a splits CSV (community or simple layout).
 * @throws {CsvFormatError} bad date or ratio, missing columns (file, line, column).
 * @throws {UnresolvedSymbolError} unknown or ambiguous symbol (unless `onUnresolvedSymbol: "skip"`).
 * @example
 * const { splits } = await parseSplits("date,symbol,ratio\n2014-06-09,AAPL:XNAS,7:1\n");
 * // splits[0] = { themeAssetId: "AAPL:XNAS", date: "2014-06-09", ratio: 7 }
 */
export async function parseSplits(
  input: CsvInput,
  options: SymbolParseOptions = {},
): Promise<SplitParseResult> {
  const file = options.file ?? "<input>";
  const flaws = new FlawLog(options.maxFlawsListedPerKind);
  const dates = new DateCache();
  const splits: Split[] = [];
  const seen = new Map<string, number>();
  let layout = "simple";
  let skipped = 0;

  const { header, rowsRead } = await readCsvTable(input, file, EXPECTED, (h) => {
    const community = h.has("rationew") && h.has("ratioold");
    layout = community ? "community" : "simple";
    const iDate = h.require(["date", "ex_date", "effective_date"], layout);
    const symbols = new SymbolColumn(h, h.require(SYMBOL_COLUMNS, layout), flaws, options);
    const iNew = community ? h.require(["rationew"], layout) : -1;
    const iOld = community ? h.require(["ratioold"], layout) : -1;
    const iRatio = community ? -1 : h.require(["ratio", "split_ratio"], layout);
    const iExchange = community ? h.find("exchange") : -1;

    const positive = (fields: string[], i: number, line: number, v: number): number => {
      if (!(v > 0 && Number.isFinite(v)))
        throw h.error(line, i, `${JSON.stringify(fields[i])} is not a positive split ratio.`);
      return v;
    };
    return (fields, line) => {
      const date = dateField(h, dates, fields, iDate, line);
      const hint = iExchange === -1 ? undefined : micOfExchangeName(fields[iExchange]!);
      const id = symbols.resolve(fields, line, date, hint);
      if (id === null) {
        skipped++;
        return;
      }
      let ratio: number;
      if (community) {
        for (const i of [iNew, iOld])
          if (isMissing(fields[i]!)) throw h.error(line, i, "the split ratio is empty.");
        ratio =
          positive(fields, iNew, line, numberField(h, fields, iNew, line)) /
          positive(fields, iOld, line, numberField(h, fields, iOld, line));
      } else {
        if (isMissing(fields[iRatio]!)) throw h.error(line, iRatio, "the split ratio is empty.");
        ratio = positive(fields, iRatio, line, parseSplitRatio(fields[iRatio]!));
      }
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
          `second split for ${id} on ${date} (first at line ${prior}); first kept, this one skipped.`,
        );
        return;
      }
      seen.set(key, line);
      splits.push({ themeAssetId: id, date, ratio });
    };
  });

  const summary = flaws.summary({
    file,
    dataset: "splits",
    layout,
    rowsRead,
    rowsKept: rowsRead - skipped,
    rowsSkipped: skipped,
    records: splits.length,
    symbols: new Set(splits.map((s) => s.themeAssetId)).size,
    ...dateRange(splits.map((s) => s.date)),
    ignoredColumns: header.ignoredColumns(),
  });
  return { splits, summary };
}

/**
 * Parses the whole splits file, then inserts the splits in one transaction.
 * @throws {CsvFormatError} / {UnresolvedSymbolError} before anything is written.
 * @example
 * // The community file names many symbols outside the store: skip (and report) them.
 * await importSplits("stock_splits_2015-2026.csv", store, { onUnresolvedSymbol: "skip" });
 */
export async function importSplits(
  path: string,
  writer: MarketDataWriter,
  options: SymbolImportOptions = {},
): Promise<ImportSummary> {
  const parseOptions = symbolParseOptions(path, chooseResolver(writer, options), options);
  const r = await importFile(
    path,
    writer,
    (bytes) => parseSplits(bytes, parseOptions),
    (res) => writer.insertSplits(res.splits),
  );
  return r.summary;
}
