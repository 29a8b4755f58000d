import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { lotInput as lot } from "../../test/helpers/lot-input.js";
import type { Security } from "../core/data/types.js";
import { ConflictError } from "../core/errors.js";
import { COPY_TABLES, copyStore } from "./copy.js";
import type { LotwiseStore } from "./lotwise-store.js";
import { openPgStore } from "./pg/pg-store.js";
import { openSqliteStore } from "./sqlite-store.js";

const PG_URL = process.env.LOTWISE_TEST_PG ?? "postgres://postgres@127.0.0.1:5432/test";

async function probePostgres(): Promise<string | null> {
  const client = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    return null;
  } catch (err) {
    return (err as Error).message;
  } finally {
    await client.end().catch(() => {});
  }
}

const pgProblem = await probePostgres();
if (pgProblem !== null)
  console.warn(
    `copyStore: PostgreSQL tests skipped: PostgreSQL does not answer at ${PG_URL} (${pgProblem}).`,
  );

function clock(start = Date.UTC(2026, 0, 2, 9, 30)) {
  let t = start;
  return () => {
    t += 1000;
    return new Date(t).toISOString();
  };
}

const opened: LotwiseStore[] = [];
const schemas: string[] = [];

async function pgStore(now = clock()): Promise<LotwiseStore> {
  const schema = `lw_copy_${randomBytes(6).toString("hex")}`;
  schemas.push(schema);
  const store = await openPgStore(PG_URL, { schema, now, maxConnections: 3 });
  opened.push(store);
  return store;
}

function sqliteStore(): LotwiseStore {
  const store = openSqliteStore(":memory:", { now: clock() });
  opened.push(store);
  return store;
}

afterEach(async () => {
  for (const s of opened.splice(0)) if (s.isOpen) await s.close();
  if (schemas.length === 0) return;
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  for (const s of schemas.splice(0)) await client.query(`DROP SCHEMA IF EXISTS "${s}" CASCADE`);
  await client.end();
});

const security = (id: string, currency: "USD" | "CAD" = "USD"): Security => {
  const [symbol, mic] = id.split(":") as [string, string];
  return {
    themeAssetId: id,
    symbol,
    mic,
    name: `${symbol} Inc.`,
    currency,
    country: currency === "CAD" ? "CA" : "US",
    assetType: "equity",
    sector: 45,
    industryGroup: 4510,
    industry: 451020,
    subIndustry: 45102010,
    sicCode: 3571,
    sharesOutstanding: 2.5e9,
    description: "maker",
    listedFrom: "1980-12-12",
    delistedOn: null,
  };
};

