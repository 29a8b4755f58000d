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
import { currencyMismatchMessage } from "./lot-currency.js";
import { lotWriteToInput } from "./lots.js";
import { validateConfigReferences } from "./portfolio-configs.js";
import { mapSerial } from "./serial.js";

/** The client response: the client with every account in the read shape. */
export async function clientRead(ctx: ServiceContext, client: ClientRecord): Promise<Client> {
  const accounts = await ctx.store.accounts.listByClient(client.organizationUuid, client.uuid);
  return {
    uuid: client.uuid,
    external_id: client.externalId,
    created: client.created,
    modified: client.modified,
    accounts: await mapSerial(accounts, (a) => accountRead(ctx, a, accounts)),
    metadata: (client.metadata ?? null) as Client["metadata"],
  };
}

export async function createClient(ctx: ServiceContext, org: string, body: ClientCreate): Promise<Client> {
  const c = await ctx.store.clients.create(org, {
    ...(body.external_id !== undefined ? { externalId: body.external_id } : {}),
    ...(body.metadata !== undefined ? { metadata: body.metadata } : {}),
  });
  return clientRead(ctx, c);
}

export async function listClients(ctx: ServiceContext, org: string): Promise<Client[]> {
  return mapSerial(await ctx.store.clients.list(org), (c) => clientRead(ctx, c));
}

/** @throws {NotFoundError} */
export async function getClient(ctx: ServiceContext, org: string, uuid: string): Promise<Client> {
  return clientRead(ctx, await ctx.store.clients.require(org, uuid));
}

/** @throws {NotFoundError} */
export async function deleteClient(ctx: ServiceContext, org: string, uuid: string): Promise<void> {
  await ctx.store.clients.delete(org, uuid);
}

/** Check lot references against the security master; returns issues under `path`. */
async function lotIssues(
  ctx: ServiceContext,
  lots: readonly { theme_asset_id: string; cost_basis_currency?: string | undefined }[],
  path: string,
): Promise<FieldIssue[]> {
  const issues: FieldIssue[] = [];
  const known = await ctx.store.market.securitiesByIds([...new Set(lots.map((l) => l.theme_asset_id))]);
  lots.forEach((l, i) => {
    const security = known.get(l.theme_asset_id);
    if (security === undefined)
      issues.push({
        path: `${path}[${i}].theme_asset_id`,
        message: `unknown theme_asset_id ${l.theme_asset_id}: not in the security master`,
      });
    else if ((l.cost_basis_currency ?? "USD") !== security.currency)
      issues.push({
        path: `${path}[${i}].cost_basis_currency`,
        message: currencyMismatchMessage(
          `lot ${i}`,
          "cost_basis_currency",
          l.theme_asset_id,
          l.cost_basis_currency ?? "USD",
          security.currency,
        ),
      });
  });
  return issues;
}

/** Validate and convert wire lots to store rows. @throws {ValidationError} naming unknown assets. */
export async function lotsForStore(
  ctx: ServiceContext,
  lots: NonNullable<NonNullable<ClientUpdate["holdings"]>["tax_lots"]>,
  path: string,
): Promise<TaxLotInput[]> {
  const issues = await lotIssues(ctx, lots, path);
  if (issues.length > 0)
    throw new ValidationError(
      `${issues.length} tax lot(s) cannot be stored (nothing was written): ${issues.map((i) => `${i.path}: ${i.message}`).join("; ")}`,
      issues,
    );
  return lots.map(lotWriteToInput);
}

export async function createAccount(
  ctx: ServiceContext,
  org: string,
  clientUuid: string,
  body: AccountCreate,
): Promise<Account> {
  return ctx.store.transaction(async (tx) => {
    await tx.clients.require(org, clientUuid);
    if (body.portfolio_config_uuid) await tx.portfolioConfigs.require(org, body.portfolio_config_uuid);
    const lots = body.holdings?.tax_lots
      ? await lotsForStore(ctx, body.holdings.tax_lots, "holdings.tax_lots")
      : [];
    const a = await tx.accounts.create(org, clientUuid, {
      externalId: body.external_id ?? null,
      name: body.name ?? null,
      cashValueUsd: body.cash_value_usd ?? "0",
      nonTradableAssetsValue: body.holdings?.non_tradable_assets_value ?? "0",
      portfolioConfigUuid: body.portfolio_config_uuid ?? null,
      ...(body.metadata !== undefined ? { metadata: body.metadata } : {}),
    });
    if (lots.length > 0) await tx.accounts.replaceLots(a.uuid, lots);
    return getAccount(ctx, org, clientUuid, a.uuid);
  });
}

export async function listAccounts(ctx: ServiceContext, org: string, clientUuid: string): Promise<Account[]> {
  await ctx.store.clients.require(org, clientUuid);
  const accounts = await ctx.store.accounts.listByClient(org, clientUuid);
  return mapSerial(accounts, (a) => accountRead(ctx, a, accounts));
}

/** @throws {NotFoundError} */
export async function getAccount(
  ctx: ServiceContext,
  org: string,
  clientUuid: string,
  accountUuid: string,
): Promise<Account> {
  const a = await ctx.store.accounts.require(org, clientUuid, accountUuid);
  return accountRead(ctx, a, await ctx.store.accounts.listByClient(org, clientUuid));
}

