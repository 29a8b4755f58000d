/**
 * @module service/asset-classes
 * Asset classes (sleeves): create, list and read (endpoint 5). A sleeve invests in a benchmark index, a single
 * security or a theme, or is composite (child sleeve allocations). Archived sleeves stay readable and keep their
 * existing assignments but cannot be newly assigned.
 */
import {
  type AssetAllocationDetails,
  type AssetAllocationRead,
  type AssetAllocationWrite,
  type AssetClass,
  type AssetClassCreate,
  formatDecimal,
  NUMERIC_STRING_WIDTH,
} from "../contract/index.js";
import { ConflictError, type FieldIssue, NotFoundError, ValidationError } from "../core/errors.js";
import type { AssetClassRecord } from "../store/index.js";
import type { ServiceContext } from "./context.js";
import { indexUuid } from "./identifiers.js";
import { mapSerial } from "./serial.js";
import { resolveTicker } from "./tickers.js";

/** The document stored for a sleeve: the create body without name/archived. */
type AssetClassDocument = Omit<AssetClassCreate, "name" | "archived">;

const doc = (r: AssetClassRecord) => r.document as AssetClassDocument;

/** Maximum nesting of composite sleeves (guards against reference cycles). */
const MAX_SLEEVE_DEPTH = 8;

function numeric(value: string, field: string): string {
  return formatDecimal(value, NUMERIC_STRING_WIDTH.integerDigits, NUMERIC_STRING_WIDTH.fractionDigits, field);
}

/**
 * Check that every asset class an allocation list names exists in the organization and, when `forNewAssignment`,
 * is not archived. Returns issues with paths under `path`.
 */
export async function checkAllocationReferences(
  ctx: ServiceContext,
  org: string,
  allocations: readonly AssetAllocationWrite[],
  path: string,
  options: { forNewAssignment: boolean; previouslyAssigned?: ReadonlySet<string> },
): Promise<FieldIssue[]> {
  const issues: FieldIssue[] = [];
  for (const [i, a] of allocations.entries()) {
    const ac = await ctx.store.assetClasses.get(org, a.asset_class_uuid);
    if (!ac)
      issues.push({
        path: `${path}[${i}].asset_class_uuid`,
        message: `asset class ${a.asset_class_uuid} not found`,
      });
    else if (ac.archivedAt && options.forNewAssignment && !options.previouslyAssigned?.has(ac.uuid))
      issues.push({
        path: `${path}[${i}].asset_class_uuid`,
        message: `asset class ${ac.name} (${ac.uuid}) is archived since ${ac.archivedAt} and cannot be newly assigned`,
      });
    for (const [j, t] of (a.tilts ?? []).entries()) {
      if (t.theme_uuid != null && !(await ctx.store.themes.get(org, t.theme_uuid)))
        issues.push({
          path: `${path}[${i}].tilts[${j}].theme_uuid`,
          message: `theme ${t.theme_uuid} not found`,
        });
      if (t.index_uuid != null && !(await findIndexByUuid(ctx, t.index_uuid)))
        issues.push({
          path: `${path}[${i}].tilts[${j}].index_uuid`,
          message: `index ${t.index_uuid} not found`,
        });
    }
  }
  return issues;
}

/** The index whose UUID (see identifiers.ts) is `uuid`. */
export async function findIndexByUuid(ctx: ServiceContext, uuid: string) {
  return (await ctx.store.market.indexes()).find((i) => indexUuid(i.identifier) === uuid.toLowerCase());
}

