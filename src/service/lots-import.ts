/**
 * @module service/lots-import
 * The tax-lot CSV import as one service operation (library, CLI and HTTP use it): the file is read as a stream
 * (csv-parse's stream API) one record at a time, every row checked ({@link LotCsvReader}: the same line/column
 * messages whatever the entry point), symbols resolved against the security master a chunk at a time, and the
 * valid lots staged in a temporary file of the store layer. Only when the whole file is valid are they moved into
 * the account, in ONE store transaction: `replace` deletes the account's lots and inserts the file's, `append`
 * inserts after the lots the account has at that moment (it never rewrites them, so concurrent appends all land).
 * A file with any bad row writes nothing. Memory does not grow with the file: the rows are not kept.
 */
import { pipeline, Readable } from "node:stream";
import { CsvError, parse } from "csv-parse";
import type { Decimal } from "decimal.js";
import {
  LOT_IMPORT_PREVIEW_LOTS,
  type LotImportQuery,
  type LotImportResult,
  type TaxLotWrite,
} from "../contract/index.js";
import type { Currency } from "../core/data/types.js";
import { ValidationError } from "../core/errors.js";
import { TaxDecimal } from "../core/tax/index.js";
import type { TaxLotInput } from "../store/index.js";
import { findAccount } from "./clients.js";
import type { ServiceContext } from "./context.js";
import { currencyMismatchMessage } from "./lot-currency.js";
import { lotWriteToInput } from "./lots.js";
import {
  IssueList,
  LOT_CSV_FIELDS,
  LOT_CSV_PARSE_OPTIONS,
  type LotCsvField,
  LotCsvReader,
  type ParsedLotRow,
  unreadableCsv,
} from "./lots-csv.js";
import { resolveTickersAtOnce } from "./tickers.js";

/** What an import reads: the CSV text, or its bytes/text as they arrive (a file or request stream). */
export type LotCsvSource = string | Uint8Array | AsyncIterable<Uint8Array | string>;

/** Rows resolved and staged together. */
const CHUNK_ROWS = 2000;

interface TickerTotals {
  lots: number;
  quantity: Decimal;
  costUsd: Decimal;
}

/** The `map_FIELD` parameters of a query as the reader's explicit columns. */
function explicitColumns(query: LotImportQuery): Partial<Record<LotCsvField, string>> {
  const columns: Partial<Record<LotCsvField, string>> = {};
  for (const f of LOT_CSV_FIELDS) {
    const header = query[`map_${f}`];
    if (header !== undefined) columns[f] = header;
  }
  return columns;
}

/**
 * Import tax lots from a CSV into an account (extension operation `importLots`): all rows or none, one store
 * transaction. With `dry_run` everything is checked and summarized, nothing written.
 * @throws {NotFoundError} `account_not_found` for an account that is not the organization's
 * @throws {ValidationError} `invalid_lots_file` naming the line and column of every bad row (at most 1000
 * listed, all counted), unknown or ambiguous symbols, foreign lots without an FX rate
 * @example
 * const r = await importLots(ctx, org, accountUuid, createReadStream("lots.csv"), { mode: "append" });
 */
