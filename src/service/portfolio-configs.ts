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
import { mapSerial } from "./serial.js";
import { TickerBook } from "./tickers.js";

/** The store lookups behind {@link PortfolioConfigResolvers}, asynchronous. */
export type AsyncConfigResolvers = {
  [K in keyof PortfolioConfigResolvers]: (
    ...args: Parameters<PortfolioConfigResolvers[K]>
  ) => Promise<ReturnType<PortfolioConfigResolvers[K]>>;
};

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

/**
 * The references of configuration reads of one request, resolved over the store and remembered (a list reads each
 * ticker, sleeve, theme and index once). The contract's read function is synchronous and pure, so {@link read} runs
 * it with resolvers that answer from what is resolved so far, notes what is missing, resolves that, and runs it
 * again until nothing is missing: the same answer, and the same first error, as resolvers that read the store
 * directly.
 */
export class ConfigReferences {
  private readonly outcomes = new Map<string, Outcome>();

  constructor(private readonly lookups: AsyncConfigResolvers) {}

  /**
   * Run `build` with what is resolved so far: its result, or the references it asked for that are not resolved yet
   * (then the result is not to be used: missing references answered `undefined`).
   */
  tryRead<R>(
    build: (resolvers: PortfolioConfigResolvers) => R,
  ): { done: true; value: R } | { done: false; missing: [keyof PortfolioConfigResolvers, string][] } {
    const missing: [keyof PortfolioConfigResolvers, string][] = [];
    const answer =
      (kind: keyof PortfolioConfigResolvers) =>
      (id: string): never => {
        const hit = this.outcomes.get(`${kind}\u0000${id}`);
        if (hit === undefined) {
          missing.push([kind, id]);
          return undefined as never;
        }
        if (hit.ok) return hit.value as never;
        throw hit.error;
      };
    const resolvers: PortfolioConfigResolvers = {
      ticker: answer("ticker"),
      assetClass: answer("assetClass"),
      theme: answer("theme"),
      index: answer("index"),
    };
    let value: R | undefined;
    try {
      value = build(resolvers);
    } catch (err) {
      if (missing.length === 0) throw err;
    }
    return missing.length === 0 ? { done: true, value: value as R } : { done: false, missing };
  }

  /** Resolve references (each once; a failed lookup is remembered and thrown when the reference is read). */
  async resolve(missing: readonly [keyof PortfolioConfigResolvers, string][]): Promise<void> {
    for (const [kind, id] of missing) {
      const key = `${kind}\u0000${id}`;
      if (this.outcomes.has(key)) continue;
      try {
        this.outcomes.set(key, { ok: true, value: await this.lookups[kind](id) });
      } catch (error) {
        this.outcomes.set(key, { ok: false, error });
      }
    }
  }

  async read<R>(build: (resolvers: PortfolioConfigResolvers) => R): Promise<R> {
    for (;;) {
      const r = this.tryRead(build);
      if (r.done) return r.value;
      await this.resolve(r.missing);
    }
  }
}

/** Read-side lookups over the store for one request. */
export async function configResolvers(
  ctx: ServiceContext,
  org: string,
  tickers?: TickerBook,
): Promise<ConfigReferences> {
  const book = tickers ?? new TickerBook(ctx.store, await marketAsOf(ctx));
  return new ConfigReferences({
    ticker: (id) => book.ticker(id),
    assetClass: (uuid) => allocationDetails(ctx, org, uuid),
    theme: (uuid) => themeRef(ctx, org, uuid),
    index: (uuid) => indexRef(ctx, uuid),
  });
}

/**
 * Check every reference of a configuration write against the store: theme_asset_ids must be in the security master,
 * asset classes must exist (and not be archived unless already assigned), themes and indexes of tilts must exist.
 * @throws {ValidationError} listing every unresolved reference by field path.
 */
