/**
 * @module service/rebalance-selection
 * Which accounts of an organization a rebalance run covers: all of them, one client's, the accounts of one
 * portfolio configuration, or a list. A small interface of its own (the `lotwise scan` selection lives in
 * service/account-selection.ts; the two can be unified behind {@link selectRunAccounts}).
 */
import type { RebalanceRunSelection } from "../contract/index.js";
import { ValidationError } from "../core/errors.js";
import type { AccountRecord } from "../store/index.js";
import type { ServiceContext } from "./context.js";

/** A selection as the request gives it (at most one field). */
export interface RunSelectionInput {
  client_uuid?: string | undefined;
  portfolio_config_uuid?: string | undefined;
  account_uuids?: readonly string[] | undefined;
}

/** The wire form of a selection (every field present). */
export function runSelectionOf(input: RunSelectionInput): RebalanceRunSelection {
  const base = { client_uuid: null, portfolio_config_uuid: null, account_uuids: null };
  if (input.client_uuid !== undefined)
    return { ...base, kind: "client", client_uuid: input.client_uuid.toLowerCase() };
  if (input.portfolio_config_uuid !== undefined)
    return {
      ...base,
      kind: "portfolio_config",
      portfolio_config_uuid: input.portfolio_config_uuid.toLowerCase(),
    };
  if (input.account_uuids !== undefined)
    return { ...base, kind: "accounts", account_uuids: input.account_uuids.map((u) => u.toLowerCase()) };
  return { ...base, kind: "all" };
}

/**
 * The part of a run key that names the selection: `all`, `client:<uuid>`, `portfolio_config:<uuid>`, or
 * `accounts:<uuids sorted, comma-separated>` (the same set in another order is the same selection).
 */
export function selectionKeyOf(s: RebalanceRunSelection): string {
  switch (s.kind) {
    case "all":
      return "all";
    case "client":
      return `client:${s.client_uuid}`;
    case "portfolio_config":
      return `portfolio_config:${s.portfolio_config_uuid}`;
    case "accounts":
      return `accounts:${[...new Set(s.account_uuids)].sort().join(",")}`;
  }
}

/**
 * The accounts of a selection, in processing order: by creation (then uuid) for all / client / configuration,
 * the given order (duplicates dropped) for a list.
 * @throws {NotFoundError} `client_not_found` / `portfolio_config_not_found` for an unknown client or configuration.
 * @throws {ValidationError} naming `account_uuids` and the uuids not in the organization.
 */
export async function selectRunAccounts(
  ctx: ServiceContext,
  org: string,
  s: RebalanceRunSelection,
): Promise<AccountRecord[]> {
  const accounts = ctx.store.accounts;
  switch (s.kind) {
    case "all":
      return accounts.listByOrganization(org);
    case "client":
      await ctx.store.clients.require(org, s.client_uuid!);
      return accounts.listByClient(org, s.client_uuid!);
    case "portfolio_config":
      await ctx.store.portfolioConfigs.require(org, s.portfolio_config_uuid!);
      return (await accounts.listByOrganization(org)).filter(
        (a) => a.portfolioConfigUuid === s.portfolio_config_uuid,
      );
    case "accounts": {
      const out: AccountRecord[] = [];
      const missing: string[] = [];
      for (const uuid of new Set(s.account_uuids)) {
        const a = await accounts.getInOrganization(org, uuid);
        if (a) out.push(a);
        else missing.push(uuid);
      }
      if (missing.length > 0)
        throw new ValidationError(
          `Unknown account${missing.length === 1 ? "" : "s"}: ${missing.slice(0, 5).join(", ")}${missing.length > 5 ? ` and ${missing.length - 5} more` : ""}.`,
          missing.map((m) => ({ path: "account_uuids", message: `account ${m} not found` })),
        );
      return out;
    }
  }
}
