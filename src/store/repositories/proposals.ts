/** @module store/repositories/proposals Stored rebalance proposals (request + response, immutable). */
import type { Statement } from "better-sqlite3";
import { NotFoundError } from "../../core/errors.js";
import type { Db } from "../database.js";
import type { ProposalRecord } from "../records.js";
import { statementCache } from "./util.js";

// The row, its column list and its mapping are shared with the PostgreSQL repository
// (src/store/pg/repositories/proposals.ts): both engines store the same columns.

export interface ProposalRow {
  uuid: string;
  organization_uuid: string;
  account_uuid: string;
  request: string;
  response: string;
  created: string;
}

export const PROPOSAL_COLUMNS = "uuid, organization_uuid, account_uuid, request, response, created";

export const toProposal = (r: ProposalRow): ProposalRecord => ({
  uuid: r.uuid,
  organizationUuid: r.organization_uuid,
  accountUuid: r.account_uuid,
  request: JSON.parse(r.request),
  response: JSON.parse(r.response),
  created: r.created,
});

export class ProposalRepository {
  /** The insert of {@link ProposalRepository.create}, prepared once (one proposal per request). */
  private insertStatement: Statement | undefined;

  private readonly cached: (sql: string) => Statement;

  constructor(
    private readonly db: Db,
    private readonly now: () => string,
  ) {
    this.cached = statementCache(db);
  }

  /** Store a proposal under the uuid it already carries in its response; returns the stored record. */
  create(
    organizationUuid: string,
    accountUuid: string,
    uuid: string,
    request: unknown,
    response: unknown,
  ): ProposalRecord {
    return toProposal(this.insertRow(organizationUuid, accountUuid, uuid, request, JSON.stringify(response)));
  }

  /**
   * {@link ProposalRepository.create} without reading the record back (parsing a large response again): for
   * callers that already hold the request and response.
   */
  insert(
    organizationUuid: string,
    accountUuid: string,
    uuid: string,
    request: unknown,
    response: unknown,
  ): void {
    this.insertRow(organizationUuid, accountUuid, uuid, request, JSON.stringify(response));
  }

  /**
   * {@link ProposalRepository.insert} of a response the caller has already serialized (`JSON.stringify` of the
   * response object), so that a service replying with the same text serializes a large response once.
   */
  insertSerialized(
    organizationUuid: string,
    accountUuid: string,
    uuid: string,
    request: unknown,
    responseJson: string,
  ): void {
    this.insertRow(organizationUuid, accountUuid, uuid, request, responseJson);
  }

  private insertRow(
    organizationUuid: string,
    accountUuid: string,
    uuid: string,
    request: unknown,
    responseJson: string,
  ): ProposalRow {
    const row: ProposalRow = {
      uuid,
      organization_uuid: organizationUuid,
      account_uuid: accountUuid,
      request: JSON.stringify(request),
      response: responseJson,
      created: this.now(),
    };
    this.insertStatement ??= this.db.prepare(
      `INSERT INTO proposals (${PROPOSAL_COLUMNS}) VALUES (@uuid, @organization_uuid, @account_uuid, @request, @response, @created)`,
    );
    this.insertStatement.run(row);
    return row;
  }

  /**
   * Apply a retention policy to one account's proposals: delete all but the newest `keep` (when given) and those
   * created more than `maxAgeDays` days before now (when given); `spare` (the proposal just written) is never
   * deleted. No table references proposals, so nothing can be left dangling. Returns how many were deleted.
   */
  prune(
    organizationUuid: string,
    accountUuid: string,
    policy: { keep?: number; maxAgeDays?: number; spare?: string },
  ): number {
    let deleted = 0;
    if (policy.maxAgeDays !== undefined) {
      const cutoff = new Date(Date.parse(this.now()) - policy.maxAgeDays * 86_400_000).toISOString();
      deleted += this.cached(
        "DELETE FROM proposals WHERE account_uuid = ? AND organization_uuid = ? AND created < ? AND uuid <> ?",
      ).run(accountUuid, organizationUuid, cutoff, policy.spare ?? "").changes;
    }
    if (policy.keep !== undefined) {
      // All but the newest `keep` by (created, rowid). The inner scan filters on account_uuid alone (a primary key,
      // so one organization's) to stay inside the index on (account_uuid, created): reading the rows to check the
      // organization would load every large response it skips. The outer filter keeps the scoping.
      deleted += this.cached(
        `DELETE FROM proposals WHERE rowid IN (
             SELECT rowid FROM proposals WHERE account_uuid = @account
             ORDER BY created DESC, rowid DESC LIMIT -1 OFFSET @keep)
           AND organization_uuid = @org AND uuid <> @spare`,
      ).run({
        account: accountUuid,
        org: organizationUuid,
        keep: policy.keep,
        spare: policy.spare ?? "",
      }).changes;
    }
    return deleted;
  }

  /** Number of stored proposals of an account. */
  count(organizationUuid: string, accountUuid: string): number {
    return (
      this.db
        .prepare("SELECT count(*) AS n FROM proposals WHERE account_uuid = ? AND organization_uuid = ?")
        .get(accountUuid, organizationUuid) as { n: number }
    ).n;
  }

  get(organizationUuid: string, accountUuid: string, uuid: string): ProposalRecord | undefined {
    const r = this.db
      .prepare("SELECT * FROM proposals WHERE uuid = ? AND account_uuid = ? AND organization_uuid = ?")
      .get(uuid, accountUuid, organizationUuid) as ProposalRow | undefined;
    return r && toProposal(r);
  }

  /** @throws {NotFoundError} */
  require(organizationUuid: string, accountUuid: string, uuid: string): ProposalRecord {
    const p = this.get(organizationUuid, accountUuid, uuid);
    if (!p)
      throw new NotFoundError(`Proposal ${uuid} not found for account ${accountUuid}.`, "proposal_not_found");
    return p;
  }

  list(organizationUuid: string, accountUuid: string): ProposalRecord[] {
    const rows = this.db
      .prepare(
        "SELECT * FROM proposals WHERE account_uuid = ? AND organization_uuid = ? ORDER BY created, uuid",
      )
      .all(accountUuid, organizationUuid) as ProposalRow[];
    return rows.map(toProposal);
  }
}
