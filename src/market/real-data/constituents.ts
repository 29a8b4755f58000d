/**
 * @module market/real-data/constituents
 * The OKFN "S&P 500 companies with financial information" files (datasets/s-and-p-500-companies-financials):
 * one row per constituent with name, GICS sector and a snapshot of fundamentals. Two vintages are read:
 * - 2018-02-08: `Symbol,Name,Sector,Price,Price/Earnings,Dividend Yield,Earnings/Share,52 Week Low,52 Week High,
 *   Market Cap,EBITDA,Price/Sales,Price/Book,SEC Filings` — Market Cap and EBITDA in USD;
 * - 2013-02-10: `Symbol,Name,Sector,Price,Dividend Yield,Price/Earnings,Earnings/Share,Book Value,52 week low,
 *   52 week high,Market Cap,EBITDA,Price/Sales,Price/Book,SEC Filings` — Market Cap and EBITDA in BILLIONS.
 * Columns are found by name, so the different order does not matter; the money unit is told apart by the
 * presence of `Book Value` (2013 layout) unless given. Dividend Yield is in percent in both files and becomes
 * a fraction. The 52-week columns (swapped in the 2018 file), Book Value and SEC Filings are not used.
 */
import { knownSectorLabels, sectorCodeForName } from "../../core/catalog/taxonomy.js";
import type { CharacteristicValue } from "../../core/data/types.js";
import type { CsvInput } from "../importers/csv-input.js";
import { readCsvTable } from "../importers/csv-table.js";
import { isMissing } from "../importers/fields.js";
import { numberField, SymbolColumn, type SymbolParseOptions } from "../importers/import-support.js";
import { FlawLog, type ImportSummary } from "../importers/summary.js";

/** One resolved constituent row. Money in USD. */
export interface ConstituentRow {
  themeAssetId: string;
  symbol: string;
  name: string;
  /** Sector code of the taxonomy (10..60). */
  sector: number;
  price: number | null;
  marketCap: number | null;
  line: number;
}

/** Options of {@link parseConstituentsFinancials}. */
export interface ConstituentsParseOptions extends SymbolParseOptions {
  /** Date stamped on every characteristic: the trading day the snapshot reflects. */
  date: string;
  /**
   * Multiplier of Market Cap and EBITDA to get USD.
   * @default 1e9 when the header has a "Book Value" column (the 2013 layout), else 1
   */
  moneyScale?: number;
}

/** Result of {@link parseConstituentsFinancials}: resolved rows, characteristics and the summary. */
export interface ConstituentsParseResult {
  rows: ConstituentRow[];
  values: CharacteristicValue[];
  summary: ImportSummary;
}

/** Characteristic columns: header aliases, our name, and the conversion of the cell. */
const COLUMNS: readonly { aliases: string[]; name: string; money?: true; percent?: true }[] = [
  { aliases: ["market_cap"], name: "market_cap", money: true },
  { aliases: ["dividend_yield"], name: "dividend_yield", percent: true },
  { aliases: ["price_earnings"], name: "pe" },
  { aliases: ["price_book"], name: "pb" },
  { aliases: ["price_sales"], name: "ps" },
  { aliases: ["earnings_share"], name: "eps" },
  { aliases: ["ebitda"], name: "ebitda", money: true },
];

/**
 * Parses one vintage into constituent rows and point-in-time characteristics stamped `options.date`:
 * market_cap, dividend_yield (fraction), pe, pb, ps, eps, ebitda as published, plus
 * book_to_price = 1 / pb (when pb > 0) and earnings_yield = eps / price (when price > 0).
 * Empty cells are reported as `empty_value` and give no value.
 * @throws {CsvFormatError} missing columns, a bad number, an unknown sector name (file, line, column).
 * @throws {UnresolvedSymbolError} a symbol the resolver rejects (unless `onUnresolvedSymbol: "skip"`).
 */
export async function parseConstituentsFinancials(
  input: CsvInput,
  options: ConstituentsParseOptions,
): Promise<ConstituentsParseResult> {
  const file = options.file ?? "<input>";
  const flaws = new FlawLog(options.maxFlawsListedPerKind);
  const rows: ConstituentRow[] = [];
  const values: CharacteristicValue[] = [];
  const seen = new Map<string, number>();
  const date = options.date;
  let layout = "okfn_constituents";
  let skipped = 0;

  const { header, rowsRead } = await readCsvTable(
    input,
    file,
    "Symbol,Name,Sector,Price,...,Market Cap,...",
    (h) => {
      const symbols = new SymbolColumn(h, h.require(["symbol"], layout), flaws, options);
      const iName = h.require(["name"], layout);
      const iSector = h.require(["sector"], layout);
      const iPrice = h.require(["price"], layout);
      const legacy = h.has("book_value");
      layout = legacy ? "okfn_constituents_2013" : "okfn_constituents_2018";
      const scale = options.moneyScale ?? (legacy ? 1e9 : 1);
      const columns = COLUMNS.map((c) => ({ ...c, index: h.require(c.aliases, layout) }));

      return (fields, line) => {
        const id = symbols.resolve(fields, line, date);
        if (id === null) {
          skipped++;
          return;
        }
        const prior = seen.get(id);
        if (prior !== undefined) {
          skipped++;
          flaws.add(
            "duplicate",
            "skipped",
            id,
            date,
            line,
            `second row for ${id} (first at line ${prior}); first kept, this one skipped.`,
          );
          return;
        }
        seen.set(id, line);
        const sectorName = fields[iSector]!.trim();
        const sector = sectorCodeForName(sectorName);
        if (sector === null)
          throw h.error(
            line,
            iSector,
            `unknown sector name ${JSON.stringify(sectorName)} (known: ${knownSectorLabels().join(", ")}).`,
          );
        const price = isMissing(fields[iPrice]!) ? null : numberField(h, fields, iPrice, line);
        if (price === null)
          flaws.add(
            "empty_value",
            "skipped",
            id,
            date,
            line,
            "empty Price; no shares or earnings yield derived.",
          );

        const got = new Map<string, number>();
        for (const c of columns) {
          if (isMissing(fields[c.index]!)) {
            flaws.add(
              "empty_value",
              "skipped",
              id,
              date,
              line,
              `empty ${h.name(c.index)}; no ${c.name} value.`,
            );
            continue;
          }
          let v = numberField(h, fields, c.index, line);
          if (c.money) v *= scale;
          if (c.percent) v /= 100;
          got.set(c.name, v);
          values.push({ themeAssetId: id, date, name: c.name, value: v });
        }
        const pb = got.get("pb");
        if (pb !== undefined && pb > 0)
          values.push({ themeAssetId: id, date, name: "book_to_price", value: 1 / pb });
        const eps = got.get("eps");
        if (eps !== undefined && price !== null && price > 0)
          values.push({ themeAssetId: id, date, name: "earnings_yield", value: eps / price });

        rows.push({
          themeAssetId: id,
          symbol: fields[symbols.index]!.trim().toUpperCase(),
          name: fields[iName]!.trim(),
          sector,
          price,
          marketCap: got.get("market_cap") ?? null,
          line,
        });
      };
    },
  );

  const summary = flaws.summary({
    file,
    dataset: "characteristics",
    layout,
    rowsRead,
    rowsKept: rowsRead - skipped,
    rowsSkipped: skipped,
    records: values.length,
    symbols: rows.length,
    firstDate: values.length > 0 ? date : null,
    lastDate: values.length > 0 ? date : null,
    ignoredColumns: header.ignoredColumns(),
  });
  return { rows, values, summary };
}
