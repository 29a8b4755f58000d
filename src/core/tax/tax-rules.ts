/**
 * @module core/tax/tax-rules
 * The thresholds and conventions every tax computation shares, with their defaults as named constants.
 */

/**
 * Default `long_term_threshold`: a lot is long-term when held MORE than this many days.
 * IRC §1222(3) / IRS Publication 550 ch. 4 "Holding Period": long-term means held more than 1 year.
 */
export const LONG_TERM_THRESHOLD_DAYS = 365;

/**
 * Default `wash_sale_threshold`: a loss sale is a wash sale when substantially identical stock is acquired
 * within this many days before or after the sale (IRC §1091(a); IRS Publication 550 ch. 4 "Wash Sales").
 */
export const WASH_SALE_THRESHOLD_DAYS = 30;

/**
 * Net capital loss deductible against ordinary income per year, USD (IRC §1211(b); Schedule D line 21).
 * Married filing separately: 1,500 (pass it as `lossDeductionLimit`).
 */
export const CAPITAL_LOSS_DEDUCTION_LIMIT = 3000;

/**
 * How the long-term threshold is applied to the calendar days held (sale date - holding-period start).
 * - `"calendar"` (default): a February 29 falling within the threshold period does not count toward it, so
 *   365 days is exactly the IRS "more than 1 year, counting from the day after acquisition; the disposal day
 *   counts" (Publication 550), also across leap years: 2023-03-01 -> 2024-03-01 is 366 days but exactly one
 *   year, hence short-term; 2024-03-02 is long-term.
 * - `"actual_days"`: plain day count (2023-03-01 -> 2024-03-01 = 366 days > 365 -> long-term).
 */
export type HoldingPeriodConvention = "calendar" | "actual_days";

/** Tax-rule settings (the `tax_preferences` fields that shape lots and gains). All optional. */
export interface TaxRulesOptions {
  /** Long-term when held more than this many days. @default 365 ({@link LONG_TERM_THRESHOLD_DAYS}) */
  longTermThresholdDays?: number;
  /** Wash-sale window, days before and after a loss sale. @default 30 ({@link WASH_SALE_THRESHOLD_DAYS}) */
  washSaleThresholdDays?: number;
  /** How the long-term threshold treats February 29. @default "calendar" */
  holdingPeriodConvention?: HoldingPeriodConvention;
}

/** {@link TaxRulesOptions} with every default filled in. */
export interface TaxRules {
  longTermThresholdDays: number;
  washSaleThresholdDays: number;
  holdingPeriodConvention: HoldingPeriodConvention;
}

/**
 * Fills the defaults of {@link TaxRulesOptions} and checks them.
 * @throws {RangeError} when a threshold is not a non-negative integer or the convention is unknown.
 * @example resolveTaxRules({}).longTermThresholdDays // 365
 */
export function resolveTaxRules(options: TaxRulesOptions = {}, where = "resolveTaxRules"): TaxRules {
  const longTermThresholdDays = options.longTermThresholdDays ?? LONG_TERM_THRESHOLD_DAYS;
  const washSaleThresholdDays = options.washSaleThresholdDays ?? WASH_SALE_THRESHOLD_DAYS;
  const holdingPeriodConvention = options.holdingPeriodConvention ?? "calendar";
  for (const [name, v] of [
    ["longTermThresholdDays", longTermThresholdDays],
    ["washSaleThresholdDays", washSaleThresholdDays],
  ] as const) {
    if (!Number.isInteger(v) || v < 0)
      throw new RangeError(`${where}: ${name} must be a non-negative integer, got ${String(v)}`);
  }
  if (holdingPeriodConvention !== "calendar" && holdingPeriodConvention !== "actual_days")
    throw new RangeError(
      `${where}: holdingPeriodConvention must be "calendar" or "actual_days", got ${String(holdingPeriodConvention)}`,
    );
  return { longTermThresholdDays, washSaleThresholdDays, holdingPeriodConvention };
}
