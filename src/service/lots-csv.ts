/**
 * @module service/lots-csv
 * Reading tax lots from broker exports (Schwab, Fidelity, Interactive Brokers style "open lots" / "unrealized gain
 * lot details" CSVs, or lotwise's own layout). Columns are found by header synonyms, or mapped explicitly; values may
 * carry `$`, thousands separators and quotes; dates come in the common formats. Every row is validated and every
 * problem reported with its line and column; nothing is returned unless the whole file is valid (all-or-nothing).
 */
import { parse } from "csv-parse/sync";
import { Decimal } from "decimal.js";
import { LOT_IMPORT_FIELDS } from "../contract/index.js";
import { CURRENCIES, type Currency } from "../core/data/types.js";
import { isIsoDate } from "../core/dates.js";
import { type FieldIssue, ValidationError } from "../core/errors.js";

/** Fields a lot row can carry. */
export const LOT_CSV_FIELDS = LOT_IMPORT_FIELDS;
export type LotCsvField = (typeof LOT_CSV_FIELDS)[number];

/** Header synonyms (compared lower-case with everything but letters and digits removed). */
export const LOT_CSV_SYNONYMS: Readonly<Record<LotCsvField, readonly string[]>> = {
  symbol: ["symbol", "ticker", "themeassetid", "security", "instrument", "symbolcusip"],
  quantity: ["quantity", "qty", "shares", "units", "position", "openquantity"],
  cost_per_share: [
    "costshare",
    "costpershare",
    "costbasispershare",
    "unitcost",
    "costbasisprice",
    "averagecost",
    "pricepaid",
    "purchaseprice",
  ],
  total_cost: ["costbasis", "costbasistotal", "totalcost", "costbasismoney", "totalcostbasis", "cost"],
  trade_date: [
    "tradedate",
    "opendate",
    "dateacquired",
    "acquired",
    "acquisitiondate",
    "purchasedate",
    "datetime",
    "date",
  ],
  currency: ["currency", "costbasiscurrency", "currencyprimary", "ccy"],
  fx_rate: ["fxrate", "exchangerate", "fxratetobase"],
  mic: ["mic", "exchange", "listingexchange"],
  wash_sale_date: ["washsaledate"],
  last_sold_for_loss_date: ["lastsoldforlossdate"],
};

export type DateOrder = "auto" | "ymd" | "mdy" | "dmy";

export interface LotCsvOptions {
  /** Name of the file, for messages. @default "lots.csv" */
  fileName?: string;
  /** Explicit column for a field, by header text (overrides synonyms), e.g. `{ trade_date: "Open Date" }`. */
  columns?: Partial<Record<LotCsvField, string>>;
  /** How to read dates like 03/04/2024. @default "auto" (US month/day unless the first part exceeds 12) */
  dateOrder?: DateOrder;
  /** Currency when the file has none. @default "USD" */
  defaultCurrency?: Currency;
}

/** One lot as read from the file, before its symbol is resolved to a listing. */
export interface ParsedLotRow {
  line: number;
  symbol: string;
  mic: string | null;
  quantity: string;
  /** Exactly one of the two is set. */
  costPerShare: string | null;
  totalCost: string | null;
  currency: Currency;
  fxRate: string | null;
  tradeDate: string;
  washSaleDate: string | null;
  lastSoldForLossDate: string | null;
}

export interface ParsedLots {
  rows: ParsedLotRow[];
  /** Lines skipped on purpose (blank symbol, totals, cash), with the reason. */
  skipped: { line: number; reason: string }[];
  /** Header text used for each field. */
  columns: Partial<Record<LotCsvField, string>>;
}

const MONTHS: Record<string, number> = {
  jan: 1,
  feb: 2,
  mar: 3,
  apr: 4,
  may: 5,
  jun: 6,
  jul: 7,
  aug: 8,
  sep: 9,
  oct: 10,
  nov: 11,
  dec: 12,
};

const norm = (h: string) => h.toLowerCase().replace(/[^a-z0-9]/g, "");
const pad = (n: number) => String(n).padStart(2, "0");

/**
 * A date in any common export format -> `YYYY-MM-DD`, or null when it cannot be read.
 * Accepts 2024-03-05, 20240305, 3/5/2024, 03/05/24, 05-Mar-2024, Mar 5, 2024, and a trailing time.
 */
export function parseLotDate(text: string, order: DateOrder = "auto"): string | null {
  const s = text
    .trim()
    .replace(/[T ,]\s*\d{1,2}:\d{2}(:\d{2})?.*$/, "")
    .trim();
  const ymd = readYmd(s, order);
  if (!ymd) return null;
  const iso = `${String(ymd[0]).padStart(4, "0")}-${pad(ymd[1])}-${pad(ymd[2])}`;
  return isIsoDate(iso) ? iso : null;
}

