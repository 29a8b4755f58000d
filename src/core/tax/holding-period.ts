/**
 * @module core/tax/holding-period
 * Holding periods and the short-/long-term character of a gain.
 *
 * Counting (IRS Publication 550, ch. 4 "Holding Period"): start counting on the day after acquisition;
 * the day of disposal counts. So the days held are `sale - start` in calendar days (a lot bought and sold
 * on the same day is held 0 days). Long-term when held MORE than the threshold (IRC §1222(3)).
 */

import { addDays, daysBetween, isIsoDate, yearOf } from "../dates.js";
import type { HoldingPeriodConvention, TaxRulesOptions } from "./tax-rules.js";
import { resolveTaxRules } from "./tax-rules.js";

/** Character of a gain or loss. */
export type HoldingTerm = "short_term" | "long_term";

function isLeapYear(y: number): boolean {
  return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
}

/** Number of February 29ths in the half-open interval (from, to]. */
function leapDaysBetween(from: string, to: string): number {
  let n = 0;
  for (let y = yearOf(from); y <= yearOf(to); y++) {
    if (!isLeapYear(y)) continue;
    const d = `${String(y).padStart(4, "0")}-02-29`;
    if (d > from && d <= to) n++;
  }
  return n;
}

/**
 * Days a position started on `start` has been held on `date` under `convention`.
 * `"actual_days"`: calendar days `date - start`. `"calendar"` (default): the same, not counting February 29,
 * so that "more than 365 days" equals "more than one calendar year" (Publication 550) in every year.
 * @throws {RangeError} when a date is not `YYYY-MM-DD` or `date` is before `start`.
 * @example holdingDays("2023-03-01", "2024-03-01") // 365 (exactly one year)
 * @example holdingDays("2023-03-01", "2024-03-01", "actual_days") // 366
 */
export function holdingDays(
  start: string,
  date: string,
  convention: HoldingPeriodConvention = "calendar",
): number {
  if (!isIsoDate(start) || !isIsoDate(date))
    throw new RangeError(`holdingDays: dates must be YYYY-MM-DD, got "${start}" and "${date}"`);
  const days = daysBetween(start, date);
  if (days < 0) throw new RangeError(`holdingDays: ${date} is before the holding-period start ${start}`);
  return convention === "actual_days" ? days : days - leapDaysBetween(start, date);
}

/**
 * Short- or long-term character of a disposal on `date` of a position whose holding period began on `start`:
 * long-term when {@link holdingDays} > `longTermThresholdDays` (default 365).
 * @throws {RangeError} as {@link holdingDays}, or for a bad threshold.
 * @example holdingTerm("2023-01-05", "2024-01-05") // "short_term" (365 days)
 * @example holdingTerm("2023-01-05", "2024-01-06") // "long_term" (366 days)
 */
export function holdingTerm(start: string, date: string, options: TaxRulesOptions = {}): HoldingTerm {
  const rules = resolveTaxRules(options, "holdingTerm");
  return holdingDays(start, date, rules.holdingPeriodConvention) > rules.longTermThresholdDays
    ? "long_term"
    : "short_term";
}

/**
 * First date on which a position started on `start` is long-term (the day after the threshold is reached).
 * @example longTermDate("2023-01-05") // "2024-01-06"
 */
export function longTermDate(start: string, options: TaxRulesOptions = {}): string {
  const rules = resolveTaxRules(options, "longTermDate");
  // Start from the plain day count and step forward over any February 29ths the convention skips.
  let date = addDays(start, rules.longTermThresholdDays + 1);
  while (holdingDays(start, date, rules.holdingPeriodConvention) <= rules.longTermThresholdDays)
    date = addDays(date, 1);
  return date;
}
