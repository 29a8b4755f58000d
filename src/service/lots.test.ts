import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { lotInput } from "../../test/helpers/lot-input.js";
import { openSqliteStore, type SqliteStore, type TaxLotInput } from "../store/index.js";
import type { ServiceContext } from "./context.js";
import { lotRecordToTaxLot, lotRowToTaxLot } from "./lots.js";
import { accountLots } from "./proposals.js";

const lot = lotInput;

describe("stored lots as tax-engine lots", () => {
  let store: SqliteStore;
  let accountUuid: string;

  beforeAll(async () => {
    store = openSqliteStore(":memory:");
    const org = await store.organizations.create("Lots");
    const client = await store.clients.create(org.uuid);
    accountUuid = (await store.accounts.create(org.uuid, client.uuid, { cashValueUsd: "0" })).uuid;
    await store.accounts.replaceLots(accountUuid, [
      lot({}),
      lot({ quantity: "0.0000000001", costBasis: "0" }),
      lot({ quantity: "12.5000", costBasis: "1877.50", costBasisUnit: "total" }),
      lot({
        themeAssetId: "RY:XTSE",
        quantity: "100",
        costBasis: "13000",
        costBasisUnit: "total",
        costBasisCurrency: "CAD",
        fxRate: "1.3500",
      }),
      lot({
        themeAssetId: "SHOP:XTSE",
        quantity: "3.3333333333",
        costBasis: "123456789012345678.1234567891",
        costBasisCurrency: "CAD",
        fxRate: "1.2999999999",
        tradeDate: "2025-01-10",
        holdingPeriodStart: "2024-11-02",
        washSaleDate: "2025-01-10",
        lastSoldForLossDate: "2024-12-31",
      }),
      lot({
        quantity: "7",
        costBasis: "0.0000000001",
        tradeDate: "2025-06-30",
        lastSoldForLossDate: "2025-06-01",
      }),
    ]);
  });
  afterAll(() => store.close());

  it("builds from the compact rows exactly the lots createLot builds from the records", async () => {
    const records = await store.accounts.lots(accountUuid);
    const rows = await store.accounts.lotRows(accountUuid);
    expect(rows).toHaveLength(records.length);
    rows.forEach((row, i) => {
      const trusted = lotRowToTaxLot(row, accountUuid);
      const validated = lotRecordToTaxLot(records[i]!);
      expect(trusted).toStrictEqual(validated);
      expect(Object.keys(trusted)).toEqual(Object.keys(validated));
      expect(trusted.totalCostBasis.toString()).toBe(validated.totalCostBasis.toString());
    });
  });
});

describe("the proposal's memoized lot read", () => {
  let store: SqliteStore;
  let ctx: ServiceContext;
  let org: string;
  let client: string;

  const newAccount = async (lots: TaxLotInput[]) => {
    const uuid = (await store.accounts.create(org, client, { cashValueUsd: "0" })).uuid;
    await store.accounts.replaceLots(uuid, lots);
    return uuid;
  };
  /** What createLot builds from the stored records (the reference). */
  const reference = async (uuid: string) => (await store.accounts.lots(uuid)).map(lotRecordToTaxLot);

  beforeAll(async () => {
    store = openSqliteStore(":memory:");
    ctx = { store, clock: () => new Date("2025-07-01T12:00:00Z") };
    org = (await store.organizations.create("Memo")).uuid;
    client = (await store.clients.create(org)).uuid;
  });
  afterAll(() => store.close());

  it("reuses the lots of unchanged rows and converts changed, added and removed ones anew", async () => {
    const a = await newAccount([lot({}), lot({ quantity: "3.5", costBasis: "99", costBasisUnit: "total" })]);
    const first = await accountLots(ctx, a);
    expect(first).toStrictEqual(await reference(a));
    expect(first.every((l) => Object.isFrozen(l))).toBe(true);
    const second = await accountLots(ctx, a);
    expect(second).toStrictEqual(await reference(a));
    expect(second[0]).toBe(first[0]);
    expect(second[1]).toBe(first[1]);

    await store.accounts.appendLots(a, [
      lot({ themeAssetId: "RY:XTSE", costBasisCurrency: "CAD", fxRate: "1.35" }),
    ]);
    const appended = await accountLots(ctx, a);
    expect(appended).toStrictEqual(await reference(a));
    expect(appended[0]).toBe(first[0]);
    expect(appended).toHaveLength(3);

    await store.accounts.replaceLots(a, [lot({ quantity: "7" }), lot({ washSaleDate: "2024-03-05" })]);
    const replaced = await accountLots(ctx, a);
    expect(replaced).toStrictEqual(await reference(a));
    expect(replaced.map((l) => l.quantity.toString())).toEqual(["7", "10"]);

    await store.accounts.replaceLots(a, []);
    expect(await accountLots(ctx, a)).toEqual([]);
  });

  it("gives an unchanged account's lots again without reading its rows", async () => {
    const a = await newAccount([lot({}), lot({ quantity: "2" })]);
    const first = await accountLots(ctx, a);
    const read = vi.spyOn(store.accounts, "lotValues");
    try {
      const again = await accountLots(ctx, a);
      expect(read).not.toHaveBeenCalled();
      expect(again).toStrictEqual(await reference(a));
      expect(again).not.toBe(first); // the caller's own array
      again.pop();
      expect(await accountLots(ctx, a)).toHaveLength(2);
      await store.accounts.appendLots(a, [lot({ quantity: "4" })]);
      expect(await accountLots(ctx, a)).toStrictEqual(await reference(a));
      expect(read).toHaveBeenCalledTimes(1);
    } finally {
      read.mockRestore();
    }
  });

  it("does not keep lots read inside a transaction that rolled back", async () => {
    const a = await newAccount([lot({})]);
    await accountLots(ctx, a);
    await expect(
      (() =>
        store.transaction(async () => {
          await store.accounts.replaceLots(a, [lot({ quantity: "99" })]);
          expect((await accountLots(ctx, a)).map((l) => l.quantity.toString())).toEqual(["99"]);
          throw new Error("abort");
        }))(),
    ).rejects.toThrow("abort");
    expect(await accountLots(ctx, a)).toStrictEqual(await reference(a));
    expect((await accountLots(ctx, a)).map((l) => l.quantity.toString())).toEqual(["10"]);
  });

  it("stays exact for more accounts than it remembers, read in turns", async () => {
    const accounts: string[] = [];
    for (let i = 0; i < 11; i++)
      accounts.push(
        await newAccount([lot({ quantity: String(i + 1) }), lot({ tradeDate: `2024-01-${String(i + 10)}` })]),
      );
    for (let round = 0; round < 3; round++)
      for (const [i, a] of accounts.entries()) {
        if (round === 1 && i % 3 === 0)
          await store.accounts.appendLots(a, [lot({ costBasis: String(round + i) })]);
        expect(await accountLots(ctx, a)).toStrictEqual(await reference(a));
      }
  });
});