/** The client of an account of the organization. @throws {NotFoundError} */
export async function findAccount(
  ctx: ServiceContext,
  org: string,
  accountUuid: string,
): Promise<{ clientUuid: string; account: AccountRecord }> {
  const a = await ctx.store.accounts.getInOrganization(org, accountUuid);
  if (!a) throw new NotFoundError(`Account ${accountUuid} not found.`, "account_not_found");
  return { clientUuid: a.clientUuid, account: a };
}

/** Endpoint 6: update a client (and one of its accounts). All or nothing. @throws {NotFoundError} @throws {ValidationError} */
export async function updateClient(
  ctx: ServiceContext,
  org: string,
  uuid: string,
  body: ClientUpdate,
): Promise<Client> {
  return ctx.store.transaction(async (tx) => {
    const client = await tx.clients.require(org, uuid);
    if (body.external_id !== undefined || body.metadata !== undefined)
      await tx.clients.update(org, uuid, {
        ...(body.external_id !== undefined ? { externalId: body.external_id } : {}),
        ...(body.metadata !== undefined ? { metadata: body.metadata } : {}),
      });
    const touchesAccount =
      body.holdings !== undefined ||
      body.customization_config !== undefined ||
      body.portfolio_config_uuid !== undefined ||
      body.asset_class_settings !== undefined;
    if (touchesAccount || body.account_uuid !== undefined) {
      const account = await targetAccount(ctx, org, client, body.account_uuid);
      await applyAccountFields(ctx, org, account, body);
    }
    return getClient(ctx, org, uuid);
  });
}

async function targetAccount(
  ctx: ServiceContext,
  org: string,
  client: ClientRecord,
  accountUuid: string | undefined,
): Promise<AccountRecord> {
  if (accountUuid !== undefined) {
    const a = await ctx.store.accounts.get(org, client.uuid, accountUuid);
    if (!a)
      throw new ValidationError(`Account ${accountUuid} is not an account of client ${client.uuid}.`, [
        { path: "account_uuid", message: `account ${accountUuid} does not belong to this client` },
      ]);
    return a;
  }
  return (
    (await ctx.store.accounts.listByClient(org, client.uuid))[0] ??
    (await ctx.store.accounts.create(org, client.uuid, { name: "Primary" }))
  );
}

async function applyAccountFields(
  ctx: ServiceContext,
  org: string,
  account: AccountRecord,
  body: ClientUpdate,
): Promise<void> {
  const issues: FieldIssue[] = [];
  if (
    body.portfolio_config_uuid != null &&
    !(await ctx.store.portfolioConfigs.get(org, body.portfolio_config_uuid))
  )
    issues.push({
      path: "portfolio_config_uuid",
      message: `portfolio configuration ${body.portfolio_config_uuid} not found`,
    });
  if (body.asset_class_settings) {
    const before = new Set(
      (await ctx.store.accounts.assetClassSettings(account.uuid)).flatMap((s) => [
        s.assetClassUuid,
        s.implementationSleeveUuid ?? "",
      ]),
    );
    for (const [i, s] of body.asset_class_settings.entries()) {
      for (const [field, ref] of [
        ["asset_class_uuid", s.asset_class_uuid],
        ["implementation_sleeve_uuid", s.implementation_sleeve_uuid],
      ] as const) {
        if (ref == null) continue;
        const ac = await ctx.store.assetClasses.get(org, ref);
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
    }
  }
  if (body.holdings?.tax_lots)
    issues.push(...(await lotIssues(ctx, body.holdings.tax_lots, "holdings.tax_lots")));
  if (issues.length > 0)
    throw new ValidationError(
      `The client update has ${issues.length} invalid reference(s): ${issues.map((i) => `${i.path}: ${i.message}`).join("; ")}`,
      issues,
    );
  if (body.customization_config)
    await validateConfigReferences(
      ctx,
      org,
      body.customization_config,
      (account.customizationConfig ?? null) as never,
      "customization_config.",
    );

  if (body.holdings?.tax_lots)
    await ctx.store.accounts.replaceLots(account.uuid, body.holdings.tax_lots.map(lotWriteToInput));
  if (body.asset_class_settings)
    await ctx.store.accounts.replaceAssetClassSettings(
      account.uuid,
      body.asset_class_settings.map((s) => ({
        assetClassUuid: s.asset_class_uuid,
        directIndexingEnabled: s.direct_indexing_enabled ?? false,
        implementationSleeveUuid: s.implementation_sleeve_uuid ?? null,
      })),
    );
  await ctx.store.accounts.update(org, account.clientUuid, account.uuid, {
    ...(body.holdings?.non_tradable_assets_value !== undefined
      ? { nonTradableAssetsValue: body.holdings.non_tradable_assets_value }
      : {}),
    ...(body.customization_config !== undefined ? { customizationConfig: body.customization_config } : {}),
    ...(body.portfolio_config_uuid !== undefined ? { portfolioConfigUuid: body.portfolio_config_uuid } : {}),
  });
}
