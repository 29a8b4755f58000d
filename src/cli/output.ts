/**
 * @module cli/output
 * How commands print: tables (cli-table3) for people, `--json` for machines, spinners (ora) on slow work only
 * when stderr is a terminal. Everything goes through an {@link Output} so tests can capture it.
 */
import { stripVTControlCharacters } from "node:util";
import Table from "cli-table3";

export interface Output {
  /** Machine-readable output requested (`--json`). */
  readonly json: boolean;
  /** Write a line to stdout. */
  line(text?: string): void;
  /** Write a line to stderr (progress, warnings). */
  note(text: string): void;
  /** Print a value as pretty JSON on stdout. */
  printJson(value: unknown): void;
  /** Run `work` with a spinner on stderr (when interactive); the spinner ends with ok/fail. */
  spin<T>(label: string, work: (update: (text: string) => void) => Promise<T>): Promise<T>;
}

export interface TableColumn<Row> {
  header: string;
  value: (row: Row) => string | number | null | undefined;
  align?: "left" | "right";
}

/** Table borders without a line between rows (compact, still aligned). */
const COMPACT = { mid: "", "left-mid": "", "mid-mid": "", "right-mid": "" };

/**
 * The width tables fit: the terminal's columns when stdout is a terminal, else none (pipes, files and tests get
 * the full table, as `ls` and `git` do). `LOTWISE_TABLE_WIDTH` overrides both (0: never fit).
 */
export function tableWidth(): number | undefined {
  const forced = process.env.LOTWISE_TABLE_WIDTH;
  if (forced !== undefined && /^\d+$/.test(forced)) return Number(forced) > 0 ? Number(forced) : undefined;
  return process.stdout.isTTY && process.stdout.columns > 0 ? process.stdout.columns : undefined;
}

/** Narrowest a wrapped column becomes (content width, without its two padding spaces). */
const MIN_WRAPPED_WIDTH = 10;

/**
 * Content widths of the columns so that the table fits `max` characters: null when it fits as it is. The widest
 * wrappable columns (left-aligned text; numbers never wrap) give up width first, down to {@link MIN_WRAPPED_WIDTH}
 * (or a column's own `minimum`, when larger); when even that is too wide the table is left as it is (the terminal
 * wraps it). Each column takes its content width + 2 padding + 1 border, plus one border at the end.
 */
export function fitColumnWidths(
  natural: readonly number[],
  wrappable: readonly boolean[],
  max: number,
  minimum: readonly number[] = [],
): number[] | null {
  const total = (w: readonly number[]) => w.reduce((s, x) => s + x + 3, 1);
  if (total(natural) <= max) return null;
  const widths = [...natural];
  let excess = total(widths) - max;
  while (excess > 0) {
    let widest = -1;
    for (let i = 0; i < widths.length; i++)
      if (
        wrappable[i] &&
        widths[i]! > Math.max(MIN_WRAPPED_WIDTH, minimum[i] ?? 0) &&
        (widest < 0 || widths[i]! > widths[widest]!)
      )
        widest = i;
    if (widest < 0) return null;
    // One character at a time from the widest: columns of equal width end up within one character.
    widths[widest] = widths[widest]! - 1;
    excess--;
  }
  return widths;
}

/** A uuid, or an API key (`lw_<12 hex>_...`), anywhere in a cell: identifiers a table must never cut. */
const IDENTIFIER = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|\blw_[0-9a-f]{12}_/i;

/** Length of the longest word of `text` holding a uuid or an API key (0 when none): the width it must keep. */
function longestIdentifierWord(text: string): number {
  let longest = 0;
  for (const word of stripVTControlCharacters(text).split(/\s+/))
    if (word.length > longest && IDENTIFIER.test(word)) longest = word.length;
  return longest;
}

/**
 * `text` with every word longer than `width` broken onto lines of at most `width` characters, after its last `_`,
 * `-`, `/` or `.` that fits (else at `width`): cli-table3 wraps on spaces and would cut such a word short with
 * "…" (`weight_decre…`), losing the rest. Words with colour codes are left to cli-table3.
 */
export function breakLongWords(text: string, width: number): string {
  const breakWord = (word: string): string => {
    if (word.length <= width || stripVTControlCharacters(word) !== word) return word;
    const parts: string[] = [];
    let rest = word;
    while (rest.length > width) {
      const head = rest.slice(0, width);
      const at = Math.max(
        head.lastIndexOf("_"),
        head.lastIndexOf("-"),
        head.lastIndexOf("/"),
        head.lastIndexOf("."),
      );
      const cut = at > 0 ? at + 1 : width;
      parts.push(rest.slice(0, cut));
      rest = rest.slice(cut);
    }
    parts.push(rest);
    return parts.join("\n");
  };
  return text
    .split("\n")
    .map((line) => line.split(" ").map(breakWord).join(" "))
    .join("\n");
}