export async function importLots(
  ctx: ServiceContext,
  org: string,
  accountUuid: string,
  source: LotCsvSource,
  query: LotImportQuery = {},
): Promise<LotImportResult> {
  const { clientUuid } = await findAccount(ctx, org, accountUuid);
  const file = query.file_name ?? "lots.csv";
  const mode = query.mode ?? "replace";
  const mic = query.mic?.toUpperCase();
  const reader = new LotCsvReader({
    fileName: file,
    columns: explicitColumns(query),
    dateOrder: query.date_order ?? "auto",
    defaultCurrency: (query.currency ?? "USD") as Currency,
  });
  const staging = await ctx.store.beginLotImport();
  try {
    const tickerIssues = new IssueList();
    const fxIssues = new IssueList();
    const currencyIssues = new IssueList();
    const resolved = new Map<string, { id: string | null; currency: string; message: string }>();
    const totals = new Map<string, TickerTotals>();
    let pending: ParsedLotRow[] = [];

    const flush = async () => {
      const rows = pending;
      pending = [];
      // Once a row is bad the file is refused with the rows' problems alone (as before symbols are resolved).
      if (rows.length === 0 || reader.issues.count > 0) return;
      const queries = rows.map((r) =>
        r.mic ? `${r.symbol}:${r.mic}` : mic ? `${r.symbol}:${mic}` : r.symbol,
      );
      const unseen = [...new Set(queries.filter((q) => !resolved.has(q)))];
      (await resolveTickersAtOnce(ctx.store, unseen)).forEach((r, i) => {
        resolved.set(
          unseen[i]!,
          r.ok
            ? { id: r.security.themeAssetId, currency: r.security.currency, message: "" }
            : { id: null, currency: "", message: r.message },
        );
      });
      const lots: TaxLotInput[] = [];
      rows.forEach((r, i) => {
        const res = resolved.get(queries[i]!)!;
        if (res.id === null)
          tickerIssues.push({
            path: `${file}: line ${r.line}, column "${reader.columns.symbol}"`,
            message: res.message || "unknown ticker",
          });
        if (r.currency !== "USD" && !r.fxRate)
          fxIssues.push({
            path: `${file}: line ${r.line}`,
            message: `a ${r.currency} lot needs an fx_rate column (units of ${r.currency} per USD at purchase)`,
          });
        if (res.id !== null && r.currency !== res.currency)
          currencyIssues.push({
            path: `${file}: line ${r.line}, column "${reader.columns.currency ?? "currency"}"`,
            message: `${currencyMismatchMessage(`line ${r.line}`, "cost_basis_currency", res.id, r.currency, res.currency)}${
              reader.columns.currency === undefined
                ? ` (the file has no currency column, so its lots are in ${r.currency}: add the column, or import with --currency ${res.currency})`
                : ""
            }`,
          });
        if (res.id === null || tickerIssues.count + fxIssues.count + currencyIssues.count > 0) return;
        const lot: TaxLotWrite = {
          theme_asset_id: res.id,
          quantity: r.quantity,
          cost_basis: r.totalCost ?? r.costPerShare!,
          cost_basis_unit: r.totalCost !== null ? "total" : "per_share",
          cost_basis_currency: r.currency,
          ...(r.fxRate ? { fx_rate: r.fxRate } : {}),
          trade_date: r.tradeDate,
          ...(r.washSaleDate ? { wash_sale_date: r.washSaleDate } : {}),
          ...(r.lastSoldForLossDate ? { last_sold_for_loss_date: r.lastSoldForLossDate } : {}),
        };
        addToTotals(totals, r, res.id);
        lots.push(lotWriteToInput(lot));
      });
      if (lots.length > 0 && tickerIssues.count + fxIssues.count + currencyIssues.count === 0)
        await staging.add(lots);
    };

    const parser = parse(LOT_CSV_PARSE_OPTIONS);
    pipeline(Readable.from(chunksOf(source)), parser, () => {
      // Errors reach the loop below: pipeline destroys the parser with them.
    });
    try {
      for await (const { record, info } of parser as AsyncIterable<{
        record: string[];
        info: { lines: number };
      }>) {
        const row = reader.accept(record, info.lines);
        if (row) {
          pending.push(row);
          if (pending.length >= CHUNK_ROWS) await flush();
        }
      }
    } catch (err) {
      parser.destroy();
      if (err instanceof CsvError) throw unreadableCsv(file, err);
      throw err;
    }
    await flush();
    reader.finish();
    const problems = tickerIssues.count + fxIssues.count + currencyIssues.count;
    if (problems > 0) {
      const issues = new IssueList();
      for (const i of [...tickerIssues.listed, ...fxIssues.listed, ...currencyIssues.listed]) issues.push(i);
      issues.count = problems;
      throw new ValidationError(
        `${file}: ${issues.count} problem(s); nothing was imported.`,
        issues.details(file),
        "invalid_lots_file",
      );
    }

    const preview: TaxLotWrite[] = [];
    for await (const l of staging.lots()) {
      if (preview.length === LOT_IMPORT_PREVIEW_LOTS) break;
      preview.push(inputToWrite(l));
    }
    let lots: TaxLotWrite[] | undefined;
    if (query.include_lots) {
      lots = [];
      for await (const l of staging.lots()) lots.push(inputToWrite(l));
    }
    const inFile = staging.size;
    let before: number;
    let after: number;
    if (query.dry_run) {
      before = await staging.accountLotCount(accountUuid);
      after = mode === "append" ? before + inFile : inFile;
    } else {
      ({ before, after } = await staging.commit(accountUuid, mode, async () => {
        await findAccount(ctx, org, accountUuid);
      }));
    }
    return {
      file,
      account_uuid: accountUuid,
      client_uuid: clientUuid,
      mode,
      dry_run: Boolean(query.dry_run),
      lots_in_file: inFile,
      lots_before: before,
      lots_after: after,
      skipped_count: reader.skippedCount,
      skipped_rows: reader.skipped,
      columns: reader.columns as Record<string, string>,
      by_ticker: [...totals].map(([id, t]) => ({
        theme_asset_id: id,
        lots: t.lots,
        quantity: t.quantity.toFixed(),
        total_cost_basis_usd: t.costUsd.toFixed(2),
      })),
      preview,
      ...(lots ? { lots } : {}),
    };
  } finally {
    await staging.discard();
  }
}

/** The source as a sequence of chunks. */
async function* chunksOf(source: LotCsvSource): AsyncIterable<Uint8Array | string> {
  if (typeof source === "string" || source instanceof Uint8Array) yield source;
  else yield* source;
}

function addToTotals(totals: Map<string, TickerTotals>, r: ParsedLotRow, id: string): void {
  let t = totals.get(id);
  if (!t) {
    t = { lots: 0, quantity: new TaxDecimal(0), costUsd: new TaxDecimal(0) };
    totals.set(id, t);
  }
  t.lots += 1;
  t.quantity = t.quantity.plus(r.quantity);
  const total =
    r.totalCost !== null ? new TaxDecimal(r.totalCost) : new TaxDecimal(r.costPerShare!).times(r.quantity);
  t.costUsd = t.costUsd.plus(r.fxRate ? total.div(r.fxRate) : total);
}

/** A staged lot in the write shape, without the optional fields it does not set. */
function inputToWrite(l: TaxLotInput): TaxLotWrite {
  return {
    theme_asset_id: l.themeAssetId,
    quantity: l.quantity,
    cost_basis: l.costBasis,
    cost_basis_unit: l.costBasisUnit,
    cost_basis_currency: l.costBasisCurrency as Currency,
    ...(l.costBasisCurrency !== "USD" ? { fx_rate: l.fxRate } : {}),
    trade_date: l.tradeDate,
    ...(l.washSaleDate ? { wash_sale_date: l.washSaleDate } : {}),
    ...(l.lastSoldForLossDate ? { last_sold_for_loss_date: l.lastSoldForLossDate } : {}),
  };
}
