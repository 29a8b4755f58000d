/** @module store/pg/repositories/proposals Stored rebalance proposals (PostgreSQL). */
import { NotFoundError } from "../../../core/errors.js";
import type { Promised } from "../../lotwise-store.js";
import type { ProposalRecord } from "../../records.js";
// The row, its columns and its mapping are the SQLite repository's (same columns).
import {
  PROPOSAL_COLUMNS,
  type ProposalRepository,
  type ProposalRow,
  toProposal,
} from "../../repositories/proposals.js";
import type { PgDb } from "../pg-db.js";

export class PgProposalRepository implements Promised<ProposalRepository> {
  constructor(
    private readonly db: PgDb,
    private readonly now: () => string,
  ) {}

  async create(
    organizationUuid: string,
    accountUuid: string,
    uuid: string,
    request: unknown,
    response: unknown,
  ): Promise<ProposalRecord> {
    return toProposal(
      await this.insertRow(organizationUuid, accountUuid, uuid, request, JSON.stringify(response)),
    );
  }

  async insert(
    organizationUuid: string,
    accountUuid: string,
    uuid: string,
    request: unknown,
    response: unknown,
  ): Promise<void> {
    await this.insertRow(organizationUuid, accountUuid, uuid, request, JSON.stringify(response));
  }

  async insertSerialized(
    organizationUuid: string,
    accountUuid: string,
    uuid: string,
    request: unknown,
    responseJson: string,
  ): Promise<void> {
    await this.insertRow(organizationUuid, accountUuid, uuid, request, responseJson);
  }

  private async insertRow(
    organizationUuid: string,
    accountUuid: string,
    uuid: string,
    request: unknown,
    responseJson: string,
  ): Promise<ProposalRow> {
    const row: ProposalRow = {
      uuid,
      organization_uuid: organizationUuid,
      account_uuid: accountUuid,
      request: JSON.stringify(request),
      response: responseJson,
      created: this.now(),
    };
    await this.db.run(`INSERT INTO proposals (${PROPOSAL_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6)`, [
      row.uuid,
      row.organization_uuid,
      row.account_uuid,
      row.request,
      row.response,
      row.created,
    ]);
    return row;
  }

  /** See the SQLite repository; `seq` (insertion order) stands for SQLite's rowid. */
  async prune(
    organizationUuid: string,
    accountUuid: string,
    policy: { keep?: number; maxAgeDays?: number; spare?: string },
  ): Promise<number> {
    let deleted = 0;
    if (policy.maxAgeDays !== undefined) {
      const cutoff = new Date(Date.parse(this.now()) - policy.maxAgeDays * 86_400_000).toISOString();
      deleted += await this.db.run(
        "DELETE FROM proposals WHERE account_uuid = $1 AND organization_uuid = $2 AND created < $3 AND uuid <> $4",
        [accountUuid, organizationUuid, cutoff, policy.spare ?? ""],
      );
    }
    if (policy.keep !== undefined) {
      deleted += await this.db.run(
        `DELETE FROM proposals WHERE seq IN (
             SELECT seq FROM proposals WHERE account_uuid = $1
             ORDER BY created DESC, seq DESC OFFSET $2)
           AND organization_uuid = $3 AND uuid <> $4`,
        [accountUuid, policy.keep, organizationUuid, policy.spare ?? ""],
      );
    }
    return deleted;
  }

  async count(organizationUuid: string, accountUuid: string): Promise<number> {
    return (
      (await this.db.value<number>(
        "SELECT count(*)::int FROM proposals WHERE account_uuid = $1 AND organization_uuid = $2",
        [accountUuid, organizationUuid],
      )) ?? 0
    );
  }

  async get(
    organizationUuid: string,
    accountUuid: string,
    uuid: string,
  ): Promise<ProposalRecord | undefined> {
    const r = await this.db.row<ProposalRow>(
      `SELECT ${PROPOSAL_COLUMNS} FROM proposals WHERE uuid = $1 AND account_uuid = $2 AND organization_uuid = $3`,
      [uuid, accountUuid, organizationUuid],
    );
    return r && toProposal(r);
  }

  async require(organizationUuid: string, accountUuid: string, uuid: string): Promise<ProposalRecord> {
    const p = await this.get(organizationUuid, accountUuid, uuid);
    if (!p)
      throw new NotFoundError(`Proposal ${uuid} not found for account ${accountUuid}.`, "proposal_not_found");
    return p;
  }

  async list(organizationUuid: string, accountUuid: string): Promise<ProposalRecord[]> {
    const rows = await this.db.rows<ProposalRow>(
      `SELECT ${PROPOSAL_COLUMNS} FROM proposals WHERE account_uuid = $1 AND organization_uuid = $2 ORDER BY created, uuid`,
      [accountUuid, organizationUuid],
    );
    return rows.map(toProposal);
  }
}
