/** @module store/pg/repositories/themes Themes, their revisions and evaluated constituent snapshots (PostgreSQL). */
import { randomUUID } from "node:crypto";
import { NotFoundError } from "../../../core/errors.js";
import type { Promised } from "../../lotwise-store.js";
import type { ThemeRecord, ThemeRevisionRecord, ThemeSnapshotRecord } from "../../records.js";
// Revision and snapshot rows, their columns, mappings and the snapshot upsert are the SQLite repository's.
import {
  newSnapshotRow,
  type RevisionRow,
  SNAPSHOT_COLUMNS,
  SNAPSHOT_UPSERT,
  type SnapshotRow,
  type ThemeRepository,
  toRevision,
  toSnapshot,
} from "../../repositories/themes.js";
import { type PgDb, sqlNumber } from "../pg-db.js";

const THEME_COLUMNS = `uuid, organization_uuid AS "organizationUuid", name, created, modified`;

export class PgThemeRepository implements Promised<ThemeRepository> {
  constructor(
    private readonly db: PgDb,
    private readonly now: () => string,
  ) {}

  async create(
    organizationUuid: string,
    name: string,
    methodology: Record<string, unknown>,
  ): Promise<{ theme: ThemeRecord; revision: ThemeRevisionRecord }> {
    const t = this.now();
    const theme: ThemeRecord = { uuid: randomUUID(), organizationUuid, name, created: t, modified: t };
    return this.db.transaction(async () => {
      await this.db.run(
        "INSERT INTO themes (uuid, organization_uuid, name, created, modified) VALUES ($1, $2, $3, $4, $5)",
        [theme.uuid, organizationUuid, name, t, t],
      );
      const revision = await this.insertRevision(theme.uuid, t, methodology);
      return { theme, revision };
    });
  }

  private async insertRevision(
    themeUuid: string,
    at: string,
    methodology: Record<string, unknown>,
  ): Promise<ThemeRevisionRecord> {
    // Revisions are identified by their timestamp; two saves within the same millisecond get distinct ones.
    let revision = at;
    while (
      (await this.db.value("SELECT 1 FROM theme_revisions WHERE theme_uuid = $1 AND revision = $2", [
        themeUuid,
        revision,
      ])) !== undefined
    )
      revision = new Date(Date.parse(revision) + 1).toISOString();
    const row: RevisionRow = {
      theme_uuid: themeUuid,
      revision,
      methodology: JSON.stringify(methodology),
      published_at: at,
    };
    await this.db.run(
      "INSERT INTO theme_revisions (theme_uuid, revision, methodology, published_at) VALUES ($1, $2, $3, $4)",
      [row.theme_uuid, row.revision, row.methodology, row.published_at],
    );
    return toRevision(row);
  }

  async revise(
    organizationUuid: string,
    uuid: string,
    name: string,
    methodology: Record<string, unknown>,
  ): Promise<ThemeRevisionRecord> {
    return this.db.transaction(async () => {
      await this.require(organizationUuid, uuid);
      // Revisions of one theme take turns (SQLite has one writer): two saves in the same millisecond get distinct ids.
      await this.db.run("SELECT 1 FROM themes WHERE uuid = $1 FOR NO KEY UPDATE", [uuid]);
      const t = this.now();
      await this.db.run("UPDATE themes SET name = $1, modified = $2 WHERE uuid = $3", [name, t, uuid]);
      return this.insertRevision(uuid, t, methodology);
    });
  }

  async get(organizationUuid: string, uuid: string): Promise<ThemeRecord | undefined> {
    return this.db.row<ThemeRecord>(
      `SELECT ${THEME_COLUMNS} FROM themes WHERE uuid = $1 AND organization_uuid = $2`,
      [uuid, organizationUuid],
    );
  }

  async require(organizationUuid: string, uuid: string): Promise<ThemeRecord> {
    const t = await this.get(organizationUuid, uuid);
    if (!t) throw new NotFoundError(`Theme ${uuid} not found.`, "theme_not_found");
    return t;
  }

  async list(organizationUuid: string): Promise<ThemeRecord[]> {
    return this.db.rows<ThemeRecord>(
      `SELECT ${THEME_COLUMNS} FROM themes WHERE organization_uuid = $1 ORDER BY created, uuid`,
      [organizationUuid],
    );
  }

  async latestRevision(themeUuid: string): Promise<ThemeRevisionRecord | undefined> {
    const r = await this.db.row<RevisionRow>(
      "SELECT * FROM theme_revisions WHERE theme_uuid = $1 ORDER BY revision DESC LIMIT 1",
      [themeUuid],
    );
    return r && toRevision(r);
  }

  async revisions(themeUuid: string): Promise<ThemeRevisionRecord[]> {
    const rows = await this.db.rows<RevisionRow>(
      "SELECT * FROM theme_revisions WHERE theme_uuid = $1 ORDER BY revision",
      [themeUuid],
    );
    return rows.map(toRevision);
  }

  async saveSnapshot(snapshot: Omit<ThemeSnapshotRecord, "created">): Promise<ThemeSnapshotRecord> {
    const row = newSnapshotRow(snapshot, this.now());
    await this.db.run(
      `INSERT INTO theme_snapshots (${SNAPSHOT_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6)
       ${SNAPSHOT_UPSERT}`,
      [
        row.theme_uuid,
        row.revision,
        row.as_of_date,
        sqlNumber(row.total_weight),
        row.constituents,
        row.created,
      ],
    );
    return toSnapshot(row);
  }

  async latestSnapshot(themeUuid: string, revision: string): Promise<ThemeSnapshotRecord | undefined> {
    const r = await this.db.row<SnapshotRow>(
      `SELECT ${SNAPSHOT_COLUMNS} FROM theme_snapshots WHERE theme_uuid = $1 AND revision = $2
       ORDER BY as_of_date DESC LIMIT 1`,
      [themeUuid, revision],
    );
    return r && toSnapshot(r);
  }

  async snapshotDates(themeUuid: string, revision: string): Promise<string[]> {
    return this.db.column<string>(
      "SELECT as_of_date FROM theme_snapshots WHERE theme_uuid = $1 AND revision = $2 ORDER BY as_of_date",
      [themeUuid, revision],
    );
  }

  async snapshot(
    themeUuid: string,
    revision: string,
    asOfDate: string,
  ): Promise<ThemeSnapshotRecord | undefined> {
    const r = await this.db.row<SnapshotRow>(
      `SELECT ${SNAPSHOT_COLUMNS} FROM theme_snapshots WHERE theme_uuid = $1 AND revision = $2 AND as_of_date = $3`,
      [themeUuid, revision, asOfDate],
    );
    return r && toSnapshot(r);
  }
}
