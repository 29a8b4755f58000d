import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { ValidationError } from "../core/errors.js";
import { parseLotDate, parseLotNumber, parseLotsCsv } from "./lots-csv.js";

const FIXTURE = resolve(import.meta.dirname, "..", "..", "fixtures", "lots-broker-export.csv");

describe("lots CSV import", () => {
  it("reads a broker export with a title line, $ amounts, thousands separators, mixed date formats and a total row", () => {
    const parsed = parseLotsCsv(readFileSync(FIXTURE, "utf8"), { fileName: "lots-broker-export.csv" });
    expect(parsed.columns).toMatchObject({
      symbol: "Symbol",
      quantity: "Quantity",
      cost_per_share: "Cost/Share",
      total_cost: "Cost Basis",
      trade_date: "Open Date",
      currency: "Currency",
      fx_rate: "FX Rate",
    });
    expect(
      parsed.rows.map((r) => [r.line, r.symbol, r.quantity, r.totalCost, r.tradeDate, r.currency, r.fxRate]),
    ).toEqual([
      [4, "DEL", "120", "8544", "2022-03-14", "USD", null],
      [5, "DEL", "40", "3684.2", "2025-11-03", "USD", null],
      [6, "OSM", "1000", "15370", "2023-06-02", "USD", null],
      [7, "SGR", "235", "18816.45", "2024-10-21", "USD", null],
      [8, "NORL", "300.5", "8864.75", "2025-08-19", "USD", null],
      [9, "VRV", "50", "6420", "2024-07-02", "CAD", "1.365"],
    ]);
    // The total is preferred over the (often rounded) per-share figure.
    expect(parsed.rows.every((r) => r.costPerShare === null)).toBe(true);
    expect(parsed.skipped.map((s) => s.line)).toEqual([10, 11]);
  });

  it("reports every bad cell with its line and column and returns nothing", () => {
    const text = [
      "Symbol,Quantity,Cost Basis,Acquired",
      "AAA,10,100.00,2024-01-02",
      "BBB,-5,50.00,2024-01-02",
      "CCC,7,abc,2024-13-40",
      "DDD,3,30.00,yesterday",
    ].join("\n");
    let err: unknown;
    try {
      parseLotsCsv(text, { fileName: "bad.csv" });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ValidationError);
    const v = err as ValidationError;
    expect(v.message).toMatch(/bad\.csv: 4 problem\(s\); nothing was imported/);
    expect(v.issues.map((i) => i.path)).toEqual([
      'bad.csv: line 3, column "Quantity"',
      'bad.csv: line 4, column "Cost Basis"',
      'bad.csv: line 4, column "Acquired"',
      'bad.csv: line 5, column "Acquired"',
    ]);
  });

  it("uses explicit column mappings and day-first dates when asked", () => {
    const text = "Ticker,Units,Unit Cost,Date Opened\nXYZ,2,10.5,03/04/2024\n";
    const parsed = parseLotsCsv(text, { columns: { trade_date: "Date Opened" }, dateOrder: "dmy" });
    expect(parsed.rows[0]).toMatchObject({
      symbol: "XYZ",
      quantity: "2",
      costPerShare: "10.5",
      tradeDate: "2024-04-03",
    });
  });

  it("names the missing columns when the header lacks a cost or a date", () => {
    expect(() => parseLotsCsv("Symbol,Quantity\nA,1\n")).toThrow(/lacks required columns/);
    expect(() => parseLotsCsv("Name,Amount\nA,1\n")).toThrow(/no header row with a symbol and a quantity/);
  });

  it("reads the common date formats", () => {
    expect(parseLotDate("2024-03-05")).toBe("2024-03-05");
    expect(parseLotDate("20240305")).toBe("2024-03-05");
    expect(parseLotDate("3/5/2024")).toBe("2024-03-05");
    expect(parseLotDate("03/05/24")).toBe("2024-03-05");
    expect(parseLotDate("25/12/2023")).toBe("2023-12-25");
    expect(parseLotDate("05-Mar-2024")).toBe("2024-03-05");
    expect(parseLotDate("Mar 5, 2024")).toBe("2024-03-05");
    expect(parseLotDate("2024-03-05 09:30:00")).toBe("2024-03-05");
    expect(parseLotDate("02/30/2024")).toBeNull();
    expect(parseLotDate("soon")).toBeNull();
  });

  it("reads exported amounts exactly", () => {
    expect(parseLotNumber("$1,234.50")).toBe("1234.5");
    expect(parseLotNumber("(12.00)")).toBe("-12");
    expect(parseLotNumber("CAD 6,420.00")).toBe("6420");
    expect(parseLotNumber("0.1")).toBe("0.1");
    expect(parseLotNumber("1e5")).toBeNull();
    expect(parseLotNumber("")).toBeNull();
  });
});
