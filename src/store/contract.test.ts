/**
 * The store contract: the SAME tests against the SQLite store (`:memory:`, or a temporary file where two instances
 * must share data) and the PostgreSQL store (a private schema of the test database per test, dropped afterwards).
 * The PostgreSQL half is skipped, with the reason printed, when PostgreSQL does not answer at LOTWISE_TEST_PG.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { lotInput as lot } from "../../test/helpers/lot-input.js";
import { PG_URL, probePostgres } from "../../test/helpers/pg.js";
import type { Security } from "../core/data/types.js";
import { ConflictError, NotFoundError, StoreVersionError, TooManyRequestsError } from "../core/errors.js";
import {
  applyExecutions,
  type CorporateAction,
  type Execution,
  type ExecutionsResult,
  type HouseholdView,
  type LedgerBook,
  type LedgerEntry,
} from "../core/ledger/index.js";
import { TaxDecimal } from "../core/tax/decimal.js";
import {
  corporateActionFromRecord,
  corporateActionRecord,
  entryFromRecord,
  executionInput,
  ledgerLotChanges,
  ledgerLotInput,
  realizedInput,
  shortLotFromRecord,
  shortLotInput,
  taxLotFromRecord,
} from "./ledger-mapper.js";
import type { LotwiseStore } from "./lotwise-store.js";
import { SCHEMA_VERSION } from "./migrations.js";
import { openStore } from "./open.js";
import { PG_MIGRATIONS } from "./pg/migrations.js";
import { openPgStore } from "./pg/pg-store.js";
import type { LedgerBatch, TaxLotRow } from "./records.js";
import { openSqliteStore } from "./sqlite-store.js";

const pgProblem = await probePostgres();
if (pgProblem !== null)
  console.warn(
    `store contract: PostgreSQL tests skipped: PostgreSQL does not answer at ${PG_URL} (${pgProblem}); set LOTWISE_TEST_PG.`,
  );

/** A clock one second further at every call (created/modified differ, order is deterministic). */
function clock(start = Date.UTC(2026, 0, 2, 9, 30)) {
  let t = start;
  return () => {
    t += 1000;
    return new Date(t).toISOString();
  };
}

/** Schemas created by this file (dropped after each test and, for safety, after all). */
const schemas = new Set<string>();

async function dropSchemas(): Promise<void> {
  if (schemas.size === 0) return;
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  try {
    for (const s of [...schemas]) {
      await client.query(`DROP SCHEMA IF EXISTS "${s}" CASCADE`);
      schemas.delete(s);
    }
  } finally {
    await client.end();
  }
}

interface Engine {
  name: string;
  skip: boolean;
  /** A fresh, empty store. */
  open(): Promise<LotwiseStore>;
  /**
   * Two instances (connections / pools) on one fresh store, and a reader of an account's stored lot positions (a
   * column no repository returns).
   */
  openPair(): Promise<{ pair: [LotwiseStore, LotwiseStore]; positions(account: string): Promise<number[]> }>;
  /**
   * Whether two instances read equal change tokens. PostgreSQL: yes (the token is kept in the database). SQLite: no,
   * each connection's token counts its own writes too; each still changes when the other commits.
   */
  tokensAgree: boolean;
}

const opened: LotwiseStore[] = [];
const tempDirs: string[] = [];
const track = <S extends LotwiseStore>(s: S): S => {
  opened.push(s);
  return s;
};

const engines: Engine[] = [
  {
    name: "SQLite",
    skip: false,
    open: async () => track(openSqliteStore(":memory:", { now: clock() })),
    openPair: async () => {
      const dir = mkdtempSync(join(tmpdir(), "lotwise-contract-"));
      tempDirs.push(dir);
      const file = join(dir, "store.db");
      return {
        pair: [
          track(openSqliteStore(file, { now: clock() })),
          track(openSqliteStore(file, { now: clock() })),
        ],
        positions: async (account) => {
          const db = new Database(file, { readonly: true });
          try {
            return db
              .prepare("SELECT position FROM tax_lots WHERE account_uuid = ? ORDER BY position")
              .pluck()
              .all(account) as number[];
          } finally {
            db.close();
          }
        },
      };
    },
    tokensAgree: false,
  },
  {
    name: "PostgreSQL",
    skip: pgProblem !== null,
    open: async () => {
      const schema = `lw_contract_${randomBytes(6).toString("hex")}`;
      schemas.add(schema);
      return track(await openPgStore(PG_URL, { schema, now: clock(), maxConnections: 4 }));
    },
    openPair: async () => {
      const schema = `lw_contract_${randomBytes(6).toString("hex")}`;
      schemas.add(schema);
      const first = track(await openPgStore(PG_URL, { schema, now: clock(), maxConnections: 4 }));
      // The second instance reaches the data through the first one's connection string, as another process would.
      const second = track(await openPgStore(first.connectionString, { now: clock(), maxConnections: 4 }));
      return {
        pair: [first, second],
        positions: (account) =>
          first.db.column<number>("SELECT position FROM tax_lots WHERE account_uuid = $1 ORDER BY position", [
            account,
          ]),
      };
    },
    tokensAgree: true,
  },
];

afterEach(async () => {
  for (const s of opened.splice(0)) if (s.isOpen) await s.close();
  for (const d of tempDirs.splice(0)) rmSync(d, { recursive: true, force: true });
  if (pgProblem === null) await dropSchemas();
});

afterAll(async () => {
  if (pgProblem === null) await dropSchemas();
});

const security = (id: string, over: Partial<Security> = {}): Security => {
  const [symbol, mic] = id.split(":") as [string, string];
  return {
    themeAssetId: id,
    symbol,
    mic,
    name: `${symbol} Inc.`,
    currency: mic === "XTSE" ? "CAD" : "USD",
    country: mic === "XTSE" ? "CA" : "US",
    assetType: "equity",
    sector: 45,
    industryGroup: 4510,
    industry: 451020,
    subIndustry: 45102010,
    sicCode: null,
    sharesOutstanding: 1e9,
    description: null,
    listedFrom: null,
    delistedOn: null,
    ...over,
  };
};

const bar = (themeAssetId: string, date: string, close: number, volume: number | null = 1000) => ({
  themeAssetId,
  date,
  open: null,
  high: null,
  low: null,
  close,
  adjClose: null,
  volume,
});

const progress = {
  planned_periods: 12,
  completed_periods: 0,
  last_completed_period: null,
  last_progress_at: null,
};

async function orgClientAccount(store: LotwiseStore) {
  const org = await store.organizations.create("Alpha Advisors");
  const client = await store.clients.create(org.uuid, { externalId: "C-1" });
  const account = await store.accounts.create(org.uuid, client.uuid, {
    name: "Taxable",
    cashValueUsd: "1000.50",
  });
  return { org: org.uuid, client: client.uuid, account: account.uuid };
}

