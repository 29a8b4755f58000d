/**
 * @module core/ledger/realized
 * The realized-gains statement: one row per closed lot or lot part, year totals, Form 8949 lines grouped as the
 * form groups them, Schedule D line totals, and the CSV layout of docs/ledger.md.
 *
 * Amounts are USD. A row's gain is Form 8949 column (h) = (d) proceeds - (e) cost basis + (g) adjustment, where
 * (g) is the wash-sale loss disallowed (code "W", a positive amount), so it equals the tax engine's recognized gain.
 * Form lines are in cents (each amount rounded half up; the line's gain is computed from the rounded amounts, so
 * every line and every total adds up exactly).
 */

import type { Decimal } from "decimal.js";
import { type HoldingTerm, TaxDecimal } from "../tax/index.js";
import type { LedgerEntry } from "./types.js";

const ZERO = new TaxDecimal(0);

/** One realized row (Form 8949 columns plus identification). */
export interface RealizedRow {
  readonly entryId: string;
  readonly sourceId: string;
  readonly accountId?: string;
  readonly lotId: string;
  readonly themeAssetId: string;
  /** The symbol part of the theme_asset_id. */
  readonly symbol: string;
  readonly side: "long" | "short";
  /** (a) Description: quantity and symbol, e.g. "100 AAPL". */
  readonly description: string;
  readonly quantity: Decimal;
  /** (b) Date acquired: the lot's trade date (a cover: the date the covering shares were bought). */
  readonly dateAcquired: string;
  /** (c) Date sold or disposed of. */
  readonly dateSold: string;
  /** (d) Proceeds, USD (net of sale fees). */
  readonly proceeds: Decimal;
  /** (e) Cost or other basis, USD (purchase fees and wash-sale additions included). */
  readonly costBasis: Decimal;
  /** (f) Adjustment code: "W" when a wash sale disallowed part of the loss, else "". */
  readonly adjustmentCode: "W" | "";
  /** (g) Amount of adjustment, USD (>= 0). */
  readonly adjustment: Decimal;
  /** (h) Gain or (loss), USD: proceeds - costBasis + adjustment. */
  readonly gain: Decimal;
  /** Short- or long-term by the holding-period rule of core/tax (tacked wash-sale periods included). */
  readonly term: HoldingTerm;
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/**
 * Rows of realized entries, in the order given. The gain is the record's recognized gain, which is
 * proceeds - basis + disallowed loss by construction (core/tax realized-gain).
 */
export function realizedRows(entries: readonly LedgerEntry[]): RealizedRow[] {
  const symbols = new Map<string, string>();
  const out: RealizedRow[] = new Array(entries.length);
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i]!;
    const r = e.record;
    let symbol = symbols.get(r.themeAssetId);
    if (symbol === undefined) {
      const colon = r.themeAssetId.indexOf(":");
      symbol = colon < 0 ? r.themeAssetId : r.themeAssetId.slice(0, colon);
      symbols.set(r.themeAssetId, symbol);
    }
    const adjustment = r.disallowedLossUsd;
    const row: Mutable<RealizedRow> = {
      entryId: e.id,
      sourceId: e.sourceId,
      lotId: r.lotId,
      themeAssetId: r.themeAssetId,
      symbol,
      side: e.side,
      description: `${r.quantity.toString()} ${symbol}`,
      quantity: r.quantity,
      dateAcquired: r.tradeDate,
      dateSold: r.saleDate,
      proceeds: r.proceedsUsd,
      costBasis: r.costBasisUsd,
      adjustmentCode: adjustment.isZero() ? "" : "W",
      adjustment,
      gain: r.recognizedGainUsd,
      term: r.term,
    };
    if (r.accountId !== undefined) row.accountId = r.accountId;
    out[i] = row;
  }
  return out;
}

/** Sums of one character (short- or long-term) of a year. */
export interface TermTotals {
  proceeds: Decimal;
  costBasis: Decimal;
  /** Wash-sale adjustments (disallowed losses). */
  adjustments: Decimal;
  /** Sum of the positive row gains. */
  gains: Decimal;
  /** Sum of the negative row gains (<= 0). */
  losses: Decimal;
  /** gains + losses. */
  net: Decimal;
  rows: number;
}

