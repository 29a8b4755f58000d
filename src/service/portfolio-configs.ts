/**
 * @module service/portfolio-configs
 * Portfolio configurations: list (endpoint 3), update (endpoint 4), create and read (extensions). A stored
 * configuration is the merge of its writes; reads expand ticker references into ticker objects from the security
 * master and asset allocations into sleeve details.
 */
import {
  type CustomizationConfigWrite,
  mergePortfolioConfigWrite,
  type PortfolioConfigCreate,
  type PortfolioConfigRead,
  type PortfolioConfigResolvers,
  type PortfolioConfigWrite,
  portfolioConfigReadFromWrite,
} from "../contract/index.js";
import { type FieldIssue, ValidationError } from "../core/errors.js";
import type { PortfolioConfigRecord } from "../store/index.js";
import { allocationDetails, checkAllocationReferences, indexRef, themeRef } from "./asset-classes.js";
import { marketAsOf, type ServiceContext } from "./context.js";
import { TickerBook } from "./tickers.js";

/** Read-side lookups over the store for one request. */
export function configResolvers(
  ctx: ServiceContext,
  org: string,
  tickers = new TickerBook(ctx.store, marketAsOf(ctx)),
): PortfolioConfigResolvers {
  return {
    ticker: (id) => tickers.ticker(id),
    assetClass: (uuid) => allocationDetails(ctx, org, uuid),
    theme: (uuid) => themeRef(ctx, org, uuid),
    index: (uuid) => indexRef(ctx, uuid),
  };
}

/**
 * Check every reference of a configuration write against the store: theme_asset_ids must be in the security master,
 * asset classes must exist (and not be archived unless already assigned), themes and indexes of tilts must exist.
 * @throws {ValidationError} listing every unresolved reference by field path.
 */
export function validateConfigReferences(
  ctx: ServiceContext,
  org: string,
  write: PortfolioConfigWrite | CustomizationConfigWrite,
  previous: PortfolioConfigWrite | CustomizationConfigWrite | null,
  prefix = "",
): void {
  const issues: FieldIssue[] = [];
  const known = (id: string) => ctx.store.market.security(id) !== undefined;
  const check = (id: string, path: string) => {
    if (!known(id))
      issues.push({
        path: `${prefix}${path}`,
        message: `unknown theme_asset_id ${id}: not in the security master`,
      });
  };
  for (const [list, field] of [
    [write.no_hold_tickers, "no_hold_tickers"],
    [write.no_trade_tickers, "no_trade_tickers"],
    [write.target_ticker_weights, "target_ticker_weights"],
  ] as const) {
    for (const [i, t] of (list ?? []).entries()) check(t.theme_asset_id, `${field}[${i}].theme_asset_id`);
  }
  for (const [i, id] of (write.whole_share_assets ?? []).entries()) check(id, `whole_share_assets[${i}]`);
  for (const [i, group] of (write.substitution_pairs ?? []).entries())
    for (const [j, id] of group.entries()) check(id, `substitution_pairs[${i}][${j}]`);
  for (const id of Object.keys(write.capital_gains_reductions ?? {}))
    check(id, `capital_gains_reductions.${id}`);
  if (write.asset_allocations) {
    const before = new Set((previous?.asset_allocations ?? []).map((a) => a.asset_class_uuid));
    issues.push(
      ...checkAllocationReferences(ctx, org, write.asset_allocations, "asset_allocations", {
        forNewAssignment: true,
        previouslyAssigned: before,
      }).map((i) => ({ ...i, path: `${prefix}${i.path}` })),
    );
  }
  if (issues.length > 0)
    throw new ValidationError(
      `The configuration references ${issues.length} thing(s) that cannot be used: ${issues.map((i) => `${i.path}: ${i.message}`).join("; ")}`,
      issues,
    );
}

/** The read shape of a stored configuration. */
export function configRead(
  ctx: ServiceContext,
  org: string,
  rec: PortfolioConfigRecord,
  resolvers = configResolvers(ctx, org),
): PortfolioConfigRead {
  return portfolioConfigReadFromWrite(
    {
      uuid: rec.uuid,
      status: rec.status,
      config: { ...(rec.document as PortfolioConfigWrite), name: rec.name },
    },
    resolvers,
  );
}

/** Endpoint 3: every configuration of the organization, oldest first. */
export function listPortfolioConfigs(ctx: ServiceContext, org: string): PortfolioConfigRead[] {
  const resolvers = configResolvers(ctx, org);
  return ctx.store.portfolioConfigs.list(org).map((r) => configRead(ctx, org, r, resolvers));
}

/** Extension: one configuration. @throws {NotFoundError} */
export function getPortfolioConfig(ctx: ServiceContext, org: string, uuid: string): PortfolioConfigRead {
  return configRead(ctx, org, ctx.store.portfolioConfigs.require(org, uuid));
}

/** Extension: create a configuration (status defaults to draft). */
export function createPortfolioConfig(
  ctx: ServiceContext,
  org: string,
  body: PortfolioConfigCreate,
): PortfolioConfigRead {
  validateConfigReferences(ctx, org, body, null);
  const { name, status, ...rest } = body;
  const rec = ctx.store.portfolioConfigs.create(
    org,
    name,
    status ?? "draft",
    rest as Record<string, unknown>,
  );
  return configRead(ctx, org, rec);
}

/** Endpoint 4: PATCH a configuration; provided lists replace the stored lists. @throws {NotFoundError} */
export function updatePortfolioConfig(
  ctx: ServiceContext,
  org: string,
  uuid: string,
  patch: PortfolioConfigWrite,
): PortfolioConfigRead {
  return ctx.store.transaction(() => {
    const cur = ctx.store.portfolioConfigs.require(org, uuid);
    const stored = cur.document as PortfolioConfigWrite;
    validateConfigReferences(ctx, org, patch, stored);
    const { name, status, ...rest } = mergePortfolioConfigWrite(
      { ...stored, name: cur.name, status: cur.status as PortfolioConfigWrite["status"] },
      patch,
    );
    const rec = ctx.store.portfolioConfigs.update(org, uuid, {
      name: name ?? cur.name,
      status: status ?? cur.status,
      document: rest as Record<string, unknown>,
    });
    return configRead(ctx, org, rec);
  });
}
