/** @module store/repositories/themes Themes, their revisions and evaluated constituent snapshots. */
import { randomUUID } from "node:crypto";
import { NotFoundError } from "../../core/errors.js";
import type { Db } from "../database.js";
import type { ThemeRecord, ThemeRevisionRecord, ThemeSnapshotRecord } from "../records.js";

interface ThemeRow {
  uuid: string;
  organization_uuid: string;
  name: string;
  created: string;
  modified: string;
}

// Revision and snapshot rows, their columns and mappings, and the snapshot upsert are shared with the PostgreSQL
// repository (src/store/pg/repositories/themes.ts): both engines store the same columns.

export interface RevisionRow {
  theme_uuid: string;
  revision: string;
  methodology: string;
  published_at: string | null;
}

export interface SnapshotRow {
  theme_uuid: string;
  revision: string;
  as_of_date: string;
  total_weight: number;
  constituents: string;
  created: string;
}

const toTheme = (r: ThemeRow): ThemeRecord => ({
  uuid: r.uuid,
  organizationUuid: r.organization_uuid,
  name: r.name,
  created: r.created,
  modified: r.modified,
});

export const toRevision = (r: RevisionRow): ThemeRevisionRecord => ({
  themeUuid: r.theme_uuid,
  revision: r.revision,
  methodology: JSON.parse(r.methodology) as Record<string, unknown>,
  publishedAt: r.published_at,
});

export const SNAPSHOT_COLUMNS = "theme_uuid, revision, as_of_date, total_weight, constituents, created";

/** What saving a snapshot that exists already (theme, revision, date) replaces. */
export const SNAPSHOT_UPSERT = `ON CONFLICT (theme_uuid, revision, as_of_date) DO UPDATE SET total_weight = excluded.total_weight,
  constituents = excluded.constituents, created = excluded.created`;

/** The row of a snapshot saved at `created`. */
export const newSnapshotRow = (
  snapshot: Omit<ThemeSnapshotRecord, "created">,
  created: string,
): SnapshotRow => ({
  theme_uuid: snapshot.themeUuid,
  revision: snapshot.revision,
  as_of_date: snapshot.asOfDate,
  total_weight: snapshot.totalWeight,
  constituents: JSON.stringify(snapshot.constituents),
  created,
});

export const toSnapshot = (r: SnapshotRow): ThemeSnapshotRecord => ({
  themeUuid: r.theme_uuid,
  revision: r.revision,
  asOfDate: r.as_of_date,
  totalWeight: r.total_weight,
  constituents: JSON.parse(r.constituents) as unknown[],
  created: r.created,
});

export class ThemeRepository {
  constructor(
    private readonly db: Db,
    private readonly now: () => string,
  ) {}

  /** Create a theme with its first revision. */
  create(
    organizationUuid: string,
    name: string,
    methodology: Record<string, unknown>,
  ): { theme: ThemeRecord; revision: ThemeRevisionRecord } {
    const t = this.now();
    const theme: ThemeRow = {
      uuid: randomUUID(),
      organization_uuid: organizationUuid,
      name,
      created: t,
      modified: t,
    };
    this.db
      .prepare(
        "INSERT INTO themes (uuid, organization_uuid, name, created, modified) VALUES (@uuid, @organization_uuid, @name, @created, @modified)",
      )
      .run(theme);
    const revision = this.insertRevision(theme.uuid, t, methodology);
    return { theme: toTheme(theme), revision };
  }

  private insertRevision(
    themeUuid: string,
    at: string,
    methodology: Record<string, unknown>,
  ): ThemeRevisionRecord {
    // Revisions are identified by their timestamp; two saves within the same millisecond get distinct ones.
    let revision = at;
    const exists = this.db.prepare("SELECT 1 FROM theme_revisions WHERE theme_uuid = ? AND revision = ?");
    while (exists.get(themeUuid, revision)) revision = new Date(Date.parse(revision) + 1).toISOString();
    const row: RevisionRow = {
      theme_uuid: themeUuid,
      revision,
      methodology: JSON.stringify(methodology),
      published_at: at,
    };
    this.db
      .prepare(
        "INSERT INTO theme_revisions (theme_uuid, revision, methodology, published_at) VALUES (@theme_uuid, @revision, @methodology, @published_at)",
      )
      .run(row);
    return toRevision(row);
  }

