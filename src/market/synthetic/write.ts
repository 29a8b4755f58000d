/**
 * @module market/synthetic/write
 * Writing a generated market into a store (any {@link MarketDataWriter}) in one transaction.
 */
import { characteristicPanelToValues, type PricePanel, panelToBars } from "../../core/data/panel.js";
import type { MarketDataWriter } from "../writer.js";
import { indexLevelRows, indexWeightRows } from "./rows.js";
import type { SyntheticMarket } from "./types.js";

/** A writer that can also bulk-insert a columnar panel (the SQLite store can). */
export interface PanelWriter extends MarketDataWriter {
  insertPriceMatrix?(panel: PricePanel): number;
}

/** Row counts written by {@link writeSyntheticMarket}. */
export interface SyntheticWriteSummary {
  securities: number;
  prices: number;
  splits: number;
  dividends: number;
  fxRates: number;
  characteristics: number;
  indexLevels: number;
  indexWeights: number;
}

/**
 * Write every part of a generated market (securities, closes and volumes, splits, dividends, FX, characteristics,
 * indexes with levels and weights). All or nothing.
 */
export function writeSyntheticMarket(market: SyntheticMarket, writer: PanelWriter): SyntheticWriteSummary {
  return writer.transaction(() => {
    writer.upsertSecurities(market.securities);
    let prices: number;
    if (writer.insertPriceMatrix) prices = writer.insertPriceMatrix(market.prices);
    else {
      const bars = panelToBars(market.prices);
      writer.insertPrices(bars);
      prices = bars.length;
    }
    writer.insertSplits(market.splits);
    writer.insertDividends(market.dividends);
    writer.insertFx(market.fxRates);
    const characteristics = characteristicPanelToValues(market.characteristics);
    writer.insertCharacteristics(characteristics);
    let indexLevels = 0;
    let indexWeights = 0;
    for (const index of market.indexes) {
      writer.upsertIndex(index.info);
      const levels = indexLevelRows(index);
      const weights = indexWeightRows(index);
      writer.insertIndexLevels(levels);
      writer.insertIndexWeights(weights);
      indexLevels += levels.length;
      indexWeights += weights.length;
    }
    return {
      securities: market.securities.length,
      prices,
      splits: market.splits.length,
      dividends: market.dividends.length,
      fxRates: market.fxRates.length,
      characteristics: characteristics.length,
      indexLevels,
      indexWeights,
    };
  });
}
