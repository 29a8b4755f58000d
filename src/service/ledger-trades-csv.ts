/**
 * @module service/ledger-trades-csv
 * Trades from a broker trade-confirmation CSV (extension operation `importTrades`, `lotwise trades import`): columns
 * recognized by name or mapped (`map_FIELD=HEADER`, as `lots import`), the same csv-parse setup and the same
 * line/column error style as the lots import (service/lots-csv.ts). The whole file is ONE batch and one store
 * transaction: any bad row, unknown symbol or refused execution applies nothing.
 */
import { parse } from "csv-parse/sync";
import type { ExecutionResult, TradeImportQuery } from "../contract/index.js";
import { TRADE_CSV_FIELDS } from "../contract/index.js";
import { CURRENCIES, type Currency } from "../core/data/types.js";
import { ConflictError, type FieldIssue, ValidationError } from "../core/errors.js";
import type { Execution } from "../core/ledger/index.js";
import { findAccount } from "./clients.js";
import type { ServiceContext } from "./context.js";
import { applyAccountExecutions, tradeExecution } from "./ledger.js";
import { IssueList, LOT_CSV_PARSE_OPTIONS, parseLotDate, parseLotNumber } from "./lots-csv.js";
import type { LotCsvSource } from "./lots-import.js";
import { resolveTickersAtOnce } from "./tickers.js";

export type TradeCsvField = (typeof TRADE_CSV_FIELDS)[number];

/** Header names recognized per field (compared lower-case, with spaces, '_' and '-' alike). */
export const TRADE_CSV_SYNONYMS: Readonly<Record<TradeCsvField, readonly string[]>> = {
  execution_id: [
    "execution id",
    "trade id",
    "confirmation",
    "confirmation number",
    "confirm number",
    "order id",
    "id",
    "reference",
  ],
  side: ["side", "action", "buy/sell", "transaction", "transaction type", "type"],
  symbol: ["symbol", "ticker", "security"],
  trade_date: ["trade date", "date", "execution date", "transaction date"],
  quantity: ["quantity", "qty", "shares"],
  price: ["price", "execution price", "fill price", "price per share"],
  fees: [
    "fees",
    "fee",
    "commission",
    "commissions",
    "commissions and fees",
    "fees and commissions",
    "commission & fees",
  ],
  currency: ["currency", "ccy"],
  fx_rate: ["fx rate", "exchange rate"],
  mic: ["mic", "exchange"],
  lot_id: ["lot id", "lot"],
};

const REQUIRED: readonly TradeCsvField[] = [
  "execution_id",
  "side",
  "symbol",
  "trade_date",
  "quantity",
  "price",
];

const SIDES: Record<string, Execution["kind"]> = {
  buy: "buy",
  bought: "buy",
  b: "buy",
  sell: "sell",
  sold: "sell",
  s: "sell",
  short: "short_order",
  "sell short": "short_order",
  "short sale": "short_order",
  ss: "short_order",
  short_order: "short_order",
  cover: "short_cover",
  "buy to cover": "short_cover",
  bc: "short_cover",
  short_cover: "short_cover",
};

const norm = (h: string) => h.trim().toLowerCase().replace(/[_-]+/g, " ").replace(/\s+/g, " ");

interface Row {
  line: number;
  executionId: string;
  side: Execution["kind"];
  symbol: string;
  mic: string;
  tradeDate: string;
  quantity: string;
  price: string;
  fees?: string;
  currency?: Currency;
  fxRate?: string;
  lotId?: string;
}

async function textOf(source: LotCsvSource): Promise<string> {
  if (typeof source === "string") return source;
  if (source instanceof Uint8Array) return new TextDecoder().decode(source);
  const parts: string[] = [];
  const decoder = new TextDecoder();
  for await (const c of source) parts.push(typeof c === "string" ? c : decoder.decode(c, { stream: true }));
  parts.push(decoder.decode());
  return parts.join("");
}

const invalid = (file: string, issues: IssueList) =>
  new ValidationError(
    `${file}: ${issues.count} problem(s); nothing was applied.`,
    issues.details(file),
    "invalid_trades_file",
  );

/** A trade file's rows, and the header of each field's column (absent: the file has no such column). */
export interface ParsedTradesCsv {
  rows: Row[];
  headers: Partial<Record<TradeCsvField, string>>;
}