/** Year, month, day of a date text in one of the accepted formats, or null. */
function readYmd(s: string, order: DateOrder): [number, number, number] | null {
  const iso = /^(\d{4})-(\d{1,2})-(\d{1,2})$/.exec(s) ?? /^(\d{4})(\d{2})(\d{2})$/.exec(s);
  if (iso) return [Number(iso[1]), Number(iso[2]), Number(iso[3])];
  const slashed = /^(\d{1,2})[/.-](\d{1,2})[/.-](\d{2}|\d{4})$/.exec(s);
  if (slashed) {
    if (order === "ymd") return null;
    const a = Number(slashed[1]);
    const b = Number(slashed[2]);
    let y = Number(slashed[3]);
    if (slashed[3]!.length === 2) y += y >= 70 ? 1900 : 2000;
    const dayFirst = order === "dmy" || (order === "auto" && a > 12);
    return dayFirst ? [y, b, a] : [y, a, b];
  }
  const dayMonth = /^(\d{1,2})[- ]([A-Za-z]{3})[a-z]*[- ](\d{4})$/.exec(s);
  if (dayMonth) {
    const m = MONTHS[dayMonth[2]!.toLowerCase()];
    return m ? [Number(dayMonth[3]), m, Number(dayMonth[1])] : null;
  }
  const monthDay = /^([A-Za-z]{3})[a-z]*\.? (\d{1,2}),? (\d{4})$/.exec(s);
  if (monthDay) {
    const m = MONTHS[monthDay[1]!.toLowerCase()];
    return m ? [Number(monthDay[3]), m, Number(monthDay[2])] : null;
  }
  return null;
}

/** A number as exported ("$1,234.50", "1 234,5" is not supported, "(12.00)" is negative) -> decimal string or null. */
export function parseLotNumber(text: string): string | null {
  let s = text
    .trim()
    .replace(/^\$|^USD\s*|^CAD\s*/i, "")
    .replace(/[$,\s]/g, "");
  let negative = false;
  if (/^\(.*\)$/.test(s)) {
    negative = true;
    s = s.slice(1, -1);
  }
  if (!/^-?\d+(\.\d+)?$|^-?\.\d+$/.test(s)) return null;
  const d = new Decimal(s);
  return (negative ? d.negated() : d).toFixed();
}

/** Problems listed in one error at most; the message still counts them all. */
export const MAX_LISTED_ISSUES = 1000;
/** Skipped lines listed at most (their count is kept). */
export const MAX_LISTED_SKIPPED = 1000;

/** csv-parse options of a lots file (the sync and the stream reader use the same). */
export const LOT_CSV_PARSE_OPTIONS = {
  relax_column_count: true,
  skip_empty_lines: true,
  bom: true,
  info: true,
  relax_quotes: true,
  trim: true,
} as const;

/** A decimal(20,10) as the contract's lot fields accept it. */
const LOT_DECIMAL = /^-?\d{1,20}(\.\d{1,10})?$/;

/** Problems found in one file: the first {@link MAX_LISTED_ISSUES} listed, all counted. */
export class IssueList {
  readonly listed: FieldIssue[] = [];
  count = 0;
  push(issue: FieldIssue): void {
    this.count++;
    if (this.listed.length < MAX_LISTED_ISSUES) this.listed.push(issue);
  }
  /** The listed issues, with one more line saying how many were left out. */
  details(file: string): FieldIssue[] {
    const more = this.count - this.listed.length;
    return more > 0
      ? [...this.listed, { path: file, message: `${more} more problem(s) not listed` }]
      : this.listed;
  }
}

/**
 * Reads a lots CSV one record at a time (the rows of csv-parse, sync or streamed): finds the header, then checks
 * each row and returns the valid ones. Every problem is collected in {@link LotCsvReader.issues}; {@link
 * LotCsvReader.finish} throws them at the end, so that a file is taken entirely or not at all. Memory does not
 * grow with the file (past the capped lists of problems and skipped lines).
 */
export class LotCsvReader {
  readonly issues = new IssueList();
  readonly skipped: { line: number; reason: string }[] = [];
  skippedCount = 0;
  rowCount = 0;
  private readonly file: string;
  private header: ReturnType<typeof findColumns> | undefined;

  constructor(private readonly options: LotCsvOptions = {}) {
    this.file = options.fileName ?? "lots.csv";
  }

  /** Header text used for each field (empty until the header is found). */
  get columns(): Partial<Record<LotCsvField, string>> {
    return this.header?.columns ?? {};
  }

