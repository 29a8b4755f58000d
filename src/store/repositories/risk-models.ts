/**
 * @module store/repositories/risk-models
 * Uploaded risk models (custom and vendor), each dated and scoped to one organization. Lists and summaries read
 * only the small columns; the document (the model's matrices) is parsed only when a model is read whole.
 */
import { randomUUID } from "node:crypto";
import { NotFoundError } from "../../core/errors.js";
import type { Db } from "../database.js";
import type { RiskModelInput, RiskModelKind, RiskModelRecord, StoredRiskModelRecord } from "../records.js";

/** Columns of a summary (every column but the document). */
export const SUMMARY =
  "uuid, organization_uuid, kind, name, as_of_date, asset_count, factor_count, warnings, created";

export interface SummaryRow {
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

export interface FullRow extends SummaryRow {
  document: string;
}

export const toSummary = (r: SummaryRow): RiskModelRecord => ({
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

export const toStored = (r: FullRow): StoredRiskModelRecord => ({
  ...toSummary(r),
  document: JSON.parse(r.document) as unknown,
});

export class RiskModelRepository {
  constructor(
    private readonly db: Db,
    private readonly now: () => string,
  ) {}

  /** Store a model; returns its summary. */
  create(organizationUuid: string, input: RiskModelInput): RiskModelRecord {
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
    this.db
      .prepare(
        `INSERT INTO risk_models (${SUMMARY}, document) VALUES (@uuid, @organization_uuid, @kind, @name, @as_of_date, @asset_count, @factor_count, @warnings, @created, @document)`,
      )
      .run(row);
    return toSummary(row);
  }

  /** Summaries of the organization's models (of one kind when given), by as-of date then upload order. */
  list(organizationUuid: string, kind?: RiskModelKind): RiskModelRecord[] {
    const rows = (
      kind === undefined
        ? this.db
            .prepare(
              `SELECT ${SUMMARY} FROM risk_models WHERE organization_uuid = ? ORDER BY as_of_date, created, rowid`,
            )
            .all(organizationUuid)
        : this.db
            .prepare(
              `SELECT ${SUMMARY} FROM risk_models WHERE organization_uuid = ? AND kind = ? ORDER BY as_of_date, created, rowid`,
            )
            .all(organizationUuid, kind)
    ) as SummaryRow[];
    return rows.map(toSummary);
  }

  /** A model with its document, or undefined (also for another organization's model). */
  get(organizationUuid: string, uuid: string): StoredRiskModelRecord | undefined {
    const r = this.db
      .prepare("SELECT * FROM risk_models WHERE uuid = ? AND organization_uuid = ?")
      .get(uuid, organizationUuid) as FullRow | undefined;
    return r && toStored(r);
  }

  /** @throws {NotFoundError} `risk_model_not_found` */
  require(organizationUuid: string, uuid: string): StoredRiskModelRecord {
    const m = this.get(organizationUuid, uuid);
    if (!m) throw new NotFoundError(`Risk model ${uuid} not found.`, "risk_model_not_found");
    return m;
  }

  /** @throws {NotFoundError} `risk_model_not_found` */
  delete(organizationUuid: string, uuid: string): void {
    const r = this.db
      .prepare("DELETE FROM risk_models WHERE uuid = ? AND organization_uuid = ?")
      .run(uuid, organizationUuid);
    if (r.changes === 0) throw new NotFoundError(`Risk model ${uuid} not found.`, "risk_model_not_found");
  }

  /**
   * The newest model of `kind` dated on or before `date` (point in time: never a model dated later), with its
   * document; among models of the same date, the last uploaded. Undefined when there is none.
   */
  latestAsOf(organizationUuid: string, kind: RiskModelKind, date: string): StoredRiskModelRecord | undefined {
    const r = this.db
      .prepare(
        "SELECT * FROM risk_models WHERE organization_uuid = ? AND kind = ? AND as_of_date <= ? ORDER BY as_of_date DESC, created DESC, rowid DESC LIMIT 1",
      )
      .get(organizationUuid, kind, date) as FullRow | undefined;
    return r && toStored(r);
  }
}
