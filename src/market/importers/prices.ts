/**
 * @module market/importers/prices
 * Daily price bars from CSV. Two layouts, told apart by the header:
 * - `long`: `date,open,high,low,close,volume,Name` — many symbols per file (the symbol column may also be
 *   called `symbol`, `ticker` or `theme_asset_id`);
 * - `yahoo`: `Date,Open,High,Low,Close,Adj Close,Volume` — one symbol per file, given as an option or taken
 *   from the file name (`AAPL.csv` -> `AAPL`).
 * Only date and close are required; open/high/low/adj close/volume may be absent or empty. Dates are
 * `YYYY-MM-DD` or `M/D/YYYY`. Known data flaws are reported in the summary, never thrown (see `FlawKind`).
 */
import type { PriceBar, Security } from "../../core/data/types.js";
import type { MarketDataWriter } from "../writer.js";
import { type CsvInput, fileStem } from "./csv-input.js";
import { readCsvTable } from "./csv-table.js";
import { UnresolvedSymbolError } from "./errors.js";
import { DateCache, isMissing, notANumberMessage, parseNumber } from "./fields.js";
import {
  chooseResolver,
  importFile,
  SymbolColumn,
  type SymbolImportOptions,
  type SymbolParseOptions,
} from "./import-support.js";
import { minimalSecurity } from "./minimal-security.js";
import { FlawLog, type ImportSummary } from "./summary.js";
import { themeAssetIdsOnly } from "./symbol-resolver.js";

/** Default |log return| above which a day is reported as a `jump`. */
export const DEFAULT_JUMP_THRESHOLD = 0.35;

/** Options of {@link parsePrices}. */
export interface PriceParseOptions extends SymbolParseOptions {
  /** Yahoo layout only: the file's symbol (or theme_asset_id). @default the file-name stem of `file` */
  symbol?: string;
  /** |ln(close_t / close_{t-1})| above which a `jump` is reported. @default 0.35 */
  jumpThreshold?: number;
  /**
   * Ascending trading calendar for the `late_start`, `early_end` and `gap` checks.
   * @default the sorted distinct dates of the file itself
   */
  calendar?: readonly string[];
}

/** Result of {@link parsePrices}: bars in file order (skipped rows removed) and the summary. */
export interface PriceParseResult {
  bars: PriceBar[];
  summary: ImportSummary;
}

const EXPECTED = "date,open,high,low,close,volume,Name";

/**
 * Parses a price CSV (text, bytes, gzip, or a stream) into bars and a summary.
 * @throws {CsvFormatError} wrong field count, bad number or date, missing required column (file, line, column).
 * @throws {UnresolvedSymbolError} a symbol that does not resolve (unless `onUnresolvedSymbol: "skip"`).
 * @example
 * const { bars, summary } = await parsePrices("date,close,Name\n2024-01-02,10.5,ABC\n", {
 *   resolver: resolverForMic("XNYS"),
 * }); // bars[0] = { themeAssetId: "ABC:XNYS", date: "2024-01-02", close: 10.5, ... }
 */
