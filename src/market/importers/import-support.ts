/**
 * @module market/importers/import-support
 * Pieces every importer shares: the common options, symbol resolution with caching and location-aware
 * failures, and the "parse the whole file, then write in one transaction" runner.
 */
import type { MarketDataWriter } from "../writer.js";
import { readCsvFile } from "./csv-input.js";
import type { CsvHeader } from "./csv-table.js";
import { UnresolvedSymbolError } from "./errors.js";
import { type DateCache, notANumberMessage, parseNumber } from "./fields.js";
import type { FlawLog } from "./summary.js";
import {
  resolverForMic,
  resolverFromListings,
  type SymbolResolution,
  type SymbolResolver,
  themeAssetIdsOnly,
} from "./symbol-resolver.js";

/** Options every parse step takes. */
export interface ParseOptions {
  /**
   * Name of the input in messages and the summary (the importers pass the path).
   * @default "<input>"
   */
  file?: string;
  /**
   * Cap on listed flaws per kind; counts stay exact.
   * @default 5000
   */
  maxFlawsListedPerKind?: number;
}

/** Options of parse steps whose files name securities. */
export interface SymbolParseOptions extends ParseOptions {
  /**
   * Maps file symbols to theme_asset_ids.
   * @default themeAssetIdsOnly (the file must contain theme_asset_ids)
   */
  resolver?: SymbolResolver;
  /**
   * What to do with a row whose symbol does not resolve: `error` rejects the file (UnresolvedSymbolError
   * naming file, line, column and listings); `skip` skips the row and reports an `unresolved_symbol` flaw.
   * @default "error"
   */
  onUnresolvedSymbol?: "error" | "skip";
}

/** Options of `importX(path, writer, options)` for files that name securities. */
export interface SymbolImportOptions {
  /** Custom resolver; wins over `defaultMic`. */
  resolver?: SymbolResolver;
  /**
   * MIC given to every plain symbol (no store lookup). Without it and without `resolver`, plain symbols are
   * looked up in the store with `writer.findSecuritiesBySymbol` (unknown or ambiguous symbols fail).
   */
  defaultMic?: string;
  /** @default "error" */
  onUnresolvedSymbol?: "error" | "skip";
  /** @default 5000 */
  maxFlawsListedPerKind?: number;
}

/** The resolver an importer uses: `resolver`, else `defaultMic`, else the store's listings. */
export function chooseResolver(writer: MarketDataWriter, options: SymbolImportOptions): SymbolResolver {
  if (options.resolver) return options.resolver;
  if (options.defaultMic !== undefined) return resolverForMic(options.defaultMic);
  return resolverFromListings((symbol) => writer.findSecuritiesBySymbol(symbol));
}

/** Copies the defined common parse options (exactOptionalPropertyTypes forbids passing `undefined` through). */
export function symbolParseOptions(
  file: string,
  resolver: SymbolResolver,
  options: { onUnresolvedSymbol?: "error" | "skip"; maxFlawsListedPerKind?: number },
): SymbolParseOptions {
  const out: SymbolParseOptions = { file, resolver };
  if (options.onUnresolvedSymbol !== undefined) out.onUnresolvedSymbol = options.onUnresolvedSymbol;
  if (options.maxFlawsListedPerKind !== undefined) out.maxFlawsListedPerKind = options.maxFlawsListedPerKind;
  return out;
}

/**
 * Resolves the symbol column of a file, one resolver call per distinct (token, hint). Unresolved symbols throw
 * an {@link UnresolvedSymbolError} at the row's location, or (in `skip` mode) log a flaw and return null.
 */
export class SymbolColumn {
  private readonly cache = new Map<string, SymbolResolution>();
  private readonly resolver: SymbolResolver;
  private readonly skip: boolean;

  constructor(
    private readonly header: CsvHeader,
    readonly index: number,
    private readonly flaws: FlawLog,
    options: SymbolParseOptions,
  ) {
    this.resolver = options.resolver ?? themeAssetIdsOnly;
    this.skip = options.onUnresolvedSymbol === "skip";
  }

  /**
   * theme_asset_id of the row's token, or null when the row is to be skipped.
   * @throws {CsvFormatError} when the field is empty.
   * @throws {UnresolvedSymbolError} when it does not resolve and the mode is `error`.
   */
  resolve(fields: readonly string[], line: number, date: string | null, micHint?: string): string | null {
    const token = fields[this.index]!;
    const key = micHint === undefined ? token : `${token}\u0000${micHint}`;
    let r = this.cache.get(key);
    if (r === undefined) {
      if (token.trim() === "") throw this.header.error(line, this.index, "the symbol is empty.");
      r = this.resolver(token, micHint);
      this.cache.set(key, r);
    }
    if (r.ok) return r.themeAssetId;
    if (!this.skip)
      throw new UnresolvedSymbolError(
        { file: this.header.file, line, column: this.header.name(this.index) },
        token.trim(),
        r.reason,
        r.message,
        r.candidates,
      );
    this.flaws.add("unresolved_symbol", "skipped", token.trim(), date, line, `${r.message} Row skipped.`);
    return null;
  }
}

/**
 * Reads `path`, parses ALL of it, then writes the result inside one `writer.transaction`: a file is imported
 * entirely or not at all (a parse error throws before anything is written).
 */
export async function importFile<R>(
  path: string,
  writer: MarketDataWriter,
  parse: (bytes: Uint8Array) => Promise<R>,
  write: (result: R) => void,
): Promise<R> {
  const result = await parse(await readCsvFile(path));
  writer.transaction(() => write(result));
  return result;
}

/**
 * The date in column `i`, as `YYYY-MM-DD`.
 * @throws {CsvFormatError} when it is not a date.
 */
export function dateField(
  h: CsvHeader,
  dates: DateCache,
  fields: readonly string[],
  i: number,
  line: number,
): string {
  const d = dates.parse(fields[i]!);
  if (d === null)
    throw h.error(line, i, `${JSON.stringify(fields[i])} is not a date (expected YYYY-MM-DD or M/D/YYYY).`);
  return d;
}

/**
 * The number in column `i` (the caller has ruled out "missing" tokens).
 * @throws {CsvFormatError} when it is not a plain decimal number.
 */
export function numberField(h: CsvHeader, fields: readonly string[], i: number, line: number): number {
  const v = parseNumber(fields[i]!);
  if (Number.isNaN(v)) throw h.error(line, i, notANumberMessage(fields[i]!));
  return v;
}
