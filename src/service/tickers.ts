/**
 * @module service/tickers
 * Resolving what users type (a theme_asset_id `AAPL:XNAS` or a plain symbol `AAPL`) to a listing of the security
 * master, and building the spec's ticker object.
 */
import type { Ticker, TickerResolveResponse } from "../contract/index.js";
import type { Security } from "../core/data/types.js";
import { type FieldIssue, NotFoundError, ValidationError } from "../core/errors.js";
import type { Store } from "../store/index.js";

export type TickerResolution =
  | { ok: true; security: Security }
  | { ok: false; reason: "unknown" | "ambiguous"; message: string };

/** Resolve one reference. Symbols are case-insensitive; a symbol listed on several exchanges is ambiguous. */
export function resolveTicker(store: Store, ref: string): TickerResolution {
  const text = ref.trim();
  if (text.includes(":")) {
    const [symbol, mic] = text.split(":") as [string, string];
    const id = `${symbol.toUpperCase()}:${(mic ?? "").toUpperCase()}`;
    const s = store.market.security(id);
    return s
      ? { ok: true, security: s }
      : { ok: false, reason: "unknown", message: `unknown theme_asset_id ${id}` };
  }
  const matches = store.market.findSecuritiesBySymbol(text);
  if (matches.length === 1) return { ok: true, security: matches[0]! };
  if (matches.length === 0) return { ok: false, reason: "unknown", message: `unknown ticker ${text}` };
  return {
    ok: false,
    reason: "ambiguous",
    message: `ticker ${text} is ambiguous: ${matches.map((m) => m.themeAssetId).join(", ")}; use one of these theme_asset_ids`,
  };
}

/**
 * Resolve many references at once, collecting every failure as a field issue.
 * @throws {ValidationError} naming each unknown or ambiguous reference (code `invalid_tickers`).
 */
export function resolveTickers(store: Store, refs: readonly { path: string; ref: string }[]): Security[] {
  const issues: FieldIssue[] = [];
  const out: Security[] = [];
  for (const { path, ref } of refs) {
    const r = resolveTicker(store, ref);
    if (r.ok) out.push(r.security);
    else issues.push({ path, message: r.message });
  }
  if (issues.length > 0) {
    throw new ValidationError(
      `${issues.length} ticker reference(s) could not be resolved: ${issues.map((i) => i.message).join("; ")}`,
      issues,
      "invalid_tickers",
    );
  }
  return out;
}

/**
 * Builds ticker objects for one request, loading market caps once (point in time at `asOf`).
 */
export class TickerBook {
  private caps: Map<string, number> | undefined;
  private readonly cache = new Map<string, Ticker>();

  constructor(
    private readonly store: Store,
    private readonly asOf: string,
  ) {}

  /** The ticker object of a theme_asset_id. @throws {NotFoundError} when the listing is not in the store. */
  ticker(themeAssetId: string): Ticker {
    const hit = this.cache.get(themeAssetId);
    if (hit) return hit;
    const s = this.store.market.security(themeAssetId);
    if (!s)
      throw new NotFoundError(`Security ${themeAssetId} is not in the security master.`, "unknown_security");
    const t = this.fromSecurity(s);
    this.cache.set(themeAssetId, t);
    return t;
  }

  fromSecurity(s: Security): Ticker {
    return {
      theme_asset_id: s.themeAssetId,
      symbol: s.symbol,
      exchange: s.mic,
      name: s.name,
      description: s.description,
      image_url: null,
      ticker_url: null,
      ticker_type: s.assetType,
      market_cap: this.marketCapUsd(s),
      sic_description: null,
    };
  }

  /** Latest market capitalization in USD (characteristic, else shares x last close / FX), or null. */
  marketCapUsd(s: Security): number | null {
    this.caps ??= this.store.market.characteristicsAsOf("market_cap", this.asOf);
    const cap = this.caps.get(s.themeAssetId);
    if (cap !== undefined) return Math.round(cap);
    if (s.sharesOutstanding === null) return null;
    const px = this.store.market.latestPrices([s.themeAssetId], this.asOf).get(s.themeAssetId);
    const fx = this.store.market.fxRateAsOf(s.currency, this.asOf);
    if (!px || !fx) return null;
    return Math.round((s.sharesOutstanding * px.close) / fx.perUsd);
  }
}

/** The ticker resolution extension: each query resolved against the security master, in order. */
export function resolveTickerQueries(
  store: Store,
  asOf: string,
  queries: readonly string[],
): TickerResolveResponse {
  const book = new TickerBook(store, asOf);
  return {
    results: queries.map((query) => {
      const r = resolveTicker(store, query);
      if (r.ok)
        return {
          query,
          theme_asset_id: r.security.themeAssetId,
          ticker: book.fromSecurity(r.security),
          error: null,
          message: null,
          matches: [],
        };
      const matches =
        r.reason === "ambiguous"
          ? store.market.findSecuritiesBySymbol(query.trim()).map((s) => s.themeAssetId)
          : [];
      return { query, theme_asset_id: null, ticker: null, error: r.reason, message: r.message, matches };
    }),
  };
}