/** Totals of a tax year (rows sold in that year), exact (not rounded). */
export interface YearTotals {
  year: number;
  shortTerm: TermTotals;
  longTerm: TermTotals;
  /** Wash-sale losses disallowed, both characters. */
  disallowedLoss: Decimal;
  /** Net gain, both characters. */
  net: Decimal;
}

function emptyTerm(): TermTotals {
  return {
    proceeds: ZERO,
    costBasis: ZERO,
    adjustments: ZERO,
    gains: ZERO,
    losses: ZERO,
    net: ZERO,
    rows: 0,
  };
}

function addTo(t: TermTotals, proceeds: Decimal, cost: Decimal, adj: Decimal, gain: Decimal): void {
  t.proceeds = t.proceeds.plus(proceeds);
  t.costBasis = t.costBasis.plus(cost);
  t.adjustments = t.adjustments.plus(adj);
  if (gain.isPositive() && !gain.isZero()) t.gains = t.gains.plus(gain);
  else t.losses = t.losses.plus(gain);
  t.net = t.net.plus(gain);
  t.rows += 1;
}

function checkYear(year: number, where: string): void {
  if (!Number.isInteger(year) || year < 1900 || year > 9999)
    throw new RangeError(`${where}: year must be an integer year, got ${String(year)}`);
}

const inYear = (row: RealizedRow, year: number): boolean => Number(row.dateSold.slice(0, 4)) === year;

/**
 * Year totals of `rows` sold in `year` (any account; pass a household's rows for household totals).
 * @example yearTotals(realizedRows(book.realized), 2025).shortTerm.net
 */
export function yearTotals(rows: readonly RealizedRow[], year: number): YearTotals {
  checkYear(year, "yearTotals");
  const st = emptyTerm();
  const lt = emptyTerm();
  for (const r of rows) {
    if (!inYear(r, year)) continue;
    addTo(r.term === "short_term" ? st : lt, r.proceeds, r.costBasis, r.adjustment, r.gain);
  }
  return {
    year,
    shortTerm: st,
    longTerm: lt,
    disallowedLoss: st.adjustments.plus(lt.adjustments),
    net: st.net.plus(lt.net),
  };
}

/**
 * How the broker reported the transactions on Form 1099-B, which picks the 8949 check box:
 * `"basis_reported"` -> box A (short-term) / D (long-term); `"basis_not_reported"` -> B / E;
 * `"no_1099b"` -> C / F.
 */
export type BasisReporting = "basis_reported" | "basis_not_reported" | "no_1099b";

const BOXES: Record<BasisReporting, { short: string; long: string }> = {
  basis_reported: { short: "A", long: "D" },
  basis_not_reported: { short: "B", long: "E" },
  no_1099b: { short: "C", long: "F" },
};

/** One Form 8949 line, in cents. */
export interface Form8949Line {
  description: string;
  dateAcquired: string;
  dateSold: string;
  proceeds: Decimal;
  costBasis: Decimal;
  adjustmentCode: "W" | "";
  adjustment: Decimal;
  gain: Decimal;
  accountId?: string;
  lotId: string;
}

/** One part of Form 8949 (Part I short-term, Part II long-term) for one check box. */
export interface Form8949Part {
  part: "I" | "II";
  box: string;
  lines: Form8949Line[];
  /** Line 2 totals: sums of the lines' columns (d), (e), (g), (h). */
  totals: { proceeds: Decimal; costBasis: Decimal; adjustment: Decimal; gain: Decimal };
}

/** Form 8949 of a year: Part I (short-term) and Part II (long-term). */
export interface Form8949 {
  year: number;
  partI: Form8949Part;
  partII: Form8949Part;
}

const cents = (d: Decimal): Decimal => d.toDecimalPlaces(2, TaxDecimal.ROUND_HALF_UP);

/**
 * A row's gain as its Form 8949 line shows it, column (h) = (d) - (e) + (g) of the columns rounded to cents (half
 * up): the lines of a year add up to Schedule D exactly, while the row's exact `gain` may differ by a cent.
 * @example form8949Gain(row) // proceeds 100.005, basis 50.004, no adjustment -> 100.01 - 50.00 = 50.01
 */
export function form8949Gain(r: RealizedRow): Decimal {
  return cents(r.proceeds).minus(cents(r.costBasis)).plus(cents(r.adjustment));
}