  /**
   * One record of the file at `line`: the valid lot row, or null for title lines, the header, skipped and invalid
   * rows. @throws {ValidationError} when the header lacks required columns (nothing below it can be read).
   */
  accept(record: readonly string[], line: number): ParsedLotRow | null {
    if (!this.header) {
      // Broker exports put titles above the header: the header is the first row naming a symbol and a quantity column.
      const found = findColumns(record, this.options.columns ?? {});
      if (found.found) {
        this.checkHeader(found);
        this.header = found;
      }
      return null;
    }
    return this.row(record, line);
  }

  /**
   * End of the file. @throws {ValidationError} (code `invalid_lots_file`) for a file without header, with any
   * invalid row (every problem as `line N, column "X": message`) or without lot rows.
   */
  finish(): void {
    const file = this.file;
    if (!this.header)
      throw new ValidationError(
        `${file}: no header row with a symbol and a quantity column was found. Name the columns with --map, e.g. --map symbol=Ticker --map quantity=Shares (over HTTP: the query parameters map_symbol=Ticker&map_quantity=Shares).`,
        [{ path: file, message: "missing header (symbol, quantity, cost and date columns)" }],
        "invalid_lots_file",
      );
    if (this.issues.count > 0)
      throw new ValidationError(
        `${file}: ${this.issues.count} problem(s); nothing was imported.`,
        this.issues.details(file),
        "invalid_lots_file",
      );
    if (this.rowCount === 0)
      throw new ValidationError(
        `${file}: no lot rows below the header.`,
        [{ path: file, message: "empty" }],
        "invalid_lots_file",
      );
  }

  private checkHeader({ index }: ReturnType<typeof findColumns>): void {
    const file = this.file;
    const issues: FieldIssue[] = [];
    if (index.trade_date === undefined)
      issues.push({
        path: `${file}: header`,
        message: `no trade date column (looked for ${LOT_CSV_SYNONYMS.trade_date.join(", ")}); map it with --map trade_date=HEADER (over HTTP: map_trade_date=HEADER)`,
      });
    if (index.cost_per_share === undefined && index.total_cost === undefined)
      issues.push({
        path: `${file}: header`,
        message:
          "no cost basis column (per share or total); map one with --map cost_per_share=HEADER or --map total_cost=HEADER (over HTTP: map_cost_per_share=HEADER or map_total_cost=HEADER)",
      });
    if (issues.length > 0)
      throw new ValidationError(`${file}: the header lacks required columns.`, issues, "invalid_lots_file");
  }

  private row(record: readonly string[], line: number): ParsedLotRow | null {
    const { index, columns } = this.header!;
    const options = this.options;
    const file = this.file;
    const issues = this.issues;
    const before = issues.count;
    const cell = (f: LotCsvField) => (index[f] === undefined ? "" : (record[index[f]!] ?? "").trim());
    const at = (f: LotCsvField) => `${file}: line ${line}, column "${columns[f]}"`;
    const symbolText = cell("symbol");
    if (symbolText === "" || /^(total|account total|grand total|cash|pending|--)/i.test(symbolText)) {
      this.skippedCount++;
      if (this.skipped.length < MAX_LISTED_SKIPPED)
        this.skipped.push({ line, reason: symbolText === "" ? "no symbol" : `summary row "${symbolText}"` });
      return null;
    }
    const [symbolPart, micPart] = symbolText.includes(":") ? symbolText.split(":") : [symbolText, ""];
    const symbol = symbolPart!.trim().toUpperCase().replace(/\s+/g, "");
    if (!/^[A-Z0-9][A-Z0-9./-]{0,19}$/.test(symbol))
      issues.push({ path: at("symbol"), message: `"${symbolText}" is not a ticker symbol` });
    const tooPrecise = (f: LotCsvField, value: string | null) => {
      if (value !== null && !LOT_DECIMAL.test(value))
        issues.push({
          path: at(f),
          message: `"${cell(f)}" has more than 20 integer digits or 10 decimal places`,
        });
    };
    const quantity = parseLotNumber(cell("quantity"));
    if (quantity === null || new Decimal(quantity).lte(0))
      issues.push({
        path: at("quantity"),
        message: `quantity must be a number above 0, got "${cell("quantity")}"`,
      });
    else tooPrecise("quantity", quantity);
    const perShareText = cell("cost_per_share");
    const totalText = cell("total_cost");
    const perShare = perShareText === "" ? null : parseLotNumber(perShareText);
    const total = totalText === "" ? null : parseLotNumber(totalText);
    if (perShareText !== "" && (perShare === null || new Decimal(perShare).lt(0)))
      issues.push({
        path: at("cost_per_share"),
        message: `cost per share must be a number >= 0, got "${perShareText}"`,
      });
    else if (total === null) tooPrecise("cost_per_share", perShare);
    if (totalText !== "" && (total === null || new Decimal(total).lt(0)))
      issues.push({
        path: at("total_cost"),
        message: `total cost must be a number >= 0, got "${totalText}"`,
      });
    else tooPrecise("total_cost", total);
    if (perShareText === "" && totalText === "")
      issues.push({
        path: at(index.total_cost !== undefined ? "total_cost" : "cost_per_share"),
        message: "cost basis is empty",
      });
    const dateText = cell("trade_date");
    const tradeDate = parseLotDate(dateText, options.dateOrder ?? "auto");
    if (tradeDate === null)
      issues.push({
        path: at("trade_date"),
        message: `"${dateText}" is not a date (use YYYY-MM-DD, MM/DD/YYYY, DD-Mon-YYYY...)`,
      });
    const optionalDate = (f: "wash_sale_date" | "last_sold_for_loss_date") => {
      const t = cell(f);
      if (t === "") return null;
      const d = parseLotDate(t, options.dateOrder ?? "auto");
      if (d === null) issues.push({ path: at(f), message: `"${t}" is not a date` });
      return d;
    };
    const washSaleDate = optionalDate("wash_sale_date");
    const lastSold = optionalDate("last_sold_for_loss_date");
    const currencyText = cell("currency").toUpperCase() || (options.defaultCurrency ?? "USD");
    if (!(CURRENCIES as readonly string[]).includes(currencyText))
      issues.push({
        path: at("currency"),
        message: `unknown currency "${currencyText}" (known: ${CURRENCIES.join(", ")})`,
      });
    const fxText = cell("fx_rate");
    const fxRate = fxText === "" ? null : parseLotNumber(fxText);
    if (fxText !== "" && (fxRate === null || new Decimal(fxRate).lte(0)))
      issues.push({ path: at("fx_rate"), message: `fx rate must be a number above 0, got "${fxText}"` });
    else if (fxRate !== null) {
      tooPrecise("fx_rate", fxRate);
      if (currencyText === "USD" && LOT_DECIMAL.test(fxRate) && !new Decimal(fxRate).eq(1))
        issues.push({ path: at("fx_rate"), message: `a USD lot has fx rate 1, got "${fxText}"` });
    }
    if (issues.count > before || !tradeDate || !quantity || (perShare === null && total === null))
      return null;
    this.rowCount++;
    return {
      line,
      symbol,
      mic: (micPart ?? "").trim().toUpperCase() || cell("mic").toUpperCase() || null,
      quantity,
      // Prefer the total: it is exact, a per-share figure is often rounded.
      costPerShare: total === null ? perShare : null,
      totalCost: total,
      currency: currencyText as Currency,
      fxRate,
      tradeDate,
      washSaleDate,
      lastSoldForLossDate: lastSold,
    };
  }
}