for (const engine of engines) {
  describe.skipIf(engine.skip)(`store contract (${engine.name})`, () => {
    it("creates, lists and renames organizations, and refuses to rename an unknown one", async () => {
      const store = await engine.open();
      const a = await store.organizations.create("Alpha Advisors");
      await store.organizations.create("Beta Wealth");
      expect((await store.organizations.list()).map((o) => o.name)).toEqual([
        "Alpha Advisors",
        "Beta Wealth",
      ]);
      expect(await store.organizations.get(a.uuid)).toEqual(a);
      const renamed = await store.organizations.rename(a.uuid, "Alpha Partners");
      expect(renamed).toMatchObject({ uuid: a.uuid, name: "Alpha Partners", created: a.created });
      expect(renamed.modified > renamed.created).toBe(true);
      await expect(store.organizations.rename("nope", "x")).rejects.toThrow(NotFoundError);
      expect(await store.organizations.get("nope")).toBeUndefined();
    });

    it("authenticates an issued API key, refuses wrong, malformed and revoked keys, and scopes revocation", async () => {
      const store = await engine.open();
      const a = await store.organizations.create("A");
      const b = await store.organizations.create("B");
      const { key, record } = await store.apiKeys.create(a.uuid, "ci");
      expect(key).toMatch(/^lw_[0-9a-f]{12}_[A-Za-z0-9_-]{43}$/);
      expect(record).toMatchObject({
        organizationUuid: a.uuid,
        label: "ci",
        revokedAt: null,
        lastUsedAt: null,
      });
      expect(await store.apiKeys.authenticate(key)).toEqual({ organizationUuid: a.uuid, keyId: record.id });
      expect(
        await store.apiKeys.authenticate(`${key.slice(0, -1)}${key.endsWith("A") ? "B" : "A"}`),
      ).toBeUndefined();
      expect(await store.apiKeys.authenticate("not-a-key")).toBeUndefined();
      await store.apiKeys.touch(record.id);
      expect((await store.apiKeys.list(a.uuid))[0]!.lastUsedAt).not.toBeNull();
      const err = await store.apiKeys.revoke(b.uuid, record.id).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(NotFoundError);
      expect((err as NotFoundError).message).toBe(
        `API key ${record.id} not found in organization ${b.uuid}.`,
      );
      const revoked = await store.apiKeys.revoke(a.uuid, record.id);
      expect(revoked.revokedAt).not.toBeNull();
      // Revoking again keeps the first revocation time.
      expect((await store.apiKeys.revoke(a.uuid, record.id)).revokedAt).toBe(revoked.revokedAt);
      expect(await store.apiKeys.authenticate(key)).toBeUndefined();
    });

    it("creates, pages, updates and deletes clients within one organization only", async () => {
      const store = await engine.open();
      const a = (await store.organizations.create("A")).uuid;
      const b = (await store.organizations.create("B")).uuid;
      const c1 = await store.clients.create(a, { externalId: "C-1", metadata: { tier: "gold" } });
      const c2 = await store.clients.create(a);
      const c3 = await store.clients.create(a, { externalId: "C-3" });
      expect(await store.clients.get(a, c1.uuid)).toEqual(c1);
      expect(await store.clients.get(b, c1.uuid)).toBeUndefined();
      expect((await store.clients.list(a, { limit: 2 })).map((c) => c.uuid)).toEqual([c1.uuid, c2.uuid]);
      expect((await store.clients.list(a, { limit: 5, offset: 2 })).map((c) => c.externalId)).toEqual([
        "C-3",
      ]);
      const u = await store.clients.update(a, c1.uuid, { metadata: { tier: "platinum" } });
      expect(u).toMatchObject({ externalId: "C-1", metadata: { tier: "platinum" } });
      const err = await store.clients.require(b, c1.uuid).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(NotFoundError);
      expect(err).toMatchObject({ code: "client_not_found", message: `Client ${c1.uuid} not found.` });
      await expect(store.clients.delete(b, c1.uuid)).rejects.toThrow(NotFoundError);
      await store.clients.delete(a, c1.uuid);
      expect((await store.clients.list(a)).map((c) => c.uuid)).toEqual([c2.uuid, c3.uuid]);
    });

    it("keeps accounts' decimal amounts as written and scopes them to their client and organization", async () => {
      const store = await engine.open();
      const { org, client, account } = await orgClientAccount(store);
      const other = (await store.organizations.create("B")).uuid;
      const rec = await store.accounts.get(org, client, account);
      expect(rec).toMatchObject({
        name: "Taxable",
        cashValueUsd: "1000.50",
        nonTradableAssetsValue: "0",
        liabilitiesValue: "0",
        isReadOnly: false,
        customizationConfig: null,
        portfolioConfigUuid: null,
      });
      expect(await store.accounts.get(other, client, account)).toBeUndefined();
      expect((await store.accounts.getInOrganization(org, account))?.uuid).toBe(account);
      const updated = await store.accounts.update(org, client, account, {
        cashValueUsd: "0.000100",
        liabilitiesValue: "-25.10",
        isReadOnly: true,
        customizationConfig: { cash_buffer_percent: 0.02 },
      });
      expect(updated).toMatchObject({
        name: "Taxable",
        cashValueUsd: "0.000100",
        liabilitiesValue: "-25.10",
        isReadOnly: true,
        customizationConfig: { cash_buffer_percent: 0.02 },
      });
      const second = await store.accounts.create(org, client, { name: "IRA" });
      expect((await store.accounts.listByClient(org, client)).map((x) => x.name)).toEqual(["Taxable", "IRA"]);
      expect((await store.accounts.listByOrganization(org)).map((x) => x.uuid)).toEqual([
        account,
        second.uuid,
      ]);
      const err = await store.accounts.require(org, "other-client", account).catch((e: unknown) => e);
      expect(err).toMatchObject({
        code: "account_not_found",
        message: `Account ${account} not found for client other-client.`,
      });
    });

    it("replaces, appends and reads tax lots with their decimal text unchanged", async () => {
      const store = await engine.open();
      const { account } = await orgClientAccount(store);
      await store.accounts.replaceLots(account, [
        lot({ quantity: "10.50", costBasis: "150.2500" }),
        lot({ themeAssetId: "RY:XTSE", costBasisCurrency: "CAD", fxRate: "1.35", costBasisUnit: "total" }),
      ]);
      const replaced = await store.accounts.replaceLots(account, [
        lot({ quantity: "0.000001", costBasis: "1234567.891000" }),
        lot({ themeAssetId: "MSFT:XNAS", washSaleDate: "2024-05-01", holdingPeriodStart: "2023-01-02" }),
      ]);
      expect(replaced.map((l) => [l.themeAssetId, l.quantity, l.costBasis])).toEqual([
        ["AAPL:XNAS", "0.000001", "1234567.891000"],
        ["MSFT:XNAS", "10", "150.25"],
      ]);
      await store.accounts.appendLots(account, [lot({ tradeDate: "2025-01-02", fxRate: "1.000" })]);
      const lots = await store.accounts.lots(account);
      expect(lots.map((l) => l.tradeDate)).toEqual(["2024-03-01", "2024-03-01", "2025-01-02"]);
      expect(lots[2]).toMatchObject({ accountUuid: account, fxRate: "1.000", costBasisUnit: "per_share" });
      expect(lots[1]).toMatchObject({ washSaleDate: "2024-05-01", holdingPeriodStart: "2023-01-02" });
      const rows = await store.accounts.lotRows(account);
      expect(rows).toEqual(
        lots.map((l) => [
          l.uuid,
          l.themeAssetId,
          l.quantity,
          l.costBasis,
          l.costBasisUnit,
          l.costBasisCurrency,
          l.fxRate,
          l.tradeDate,
          l.holdingPeriodStart,
          l.washSaleDate,
          l.lastSoldForLossDate,
        ]),
      );
      expect(await store.accounts.heldListings()).toEqual([
        { themeAssetId: "AAPL:XNAS", lots: 2, accounts: 1 },
        { themeAssetId: "MSFT:XNAS", lots: 1, accounts: 1 },
      ]);
    });

    it("converts only the lots whose content changed when lotValues is given the previous memo", async () => {
      const store = await engine.open();
      const { account } = await orgClientAccount(store);
      await store.accounts.replaceLots(account, [lot(), lot({ quantity: "2" })]);
      const seen: TaxLotRow[] = [];
      const convert = (row: TaxLotRow) => {
        seen.push(row);
        return `${row[1]}x${row[2]}`;
      };
      const first = await store.accounts.lotValues(account, convert);
      expect(first.values).toEqual(["AAPL:XNASx10", "AAPL:XNASx2"]);
      expect(seen).toHaveLength(2);
      await store.accounts.appendLots(account, [lot({ quantity: "7.25" })]);
      const second = await store.accounts.lotValues(account, convert, first.memo);
      expect(second.values).toEqual(["AAPL:XNASx10", "AAPL:XNASx2", "AAPL:XNASx7.25"]);
      expect(seen).toHaveLength(3);
      expect(seen[2]![2]).toBe("7.25");
      // A field holding the separator the joined read uses: read column by column instead, every row converted.
      await store.accounts.appendLots(account, [lot({ themeAssetId: "ODD\u001fID:XNAS" })]);
      const third = await store.accounts.lotValues(account, convert, second.memo);
      expect(third.values).toEqual(["AAPL:XNASx10", "AAPL:XNASx2", "AAPL:XNASx7.25", "ODD\u001fID:XNASx10"]);
      expect(third.memo.size).toBe(0);
    });

    it("changes an account's lots token on every lot write and only then", async () => {
      const store = await engine.open();
      const { org, client, account } = await orgClientAccount(store);
      const other = await store.accounts.create(org, client, { name: "Other" });
      expect(await store.accounts.lotsToken(account)).toBeNull();
      await store.accounts.replaceLots(account, [lot()]);
      const t1 = await store.accounts.lotsToken(account);
      expect(t1).toMatch(/^[0-9A-F]{32}$/);
      expect(await store.accounts.lotsToken(account)).toBe(t1);
      await store.accounts.update(org, client, account, { name: "Renamed" });
      await store.accounts.appendLots(other.uuid, [lot()]);
      expect(await store.accounts.lotsToken(account)).toBe(t1);
      await store.accounts.appendLots(account, [lot({ quantity: "1" })]);
      const t2 = await store.accounts.lotsToken(account);
      expect(t2).not.toBe(t1);
      await store.accounts.replaceLots(account, []);
      expect(await store.accounts.lotsToken(account)).not.toBe(t2);
      expect(await store.accounts.lotsToken("unknown")).toBeNull();
    });

    it("replaces and reads an account's asset-class settings in order", async () => {
      const store = await engine.open();
      const { account, org } = await orgClientAccount(store);
      const equity = await store.assetClasses.create(org, "Equity", { kind: "equity" });
      const bonds = await store.assetClasses.create(org, "Bonds", { kind: "bonds" });
      await store.accounts.replaceAssetClassSettings(account, [
        { assetClassUuid: bonds.uuid, directIndexingEnabled: false, implementationSleeveUuid: null },
        { assetClassUuid: equity.uuid, directIndexingEnabled: true, implementationSleeveUuid: bonds.uuid },
      ]);
      await store.accounts.replaceAssetClassSettings(account, [
        { assetClassUuid: equity.uuid, directIndexingEnabled: true, implementationSleeveUuid: bonds.uuid },
        { assetClassUuid: bonds.uuid, directIndexingEnabled: false, implementationSleeveUuid: null },
      ]);
      expect(await store.accounts.assetClassSettings(account)).toEqual([
        { assetClassUuid: equity.uuid, directIndexingEnabled: true, implementationSleeveUuid: bonds.uuid },
        { assetClassUuid: bonds.uuid, directIndexingEnabled: false, implementationSleeveUuid: null },
      ]);
    });

    it("stores portfolio configurations and archives asset classes", async () => {
      const store = await engine.open();
      const org = (await store.organizations.create("A")).uuid;
      const cfg = await store.portfolioConfigs.create(org, "Core", "active", {
        risk_aversion: 1.5,
        b: [1, 2],
      });
      expect(await store.portfolioConfigs.require(org, cfg.uuid)).toEqual(cfg);
      const next = await store.portfolioConfigs.update(org, cfg.uuid, {
        name: "Core 2",
        status: "draft",
        document: { risk_aversion: 2 },
      });
      expect(next).toMatchObject({ name: "Core 2", status: "draft", document: { risk_aversion: 2 } });
      expect((await store.portfolioConfigs.list(org)).map((c) => c.name)).toEqual(["Core 2"]);
      await expect(store.portfolioConfigs.update("other", cfg.uuid, next)).rejects.toMatchObject({
        code: "portfolio_config_not_found",
        message: `Portfolio configuration ${cfg.uuid} not found.`,
      });
      const ac = await store.assetClasses.create(org, "Equity", { target: 0.6 });
      await store.assetClasses.create(org, "Bonds", { target: 0.4 });
      const archived = await store.assetClasses.archive(org, ac.uuid);
      expect(archived.archivedAt).not.toBeNull();
      expect((await store.assetClasses.archive(org, ac.uuid)).archivedAt).toBe(archived.archivedAt);
      expect((await store.assetClasses.list(org)).map((c) => c.name)).toEqual(["Bonds"]);
      expect((await store.assetClasses.list(org, { includeArchived: true })).map((c) => c.name)).toEqual([
        "Equity",
        "Bonds",
      ]);
      expect(
        (await store.assetClasses.update(org, ac.uuid, { name: "Stocks", document: { t: 1 } })).document,
      ).toEqual({
        t: 1,
      });
      await expect(store.assetClasses.require(org, "nope")).rejects.toMatchObject({
        code: "asset_class_not_found",
      });
    });

    it("keeps theme revisions and snapshots, with distinct revisions for saves in the same millisecond", async () => {
      const store = await engine.open();
      const org = (await store.organizations.create("A")).uuid;
      const { theme, revision } = await store.themes.create(org, "Clean energy", { universe: "us_large" });
      expect(revision).toMatchObject({ themeUuid: theme.uuid, methodology: { universe: "us_large" } });
      const r2 = await store.themes.revise(org, theme.uuid, "Clean energy 2", { universe: "us_all" });
      expect(r2.revision > revision.revision).toBe(true);
      expect((await store.themes.latestRevision(theme.uuid))?.methodology).toEqual({ universe: "us_all" });
      expect((await store.themes.revisions(theme.uuid)).map((r) => r.revision)).toEqual([
        revision.revision,
        r2.revision,
      ]);
      expect((await store.themes.get(org, theme.uuid))?.name).toBe("Clean energy 2");
      await expect(store.themes.revise("other", theme.uuid, "x", {})).rejects.toMatchObject({
        code: "theme_not_found",
      });
      await store.themes.saveSnapshot({
        themeUuid: theme.uuid,
        revision: r2.revision,
        asOfDate: "2026-02-27",
        totalWeight: 1,
        constituents: [{ t: "AAPL:XNAS", w: 1 }],
      });
      await store.themes.saveSnapshot({
        themeUuid: theme.uuid,
        revision: r2.revision,
        asOfDate: "2026-01-30",
        totalWeight: 0.5,
        constituents: [],
      });
      const replaced = await store.themes.saveSnapshot({
        themeUuid: theme.uuid,
        revision: r2.revision,
        asOfDate: "2026-02-27",
        totalWeight: 0.75,
        constituents: [{ t: "MSFT:XNAS", w: 0.75 }],
      });
      expect(await store.themes.latestSnapshot(theme.uuid, r2.revision)).toEqual(replaced);
      expect(await store.themes.snapshotDates(theme.uuid, r2.revision)).toEqual(["2026-01-30", "2026-02-27"]);
      expect((await store.themes.snapshot(theme.uuid, r2.revision, "2026-01-30"))?.totalWeight).toBe(0.5);
      expect(await store.themes.latestSnapshot(theme.uuid, revision.revision)).toBeUndefined();
    });

    it("stores proposals and prunes all but the newest of an account, sparing the one just written", async () => {
      const store = await engine.open();
      const { org, account } = await orgClientAccount(store);
      const ids = ["p1", "p2", "p3", "p4"];
      for (const id of ids) await store.proposals.insert(org, account, id, { req: id }, { res: id, n: 1.5 });
      const created = await store.proposals.create(org, account, "p5", { req: "p5" }, { res: "p5" });
      expect(created).toMatchObject({ uuid: "p5", request: { req: "p5" }, response: { res: "p5" } });
      await store.proposals.insertSerialized(org, account, "p6", { req: "p6" }, '{"res":"p6"}');
      expect(await store.proposals.count(org, account)).toBe(6);
      expect((await store.proposals.get(org, account, "p1"))?.response).toEqual({ res: "p1", n: 1.5 });
      expect(await store.proposals.prune(org, account, { keep: 2, spare: "p1" })).toBe(3);
      expect((await store.proposals.list(org, account)).map((p) => p.uuid)).toEqual(["p1", "p5", "p6"]);
      await expect(store.proposals.require(org, account, "p2")).rejects.toMatchObject({
        code: "proposal_not_found",
        message: `Proposal p2 not found for account ${account}.`,
      });
    });

    it("reads uploaded risk models point in time and deletes them", async () => {
      const store = await engine.open();
      const org = (await store.organizations.create("A")).uuid;
      const input = (name: string, asOfDate: string) => ({
        kind: "custom" as const,
        name,
        asOfDate,
        assetCount: 2,
        factorCount: 1,
        warnings: ["repaired"],
        document: { name, exposures: [0.5, 1.25] },
      });
      const m1 = await store.riskModels.create(org, input("jan", "2026-01-31"));
      const m2 = await store.riskModels.create(org, input("feb", "2026-02-27"));
      await store.riskModels.create(org, { ...input("vendor", "2026-01-31"), kind: "vendor" });
      expect((await store.riskModels.list(org, "custom")).map((m) => m.name)).toEqual(["jan", "feb"]);
      expect((await store.riskModels.list(org)).map((m) => m.name)).toEqual(["jan", "vendor", "feb"]);
      expect((await store.riskModels.latestAsOf(org, "custom", "2026-02-15"))?.name).toBe("jan");
      expect((await store.riskModels.latestAsOf(org, "custom", "2026-03-01"))?.document).toEqual({
        name: "feb",
        exposures: [0.5, 1.25],
      });
      expect(await store.riskModels.latestAsOf(org, "custom", "2025-12-31")).toBeUndefined();
      expect(await store.riskModels.get(org, m1.uuid)).toMatchObject({
        assetCount: 2,
        warnings: ["repaired"],
      });
      await store.riskModels.delete(org, m2.uuid);
      await expect(store.riskModels.delete(org, m2.uuid)).rejects.toMatchObject({
        code: "risk_model_not_found",
      });
    });

    it("records one outcome per account and run and finds the run that proposed for an account", async () => {
      const store = await engine.open();
      const { org, account } = await orgClientAccount(store);
      const input = {
        runKey: "2026-03-02|always|all",
        asOfDate: "2026-03-02",
        when: "always" as const,
        selection: { all: true },
        accountUuids: [account],
        forced: false,
      };
      const run1 = await store.rebalanceRuns.create(org, input);
      const run2 = await store.rebalanceRuns.create(org, { ...input, forced: true });
      expect((await store.rebalanceRuns.latestByKey(org, input.runKey))?.uuid).toBe(run2.uuid);
      expect(run2).toMatchObject({
        forced: true,
        status: "running",
        accountUuids: [account],
        finished: null,
      });
      const outcome = {
        accountUuid: account,
        outcome: "created" as const,
        proposalUuid: "p1",
        reason: null,
        errorCode: null,
        errorMessage: null,
      };
      expect(await store.rebalanceRuns.recordOutcome(run1.uuid, 0, outcome)).toBe(true);
      expect(await store.rebalanceRuns.recordOutcome(run1.uuid, 0, { ...outcome, proposalUuid: "p2" })).toBe(
        false,
      );
      expect((await store.rebalanceRuns.outcomes(run1.uuid)).get(account)?.proposalUuid).toBe("p1");
      expect(await store.rebalanceRuns.proposalRunOf(org, "2026-03-02", account, run2.uuid)).toEqual({
        runUuid: run1.uuid,
        proposalUuid: "p1",
      });
      expect(await store.rebalanceRuns.proposalRunOf(org, "2026-03-02", account, run1.uuid)).toBeUndefined();
      expect(await store.rebalanceRuns.outcomeCounts([run1.uuid, run2.uuid])).toEqual(
        new Map([[run1.uuid, { created: 1, skipped: 0, failed: 0 }]]),
      );
      await store.rebalanceRuns.finish(org, run1.uuid);
      expect((await store.rebalanceRuns.get(org, run1.uuid))?.status).toBe("completed");
      expect((await store.rebalanceRuns.list(org, { limit: 1 })).map((r) => r.uuid)).toEqual([run2.uuid]);
      expect((await store.rebalanceRuns.list(org, { asOfDate: "2026-01-01" })).length).toBe(0);
    });

    it("queues, claims fairly, runs, cancels and recovers jobs", async () => {
      const store = await engine.open();
      const { org, account } = await orgClientAccount(store);
      const other = (await store.organizations.create("B")).uuid;
      const otherClient = (await store.clients.create(other)).uuid;
      const otherAccount = (await store.accounts.create(other, otherClient)).uuid;
      const j1 = await store.backtestJobs.create(org, account, { a: 1 }, { r: 1 }, progress, {
        maxPending: 2,
      });
      await store.backtestJobs.create(org, account, { a: 2 }, { r: 2 }, progress, { maxPending: 2 });
      const full = await store.backtestJobs
        .create(org, account, { a: 3 }, {}, progress, { maxPending: 2 })
        .catch((e: unknown) => e);
      expect(full).toBeInstanceOf(TooManyRequestsError);
      expect(full).toMatchObject({ code: "too_many_queued_jobs" });
      const jb = await store.backtestJobs.create(other, otherAccount, { b: 1 }, {}, progress);
      const scan = await store.backtestJobs.create(org, null, { scan: true }, {}, progress, { kind: "scan" });
      expect(await store.backtestJobs.countPending(org)).toBe(3);
      // Fair claiming: org A's oldest job first, then B (no running job there), then A again.
      const c1 = await store.backtestJobs.claimNext("w1");
      expect(c1).toMatchObject({ id: j1.id, status: "RUNNING", leaseOwner: "w1", attempts: 1 });
      expect((await store.backtestJobs.claimNext("w1"))?.id).toBe(jb.id);
      expect(await store.backtestJobs.claimNext("w2", { maxRunningPerOrganization: 1 })).toBeUndefined();
      expect(await store.backtestJobs.progress(j1.id, "w1", { ...progress, completed_periods: 3 })).toBe(
        true,
      );
      expect(await store.backtestJobs.progress(j1.id, "w2", progress)).toBe(false);
      expect(await store.backtestJobs.succeed(j1.id, "w1", { case: 1 }, progress)).toBe(true);
      expect(await store.backtestJobs.require(org, j1.id, account)).toMatchObject({
        status: "SUCCESS",
        result: { case: 1 },
        leaseOwner: null,
      });
      expect(await store.backtestJobs.get(org, scan.id)).toBeUndefined();
      expect((await store.backtestJobs.get(org, scan.id, undefined, "scan"))?.accountUuid).toBeNull();
      await expect(store.backtestJobs.require(org, scan.id)).rejects.toMatchObject({
        code: "backtest_not_found",
      });
      await expect(store.backtestJobs.require(other, scan.id, undefined, "scan")).rejects.toMatchObject({
        code: "scan_job_not_found",
      });
      const cancelled = await store.backtestJobs.requestCancel(org, scan.id, "scan");
      expect(cancelled).toMatchObject({ status: "FAILURE", errorMessage: "Cancelled before it started." });
      expect((await store.backtestJobs.list(org, { status: "PENDING" })).length).toBe(1);
      // jb's worker died: recovered as PENDING (attempts left), then failed after the last attempt.
      const stale = "2999-01-01T00:00:00.000Z";
      expect(
        await store.backtestJobs.recoverOrphans({ liveOwners: [], staleBefore: stale, maxAttempts: 2 }),
      ).toEqual({
        requeued: [jb.id],
        failed: [],
      });
      expect((await store.backtestJobs.claim(jb.id, "w3"))?.attempts).toBe(2);
      expect(
        await store.backtestJobs.recoverOrphans({ liveOwners: [], staleBefore: stale, maxAttempts: 2 }),
      ).toEqual({
        requeued: [],
        failed: [jb.id],
      });
      expect((await store.backtestJobs.getById(jb.id))?.errorMessage).toContain(
        "stopped unexpectedly 2 time(s)",
      );
      expect(await store.backtestJobs.fail(jb.id, "again")).toBe(false);
    });

    it("writes market data and reads it point in time", async () => {
      const store = await engine.open();
      const m = store.market;
      await m.upsertSecurities([
        security("AAPL:XNAS"),
        security("RY:XTSE"),
        security("RY:XNYS", { sector: 40 }),
      ]);
      await m.insertPrices([
        bar("AAPL:XNAS", "2026-01-02", 100),
        bar("AAPL:XNAS", "2026-01-05", 101.5),
        bar("AAPL:XNAS", "2026-01-06", 102, null),
        bar("RY:XTSE", "2026-01-02", 150),
        bar("RY:XTSE", "2026-01-06", 151),
        bar("AAPL:XNAS", "2026-01-05", 101.25),
      ]);
      expect(await m.tradingDates()).toEqual(["2026-01-02", "2026-01-05", "2026-01-06"]);
      expect(await m.latestTradingDate("2026-01-04")).toBe("2026-01-02");
      expect(await m.latestPriceDate()).toBe("2026-01-06");
      expect(await m.latestPrices(["RY:XTSE", "AAPL:XNAS", "ZZZ:XNAS"], "2026-01-05")).toEqual(
        new Map([
          ["RY:XTSE", { date: "2026-01-02", close: 150, volume: 1000 }],
          ["AAPL:XNAS", { date: "2026-01-05", close: 101.25, volume: 1000 }],
        ]),
      );
      const pm = await m.priceMatrix("2026-01-01", "2026-01-31", ["AAPL:XNAS", "RY:XTSE"]);
      expect(pm.dates).toEqual(["2026-01-02", "2026-01-05", "2026-01-06"]);
      expect([...pm.close]).toEqual([100, 150, 101.25, Number.NaN, 102, 151]);
      expect([...pm.volume]).toEqual([1000, 1000, 1000, Number.NaN, Number.NaN, 1000]);
      const cm = await m.closeMatrix("2026-01-05", "2026-01-06");
      expect(cm.ids).toEqual(["AAPL:XNAS", "RY:XNYS", "RY:XTSE"]);
      expect([...cm.close]).toEqual([101.25, Number.NaN, Number.NaN, 102, Number.NaN, 151]);
      expect((await m.findSecuritiesBySymbol("ry")).map((s) => s.themeAssetId)).toEqual([
        "RY:XNYS",
        "RY:XTSE",
      ]);
      expect(await m.ambiguousSymbols()).toEqual(new Map([["RY", ["RY:XNYS", "RY:XTSE"]]]));
      expect((await m.securitiesBySymbols(["ry", "aapl"])).get("RY")?.length).toBe(2);
      expect([...(await m.securitiesByIds(["RY:XNYS", "NOPE:XNAS"])).keys()]).toEqual(["RY:XNYS"]);
      expect(await m.security("RY:XNYS")).toEqual(security("RY:XNYS", { sector: 40 }));
      expect((await m.securities({ currency: "CAD" })).map((s) => s.themeAssetId)).toEqual(["RY:XTSE"]);
      expect(await m.listingIds()).toEqual(["AAPL:XNAS", "RY:XNYS", "RY:XTSE"]);
      await m.insertSplits([{ themeAssetId: "AAPL:XNAS", date: "2026-01-05", ratio: 4 }]);
      await m.insertDividends([{ themeAssetId: "AAPL:XNAS", exDate: "2026-01-06", amount: 0.24 }]);
      expect(await m.splits("2026-01-01", "2026-01-31")).toEqual([
        { themeAssetId: "AAPL:XNAS", date: "2026-01-05", ratio: 4 },
      ]);
      expect(await m.dividends("2026-01-01", "2026-01-31")).toEqual([
        { themeAssetId: "AAPL:XNAS", exDate: "2026-01-06", amount: 0.24 },
      ]);
      await m.insertFx([
        { currency: "CAD", date: "2026-01-02", perUsd: 1.35 },
        { currency: "CAD", date: "2026-01-06", perUsd: 1.37 },
      ]);
      expect(await m.fxRateAsOf("CAD", "2026-01-05")).toEqual({ date: "2026-01-02", perUsd: 1.35 });
      expect(await m.fxRateAsOf("USD", "2026-01-05")).toEqual({ date: "2026-01-05", perUsd: 1 });
      expect((await m.fxSeries("CAD", "2026-01-01", "2026-12-31")).map((r) => r.perUsd)).toEqual([
        1.35, 1.37,
      ]);
      await m.insertCharacteristics([
        { name: "pe", themeAssetId: "AAPL:XNAS", date: "2025-12-31", value: 30 },
        { name: "pe", themeAssetId: "AAPL:XNAS", date: "2026-01-31", value: 32 },
        { name: "pe", themeAssetId: "RY:XTSE", date: "2026-01-15", value: 12 },
        { name: "beta", themeAssetId: "RY:XTSE", date: "2026-01-15", value: 0.9 },
      ]);
      expect(await m.characteristicNames()).toEqual(["beta", "pe"]);
      expect(await m.characteristicsAsOf("pe", "2026-01-20")).toEqual(
        new Map([
          ["AAPL:XNAS", 30],
          ["RY:XTSE", 12],
        ]),
      );
      expect([
        ...(await m.characteristicsAsOfDates(
          "pe",
          ["RY:XTSE", "AAPL:XNAS"],
          ["2026-01-01", "2026-01-20", "2026-02-01"],
        )),
      ]).toEqual([Number.NaN, 30, 12, 30, 12, 32]);
      expect(await m.characteristicDates("pe")).toEqual(["2025-12-31", "2026-01-15", "2026-01-31"]);
      await m.upsertIndex({ identifier: "LW100", name: "Lotwise 100", currency: "USD", description: null });
      await m.insertIndexLevels([
        { identifier: "LW100", date: "2026-01-02", level: 1000 },
        { identifier: "LW100", date: "2026-01-05", level: 1010.5 },
      ]);
      await m.insertIndexWeights([
        { identifier: "LW100", date: "2026-01-02", themeAssetId: "AAPL:XNAS", weight: 0.6 },
        { identifier: "LW100", date: "2026-01-02", themeAssetId: "RY:XTSE", weight: 0.4 },
        { identifier: "LW100", date: "2026-02-02", themeAssetId: "RY:XTSE", weight: 1 },
      ]);
      expect(
        (await m.indexWeightsAsOf("LW100", "2026-01-31")).map((w) => [w.themeAssetId, w.weight]),
      ).toEqual([
        ["AAPL:XNAS", 0.6],
        ["RY:XTSE", 0.4],
      ]);
      expect(await m.indexWeightsAsOf("LW100", "2025-01-31")).toEqual([]);
      expect((await m.indexLevels("LW100", "2026-01-03", "2026-01-31")).map((l) => l.level)).toEqual([
        1010.5,
      ]);
      expect(await m.index("LW100")).toEqual({
        identifier: "LW100",
        name: "Lotwise 100",
        currency: "USD",
        description: null,
      });
      expect(await m.summary()).toEqual({
        securities: 3,
        byCurrency: { CAD: 1, USD: 2 },
        priceRows: 5,
        firstDate: "2026-01-02",
        lastDate: "2026-01-06",
        splits: 1,
        dividends: 1,
        fxCurrencies: ["CAD"],
        characteristics: ["beta", "pe"],
        indexes: [
          {
            identifier: "LW100",
            name: "Lotwise 100",
            levels: 2,
            firstDate: "2026-01-02",
            lastDate: "2026-01-05",
          },
        ],
      });
      const imp = await m.recordImport("prices", "file.csv", 5, { ok: true });
      expect(await m.imports()).toEqual([imp]);
      expect(await m.hasMarketData()).toBe(true);
      expect(await m.clearMarketData()).toEqual({
        securities: 3,
        prices: 5,
        splits: 1,
        dividends: 1,
        fxRates: 2,
        characteristics: 4,
        indexes: 1,
        indexLevels: 2,
        indexWeights: 3,
      });
      expect(await m.hasMarketData()).toBe(false);
      expect(await m.imports()).toHaveLength(1);
    });

    it("stores NaN numbers as missing values and refuses a NaN close, as SQLite does", async () => {
      const store = await engine.open();
      await store.market.upsertSecurities([security("AAPL:XNAS", { sharesOutstanding: Number.NaN })]);
      expect((await store.market.security("AAPL:XNAS"))?.sharesOutstanding).toBeNull();
      await store.market.insertPrices([
        { ...bar("AAPL:XNAS", "2026-01-02", 100, Number.NaN), open: Number.NaN },
      ]);
      expect(await store.market.latestPrices(["AAPL:XNAS"], "2026-01-02")).toEqual(
        new Map([["AAPL:XNAS", { date: "2026-01-02", close: 100, volume: null }]]),
      );
      await expect(store.market.insertPrices([bar("AAPL:XNAS", "2026-01-05", Number.NaN)])).rejects.toThrow(
        /NOT NULL|not-null/i,
      );
      expect(await store.market.latestPriceDate()).toBe("2026-01-02");
    });

    it("inserts a price matrix, skipping missing closes, and reads it back", async () => {
      const store = await engine.open();
      const ids = ["A:XNAS", "B:XNAS"];
      await store.market.upsertSecurities(ids.map((id) => security(id)));
      const rows = await store.market.insertPriceMatrix({
        dates: ["2026-01-02", "2026-01-05", "2026-01-06"],
        ids,
        close: Float64Array.from([10, Number.NaN, 11, 20, Number.NaN, Number.NaN]),
        volume: Float64Array.from([1, Number.NaN, 2, 3, Number.NaN, Number.NaN]),
      });
      expect(rows).toBe(3);
      expect(await store.market.tradingDates()).toEqual(["2026-01-02", "2026-01-05"]);
      const pm = await store.market.priceMatrix("2026-01-01", "2026-01-31");
      expect([...pm.close]).toEqual([10, Number.NaN, 11, 20]);
      expect([...pm.volume]).toEqual([1, Number.NaN, 2, 3]);
    });

    it("reports what a market import changed in data that was already there", async () => {
      const store = await engine.open();
      const m = store.market;
      await m.upsertSecurities([security("AAPL:XNAS"), security("MSFT:XNAS")]);
      await m.insertPrices([bar("AAPL:XNAS", "2026-01-02", 100), bar("AAPL:XNAS", "2026-01-05", 101)]);
      const { result, changes } = await m.captureChanges(async () => {
        await m.upsertSecurities([
          security("AAPL:XNAS"),
          security("MSFT:XNAS", { name: "Microsoft" }),
          security("NVDA:XNAS"),
        ]);
        await m.insertPrices([
          bar("AAPL:XNAS", "2026-01-02", 99),
          bar("AAPL:XNAS", "2026-01-05", 101),
          bar("AAPL:XNAS", "2026-01-06", 102),
          bar("MSFT:XNAS", "2026-01-06", 300),
          bar("NVDA:XNAS", "2026-01-06", 500),
        ]);
        return "done";
      }, 5);
      expect(result).toBe("done");
      expect(changes).toEqual({
        listingsAdded: ["NVDA:XNAS"],
        listingsChanged: ["MSFT:XNAS"],
        priceChanges: {
          count: 1,
          byListing: [{ themeAssetId: "AAPL:XNAS", count: 1 }],
          examples: [{ themeAssetId: "AAPL:XNAS", date: "2026-01-02", old: 100, new: 99 }],
        },
        pricesAddedToExistingListings: [
          { themeAssetId: "AAPL:XNAS", count: 1 },
          { themeAssetId: "MSFT:XNAS", count: 1 },
        ],
      });
      // The capture ends with its transaction: later writes and a failing capture leave no trace.
      await m.insertPrices([bar("AAPL:XNAS", "2026-01-02", 98)]);
      await expect(
        m.captureChanges(async () => {
          await m.upsertSecurities([security("TSLA:XNAS")]);
          throw new Error("bad file");
        }),
      ).rejects.toThrow("bad file");
      expect(await m.listingIds()).toEqual(["AAPL:XNAS", "MSFT:XNAS", "NVDA:XNAS"]);
      const again = await m.captureChanges(async () => m.insertPrices([bar("AAPL:XNAS", "2026-01-02", 97)]));
      expect(again.changes.priceChanges.examples).toEqual([
        { themeAssetId: "AAPL:XNAS", date: "2026-01-02", old: 98, new: 97 },
      ]);
      expect(again.changes.listingsAdded).toEqual([]);
    });

    it("commits a transaction's writes together and rolls all of them back on a throw", async () => {
      const store = await engine.open();
      await store.transaction(async (tx) => {
        await tx.organizations.create("A");
        await store.organizations.create("B");
      });
      await expect(
        store.transaction(async (tx) => {
          await tx.organizations.create("C");
          await store.transaction(async () => {
            await store.organizations.create("D");
          });
          throw new Error("boom");
        }),
      ).rejects.toThrow("boom");
      expect((await store.organizations.list()).map((o) => o.name)).toEqual(["A", "B"]);
    });

    it("joins nested transactions to the outer one, which sees its own writes", async () => {
      const store = await engine.open();
      const result = await store.transaction(async () => {
        const org = await store.organizations.create("Outer");
        const inner = await store.transaction(async (tx) => {
          await tx.organizations.rename(org.uuid, "Renamed inside");
          return tx.organizations.get(org.uuid);
        });
        return inner?.name;
      });
      expect(result).toBe("Renamed inside");
      expect((await store.organizations.list()).map((o) => o.name)).toEqual(["Renamed inside"]);
    });

    it("stages a lot import and moves it in one transaction, rolled back when the check throws", async () => {
      const store = await engine.open();
      const { account } = await orgClientAccount(store);
      await store.accounts.replaceLots(account, [lot({ quantity: "1" })]);
      const session = await store.beginLotImport();
      await session.add([lot({ quantity: "2.50" }), lot({ quantity: "3" })]);
      await session.add([lot({ quantity: "4.000" })]);
      expect(session.size).toBe(3);
      const staged: string[] = [];
      for await (const l of session.lots()) staged.push(l.quantity);
      expect(staged).toEqual(["2.50", "3", "4.000"]);
      expect(await session.accountLotCount(account)).toBe(1);
      expect(await session.commit(account, "append")).toEqual({ before: 1, after: 4 });
      expect((await store.accounts.lots(account)).map((l) => l.quantity)).toEqual([
        "1",
        "2.50",
        "3",
        "4.000",
      ]);
      const replace = await store.beginLotImport();
      await replace.add([lot({ quantity: "9" })]);
      await expect(
        replace.commit(account, "replace", async (tx) => {
          await tx.accounts.appendLots(account, [lot({ quantity: "99" })]);
          throw new NotFoundError("account gone");
        }),
      ).rejects.toThrow("account gone");
      expect((await store.accounts.lots(account)).map((l) => l.quantity)).toEqual([
        "1",
        "2.50",
        "3",
        "4.000",
      ]);
      const again = await store.beginLotImport();
      await again.add([lot({ quantity: "9" })]);
      expect(await again.commit(account, "replace")).toEqual({ before: 4, after: 1 });
      expect((await store.accounts.lots(account)).map((l) => l.quantity)).toEqual(["9"]);
      await again.discard();
    });

    it("keeps the change token while nothing is written and changes it on every committed write", async () => {
      const store = await engine.open();
      const t0 = await store.changeToken();
      expect(await store.changeToken()).toBe(t0);
      await store.organizations.list();
      expect(await store.changeToken()).toBe(t0);
      const org = await store.organizations.create("A");
      const t1 = await store.changeToken();
      expect(t1).not.toBe(t0);
      await store.market.upsertSecurities([security("AAPL:XNAS")]);
      const t2 = await store.changeToken();
      expect(t2).not.toBe(t1);
      await store.organizations.rename(org.uuid, "B");
      expect(await store.changeToken()).not.toBe(t2);
    });

    it("changes one instance's change token when another instance on the same store writes", async () => {
      const {
        pair: [one, two],
      } = await engine.openPair();
      if (engine.tokensAgree) expect(await two.changeToken()).toBe(await one.changeToken());
      const oneBefore = await one.changeToken();
      const twoBefore = await two.changeToken();
      const org = await one.organizations.create("Shared");
      const twoAfter = await two.changeToken();
      expect(twoAfter).not.toBe(twoBefore);
      expect(await two.changeToken()).toBe(twoAfter);
      if (engine.tokensAgree) expect(await one.changeToken()).toBe(twoAfter);
      expect((await two.organizations.get(org.uuid))?.name).toBe("Shared");
      const oneAfter = await one.changeToken();
      expect(oneAfter).not.toBe(oneBefore);
      await two.organizations.rename(org.uuid, "Renamed by two");
      expect((await one.organizations.get(org.uuid))?.name).toBe("Renamed by two");
      expect(await one.changeToken()).not.toBe(oneAfter);
    });

    it("refuses at once, through every instance, a key revoked through one of them", async () => {
      const {
        pair: [one, two],
      } = await engine.openPair();
      const org = await one.organizations.create("A");
      const { key, record } = await one.apiKeys.create(org.uuid);
      expect(await two.apiKeys.authenticate(key)).toEqual({ organizationUuid: org.uuid, keyId: record.id });
      await two.apiKeys.revoke(org.uuid, record.id);
      expect(await one.apiKeys.authenticate(key)).toBeUndefined();
      expect(await two.apiKeys.authenticate(key)).toBeUndefined();
    });

    it("lets two instances take the last place of a full job queue only once, and claim each job once", async () => {
      const {
        pair: [one, two],
      } = await engine.openPair();
      const { org, account } = await orgClientAccount(one);
      const attempts = await Promise.allSettled(
        Array.from({ length: 6 }, (_, i) =>
          (i % 2 === 0 ? one : two).backtestJobs.create(org, account, { i }, {}, progress, { maxPending: 3 }),
        ),
      );
      expect(attempts.filter((a) => a.status === "fulfilled")).toHaveLength(3);
      const refused = attempts.filter((a) => a.status === "rejected");
      expect(refused.map((a) => (a as PromiseRejectedResult).reason.code)).toEqual([
        "too_many_queued_jobs",
        "too_many_queued_jobs",
        "too_many_queued_jobs",
      ]);
      const claims = await Promise.all(
        Array.from({ length: 8 }, (_, i) => (i % 2 === 0 ? one : two).backtestJobs.claimNext(`w${i}`)),
      );
      const claimed = claims.filter((c) => c !== undefined).map((c) => c.id);
      expect(claimed).toHaveLength(3);
      expect(new Set(claimed).size).toBe(3);
    });

    it("lands the lots of two instances appending to one account at once, at distinct positions", async () => {
      const {
        pair: [one, two],
        positions,
      } = await engine.openPair();
      const { account } = await orgClientAccount(one);
      const batch = (tag: string, n: number) =>
        Array.from({ length: n }, (_, i) => lot({ quantity: `${tag}${i + 1}`, tradeDate: "2024-03-01" }));
      const rounds = 5;
      await Promise.all(
        Array.from({ length: rounds }, async (_, r) => {
          await Promise.all([
            one.accounts.appendLots(account, batch(`1${r}`, 3)),
            two.accounts.appendLots(account, batch(`2${r}`, 3)),
          ]);
        }),
      );
      const lots = await two.accounts.lots(account);
      expect(lots).toHaveLength(rounds * 6);
      expect(new Set(lots.map((l) => l.quantity)).size).toBe(rounds * 6);
      expect(await positions(account)).toEqual(Array.from({ length: rounds * 6 }, (_, i) => i));
      // Each append is contiguous: its three lots follow each other in stored order.
      const quantities = lots.map((l) => l.quantity);
      for (let r = 0; r < rounds; r++)
        for (const w of ["1", "2"]) {
          const at = quantities.indexOf(`${w}${r}1`);
          expect(quantities.slice(at, at + 3)).toEqual([`${w}${r}1`, `${w}${r}2`, `${w}${r}3`]);
        }
    });
  });
}

