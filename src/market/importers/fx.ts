/**
 * @module market/importers/fx
 * FX rates from CSV, stored per the shared convention: units of the currency per 1 USD. Layouts (detected
 * from the header):
 * - `long`: `date,currency,per_usd` (also `Date,Country,Exchange rate` as in FRED's monthly file; country
 *   names Canada / Euro / Japan / United Kingdom map to CAD / EUR / JPY / GBP);
 * - `fred_wide`: a date column (`Data` — sic, in datasets/exchange-rates — `DATE`, `Date`, `observation_date`)
 *   plus columns named by country (`Canada`, `Euro`, `Japan`, `United Kingdom`: foreign currency per USD, as
 *   checked in that file), by FRED series id (`DEXCAUS`, `DEXJPUS` per USD; `DEXUSEU`, `DEXUSUK` are USD per
 *   unit and get inverted) or by ISO code (`CAD`, `EUR`, ... per USD). Empty cells are holidays;
 * - `ecb`: the ECB reference-rate file (`Date,USD,JPY,...`, currency per EUR, newest first, "N/A", trailing
 *   comma). Cross rates: X per USD = (X per EUR) / (USD per EUR); EUR per USD = 1 / (USD per EUR).
 */
import { CURRENCIES, type Currency, type FxRate } from "../../core/data/types.js";
import type { MarketDataWriter } from "../writer.js";
import type { CsvInput } from "./csv-input.js";
import { type CsvHeader, readCsvTable } from "./csv-table.js";
import { DateCache, isMissing, notANumberMessage, parseNumber } from "./fields.js";
import { importFile, type ParseOptions } from "./import-support.js";
import { FlawLog, type ImportSummary } from "./summary.js";

/** Non-USD currencies the store keeps. */
export const FX_CURRENCIES = CURRENCIES.filter((c) => c !== "USD") as Exclude<Currency, "USD">[];

/** Options of {@link parseFx}. */
export interface FxParseOptions extends ParseOptions {
  /** Currencies to keep. @default ["CAD", "EUR", "GBP", "JPY"] */
  currencies?: readonly Currency[];
}

/** Result of {@link parseFx}: per-USD rates and the summary. */
export interface FxParseResult {
  /** Sorted by date, then currency. */
  rates: FxRate[];
  summary: ImportSummary;
}

const COUNTRY_CURRENCY: Readonly<Record<string, Currency>> = {
  canada: "CAD",
  euro: "EUR",
  euro_area: "EUR",
  japan: "JPY",
  united_kingdom: "GBP",
  united_states: "USD",
};

/** Wide columns: key -> currency and whether the column is USD per unit (needs inverting). */
const WIDE_COLUMNS: Readonly<Record<string, { currency: Currency; inverted: boolean }>> = {
  canada: { currency: "CAD", inverted: false },
  euro: { currency: "EUR", inverted: false },
  japan: { currency: "JPY", inverted: false },
  united_kingdom: { currency: "GBP", inverted: false },
  dexcaus: { currency: "CAD", inverted: false },
  dexjpus: { currency: "JPY", inverted: false },
  dexuseu: { currency: "EUR", inverted: true },
  dexusuk: { currency: "GBP", inverted: true },
  cad: { currency: "CAD", inverted: false },
  eur: { currency: "EUR", inverted: false },
  gbp: { currency: "GBP", inverted: false },
  jpy: { currency: "JPY", inverted: false },
};

const EXPECTED = "date,currency,per_usd";

interface WideColumn {
  index: number;
  currency: Currency;
  /** How to turn the cell into per-USD: value, 1/value, or value / (USD per EUR). */
  mode: "direct" | "inverted" | "ecb";
}

/** Empty cells of one currency column, classified after the whole file is read. */
interface ColumnGaps {
  empties: { date: string; line: number }[];
  first: string | null;
  last: string | null;
}

/**
 * Parses an FX CSV in any of the three layouts into per-USD rates.
 * @throws {CsvFormatError} bad date or number, non-positive rate, missing columns (file, line, column).
 * @example
 * // ECB row 2013-02-08: USD 1.3365, CAD 1.3353 per EUR -> CAD per USD = 1.3353 / 1.3365
 * const { rates } = await parseFx("Date,USD,CAD,\n2013-02-08,1.3365,1.3353,\n");
 */
