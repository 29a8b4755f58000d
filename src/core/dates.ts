/**
 * @module core/dates
 * Calendar arithmetic on `YYYY-MM-DD` strings. Pure: "today" is always a parameter, never read from a clock.
 * A day number is the count of days since 1970-01-01 (UTC), so differences are exact whole days.
 */

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const MS_PER_DAY = 86_400_000;

/** True when `s` is a real calendar date written `YYYY-MM-DD`. */
export function isIsoDate(s: string): boolean {
  const m = ISO_DATE.exec(s);
  if (!m) return false;
  const y = Number(m[1]);
  const mo = Number(m[2]);
  const d = Number(m[3]);
  if (mo < 1 || mo > 12 || d < 1) return false;
  return d <= daysInMonth(y, mo);
}

/**
 * Days since 1970-01-01 of an ISO date.
 * @throws {RangeError} when `date` is not a valid `YYYY-MM-DD` date.
 * @example toDayNumber("1970-01-02") // 1
 */
export function toDayNumber(date: string): number {
  const m = ISO_DATE.exec(date);
  if (!m || !isIsoDate(date)) throw new RangeError(`toDayNumber: "${date}" is not a YYYY-MM-DD date`);
  return Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])) / MS_PER_DAY;
}

/** ISO date of a day number. @example fromDayNumber(0) // "1970-01-01" */
export function fromDayNumber(day: number): string {
  return new Date(day * MS_PER_DAY).toISOString().slice(0, 10);
}

/** `date` shifted by `days` calendar days (negative goes back). */
export function addDays(date: string, days: number): string {
  return fromDayNumber(toDayNumber(date) + days);
}

/** Whole calendar days from `from` to `to` (positive when `to` is later). */
export function daysBetween(from: string, to: string): number {
  return toDayNumber(to) - toDayNumber(from);
}

/** Number of days in month `month` (1-12) of `year`. */
export function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/**
 * `date` shifted by whole months, clamped to the end of the target month.
 * @example addMonths("2024-01-31", 1) // "2024-02-29"
 */
export function addMonths(date: string, months: number): string {
  const m = ISO_DATE.exec(date);
  if (!m) throw new RangeError(`addMonths: "${date}" is not a YYYY-MM-DD date`);
  const total = Number(m[1]) * 12 + (Number(m[2]) - 1) + months;
  const y = Math.floor(total / 12);
  const mo = (total % 12) + 1;
  const d = Math.min(Number(m[3]), daysInMonth(y, mo));
  return `${String(y).padStart(4, "0")}-${String(mo).padStart(2, "0")}-${String(d).padStart(2, "0")}`;
}

/** Day of week, 0 = Sunday ... 6 = Saturday. */
export function dayOfWeek(date: string): number {
  return (((toDayNumber(date) + 4) % 7) + 7) % 7;
}

/** True for Monday to Friday. Holidays are a property of a market's calendar, not of this function. */
export function isWeekday(date: string): boolean {
  const w = dayOfWeek(date);
  return w !== 0 && w !== 6;
}

/** `YYYY-MM` of a date. */
export function monthKey(date: string): string {
  return date.slice(0, 7);
}

/** Calendar year of a date. */
export function yearOf(date: string): number {
  return Number(date.slice(0, 4));
}

/** Compare two ISO dates (they sort lexicographically). */
export function compareDates(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Index of the last element of the ascending `dates` that is `<= date`, or -1 when none is.
 * Binary search: O(log n).
 */
export function indexAtOrBefore(dates: readonly string[], date: string): number {
  let lo = 0;
  let hi = dates.length - 1;
  let ans = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (dates[mid]! <= date) {
      ans = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return ans;
}

/** Index of the first element of the ascending `dates` that is `>= date`, or -1 when none is. */
export function indexAtOrAfter(dates: readonly string[], date: string): number {
  const i = indexAtOrBefore(dates, date);
  if (i >= 0 && dates[i] === date) return i;
  return i + 1 < dates.length ? i + 1 : -1;
}

/**
 * The last trading date of each calendar month in the ascending trading calendar `dates`,
 * restricted to [from, to]. Used as monthly rebalance dates.
 */
export function monthEnds(dates: readonly string[], from?: string, to?: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < dates.length; i++) {
    const d = dates[i]!;
    if ((from && d < from) || (to && d > to)) continue;
    const next = dates[i + 1];
    if (next === undefined || monthKey(next) !== monthKey(d) || (to && next > to)) out.push(d);
  }
  return out;
}
