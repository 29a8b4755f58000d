/**
 * @module market/importers/symbol-resolver
 * Turning the symbols found in files into theme_asset_ids (`SYMBOL:MIC`). A resolver returns a value, never
 * throws: the importer adds the file, line and column to an unresolved outcome and either fails or (when the
 * caller asked for it) skips the row and reports it.
 */
import type { Security } from "../../core/data/types.js";

/** Outcome of resolving one symbol. */
export type SymbolResolution =
  | { ok: true; themeAssetId: string }
  | { ok: false; reason: "unknown" | "ambiguous"; candidates: string[]; message: string };

/**
 * Resolves a token from a file (a plain symbol such as `AAPL`, or a theme_asset_id such as `AAPL:XNAS`).
 * `micHint` is an exchange the file itself states for the row (e.g. the community split file's `exchange`),
 * used only to choose among several listings.
 */
export type SymbolResolver = (token: string, micHint?: string) => SymbolResolution;

const SYMBOL = /^[A-Z0-9][A-Z0-9.\-/^]*$/;
const MIC = /^[A-Z0-9]{4}$/;

/** Normalizes a symbol (trim, upper case); null when it contains characters no ticker has. */
export function normalizeSymbol(raw: string): string | null {
  const s = raw.trim().toUpperCase();
  return SYMBOL.test(s) ? s : null;
}

/** Splits `SYMBOL:MIC` (case-insensitive); null when `token` is not a well-formed theme_asset_id. */
export function parseThemeAssetId(
  token: string,
): { symbol: string; mic: string; themeAssetId: string } | null {
  const t = token.trim().toUpperCase();
  const k = t.lastIndexOf(":");
  if (k <= 0) return null;
  const symbol = t.slice(0, k);
  const mic = t.slice(k + 1);
  if (!SYMBOL.test(symbol) || !MIC.test(mic)) return null;
  return { symbol, mic, themeAssetId: `${symbol}:${mic}` };
}

function invalid(token: string): SymbolResolution {
  return {
    ok: false,
    reason: "unknown",
    candidates: [],
    message: `"${token}" is neither a symbol nor a theme_asset_id (SYMBOL:MIC).`,
  };
}

/**
 * Resolver that needs no store: a theme_asset_id passes through (upper-cased), a plain symbol gets `mic`.
 * @throws {RangeError} when `mic` is not a 4-character MIC.
 * @example resolverForMic("XNAS")("aapl") // { ok: true, themeAssetId: "AAPL:XNAS" }
 */
export function resolverForMic(mic: string): SymbolResolver {
  const m = mic.trim().toUpperCase();
  if (!MIC.test(m))
    throw new RangeError(`resolverForMic: "${mic}" is not an ISO 10383 MIC (4 letters/digits)`);
  return (token) => {
    const id = parseThemeAssetId(token);
    if (id) return { ok: true, themeAssetId: id.themeAssetId };
    const s = normalizeSymbol(token);
    return s ? { ok: true, themeAssetId: `${s}:${m}` } : invalid(token);
  };
}

/**
 * Resolver over known listings (typically `writer.findSecuritiesBySymbol`): a symbol with exactly one listing
 * resolves to it; none is `unknown`; several is `ambiguous` (naming them) unless `micHint` picks one.
 * A theme_asset_id must name an existing listing.
 */
export function resolverFromListings(lookup: (symbol: string) => readonly Security[]): SymbolResolver {
  return (token, micHint) => {
    const id = parseThemeAssetId(token);
    if (id) {
      const found = lookup(id.symbol).some((s) => s.themeAssetId === id.themeAssetId);
      return found
        ? { ok: true, themeAssetId: id.themeAssetId }
        : {
            ok: false,
            reason: "unknown",
            candidates: [],
            message: `${id.themeAssetId} is not in the security master; import the securities first.`,
          };
    }
    const symbol = normalizeSymbol(token);
    if (!symbol) return invalid(token);
    const listings = lookup(symbol);
    if (listings.length === 1) return { ok: true, themeAssetId: listings[0]!.themeAssetId };
    if (listings.length === 0)
      return {
        ok: false,
        reason: "unknown",
        candidates: [],
        message: `symbol "${symbol}" matches no listing in the security master; import the securities first, write the theme_asset_id (SYMBOL:MIC), or pass a defaultMic.`,
      };
    const ids = listings.map((s) => s.themeAssetId).sort();
    if (micHint) {
      const hinted = listings.filter((s) => s.mic === micHint);
      if (hinted.length === 1) return { ok: true, themeAssetId: hinted[0]!.themeAssetId };
    }
    return {
      ok: false,
      reason: "ambiguous",
      candidates: ids,
      message: `symbol "${symbol}" matches ${ids.length} listings (${ids.join(", ")}); write the theme_asset_id (SYMBOL:MIC) in the file or pass a resolver.`,
    };
  };
}

/**
 * Resolver that accepts theme_asset_ids only: the default of the pure parse steps, so that no symbol is ever
 * guessed.
 */
export const themeAssetIdsOnly: SymbolResolver = (token) => {
  const id = parseThemeAssetId(token);
  if (id) return { ok: true, themeAssetId: id.themeAssetId };
  return {
    ok: false,
    reason: "unknown",
    candidates: [],
    message: `"${token}" is not a theme_asset_id (SYMBOL:MIC) and no symbol resolver was given; pass resolver or defaultMic.`,
  };
};

/** Exchange names used in vendor files -> MIC. */
const EXCHANGE_MICS: Record<string, string> = {
  NASDAQ: "XNAS",
  NASDAQGS: "XNAS",
  NASDAQGM: "XNAS",
  NASDAQCM: "XNAS",
  NYSE: "XNYS",
  "NYSE ARCA": "ARCX",
  NYSEARCA: "ARCX",
  ARCA: "ARCX",
  "NYSE AMERICAN": "XASE",
  "NYSE MKT": "XASE",
  AMEX: "XASE",
  BATS: "BATS",
  "CBOE BZX": "BATS",
  TSX: "XTSE",
  TSXV: "XTSX",
};

/** MIC of an exchange name as vendors write it (`NASDAQ`, `NYSE`, `TSX`...), or undefined. */
export function micOfExchangeName(name: string): string | undefined {
  const n = name.trim().toUpperCase();
  if (MIC.test(n) && Object.values(EXCHANGE_MICS).includes(n)) return n;
  return EXCHANGE_MICS[n];
}