/**
 * Parse a lots CSV held in memory. @throws {ValidationError} listing every problem as `line N, column "X": message`
 * (code `invalid_lots_file`) — nothing is returned from a file with any invalid row. The service's import reads
 * files as streams with the same {@link LotCsvReader} (service/lots-import.ts).
 */
export function parseLotsCsv(text: string, options: LotCsvOptions = {}): ParsedLots {
  const file = options.fileName ?? "lots.csv";
  let records: { record: string[]; info: { lines: number } }[];
  try {
    records = parse(text, LOT_CSV_PARSE_OPTIONS) as unknown as {
      record: string[];
      info: { lines: number };
    }[];
  } catch (err) {
    throw unreadableCsv(file, err as Error);
  }
  const reader = new LotCsvReader(options);
  const rows: ParsedLotRow[] = [];
  for (const { record, info } of records) {
    const row = reader.accept(record, info.lines);
    if (row) rows.push(row);
  }
  reader.finish();
  return { rows, skipped: reader.skipped, columns: reader.columns };
}

/** The error of a file csv-parse cannot read. */
export function unreadableCsv(file: string, err: Error): ValidationError {
  return new ValidationError(
    `${file} is not a readable CSV file: ${err.message}`,
    [{ path: file, message: err.message }],
    "invalid_lots_file",
  );
}

function findColumns(
  header: readonly string[],
  explicit: Partial<Record<LotCsvField, string>>,
): {
  found: boolean;
  index: Partial<Record<LotCsvField, number>>;
  columns: Partial<Record<LotCsvField, string>>;
} {
  const index: Partial<Record<LotCsvField, number>> = {};
  const columns: Partial<Record<LotCsvField, string>> = {};
  const normalized = header.map(norm);
  for (const f of LOT_CSV_FIELDS) {
    const want = explicit[f];
    let i = -1;
    if (want !== undefined) i = normalized.indexOf(norm(want));
    else
      for (const syn of LOT_CSV_SYNONYMS[f]) {
        i = normalized.findIndex((h, j) => h === syn && !Object.values(index).includes(j));
        if (i >= 0) break;
      }
    if (i >= 0) {
      index[f] = i;
      columns[f] = header[i]!;
    }
  }
  return { found: index.symbol !== undefined && index.quantity !== undefined, index, columns };
}
