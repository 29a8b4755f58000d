/**
 * @module market/importers/securities
 * The security master from CSV. Layout (header names case-insensitive; only the identity and nothing else is
 * required):
 *
 * | column | meaning |
 * |---|---|
 * | `theme_asset_id` | `SYMBOL:MIC`; or instead `symbol` (`ticker`) + `mic` (`exchange`, e.g. `NASDAQ`) or the `defaultMic` option |
 * | `name` (`security`, `company`) | empty -> the symbol, reported as `empty_field` |
 * | `currency` | USD, CAD, EUR, GBP, JPY; default from the MIC (XNYS -> USD, XTSE -> CAD...) |
 * | `country` | ISO 3166 alpha-2; default from the MIC |
 * | `type` (`asset_type`) | equity, etf, index, fund; default equity |
 * | `sector` | 2-digit code (10..60) or a name ("Information Technology", "Telecommunication Services"...) |
 * | `industry_group`, `industry`, `sub_industry` | 4-, 6-, 8-digit codes; must nest by prefix; missing upper levels are derived from a lower one |
 * | `sic` (`sic_code`) | 4-digit SIC code |
 * | `shares_outstanding` (`shares`) | positive number |
 * | `description`, `listed_from`, `delisted_on` | text, dates |
 */
import { knownSectorLabels, SECTOR_CODES, sectorCodeForName } from "../../core/catalog/taxonomy.js";
import {
  ASSET_TYPES,
  type AssetType,
  CURRENCIES,
  type Currency,
  type Security,
} from "../../core/data/types.js";
import type { MarketDataWriter } from "../writer.js";
import type { CsvInput } from "./csv-input.js";
import { readCsvTable } from "./csv-table.js";
import { DateCache, isMissing, parseNumber } from "./fields.js";
import { importFile, type ParseOptions } from "./import-support.js";
import { MIC_DEFAULTS } from "./mic-defaults.js";
import { FlawLog, type ImportSummary } from "./summary.js";
import { micOfExchangeName, normalizeSymbol, parseThemeAssetId } from "./symbol-resolver.js";

/** Options of {@link parseSecurities}. */
export interface SecurityParseOptions extends ParseOptions {
  /** MIC for rows that give a symbol but no MIC. */
  defaultMic?: string;
}

/** Result of {@link parseSecurities}: securities in file order (duplicates removed) and the summary. */
export interface SecurityParseResult {
  securities: Security[];
  summary: ImportSummary;
}

const EXPECTED =
  "theme_asset_id,name,currency,country,type,sector,industry_group,industry,sub_industry,sic,shares_outstanding";
const TYPE_ALIASES: Readonly<Record<string, AssetType>> = {
  stock: "equity",
  "common stock": "equity",
  "mutual fund": "fund",
};

/**
 * Parses a securities CSV (layout in the module notes).
 * @throws {CsvFormatError} missing identity columns, a bad code, currency, type, number or date (file, line, column).
 * @example
 * const { securities } = await parseSecurities("symbol,mic,name,sector\nAAPL,XNAS,Apple Inc.,Information Technology\n");
 * // securities[0].themeAssetId === "AAPL:XNAS", securities[0].sector === 45
 */
