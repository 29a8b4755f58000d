/** @module store/pg/repositories/organizations Organizations and their API keys (PostgreSQL). */
import { randomUUID } from "node:crypto";
import { NotFoundError } from "../../../core/errors.js";
import type { Promised } from "../../lotwise-store.js";
import type { ApiKeyRecord, OrganizationRecord } from "../../records.js";
// The key row, its mapping, key issuing and checking are the SQLite repository's (same columns).
import {
  type ApiKeyRepository,
  apiKeyId,
  checkApiKey,
  type KeyRow,
  newApiKey,
  ORG_COLUMNS,
  type OrganizationRepository,
  toKeyRecord,
} from "../../repositories/organizations.js";
import type { PgDb } from "../pg-db.js";

export class PgOrganizationRepository implements Promised<OrganizationRepository> {
  constructor(
    private readonly db: PgDb,
    private readonly now: () => string,
  ) {}

  async create(name: string): Promise<OrganizationRecord> {
    const t = this.now();
    const rec = { uuid: randomUUID(), name, created: t, modified: t };
    await this.db.run(`INSERT INTO organizations (${ORG_COLUMNS}) VALUES ($1, $2, $3, $4)`, [
      rec.uuid,
      rec.name,
      rec.created,
      rec.modified,
    ]);
    return rec;
  }

  async get(uuid: string): Promise<OrganizationRecord | undefined> {
    return this.db.row<OrganizationRecord>(`SELECT ${ORG_COLUMNS} FROM organizations WHERE uuid = $1`, [
      uuid,
    ]);
  }

  async list(): Promise<OrganizationRecord[]> {
    return this.db.rows<OrganizationRecord>(
      `SELECT ${ORG_COLUMNS} FROM organizations ORDER BY created, uuid`,
    );
  }

  async rename(uuid: string, name: string): Promise<OrganizationRecord> {
    const rec = await this.db.row<OrganizationRecord>(
      `UPDATE organizations SET name = $1, modified = $2 WHERE uuid = $3 RETURNING ${ORG_COLUMNS}`,
      [name, this.now(), uuid],
    );
    if (!rec) throw new NotFoundError(`Organization ${uuid} not found.`);
    return rec;
  }
}

/**
 * API keys, as in the SQLite repository. Every `authenticate` reads the key's row from the database (no
 * process-local cache), so a key revoked through any instance is refused by every instance at once.
 */
export class PgApiKeyRepository implements Promised<ApiKeyRepository> {
  constructor(
    private readonly db: PgDb,
    private readonly now: () => string,
  ) {}

  async create(
    organizationUuid: string,
    label: string | null = null,
  ): Promise<{ record: ApiKeyRecord; key: string }> {
    const { row, key } = newApiKey(organizationUuid, label, this.now());
    await this.db.run(
      "INSERT INTO api_keys (id, organization_uuid, prefix, hash, label, created) VALUES ($1, $2, $3, $4, $5, $6)",
      [row.id, row.organization_uuid, row.prefix, row.hash, row.label, row.created],
    );
    return { record: toKeyRecord(row), key };
  }

  async authenticate(presented: string): Promise<{ organizationUuid: string; keyId: string } | undefined> {
    const id = apiKeyId(presented);
    const row =
      id === undefined ? undefined : await this.db.row<KeyRow>("SELECT * FROM api_keys WHERE id = $1", [id]);
    return checkApiKey(presented, row);
  }

  async touch(id: string): Promise<void> {
    await this.db.run("UPDATE api_keys SET last_used_at = $1 WHERE id = $2", [this.now(), id]);
  }

  async list(organizationUuid: string): Promise<ApiKeyRecord[]> {
    const rows = await this.db.rows<KeyRow>(
      "SELECT * FROM api_keys WHERE organization_uuid = $1 ORDER BY created, id",
      [organizationUuid],
    );
    return rows.map(toKeyRecord);
  }

  async revoke(organizationUuid: string, id: string): Promise<ApiKeyRecord> {
    const row = await this.db.row<KeyRow>(
      "UPDATE api_keys SET revoked_at = coalesce(revoked_at, $1) WHERE id = $2 AND organization_uuid = $3 RETURNING *",
      [this.now(), id, organizationUuid],
    );
    if (!row) throw new NotFoundError(`API key ${id} not found in organization ${organizationUuid}.`);
    return toKeyRecord(row);
  }
}