/** A store with a row in every table. Returns the plaintext API key. */
async function populate(store: LotwiseStore): Promise<{ key: string }> {
  const org = await store.organizations.create("Alpha Advisors");
  const { key } = await store.apiKeys.create(org.uuid, "ci");
  const revoked = await store.apiKeys.create(org.uuid, "old");
  await store.apiKeys.revoke(org.uuid, revoked.record.id);
  const client = await store.clients.create(org.uuid, { externalId: "C-1", metadata: { tier: "gold" } });
  const config = await store.portfolioConfigs.create(org.uuid, "Core", "active", { risk_aversion: 1.5 });
  const equity = await store.assetClasses.create(org.uuid, "Equity", { target: 0.6 });
  await store.assetClasses.archive(org.uuid, (await store.assetClasses.create(org.uuid, "Old", {})).uuid);
  const account = await store.accounts.create(org.uuid, client.uuid, {
    name: "Taxable",
    cashValueUsd: "1000.50",
    liabilitiesValue: "-2.000",
    portfolioConfigUuid: config.uuid,
    isReadOnly: true,
    customizationConfig: { cash_buffer_percent: 0.02 },
  });
  await store.accounts.replaceAssetClassSettings(account.uuid, [
    { assetClassUuid: equity.uuid, directIndexingEnabled: true, implementationSleeveUuid: null },
  ]);
  await store.accounts.replaceLots(account.uuid, [
    lot({ quantity: "10.50", costBasis: "150.2500" }),
    lot({ themeAssetId: "RY:XTSE", costBasisCurrency: "CAD", fxRate: "1.35", washSaleDate: "2024-05-01" }),
  ]);
  await store.accounts.appendLots(account.uuid, [lot({ quantity: "0.000001" })]);
  // The ledger (migration 6): a short lot, an execution, a realized loss row, a corporate action applied.
  await store.ledger.addCorporateActions([
    {
      id: "split-1",
      kind: "split",
      themeAssetId: "AAPL:XNAS",
      exDate: "2026-01-05",
      payDate: null,
      params: { ratio: { numerator: 3, denominator: 2 } },
    },
  ]);
  const longLots = (await store.accounts.lots(account.uuid)).map(({ accountUuid: _, ...l }) => l);
  await store.ledger.applyBatch(account.uuid, {
    executions: [
      {
        executionId: "x1",
        source: "proposal",
        proposalUuid: "p1",
        orderIndex: 2,
        kind: "short_order",
        themeAssetId: "MSFT:XNAS",
        tradeDate: "2026-01-06",
        quantity: "4.5",
        price: "400.10",
        fees: "0.25",
        currency: "USD",
        fxRate: "1",
        lots: [{ lotId: "L-9", quantity: "1.50" }],
        lotId: null,
      },
    ],
    realized: [
      {
        entryId: "x1:1",
        sourceId: "x1",
        lotId: "L-9",
        themeAssetId: "MSFT:XNAS",
        side: "long",
        quantity: "1.50",
        dateAcquired: "2025-02-03",
        dateSold: "2026-01-06",
        openDate: null,
        proceeds: "600.15",
        costBasis: "700.000",
        adjustmentCode: "W",
        adjustment: "12.5",
        gain: "-87.35",
        term: "short_term",
        loss: true,
        record: { id: "x1:1", nested: { a: [1, "2"] } },
      },
    ],
    lotsAfter: longLots,
    shortLotsAfter: [
      {
        uuid: "short-1",
        themeAssetId: "MSFT:XNAS",
        quantity: "4.5",
        proceeds: "1800.200",
        currency: "USD",
        fxRate: "1",
        openDate: "2026-01-06",
      },
    ],
    cashDelta: "1800.20",
    appliedActionIds: ["split-1"],
  });
  const { theme } = await store.themes.create(org.uuid, "Clean", { universe: "us" });
  const rev = await store.themes.revise(org.uuid, theme.uuid, "Clean 2", { universe: "all" });
  await store.themes.saveSnapshot({
    themeUuid: theme.uuid,
    revision: rev.revision,
    asOfDate: "2026-01-30",
    totalWeight: 0.99,
    constituents: [{ t: "AAPL:XNAS", w: 0.99 }],
  });
  for (const id of ["p1", "p2", "p3"])
    await store.proposals.insert(org.uuid, account.uuid, id, { id }, { id, x: 1 });
  const job = await store.backtestJobs.create(
    org.uuid,
    account.uuid,
    { a: 1 },
    { r: 1 },
    {
      planned_periods: 3,
      completed_periods: 0,
      last_completed_period: null,
      last_progress_at: null,
    },
  );
  await store.backtestJobs.claim(job.id, "w1");
  await store.backtestJobs.requestCancel(org.uuid, job.id);
  await store.backtestJobs.create(
    org.uuid,
    null,
    { scan: 1 },
    {},
    {
      planned_periods: 1,
      completed_periods: 0,
      last_completed_period: null,
      last_progress_at: null,
    },
    { kind: "scan" },
  );
  for (const name of ["same-date-1", "same-date-2"])
    await store.riskModels.create(org.uuid, {
      kind: "custom",
      name,
      asOfDate: "2026-01-31",
      assetCount: 1,
      factorCount: 1,
      warnings: [],
      document: { name },
    });
  const runInput = {
    runKey: "k",
    asOfDate: "2026-01-30",
    when: "always" as const,
    selection: { all: true },
    accountUuids: [account.uuid],
    forced: true,
  };
  const run = await store.rebalanceRuns.create(org.uuid, runInput);
  await store.rebalanceRuns.create(org.uuid, runInput);
  await store.rebalanceRuns.recordOutcome(run.uuid, 0, {
    accountUuid: account.uuid,
    outcome: "created",
    proposalUuid: "p3",
    reason: null,
    errorCode: null,
    errorMessage: null,
  });
  const m = store.market;
  await m.upsertSecurities([security("AAPL:XNAS"), security("RY:XTSE", "CAD")]);
  await m.insertPrices([
    {
      themeAssetId: "AAPL:XNAS",
      date: "2026-01-02",
      open: 99,
      high: 101,
      low: 98,
      close: 100.125,
      adjClose: 100,
      volume: 5e6,
    },
    {
      themeAssetId: "AAPL:XNAS",
      date: "2026-01-05",
      open: null,
      high: null,
      low: null,
      close: 101,
      adjClose: null,
      volume: null,
    },
    {
      themeAssetId: "RY:XTSE",
      date: "2026-01-05",
      open: null,
      high: null,
      low: null,
      close: 150,
      adjClose: null,
      volume: 10,
    },
  ]);
  await m.insertSplits([{ themeAssetId: "AAPL:XNAS", date: "2026-01-05", ratio: 2 }]);
  await m.insertDividends([{ themeAssetId: "RY:XTSE", exDate: "2026-01-05", amount: 1.1 }]);
  await m.insertFx([{ currency: "CAD", date: "2026-01-02", perUsd: 1.36 }]);
  await m.insertCharacteristics([{ name: "pe", themeAssetId: "AAPL:XNAS", date: "2026-01-02", value: 31.5 }]);
  await m.upsertIndex({ identifier: "IX", name: "Index", currency: "USD", description: "d" });
  await m.insertIndexLevels([{ identifier: "IX", date: "2026-01-02", level: 1000 }]);
  await m.insertIndexWeights([
    { identifier: "IX", date: "2026-01-02", themeAssetId: "AAPL:XNAS", weight: 1 },
  ]);
  await m.recordImport("prices", "a.csv", 3, { ok: 1 });
  await m.recordImport("fx", "b.csv", 1, { ok: 2 });
  return { key };
}

