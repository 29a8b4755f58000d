/**
 * @module market/real-data/load-sp500
 * Loads the real S&P 500 test data of `/work/shared/data` (see its MANIFEST.md) into a store: 505 securities,
 * 619,040 daily bars 2013-02-08..2018-02-07, point-in-time fundamentals of two vintages, the S&P 500 index
 * (levels 1999-2018 and month-end cap weights), and CAD/EUR/GBP/JPY per USD from the ECB. Every file is
 * parsed first; everything is then written in ONE transaction.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { CharacteristicValue, Currency, Security, Split } from "../../core/data/types.js";
import { DataError } from "../../core/errors.js";
import { readCsvFile } from "../importers/csv-input.js";
import { FX_CURRENCIES, parseFx } from "../importers/fx.js";
import { parseIndexLevels } from "../importers/index-levels.js";
import { minimalSecurity } from "../importers/minimal-security.js";
import { parsePrices } from "../importers/prices.js";
import type { ImportSummary } from "../importers/summary.js";
import type { SymbolResolver } from "../importers/symbol-resolver.js";
import type { MarketDataWriter } from "../writer.js";
import { monthEndCapWeights } from "./cap-weights.js";
import { parseConstituentsFinancials } from "./constituents.js";
import { micForSp500Symbol, SP500_2018_NASDAQ_SYMBOLS } from "./nasdaq-listings.js";

/** Files read, relative to the data directory. */
export const SP500_FILES = {
  prices: "prices/all_stocks_5yr.csv.gz",
  constituents2018: "constituents/sp500_constituents_financials_2018-02-08.csv",
  constituents2013: "constituents/sp500_constituents_financials_2013-02-10.csv",
  index: "benchmark/sp500_index_daily_ohlcv_1999-2018.csv",
  fx: "fx/ecb_eurofxref_hist_1999-2026.csv.gz",
} as const;

/**
 * Dates stamped on each fundamentals vintage: the trading day whose closes the snapshot's Price column shows
 * (2013 file: MMM 102.66 and AAPL 474.98 = the 2013-02-08 closes; 2018 file: MMM 222.89 and AAPL 155.15 =
 * the 2018-02-08 closes, one day after the price file ends).
 */
export const SP500_VINTAGE_DATES = {
  constituents2013: "2013-02-08",
  constituents2018: "2018-02-08",
} as const;

/**
 * Tickers of the 2013 vintage that denote, in 2018 terms, another ticker of the same company: Google's class A
 * traded as GOOG until the April 2014 share split (then GOOGL; the GOOG of the price file is the class C
 * issued then), and the pre-split News Corp of 2013 (NWSA) is today's 21st Century Fox (FOXA).
 */
export const SP500_2013_TICKER_CHANGES: Readonly<Record<string, string>> = { GOOG: "GOOGL", NWSA: "FOXA" };

/**
 * Share-class pairs of one company in the 2018 file. Its Market Cap column gives the COMPANY's total on both
 * lines (GOOGL 734 bn and GOOG 729 bn), so Market Cap / Price would count the company twice in cap weights;
 * lacking per-class share counts, each class gets half: shares = Market Cap / Price / 2 (an approximation).
 */
export const SP500_SHARE_CLASS_PAIRS: readonly (readonly [string, string])[] = [
  ["GOOGL", "GOOG"],
  ["DISCA", "DISCK"],
  ["FOXA", "FOX"],
  ["NWSA", "NWS"],
  ["UAA", "UA"],
];

/**
 * The data set's spin-offs (and the DISCK 2:1 split of the Discovery Series C dividend), in the corporate-actions
 * CSV layout of docs/ledger.md section 9, shipped with lotwise (`data/sp500/corporate-actions.csv`): the prices are
 * split-adjusted but not spin-off-adjusted, so on these dates the parent's close drops by the child's value. Each
 * row says whether its basis fraction and child price are announced or estimated, and its source (docs/backtests.md,
 * "Spin-offs in the S&P 500 data").
 */
export const SP500_CORPORATE_ACTIONS_URL = new URL(
  "../../../data/sp500/corporate-actions.csv",
  import.meta.url,
);

