/** @module store/repositories/portfolio-configs Portfolio configurations and asset classes (sleeves). */
import { randomUUID } from "node:crypto";
import { NotFoundError } from "../../core/errors.js";
import type { Db } from "../database.js";
import type { AssetClassRecord, PortfolioConfigRecord } from "../records.js";

interface ConfigRow {
  uuid: string;
  organization_uuid: string;
  name: string;
  status: string;
  document: string;
  created: string;
  modified: string;
}

const toConfig = (r: ConfigRow): PortfolioConfigRecord => ({
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
    const t = this.now();
    const row: ConfigRow = {
      uuid: randomUUID(),
      organization_uuid: organizationUuid,
      name,
      status,
      document: JSON.stringify(document),
      created: t,
      modified: t,
    };
    this.db
      .prepare(
        "INSERT INTO portfolio_configs (uuid, organization_uuid, name, status, document, created, modified) VALUES (@uuid, @organization_uuid, @name, @status, @document, @created, @modified)",
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
    if (!c)
      throw new NotFoundError(`Portfolio configuration ${uuid} not found.`, "portfolio_config_not_found");
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
    if (r.changes === 0)
      throw new NotFoundError(`Portfolio configuration ${uuid} not found.`, "portfolio_config_not_found");
    return this.require(organizationUuid, uuid);
  }
}

interface AssetClassRow {
  uuid: string;
  organization_uuid: string;
  name: string;
  document: string;
  archived_at: string | null;
  created: string;
  modified: string;
}

const toAssetClass = (r: AssetClassRow): AssetClassRecord => ({
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
    const t = this.now();
    const row: AssetClassRow = {
      uuid: randomUUID(),
      organization_uuid: organizationUuid,
      name,
      document: JSON.stringify(document),
      archived_at: null,
      created: t,
      modified: t,
    };
    this.db
      .prepare(
        "INSERT INTO asset_classes (uuid, organization_uuid, name, document, archived_at, created, modified) VALUES (@uuid, @organization_uuid, @name, @document, @archived_at, @created, @modified)",
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
    if (!c) throw new NotFoundError(`Asset class ${uuid} not found.`, "asset_class_not_found");
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
    if (r.changes === 0) throw new NotFoundError(`Asset class ${uuid} not found.`, "asset_class_not_found");
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
    if (r.changes === 0) throw new NotFoundError(`Asset class ${uuid} not found.`, "asset_class_not_found");
    return this.require(organizationUuid, uuid);
  }
}
