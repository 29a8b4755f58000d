/**
 * @module service/targets
 * Where an account's target (benchmark) weights come from, shared by the account backtest, the optimizer service
 * and drift (docs/targets.md): the effective configuration's asset allocations (index sleeves by their stored
 * constituent weights, single-security sleeves, composites recursively, each sleeve moved by its tilts), else the
 * benchmark indexes of the account's asset-class settings (equal shares), else SYNTH500 or SP500 when stored.
 *
 * Tilts: a sleeve with weights w (summing to its share s) and tilts a_1..a_n toward weights t_k (an index's
 * weights in force on the date, or a theme's constituent snapshot, each summing to 1) holds
 * s x [(1 - sum a_k) w / s + sum a_k t_k]: each positive a_k moves that fraction of the sleeve toward the tilt's
 * weights, funded pro rata from the sleeve's own weights; a negative a_k tilts away (the sleeve's own weights
 * grow by |a_k| and the tilt's are subtracted). Names a negative tilt would take below zero are set to zero and
 * the sleeve is scaled back to its share, so tilting away from a name the sleeve does not hold changes nothing.
 * The sum of |a_k| of a sleeve is at most 1 (refused at write time, DataError `invalid_tilt` at use otherwise).
 */
import type { PortfolioConfigRead } from "../contract/index.js";
import { DataError } from "../core/errors.js";
import type { AccountRecord } from "../store/index.js";
import { findIndexByUuid } from "./asset-classes.js";
import type { ServiceContext } from "./context.js";
import { mapSerial } from "./serial.js";

/** Benchmarks tried, in order, when the account names none. */
export const FALLBACK_BENCHMARKS = ["SYNTH500", "SP500"] as const;

/** Allowance on the sum of |weight_adjustment| of a sleeve above 1 (rounding). */
const TILT_TOTAL_TOLERANCE = 1e-9;

/** A tilt of a sleeve, resolved against the store. */
export interface ResolvedTilt {
  /** The tilt's weight_adjustment: the fraction of the sleeve moved toward (negative: away from) its weights. */
  adjustment: number;
  /** `theme "Name"` or `index SP500`, for names and messages. */
  label: string;
  /** Toward an index (its weights in force on the date). */
  index?: string;
  /** Toward a theme: the latest snapshot dated on or before the date of its latest revision (else the earliest). */
  theme?: { uuid: string; revision: string; dates: string[]; weights: Map<string, Map<string, number>> };
}

/** A sleeve with tilts: its own target (shares within the sleeve, summing to at most 1), moved by its tilts. */
export interface TiltedSleeve {
  /** The sleeve's share of the target. */
  share: number;
  sleeve: BenchmarkSource;
  tilts: ResolvedTilt[];
}

/** Where the target weights come from, and their identifier. */
export interface BenchmarkSource {
  name: string;
  /** Indexes and their share of the target. */
  indexes: { identifier: string; share: number }[];
  /** Single securities and their share. */
  singles: { themeAssetId: string; share: number }[];
  /** Sleeves with tilts and their share. */
  tilted: TiltedSleeve[];
}

const emptySource = (): BenchmarkSource => ({ name: "", indexes: [], singles: [], tilted: [] });
const isEmpty = (s: BenchmarkSource) => s.indexes.length + s.singles.length + s.tilted.length === 0;

/** True when some of the target's weights come from an index or a theme (and so drift with prices). */
export function sourceHasIndexes(source: BenchmarkSource): boolean {
  return (
    source.indexes.length > 0 || source.tilted.some((t) => t.tilts.length > 0 || sourceHasIndexes(t.sleeve))
  );
}

type Allocation = PortfolioConfigRead["asset_allocations"][number];

async function fromAllocations(
  ctx: ServiceContext,
  allocations: readonly Allocation[],
  share: number,
  out: BenchmarkSource,
  path: string,
): Promise<void> {
  for (const [i, a] of allocations.entries()) {
    const s = share * Number(a.target_allocation);
    if (!(s > 0)) continue;
    const at = `${path}[${i}]`;
    if (a.tilts.length === 0) {
      await addSleeve(ctx, a, s, out, at);
      continue;
    }
    const sleeve = emptySource();
    await addSleeve(ctx, a, 1, sleeve, at);
    // A sleeve that resolves to nothing (an index without weights, a theme sleeve) is left out, tilts included.
    if (isEmpty(sleeve)) continue;
    sleeve.name = sourceName(sleeve);
    const tilts = await mapSerial(a.tilts, (t, j) => resolveTilt(ctx, t, `${at}.tilts[${j}]`));
    const moved = tilts.reduce((sum, t) => sum + Math.abs(t.adjustment), 0);
    if (moved > 1 + TILT_TOTAL_TOLERANCE)
      throw new DataError(
        `The tilts of ${at} (${a.asset_class_name}) move ${formatPercent(moved)} of the sleeve; the sum of |weight_adjustment| of a sleeve may not exceed 100%.`,
        { code: "invalid_tilt" },
      );
    out.tilted.push({ share: s, sleeve, tilts });
  }
}