export async function createAssetClass(
  ctx: ServiceContext,
  org: string,
  body: AssetClassCreate,
): Promise<AssetClass> {
  const issues: FieldIssue[] = [];
  if (
    body.benchmark_index_identifier != null &&
    !(await ctx.store.market.index(body.benchmark_index_identifier))
  )
    issues.push({
      path: "benchmark_index_identifier",
      message: `unknown index ${body.benchmark_index_identifier}; known: ${
        (await ctx.store.market.indexes()).map((i) => i.identifier).join(", ") ||
        "none (import or generate market data first)"
      }`,
    });
  if (body.single_security_theme_asset_id != null) {
    const r = await resolveTicker(ctx.store, body.single_security_theme_asset_id);
    if (!r.ok) issues.push({ path: "single_security_theme_asset_id", message: r.message });
  }
  for (const [i, id] of (body.alternative_etf_theme_asset_ids ?? []).entries()) {
    const r = await resolveTicker(ctx.store, id);
    if (!r.ok) issues.push({ path: `alternative_etf_theme_asset_ids[${i}]`, message: r.message });
  }
  if (body.theme_uuid != null && !(await ctx.store.themes.get(org, body.theme_uuid)))
    issues.push({ path: "theme_uuid", message: `theme ${body.theme_uuid} not found` });
  issues.push(
    ...(await checkAllocationReferences(ctx, org, body.asset_allocations ?? [], "asset_allocations", {
      forNewAssignment: true,
    })),
  );
  for (const [i, u] of (body.permitted_implementation_uuids ?? []).entries()) {
    if (!(await ctx.store.assetClasses.get(org, u)))
      issues.push({ path: `permitted_implementation_uuids[${i}]`, message: `asset class ${u} not found` });
  }
  if (issues.length > 0)
    throw new ValidationError("The asset class references things that do not exist.", issues);
  const { name, archived, ...document } = body;
  const rec = await ctx.store.transaction(async (tx) => {
    const created = await tx.assetClasses.create(org, name, document as Record<string, unknown>);
    return archived ? tx.assetClasses.archive(org, created.uuid) : created;
  });
  return readAssetClass(ctx, org, rec.uuid);
}

/** Endpoint 5: one asset class with its (recursively resolved) allocations. @throws {NotFoundError} */
export async function readAssetClass(ctx: ServiceContext, org: string, uuid: string): Promise<AssetClass> {
  return assetClassRead(ctx, org, await ctx.store.assetClasses.require(org, uuid), 0);
}

export async function listAssetClasses(
  ctx: ServiceContext,
  org: string,
  includeArchived = false,
): Promise<AssetClass[]> {
  return mapSerial(await ctx.store.assetClasses.list(org, { includeArchived }), (r) =>
    assetClassRead(ctx, org, r, 0),
  );
}

async function assetClassRead(
  ctx: ServiceContext,
  org: string,
  r: AssetClassRecord,
  depth: number,
): Promise<AssetClass> {
  const d = doc(r);
  const index = d.benchmark_index_identifier
    ? await ctx.store.market.index(d.benchmark_index_identifier)
    : undefined;
  const theme = d.theme_uuid ? await ctx.store.themes.get(org, d.theme_uuid) : undefined;
  const single = d.single_security_theme_asset_id
    ? await ctx.store.market.security(d.single_security_theme_asset_id)
    : undefined;
  const directIndexing = index ? await directIndexable(ctx, index.identifier) : null;
  const allocations = await mapSerial(d.asset_allocations ?? [], (a, i) =>
    allocationRead(ctx, org, a, depth + 1, `asset_allocations[${i}]`),
  );
  return {
    uuid: r.uuid,
    name: r.name,
    description: d.description ?? null,
    benchmark_index_name: index?.name ?? null,
    benchmark_index_identifier: d.benchmark_index_identifier ?? null,
    benchmark_direct_indexing_supported: directIndexing,
    index_name: index?.name ?? null,
    index_uuid: index ? indexUuid(index.identifier) : null,
    theme_name: theme?.name ?? null,
    theme_uuid: d.theme_uuid ?? null,
    single_security_theme_asset_id: d.single_security_theme_asset_id ?? null,
    single_security_symbol: single?.symbol ?? null,
    event_contract_theme_asset_id: null,
    event_contract_side: null,
    alternative_etf_theme_asset_ids: d.alternative_etf_theme_asset_ids ?? [],
    permitted_implementation_uuids: d.permitted_implementation_uuids ?? [],
    is_composite: d.is_composite ?? false,
    asset_allocations: allocations,
    archived_at: r.archivedAt,
    created: r.created,
    modified: r.modified,
  };
}

