/**
 * @module market/importers/summary
 * The import summary: what was read, kept and skipped, and every known data flaw found, each with its kind,
 * symbol, date, line, what happened to the row, and a message. Flaws are facts about the data, not errors.
 */

/**
 * Kinds of known data flaws. What the importers do with each:
 * - `empty_field`: an optional field (open/high/low/volume/name...) is empty; row kept, field stored as null.
 * - `zero_volume`: volume is 0; row kept as is.
 * - `ohlc_inconsistent`: close outside [low, high] or high < low; row kept as is.
 * - `no_close`: no usable close/level (empty, "null", zero or negative); row skipped.
 * - `duplicate`: a second row with the same key (e.g. date and symbol); the first is kept, this one skipped.
 * - `late_start`: a series starts after the file's first date; noted (rows kept).
 * - `early_end`: a series ends before the file's last date; noted (rows kept).
 * - `gap`: trading days of the file's calendar missing inside a series; noted (nothing is filled in).
 * - `jump`: |log return| between consecutive closes above the threshold (spin-off, bad tick); row kept.
 * - `empty_value`: an empty cell of a value column (FX holiday, missing P/E); no record for that cell.
 * - `unresolved_symbol`: a symbol matched no (or several) listings and the caller asked to skip; row skipped.
 * - `other_currency`: FX rows of a currency outside the supported set; skipped.
 * - `weight_sum`: index weights of one date do not sum to 1 (within 1e-6); kept as given.
 */
export const FLAW_KINDS = [
  "empty_field",
  "zero_volume",
  "ohlc_inconsistent",
  "no_close",
  "duplicate",
  "late_start",
  "early_end",
  "gap",
  "jump",
  "empty_value",
  "unresolved_symbol",
  "other_currency",
  "weight_sum",
] as const;
export type FlawKind = (typeof FLAW_KINDS)[number];

/** What happened to the data concerned: row kept, row (or value) skipped, or nothing to do (a note). */
export type FlawAction = "kept" | "skipped" | "noted";

/** One known data flaw. */
export interface ImportFlaw {
  kind: FlawKind;
  action: FlawAction;
  /** theme_asset_id, currency, index identifier or raw symbol the flaw concerns; null when none applies. */
  symbol: string | null;
  date: string | null;
  /** 1-based physical line in the file; null for flaws that concern no single line. */
  line: number | null;
  message: string;
}

/** The data sets the importers read. */
export type ImportDataset =
  | "prices"
  | "securities"
  | "fx"
  | "splits"
  | "dividends"
  | "characteristics"
  | "index_levels"
  | "index_weights";

/** Summary of one parsed file. Invariant: `rowsRead = rowsKept + rowsSkipped`. */
export interface ImportSummary {
  file: string;
  dataset: ImportDataset;
  /** The layout detected from the header (e.g. `long`, `yahoo`, `ecb`, `fred_wide`). */
  layout: string;
  /** Data rows (the header and blank lines excluded). */
  rowsRead: number;
  /** Rows that produced at least one record. */
  rowsKept: number;
  /** Rows that produced no record; each is covered by a flaw. */
  rowsSkipped: number;
  /** Records produced (a wide row can produce several). */
  records: number;
  /** Distinct theme_asset_ids (or currencies / index identifiers) in the records. */
  symbols: number;
  firstDate: string | null;
  lastDate: string | null;
  /** Exact count per kind (listed or not). */
  flawCounts: Record<FlawKind, number>;
  /** The flaws, sorted by line; at most `maxFlawsListedPerKind` per kind. */
  flaws: ImportFlaw[];
  /** Flaws counted but not listed because of the per-kind cap. */
  flawsNotListed: number;
  /** Header columns the layout does not use. */
  ignoredColumns: string[];
}

/** Default cap on listed flaws per kind (counts stay exact). */
export const DEFAULT_MAX_FLAWS_LISTED_PER_KIND = 5000;

function zeroCounts(): Record<FlawKind, number> {
  const c = {} as Record<FlawKind, number>;
  for (const k of FLAW_KINDS) c[k] = 0;
  return c;
}

/** Collects flaws with exact counts and a per-kind listing cap. */
export class FlawLog {
  readonly counts = zeroCounts();
  private readonly listed: ImportFlaw[] = [];
  private notListed = 0;

  constructor(private readonly maxPerKind: number = DEFAULT_MAX_FLAWS_LISTED_PER_KIND) {}

  add(
    kind: FlawKind,
    action: FlawAction,
    symbol: string | null,
    date: string | null,
    line: number | null,
    message: string,
  ): void {
    const k = ++this.counts[kind];
    if (k <= this.maxPerKind) this.listed.push({ kind, action, symbol, date, line, message });
    else this.notListed++;
  }

  /** Builds the summary; flaws sorted by line (flaws without a line last), stable otherwise. */
  summary(fields: Omit<ImportSummary, "flawCounts" | "flaws" | "flawsNotListed">): ImportSummary {
    const flaws = this.listed
      .map((f, i) => ({ f, i }))
      .sort(
        (a, b) => (a.f.line ?? Number.MAX_SAFE_INTEGER) - (b.f.line ?? Number.MAX_SAFE_INTEGER) || a.i - b.i,
      )
      .map((x) => x.f);
    return { ...fields, flawCounts: { ...this.counts }, flaws, flawsNotListed: this.notListed };
  }
}

/** Smallest and largest of a set of ISO dates. */
export function dateRange(dates: Iterable<string>): { firstDate: string | null; lastDate: string | null } {
  let lo: string | null = null;
  let hi: string | null = null;
  for (const d of dates) {
    if (lo === null || d < lo) lo = d;
    if (hi === null || d > hi) hi = d;
  }
  return { firstDate: lo, lastDate: hi };
}