/** Longest line of a cell. */
function cellWidth(text: string): number {
  let w = 0;
  for (const line of stripVTControlCharacters(text).split("\n")) w = Math.max(w, line.length);
  return w;
}

/**
 * Render rows as a bordered table with right-aligned numbers. On a terminal narrower than the table, long text
 * columns wrap so that the table fits ({@link tableWidth}, {@link fitColumnWidths}).
 */
export function renderTable<Row>(
  rows: readonly Row[],
  columns: readonly TableColumn<Row>[],
  title?: string,
  width: number | undefined = tableWidth(),
): string {
  const cells = rows.map((r) => columns.map((c) => format(c.value(r))));
  let fitted: number[] | null = null;
  if (width !== undefined) {
    const natural = columns.map((c, j) =>
      Math.max(cellWidth(c.header), ...cells.map((row) => cellWidth(row[j]!))),
    );
    fitted = fitColumnWidths(
      natural,
      columns.map((c) => (c.align ?? "left") === "left"),
      width,
      // Identifiers are never cut (a cut uuid cannot be copied into the next command): a column narrows no
      // further than its longest word holding one ("client <uuid>" wraps after "client").
      columns.map((_, j) => Math.max(0, ...cells.map((row) => longestIdentifierWord(row[j]!)))),
    );
  }
  const table = new Table({
    head: columns.map((c) => c.header),
    chars: COMPACT,
    style: { head: [], border: [] },
    colAligns: columns.map((c) => c.align ?? "left"),
    ...(fitted === null
      ? {}
      : { colWidths: fitted.map((w) => w + 2), wordWrap: true, wrapOnWordBoundary: true }),
  });
  for (const row of cells)
    table.push(fitted === null ? row : row.map((cell, j) => breakLongWords(cell, fitted[j]!)));
  return title ? `${title}\n${table.toString()}` : table.toString();
}

/**
 * Render key/value pairs as a two-column table. On a terminal narrower than the table, long values wrap in their
 * column ({@link tableWidth}); a word holding a uuid or an API key is never broken, and the keys never wrap.
 */
export function renderKeyValues(
  pairs: readonly [string, string | number | null | undefined][],
  title?: string,
  width: number | undefined = tableWidth(),
): string {
  const cells = pairs.map(([k, v]) => [k, format(v)] as const);
  let fitted: number[] | null = null;
  if (width !== undefined && cells.length > 0) {
    const natural = [0, 1].map((j) => Math.max(...cells.map((row) => cellWidth(row[j]))));
    // The value column narrows no further than its longest word holding a uuid or key (which must stay whole).
    fitted = fitColumnWidths(natural, [false, true], width, [
      0,
      Math.max(0, ...cells.map(([, v]) => longestIdentifierWord(v))),
    ]);
  }
  const table = new Table({
    chars: COMPACT,
    style: { head: [], border: [] },
    ...(fitted === null
      ? {}
      : { colWidths: fitted.map((w) => w + 2), wordWrap: true, wrapOnWordBoundary: true }),
  });
  for (const [k, v] of cells) table.push([k, fitted === null ? v : breakLongWords(v, fitted[1]!)]);
  return title ? `${title}\n${table.toString()}` : table.toString();
}

function format(v: string | number | null | undefined): string {
  if (v === null || v === undefined) return "";
  return typeof v === "number" ? String(v) : v;
}

/** Output bound to the real process streams. */
export function processOutput(json: boolean): Output {
  const interactive = Boolean(process.stderr.isTTY) && !json && process.env.CI !== "true";
  return {
    json,
    line: (text = "") => {
      process.stdout.write(`${text}\n`);
    },
    note: (text) => {
      process.stderr.write(`${text}\n`);
    },
    printJson: (value) => {
      process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
    },
    spin: async (label, work) => {
      if (!interactive) {
        if (!json) process.stderr.write(`${label}...\n`);
        return work(() => {});
      }
      // Loaded on demand: only an interactive terminal shows a spinner.
      const { default: ora } = await import("ora");
      const spinner = ora({ text: label, stream: process.stderr }).start();
      try {
        const r = await work((text) => {
          spinner.text = `${label}: ${text}`;
        });
        spinner.succeed(label);
        return r;
      } catch (err) {
        spinner.fail(label);
        throw err;
      }
    },
  };
}

/** Output that records everything, for tests. */
export function memoryOutput(json = false): Output & { stdout: string[]; stderr: string[] } {
  const stdout: string[] = [];
  const stderr: string[] = [];
  return {
    json,
    stdout,
    stderr,
    line: (text = "") => {
      stdout.push(text);
    },
    note: (text) => {
      stderr.push(text);
    },
    printJson: (value) => {
      stdout.push(JSON.stringify(value, null, 2));
    },
    spin: (_label, work) => work(() => {}),
  };
}
