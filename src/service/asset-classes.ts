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
export function checkAllocationReferences(
  ctx: ServiceContext,
  org: string,
  allocations: readonly AssetAllocationWrite[],
  path: string,
  options: { forNewAssignment: boolean; previouslyAssigned?: ReadonlySet<string> },
): FieldIssue[] {
  const issues: FieldIssue[] = [];
  allocations.forEach((a, i) => {
    const ac = ctx.store.assetClasses.get(org, a.asset_class_uuid);
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
    (a.tilts ?? []).forEach((t, j) => {
      if (t.theme_uuid != null && !ctx.store.themes.get(org, t.theme_uuid))
        issues.push({
          path: `${path}[${i}].tilts[${j}].theme_uuid`,
          message: `theme ${t.theme_uuid} not found`,
        });
      if (t.index_uuid != null && !findIndexByUuid(ctx, t.index_uuid))
        issues.push({
          path: `${path}[${i}].tilts[${j}].index_uuid`,
          message: `index ${t.index_uuid} not found`,
        });
    });
  });
  return issues;
}

/** The index whose UUID (see identifiers.ts) is `uuid`. */
export function findIndexByUuid(ctx: ServiceContext, uuid: string) {
  return ctx.store.market.indexes().find((i) => indexUuid(i.identifier) === uuid.toLowerCase());
}

export function createAssetClass(ctx: ServiceContext, org: string, body: AssetClassCreate): AssetClass {
  const issues: FieldIssue[] = [];
  if (body.benchmark_index_identifier != null && !ctx.store.market.index(body.benchmark_index_identifier))
    issues.push({
      path: "benchmark_index_identifier",
      message: `unknown index ${body.benchmark_index_identifier}; known: ${
        ctx.store.market
          .indexes()
          .map((i) => i.identifier)
          .join(", ") || "none (import or generate market data first)"
      }`,
    });
  if (body.single_security_theme_asset_id != null) {
    const r = resolveTicker(ctx.store, body.single_security_theme_asset_id);
    if (!r.ok) issues.push({ path: "single_security_theme_asset_id", message: r.message });
  }
  (body.alternative_etf_theme_asset_ids ?? []).forEach((id, i) => {
    const r = resolveTicker(ctx.store, id);
    if (!r.ok) issues.push({ path: `alternative_etf_theme_asset_ids[${i}]`, message: r.message });
  });
  if (body.theme_uuid != null && !ctx.store.themes.get(org, body.theme_uuid))
    issues.push({ path: "theme_uuid", message: `theme ${body.theme_uuid} not found` });
  issues.push(
    ...checkAllocationReferences(ctx, org, body.asset_allocations ?? [], "asset_allocations", {
      forNewAssignment: true,
    }),
  );
  (body.permitted_implementation_uuids ?? []).forEach((u, i) => {
    if (!ctx.store.assetClasses.get(org, u))
      issues.push({ path: `permitted_implementation_uuids[${i}]`, message: `asset class ${u} not found` });
  });
  if (issues.length > 0)
    throw new ValidationError("The asset class references things that do not exist.", issues);
  const { name, archived, ...document } = body;
  const rec = ctx.store.transaction(() => {
    const created = ctx.store.assetClasses.create(org, name, document as Record<string, unknown>);
    return archived ? ctx.store.assetClasses.archive(org, created.uuid) : created;
  });
  return readAssetClass(ctx, org, rec.uuid);
}

/** Endpoint 5: one asset class with its (recursively resolved) allocations. @throws {NotFoundError} */
export function readAssetClass(ctx: ServiceContext, org: string, uuid: string): AssetClass {
  return assetClassRead(ctx, org, ctx.store.assetClasses.require(org, uuid), 0);
}

export function listAssetClasses(ctx: ServiceContext, org: string, includeArchived = false): AssetClass[] {
  return ctx.store.assetClasses.list(org, { includeArchived }).map((r) => assetClassRead(ctx, org, r, 0));
}