export async function parseFx(input: CsvInput, options: FxParseOptions = {}): Promise<FxParseResult> {
  const file = options.file ?? "<input>";
  const wanted = new Set<Currency>(options.currencies ?? FX_CURRENCIES);
  const flaws = new FlawLog(options.maxFlawsListedPerKind);
  const dates = new DateCache();
  const rates: FxRate[] = [];
  const seen = new Map<string, number>();
  let layout = "long";
  let skipped = 0;
  const gaps = new Map<Currency, ColumnGaps>();
  const other = new Map<string, { rows: number; line: number }>();

  const keep = (currency: Currency, date: string, perUsd: number, line: number): boolean => {
    const key = `${currency}|${date}`;
    const prior = seen.get(key);
    if (prior !== undefined) {
      flaws.add(
        "duplicate",
        "skipped",
        currency,
        date,
        line,
        `second ${currency} rate for ${date} (first at line ${prior}); first kept, this one skipped.`,
      );
      return false;
    }
    seen.set(key, line);
    rates.push({ date, currency, perUsd });
    return true;
  };

  const { header, rowsRead } = await readCsvTable(input, file, EXPECTED, (h) => {
    const iCurrency = h.has("currency") ? h.find("currency") : -1;
    const iCountry = iCurrency === -1 && h.has("country") ? h.find("country") : -1;
    if (iCurrency !== -1 || iCountry !== -1) {
      layout = "long";
      return longRows(h, iCurrency, iCountry);
    }
    const iDate = h.require(["date", "data", "observation_date", "time_period"], "FX wide");
    const columns: WideColumn[] = [];
    const iUsd = h.has("usd") ? h.find("usd") : -1;
    layout = iUsd !== -1 ? "ecb" : "fred_wide";
    h.keys.forEach((k, i) => {
      if (i === iDate || i === iUsd) return;
      if (iUsd !== -1) {
        const c = k.toUpperCase() as Currency;
        if ((CURRENCIES as readonly string[]).includes(c) && wanted.has(c))
          columns.push({ index: i, currency: c, mode: "ecb" });
        return;
      }
      const w = WIDE_COLUMNS[k];
      if (w && wanted.has(w.currency))
        columns.push({ index: i, currency: w.currency, mode: w.inverted ? "inverted" : "direct" });
    });
    for (const c of columns) h.markUsed(c.index);
    if (columns.length === 0 && iUsd === -1)
      throw h.error(
        h.line,
        Math.min(1, h.width - 1),
        `no FX column found for ${[...wanted].join(", ")}: expected long (date,currency,per_usd), FRED wide (Canada, Euro, Japan, United Kingdom or DEXCAUS...) or ECB (Date,USD,JPY,...) headers.`,
      );
    for (const c of columns) gaps.set(c.currency, { empties: [], first: null, last: null });
    if (iUsd !== -1 && wanted.has("EUR")) gaps.set("EUR", { empties: [], first: null, last: null });

    return (fields, line) => {
      const date = dates.parse(fields[iDate]!);
      if (date === null)
        throw h.error(
          line,
          iDate,
          `${JSON.stringify(fields[iDate])} is not a date (expected YYYY-MM-DD or M/D/YYYY).`,
        );
      let made = 0;
      let usdPerEur = Number.NaN;
      if (iUsd !== -1) {
        if (isMissing(fields[iUsd]!)) {
          skipped++;
          flaws.add(
            "empty_value",
            "skipped",
            "USD",
            date,
            line,
            "no USD per EUR rate: the row cannot be converted to per-USD rates; skipped.",
          );
          return;
        }
        usdPerEur = positive(h, fields, iUsd, line);
        if (wanted.has("EUR")) {
          const g = gaps.get("EUR")!;
          if (g.first === null || date < g.first) g.first = date;
          if (g.last === null || date > g.last) g.last = date;
          if (keep("EUR", date, 1 / usdPerEur, line)) made++;
        }
      }
      for (const c of columns) {
        const g = gaps.get(c.currency)!;
        if (isMissing(fields[c.index]!)) {
          g.empties.push({ date, line });
          continue;
        }
        const v = positive(h, fields, c.index, line);
        const perUsd = c.mode === "direct" ? v : c.mode === "inverted" ? 1 / v : v / usdPerEur;
        if (g.first === null || date < g.first) g.first = date;
        if (g.last === null || date > g.last) g.last = date;
        if (keep(c.currency, date, perUsd, line)) made++;
      }
      if (made === 0) skipped++;
    };
  });

  /** Long layout rows: one rate per row. */
  function longRows(h: CsvHeader, iCurrency: number, iCountry: number) {
    const iDate = h.require(["date", "observation_date"], "FX long");
    const iRate = h.require(["per_usd", "rate", "exchange_rate", "value"], "FX long");
    const iCode = iCurrency !== -1 ? iCurrency : iCountry;
    return (fields: string[], line: number): void => {
      const date = dates.parse(fields[iDate]!);
      if (date === null)
        throw h.error(
          line,
          iDate,
          `${JSON.stringify(fields[iDate])} is not a date (expected YYYY-MM-DD or M/D/YYYY).`,
        );
      const raw = fields[iCode]!.trim();
      if (raw === "")
        throw h.error(line, iCode, `the ${iCurrency !== -1 ? "currency" : "country"} is empty.`);
      const currency =
        iCurrency !== -1
          ? (raw.toUpperCase() as Currency)
          : COUNTRY_CURRENCY[raw.toLowerCase().replace(/\s+/g, "_")];
      if (
        currency === undefined ||
        !(CURRENCIES as readonly string[]).includes(currency) ||
        (currency !== "USD" && !wanted.has(currency))
      ) {
        skipped++;
        const o = other.get(raw) ?? { rows: 0, line };
        o.rows++;
        other.set(raw, o);
        return;
      }
      if (isMissing(fields[iRate]!)) {
        skipped++;
        flaws.add("empty_value", "skipped", currency, date, line, `empty ${currency} rate; no record.`);
        return;
      }
      const v = positive(h, fields, iRate, line);
      if (currency === "USD" && Math.abs(v - 1) > 1e-12)
        throw h.error(line, iRate, `USD per USD must be 1, found ${v}.`);
      if (!keep(currency, date, v, line)) skipped++;
    };
  }

  for (const [code, o] of other)
    flaws.add(
      "other_currency",
      "skipped",
      code,
      null,
      o.line,
      `${o.rows} row${o.rows > 1 ? "s" : ""} for ${JSON.stringify(code)} skipped: not one of ${[...wanted].join(", ")}.`,
    );
  for (const [currency, g] of gaps) reportColumnGaps(flaws, currency, g);

  rates.sort((a, b) =>
    a.date < b.date
      ? -1
      : a.date > b.date
        ? 1
        : a.currency < b.currency
          ? -1
          : a.currency > b.currency
            ? 1
            : 0,
  );
  const range =
    rates.length > 0
      ? { firstDate: rates[0]!.date, lastDate: rates[rates.length - 1]!.date }
      : { firstDate: null, lastDate: null };
  const summary = flaws.summary({
    file,
    dataset: "fx",
    layout,
    rowsRead,
    rowsKept: rowsRead - skipped,
    rowsSkipped: skipped,
    records: rates.length,
    symbols: new Set(rates.map((r) => r.currency)).size,
    ...range,
    ignoredColumns: header.ignoredColumns(),
  });
  return { rates, summary };
}

