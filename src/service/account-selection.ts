/**
 * @module service/account-selection
 * Which accounts of an organization an operation over many accounts looks at (`lotwise scan`, and batch operations
 * such as `rebalance --all`): all of them, narrowed by every field of the {@link AccountSelection} given — a list
 * of account uuids, a client, a portfolio configuration — oldest account first (creation time, then uuid), so that
 * an offset into the selection means the same account from one call to the next. The drift-status filter cannot be
 * applied from the stored records: the caller computes the status and asks {@link statusSelected}.
 *
 * ```ts
 * const accounts = selectAccounts(ctx, org, { client_uuid: client, status: ["breach"] });
 * for (const account of accounts) {
 *   const drift = accountDrift(ctx, org, account.uuid);
 *   if (!statusSelected({ status: ["breach"] }, drift.status)) continue;
 *   ...
 * }
 * ```
 */
import type { AccountSelection, DriftStatus } from "../contract/index.js";
import { NotFoundError } from "../core/errors.js";
import type { AccountRecord } from "../store/index.js";
import type { ServiceContext } from "./context.js";

export type { AccountSelection } from "../contract/index.js";

/** Unknown uuids named in one error message, at most this many (then "and N more"). */
const NAMED_UNKNOWN = 5;

/**
 * The accounts of the organization the selection names, oldest first. Every field given narrows the selection;
 * the `status` field is not applied here (see {@link statusSelected}).
 * @throws {NotFoundError} `client_not_found` for a client that is not the organization's,
 *   `portfolio_config_not_found` for a configuration that is not, `account_not_found` naming the listed account
 *   uuids that are not the organization's.
 * @example (await selectAccounts(ctx, org, {})).length // every account of the organization
 */
export async function selectAccounts(
  ctx: ServiceContext,
  org: string,
  selection: AccountSelection = {},
): Promise<AccountRecord[]> {
  let accounts: AccountRecord[];
  if (selection.client_uuid !== undefined) {
    await ctx.store.clients.require(org, selection.client_uuid);
    accounts = await ctx.store.accounts.listByClient(org, selection.client_uuid);
  } else accounts = await ctx.store.accounts.listByOrganization(org);
  if (selection.portfolio_config_uuid !== undefined) {
    await ctx.store.portfolioConfigs.require(org, selection.portfolio_config_uuid);
    accounts = accounts.filter((a) => a.portfolioConfigUuid === selection.portfolio_config_uuid);
  }
  if (selection.accounts !== undefined) {
    const wanted = new Set(selection.accounts.map((u) => u.toLowerCase()));
    const unknown: string[] = [];
    for (const u of wanted)
      if ((await ctx.store.accounts.getInOrganization(org, u)) === undefined) unknown.push(u);
    if (unknown.length > 0)
      throw new NotFoundError(
        `Account${unknown.length === 1 ? "" : "s"} not found: ${unknown.slice(0, NAMED_UNKNOWN).join(", ")}${unknown.length > NAMED_UNKNOWN ? ` and ${unknown.length - NAMED_UNKNOWN} more` : ""}.`,
        "account_not_found",
      );
    accounts = accounts.filter((a) => wanted.has(a.uuid.toLowerCase()));
  }
  return accounts;
}

/**
 * Whether an account whose drift status is `status` passes the selection's status filter. An account whose status
 * could not be computed (`null`) always passes: it needs a look as much as a breached one.
 * @example statusSelected({ status: ["warning", "breach"] }, "ok") // false
 */
export function statusSelected(selection: AccountSelection, status: DriftStatus | null): boolean {
  return selection.status === undefined || status === null || selection.status.includes(status);
}