function assetClassRead(ctx: ServiceContext, org: string, r: AssetClassRecord, depth: number): AssetClass {
  const d = doc(r);
  const index = d.benchmark_index_identifier
    ? ctx.store.market.index(d.benchmark_index_identifier)
    : undefined;
  const theme = d.theme_uuid ? ctx.store.themes.get(org, d.theme_uuid) : undefined;
  const single = d.single_security_theme_asset_id
    ? ctx.store.market.security(d.single_security_theme_asset_id)
    : undefined;
  return {
    uuid: r.uuid,
    name: r.name,
    description: d.description ?? null,
    benchmark_index_name: index?.name ?? null,
    benchmark_index_identifier: d.benchmark_index_identifier ?? null,
    benchmark_direct_indexing_supported: index ? directIndexable(ctx, index.identifier) : null,
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
    asset_allocations: (d.asset_allocations ?? []).map((a, i) =>
      allocationRead(ctx, org, a, depth + 1, `asset_allocations[${i}]`),
    ),
    archived_at: r.archivedAt,
    created: r.created,
    modified: r.modified,
  };
}

/** A benchmark can be direct-indexed when the store holds its constituent weights. */
function directIndexable(ctx: ServiceContext, identifier: string): boolean {
  return ctx.store.market.indexWeightsAsOf(identifier, "9999-12-31").length > 0;
}

/** Sleeve details of an allocation (for configuration and asset-class reads). */
export function allocationDetails(
  ctx: ServiceContext,
  org: string,
  assetClassUuid: string,
  depth = 0,
): AssetAllocationDetails {
  if (depth > MAX_SLEEVE_DEPTH)
    throw new ConflictError(
      `Composite asset classes nest deeper than ${MAX_SLEEVE_DEPTH} levels (is there a cycle?).`,
    );
  const r = ctx.store.assetClasses.get(org, assetClassUuid);
  if (!r) throw new NotFoundError(`Asset class ${assetClassUuid} not found.`, "asset_class_not_found");
  const d = doc(r);
  const index = d.benchmark_index_identifier
    ? ctx.store.market.index(d.benchmark_index_identifier)
    : undefined;
  const single = d.single_security_theme_asset_id
    ? ctx.store.market.security(d.single_security_theme_asset_id)
    : undefined;
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
    child_asset_allocations: (d.asset_allocations ?? []).map((a, i) =>
      allocationRead(ctx, org, a, depth + 1, `child_asset_allocations[${i}]`),
    ),
    archived_at: r.archivedAt,
  };
}

function allocationRead(
  ctx: ServiceContext,
  org: string,
  a: AssetAllocationWrite,
  depth: number,
  path: string,
): AssetAllocationRead {
  return {
    ...allocationDetails(ctx, org, a.asset_class_uuid, depth),
    target_allocation: numeric(a.target_allocation, `${path}.target_allocation`),
    direct_indexing_enabled: a.direct_indexing_enabled ?? false,
    tilts: (a.tilts ?? []).map((t, j) => ({
      weight_adjustment: numeric(t.weight_adjustment, `${path}.tilts[${j}].weight_adjustment`),
      theme: t.theme_uuid == null ? null : themeRef(ctx, org, t.theme_uuid),
      index: t.index_uuid == null ? null : indexRef(ctx, t.index_uuid),
    })),
  };
}

export function themeRef(ctx: ServiceContext, org: string, uuid: string) {
  const t = ctx.store.themes.require(org, uuid);
  const rev = ctx.store.themes.latestRevision(uuid);
  return { uuid: t.uuid, name: t.name, published_at: rev?.publishedAt ?? null };
}

export function indexRef(ctx: ServiceContext, uuid: string) {
  const i = findIndexByUuid(ctx, uuid);
  if (!i) throw new NotFoundError(`Index ${uuid} not found.`, "index_not_found");
  return { uuid: indexUuid(i.identifier), name: i.name, status: "READY" };
}