/** Everything the repositories read back from a store (lots tokens as "set or not": they are random per store). */
async function readAll(store: LotwiseStore) {
  const orgs = await store.organizations.list();
  const out: Record<string, unknown> = { orgs };
  for (const o of orgs) {
    const clients = await store.clients.list(o.uuid);
    const accounts = await store.accounts.listByOrganization(o.uuid);
    const perAccount = [];
    for (const a of accounts)
      perAccount.push({
        lots: await store.accounts.lots(a.uuid),
        token: (await store.accounts.lotsToken(a.uuid)) !== null,
        settings: await store.accounts.assetClassSettings(a.uuid),
        proposals: await store.proposals.list(o.uuid, a.uuid),
        jobs: await store.backtestJobs.list(o.uuid, { accountUuid: a.uuid }),
        shortLots: await store.ledger.shortLots(a.uuid),
        executions: await store.ledger.executions(a.uuid),
        realized: await store.ledger.realized({ accountUuid: a.uuid }, { year: 2026 }),
        household: await store.ledger.householdActivity(a.clientUuid, "2000-01-01", "2100-01-01"),
        appliedActions: await store.ledger.appliedActions(a.uuid),
      });
    const themes = await store.themes.list(o.uuid);
    const themeData = [];
    for (const t of themes) {
      const revisions = await store.themes.revisions(t.uuid);
      themeData.push({
        revisions,
        snapshots: await Promise.all(revisions.map((r) => store.themes.latestSnapshot(t.uuid, r.revision))),
      });
    }
    const runs = await store.rebalanceRuns.list(o.uuid);
    Object.assign(out, {
      [o.uuid]: {
        keys: await store.apiKeys.list(o.uuid),
        clients,
        accounts,
        perAccount,
        configs: await store.portfolioConfigs.list(o.uuid),
        classes: await store.assetClasses.list(o.uuid, { includeArchived: true }),
        themes,
        themeData,
        scans: await store.backtestJobs.list(o.uuid, { kind: "scan" }),
        riskModels: await store.riskModels.list(o.uuid),
        latestRisk: await store.riskModels.latestAsOf(o.uuid, "custom", "2026-12-31"),
        runs,
        latestRun: await store.rebalanceRuns.latestByKey(o.uuid, "k"),
        outcomes: await Promise.all(runs.map(async (r) => [...(await store.rebalanceRuns.outcomes(r.uuid))])),
      },
    });
  }
  const m = store.market;
  const pm = await m.priceMatrix("2026-01-01", "2026-12-31");
  Object.assign(out, {
    securities: await m.securities(),
    prices: { dates: pm.dates, ids: pm.ids, close: [...pm.close], volume: [...pm.volume] },
    latest: [...(await m.latestPrices(["AAPL:XNAS", "RY:XTSE"], "2026-12-31"))],
    splits: await m.splits("2000-01-01", "2100-01-01"),
    dividends: await m.dividends("2000-01-01", "2100-01-01"),
    fx: await m.fxSeries("CAD", "2000-01-01", "2100-01-01"),
    pe: [...(await m.characteristicsAsOf("pe", "2026-12-31"))],
    indexes: await m.indexes(),
    weights: await m.indexWeightsAsOf("IX", "2026-12-31"),
    levels: await m.indexLevels("IX", "2000-01-01", "2100-01-01"),
    imports: await m.imports(),
    summary: await m.summary(),
    corporateActions: await store.ledger.corporateActions(),
  });
  return out;
}

