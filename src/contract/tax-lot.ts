/**
 * @module contract/tax-lot
 * Tax lots on the wire. Write shape: what a client update, account creation or CSV import sends. Read shape:
 * the lot with per-share, total and USD figures derived. `cost_basis` is per share or total as
 * `cost_basis_unit` says (`per_share` by default); `fx_rate` is units of the lot currency per 1 USD
 * (1 for USD lots), so `cost_basis_usd = cost_basis / fx_rate`.
 */
import * as z from "zod";
import { CURRENCIES } from "../core/data/types.js";
import { ContractDecimal, formatDecimal, plainDecimalOrUndefined } from "./decimal.js";
import {
  expectedMessage,
  FX_RATE_RANGE,
  isoDate,
  MAX_LOT_QUANTITY,
  MAX_MONEY_AMOUNT,
  NUMERIC_STRING_WIDTH,
  numericString,
  themeAssetId,
} from "./primitives.js";
import { describe, named } from "./registry.js";

/** How `cost_basis` is expressed: per share (default) or for the whole lot. */
export const COST_BASIS_UNITS = ["per_share", "total"] as const;
/** How `cost_basis` is expressed. */
export type CostBasisUnit = (typeof COST_BASIS_UNITS)[number];
/** Defaults of the optional lot fields. */
export const TAX_LOT_DEFAULTS = {
  cost_basis_currency: "USD",
  cost_basis_unit: "per_share",
  fx_rate: "1",
} as const;

/**
 * Why the cost-basis figures a lot's read derives (per share and total, in its currency and in USD) pass
 * {@link MAX_MONEY_AMOUNT}, or undefined when they fit (or when a field is malformed or out of its own range: its own
 * issue says so). A total
 * basis of 1 over 0.0000000001 shares is 10^10 per share; a per-share basis of 10^15 for 10^12 shares is 10^27.
 */
export function lotCostBasisExcess(lot: {
  quantity: string;
  cost_basis: string;
  fx_rate?: string | undefined;
  cost_basis_unit?: CostBasisUnit | undefined;
}): string | undefined {
  const quantity = plainDecimalOrUndefined(lot.quantity);
  const basis = plainDecimalOrUndefined(lot.cost_basis);
  const fx = plainDecimalOrUndefined(lot.fx_rate ?? TAX_LOT_DEFAULTS.fx_rate);
  // A field outside its own range already has its issue; the derived figures say nothing more.
  if (
    quantity === undefined ||
    basis === undefined ||
    fx === undefined ||
    quantity.lte(0) ||
    quantity.gt(MAX_LOT_QUANTITY) ||
    basis.gt(MAX_MONEY_AMOUNT) ||
    fx.lt(FX_RATE_RANGE.min) ||
    fx.gt(FX_RATE_RANGE.max)
  )
    return undefined;
  const perShareUnit = (lot.cost_basis_unit ?? TAX_LOT_DEFAULTS.cost_basis_unit) === "per_share";
  const perShare = perShareUnit ? basis : basis.div(quantity);
  const total = perShareUnit ? basis.times(quantity) : basis;
  // Dividing by an fx_rate of 1 or more never makes a figure larger.
  const usd = fx.lt(1);
  const figures: [string, InstanceType<typeof ContractDecimal>][] = [
    ["per-share cost basis", perShare],
    ["total cost basis", total],
  ];
  if (usd)
    figures.push(
      ["per-share cost basis in USD", perShare.div(fx)],
      ["total cost basis in USD", total.div(fx)],
    );
  for (const [name, value] of figures)
    if (value.gt(MAX_MONEY_AMOUNT))
      return `the lot's ${name} (from quantity, cost_basis${name.endsWith("USD") ? " and fx_rate" : ""}) is ${value.toSignificantDigits(3).toString()}; at most ${MAX_MONEY_AMOUNT} (10^15) is accepted`;
  return undefined;
}

/** Tax lot, write shape. `cost_basis_unit` is an extension (default per_share). */
export const taxLotWriteSchema = named(
  z
    .strictObject(
      {
        theme_asset_id: themeAssetId(),
        quantity: describe(
          numericString({ min: "0", exclusiveMin: true, max: MAX_LOT_QUANTITY }),
          "shares held, > 0 (fractions allowed)",
        ),
        cost_basis: describe(
          numericString({ min: "0", max: MAX_MONEY_AMOUNT }),
          "cost basis in cost_basis_currency, per share or total; per share, total and their USD values each at most 10^15",
        ),
        fx_rate: describe(
          numericString(FX_RATE_RANGE),
          "units of cost_basis_currency per 1 USD at purchase; 1 for USD lots",
        ).optional(),
        trade_date: describe(isoDate(), "acquisition date"),
        wash_sale_date: describe(isoDate(), "date a wash sale last adjusted this lot").nullable().optional(),
        last_sold_for_loss_date: describe(isoDate(), "last date shares of this lot were sold at a loss")
          .nullable()
          .optional(),
        cost_basis_currency: describe(z.enum(CURRENCIES), "currency of cost_basis; default USD").optional(),
        cost_basis_unit: describe(z.enum(COST_BASIS_UNITS), "per_share (default) or total").optional(),
      },
      { error: expectedMessage("a tax lot object") },
    )
    .refine(
      (lot) =>
        (lot.cost_basis_currency ?? "USD") !== "USD" ||
        lot.fx_rate === undefined ||
        plainDecimalOrUndefined(lot.fx_rate)?.eq(1) !== false,
      { error: "a USD lot has fx_rate 1", path: ["fx_rate"] },
    )
    .superRefine((lot, ctx) => {
      const message = lotCostBasisExcess(lot);
      if (message !== undefined) ctx.addIssue({ code: "custom", path: ["cost_basis"], message });
    }),
  "TaxLotWrite",
  "A tax lot as sent by a client update, an account creation or an import.",
);
/** Tax lot, write shape. */
export type TaxLotWrite = z.infer<typeof taxLotWriteSchema>;

