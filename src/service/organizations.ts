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
export function createOrganization(
  ctx: ServiceContext,
  name: string,
  keyLabel = "default",
): { organization: OrganizationRecord; apiKey: IssuedKey } {
  return ctx.store.transaction(() => {
    const organization = ctx.store.organizations.create(name);
    const apiKey = ctx.store.apiKeys.create(organization.uuid, keyLabel);
    return { organization, apiKey };
  });
}

export function listOrganizations(ctx: ServiceContext): OrganizationRecord[] {
  return ctx.store.organizations.list();
}

export function createApiKey(ctx: ServiceContext, org: string, label: string | null): IssuedKey {
  if (!ctx.store.organizations.get(org))
    throw new NotFoundError(`Organization ${org} not found.`, "organization_not_found");
  return ctx.store.apiKeys.create(org, label);
}

export function listApiKeys(ctx: ServiceContext, org: string): ApiKeyRecord[] {
  return ctx.store.apiKeys.list(org);
}

export function revokeApiKey(ctx: ServiceContext, org: string, id: string): ApiKeyRecord {
  return ctx.store.apiKeys.revoke(org, id);
}

/** The organization a presented key belongs to, or undefined. */
export function authenticate(
  ctx: ServiceContext,
  presented: string,
): { organizationUuid: string; keyId: string } | undefined {
  return ctx.store.apiKeys.authenticate(presented);
}
