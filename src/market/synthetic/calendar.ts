/**
 * @module market/synthetic/calendar
 * The trading calendar of the synthetic market, shared by its US and Canadian listings: Monday to Friday minus
 * six holidays. It is deliberately small and fixed (not an exchange calendar): it gives ~251 trading days a year
 * and realistic gaps around year end, which is what tests and benchmarks need.
 *
 * Holidays (weekend rule in brackets):
 * - New Year's Day, January 1 [Sunday -> Monday January 2; Saturday -> not observed];
 * - Good Friday (two days before Western Easter Sunday);
 * - Independence Day, July 4 [Saturday -> Friday; Sunday -> Monday];
 * - Labor Day, the first Monday of September (Labour Day in Canada falls on the same day);
 * - Thanksgiving, the fourth Thursday of November (US);
 * - Christmas Day, December 25 [Saturday -> Friday; Sunday -> Monday].
 */

import { fromDayNumber, toDayNumber } from "../../core/dates.js";

/** Names of the holidays of the synthetic calendar, in calendar order. */
export const SYNTHETIC_HOLIDAY_NAMES: readonly string[] = Object.freeze([
  "New Year's Day",
  "Good Friday",
  "Independence Day",
  "Labor Day",
  "Thanksgiving",
  "Christmas Day",
]);

/**
 * Western (Gregorian) Easter Sunday of a year, as `[month, day]`. Anonymous Gregorian algorithm
 * (Meeus/Jones/Butcher, J. Meeus, "Astronomical Algorithms", 1991, ch. 8).
 * @example easterSunday(2024) // [3, 31]
 */
export function easterSunday(year: number): [month: number, day: number] {
  const a = year % 19;
  const b = Math.floor(year / 100);
  const c = year % 100;
  const d = Math.floor(b / 4);
  const e = b % 4;
  const f = Math.floor((b + 8) / 25);
  const g = Math.floor((b - f + 1) / 3);
  const h = (19 * a + b - d - g + 15) % 30;
  const i = Math.floor(c / 4);
  const k = c % 4;
  const l = (32 + 2 * e + 2 * i - h - k) % 7;
  const m = Math.floor((a + 11 * h + 22 * l) / 451);
  const month = Math.floor((h + l - 7 * m + 114) / 31);
  const day = ((h + l - 7 * m + 114) % 31) + 1;
  return [month, day];
}

function dayNumber(y: number, m: number, d: number): number {
  return Date.UTC(y, m - 1, d) / 86_400_000;
}

/** Weekday of a day number: 0 Sunday ... 6 Saturday (1970-01-01 was a Thursday). */
function weekdayOf(day: number): number {
  return (((day + 4) % 7) + 7) % 7;
}

/** Saturday -> Friday, Sunday -> Monday. */
function observed(day: number): number {
  const w = weekdayOf(day);
  return w === 6 ? day - 1 : w === 0 ? day + 1 : day;
}

/** The nth (1-based) given weekday of a month, as a day number. */
function nthWeekday(y: number, m: number, weekday: number, n: number): number {
  const first = dayNumber(y, m, 1);
  const offset = (weekday - weekdayOf(first) + 7) % 7;
  return first + offset + 7 * (n - 1);
}

/**
 * The holiday day numbers of one year (days since 1970-01-01), ascending; only weekdays are listed.
 * @example syntheticHolidays(2024).map(fromDayNumber)[0] // "2024-01-01"
 */
export function syntheticHolidays(year: number): number[] {
  const out: number[] = [];
  const newYear = dayNumber(year, 1, 1);
  const nyWeekday = weekdayOf(newYear);
  if (nyWeekday === 0) out.push(newYear + 1);
  else if (nyWeekday !== 6) out.push(newYear);
  const [em, ed] = easterSunday(year);
  out.push(dayNumber(year, em, ed) - 2);
  out.push(observed(dayNumber(year, 7, 4)));
  out.push(nthWeekday(year, 9, 1, 1));
  out.push(nthWeekday(year, 11, 4, 4));
  out.push(observed(dayNumber(year, 12, 25)));
  return out.sort((a, b) => a - b);
}

/** True when `date` is a holiday of the synthetic calendar. @example isSyntheticHoliday("2024-07-04") // true */
export function isSyntheticHoliday(date: string): boolean {
  const day = toDayNumber(date);
  return syntheticHolidays(Number(date.slice(0, 4))).includes(day);
}

/**
 * The trading dates from `from` to `to` inclusive: weekdays that are not holidays.
 * @throws {RangeError} when a bound is not a `YYYY-MM-DD` date or `from` is after `to`.
 * @example syntheticTradingDates("2024-12-23", "2024-12-27") // ["2024-12-23", "2024-12-24", "2024-12-26", "2024-12-27"]
 */
export function syntheticTradingDates(from: string, to: string): string[] {
  const start = toDayNumber(from);
  const end = toDayNumber(to);
  if (start > end) throw new RangeError(`syntheticTradingDates: from ${from} is after to ${to}`);
  const holidays = new Set<number>();
  const y0 = Number(from.slice(0, 4));
  const y1 = Number(to.slice(0, 4));
  for (let y = y0; y <= y1; y++) for (const h of syntheticHolidays(y)) holidays.add(h);
  const out: string[] = [];
  for (let day = start; day <= end; day++) {
    const w = weekdayOf(day);
    if (w === 0 || w === 6 || holidays.has(day)) continue;
    out.push(fromDayNumber(day));
  }
  return out;
}