export async function parsePrices(
  input: CsvInput,
  options: PriceParseOptions = {},
): Promise<PriceParseResult> {
  const file = options.file ?? "<input>";
  const threshold = options.jumpThreshold ?? DEFAULT_JUMP_THRESHOLD;
  if (!(threshold > 0)) throw new RangeError(`parsePrices: jumpThreshold must be > 0, got ${threshold}`);
  const flaws = new FlawLog(options.maxFlawsListedPerKind);
  const dates = new DateCache();
  const bars: PriceBar[] = [];
  const lines: number[] = [];
  let layout = "long";
  let skippedRows = 0;

  const { header, rowsRead } = await readCsvTable(input, file, EXPECTED, (h) => {
    const iSym = h.find("name", "symbol", "ticker", "theme_asset_id");
    layout = iSym === -1 ? "yahoo" : "long";
    const iDate = h.require(["date", "timestamp"], `${layout} price`);
    const iClose = h.require(["close"], `${layout} price`);
    const iOpen = h.find("open");
    const iHigh = h.find("high");
    const iLow = h.find("low");
    const iAdj = h.find("adj_close", "adjusted_close", "adjclose");
    const iVol = h.find("volume");
    const optional: [number, string][] = (
      [
        [iOpen, "open"],
        [iHigh, "high"],
        [iLow, "low"],
        [iAdj, "adj close"],
        [iVol, "volume"],
      ] as [number, string][]
    ).filter(([i]) => i !== -1);

    let fixedId: string | null = null;
    let symbols: SymbolColumn | null = null;
    if (iSym === -1) {
      const token = options.symbol ?? fileStem(file);
      const r = (options.resolver ?? themeAssetIdsOnly)(token);
      if (!r.ok)
        throw new UnresolvedSymbolError(
          { file, line: h.line, column: "(symbol option / file name)" },
          token,
          r.reason,
          `the ${layout} layout has no symbol column, so the symbol comes from the "symbol" option or the file name: ${r.message}`,
          r.candidates,
        );
      fixedId = r.themeAssetId;
    } else symbols = new SymbolColumn(h, iSym, flaws, options);

    const num = (fields: string[], i: number, line: number): number => {
      const v = parseNumber(fields[i]!);
      if (Number.isNaN(v)) throw h.error(line, i, notANumberMessage(fields[i]!));
      return v;
    };

    return (fields, line) => {
      const date = dates.parse(fields[iDate]!);
      if (date === null)
        throw h.error(
          line,
          iDate,
          `${JSON.stringify(fields[iDate])} is not a date (expected YYYY-MM-DD or M/D/YYYY).`,
        );
      const id = fixedId ?? symbols!.resolve(fields, line, date);
      if (id === null) {
        skippedRows++;
        return;
      }
      const rawClose = fields[iClose]!;
      if (isMissing(rawClose)) {
        skippedRows++;
        flaws.add(
          "no_close",
          "skipped",
          id,
          date,
          line,
          `no close (${JSON.stringify(rawClose)}); row skipped.`,
        );
        return;
      }
      const close = num(fields, iClose, line);
      if (!(close > 0)) {
        skippedRows++;
        flaws.add(
          "no_close",
          "skipped",
          id,
          date,
          line,
          `close ${close} is not a usable price; row skipped.`,
        );
        return;
      }
      let open: number | null = null;
      let high: number | null = null;
      let low: number | null = null;
      let adjClose: number | null = null;
      let volume: number | null = null;
      let empty: string[] | null = null;
      for (let k = 0; k < optional.length; k++) {
        const i = optional[k]![0];
        if (isMissing(fields[i]!)) {
          if (empty === null) empty = [];
          empty.push(optional[k]![1]);
          continue;
        }
        const v = num(fields, i, line);
        if (i === iOpen) open = v;
        else if (i === iHigh) high = v;
        else if (i === iLow) low = v;
        else if (i === iAdj) adjClose = v;
        else {
          if (v < 0) throw h.error(line, i, `volume ${v} is negative.`);
          volume = v;
        }
      }
      if (empty !== null)
        flaws.add(
          "empty_field",
          "kept",
          id,
          date,
          line,
          `empty ${empty.join(", ")}; row kept with null ${empty.length > 1 ? "values" : "value"}.`,
        );
      if (volume === 0) flaws.add("zero_volume", "kept", id, date, line, "volume is 0; row kept.");
      if (high !== null && low !== null && (high < low || close > high || close < low))
        flaws.add(
          "ohlc_inconsistent",
          "kept",
          id,
          date,
          line,
          high < low
            ? `high ${high} < low ${low} (close ${close}); row kept as is.`
            : `close ${close} outside [low ${low}, high ${high}]; row kept as is.`,
        );
      bars.push({ themeAssetId: id, date, open, high, low, close, adjClose, volume });
      lines.push(line);
    };
  });

  const analysis = analyzeSeries(bars, lines, flaws, threshold, options.calendar);
  const kept = analysis.keep === null ? bars : bars.filter((_, k) => analysis.keep![k] === 1);
  skippedRows += bars.length - kept.length;
  const summary = flaws.summary({
    file,
    dataset: "prices",
    layout,
    rowsRead,
    rowsKept: rowsRead - skippedRows,
    rowsSkipped: skippedRows,
    records: kept.length,
    symbols: analysis.symbols,
    firstDate: analysis.firstDate,
    lastDate: analysis.lastDate,
    ignoredColumns: header.ignoredColumns(),
  });
  return { bars: kept, summary };
}

