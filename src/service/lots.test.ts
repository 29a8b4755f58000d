import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { lotInput } from "../../test/helpers/lot-input.js";
import { openStore, type Store, type TaxLotInput } from "../store/index.js";
import type { ServiceContext } from "./context.js";
import { lotRecordToTaxLot, lotRowToTaxLot } from "./lots.js";
import { accountLots } from "./proposals.js";

const lot = lotInput;

describe("stored lots as tax-engine lots", () => {
  let store: Store;
  let accountUuid: string;

  beforeAll(() => {
    store = openStore(":memory:");
    const org = store.organizations.create("Lots");
    const client = store.clients.create(org.uuid);
    accountUuid = store.accounts.create(org.uuid, client.uuid, { cashValueUsd: "0" }).uuid;
    store.accounts.replaceLots(accountUuid, [
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

  it("builds from the compact rows exactly the lots createLot builds from the records", () => {
    const records = store.accounts.lots(accountUuid);
    const rows = store.accounts.lotRows(accountUuid);
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
  let store: Store;
  let ctx: ServiceContext;
  let org: string;
  let client: string;

  const newAccount = (lots: TaxLotInput[]) => {
    const uuid = store.accounts.create(org, client, { cashValueUsd: "0" }).uuid;
    store.accounts.replaceLots(uuid, lots);
    return uuid;
  };
  /** What createLot builds from the stored records (the reference). */
  const reference = (uuid: string) => store.accounts.lots(uuid).map(lotRecordToTaxLot);

  beforeAll(() => {
    store = openStore(":memory:");
    ctx = { store, clock: () => new Date("2025-07-01T12:00:00Z") };
    org = store.organizations.create("Memo").uuid;
    client = store.clients.create(org).uuid;
  });
  afterAll(() => store.close());

  it("reuses the lots of unchanged rows and converts changed, added and removed ones anew", () => {
    const a = newAccount([lot({}), lot({ quantity: "3.5", costBasis: "99", costBasisUnit: "total" })]);
    const first = accountLots(ctx, a);
    expect(first).toStrictEqual(reference(a));
    expect(first.every((l) => Object.isFrozen(l))).toBe(true);
    const second = accountLots(ctx, a);
    expect(second).toStrictEqual(reference(a));
    expect(second[0]).toBe(first[0]);
    expect(second[1]).toBe(first[1]);

    store.accounts.appendLots(a, [
      lot({ themeAssetId: "RY:XTSE", costBasisCurrency: "CAD", fxRate: "1.35" }),
    ]);
    const appended = accountLots(ctx, a);
    expect(appended).toStrictEqual(reference(a));
    expect(appended[0]).toBe(first[0]);
    expect(appended).toHaveLength(3);

    store.accounts.replaceLots(a, [lot({ quantity: "7" }), lot({ washSaleDate: "2024-03-05" })]);
    const replaced = accountLots(ctx, a);
    expect(replaced).toStrictEqual(reference(a));
    expect(replaced.map((l) => l.quantity.toString())).toEqual(["7", "10"]);

    store.accounts.replaceLots(a, []);
    expect(accountLots(ctx, a)).toEqual([]);
  });

  it("gives an unchanged account's lots again without reading its rows", () => {
    const a = newAccount([lot({}), lot({ quantity: "2" })]);
    const first = accountLots(ctx, a);
    const read = vi.spyOn(store.accounts, "lotValues");
    try {
      const again = accountLots(ctx, a);
      expect(read).not.toHaveBeenCalled();
      expect(again).toStrictEqual(reference(a));
      expect(again).not.toBe(first); // the caller's own array
      again.pop();
      expect(accountLots(ctx, a)).toHaveLength(2);
      store.accounts.appendLots(a, [lot({ quantity: "4" })]);
      expect(accountLots(ctx, a)).toStrictEqual(reference(a));
      expect(read).toHaveBeenCalledTimes(1);
    } finally {
      read.mockRestore();
    }
  });

  it("does not keep lots read inside a transaction that rolled back", () => {
    const a = newAccount([lot({})]);
    accountLots(ctx, a);
    expect(() =>
      store.transaction(() => {
        store.accounts.replaceLots(a, [lot({ quantity: "99" })]);
        expect(accountLots(ctx, a).map((l) => l.quantity.toString())).toEqual(["99"]);
        throw new Error("abort");
      }),
    ).toThrow("abort");
    expect(accountLots(ctx, a)).toStrictEqual(reference(a));
    expect(accountLots(ctx, a).map((l) => l.quantity.toString())).toEqual(["10"]);
  });

  it("stays exact for more accounts than it remembers, read in turns", () => {
    const accounts = Array.from({ length: 11 }, (_, i) =>
      newAccount([lot({ quantity: String(i + 1) }), lot({ tradeDate: `2024-01-${String(i + 10)}` })]),
    );
    for (let round = 0; round < 3; round++)
      for (const [i, a] of accounts.entries()) {
        if (round === 1 && i % 3 === 0) store.accounts.appendLots(a, [lot({ costBasis: String(round + i) })]);
        expect(accountLots(ctx, a)).toStrictEqual(reference(a));
      }
  });
});