/** The shipped corporate-actions file of the data set (text of {@link SP500_CORPORATE_ACTIONS_URL}). */
export function sp500CorporateActionsCsv(): string {
  return readFileSync(SP500_CORPORATE_ACTIONS_URL, "utf8");
}

/**
 * Spun-off children that have no prices in the data set (not constituents in 2018): listed without prices so that
 * the corporate actions can name them and lots can hold them.
 */
export const SP500_SPINOFF_CHILDREN_WITHOUT_PRICES: readonly {
  themeAssetId: string;
  name: string;
  /** Level-1 sector code of the shared taxonomy. */
  sector: number;
  listedFrom: string;
}[] = [
  {
    themeAssetId: "CPGX:XNYS",
    name: "Columbia Pipeline Group (spun off by NiSource 2015-07-01)",
    sector: 10,
    listedFrom: "2015-07-02",
  },
  {
    themeAssetId: "AA:XNYS",
    name: "Alcoa Corp (spun off by Arconic 2016-11-01)",
    sector: 15,
    listedFrom: "2016-11-01",
  },
  {
    themeAssetId: "YUMC:XNYS",
    name: "Yum China Holdings (spun off by Yum! Brands 2016-10-31)",
    sector: 25,
    listedFrom: "2016-11-01",
  },
];

/**
 * The split the data's prices are not adjusted for: DISCK holders received one Series C share per Series C share
 * on 2014-08-07 (the same dividend that is a spin-off for DISCA holders); DISCK's close halves that day.
 */
export const SP500_UNADJUSTED_SPLITS: readonly Split[] = [
  { themeAssetId: "DISCK:XNAS", date: "2014-08-07", ratio: 2 },
];

/** Identifier of the benchmark index. */
export const SP500_INDEX_ID = "SP500";

/** Options of {@link loadSp500Dataset}. */
export interface LoadSp500Options {
  /**
   * Also store `market_cap` at every month end as close x shares (shares = 2018 Market Cap / Price; has
   * look-ahead, see cap-weights).
   * @default true
   */
  deriveMonthlyMarketCap?: boolean;
  /** Store month-end cap weights of the SP500 index for the 505 constituents. @default true */
  indexWeights?: boolean;
  /** Currencies taken from the ECB file. @default ["CAD", "EUR", "GBP", "JPY"] */
  fxCurrencies?: readonly Currency[];
  /** Tickers given XNAS (all others XNYS). @default SP500_2018_NASDAQ_SYMBOLS */
  nasdaqSymbols?: ReadonlySet<string>;
  /** @default 5000 */
  maxFlawsListedPerKind?: number;
  /**
   * Write what the shipped corporate actions need in the market data: the listings of the spun-off children
   * without prices ({@link SP500_SPINOFF_CHILDREN_WITHOUT_PRICES}) and the DISCK split
   * ({@link SP500_UNADJUSTED_SPLITS}). The actions themselves go to the store's corporate actions
   * (service/market-data.ts `importSp500CorporateActions`). false loads the data as the files have it.
   * @default true
   */
  corporateActions?: boolean;
}

/** What {@link loadSp500Dataset} read and wrote. */
export interface Sp500LoadSummary {
  dataDir: string;
  /** One summary per file read. */
  files: {
    prices: ImportSummary;
    constituents2018: ImportSummary;
    constituents2013: ImportSummary;
    index: ImportSummary;
    fx: ImportSummary;
  };
  /** The price file's known flaws (MANIFEST section 1), counted by the price importer. */
  knownFlaws: {
    /** Rows with at least one empty field (kept, fields null). */
    emptyFieldRows: number;
    /** Rows with volume 0 (kept). */
    zeroVolumeRows: number;
    /** Rows with close outside [low, high] or high < low (kept). */
    ohlcInconsistentRows: number;
    /** Tickers starting after 2013-02-08. */
    lateStarts: number;
    /** Tickers with trading days missing inside their series. */
    tickersWithGaps: number;
    /** (ticker, day) cases with |log return| > 0.35 (kept). */
    jumps: number;
    /** Duplicate (date, ticker) rows (skipped). */
    duplicates: number;
    /** Rows without a usable close (skipped). */
    noCloseRows: number;
  };
  /** Records written, per table. */
  written: {
    securities: number;
    prices: number;
    characteristics: number;
    indexLevels: number;
    indexWeights: number;
    fxRates: number;
    splits: number;
  };
  /** Listings per MIC. */
  listings: Record<string, number>;
  /** The caveats of this data set, in words. */
  caveats: string[];
}

