/**
 * @module service/clients
 * Clients and accounts: create, list, read, delete (extensions) and the client update of endpoint 6.
 *
 * Endpoint 6 carries account-level fields (holdings, customization_config, portfolio_config_uuid,
 * asset_class_settings) on the client. They apply to the account named by the extension field `account_uuid`, or
 * else to the client's first account, which is created (named "Primary") when the client has none.
 */
import type { Account, AccountCreate, Client, ClientCreate, ClientUpdate } from "../contract/index.js";
import { type FieldIssue, NotFoundError, ValidationError } from "../core/errors.js";
import type { AccountRecord, ClientRecord, TaxLotInput } from "../store/index.js";
import { accountRead } from "./accounts.js";
import type { ServiceContext } from "./context.js";
import { lotWriteToInput } from "./lots.js";
import { validateConfigReferences } from "./portfolio-configs.js";

/** The client response: the client with every account in the read shape. */
export function clientRead(ctx: ServiceContext, client: ClientRecord): Client {
  const accounts = ctx.store.accounts.listByClient(client.organizationUuid, client.uuid);
  return {
    uuid: client.uuid,
    external_id: client.externalId,
    created: client.created,
    modified: client.modified,
    accounts: accounts.map((a) => accountRead(ctx, a, accounts)),
    metadata: (client.metadata ?? null) as Client["metadata"],
  };
}

export function createClient(ctx: ServiceContext, org: string, body: ClientCreate): Client {
  const c = ctx.store.clients.create(org, {
    ...(body.external_id !== undefined ? { externalId: body.external_id } : {}),
    ...(body.metadata !== undefined ? { metadata: body.metadata } : {}),
  });
  return clientRead(ctx, c);
}

export function listClients(ctx: ServiceContext, org: string): Client[] {
  return ctx.store.clients.list(org).map((c) => clientRead(ctx, c));
}

/** @throws {NotFoundError} */
export function getClient(ctx: ServiceContext, org: string, uuid: string): Client {
  return clientRead(ctx, ctx.store.clients.require(org, uuid));
}

/** @throws {NotFoundError} */
export function deleteClient(ctx: ServiceContext, org: string, uuid: string): void {
  ctx.store.clients.delete(org, uuid);
}

/** Check lot references against the security master; returns issues under `path`. */
function lotIssues(
  ctx: ServiceContext,
  lots: readonly { theme_asset_id: string; cost_basis_currency?: string | undefined }[],
  path: string,
): FieldIssue[] {
  const issues: FieldIssue[] = [];
  lots.forEach((l, i) => {
    const s = ctx.store.market.security(l.theme_asset_id);
    if (!s)
      issues.push({
        path: `${path}[${i}].theme_asset_id`,
        message: `unknown theme_asset_id ${l.theme_asset_id}: not in the security master`,
      });
  });
  return issues;
}

/** Validate and convert wire lots to store rows. @throws {ValidationError} naming unknown assets. */
export function lotsForStore(
  ctx: ServiceContext,
  lots: NonNullable<NonNullable<ClientUpdate["holdings"]>["tax_lots"]>,
  path: string,
): TaxLotInput[] {
  const issues = lotIssues(ctx, lots, path);
  if (issues.length > 0)
    throw new ValidationError(
      `${issues.length} tax lot(s) name assets that are not in the security master: ${issues.map((i) => i.message).join("; ")}`,
      issues,
    );
  return lots.map(lotWriteToInput);
}

export function createAccount(
  ctx: ServiceContext,
  org: string,
  clientUuid: string,
  body: AccountCreate,
): Account {
  return ctx.store.transaction(() => {
    ctx.store.clients.require(org, clientUuid);
    if (body.portfolio_config_uuid) ctx.store.portfolioConfigs.require(org, body.portfolio_config_uuid);
    const lots = body.holdings?.tax_lots
      ? lotsForStore(ctx, body.holdings.tax_lots, "holdings.tax_lots")
      : [];
    const a = ctx.store.accounts.create(org, clientUuid, {
      externalId: body.external_id ?? null,
      name: body.name ?? null,
      cashValueUsd: body.cash_value_usd ?? "0",
      nonTradableAssetsValue: body.holdings?.non_tradable_assets_value ?? "0",
      portfolioConfigUuid: body.portfolio_config_uuid ?? null,
      ...(body.metadata !== undefined ? { metadata: body.metadata } : {}),
    });
    if (lots.length > 0) ctx.store.accounts.replaceLots(a.uuid, lots);
    return getAccount(ctx, org, clientUuid, a.uuid);
  });
}

export function listAccounts(ctx: ServiceContext, org: string, clientUuid: string): Account[] {
  ctx.store.clients.require(org, clientUuid);
  const accounts = ctx.store.accounts.listByClient(org, clientUuid);
  return accounts.map((a) => accountRead(ctx, a, accounts));
}

/** @throws {NotFoundError} */
export function getAccount(
  ctx: ServiceContext,
  org: string,
  clientUuid: string,
  accountUuid: string,
): Account {
  const a = ctx.store.accounts.require(org, clientUuid, accountUuid);
  return accountRead(ctx, a, ctx.store.accounts.listByClient(org, clientUuid));
}

