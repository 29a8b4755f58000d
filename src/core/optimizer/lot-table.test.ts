import { describe, expect, it } from "vitest";
import { createLot, type TaxLot } from "../tax/index.js";
import { type LotTable, prepareLotTable, prepareLotTableFrom } from "./lot-table.js";

const assets = ["A:XNYS", "B:XNYS", "C:XNYS"];

function lot(id: string, asset: string, qty: string, basis: string, date: string): TaxLot {
  return createLot({ id, themeAssetId: asset, quantity: qty, costBasisPerShare: basis, tradeDate: date });
}

function columns(t: LotTable) {
  return {
    lots: t.lots,
    asset: Array.from(t.asset),
    quantity: Array.from(t.quantity),
    basisUsd: Array.from(t.basisUsd),
    tradeDay: Array.from(t.tradeDay),
    longTermFromDay: Array.from(t.longTermFromDay),
    washSaleDay: Array.from(t.washSaleDay),
    lastSoldForLossDay: Array.from(t.lastSoldForLossDay),
  };
}

describe("prepareLotTableFrom", () => {
  const month1 = Array.from({ length: 12 }, (_, k) =>
    lot(`L${k}`, assets[k % 3]!, String(10 + k), String(50 + 3 * k), `2024-0${1 + (k % 9)}-15`),
  );

  it("equals a fresh table when lots are sold, replaced, added and reordered", () => {
    const previous = prepareLotTable(month1, assets, 365);
    const partial = lot("L4", assets[1]!, "3", "62", "2024-05-15"); // L4 partly sold: a new object
    const month2 = [
      ...month1.slice(0, 3),
      partial,
      ...month1.slice(5, 9),
      lot("N1", assets[2]!, "7", "80", "2025-02-01"),
      month1[11]!,
      month1[10]!, // out of order
      lot("N2", assets[0]!, "2.5", "90", "2025-02-02"),
    ];
    const reused = prepareLotTableFrom(previous, month2, assets, 365);
    expect(columns(reused)).toEqual(columns(prepareLotTable(month2, assets, 365)));
  });

  it("refuses a previous table of another universe or threshold", () => {
    const previous = prepareLotTable(month1, assets, 365);
    expect(() => prepareLotTableFrom(previous, month1, assets, 366)).toThrow(RangeError);
    expect(() => prepareLotTableFrom(previous, month1, [...assets].reverse(), 365)).toThrow(RangeError);
  });
});