const CAVEATS = [
  "Survivorship bias: the price file holds the 505 constituents of 2018-02-08 only; companies that left the index in 2013-2018 are absent.",
  "MIC approximation: the sources name no exchange; an authored list of Nasdaq tickers gets XNAS, every other ticker XNYS.",
  "Look-ahead: shares outstanding (2018 Market Cap / Price) are applied to all dates for month-end market caps and index weights.",
  "Share classes: for GOOGL/GOOG, DISCA/DISCK, FOXA/FOX, NWSA/NWS and UAA/UA the source gives the company's market cap on both lines; each class gets half the shares.",
  "Prices are split-adjusted but not adjusted for spin-offs (DISCA, NI, EBAY, ARNC, YUM: see data/sp500/corporate-actions.csv, imported with the data set); the 2013 fundamentals (eps, price) are as published, not split-adjusted.",
  "Industry group, industry, sub-industry and SIC are null: no permissively licensed mapping for these tickers exists in the data.",
];

/**
 * Loads the S&P 500 data set from `dataDir` (the folder holding MANIFEST.md) into `writer`.
 * @throws {DataError} when a required file is missing (naming it).
 * @throws {CsvFormatError} / {UnresolvedSymbolError} when a file does not parse; nothing is written then.
 * @example
 * const summary = await loadSp500Dataset("/work/shared/data", store);
 * summary.knownFlaws.jumps; // 17
 */
