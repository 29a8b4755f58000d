/**
 * @module service/organizations
 * Organizations and API keys. These are administered on the machine that holds the store (the CLI's `orgs` and
 * `keys` commands), never over HTTP: a key is shown once, at creation, and only its hash is kept.
 */
import { NotFoundError } from "../core/errors.js";
import type { ApiKeyRecord, OrganizationRecord } from "../store/index.js";
import type { ServiceContext } from "./context.js";

export interface IssuedKey {
  key: string;
  record: ApiKeyRecord;
}

/** Create an organization with a first API key. */
export async function createOrganization(
  ctx: ServiceContext,
  name: string,
  keyLabel = "default",
): Promise<{ organization: OrganizationRecord; apiKey: IssuedKey }> {
  return ctx.store.transaction(async (tx) => {
    const organization = await tx.organizations.create(name);
    const apiKey = await tx.apiKeys.create(organization.uuid, keyLabel);
    return { organization, apiKey };
  });
}

export async function listOrganizations(ctx: ServiceContext): Promise<OrganizationRecord[]> {
  return ctx.store.organizations.list();
}

export async function createApiKey(
  ctx: ServiceContext,
  org: string,
  label: string | null,
): Promise<IssuedKey> {
  if (!(await ctx.store.organizations.get(org)))
    throw new NotFoundError(`Organization ${org} not found.`, "organization_not_found");
  return ctx.store.apiKeys.create(org, label);
}

export async function listApiKeys(ctx: ServiceContext, org: string): Promise<ApiKeyRecord[]> {
  return ctx.store.apiKeys.list(org);
}

export async function revokeApiKey(ctx: ServiceContext, org: string, id: string): Promise<ApiKeyRecord> {
  return ctx.store.apiKeys.revoke(org, id);
}

/** The organization a presented key belongs to, or undefined. */
export async function authenticate(
  ctx: ServiceContext,
  presented: string,
): Promise<{ organizationUuid: string; keyId: string } | undefined> {
  return ctx.store.apiKeys.authenticate(presented);
}
