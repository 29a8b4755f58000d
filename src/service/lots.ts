/**
 * @module service/lots
 * Conversions of tax lots between the wire (contract write/read shapes), the store (decimal strings) and the tax
 * engine (decimal.js `TaxLot`). This is the one place where lot decimals change representation.
 */
import type { Decimal } from "decimal.js";
import type { TaxLotRead, TaxLotWrite } from "../contract/index.js";
import { taxLotReadFromWrite } from "../contract/index.js";
import type { Currency } from "../core/data/types.js";
import { createLot, lotFromTrusted, type TaxLot } from "../core/tax/index.js";
import type { TaxLotInput, TaxLotRecord, TaxLotRow } from "../store/index.js";

/** A wire lot (already validated) as a store row. */
export function lotWriteToInput(lot: TaxLotWrite): TaxLotInput {
  return {
    themeAssetId: lot.theme_asset_id,
    quantity: lot.quantity,
    costBasis: lot.cost_basis,
    costBasisUnit: lot.cost_basis_unit ?? "per_share",
    costBasisCurrency: lot.cost_basis_currency ?? "USD",
    fxRate: lot.fx_rate ?? "1",
    tradeDate: lot.trade_date,
    holdingPeriodStart: null,
    washSaleDate: lot.wash_sale_date ?? null,
    lastSoldForLossDate: lot.last_sold_for_loss_date ?? null,
  };
}

/** A stored lot in the wire write shape. */
export function lotRecordToWrite(r: TaxLotRecord): TaxLotWrite {
  return {
    theme_asset_id: r.themeAssetId,
    quantity: r.quantity,
    cost_basis: r.costBasis,
    fx_rate: r.fxRate,
    trade_date: r.tradeDate,
    wash_sale_date: r.washSaleDate,
    last_sold_for_loss_date: r.lastSoldForLossDate,
    cost_basis_currency: r.costBasisCurrency as Currency,
    cost_basis_unit: r.costBasisUnit,
  };
}

/** A stored lot as a tax-engine lot. */
export function lotRecordToTaxLot(r: TaxLotRecord): TaxLot {
  return createLot({
    id: r.uuid,
    accountId: r.accountUuid,
    themeAssetId: r.themeAssetId,
    quantity: r.quantity,
    ...(r.costBasisUnit === "total" ? { totalCostBasis: r.costBasis } : { costBasisPerShare: r.costBasis }),
    currency: r.costBasisCurrency as Currency,
    fxRate: r.fxRate,
    tradeDate: r.tradeDate,
    ...(r.holdingPeriodStart ? { holdingPeriodStart: r.holdingPeriodStart } : {}),
    washSaleDate: r.washSaleDate,
    lastSoldForLossDate: r.lastSoldForLossDate,
  });
}

/**
 * A stored lot (a compact row of `accounts.lotRows`) as a tax-engine lot: the lot {@link lotRecordToTaxLot} builds,
 * without re-validating what the contract validated when the lot was written (the proposal's per-request read of
 * 10,000 lots). The tax engine still checks the lots it is given. `shared` parsed quantities and FX rates by text,
 * reused across the lots of one read.
 */
export function lotRowToTaxLot(r: TaxLotRow, accountUuid: string, shared?: Map<string, Decimal>): TaxLot {
  return lotFromTrusted(
    {
      id: r[0],
      accountId: accountUuid,
      themeAssetId: r[1],
      quantity: r[2],
      costBasis: r[3],
      costBasisIsTotal: r[4] === "total",
      currency: r[5] as Currency,
      fxRate: r[6],
      tradeDate: r[7],
      holdingPeriodStart: r[8],
      washSaleDate: r[9],
      lastSoldForLossDate: r[10],
    },
    shared,
  );
}

/** The read shape of a stored lot, given the asset's names and latest USD price. */
export function lotRecordToRead(
  r: TaxLotRecord,
  context: { symbol: string | null; name: string | null; priceUsd: number | null },
): TaxLotRead {
  return taxLotReadFromWrite(lotRecordToWrite(r), {
    tickerSymbol: context.symbol,
    tickerName: context.name,
    priceUsd: context.priceUsd,
  });
}

/** A tax-engine lot (e.g. a wash-sale view entry) in the read shape. */
export function taxLotToRead(
  lot: TaxLot,
  context: { symbol: string | null; name: string | null; priceUsd: number | null },
): TaxLotRead {
  return taxLotReadFromWrite(
    {
      theme_asset_id: lot.themeAssetId,
      quantity: lot.quantity.toFixed(),
      cost_basis: lot.totalCostBasis.toFixed(),
      cost_basis_unit: "total",
      cost_basis_currency: lot.currency,
      fx_rate: lot.fxRate.toFixed(),
      trade_date: lot.tradeDate,
      wash_sale_date: lot.washSaleDate,
      last_sold_for_loss_date: lot.lastSoldForLossDate,
    },
    { tickerSymbol: context.symbol, tickerName: context.name, priceUsd: context.priceUsd },
  );
}
