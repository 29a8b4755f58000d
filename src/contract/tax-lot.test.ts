import { describe, expect, it } from "vitest";
import { taxLotReadFromWrite, taxLotReadSchema, taxLotWriteSchema } from "./tax-lot.js";
import { parseOrThrow } from "./validation.js";

const lot = (over: object) =>
  parseOrThrow(taxLotWriteSchema, {
    theme_asset_id: "AAPL:XNAS",
    quantity: "25",
    cost_basis: "150.25",
    trade_date: "2022-11-03",
    ...over,
  });

const apple = { tickerSymbol: "AAPL", tickerName: "Apple Inc.", priceUsd: "229.26" };

describe("taxLotReadFromWrite", () => {
  it("derives totals of a USD per-share lot with defaults filled in", () => {
    const read = taxLotReadFromWrite(lot({}), apple);
    // total = 25 x 150.25 = 3756.25; current value = 25 x 229.26 = 5731.5
    expect(read).toEqual({
      theme_asset_id: "AAPL:XNAS",
      ticker_symbol: "AAPL",
      ticker_name: "Apple Inc.",
      quantity: "25",
      cost_basis: "150.25",
      cost_basis_usd: "150.25",
      cost_basis_per_share: "150.25",
      cost_basis_per_share_usd: "150.25",
      total_cost_basis: "3756.25",
      total_cost_basis_usd: "3756.25",
      current_value: "5731.5",
      fx_rate: "1",
      trade_date: "2022-11-03",
      wash_sale_date: null,
      last_sold_for_loss_date: null,
      cost_basis_currency: "USD",
      cost_basis_unit: "per_share",
    });
    expect(taxLotReadSchema.safeParse(read).success).toBe(true);
  });

  it("converts a CAD lot to USD by dividing by fx_rate (CAD per USD), rounding half-even at 10 places", () => {
    const read = taxLotReadFromWrite(
      lot({
        theme_asset_id: "RY:XTSE",
        quantity: "40",
        cost_basis: "130.5",
        fx_rate: "1.35",
        cost_basis_currency: "CAD",
      }),
      { tickerSymbol: "RY", tickerName: "Royal Bank of Canada", priceUsd: 105 },
    );
    // total 40 x 130.5 = 5220 CAD; 5220 / 1.35 = 3866.666...; 130.5 / 1.35 = 96.666...
    expect(read.total_cost_basis).toBe("5220");
    expect(read.total_cost_basis_usd).toBe("3866.6666666667");
    expect(read.cost_basis_per_share_usd).toBe("96.6666666667");
    expect(read.cost_basis_usd).toBe("96.6666666667");
    expect(read.current_value).toBe("4200");
    expect(read.fx_rate).toBe("1.35");
    expect(read.cost_basis_currency).toBe("CAD");
  });

  it("keeps a total basis as written and divides for the per-share figure", () => {
    const read = taxLotReadFromWrite(
      lot({ quantity: "3", cost_basis: "100", cost_basis_unit: "total" }),
      apple,
    );
    // 100 / 3 = 33.3333333333 (10 places); the total is not re-multiplied from the rounded per-share figure.
    expect(read.cost_basis_per_share).toBe("33.3333333333");
    expect(read.total_cost_basis).toBe("100");
    expect(read.cost_basis).toBe("100");
    expect(read.cost_basis_unit).toBe("total");
  });

  it("reports no current value without a price, and keeps wash-sale dates", () => {
    const read = taxLotReadFromWrite(
      lot({ wash_sale_date: "2023-01-10", last_sold_for_loss_date: "2023-01-05" }),
      {
        ...apple,
        priceUsd: null,
      },
    );
    expect(read.current_value).toBeNull();
    expect(read.wash_sale_date).toBe("2023-01-10");
    expect(read.last_sold_for_loss_date).toBe("2023-01-05");
  });

  it("canonicalizes written decimals", () => {
    const read = taxLotReadFromWrite(lot({ quantity: "25.000", cost_basis: "150.2500" }), apple);
    expect(read.quantity).toBe("25");
    expect(read.cost_basis).toBe("150.25");
  });

  it("refuses a derived figure wider than decimal(20,10), naming the lot and field", () => {
    // The write schema refuses such a lot (quantity at most 10^12); one stored before that limit is still read safely.
    expect(() => lot({ quantity: "99999999999999999999", cost_basis: "10" })).toThrow(/quantity: must be/);
    const huge = {
      theme_asset_id: "AAPL:XNAS",
      quantity: "99999999999999999999",
      cost_basis: "10",
      trade_date: "2022-11-03",
    };
    expect(() => taxLotReadFromWrite(huge, apple)).toThrow(
      /AAPL:XNAS lot of 2022-11-03: total_cost_basis: 999999999999999999990 needs 21 integer digits/,
    );
  });
});
