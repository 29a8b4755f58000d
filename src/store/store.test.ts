import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { lotInput } from "../../test/helpers/lot-input.js";
import type { Security } from "../core/data/types.js";
import { NotFoundError, StoreVersionError } from "../core/errors.js";
import { APPLICATION_ID, MIGRATIONS, SCHEMA_VERSION } from "./migrations.js";
import { openSqliteFile, type Store } from "./store.js";

function clock(start = Date.UTC(2026, 0, 2, 9, 30)) {
  let t = start;
  return () => {
    t += 1000;
    return new Date(t).toISOString();
  };
}

const lot = lotInput;

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

/** A store file written by the migrations up to `version` (as an older lotwise left it), open for raw SQL. */
function rawStoreAt(path: string, version: number): Database.Database {
  const raw = new Database(path);
  for (const m of MIGRATIONS.filter((x) => x.version <= version)) raw.exec(m.sql);
  raw.pragma(`application_id = ${APPLICATION_ID}`);
  raw.pragma(`user_version = ${version}`);
  return raw;
}

/** SQL of organization 'o', its client 'c' and account 'a' holding `cash`. */
const ORG_CLIENT_ACCOUNT = (cash: string) => `INSERT INTO organizations VALUES ('o', 'Org', 't', 't');
      INSERT INTO clients (uuid, organization_uuid, created, modified) VALUES ('c', 'o', 't', 't');
      INSERT INTO accounts (uuid, organization_uuid, client_uuid, cash_value_usd, created, modified)
        VALUES ('a', 'o', 'c', '${cash}', 't', 't');`;

