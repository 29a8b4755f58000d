/**
 * @module core/data/types
 * The market-data model of PRODUCT.md section 3, as plain values. The core owns these types; `src/market`
 * (importers, generator) produces them and `src/store` persists them. Prices and rates are float64 (they come
 * from vendors as floats); money that is booked (lots, cash, orders) is decimal and lives elsewhere.
 */

/** Currencies the service knows (the spec's FX breakdown enum). */
export const CURRENCIES = ["USD", "CAD", "EUR", "GBP", "JPY"] as const;
export type Currency = (typeof CURRENCIES)[number];

/** What kind of instrument a security is. */
export const ASSET_TYPES = ["equity", "etf", "index", "fund"] as const;
export type AssetType = (typeof ASSET_TYPES)[number];

/**
 * One listing in the security master. `themeAssetId` = `SYMBOL:MIC` (e.g. `AAPL:XNAS`, `RY:XTSE`).
 * Industry codes refer to the built-in four-level taxonomy (sector 2 digits, group 4, industry 6, sub-industry 8).
 */
export interface Security {
  themeAssetId: string;
  symbol: string;
  mic: string;
  name: string;
  currency: Currency;
  /** ISO 3166-1 alpha-2 country of the listing, e.g. `US`, `CA`. */
  country: string;
  assetType: AssetType;
  sector: number | null;
  industryGroup: number | null;
  industry: number | null;
  subIndustry: number | null;
  sicCode: number | null;
  /** Latest known shares outstanding (market cap = shares x close). */
  sharesOutstanding: number | null;
  description: string | null;
  /** First and last dates with data; null when unknown / still listed. */
  listedFrom: string | null;
  delistedOn: string | null;
}

/** One daily bar. Only `close` is required; vendor files often lack the rest. Prices in the security's currency. */
export interface PriceBar {
  themeAssetId: string;
  date: string;
  open: number | null;
  high: number | null;
  low: number | null;
  close: number;
  /** Vendor-adjusted close when the source has one. */
  adjClose: number | null;
  volume: number | null;
}

/** A split effective on `date`: each old share becomes `ratio` new shares (2-for-1 = 2; 1-for-10 reverse = 0.1). */
export interface Split {
  themeAssetId: string;
  date: string;
  ratio: number;
}

/** A cash dividend per share (security currency) going ex on `exDate`. */
export interface Dividend {
  themeAssetId: string;
  exDate: string;
  amount: number;
}

/** An FX rate: units of `currency` per 1 USD on `date` (the FRED H.10 convention; CAD 1.30 means 1 USD = 1.30 CAD). */
export interface FxRate {
  date: string;
  currency: Currency;
  perUsd: number;
}

/** A security characteristic observed on `date` (market_cap, dividend_yield, pe, pb, eps, momentum...). */
export interface CharacteristicValue {
  themeAssetId: string;
  date: string;
  name: string;
  value: number;
}

/** A benchmark index: `identifier` is canonical (e.g. `SP500`), levels are its price series. */
export interface IndexInfo {
  identifier: string;
  name: string;
  currency: Currency;
  description: string | null;
}

export interface IndexLevel {
  identifier: string;
  date: string;
  level: number;
}

/** Constituent weight of an index on a date (weights of one date sum to 1). */
export interface IndexWeight {
  identifier: string;
  date: string;
  themeAssetId: string;
  weight: number;
}

/** A node of the four-level industry taxonomy. */
export interface IndustryNode {
  level: 1 | 2 | 3 | 4;
  id: number;
  name: string;
  parentId: number | null;
  /** Search words beyond the name (synonyms, common abbreviations). */
  keywords: readonly string[];
  description: string;
}