describe.skipIf(pgProblem !== null)("PostgreSQL store opening", () => {
  it("opens a postgres:// location through openStore, creating the URL's schema, at the current version", async () => {
    const schema = `lw_contract_${randomBytes(6).toString("hex")}`;
    schemas.add(schema);
    const url = new URL(PG_URL);
    url.searchParams.set("options", `-c search_path=${schema}`);
    // The schema named by the URL does not exist yet: opening creates it.
    const store = track(await openStore(url.toString()));
    expect(store.kind).toBe("postgres");
    expect(await store.schemaVersion()).toBe(SCHEMA_VERSION);
    await store.ping();
    expect(store.connectionString).toBe(url.toString());
    expect(store.location).not.toMatch(/:[^/@:]+@/);
  });

  it("migrates once when several instances open a fresh schema at the same time", async () => {
    const schema = `lw_contract_${randomBytes(6).toString("hex")}`;
    schemas.add(schema);
    const stores = await Promise.all(
      [1, 2, 3].map(async () => track(await openPgStore(PG_URL, { schema, maxConnections: 2 }))),
    );
    for (const s of stores) expect(await s.schemaVersion()).toBe(SCHEMA_VERSION);
    const pool = (stores[0] as unknown as { db: { rows<R extends object>(sql: string): Promise<R[]> } }).db;
    expect(
      (await pool.rows<{ version: number }>("SELECT version FROM lotwise_schema ORDER BY version")).map(
        (r) => r.version,
      ),
    ).toEqual(PG_MIGRATIONS.map((m) => m.version));
  });

  it("refuses a schema of a newer version and a schema holding other tables, without modifying them", async () => {
    const newer = `lw_contract_${randomBytes(6).toString("hex")}`;
    const foreign = `lw_contract_${randomBytes(6).toString("hex")}`;
    schemas.add(newer);
    schemas.add(foreign);
    const store = await openPgStore(PG_URL, { schema: newer });
    await store.db.run(
      "INSERT INTO lotwise_schema (version, description, applied) VALUES (99, 'future', 'x')",
    );
    await store.close();
    await expect(openPgStore(PG_URL, { schema: newer })).rejects.toThrow(StoreVersionError);
    await expect(openPgStore(PG_URL, { schema: newer })).rejects.toThrow(
      /schema version 99, written by a newer lotwise/,
    );
    const client = new pg.Client({ connectionString: PG_URL });
    await client.connect();
    await client.query(`CREATE SCHEMA "${foreign}"; CREATE TABLE "${foreign}".mine (x int)`);
    await expect(openPgStore(PG_URL, { schema: foreign })).rejects.toThrow(/not a lotwise store/);
    const tables = await client.query(
      "SELECT table_name FROM information_schema.tables WHERE table_schema = $1",
      [foreign],
    );
    await client.end();
    expect(tables.rows.map((r) => r.table_name)).toEqual(["mine"]);
  });

  it("migrates a version-4 schema holding jobs to the current version, its jobs becoming backtest jobs", async () => {
    const schema = `lw_contract_${randomBytes(6).toString("hex")}`;
    schemas.add(schema);
    const client = new pg.Client({ connectionString: PG_URL });
    await client.connect();
    try {
      await client.query(`CREATE SCHEMA "${schema}"; SET search_path = "${schema}"`);
      await client.query(
        "CREATE TABLE lotwise_schema (version integer PRIMARY KEY, description text NOT NULL, applied text NOT NULL)",
      );
      for (const m of PG_MIGRATIONS.filter((x) => x.version <= 4)) {
        await client.query(m.sql);
        await client.query("INSERT INTO lotwise_schema VALUES ($1, $2, 'then')", [m.version, m.description]);
      }
      await client.query(`
        INSERT INTO organizations VALUES ('o1', 'Org', 't', 't');
        INSERT INTO clients (uuid, organization_uuid, created, modified) VALUES ('c1', 'o1', 't', 't');
        INSERT INTO accounts (uuid, organization_uuid, client_uuid, cash_value_usd, created, modified)
          VALUES ('a1', 'o1', 'c1', 12.50, 't', 't');
        INSERT INTO backtest_jobs (id, organization_uuid, account_uuid, status, params, resolved_params, created_at)
          VALUES ('j1', 'o1', 'a1', 'PENDING', '{"p":1}', '{}', '2026-01-01T00:00:00.000Z');
        INSERT INTO tax_lots (uuid, account_uuid, position, theme_asset_id, quantity, cost_basis, trade_date)
          VALUES ('l1', 'a1', 0, 'AAPL:XNAS', 10.50, 150.2500, '2024-03-01');`);
    } finally {
      await client.end();
    }
    const store = track(await openPgStore(PG_URL, { schema }));
    expect(await store.schemaVersion()).toBe(SCHEMA_VERSION);
    expect(await store.backtestJobs.get("o1", "j1")).toMatchObject({
      kind: "backtest",
      accountUuid: "a1",
      params: { p: 1 },
      status: "PENDING",
    });
    expect((await store.accounts.getInOrganization("o1", "a1"))?.cashValueUsd).toBe("12.50");
    // Lots written before version 6 are long lots, read as before; the ledger sees no short lot.
    expect((await store.accounts.lots("a1")).map((l) => [l.uuid, l.quantity, l.costBasis])).toEqual([
      ["l1", "10.50", "150.2500"],
    ]);
    expect(await store.ledger.shortLots("a1")).toEqual([]);
    const scan = await store.backtestJobs.create("o1", null, {}, {}, progress, { kind: "scan" });
    expect(scan.accountUuid).toBeNull();
    await expect(
      store.db.run("UPDATE backtest_jobs SET account_uuid = NULL WHERE id = 'j1'"),
    ).rejects.toThrow(/backtest_jobs_kind_account/);
  });

  it("keeps the change token when the rows behind it are folded together", async () => {
    const schema = `lw_contract_${randomBytes(6).toString("hex")}`;
    schemas.add(schema);
    const store = track(await openPgStore(PG_URL, { schema }));
    await store.organizations.create("A");
    // 1,500 committed transactions' rows (their ids far above any real one), then a token read, which folds them.
    await store.db.run(
      "INSERT INTO lotwise_changes (tx, n) SELECT 1e12 + g, 1 FROM generate_series(1, 1500) g",
    );
    const token = await store.changeToken();
    for (
      let i = 0;
      i < 100 && ((await store.db.value<number>("SELECT count(*)::int FROM lotwise_changes")) ?? 0) > 1;
      i++
    )
      await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await store.db.value<number>("SELECT count(*)::int FROM lotwise_changes")).toBe(1);
    expect(await store.changeToken()).toBe(token);
    await store.organizations.create("B");
    expect(await store.changeToken()).not.toBe(token);
    // Writers fold the table too (one transaction in 256), without moving the token: each write adds exactly 1.
    await store.db.run(
      "INSERT INTO lotwise_changes (tx, n) SELECT 2e12 + g, 1 FROM generate_series(1, 1500) g",
    );
    const sum = async () => Number(await store.db.value<string>("SELECT sum(n)::text FROM lotwise_changes"));
    const start = await sum(); // not changeToken(): its read would fold the table itself
    let writes = 0;
    while (
      writes < 2000 &&
      ((await store.db.value<number>("SELECT count(*)::int FROM lotwise_changes")) ?? 0) > 1000
    ) {
      await store.db.run("UPDATE organizations SET name = name");
      writes++;
    }
    expect(writes).toBeLessThan(2000);
    expect(Number((await store.db.value<string>("SELECT sum(n)::text FROM lotwise_changes"))!)).toBe(
      start + writes,
    );
  });

  it("rolls back a transaction whose failed statement was caught inside it, and reports that statement's error", async () => {
    const schema = `lw_contract_${randomBytes(6).toString("hex")}`;
    schemas.add(schema);
    const store = track(await openPgStore(PG_URL, { schema }));
    const err = await store
      .transaction(async (tx) => {
        await tx.organizations.create("kept?");
        await tx.clients.create("no-such-org").catch(() => undefined);
        return "swallowed";
      })
      .catch((e: unknown) => e);
    expect((err as Error).message).toMatch(/foreign key/);
    expect(await store.organizations.list()).toEqual([]);
    // A failing statement left running when the function returned: COMMIT finds the transaction aborted.
    const late = await store
      .transaction(async (tx) => {
        await tx.organizations.create("kept?");
        void tx.clients.create("no-such-org").catch(() => undefined);
        return "returned early";
      })
      .catch((e: unknown) => e);
    expect((late as Error).message).toMatch(/foreign key/);
    expect(await store.organizations.list()).toEqual([]);
  });
});

