import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore, type Store, type TaxLotInput } from "../store/index.js";
import { lotRecordToTaxLot, lotRowToTaxLot } from "./lots.js";

describe("stored lots as tax-engine lots", () => {
  let store: Store;
  let accountUuid: string;

  const lot = (over: Partial<TaxLotInput>): TaxLotInput => ({
    themeAssetId: "AAPL:XNAS",
    quantity: "10",
    costBasis: "150.25",
    costBasisUnit: "per_share",
    costBasisCurrency: "USD",
    fxRate: "1",
    tradeDate: "2024-03-01",
    holdingPeriodStart: null,
    washSaleDate: null,
    lastSoldForLossDate: null,
    ...over,
  });

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