async function addSleeve(
  ctx: ServiceContext,
  a: Allocation,
  s: number,
  out: BenchmarkSource,
  at: string,
): Promise<void> {
  if (a.is_composite)
    await fromAllocations(ctx, a.child_asset_allocations, s, out, `${at}.child_asset_allocations`);
  else if (a.benchmark_index_identifier && (await hasWeights(ctx, a.benchmark_index_identifier)))
    out.indexes.push({ identifier: a.benchmark_index_identifier, share: s });
  else if (a.single_security_theme_asset_id)
    out.singles.push({ themeAssetId: a.single_security_theme_asset_id, share: s });
}

async function resolveTilt(
  ctx: ServiceContext,
  tilt: Allocation["tilts"][number],
  at: string,
): Promise<ResolvedTilt> {
  const adjustment = Number(tilt.weight_adjustment);
  if (tilt.theme) {
    const { uuid, name } = tilt.theme;
    const label = `theme "${name}"`;
    const revision = await ctx.store.themes.latestRevision(uuid);
    const dates = revision === undefined ? [] : await ctx.store.themes.snapshotDates(uuid, revision.revision);
    if (revision === undefined || dates.length === 0)
      throw new DataError(
        `${at} tilts toward theme "${name}" (${uuid}), which has not been evaluated since its latest revision, so it has no constituent weights; evaluate it first (lotwise themes evaluate ${uuid}, or POST /api/v1/themes/${uuid}/evaluate).`,
        { code: "theme_not_evaluated" },
      );
    return { adjustment, label, theme: { uuid, revision: revision.revision, dates, weights: new Map() } };
  }
  const index = tilt.index ? await findIndexByUuid(ctx, tilt.index.uuid) : undefined;
  if (!index || !(await hasWeights(ctx, index.identifier)))
    throw new DataError(
      `${at} tilts toward index ${index?.identifier ?? tilt.index?.uuid ?? "(none)"}, which has no stored constituent weights; import them (lotwise market import) or remove the tilt.`,
      { code: "tilt_without_weights" },
    );
  return { adjustment, label: `index ${index.identifier}`, index: index.identifier };
}

async function hasWeights(ctx: ServiceContext, identifier: string): Promise<boolean> {
  return (await ctx.store.market.indexWeightsAsOf(identifier, "9999-12-31")).length > 0;
}

const formatPercent = (x: number) => `${Number((x * 100).toFixed(6))}%`;

function sourceName(source: BenchmarkSource): string {
  const parts = [
    ...source.indexes.map((x) => x.identifier),
    ...source.singles.map((x) => x.themeAssetId),
    ...source.tilted.map(
      (t) =>
        `${t.sleeve.name} tilted ${t.tilts
          .map(
            (k) =>
              `${formatPercent(Math.abs(k.adjustment))} ${k.adjustment < 0 ? "away from" : "toward"} ${k.label}`,
          )
          .join(" and ")}`,
    ),
  ];
  return parts.length === 1 ? parts[0]! : `blend of ${parts.join(", ")}`;
}

/**
 * The target of the account: the effective configuration's asset allocations (with their tilts), else the
 * benchmark indexes of the account's asset-class settings (equal shares), else SYNTH500 or SP500 when stored; null
 * when none applies (the caller decides: the backtest holds the account's own starting weights).
 * @throws {DataError} code `theme_not_evaluated` for a tilt toward a theme whose latest revision has no snapshot,
 *   `tilt_without_weights` for a tilt toward an index without stored weights, `invalid_tilt` when the tilts of a
 *   sleeve move more than all of it.
 */
