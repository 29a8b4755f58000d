/**
 * @module service/targets
 * Where an account's target (benchmark) weights come from, shared by the account backtest and the optimizer
 * service (docs/backtests.md "Benchmark", docs/optimize-service.md): the effective configuration's asset
 * allocations (index sleeves by their stored constituent weights, single-security sleeves, composites
 * recursively), else the benchmark indexes of the account's asset-class settings (equal shares), else SYNTH500 or
 * SP500 when stored.
 */
import type { PortfolioConfigRead } from "../contract/index.js";
import type { AccountRecord } from "../store/index.js";
import type { ServiceContext } from "./context.js";

/** Benchmarks tried, in order, when the account names none. */
export const FALLBACK_BENCHMARKS = ["SYNTH500", "SP500"] as const;

/** Where the target weights come from, and their identifier. */
export interface BenchmarkSource {
  name: string;
  /** Indexes and their share of the target. */
  indexes: { identifier: string; share: number }[];
  /** Single securities and their share. */
  singles: { themeAssetId: string; share: number }[];
}

function fromAllocations(
  ctx: ServiceContext,
  allocations: PortfolioConfigRead["asset_allocations"],
  share: number,
  out: BenchmarkSource,
): void {
  for (const a of allocations) {
    const s = share * Number(a.target_allocation);
    if (!(s > 0)) continue;
    if (a.is_composite) fromAllocations(ctx, a.child_asset_allocations, s, out);
    else if (a.benchmark_index_identifier && hasWeights(ctx, a.benchmark_index_identifier))
      out.indexes.push({ identifier: a.benchmark_index_identifier, share: s });
    else if (a.single_security_theme_asset_id)
      out.singles.push({ themeAssetId: a.single_security_theme_asset_id, share: s });
  }
}

function hasWeights(ctx: ServiceContext, identifier: string): boolean {
  return ctx.store.market.indexWeightsAsOf(identifier, "9999-12-31").length > 0;
}

/**
 * The target of the account: the effective configuration's asset allocations, else the benchmark indexes of the
 * account's asset-class settings (equal shares), else SYNTH500 or SP500 when stored; null when none applies (the
 * caller decides: the backtest holds the account's own starting weights).
 */
export function benchmarkSource(
  ctx: ServiceContext,
  account: AccountRecord,
  config: PortfolioConfigRead,
): BenchmarkSource | null {
  const out: BenchmarkSource = { name: "", indexes: [], singles: [] };
  fromAllocations(ctx, config.asset_allocations, 1, out);
  if (out.indexes.length === 0 && out.singles.length === 0) {
    const ids: string[] = [];
    for (const s of ctx.store.accounts.assetClassSettings(account.uuid)) {
      const ac = ctx.store.assetClasses.get(account.organizationUuid, s.assetClassUuid);
      const identifier = (ac?.document as { benchmark_index_identifier?: string | null } | undefined)
        ?.benchmark_index_identifier;
      if (identifier && hasWeights(ctx, identifier) && !ids.includes(identifier)) ids.push(identifier);
    }
    for (const id of ids) out.indexes.push({ identifier: id, share: 1 / ids.length });
  }
  if (out.indexes.length === 0 && out.singles.length === 0) {
    const fallback = FALLBACK_BENCHMARKS.find((id) => hasWeights(ctx, id));
    if (fallback === undefined) return null;
    out.indexes.push({ identifier: fallback, share: 1 });
  }
  const parts = [...out.indexes.map((x) => x.identifier), ...out.singles.map((x) => x.themeAssetId)];
  out.name = parts.length === 1 ? parts[0]! : `blend of ${parts.join(", ")}`;
  return out;
}

/**
 * The source's target weights in force on `date` (point in time: each index's last weighting date on or before
 * it), by theme_asset_id, with the latest weighting date used ("" when no index had weights by then).
 */
export function benchmarkWeightsAsOf(
  ctx: ServiceContext,
  source: BenchmarkSource,
  date: string,
): { weights: Map<string, number>; date: string } {
  const weights = new Map<string, number>();
  let set = "";
  for (const { identifier, share } of source.indexes)
    for (const row of ctx.store.market.indexWeightsAsOf(identifier, date)) {
      weights.set(row.themeAssetId, (weights.get(row.themeAssetId) ?? 0) + share * row.weight);
      if (row.date > set) set = row.date;
    }
  for (const { themeAssetId, share } of source.singles)
    weights.set(themeAssetId, (weights.get(themeAssetId) ?? 0) + share);
  return { weights, date: set };
}
