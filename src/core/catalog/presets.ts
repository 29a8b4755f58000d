/**
 * @module core/catalog/presets
 * The built-in universe presets of themes (endpoint 10): named candidate universes, each a filter expression
 * of the expression language plus the exchange locations, exchanges and currencies it admits.
 */
import { INDUSTRY_TAXONOMY } from "./taxonomy-data.js";

/** A universe preset (the wire shape of endpoint 10). */
export interface UniversePreset {
  id: string;
  name: string;
  description: string;
  /** Filter expression of the preset's candidate universe. */
  filter_expression: string;
  /** ISO 3166-1 alpha-2 countries of the listings, e.g. US, CA. */
  allowed_exchange_locations: string[];
  /** ISO 10383 MICs of the listings. */
  allowed_exchanges: string[];
  allowed_currencies: string[];
}

/** Market-cap bounds (USD) of the size presets; the usual US size buckets. */
export const MARKET_CAP_BOUNDS = Object.freeze({
  /** Large caps: market_cap >= 10 billion USD. */
  large: 10e9,
  /** Mid caps: 2 to 10 billion USD. */
  mid: 2e9,
  /** Small caps: 300 million to 2 billion USD. */
  small: 300e6,
});

const US = {
  where: "exchange in ('XNYS', 'XNAS') and currency = 'USD' and asset_type = 'equity'",
  allowed_exchange_locations: ["US"],
  allowed_exchanges: ["XNYS", "XNAS"],
  allowed_currencies: ["USD"],
};
const CANADA = {
  where: "exchange = 'XTSE' and currency = 'CAD' and asset_type = 'equity'",
  allowed_exchange_locations: ["CA"],
  allowed_exchanges: ["XTSE"],
  allowed_currencies: ["CAD"],
};

function preset(
  id: string,
  name: string,
  description: string,
  market: typeof US,
  extra?: string,
): UniversePreset {
  return Object.freeze({
    id,
    name,
    description,
    filter_expression: extra === undefined ? market.where : `${market.where} and ${extra}`,
    allowed_exchange_locations: [...market.allowed_exchange_locations],
    allowed_exchanges: [...market.allowed_exchanges],
    allowed_currencies: [...market.allowed_currencies],
  });
}

const slug = (name: string) =>
  name
    .toLowerCase()
    .replace(/&/g, "and")
    .replace(/[^a-z0-9]+/g, "_")
    .replace(/^_|_$/g, "");

const sectorPresets = INDUSTRY_TAXONOMY.filter((n) => n.level === 1).map((n) =>
  preset(
    `us_${slug(n.name)}`,
    `US ${n.name}`,
    `US-listed common stocks of the ${n.name} sector (sector ${n.id}).`,
    US,
    `sector = ${n.id}`,
  ),
);

const fmtCap = (usd: number) => (usd >= 1e9 ? `${usd / 1e9} billion` : `${usd / 1e6} million`);

/**
 * Every built-in preset, in display order: the US size and market presets, Canada, US and Canada, then one
 * US preset per sector (`us_energy` ... `us_real_estate`, in sector-code order). Frozen.
 *
 * US listings are XNYS and XNAS common stocks in USD (ETFs on ARCX are not equities); Canadian listings are
 * XTSE common stocks in CAD. Size buckets use the `market_cap` characteristic (USD, point in time):
 * large >= 10 billion, mid 2 to 10 billion, small 300 million to 2 billion. The expression language has no
 * "top N" over the whole market, so large caps are a cap threshold, not "the 500 largest".
 */
export const UNIVERSE_PRESETS: readonly UniversePreset[] = Object.freeze([
  preset(
    "us_large_cap",
    "US large caps",
    `US-listed common stocks with a market cap of at least ${fmtCap(MARKET_CAP_BOUNDS.large)} USD.`,
    US,
    `market_cap >= ${MARKET_CAP_BOUNDS.large / 1e9}e9`,
  ),
  preset(
    "us_mid_cap",
    "US mid caps",
    `US-listed common stocks with a market cap from ${fmtCap(MARKET_CAP_BOUNDS.mid)} to ${fmtCap(MARKET_CAP_BOUNDS.large)} USD.`,
    US,
    `market_cap >= ${MARKET_CAP_BOUNDS.mid / 1e9}e9 and market_cap < ${MARKET_CAP_BOUNDS.large / 1e9}e9`,
  ),
  preset(
    "us_small_cap",
    "US small caps",
    `US-listed common stocks with a market cap from ${fmtCap(MARKET_CAP_BOUNDS.small)} to ${fmtCap(MARKET_CAP_BOUNDS.mid)} USD.`,
    US,
    `market_cap >= ${MARKET_CAP_BOUNDS.small / 1e6}e6 and market_cap < ${MARKET_CAP_BOUNDS.mid / 1e9}e9`,
  ),
  preset("us_all", "US all", "Every US-listed common stock (NYSE and Nasdaq).", US),
  preset("canada", "Canada", "Every common stock listed on the Toronto Stock Exchange.", CANADA),
  Object.freeze({
    id: "us_canada",
    name: "US and Canada",
    description: "Every common stock listed in the US (NYSE, Nasdaq, in USD) or in Canada (TSX, in CAD).",
    filter_expression:
      "((exchange in ('XNYS', 'XNAS') and currency = 'USD') or (exchange = 'XTSE' and currency = 'CAD')) and asset_type = 'equity'",
    allowed_exchange_locations: ["US", "CA"],
    allowed_exchanges: ["XNYS", "XNAS", "XTSE"],
    allowed_currencies: ["USD", "CAD"],
  }),
  ...sectorPresets,
]);

const BY_ID = new Map(UNIVERSE_PRESETS.map((p) => [p.id, p]));

/** The preset with this id, or undefined. @example findUniversePreset("us_large_cap")?.filter_expression */
export function findUniversePreset(id: string): UniversePreset | undefined {
  return BY_ID.get(id);
}

/**
 * Preset id -> filter expression, the form `compileThemeDefinition` takes.
 * @example compileThemeDefinition(definition, { fields, presets: universePresetExpressions() })
 */
export function universePresetExpressions(): Map<string, string> {
  return new Map(UNIVERSE_PRESETS.map((p) => [p.id, p.filter_expression]));
}