/** Parse a trade-confirmation CSV into rows; every problem names the line and column. */
export function parseTradesCsv(text: string, file: string, query: TradeImportQuery = {}): ParsedTradesCsv {
  const issues = new IssueList();
  let records: { record: string[]; info: { lines: number } }[];
  try {
    records = parse(text, LOT_CSV_PARSE_OPTIONS) as unknown as {
      record: string[];
      info: { lines: number };
    }[];
  } catch (err) {
    throw new ValidationError(
      `${file} is not a readable CSV file: ${(err as Error).message}`,
      [{ path: file, message: (err as Error).message }],
      "invalid_trades_file",
    );
  }
  if (records.length === 0) {
    issues.push({ path: file, message: "the file is empty" });
    throw invalid(file, issues);
  }
  const header = records[0]!.record;
  const normalized = header.map(norm);
  const columns: Partial<Record<TradeCsvField, number>> = {};
  for (const f of TRADE_CSV_FIELDS) {
    const explicit = query[`map_${f}`];
    if (explicit !== undefined) {
      const at = normalized.indexOf(norm(explicit));
      if (at < 0) issues.push({ path: `${file}: line 1`, message: `no column "${explicit}" (map_${f})` });
      else columns[f] = at;
      continue;
    }
    for (const name of [norm(f), ...TRADE_CSV_SYNONYMS[f]]) {
      const at = normalized.indexOf(name);
      if (at >= 0 && !Object.values(columns).includes(at)) {
        columns[f] = at;
        break;
      }
    }
  }
  for (const f of REQUIRED)
    if (columns[f] === undefined)
      issues.push({
        path: `${file}: line 1`,
        message: `no ${f.replace(/_/g, " ")} column (recognized: ${TRADE_CSV_SYNONYMS[f].join(", ")}; or map_${f}=HEADER)`,
      });
  if (issues.count > 0) throw invalid(file, issues);
  const order = query.date_order ?? "auto";
  const rows: Row[] = [];
  for (const { record, info } of records.slice(1)) {
    const line = info.lines;
    const cell = (f: TradeCsvField) => (columns[f] === undefined ? "" : (record[columns[f]!] ?? "").trim());
    const at = (f: TradeCsvField) => `${file}: line ${line}, column "${header[columns[f]!]}"`;
    const before = issues.count;
    // csv-parse relaxes the column count (as for lots). Trailing empty fields are harmless, but a value past the
    // header's last column means the row's columns are shifted: an unquoted "1,250.00" read as price 1 and fees
    // 250.00. Refused, as every other bad cell, rather than booked at the wrong price.
    const extra = record.slice(header.length).filter((x) => x.trim() !== "");
    if (extra.length > 0)
      issues.push({
        path: `${file}: line ${line}`,
        message: `has ${record.length} fields, the header ${header.length}: its columns are shifted (a number with an unquoted thousands separator, such as 1,250.00?)`,
      });
    const id = cell("execution_id");
    if (id === "") issues.push({ path: at("execution_id"), message: "is empty" });
    const sideText = cell("side");
    const side = SIDES[norm(sideText)];
    if (side === undefined)
      issues.push({ path: at("side"), message: `"${sideText}" is not buy, sell, short or cover` });
    const symbol = cell("symbol").toUpperCase();
    if (symbol === "") issues.push({ path: at("symbol"), message: "is empty" });
    const tradeDate = parseLotDate(cell("trade_date"), order);
    if (tradeDate === null)
      issues.push({ path: at("trade_date"), message: `"${cell("trade_date")}" is not a date` });
    const positive = (f: TradeCsvField, required: boolean): string | undefined => {
      const t = cell(f);
      if (t === "") {
        if (required) issues.push({ path: at(f), message: "is empty" });
        return undefined;
      }
      const n = parseLotNumber(t);
      if (n === null || (f === "fees" ? n.startsWith("-") : !/[1-9]/.test(n) || n.startsWith("-"))) {
        issues.push({ path: at(f), message: `"${t}" is not a number ${f === "fees" ? ">= 0" : "> 0"}` });
        return undefined;
      }
      return n;
    };
    // Confirmations often print sells as negative quantities: the side says the direction.
    const qtyText = cell("quantity")
      .replace(/^-/, "")
      .replace(/^\((.*)\)$/, "$1");
    const quantity = (() => {
      const n = qtyText === "" ? null : parseLotNumber(qtyText);
      if (n === null || !/[1-9]/.test(n) || n.startsWith("-")) {
        issues.push({ path: at("quantity"), message: `"${cell("quantity")}" is not a number > 0` });
        return undefined;
      }
      return n;
    })();
    const price = positive("price", true);
    const fees = positive("fees", false);
    const fxRate = positive("fx_rate", false);
    const ccyText = cell("currency").toUpperCase();
    let currency: Currency | undefined;
    if (ccyText !== "") {
      if ((CURRENCIES as readonly string[]).includes(ccyText)) currency = ccyText as Currency;
      else
        issues.push({ path: at("currency"), message: `"${ccyText}" is not one of ${CURRENCIES.join(", ")}` });
    } else if (query.currency !== undefined) currency = query.currency as Currency;
    if (issues.count > before) continue;
    const lotId = cell("lot_id");
    rows.push({
      line,
      executionId: id,
      side: side!,
      symbol,
      mic: (cell("mic") || query.mic || "").toUpperCase(),
      tradeDate: tradeDate!,
      quantity: quantity!,
      price: price!,
      ...(fees === undefined ? {} : { fees }),
      ...(currency === undefined ? {} : { currency }),
      ...(fxRate === undefined ? {} : { fxRate }),
      ...(lotId === "" ? {} : { lotId }),
    });
  }
  if (issues.count > 0) throw invalid(file, issues);
  if (rows.length === 0) {
    issues.push({ path: file, message: "no trade rows" });
    throw invalid(file, issues);
  }
  const headers: Partial<Record<TradeCsvField, string>> = {};
  for (const f of TRADE_CSV_FIELDS) if (columns[f] !== undefined) headers[f] = header[columns[f]!]!;
  return { rows, headers };
}