  /** Save a new revision (the latest one is the theme's current methodology). */
  revise(
    organizationUuid: string,
    uuid: string,
    name: string,
    methodology: Record<string, unknown>,
  ): ThemeRevisionRecord {
    this.require(organizationUuid, uuid);
    const t = this.now();
    this.db.prepare("UPDATE themes SET name = ?, modified = ? WHERE uuid = ?").run(name, t, uuid);
    return this.insertRevision(uuid, t, methodology);
  }

  get(organizationUuid: string, uuid: string): ThemeRecord | undefined {
    const r = this.db
      .prepare("SELECT * FROM themes WHERE uuid = ? AND organization_uuid = ?")
      .get(uuid, organizationUuid) as ThemeRow | undefined;
    return r && toTheme(r);
  }

  /** @throws {NotFoundError} */
  require(organizationUuid: string, uuid: string): ThemeRecord {
    const t = this.get(organizationUuid, uuid);
    if (!t) throw new NotFoundError(`Theme ${uuid} not found.`, "theme_not_found");
    return t;
  }

  list(organizationUuid: string): ThemeRecord[] {
    const rows = this.db
      .prepare("SELECT * FROM themes WHERE organization_uuid = ? ORDER BY created, uuid")
      .all(organizationUuid) as ThemeRow[];
    return rows.map(toTheme);
  }

  latestRevision(themeUuid: string): ThemeRevisionRecord | undefined {
    const r = this.db
      .prepare("SELECT * FROM theme_revisions WHERE theme_uuid = ? ORDER BY revision DESC LIMIT 1")
      .get(themeUuid) as RevisionRow | undefined;
    return r && toRevision(r);
  }

  revisions(themeUuid: string): ThemeRevisionRecord[] {
    const rows = this.db
      .prepare("SELECT * FROM theme_revisions WHERE theme_uuid = ? ORDER BY revision")
      .all(themeUuid) as RevisionRow[];
    return rows.map(toRevision);
  }

  /** Store (or replace) the snapshot of a revision as of a date. */
  saveSnapshot(snapshot: Omit<ThemeSnapshotRecord, "created">): ThemeSnapshotRecord {
    const row = newSnapshotRow(snapshot, this.now());
    this.db
      .prepare(
        `INSERT INTO theme_snapshots (${SNAPSHOT_COLUMNS})
         VALUES (@theme_uuid, @revision, @as_of_date, @total_weight, @constituents, @created)
         ${SNAPSHOT_UPSERT}`,
      )
      .run(row);
    return toSnapshot(row);
  }

  /** The latest snapshot (by as-of date) of a revision, or undefined when it was never evaluated. */
  latestSnapshot(themeUuid: string, revision: string): ThemeSnapshotRecord | undefined {
    const r = this.db
      .prepare(
        "SELECT * FROM theme_snapshots WHERE theme_uuid = ? AND revision = ? ORDER BY as_of_date DESC LIMIT 1",
      )
      .get(themeUuid, revision) as SnapshotRow | undefined;
    return r && toSnapshot(r);
  }

  /** The as-of dates of a revision's snapshots, ascending (empty when it was never evaluated). */
  snapshotDates(themeUuid: string, revision: string): string[] {
    const rows = this.db
      .prepare(
        "SELECT as_of_date FROM theme_snapshots WHERE theme_uuid = ? AND revision = ? ORDER BY as_of_date",
      )
      .all(themeUuid, revision) as { as_of_date: string }[];
    return rows.map((r) => r.as_of_date);
  }

  /** The snapshot of a revision as of a date, or undefined. */
  snapshot(themeUuid: string, revision: string, asOfDate: string): ThemeSnapshotRecord | undefined {
    const r = this.db
      .prepare("SELECT * FROM theme_snapshots WHERE theme_uuid = ? AND revision = ? AND as_of_date = ?")
      .get(themeUuid, revision, asOfDate) as SnapshotRow | undefined;
    return r && toSnapshot(r);
  }
}
