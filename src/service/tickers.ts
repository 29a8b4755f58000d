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

/** What a reference names: a theme_asset_id (normalized to upper case) or a plain symbol (trimmed). */
type TickerReference = { kind: "id"; id: string } | { kind: "symbol"; text: string };

function tickerReference(ref: string): TickerReference {
  const text = ref.trim();
  if (text.includes(":")) {
    const [symbol, mic] = text.split(":") as [string, string];
    return { kind: "id", id: `${symbol.toUpperCase()}:${(mic ?? "").toUpperCase()}` };
  }
  return { kind: "symbol", text };
}

function resolution(
  ref: TickerReference,
  found: Security | undefined,
  matches: Security[],
): TickerResolution {
  if (ref.kind === "id")
    return found
      ? { ok: true, security: found }
      : { ok: false, reason: "unknown", message: `unknown theme_asset_id ${ref.id}` };
  if (matches.length === 1) return { ok: true, security: matches[0]! };
  if (matches.length === 0) return { ok: false, reason: "unknown", message: `unknown ticker ${ref.text}` };
  return {
    ok: false,
    reason: "ambiguous",
    message: `ticker ${ref.text} is ambiguous: ${matches.map((m) => m.themeAssetId).join(", ")}; use one of these theme_asset_ids`,
  };
}

/** Resolve one reference. Symbols are case-insensitive; a symbol listed on several exchanges is ambiguous. */
export function resolveTicker(store: Store, ref: string): TickerResolution {
  const r = tickerReference(ref);
  return r.kind === "id"
    ? resolution(r, store.market.security(r.id), [])
    : resolution(r, undefined, store.market.findSecuritiesBySymbol(r.text));
}

/**
 * {@link resolveTicker} for many references with two queries in all (one for the theme_asset_ids, one for the
 * symbols) instead of one per reference: the same resolutions, in the order of `refs`.
 */
export function resolveTickersAtOnce(store: Store, refs: readonly string[]): TickerResolution[] {
  const parsed = refs.map(tickerReference);
  const ids: string[] = [];
  const symbols: string[] = [];
  for (const r of parsed) {
    if (r.kind === "id") ids.push(r.id);
    else symbols.push(r.text);
  }
  const byId = store.market.securitiesByIds(ids);
  const bySymbol = store.market.securitiesBySymbols(symbols);
  return parsed.map((r) =>
    r.kind === "id"
      ? resolution(r, byId.get(r.id), [])
      : resolution(r, undefined, bySymbol.get(r.text.toUpperCase()) ?? []),
  );
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
