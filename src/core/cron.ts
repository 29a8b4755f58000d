/**
 * @module core/cron
 * Day-level matching of 5-field cron expressions (`minute hour day-of-month month day-of-week`), used by the
 * configuration's dynamic rules: a rule with a cron applies on the dates the schedule fires. Minute and hour are
 * validated but ignored (lotwise works on trading dates). Fields accept `*`, numbers, ranges `a-b`, lists `a,b`,
 * steps `*\/n` and `a-b/n`, month names (JAN-DEC) and day names (SUN-SAT); day-of-week 0 and 7 are Sunday. As in
 * Vixie cron, when both day-of-month and day-of-week are restricted, a date matches if either does.
 */
import { dayOfWeek } from "./dates.js";
import { ValidationError } from "./errors.js";

export interface CronSchedule {
  readonly source: string;
  readonly daysOfMonth: ReadonlySet<number>;
  readonly months: ReadonlySet<number>;
  readonly daysOfWeek: ReadonlySet<number>;
  readonly domRestricted: boolean;
  readonly dowRestricted: boolean;
}

const MONTH_NAMES = ["JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"];
const DAY_NAMES = ["SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"];

function fieldValues(
  text: string,
  name: string,
  min: number,
  max: number,
  names?: readonly string[],
  nameBase = 0,
): Set<number> {
  const out = new Set<number>();
  const value = (t: string): number => {
    const upper = t.toUpperCase();
    const named = names?.indexOf(upper) ?? -1;
    if (named >= 0) return named + nameBase;
    if (!/^\d+$/.test(t)) throw new RangeError(`"${t}" is not a number`);
    return Number(t);
  };
  for (const part of text.split(",")) {
    const [range, stepText] = part.split("/") as [string, string | undefined];
    const step = stepText === undefined ? 1 : Number(stepText);
    if (!Number.isInteger(step) || step < 1) throw new RangeError(`bad step "${stepText}"`);
    let lo: number;
    let hi: number;
    if (range === "*") [lo, hi] = [min, max];
    else if (range.includes("-")) {
      const [a, b] = range.split("-") as [string, string];
      [lo, hi] = [value(a), value(b)];
    } else {
      lo = value(range);
      hi = stepText === undefined ? lo : max;
    }
    if (lo < min || hi > max || lo > hi) throw new RangeError(`${name} "${part}" is outside ${min}-${max}`);
    for (let v = lo; v <= hi; v += step) out.add(v);
  }
  return out;
}

/** A cron expression that is not valid; `position` is the 0-based offset of the field at fault. */
export class CronError extends ValidationError {
  constructor(
    message: string,
    path: string,
    issue: string,
    readonly position: number,
  ) {
    super(message, [{ path, message: issue }], "invalid_cron");
  }
}

/**
 * Parse a 5-field cron expression.
 * @throws {ValidationError} (code `invalid_cron`) naming the field that is wrong.
 * @example parseCron("0 0 1 *\/3 *") // fires on the 1st of Jan, Apr, Jul, Oct
 */
export function parseCron(source: string, path = "cron"): CronSchedule {
  const parts = source.trim().split(/\s+/);
  if (parts.length !== 5)
    throw new CronError(
      `cron "${source}" must have 5 fields (minute hour day-of-month month day-of-week), found ${parts[0] === "" ? 0 : parts.length}`,
      path,
      `expected 5 fields (minute hour day-of-month month day-of-week), found ${parts[0] === "" ? 0 : parts.length}`,
      source.length,
    );
  const [minute, hour, dom, month, dow] = parts as [string, string, string, string, string];
  // 0-based offset of each field in the source, for the position of an error.
  const offsets: number[] = [];
  const fieldPattern = /\S+/g;
  for (let m = fieldPattern.exec(source); m !== null; m = fieldPattern.exec(source)) offsets.push(m.index);
  let current = 0;
  const field = (
    index: number,
    text: string,
    name: string,
    min: number,
    max: number,
    names?: readonly string[],
    base = 0,
  ) => {
    current = index;
    return fieldValues(text, name, min, max, names, base);
  };
  try {
    field(0, minute, "minute", 0, 59);
    field(1, hour, "hour", 0, 23);
    const daysOfWeek = field(4, dow, "day-of-week", 0, 7, DAY_NAMES);
    if (daysOfWeek.has(7)) daysOfWeek.add(0);
    return {
      source,
      daysOfMonth: field(2, dom, "day-of-month", 1, 31),
      months: field(3, month, "month", 1, 12, MONTH_NAMES, 1),
      daysOfWeek,
      domRestricted: dom !== "*",
      dowRestricted: dow !== "*",
    };
  } catch (err) {
    const message = `${(err as Error).message} (field ${current + 1} at position ${offsets[current] ?? 0})`;
    throw new CronError(`cron "${source}": ${message}`, path, message, offsets[current] ?? 0);
  }
}

/** True when the schedule fires on `date` (YYYY-MM-DD) at some time of day. */
export function cronMatchesDate(schedule: CronSchedule, date: string): boolean {
  const month = Number(date.slice(5, 7));
  if (!schedule.months.has(month)) return false;
  const domOk = schedule.daysOfMonth.has(Number(date.slice(8, 10)));
  const dowOk = schedule.daysOfWeek.has(dayOfWeek(date));
  if (schedule.domRestricted && schedule.dowRestricted) return domOk || dowOk;
  if (schedule.domRestricted) return domOk;
  if (schedule.dowRestricted) return dowOk;
  return true;
}