export async function loadSp500Dataset(
  dataDir: string,
  writer: MarketDataWriter,
  options: LoadSp500Options = {},
): Promise<Sp500LoadSummary> {
  const path = (k: keyof typeof SP500_FILES) => join(dataDir, SP500_FILES[k]);
  const missing = (Object.keys(SP500_FILES) as (keyof typeof SP500_FILES)[]).filter(
    (k) => !existsSync(path(k)),
  );
  if (missing.length > 0)
    throw new DataError(
      `The S&P 500 data set is incomplete in ${dataDir}: missing ${missing.map((k) => SP500_FILES[k]).join(", ")}.`,
    );
  const nasdaq = options.nasdaqSymbols ?? SP500_2018_NASDAQ_SYMBOLS;
  const cap =
    options.maxFlawsListedPerKind === undefined
      ? {}
      : { maxFlawsListedPerKind: options.maxFlawsListedPerKind };

  // 1. The 2018 constituents define the listings (every ticker of the price file, checked by MANIFEST).
  const byResolverMic: SymbolResolver = (token) => {
    const s = token.trim().toUpperCase();
    return { ok: true, themeAssetId: `${s}:${micForSp500Symbol(s, nasdaq)}` };
  };
  const c2018 = await parseConstituentsFinancials(await readCsvFile(path("constituents2018")), {
    file: path("constituents2018"),
    date: SP500_VINTAGE_DATES.constituents2018,
    resolver: byResolverMic,
    ...cap,
  });
  const listed = new Set(c2018.rows.map((r) => r.themeAssetId));
  const known: SymbolResolver = (token) => {
    const r = byResolverMic(token);
    if (r.ok && listed.has(r.themeAssetId)) return r;
    return {
      ok: false,
      reason: "unknown",
      candidates: [],
      message: `"${token.trim()}" is not among the 2018-02-08 constituents (no prices in this data set).`,
    };
  };

  // 2. Prices, resolved against those listings (an unknown ticker would be an error).
  const prices = await parsePrices(await readCsvFile(path("prices")), {
    file: path("prices"),
    resolver: known,
    ...cap,
  });

  // 3. The 2013 vintage: tickers that left the index by 2018 have no listing here; skipped and reported.
  const known2013: SymbolResolver = (token) =>
    known(SP500_2013_TICKER_CHANGES[token.trim().toUpperCase()] ?? token);
  const c2013 = await parseConstituentsFinancials(await readCsvFile(path("constituents2013")), {
    file: path("constituents2013"),
    date: SP500_VINTAGE_DATES.constituents2013,
    resolver: known2013,
    onUnresolvedSymbol: "skip",
    ...cap,
  });

  // 4. Index levels and 5. FX.
  const index = await parseIndexLevels(await readCsvFile(path("index")), {
    file: path("index"),
    identifier: SP500_INDEX_ID,
    name: "S&P 500",
    currency: "USD",
    description:
      "S&P 500 price index (bashtage/arch data); constituent weights: month-end cap weights of the 2018 constituents (survivorship bias, look-ahead shares).",
    ...cap,
  });
  const fx = await parseFx(await readCsvFile(path("fx")), {
    file: path("fx"),
    currencies: options.fxCurrencies ?? FX_CURRENCIES,
    ...cap,
  });

  // Securities: names and sectors from 2018, shares = Market Cap / Price, first price date as listedFrom.
  const firstDate = new Map<string, string>();
  for (const b of prices.bars) {
    const d = firstDate.get(b.themeAssetId);
    if (d === undefined || b.date < d) firstDate.set(b.themeAssetId, b.date);
  }
  const shares = new Map<string, number>();
  const paired = new Set(SP500_SHARE_CLASS_PAIRS.flat());
  const securities: Security[] = c2018.rows.map((r) => {
    const classes = paired.has(r.symbol) ? 2 : 1;
    const n =
      r.marketCap !== null && r.price !== null && r.price > 0
        ? Math.round(r.marketCap / r.price / classes)
        : null;
    if (n !== null && n > 0) shares.set(r.themeAssetId, n);
    return minimalSecurity(r.themeAssetId, {
      name: r.name,
      sector: r.sector,
      sharesOutstanding: n,
      listedFrom: firstDate.get(r.themeAssetId) ?? null,
    });
  });

  const withActions = options.corporateActions !== false;
  if (withActions)
    for (const c of SP500_SPINOFF_CHILDREN_WITHOUT_PRICES)
      securities.push(
        minimalSecurity(c.themeAssetId, { name: c.name, sector: c.sector, listedFrom: c.listedFrom }),
      );
  const splits = withActions ? SP500_UNADJUSTED_SPLITS : [];

  const caps =
    options.deriveMonthlyMarketCap === false && options.indexWeights === false
      ? null
      : monthEndCapWeights(prices.bars, shares, SP500_INDEX_ID);
  const characteristics: CharacteristicValue[] = [...c2013.values, ...c2018.values];
  if (caps && options.deriveMonthlyMarketCap !== false) characteristics.push(...caps.marketCaps);
  const weights = caps && options.indexWeights !== false ? caps.weights : [];

  writer.transaction(() => {
    writer.upsertSecurities(securities);
    writer.insertPrices(prices.bars);
    writer.insertCharacteristics(characteristics);
    writer.upsertIndex(index.index);
    writer.insertIndexLevels(index.levels);
    if (weights.length > 0) writer.insertIndexWeights(weights);
    writer.insertFx(fx.rates);
    if (splits.length > 0) writer.insertSplits(splits);
  });

  const listings: Record<string, number> = {};
  for (const s of securities) listings[s.mic] = (listings[s.mic] ?? 0) + 1;
  const f = prices.summary.flawCounts;
  return {
    dataDir,
    files: {
      prices: prices.summary,
      constituents2018: c2018.summary,
      constituents2013: c2013.summary,
      index: index.summary,
      fx: fx.summary,
    },
    knownFlaws: {
      emptyFieldRows: f.empty_field,
      zeroVolumeRows: f.zero_volume,
      ohlcInconsistentRows: f.ohlc_inconsistent,
      lateStarts: f.late_start,
      tickersWithGaps: f.gap,
      jumps: f.jump,
      duplicates: f.duplicate,
      noCloseRows: f.no_close,
    },
    written: {
      securities: securities.length,
      prices: prices.bars.length,
      characteristics: characteristics.length,
      indexLevels: index.levels.length,
      indexWeights: weights.length,
      fxRates: fx.rates.length,
      splits: splits.length,
    },
    listings,
    caveats: CAVEATS,
  };
}