/** A benchmark can be direct-indexed when the store holds its constituent weights. */
async function directIndexable(ctx: ServiceContext, identifier: string): Promise<boolean> {
  return (await ctx.store.market.indexWeightsAsOf(identifier, "9999-12-31")).length > 0;
}

/** Sleeve details of an allocation (for configuration and asset-class reads). */
export async function allocationDetails(
  ctx: ServiceContext,
  org: string,
  assetClassUuid: string,
  depth = 0,
): Promise<AssetAllocationDetails> {
  if (depth > MAX_SLEEVE_DEPTH)
    throw new ConflictError(
      `Composite asset classes nest deeper than ${MAX_SLEEVE_DEPTH} levels (is there a cycle?).`,
    );
  const r = await ctx.store.assetClasses.get(org, assetClassUuid);
  if (!r) throw new NotFoundError(`Asset class ${assetClassUuid} not found.`, "asset_class_not_found");
  const d = doc(r);
  const index = d.benchmark_index_identifier
    ? await ctx.store.market.index(d.benchmark_index_identifier)
    : undefined;
  const single = d.single_security_theme_asset_id
    ? await ctx.store.market.security(d.single_security_theme_asset_id)
    : undefined;
  const children = await mapSerial(d.asset_allocations ?? [], (a, i) =>
    allocationRead(ctx, org, a, depth + 1, `child_asset_allocations[${i}]`),
  );
  return {
    asset_class_uuid: r.uuid,
    asset_class_name: r.name,
    asset_class_description: d.description ?? null,
    benchmark_index_identifier: d.benchmark_index_identifier ?? null,
    benchmark_index_name: index?.name ?? null,
    benchmark_symbol: null,
    single_security_theme_asset_id: d.single_security_theme_asset_id ?? null,
    single_security_symbol: single?.symbol ?? null,
    is_composite: d.is_composite ?? false,
    child_asset_allocations: children,
    archived_at: r.archivedAt,
  };
}

async function allocationRead(
  ctx: ServiceContext,
  org: string,
  a: AssetAllocationWrite,
  depth: number,
  path: string,
): Promise<AssetAllocationRead> {
  const details = await allocationDetails(ctx, org, a.asset_class_uuid, depth);
  const target = numeric(a.target_allocation, `${path}.target_allocation`);
  return {
    ...details,
    target_allocation: target,
    direct_indexing_enabled: a.direct_indexing_enabled ?? false,
    tilts: await mapSerial(a.tilts ?? [], async (t, j) => {
      const weight = numeric(t.weight_adjustment, `${path}.tilts[${j}].weight_adjustment`);
      return {
        weight_adjustment: weight,
        theme: t.theme_uuid == null ? null : await themeRef(ctx, org, t.theme_uuid),
        index: t.index_uuid == null ? null : await indexRef(ctx, t.index_uuid),
      };
    }),
  };
}

export async function themeRef(ctx: ServiceContext, org: string, uuid: string) {
  const t = await ctx.store.themes.require(org, uuid);
  const rev = await ctx.store.themes.latestRevision(uuid);
  return { uuid: t.uuid, name: t.name, published_at: rev?.publishedAt ?? null };
}

export async function indexRef(ctx: ServiceContext, uuid: string) {
  const i = await findIndexByUuid(ctx, uuid);
  if (!i) throw new NotFoundError(`Index ${uuid} not found.`, "index_not_found");
  return { uuid: indexUuid(i.identifier), name: i.name, status: "READY" };
}