function positive(h: CsvHeader, fields: string[], i: number, line: number): number {
  const v = parseNumber(fields[i]!);
  if (Number.isNaN(v)) throw h.error(line, i, notANumberMessage(fields[i]!));
  if (!(v > 0)) throw h.error(line, i, `an exchange rate must be positive, found ${v}.`);
  return v;
}

/**
 * Empty cells before a series' first value are one `late_start` note, after its last value one `early_end`
 * note; inside the series each is an `empty_value` (holiday), with no record.
 */
function reportColumnGaps(flaws: FlawLog, currency: Currency, g: ColumnGaps): void {
  if (g.first === null || g.last === null) {
    if (g.empties.length > 0)
      flaws.add(
        "empty_value",
        "skipped",
        currency,
        null,
        g.empties[0]!.line,
        `the ${currency} column has no value in any of its ${g.empties.length} rows.`,
      );
    return;
  }
  const before = g.empties.filter((e) => e.date < g.first!);
  const after = g.empties.filter((e) => e.date > g.last!);
  if (before.length > 0) {
    const line = Math.min(...before.map((e) => e.line));
    flaws.add(
      "late_start",
      "noted",
      currency,
      g.first,
      line,
      `${currency} series starts ${g.first}; ${before.length} earlier rows have no ${currency} value.`,
    );
  }
  if (after.length > 0) {
    const line = Math.min(...after.map((e) => e.line));
    flaws.add(
      "early_end",
      "noted",
      currency,
      g.last,
      line,
      `${currency} series ends ${g.last}; ${after.length} later rows have no ${currency} value.`,
    );
  }
  for (const e of g.empties)
    if (e.date >= g.first && e.date <= g.last)
      flaws.add(
        "empty_value",
        "skipped",
        currency,
        e.date,
        e.line,
        `empty ${currency} cell (holiday or no fixing); no rate stored.`,
      );
}

/** Options of {@link importFx}. */
export interface ImportFxOptions {
  /** @default ["CAD", "EUR", "GBP", "JPY"] */
  currencies?: readonly Currency[];
  /** @default 5000 */
  maxFlawsListedPerKind?: number;
}

/**
 * Parses the whole FX file (.csv or .csv.gz, any layout), then inserts the rates in one transaction.
 * @throws {CsvFormatError} before anything is written.
 */
export async function importFx(
  path: string,
  writer: MarketDataWriter,
  options: ImportFxOptions = {},
): Promise<ImportSummary> {
  const parseOptions: FxParseOptions = { file: path };
  if (options.currencies !== undefined) parseOptions.currencies = options.currencies;
  if (options.maxFlawsListedPerKind !== undefined)
    parseOptions.maxFlawsListedPerKind = options.maxFlawsListedPerKind;
  const r = await importFile(
    path,
    writer,
    (bytes) => parseFx(bytes, parseOptions),
    (res) => writer.insertFx(res.rates),
  );
  return r.summary;
}