/** A ledger book of one account read from the store (the service will do the same). */
async function bookOf(store: LotwiseStore, org: string, accountUuid: string): Promise<LedgerBook> {
  const account = await store.accounts.getInOrganization(org, accountUuid);
  return {
    accountId: accountUuid,
    cashUsd: new TaxDecimal(account!.cashValueUsd),
    lots: (await store.accounts.lots(accountUuid)).map(taxLotFromRecord),
    shortLots: (await store.ledger.shortLots(accountUuid)).map(shortLotFromRecord),
    realized: (await store.ledger.realized({ accountUuid }, { from: "0000-01-01", to: "9999-12-31" })).map(
      entryFromRecord,
    ),
    appliedActionIds: (await store.ledger.appliedActions(accountUuid)).map((a) => a.actionId),
  };
}

/** A batch that lists every lot of the account after it (`lotsAfter`), not only the changes. */
type WholeBatch = Extract<LedgerBatch, { lotsAfter: readonly unknown[] }>;

/** The store batch of one core application (executions from the API). */
function batchOf(before: LedgerBook, executions: Execution[], result: ExecutionsResult): WholeBatch {
  return {
    executions: executions.map((e) => executionInput(e, { source: "api" })),
    realized: result.entries.map((e) => realizedInput(e)),
    lotsAfter: result.book.lots.map(ledgerLotInput),
    shortLotsAfter: (result.book.shortLots ?? []).map(shortLotInput),
    cashDelta: result.book.cashUsd.minus(before.cashUsd).toFixed(),
  };
}

