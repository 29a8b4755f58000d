/** @module test/helpers/lot-input: a stored lot's fields for store and service tests. */
import type { TaxLotInput } from "../../src/store/index.js";

/** A stored lot's fields: 10 AAPL at 150.25 a share bought 2024-03-01, with `over` applied. */
export function lotInput(over: Partial<TaxLotInput> = {}): TaxLotInput {
  return {
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
  };
}