function lineOf(r: RealizedRow): Form8949Line {
  const proceeds = cents(r.proceeds);
  const costBasis = cents(r.costBasis);
  const adjustment = cents(r.adjustment);
  return {
    description: r.description,
    dateAcquired: r.dateAcquired,
    dateSold: r.dateSold,
    proceeds,
    costBasis,
    adjustmentCode: r.adjustmentCode,
    adjustment,
    gain: proceeds.minus(costBasis).plus(adjustment),
    ...(r.accountId === undefined ? {} : { accountId: r.accountId }),
    lotId: r.lotId,
  };
}

function partOf(part: "I" | "II", box: string, rows: readonly RealizedRow[]): Form8949Part {
  const sorted = [...rows].sort(
    (a, b) =>
      a.dateSold.localeCompare(b.dateSold) ||
      a.dateAcquired.localeCompare(b.dateAcquired) ||
      a.symbol.localeCompare(b.symbol) ||
      a.lotId.localeCompare(b.lotId),
  );
  const lines = sorted.map(lineOf);
  return { part, box, lines, totals: sumColumns(lines) };
}

/** Sums of columns (d), (e), (g), (h) of Form 8949 lines or Schedule D lines. */
function sumColumns(lines: readonly Form8949Part["totals"][]): Form8949Part["totals"] {
  const totals = { proceeds: ZERO, costBasis: ZERO, adjustment: ZERO, gain: ZERO };
  for (const l of lines) {
    totals.proceeds = totals.proceeds.plus(l.proceeds);
    totals.costBasis = totals.costBasis.plus(l.costBasis);
    totals.adjustment = totals.adjustment.plus(l.adjustment);
    totals.gain = totals.gain.plus(l.gain);
  }
  return totals;
}

/**
 * A part's lines as filed: `summary` the box A (D) lines without an adjustment, which Schedule D line 1a (8a) takes
 * instead of Form 8949 (Exception 1 of the 8949 instructions); `onForm` the others.
 */
function filing(part: Form8949Part): { summary: Form8949Line[]; onForm: Form8949Line[] } {
  const summaryBox = part.box === "A" || part.box === "D";
  return {
    summary: part.lines.filter((l) => summaryBox && l.adjustmentCode === ""),
    onForm: part.lines.filter((l) => !summaryBox || l.adjustmentCode !== ""),
  };
}

/**
 * Form 8949 lines of the rows sold in `year`: Part I the short-term rows, Part II the long-term rows, under the
 * check box that `reporting` gives (A/D by default), lines by date sold, then date acquired, symbol and lot.
 */
export function form8949(
  rows: readonly RealizedRow[],
  year: number,
  reporting: BasisReporting = "basis_reported",
): Form8949 {
  checkYear(year, "form8949");
  const boxes = BOXES[reporting];
  if (boxes === undefined) throw new RangeError(`form8949: unknown reporting ${String(reporting)}`);
  const rowsOfYear = rows.filter((r) => inYear(r, year));
  return {
    year,
    partI: partOf(
      "I",
      boxes.short,
      rowsOfYear.filter((r) => r.term === "short_term"),
    ),
    partII: partOf(
      "II",
      boxes.long,
      rowsOfYear.filter((r) => r.term === "long_term"),
    ),
  };
}

/** One Schedule D line: columns (d) proceeds, (e) cost, (g) adjustments, (h) gain, in cents. */
export interface ScheduleDLine {
  line: string;
  label: string;
  proceeds: Decimal;
  costBasis: Decimal;
  adjustment: Decimal;
  gain: Decimal;
}

const LINE_LABELS: Record<string, string> = {
  "1a": "Short-term totals, basis reported, no adjustments (not on Form 8949)",
  "1b": "Short-term totals from Form 8949 box A",
  "2": "Short-term totals from Form 8949 box B",
  "3": "Short-term totals from Form 8949 box C",
  "7": "Net short-term capital gain or (loss) of these transactions",
  "8a": "Long-term totals, basis reported, no adjustments (not on Form 8949)",
  "8b": "Long-term totals from Form 8949 box D",
  "9": "Long-term totals from Form 8949 box E",
  "10": "Long-term totals from Form 8949 box F",
  "15": "Net long-term capital gain or (loss) of these transactions",
  "16": "Net capital gain or (loss): line 7 + line 15",
};