/** Apply executions to an account through the core and store the result. */
async function trade(
  store: LotwiseStore,
  org: string,
  accountUuid: string,
  executions: Execution[],
  household?: HouseholdView,
): Promise<{ result: ExecutionsResult; batch: WholeBatch }> {
  const before = await bookOf(store, org, accountUuid);
  const book = household === undefined ? before : { ...before, household };
  const result = applyExecutions(book, executions);
  const batch = batchOf(before, executions, result);
  await store.ledger.applyBatch(accountUuid, batch);
  return { result, batch };
}

const WIDE = { from: "0000-01-01", to: "9999-12-31" };

/** Every read the ledger and the account offer, for before/after comparisons. */
async function ledgerSnapshot(store: LotwiseStore, org: string, accounts: string[]) {
  const out: unknown[] = [];
  for (const a of accounts)
    out.push({
      account: await store.accounts.getInOrganization(org, a),
      lots: await store.accounts.lots(a),
      token: await store.accounts.lotsToken(a),
      shortLots: await store.ledger.shortLots(a),
      executions: await store.ledger.executions(a),
      realized: await store.ledger.realized({ accountUuid: a }, WIDE),
      applied: await store.ledger.appliedActions(a),
    });
  out.push(await store.ledger.corporateActions());
  return out;
}

