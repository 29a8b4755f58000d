/**
 * @module market/importers/index-weights
 * Index constituent weights from CSV: `date,index,theme_asset_id,weight` (`identifier` for `index`, `symbol`
 * or `ticker` for `theme_asset_id`). Weights are fractions in [0, 1]; when one (index, date) does not sum to
 * 1 within 1e-6 the summary says so (`weight_sum`) and the weights are kept as given. The index itself must
 * exist (import its levels first, or `upsertIndex`).
 */
import type { IndexWeight } from "../../core/data/types.js";
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

/** Result of {@link parseIndexWeights}: weights in file order and the summary. */
export interface IndexWeightParseResult {
  weights: IndexWeight[];
  summary: ImportSummary;
}

/** Tolerance on the sum of one date's weights. */
export const WEIGHT_SUM_TOLERANCE = 1e-6;

/**
 * Parses an index-weights CSV.
 * @throws {CsvFormatError} bad date, weight outside [0, 1], missing columns (file, line, column).
 * @throws {UnresolvedSymbolError} unknown or ambiguous symbol (unless `onUnresolvedSymbol: "skip"`).
 * @example
 * const { weights } = await parseIndexWeights("date,index,theme_asset_id,weight\n2018-01-31,SP500,AAPL:XNAS,1\n");
 */
export async function parseIndexWeights(
  input: CsvInput,
  options: SymbolParseOptions = {},
): Promise<IndexWeightParseResult> {
  const file = options.file ?? "<input>";
  const flaws = new FlawLog(options.maxFlawsListedPerKind);
  const dates = new DateCache();
  const weights: IndexWeight[] = [];
  const seen = new Map<string, number>();
  const sums = new Map<string, { sum: number; line: number; identifier: string; date: string; n: number }>();
  let skipped = 0;

  const { header, rowsRead } = await readCsvTable(input, file, "date,index,theme_asset_id,weight", (h) => {
    const iDate = h.require(["date"], "index weights");
    const iIndex = h.require(["index", "identifier", "index_identifier"], "index weights");
    const symbols = new SymbolColumn(
      h,
      h.require(["theme_asset_id", "symbol_or_theme_asset_id", "symbol", "ticker"], "index weights"),
      flaws,
      options,
    );
    const iWeight = h.require(["weight"], "index weights");
    return (fields, line) => {
      const date = dateField(h, dates, fields, iDate, line);
      const identifier = fields[iIndex]!.trim().toUpperCase();
      if (identifier === "") throw h.error(line, iIndex, "the index identifier is empty.");
      const id = symbols.resolve(fields, line, date);
      if (id === null) {
        skipped++;
        return;
      }
      if (isMissing(fields[iWeight]!)) {
        skipped++;
        flaws.add("empty_value", "skipped", id, date, line, `empty ${identifier} weight; no record.`);
        return;
      }
      const weight = numberField(h, fields, iWeight, line);
      if (!(weight >= 0 && weight <= 1))
        throw h.error(
          line,
          iWeight,
          `weight ${weight} is outside [0, 1] (weights are fractions, not percents).`,
        );
      const key = `${identifier}|${date}|${id}`;
      const prior = seen.get(key);
      if (prior !== undefined) {
        skipped++;
        flaws.add(
          "duplicate",
          "skipped",
          id,
          date,
          line,
          `second ${identifier} weight for ${id} on ${date} (first at line ${prior}); first kept, this one skipped.`,
        );
        return;
      }
      seen.set(key, line);
      weights.push({ identifier, date, themeAssetId: id, weight });
      const sk = `${identifier}|${date}`;
      const s = sums.get(sk);
      if (s === undefined) sums.set(sk, { sum: weight, line, identifier, date, n: 1 });
      else {
        s.sum += weight;
        s.n++;
      }
    };
  });

  for (const s of sums.values())
    if (Math.abs(s.sum - 1) > WEIGHT_SUM_TOLERANCE)
      flaws.add(
        "weight_sum",
        "kept",
        s.identifier,
        s.date,
        s.line,
        `${s.n} ${s.identifier} weights on ${s.date} sum to ${s.sum.toPrecision(8)}, not 1; kept as given.`,
      );

  const summary = flaws.summary({
    file,
    dataset: "index_weights",
    layout: "long",
    rowsRead,
    rowsKept: rowsRead - skipped,
    rowsSkipped: skipped,
    records: weights.length,
    symbols: new Set(weights.map((w) => w.themeAssetId)).size,
    ...dateRange(weights.map((w) => w.date)),
    ignoredColumns: header.ignoredColumns(),
  });
  return { weights, summary };
}

/**
 * Parses the whole weights file, then inserts the weights in one transaction.
 * @throws {CsvFormatError} / {UnresolvedSymbolError} before anything is written.
 */
export async function importIndexWeights(
  path: string,
  writer: MarketDataWriter,
  options: SymbolImportOptions = {},
): Promise<ImportSummary> {
  const parseOptions = symbolParseOptions(path, chooseResolver(writer, options), options);
  const r = await importFile(
    path,
    writer,
    (bytes) => parseIndexWeights(bytes, parseOptions),
    (res) => writer.insertIndexWeights(res.weights),
  );
  return r.summary;
}