/** The client of an account of the organization. @throws {NotFoundError} */
export function findAccount(
  ctx: ServiceContext,
  org: string,
  accountUuid: string,
): { clientUuid: string; account: AccountRecord } {
  const a = ctx.store.accounts.getInOrganization(org, accountUuid);
  if (!a) throw new NotFoundError(`Account ${accountUuid} not found.`, "account_not_found");
  return { clientUuid: a.clientUuid, account: a };
}

/** Endpoint 6: update a client (and one of its accounts). All or nothing. @throws {NotFoundError} @throws {ValidationError} */
export function updateClient(ctx: ServiceContext, org: string, uuid: string, body: ClientUpdate): Client {
  return ctx.store.transaction(() => {
    const client = ctx.store.clients.require(org, uuid);
    if (body.external_id !== undefined || body.metadata !== undefined)
      ctx.store.clients.update(org, uuid, {
        ...(body.external_id !== undefined ? { externalId: body.external_id } : {}),
        ...(body.metadata !== undefined ? { metadata: body.metadata } : {}),
      });
    const touchesAccount =
      body.holdings !== undefined ||
      body.customization_config !== undefined ||
      body.portfolio_config_uuid !== undefined ||
      body.asset_class_settings !== undefined;
    if (touchesAccount || body.account_uuid !== undefined) {
      const account = targetAccount(ctx, org, client, body.account_uuid);
      applyAccountFields(ctx, org, account, body);
    }
    return getClient(ctx, org, uuid);
  });
}

function targetAccount(
  ctx: ServiceContext,
  org: string,
  client: ClientRecord,
  accountUuid: string | undefined,
): AccountRecord {
  if (accountUuid !== undefined) {
    const a = ctx.store.accounts.get(org, client.uuid, accountUuid);
    if (!a)
      throw new ValidationError(`Account ${accountUuid} is not an account of client ${client.uuid}.`, [
        { path: "account_uuid", message: `account ${accountUuid} does not belong to this client` },
      ]);
    return a;
  }
  return (
    ctx.store.accounts.listByClient(org, client.uuid)[0] ??
    ctx.store.accounts.create(org, client.uuid, { name: "Primary" })
  );
}

function applyAccountFields(
  ctx: ServiceContext,
  org: string,
  account: AccountRecord,
  body: ClientUpdate,
): void {
  const issues: FieldIssue[] = [];
  if (body.portfolio_config_uuid != null && !ctx.store.portfolioConfigs.get(org, body.portfolio_config_uuid))
    issues.push({
      path: "portfolio_config_uuid",
      message: `portfolio configuration ${body.portfolio_config_uuid} not found`,
    });
  if (body.asset_class_settings) {
    const before = new Set(
      ctx.store.accounts
        .assetClassSettings(account.uuid)
        .flatMap((s) => [s.assetClassUuid, s.implementationSleeveUuid ?? ""]),
    );
    body.asset_class_settings.forEach((s, i) => {
      for (const [field, ref] of [
        ["asset_class_uuid", s.asset_class_uuid],
        ["implementation_sleeve_uuid", s.implementation_sleeve_uuid],
      ] as const) {
        if (ref == null) continue;
        const ac = ctx.store.assetClasses.get(org, ref);
        if (!ac)
          issues.push({
            path: `asset_class_settings[${i}].${field}`,
            message: `asset class ${ref} not found`,
          });
        else if (ac.archivedAt && !before.has(ac.uuid))
          issues.push({
            path: `asset_class_settings[${i}].${field}`,
            message: `asset class ${ac.name} (${ac.uuid}) is archived since ${ac.archivedAt} and cannot be newly assigned`,
          });
      }
    });
  }
  if (body.holdings?.tax_lots) issues.push(...lotIssues(ctx, body.holdings.tax_lots, "holdings.tax_lots"));
  if (issues.length > 0)
    throw new ValidationError(
      `The client update has ${issues.length} invalid reference(s): ${issues.map((i) => `${i.path}: ${i.message}`).join("; ")}`,
      issues,
    );
  if (body.customization_config)
    validateConfigReferences(
      ctx,
      org,
      body.customization_config,
      (account.customizationConfig ?? null) as never,
      "customization_config.",
    );

  if (body.holdings?.tax_lots)
    ctx.store.accounts.replaceLots(account.uuid, body.holdings.tax_lots.map(lotWriteToInput));
  if (body.asset_class_settings)
    ctx.store.accounts.replaceAssetClassSettings(
      account.uuid,
      body.asset_class_settings.map((s) => ({
        assetClassUuid: s.asset_class_uuid,
        directIndexingEnabled: s.direct_indexing_enabled ?? false,
        implementationSleeveUuid: s.implementation_sleeve_uuid ?? null,
      })),
    );
  ctx.store.accounts.update(org, account.clientUuid, account.uuid, {
    ...(body.holdings?.non_tradable_assets_value !== undefined
      ? { nonTradableAssetsValue: body.holdings.non_tradable_assets_value }
      : {}),
    ...(body.customization_config !== undefined ? { customizationConfig: body.customization_config } : {}),
    ...(body.portfolio_config_uuid !== undefined ? { portfolioConfigUuid: body.portfolio_config_uuid } : {}),
  });
}