for (const engine of engines) {
  describe.skipIf(engine.skip)(`ledger store contract (${engine.name})`, () => {
    async function setup() {
      const store = await engine.open();
      const org = (await store.organizations.create("Org")).uuid;
      const client = (await store.clients.create(org)).uuid;
      const a = (await store.accounts.create(org, client, { cashValueUsd: "10000.00" })).uuid;
      const b = (await store.accounts.create(org, client, { cashValueUsd: "500" })).uuid;
      const otherClient = (await store.clients.create(org)).uuid;
      const c = (await store.accounts.create(org, otherClient, { cashValueUsd: "0" })).uuid;
      return { store, org, client, a, b, c };
    }

    const buy = (id: string, date: string, quantity: string, price: string): Execution => ({
      id,
      kind: "buy",
      themeAssetId: "XYZ:XNYS",
      tradeDate: date,
      quantity,
      price,
    });

    it("reads realized entries back exactly from the lean record and from the whole entry stored before it", async () => {
      const { store, org, a } = await setup();
      await trade(store, org, a, [
        buy("e1", "2025-01-10", "30", "50"),
        buy("e2", "2025-01-11", "7", "49.37"),
      ]);
      // A loss sale of a third of each lot (basis pro rata: 64-digit decimals), fees split; a purchase within 30 days
      // washes it (the rows are rewritten with matches); a short sale and a partial cover (an entry with openDate).
      const { result: sold } = await trade(store, org, a, [
        {
          id: "e3",
          kind: "sell",
          themeAssetId: "XYZ:XNYS",
          tradeDate: "2025-03-10",
          quantity: "12.5",
          price: "41.13",
          fees: "1.07",
          lots: [
            { lotId: "e1", quantity: "10" },
            { lotId: "e2", quantity: "2.5" },
          ],
        },
      ]);
      const { result: washed } = await trade(store, org, a, [
        buy("e4", "2025-03-20", "3", "40"),
        {
          id: "e5",
          kind: "short_order",
          themeAssetId: "ABC:XNAS",
          tradeDate: "2025-03-21",
          quantity: "9",
          price: "33.3",
        },
        {
          id: "e6",
          kind: "short_cover",
          themeAssetId: "ABC:XNAS",
          tradeDate: "2025-03-24",
          quantity: "4",
          price: "31",
        },
      ]);
      const written = new Map<string, LedgerEntry>();
      for (const e of [...sold.entries, ...washed.entries]) written.set(e.id, e);
      expect([...written.keys()].sort()).toEqual(["e3:1", "e3:2", "e6:1"]);
      expect(written.get("e3:1")!.record.washSaleMatches).toHaveLength(1);
      const readBack = async () =>
        new Map(
          (await store.ledger.realized({ accountUuid: a }, WIDE)).map(
            (r) => [r.entryId, entryFromRecord(r)] as const,
          ),
        );
      const lean = await store.ledger.realized({ accountUuid: a }, WIDE);
      // The lean record leaves out what the columns hold.
      for (const r of lean) expect(r.record).not.toHaveProperty("id");
      for (const [id, e] of await readBack()) expect(JSON.stringify(e)).toBe(JSON.stringify(written.get(id)));
      // Rows written whole (as before the lean form) read back to the same entries.
      await store.ledger.applyBatch(a, {
        executions: [],
        realized: [...written.values()].map((e) => ({ ...realizedInput(e), record: e })),
        lotChanges: { inserted: [], insertedShort: [], updated: [], updatedShort: [], deleted: [] },
        cashDelta: "0",
      });
      for (const r of await store.ledger.realized({ accountUuid: a }, WIDE))
        expect(r.record).toHaveProperty("id");
      for (const [id, e] of await readBack()) expect(JSON.stringify(e)).toBe(JSON.stringify(written.get(id)));
      // An entry whose record's keys are not in the core's order is stored whole and read back with its own order.
      const e31 = written.get("e3:1")!;
      const { lotId, ...rest } = e31.record;
      const reordered: LedgerEntry = { ...e31, record: { ...rest, lotId } };
      const input = realizedInput(reordered);
      expect(input.record).toBe(reordered);
      await store.ledger.applyBatch(a, {
        executions: [],
        realized: [input],
        lotChanges: { inserted: [], insertedShort: [], updated: [], updatedShort: [], deleted: [] },
        cashDelta: "0",
      });
      expect(JSON.stringify((await readBack()).get("e3:1"))).toBe(JSON.stringify(reordered));
    });

    it("stores a traded batch: long and short lots, cash, executions and realized rows read back exactly", async () => {
      const { store, org, a } = await setup();
      await trade(store, org, a, [buy("e1", "2025-01-10", "100", "50")]);
      const tokenAfterBuy = await store.accounts.lotsToken(a);
      const { result } = await trade(store, org, a, [
        {
          id: "e2",
          kind: "sell",
          themeAssetId: "XYZ:XNYS",
          tradeDate: "2025-03-10",
          quantity: "40",
          price: "45",
          lots: [{ lotId: "e1", quantity: "40" }],
        },
        {
          id: "e3",
          kind: "short_order",
          themeAssetId: "ABC:XNAS",
          tradeDate: "2025-03-11",
          quantity: "10",
          price: "100",
          fees: "2",
        },
      ]);
      // Cash: 10000 - 5000 (buy) + 1800 (sale) + 998 (short sale, net of fees).
      expect((await store.accounts.getInOrganization(org, a))?.cashValueUsd).toBe("7798.00");
      // Long reads return the long lot only, in the record shape of every other lot (no side field).
      const lots = await store.accounts.lots(a);
      expect(lots).toEqual([
        {
          uuid: "e1",
          accountUuid: a,
          themeAssetId: "XYZ:XNYS",
          quantity: "60",
          costBasis: "3000",
          costBasisUnit: "total",
          costBasisCurrency: "USD",
          fxRate: "1",
          tradeDate: "2025-01-10",
          holdingPeriodStart: null,
          washSaleDate: null,
          lastSoldForLossDate: "2025-03-10",
        },
      ]);
      expect((await store.accounts.lotRows(a)).map((r) => r[0])).toEqual(["e1"]);
      expect(await store.ledger.shortLots(a)).toEqual([
        {
          uuid: "e3",
          accountUuid: a,
          themeAssetId: "ABC:XNAS",
          quantity: "10",
          proceeds: "998",
          currency: "USD",
          fxRate: "1",
          openDate: "2025-03-11",
        },
      ]);
      expect(await store.accounts.lotsToken(a)).not.toBe(tokenAfterBuy);
      const executions = await store.ledger.executions(a);
      expect(executions.map((e) => [e.executionId, e.kind, e.quantity, e.price, e.fees, e.source])).toEqual([
        ["e1", "buy", "100", "50", "0", "api"],
        ["e2", "sell", "40", "45", "0", "api"],
        ["e3", "short_order", "10", "100", "2", "api"],
      ]);
      expect(executions[1]?.lots).toEqual([{ lotId: "e1", quantity: "40" }]);
      expect(await store.ledger.executions(a, { from: "2025-03-11" })).toHaveLength(1);
      const realized = await store.ledger.realized({ accountUuid: a }, { year: 2025 });
      expect(realized).toHaveLength(1);
      expect(realized[0]).toMatchObject({
        entryId: "e2:1",
        sourceId: "e2",
        lotId: "e1",
        side: "long",
        quantity: "40",
        dateAcquired: "2025-01-10",
        dateSold: "2025-03-10",
        proceeds: "1800",
        costBasis: "2000",
        adjustmentCode: "",
        adjustment: "0",
        gain: "-200",
        term: "short_term",
        loss: true,
      });
      // The stored entry is the core's entry, decimals included.
      expect(JSON.stringify(entryFromRecord(realized[0]!))).toBe(JSON.stringify(result.entries[0]));
      expect(await store.ledger.realized({ accountUuid: a }, { year: 2024 })).toEqual([]);

      // Covering the short closes the short lot (a short-term gain of 998 - 801 = 197) and changes the token.
      const tokenBeforeCover = await store.accounts.lotsToken(a);
      await trade(store, org, a, [
        {
          id: "e4",
          kind: "short_cover",
          themeAssetId: "ABC:XNAS",
          tradeDate: "2025-04-01",
          quantity: "10",
          price: "80",
          fees: "1",
          lots: [{ lotId: "e3" }],
        },
      ]);
      expect(await store.ledger.shortLots(a)).toEqual([]);
      expect(await store.accounts.lotsToken(a)).not.toBe(tokenBeforeCover);
      const cover = (
        await store.ledger.realized({ accountUuid: a }, { from: "2025-04-01", to: "2025-04-01" })
      )[0];
      expect(cover).toMatchObject({ side: "short", gain: "197", term: "short_term", openDate: "2025-03-11" });
      expect((await store.accounts.getInOrganization(org, a))?.cashValueUsd).toBe("6997.00");
      // Same-date executions read back in the order applied, not by id.
      await trade(store, org, a, [buy("zz", "2025-05-01", "1", "10"), buy("aa", "2025-05-01", "1", "10")]);
      await trade(store, org, a, [buy("mm", "2025-05-01", "1", "10")]);
      expect(
        (await store.ledger.executions(a, { from: "2025-05-01", to: "2025-05-01" })).map(
          (e) => e.executionId,
        ),
      ).toEqual(["zz", "aa", "mm"]);
    });

    it("writes a batch given as lot changes like the same batch given as the whole lot set, touching no other lot", async () => {
      // Two stores, the same trades: one written with lotsAfter (every lot), one with lotChanges (only the changes).
      const sell: Execution = {
        id: "e3",
        kind: "sell",
        themeAssetId: "XYZ:XNYS",
        tradeDate: "2025-03-10",
        quantity: "120",
        price: "45",
        lots: [
          { lotId: "e1", quantity: "100" },
          { lotId: "e2", quantity: "20" },
        ],
      };
      const short: Execution = {
        id: "e4",
        kind: "short_order",
        themeAssetId: "ABC:XNAS",
        tradeDate: "2025-03-11",
        quantity: "10",
        price: "100",
      };
      const reads = async (store: LotwiseStore, org: string, a: string) => {
        const strip = <T extends { accountUuid?: string }>(x: T) => ({ ...x, accountUuid: "-" });
        return {
          lots: (await store.accounts.lots(a)).map(strip),
          shortLots: (await store.ledger.shortLots(a)).map(strip),
          cash: (await store.accounts.getInOrganization(org, a))?.cashValueUsd,
          realized: (await store.ledger.realized({ accountUuid: a }, WIDE)).map((r) => ({
            ...r,
            accountUuid: "-",
            clientUuid: "-",
            record: {
              ...(r.record as object),
              record: { ...(r.record as { record: object }).record, accountId: "-" },
            },
          })),
        };
      };
      const results = [];
      for (const mode of ["whole", "changes"] as const) {
        const { store, org, a } = await setup();
        await trade(store, org, a, [
          buy("e1", "2025-01-10", "100", "50"),
          buy("e2", "2025-02-10", "30", "52"),
          buy("e5", "2025-02-11", "7", "51"),
        ]);
        // An imported lot stored per share with a trailing zero, of another asset: no batch below changes it.
        await store.accounts.appendLots(a, [
          lot({ themeAssetId: "KEEP:XNYS", quantity: "4", costBasis: "10.50", costBasisUnit: "per_share" }),
        ]);
        const kept = (await store.accounts.lots(a)).find((l) => l.themeAssetId === "KEEP:XNYS");
        const before = await bookOf(store, org, a);
        const result = applyExecutions(before, [sell, short, buy("e6", "2025-03-12", "5", "44")]);
        const whole = batchOf(before, [sell, short], result);
        const changes = ledgerLotChanges(before, result.book);
        // e1 sold whole, e2 partly, e5 bought 30 days before the loss sale (washed: basis changed), KEEP untouched.
        expect(changes.deleted).toEqual(["e1"]);
        expect(changes.updated.map((l) => l.uuid).sort()).toEqual(["e2", "e5"]);
        expect(changes.inserted.map((l) => l.uuid)).toEqual(["e6"]);
        expect(changes.insertedShort.map((l) => l.uuid)).toEqual(["e4"]);
        const { lotsAfter: _l, shortLotsAfter: _s, ...common } = whole;
        const written = await store.ledger.applyBatch(
          a,
          mode === "whole" ? whole : { ...common, lotChanges: changes },
        );
        expect(written).toMatchObject({ lotsInserted: 2, lotsDeleted: 1 });
        const keptAfter = (await store.accounts.lots(a)).find((l) => l.uuid === kept!.uuid);
        results.push({ mode, reads: await reads(store, org, a), keptAfter, updated: written.lotsUpdated });
      }
      const [w, c] = results;
      const others = (r: typeof w) => ({
        ...r!.reads,
        lots: r!.reads.lots.filter((l) => l.uuid !== r!.keptAfter!.uuid),
      });
      expect(others(c)).toEqual(others(w));
      expect(others(c).lots.map((l) => l.uuid)).toEqual(["e2", "e5", "e6"]);
      // The whole-set batch rewrites the imported lot in its own terms; the change batch leaves it as stored.
      expect(w!.keptAfter).toMatchObject({ costBasis: "42", costBasisUnit: "total" });
      expect(c!.keptAfter).toMatchObject({ costBasis: "10.50", costBasisUnit: "per_share" });
      expect(c!.updated).toBe(2);
    });

    it("refuses a lot-changes batch naming a lot the account no longer holds (lots_changed), writing nothing", async () => {
      const { store, org, a } = await setup();
      await trade(store, org, a, [buy("e1", "2025-01-10", "100", "50"), buy("e2", "2025-01-11", "5", "50")]);
      const before = await ledgerSnapshot(store, org, [a]);
      const lots = (await store.accounts.lots(a)).map((r) => ledgerLotInput(taxLotFromRecord(r)));
      const common = {
        executions: [executionInput(buy("e9", "2025-01-12", "1", "1"), { source: "api" })],
        realized: [],
        cashDelta: "-1",
      };
      for (const lotChanges of [
        {
          inserted: [],
          insertedShort: [],
          updated: [{ ...lots[0]!, uuid: "gone" }],
          updatedShort: [],
          deleted: [],
        },
        { inserted: [], insertedShort: [], updated: [], updatedShort: [], deleted: ["e2", "gone-too"] },
        // A long lot updated as a short one.
        {
          inserted: [],
          insertedShort: [],
          updated: [],
          updatedShort: [
            {
              uuid: "e1",
              themeAssetId: "XYZ:XNYS",
              quantity: "1",
              proceeds: "1",
              currency: "USD",
              fxRate: "1",
              openDate: "2025-01-10",
            },
          ],
          deleted: [],
        },
      ]) {
        const err = await store.ledger.applyBatch(a, { ...common, lotChanges }).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(ConflictError);
        expect(err).toMatchObject({ code: "lots_changed" });
        expect(await ledgerSnapshot(store, org, [a])).toEqual(before);
      }
      await expect(
        store.ledger.applyBatch(a, {
          ...common,
          lotChanges: {
            inserted: [],
            insertedShort: [],
            updated: [lots[0]!],
            updatedShort: [],
            deleted: ["e1"],
          },
        }),
      ).rejects.toThrow(/twice/);
      expect(await ledgerSnapshot(store, org, [a])).toEqual(before);
    });

    it("lists a proposal's fills (order and quantity, in the order applied) and no other execution", async () => {
      const { store, org, a } = await setup();
      const P = "0d4f3a51-7c2e-4b8a-9f10-5e6d7c8b9a0f";
      const Q = "0d4f3a51-7c2e-4b8a-9f10-5e6d7c8b9a10"; // sorts right after P
      const executions = [
        buy("e1", "2025-01-09", "1", "50"),
        buy(`${P}:1:1`, "2025-01-10", "5", "50"),
        buy(`${P}:0:1`, "2025-01-10", "2", "50"),
        buy(`${Q}:0:1`, "2025-01-10", "4", "50"),
        buy(`${P}:1:B-7`, "2025-01-11", "3", "51"),
      ];
      const before = await bookOf(store, org, a);
      const result = applyExecutions(before, executions);
      const batch = batchOf(before, executions, result);
      batch.executions = executions.map((e) => {
        const [proposal, order] = e.id.split(":");
        return order === undefined
          ? executionInput(e, { source: "api" })
          : executionInput(e, { source: "proposal", proposalUuid: proposal!, orderIndex: Number(order) });
      });
      await store.ledger.applyBatch(a, batch);
      expect(await store.ledger.proposalFills(a, P)).toEqual([
        { orderIndex: 1, quantity: "5" },
        { orderIndex: 0, quantity: "2" },
        { orderIndex: 1, quantity: "3" },
      ]);
      expect(await store.ledger.proposalFills(a, Q)).toEqual([{ orderIndex: 0, quantity: "4" }]);
      expect(await store.ledger.proposalFills(a, "e1")).toEqual([]);
    });

    it("refuses an execution or action already applied, naming it, and leaves every read unchanged", async () => {
      const { store, org, a } = await setup();
      const { batch } = await trade(store, org, a, [buy("e1", "2025-01-10", "100", "50")]);
      await store.ledger.addCorporateActions([
        {
          id: "split-1",
          kind: "split",
          themeAssetId: "XYZ:XNYS",
          exDate: "2025-02-03",
          payDate: null,
          params: { ratio: 2 },
        },
      ]);
      await store.ledger.applyBatch(a, {
        executions: [],
        realized: [],
        lotsAfter: batch.lotsAfter.map((l) => ({ ...l, quantity: "200" })),
        shortLotsAfter: [],
        cashDelta: "0",
        appliedActionIds: ["split-1"],
      });
      const before = await ledgerSnapshot(store, org, [a]);
      expect(await store.ledger.appliedExecutionIds(a, ["new", "e1"])).toEqual(["e1"]);
      expect(await store.ledger.appliedExecutionIds(a, [])).toEqual([]);
      const again = await store.ledger
        .applyBatch(a, {
          ...batch,
          executions: [...batch.executions, { ...batch.executions[0]!, executionId: "new" }],
        })
        .catch((e: unknown) => e);
      expect(again).toBeInstanceOf(ConflictError);
      expect(again).toMatchObject({ code: "execution_already_applied" });
      expect((again as Error).message).toContain("e1");
      expect((again as Error).message).not.toContain("new");
      const action = await store.ledger
        .applyBatch(a, {
          executions: [],
          realized: [],
          lotsAfter: [],
          shortLotsAfter: [],
          cashDelta: "5",
          appliedActionIds: ["split-1"],
        })
        .catch((e: unknown) => e);
      expect(action).toMatchObject({ code: "action_already_applied" });
      expect((action as Error).message).toContain("split-1");
      expect(await ledgerSnapshot(store, org, [a])).toEqual(before);
      expect((await store.ledger.appliedActions(a)).map((x) => x.actionId)).toEqual(["split-1"]);
      expect((await store.accounts.lots(a))[0]?.quantity).toBe("200");
    });

    it("writes nothing of a batch that fails half-way (a realized row violating a constraint)", async () => {
      const { store, org, a } = await setup();
      await trade(store, org, a, [buy("e1", "2025-01-10", "100", "50")]);
      const before = await ledgerSnapshot(store, org, [a]);
      const sell: Execution = {
        id: "e2",
        kind: "sell",
        themeAssetId: "XYZ:XNYS",
        tradeDate: "2025-03-10",
        quantity: "40",
        price: "45",
      };
      const book = await bookOf(store, org, a);
      const result = applyExecutions(book, [sell, buy("e3", "2025-03-12", "5", "44")]);
      const batch = batchOf(book, [sell], result);
      // Lots, cash and executions are written before the realized rows: the bad row must undo them all.
      const bad = {
        ...batch,
        realized: [
          ...batch.realized,
          { ...batch.realized[0]!, entryId: "x", term: "medium" as "short_term" },
        ],
      };
      await expect(store.ledger.applyBatch(a, bad)).rejects.toThrow();
      expect(await ledgerSnapshot(store, org, [a])).toEqual(before);
      // Inside a caller's transaction too: the batch fails, the caller's earlier write stays with the caller.
      await expect(
        store.transaction(async (tx) => {
          await tx.accounts.update(org, (await tx.accounts.getInOrganization(org, a))!.clientUuid, a, {
            name: "x",
          });
          await tx.ledger.applyBatch(a, bad);
        }),
      ).rejects.toThrow();
      expect(await ledgerSnapshot(store, org, [a])).toEqual(before);
      // A caller that catches the failed batch and goes on cannot commit half of it: its transaction is rolled back.
      const caught = await store
        .transaction(async (tx) => {
          await tx.accounts.update(org, (await tx.accounts.getInOrganization(org, a))!.clientUuid, a, {
            name: "y",
          });
          const err = await tx.ledger.applyBatch(a, bad).catch((e: unknown) => e);
          expect(err).toBeInstanceOf(Error);
          return "went on";
        })
        .catch((e: unknown) => e);
      expect(caught).toBeInstanceOf(Error);
      expect(await ledgerSnapshot(store, org, [a])).toEqual(before);
      // A lot id listed twice is refused before anything is written.
      await expect(
        store.ledger.applyBatch(a, { ...batch, lotsAfter: [...batch.lotsAfter, batch.lotsAfter[0]!] }),
      ).rejects.toThrow(/twice/);
      expect(await ledgerSnapshot(store, org, [a])).toEqual(before);
      // A refusal before any write (an execution already applied) leaves the caller's transaction usable.
      const applied = await trade(store, org, a, [buy("e7", "2025-03-20", "1", "40")]);
      const afterBuy = await ledgerSnapshot(store, org, [a]);
      expect(
        await store.transaction(async (tx) => {
          const err = await tx.ledger.applyBatch(a, applied.batch).catch((e: unknown) => e);
          expect(err).toMatchObject({ code: "execution_already_applied" });
          return "committed";
        }),
      ).toBe("committed");
      expect(await ledgerSnapshot(store, org, [a])).toEqual(afterBuy);
    });

    it("reads a client's household: lots and loss sales of both accounts, and writes a wash sale into the other account", async () => {
      const { store, org, client, a, b, c } = await setup();
      await trade(store, org, a, [buy("a1", "2025-01-10", "100", "50")]);
      await trade(store, org, b, [buy("b1", "2025-03-01", "5", "42")]);
      await trade(store, org, c, [buy("c1", "2025-03-02", "7", "41")]);
      const activity = await store.ledger.householdActivity(client, "2025-02-08", "2025-04-09");
      expect(activity.lots.map((l) => [l.accountUuid, l.uuid])).toEqual([[b, "b1"]].sort());
      // A sells everything at a loss; B's 5 shares bought 9 days before are replacements (docs/ledger.md example).
      const household: HouseholdView = {
        lots: activity.lots.map(taxLotFromRecord),
        realized: activity.lossSales.map(entryFromRecord),
      };
      const before = await bookOf(store, org, a);
      const sale: Execution = {
        id: "a2",
        kind: "sell",
        themeAssetId: "XYZ:XNYS",
        tradeDate: "2025-03-10",
        quantity: "100",
        price: "40",
        lots: [{ lotId: "a1", quantity: "100" }],
      };
      const result = applyExecutions({ ...before, household }, [sale]);
      const changed = (result.book.household?.lots ?? []).filter(
        (l) => JSON.stringify(l) !== JSON.stringify(household.lots.find((x) => x.id === l.id)),
      );
      expect(changed.map((l) => l.id)).toEqual(["b1"]);
      await store.ledger.applyBatch(a, {
        ...batchOf(before, [sale], result),
        household: [{ accountUuid: b, realized: [], lotsChanged: changed.map(ledgerLotInput) }],
      });
      expect(await store.accounts.lots(b)).toMatchObject([
        { uuid: "b1", costBasis: "260", holdingPeriodStart: "2025-01-01", washSaleDate: "2025-03-10" },
      ]);
      const rowsA = await store.ledger.realized({ accountUuid: a }, { year: 2025 });
      expect(rowsA.map((r) => [r.adjustmentCode, r.adjustment, r.gain, r.clientUuid])).toEqual([
        ["W", "50", "-950", client],
      ]);
      const after = await store.ledger.householdActivity(client, "2025-03-01", "2025-03-31");
      expect(after.lossSales.map((r) => [r.accountUuid, r.entryId])).toEqual([[a, "a2:1"]]);
      expect(after.lots.map((l) => l.uuid)).toEqual(["b1"]);
      // Leaving an account out drops its lots and its loss sales, and only those.
      const exceptA = await store.ledger.householdActivity(client, "2025-03-01", "2025-03-31", a);
      expect([exceptA.lots.map((l) => l.uuid), exceptA.lossSales]).toEqual([["b1"], []]);
      const exceptB = await store.ledger.householdActivity(client, "2025-03-01", "2025-03-31", b);
      expect([exceptB.lots, exceptB.lossSales.map((r) => r.entryId)]).toEqual([[], ["a2:1"]]);
      // Household reads by client span both accounts; the other client's account is never included.
      await trade(store, org, b, [
        {
          id: "b2",
          kind: "sell",
          themeAssetId: "XYZ:XNYS",
          tradeDate: "2025-06-02",
          quantity: "5",
          price: "60",
        },
      ]);
      const byClient = await store.ledger.realized({ clientUuid: client }, { year: 2025 });
      expect(byClient.map((r) => [r.accountUuid, r.entryId])).toEqual([
        [a, "a2:1"],
        [b, "b2:1"],
      ]);
      expect(
        (await store.ledger.realized({ clientUuid: client }, { year: 2025 })).some(
          (r) => r.accountUuid === c,
        ),
      ).toBe(false);
      // A household update naming another client's account is refused, and nothing of the batch is written.
      const snap = await ledgerSnapshot(store, org, [a, b, c]);
      await expect(
        store.ledger.applyBatch(a, {
          executions: [],
          realized: [],
          lotsAfter: [],
          shortLotsAfter: [],
          cashDelta: "1",
          household: [{ accountUuid: c, realized: [], lotsChanged: [] }],
        }),
      ).rejects.toMatchObject({ code: "household_account_mismatch" });
      expect(await ledgerSnapshot(store, org, [a, b, c])).toEqual(snap);
      // The same refusal caught inside a caller's transaction: the caller's own write commits, the batch wrote nothing
      // (its lot deletions and cash come after every check), and an unknown household lot is refused the same way.
      const lotsOfA = await store.accounts.lots(a);
      await store.transaction(async (tx) => {
        await tx.accounts.update(org, client, a, { name: "kept" });
        for (const household of [
          [{ accountUuid: c, realized: [], lotsChanged: [] }],
          [
            {
              accountUuid: b,
              realized: [],
              lotsChanged: [{ ...lot(), uuid: "nope" }],
            },
          ],
        ]) {
          const err = await tx.ledger
            .applyBatch(a, {
              executions: [],
              realized: [],
              lotsAfter: [],
              shortLotsAfter: [],
              cashDelta: "1",
              household,
            })
            .catch((e: unknown) => e);
          expect(err).toMatchObject({
            code: household[0]!.accountUuid === c ? "household_account_mismatch" : "lot_not_found",
          });
        }
      });
      const account = await store.accounts.getInOrganization(org, a);
      expect(account?.name).toBe("kept");
      expect(account?.cashValueUsd).toBe(
        (snap[0] as { account: { cashValueUsd: string } }).account.cashValueUsd,
      );
      expect(await store.accounts.lots(a)).toEqual(lotsOfA);
    });

    it("keeps short lots through lot imports and replaceLots, which count and replace long lots only", async () => {
      const { store, org, a } = await setup();
      await trade(store, org, a, [
        buy("e1", "2025-01-10", "100", "50"),
        {
          id: "s1",
          kind: "short_order",
          themeAssetId: "ABC:XNAS",
          tradeDate: "2025-01-11",
          quantity: "3",
          price: "20",
        },
      ]);
      const session = await store.beginLotImport();
      await session.add([lot(), lot({ themeAssetId: "MSFT:XNAS" })]);
      expect(await session.accountLotCount(a)).toBe(1);
      expect(await session.commit(a, "replace")).toEqual({ before: 1, after: 2 });
      expect((await store.accounts.lots(a)).map((l) => l.themeAssetId)).toEqual(["AAPL:XNAS", "MSFT:XNAS"]);
      expect((await store.ledger.shortLots(a)).map((l) => [l.uuid, l.quantity, l.proceeds])).toEqual([
        ["s1", "3", "60"],
      ]);
      await store.accounts.replaceLots(a, [lot({ quantity: "7" })]);
      expect((await store.accounts.lots(a)).map((l) => l.quantity)).toEqual(["7"]);
      expect(await store.ledger.shortLots(a)).toHaveLength(1);
      // Every listing a lot names, long or short, is held (the market-data replace check keeps it).
      expect((await store.accounts.heldListings()).map((h) => h.themeAssetId)).toEqual([
        "AAPL:XNAS",
        "ABC:XNAS",
      ]);
    });

    it("reads realized rows of one date in the order written, a rewritten row keeping its place", async () => {
      const { store, org, a } = await setup();
      await trade(store, org, a, [buy("e1", "2025-01-10", "12", "50")]);
      const { batch } = await trade(store, org, a, [
        ...Array.from(
          { length: 12 },
          (_, i): Execution => ({
            id: `s${i + 1}`,
            kind: "sell",
            themeAssetId: "XYZ:XNYS",
            tradeDate: "2025-03-10",
            quantity: "1",
            price: "40",
            lots: [{ lotId: "e1", quantity: "1" }],
          }),
        ),
      ]);
      const ids = batch.realized.map((r) => r.entryId);
      expect(ids.slice(0, 3)).toEqual(["s1:1", "s2:1", "s3:1"]);
      expect((await store.ledger.realized({ accountUuid: a }, { year: 2025 })).map((r) => r.entryId)).toEqual(
        ids,
      );
      // A wash sale rewrites the first row (same id): it stays first.
      await store.ledger.applyBatch(a, {
        executions: [],
        realized: [{ ...batch.realized[0]!, adjustmentCode: "W", adjustment: "10", gain: "0" }],
        lotsAfter: [],
        shortLotsAfter: [],
        cashDelta: "0",
      });
      const rows = await store.ledger.realized({ accountUuid: a }, { year: 2025 });
      expect(rows.map((r) => r.entryId)).toEqual(ids);
      expect(rows[0]).toMatchObject({ adjustmentCode: "W", adjustment: "10", gain: "0" });
      // One entry id twice in a batch: the last one is kept, on both engines.
      await store.ledger.applyBatch(a, {
        executions: [],
        realized: [
          { ...batch.realized[1]!, adjustment: "1" },
          { ...batch.realized[1]!, adjustment: "2" },
        ],
        lotsAfter: [],
        shortLotsAfter: [],
        cashDelta: "0",
      });
      expect((await store.ledger.realized({ accountUuid: a }, { year: 2025 }))[1]?.adjustment).toBe("2");
    });

    it("stores corporate actions by id (upsert), filters them by date and listing, and restores the core's action", async () => {
      const { store } = await setup();
      const spin: CorporateAction = {
        id: "spin-1",
        type: "spin_off",
        themeAssetId: "PAR:XNYS",
        date: "2025-05-01",
        childAssetId: "KID:XNYS",
        distributionRatio: "0.5",
        basisFraction: "0.2",
      };
      const dividend: CorporateAction = {
        id: "div-1",
        type: "cash_dividend",
        themeAssetId: "XYZ:XNYS",
        date: "2025-02-03",
        payDate: "2025-02-20",
        amountPerShare: "0.50",
      };
      await store.ledger.addCorporateActions([spin, dividend].map(corporateActionRecord));
      expect((await store.ledger.corporateActions()).map((x) => x.id)).toEqual(["div-1", "spin-1"]);
      expect((await store.ledger.corporateActions({ listing: "PAR:XNYS" })).map((x) => x.id)).toEqual([
        "spin-1",
      ]);
      expect((await store.ledger.corporateActions({ from: "2025-03-01" })).map((x) => x.id)).toEqual([
        "spin-1",
      ]);
      expect((await store.ledger.corporateActions({ to: "2025-02-03" })).map((x) => x.id)).toEqual(["div-1"]);
      const [div] = await store.ledger.corporateActions({ listing: "XYZ:XNYS" });
      expect(div).toEqual({
        id: "div-1",
        kind: "cash_dividend",
        themeAssetId: "XYZ:XNYS",
        exDate: "2025-02-03",
        payDate: "2025-02-20",
        params: { amountPerShare: "0.50" },
      });
      expect(corporateActionFromRecord(div!)).toEqual(dividend);
      await store.ledger.addCorporateActions([
        corporateActionRecord({ ...dividend, amountPerShare: "0.55" }),
      ]);
      expect((await store.ledger.corporateActions({ listing: "XYZ:XNYS" }))[0]?.params).toEqual({
        amountPerShare: "0.55",
      });
      await expect(
        store.ledger.addCorporateActions([
          { ...corporateActionRecord(spin), id: "bad", kind: "bonus" as "split" },
        ]),
      ).rejects.toThrow();
      expect(await store.ledger.corporateActions()).toHaveLength(2);
    });
  });
}