export async function parseSecurities(
  input: CsvInput,
  options: SecurityParseOptions = {},
): Promise<SecurityParseResult> {
  const file = options.file ?? "<input>";
  const flaws = new FlawLog(options.maxFlawsListedPerKind);
  const dates = new DateCache();
  const out: Security[] = [];
  const seen = new Map<string, number>();
  let skipped = 0;
  const defaultMic = options.defaultMic?.trim().toUpperCase();

  const { header, rowsRead } = await readCsvTable(input, file, EXPECTED, (h) => {
    const iId = h.find("theme_asset_id");
    const iSym = h.find("symbol", "ticker");
    const iMic = h.find("mic", "exchange");
    if (iId === -1 && iSym === -1) h.require(["theme_asset_id", "symbol"], "securities");
    const col = {
      name: h.find("name", "security", "company"),
      currency: h.find("currency"),
      country: h.find("country"),
      type: h.find("type", "asset_type"),
      sector: h.find("sector", "sector_code", "sector_name", "gics_sector"),
      group: h.find("industry_group", "industry_group_code"),
      industry: h.find("industry", "industry_code"),
      sub: h.find("sub_industry", "subindustry", "sub_industry_code"),
      sic: h.find("sic", "sic_code"),
      shares: h.find("shares_outstanding", "shares"),
      description: h.find("description"),
      from: h.find("listed_from"),
      to: h.find("delisted_on"),
    };
    const optionalNames: [number, string][] = (
      [
        [col.name, "name"],
        [col.sector, "sector"],
        [col.sic, "sic"],
        [col.shares, "shares_outstanding"],
      ] as [number, string][]
    ).filter(([i]) => i !== -1);

    const text = (fields: string[], i: number): string | null =>
      i === -1 || isMissing(fields[i]!) ? null : fields[i]!.trim();
    const code = (
      fields: string[],
      line: number,
      i: number,
      digits: number,
      label: string,
    ): number | null => {
      const t = text(fields, i);
      if (t === null) return null;
      if (!new RegExp(`^\\d{${digits}}$`).test(t))
        throw h.error(line, i, `${JSON.stringify(t)} is not a ${digits}-digit ${label} code.`);
      return Number(t);
    };
    const date = (fields: string[], line: number, i: number): string | null => {
      const t = text(fields, i);
      if (t === null) return null;
      const d = dates.parse(t);
      if (d === null)
        throw h.error(line, i, `${JSON.stringify(t)} is not a date (expected YYYY-MM-DD or M/D/YYYY).`);
      return d;
    };

    return (fields, line) => {
      // Identity.
      let symbol: string;
      let mic: string;
      const idText = text(fields, iId);
      if (idText !== null) {
        const id = parseThemeAssetId(idText);
        if (!id) throw h.error(line, iId, `${JSON.stringify(idText)} is not a theme_asset_id (SYMBOL:MIC).`);
        symbol = id.symbol;
        mic = id.mic;
        const s = text(fields, iSym);
        if (s !== null && s.toUpperCase() !== symbol)
          throw h.error(line, iSym, `symbol ${s} disagrees with theme_asset_id ${id.themeAssetId}.`);
      } else {
        const s = text(fields, iSym);
        if (s === null)
          throw h.error(line, iSym === -1 ? iId : iSym, "the row has neither a theme_asset_id nor a symbol.");
        const norm = normalizeSymbol(s);
        if (norm === null) throw h.error(line, iSym, `${JSON.stringify(s)} is not a ticker symbol.`);
        symbol = norm;
        const m = text(fields, iMic);
        const fromCol =
          m === null
            ? undefined
            : (micOfExchangeName(m) ?? (/^[A-Za-z0-9]{4}$/.test(m) ? m.toUpperCase() : undefined));
        if (m !== null && fromCol === undefined)
          throw h.error(line, iMic, `${JSON.stringify(m)} is neither a MIC nor a known exchange name.`);
        const chosen = fromCol ?? defaultMic;
        if (chosen === undefined)
          throw h.error(
            line,
            iMic === -1 ? iSym : iMic,
            `no MIC for ${symbol}: add a mic column, write theme_asset_id, or pass defaultMic.`,
          );
        mic = chosen;
      }
      if (idText !== null && iMic !== -1) {
        const m = text(fields, iMic);
        const fromCol = m === null ? undefined : (micOfExchangeName(m) ?? m.toUpperCase());
        if (fromCol !== undefined && fromCol !== mic)
          throw h.error(line, iMic, `mic ${m} disagrees with theme_asset_id ${symbol}:${mic}.`);
      }
      const themeAssetId = `${symbol}:${mic}`;
      const prior = seen.get(themeAssetId);
      if (prior !== undefined) {
        skipped++;
        flaws.add(
          "duplicate",
          "skipped",
          themeAssetId,
          null,
          line,
          `second row for ${themeAssetId} (first at line ${prior}); first kept, this one skipped.`,
        );
        return;
      }
      seen.set(themeAssetId, line);

      const defaults = MIC_DEFAULTS[mic];
      const cur = text(fields, col.currency)?.toUpperCase() ?? defaults?.currency;
      if (cur === undefined)
        throw h.error(
          line,
          col.currency === -1 ? iId : col.currency,
          `no currency for ${themeAssetId} (MIC ${mic} has no default); add a currency column.`,
        );
      if (!(CURRENCIES as readonly string[]).includes(cur))
        throw h.error(line, col.currency, `currency ${cur} is not supported (${CURRENCIES.join(", ")}).`);
      const country = text(fields, col.country)?.toUpperCase() ?? defaults?.country;
      if (country === undefined)
        throw h.error(
          line,
          col.country === -1 ? iId : col.country,
          `no country for ${themeAssetId} (MIC ${mic} has no default); add a country column.`,
        );
      if (!/^[A-Z]{2}$/.test(country))
        throw h.error(
          line,
          col.country,
          `${JSON.stringify(country)} is not an ISO 3166 alpha-2 country code.`,
        );
      const typeText = text(fields, col.type)?.toLowerCase();
      const assetType =
        typeText === undefined
          ? "equity"
          : (ASSET_TYPES as readonly string[]).includes(typeText)
            ? (typeText as AssetType)
            : TYPE_ALIASES[typeText];
      if (assetType === undefined)
        throw h.error(
          line,
          col.type,
          `type ${JSON.stringify(typeText)} is not one of ${ASSET_TYPES.join(", ")}.`,
        );

      // Classification: sector by code or name, lower levels by code, nested by prefix.
      let sector: number | null = null;
      const sectorText = text(fields, col.sector);
      if (sectorText !== null) {
        if (/^\d+$/.test(sectorText)) {
          sector = Number(sectorText);
          if (!(SECTOR_CODES as readonly number[]).includes(sector))
            throw h.error(
              line,
              col.sector,
              `sector code ${sectorText} is not one of ${SECTOR_CODES.join(", ")}.`,
            );
        } else {
          sector = sectorCodeForName(sectorText);
          if (sector === null)
            throw h.error(
              line,
              col.sector,
              `unknown sector name ${JSON.stringify(sectorText)}; use a code (${SECTOR_CODES.join(", ")}) or one of: ${knownSectorLabels().join(", ")}.`,
            );
        }
      }
      let group = code(fields, line, col.group, 4, "industry group");
      let industry = code(fields, line, col.industry, 6, "industry");
      const sub = code(fields, line, col.sub, 8, "sub-industry");
      const nest = (
        child: number | null,
        parent: number | null,
        i: number,
        childLabel: string,
        parentLabel: string,
      ): void => {
        if (child !== null && parent !== null && Math.floor(child / 100) !== parent)
          throw h.error(
            line,
            i,
            `${childLabel} ${child} does not belong to ${parentLabel} ${parent} (codes nest by prefix).`,
          );
      };
      nest(sub, industry, col.sub, "sub-industry", "industry");
      industry ??= sub === null ? null : Math.floor(sub / 100);
      nest(industry, group, col.industry, "industry", "industry group");
      group ??= industry === null ? null : Math.floor(industry / 100);
      nest(group, sector, col.group, "industry group", "sector");
      sector ??= group === null ? null : Math.floor(group / 100);
      if (sector !== null && !(SECTOR_CODES as readonly number[]).includes(sector))
        throw h.error(
          line,
          col.group,
          `industry codes imply sector ${sector}, which is not one of ${SECTOR_CODES.join(", ")}.`,
        );

      const sicText = text(fields, col.sic);
      if (sicText !== null && !/^\d{1,4}$/.test(sicText))
        throw h.error(line, col.sic, `${JSON.stringify(sicText)} is not a SIC code (1 to 4 digits).`);
      let shares: number | null = null;
      const sharesText = text(fields, col.shares);
      if (sharesText !== null) {
        shares = parseNumber(sharesText);
        if (!(shares > 0))
          throw h.error(
            line,
            col.shares,
            `shares outstanding ${JSON.stringify(sharesText)} is not a positive number.`,
          );
      }

      const empty = optionalNames.filter(([i]) => isMissing(fields[i]!)).map(([, n]) => n);
      const name = text(fields, col.name) ?? symbol;
      if (empty.length > 0)
        flaws.add(
          "empty_field",
          "kept",
          themeAssetId,
          null,
          line,
          `empty ${empty.join(", ")}; row kept${empty.includes("name") ? " (name set to the symbol)" : ""}.`,
        );

      out.push({
        themeAssetId,
        symbol,
        mic,
        name,
        currency: cur as Currency,
        country,
        assetType,
        sector,
        industryGroup: group,
        industry,
        subIndustry: sub,
        sicCode: sicText === null ? null : Number(sicText),
        sharesOutstanding: shares,
        description: text(fields, col.description),
        listedFrom: date(fields, line, col.from),
        delistedOn: date(fields, line, col.to),
      });
    };
  });

  const summary = flaws.summary({
    file,
    dataset: "securities",
    layout: "securities",
    rowsRead,
    rowsKept: rowsRead - skipped,
    rowsSkipped: skipped,
    records: out.length,
    symbols: out.length,
    firstDate: null,
    lastDate: null,
    ignoredColumns: header.ignoredColumns(),
  });
  return { securities: out, summary };
}

/** Options of {@link importSecurities}. */
export interface ImportSecuritiesOptions {
  defaultMic?: string;
  /** @default 5000 */
  maxFlawsListedPerKind?: number;
}

/**
 * Parses the whole securities file, then upserts the securities in one transaction.
 * @throws {CsvFormatError} before anything is written.
 */
export async function importSecurities(
  path: string,
  writer: MarketDataWriter,
  options: ImportSecuritiesOptions = {},
): Promise<ImportSummary> {
  const parseOptions: SecurityParseOptions = { file: path };
  if (options.defaultMic !== undefined) parseOptions.defaultMic = options.defaultMic;
  if (options.maxFlawsListedPerKind !== undefined)
    parseOptions.maxFlawsListedPerKind = options.maxFlawsListedPerKind;
  const r = await importFile(
    path,
    writer,
    (bytes) => parseSecurities(bytes, parseOptions),
    (res) => writer.upsertSecurities(res.securities),
  );
  return r.summary;
}
