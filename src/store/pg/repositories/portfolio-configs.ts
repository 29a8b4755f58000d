/** @module store/pg/repositories/portfolio-configs Portfolio configurations and asset classes (PostgreSQL). */
import type { Promised } from "../../lotwise-store.js";
import type { AssetClassRecord, PortfolioConfigRecord } from "../../records.js";
// Row shapes, columns, new rows, mappings and not-found errors are the SQLite repository's (same columns and types).
import {
  type AssetClassRepository,
  type AssetClassRow,
  CLASS_COLUMNS,
  CONFIG_COLUMNS,
  type ConfigRow,
  classNotFound,
  configNotFound,
  newAssetClassRow,
  newConfigRow,
  type PortfolioConfigRepository,
  toAssetClass,
  toConfig,
} from "../../repositories/portfolio-configs.js";
import type { PgDb } from "../pg-db.js";

export class PgPortfolioConfigRepository implements Promised<PortfolioConfigRepository> {
  constructor(
    private readonly db: PgDb,
    private readonly now: () => string,
  ) {}

  async create(
    organizationUuid: string,
    name: string,
    status: string,
    document: Record<string, unknown>,
  ): Promise<PortfolioConfigRecord> {
    const row = newConfigRow(organizationUuid, name, status, document, this.now());
    await this.db.run(
      `INSERT INTO portfolio_configs (${CONFIG_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      [row.uuid, row.organization_uuid, row.name, row.status, row.document, row.created, row.modified],
    );
    return toConfig(row);
  }

  async get(organizationUuid: string, uuid: string): Promise<PortfolioConfigRecord | undefined> {
    const r = await this.db.row<ConfigRow>(
      `SELECT ${CONFIG_COLUMNS} FROM portfolio_configs WHERE uuid = $1 AND organization_uuid = $2`,
      [uuid, organizationUuid],
    );
    return r && toConfig(r);
  }

  async require(organizationUuid: string, uuid: string): Promise<PortfolioConfigRecord> {
    const c = await this.get(organizationUuid, uuid);
    if (!c) throw configNotFound(uuid);
    return c;
  }

  async list(organizationUuid: string): Promise<PortfolioConfigRecord[]> {
    const rows = await this.db.rows<ConfigRow>(
      `SELECT ${CONFIG_COLUMNS} FROM portfolio_configs WHERE organization_uuid = $1 ORDER BY created, uuid`,
      [organizationUuid],
    );
    return rows.map(toConfig);
  }

  async update(
    organizationUuid: string,
    uuid: string,
    next: { name: string; status: string; document: Record<string, unknown> },
  ): Promise<PortfolioConfigRecord> {
    const r = await this.db.row<ConfigRow>(
      `UPDATE portfolio_configs SET name = $1, status = $2, document = $3, modified = $4
       WHERE uuid = $5 AND organization_uuid = $6 RETURNING ${CONFIG_COLUMNS}`,
      [next.name, next.status, JSON.stringify(next.document), this.now(), uuid, organizationUuid],
    );
    if (!r) throw configNotFound(uuid);
    return toConfig(r);
  }
}

export class PgAssetClassRepository implements Promised<AssetClassRepository> {
  constructor(
    private readonly db: PgDb,
    private readonly now: () => string,
  ) {}

  async create(
    organizationUuid: string,
    name: string,
    document: Record<string, unknown>,
  ): Promise<AssetClassRecord> {
    const row = newAssetClassRow(organizationUuid, name, document, this.now());
    await this.db.run(`INSERT INTO asset_classes (${CLASS_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7)`, [
      row.uuid,
      row.organization_uuid,
      row.name,
      row.document,
      row.archived_at,
      row.created,
      row.modified,
    ]);
    return toAssetClass(row);
  }

  async get(organizationUuid: string, uuid: string): Promise<AssetClassRecord | undefined> {
    const r = await this.db.row<AssetClassRow>(
      `SELECT ${CLASS_COLUMNS} FROM asset_classes WHERE uuid = $1 AND organization_uuid = $2`,
      [uuid, organizationUuid],
    );
    return r && toAssetClass(r);
  }

  async require(organizationUuid: string, uuid: string): Promise<AssetClassRecord> {
    const c = await this.get(organizationUuid, uuid);
    if (!c) throw classNotFound(uuid);
    return c;
  }

  async list(
    organizationUuid: string,
    options: { includeArchived?: boolean } = {},
  ): Promise<AssetClassRecord[]> {
    const rows = await this.db.rows<AssetClassRow>(
      `SELECT ${CLASS_COLUMNS} FROM asset_classes WHERE organization_uuid = $1
       ${options.includeArchived ? "" : "AND archived_at IS NULL"} ORDER BY created, uuid`,
      [organizationUuid],
    );
    return rows.map(toAssetClass);
  }

  async update(
    organizationUuid: string,
    uuid: string,
    next: { name: string; document: Record<string, unknown> },
  ): Promise<AssetClassRecord> {
    const r = await this.db.row<AssetClassRow>(
      `UPDATE asset_classes SET name = $1, document = $2, modified = $3 WHERE uuid = $4 AND organization_uuid = $5
       RETURNING ${CLASS_COLUMNS}`,
      [next.name, JSON.stringify(next.document), this.now(), uuid, organizationUuid],
    );
    if (!r) throw classNotFound(uuid);
    return toAssetClass(r);
  }

  async archive(organizationUuid: string, uuid: string): Promise<AssetClassRecord> {
    const t = this.now();
    const r = await this.db.row<AssetClassRow>(
      `UPDATE asset_classes SET archived_at = coalesce(archived_at, $1), modified = $1
       WHERE uuid = $2 AND organization_uuid = $3 RETURNING ${CLASS_COLUMNS}`,
      [t, uuid, organizationUuid],
    );
    if (!r) throw classNotFound(uuid);
    return toAssetClass(r);
  }
}