describe("copyStore (SQLite -> SQLite)", () => {
  it("copies every table so that every read gives the same answer, and the keys still authenticate", async () => {
    const from = sqliteStore();
    const { key } = await populate(from);
    const to = sqliteStore();
    const counts = await copyStore(from, to);
    expect(Object.keys(counts)).toEqual(COPY_TABLES.map((t) => t.name));
    expect(counts).toMatchObject({
      tax_lots: 4,
      proposals: 3,
      prices: 3,
      market_imports: 2,
      api_keys: 2,
      executions: 1,
      realized_lots: 1,
      corporate_actions: 1,
      corporate_action_applications: 1,
    });
    const account = (await to.accounts.listByOrganization((await to.organizations.list())[0]!.uuid))[0]!;
    expect(account.cashValueUsd).toBe("2800.70");
    expect((await to.ledger.shortLots(account.uuid)).map((l) => [l.uuid, l.proceeds])).toEqual([
      ["short-1", "1800.200"],
    ]);
    expect((await to.ledger.realized({ clientUuid: account.clientUuid }, { year: 2026 }))[0]).toMatchObject({
      costBasis: "700.000",
      loss: true,
      record: { id: "x1:1", nested: { a: [1, "2"] } },
    });
    expect(await readAll(to)).toEqual(await readAll(from));
    expect(await to.apiKeys.authenticate(key)).toBeDefined();
    const next = await to.market.recordImport("x", "c.csv", 0, {});
    expect(next.id).toBe(3);
  });

  it("refuses a target that holds any row and leaves it as it was", async () => {
    const from = sqliteStore();
    await populate(from);
    const to = sqliteStore();
    await to.market.upsertIndex({ identifier: "IX", name: "Mine", currency: "USD", description: null });
    const err = await copyStore(from, to).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConflictError);
    expect(err).toMatchObject({ code: "store_not_empty" });
    expect((err as Error).message).toContain("table indexes is not empty");
    expect(await to.organizations.list()).toEqual([]);
    expect((await to.market.indexes()).map((i) => i.name)).toEqual(["Mine"]);
  });
});

describe.skipIf(pgProblem !== null)("copyStore (SQLite -> PostgreSQL -> SQLite)", () => {
  it("gives identical reads in all three stores, keys included", async () => {
    const first = sqliteStore();
    const { key } = await populate(first);
    // The PostgreSQL store's clock runs after the source's, so that its own writes are the newest.
    const middle = await pgStore(clock(Date.UTC(2027, 0, 1)));
    await copyStore(first, middle);
    const last = sqliteStore();
    await copyStore(middle, last);
    const expected = await readAll(first);
    expect(await readAll(middle)).toEqual(expected);
    expect(await readAll(last)).toEqual(expected);
    expect(await middle.apiKeys.authenticate(key)).toBeDefined();
    expect(await last.apiKeys.authenticate(key)).toBeDefined();
    // Identity and insertion order continue after the copied rows.
    expect((await middle.market.recordImport("x", "c.csv", 0, {})).id).toBe(3);
    const org = (await middle.organizations.list())[0]!.uuid;
    const account = (await middle.accounts.listByOrganization(org))[0]!.uuid;
    await middle.proposals.insert(org, account, "p4", {}, {});
    expect(await middle.proposals.prune(org, account, { keep: 2 })).toBe(2);
    expect((await middle.proposals.list(org, account)).map((p) => p.uuid)).toEqual(["p3", "p4"]);
  });

  it("rolls the whole copy back when a row fails, leaving the PostgreSQL target empty", async () => {
    const from = sqliteStore();
    await populate(from);
    const to = await pgStore();
    // A check the source's rows break, on a late table: everything before it was written, then rolled back.
    await (to as unknown as { db: { run(sql: string): Promise<number> } }).db.run(
      "ALTER TABLE market_imports ADD CONSTRAINT no_fx CHECK (kind <> 'fx')",
    );
    await expect(copyStore(from, to)).rejects.toThrow(/no_fx/);
    expect(await to.organizations.list()).toEqual([]);
    expect(await to.market.hasMarketData()).toBe(false);
    expect(await to.market.imports()).toEqual([]);
  });
});