describe("store", () => {
  let store: Store;
  let orgA: string;
  let orgB: string;

  beforeEach(() => {
    store = openSqliteFile(":memory:", { now: clock() });
    orgA = store.organizations.create("Alpha Advisors").uuid;
    orgB = store.organizations.create("Beta Wealth").uuid;
  });
  afterEach(() => store.close());

  it("creates, reads and renames organizations", () => {
    expect(store.organizations.list().map((o) => o.name)).toEqual(["Alpha Advisors", "Beta Wealth"]);
    const renamed = store.organizations.rename(orgA, "Alpha Partners");
    expect(renamed.name).toBe("Alpha Partners");
    expect(renamed.modified > renamed.created).toBe(true);
  });

  it("stores only a hash of each API key and authenticates the plaintext once issued", () => {
    const { key, record } = store.apiKeys.create(orgA, "ci");
    expect(key).toMatch(/^lw_[0-9a-f]{12}_[A-Za-z0-9_-]{43}$/);
    expect(store.apiKeys.authenticate(key)).toEqual({ organizationUuid: orgA, keyId: record.id });
    expect(JSON.stringify(store.apiKeys.list(orgA))).not.toContain(key.slice(16));
    // A wrong secret with a valid id, a malformed key and an unknown id are all rejected.
    expect(store.apiKeys.authenticate(`${key.slice(0, -1)}${key.endsWith("A") ? "B" : "A"}`)).toBeUndefined();
    expect(store.apiKeys.authenticate("not-a-key")).toBeUndefined();
    expect(store.apiKeys.authenticate(`lw_000000000000_${key.slice(16)}`)).toBeUndefined();
  });

  it("refuses a revoked key and scopes revocation to the owning organization", () => {
    const { key, record } = store.apiKeys.create(orgA);
    expect(() => store.apiKeys.revoke(orgB, record.id)).toThrow(NotFoundError);
    expect(store.apiKeys.authenticate(key)).toBeDefined();
    expect(store.apiKeys.revoke(orgA, record.id).revokedAt).not.toBeNull();
    expect(store.apiKeys.authenticate(key)).toBeUndefined();
  });

  it("creates, reads, updates and deletes clients within one organization only", () => {
    const c = store.clients.create(orgA, { externalId: "C-1", metadata: { tier: "gold" } });
    expect(store.clients.get(orgA, c.uuid)).toEqual(c);
    expect(store.clients.get(orgB, c.uuid)).toBeUndefined();
    const u = store.clients.update(orgA, c.uuid, { metadata: { tier: "platinum" } });
    expect(u.externalId).toBe("C-1");
    expect(u.metadata).toEqual({ tier: "platinum" });
    expect(() => store.clients.update(orgB, c.uuid, { externalId: "x" })).toThrow(NotFoundError);
    expect(() => store.clients.delete(orgB, c.uuid)).toThrow(NotFoundError);
    store.clients.delete(orgA, c.uuid);
    expect(store.clients.list(orgA)).toEqual([]);
  });

  it("keeps accounts under their client and replaces tax lots as a whole", () => {
    const c = store.clients.create(orgA);
    const a = store.accounts.create(orgA, c.uuid, { name: "Taxable", cashValueUsd: "1000.50" });
    expect(store.accounts.get(orgA, c.uuid, a.uuid)?.cashValueUsd).toBe("1000.50");
    expect(store.accounts.get(orgB, c.uuid, a.uuid)).toBeUndefined();
    store.accounts.replaceLots(a.uuid, [
      lot(),
      lot({ themeAssetId: "RY:XTSE", costBasisCurrency: "CAD", fxRate: "1.35" }),
    ]);
    expect(store.accounts.lots(a.uuid).map((l) => l.themeAssetId)).toEqual(["AAPL:XNAS", "RY:XTSE"]);
    const replaced = store.accounts.replaceLots(a.uuid, [lot({ quantity: "3.5" })]);
    expect(replaced).toHaveLength(1);
    expect(replaced[0]!.quantity).toBe("3.5");
    store.accounts.appendLots(a.uuid, [lot({ tradeDate: "2025-01-02" })]);
    expect(store.accounts.lots(a.uuid).map((l) => l.tradeDate)).toEqual(["2024-03-01", "2025-01-02"]);
    // The compact bulk read carries the same content, in the same order, without the account uuid; also when
    // a field holds its field separator (the read falls back to plain columns) and with every optional date set.
    const asRows = () =>
      store.accounts
        .lots(a.uuid)
        .map((l) => [
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
        ]);
    expect(store.accounts.lotRows(a.uuid)).toEqual(asRows());
    store.accounts.appendLots(a.uuid, [
      lot({
        quantity: "0.0000000001",
        costBasis: "123456789012345678901234567890.1234567891",
        costBasisUnit: "total",
        holdingPeriodStart: "2024-01-02",
        washSaleDate: "2024-03-01",
        lastSoldForLossDate: "2024-02-15",
      }),
    ]);
    expect(store.accounts.lotRows(a.uuid)).toEqual(asRows());
    expect(store.accounts.lotRows(a.uuid)[2]!.slice(8)).toEqual(["2024-01-02", "2024-03-01", "2024-02-15"]);
    store.accounts.appendLots(a.uuid, [lot({ themeAssetId: "ODD\u001fID:XNYS" })]);
    expect(store.accounts.lotRows(a.uuid)).toEqual(asRows());
    expect(store.accounts.lotRows(a.uuid)[3]![1]).toBe("ODD\u001fID:XNYS");
    const upd = store.accounts.update(orgA, c.uuid, a.uuid, { customizationConfig: { min_weight: "0.01" } });
    expect(upd.customizationConfig).toEqual({ min_weight: "0.01" });
    expect(upd.name).toBe("Taxable");
  });

  it("stores portfolio configurations as documents scoped to the organization", () => {
    const cfg = store.portfolioConfigs.create(orgA, "Core", "draft", {
      risk_aversion: "1.0",
      no_hold_tickers: [],
    });
    expect(store.portfolioConfigs.list(orgA)).toHaveLength(1);
    expect(store.portfolioConfigs.list(orgB)).toHaveLength(0);
    const u = store.portfolioConfigs.update(orgA, cfg.uuid, {
      name: "Core 2",
      status: "deployed",
      document: { risk_aversion: "2" },
    });
    expect(u).toMatchObject({ name: "Core 2", status: "deployed", document: { risk_aversion: "2" } });
    expect(() =>
      store.portfolioConfigs.update(orgB, cfg.uuid, { name: "x", status: "draft", document: {} }),
    ).toThrow(NotFoundError);
  });

  it("keeps archived asset classes readable but out of the default list", () => {
    const ac = store.assetClasses.create(orgA, "US Equity", { description: "Large caps" });
    store.assetClasses.archive(orgA, ac.uuid);
    expect(store.assetClasses.get(orgA, ac.uuid)?.archivedAt).not.toBeNull();
    expect(store.assetClasses.list(orgA)).toHaveLength(0);
    expect(store.assetClasses.list(orgA, { includeArchived: true })).toHaveLength(1);
    const c = store.clients.create(orgA);
    const a = store.accounts.create(orgA, c.uuid);
    store.accounts.replaceAssetClassSettings(a.uuid, [
      { assetClassUuid: ac.uuid, directIndexingEnabled: true, implementationSleeveUuid: null },
    ]);
    expect(store.accounts.assetClassSettings(a.uuid)).toEqual([
      { assetClassUuid: ac.uuid, directIndexingEnabled: true, implementationSleeveUuid: null },
    ]);
  });

  it("keeps theme revisions in order and snapshots per revision", () => {
    const { theme, revision } = store.themes.create(orgA, "Dividend tech", {
      universe: { preset: "us_all" },
    });
    const r2 = store.themes.revise(orgA, theme.uuid, "Dividend tech", {
      universe: { preset: "us_large_cap" },
    });
    expect(r2.revision > revision.revision).toBe(true);
    expect(store.themes.latestRevision(theme.uuid)?.methodology).toEqual({
      universe: { preset: "us_large_cap" },
    });
    expect(store.themes.latestSnapshot(theme.uuid, r2.revision)).toBeUndefined();
    store.themes.saveSnapshot({
      themeUuid: theme.uuid,
      revision: r2.revision,
      asOfDate: "2025-06-30",
      totalWeight: 1,
      constituents: [{ s: "A" }],
    });
    store.themes.saveSnapshot({
      themeUuid: theme.uuid,
      revision: r2.revision,
      asOfDate: "2025-12-31",
      totalWeight: 1,
      constituents: [{ s: "B" }],
    });
    expect(store.themes.latestSnapshot(theme.uuid, r2.revision)?.constituents).toEqual([{ s: "B" }]);
    expect(store.themes.get(orgB, theme.uuid)).toBeUndefined();
  });

  it("stores proposals immutably under their account", () => {
    const c = store.clients.create(orgA);
    const a = store.accounts.create(orgA, c.uuid);
    const p = store.proposals.create(
      orgA,
      a.uuid,
      "11111111-1111-4111-8111-111111111111",
      { w: 1 },
      { orders: [] },
    );
    expect(store.proposals.get(orgA, a.uuid, p.uuid)?.response).toEqual({ orders: [] });
    expect(store.proposals.get(orgB, a.uuid, p.uuid)).toBeUndefined();
    store.proposals.insert(orgA, a.uuid, "22222222-2222-4222-8222-222222222222", { w: 2 }, { orders: [1] });
    expect(store.proposals.get(orgA, a.uuid, "22222222-2222-4222-8222-222222222222")).toMatchObject({
      request: { w: 2 },
      response: { orders: [1] },
    });
  });

  it("keeps uploaded risk models per organization and serves the newest dated on or before a date", () => {
    const model = (name: string, asOfDate: string, kind: "custom" | "vendor" = "vendor") => ({
      kind,
      name,
      asOfDate,
      assetCount: 2,
      factorCount: 1,
      warnings: name === "repaired" ? ["Factor covariance was not positive definite."] : [],
      document: { assets: ["A:XNYS", "B:XNYS"], factors: ["market"], exposures: [1, 0.5], name },
    });
    const june = store.riskModels.create(orgA, model("June", "2025-06-30"));
    const march = store.riskModels.create(orgA, model("March", "2025-03-31"));
    const custom = store.riskModels.create(orgA, model("repaired", "2025-01-31", "custom"));
    const juneAgain = store.riskModels.create(orgA, model("June, corrected", "2025-06-30"));
    expect(june).toMatchObject({
      organizationUuid: orgA,
      kind: "vendor",
      asOfDate: "2025-06-30",
      assetCount: 2,
    });
    expect(june).not.toHaveProperty("document");
    // Lists are summaries ordered by date, then upload order, and never cross organizations.
    expect(store.riskModels.list(orgA).map((m) => m.name)).toEqual([
      "repaired",
      "March",
      "June",
      "June, corrected",
    ]);
    expect(store.riskModels.list(orgA, "custom")).toEqual([custom]);
    expect(custom.warnings).toEqual(["Factor covariance was not positive definite."]);
    expect(store.riskModels.list(orgB)).toEqual([]);
    // Point in time: never a model dated after the date; the last upload of a date wins.
    expect(store.riskModels.latestAsOf(orgA, "vendor", "2025-03-30")).toBeUndefined();
    expect(store.riskModels.latestAsOf(orgA, "vendor", "2025-03-31")?.uuid).toBe(march.uuid);
    expect(store.riskModels.latestAsOf(orgA, "vendor", "2025-06-29")?.uuid).toBe(march.uuid);
    const latest = store.riskModels.latestAsOf(orgA, "vendor", "2026-01-01")!;
    expect(latest.uuid).toBe(juneAgain.uuid);
    expect(latest.document).toEqual(model("June, corrected", "").document);
    expect(store.riskModels.latestAsOf(orgA, "custom", "2025-12-31")?.uuid).toBe(custom.uuid);
    expect(store.riskModels.latestAsOf(orgB, "vendor", "2026-01-01")).toBeUndefined();
    // Another organization can neither read nor delete them.
    expect(store.riskModels.get(orgB, june.uuid)).toBeUndefined();
    expect(() => store.riskModels.delete(orgB, june.uuid)).toThrow(NotFoundError);
    expect(store.riskModels.get(orgA, june.uuid)?.document).toEqual(model("June", "").document);
    store.riskModels.delete(orgA, juneAgain.uuid);
    expect(store.riskModels.latestAsOf(orgA, "vendor", "2026-01-01")?.uuid).toBe(june.uuid);
    expect(() => store.riskModels.require(orgA, juneAgain.uuid)).toThrow(/Risk model .* not found/);
    expect(() => store.riskModels.create("no-such-org", model("x", "2025-01-01"))).toThrow(/FOREIGN KEY/);
  });

  it("moves a backtest job through PENDING, RUNNING and SUCCESS under one lease", () => {
    const c = store.clients.create(orgA);
    const a = store.accounts.create(orgA, c.uuid);
    const progress = {
      planned_periods: 12,
      completed_periods: 0,
      last_completed_period: null,
      last_progress_at: null,
    };
    const job = store.backtestJobs.create(orgA, a.uuid, { tax_gamma: 1 }, { tax_gamma: 1 }, progress);
    expect(job.status).toBe("PENDING");
    const claimed = store.backtestJobs.claimNext("worker-1")!;
    expect(claimed).toMatchObject({ id: job.id, status: "RUNNING", attempts: 1, leaseOwner: "worker-1" });
    expect(store.backtestJobs.claimNext("worker-2")).toBeUndefined();
    expect(store.backtestJobs.progress(job.id, "worker-2", { ...progress, completed_periods: 1 })).toBe(
      false,
    );
    expect(store.backtestJobs.progress(job.id, "worker-1", { ...progress, completed_periods: 1 })).toBe(true);
    expect(
      store.backtestJobs.succeed(
        job.id,
        "worker-1",
        { tax_managed: {} },
        { ...progress, completed_periods: 12 },
      ),
    ).toBe(true);
    const done = store.backtestJobs.require(orgA, job.id);
    expect(done.status).toBe("SUCCESS");
    expect(done.finishedAt).not.toBeNull();
    expect(store.backtestJobs.get(orgB, job.id)).toBeUndefined();
  });

  it("never leaves a job RUNNING after its worker died: re-queues it, then fails it after max attempts", () => {
    const c = store.clients.create(orgA);
    const a = store.accounts.create(orgA, c.uuid);
    const progress = {
      planned_periods: 1,
      completed_periods: 0,
      last_completed_period: null,
      last_progress_at: null,
    };
    const job = store.backtestJobs.create(orgA, a.uuid, {}, {}, progress);
    store.backtestJobs.claimNext("dead-worker");
    const r1 = store.backtestJobs.recoverOrphans({ liveOwners: [], staleBefore: "9999", maxAttempts: 2 });
    expect(r1).toEqual({ requeued: [job.id], failed: [] });
    expect(store.backtestJobs.require(orgA, job.id).status).toBe("PENDING");
    store.backtestJobs.claimNext("dead-again");
    const r2 = store.backtestJobs.recoverOrphans({ liveOwners: [], staleBefore: "9999", maxAttempts: 2 });
    expect(r2).toEqual({ requeued: [], failed: [job.id] });
    const failed = store.backtestJobs.require(orgA, job.id);
    expect(failed.status).toBe("FAILURE");
    expect(failed.errorMessage).toMatch(/stopped unexpectedly 2 time/);
  });

  it("rolls back every write of a failed transaction", () => {
    expect(() =>
      store.transaction(() => {
        store.clients.create(orgA, { externalId: "doomed" });
        throw new Error("boom");
      }),
    ).toThrow("boom");
    expect(store.clients.list(orgA)).toEqual([]);
  });

  it("serves market data point in time", () => {
    store.market.upsertSecurities([security("AAA:XNYS"), security("BBB:XTSE")]);
    store.market.insertPrices([
      {
        themeAssetId: "AAA:XNYS",
        date: "2025-01-02",
        open: null,
        high: null,
        low: null,
        close: 10,
        adjClose: null,
        volume: 100,
      },
      {
        themeAssetId: "AAA:XNYS",
        date: "2025-01-03",
        open: null,
        high: null,
        low: null,
        close: 11,
        adjClose: null,
        volume: null,
      },
      {
        themeAssetId: "BBB:XTSE",
        date: "2025-01-03",
        open: null,
        high: null,
        low: null,
        close: 50,
        adjClose: null,
        volume: 5,
      },
    ]);
    expect(store.market.characteristicNames()).toEqual([]);
    store.market.insertCharacteristics([
      { themeAssetId: "AAA:XNYS", date: "2024-12-31", name: "pe", value: 20 },
      { themeAssetId: "AAA:XNYS", date: "2025-01-31", name: "pe", value: 25 },
      { themeAssetId: "BBB:XTSE", date: "2025-01-31", name: "book_to_price", value: 0.4 },
      { themeAssetId: "AAA:XNYS", date: "2025-01-31", name: "market_cap", value: 1e9 },
      { themeAssetId: "BBB:XTSE", date: "2025-01-31", name: "market_cap", value: 2e9 },
    ]);
    // Each name once, in order (a loose index scan over the primary key).
    expect(store.market.characteristicNames()).toEqual(["book_to_price", "market_cap", "pe"]);
    store.market.insertFx([
      { date: "2025-01-02", currency: "CAD", perUsd: 1.44 },
      { date: "2025-01-06", currency: "CAD", perUsd: 1.43 },
    ]);
    expect(store.market.tradingDates()).toEqual(["2025-01-02", "2025-01-03"]);
    expect(store.market.latestPrices(["AAA:XNYS", "BBB:XTSE"], "2025-01-02").get("AAA:XNYS")?.close).toBe(10);
    expect(store.market.latestPrices(["BBB:XTSE"], "2025-01-02").has("BBB:XTSE")).toBe(false);
    expect(store.market.characteristicsAsOf("pe", "2025-01-15").get("AAA:XNYS")).toBe(20);
    expect(store.market.characteristicsAsOf("pe", "2025-02-01").get("AAA:XNYS")).toBe(25);
    expect(store.market.fxRateAsOf("CAD", "2025-01-05")).toEqual({ date: "2025-01-02", perUsd: 1.44 });
    const m = store.market.priceMatrix("2025-01-01", "2025-01-31", ["AAA:XNYS", "BBB:XTSE"]);
    expect(m.dates).toEqual(["2025-01-02", "2025-01-03"]);
    expect(Array.from(m.close)).toEqual([10, Number.NaN, 11, 50]);
    expect(store.market.findSecuritiesBySymbol("bbb").map((s) => s.themeAssetId)).toEqual(["BBB:XTSE"]);
    expect(store.market.summary()).toMatchObject({
      securities: 2,
      byCurrency: { USD: 1, CAD: 1 },
      priceRows: 3,
    });
  });

  it("reads price and close matrices with gaps, late listings and missing volumes", () => {
    const ids = ["GAP:XNYS", "FULL:XNYS", "LATE:XNYS", "NONE:XNYS"];
    store.market.upsertSecurities(ids.map((id) => security(id)));
    const bar = (themeAssetId: string, date: string, close: number, volume: number | null) => ({
      themeAssetId,
      date,
      open: null,
      high: null,
      low: null,
      close,
      adjClose: null,
      volume,
    });
    const days = ["2025-01-02", "2025-01-03", "2025-01-06", "2025-01-07", "2025-01-08"];
    store.market.insertPrices([
      ...days.map((d, k) => bar("FULL:XNYS", d, 100 + k, 1000 + k)),
      // A gap on 01-06 (not first or last): its dates must be read to place the closes.
      bar("GAP:XNYS", "2025-01-02", 20, null),
      bar("GAP:XNYS", "2025-01-03", 21, 7),
      bar("GAP:XNYS", "2025-01-07", 23, 9),
      bar("GAP:XNYS", "2025-01-08", 24, null),
      bar("LATE:XNYS", "2025-01-07", 5.5, 3),
      bar("LATE:XNYS", "2025-01-08", 5.25, 4),
    ]);
    const NaN_ = Number.NaN;
    // The window clips the first date: FULL starts inside it, GAP keeps its gap.
    const m = store.market.priceMatrix("2025-01-03", "2025-01-31", ids);
    expect(m.dates).toEqual(days.slice(1));
    expect(m.ids).toEqual(ids);
    // Rows are dates, columns GAP, FULL, LATE, NONE.
    expect(Array.from(m.close)).toEqual(
      [
        [21, 101, NaN_, NaN_],
        [NaN_, 102, NaN_, NaN_],
        [23, 103, 5.5, NaN_],
        [24, 104, 5.25, NaN_],
      ].flat(),
    );
    expect(Array.from(m.volume)).toEqual(
      [
        [7, 1001, NaN_, NaN_],
        [NaN_, 1002, NaN_, NaN_],
        [9, 1003, 3, NaN_],
        [NaN_, 1004, 4, NaN_],
      ].flat(),
    );
    const c = store.market.closeMatrix("2025-01-03", "2025-01-31", ids);
    expect(c).toEqual({ dates: m.dates, ids: m.ids, close: m.close });
    // Without ids: every security, by theme_asset_id.
    const all = store.market.closeMatrix("2025-01-02", "2025-01-06");
    expect(all.ids).toEqual(["FULL:XNYS", "GAP:XNYS", "LATE:XNYS", "NONE:XNYS"]);
    expect(Array.from(all.close)).toEqual(
      [
        [100, 20, NaN_, NaN_],
        [101, 21, NaN_, NaN_],
        [102, NaN_, NaN_, NaN_],
      ].flat(),
    );
    expect(store.market.closeMatrix("2025-02-01", "2025-02-28", ids)).toEqual({
      dates: [],
      ids,
      close: new Float64Array(0),
    });
  });

  it("reads point-in-time characteristics at several dates in one pass, never a value dated later", () => {
    store.market.upsertSecurities(["OLD:XNYS", "NEW:XNYS", "ALL:XNYS"].map((id) => security(id)));
    const pe = (themeAssetId: string, date: string, value: number) => ({
      themeAssetId,
      date,
      name: "pe",
      value,
    });
    store.market.insertCharacteristics([
      // OLD's last observation before the first date is long ago: older rows are still read for it.
      pe("OLD:XNYS", "2020-06-30", 9),
      pe("OLD:XNYS", "2024-03-29", 10),
      pe("OLD:XNYS", "2024-09-30", 12),
      // NEW starts after the first date.
      pe("NEW:XNYS", "2024-05-15", 30),
      pe("NEW:XNYS", "2024-06-28", 31),
      // ALL: superseded observations, one exactly on a date, one after the last date.
      pe("ALL:XNYS", "2019-12-31", 1),
      pe("ALL:XNYS", "2023-12-29", 2),
      pe("ALL:XNYS", "2024-01-31", 3),
      pe("ALL:XNYS", "2024-06-28", 4),
      pe("ALL:XNYS", "2024-12-31", 99),
      { themeAssetId: "ALL:XNYS", date: "2024-06-28", name: "pb", value: 7 },
    ]);
    const dates = ["2024-02-15", "2024-06-28", "2024-07-01", "2024-10-01"];
    // Columns NEW, ALL, OLD, NONE (not in the store): any order of ids.
    const ids = ["NEW:XNYS", "ALL:XNYS", "OLD:XNYS", "NONE:XNYS"];
    const NaN_ = Number.NaN;
    const v = store.market.characteristicsAsOfDates("pe", ids, dates);
    expect(Array.from(v)).toEqual(
      [
        [NaN_, 3, 9, NaN_],
        [31, 4, 10, NaN_],
        [31, 4, 10, NaN_],
        [31, 4, 12, NaN_],
      ].flat(),
    );
    // The same as one characteristicsAsOf read per date.
    dates.forEach((d, k) => {
      const byId = store.market.characteristicsAsOf("pe", d);
      ids.forEach((id, i) => {
        expect(v[k * ids.length + i]).toEqual(byId.get(id) ?? NaN_);
      });
    });
    expect(
      Array.from(store.market.characteristicsAsOfDates("pe", ["ALL:XNYS"], ["2019-12-30", "2025-01-01"])),
    ).toEqual([NaN_, 99]);
    expect(
      Array.from(store.market.characteristicsAsOfDates("pb", ["ALL:XNYS"], ["2024-06-27", "2024-06-28"])),
    ).toEqual([NaN_, 7]);
    expect(Array.from(store.market.characteristicsAsOfDates("nope", ["ALL:XNYS"], ["2024-06-28"]))).toEqual([
      NaN_,
    ]);
    expect(store.market.characteristicsAsOfDates("pe", ids, [])).toEqual(new Float64Array(0));
    expect(() => store.market.characteristicsAsOfDates("pe", ids, ["2024-06-28", "2024-02-15"])).toThrow(
      /ascending/,
    );
    expect(() => store.market.characteristicsAsOfDates("pe", ["ALL:XNYS", "ALL:XNYS"], dates)).toThrow(
      /distinct/,
    );
  });
});

