/** @module store/pg/repositories/risk-models Uploaded risk models (PostgreSQL). */
import { randomUUID } from "node:crypto";
import { NotFoundError } from "../../../core/errors.js";
import type { Promised } from "../../lotwise-store.js";
import type { RiskModelInput, RiskModelKind, RiskModelRecord, StoredRiskModelRecord } from "../../records.js";
// Row shapes and their mapping to records are the SQLite repository's: the two engines return the same columns.
import {
  type FullRow,
  type RiskModelRepository,
  SUMMARY,
  type SummaryRow,
  toStored,
  toSummary,
} from "../../repositories/risk-models.js";
import type { PgDb } from "../pg-db.js";

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