export async function validateConfigReferences(
  ctx: ServiceContext,
  org: string,
  write: PortfolioConfigWrite | CustomizationConfigWrite,
  previous: PortfolioConfigWrite | CustomizationConfigWrite | null,
  prefix = "",
): Promise<void> {
  const issues: FieldIssue[] = [];
  const known = async (id: string) => (await ctx.store.market.security(id)) !== undefined;
  const check = async (id: string, path: string) => {
    if (!(await known(id)))
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
    for (const [i, t] of (list ?? []).entries())
      await check(t.theme_asset_id, `${field}[${i}].theme_asset_id`);
  }
  for (const [i, id] of (write.whole_share_assets ?? []).entries())
    await check(id, `whole_share_assets[${i}]`);
  for (const [i, group] of (write.substitution_pairs ?? []).entries())
    for (const [j, id] of group.entries()) await check(id, `substitution_pairs[${i}][${j}]`);
  for (const id of Object.keys(write.capital_gains_reductions ?? {}))
    await check(id, `capital_gains_reductions.${id}`);
  if (write.asset_allocations) {
    const before = new Set((previous?.asset_allocations ?? []).map((a) => a.asset_class_uuid));
    issues.push(
      ...(
        await checkAllocationReferences(ctx, org, write.asset_allocations, "asset_allocations", {
          forNewAssignment: true,
          previouslyAssigned: before,
        })
      ).map((i) => ({ ...i, path: `${prefix}${i.path}` })),
    );
  }
  if (issues.length > 0)
    throw new ValidationError(
      `The configuration references ${issues.length} thing(s) that cannot be used: ${issues.map((i) => `${i.path}: ${i.message}`).join("; ")}`,
      issues,
    );
}

/** The read shape of a stored configuration. */
export async function configRead(
  ctx: ServiceContext,
  org: string,
  rec: PortfolioConfigRecord,
  references?: ConfigReferences,
): Promise<PortfolioConfigRead> {
  const refs = references ?? (await configResolvers(ctx, org));
  return refs.read((resolvers) =>
    portfolioConfigReadFromWrite(
      {
        uuid: rec.uuid,
        status: rec.status,
        config: { ...(rec.document as PortfolioConfigWrite), name: rec.name },
      },
      resolvers,
    ),
  );
}

/** Endpoint 3: every configuration of the organization, oldest first. */
export async function listPortfolioConfigs(ctx: ServiceContext, org: string): Promise<PortfolioConfigRead[]> {
  const references = await configResolvers(ctx, org);
  return mapSerial(await ctx.store.portfolioConfigs.list(org), (r) => configRead(ctx, org, r, references));
}

/** Extension: one configuration. @throws {NotFoundError} */
export async function getPortfolioConfig(
  ctx: ServiceContext,
  org: string,
  uuid: string,
): Promise<PortfolioConfigRead> {
  return configRead(ctx, org, await ctx.store.portfolioConfigs.require(org, uuid));
}

/** Extension: create a configuration (status defaults to draft). */
export async function createPortfolioConfig(
  ctx: ServiceContext,
  org: string,
  body: PortfolioConfigCreate,
): Promise<PortfolioConfigRead> {
  await validateConfigReferences(ctx, org, body, null);
  const { name, status, ...rest } = body;
  const rec = await ctx.store.portfolioConfigs.create(
    org,
    name,
    status ?? "draft",
    rest as Record<string, unknown>,
  );
  return configRead(ctx, org, rec);
}

/** Endpoint 4: PATCH a configuration; provided lists replace the stored lists. @throws {NotFoundError} */
export async function updatePortfolioConfig(
  ctx: ServiceContext,
  org: string,
  uuid: string,
  patch: PortfolioConfigWrite,
): Promise<PortfolioConfigRead> {
  return ctx.store.transaction(async (tx) => {
    const cur = await tx.portfolioConfigs.require(org, uuid);
    const stored = cur.document as PortfolioConfigWrite;
    await validateConfigReferences(ctx, org, patch, stored);
    const { name, status, ...rest } = mergePortfolioConfigWrite(
      { ...stored, name: cur.name, status: cur.status as PortfolioConfigWrite["status"] },
      patch,
    );
    const rec = await tx.portfolioConfigs.update(org, uuid, {
      name: name ?? cur.name,
      status: status ?? cur.status,
      document: rest as Record<string, unknown>,
    });
    return configRead(ctx, org, rec);
  });
}