interface SeriesAnalysis {
  /** 1 = keep, 0 = duplicate skipped; null when every bar is kept. */
  keep: Uint8Array | null;
  symbols: number;
  firstDate: string | null;
  lastDate: string | null;
}

function plural(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? "" : "s"}`;
}

function formatRuns(runs: [string, string, number][]): string {
  const shown = runs.slice(0, 12).map(([a, b]) => (a === b ? a : `${a}..${b}`));
  return shown.join(", ") + (runs.length > 12 ? `, ... (${runs.length} runs)` : "");
}

/**
 * Whole-file checks per series: duplicates (first row kept), late starts, early ends, internal gaps against
 * the calendar, and jumps between consecutive closes.
 */
function analyzeSeries(
  bars: readonly PriceBar[],
  lines: readonly number[],
  flaws: FlawLog,
  threshold: number,
  calendarOption: readonly string[] | undefined,
): SeriesAnalysis {
  const groups = new Map<string, number[]>();
  for (let k = 0; k < bars.length; k++) {
    const id = bars[k]!.themeAssetId;
    let g = groups.get(id);
    if (g === undefined) {
      g = [];
      groups.set(id, g);
    }
    g.push(k);
  }
  let keep: Uint8Array | null = null;
  for (const [id, g] of groups) {
    let sorted = true;
    for (let j = 1; j < g.length; j++)
      if (bars[g[j]!]!.date < bars[g[j - 1]!]!.date) {
        sorted = false;
        break;
      }
    if (!sorted)
      g.sort((a, b) => (bars[a]!.date < bars[b]!.date ? -1 : bars[a]!.date > bars[b]!.date ? 1 : a - b));
    let w = 1;
    for (let j = 1; j < g.length; j++) {
      const prev = bars[g[w - 1]!]!;
      const cur = bars[g[j]!]!;
      if (cur.date === prev.date) {
        keep ??= new Uint8Array(bars.length).fill(1);
        keep[g[j]!] = 0;
        const same =
          cur.close === prev.close &&
          cur.open === prev.open &&
          cur.high === prev.high &&
          cur.low === prev.low &&
          cur.volume === prev.volume;
        flaws.add(
          "duplicate",
          "skipped",
          id,
          cur.date,
          lines[g[j]!]!,
          `second row for ${id} on ${cur.date} (first at line ${lines[g[w - 1]!]}, ${same ? "identical values" : `close ${prev.close} vs ${cur.close}`}); first kept, this one skipped.`,
        );
      } else g[w++] = g[j]!;
    }
    g.length = w;
  }

  let calendar: readonly string[];
  if (calendarOption) calendar = calendarOption;
  else {
    const set = new Set<string>();
    for (const g of groups.values()) for (const k of g) set.add(bars[k]!.date);
    calendar = [...set].sort();
  }
  const position = new Map<string, number>();
  for (let i = 0; i < calendar.length; i++) position.set(calendar[i]!, i);
  const calFirst = calendar[0];
  const calLast = calendar[calendar.length - 1];
  let firstDate: string | null = null;
  let lastDate: string | null = null;

  for (const [id, g] of groups) {
    const first = bars[g[0]!]!;
    const last = bars[g[g.length - 1]!]!;
    if (firstDate === null || first.date < firstDate) firstDate = first.date;
    if (lastDate === null || last.date > lastDate) lastDate = last.date;
    const p0 = position.get(first.date);
    if (calFirst !== undefined && p0 !== undefined && first.date > calFirst)
      flaws.add(
        "late_start",
        "noted",
        id,
        first.date,
        lines[g[0]!]!,
        `series starts ${first.date}, ${plural(p0, "trading day")} after the calendar's first date ${calFirst}; rows kept.`,
      );
    const pEnd = position.get(last.date);
    if (calLast !== undefined && pEnd !== undefined && last.date < calLast)
      flaws.add(
        "early_end",
        "noted",
        id,
        last.date,
        lines[g[g.length - 1]!]!,
        `series ends ${last.date}, ${plural(calendar.length - 1 - pEnd, "trading day")} before the calendar's last date ${calLast}; rows kept.`,
      );

    const runs: [string, string, number][] = [];
    let missing = 0;
    let firstGapLine = 0;
    let prevPos = p0 ?? -1;
    let prevClose = first.close;
    let prevDate = first.date;
    for (let j = 1; j < g.length; j++) {
      const bar = bars[g[j]!]!;
      const p = position.get(bar.date);
      if (p !== undefined && prevPos >= 0 && p > prevPos + 1) {
        if (runs.length === 0) firstGapLine = lines[g[j]!]!;
        runs.push([calendar[prevPos + 1]!, calendar[p - 1]!, p - prevPos - 1]);
        missing += p - prevPos - 1;
      }
      if (p !== undefined) prevPos = p;
      const r = Math.log(bar.close / prevClose);
      if (Math.abs(r) > threshold)
        flaws.add(
          "jump",
          "kept",
          id,
          bar.date,
          lines[g[j]!]!,
          `log return ${r >= 0 ? "+" : ""}${r.toFixed(3)} from ${prevDate} (close ${prevClose} -> ${bar.close}): spin-off, corporate action not back-adjusted, or bad tick; row kept.`,
        );
      prevClose = bar.close;
      prevDate = bar.date;
    }
    if (runs.length > 0)
      flaws.add(
        "gap",
        "noted",
        id,
        runs[0]![0],
        firstGapLine,
        `${plural(missing, "trading day")} of the calendar missing inside the series: ${formatRuns(runs)}; nothing filled in.`,
      );
  }
  return { keep, symbols: groups.size, firstDate, lastDate };
}

