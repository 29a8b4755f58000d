/**
 * @module service/tickers
 * Resolving what users type (a theme_asset_id `AAPL:XNAS` or a plain symbol `AAPL`) to a listing of the security
 * master, and building the spec's ticker object.
 */
import type { Ticker, TickerResolveResponse } from "../contract/index.js";
import type { Security } from "../core/data/types.js";
import { type FieldIssue, NotFoundError, ValidationError } from "../core/errors.js";
import type { LotwiseStore } from "../store/index.js";
import { mapSerial } from "./serial.js";

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
export async function resolveTicker(store: LotwiseStore, ref: string): Promise<TickerResolution> {
  const r = tickerReference(ref);
  return r.kind === "id"
    ? resolution(r, await store.market.security(r.id), [])
    : resolution(r, undefined, await store.market.findSecuritiesBySymbol(r.text));
}

/**
 * {@link resolveTicker} for many references with two queries in all (one for the theme_asset_ids, one for the
 * symbols) instead of one per reference: the same resolutions, in the order of `refs`.
 */
export async function resolveTickersAtOnce(
  store: LotwiseStore,
  refs: readonly string[],
): Promise<TickerResolution[]> {
  const parsed = refs.map(tickerReference);
  const ids: string[] = [];
  const symbols: string[] = [];
  for (const r of parsed) {
    if (r.kind === "id") ids.push(r.id);
    else symbols.push(r.text);
  }
  const byId = await store.market.securitiesByIds(ids);
  const bySymbol = await store.market.securitiesBySymbols(symbols);
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
export async function resolveTickers(
  store: LotwiseStore,
  refs: readonly { path: string; ref: string }[],
): Promise<Security[]> {
  const issues: FieldIssue[] = [];
  const out: Security[] = [];
  for (const { path, ref } of refs) {
    const r = await resolveTicker(store, ref);
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
    private readonly store: LotwiseStore,
    private readonly asOf: string,
  ) {}

  /** The ticker object of a theme_asset_id. @throws {NotFoundError} when the listing is not in the store. */
  async ticker(themeAssetId: string): Promise<Ticker> {
    const hit = this.cache.get(themeAssetId);
    if (hit) return hit;
    const s = await this.store.market.security(themeAssetId);
    if (!s)
      throw new NotFoundError(`Security ${themeAssetId} is not in the security master.`, "unknown_security");
    const t = await this.fromSecurity(s);
    this.cache.set(themeAssetId, t);
    return t;
  }

  async fromSecurity(s: Security): Promise<Ticker> {
    const marketCap = await this.marketCapUsd(s);
    return {
      theme_asset_id: s.themeAssetId,
      symbol: s.symbol,
      exchange: s.mic,
      name: s.name,
      description: s.description,
      image_url: null,
      ticker_url: null,
      ticker_type: s.assetType,
      market_cap: marketCap,
      sic_description: null,
    };
  }

  /** Latest market capitalization in USD (characteristic, else shares x last close / FX), or null. */
  async marketCapUsd(s: Security): Promise<number | null> {
    this.caps ??= await this.store.market.characteristicsAsOf("market_cap", this.asOf);
    const cap = this.caps.get(s.themeAssetId);
    if (cap !== undefined) return Math.round(cap);
    if (s.sharesOutstanding === null) return null;
    const px = (await this.store.market.latestPrices([s.themeAssetId], this.asOf)).get(s.themeAssetId);
    const fx = await this.store.market.fxRateAsOf(s.currency, this.asOf);
    if (!px || !fx) return null;
    return Math.round((s.sharesOutstanding * px.close) / fx.perUsd);
  }
}

/** The ticker resolution extension: each query resolved against the security master, in order. */
export async function resolveTickerQueries(
  store: LotwiseStore,
  asOf: string,
  queries: readonly string[],
): Promise<TickerResolveResponse> {
  const book = new TickerBook(store, asOf);
  return {
    results: await mapSerial(queries, async (query) => {
      const r = await resolveTicker(store, query);
      if (r.ok)
        return {
          query,
          theme_asset_id: r.security.themeAssetId,
          ticker: await book.fromSecurity(r.security),
          error: null,
          message: null,
          matches: [],
        };
      const matches =
        r.reason === "ambiguous"
          ? (await store.market.findSecuritiesBySymbol(query.trim())).map((s) => s.themeAssetId)
          : [];
      return { query, theme_asset_id: null, ticker: null, error: r.reason, message: r.message, matches };
    }),
  };
}