/** The core's execution fields, as the trade file's fields (a buy's lot id is made of its execution id). */
const FILE_FIELD: Readonly<Record<string, TradeCsvField>> = {
  id: "execution_id",
  kind: "side",
  themeAssetId: "symbol",
  tradeDate: "trade_date",
  quantity: "quantity",
  price: "price",
  fees: "fees",
  currency: "currency",
  fxRate: "fx_rate",
  lots: "lot_id",
  lotId: "execution_id",
};

/**
 * Record the trades of a broker trade-confirmation CSV in an account (extension operation `importTrades`): one
 * batch, one transaction; sells relieve the lot named in a lot_id column, else the account's lot method picks.
 * @throws {ValidationError} `invalid_trades_file` naming the line and column of every bad row (and of every row
 * the ledger refuses: oversell, unknown lot, date before the lot's); {@link ConflictError}
 * `execution_already_applied`
 */
export async function importTrades(
  ctx: ServiceContext,
  org: string,
  accountUuid: string,
  source: LotCsvSource,
  query: TradeImportQuery = {},
): Promise<ExecutionResult> {
  const { account } = await findAccount(ctx, org, accountUuid);
  const file = query.file_name ?? "trades.csv";
  const { rows, headers } = parseTradesCsv(await textOf(source), file, query);
  // As the parse errors name a cell: the file's own header, quoted; a field the file has no column for (a value
  // the import filled in, such as the market's FX rate) by its name.
  const column = (f: TradeCsvField) => (headers[f] === undefined ? f : `"${headers[f]}"`);
  const refs = rows.map((r) => (r.mic ? `${r.symbol}:${r.mic}` : r.symbol));
  const resolved = await resolveTickersAtOnce(ctx.store, refs);
  const issues = new IssueList();
  const executions = rows.map((r, i) => {
    const res = resolved[i]!;
    if (!res.ok)
      issues.push({ path: `${file}: line ${r.line}, column ${column("symbol")}`, message: res.message });
    return tradeExecution(accountUuid, {
      executionId: r.executionId,
      side: r.side,
      themeAssetId: res.ok ? res.security.themeAssetId : r.symbol,
      tradeDate: r.tradeDate,
      quantity: r.quantity,
      price: r.price,
      fees: r.fees,
      currency: r.currency ?? (res.ok ? res.security.currency : undefined),
      fxRate: r.fxRate,
      lots:
        r.lotId === undefined || r.side !== "sell" ? undefined : [{ lotId: r.lotId, quantity: r.quantity }],
    });
  });
  if (issues.count > 0) throw invalid(file, issues);
  try {
    return await applyAccountExecutions(ctx, account, executions, { source: "trade_file" }, (path) =>
      path.replace(/^executions\[(\d+)\]\.?(\w*).*$/, (_m, i: string, f: string) => {
        const field = FILE_FIELD[f];
        const named = field !== undefined ? column(field) : f;
        return `${file}: line ${rows[Number(i)]!.line}${named ? `, column ${named}` : ""}`;
      }),
    );
  } catch (err) {
    if (err instanceof ValidationError && !(err instanceof ConflictError))
      throw new ValidationError(
        // Each issue names the file: "The trades cannot be applied (...): confirms.csv: line 3, ...".
        err.message.replace(/^The executions/, "The trades"),
        err.issues as FieldIssue[],
        "invalid_trades_file",
      );
    throw err;
  }
}
