/** @module store/repositories/organizations Organizations and their API keys. */
import { createHash, randomBytes, randomUUID, timingSafeEqual } from "node:crypto";
import { NotFoundError } from "../../core/errors.js";
import type { Db } from "../database.js";
import type { ApiKeyRecord, OrganizationRecord } from "../records.js";

interface OrgRow {
  uuid: string;
  name: string;
  created: string;
  modified: string;
}

// The key row, its mapping to a record, key issuing and key checking are shared with the PostgreSQL repository
// (src/store/pg/repositories/organizations.ts): both engines store the same columns.

export interface KeyRow {
  id: string;
  organization_uuid: string;
  prefix: string;
  hash: string;
  label: string | null;
  created: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

const KEY_PREFIX = "lw";
export const ORG_COLUMNS = "uuid, name, created, modified";

export class OrganizationRepository {
  constructor(
    private readonly db: Db,
    private readonly now: () => string,
  ) {}

  create(name: string): OrganizationRecord {
    const t = this.now();
    const rec = { uuid: randomUUID(), name, created: t, modified: t };
    this.db
      .prepare(`INSERT INTO organizations (${ORG_COLUMNS}) VALUES (@uuid, @name, @created, @modified)`)
      .run(rec);
    return rec;
  }

  get(uuid: string): OrganizationRecord | undefined {
    return this.db.prepare("SELECT * FROM organizations WHERE uuid = ?").get(uuid) as OrgRow | undefined;
  }

  list(): OrganizationRecord[] {
    return this.db.prepare("SELECT * FROM organizations ORDER BY created, uuid").all() as OrgRow[];
  }

  rename(uuid: string, name: string): OrganizationRecord {
    const r = this.db
      .prepare("UPDATE organizations SET name = ?, modified = ? WHERE uuid = ?")
      .run(name, this.now(), uuid);
    if (r.changes === 0) throw new NotFoundError(`Organization ${uuid} not found.`);
    return this.get(uuid)!;
  }
}

/** SHA-256 of a key, hex. Keys carry 256 random bits, so a fast hash is enough (no dictionary to attack). */
function hashKey(key: string): string {
  return createHash("sha256").update(key, "utf8").digest("hex");
}

export function toKeyRecord(r: KeyRow): ApiKeyRecord {
  return {
    id: r.id,
    organizationUuid: r.organization_uuid,
    prefix: r.prefix,
    label: r.label,
    created: r.created,
    lastUsedAt: r.last_used_at,
    revokedAt: r.revoked_at,
  };
}

/** A new key of the organization: its row (holding only the key's hash) and the plaintext key. */
export function newApiKey(
  organizationUuid: string,
  label: string | null,
  created: string,
): { row: KeyRow; key: string } {
  const id = randomBytes(6).toString("hex");
  const key = `${KEY_PREFIX}_${id}_${randomBytes(32).toString("base64url")}`;
  const row: KeyRow = {
    id,
    organization_uuid: organizationUuid,
    prefix: key.slice(0, 15),
    hash: hashKey(key),
    label,
    created,
    last_used_at: null,
    revoked_at: null,
  };
  return { row, key };
}

/** The public id of a presented key, or undefined when the key is malformed. */
export function apiKeyId(presented: string): string | undefined {
  return /^lw_([0-9a-f]{12})_[A-Za-z0-9_-]{43}$/.exec(presented)?.[1];
}

/**
 * Who a presented key authenticates, given the row of its id (undefined when unknown): undefined for an unknown,
 * wrong or revoked key. The stored and presented hashes are compared with `timingSafeEqual`, also for an unknown
 * id, so unknown ids cost the same as wrong secrets.
 */
export function checkApiKey(
  presented: string,
  row: KeyRow | undefined,
): { organizationUuid: string; keyId: string } | undefined {
  const expected = Buffer.from(row?.hash ?? "0".repeat(64), "hex");
  const actual = Buffer.from(hashKey(presented), "hex");
  const same = timingSafeEqual(expected, actual);
  if (!row || !same || row.revoked_at !== null) return undefined;
  return { organizationUuid: row.organization_uuid, keyId: row.id };
}

/**
 * API keys: `lw_<id>_<secret>` where id is 12 hex characters (public, used to find the row) and secret is 32
 * random bytes in base64url (256 bits). Only the SHA-256 of the whole key is stored; the key is shown once.
 */
export class ApiKeyRepository {
  constructor(
    private readonly db: Db,
    private readonly now: () => string,
  ) {}

  /** Issue a new key for an organization. Returns the record and the plaintext key (never stored). */
  create(organizationUuid: string, label: string | null = null): { record: ApiKeyRecord; key: string } {
    const { row, key } = newApiKey(organizationUuid, label, this.now());
    this.db
      .prepare(
        "INSERT INTO api_keys (id, organization_uuid, prefix, hash, label, created) VALUES (@id, @organization_uuid, @prefix, @hash, @label, @created)",
      )
      .run(row);
    return { record: toKeyRecord(row), key };
  }

  /**
   * The organization a presented key belongs to, or undefined for an unknown, malformed or revoked key.
   * The stored and presented hashes are compared with `timingSafeEqual`.
   */
  authenticate(presented: string): { organizationUuid: string; keyId: string } | undefined {
    const id = apiKeyId(presented);
    const row =
      id === undefined
        ? undefined
        : (this.db.prepare("SELECT * FROM api_keys WHERE id = ?").get(id) as KeyRow | undefined);
    return checkApiKey(presented, row);
  }

  /** Record that a key was used (best effort; called by the server at most once a minute per key). */
  touch(id: string): void {
    this.db.prepare("UPDATE api_keys SET last_used_at = ? WHERE id = ?").run(this.now(), id);
  }

  list(organizationUuid: string): ApiKeyRecord[] {
    const rows = this.db
      .prepare("SELECT * FROM api_keys WHERE organization_uuid = ? ORDER BY created, id")
      .all(organizationUuid) as KeyRow[];
    return rows.map(toKeyRecord);
  }

  /** Revoke a key of the organization. @throws {NotFoundError} when the key is not the organization's. */
  revoke(organizationUuid: string, id: string): ApiKeyRecord {
    const r = this.db
      .prepare(
        "UPDATE api_keys SET revoked_at = coalesce(revoked_at, ?) WHERE id = ? AND organization_uuid = ?",
      )
      .run(this.now(), id, organizationUuid);
    if (r.changes === 0)
      throw new NotFoundError(`API key ${id} not found in organization ${organizationUuid}.`);
    return toKeyRecord(this.db.prepare("SELECT * FROM api_keys WHERE id = ?").get(id) as KeyRow);
  }
}