export async function benchmarkSource(
  ctx: ServiceContext,
  account: AccountRecord,
  config: PortfolioConfigRead,
): Promise<BenchmarkSource | null> {
  const out = emptySource();
  await fromAllocations(ctx, config.asset_allocations, 1, out, "asset_allocations");
  if (isEmpty(out)) {
    const ids: string[] = [];
    for (const s of await ctx.store.accounts.assetClassSettings(account.uuid)) {
      const ac = await ctx.store.assetClasses.get(account.organizationUuid, s.assetClassUuid);
      const identifier = (ac?.document as { benchmark_index_identifier?: string | null } | undefined)
        ?.benchmark_index_identifier;
      if (identifier && (await hasWeights(ctx, identifier)) && !ids.includes(identifier))
        ids.push(identifier);
    }
    for (const id of ids) out.indexes.push({ identifier: id, share: 1 / ids.length });
  }
  if (isEmpty(out)) {
    let fallback: string | undefined;
    for (const id of FALLBACK_BENCHMARKS)
      if (await hasWeights(ctx, id)) {
        fallback = id;
        break;
      }
    if (fallback === undefined) return null;
    out.indexes.push({ identifier: fallback, share: 1 });
  }
  out.name = sourceName(out);
  return out;
}

/**
 * The source's target weights in force on `date` (point in time: each index's last weighting date on or before
 * it), by theme_asset_id, with the latest index weighting date used ("" when no index had weights by then).
 * Theme tilts use the theme's snapshot dated on or before `date` (else its earliest); its date is not reported.
 */
export async function benchmarkWeightsAsOf(
  ctx: ServiceContext,
  source: BenchmarkSource,
  date: string,
): Promise<{ weights: Map<string, number>; date: string }> {
  const weights = new Map<string, number>();
  const set = { date: "" };
  await addWeights(ctx, source, date, 1, weights, set);
  return { weights, date: set.date };
}

function add(weights: Map<string, number>, id: string, w: number): void {
  weights.set(id, (weights.get(id) ?? 0) + w);
}

async function indexWeights(ctx: ServiceContext, identifier: string, date: string, set: { date: string }) {
  const rows = await ctx.store.market.indexWeightsAsOf(identifier, date);
  for (const row of rows) if (row.date > set.date) set.date = row.date;
  return rows;
}

async function addWeights(
  ctx: ServiceContext,
  source: BenchmarkSource,
  date: string,
  scale: number,
  weights: Map<string, number>,
  set: { date: string },
): Promise<void> {
  for (const { identifier, share } of source.indexes)
    for (const row of await indexWeights(ctx, identifier, date, set))
      add(weights, row.themeAssetId, scale * share * row.weight);
  for (const { themeAssetId, share } of source.singles) add(weights, themeAssetId, scale * share);
  for (const t of source.tilted) {
    const own = new Map<string, number>();
    await addWeights(ctx, t.sleeve, date, 1, own, set);
    // Before the sleeve's own weights start, the sleeve (and so its tilts) is not in force.
    if (own.size === 0) continue;
    const towards = (
      await mapSerial(t.tilts, async (k) => ({ a: k.adjustment, w: await tiltWeights(ctx, k, date, set) }))
    ).filter((k) => k.w.size > 0);
    const keep = 1 - towards.reduce((sum, k) => sum + k.a, 0);
    const tilted = new Map<string, number>();
    for (const [id, w] of own) add(tilted, id, keep * w);
    for (const k of towards) for (const [id, w] of k.w) add(tilted, id, k.a * w);
    let total = 0;
    let positive = 0;
    for (const v of tilted.values()) {
      total += v;
      if (v > 0) positive += v;
    }
    // Names a negative tilt takes below zero are dropped; the rest is scaled back to the sleeve's total.
    const back = positive > total ? total / positive : 1;
    for (const [id, v] of tilted) if (v > 0) add(weights, id, scale * t.share * v * back);
  }
}

/** A tilt's weights on the date, summing to 1 (empty when it has none then). */
async function tiltWeights(
  ctx: ServiceContext,
  tilt: ResolvedTilt,
  date: string,
  set: { date: string },
): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  if (tilt.index !== undefined) {
    for (const row of await indexWeights(ctx, tilt.index, date, set)) add(out, row.themeAssetId, row.weight);
  } else if (tilt.theme !== undefined) {
    const { uuid, revision, dates, weights } = tilt.theme;
    let asOf = dates[0]!;
    for (const d of dates) if (d <= date) asOf = d;
    const cached = weights.get(asOf);
    if (cached !== undefined) return cached;
    const snapshot = await ctx.store.themes.snapshot(uuid, revision, asOf);
    for (const c of (snapshot?.constituents ?? []) as { theme_asset_id: string; weight: number }[])
      if (c.weight > 0) add(out, c.theme_asset_id, c.weight);
    weights.set(asOf, out);
  }
  let sum = 0;
  for (const v of out.values()) sum += v;
  if (sum > 0 && sum !== 1) for (const [id, v] of out) out.set(id, v / sum);
  return out;
}