/** Tax lot, read shape: stored fields plus derived per-share, total and USD figures and the current value. */
export const taxLotReadSchema = named(
  z.strictObject({
    theme_asset_id: themeAssetId(),
    ticker_symbol: z.string().nullable(),
    ticker_name: z.string().nullable(),
    quantity: numericString(),
    cost_basis: describe(numericString(), "as written: per share or total, see cost_basis_unit"),
    cost_basis_usd: describe(numericString(), "cost_basis / fx_rate"),
    cost_basis_per_share: numericString(),
    cost_basis_per_share_usd: numericString(),
    total_cost_basis: numericString(),
    total_cost_basis_usd: numericString(),
    current_value: describe(
      numericString(),
      "quantity x latest price, USD; null when no price is known",
    ).nullable(),
    fx_rate: numericString(),
    trade_date: isoDate(),
    wash_sale_date: isoDate().nullable(),
    last_sold_for_loss_date: isoDate().nullable(),
    cost_basis_currency: z.string(),
    cost_basis_unit: z.enum(COST_BASIS_UNITS),
  }),
  "TaxLotRead",
  "A tax lot as returned in account holdings.",
);
/** Tax lot, read shape. */
export type TaxLotRead = z.infer<typeof taxLotReadSchema>;

/** What a read needs beyond the written lot: names of the asset and its latest USD price (null if unknown). */
export interface TaxLotReadContext {
  tickerSymbol: string | null;
  tickerName: string | null;
  /** Latest price in USD per share; null when no price is known. */
  priceUsd: string | number | null;
}

/**
 * Derives the read shape of a written lot: per-share = total / quantity or total = per-share x quantity,
 * USD figures divided by fx_rate, current value = quantity x priceUsd; every figure printed with
 * {@link formatDecimal} at decimal(20,10).
 * @throws {RangeError} when a derived figure needs more than 20 integer digits.
 * @example taxLotReadFromWrite({ theme_asset_id: "RY:XTSE", quantity: "10", cost_basis: "130",
 *   fx_rate: "1.3", cost_basis_currency: "CAD", trade_date: "2024-01-02" },
 *   { tickerSymbol: "RY", tickerName: "Royal Bank of Canada", priceUsd: "105" }).total_cost_basis_usd // "1000"
 */
export function taxLotReadFromWrite(lot: TaxLotWrite, context: TaxLotReadContext): TaxLotRead {
  const { integerDigits: i, fractionDigits: f } = NUMERIC_STRING_WIDTH;
  const unit = lot.cost_basis_unit ?? TAX_LOT_DEFAULTS.cost_basis_unit;
  const currency = lot.cost_basis_currency ?? TAX_LOT_DEFAULTS.cost_basis_currency;
  const fx = new ContractDecimal(lot.fx_rate ?? TAX_LOT_DEFAULTS.fx_rate);
  const quantity = new ContractDecimal(lot.quantity);
  const basis = new ContractDecimal(lot.cost_basis);
  const perShare = unit === "per_share" ? basis : basis.div(quantity);
  const total = unit === "per_share" ? basis.times(quantity) : basis;
  const field = (name: string) => `${lot.theme_asset_id} lot of ${lot.trade_date}: ${name}`;
  const fmt = (value: ContractDecimalValue, name: string) => formatDecimal(value, i, f, field(name));
  return {
    theme_asset_id: lot.theme_asset_id,
    ticker_symbol: context.tickerSymbol,
    ticker_name: context.tickerName,
    quantity: fmt(quantity, "quantity"),
    cost_basis: fmt(basis, "cost_basis"),
    cost_basis_usd: fmt(basis.div(fx), "cost_basis_usd"),
    cost_basis_per_share: fmt(perShare, "cost_basis_per_share"),
    cost_basis_per_share_usd: fmt(perShare.div(fx), "cost_basis_per_share_usd"),
    total_cost_basis: fmt(total, "total_cost_basis"),
    total_cost_basis_usd: fmt(total.div(fx), "total_cost_basis_usd"),
    current_value: context.priceUsd === null ? null : fmt(quantity.times(context.priceUsd), "current_value"),
    fx_rate: fmt(fx, "fx_rate"),
    trade_date: lot.trade_date,
    wash_sale_date: lot.wash_sale_date ?? null,
    last_sold_for_loss_date: lot.last_sold_for_loss_date ?? null,
    cost_basis_currency: currency,
    cost_basis_unit: unit,
  };
}

type ContractDecimalValue = InstanceType<typeof ContractDecimal>;