/** Options of {@link importPrices}. */
export interface ImportPricesOptions extends SymbolImportOptions {
  /** Yahoo layout only: the file's symbol. @default the file-name stem */
  symbol?: string;
  /** @default 0.35 */
  jumpThreshold?: number;
  /** @default the file's own dates */
  calendar?: readonly string[];
  /**
   * With `defaultMic` (or a custom resolver): upsert a minimal security (name = symbol, currency and country
   * from the MIC) for every resolved theme_asset_id the store does not know, in the same transaction.
   * @default false
   */
  createMissingSecurities?: boolean;
}

/**
 * Parses the whole price file at `path` (.csv or .csv.gz), then writes its bars (and, on request, missing
 * securities) in one transaction.
 * @throws {CsvFormatError} / {UnresolvedSymbolError} before anything is written.
 * @example
 * const summary = await importPrices("prices/all_stocks_5yr.csv.gz", store, { defaultMic: "XNYS" });
 */
export async function importPrices(
  path: string,
  writer: MarketDataWriter,
  options: ImportPricesOptions = {},
): Promise<ImportSummary> {
  const resolver = chooseResolver(writer, options);
  const parseOptions: PriceParseOptions = { file: path, resolver };
  if (options.symbol !== undefined) parseOptions.symbol = options.symbol;
  if (options.jumpThreshold !== undefined) parseOptions.jumpThreshold = options.jumpThreshold;
  if (options.calendar !== undefined) parseOptions.calendar = options.calendar;
  if (options.onUnresolvedSymbol !== undefined) parseOptions.onUnresolvedSymbol = options.onUnresolvedSymbol;
  if (options.maxFlawsListedPerKind !== undefined)
    parseOptions.maxFlawsListedPerKind = options.maxFlawsListedPerKind;
  const result = await importFile(
    path,
    writer,
    (bytes) => parsePrices(bytes, parseOptions),
    (r) => {
      if (options.createMissingSecurities) {
        const missing = missingSecurities(writer, r.bars);
        if (missing.length > 0) writer.upsertSecurities(missing);
      }
      writer.insertPrices(r.bars);
    },
  );
  return result.summary;
}

/** Minimal securities for the ids of `bars` the store does not list. */
function missingSecurities(writer: MarketDataWriter, bars: readonly PriceBar[]): Security[] {
  const firstDate = new Map<string, string>();
  for (const b of bars) {
    const d = firstDate.get(b.themeAssetId);
    if (d === undefined || b.date < d) firstDate.set(b.themeAssetId, b.date);
  }
  const out: Security[] = [];
  for (const [id, from] of firstDate) {
    const symbol = id.slice(0, id.lastIndexOf(":"));
    if (writer.findSecuritiesBySymbol(symbol).some((s) => s.themeAssetId === id)) continue;
    out.push(
      minimalSecurity(id, {
        listedFrom: from,
        description:
          "Created by the price importer (createMissingSecurities); import the security master to complete it.",
      }),
    );
  }
  return out;
}
