/**
 * @module core/tax/holding-period
 * Holding periods and the short-/long-term character of a gain.
 *
 * Counting (IRS Publication 550, ch. 4 "Holding Period"): start counting on the day after acquisition;
 * the day of disposal counts. So the days held are `sale - start` in calendar days (a lot bought and sold
 * on the same day is held 0 days). Long-term when held MORE than the threshold (IRC §1222(3)).
 */

import { addDays, daysBetween, isIsoDate, yearOf } from "../dates.js";
import type { TaxRules, TaxRulesOptions } from "./tax-rules.js";
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
 * Calendar days a position started on `start` has been held on `date` (`date - start`; Publication 550:
 * counting starts the day after acquisition and the disposal day counts).
 * @throws {RangeError} when a date is not `YYYY-MM-DD` or `date` is before `start`.
 * @example holdingDays("2023-03-01", "2024-03-01") // 366
 */
export function holdingDays(start: string, date: string): number {
  if (!isIsoDate(start) || !isIsoDate(date))
    throw new RangeError(`holdingDays: dates must be YYYY-MM-DD, got "${start}" and "${date}"`);
  const days = daysBetween(start, date);
  if (days < 0) throw new RangeError(`holdingDays: ${date} is before the holding-period start ${start}`);
  return days;
}

/**
 * Days a position started on `start` must be held to exceed the threshold, under the rules' convention:
 * `"actual_days"`: the threshold itself; `"calendar"`: the threshold plus each February 29 that falls within
 * the period, so that with 365 the period is exactly one calendar year (2023-03-01 needs 366 days, as the
 * year to 2024-03-01 contains 2024-02-29). Internal helper of the term rules.
 */
export function longTermRequiredDays(start: string, rules: TaxRules): number {
  const n = rules.longTermThresholdDays;
  if (rules.holdingPeriodConvention === "actual_days") return n;
  // Fixed point: extending the period by a leap day can (for multi-year thresholds) reach another one.
  let required = n;
  for (;;) {
    const next = n + leapDaysBetween(start, addDays(start, required));
    if (next === required) return required;
    required = next;
  }
}

/**
 * Term of a disposal on `date` of a position whose holding period began on `start`, for resolved rules.
 * Internal form of {@link holdingTerm} (no option parsing).
 */
export function termOf(start: string, date: string, rules: TaxRules): HoldingTerm {
  return holdingDays(start, date) > longTermRequiredDays(start, rules) ? "long_term" : "short_term";
}

/**
 * {@link termOf} with the day numbers of `start` and `date` already known (`startDay`, `dateDay`, from
 * `toDayNumber`): the same answer, with no date parsing in the common case. Only a holding period within a
 * few days of the threshold needs the calendar convention's February 29 count, because the required days
 * R = n + (February 29s in the period) can never exceed n + 2 + (n + 1) / 1460 (two February 29s are at
 * least 1,461 days apart). Internal to the tax engine's hot paths (lot selection).
 * @throws {RangeError} when `date` is before `start`.
 */
export function termOfDays(
  start: string,
  startDay: number,
  date: string,
  dateDay: number,
  rules: TaxRules,
): HoldingTerm {
  const days = dateDay - startDay;
  if (days < 0) throw new RangeError(`holdingDays: ${date} is before the holding-period start ${start}`);
  const n = rules.longTermThresholdDays;
  if (days <= n) return "short_term";
  if (rules.holdingPeriodConvention === "actual_days" || days > n + 2 + Math.floor((n + 1) / 1460))
    return "long_term";
  return days > longTermRequiredDays(start, rules) ? "long_term" : "short_term";
}

/**
 * Short- or long-term character of a disposal on `date` of a position whose holding period began on `start`:
 * long-term when held more than `longTermThresholdDays` (default 365) days. With the default `"calendar"`
 * convention a February 29 inside the period does not count toward the threshold, which makes 365 days
 * exactly the IRS "more than 1 year" (Publication 550) in leap years too.
 * @throws {RangeError} as {@link holdingDays}, or for bad options.
 * @example holdingTerm("2023-01-05", "2024-01-05") // "short_term" (365 days)
 * @example holdingTerm("2023-01-05", "2024-01-06") // "long_term" (366 days)
 * @example holdingTerm("2023-03-01", "2024-03-01") // "short_term" (366 days, but exactly one year)
 */
export function holdingTerm(start: string, date: string, options: TaxRulesOptions = {}): HoldingTerm {
  return termOf(start, date, resolveTaxRules(options, "holdingTerm"));
}

/**
 * First date on which a position started on `start` is long-term.
 * @throws {RangeError} for a bad date or options.
 * @example longTermDate("2023-01-05") // "2024-01-06"
 */
export function longTermDate(start: string, options: TaxRulesOptions = {}): string {
  const rules = resolveTaxRules(options, "longTermDate");
  if (!isIsoDate(start)) throw new RangeError(`longTermDate: "${start}" is not a YYYY-MM-DD date`);
  return addDays(start, longTermRequiredDays(start, rules) + 1);
}
