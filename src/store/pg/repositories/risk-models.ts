/** @module store/pg/repositories/risk-models Uploaded risk models (PostgreSQL). */
import { randomUUID } from "node:crypto";
import { NotFoundError } from "../../../core/errors.js";
import type { Promised } from "../../lotwise-store.js";
import type { RiskModelInput, RiskModelKind, RiskModelRecord, StoredRiskModelRecord } from "../../records.js";
import type { RiskModelRepository } from "../../repositories/risk-models.js";
import type { PgDb } from "../pg-db.js";

const SUMMARY =
  "uuid, organization_uuid, kind, name, as_of_date, asset_count, factor_count, warnings, created";

interface SummaryRow {
  uuid: string;
  organization_uuid: string;
  kind: RiskModelKind;
  name: string;
  as_of_date: string;
  asset_count: number;
  factor_count: number;
  warnings: string;
  created: string;
}

interface FullRow extends SummaryRow {
  document: string;
}

const toSummary = (r: SummaryRow): RiskModelRecord => ({
  uuid: r.uuid,
  organizationUuid: r.organization_uuid,
  kind: r.kind,
  name: r.name,
  asOfDate: r.as_of_date,
  assetCount: r.asset_count,
  factorCount: r.factor_count,
  warnings: JSON.parse(r.warnings) as string[],
  created: r.created,
});

const toStored = (r: FullRow): StoredRiskModelRecord => ({
  ...toSummary(r),
  document: JSON.parse(r.document) as unknown,
});

const notFound = (uuid: string) => new NotFoundError(`Risk model ${uuid} not found.`, "risk_model_not_found");

export class PgRiskModelRepository implements Promised<RiskModelRepository> {
  constructor(
    private readonly db: PgDb,
    private readonly now: () => string,
  ) {}

  async create(organizationUuid: string, input: RiskModelInput): Promise<RiskModelRecord> {
    const row: FullRow = {
      uuid: randomUUID(),
      organization_uuid: organizationUuid,
      kind: input.kind,
      name: input.name,
      as_of_date: input.asOfDate,
      asset_count: input.assetCount,
      factor_count: input.factorCount,
      warnings: JSON.stringify(input.warnings),
      document: JSON.stringify(input.document),
      created: this.now(),
    };
    await this.db.run(
      `INSERT INTO risk_models (${SUMMARY}, document) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
      [
        row.uuid,
        row.organization_uuid,
        row.kind,
        row.name,
        row.as_of_date,
        row.asset_count,
        row.factor_count,
        row.warnings,
        row.created,
        row.document,
      ],
    );
    return toSummary(row);
  }

  async list(organizationUuid: string, kind?: RiskModelKind): Promise<RiskModelRecord[]> {
    const rows = await this.db.rows<SummaryRow>(
      `SELECT ${SUMMARY} FROM risk_models WHERE organization_uuid = $1 AND ($2::text IS NULL OR kind = $2)
       ORDER BY as_of_date, created, seq`,
      [organizationUuid, kind ?? null],
    );
    return rows.map(toSummary);
  }

  async get(organizationUuid: string, uuid: string): Promise<StoredRiskModelRecord | undefined> {
    const r = await this.db.row<FullRow>(
      `SELECT ${SUMMARY}, document FROM risk_models WHERE uuid = $1 AND organization_uuid = $2`,
      [uuid, organizationUuid],
    );
    return r && toStored(r);
  }

  async require(organizationUuid: string, uuid: string): Promise<StoredRiskModelRecord> {
    const m = await this.get(organizationUuid, uuid);
    if (!m) throw notFound(uuid);
    return m;
  }

  async delete(organizationUuid: string, uuid: string): Promise<void> {
    const n = await this.db.run("DELETE FROM risk_models WHERE uuid = $1 AND organization_uuid = $2", [
      uuid,
      organizationUuid,
    ]);
    if (n === 0) throw notFound(uuid);
  }

  async latestAsOf(
    organizationUuid: string,
    kind: RiskModelKind,
    date: string,
  ): Promise<StoredRiskModelRecord | undefined> {
    const r = await this.db.row<FullRow>(
      `SELECT ${SUMMARY}, document FROM risk_models WHERE organization_uuid = $1 AND kind = $2 AND as_of_date <= $3
       ORDER BY as_of_date DESC, created DESC, seq DESC LIMIT 1`,
      [organizationUuid, kind, date],
    );
    return r && toStored(r);
  }
}
