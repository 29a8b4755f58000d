/**
 * @module core/dates
 * Calendar arithmetic on `YYYY-MM-DD` strings. Pure: "today" is always a parameter, never read from a clock.
 * A day number is the count of days since 1970-01-01 (UTC), so differences are exact whole days.
 */

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** True when `s` is a real calendar date written `YYYY-MM-DD`. Pure arithmetic (no Date object): it is hot. */
export function isIsoDate(s: string): boolean {
  if (s.length !== 10 || s.charCodeAt(4) !== 45 || s.charCodeAt(7) !== 45) return false;
  let y = 0;
  let mo = 0;
  let d = 0;
  for (let i = 0; i < 10; i++) {
    if (i === 4 || i === 7) continue;
    const c = s.charCodeAt(i) - 48;
    if (c < 0 || c > 9) return false;
    if (i < 4) y = y * 10 + c;
    else if (i < 7) mo = mo * 10 + c;
    else d = d * 10 + c;
  }
  if (mo < 1 || mo > 12 || d < 1) return false;
  return d <= daysInMonth(y, mo);
}

/**
 * Days since 1970-01-01 of an ISO date.
 * @throws {RangeError} when `date` is not a valid `YYYY-MM-DD` date.
 * @example toDayNumber("1970-01-02") // 1
 */
export function toDayNumber(date: string): number {
  // Parsed and checked in one pass (no closure, no regex): every lot of a sale goes through here.
  if (date.length !== 10 || date.charCodeAt(4) !== 45 || date.charCodeAt(7) !== 45)
    throw new RangeError(`toDayNumber: "${date}" is not a YYYY-MM-DD date`);
  const c0 = date.charCodeAt(0) - 48;
  const c1 = date.charCodeAt(1) - 48;
  const c2 = date.charCodeAt(2) - 48;
  const c3 = date.charCodeAt(3) - 48;
  const c5 = date.charCodeAt(5) - 48;
  const c6 = date.charCodeAt(6) - 48;
  const c8 = date.charCodeAt(8) - 48;
  const c9 = date.charCodeAt(9) - 48;
  if (
    c0 >>> 0 > 9 ||
    c1 >>> 0 > 9 ||
    c2 >>> 0 > 9 ||
    c3 >>> 0 > 9 ||
    c5 >>> 0 > 9 ||
    c6 >>> 0 > 9 ||
    c8 >>> 0 > 9 ||
    c9 >>> 0 > 9
  )
    throw new RangeError(`toDayNumber: "${date}" is not a YYYY-MM-DD date`);
  const y = c0 * 1000 + c1 * 100 + c2 * 10 + c3;
  const m = c5 * 10 + c6;
  const d = c8 * 10 + c9;
  if (m < 1 || m > 12 || d < 1 || d > daysInMonth(y, m))
    throw new RangeError(`toDayNumber: "${date}" is not a YYYY-MM-DD date`);
  return daysFromCivil(y, m, d);
}

/**
 * Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant, "chrono-Compatible Low-Level Date Algorithms",
 * days_from_civil).
 */
function daysFromCivil(y: number, m: number, d: number): number {
  const yy = m <= 2 ? y - 1 : y;
  const era = Math.floor(yy / 400);
  const yoe = yy - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

/** ISO date of a day number (Hinnant's civil_from_days). @example fromDayNumber(0) // "1970-01-01" */
export function fromDayNumber(day: number): string {
  const z = day + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor(
    (doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365,
  );
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp < 10 ? mp + 3 : mp - 9;
  const y = yoe + era * 400 + (m <= 2 ? 1 : 0);
  return `${String(y).padStart(4, "0")}-${m < 10 ? "0" : ""}${m}-${d < 10 ? "0" : ""}${d}`;
}

/** `date` shifted by `days` calendar days (negative goes back). */
export function addDays(date: string, days: number): string {
  return fromDayNumber(toDayNumber(date) + days);
}

/** Whole calendar days from `from` to `to` (positive when `to` is later). */
export function daysBetween(from: string, to: string): number {
  return toDayNumber(to) - toDayNumber(from);
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** Number of days in month `month` (1-12) of `year` (Gregorian leap years). */
export function daysInMonth(year: number, month: number): number {
  if (month === 2 && ((year % 4 === 0 && year % 100 !== 0) || year % 400 === 0)) return 29;
  return DAYS_IN_MONTH[month - 1]!;
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
