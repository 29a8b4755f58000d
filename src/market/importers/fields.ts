/**
 * @module market/importers/fields
 * Strict field parsers shared by the importers: dates (`YYYY-MM-DD` or US `M/D/YYYY`), plain decimal numbers,
 * and the tokens vendors use for "no value".
 */
import { isIsoDate } from "../../core/dates.js";

const US_DATE = /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/;
const ISO_WITH_TIME = /^(\d{4}-\d{2}-\d{2})(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/;

/**
 * Parses `YYYY-MM-DD` (optionally followed by a time, which is dropped) or US `M/D/YYYY` / `MM/DD/YYYY`
 * into `YYYY-MM-DD`; null when the text is not a real calendar date. Day-first dates are not accepted
 * (`13/1/2020` is invalid, `1/13/2020` is January 13).
 * @example parseDate("1/4/1999") // "1999-01-04"
 */
export function parseDate(raw: string): string | null {
  const s = raw.trim();
  const iso = ISO_WITH_TIME.exec(s);
  if (iso) return isIsoDate(iso[1]!) ? iso[1]! : null;
  const us = US_DATE.exec(s);
  if (us) {
    const d = `${us[3]}-${us[1]!.padStart(2, "0")}-${us[2]!.padStart(2, "0")}`;
    return isIsoDate(d) ? d : null;
  }
  return null;
}

/** {@link parseDate} with a memo: vendor files repeat a few thousand dates over hundreds of thousands of rows. */
export class DateCache {
  private readonly memo = new Map<string, string | null>();
  parse(raw: string): string | null {
    let d = this.memo.get(raw);
    if (d === undefined) {
      d = parseDate(raw);
      this.memo.set(raw, d);
    }
    return d;
  }
}

/**
 * Parses a plain decimal number (`12`, `-0.5`, `.25`, `1.5e-3`, surrounding spaces allowed); NaN for anything
 * else, including hexadecimal, `Infinity`, thousands separators and the empty string.
 * @example parseNumber("1.5e3") // 1500
 */
export function parseNumber(raw: string): number {
  let s = raw;
  if (s.length > 0 && (s.charCodeAt(0) === 32 || s.charCodeAt(s.length - 1) === 32)) s = s.trim();
  const n = s.length;
  if (n === 0) return Number.NaN;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    // digits . - + e E only: rules out 0x.., Infinity and other forms Number() would accept.
    if (!((c >= 48 && c <= 57) || c === 46 || c === 45 || c === 43 || c === 101 || c === 69))
      return Number.NaN;
  }
  return +s;
}

const MISSING = new Set(["", ".", "-", "null", "n/a", "na", "#n/a", "nan", "none"]);

/**
 * True for the tokens vendors write for "no value": empty, `.` (FRED), `-`, `null` (Yahoo), `N/A` (ECB),
 * `NA`, `#N/A`, `NaN`, `None` (case-insensitive, spaces ignored).
 */
export function isMissing(raw: string): boolean {
  if (raw.length === 0) return true;
  const c = raw.charCodeAt(0);
  if (c >= 48 && c <= 57) return false; // a digit: the common case, decided without a lookup
  return MISSING.has(raw.trim().toLowerCase());
}

/** Normalized header key: lower case, runs of spaces, `_`, `-`, `/` and `.` become one `_`. `Adj Close` -> `adj_close`. */
export function headerKey(name: string): string {
  return name
    .trim()
    .toLowerCase()
    .replace(/[\s_\-/.]+/g, "_")
    .replace(/^_+|_+$/g, "");
}

/** Message for a field that should hold a number and does not. */
export function notANumberMessage(raw: string): string {
  return `${JSON.stringify(raw)} is not a number${raw.includes(",") ? " (remove thousands separators)" : ""}.`;
}
