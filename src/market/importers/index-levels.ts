/**
 * @module market/importers/index-levels
 * Benchmark index levels from CSV. Layouts:
 * - `ohlc`: `Date,Open,High,Low,Close,Adj Close,Volume` or `DATE,OPEN,HIGH,LOW,CLOSE` — the level is `Close`;
 *   the identifier must be given as an option;
 * - `two_column`: `Date,SP500` or `observation_date,SP500` (FRED) — the level is the second column, whose
 *   name is the identifier unless the option says otherwise.
 * Dates `YYYY-MM-DD` or `M/D/YYYY`. An empty, zero or negative level is reported (`no_close`) and skipped.
 */
import { CURRENCIES, type Currency, type IndexInfo, type IndexLevel } from "../../core/data/types.js";
import type { MarketDataWriter } from "../writer.js";
import type { CsvInput } from "./csv-input.js";
import { readCsvTable } from "./csv-table.js";
import { DateCache, isMissing } from "./fields.js";
import { dateField, importFile, numberField, type ParseOptions } from "./import-support.js";
import { dateRange, FlawLog, type ImportSummary } from "./summary.js";

/** Options of {@link parseIndexLevels}. */
export interface IndexLevelParseOptions extends ParseOptions {
  /** Canonical identifier, e.g. `SP500`. Required for the ohlc layout. @default the value column's name (two_column) */
  identifier?: string;
  /** @default the identifier */
  name?: string;
  /** @default "USD" */
  currency?: Currency;
  /** @default null */
  description?: string;
}

/** Result of {@link parseIndexLevels}: the index definition, its levels (ascending dates) and the summary. */
export interface IndexLevelParseResult {
  index: IndexInfo;
  levels: IndexLevel[];
  summary: ImportSummary;
}

const IDENTIFIER = /^[A-Z0-9][A-Z0-9_.^-]*$/;

/**
 * Parses an index-level CSV.
 * @throws {CsvFormatError} bad date or number, missing columns, no identifier for the ohlc layout.
 * @throws {RangeError} when `options.identifier` or `options.currency` is malformed.
 * @example
 * const { index, levels } = await parseIndexLevels("Date,SP500\n1990-01-02,359.69\n");
 * // index.identifier === "SP500", levels[0].level === 359.69
 */
export async function parseIndexLevels(
  input: CsvInput,
  options: IndexLevelParseOptions = {},
): Promise<IndexLevelParseResult> {
  const file = options.file ?? "<input>";
  if (options.identifier !== undefined && !IDENTIFIER.test(options.identifier))
    throw new RangeError(
      `parseIndexLevels: identifier "${options.identifier}" must be upper-case letters, digits, _ . ^ -`,
    );
  const currency = options.currency ?? "USD";
  if (!(CURRENCIES as readonly string[]).includes(currency))
    throw new RangeError(`parseIndexLevels: unknown currency "${currency}"`);
  const flaws = new FlawLog(options.maxFlawsListedPerKind);
  const dates = new DateCache();
  const levels: IndexLevel[] = [];
  const seen = new Map<string, number>();
  let identifier = options.identifier ?? "";
  let layout = "ohlc";
  let skipped = 0;

  const { header, rowsRead } = await readCsvTable(
    input,
    file,
    "Date,Open,High,Low,Close,Adj Close,Volume",
    (h) => {
      const iDate = h.require(["date", "observation_date", "data"], "index levels");
      let iLevel: number;
      if (h.has("close")) {
        layout = "ohlc";
        iLevel = h.find("close");
        if (identifier === "")
          throw h.error(
            h.line,
            iLevel,
            "the ohlc layout does not name the index: pass the identifier option (e.g. SP500).",
          );
      } else if (h.width === 2) {
        layout = "two_column";
        iLevel = 1 - iDate;
        h.markUsed(iLevel);
        if (identifier === "") {
          identifier = h.names[iLevel]!.toUpperCase();
          if (!IDENTIFIER.test(identifier))
            throw h.error(
              h.line,
              iLevel,
              `column name ${JSON.stringify(h.names[iLevel])} is not a usable index identifier; pass the identifier option.`,
            );
        }
      } else
        throw h.error(
          h.line,
          h.width - 1,
          'expected a "Close" column (ohlc layout) or exactly two columns such as "Date,SP500".',
        );
      return (fields, line) => {
        const date = dateField(h, dates, fields, iDate, line);
        if (isMissing(fields[iLevel]!)) {
          skipped++;
          flaws.add(
            "no_close",
            "skipped",
            identifier,
            date,
            line,
            `no ${identifier} level (${JSON.stringify(fields[iLevel])}); row skipped.`,
          );
          return;
        }
        const level = numberField(h, fields, iLevel, line);
        if (!(level > 0)) {
          skipped++;
          flaws.add(
            "no_close",
            "skipped",
            identifier,
            date,
            line,
            `level ${level} is not usable; row skipped.`,
          );
          return;
        }
        const prior = seen.get(date);
        if (prior !== undefined) {
          skipped++;
          flaws.add(
            "duplicate",
            "skipped",
            identifier,
            date,
            line,
            `second ${identifier} level for ${date} (first at line ${prior}); first kept, this one skipped.`,
          );
          return;
        }
        seen.set(date, line);
        levels.push({ identifier, date, level });
      };
    },
  );

  levels.sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
  const summary = flaws.summary({
    file,
    dataset: "index_levels",
    layout,
    rowsRead,
    rowsKept: rowsRead - skipped,
    rowsSkipped: skipped,
    records: levels.length,
    symbols: levels.length > 0 ? 1 : 0,
    ...dateRange(levels.map((l) => l.date)),
    ignoredColumns: header.ignoredColumns(),
  });
  const index: IndexInfo = {
    identifier,
    name: options.name ?? identifier,
    currency,
    description: options.description ?? null,
  };
  return { index, levels, summary };
}

/**
 * Parses the whole index-level file, then upserts the index and inserts its levels in one transaction.
 * @throws {CsvFormatError} before anything is written.
 * @example
 * await importIndexLevels("benchmark/sp500_index_daily_ohlcv_1999-2018.csv", store, { identifier: "SP500", name: "S&P 500" });
 */
export async function importIndexLevels(
  path: string,
  writer: MarketDataWriter,
  options: Omit<IndexLevelParseOptions, "file"> = {},
): Promise<ImportSummary> {
  const r = await importFile(
    path,
    writer,
    (bytes) => parseIndexLevels(bytes, { ...options, file: path }),
    (res) => {
      writer.upsertIndex(res.index);
      writer.insertIndexLevels(res.levels);
    },
  );
  return r.summary;
}
