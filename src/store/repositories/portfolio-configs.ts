/** @module store/repositories/portfolio-configs Portfolio configurations and asset classes (sleeves). */
import { randomUUID } from "node:crypto";
import { NotFoundError } from "../../core/errors.js";
import type { Db } from "../database.js";
import type { AssetClassRecord, PortfolioConfigRecord } from "../records.js";

// Row shapes, column lists, new rows, the mappings to records and the not-found errors are shared with the PostgreSQL
// repository (src/store/pg/repositories/portfolio-configs.ts): both engines store and return the same columns.

export interface ConfigRow {
  uuid: string;
  organization_uuid: string;
  name: string;
  status: string;
  document: string;
  created: string;
  modified: string;
}

export const CONFIG_COLUMNS = "uuid, organization_uuid, name, status, document, created, modified";

/** The row of a new configuration created at `t`. */
export const newConfigRow = (
  organizationUuid: string,
  name: string,
  status: string,
  document: Record<string, unknown>,
  t: string,
): ConfigRow => ({
  uuid: randomUUID(),
  organization_uuid: organizationUuid,
  name,
  status,
  document: JSON.stringify(document),
  created: t,
  modified: t,
});

export const configNotFound = (uuid: string) =>
  new NotFoundError(`Portfolio configuration ${uuid} not found.`, "portfolio_config_not_found");

export const toConfig = (r: ConfigRow): PortfolioConfigRecord => ({
  uuid: r.uuid,
  organizationUuid: r.organization_uuid,
  name: r.name,
  status: r.status,
  document: JSON.parse(r.document) as Record<string, unknown>,
  created: r.created,
  modified: r.modified,
});

export class PortfolioConfigRepository {
  constructor(
    private readonly db: Db,
    private readonly now: () => string,
  ) {}

  create(
    organizationUuid: string,
    name: string,
    status: string,
    document: Record<string, unknown>,
  ): PortfolioConfigRecord {
    const row = newConfigRow(organizationUuid, name, status, document, this.now());
    this.db
      .prepare(
        `INSERT INTO portfolio_configs (${CONFIG_COLUMNS}) VALUES (@uuid, @organization_uuid, @name, @status, @document, @created, @modified)`,
      )
      .run(row);
    return toConfig(row);
  }

  get(organizationUuid: string, uuid: string): PortfolioConfigRecord | undefined {
    const r = this.db
      .prepare("SELECT * FROM portfolio_configs WHERE uuid = ? AND organization_uuid = ?")
      .get(uuid, organizationUuid) as ConfigRow | undefined;
    return r && toConfig(r);
  }

  /** @throws {NotFoundError} */
  require(organizationUuid: string, uuid: string): PortfolioConfigRecord {
    const c = this.get(organizationUuid, uuid);
    if (!c) throw configNotFound(uuid);
    return c;
  }

  list(organizationUuid: string): PortfolioConfigRecord[] {
    const rows = this.db
      .prepare("SELECT * FROM portfolio_configs WHERE organization_uuid = ? ORDER BY created, uuid")
      .all(organizationUuid) as ConfigRow[];
    return rows.map(toConfig);
  }

  /** Replace name, status and document of a configuration (the service merges a PATCH before calling this). */
  update(
    organizationUuid: string,
    uuid: string,
    next: { name: string; status: string; document: Record<string, unknown> },
  ): PortfolioConfigRecord {
    const r = this.db
      .prepare(
        "UPDATE portfolio_configs SET name = ?, status = ?, document = ?, modified = ? WHERE uuid = ? AND organization_uuid = ?",
      )
      .run(next.name, next.status, JSON.stringify(next.document), this.now(), uuid, organizationUuid);
    if (r.changes === 0) throw configNotFound(uuid);
    return this.require(organizationUuid, uuid);
  }
}

export interface AssetClassRow {
  uuid: string;
  organization_uuid: string;
  name: string;
  document: string;
  archived_at: string | null;
  created: string;
  modified: string;
}

export const CLASS_COLUMNS = "uuid, organization_uuid, name, document, archived_at, created, modified";

/** The row of a new (not archived) asset class created at `t`. */
export const newAssetClassRow = (
  organizationUuid: string,
  name: string,
  document: Record<string, unknown>,
  t: string,
): AssetClassRow => ({
  uuid: randomUUID(),
  organization_uuid: organizationUuid,
  name,
  document: JSON.stringify(document),
  archived_at: null,
  created: t,
  modified: t,
});

export const classNotFound = (uuid: string) =>
  new NotFoundError(`Asset class ${uuid} not found.`, "asset_class_not_found");

export const toAssetClass = (r: AssetClassRow): AssetClassRecord => ({
  uuid: r.uuid,
  organizationUuid: r.organization_uuid,
  name: r.name,
  document: JSON.parse(r.document) as Record<string, unknown>,
  archivedAt: r.archived_at,
  created: r.created,
  modified: r.modified,
});

export class AssetClassRepository {
  constructor(
    private readonly db: Db,
    private readonly now: () => string,
  ) {}

  create(organizationUuid: string, name: string, document: Record<string, unknown>): AssetClassRecord {
    const row = newAssetClassRow(organizationUuid, name, document, this.now());
    this.db
      .prepare(
        `INSERT INTO asset_classes (${CLASS_COLUMNS}) VALUES (@uuid, @organization_uuid, @name, @document, @archived_at, @created, @modified)`,
      )
      .run(row);
    return toAssetClass(row);
  }

  /** The asset class, archived or not (archived sleeves stay resolvable by existing references). */
  get(organizationUuid: string, uuid: string): AssetClassRecord | undefined {
    const r = this.db
      .prepare("SELECT * FROM asset_classes WHERE uuid = ? AND organization_uuid = ?")
      .get(uuid, organizationUuid) as AssetClassRow | undefined;
    return r && toAssetClass(r);
  }

  /** @throws {NotFoundError} */
  require(organizationUuid: string, uuid: string): AssetClassRecord {
    const c = this.get(organizationUuid, uuid);
    if (!c) throw classNotFound(uuid);
    return c;
  }

  list(organizationUuid: string, options: { includeArchived?: boolean } = {}): AssetClassRecord[] {
    const rows = this.db
      .prepare(
        `SELECT * FROM asset_classes WHERE organization_uuid = ? ${options.includeArchived ? "" : "AND archived_at IS NULL"} ORDER BY created, uuid`,
      )
      .all(organizationUuid) as AssetClassRow[];
    return rows.map(toAssetClass);
  }

  update(
    organizationUuid: string,
    uuid: string,
    next: { name: string; document: Record<string, unknown> },
  ): AssetClassRecord {
    const r = this.db
      .prepare(
        "UPDATE asset_classes SET name = ?, document = ?, modified = ? WHERE uuid = ? AND organization_uuid = ?",
      )
      .run(next.name, JSON.stringify(next.document), this.now(), uuid, organizationUuid);
    if (r.changes === 0) throw classNotFound(uuid);
    return this.require(organizationUuid, uuid);
  }

  /** Archive a sleeve: it stays readable and keeps existing assignments but cannot be newly assigned. */
  archive(organizationUuid: string, uuid: string): AssetClassRecord {
    const t = this.now();
    const r = this.db
      .prepare(
        "UPDATE asset_classes SET archived_at = coalesce(archived_at, ?), modified = ? WHERE uuid = ? AND organization_uuid = ?",
      )
      .run(t, t, uuid, organizationUuid);
    if (r.changes === 0) throw classNotFound(uuid);
    return this.require(organizationUuid, uuid);
  }
}