describe("store files", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "lotwise-store-"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("persists across reopen and uses WAL", () => {
    const path = join(dir, "a.db");
    const s1 = openSqliteFile(path);
    const org = s1.organizations.create("Persisted");
    s1.close();
    const s2 = openSqliteFile(path);
    expect(s2.organizations.get(org.uuid)?.name).toBe("Persisted");
    expect(s2.schemaVersion).toBe(SCHEMA_VERSION);
    s2.close();
    const raw = new Database(path);
    expect(raw.pragma("journal_mode", { simple: true })).toBe("wal");
    raw.close();
  });

  it("migrates a version-1 store: accounts get a lots token (lot writes from any connection replace it), and a risk-model table", () => {
    const path = join(dir, "v1.db");
    const raw = new Database(path);
    raw.exec(MIGRATIONS[0]!.sql);
    raw.pragma(`application_id = ${APPLICATION_ID}`);
    raw.pragma("user_version = 1");
    raw.exec(`INSERT INTO organizations VALUES ('o', 'Org', 't', 't');
      INSERT INTO clients (uuid, organization_uuid, created, modified) VALUES ('c', 'o', 't', 't');
      INSERT INTO accounts (uuid, organization_uuid, client_uuid, created, modified) VALUES ('a', 'o', 'c', 't', 't');
      INSERT INTO tax_lots (uuid, account_uuid, position, theme_asset_id, quantity, cost_basis, trade_date)
        VALUES ('l', 'a', 0, 'AAPL:XNAS', '1', '10', '2024-01-02');`);
    raw.close();
    const store = openSqliteFile(path);
    expect(store.schemaVersion).toBe(SCHEMA_VERSION);
    expect(store.riskModels.list("o")).toEqual([]);
    const t0 = store.accounts.lotsToken("a");
    expect(t0).toMatch(/^[0-9A-F]{32}$/);
    expect(store.accounts.lotsToken("a")).toBe(t0);
    // Another connection (another process, or raw SQL) changes a lot: the token changes with it.
    const other = new Database(path);
    other.prepare("UPDATE tax_lots SET quantity = '2' WHERE uuid = 'l'").run();
    const t1 = store.accounts.lotsToken("a");
    expect(t1).not.toBe(t0);
    other.prepare("DELETE FROM tax_lots WHERE uuid = 'l'").run();
    other.close();
    const t2 = store.accounts.lotsToken("a");
    expect(t2).not.toBe(t1);
    store.accounts.appendLots("a", [lot({ themeAssetId: "MSFT:XNAS", quantity: "1", costBasis: "5" })]);
    expect(store.accounts.lotsToken("a")).not.toBe(t2);
    expect(store.accounts.lotsToken("no-such-account")).toBeNull();
    store.close();
  });

  it("migrates a version-4 store: its backtest jobs keep every field as kind backtest, and scan jobs need no account", () => {
    const path = join(dir, "v4.db");
    const raw = rawStoreAt(path, 4);
    raw.exec(`INSERT INTO organizations VALUES ('o', 'Org', 't', 't');
      INSERT INTO clients (uuid, organization_uuid, created, modified) VALUES ('c', 'o', 't', 't');
      INSERT INTO accounts (uuid, organization_uuid, client_uuid, created, modified) VALUES ('a', 'o', 'c', 't', 't');
      INSERT INTO backtest_jobs (id, organization_uuid, account_uuid, status, params, resolved_params, progress,
        cancel_requested, attempts, lease_owner, heartbeat_at, created_at, started_at)
        VALUES ('j', 'o', 'a', 'RUNNING', '{"tax_gamma":1}', '{}', NULL, 1, 2, 'h/1/r/w0', 'hb', 'c1', 's1');`);
    raw.close();
    const store = openSqliteFile(path);
    expect(store.schemaVersion).toBe(SCHEMA_VERSION);
    expect(store.backtestJobs.require("o", "j", "a")).toMatchObject({
      kind: "backtest",
      accountUuid: "a",
      status: "RUNNING",
      params: { tax_gamma: 1 },
      cancelRequested: true,
      attempts: 2,
      leaseOwner: "h/1/r/w0",
      heartbeatAt: "hb",
      createdAt: "c1",
      startedAt: "s1",
    });
    const progress = {
      planned_periods: 3,
      completed_periods: 0,
      last_completed_period: null,
      last_progress_at: null,
    };
    const scan = store.backtestJobs.create("o", null, {}, {}, progress, { kind: "scan" });
    expect(store.backtestJobs.list("o").map((j) => j.id)).toEqual(["j"]);
    expect(store.backtestJobs.list("o", { kind: "scan" }).map((j) => [j.id, j.accountUuid])).toEqual([
      [scan.id, null],
    ]);
    expect(() => store.backtestJobs.create("o", null, {}, {}, progress)).toThrow(TypeError);
    // Deleting the client (and its account) still deletes the backtest jobs (the rebuilt table kept its key).
    store.clients.delete("o", "c");
    expect(store.backtestJobs.getById("j")).toBeUndefined();
    expect(store.backtestJobs.getById(scan.id)?.kind).toBe("scan");
    store.close();
  });

  it("migrates a version-5 store: its lots become long lots read as before, and short lots are kept apart", () => {
    const path = join(dir, "v5.db");
    const raw = rawStoreAt(path, 5);
    raw.exec(`${ORG_CLIENT_ACCOUNT("100.50")}
      INSERT INTO tax_lots (uuid, account_uuid, position, theme_asset_id, quantity, cost_basis, trade_date)
        VALUES ('l1', 'a', 0, 'AAPL:XNAS', '10.50', '150.2500', '2024-03-01');`);
    raw.close();
    const store = openSqliteFile(path);
    expect(store.schemaVersion).toBe(SCHEMA_VERSION);
    expect(store.accounts.lots("a")).toEqual([
      {
        uuid: "l1",
        accountUuid: "a",
        themeAssetId: "AAPL:XNAS",
        quantity: "10.50",
        costBasis: "150.2500",
        costBasisUnit: "per_share",
        costBasisCurrency: "USD",
        fxRate: "1",
        tradeDate: "2024-03-01",
        holdingPeriodStart: null,
        washSaleDate: null,
        lastSoldForLossDate: null,
      },
    ]);
    expect(store.ledger.shortLots("a")).toEqual([]);
    const token = store.accounts.lotsToken("a");
    const short = {
      uuid: "s1",
      themeAssetId: "MSFT:XNAS",
      quantity: "2",
      proceeds: "800.00",
      currency: "USD",
      fxRate: "1",
      openDate: "2025-01-02",
    };
    const { accountUuid: _, ...long } = store.accounts.lots("a")[0]!;
    store.ledger.applyBatch("a", {
      executions: [],
      realized: [],
      lotsAfter: [long],
      shortLotsAfter: [short],
      cashDelta: "0",
    });
    // Only a short lot was added: long reads are unchanged, the token moved, a lot import keeps the short lot.
    expect(store.accounts.lots("a").map((l) => l.uuid)).toEqual(["l1"]);
    expect(store.accounts.lotRows("a").map((r) => r[0])).toEqual(["l1"]);
    expect(store.accounts.lotsToken("a")).not.toBe(token);
    store.accounts.replaceLots("a", [lotInput()]);
    expect(store.accounts.lots("a")).toHaveLength(1);
    expect(store.ledger.shortLots("a")).toEqual([{ ...short, accountUuid: "a" }]);
    // An unknown side is refused by the column's check.
    const check = new Database(path);
    expect(() => check.prepare("UPDATE tax_lots SET side = 'both' WHERE uuid = 's1'").run()).toThrow(/CHECK/);
    check.close();
    store.close();
  });

  it("migrates a version-6 store: its backtest and scan jobs keep their kinds, and rebalance-run jobs can be stored", () => {
    const path = join(dir, "v6.db");
    const raw = rawStoreAt(path, 6);
    raw.exec(`${ORG_CLIENT_ACCOUNT("100")}
      INSERT INTO backtest_jobs (id, organization_uuid, kind, account_uuid, status, params, resolved_params, created_at)
        VALUES ('j1', 'o', 'backtest', 'a', 'SUCCESS', '{}', '{}', 't1'),
               ('j2', 'o', 'scan', NULL, 'PENDING', '{}', '{}', 't2');`);
    expect(() =>
      raw.exec(`INSERT INTO backtest_jobs (id, organization_uuid, kind, status, params, resolved_params, created_at)
        VALUES ('j3', 'o', 'rebalance_run', 'PENDING', '{}', '{}', 't3')`),
    ).toThrow(/CHECK/);
    raw.close();
    const store = openSqliteFile(path);
    expect(store.schemaVersion).toBe(SCHEMA_VERSION);
    expect(store.backtestJobs.getById("j1")).toMatchObject({
      kind: "backtest",
      accountUuid: "a",
      status: "SUCCESS",
    });
    expect(store.backtestJobs.getById("j2")).toMatchObject({
      kind: "scan",
      accountUuid: null,
      status: "PENDING",
    });
    const progress = {
      planned_periods: 2,
      completed_periods: 0,
      last_completed_period: null,
      last_progress_at: null,
    };
    const job = store.backtestJobs.create("o", null, { run_uuid: "r" }, {}, progress, {
      kind: "rebalance_run",
    });
    expect(store.backtestJobs.getById(job.id)).toMatchObject({ kind: "rebalance_run", accountUuid: null });
    // A backtest job still needs its account, and an unknown kind is refused by the table.
    const check = new Database(path);
    expect(() =>
      check.exec(`INSERT INTO backtest_jobs (id, organization_uuid, kind, status, params, resolved_params, created_at)
        VALUES ('j4', 'o', 'backtest', 'PENDING', '{}', '{}', 't4')`),
    ).toThrow(/CHECK/);
    expect(() =>
      check.exec(`INSERT INTO backtest_jobs (id, organization_uuid, kind, status, params, resolved_params, created_at)
        VALUES ('j5', 'o', 'other', 'PENDING', '{}', '{}', 't5')`),
    ).toThrow(/CHECK/);
    check.close();
    store.close();
  });

  it("migrates a version-7 store: its realized rows are read back unchanged in order, and upserts still key by entry", () => {
    const path = join(dir, "v7.db");
    const raw = rawStoreAt(path, 7);
    const row = (entry: string, sold: string, gain: string, seq: number) =>
      `('a', '${entry}', 'c', '${entry.split(":")[0]}', 'L-${entry}', 'AAA:XNYS', 'long', '2', '2024-01-02',
        '${sold}', NULL, '10', '12', '', '0', '${gain}', 'short_term', 1, '{"id":"${entry}","n":${seq}}', ${seq})`;
    raw.exec(`${ORG_CLIENT_ACCOUNT("100")}
      INSERT INTO realized_lots (account_uuid, entry_id, client_uuid, source_id, lot_id, theme_asset_id, side, quantity,
        date_acquired, date_sold, open_date, proceeds, cost_basis, adjustment_code, adjustment, gain, term, loss,
        record, seq)
      VALUES ${row("z9:1", "2025-03-03", "-2", 1)}, ${row("a1:1", "2025-03-03", "-2.5", 2)},
        ${row("m5:2", "2025-02-01", "-0.125", 3)};`);
    raw.close();
    const store = openSqliteFile(path);
    expect(store.schemaVersion).toBe(SCHEMA_VERSION);
    const read = () => store.ledger.realized({ accountUuid: "a" }, { from: "2025-01-01", to: "2025-12-31" });
    // Date sold, then the account's application order (seq), not the entry id's order.
    expect(read().map((r) => [r.entryId, r.gain, r.record])).toEqual([
      ["m5:2", "-0.125", { id: "m5:2", n: 3 }],
      ["z9:1", "-2", { id: "z9:1", n: 1 }],
      ["a1:1", "-2.5", { id: "a1:1", n: 2 }],
    ]);
    expect(read()[0]).toEqual({
      accountUuid: "a",
      clientUuid: "c",
      entryId: "m5:2",
      sourceId: "m5",
      lotId: "L-m5:2",
      themeAssetId: "AAA:XNYS",
      side: "long",
      quantity: "2",
      dateAcquired: "2024-01-02",
      dateSold: "2025-02-01",
      openDate: null,
      proceeds: "10",
      costBasis: "12",
      adjustmentCode: "",
      adjustment: "0",
      gain: "-0.125",
      term: "short_term",
      loss: true,
      record: { id: "m5:2", n: 3 },
    });
    // A batch rewriting an existing entry (a wash sale) updates that row; a new entry is appended after the others.
    const { accountUuid: _a, clientUuid: _c, ...old } = read()[1]!;
    store.ledger.applyBatch("a", {
      executions: [],
      realized: [
        { ...old, adjustmentCode: "W", adjustment: "2", gain: "0", record: { washed: true } },
        { ...old, entryId: "b2:1", sourceId: "b2", dateSold: "2025-03-03", record: { id: "b2:1" } },
      ],
      lotsAfter: [],
      shortLotsAfter: [],
      cashDelta: "0",
    });
    expect(read().map((r) => [r.entryId, r.adjustmentCode, r.gain, r.record])).toEqual([
      ["m5:2", "", "-0.125", { id: "m5:2", n: 3 }],
      ["z9:1", "W", "0", { washed: true }],
      ["a1:1", "", "-2.5", { id: "a1:1", n: 2 }],
      ["b2:1", "", "-2", { id: "b2:1" }],
    ]);
    // The table has rowids now, and (account, entry id) stays unique.
    const check = new Database(path);
    expect(check.prepare("SELECT count(rowid) AS n FROM realized_lots").get()).toEqual({ n: 4 });
    expect(() =>
      check.exec(`INSERT INTO realized_lots SELECT * FROM realized_lots WHERE entry_id = 'a1:1'`),
    ).toThrow(/UNIQUE/);
    check.close();
    store.close();
  });

  it("restores an account's lots token with its lots when a transaction rolls back", () => {
    const store = openSqliteFile(join(dir, "rollback.db"));
    const org = store.organizations.create("Rollback").uuid;
    const client = store.clients.create(org).uuid;
    const a = store.accounts.create(org, client).uuid;
    expect(store.accounts.lotsToken(a)).toBeNull(); // never given lots
    store.accounts.replaceLots(a, [lot({ quantity: "1" })]);
    const before = store.accounts.lotsToken(a);
    expect(before).not.toBeNull();
    expect(() =>
      store.transaction(() => {
        store.accounts.replaceLots(a, [lot({ quantity: "5" })]);
        expect(store.accounts.lotsToken(a)).not.toBe(before);
        throw new Error("abort");
      }),
    ).toThrow("abort");
    expect(store.accounts.lotsToken(a)).toBe(before);
    expect(store.accounts.lots(a).map((l) => l.quantity)).toEqual(["1"]);
    store.close();
  });

  it("refuses a store written by a newer lotwise without modifying it", () => {
    const path = join(dir, "future.db");
    openSqliteFile(path).close();
    const raw = new Database(path);
    raw.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
    raw.close();
    expect(() => openSqliteFile(path)).toThrow(StoreVersionError);
    expect(() => openSqliteFile(path)).toThrow(/newer lotwise/);
    const check = new Database(path);
    expect(check.pragma("user_version", { simple: true })).toBe(SCHEMA_VERSION + 1);
    check.close();
  });

  it("refuses a SQLite file that is not a lotwise store", () => {
    const path = join(dir, "other.db");
    const raw = new Database(path);
    raw.exec("CREATE TABLE t (x)");
    raw.close();
    expect(() => openSqliteFile(path)).toThrow(/not a lotwise store/);
  });

  it("refuses a file that is not SQLite at all", async () => {
    const path = join(dir, "junk.db");
    const { writeFileSync } = await import("node:fs");
    writeFileSync(path, "this is not a database, just text ".repeat(200));
    expect(() => openSqliteFile(path)).toThrow(StoreVersionError);
  });

  it("does not create a file when create is false", () => {
    expect(() => openSqliteFile(join(dir, "missing.db"), { create: false })).toThrow(/No lotwise store/);
  });
});