/**
 * Schedule D lines of the rows sold in `year`. Box A (D) lines without adjustments go to line 1a (8a), the
 * summary lines that need no Form 8949; box A (D) lines with an adjustment go to 1b (8b); box B/C (E/F) to
 * lines 2/3 (9/10). Lines 7 and 15 sum these (carryovers, lines 4-6 and 11-14, are not the ledger's); 16 = 7 + 15.
 */
export function scheduleD(
  rows: readonly RealizedRow[],
  year: number,
  reporting: BasisReporting = "basis_reported",
): ScheduleDLine[] {
  const f = form8949(rows, year, reporting);
  const line = (id: string, lines: readonly Form8949Part["totals"][]): ScheduleDLine => ({
    line: id,
    label: LINE_LABELS[id]!,
    ...sumColumns(lines),
  });
  const split = (part: Form8949Part, summaryId: string, formIds: readonly [string, string, string]) => {
    const boxIndex = { A: 0, D: 0, B: 1, E: 1, C: 2, F: 2 }[part.box as "A"]!;
    const { summary, onForm } = filing(part);
    return [line(summaryId, summary), ...formIds.map((id, k) => line(id, k === boxIndex ? onForm : []))];
  };
  const st = split(f.partI, "1a", ["1b", "2", "3"]);
  const lt = split(f.partII, "8a", ["8b", "9", "10"]);
  const l7 = line("7", st);
  const l15 = line("15", lt);
  return [...st, l7, ...lt, l15, line("16", [l7, l15])];
}

/** The columns of {@link form8949Csv}, in order. */
export const FORM_8949_CSV_COLUMNS = [
  "record",
  "part",
  "box",
  "description",
  "date_acquired",
  "date_sold",
  "proceeds",
  "cost_basis",
  "adjustment_code",
  "adjustment_amount",
  "gain_or_loss",
  "account_id",
  "lot_id",
] as const;

function csvField(v: string): string {
  return /[",\n\r]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v;
}

/**
 * The year's Form 8949 and Schedule D as CSV (layout in docs/ledger.md): a header; per part (I, then II) one
 * `line` record per transaction filed on Form 8949, one `summary` record per transaction reported in summary on
 * Schedule D line 1a (8a) instead (box A/D without an adjustment: Exception 1 of the 8949 instructions), and one
 * `total` record of the part's `line` records (the form's line 2, what Schedule D line 1b/2/3 or 8b/9/10 carries);
 * then one `schedule_d` record per Schedule D line (its number in `box`, its label in `description`). Every
 * transaction is thus listed once, and no amount is counted on two lines. Amounts in dollars and cents, dates
 * YYYY-MM-DD; lines end with "\n".
 */
export function form8949Csv(
  rows: readonly RealizedRow[],
  year: number,
  reporting: BasisReporting = "basis_reported",
): string {
  const f = form8949(rows, year, reporting);
  const out: string[] = [FORM_8949_CSV_COLUMNS.join(",")];
  const money = (d: Decimal) => d.toFixed(2);
  const record = (kind: string, part: Form8949Part, l: Form8949Line) =>
    [
      kind,
      part.part,
      part.box,
      l.description,
      l.dateAcquired,
      l.dateSold,
      money(l.proceeds),
      money(l.costBasis),
      l.adjustmentCode,
      l.adjustmentCode === "" ? "" : money(l.adjustment),
      money(l.gain),
      l.accountId ?? "",
      l.lotId,
    ]
      .map(csvField)
      .join(",");
  for (const part of [f.partI, f.partII]) {
    const { summary: inSummary, onForm } = filing(part);
    for (const l of onForm) out.push(record("line", part, l));
    const t = sumColumns(onForm);
    out.push(
      [
        "total",
        part.part,
        part.box,
        `Totals Part ${part.part}`,
        "",
        "",
        money(t.proceeds),
        money(t.costBasis),
        "",
        money(t.adjustment),
        money(t.gain),
        "",
        "",
      ]
        .map(csvField)
        .join(","),
    );
    for (const l of inSummary) out.push(record("summary", part, l));
  }
  for (const l of scheduleD(rows, year, reporting))
    out.push(
      [
        "schedule_d",
        "",
        l.line,
        l.label,
        "",
        "",
        money(l.proceeds),
        money(l.costBasis),
        "",
        money(l.adjustment),
        money(l.gain),
        "",
        "",
      ]
        .map(csvField)
        .join(","),
    );
  return `${out.join("\n")}\n`;
}
